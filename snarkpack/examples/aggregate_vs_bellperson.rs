//! cuzk's SnarkPack prover against bellperson's on the same random proofs
//! and fake SRS, best of `--reps` runs each, bytes compared:
//!
//!     cargo run --release -p cuzk-snarkpack --example aggregate_vs_bellperson -- 1024 [reps]
//!
//! A third argument `cuzk` runs cuzk's prover alone (for profiles).
//!
//! cuzk's pairing products run on GPU 0 where the example was built with
//! `--features cuda` and a device answers (`Pairing::auto`), else on the
//! CPU.
//!
//! bellperson's time is split into specialising the SRS for n (its tables,
//! paid once per n and process: filecoin-proofs keeps them) and the
//! aggregation itself; cuzk needs no per-n preparation.

use std::time::{Duration, Instant};

use bellperson::groth16::aggregate::{aggregate_proofs, setup_fake_srs};
use cuzk_field::{Bls12, Curve, G1Projective, G2Projective, Group};
use cuzk_snarkpack::{aggregate, AggregateVersion, Pairing, Proof};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut out = None;
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        out = Some(v);
    }
    (best, out.expect("reps ≥ 1"))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1024);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2).max(1);
    if n < 2 || !n.is_power_of_two() {
        eprintln!("n must be a power of two ≥ 2");
        std::process::exit(2);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let t = Instant::now();
    let srs = setup_fake_srs::<Bls12, _>(&mut rng, 2 * n);
    let proofs: Vec<Proof<Bls12>> = (0..n)
        .map(|_| Proof {
            a: G1Projective::random(&mut rng).to_affine(),
            b: G2Projective::random(&mut rng).to_affine(),
            c: G1Projective::random(&mut rng).to_affine(),
        })
        .collect();
    let pairing = Pairing::auto();
    println!(
        "n = {n}, {} threads, pairing products on {}; fake SRS and proofs in {:.2?}",
        rayon::current_num_threads(),
        match pairing.device() {
            Some(d) => format!("GPU {}", d.ordinal()),
            None => "the CPU".to_string(),
        },
        t.elapsed()
    );
    let include = [7u8; 32];
    let v = AggregateVersion::V2;
    if args.next().as_deref() == Some("cuzk") {
        let (t, _) = best(reps, || {
            aggregate(&pairing, &srs, &include, &proofs, v).expect("cuzk")
        });
        println!("cuzk: aggregate {:.3} s", t.as_secs_f64());
        if let Some(e) = pairing.gpu_failure() {
            println!("the GPU failed, the products ran on the CPU: {e}");
        }
        return;
    }

    let (spec, (pk, _)) = best(1, || srs.specialize(n));
    let (theirs_t, theirs) = best(reps, || {
        aggregate_proofs::<Bls12>(&pk, &include, &proofs, v).expect("bellperson")
    });
    let (ours_t, ours) = best(reps, || {
        aggregate(&pairing, &srs, &include, &proofs, v).expect("cuzk")
    });

    let (mut a, mut b) = (Vec::new(), Vec::new());
    theirs.write(&mut a).expect("write");
    ours.write(&mut b).expect("write");
    println!(
        "bellperson: specialise {:.3} s, aggregate {:.3} s | cuzk: aggregate {:.3} s | {:.2}× (warm), {:.2}× (with specialise) | bytes {}",
        spec.as_secs_f64(),
        theirs_t.as_secs_f64(),
        ours_t.as_secs_f64(),
        theirs_t.as_secs_f64() / ours_t.as_secs_f64(),
        (theirs_t + spec).as_secs_f64() / ours_t.as_secs_f64(),
        if a == b { "equal" } else { "DIFFER" }
    );
    if let Some(e) = pairing.gpu_failure() {
        println!("the GPU failed, the products ran on the CPU: {e}");
    }
    if a != b {
        std::process::exit(1);
    }
}
