//! Time of one call of `products` products of `pairs` pairs each (a GIPA
//! round's shape), on the CPU and, built with `cuda`, on GPU 0, best of
//! `reps`; the values are compared.
//!
//! `cargo run --release -p cuzk-pairing [--features cuda] --example pairing_bench -- PAIRS [PRODUCTS] [REPS]`

use std::time::Instant;

use cuzk_field::{Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use cuzk_pairing::{Pairing, Term};
use ff::Field;
use group::{Curve, Group};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let pairs = *args.first().unwrap_or(&4096);
    let products = *args.get(1).unwrap_or(&4);
    let reps = *args.get(2).unwrap_or(&3);
    let n = pairs * products;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    // a few random points, reused: the Miller loop's cost does not depend on them
    let base1: Vec<G1Projective> = (0..64)
        .map(|_| G1Projective::generator() * Fr::random(&mut rng))
        .collect();
    let base2: Vec<G2Projective> = (0..64)
        .map(|_| G2Projective::generator() * Fr::random(&mut rng))
        .collect();
    let p: Vec<G1Affine> = (0..n).map(|i| base1[i % 64].to_affine()).collect();
    let q: Vec<G2Affine> = (0..n)
        .map(|i| base2[(i * 7 + 3) % 64].to_affine())
        .collect();
    let call: Vec<Vec<Term<'_>>> = (0..products)
        .map(|k| {
            vec![(
                &p[k * pairs..(k + 1) * pairs],
                &q[k * pairs..(k + 1) * pairs],
            )]
        })
        .collect();

    let time = |name: &str,
                pairing: &Pairing|
     -> Result<Vec<cuzk_field::Gt>, Box<dyn std::error::Error>> {
        let mut best = f64::MAX;
        let mut out = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            out = pairing.products(&call)?;
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{name}: {products} products × {pairs} pairs: {best:.4} s ({:.2} µs per pair)",
            best * 1e6 / n as f64
        );
        Ok(out)
    };
    let cpu = time("cpu", &Pairing::cpu())?;
    #[cfg(feature = "cuda")]
    {
        let device = cuzk_gpu::Device::new(0)?;
        let gpu = time("gpu", &Pairing::gpu(&device)?)?;
        if gpu != cpu {
            return Err("GPU and CPU products differ".into());
        }
        println!("gpu = cpu: yes");
    }
    let _ = cpu;
    Ok(())
}
