//! # cuzk-filecoin-tools
//!
//! The tooling around `cuzk-filecoin`, kept out of the library so that a
//! prover built on it carries no test-data or measurement code:
//!
//! - [`testdata`]: locally generated parameters for test sector sizes
//!   (seeded: never for production), test sectors sealed end to end, PoSt
//!   vanilla proofs and SnapDeals updates, cached once per machine
//!   (`cuzk testdata …`, and the Filecoin crates' tests).
//! - [`bench_c1`]: a shape-correct C1 output of any size with random
//!   vanilla proofs (32 GiB: the real synthesis and proving cost without
//!   sealing 32 GiB; its proofs do not verify) — `cuzk bench porep`.
//! - [`bench_vanilla`]: the same for WinningPoSt, WindowPoSt and
//!   SnapDeals vanilla proofs — `cuzk bench winning-post|window-post|snap`.
//! - [`synth_compare`]: one partition synthesized through cuzk-synth and
//!   through bellperson 0.27's prover, with time, memory and sizes.
//!
//! Binaries: `cuzk-porep-e2e` (a sealed test sector's C2 through cuzk,
//! checked by filecoin-proofs' `verify_seal`; `cargo xtask e2e-porep`) and
//! `cuzk-porep-synth` (PoRep synthesis per partition, classic or
//! compiled, optionally against bellperson: `--reference`).
//!
//! Features: `cuda` (the GPU parameter generator,
//! `cuzk testdata … --generator cuzk-gpu`).
#![forbid(unsafe_code)]

pub mod bench_c1;
pub mod bench_vanilla;
pub mod synth_compare;
pub mod testdata;
