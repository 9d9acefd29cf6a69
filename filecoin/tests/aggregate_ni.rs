//! Non-interactive PoRep's C2 ends in a SnarkPack aggregate of the
//! sector's own partition proofs, with comm_r alone as the transcript
//! input (its challenges take no seed): cuzk's (`finish_c2`) has the bytes
//! filecoin-proofs' `aggregate_seal_commit_proofs` makes for that proof
//! type. The partition proofs are random group elements: neither side
//! verifies them here (the ignored `e2e` NI test proves real ones and
//! verify_seal accepts the aggregate). Its own binary: filecoin-proofs'
//! parameter directory is set once per process.

use bellperson::groth16::aggregate::AggregateVersion;
use cuzk_field::{Curve, G1Projective, G2Projective, Group};
use cuzk_filecoin::{finish_c2, SealProofKind, SealVersion};
use cuzk_filecoin_tools::testdata;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn a_non_interactive_c2_aggregate_has_filecoin_proofs_bytes() {
    let kind = SealProofKind::new(2048, SealVersion::V1_2NonInteractive).unwrap();
    let td = testdata::ensure_testdata_with(&kind, testdata::ParamsGenerator::Cuzk).unwrap();
    testdata::ensure_srs(&td.dirs).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let s = testdata::seal_test_sector(&kind, dir.path(), 77).unwrap();
    let c1 = testdata::read_c1(&s).unwrap();
    let config = kind.porep_config().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut proofs = Vec::new();
    for _ in 0..usize::from(config.partitions) {
        proofs.extend(G1Projective::random(&mut rng).to_affine().to_compressed());
        proofs.extend(G2Projective::random(&mut rng).to_affine().to_compressed());
        proofs.extend(G1Projective::random(&mut rng).to_affine().to_compressed());
    }
    let ours = finish_c2(&c1, proofs.clone(), &td.dirs.params).unwrap();
    let theirs = filecoin_proofs::aggregate_seal_commit_proofs::<filecoin_proofs::SectorShape2KiB>(
        &config,
        &[c1.public.comm_r],
        &[c1.public.seed],
        &[filecoin_proofs::SealCommitOutput { proof: proofs }],
        AggregateVersion::V2,
    )
    .unwrap();
    assert_eq!(ours, theirs);
}
