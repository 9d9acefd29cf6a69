//! Circuits for tests and benchmarks: [`TinyCircuit`] (small enough to
//! check by hand) and [`BenchCircuit`] (Filecoin-like, seedable, sized to a
//! power-of-two domain from 2^3 to 2^32 constraints).

mod bench;
mod tiny;

pub use bench::{
    BenchCircuit, BenchError, BenchLayout, MAX_LOG_DOMAIN, MIN_CONSTRAINTS, SHA_THRESHOLD,
};
pub use tiny::TinyCircuit;
