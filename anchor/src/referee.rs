//! bellperson 0.26's verifier, the common referee for both sides' proofs.

use anyhow::{Context, Result};
use bellperson::groth16::{
    prepare_verifying_key, verify_proof, PreparedVerifyingKey, VerifyingKey,
};
use blstrs::{Bls12, Scalar as Fr};
use std::io::BufReader;
use std::path::Path;

/// The prepared verifying key of one `.params` file.
pub struct Referee {
    pvk: PreparedVerifyingKey<Bls12>,
}

impl std::fmt::Debug for Referee {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Referee")
    }
}

impl Referee {
    /// Reads the verifying key, which is the first section of a `.params`
    /// file, with bellperson's own reader (the rest of the file is not read).
    pub fn from_params_file(path: &Path) -> Result<Self> {
        let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let vk = VerifyingKey::<Bls12>::read(BufReader::new(f)).with_context(|| {
            format!("bellperson reading the verifying key of {}", path.display())
        })?;
        Ok(Self {
            pvk: prepare_verifying_key(&vk),
        })
    }

    /// Verifies a 192-byte proof (compressed A ‖ B ‖ C, bellperson's format).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub fn verify_bytes(&self, proof: &[u8], inputs: &[Fr]) -> Result<bool> {
        let proof = bellperson::groth16::Proof::<Bls12>::read(proof)
            .context("bellperson decoding a proof")?;
        self.verify(&proof, inputs)
    }

    /// Verifies a bellperson proof.
    pub fn verify(&self, proof: &bellperson::groth16::Proof<Bls12>, inputs: &[Fr]) -> Result<bool> {
        verify_proof(&self.pvk, proof, inputs).context("bellperson verifier")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuzk_groth16::{prove, CpuBackend, ProveOptions};
    use cuzk_synth::circuits::BenchCircuit;
    use rand::SeedableRng;

    /// Our `.params` writer and proof bytes, read back by bellperson's
    /// verifier: the path both sides' proofs are judged by.
    #[test]
    fn bellperson_accepts_cuzk_proofs_and_rejects_wrong_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let circuit = BenchCircuit::new(10, 7).unwrap();
        let path = crate::params::ensure(dir.path(), crate::params::Circuit::Bench, 10, circuit, 3)
            .unwrap();
        let params = cuzk_groth16::Parameters::load(&path, cuzk_groth16::CheckMode::Full).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let out = prove(
            &params,
            circuit,
            &CpuBackend,
            &mut rng,
            ProveOptions::default(),
        )
        .unwrap();
        let referee = Referee::from_params_file(&path).unwrap();
        let bytes = out.proof.to_bytes();
        assert!(referee
            .verify_bytes(&bytes, &circuit.public_inputs())
            .unwrap());
        let other = BenchCircuit::new(10, 8).unwrap().public_inputs();
        assert!(!referee.verify_bytes(&bytes, &other).unwrap());
    }

    /// A file made for another size is never used: it is replaced by
    /// parameters for the circuit (the one test-parameter cache's rule).
    #[test]
    fn mismatched_params_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let small = BenchCircuit::new(10, 1).unwrap();
        let made =
            crate::params::ensure(dir.path(), crate::params::Circuit::Bench, 10, small, 0).unwrap();
        std::fs::rename(
            &made,
            crate::params::path_for(dir.path(), crate::params::Circuit::Bench, 11),
        )
        .unwrap();
        let big = BenchCircuit::new(11, 1).unwrap();
        let path =
            crate::params::ensure(dir.path(), crate::params::Circuit::Bench, 11, big, 0).unwrap();
        let info = cuzk_groth16::Parameters::inspect(&path).unwrap();
        assert_eq!(info.h, (1 << 11) - 1, "the 2^10 file was used for 2^11");
    }
}
