//! The invariants cuzk's parsers of outside bytes keep on any input: no
//! panic, no allocation beyond what the input's length allows, and the
//! round trips each module names. Each `check` panics where an invariant
//! fails, which is what libFuzzer and a test both need.
//!
//! Two drivers run them: the libFuzzer targets of `fuzz/` (one line each,
//! `cargo xtask fuzz`, docs/RELIABILITY.md) and `tests/seeds.rs`, which
//! replays every committed seed under `cargo test`.
#![forbid(unsafe_code)]

pub mod c1;
pub mod config;
pub mod daemon_request;
pub mod params;
pub mod proof;
pub mod r1cs;
mod vanilla_input;
pub mod vanilla_post;
pub mod vanilla_snap;
pub mod vk;

/// A target's check: panics where an invariant fails on the input.
pub type Check = fn(&[u8]);

/// Every target by name (the `[[bin]]` names of `fuzz/Cargo.toml` and the
/// folders of `fuzz/seeds`), in the order `cargo xtask fuzz` runs them.
pub const TARGETS: [(&str, Check); 9] = [
    ("params", params::check),
    ("vk", vk::check),
    ("proof", proof::check),
    ("c1", c1::check),
    ("config", config::check),
    ("daemon_request", daemon_request::check),
    ("vanilla_post", vanilla_post::check),
    ("vanilla_snap", vanilla_snap::check),
    ("r1cs", r1cs::check),
];
