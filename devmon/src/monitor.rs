//! The sampling thread.

use crate::{DevmonError, Metrics, Sample, Target, MAX_PERIOD, MIN_PERIOD};
use nvml_wrapper::enums::gpm::GpmMetricId;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::gpm::{gpm_metrics_get, GpmSample};
use nvml_wrapper::{Device, Nvml};
use parking_lot::Mutex;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The metrics read each period, in [`Metrics`]' order.
const IDS: [GpmMetricId; 6] = [
    GpmMetricId::SmUtil,
    GpmMetricId::SmOccupancy,
    GpmMetricId::IntegerUtil,
    GpmMetricId::DramBwUtil,
    GpmMetricId::PcieRxPerSec,
    GpmMetricId::PcieTxPerSec,
];

/// What the thread shares with its owner.
#[derive(Debug, Default)]
struct Shared {
    samples: Vec<Sample>,
    failed: u64,
    first_error: Option<DevmonError>,
}

/// A thread that reads the targets' counters every period until stopped.
#[derive(Debug)]
pub struct Monitor {
    shared: Arc<Mutex<Shared>>,
    stop: mpsc::Sender<()>,
    thread: Option<JoinHandle<()>>,
}

/// What a stopped monitor saw.
#[derive(Debug)]
pub struct Finished {
    /// Samples not yet taken by [`Monitor::take`], in time order per device.
    pub samples: Vec<Sample>,
    /// Readings that failed after the start (their periods are merged into
    /// the next good reading's sample).
    pub failed_reads: u64,
    /// The first of those failures.
    pub first_error: Option<DevmonError>,
}

impl Monitor {
    /// Starts watching `targets`, one reading per device every `period`.
    /// Returns once every device gave a first reading, or with the reason
    /// none can be watched.
    pub fn start(targets: Vec<Target>, period: Duration) -> Result<Monitor, DevmonError> {
        if !(MIN_PERIOD..=MAX_PERIOD).contains(&period) {
            return Err(DevmonError::BadPeriod(period));
        }
        if targets.is_empty() {
            return Err(DevmonError::NoTargets);
        }
        let shared = Arc::new(Mutex::new(Shared::default()));
        let (stop, stop_rx) = mpsc::channel();
        let (ready_tx, ready) = mpsc::channel();
        let sh = shared.clone();
        let thread = std::thread::Builder::new()
            .name("cuzk-devmon".into())
            .spawn(move || run(&targets, period, &sh, &stop_rx, &ready_tx))
            .map_err(|e| DevmonError::NoNvml(format!("cannot start the sampling thread: {e}")))?;
        match ready.recv() {
            Ok(Ok(())) => Ok(Monitor {
                shared,
                stop,
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err(DevmonError::NoNvml(
                    "the sampling thread ended early".into(),
                ))
            }
        }
    }

    /// Takes the samples read since the last call.
    pub fn take(&self) -> Vec<Sample> {
        std::mem::take(&mut self.shared.lock().samples)
    }

    /// Stops the thread after one last reading and returns what it saw
    /// that [`Monitor::take`] has not.
    pub fn stop(mut self) -> Finished {
        self.halt();
        let mut sh = self.shared.lock();
        Finished {
            samples: std::mem::take(&mut sh.samples),
            failed_reads: sh.failed,
            first_error: sh.first_error.take(),
        }
    }

    fn halt(&mut self) {
        let _ = self.stop.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.halt();
    }
}

fn nvml_err(label: u32, call: &'static str, e: NvmlError) -> DevmonError {
    match e {
        NvmlError::NotSupported => DevmonError::NotSupported { label },
        NvmlError::NoPermission => DevmonError::NoPermission { label },
        e => DevmonError::Nvml {
            label,
            call,
            msg: e.to_string(),
        },
    }
}

/// The NVML device at the target's PCI location.
fn find<'n>(nvml: &'n Nvml, t: &Target) -> Result<Device<'n>, DevmonError> {
    let n = nvml
        .device_count()
        .map_err(|e| nvml_err(t.label, "nvmlDeviceGetCount", e))?;
    for i in 0..n {
        let d = nvml
            .device_by_index(i)
            .map_err(|e| nvml_err(t.label, "nvmlDeviceGetHandleByIndex", e))?;
        let pci = d
            .pci_info()
            .map_err(|e| nvml_err(t.label, "nvmlDeviceGetPciInfo", e))?;
        if pci.bus == t.pci_bus && pci.device == t.pci_device {
            return Ok(d);
        }
    }
    Err(DevmonError::NoSuchDevice {
        label: t.label,
        bus: t.pci_bus,
        device: t.pci_device,
    })
}

/// One device being read: its handle, last reading and when it was taken.
struct Watched<'n> {
    label: u32,
    device: Device<'n>,
    last: GpmSample<'n>,
    at: Instant,
}

fn open<'n>(nvml: &'n Nvml, t: &Target) -> Result<Watched<'n>, DevmonError> {
    let device = find(nvml, t)?;
    match device.gpm_support() {
        Ok(true) => {}
        Ok(false) => return Err(DevmonError::NotSupported { label: t.label }),
        Err(e) => return Err(nvml_err(t.label, "nvmlGpmQueryDeviceSupport", e)),
    }
    let last = device
        .gpm_sample()
        .map_err(|e| nvml_err(t.label, "nvmlGpmSampleGet", e))?;
    Ok(Watched {
        label: t.label,
        device,
        last,
        at: Instant::now(),
    })
}

/// A new reading of `w` and the metrics since its last one.
fn read<'n>(nvml: &'n Nvml, w: &mut Watched<'n>) -> Result<Sample, DevmonError> {
    let now = w
        .device
        .gpm_sample()
        .map_err(|e| nvml_err(w.label, "nvmlGpmSampleGet", e))?;
    let at = Instant::now();
    let got = gpm_metrics_get(nvml, &w.last, &now, &IDS)
        .map_err(|e| nvml_err(w.label, "nvmlGpmMetricsGet", e))?;
    let v = |i: usize| got.get(i).and_then(|r| r.as_ref().ok()).map(|r| r.value);
    let sample = Sample {
        label: w.label,
        start: w.at,
        end: at,
        metrics: Metrics {
            sm_busy_pct: v(0),
            sm_occupancy_pct: v(1),
            integer_pct: v(2),
            dram_bw_pct: v(3),
            pcie_rx_mib_s: v(4),
            pcie_tx_mib_s: v(5),
        },
    };
    w.last = now;
    w.at = at;
    Ok(sample)
}

fn run(
    targets: &[Target],
    period: Duration,
    shared: &Mutex<Shared>,
    stop: &mpsc::Receiver<()>,
    ready: &mpsc::Sender<Result<(), DevmonError>>,
) {
    let nvml = match Nvml::init() {
        Ok(n) => n,
        Err(e) => {
            let _ = ready.send(Err(DevmonError::NoNvml(e.to_string())));
            return;
        }
    };
    let mut watched = Vec::with_capacity(targets.len());
    for t in targets {
        match open(&nvml, t) {
            Ok(w) => watched.push(w),
            Err(e) => {
                let _ = ready.send(Err(e));
                return;
            }
        }
    }
    if ready.send(Ok(())).is_err() {
        return;
    }
    let mut next = Instant::now() + period;
    loop {
        let wait = next.saturating_duration_since(Instant::now());
        let last = match stop.recv_timeout(wait) {
            Err(RecvTimeoutError::Timeout) => false,
            Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
        };
        next += period;
        for w in &mut watched {
            let r = read(&nvml, w);
            let mut sh = shared.lock();
            match r {
                Ok(s) => sh.samples.push(s),
                Err(e) => {
                    sh.failed += 1;
                    sh.first_error.get_or_insert(e);
                }
            }
        }
        if last {
            break;
        }
    }
}
