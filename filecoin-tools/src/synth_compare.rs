//! Synthesis of the same PoRep partition through cuzk-synth and through
//! bellperson 0.27's prover (the one filecoin-proofs 19 uses), with time,
//! memory and the sizes each side produced: `cuzk-porep-synth --reference`.
//!
//! bellperson 0.27 keeps its synthesis private (`ProvingAssignment` and
//! `synthesize_circuits_batch` are not exported), so its side runs the
//! smallest public path that contains it: `groth16::create_proof_batch`
//! with a [`ParameterSource`] that stops the prover as soon as it asks for
//! the verifying key, which it does right after `synthesize_circuits_batch`
//! and before any FFT or MSM. What runs is bellperson's own code: a fresh
//! `ProvingAssignment`, input ONE, the circuit, one `input · 0 = 0`
//! constraint per input, then the conversion of the input and aux
//! assignments to canonical bytes (`to_repr`) that its MSMs need.
//!
//! The circuit is wrapped so that the wrapper notes the time and memory
//! when the circuit's own synthesis ends (bellperson's logged "synthesis
//! time" ends there too, plus the input constraints) and reads the aux count
//! by allocating one extra unconstrained variable (its index is the count).
//! The number of inputs is what bellperson passes to `get_vk`. The number
//! of constraints is only passed on after bellperson's seven FFTs (`get_h`),
//! so it is compared only with [`CompareOptions::bellperson_constraints`].
//! The a/b/c vectors themselves never leave bellperson, so they cannot be
//! compared here; the proofs built from cuzk's vectors verify with
//! filecoin-proofs (`cuzk-porep-e2e`), which pins them.
//!
//! Memory is read from `/proc/self/status` (Linux): the resident set before
//! a side starts is its baseline, "held" is what the finished assignment
//! keeps resident, "peak" the high-water mark above the baseline (the mark
//! is reset through `/proc/self/clear_refs` before each side). Each side's
//! output is freed before the other side runs.

use bellpepper_core::{Circuit, ConstraintSystem, Index, SynthesisError};
use bellperson::groth16::{ParameterSource, VerifyingKey};
use blstrs::{Bls12, G1Affine, G2Affine};
use cuzk_field::Fr;
use cuzk_filecoin::c1::C1Output;
use cuzk_filecoin::porep::prepare;
use cuzk_filecoin::{with_tree, FilecoinError, Result};
use ff::Field;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use storage_proofs_core::merkle::MerkleTreeTrait;

/// Knobs of [`compare_synthesis`].
#[derive(Clone, Copy, Debug)]
pub struct CompareOptions {
    /// Partitions to compare, from partition 0 (clamped to the C1 output's).
    pub partitions: usize,
    /// Run bellperson before cuzk on each partition (default: cuzk first).
    pub bellperson_first: bool,
    /// Let bellperson run its FFTs so it reports its constraint count
    /// (costs bellperson's H step: ~1 min of a 16-core host at 32 GiB; not
    /// part of the times reported).
    pub bellperson_constraints: bool,
}

/// One side's synthesis of one partition.
#[derive(Clone, Debug, Default)]
pub struct SideStats {
    /// Synthesis proper: ONE, the circuit, the input constraints.
    pub synthesis: Duration,
    /// After synthesis, before the assignment is ready for the prover
    /// (bellperson: `to_repr` of inputs and aux; cuzk: nothing).
    pub conversion: Duration,
    /// Resident bytes the assignment holds when synthesis ends.
    pub held_bytes: Option<u64>,
    /// High-water mark above the baseline, synthesis proper.
    pub peak_bytes: Option<u64>,
    /// High-water mark above the baseline including [`Self::conversion`].
    pub peak_with_conversion_bytes: Option<u64>,
    /// Constraints (input constraints included); `None`: not observed.
    pub constraints: Option<usize>,
    /// Inputs, ONE included.
    pub inputs: usize,
    /// Aux variables.
    pub aux: usize,
}

/// Both sides on one partition.
#[derive(Clone, Debug)]
pub struct PartitionComparison {
    /// Partition index.
    pub partition: usize,
    /// cuzk-synth.
    pub cuzk: SideStats,
    /// bellperson 0.27.
    pub bellperson: SideStats,
    /// Fraction of cuzk's aux values that are 0 or 1.
    pub aux_bit_fraction: f64,
}

impl PartitionComparison {
    /// The counts both sides report agree (constraints only where
    /// bellperson reported them).
    pub fn counts_match(&self) -> bool {
        let (c, b) = (&self.cuzk, &self.bellperson);
        c.inputs == b.inputs
            && c.aux == b.aux
            && b.constraints.map_or(true, |n| Some(n) == c.constraints)
    }
}

/// Synthesizes partitions `0..opts.partitions` of `c1` through cuzk and
/// through bellperson, one side after the other, calling `each` after every
/// partition. Returns the comparisons and the C1 output's partition count.
pub fn compare_synthesis(
    c1: &C1Output,
    opts: CompareOptions,
    each: &mut dyn FnMut(&PartitionComparison),
) -> Result<(Vec<PartitionComparison>, usize)> {
    let config = c1.kind.porep_config()?;
    with_tree!(c1.kind.sector_size, compare_tree(c1, &config, opts, each))
}

fn compare_tree<Tree: 'static + MerkleTreeTrait>(
    c1: &C1Output,
    config: &filecoin_proofs::PoRepConfig,
    opts: CompareOptions,
    each: &mut dyn FnMut(&PartitionComparison),
) -> Result<(Vec<PartitionComparison>, usize)> {
    let circuits = prepare::<Tree>(c1, config)?.circuits;
    let total = circuits.len();
    let mut out = Vec::new();
    for (k, circuit) in circuits.iter().enumerate().take(opts.partitions) {
        let (cuzk, bellperson, aux_bit_fraction);
        if opts.bellperson_first {
            bellperson = bellperson_side(circuit.clone(), opts.bellperson_constraints)?;
            (cuzk, aux_bit_fraction) = cuzk_side(circuit.clone())?;
        } else {
            (cuzk, aux_bit_fraction) = cuzk_side(circuit.clone())?;
            bellperson = bellperson_side(circuit.clone(), opts.bellperson_constraints)?;
        }
        let cmp = PartitionComparison {
            partition: k,
            cuzk,
            bellperson,
            aux_bit_fraction,
        };
        each(&cmp);
        out.push(cmp);
    }
    Ok((out, total))
}

fn cuzk_side<C: Circuit<Fr>>(circuit: C) -> Result<(SideStats, f64)> {
    let base = Memory::start();
    let t = Instant::now();
    let pa = cuzk_synth::synthesize(circuit)?;
    let synthesis = t.elapsed();
    let (held_bytes, peak_bytes) = base.now();
    let stats = SideStats {
        synthesis,
        conversion: Duration::ZERO,
        held_bytes,
        peak_bytes,
        peak_with_conversion_bytes: peak_bytes,
        constraints: Some(pa.num_constraints()),
        inputs: pa.num_inputs(),
        aux: pa.num_aux(),
    };
    let fraction = pa.aux_bit_fraction();
    drop(pa);
    Ok((stats, fraction))
}

fn bellperson_side<C: Circuit<Fr> + Send>(circuit: C, constraints: bool) -> Result<SideStats> {
    let probe = Probe {
        vk: empty_vk(),
        go_on_to_h: constraints,
        seen: Mutex::new(Seen::default()),
    };
    let base = Memory::start();
    let start = Instant::now();
    let wrapped = Watched {
        inner: circuit,
        probe: &probe,
        base: &base,
    };
    let res = bellperson::groth16::create_proof_batch::<Bls12, _, _>(
        vec![wrapped],
        &probe,
        vec![Fr::ZERO],
        vec![Fr::ZERO],
    );
    let seen = probe
        .seen
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    match res {
        Err(e) if seen.vk_at.is_some() && is_stop(&e) => {}
        Err(e) => return Err(FilecoinError::Synthesis(e)),
        Ok(_) => {
            return Err(FilecoinError::Proofs(anyhow::anyhow!(
                "bellperson made a proof from the probe's empty parameters"
            )))
        }
    }
    let (Some(done), Some(vk_at), Some(aux), Some(inputs)) =
        (seen.synthesized_at, seen.vk_at, seen.aux, seen.inputs)
    else {
        return Err(FilecoinError::Proofs(anyhow::anyhow!(
            "bellperson stopped before its synthesis finished"
        )));
    };
    Ok(SideStats {
        synthesis: done - start,
        conversion: vk_at - done,
        held_bytes: seen.held,
        peak_bytes: seen.peak,
        peak_with_conversion_bytes: base.above(seen.peak_at_vk),
        constraints: seen.constraints,
        inputs,
        aux,
    })
}

/// What the probe saw of bellperson's run.
#[derive(Default)]
struct Seen {
    synthesized_at: Option<Instant>,
    held: Option<u64>,
    peak: Option<u64>,
    aux: Option<usize>,
    vk_at: Option<Instant>,
    peak_at_vk: Option<u64>,
    inputs: Option<usize>,
    constraints: Option<usize>,
}

/// A [`ParameterSource`] with no parameters: it records what bellperson
/// asks for and stops the prover at the first request it cannot serve.
struct Probe {
    vk: VerifyingKey<Bls12>,
    go_on_to_h: bool,
    seen: Mutex<Seen>,
}

impl Probe {
    fn with<T>(&self, f: impl FnOnce(&mut Seen) -> T) -> T {
        f(&mut self.seen.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

const STOP: &str = "cuzk synthesis probe: stop after synthesis";

fn stop() -> SynthesisError {
    SynthesisError::IoError(std::io::Error::other(STOP))
}

fn is_stop(e: &SynthesisError) -> bool {
    matches!(e, SynthesisError::IoError(io) if io.to_string() == STOP)
}

fn empty_vk() -> VerifyingKey<Bls12> {
    VerifyingKey {
        alpha_g1: G1Affine::default(),
        beta_g1: G1Affine::default(),
        beta_g2: G2Affine::default(),
        gamma_g2: G2Affine::default(),
        delta_g1: G1Affine::default(),
        delta_g2: G2Affine::default(),
        ic: Vec::new(),
    }
}

type G1Source = (Arc<Vec<G1Affine>>, usize);
type G2Source = (Arc<Vec<G2Affine>>, usize);

impl ParameterSource<Bls12> for &Probe {
    type G1Builder = G1Source;
    type G2Builder = G2Source;

    fn get_vk(&self, num_ic: usize) -> Result<&VerifyingKey<Bls12>, SynthesisError> {
        let at = Instant::now();
        let peak = Memory::peak_now();
        self.with(|s| {
            s.vk_at = Some(at);
            s.inputs = Some(num_ic);
            s.peak_at_vk = peak;
        });
        if self.go_on_to_h {
            Ok(&self.vk)
        } else {
            Err(stop())
        }
    }

    fn get_h(&self, num_h: usize) -> Result<G1Source, SynthesisError> {
        self.with(|s| s.constraints = Some(num_h));
        Err(stop())
    }

    fn get_l(&self, _: usize) -> Result<G1Source, SynthesisError> {
        Err(stop())
    }

    fn get_a(&self, _: usize, _: usize) -> Result<(G1Source, G1Source), SynthesisError> {
        Err(stop())
    }

    fn get_b_g1(&self, _: usize, _: usize) -> Result<(G1Source, G1Source), SynthesisError> {
        Err(stop())
    }

    fn get_b_g2(&self, _: usize, _: usize) -> Result<(G2Source, G2Source), SynthesisError> {
        Err(stop())
    }
}

/// The partition circuit, plus a note of the time, the memory and the aux
/// count when its synthesis ends.
struct Watched<'a, C> {
    inner: C,
    probe: &'a Probe,
    base: &'a Memory,
}

impl<C: Circuit<Fr>> Circuit<Fr> for Watched<'_, C> {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        self.inner.synthesize(cs)?;
        let at = Instant::now();
        let (held, peak) = self.base.now();
        // The new variable's index is the number of aux variables before it.
        let extra = cs.alloc(|| "probe", || Ok(Fr::ZERO))?;
        let aux = match extra.get_unchecked() {
            Index::Aux(i) => Some(i),
            Index::Input(_) => None,
        };
        self.probe.with(|s| {
            s.synthesized_at = Some(at);
            s.held = held;
            s.peak = peak;
            s.aux = aux;
        });
        Ok(())
    }
}

/// Resident-memory baseline of one side (Linux `/proc`; `None` elsewhere).
struct Memory {
    base: Option<u64>,
}

impl Memory {
    /// Resets the high-water mark to the current resident set and takes it
    /// as the baseline. Without a reset the peak would be the process's.
    fn start() -> Self {
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        Self {
            base: reset.then(|| status_bytes("VmRSS")).flatten(),
        }
    }

    /// (resident, high-water mark), both above the baseline.
    fn now(&self) -> (Option<u64>, Option<u64>) {
        (
            self.above(status_bytes("VmRSS")),
            self.above(Memory::peak_now()),
        )
    }

    fn above(&self, bytes: Option<u64>) -> Option<u64> {
        Some(bytes?.saturating_sub(self.base?))
    }

    fn peak_now() -> Option<u64> {
        status_bytes("VmHWM")
    }
}

/// A `kB` line of `/proc/self/status`, in bytes.
fn status_bytes(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| {
        let v = l.strip_prefix(key)?.strip_prefix(':')?;
        Some(v.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()? * 1024)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_proc_status() {
        if cfg!(target_os = "linux") {
            let rss = status_bytes("VmRSS").expect("VmRSS");
            assert!(rss > 0);
            assert!(status_bytes("VmHWM").expect("VmHWM") >= rss / 2);
        }
        assert_eq!(status_bytes("NoSuchKey"), None);
    }

    /// Both sides on circuits whose counts are known: bellperson's probe
    /// sees the same inputs, aux and (through its FFT) constraints.
    #[test]
    fn both_sides_agree_on_test_circuits() {
        let tiny = cuzk_synth::circuits::TinyCircuit {
            x: Fr::from(3u64),
            y: Fr::from(5u64),
            chain: 10,
        };
        let (c, _) = cuzk_side(tiny).unwrap();
        let b = bellperson_side(tiny, true).unwrap();
        assert_eq!(c.constraints, Some(tiny.expected_constraints()));
        assert_eq!((b.constraints, b.inputs, b.aux), (c.constraints, 2, 12));
        assert_eq!((c.inputs, c.aux), (2, 12));

        // 2^15: the first size with SHA-256 compressions.
        let bench = cuzk_synth::circuits::BenchCircuit::new(15, 7).unwrap();
        let (c, _) = cuzk_side(bench).unwrap();
        let quick = bellperson_side(bench, false).unwrap();
        let full = bellperson_side(bench, true).unwrap();
        assert_eq!(quick.constraints, None);
        assert_eq!(full.constraints, c.constraints);
        for b in [&quick, &full] {
            assert_eq!((b.inputs, b.aux), (c.inputs, c.aux));
        }
        let cmp = PartitionComparison {
            partition: 0,
            cuzk: c,
            bellperson: full,
            aux_bit_fraction: 0.0,
        };
        assert!(cmp.counts_match());
    }

    #[test]
    fn stop_error_is_recognised() {
        assert!(is_stop(&stop()));
        assert!(!is_stop(&SynthesisError::AssignmentMissing));
    }
}
