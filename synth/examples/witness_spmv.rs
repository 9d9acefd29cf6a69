//! Classic synthesis against witness-only synthesis + the CPU SpMV, on
//! the bench circuit, with the recorded matrix sizes.
//!
//! Run: `cargo run --release -p cuzk-synth --example witness_spmv -- 16 18 20`
//! (log2 domain sizes; default 16 18). Each timing is the best of
//! `REPS` runs (env, default 3); the final assignments are checked equal.
//! Classic synthesis is one thread per circuit; the SpMV uses every rayon
//! thread (`RAYON_NUM_THREADS=1` for core-seconds).

use std::time::{Duration, Instant};

use cuzk_synth::{
    circuits::BenchCircuit,
    compiled::{synthesize_witness, CompiledR1cs, Witness},
    synthesize, synthesize_reusing, ProvingAssignment,
};

fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    // The previous result is dropped outside the timed part.
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..reps {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        out = Some(r);
    }
    (best, out.expect("reps ≥ 1"))
}

fn mib(b: usize) -> f64 {
    b as f64 / (1 << 20) as f64
}

fn main() {
    let logs: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("log2 domain size"))
        .collect();
    let logs = if logs.is_empty() { vec![16, 18] } else { logs };
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
        .max(1);
    println!("threads: {}, best of {reps}", rayon::current_num_threads());
    for log in logs {
        let circ = BenchCircuit::new(log, 1).expect("size");
        let t = Instant::now();
        let rec = CompiledR1cs::record(BenchCircuit::new(log, 0).expect("size")).expect("record");
        let t_record = t.elapsed();

        // Classic, fresh vectors each time (what `synthesize` costs) and
        // with reused buffers (the engine's steady state).
        let (t_classic, _) = best(reps, || synthesize(circ).expect("classic"));
        let mut t_classic_reuse = Duration::MAX;
        let mut buf = ProvingAssignment::new();
        for _ in 0..reps {
            let t = Instant::now();
            buf = synthesize_reusing(circ, buf).expect("classic");
            t_classic_reuse = t_classic_reuse.min(t.elapsed());
        }
        let classic = buf;

        // Witness-only into reused vectors, then the SpMV into reused a, b,
        // c (the witness is cloned outside the timed part).
        let mut t_witness = Duration::MAX;
        let mut w = Witness::with_capacity(rec.shape());
        for _ in 0..reps {
            let t = Instant::now();
            w = synthesize_witness(circ, w).expect("witness");
            t_witness = t_witness.min(t.elapsed());
        }
        rec.check_witness(&w).expect("same circuit");
        let mut t_spmv = Duration::MAX;
        let mut out = ProvingAssignment::new();
        for _ in 0..reps {
            let wc = w.clone();
            let t = Instant::now();
            out = rec.evaluate_reusing(wc, out).expect("spmv");
            t_spmv = t_spmv.min(t.elapsed());
        }
        assert!(classic == out, "2^{log}: assignments differ");
        drop((classic, out, w));

        let s = rec.size();
        println!(
            "2^{log}: record {:.3} s | classic {:.3} s (reused buffers {:.3} s) | witness-only {:.3} s + SpMV {:.3} s = {:.3} s ({:.2}x vs reused)",
            t_record.as_secs_f64(),
            t_classic.as_secs_f64(),
            t_classic_reuse.as_secs_f64(),
            t_witness.as_secs_f64(),
            t_spmv.as_secs_f64(),
            (t_witness + t_spmv).as_secs_f64(),
            t_classic_reuse.as_secs_f64() / (t_witness + t_spmv).as_secs_f64(),
        );
        for (m, name) in s.matrices.iter().zip(["A", "B", "C"]) {
            println!(
                "  {name}: {} nnz, table {} ({} B index), {:.2} MiB compressed, {:.2} MiB uncompressed CSR, varint-delta columns would be {:.2} MiB (u32: {:.2} MiB)",
                m.nonzeros,
                m.table_len,
                m.index_width,
                mib(m.compressed_bytes),
                mib(m.uncompressed_bytes),
                mib(m.varint_delta_col_bytes),
                mib(4 * m.nonzeros),
            );
        }
        println!(
            "  total: {} nnz ({:.2} per constraint), {:.2} MiB compressed vs {:.2} MiB uncompressed ({:.2}x)",
            s.nonzeros(),
            s.nonzeros() as f64 / rec.shape().num_constraints as f64,
            mib(s.compressed_bytes()),
            mib(s.uncompressed_bytes()),
            s.uncompressed_bytes() as f64 / s.compressed_bytes() as f64,
        );
    }
}
