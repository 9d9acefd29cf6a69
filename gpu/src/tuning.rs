//! Measurement settings of the GPU code: knobs for A/B runs and diagnosis
//! on a GPU machine, not configuration. They are read from the environment
//! once per process ([`Tuning::get`]), parsed in one place
//! ([`Tuning::parse`]), handed to the C++ side as arguments (no `.cu` file
//! reads the environment), and printed by `cuzk info`.
//!
//! | variable | field | values |
//! |---|---|---|
//! | `CUZK_MSM_PROFILE` | [`Tuning::msm_profile`] | `1` on, `0` off (default) |
//! | `CUZK_MSM_OCC` | [`Tuning::msm_occupancy`] | `2` (default), `1`, `b128` ([`MsmOccupancy`]) |
//! | `CUZK_H_COPIES` | [`Tuning::h_copies_cap`] | an integer ≥ 0; unset: no cap |
//! | `CUZK_MSM_ROUNDS` | [`Tuning::msm_max_rounds`] | 0 to 6; unset: as the buckets call for |
//! | `CUZK_WARMUP` | [`Tuning::no_warmup`] | `0` skips the placement's warm-up, `1` (default) runs it |
//!
//! An invalid value is ignored with a warning on stderr (the default
//! applies): a measurement knob never stops a prover, and the warning and
//! `cuzk info` show that the run did not measure what was asked.

use std::ffi::OsString;
use std::fmt;
use std::sync::OnceLock;

/// Launch shape of the MSM's register-bound G1 kernels (the level-0 mixed
/// additions, the bitmap segments and the affine rounds' backward pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MsmOccupancy {
    /// Two 256-thread blocks per SM, registers bounded to 128 per thread:
    /// the fastest on the H200 (G1 2^24 MSM 396 → 276 ms).
    #[default]
    TwoBlocks,
    /// Unbounded registers, one 256-thread block per SM.
    OneBlock,
    /// Unbounded registers, 128-thread blocks.
    Block128,
}

impl MsmOccupancy {
    /// Every mode.
    pub const ALL: [MsmOccupancy; 3] = [
        MsmOccupancy::TwoBlocks,
        MsmOccupancy::OneBlock,
        MsmOccupancy::Block128,
    ];

    /// The value of `CUZK_MSM_OCC` that selects this mode.
    pub fn env_value(self) -> &'static str {
        match self {
            MsmOccupancy::TwoBlocks => "2",
            MsmOccupancy::OneBlock => "1",
            MsmOccupancy::Block128 => "b128",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            MsmOccupancy::TwoBlocks => "two 256-thread blocks per SM",
            MsmOccupancy::OneBlock => "one 256-thread block per SM",
            MsmOccupancy::Block128 => "128-thread blocks",
        }
    }
}

/// The measurement settings (see the module docs). `Default` is what the
/// code does with none of the variables set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tuning {
    /// `CUZK_MSM_PROFILE=1`: every device MSM prints its device time per
    /// phase to stderr (and waits for its end to do so).
    pub msm_profile: bool,
    /// `CUZK_MSM_OCC`: the launch shape of the register-bound G1 kernels.
    pub msm_occupancy: MsmOccupancy,
    /// `CUZK_H_COPIES`: at most this many shifted copies of the H bases
    /// (0 or 1: none) in a resident placement; `None`: as many as fit.
    pub h_copies_cap: Option<u32>,
    /// `CUZK_MSM_ROUNDS`: at most this many affine rounds in a G1 MSM (0:
    /// none); `None`: as many as the mean bucket size calls for (up to
    /// 6). Fewer rounds leave more points to the XYZZ levels, whose
    /// scratch the placement's estimate (made with the default) may not
    /// cover: a knob for A/B runs on a card with room to spare.
    pub msm_max_rounds: Option<u32>,
    /// `CUZK_WARMUP=0`: a placement does not run the device work of a
    /// partition once on made-up inputs, so the first proof pays the
    /// kernels' lazy loading (the A/B of the warm-up).
    pub no_warmup: bool,
}

/// The environment variable of [`Tuning::msm_profile`].
pub const MSM_PROFILE_VAR: &str = "CUZK_MSM_PROFILE";
/// The environment variable of [`Tuning::msm_occupancy`].
pub const MSM_OCC_VAR: &str = "CUZK_MSM_OCC";
/// The environment variable of [`Tuning::h_copies_cap`].
pub const H_COPIES_VAR: &str = "CUZK_H_COPIES";
/// The environment variable of [`Tuning::msm_max_rounds`].
pub const MSM_ROUNDS_VAR: &str = "CUZK_MSM_ROUNDS";
/// The environment variable of [`Tuning::no_warmup`].
pub const WARMUP_VAR: &str = "CUZK_WARMUP";
/// The most affine rounds an MSM runs (the C side's `kMaxRounds`).
pub const MAX_ROUNDS: u32 = 6;

/// A variable whose value [`Tuning::parse`] ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuningWarning {
    /// The variable.
    pub var: &'static str,
    /// Its value (lossily decoded when it is not UTF-8).
    pub value: String,
    /// What it may be.
    pub expected: &'static str,
}

impl fmt::Display for TuningWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ignoring {}={:?}: expected {}; using the default",
            self.var, self.value, self.expected
        )
    }
}

impl Tuning {
    /// The settings of this process: read from the environment on the first
    /// call (each ignored value is reported once on stderr), the same
    /// afterwards.
    pub fn get() -> &'static Tuning {
        static TUNING: OnceLock<Tuning> = OnceLock::new();
        TUNING.get_or_init(|| {
            let (tuning, warnings) = Tuning::parse(|var| std::env::var_os(var));
            for w in warnings {
                eprintln!("cuzk: {w}");
            }
            tuning
        })
    }

    /// The settings that the variables `var` returns give, and a warning for
    /// each value it ignored (the default applies instead). Surrounding
    /// whitespace is ignored; an unset variable is the default.
    pub fn parse(var: impl Fn(&str) -> Option<OsString>) -> (Tuning, Vec<TuningWarning>) {
        let mut warnings = Vec::new();
        let mut read = |name: &'static str, expected: &'static str, ok: &dyn Fn(&str) -> bool| {
            let raw = var(name)?;
            match raw.to_str().map(str::trim) {
                Some(v) if ok(v) => Some(v.to_owned()),
                _ => {
                    warnings.push(TuningWarning {
                        var: name,
                        value: raw.to_string_lossy().into_owned(),
                        expected,
                    });
                    None
                }
            }
        };
        let msm_profile =
            read(MSM_PROFILE_VAR, "1 or 0", &|v| v == "1" || v == "0").is_some_and(|v| v == "1");
        let msm_occupancy = read(MSM_OCC_VAR, "2, 1 or b128", &|v| {
            MsmOccupancy::ALL.iter().any(|m| m.env_value() == v)
        })
        .and_then(|v| MsmOccupancy::ALL.into_iter().find(|m| m.env_value() == v))
        .unwrap_or_default();
        let h_copies_cap = read(H_COPIES_VAR, "a count of copies (0 or more)", &|v| {
            v.parse::<u32>().is_ok()
        })
        .and_then(|v| v.parse().ok());
        let msm_max_rounds = read(MSM_ROUNDS_VAR, "a count of rounds, 0 to 6", &|v| {
            v.parse::<u32>().is_ok_and(|r| r <= MAX_ROUNDS)
        })
        .and_then(|v| v.parse().ok());
        let no_warmup =
            read(WARMUP_VAR, "1 or 0", &|v| v == "1" || v == "0").is_some_and(|v| v == "0");
        (
            Tuning {
                msm_profile,
                msm_occupancy,
                h_copies_cap,
                msm_max_rounds,
                no_warmup,
            },
            warnings,
        )
    }
}

/// One line for `cuzk info`: each setting with the variable that sets it.
impl fmt::Display for Tuning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{MSM_PROFILE_VAR} {}, {MSM_OCC_VAR} {} ({}), {H_COPIES_VAR} ",
            if self.msm_profile { "on" } else { "off" },
            self.msm_occupancy.env_value(),
            self.msm_occupancy.describe(),
        )?;
        match self.h_copies_cap {
            Some(cap) => write!(f, "{cap}"),
            None => f.write_str("no cap"),
        }?;
        write!(f, ", {MSM_ROUNDS_VAR} ")?;
        match self.msm_max_rounds {
            Some(r) => write!(f, "at most {r}"),
            None => f.write_str("auto"),
        }?;
        write!(
            f,
            ", {WARMUP_VAR} {}",
            if self.no_warmup { "off" } else { "on" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(vars: &[(&str, &str)]) -> (Tuning, Vec<TuningWarning>) {
        Tuning::parse(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn unset_is_the_default() {
        assert_eq!(parse(&[]), (Tuning::default(), vec![]));
        let d = Tuning::default();
        assert!(!d.msm_profile);
        assert_eq!(d.msm_occupancy, MsmOccupancy::TwoBlocks);
        assert_eq!(d.h_copies_cap, None);
        assert_eq!(d.msm_max_rounds, None);
        assert!(!d.no_warmup);
    }

    #[test]
    fn valid_values() {
        let (t, w) = parse(&[
            (MSM_PROFILE_VAR, "1"),
            (MSM_OCC_VAR, "b128"),
            (H_COPIES_VAR, " 4 "),
            (MSM_ROUNDS_VAR, "4"),
            (WARMUP_VAR, "0"),
        ]);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            t,
            Tuning {
                msm_profile: true,
                msm_occupancy: MsmOccupancy::Block128,
                h_copies_cap: Some(4),
                msm_max_rounds: Some(4),
                no_warmup: true,
            }
        );
        for m in MsmOccupancy::ALL {
            let (t, w) = parse(&[(MSM_OCC_VAR, m.env_value())]);
            assert!(w.is_empty());
            assert_eq!(t.msm_occupancy, m);
        }
        let (t, w) = parse(&[
            (MSM_PROFILE_VAR, "0"),
            (H_COPIES_VAR, "0"),
            (MSM_ROUNDS_VAR, "0"),
            (WARMUP_VAR, "1"),
        ]);
        assert!(w.is_empty());
        assert!(!t.no_warmup);
        assert!(!t.msm_profile);
        assert_eq!(t.h_copies_cap, Some(0));
        assert_eq!(t.msm_max_rounds, Some(0));
    }

    #[test]
    fn invalid_values_are_ignored_with_a_warning() {
        let (t, w) = parse(&[
            (MSM_PROFILE_VAR, "yes"),
            (MSM_OCC_VAR, "3"),
            (H_COPIES_VAR, "-1"),
            (MSM_ROUNDS_VAR, "7"),
            (WARMUP_VAR, "no"),
        ]);
        assert_eq!(t, Tuning::default());
        let vars: Vec<_> = w.iter().map(|w| w.var).collect();
        assert_eq!(
            vars,
            [
                MSM_PROFILE_VAR,
                MSM_OCC_VAR,
                H_COPIES_VAR,
                MSM_ROUNDS_VAR,
                WARMUP_VAR
            ]
        );
        let text = w[1].to_string();
        assert!(
            text.contains("CUZK_MSM_OCC=\"3\"") && text.contains("b128"),
            "{text}"
        );
        // one bad value does not discard the others
        let (t, w) = parse(&[(MSM_PROFILE_VAR, "1"), (MSM_OCC_VAR, "")]);
        assert!(t.msm_profile);
        assert_eq!(t.msm_occupancy, MsmOccupancy::TwoBlocks);
        assert_eq!(w.len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_is_ignored_with_a_warning() {
        use std::os::unix::ffi::OsStringExt;
        let (t, w) = Tuning::parse(|name| {
            (name == H_COPIES_VAR).then(|| OsString::from_vec(vec![b'4', 0xff]))
        });
        assert_eq!(t.h_copies_cap, None);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].var, H_COPIES_VAR);
    }

    #[test]
    fn display_names_the_variables() {
        let s = Tuning::default().to_string();
        assert_eq!(
            s,
            "CUZK_MSM_PROFILE off, CUZK_MSM_OCC 2 (two 256-thread blocks per SM), CUZK_H_COPIES no cap, CUZK_MSM_ROUNDS auto, CUZK_WARMUP on"
        );
        let t = Tuning {
            h_copies_cap: Some(3),
            msm_max_rounds: Some(4),
            no_warmup: true,
            ..Tuning::default()
        };
        assert!(t
            .to_string()
            .ends_with("CUZK_H_COPIES 3, CUZK_MSM_ROUNDS at most 4, CUZK_WARMUP off"));
    }
}
