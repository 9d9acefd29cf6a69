//! `cargo xtask soak --minutes N`: the engine on the CPU under a stream of
//! small bench-circuit jobs, with random cancels, random invalid jobs and a
//! tight memory budget. Checked throughout: every accepted job ends (a
//! proof that verifies, or a reported error where one was due, or
//! cancelled), reservations never exceed the budget, and the process's RSS
//! does not grow from the first quarter of the run to the last.

use anyhow::{bail, Context, Result};
use cuzk_groth16::{verify_proof, CpuBackend, Parameters, PreparedVerifyingKey, ToxicWaste};
use cuzk_scheduler::{CircuitSource, Engine, EngineError, EngineOptions, JobHandle, JobSpec};
use cuzk_synth::circuits::BenchCircuit;
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Log sizes of the circuits proved (two parameter sets).
const LOGS: [u32; 2] = [10, 11];
/// Jobs kept in flight.
const IN_FLIGHT: usize = 6;

/// What a job was meant to end in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Proof,
    Error,
}

struct Live {
    handle: JobHandle,
    expect: Expect,
    log: u32,
    cancelled: bool,
    label: &'static str,
}

#[derive(Debug, Default)]
struct Tally {
    submitted: u64,
    proved: u64,
    partitions_verified: u64,
    errors_expected: u64,
    refused_at_submit: u64,
    cancelled: u64,
    cancel_lost_race: u64,
}

fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

pub fn run(minutes: f64, seed: u64) -> Result<()> {
    let t0 = Instant::now();
    let mut sets: Vec<(u32, PreparedVerifyingKey, Arc<Parameters>)> = Vec::new();
    for &log in &LOGS {
        let p = cuzk_groth16::generate_parameters(
            BenchCircuit::new(log, 0)?,
            &ToxicWaste::from_seed(u64::from(log)),
            None,
        )?;
        sets.push((log, p.vk.prepare(), Arc::new(p)));
    }
    let budget = tight_budget(&sets)?;
    // No timeline: its events are kept for the engine's life, which would
    // read as growth here.
    let mut opts = EngineOptions::small(2, 1, budget);
    opts.timeline = false;
    let e = Engine::new(opts, vec![Arc::new(CpuBackend)])?;
    for (log, _, p) in &sets {
        e.register_circuit(format!("k{log}"), p.clone())?;
    }
    println!(
        "soak: {minutes} min, seed {seed}, budget {:.1} MiB (parameters {:.1} MiB), setup {:.1} s",
        budget as f64 / (1u64 << 20) as f64,
        e.stats().memory_reserved as f64 / (1u64 << 20) as f64,
        t0.elapsed().as_secs_f64()
    );

    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let deadline = Instant::now() + Duration::from_secs_f64(minutes * 60.0);
    let start = Instant::now();
    let mut live: Vec<Live> = Vec::new();
    let mut tally = Tally::default();
    let mut rss: Vec<(f64, u64)> = Vec::new();
    let mut last_sample = Instant::now() - Duration::from_secs(1);
    let mut worst_reserved = 0u64;
    while Instant::now() < deadline || !live.is_empty() {
        if last_sample.elapsed() >= Duration::from_millis(500) {
            last_sample = Instant::now();
            let s = e.stats();
            worst_reserved = worst_reserved.max(s.memory_reserved).max(s.memory_peak);
            if s.memory_reserved > s.memory_budget
                || s.memory_peak > s.memory_budget
                || s.memory_held_peak > s.memory_budget
            {
                bail!(
                    "memory exceeded the budget: reserved {} (peak {}), held peak {} > {}",
                    s.memory_reserved,
                    s.memory_peak,
                    s.memory_held_peak,
                    s.memory_budget
                );
            }
            rss.push((start.elapsed().as_secs_f64(), rss_bytes()));
        }
        // Collect finished jobs.
        let mut i = 0;
        while i < live.len() {
            let Some(r) = live[i].handle.try_result() else {
                i += 1;
                continue;
            };
            let j = live.swap_remove(i);
            settle(&j, r, &sets, &mut tally)?;
        }
        if Instant::now() < deadline && live.len() < IN_FLIGHT {
            let roll: u32 = rng.gen_range(0..100);
            if roll < 12 && !live.is_empty() {
                let k = rng.gen_range(0..live.len());
                if !live[k].cancelled {
                    live[k].cancelled = true;
                    live[k].handle.cancel();
                }
            } else {
                let (spec, expect, log, label) = make_job(&mut rng, &sets, roll);
                match e.submit_blocking(spec) {
                    Ok(handle) => {
                        tally.submitted += 1;
                        live.push(Live {
                            handle,
                            expect,
                            log,
                            cancelled: false,
                            label,
                        });
                    }
                    Err(err) if expect == Expect::Error => {
                        tally.refused_at_submit += 1;
                        let _ = err.to_string();
                    }
                    Err(err) => bail!("a valid {label} job was refused: {err}"),
                }
            }
        } else {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let s = e.stats();
    e.shutdown();
    let elapsed = start.elapsed().as_secs_f64();
    let quarter = |from: f64, to: f64| -> u64 {
        let mut v: Vec<u64> = rss
            .iter()
            .filter(|(t, _)| *t >= from * elapsed && *t <= to * elapsed)
            .map(|&(_, b)| b)
            .collect();
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or(0)
    };
    // The first quarter includes the warm-up (allocator pools, rayon
    // threads): flat means the last quarter's median is within 10 % (and
    // 16 MiB) of the second quarter's.
    let (q2, q4) = (quarter(0.25, 0.5), quarter(0.75, 1.0));
    let max_rss = rss.iter().map(|&(_, b)| b).max().unwrap_or(0);
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    println!(
        "soak: {elapsed:.0} s; jobs submitted {}, proved {} ({} partitions verified), cancelled {} (+{} finished first), expected errors {} (+{} refused at submit)",
        tally.submitted,
        tally.proved,
        tally.partitions_verified,
        tally.cancelled,
        tally.cancel_lost_race,
        tally.errors_expected,
        tally.refused_at_submit,
    );
    println!(
        "soak: RSS median 2nd quarter {:.1} MiB, last quarter {:.1} MiB, max {:.1} MiB; reserved peak {:.1} of {:.1} MiB budget; engine jobs done {} failed {} cancelled {}",
        mib(q2),
        mib(q4),
        mib(max_rss),
        mib(worst_reserved),
        mib(budget),
        s.jobs_done,
        s.jobs_failed,
        s.jobs_cancelled,
    );
    if tally.proved == 0 {
        bail!("no job was proved");
    }
    if q4 > q2 + q2 / 10 + (16 << 20) {
        bail!("RSS grew: {:.1} MiB -> {:.1} MiB", mib(q2), mib(q4));
    }
    println!("soak: passed");
    Ok(())
}

/// A budget that holds both parameter sets and about two partitions of
/// the larger circuit: admission has to wait most of the time.
fn tight_budget(sets: &[(u32, PreparedVerifyingKey, Arc<Parameters>)]) -> Result<u64> {
    let probe = Engine::new(EngineOptions::small(1, 1, 1), vec![Arc::new(CpuBackend)])?;
    let mut params = 0;
    let mut need = 0;
    for (log, _, p) in sets {
        params += p.host_bytes();
        let _ = probe.register_circuit(format!("k{log}"), p.clone());
        let log = *log;
        let src = CircuitSource::new(1, None, move |i| {
            BenchCircuit::new(log, i as u64).map_err(|e| e.to_string().into())
        });
        match probe
            .submit_blocking(JobSpec::new(format!("k{log}"), Arc::new(src)))
            .and_then(|h| h.wait())
        {
            Err(EngineError::BudgetTooSmall { need: n, .. }) => need = need.max(n),
            other => bail!("probing the partition size: expected BudgetTooSmall, got {other:?}"),
        }
    }
    probe.shutdown();
    Ok(params + need * 5 / 2)
}

/// A random job: mostly valid (1–3 partitions of one of the circuits),
/// sometimes invalid in one of three ways.
fn make_job(
    rng: &mut impl Rng,
    sets: &[(u32, PreparedVerifyingKey, Arc<Parameters>)],
    roll: u32,
) -> (JobSpec, Expect, u32, &'static str) {
    let k = rng.gen_range(0..sets.len());
    let log = sets[k].0;
    let n = rng.gen_range(1..=3);
    let seed: u64 = rng.gen();
    let id = format!("k{log}");
    match roll {
        // The circuit of the other set: its shape does not match.
        12..=17 => {
            let other = sets[(k + 1) % sets.len()].0;
            let src = CircuitSource::new(n, None, move |i| {
                BenchCircuit::new(other, seed ^ i as u64).map_err(|e| e.to_string().into())
            });
            (
                JobSpec::new(id, Arc::new(src)),
                Expect::Error,
                log,
                "wrong-shape",
            )
        }
        // A source that fails to build its last partition.
        18..=22 => {
            let src = CircuitSource::new(
                n,
                Some(
                    BenchCircuit::new(log, 0)
                        .map(|c| c.expected_shape())
                        .unwrap_or_default(),
                ),
                move |i| {
                    if i + 1 == n {
                        Err("soak: injected synthesis failure".to_string().into())
                    } else {
                        BenchCircuit::new(log, seed ^ i as u64).map_err(|e| e.to_string().into())
                    }
                },
            );
            (
                JobSpec::new(id, Arc::new(src)),
                Expect::Error,
                log,
                "failing-source",
            )
        }
        // A circuit id nobody registered.
        23..=25 => {
            let src = CircuitSource::new(n, None, move |i| {
                BenchCircuit::new(log, seed ^ i as u64).map_err(|e| e.to_string().into())
            });
            (
                JobSpec::new("unregistered", Arc::new(src)),
                Expect::Error,
                log,
                "unknown-circuit",
            )
        }
        _ => {
            let shape = BenchCircuit::new(log, 0).map(|c| c.expected_shape()).ok();
            let src = CircuitSource::new(n, shape, move |i| {
                BenchCircuit::new(log, seed ^ i as u64).map_err(|e| e.to_string().into())
            });
            (
                JobSpec::new(id, Arc::new(src)).with_seed(seed),
                Expect::Proof,
                log,
                "valid",
            )
        }
    }
}

/// Checks one finished job against what it was meant to end in.
fn settle(
    j: &Live,
    r: Result<cuzk_scheduler::JobOutput, EngineError>,
    sets: &[(u32, PreparedVerifyingKey, Arc<Parameters>)],
    tally: &mut Tally,
) -> Result<()> {
    match (r, j.expect, j.cancelled) {
        (Err(EngineError::Cancelled), _, true) => tally.cancelled += 1,
        (Err(EngineError::Cancelled), _, false) => {
            bail!("a {} job was cancelled that nobody cancelled", j.label)
        }
        (Ok(out), Expect::Proof, cancelled) => {
            let pvk = &sets
                .iter()
                .find(|s| s.0 == j.log)
                .context("parameter set")?
                .1;
            for (i, (p, x)) in out.proofs.iter().zip(&out.inputs).enumerate() {
                if !verify_proof(pvk, p, x)? {
                    bail!("job {:?} partition {i}: the proof does not verify", out.job);
                }
                tally.partitions_verified += 1;
            }
            if out.proofs.is_empty() {
                bail!("job {:?} returned no proofs", out.job);
            }
            tally.proved += 1;
            if cancelled {
                tally.cancel_lost_race += 1;
            }
        }
        (Ok(out), Expect::Error, _) => {
            bail!("an invalid {} job {:?} returned proofs", j.label, out.job)
        }
        (Err(_), Expect::Error, _) => tally.errors_expected += 1,
        (Err(e), Expect::Proof, _) => bail!("a valid job failed: {e}"),
    }
    Ok(())
}
