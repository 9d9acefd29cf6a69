//! Fault injection for tests (feature `fault-injection`, never in a
//! production build): makes the n-th next device allocation, copy or
//! kernel launch fail as the CUDA runtime would report it, or makes the
//! n-th next MSM result wrong, so tests on the GPU machine can check
//! that the engine answers each with a clear error, returns the device
//! memory, keeps serving, and never hands out a wrong proof.
//!
//! Where each fault is raised:
//! - [`Fault::Alloc`]: before the `cudaMalloc` of [`crate::DeviceBuffer::alloc`]
//!   and the `cudaHostAlloc` of [`crate::host::alloc_pinned`] (the call is
//!   not made, so nothing leaks by construction of the test);
//! - [`Fault::Copy`]: before every host↔device and device↔device copy of
//!   [`crate::DeviceBuffer`];
//! - [`Fault::Launch`]: in [`crate::check_shim_error`], after a kernel entry
//!   point of cuzk-ntt, cuzk-msm or cuzk-spmv returned: the work was
//!   enqueued and is then abandoned, as after a real launch failure;
//! - [`Fault::CorruptMsm`]: consulted by cuzk-msm's GPU path where the
//!   window sums of a full MSM become its result, which then gets the
//!   group generator added: silent corruption of one MSM. (A flipped bit
//!   of a coordinate would leave the curve, which blstrs' point types
//!   refuse to hold; a wrong point on the curve is the harder case for a
//!   check to notice.)
//!
//! The state is process-wide (one counter per kind), so a test that arms
//! a fault must not share its process with other GPU tests running at the
//! same time: GPU test binaries run with `--test-threads 1`.
//!
//! Without the feature [`hit`] is an inline `Ok(())` and nothing else
//! exists.

#[cfg(feature = "fault-injection")]
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{GpuError, Result};

/// The kinds of injected faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fault {
    /// A device or page-locked host allocation fails (out of memory).
    Alloc,
    /// A copy fails.
    Copy,
    /// A kernel launch fails.
    Launch,
    /// An MSM result is wrong (silent data corruption).
    CorruptMsm,
}

impl Fault {
    /// Every kind, in the order the tests visit them.
    pub const ALL: [Fault; 4] = [Fault::Alloc, Fault::Copy, Fault::Launch, Fault::CorruptMsm];

    #[cfg(feature = "fault-injection")]
    fn slot(self) -> usize {
        self as usize
    }

    /// The error the CUDA runtime reports for this kind of failure, marked
    /// as injected (but for [`Fault::Alloc`], which is the typed
    /// [`GpuError::OutOfMemory`] a real one maps to, so callers' matches
    /// are exercised). [`Fault::CorruptMsm`] raises no error.
    pub fn error(self) -> GpuError {
        let (code, name, message) = match self {
            Fault::Alloc => {
                return GpuError::OutOfMemory {
                    requested: None,
                    free: None,
                }
            }
            Fault::Copy => (1, "cudaErrorInvalidValue", "invalid argument"),
            Fault::Launch => (719, "cudaErrorLaunchFailure", "unspecified launch failure"),
            Fault::CorruptMsm => (0, "none", "no error"),
        };
        GpuError::Cuda {
            code,
            name: name.into(),
            message: format!("{message} (injected fault)"),
        }
    }
}

#[cfg(feature = "fault-injection")]
static COUNTDOWN: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];
#[cfg(feature = "fault-injection")]
static FIRED: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

/// Arms `kind`: the `nth` next operation of that kind (1 = the very next)
/// fails, once. `nth == 0` disarms it.
#[cfg(feature = "fault-injection")]
pub fn arm(kind: Fault, nth: u64) {
    COUNTDOWN[kind.slot()].store(nth, Ordering::SeqCst);
}

/// Disarms every kind (the fired counts stay).
#[cfg(feature = "fault-injection")]
pub fn disarm_all() {
    for c in &COUNTDOWN {
        c.store(0, Ordering::SeqCst);
    }
}

/// Whether `kind` is still armed (its operation has not come yet).
#[cfg(feature = "fault-injection")]
pub fn armed(kind: Fault) -> bool {
    COUNTDOWN[kind.slot()].load(Ordering::SeqCst) != 0
}

/// How often `kind` has fired in this process.
#[cfg(feature = "fault-injection")]
pub fn fired(kind: Fault) -> u64 {
    FIRED[kind.slot()].load(Ordering::SeqCst)
}

/// Counts one operation of `kind`: true when it is the one to fail.
#[cfg(feature = "fault-injection")]
pub fn take(kind: Fault) -> bool {
    let slot = &COUNTDOWN[kind.slot()];
    let fire = slot
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| match n {
            0 => None,
            n => Some(n - 1),
        })
        .is_ok_and(|before| before == 1);
    if fire {
        FIRED[kind.slot()].fetch_add(1, Ordering::SeqCst);
    }
    fire
}

/// Without the feature nothing is ever armed.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn take(_kind: Fault) -> bool {
    false
}

/// Counts one operation of `kind` and fails it when it is the armed one.
#[inline(always)]
pub fn hit(kind: Fault) -> Result<()> {
    if take(kind) {
        Err(kind.error())
    } else {
        Ok(())
    }
}

#[cfg(all(test, feature = "fault-injection"))]
mod tests {
    use super::*;

    // One test: the counters are process-wide.
    #[test]
    fn armed_faults_fire_once_at_the_nth_operation() {
        disarm_all();
        for k in Fault::ALL {
            assert!(hit(k).is_ok(), "{k:?} disarmed");
        }
        arm(Fault::Copy, 3);
        let before = fired(Fault::Copy);
        assert!(hit(Fault::Copy).is_ok());
        assert!(hit(Fault::Alloc).is_ok(), "another kind is not counted");
        assert!(hit(Fault::Copy).is_ok());
        assert!(armed(Fault::Copy));
        let e = hit(Fault::Copy).unwrap_err();
        assert!(e.to_string().contains("injected"), "{e}");
        assert!(!armed(Fault::Copy));
        assert!(hit(Fault::Copy).is_ok(), "fires once");
        assert_eq!(fired(Fault::Copy), before + 1);
        arm(Fault::Launch, 1);
        disarm_all();
        assert!(hit(Fault::Launch).is_ok());
        assert!(Fault::Alloc.error().is_out_of_memory());

        // No GPU in CI: without the hook, allocations would fail with
        // NotBuilt or NoDevice; with the armed fault they fail with the
        // injected out-of-memory before the runtime is called.
        if let Ok(dev) = crate::Device::new(0) {
            arm(Fault::Alloc, 1);
            let e = crate::DeviceBuffer::<u64>::alloc(&dev, 16).unwrap_err();
            assert!(
                matches!(
                    e,
                    GpuError::OutOfMemory {
                        requested: Some(128),
                        ..
                    }
                ),
                "{e:?}"
            );
        }
        arm(Fault::Alloc, 1);
        let e = crate::host::alloc_pinned(4096).unwrap_err();
        assert!(matches!(e, GpuError::HostAlloc(_)), "{e:?}");
        disarm_all();
    }
}
