//! Synthesis benchmark for PoRep partitions of any sector size, from a
//! random shape-correct C1 output (see `cuzk_filecoin_tools::bench_c1`) or a real
//! one. Prints the shape of a partition and the synthesis time and memory
//! of each partition through cuzk-synth.
//!
//! ```text
//! cuzk-porep-synth --sector-size 32GiB [--partitions 1] [--seed 1] [--count-only] [--blank]
//! cuzk-porep-synth --sector-size 32GiB --reference [--bellperson-first] [--bellperson-constraints]
//! cuzk-porep-synth --c1 c1.json [--sector-size 2KiB] [--reference]
//! cuzk-porep-synth --sector-size 32GiB --compiled [--partitions 10] [--check]
//! cuzk-porep-synth --sector-size 32GiB --compiled --native [--partitions 1]
//! ```
//!
//! `--compiled` measures the pre-compiled path: the proof type's recorded
//! circuit is loaded (or recorded and saved, `$CUZK_R1CS_CACHE`), the
//! witnesses of `--partitions` partitions are synthesized at once (one
//! thread each), then a, b, c come from the SpMV, partition after
//! partition; `--check` compares each with the classic synthesis (equal
//! field for field, or exit 1). Its last line is machine-readable:
//!
//! ```text
//! RESULT compiled sector=32GiB partitions=10 threads=16 record_s=… loaded=… matrix_gb=… uncompressed_gb=… nonzeros=… witness_wall_s=… witness_core_s=… spmv_s=… witness_gb=… assignment_gb=… same=…
//! ```
//!
//! A 32 GiB partition needs ~17 GB of memory to synthesize; `--count-only`
//! walks the circuit without keeping anything (for small machines), and
//! `--blank` also counts the blank circuit parameter generation uses.
//!
//! `--native` replaces the SpMV step: each partition's aux values from
//! the native generator (`cuzk_filecoin::porep::native_aux`), on one
//! thread (its core-seconds) and on all (its wall time, challenges in
//! parallel), compared value for value with the witness-only synthesis
//! (exit 1 if they differ), then all asked partitions at once, as the
//! engine runs a proof's partitions (`together_*`: the process's CPU
//! seconds per partition and the wall time of the lot). Its last line:
//!
//! ```text
//! RESULT native sector=32GiB partitions=1 threads=16 witness_core_s=… native_core_s=… native_wall_s=… together_core_s=… together_wall_s=… ratio=… same=yes
//! ```
//!
//! `--reference` synthesizes each partition a second time through
//! bellperson 0.27's prover (what filecoin-proofs 19 runs; see
//! `cuzk_filecoin_tools::synth_compare` for how its private synthesis is reached),
//! one side after the other with each side's output freed before the other
//! starts, and prints per partition both times, the memory each holds and
//! its peak above the baseline, the ratio, and whether both produced the
//! same numbers of inputs, aux variables and (with
//! `--bellperson-constraints`, which lets bellperson run its FFTs untimed)
//! constraints. The last line is machine-readable:
//!
//! ```text
//! RESULT sector=32GiB partitions=1 threads=16 cuzk_s=… bellperson_s=… ratio=… bellperson_repr_s=… cuzk_gb=… bellperson_gb=… cuzk_held_gb=… bellperson_held_gb=… sizes=same
//! ```
//!
//! (`ratio` = bellperson / cuzk synthesis time, `*_gb` = peak above the
//! baseline, means over the partitions.) At 32 GiB it needs ~22 GB free:
//! the sides run one after the other, cuzk at ~17 GB, bellperson at ~21 GB
//! (its `to_repr` copy of the aux assignment). A size mismatch exits with
//! status 1 after the RESULT line. The 32 GiB comparison (CPU only, run on
//! the 16-core GPU host):
//!
//! ```text
//! cargo run --release -p cuzk-filecoin-tools --bin cuzk-porep-synth -- --sector-size 32GiB --reference
//! ```

use cuzk_filecoin::c1::format_size;
use cuzk_filecoin::porep::blank_shape;
use cuzk_filecoin::{parse_c1, parse_size, partition_shape, SealProofKind, SealVersion};
use cuzk_filecoin_tools::bench_c1;
use cuzk_filecoin_tools::synth_compare::{compare_synthesis, CompareOptions, PartitionComparison};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut size: Option<u64> = None;
    let (mut partitions, mut seed, mut count_only, mut blank) = (1usize, 1u64, false, false);
    let (mut reference, mut bellperson_first, mut bellperson_constraints) = (false, false, false);
    let (mut compiled, mut check, mut native) = (false, false, false);
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
            "--reference" => reference = true,
            "--bellperson-first" => bellperson_first = true,
            "--bellperson-constraints" => bellperson_constraints = true,
            "--compiled" => compiled = true,
            "--check" => check = true,
            "--native" => native = true,
            other => return Err(format!("unknown argument {other:?}").into()),
        }
    }
    if (bellperson_first || bellperson_constraints) && !reference {
        return Err("--bellperson-first and --bellperson-constraints need --reference".into());
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
        "{}: C1 {} in {:.2?}, {} CPU threads",
        c1.kind.api_name(),
        if c1_path.is_some() {
            "parsed"
        } else {
            "generated (random, shape-correct)"
        },
        t.elapsed(),
        threads()
    );

    // The counting pass walks the whole circuit (~1 min of one core at
    // 32 GiB), so it runs only when asked for; synthesis reports the shape.
    if count_only || blank {
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
            let b = blank_shape(&c1.kind)?;
            println!(
                "blank circuit (parameter generation) shape: {b:?} ({:.2?}) -> {}",
                t.elapsed(),
                if b == shape { "same" } else { "DIFFERENT" }
            );
        }
        if count_only {
            return Ok(());
        }
    }
    if reference {
        let opts = CompareOptions {
            partitions,
            bellperson_first,
            bellperson_constraints,
        };
        return run_reference(&c1, opts);
    }

    if native && !compiled {
        return Err("--native needs --compiled".into());
    }
    if compiled {
        return run_compiled(&c1, partitions, check, native);
    }
    let total = cuzk_filecoin::public_inputs(&c1)?.len();
    let mut secs = Vec::new();
    for k in 0..partitions.min(total) {
        let t = Instant::now();
        let pa = cuzk_filecoin::porep::synthesize_partition(&c1, k, None)?;
        let dt = t.elapsed();
        secs.push(dt.as_secs_f64());
        println!(
            "partition {k}: synthesis {dt:.2?}, {} constraints ({} inputs, {} aux), {:.2} GB, aux 0/1 fraction {:.3}",
            pa.num_constraints(),
            pa.num_inputs(),
            pa.num_aux(),
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

/// `--compiled`: record (or load) the circuit, witnesses of all asked
/// partitions at once, then the SpMV of each (optionally checked against
/// the classic synthesis).
fn run_compiled(
    c1: &cuzk_filecoin::C1Output,
    partitions: usize,
    check: bool,
    native: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    use cuzk_filecoin::compiled::{default_r1cs_dir, R1csCache};
    let cache = R1csCache::new(default_r1cs_dir());
    let (r1cs, report) = cache.porep(&c1.kind, None)?;
    let report = report.ok_or("a fresh cache returned no report")?;
    let size = r1cs.size();
    println!(
        "recorded circuit {}: {} in {:.2?}{}",
        report.path.display(),
        if report.recorded {
            "recorded and saved"
        } else {
            "loaded"
        },
        report.elapsed,
        report
            .replaced
            .map(|w| format!(" (replaced: {w})"))
            .unwrap_or_default()
    );
    for (name, m) in ["A", "B", "C"].iter().zip(size.matrices) {
        println!(
            "  {name}: {} rows, {} non-zeros, {} coefficients (index {} B), {:.2} GB compressed, {:.2} GB as plain CSR, varint-delta columns would be {:.2} GB",
            m.rows,
            m.nonzeros,
            m.table_len,
            m.index_width,
            m.compressed_bytes as f64 / 1e9,
            m.uncompressed_bytes as f64 / 1e9,
            m.varint_delta_col_bytes as f64 / 1e9,
        );
    }
    let total = cuzk_filecoin::public_inputs(c1)?.len();
    let ks: Vec<usize> = (0..partitions.min(total)).collect();
    let t = Instant::now();
    let ws = cuzk_filecoin::porep::witness_partitions(c1, &ks, &r1cs)?;
    let wall = t.elapsed().as_secs_f64();
    let core: f64 = ws.iter().map(|(_, d)| d.as_secs_f64()).sum();
    let witness_bytes: usize = ws
        .iter()
        .map(|(w, _)| 32 * (w.input_assignment.len() + w.aux_assignment.len()))
        .sum();
    println!(
        "{} witnesses at once: {wall:.2} s wall, {:.2} core-s per partition, {:.2} GB each",
        ws.len(),
        core / ws.len().max(1) as f64,
        witness_bytes as f64 / ws.len().max(1) as f64 / 1e9
    );
    if native {
        return run_native(c1, r1cs.shape().num_aux, &ks, ws, core);
    }
    let (mut spmv, mut same, mut pa_bytes) = (0.0, true, 0usize);
    for (k, (w, d)) in ks.iter().zip(ws) {
        let t = Instant::now();
        let pa = r1cs.evaluate(w)?;
        let s = t.elapsed().as_secs_f64();
        spmv += s;
        pa_bytes = pa.memory_bytes();
        let verdict = if check {
            let classic = cuzk_filecoin::porep::synthesize_partition(c1, *k, None)?;
            let eq = classic == pa;
            same &= eq;
            if eq {
                ", equals the classic synthesis"
            } else {
                ", DIFFERS from the classic synthesis"
            }
        } else {
            ""
        };
        println!("partition {k}: witness {d:.2?}, SpMV {s:.2} s{verdict}");
    }
    let n = ks.len().max(1) as f64;
    println!(
        "RESULT compiled sector={} partitions={} threads={} record_s={:.2} loaded={} matrix_gb={:.2} uncompressed_gb={:.2} nonzeros={} witness_wall_s={wall:.2} witness_core_s={:.2} spmv_s={:.2} witness_gb={:.2} assignment_gb={:.2} same={}",
        format_size(c1.kind.sector_size),
        ks.len(),
        threads(),
        report.elapsed.as_secs_f64(),
        !report.recorded,
        size.compressed_bytes() as f64 / 1e9,
        size.uncompressed_bytes() as f64 / 1e9,
        size.nonzeros(),
        core / n,
        spmv / n,
        witness_bytes as f64 / n / 1e9,
        pa_bytes as f64 / 1e9,
        if !check { "unchecked" } else if same { "yes" } else { "NO" }
    );
    if !same {
        return Err("the compiled path differs from the classic synthesis".into());
    }
    Ok(())
}

/// `--native`: each partition's native aux values on one thread and on
/// all, against its witness-only synthesis (`witness_core`: their summed
/// core-seconds).
fn run_native(
    c1: &cuzk_filecoin::C1Output,
    num_aux: usize,
    ks: &[usize],
    ws: Vec<(cuzk_synth::compiled::Witness, std::time::Duration)>,
    witness_core: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let (mut core, mut wall, mut same) = (0.0, 0.0, true);
    for (&k, (w, _)) in ks.iter().zip(&ws) {
        let t = Instant::now();
        let a = one.install(|| cuzk_filecoin::porep::native_aux(c1, k, num_aux))?;
        let c = t.elapsed().as_secs_f64();
        drop(a);
        let t = Instant::now();
        let b = cuzk_filecoin::porep::native_aux(c1, k, num_aux)?;
        let s = t.elapsed().as_secs_f64();
        let first = b
            .iter()
            .zip(w.aux_assignment.iter())
            .position(|(x, y)| x != y)
            .or((b.len() != w.aux_assignment.len()).then_some(b.len()));
        same &= first.is_none();
        println!(
            "partition {k}: native {c:.2} s on 1 thread, {s:.2} s on {}{}",
            threads(),
            match first {
                None => ", equals the witness-only synthesis".to_string(),
                Some(i) => format!(", DIFFERS from the witness-only synthesis at aux {i}"),
            }
        );
        core += c;
        wall += s;
    }
    // All partitions at once, as the engine synthesizes a proof's
    // partitions side by side: the process's CPU time per partition under
    // that contention, and the wall time of the lot. Each result is
    // compared and dropped inside its task, so at most one native witness
    // per thread is alive beside the witness-only ones.
    use rayon::prelude::*;
    let (cpu0, t) = (process_cpu_s(), Instant::now());
    let differ = ks
        .par_iter()
        .zip(ws.par_iter())
        .map(|(&k, (w, _))| -> Result<bool, String> {
            let b = cuzk_filecoin::porep::native_aux(c1, k, num_aux).map_err(|e| e.to_string())?;
            Ok(b != w.aux_assignment)
        })
        .collect::<Result<Vec<bool>, String>>()?;
    let together_wall = t.elapsed().as_secs_f64();
    let together_core = process_cpu_s() - cpu0;
    let together_same = !differ.contains(&true);
    same &= together_same;
    println!(
        "all {} partitions at once: {together_wall:.2} s wall, {together_core:.2} core-s{}",
        ks.len(),
        if !together_same {
            ", a partition DIFFERS from its witness-only synthesis"
        } else {
            ""
        }
    );
    let n = ks.len().max(1) as f64;
    println!(
        "RESULT native sector={} partitions={} threads={} witness_core_s={:.2} native_core_s={:.2} native_wall_s={:.2} together_core_s={:.2} together_wall_s={:.2} ratio={:.1} same={}",
        format_size(c1.kind.sector_size),
        ks.len(),
        threads(),
        witness_core / n,
        core / n,
        wall / n,
        together_core / n,
        together_wall,
        witness_core / core.max(1e-9),
        if same { "yes" } else { "NO" }
    );
    if !same {
        return Err("the native witness differs from the witness-only synthesis".into());
    }
    Ok(())
}

/// `--reference`: cuzk and bellperson on the same partitions.
fn run_reference(
    c1: &cuzk_filecoin::C1Output,
    opts: CompareOptions,
) -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "comparing synthesis, {} first, each side's output freed before the other runs",
        if opts.bellperson_first {
            "bellperson"
        } else {
            "cuzk"
        }
    );
    let (rows, total) = compare_synthesis(c1, opts, &mut print_partition)?;
    if rows.is_empty() {
        return Err(format!("no partition compared (the C1 output has {total})").into());
    }
    let n = rows.len() as f64;
    let mean = |f: &dyn Fn(&PartitionComparison) -> f64| rows.iter().map(f).sum::<f64>() / n;
    let mean_gb = |f: &dyn Fn(&PartitionComparison) -> Option<u64>| {
        let v: Option<Vec<u64>> = rows.iter().map(f).collect();
        v.map_or("na".to_string(), |v| {
            format!("{:.2}", v.iter().sum::<u64>() as f64 / n / 1e9)
        })
    };
    let cuzk_s = mean(&|r| r.cuzk.synthesis.as_secs_f64());
    let bell_s = mean(&|r| r.bellperson.synthesis.as_secs_f64());
    let same = rows.iter().all(PartitionComparison::counts_match);
    println!(
        "mean per partition: cuzk {cuzk_s:.2} s, bellperson {bell_s:.2} s, bellperson/cuzk {:.2}x",
        bell_s / cuzk_s
    );
    println!(
        "RESULT sector={} partitions={} threads={} cuzk_s={cuzk_s:.2} bellperson_s={bell_s:.2} ratio={:.2} bellperson_repr_s={:.2} cuzk_gb={} bellperson_gb={} cuzk_held_gb={} bellperson_held_gb={} sizes={}",
        format_size(c1.kind.sector_size),
        rows.len(),
        threads(),
        bell_s / cuzk_s,
        mean(&|r| r.bellperson.conversion.as_secs_f64()),
        mean_gb(&|r| r.cuzk.peak_bytes),
        mean_gb(&|r| r.bellperson.peak_bytes),
        mean_gb(&|r| r.cuzk.held_bytes),
        mean_gb(&|r| r.bellperson.held_bytes),
        if same { "same" } else { "DIFFERENT" }
    );
    if !same {
        return Err("cuzk and bellperson synthesized different sizes".into());
    }
    Ok(())
}

fn print_partition(r: &PartitionComparison) {
    let gb = |b: Option<u64>| b.map_or("n/a".to_string(), |b| format!("{:.2} GB", b as f64 / 1e9));
    let (c, b) = (&r.cuzk, &r.bellperson);
    println!("partition {}:", r.partition);
    println!(
        "  cuzk        synthesis {:>8.2?}, holds {}, peak +{}, aux 0/1 fraction {:.3}",
        c.synthesis,
        gb(c.held_bytes),
        gb(c.peak_bytes),
        r.aux_bit_fraction
    );
    println!(
        "  bellperson  synthesis {:>8.2?}, holds {}, peak +{}; then to_repr {:.2?}, peak +{}",
        b.synthesis,
        gb(b.held_bytes),
        gb(b.peak_bytes),
        b.conversion,
        gb(b.peak_with_conversion_bytes)
    );
    let ratio = |x: Option<u64>, y: Option<u64>| match (x, y) {
        (Some(x), Some(y)) if y > 0 => format!("{:.2}x", x as f64 / y as f64),
        _ => "n/a".to_string(),
    };
    println!(
        "  bellperson/cuzk: time {:.2}x, peak {}, held {}",
        b.synthesis.as_secs_f64() / c.synthesis.as_secs_f64(),
        ratio(b.peak_bytes, c.peak_bytes),
        ratio(b.held_bytes, c.held_bytes)
    );
    let constraints = match (c.constraints, b.constraints) {
        (Some(x), Some(y)) => format!("{x} / {y}"),
        (Some(x), None) => format!("{x} / not reported (--bellperson-constraints)"),
        _ => "n/a".to_string(),
    };
    println!(
        "  sizes cuzk / bellperson: constraints {constraints}, inputs {} / {}, aux {} / {}: {}",
        c.inputs,
        b.inputs,
        c.aux,
        b.aux,
        if r.counts_match() {
            "same"
        } else {
            "DIFFERENT"
        }
    );
}

/// User plus system CPU seconds of this process so far, from
/// `/proc/self/stat` (fields 14 and 15, in the kernel's USER_HZ = 100
/// ticks per second on Linux); 0 where that file is absent.
fn process_cpu_s() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // The command name (field 2) may hold spaces: count from its ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<u64>() as f64 / 100.0
}

fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
