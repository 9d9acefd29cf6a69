//! `cargo xtask e2e-porep`: the Filecoin end-to-end check every engineer runs
//! before touching synth or groth16: seal a test sector, prove its C2 with
//! cuzk, and have filecoin-proofs' `verify_seal` accept it (and reject a
//! flipped byte). Parameters are generated once per machine and cached.

use anyhow::{bail, Context, Result};
use std::process::Command;

pub(crate) fn run(sector_size: &str, reference: bool, cuzk_generator: bool) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(crate::workspace_root())
        .args([
            "run",
            "--release",
            "-p",
            "cuzk-filecoin-tools",
            "--bin",
            "cuzk-porep-e2e",
            "--",
        ])
        .args(["--sector-size", sector_size]);
    if reference {
        cmd.arg("--reference");
    }
    if cuzk_generator {
        cmd.args(["--generator", "cuzk"]);
    }
    let status = cmd.status().context("running cargo")?;
    if !status.success() {
        bail!("the PoRep end-to-end check failed ({status})");
    }
    Ok(())
}
