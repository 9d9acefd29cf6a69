//! One PoSt partition's witness from random, shape-correct vanilla proofs
//! (`cuzk_filecoin_tools::bench_vanilla`), made the two ways a job can
//! make it: witness-only synthesis of the circuit (sectors in parallel
//! through the extensible system) and the native generator
//! (`cuzk_filecoin::post::native_aux`, sectors in parallel into one
//! buffer), each on one thread and on all. The proof type's record is
//! loaded, or recorded and saved (`$CUZK_R1CS_CACHE`); all four aux
//! assignments are checked equal, value for value. No parameter file is
//! needed.
//!
//! ```text
//! cuzk-post-synth [--post window|winning] [--sector-size 32GiB] [--seed 1] [--no-serial-generic]
//! ```
//!
//! `--no-serial-generic` leaves out the one-thread witness-only run (a
//! 32 GiB WindowPoSt partition's takes minutes; `one_thread_s=NaN`).
//!
//! The last line is machine-readable:
//!
//! ```text
//! RESULT post=window sector=32GiB sectors=2349 threads=16 record_s=… recorded=… constraints=… aux=… witness_gb=… one_thread_s=… all_threads_s=… speedup=… native_one_thread_s=… native_all_threads_s=… same=true
//! ```
//!
//! A 32 GiB WindowPoSt partition needs about three witnesses of memory
//! (the result, the sub-systems being appended, and the one-thread run's
//! result kept for the comparison) plus the record.

use cuzk_filecoin::c1::format_size;
use cuzk_filecoin::compiled::{default_r1cs_dir, R1csCache};
use cuzk_filecoin::post::{native_aux, prepare};
use cuzk_filecoin::{parse_size, FilecoinError, PostProofKind, PostType, PostVersion, Result};
use cuzk_filecoin_tools::bench_vanilla::random_post;
use std::time::Instant;
use storage_proofs_core::merkle::MerkleTreeTrait;

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let (mut typ, mut size, mut seed) = (PostType::Window, 32u64 << 30, 1u64);
    let mut serial_generic = true;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--post" => {
                typ = match val()?.as_str() {
                    "window" => PostType::Window,
                    "winning" => PostType::Winning,
                    other => return Err(format!("--post window|winning, not {other:?}").into()),
                }
            }
            "--sector-size" => size = parse_size(val()?)?,
            "--seed" => seed = val()?.parse()?,
            "--no-serial-generic" => serial_generic = false,
            other => return Err(format!("unknown argument {other:?}").into()),
        }
    }
    let version = match typ {
        PostType::Window => PostVersion::V1_2,
        PostType::Winning => PostVersion::V1,
    };
    let kind = PostProofKind::new(typ, size, version)?;
    Ok(cuzk_filecoin::with_tree!(
        size,
        run(&kind, seed, serial_generic)
    )?)
}

fn other(e: impl Into<anyhow::Error>) -> FilecoinError {
    FilecoinError::Proofs(e.into())
}

fn run<Tree: 'static + MerkleTreeTrait>(
    kind: &PostProofKind,
    seed: u64,
    serial_generic: bool,
) -> Result<()> {
    let threads = rayon::current_num_threads();
    let sectors = kind.sectors_per_partition();
    let input = random_post(kind, sectors, seed)?;
    let (circuits, _) = prepare::<Tree>(&input, false)?;
    let circuit = circuits
        .into_iter()
        .next()
        .ok_or_else(|| other(anyhow::anyhow!("no partition")))?;
    println!(
        "{} {}: one partition of {sectors} sector(s), random vanilla proofs, {threads} threads",
        kind.api_name(),
        format_size(kind.sector_size)
    );

    let cache = R1csCache::new(default_r1cs_dir());
    let (rec, report) = cache.post(kind, None)?;
    let (record_s, recorded) =
        report.map_or((0.0, false), |r| (r.elapsed.as_secs_f64(), r.recorded));
    let shape = rec.shape();
    println!(
        "record: {} in {record_s:.1} s ({} constraints, {} aux, {} inputs)",
        if recorded { "recorded" } else { "loaded" },
        shape.num_constraints,
        shape.num_aux,
        shape.num_inputs
    );

    // One thread: the sectors run one after the other in the same
    // sub-systems, so only the parallelism differs.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(other)?;
    let mut one_s = f64::NAN;
    let one = match serial_generic {
        true => {
            let t = Instant::now();
            let one = pool
                .install(|| rec.witness(circuit.clone()))
                .map_err(FilecoinError::Compiled)?;
            one_s = t.elapsed().as_secs_f64();
            println!("witness on 1 thread: {one_s:.2} s");
            Some(one)
        }
        false => None,
    };
    let t = Instant::now();
    let all = rec.witness(circuit).map_err(FilecoinError::Compiled)?;
    let all_s = t.elapsed().as_secs_f64();
    println!("witness on {threads} threads: {all_s:.2} s");
    let mut same = one.map_or(true, |one| {
        one.input_assignment == all.input_assignment
            && one.aux_assignment[..] == all.aux_assignment[..]
            && one.trace_hash() == all.trace_hash()
    });

    let mut native = |n: usize| -> Result<f64> {
        let t = Instant::now();
        let aux = match n {
            1 => pool.install(|| native_aux(&input, 0, shape.num_aux))?,
            _ => native_aux(&input, 0, shape.num_aux)?,
        };
        let s = t.elapsed().as_secs_f64();
        println!("native witness on {n} thread(s): {s:.2} s");
        same &= aux[..] == all.aux_assignment[..];
        Ok(s)
    };
    let native_one_s = native(1)?;
    let native_all_s = native(threads)?;
    println!(
        "RESULT post={} sector={} sectors={sectors} threads={threads} record_s={record_s:.1} recorded={recorded} constraints={} aux={} witness_gb={:.2} one_thread_s={one_s:.2} all_threads_s={all_s:.2} speedup={:.2} native_one_thread_s={native_one_s:.2} native_all_threads_s={native_all_s:.2} same={same}",
        match kind.typ {
            PostType::Window => "window",
            PostType::Winning => "winning",
        },
        format_size(kind.sector_size),
        shape.num_constraints,
        shape.num_aux,
        shape.witness_bytes() as f64 / 1e9,
        one_s / all_s,
    );
    if !same {
        return Err(other(anyhow::anyhow!("the witnesses differ")));
    }
    Ok(())
}
