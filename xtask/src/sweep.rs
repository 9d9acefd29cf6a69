//! `cargo xtask sweep`: one `cuzk bench --json` run per point of a grid
//! over synthesis concurrency (c), GPU workers per device (gw), partition
//! workers and circuit sizes; results as JSON, a Markdown table and an SVG
//! plot (s/proof and GPU busy % against c, one line per gw).
//!
//! Each point runs in its own process, so a point that fails (an error, the
//! OOM killer, a timeout) is recorded as such and the sweep goes on. The
//! results file is rewritten after every point, so an interrupted sweep
//! keeps what it measured. Runs from the bundled xtask binary too (no cargo
//! needed): `cuzk` is looked up next to it.

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Flags of `cargo xtask sweep`.
#[derive(Debug, Clone, clap::Args)]
pub struct SweepArgs {
    /// Synthesis concurrency values (c), comma-separated.
    #[arg(short = 'c', long = "c", value_delimiter = ',', default_values_t = vec![1, 2, 4])]
    pub c: Vec<usize>,
    /// GPU workers per device (gw), comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1, 2])]
    pub gw: Vec<usize>,
    /// Per-proof synthesis caps (partition workers), comma-separated;
    /// absent: no cap.
    #[arg(long, value_delimiter = ',')]
    pub partition_workers: Vec<usize>,
    /// Proofs per point (j).
    #[arg(short = 'j', long = "j", default_value_t = 10)]
    pub j: usize,
    /// Partitions per proof.
    #[arg(long, default_value_t = 2)]
    pub partitions: usize,
    /// Circuit sizes (log2 of the domain), comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = vec![12])]
    pub log_size: Vec<u32>,
    /// Circuit family passed to `cuzk bench --circuit`.
    #[arg(long, default_value = "bench")]
    pub circuit: String,
    /// Sweep the PoRep C2 of this sector size instead (`cuzk bench porep
    /// --sector-size S`: 10 partitions per proof at 32 GiB, random C1s;
    /// `--param-cache` names the folder of its `.params`).
    #[arg(long)]
    pub sector_size: Option<String>,
    /// Memory budget passed to every point (e.g. "8GiB"); default: the engine's.
    #[arg(long)]
    pub budget: Option<String>,
    /// Engine configuration file passed to every point.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Directory of cached test parameters passed to every point.
    #[arg(long)]
    pub param_cache: Option<PathBuf>,
    /// Backend passed to every point (auto, cpu, gpu).
    #[arg(long)]
    pub backend: Option<String>,
    /// The `cuzk` binary; default: next to this binary (a `release`
    /// sibling of a `debug` directory is preferred).
    #[arg(long)]
    pub cuzk: Option<PathBuf>,
    /// Output directory; default: ./sweep-<unix time>.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seconds before a point is killed and recorded as a timeout.
    #[arg(long, default_value_t = 3600)]
    pub timeout: u64,
    /// Do not keep a timeline file per point.
    #[arg(long)]
    pub no_timeline: bool,
}

/// One grid point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Point {
    c: usize,
    gw: usize,
    pw: Option<usize>,
    log_size: u32,
}

impl Point {
    fn id(&self) -> String {
        let pw = self
            .pw
            .map(|p| p.to_string())
            .unwrap_or_else(|| "all".into());
        format!("c{}-gw{}-pw{pw}-k{}", self.c, self.gw, self.log_size)
    }
}

/// Runs the sweep.
pub fn run(args: SweepArgs) -> Result<()> {
    if args.c.is_empty() || args.gw.is_empty() || args.log_size.is_empty() {
        bail!("--c, --gw and --log-size need at least one value each");
    }
    if args.c.contains(&0) || args.gw.contains(&0) || args.partition_workers.contains(&0) {
        bail!("c, gw and partition workers must be at least 1");
    }
    if args.j == 0 || args.partitions == 0 {
        bail!("-j and --partitions must be at least 1");
    }
    if args.sector_size.is_some() && !args.partition_workers.is_empty() {
        bail!("--partition-workers does not apply to a PoRep sweep (--sector-size)");
    }
    let cuzk = find_cuzk(args.cuzk.as_deref())?;
    let out = match &args.out {
        Some(o) => o.clone(),
        None => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            PathBuf::from(format!("sweep-{secs}"))
        }
    };
    std::fs::create_dir_all(out.join("logs"))
        .with_context(|| format!("cannot create {}", out.display()))?;

    let pws: Vec<Option<usize>> = if args.partition_workers.is_empty() {
        vec![None]
    } else {
        args.partition_workers.iter().map(|&p| Some(p)).collect()
    };
    let mut grid = Vec::new();
    for &log_size in &args.log_size {
        for &pw in &pws {
            for &gw in &args.gw {
                for &c in &args.c {
                    grid.push(Point {
                        c,
                        gw,
                        pw,
                        log_size,
                    });
                }
            }
        }
    }
    eprintln!(
        "sweep: {} points with {} -> {}",
        grid.len(),
        cuzk.display(),
        out.display()
    );

    let header = json!({
        "cuzk": cuzk, "circuit": args.circuit, "j": args.j, "partitions": args.partitions,
        "budget": args.budget, "backend": args.backend, "timeout_s": args.timeout,
        "c": args.c, "gw": args.gw, "partition_workers": args.partition_workers, "log_size": args.log_size,
    });
    let mut results: Vec<Value> = Vec::new();
    for (n, pt) in grid.iter().enumerate() {
        eprint!("[{}/{}] {} ... ", n + 1, grid.len(), pt.id());
        let r = run_point(&args, &cuzk, &out, pt);
        eprintln!("{}", describe(&r));
        results.push(r);
        write_outputs(&out, &header, &results)?;
    }
    let failed = results.iter().filter(|r| r["status"] != "ok").count();
    eprintln!(
        "sweep done: {} ok, {failed} failed; {} {} {}",
        results.len() - failed,
        out.join("results.json").display(),
        out.join("results.md").display(),
        out.join("plot.svg").display()
    );
    Ok(())
}

fn find_cuzk(given: Option<&Path>) -> Result<PathBuf> {
    let name = format!("cuzk{}", std::env::consts::EXE_SUFFIX);
    if let Some(p) = given {
        if p.is_file() {
            return Ok(p.to_path_buf());
        }
        bail!("--cuzk {}: no such file", p.display());
    }
    let exe = std::env::current_exe().context("cannot locate the xtask binary")?;
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut candidates = Vec::new();
    // `cargo xtask` runs a debug xtask; a release cuzk is what one wants
    // to measure when it exists.
    if dir.file_name().is_some_and(|d| d == "debug") {
        if let Some(target) = dir.parent() {
            candidates.push(target.join("release").join(&name));
        }
    }
    candidates.push(dir.join(&name));
    for c in &candidates {
        if c.is_file() {
            return Ok(c.clone());
        }
    }
    bail!(
        "no cuzk binary at {}; build it (cargo build --release -p cuzk) or pass --cuzk PATH",
        candidates
            .iter()
            .map(|c| c.display().to_string())
            .collect::<Vec<_>>()
            .join(" or ")
    )
}

fn point_args(args: &SweepArgs, out: &Path, pt: &Point) -> Vec<String> {
    let mut v: Vec<String> = vec!["--json".into(), "--quiet".into(), "bench".into()];
    if args.sector_size.is_some() {
        v.push("porep".into());
    }
    let mut push = |k: &str, val: String| {
        v.push(k.into());
        v.push(val);
    };
    match &args.sector_size {
        // `bench porep`: the sector size fixes the circuit and the
        // partitions (the grid's log size and partition caps do not apply).
        Some(size) => push("--sector-size", size.clone()),
        None => {
            push("--circuit", args.circuit.clone());
            push("--log-size", pt.log_size.to_string());
            push("--partitions", args.partitions.to_string());
            if let Some(pw) = pt.pw {
                push("--partition-workers", pw.to_string());
            }
        }
    }
    push("-c", pt.c.to_string());
    push("-j", args.j.to_string());
    push("--gw", pt.gw.to_string());
    if let Some(b) = &args.budget {
        push("--budget", b.clone());
    }
    if let Some(c) = &args.config {
        push("--config", c.display().to_string());
    }
    if let Some(p) = &args.param_cache {
        push("--param-cache", p.display().to_string());
    }
    if let Some(b) = &args.backend {
        push("--backend", b.clone());
    }
    if !args.no_timeline {
        push(
            "--timeline",
            out.join(format!("timeline-{}.jsonl", pt.id()))
                .display()
                .to_string(),
        );
    }
    v
}

/// Drains a pipe on its own thread so a chatty child never blocks.
fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    })
}

#[cfg(unix)]
fn signal_of(s: &ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    s.signal()
}

#[cfg(not(unix))]
fn signal_of(_: &ExitStatus) -> Option<i32> {
    None
}

fn run_point(args: &SweepArgs, cuzk: &Path, out: &Path, pt: &Point) -> Value {
    let argv = point_args(args, out, pt);
    let command: Vec<String> = std::iter::once(cuzk.display().to_string())
        .chain(argv.iter().cloned())
        .collect();
    let mut rec = json!({
        "id": pt.id(), "c": pt.c, "gw": pt.gw, "partition_workers": pt.pw, "log_size": pt.log_size,
        "j": args.j, "partitions": args.partitions, "command": command,
    });
    let t0 = Instant::now();
    let child = Command::new(cuzk)
        .args(&argv)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            rec["status"] = "error".into();
            rec["error"] = format!("cannot start {}: {e}", cuzk.display()).into();
            return rec;
        }
    };
    let (so, se) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let limit = Duration::from_secs(args.timeout);
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if t0.elapsed() > limit => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(_) => break None,
        }
    };
    let stdout = so.join().unwrap_or_default();
    let stderr = se.join().unwrap_or_default();
    rec["seconds"] = json!((t0.elapsed().as_secs_f64() * 1e3).round() / 1e3);
    let logs = out.join("logs");
    let _ = std::fs::write(logs.join(format!("{}.stdout", pt.id())), &stdout);
    let _ = std::fs::write(logs.join(format!("{}.stderr", pt.id())), &stderr);

    // The report is the last JSON line on stdout (present even when some
    // proofs failed: cuzk prints it, then exits 1).
    let report = String::from_utf8_lossy(&stdout)
        .lines()
        .rev()
        .find_map(|l| {
            serde_json::from_str::<Value>(l.trim())
                .ok()
                .filter(Value::is_object)
        });
    let last_err = String::from_utf8_lossy(&stderr)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_string());
    if let Some(r) = &report {
        rec["report"] = r.clone();
    }
    let signal = status.as_ref().and_then(signal_of);
    rec["exit_code"] = json!(status.as_ref().and_then(ExitStatus::code));
    rec["signal"] = json!(signal);
    let (st, err): (&str, Option<String>) = match status {
        _ if timed_out => ("timeout", Some(format!("killed after {} s", args.timeout))),
        None => ("error", Some("lost track of the process".into())),
        Some(s) if s.success() && report.is_some() => ("ok", None),
        Some(s) if s.success() => ("error", Some("no JSON report on stdout".into())),
        // SIGKILL that we did not send: on Linux that is the OOM killer.
        Some(_) if signal == Some(9) => ("oom", Some("killed by SIGKILL (out of memory?)".into())),
        Some(_) if signal.is_some() => (
            "crashed",
            Some(format!("killed by signal {}", signal.unwrap_or(0))),
        ),
        Some(_) => (
            "failed",
            last_err.clone().or_else(|| Some("non-zero exit".into())),
        ),
    };
    rec["status"] = st.into();
    if let Some(e) = err {
        rec["error"] = e.into();
    }
    rec
}

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get("report")
        .and_then(|r| r.get(key))
        .and_then(Value::as_f64)
}

fn describe(r: &Value) -> String {
    match r["status"].as_str() {
        Some("ok") => format!(
            "ok: {} s/proof, GPU busy {}, bounded by {}",
            fmt(num(r, "steady_s_per_proof"), 3),
            fmt(num(r, "gpu_busy_pct"), 0) + "%",
            r["report"]["bounded_by"].as_str().unwrap_or("?")
        ),
        Some(s) => format!("{s}: {}", r["error"].as_str().unwrap_or("")),
        None => "?".into(),
    }
}

fn fmt(x: Option<f64>, digits: usize) -> String {
    x.map(|v| format!("{v:.digits$}"))
        .unwrap_or_else(|| "–".into())
}

fn write_outputs(out: &Path, header: &Value, results: &[Value]) -> Result<()> {
    let doc = json!({ "sweep": header, "points": results });
    let w = |name: &str, text: String| -> Result<()> {
        std::fs::write(out.join(name), text)
            .with_context(|| format!("cannot write {}", out.join(name).display()))
    };
    w("results.json", serde_json::to_string_pretty(&doc)?)?;
    w("results.md", markdown(header, results))?;
    w("plot.svg", svg(results))?;
    Ok(())
}

fn markdown(header: &Value, results: &[Value]) -> String {
    let mut s = format!(
        "# cuzk sweep\n\n{} circuit, {} proofs × {} partitions per point, binary `{}`.\n\n",
        header["circuit"].as_str().unwrap_or("?"),
        header["j"],
        header["partitions"],
        header["cuzk"].as_str().unwrap_or("?")
    );
    s += "| c | gw | pw | log size | status | s/proof | proofs/h | GPU busy % | idle gaps (n / p95 ms) | synth busy % | mem wait % | CPU % | peak RSS GiB | bounded by |\n";
    s += "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for r in results {
        let rep = &r["report"];
        let gaps = if rep.is_object() {
            format!(
                "{} / {}",
                rep["idle_gaps"]["count"],
                fmt(rep["idle_gaps"]["p95_ms"].as_f64(), 1)
            )
        } else {
            "–".into()
        };
        let rss = num(r, "peak_rss_bytes").map(|b| b / (1u64 << 30) as f64);
        let status = match r["status"].as_str() {
            Some("ok") => "ok".to_string(),
            Some(st) => format!(
                "**{st}**: {}",
                r["error"].as_str().unwrap_or("").replace('|', "\\|")
            ),
            None => "?".into(),
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r["c"],
            r["gw"],
            r["partition_workers"]
                .as_u64()
                .map(|p| p.to_string())
                .unwrap_or_else(|| "all".into()),
            r["log_size"],
            status,
            fmt(num(r, "steady_s_per_proof"), 3),
            fmt(num(r, "proofs_per_hour"), 1),
            fmt(num(r, "gpu_busy_pct"), 1),
            gaps,
            fmt(num(r, "synthesis_busy_pct"), 1),
            fmt(num(r, "memory_wait_pct"), 1),
            fmt(num(r, "cpu_util_pct"), 1),
            fmt(rss, 2),
            rep["bounded_by"].as_str().unwrap_or("–"),
        );
    }
    s
}

const COLORS: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Two panels side by side: s/proof against c and GPU busy % against c,
/// one polyline per (gw, partition workers, size); c on evenly spaced
/// categories (the grid is usually 1, 2, 4, 8, …). Failed points are red
/// crosses on the x axis.
fn svg(results: &[Value]) -> String {
    let cs: Vec<u64> = results
        .iter()
        .filter_map(|r| r["c"].as_u64())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let key = |r: &Value| {
        (
            r["gw"].as_u64().unwrap_or(0),
            r["partition_workers"].as_u64(),
            r["log_size"].as_u64().unwrap_or(0),
        )
    };
    let series: Vec<(u64, Option<u64>, u64)> = results
        .iter()
        .map(key)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let vary_pw = series.iter().map(|s| s.1).collect::<BTreeSet<_>>().len() > 1;
    let vary_k = series.iter().map(|s| s.2).collect::<BTreeSet<_>>().len() > 1;
    let label = |s: &(u64, Option<u64>, u64)| {
        let mut l = format!("gw={}", s.0);
        if vary_pw {
            l += &format!(
                " pw={}",
                s.1.map(|p| p.to_string()).unwrap_or_else(|| "all".into())
            );
        }
        if vary_k {
            l += &format!(" k={}", s.2);
        }
        l
    };
    let (pw, ph, top, left) = (380.0, 300.0, 50.0, 70.0);
    // Two panels 110 px apart, then room for the legend.
    let (w, h) = (left + 2.0 * pw + 110.0 + 200.0, 440.0);
    let panels = [
        (
            "steady_s_per_proof",
            "seconds per proof (steady state)",
            None,
        ),
        ("gpu_busy_pct", "GPU busy %", Some(100.0)),
    ];
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    let xpos = |c: u64, x0: f64| -> f64 {
        let i = cs.iter().position(|&v| v == c).unwrap_or(0) as f64;
        let n = cs.len().max(1) as f64;
        x0 + pw * (i + 0.5) / n
    };
    for (pi, (metric, title, fixed_max)) in panels.iter().enumerate() {
        let x0 = left + pi as f64 * (pw + 110.0);
        let vals: Vec<f64> = results
            .iter()
            .filter(|r| r["status"] == "ok")
            .filter_map(|r| num(r, metric))
            .collect();
        let ymax = fixed_max.unwrap_or_else(|| nice_max(vals.iter().copied().fold(0.0, f64::max)));
        let ypos = |v: f64| top + ph - ph * (v / ymax).clamp(0.0, 1.0);
        s += &format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
            x0 + pw / 2.0,
            top - 20.0,
            esc(title)
        );
        s += &format!("<rect x=\"{x0}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#333\"/>\n");
        for t in 0..=4 {
            let v = ymax * t as f64 / 4.0;
            let y = ypos(v);
            s += &format!(
                "<line x1=\"{x0}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/>\n",
                x0 + pw
            );
            s += &format!(
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                x0 - 6.0,
                y + 4.0,
                trim_num(v)
            );
        }
        for &c in &cs {
            s += &format!(
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{c}</text>\n",
                xpos(c, x0),
                top + ph + 18.0
            );
        }
        s += &format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">synthesis concurrency c</text>\n",
            x0 + pw / 2.0,
            top + ph + 38.0
        );
        for (si, ser) in series.iter().enumerate() {
            let color = COLORS[si % COLORS.len()];
            let mut pts: Vec<(u64, f64)> = results
                .iter()
                .filter(|r| key(r) == *ser && r["status"] == "ok")
                .filter_map(|r| Some((r["c"].as_u64()?, num(r, metric)?)))
                .collect();
            pts.sort_by_key(|p| p.0);
            if pts.len() > 1 {
                let line: Vec<String> = pts
                    .iter()
                    .map(|&(c, v)| format!("{:.1},{:.1}", xpos(c, x0), ypos(v)))
                    .collect();
                s += &format!("<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>\n", line.join(" "));
            }
            for &(c, v) in &pts {
                s += &format!(
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"{color}\"><title>{} c={c}: {}</title></circle>\n",
                    xpos(c, x0),
                    ypos(v),
                    esc(&label(ser)),
                    trim_num(v)
                );
            }
            for r in results
                .iter()
                .filter(|r| key(r) == *ser && r["status"] != "ok")
            {
                let (x, y) = (xpos(r["c"].as_u64().unwrap_or(0), x0), top + ph);
                s += &format!(
                    "<g stroke=\"#d62728\" stroke-width=\"2\"><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/><title>{} c={}: {}</title></g>\n",
                    x - 5.0, y - 5.0, x + 5.0, y + 5.0, x - 5.0, y + 5.0, x + 5.0, y - 5.0,
                    esc(&label(ser)),
                    r["c"],
                    esc(r["status"].as_str().unwrap_or("failed"))
                );
            }
        }
    }
    // Legend.
    let lx = left + 2.0 * pw + 110.0 + 10.0;
    for (si, ser) in series.iter().enumerate() {
        let y = top + 10.0 + 18.0 * si as f64;
        let color = COLORS[si % COLORS.len()];
        s += &format!("<line x1=\"{lx}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{color}\" stroke-width=\"2\"/>\n", lx + 18.0);
        s += &format!(
            "<text x=\"{}\" y=\"{}\">{}</text>\n",
            lx + 24.0,
            y + 4.0,
            esc(&label(ser))
        );
    }
    let y = top + 10.0 + 18.0 * series.len() as f64;
    s += &format!(
        "<text x=\"{lx}\" y=\"{}\" fill=\"#d62728\">× failed</text>\n",
        y + 4.0
    );
    s += "</svg>\n";
    s
}

/// 1, 2 or 5 times a power of ten, at least `v` (and > 0).
fn nice_max(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&m| m >= v)
        .unwrap_or(10.0 * p)
}

fn trim_num(v: f64) -> String {
    if v == v.round() && v.abs() < 1e9 {
        format!("{}", v as i64)
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(c: u64, gw: u64, status: &str, spp: f64, busy: f64) -> Value {
        let mut r =
            json!({"c": c, "gw": gw, "partition_workers": null, "log_size": 12, "status": status});
        if status == "ok" {
            r["report"] = json!({"steady_s_per_proof": spp, "gpu_busy_pct": busy, "proofs_per_hour": 3600.0 / spp,
                "idle_gaps": {"count": 3, "p95_ms": 2.5}, "bounded_by": "gpu", "peak_rss_bytes": 1u64 << 30});
        } else {
            r["error"] = "killed by SIGKILL (out of memory?)".into();
        }
        r
    }

    #[test]
    fn outputs_cover_every_point() {
        let results = vec![
            point(1, 1, "ok", 2.0, 50.0),
            point(2, 1, "ok", 1.5, 80.0),
            point(4, 1, "oom", 0.0, 0.0),
            point(1, 2, "ok", 1.8, 60.0),
            point(2, 2, "ok", 1.2, 95.0),
        ];
        let header = json!({"circuit": "bench", "j": 10, "partitions": 2, "cuzk": "/x/cuzk"});
        let md = markdown(&header, &results);
        assert_eq!(
            md.lines()
                .filter(|l| l.starts_with("| ") && !l.starts_with("| c "))
                .count(),
            5
        );
        assert!(md.contains("**oom**"));
        assert!(md.contains("| 2 | 1 | all | 12 | ok | 1.500 | 2400.0 | 80.0 | 3 / 2.5 |"));
        let svg = svg(&results);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 4, "2 series x 2 panels");
        assert!(svg.contains("gw=1") && svg.contains("gw=2"));
        assert_eq!(
            svg.matches("stroke=\"#d62728\"").count(),
            2,
            "the failed point in both panels"
        );
        // Balanced tags: every opened element is closed or self-closed.
        assert_eq!(svg.matches("<g ").count(), svg.matches("</g>").count());
        assert_eq!(
            svg.matches("<circle").count(),
            svg.matches("</circle>").count()
        );
    }

    #[test]
    fn helpers() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(0.7), 1.0);
        assert_eq!(nice_max(1.0), 1.0);
        assert_eq!(nice_max(1.2), 2.0);
        assert_eq!(nice_max(41.0), 50.0);
        assert_eq!(nice_max(51.0), 100.0);
        assert_eq!(trim_num(40.0), "40");
        assert_eq!(trim_num(12.345), "12.3");
        assert_eq!(trim_num(0.1234), "0.123");
        assert_eq!(esc("a<b&\"c\""), "a&lt;b&amp;&quot;c&quot;");
        let p = Point {
            c: 15,
            gw: 2,
            pw: None,
            log_size: 27,
        };
        assert_eq!(p.id(), "c15-gw2-pwall-k27");
    }

    #[test]
    fn point_command_line() {
        let args = SweepArgs {
            c: vec![1],
            gw: vec![1],
            partition_workers: vec![],
            j: 10,
            partitions: 3,
            log_size: vec![12],
            circuit: "bench".into(),
            sector_size: None,
            budget: Some("4GiB".into()),
            config: None,
            param_cache: None,
            backend: Some("cpu".into()),
            cuzk: None,
            out: None,
            timeout: 10,
            no_timeline: true,
        };
        let v = point_args(
            &args,
            Path::new("/o"),
            &Point {
                c: 8,
                gw: 2,
                pw: Some(3),
                log_size: 14,
            },
        );
        assert_eq!(
            v.join(" "),
            "--json --quiet bench --circuit bench --log-size 14 --partitions 3 --partition-workers 3 -c 8 -j 10 --gw 2 --budget 4GiB --backend cpu"
        );
        let porep = SweepArgs {
            sector_size: Some("32GiB".into()),
            param_cache: Some("/p".into()),
            ..args.clone()
        };
        let v = point_args(
            &porep,
            Path::new("/o"),
            &Point {
                c: 16,
                gw: 2,
                pw: None,
                log_size: 27,
            },
        );
        assert_eq!(
            v.join(" "),
            "--json --quiet bench porep --sector-size 32GiB -c 16 -j 10 --gw 2 --budget 4GiB --param-cache /p --backend cpu"
        );
    }
}
