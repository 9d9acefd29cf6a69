//! What one measured proving call yields, for either side.

use std::time::Duration;

/// One proving call of `batch` circuits.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Circuits proved in the call.
    pub batch: usize,
    /// The whole call, synthesis included.
    pub wall: Duration,
    /// Synthesis of the whole batch.
    pub synth: Duration,
    /// Everything after synthesis (H step, MSMs, epilogue), whole batch;
    /// `None` if the side could not separate it.
    pub gpu: Option<Duration>,
    /// Time inside `wall` spent verifying proofs (cuzk's self-check; zero for
    /// supraseal, which returns unverified proofs).
    pub self_check: Duration,
    /// Every proof of the call passed bellperson's verifier.
    pub verified: bool,
}
