//! Per-stage wall-clock timings of a proof, in the order the stages ran.

use std::time::{Duration, Instant};

/// Stage name → duration, in order of first appearance.
#[derive(Clone, Debug, Default)]
pub struct Timings {
    stages: Vec<(&'static str, Duration)>,
}

impl Timings {
    /// Runs `f`, adding its wall time to `stage`.
    pub fn time<T>(&mut self, stage: &'static str, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        self.add(stage, t.elapsed());
        out
    }

    /// Adds `d` to `stage`.
    pub fn add(&mut self, stage: &'static str, d: Duration) {
        match self.stages.iter_mut().find(|(s, _)| *s == stage) {
            Some((_, acc)) => *acc += d,
            None => self.stages.push((stage, d)),
        }
    }

    /// Merges another set of timings into this one.
    pub fn merge(&mut self, other: &Timings) {
        for (s, d) in &other.stages {
            self.add(s, *d);
        }
    }

    /// The stages in order.
    pub fn stages(&self) -> &[(&'static str, Duration)] {
        &self.stages
    }

    /// Sum of all stages.
    pub fn total(&self) -> Duration {
        self.stages.iter().map(|(_, d)| *d).sum()
    }
}
