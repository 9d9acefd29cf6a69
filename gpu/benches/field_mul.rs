//! Field multiplication throughput on the GPU: Fr and Fp, PTX multiplier
//! (`Mul`), portable twin on the device (`MulPortable`) and squaring, in
//! products per second, against the integer-multiplier floor.
//!
//! Floor: the H200 issues 64 low-half 32-bit IMADs per SM per clock and 32
//! high-half/wide ones (sm_90's integer-multiply rates), so one product costs at
//! least lo/64 + hi/32 SM-clocks, where lo and hi are the IMAD counts of the
//! kernel's loop body (one product per iteration). The counts come from
//! `cuobjdump -sass` on this very executable (found via CUDA_HOME, PATH or
//! /usr/local/cuda/bin); the issue floor (all loop instructions / 128 per SM
//! per clock) is shown too. Without cuobjdump the floor is left out.
//!
//! Each figure is the median of 5 launches after a warm-up, timed with CUDA
//! events. A final launch is checked against blst (x·(x+1)^iters, x^(2^iters)).
//! Needs a GPU; otherwise prints why and exits 0. CSV to CUZK_BENCH_OUT if set.
//! CUZK_SASS_ONLY=1 prints only the SASS loop counts (no GPU needed).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use cuzk_field::{Fp, Fr};
use cuzk_gpu::field_test::{device_bench, BenchOp, GpuField};
use cuzk_gpu::{Device, DeviceBuffer, Event, Stream};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

#[derive(Debug, Default, Clone, Copy)]
struct Sass {
    loop_instrs: u32,
    imad_lo: u32,
    imad_hi: u32,
}

fn find_cuobjdump() -> Option<PathBuf> {
    let mut c = Vec::new();
    for v in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(h) = std::env::var_os(v) {
            c.push(PathBuf::from(h).join("bin/cuobjdump"));
        }
    }
    if let Some(p) = std::env::var_os("PATH") {
        c.extend(std::env::split_paths(&p).map(|d| d.join("cuobjdump")));
    }
    c.push("/usr/local/cuda/bin/cuobjdump".into());
    c.into_iter().find(|p| p.is_file())
}

/// (field, op code) → counts of the bench kernel's innermost loop.
fn sass_counts() -> Result<BTreeMap<(String, u32), Sass>, String> {
    let tool = find_cuobjdump().ok_or("cuobjdump not found")?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(&tool)
        .arg("-sass")
        .arg(&exe)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut res = BTreeMap::new();
    for func in text.split("Function : ").skip(1) {
        let name = func.lines().next().unwrap_or("");
        if !name.contains("bench_kernel") {
            continue;
        }
        let field = if name.contains("fr_params") {
            "Fr"
        } else {
            "Fp"
        };
        // template int OP: mangled as Li<code>E
        let op = name
            .rsplit("Li")
            .next()
            .and_then(|t| t.split('E').next())
            .and_then(|d| d.parse::<u32>().ok())
            .unwrap_or(99);
        // instructions: "/*0a50*/  [@P0] OPCODE args ;"
        let mut ins: Vec<(u64, String, String)> = Vec::new();
        for line in func.lines() {
            let l = line.trim_start();
            let Some(rest) = l.strip_prefix("/*") else {
                continue;
            };
            let Some((addr, tail)) = rest.split_once("*/") else {
                continue;
            };
            let Ok(addr) = u64::from_str_radix(addr, 16) else {
                continue;
            };
            let mut words = tail.split_whitespace();
            let mut op = words.next().unwrap_or("");
            if op.starts_with('@') {
                op = words.next().unwrap_or("");
            }
            let args: String = words.collect::<Vec<_>>().join(" ");
            ins.push((addr, op.to_string(), args));
        }
        // the loop: the longest backward branch
        let mut best = None;
        for (addr, op, args) in &ins {
            if op.starts_with("BRA") {
                if let Some(t) = args.split("0x").nth(1) {
                    let t: String = t.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
                    if let Ok(t) = u64::from_str_radix(&t, 16) {
                        if t < *addr && best.map_or(true, |(a, b): (u64, u64)| b - a < addr - t) {
                            best = Some((t, *addr));
                        }
                    }
                }
            }
        }
        let Some((lo, hi)) = best else { continue };
        let mut s = Sass::default();
        for (addr, op, _) in &ins {
            if *addr < lo || *addr > hi {
                continue;
            }
            s.loop_instrs += 1;
            if op.starts_with("IMAD") {
                if op.contains(".HI") || op.contains(".WIDE") {
                    s.imad_hi += 1;
                } else {
                    s.imad_lo += 1;
                }
            }
        }
        res.insert((field.to_string(), op), s);
    }
    Ok(res)
}

fn op_code(op: BenchOp) -> u32 {
    match op {
        BenchOp::Mul => 2,
        BenchOp::Sqr => 3,
        BenchOp::MulPortable => 9,
    }
}

struct Row {
    field: &'static str,
    op: BenchOp,
    per_sec: f64,
}

fn bench<F: GpuField>(
    name: &'static str,
    dev: &Device,
    s: &Stream,
    n: usize,
    iters: u32,
    op: BenchOp,
) -> Row {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let host: Vec<F> = (0..n).map(|_| F::random(&mut rng)).collect();
    let mut d = DeviceBuffer::from_slice(s, &host).unwrap();
    let (e0, e1) = (Event::new(dev).unwrap(), Event::new(dev).unwrap());
    device_bench(s, &mut d, iters, op).unwrap(); // warm-up
    let mut ms = Vec::new();
    for _ in 0..5 {
        e0.record(s).unwrap();
        device_bench(s, &mut d, iters, op).unwrap();
        e1.record(s).unwrap();
        e1.synchronize().unwrap();
        ms.push(e0.elapsed_ms(&e1).unwrap() as f64);
    }
    ms.sort_by(f64::total_cmp);
    let med = ms[ms.len() / 2];
    // correctness of what was timed: one fresh launch, 64 elements vs blst
    d.upload(s, &host).unwrap();
    device_bench(s, &mut d, iters, op).unwrap();
    let got = d.to_vec(s).unwrap();
    for i in 0..64.min(n) {
        let x = host[i];
        let want = match op {
            BenchOp::Sqr => (0..iters).fold(x, |a, _| a.square()),
            _ => {
                let y = x + F::ONE;
                (0..iters).fold(x, |a, _| a * y)
            }
        };
        assert!(
            got[i] == want,
            "{name} {op:?} element {i} differs from blst"
        );
    }
    Row {
        field: name,
        op,
        per_sec: (n as f64) * (iters as f64) / (med * 1e-3),
    }
}

fn main() {
    // CUZK_SASS_ONLY=1: print the loop counts and stop (works without a GPU).
    if std::env::var_os("CUZK_SASS_ONLY").is_some() {
        match sass_counts() {
            Ok(m) => {
                for ((f, op), c) in m {
                    println!("{f} op {op}: {c:?}");
                }
            }
            Err(e) => println!("SASS counts unavailable: {e}"),
        }
        return;
    }
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            println!("field_mul bench skipped: {e}");
            return;
        }
    };
    let p = dev.props().unwrap();
    let s = Stream::new(&dev).unwrap();
    let clock_hz = p.clock_khz as f64 * 1e3;
    let sms = p.sm_count as f64;
    println!(
        "{} ({} SMs, max clock {} MHz)",
        p.name,
        p.sm_count,
        p.clock_khz / 1000
    );
    // 4096 threads per SM: several waves at any occupancy, so the tail is small.
    let n = p.sm_count as usize * 4096;
    let mut rows = Vec::new();
    for op in [BenchOp::Mul, BenchOp::MulPortable, BenchOp::Sqr] {
        rows.push(bench::<Fr>("Fr", &dev, &s, n, 2000, op));
        rows.push(bench::<Fp>("Fp", &dev, &s, n, 500, op));
    }
    let sass = sass_counts();
    if let Err(e) = &sass {
        println!("SASS counts unavailable: {e}");
    }
    println!(
        "{:<3} {:<12} {:>12} {:>6} {:>6} {:>6} {:>12} {:>12} {:>6}",
        "F", "op", "products/s", "lo", "hi", "instr", "IMAD floor", "issue floor", "ratio"
    );
    let mut csv = String::from(
        "field,op,products_per_s,imad_lo,imad_hi,loop_instrs,imad_floor,issue_floor,ratio\n",
    );
    for r in &rows {
        let c = sass
            .as_ref()
            .ok()
            .and_then(|m| m.get(&(r.field.to_string(), op_code(r.op))).copied());
        let (lo, hi, ins, imad_floor, issue_floor, ratio) = match c {
            Some(c) => {
                let imad = sms * clock_hz / (c.imad_lo as f64 / 64.0 + c.imad_hi as f64 / 32.0);
                let issue = sms * clock_hz / (c.loop_instrs as f64 / 128.0);
                (
                    c.imad_lo,
                    c.imad_hi,
                    c.loop_instrs,
                    imad,
                    issue,
                    r.per_sec / imad.min(issue),
                )
            }
            None => (0, 0, 0, f64::NAN, f64::NAN, f64::NAN),
        };
        println!(
            "{:<3} {:<12} {:>12.3e} {:>6} {:>6} {:>6} {:>12.3e} {:>12.3e} {:>6.2}",
            r.field,
            format!("{:?}", r.op),
            r.per_sec,
            lo,
            hi,
            ins,
            imad_floor,
            issue_floor,
            ratio
        );
        csv.push_str(&format!(
            "{},{:?},{:.4e},{lo},{hi},{ins},{imad_floor:.4e},{issue_floor:.4e},{ratio:.3}\n",
            r.field, r.op, r.per_sec
        ));
    }
    if let Ok(path) = std::env::var("CUZK_BENCH_OUT") {
        std::fs::write(path, csv).unwrap();
    }
}
