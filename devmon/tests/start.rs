//! Starting a monitor: argument checks everywhere; on a machine with an
//! NVIDIA driver (`CUZK_EXPECT_GPU=1` makes one required) its first GPU
//! gives readings, and a PCI location with no GPU a typed error; without a
//! driver, `NoNvml`.

use cuzk_devmon::{DevmonError, Monitor, Target};
use std::time::Duration;

fn expect_gpu() -> bool {
    std::env::var("CUZK_EXPECT_GPU").is_ok_and(|v| v == "1")
}

#[test]
fn bad_arguments_are_refused_before_nvml() {
    let t = Target {
        label: 0,
        pci_bus: 0,
        pci_device: 0,
    };
    assert_eq!(
        Monitor::start(vec![t], Duration::from_millis(1)).unwrap_err(),
        DevmonError::BadPeriod(Duration::from_millis(1))
    );
    assert_eq!(
        Monitor::start(vec![t], Duration::from_secs(11)).unwrap_err(),
        DevmonError::BadPeriod(Duration::from_secs(11))
    );
    assert_eq!(
        Monitor::start(Vec::new(), Duration::from_millis(100)).unwrap_err(),
        DevmonError::NoTargets
    );
}

#[test]
fn a_gpu_gives_readings_and_nothing_else_does() {
    // A PCI location no GPU has (bus 0xff is the last, never a GPU's).
    let nowhere = Target {
        label: 7,
        pci_bus: 0xff,
        pci_device: 0x1f,
    };
    match Monitor::start(vec![nowhere], Duration::from_millis(20)) {
        Err(DevmonError::NoNvml(why)) => {
            assert!(!expect_gpu(), "CUZK_EXPECT_GPU=1 but no NVML: {why}");
            return;
        }
        Err(DevmonError::NoSuchDevice { label, bus, device }) => {
            assert_eq!((label, bus, device), (7, 0xff, 0x1f));
        }
        other => panic!("a GPU at bus 0xff? {other:?}"),
    }
    let Some(t) = cuzk_devmon::first_gpu() else {
        assert!(!expect_gpu(), "NVML lists no GPU");
        return;
    };
    let m = match Monitor::start(vec![t], Duration::from_millis(20)) {
        Ok(m) => m,
        Err(e @ (DevmonError::NotSupported { .. } | DevmonError::NoPermission { .. })) => {
            // An older GPU or a driver that keeps counters for
            // administrators: a typed refusal is the right answer.
            eprintln!("counters not readable here: {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    std::thread::sleep(Duration::from_millis(250));
    let first = m.take();
    let done = m.stop();
    assert_eq!(done.failed_reads, 0, "{:?}", done.first_error);
    let all: Vec<_> = first.iter().chain(&done.samples).collect();
    // 250 ms at 20 ms a reading, plus the last at stop.
    assert!(all.len() >= 8, "{} readings", all.len());
    for w in all.windows(2) {
        assert_eq!(w[1].start, w[0].end, "readings must tile time");
    }
    for s in &all {
        assert_eq!(s.label, t.label);
        let busy = s
            .metrics
            .sm_busy_pct
            .expect("SMs busy is read on every GPM device");
        assert!((0.0..=100.0).contains(&busy), "{busy}");
    }
}
