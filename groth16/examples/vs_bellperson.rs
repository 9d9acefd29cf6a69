//! Whole-proof CPU comparison, cuzk vs bellperson 0.26, robust to a busy
//! machine: proofs are interleaved (cuzk, bellperson, cuzk, …) and the
//! minimum and median of each are reported, with the ratio of minima.
//!
//! `cargo run --release -p cuzk-groth16 --example vs_bellperson -- 12 14 16 18 [--rounds 3]`
//! Prints one Markdown table row per size (log2 of the domain).

use bellperson::groth16 as bp;
use blstrs::Bls12;
use cuzk_groth16::{prove, CpuBackend, ProveOptions, ToxicWaste};
use cuzk_synth::circuits::BenchCircuit;
use rand_chacha::rand_core::SeedableRng;
use std::time::{Duration, Instant};

fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    (v[0].as_secs_f64(), v[v.len() / 2].as_secs_f64())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 3usize;
    let mut logs = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--rounds" {
            rounds = it.next().and_then(|x| x.parse().ok()).expect("--rounds N");
        } else {
            logs.push(a.parse::<u32>().expect("log2 sizes"));
        }
    }
    if logs.is_empty() {
        logs = vec![12, 14, 16, 18];
    }
    println!("threads: {}", rayon::current_num_threads());
    println!("| log2 domain | constraints | setup (s) | cuzk min / median (s) | bellperson min / median (s) | speed-up (min) |");
    println!("|---|---|---|---|---|---|");
    for k in logs {
        let circuit = BenchCircuit::new(k, 0).expect("size");
        let n = circuit.expected_constraints();
        let t = Instant::now();
        let params = cuzk_groth16::generate_parameters(circuit, &ToxicWaste::from_seed(1), None)
            .expect("setup");
        let setup = t.elapsed();
        let mut bytes = Vec::new();
        params.write(&mut bytes).expect("write");
        let bp_params =
            bp::Parameters::<Bls12>::read(&bytes[..], false).expect("bellperson reads our params");
        drop(bytes);
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(k as u64);
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let seed = 7 + round as u64;
            let t = Instant::now();
            prove(
                &params,
                BenchCircuit::new(k, seed).unwrap(),
                &CpuBackend,
                &mut rng,
                ProveOptions { self_check: false },
            )
            .expect("cuzk proves");
            ours.push(t.elapsed());
            let t = Instant::now();
            bp::create_random_proof(BenchCircuit::new(k, seed).unwrap(), &bp_params, &mut rng)
                .expect("bellperson proves");
            theirs.push(t.elapsed());
        }
        let (omin, omed) = stats(ours);
        let (bmin, bmed) = stats(theirs);
        println!(
            "| {k} | {n} | {:.1} | {omin:.3} / {omed:.3} | {bmin:.3} / {bmed:.3} | {:.2}x |",
            setup.as_secs_f64(),
            bmin / omin
        );
    }
}
