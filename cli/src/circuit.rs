//! The built-in circuits the CLI can prove.

use anyhow::{bail, Context, Result};
use cuzk_synth::circuits::{BenchCircuit, TinyCircuit};
use cuzk_synth::Shape;

/// Which built-in circuit, at which size, with which witness seed.
#[derive(clap::Args, Debug, Clone)]
pub struct CircuitArgs {
    /// Circuit family: `bench` (chained SHA-256 + field arithmetic, mostly-boolean
    /// witness like Filecoin's) or `tiny`.
    #[arg(long, default_value = "bench")]
    pub circuit: String,
    /// log2 of the domain size the bench circuit fills (10..=27).
    #[arg(long, default_value_t = 16)]
    pub log_size: u32,
    /// Seed of the witness (different seeds: same shape, different values).
    #[arg(long, default_value_t = 1)]
    pub witness_seed: u64,
}

/// A circuit instance the CLI can hand to the prover.
#[derive(Clone, Copy)]
pub enum Builtin {
    Bench(BenchCircuit),
    Tiny(TinyCircuit),
}

impl CircuitArgs {
    pub fn validate(&self) -> Result<()> {
        match self.circuit.as_str() {
            "bench" => {
                if !(10..=27).contains(&self.log_size) {
                    bail!(
                        "--log-size must be between 10 and 27, got {}",
                        self.log_size
                    );
                }
            }
            "tiny" => {}
            other => bail!("unknown circuit '{other}' (known: bench, tiny)"),
        }
        Ok(())
    }

    /// A short name for files and reports: `bench-k16` or `tiny`.
    pub fn shape_name(&self) -> String {
        match self.circuit.as_str() {
            "bench" => format!("bench-k{}", self.log_size),
            other => other.to_string(),
        }
    }

    /// The shape every instance has (any seed): known without synthesizing
    /// for the bench circuit, counted once otherwise.
    pub fn shape(&self) -> Result<Shape> {
        Ok(match self.circuit.as_str() {
            "bench" => BenchCircuit::new(self.log_size, 0)
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .expected_shape(),
            _ => cuzk_synth::count_shape(self.build(0)?).context("counting the circuit's shape")?,
        })
    }

    /// The circuit with the witness for `seed`.
    pub fn build(&self, seed: u64) -> Result<Builtin> {
        self.validate()?;
        Ok(match self.circuit.as_str() {
            "bench" => Builtin::Bench(
                BenchCircuit::new(self.log_size, seed).map_err(|e| anyhow::anyhow!("{e}"))?,
            ),
            _ => {
                use rand::SeedableRng;
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                Builtin::Tiny(TinyCircuit {
                    x: cuzk_field::Field::random(&mut rng),
                    y: cuzk_field::Field::random(&mut rng),
                    chain: 6,
                })
            }
        })
    }
}

impl bellpepper_core::Circuit<cuzk_field::Fr> for Builtin {
    fn synthesize<CS: bellpepper_core::ConstraintSystem<cuzk_field::Fr>>(
        self,
        cs: &mut CS,
    ) -> std::result::Result<(), bellpepper_core::SynthesisError> {
        match self {
            Builtin::Bench(c) => c.synthesize(cs),
            Builtin::Tiny(c) => c.synthesize(cs),
        }
    }
}
