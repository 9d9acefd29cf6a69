//! One-shot end-to-end check of cuzk's PoRep C2 against filecoin-proofs:
//! test parameters (generated once per machine, ~15 min for 2 KiB) → a
//! sealed test sector's C1 output → cuzk C2 → filecoin-proofs' verify_seal
//! accepts it, and rejects it with one byte flipped.
//!
//! ```text
//! cargo run --release -p cuzk-filecoin-tools --bin cuzk-porep-e2e [-- --sector-size 8MiB] [--reference] [--generator cuzk]
//! ```
//!
//! `--generator cuzk` makes missing parameters with cuzk's own setup
//! instead of filecoin-proofs'. `--reference` also runs filecoin-proofs' own seal_commit_phase2
//! (bellperson's CPU prover) on the same C1 output and prints both times.
//! Exit status 0 only if every check passed.

use cuzk_filecoin::{parse_size, prove_c2, verify_c2, C2Options, SealProofKind, SealVersion};
use cuzk_filecoin_tools::testdata;

use std::process::ExitCode;
use std::time::{Duration, Instant};

fn cpu_time() -> Duration {
    // utime + stime of this process, from /proc (Linux); zero elsewhere.
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // After the ")" the state is field 0, utime field 11, stime field 12; 100 ticks/s.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// Prints bellperson's own stage timings ("synthesis time", "prover time")
/// so `--reference` can compare synthesis alone.
struct StageLog;

impl log::Log for StageLog {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.level() <= log::Level::Info && m.target().starts_with("bellperson")
    }
    fn log(&self, r: &log::Record<'_>) {
        let msg = r.args().to_string();
        if self.enabled(r.metadata()) && msg.contains(" time:") {
            println!("  [bellperson] {msg}");
        }
    }
    fn flush(&self) {}
}

static LOGGER: StageLog = StageLog;

fn main() -> ExitCode {
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
    match run() {
        Ok(()) => {
            println!("e2e: PASS");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("e2e: FAIL: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut size = 2048u64;
    let mut reference = false;
    let mut generator = testdata::ParamsGenerator::FilecoinProofs;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--sector-size" => size = parse_size(it.next().ok_or("--sector-size needs a value")?)?,
            "--reference" => reference = true,
            "--generator" => {
                generator = match it.next().map(String::as_str) {
                    Some("cuzk") => testdata::ParamsGenerator::Cuzk,
                    Some("filecoin-proofs") => testdata::ParamsGenerator::FilecoinProofs,
                    v => return Err(format!("--generator cuzk|filecoin-proofs, got {v:?}").into()),
                }
            }
            other => {
                return Err(format!(
                    "unknown argument {other:?} (use --sector-size S, --reference, --generator G)"
                )
                .into())
            }
        }
    }
    let kind = SealProofKind::new(size, SealVersion::V1_1)?;
    let t0 = Instant::now();
    let td = testdata::ensure_testdata_with(&kind, generator)?;
    println!(
        "params: {} ({} in {:.1?})",
        td.params.path.display(),
        if td.params.generated {
            "generated"
        } else {
            "cached"
        },
        td.params.elapsed
    );
    println!(
        "sector: {} (sealed in {:.1?}; zero = cached)",
        td.sector.c1_path.display(),
        td.sector.elapsed
    );
    println!("test data ready after {:.1?}", t0.elapsed());

    let c1 = testdata::read_c1(&td.sector)?;
    let prover_id = td.sector.meta.prover_id_bytes()?;
    let sector_id = td.sector.meta.sector_id;

    let (w, c) = (Instant::now(), cpu_time());
    let out = prove_c2(
        &c1,
        &C2Options::new(
            td.dirs.params.clone(),
            &cuzk_scheduler::Engine::cpu().unwrap(),
        ),
    )?;
    let (wall, cpu) = (w.elapsed(), cpu_time() - c);
    println!(
        "cuzk C2: {} partition(s), {} constraints, {} bytes, wall {wall:.2?}, cpu {cpu:.2?}",
        out.partitions,
        out.shape.num_constraints,
        out.proof.len()
    );
    for (stage, d) in out.timings.stages() {
        println!("  {stage:<16} {d:>10.2?}");
    }

    let ok = verify_c2(
        &c1.kind,
        &c1.public,
        prover_id,
        sector_id,
        &out.proof,
        &td.dirs.params,
    )?;
    println!("verify_seal(cuzk proof): {ok}");
    if !ok {
        return Err("filecoin-proofs rejected cuzk's proof".into());
    }
    for pos in [0usize, 100, out.proof.len() - 1] {
        let mut bad = out.proof.clone();
        bad[pos] ^= 0x01;
        let ok = verify_c2(
            &c1.kind,
            &c1.public,
            prover_id,
            sector_id,
            &bad,
            &td.dirs.params,
        )?;
        println!("verify_seal(byte {pos} flipped): {ok}");
        if ok {
            return Err(format!("a proof with byte {pos} flipped was accepted").into());
        }
    }
    let ok = verify_c2(
        &c1.kind,
        &c1.public,
        prover_id,
        sector_id ^ 1,
        &out.proof,
        &td.dirs.params,
    )?;
    println!("verify_seal(wrong sector id): {ok}");
    if ok {
        return Err("the proof verified for another sector id".into());
    }

    if reference {
        let (w, c) = (Instant::now(), cpu_time());
        let theirs = testdata::reference_c2(&c1, prover_id, sector_id)?;
        let (rwall, rcpu) = (w.elapsed(), cpu_time() - c);
        println!(
            "filecoin-proofs C2 (bellperson CPU): {} bytes, wall {rwall:.2?}, cpu {rcpu:.2?}",
            theirs.len()
        );
        println!(
            "ratio (filecoin-proofs / cuzk): wall {:.2}x, cpu {:.2}x",
            rwall.as_secs_f64() / wall.as_secs_f64(),
            rcpu.as_secs_f64() / cpu.as_secs_f64().max(1e-9)
        );
        if theirs.len() != out.proof.len() {
            return Err("proof lengths differ between cuzk and filecoin-proofs".into());
        }
    }
    println!("total {:.1?}", t0.elapsed());
    Ok(())
}
