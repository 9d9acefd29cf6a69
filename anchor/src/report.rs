//! JSON records and the Markdown summary.

use crate::measure::Measured;
use serde::Serialize;
use std::time::Duration;

/// One (size, side, batch) measurement.
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    /// "cuzk" or "supraseal".
    pub side: &'static str,
    /// Domain `2^log_size`.
    pub log_size: u32,
    /// Constraints of one circuit (input constraints included).
    pub constraints: usize,
    /// Circuits in the proving call.
    pub batch: usize,
    /// Wall time of the call, synthesis included.
    pub wall_s: Option<f64>,
    /// `wall_s / batch`.
    pub wall_s_per_circuit: Option<f64>,
    /// Synthesis of the whole batch.
    pub synth_s: Option<f64>,
    /// Everything after synthesis (H step, MSMs, epilogue), whole batch,
    /// without cuzk's self-check.
    pub gpu_s: Option<f64>,
    /// `gpu_s / batch`.
    pub gpu_s_per_circuit: Option<f64>,
    /// cuzk's self-check (verification inside the call); 0 for supraseal.
    pub self_check_s: Option<f64>,
    /// Loading the parameters for this side (cuzk: decode + upload to the
    /// GPU; supraseal: SRS into pinned host memory, which finishes in the
    /// background during the warm-up).
    pub load_s: Option<f64>,
    /// Every proof passed bellperson 0.26's verifier.
    pub verified: bool,
    /// Why there are no timings.
    pub error: Option<String>,
}

impl Record {
    /// A record from a measurement.
    pub fn ok(
        side: &'static str,
        log_size: u32,
        constraints: usize,
        load: Duration,
        m: &Measured,
    ) -> Self {
        let per = |d: Duration| d.as_secs_f64() / m.batch.max(1) as f64;
        Self {
            side,
            log_size,
            constraints,
            batch: m.batch,
            wall_s: Some(m.wall.as_secs_f64()),
            wall_s_per_circuit: Some(per(m.wall)),
            synth_s: Some(m.synth.as_secs_f64()),
            gpu_s: m.gpu.map(|d| d.as_secs_f64()),
            gpu_s_per_circuit: m.gpu.map(per),
            self_check_s: Some(m.self_check.as_secs_f64()),
            load_s: Some(load.as_secs_f64()),
            verified: m.verified,
            error: None,
        }
    }

    /// A record for a call that failed.
    pub fn failed(
        side: &'static str,
        log_size: u32,
        constraints: usize,
        batch: usize,
        error: String,
    ) -> Self {
        Self {
            side,
            log_size,
            constraints,
            batch,
            wall_s: None,
            wall_s_per_circuit: None,
            synth_s: None,
            gpu_s: None,
            gpu_s_per_circuit: None,
            self_check_s: None,
            load_s: None,
            verified: false,
            error: Some(error),
        }
    }
}

/// The JSON document.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// "cuzk-anchor".
    pub tool: &'static str,
    /// This crate's version.
    pub version: &'static str,
    /// Sides this binary was built with.
    pub sides_built: Vec<&'static str>,
    /// The circuit both sides proved.
    pub circuit: crate::params::Circuit,
    /// Witness seed of the first circuit (circuit i of a batch uses seed + i).
    pub seed: u64,
    /// Seed of the test setup for generated parameter files.
    pub setup_seed: u64,
    /// Requested batch size.
    pub batch: usize,
    /// Unmeasured single-circuit proofs per side and size before measuring.
    pub warmup: usize,
    /// The measurements.
    pub records: &'a [Record],
}

fn secs(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |x| format!("{x:.3}"))
}

fn ratio(num: Option<f64>, den: Option<f64>) -> String {
    match (num, den) {
        (Some(n), Some(d)) if d > 0.0 => format!("{:.2}×", n / d),
        _ => "–".to_owned(),
    }
}

/// Markdown: every record, then supraseal/cuzk ratios per size (> 1: cuzk is
/// faster).
pub fn markdown(records: &[Record], batch: usize) -> String {
    let mut s = String::new();
    s.push_str(
        "| log | constraints | side | batch | wall s | synth s | GPU s/circuit | verified |\n",
    );
    s.push_str("|---:|---:|---|---:|---:|---:|---:|---|\n");
    for r in records {
        let verified = match &r.error {
            Some(e) => format!("error: {}", e.replace('|', "/")),
            None if r.verified => "yes".to_owned(),
            None => "**NO**".to_owned(),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.log_size,
            r.constraints,
            r.side,
            r.batch,
            secs(r.wall_s),
            secs(r.synth_s),
            secs(r.gpu_s_per_circuit),
            verified
        ));
    }
    let mut sizes: Vec<u32> = records.iter().map(|r| r.log_size).collect();
    sizes.dedup();
    let find = |log: u32, side: &str, b: usize| {
        records
            .iter()
            .find(|r| r.log_size == log && r.side == side && r.batch == b && r.error.is_none())
    };
    let both = sizes
        .iter()
        .any(|&l| find(l, "cuzk", 1).is_some() && find(l, "supraseal", 1).is_some());
    if both {
        s.push_str(&format!(
            "\nsupraseal / cuzk (> 1: cuzk faster); GPU = after synthesis\n\n\
             | log | GPU, 1 circuit | GPU per circuit, batch {batch} | wall, 1 circuit | wall per circuit, batch {batch} |\n\
             |---:|---:|---:|---:|---:|\n"
        ));
        for &log in &sizes {
            let get = |side: &str, b: usize, f: fn(&Record) -> Option<f64>| {
                find(log, side, b).and_then(f)
            };
            let gpu = |r: &Record| r.gpu_s_per_circuit;
            let wall = |r: &Record| r.wall_s_per_circuit;
            s.push_str(&format!(
                "| {log} | {} | {} | {} | {} |\n",
                ratio(get("supraseal", 1, gpu), get("cuzk", 1, gpu)),
                ratio(get("supraseal", batch, gpu), get("cuzk", batch, gpu)),
                ratio(get("supraseal", 1, wall), get("cuzk", 1, wall)),
                ratio(get("supraseal", batch, wall), get("cuzk", batch, wall)),
            ));
        }
    }
    s
}
