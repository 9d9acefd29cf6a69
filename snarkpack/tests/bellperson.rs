//! cuzk's SnarkPack prover against bellperson 0.27's (filecoin-proofs'):
//! the same proofs, SRS, transcript input and version must give the same
//! aggregate bytes. The proofs are random group elements: the prover never
//! looks at their validity, so this checks every commitment, challenge,
//! fold and opening without a circuit (the filecoin crate's aggregation
//! tests verify real seal proofs end to end).

use bellperson::groth16::aggregate::{aggregate_proofs, setup_fake_srs};
use cuzk_field::Bls12;
use cuzk_snarkpack::{
    AggregateProof, AggregateVersion, GenericSRS, Pairing, Proof, SnarkpackError,
};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

mod common;
use common::proofs;

fn bytes(p: &AggregateProof<Bls12>) -> Vec<u8> {
    let mut out = Vec::new();
    p.write(&mut out).expect("write to a Vec");
    out
}

/// cuzk's aggregate with the pairing products on the CPU.
fn aggregate(
    srs: &GenericSRS<Bls12>,
    include: &[u8],
    proofs: &[Proof<Bls12>],
    version: AggregateVersion,
) -> Result<AggregateProof<Bls12>, SnarkpackError> {
    cuzk_snarkpack::aggregate(&Pairing::cpu(), srs, include, proofs, version)
}

fn srs(max: usize) -> GenericSRS<Bls12> {
    setup_fake_srs::<Bls12, _>(&mut ChaCha8Rng::seed_from_u64(1), 2 * max)
}

#[test]
fn aggregates_are_bellpersons_bytes() {
    let srs = srs(64);
    for (n, seed) in [(2, 10), (4, 11), (8, 12), (64, 13)] {
        let proofs = proofs(n, seed);
        let include = [seed as u8; 32];
        let (pk, _) = srs.specialize(n);
        for version in [AggregateVersion::V1, AggregateVersion::V2] {
            let theirs =
                aggregate_proofs::<Bls12>(&pk, &include, &proofs, version).expect("bellperson");
            let ours = aggregate(&srs, &include, &proofs, version).expect("cuzk");
            assert_eq!(bytes(&ours), bytes(&theirs), "n = {n}, {version}");
        }
    }
}

#[test]
fn the_gpu_miller_loops_host_twin_gives_the_same_bytes() {
    // The device's Miller-loop code run on the CPU (slow: small n) inside
    // a whole aggregation, against bellperson.
    let srs = srs(4);
    let proofs = proofs(4, 14);
    let (pk, _) = srs.specialize(4);
    let v = AggregateVersion::V2;
    let theirs = aggregate_proofs::<Bls12>(&pk, &[3; 32], &proofs, v).expect("bellperson");
    let ours = cuzk_snarkpack::aggregate(&Pairing::host_twin(2), &srs, &[3; 32], &proofs, v)
        .expect("cuzk");
    assert_eq!(bytes(&ours), bytes(&theirs));
}

#[test]
fn the_transcript_input_and_every_proof_change_the_aggregate() {
    let srs = srs(8);
    let base = proofs(8, 20);
    let v = AggregateVersion::V2;
    let want = bytes(&aggregate(&srs, &[1; 32], &base, v).unwrap());
    assert_ne!(bytes(&aggregate(&srs, &[2; 32], &base, v).unwrap()), want);
    let mut swapped = base.clone();
    swapped.swap(3, 5);
    assert_ne!(
        bytes(&aggregate(&srs, &[1; 32], &swapped, v).unwrap()),
        want
    );
}

fn refused(r: Result<AggregateProof<Bls12>, SnarkpackError>) -> SnarkpackError {
    match r {
        Err(e) => e,
        Ok(_) => panic!("aggregated"),
    }
}

#[test]
fn bad_counts_and_short_srs_are_typed_errors() {
    let full = srs(8);
    for n in [0, 1, 3, 6] {
        let e = refused(aggregate(&full, &[], &proofs(n, 30), AggregateVersion::V2));
        assert!(matches!(e, SnarkpackError::Count(m) if m == n), "{e}");
    }
    // 8 proofs need 16 powers in each of the four vectors
    let mut short = GenericSRS::<Bls12> {
        g_alpha_powers: full.g_alpha_powers.clone(),
        h_alpha_powers: full.h_alpha_powers.clone(),
        g_beta_powers: full.g_beta_powers.clone(),
        h_beta_powers: full.h_beta_powers.clone(),
    };
    short.h_beta_powers.truncate(15);
    let e = refused(aggregate(&short, &[], &proofs(8, 31), AggregateVersion::V2));
    assert!(
        matches!(
            e,
            SnarkpackError::SrsTooShort {
                proofs: 8,
                need: 16,
                have: 15
            }
        ),
        "{e}"
    );
    short.h_beta_powers = full.h_beta_powers.clone();
    assert!(aggregate(&short, &[], &proofs(8, 31), AggregateVersion::V2).is_ok());
}
