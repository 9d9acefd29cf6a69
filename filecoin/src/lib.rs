//! # cuzk-filecoin
//!
//! Filecoin PoRep commit phase 2 (C2) through cuzk: the one crate of the
//! workspace that depends on the Filecoin proof stack (filecoin-proofs 19,
//! storage-proofs 19, bellperson 0.27), so the core crates stay light.
//!
//! - [`parse_c1`] → [`C1Output`]: a C1 output in filecoin-proofs' JSON, in
//!   filecoin-proofs-api's JSON (what Lotus and Curio store) or in Curio's
//!   `{"SectorNum", "Phase1Out": base64, "SectorSize"}` wrapper.
//! - [`prove_c2`]: builds each partition's circuit exactly as
//!   filecoin-proofs' `seal_commit_phase2` does, finds the v28 `.params` file
//!   by its standard name ([`locate_params`], [`resolve_param_dir`]), checks
//!   it against the circuit, synthesizes through `cuzk-synth` and proves
//!   with a `cuzk-groth16` backend; the result is byte-for-byte the format
//!   `seal_commit_phase2` returns (partition proofs concatenated).
//! - [`verify_c2`]: filecoin-proofs' own `verify_seal`.
//! - [`post`]: WinningPoSt and WindowPoSt from filecoin-proofs-api's
//!   vanilla proofs ([`prove_post`], [`verify_post`] with filecoin-proofs'
//!   `verify_winning_post` / `verify_window_post`), same bytes format as
//!   `generate_*_post_with_vanilla`.
//! - [`snap`]: SnapDeals (empty-sector update) from
//!   `generate_partition_proofs`' vanilla proofs ([`prove_snap`],
//!   [`verify_snap`] with filecoin-proofs' `verify_empty_sector_update_proof`),
//!   same bytes format as `generate_empty_sector_update_proof_with_vanilla`.
//! - [`job`]: the one way any of them becomes an engine job.
//! - [`testdata`]: locally generated parameters for test sector sizes and
//!   test sectors sealed end to end, cached once per machine.
//! - [`bench_c1`]: a shape-correct C1 output of any size with random
//!   vanilla proofs (32 GiB: the real synthesis and proving cost without
//!   sealing 32 GiB; its proofs do not verify).
//! - [`synth_compare`]: one partition synthesized through cuzk-synth and
//!   through bellperson 0.27's prover, with time, memory and sizes
//!   (`cuzk-porep-synth --reference`).
//!
//! Features: none.
#![forbid(unsafe_code)]

pub mod bench_c1;
pub mod bench_vanilla;
pub mod c1;
pub mod compiled;
pub mod error;
pub mod job;
pub mod porep;
pub mod post;
pub mod snap;
pub mod synth_compare;
pub mod testdata;

pub use c1::{
    parse_c1, parse_prover_id, parse_size, C1Output, C1Public, SealProofKind, SealVersion,
};
pub use error::{FilecoinError, Result};
pub use job::{run_job, ProofJob, ProofOutput, ProofSource};
pub use porep::{
    check_params, locate_params, params_file_name, partition_shape, prove_c2, public_inputs,
    resolve_param_dir, synthesize_c1, use_param_dir, verify_c2, C2Options,
};
pub use post::{
    locate_post_params, post_params_file_name, prove_post, verify_post, PostInput, PostOptions,
    PostProofKind, PostType, PostVersion,
};
pub use snap::{prove_snap, verify_snap, SnapInput, SnapProofKind};
