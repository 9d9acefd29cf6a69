use bellperson::domain::EvaluationDomain;
use cuzk_field::{Field, Fr};
use ec_gpu_gen::threadpool::Worker;
use rand_core::SeedableRng;
use std::time::Instant;

fn main() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let n = 1 << 16;
    let v: Vec<Fr> = (0..n).map(|_| Fr::random(&mut rng)).collect();
    // mul chain latency
    let mut acc = v[0];
    let t = Instant::now();
    for _ in 0..100 { for x in &v { acc *= x; } }
    println!("mul dep chain: {:.2} ns", t.elapsed().as_nanos() as f64 / (100.0 * n as f64));
    // independent mul throughput
    let mut out = v.clone();
    let t = Instant::now();
    for _ in 0..100 { for (o, x) in out.iter_mut().zip(&v) { *o *= x; } }
    println!("mul indep: {:.2} ns", t.elapsed().as_nanos() as f64 / (100.0 * n as f64));
    let t = Instant::now();
    for _ in 0..100 { for (o, x) in out.iter_mut().zip(&v) { *o += x; } }
    println!("add: {:.2} ns", t.elapsed().as_nanos() as f64 / (100.0 * n as f64));
    let t = Instant::now();
    for _ in 0..100 { for (o, x) in out.iter_mut().zip(&v) { *o -= x; } }
    println!("sub: {:.2} ns", t.elapsed().as_nanos() as f64 / (100.0 * n as f64));
    let t = Instant::now();
    for _ in 0..100 { for o in out.iter_mut() { *o = o.double(); } }
    println!("double: {:.2} ns", t.elapsed().as_nanos() as f64 / (100.0 * n as f64));
    println!("{:?}", acc == out[0]);

    // memory bandwidth: copy 256 MiB
    let big: Vec<u64> = vec![1; 1 << 25];
    let mut big2: Vec<u64> = vec![0; 1 << 25];
    let t = Instant::now();
    for i in 0..5 { big2.copy_from_slice(std::hint::black_box(&big)); std::hint::black_box(&mut big2); let _ = i; }
    println!("{}", big2[12345]);
    println!("copy 256MiB: {:.2} GB/s (r+w)", 5.0 * 2.0 * 268.0e6 / t.elapsed().as_secs_f64() / 1e9);

    let worker = Worker::new();
    for log in [16u32, 18, 20, 20] {
        let n = 1usize << log;
        let v: Vec<Fr> = (0..n).map(|_| Fr::random(&mut rng)).collect();
        let mut d = EvaluationDomain::from_coeffs(v).unwrap();
        let t = Instant::now();
        d.fft(&worker, &mut None).unwrap();
        println!("bellperson fft 2^{log}: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    }
}
