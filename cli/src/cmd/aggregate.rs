//! `cuzk aggregate porep` and `cuzk verify aggregate`: SnarkPack
//! aggregates of N sectors' seal proofs from a JSON manifest
//! (`cuzk_filecoin::aggregate`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use cuzk_filecoin::aggregate::{aggregate_seals, verify_aggregate, AggregateRequest};

use crate::cmd::limits;
use crate::output::Ctx;
use crate::params::ParamArgs;
use cuzk_scheduler::params::ParamFiles;

/// `cuzk aggregate porep`.
#[derive(Args, Debug, Clone)]
pub struct AggregatePorepArgs {
    /// The manifest: JSON {"registered_proof", "aggregate_version"
    /// (optional, v2), "sectors": [{"sector_id", "prover_id", "comm_r",
    /// "comm_d", "ticket", "seed", "proof" (base64) or "proof_file" (raw
    /// C2 bytes, relative to the manifest)}]}, in aggregate order.
    #[arg(long, value_name = "FILE")]
    pub manifest: PathBuf,
    /// Where to write the aggregate (the bytes filecoin-proofs'
    /// `aggregate_seal_commit_proofs` returns).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Directory of the `.params`/`.vk` files and the inner-product SRS
    /// (`v28-fil-inner-product-v1.srs`).
    #[command(flatten)]
    pub params: ParamArgs,
}

/// `cuzk verify aggregate`.
#[derive(Args, Debug, Clone)]
pub struct VerifyAggregateArgs {
    /// The manifest the aggregate was made from (its sectors' proofs are
    /// not needed: statements alone verify).
    #[arg(long, value_name = "FILE")]
    pub manifest: PathBuf,
    /// The aggregate.
    #[arg(long, value_name = "FILE")]
    pub proof: PathBuf,
    #[command(flatten)]
    pub params: ParamArgs,
}

fn read_manifest(path: &Path) -> Result<AggregateRequest> {
    let bytes = limits::read(path, limits::MANIFEST_FILE_LIMIT, "an aggregation manifest")?;
    let base = path.parent().unwrap_or(Path::new("."));
    AggregateRequest::parse(&bytes, Some(base))
        .with_context(|| format!("manifest {}", path.display()))
}

/// Runs `cuzk aggregate porep`: the aggregate made and verified (a failure
/// names the input proof that does not verify), then written.
pub fn run(ctx: &Ctx, a: &AggregatePorepArgs) -> Result<()> {
    limits::check_outputs(&[("--out", &a.out)], &[("--manifest", &a.manifest)])?;
    let req = read_manifest(&a.manifest)?;
    let dir = a.params.dir(None, ParamFiles::Filecoin);
    let t = Instant::now();
    let agg = aggregate_seals(&req, &dir)?;
    let secs = t.elapsed().as_secs_f64();
    // Written whole or not at all: a reader never sees half an aggregate.
    let tmp = cuzk_groth16::params::unique_tmp(&a.out);
    std::fs::write(&tmp, &agg)
        .and_then(|()| std::fs::rename(&tmp, &a.out))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    let padded = cuzk_filecoin::aggregate::padded_proofs(&req.kind, req.seals.len())?;
    if ctx.json {
        println!(
            "{}",
            serde_json::json!({
                "registered_proof": req.kind.api_name(),
                "sectors": req.seals.len(),
                "aggregated_proofs": padded,
                "bytes": agg.len(),
                "seconds": secs,
                "out": a.out,
            })
        );
    } else {
        println!(
            "{}: {} sectors ({padded} partition proofs once padded) → {} bytes in {secs:.2} s, verified; written to {}",
            req.kind.api_name(),
            req.seals.len(),
            agg.len(),
            a.out.display()
        );
    }
    Ok(())
}

/// Runs `cuzk verify aggregate`; `Ok(false)` is an aggregate that does not
/// verify.
pub fn run_verify(a: &VerifyAggregateArgs) -> Result<bool> {
    let req = read_manifest(&a.manifest)?;
    let dir = a.params.dir(None, ParamFiles::Filecoin);
    let agg = limits::read(&a.proof, limits::PROOF_FILE_LIMIT, "an aggregate")?;
    let st: Vec<_> = req.seals.iter().map(|s| s.statement).collect();
    let ok = verify_aggregate(&req.kind, req.version, &st, &agg, &dir)?;
    println!(
        "{}: aggregate of {} sectors {}",
        req.kind.api_name(),
        st.len(),
        if ok { "valid" } else { "INVALID" }
    );
    Ok(ok)
}
