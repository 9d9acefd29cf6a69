//! # cuzk-filecoin
//!
//! Filecoin proofs through cuzk: PoRep commit phase 2 (C2), WinningPoSt,
//! WindowPoSt and SnapDeals. This crate and its tooling
//! (`cuzk-filecoin-tools`) are the only ones that depend on the Filecoin
//! proof stack (filecoin-proofs 19, storage-proofs 19), so the core crates
//! stay light.
//!
//! - [`parse_c1`] → [`C1Output`]: a C1 output in filecoin-proofs' JSON, in
//!   filecoin-proofs-api's JSON (what Lotus and Curio store) or in Curio's
//!   `{"SectorNum", "Phase1Out": base64, "SectorSize"}` wrapper.
//! - [`prove_c2`]: builds each partition's circuit exactly as
//!   filecoin-proofs' `seal_commit_phase2` does, finds the v28 `.params`
//!   file by its standard name ([`params`]), checks it against the
//!   circuit, synthesizes through `cuzk-synth` and proves with a
//!   `cuzk-groth16` backend; the result is byte-for-byte the format
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
//! - [`aggregate`]: SnarkPack aggregates of N sectors' seal proofs
//!   ([`aggregate_seals`]: the bytes of filecoin-proofs'
//!   `aggregate_seal_commit_proofs`, made by `cuzk-snarkpack` and checked
//!   by `verify_aggregate_seal_commit_proofs`, a failure naming the input
//!   proof that does not verify), from a JSON manifest
//!   ([`AggregateRequest::parse`]).
//! - [`params`]: every proof kind's parameter file by its standard name
//!   ([`ProofKind::params_file_name`], [`locate`]).
//! - [`job`]: the one way any of them becomes an engine job.
//! - [`compiled`]: PoRep and SnapDeals circuits recorded once, kept on
//!   disk.
//!
//! Test data, random benchmark inputs and measurement binaries are in
//! `cuzk-filecoin-tools`.
//!
//! Features: none.
#![forbid(unsafe_code)]

pub mod aggregate;
pub mod c1;
pub mod compiled;
pub mod error;
pub mod job;
pub mod native;
pub mod params;
pub mod porep;
pub mod post;
pub mod snap;

pub use aggregate::{
    aggregate_seals, verify_aggregate, AggregateRequest, SealStatement, SealedProof,
};
pub use c1::{
    parse_c1, parse_prover_id, parse_size, C1Output, C1Public, SealProofKind, SealVersion,
};
pub use cuzk_scheduler::WitnessGen;
pub use error::{FilecoinError, Result};
pub use job::{circuit_job, run_job, ProofJob, ProofOutput, ProofSource};
pub use params::{check_params, check_srs, locate, locate_srs, use_param_dir, ProofKind};
pub use porep::{
    blank_shape, finish_c2, partition_shape, prove_c2, public_inputs, synthesize_c1, verify_c2,
    C2Options,
};
pub use post::{
    prove_post, verify_post, PostInput, PostOptions, PostProofKind, PostType, PostVersion,
};
pub use snap::{prove_snap, verify_snap, SnapInput, SnapProofKind};
