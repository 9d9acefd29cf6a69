//! A `log` logger that prints warnings (and, with `--verbose`, everything)
//! to stderr, and notes the instant bellperson's supraseal prover finishes
//! synthesis.
//!
//! Why a logger: bellperson 0.26's supraseal prover synthesizes every circuit
//! of the batch, logs `"synthesis time: …"` and then `"starting proof timer"`,
//! and only then hands the vectors to supraseal-c2. That log call is the one
//! observable point between the two phases from outside the crate. We record
//! `Instant::now()` when it arrives, so "GPU phase" = end of the call − that
//! instant, measured in the same run. The alternative, timing bellperson's
//! synthesis in a separate run and subtracting, would mix two runs (different
//! allocator and cache state, and the batch synthesizes in parallel), and
//! parsing the `Debug` text of the logged durations would tie us to their
//! formatting; the instant is exact to the log call's own cost (~µs).

use log::{Level, LevelFilter, Log, Metadata, Record};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The message bellperson logs right after synthesis.
const HANDOFF_MESSAGE: &str = "starting proof timer";
/// The module that logs it.
const HANDOFF_TARGET: &str = "bellperson::groth16::prover";

static HANDOFF: Mutex<Option<Instant>> = Mutex::new(None);
static VERBOSE: AtomicBool = AtomicBool::new(false);
static LOGGER: AnchorLogger = AnchorLogger;

struct AnchorLogger;

impl Log for AnchorLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= Level::Info
    }

    fn log(&self, record: &Record<'_>) {
        if record.level() == Level::Info && record.target().starts_with(HANDOFF_TARGET) {
            let is_handoff = match record.args().as_str() {
                Some(s) => s == HANDOFF_MESSAGE,
                None => record.args().to_string() == HANDOFF_MESSAGE,
            };
            if is_handoff {
                let now = Instant::now();
                *HANDOFF.lock().unwrap_or_else(|e| e.into_inner()) = Some(now);
            }
        }
        if VERBOSE.load(Ordering::Relaxed) || record.level() <= Level::Warn {
            eprintln!("[{} {}] {}", record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

/// Installs the logger (once; later calls are ignored).
pub fn init(verbose: bool) {
    VERBOSE.store(verbose, Ordering::Relaxed);
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(LevelFilter::Info);
    }
}

/// Forgets any earlier hand-off instant (call before a proving call).
#[cfg_attr(not(feature = "supraseal"), allow(dead_code))]
pub fn clear_handoff() {
    *HANDOFF.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// The instant of the last hand-off since [`clear_handoff`], if any.
#[cfg_attr(not(feature = "supraseal"), allow(dead_code))]
pub fn take_handoff() -> Option<Instant> {
    HANDOFF.lock().unwrap_or_else(|e| e.into_inner()).take()
}
