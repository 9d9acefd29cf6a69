//! `cuzk verify`: check proofs against a verifying key and public inputs.

use crate::cmd::read_inputs;
use crate::output::Ctx;
use anyhow::{bail, Context, Result};
use cuzk_groth16::{verify_proof, CheckMode, Proof, VerifyingKey};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Verifying key (`.vk`, bellperson format).
    #[arg(long, conflicts_with = "params")]
    pub vk: Option<PathBuf>,
    /// Or a whole `.params` file (only its verifying key is used).
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Proof file: one or more 192-byte proofs, concatenated. Required.
    #[arg(long)]
    pub proof: Option<PathBuf>,
    /// Public inputs (JSON as written by `cuzk prove`); default: <proof>.inputs.json.
    #[arg(long)]
    pub inputs: Option<PathBuf>,
}

pub fn run(ctx: &Ctx, a: Args) -> Result<()> {
    let proof_path = a.proof.clone().context("--proof is required")?;
    let vk = match (&a.vk, &a.params) {
        (Some(p), _) => {
            VerifyingKey::load(p, CheckMode::Full).context("cannot load verifying key")?
        }
        (None, Some(p)) => crate::cmd::load_params(ctx, p, false)?.vk,
        (None, None) => bail!("pass --vk or --params"),
    };
    let bytes = crate::cmd::limits::read(
        &proof_path,
        crate::cmd::limits::PROOF_FILE_LIMIT,
        "a proof file",
    )
    .with_context(|| format!("cannot read {}", proof_path.display()))?;
    let proofs =
        Proof::many_from_bytes(&bytes).with_context(|| format!("{}", proof_path.display()))?;
    let inputs_path = a
        .inputs
        .clone()
        .unwrap_or_else(|| proof_path.with_extension("inputs.json"));
    let inputs = read_inputs(&inputs_path)?;
    if inputs.len() != proofs.len() {
        bail!(
            "{} holds {} proofs but {} has {} input vectors",
            proof_path.display(),
            proofs.len(),
            inputs_path.display(),
            inputs.len()
        );
    }
    let pvk = vk.prepare();
    let mut results = Vec::new();
    for (i, (p, x)) in proofs.iter().zip(&inputs).enumerate() {
        results.push(verify_proof(&pvk, p, x).with_context(|| format!("proof #{i}"))?);
    }
    let all = results.iter().all(|x| *x);
    if ctx.json {
        println!(
            "{}",
            serde_json::json!({ "proofs": proofs.len(), "valid": results, "all_valid": all })
        );
    } else {
        for (i, ok) in results.iter().enumerate() {
            ctx.say(format!(
                "proof #{i}: {}",
                if *ok { "valid" } else { "INVALID" }
            ));
        }
    }
    if !all {
        bail!(
            "{} of {} proofs did not verify",
            results.iter().filter(|x| !**x).count(),
            results.len()
        );
    }
    Ok(())
}
