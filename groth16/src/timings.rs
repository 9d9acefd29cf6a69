//! Per-stage wall-clock timings of a proof, in the order the stages ran,
//! and the spans behind them (when each ran), for timelines.

use std::time::{Duration, Instant};

/// One interval of wall time: a stage, or work that ran beside the stages
/// (see [`Timings::beside`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Stage name.
    pub stage: &'static str,
    /// When it began.
    pub start: Instant,
    /// How long it took.
    pub dur: Duration,
    /// False for work that ran beside the stages (its time is in no stage).
    pub staged: bool,
}

/// Stage name → duration, in order of first appearance, plus every span.
#[derive(Clone, Debug, Default)]
pub struct Timings {
    stages: Vec<(&'static str, Duration)>,
    spans: Vec<Span>,
    /// Counted quantities (e.g. `stream_bytes`: bases copied host →
    /// device), summed by name.
    counts: Vec<(&'static str, u64)>,
}

impl Timings {
    /// Runs `f`, adding its wall time to `stage`.
    pub fn time<T>(&mut self, stage: &'static str, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        self.add_at(stage, t, t.elapsed());
        out
    }

    /// Adds `d` to `stage`, as a span that ends now.
    pub fn add(&mut self, stage: &'static str, d: Duration) {
        let now = Instant::now();
        self.add_at(stage, now.checked_sub(d).unwrap_or(now), d);
    }

    /// Adds `d` to `stage`, as a span that began at `start`.
    pub fn add_at(&mut self, stage: &'static str, start: Instant, d: Duration) {
        match self.stages.iter_mut().find(|(s, _)| *s == stage) {
            Some((_, acc)) => *acc += d,
            None => self.stages.push((stage, d)),
        }
        self.spans.push(Span {
            stage,
            start,
            dur: d,
            staged: true,
        });
    }

    /// Records work that ran beside the stages (e.g. CPU classification
    /// during the H step): a span for timelines, in no stage's total.
    pub fn beside(&mut self, name: &'static str, start: Instant, d: Duration) {
        self.spans.push(Span {
            stage: name,
            start,
            dur: d,
            staged: false,
        });
    }

    /// Adds `n` to the count `what`.
    pub fn count(&mut self, what: &'static str, n: u64) {
        match self.counts.iter_mut().find(|(w, _)| *w == what) {
            Some((_, acc)) => *acc += n,
            None => self.counts.push((what, n)),
        }
    }

    /// The counts, in order of first appearance.
    pub fn counts(&self) -> &[(&'static str, u64)] {
        &self.counts
    }

    /// Merges another set of timings into this one.
    pub fn merge(&mut self, other: &Timings) {
        for (w, n) in &other.counts {
            self.count(w, *n);
        }
        for (s, d) in &other.stages {
            match self.stages.iter_mut().find(|(x, _)| x == s) {
                Some((_, acc)) => *acc += *d,
                None => self.stages.push((s, *d)),
            }
        }
        self.spans.extend_from_slice(&other.spans);
    }

    /// The stages in order.
    pub fn stages(&self) -> &[(&'static str, Duration)] {
        &self.stages
    }

    /// Every span, in the order recorded.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// Sum of all stages.
    pub fn total(&self) -> Duration {
        self.stages.iter().map(|(_, d)| *d).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_sum_and_spans_keep_their_starts() {
        let mut t = Timings::default();
        let t0 = Instant::now();
        t.add_at("a", t0, Duration::from_millis(5));
        t.add_at("b", t0 + Duration::from_millis(5), Duration::from_millis(7));
        t.add_at(
            "a",
            t0 + Duration::from_millis(12),
            Duration::from_millis(1),
        );
        t.beside("classify", t0, Duration::from_millis(9));
        let mut other = Timings::default();
        other.add_at(
            "c",
            t0 + Duration::from_millis(13),
            Duration::from_millis(2),
        );
        t.merge(&other);
        assert_eq!(
            t.stages(),
            &[
                ("a", Duration::from_millis(6)),
                ("b", Duration::from_millis(7)),
                ("c", Duration::from_millis(2)),
            ]
        );
        // The side span is in no stage.
        assert_eq!(t.total(), Duration::from_millis(15));
        let spans = t.spans();
        assert_eq!(spans.len(), 5);
        assert_eq!(spans[2].start - t0, Duration::from_millis(12));
        assert!(!spans[3].staged && spans[3].stage == "classify");
        assert_eq!(spans[4].stage, "c");
    }
}
