//! Synthesis benchmark for PoRep partitions of any sector size, from a
//! random shape-correct C1 output (see `cuzk_filecoin::bench_c1`) or a real
//! one. Prints the constraint count per partition and the synthesis time
//! and memory of each partition through cuzk-synth.
//!
//! ```text
//! cuzk-porep-synth --sector-size 32GiB [--partitions 1] [--seed 1] [--count-only] [--blank]
//! cuzk-porep-synth --c1 c1.json [--sector-size 2KiB]
//! ```
//!
//! A 32 GiB partition needs ~17 GB of memory to synthesize; `--count-only`
//! walks the circuit without keeping anything (for small machines).

use cuzk_filecoin::{bench_c1, parse_c1, parse_size, partition_shape, SealProofKind, SealVersion};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut size: Option<u64> = None;
    let (mut partitions, mut seed, mut count_only, mut blank) = (1usize, 1u64, false, false);
    let mut c1_path: Option<String> = None;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--sector-size" => size = Some(parse_size(val()?)?),
            "--partitions" => partitions = val()?.parse()?,
            "--seed" => seed = val()?.parse()?,
            "--c1" => c1_path = Some(val()?.clone()),
            "--count-only" => count_only = true,
            "--blank" => blank = true,
            other => return Err(format!("unknown argument {other:?}").into()),
        }
    }
    let t = Instant::now();
    let c1 = match &c1_path {
        Some(p) => parse_c1(&std::fs::read(p)?, size)?,
        None => bench_c1::random_c1(
            &SealProofKind::new(size.unwrap_or(32 << 30), SealVersion::V1_1)?,
            seed,
        )?,
    };
    println!(
        "{}: C1 {} in {:.2?}, rayon threads {}",
        c1.kind.api_name(),
        if c1_path.is_some() {
            "parsed"
        } else {
            "generated (random, shape-correct)"
        },
        t.elapsed(),
        rayon_threads()
    );

    let t = Instant::now();
    let shape = partition_shape(&c1)?;
    println!(
        "shape per partition: {} constraints ({} circuit + {} input constraints), {} inputs (ONE incl.), {} aux, domain 2^{} (count: {:.2?})",
        shape.num_constraints,
        shape.num_constraints - shape.num_inputs,
        shape.num_inputs,
        shape.num_inputs,
        shape.num_aux,
        shape.domain_size().trailing_zeros(),
        t.elapsed()
    );
    if blank {
        let t = Instant::now();
        let b = bench_c1::blank_shape(&c1.kind)?;
        println!(
            "blank circuit (parameter generation) shape: {b:?} ({:.2?}) -> {}",
            t.elapsed(),
            if b == shape { "same" } else { "DIFFERENT" }
        );
    }
    if count_only {
        return Ok(());
    }
    let total = cuzk_filecoin::public_inputs(&c1)?.len();
    let mut secs = Vec::new();
    for k in 0..partitions.min(total) {
        let t = Instant::now();
        let pa = cuzk_filecoin::porep::synthesize_partition(&c1, k)?;
        let dt = t.elapsed();
        secs.push(dt.as_secs_f64());
        println!(
            "partition {k}: synthesis {dt:.2?}, {} constraints, {:.2} GB, aux 0/1 fraction {:.3}",
            pa.num_constraints(),
            pa.memory_bytes() as f64 / 1e9,
            pa.aux_bit_fraction()
        );
    }
    if !secs.is_empty() {
        println!(
            "mean synthesis per partition: {:.2} s",
            secs.iter().sum::<f64>() / secs.len() as f64
        );
    }
    Ok(())
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
