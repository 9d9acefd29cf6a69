//! Planner calibration: times `msm` with forced window/chunk plans, the
//! planner's own choice and blst's thread pool, printing one line each.
//!
//! `cargo run --release -p cuzk-msm --example msm_sweep -- [g1|g2] LOG2... [--chunks C...]`
//! or `... -- mix LOG2` for the split-vs-full threshold of `msm_density`.
//! Thread count follows the CPU affinity (e.g. `taskset -c 0`).

use std::time::Instant;

use cuzk_field::{Curve, Field, Fr, G1Affine, G2Affine, Group};
use cuzk_msm::cpu::tuning;
use cuzk_msm::{msm, MsmCurve, Projective};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use rayon::prelude::*;

fn points<C: MsmCurve>(n: usize) -> Vec<C> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let k = ((n as f64).sqrt() as usize).max(1) + 1;
    let a: Vec<Projective<C>> = (0..k).map(|_| Projective::<C>::random(&mut rng)).collect();
    let b: Vec<Projective<C>> = (0..k).map(|_| Projective::<C>::random(&mut rng)).collect();
    let proj: Vec<Projective<C>> = (0..n)
        .into_par_iter()
        .map(|i| a[i % k] + b[i / k % k])
        .collect();
    let mut out = vec![C::identity(); n];
    out.par_chunks_mut(4096)
        .zip(proj.par_chunks(4096))
        .for_each(|(o, p)| {
            Projective::<C>::batch_normalize(p, o);
        });
    out
}

/// Best of `reps` runs, in milliseconds.
fn time_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn run<C: MsmCurve>(logs: &[usize], chunk_list: &[usize]) {
    let max = 1usize << logs.iter().max().copied().unwrap_or(10);
    let bases = points::<C>(max);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let scalars: Vec<Fr> = (0..max).map(|_| Fr::random(&mut rng)).collect();
    let threads = rayon::current_num_threads();
    for &log in logs {
        let n = 1 << log;
        let (b, s) = (&bases[..n], &scalars[..n]);
        let reps = if log >= 18 { 2 } else { 3 };
        let (pw, pc) = tuning::plan_for::<C>(n);
        let ms = time_ms(reps, || {
            msm(b, s).unwrap();
        });
        println!(
            "{} T={threads} n=2^{log} plan w={pw} c={pc} ms={ms:.2}",
            C::NAME
        );
        let ms = time_ms(reps, || {
            tuning::msm_blst_pool(b, s);
        });
        println!("{} T={threads} n=2^{log} blst_pool ms={ms:.2}", C::NAME);
        for w in (log.saturating_sub(8).max(4)..=(log + 1).min(18)).filter(|w| 255 % w != 0) {
            for &c in chunk_list {
                let ms = time_ms(reps, || {
                    tuning::msm_with_plan(b, s, w, c);
                });
                println!("{} T={threads} n=2^{log} w={w} c={c} ms={ms:.2}", C::NAME);
            }
        }
    }
}

/// Split path vs full path of `msm_density` as the share of 0/1 scalars
/// grows (zeros and ones in a 3:1 ratio, the rest random; no density).
fn mix(log: usize) {
    use cuzk_msm::cpu::tuning::{msm_density_full, msm_density_split};
    use rand_core::RngCore;
    let n = 1 << log;
    let bases = points::<G1Affine>(n);
    let threads = rayon::current_num_threads();
    for pct in [10u32, 20, 30, 40, 50, 60, 70, 80, 90, 95] {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let s: Vec<Fr> = (0..n)
            .map(|_| {
                let r = rng.next_u32() % 400;
                if r < 3 * pct {
                    Fr::ZERO
                } else if r < 4 * pct {
                    Fr::ONE
                } else {
                    Fr::random(&mut rng)
                }
            })
            .collect();
        let split = time_ms(3, || {
            msm_density_split(&bases, &s, None).unwrap();
        });
        let full = time_ms(3, || {
            msm_density_full(&bases, &s, None).unwrap();
        });
        println!("T={threads} n=2^{log} trivial={pct}% split ms={split:.2} full ms={full:.2}");
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let curve = args.next().unwrap_or_else(|| "g1".into());
    if curve == "mix" {
        let log = args.next().map_or(16, |a| a.parse().expect("log2 size"));
        return mix(log);
    }
    let rest: Vec<String> = args.collect();
    let split = rest
        .iter()
        .position(|a| a == "--chunks")
        .unwrap_or(rest.len());
    let logs: Vec<usize> = rest[..split]
        .iter()
        .map(|a| a.parse().expect("log2 size"))
        .collect();
    let chunks: Vec<usize> = if split < rest.len() {
        rest[split + 1..]
            .iter()
            .map(|a| a.parse().expect("chunk count"))
            .collect()
    } else {
        vec![1]
    };
    match curve.as_str() {
        "g2" => run::<G2Affine>(&logs, &chunks),
        _ => run::<G1Affine>(&logs, &chunks),
    }
}
