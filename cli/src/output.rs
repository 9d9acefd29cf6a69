//! Printing: human summaries, JSON, progress bars, error lines.

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// Global output settings.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    pub json: bool,
    pub quiet: bool,
}

impl Ctx {
    /// A progress bar for `total` items (hidden when quiet).
    pub fn bar(&self, msg: &str, total: u64) -> ProgressBar {
        if self.quiet {
            return ProgressBar::hidden();
        }
        let b = ProgressBar::new(total);
        b.set_style(
            ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} ({eta})")
                .expect("static template")
                .progress_chars("=> "),
        );
        b.set_message(msg.to_string());
        b
    }

    /// A bar counting bytes (with throughput), e.g. parameter loading.
    pub fn bytes_bar(&self, msg: &str, total: u64) -> ProgressBar {
        if self.quiet {
            return ProgressBar::hidden();
        }
        let b = ProgressBar::new(total);
        b.set_style(
            ProgressStyle::with_template(
                "{msg:>12} [{bar:40}] {bytes}/{total_bytes} ({binary_bytes_per_sec}, {eta})",
            )
            .expect("static template")
            .progress_chars("=> "),
        );
        b.set_message(msg.to_string());
        b
    }

    /// A spinner for a step of unknown length.
    pub fn spinner(&self, msg: &str) -> ProgressBar {
        if self.quiet {
            return ProgressBar::hidden();
        }
        let b = ProgressBar::new_spinner();
        b.set_message(msg.to_string());
        b.enable_steady_tick(Duration::from_millis(120));
        b
    }

    /// Prints a line for humans (stderr when JSON goes to stdout).
    pub fn say(&self, s: impl AsRef<str>) {
        if self.json {
            eprintln!("{}", s.as_ref());
        } else {
            println!("{}", s.as_ref());
        }
    }
}

/// An error chain as one line: "outer: inner: root".
pub fn one_line(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in e.chain() {
        let s = c.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
    }
    parts.join(": ").replace('\n', " ")
}

/// Seconds with millisecond precision.
pub fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e3).round() / 1e3
}

/// Stage timings as a JSON object and as aligned text lines.
pub fn timings_json(t: &cuzk_groth16::Timings) -> serde_json::Value {
    serde_json::Value::Object(
        t.stages()
            .iter()
            .map(|(s, d)| (s.to_string(), serde_json::json!(secs(*d))))
            .collect(),
    )
}

pub fn timings_text(t: &cuzk_groth16::Timings) -> String {
    let w = t
        .stages()
        .iter()
        .map(|(n, _)| n.len())
        .chain([5])
        .max()
        .unwrap_or(5);
    let mut s = String::new();
    for (name, d) in t.stages() {
        s.push_str(&format!("  {name:<w$} {:>9.3} s\n", d.as_secs_f64()));
    }
    s.push_str(&format!(
        "  {:<w$} {:>9.3} s",
        "total",
        t.total().as_secs_f64()
    ));
    s
}
