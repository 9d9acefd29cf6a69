//! # cuzk-devmon
//!
//! What a GPU's streaming multiprocessors did over time, read from the
//! hardware's counters through NVML's GPU Performance Monitoring (GPM,
//! Hopper and newer) on a thread of its own: the share of SMs that held a
//! warp, warp occupancy, the integer pipe's and DRAM bandwidth's use, and
//! PCIe traffic, per fixed period.
//!
//! Why counters and not spans. Two GPU workers put kernels on one device
//! from separate streams; a stage's span (host clock or CUDA events on its
//! stream) starts when the stream reaches it, not when its kernels get
//! SMs, so two overlapping spans say nothing about whether the SMs were
//! shared or merely queued. The SMs-busy share of a period is that
//! answer: busy share × period is device time at full width, whatever the
//! streams did.
//!
//! NVML is loaded at run time (`libnvidia-ml.so.1`, part of the driver),
//! so this crate builds and runs anywhere; without a driver, on an older
//! GPU, or where the driver keeps counters for administrators
//! (`NVreg_RestrictProfilingToAdminUsers=1`), [`Monitor::start`] returns
//! the matching [`DevmonError`].
//!
//! ```no_run
//! use cuzk_devmon::{Monitor, Target};
//! use std::time::Duration;
//! let m = Monitor::start(
//!     vec![Target { label: 0, pci_bus: 0x19, pci_device: 0 }],
//!     Duration::from_millis(200),
//! )?;
//! // ... work on the GPU ...
//! let done = m.stop();
//! for s in &done.samples {
//!     println!("{:?}: SMs busy {:?} %", s.end - s.start, s.metrics.sm_busy_pct);
//! }
//! # Ok::<(), cuzk_devmon::DevmonError>(())
//! ```

mod monitor;

pub use monitor::{Finished, Monitor};
use std::time::{Duration, Instant};

/// A device to watch: where it sits on the PCI bus (how CUDA's ordinal and
/// NVML's index, which order devices differently, are matched), and the
/// label its samples carry (the caller's device ordinal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The caller's name for the device, copied into its samples.
    pub label: u32,
    /// PCI bus number (CUDA's `pciBusID`).
    pub pci_bus: u32,
    /// PCI device number (CUDA's `pciDeviceID`).
    pub pci_device: u32,
}

/// One period's counters. A metric the device could not give is `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Share of the period each SM held at least one warp, averaged over
    /// the SMs, % (GPM `SM_UTIL`).
    pub sm_busy_pct: Option<f64>,
    /// Resident warps against the SMs' maximum, averaged, % (GPM
    /// `SM_OCCUPANCY`).
    pub sm_occupancy_pct: Option<f64>,
    /// Share of the period the SMs' integer pipe issued, % (GPM
    /// `INTEGER_UTIL`): the MSM's and NTT's field products live there.
    pub integer_pct: Option<f64>,
    /// Share of peak DRAM bandwidth used, % (GPM `DRAM_BW_UTIL`).
    pub dram_bw_pct: Option<f64>,
    /// PCIe bytes received by the device per second, MiB/s.
    pub pcie_rx_mib_s: Option<f64>,
    /// PCIe bytes sent by the device per second, MiB/s.
    pub pcie_tx_mib_s: Option<f64>,
}

impl Metrics {
    /// Every metric with its name (the names timelines use), in a fixed
    /// order.
    pub fn named(&self) -> [(&'static str, Option<f64>); 6] {
        [
            ("sm_busy_pct", self.sm_busy_pct),
            ("sm_occupancy_pct", self.sm_occupancy_pct),
            ("integer_pct", self.integer_pct),
            ("dram_bw_pct", self.dram_bw_pct),
            ("pcie_rx_mib_s", self.pcie_rx_mib_s),
            ("pcie_tx_mib_s", self.pcie_tx_mib_s),
        ]
    }
}

/// The counters of one device between two readings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The [`Target::label`] of the device.
    pub label: u32,
    /// The earlier reading.
    pub start: Instant,
    /// The later reading.
    pub end: Instant,
    /// The counters between them.
    pub metrics: Metrics,
}

/// Why the devices cannot be watched, or a reading failed.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum DevmonError {
    /// No NVML: no NVIDIA driver on this machine, or its library could not
    /// be loaded.
    #[error("NVML is not available (no NVIDIA driver?): {0}")]
    NoNvml(String),
    /// No NVML device sits at the target's PCI location.
    #[error("device {label}: NVML has no device at PCI bus {bus:#04x} device {device:#04x}")]
    NoSuchDevice {
        /// The target's label.
        label: u32,
        /// Its PCI bus.
        bus: u32,
        /// Its PCI device.
        device: u32,
    },
    /// The GPU has no GPM counters (before Hopper) or the driver does not
    /// offer them.
    #[error("device {label}: the GPU has no performance-monitoring counters NVML can read (Hopper or newer, driver 520 or newer)")]
    NotSupported {
        /// The target's label.
        label: u32,
    },
    /// The driver keeps the counters for administrators.
    #[error("device {label}: reading the performance counters is not permitted for this user (the driver's NVreg_RestrictProfilingToAdminUsers)")]
    NoPermission {
        /// The target's label.
        label: u32,
    },
    /// Any other NVML failure.
    #[error("device {label}: NVML {call}: {msg}")]
    Nvml {
        /// The target's label.
        label: u32,
        /// The NVML call.
        call: &'static str,
        /// NVML's error, in words.
        msg: String,
    },
    /// The sampling period is outside [`MIN_PERIOD`, `MAX_PERIOD`].
    #[error("sampling period {0:?} is outside 10 ms ..= 10 s")]
    BadPeriod(Duration),
    /// No devices were given.
    #[error("no devices to watch")]
    NoTargets,
}

/// Shortest sampling period: below it the counters' own read cost
/// (≈ 0.1 ms a device) and the host thread's jitter dominate.
pub const MIN_PERIOD: Duration = Duration::from_millis(10);
/// Longest sampling period.
pub const MAX_PERIOD: Duration = Duration::from_secs(10);

/// The first GPU NVML lists, as a target labelled with its NVML index
/// (0), or `None` without NVML or a GPU. For tests and tools that watch
/// "the" GPU; callers that prove on a CUDA ordinal build their [`Target`]
/// from the device's PCI location instead.
pub fn first_gpu() -> Option<Target> {
    let nvml = nvml_wrapper::Nvml::init().ok()?;
    let pci = nvml.device_by_index(0).ok()?.pci_info().ok()?;
    Some(Target {
        label: 0,
        pci_bus: pci.bus,
        pci_device: pci.device,
    })
}

/// Time-weighted means of the samples' metrics over the parts of them
/// that fall in `[from, to]` (seconds on the caller's clock; `at(sample)`
/// gives a sample's start and end on it), each metric over the samples
/// that have it. `None` where no sample with the metric overlaps.
pub fn weighted_mean<S>(
    samples: &[S],
    from: f64,
    to: f64,
    at: impl Fn(&S) -> (f64, f64, Metrics),
) -> Metrics {
    let mut sum = [0.0f64; 6];
    let mut weight = [0.0f64; 6];
    for s in samples {
        let (a, b, m) = at(s);
        let w = (b.min(to) - a.max(from)).max(0.0);
        if w <= 0.0 {
            continue;
        }
        for (i, (_, v)) in m.named().iter().enumerate() {
            if let Some(v) = v {
                sum[i] += v * w;
                weight[i] += w;
            }
        }
    }
    let get = |i: usize| (weight[i] > 0.0).then(|| sum[i] / weight[i]);
    Metrics {
        sm_busy_pct: get(0),
        sm_occupancy_pct: get(1),
        integer_pct: get(2),
        dram_bw_pct: get(3),
        pcie_rx_mib_s: get(4),
        pcie_tx_mib_s: get(5),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(busy: f64, rx: Option<f64>) -> Metrics {
        Metrics {
            sm_busy_pct: Some(busy),
            pcie_rx_mib_s: rx,
            ..Metrics::default()
        }
    }

    #[test]
    fn means_weigh_by_the_overlap_with_the_window() {
        // 0–1 s at 100 %, 1–3 s at 40 %, 3–4 s at 0 %.
        let s = [
            (0.0, 1.0, m(100.0, Some(10.0))),
            (1.0, 3.0, m(40.0, None)),
            (3.0, 4.0, m(0.0, None)),
        ];
        let all = weighted_mean(&s, 0.0, 4.0, |x| *x);
        assert!((all.sm_busy_pct.unwrap() - 45.0).abs() < 1e-12);
        // Only the first sample has PCIe: its mean is its own value.
        assert_eq!(all.pcie_rx_mib_s, Some(10.0));
        assert_eq!(all.integer_pct, None);
        // Half of the first sample and half of the second: (0.5·100 + 1·40) / 1.5.
        let part = weighted_mean(&s, 0.5, 2.0, |x| *x);
        assert!((part.sm_busy_pct.unwrap() - 60.0).abs() < 1e-12);
        // Outside every sample: nothing.
        assert_eq!(weighted_mean(&s, 5.0, 6.0, |x| *x), Metrics::default());
    }

    #[test]
    fn named_lists_every_field_once() {
        let x = Metrics {
            sm_busy_pct: Some(1.0),
            sm_occupancy_pct: Some(2.0),
            integer_pct: Some(3.0),
            dram_bw_pct: Some(4.0),
            pcie_rx_mib_s: Some(5.0),
            pcie_tx_mib_s: Some(6.0),
        };
        let v: Vec<f64> = x.named().iter().map(|(_, v)| v.unwrap()).collect();
        assert_eq!(v, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let back = weighted_mean(&[x], 0.0, 1.0, |x| (0.0, 1.0, *x));
        assert_eq!(back, x);
    }
}
