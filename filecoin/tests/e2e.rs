//! End to end against filecoin-proofs: a sealed 2 KiB sector's C1 output →
//! cuzk C2 → filecoin-proofs' `verify_seal` accepts; one flipped byte is
//! rejected; the same for a non-interactive PoRep sector's aggregate.
//! Ignored by default: the first run on a machine generates the
//! 2 KiB parameters (~15 min, ~5 GB of memory, 1.1 GB on disk, cached in
//! ~/.cache/cuzk/filecoin). Run it with
//! `cargo test --release -p cuzk-filecoin --test e2e -- --ignored`
//! or the one-shot binary `cargo run --release -p cuzk-filecoin-tools --bin cuzk-porep-e2e`.

use cuzk_filecoin::{prove_c2, verify_c2, C2Options, SealProofKind, SealVersion};
use cuzk_filecoin_tools::testdata;

#[test]
#[ignore = "generates 2 KiB Groth16 parameters on first run (~15 min); cached afterwards"]
fn c2_2kib_verifies_with_filecoin_proofs() {
    let kind = SealProofKind::new(2048, SealVersion::V1_1).unwrap();
    let td = testdata::ensure_testdata(&kind).unwrap();
    let c1 = testdata::read_c1(&td.sector).unwrap();
    let prover_id = td.sector.meta.prover_id_bytes().unwrap();
    let sector_id = td.sector.meta.sector_id;

    let out = prove_c2(
        &c1,
        &C2Options::new(
            td.dirs.params.clone(),
            &cuzk_scheduler::Engine::cpu().unwrap(),
        ),
    )
    .unwrap();
    assert_eq!(out.partitions, 1);
    assert_eq!(out.proof.len(), 192);
    assert_eq!(out.params_path, td.params.path);
    assert!(verify_c2(
        &c1.kind,
        &c1.public,
        prover_id,
        sector_id,
        &out.proof,
        &td.dirs.params
    )
    .unwrap());

    // Two proofs of the same sector differ (fresh r, s) and both verify.
    let again = prove_c2(
        &c1,
        &C2Options::new(
            td.dirs.params.clone(),
            &cuzk_scheduler::Engine::cpu().unwrap(),
        ),
    )
    .unwrap();
    assert_ne!(again.proof, out.proof);
    assert!(verify_c2(
        &c1.kind,
        &c1.public,
        prover_id,
        sector_id,
        &again.proof,
        &td.dirs.params
    )
    .unwrap());

    for pos in [0, 47, 48, 100, 143, 144, 191] {
        let mut bad = out.proof.clone();
        bad[pos] ^= 0x01;
        assert!(
            !verify_c2(
                &c1.kind,
                &c1.public,
                prover_id,
                sector_id,
                &bad,
                &td.dirs.params
            )
            .unwrap(),
            "byte {pos}"
        );
    }
    // Right proof, wrong statement.
    assert!(!verify_c2(
        &c1.kind,
        &c1.public,
        prover_id,
        sector_id + 1,
        &out.proof,
        &td.dirs.params
    )
    .unwrap());
    let mut other = prover_id;
    other[0] ^= 1;
    assert!(!verify_c2(
        &c1.kind,
        &c1.public,
        other,
        sector_id,
        &out.proof,
        &td.dirs.params
    )
    .unwrap());
    // Wrong length is an error, not a silent false.
    assert!(verify_c2(
        &c1.kind,
        &c1.public,
        prover_id,
        sector_id,
        &out.proof[..191],
        &td.dirs.params
    )
    .is_err());

    // The recorded circuit with each witness generator (the check mode
    // compares the native witness with the circuit's on the worker).
    let rec = std::sync::Arc::new(cuzk_filecoin::compiled::record_porep(&kind).unwrap());
    let engine = cuzk_scheduler::Engine::cpu().unwrap();
    for w in [
        cuzk_filecoin::WitnessGen::Native,
        cuzk_filecoin::WitnessGen::Generic,
        cuzk_filecoin::WitnessGen::Check,
    ] {
        let mut opts = C2Options::new(td.dirs.params.clone(), &engine);
        opts.r1cs = Some(rec.clone());
        opts.witness = w;
        let p = prove_c2(&c1, &opts).unwrap();
        assert!(
            verify_c2(
                &c1.kind,
                &c1.public,
                prover_id,
                sector_id,
                &p.proof,
                &td.dirs.params
            )
            .unwrap(),
            "{w:?}"
        );
    }
}

/// Non-interactive PoRep (FIP-0092) at 2 KiB: a sector sealed with
/// filecoin-proofs' NI configuration (13 partitions of the interactive
/// circuit, the same parameter file) → cuzk's 13 partition proofs → their
/// SnarkPack aggregate → filecoin-proofs' `verify_seal` accepts it;
/// flipped bytes, another sector id and another ticket are rejected. The
/// parameters come from cuzk's setup when none are cached, the SRS is a
/// seeded TEST one.
#[test]
#[ignore = "generates 2 KiB Groth16 parameters on first run; cached afterwards"]
fn ni_porep_2kib_aggregate_verifies_with_filecoin_proofs() {
    let kind = SealProofKind::new(2048, SealVersion::V1_2NonInteractive).unwrap();
    let td = testdata::ensure_testdata_with(&kind, testdata::ParamsGenerator::Cuzk).unwrap();
    let c1 = testdata::read_c1(&td.sector).unwrap();
    assert_eq!(c1.kind, kind);
    let prover_id = td.sector.meta.prover_id_bytes().unwrap();
    let sector_id = td.sector.meta.sector_id;
    let engine = cuzk_scheduler::Engine::cpu().unwrap();
    let verify = |proof: &[u8], sector_id: u64, public: &cuzk_filecoin::C1Public| {
        verify_c2(&kind, public, prover_id, sector_id, proof, &td.dirs.params).unwrap()
    };

    // The partitions alone, then aggregated as seal_commit_phase2 does.
    let job = cuzk_filecoin::porep::porep_job(
        &c1,
        &td.dirs.params,
        true,
        None,
        cuzk_filecoin::WitnessGen::Generic,
    )
    .unwrap();
    assert_eq!(job.inputs.len(), 13, "13 partitions at 2 KiB");
    let out = prove_c2(&c1, &C2Options::new(td.dirs.params.clone(), &engine)).unwrap();
    assert_eq!(out.partitions, 13);
    assert_ne!(
        out.proof.len(),
        13 * 192,
        "an aggregate, not the partition proofs"
    );
    assert!(verify(&out.proof, sector_id, &c1.public));

    // The compiled path (the interactive kind's record: the same circuit)
    // gives an aggregate that verifies too.
    let rec = std::sync::Arc::new(
        cuzk_filecoin::compiled::record_porep(
            &SealProofKind::new(2048, SealVersion::V1_1).unwrap(),
        )
        .unwrap(),
    );
    let mut opts = C2Options::new(td.dirs.params.clone(), &engine);
    opts.r1cs = Some(rec);
    let compiled = prove_c2(&c1, &opts).unwrap();
    assert!(verify(&compiled.proof, sector_id, &c1.public));

    // Rejected: flipped bytes anywhere, another sector, another seed.
    for pos in [0, 100, out.proof.len() / 2, out.proof.len() - 1] {
        let mut bad = out.proof.clone();
        bad[pos] ^= 0x01;
        assert!(!verify(&bad, sector_id, &c1.public), "byte {pos}");
    }
    assert!(!verify(&out.proof, sector_id + 1, &c1.public));
    let mut other = c1.public;
    other.ticket[0] ^= 1;
    assert!(!verify(&out.proof, sector_id, &other), "another ticket");
    // NI-PoRep derives its challenges from comm_r, not from a seed: the
    // seed is in neither the statement nor the aggregate's transcript.
    let mut reseeded = c1.public;
    reseeded.seed[0] ^= 1;
    assert!(verify(&out.proof, sector_id, &reseeded));
    // Partition proofs that are not 13 × 192 bytes are refused before any
    // aggregation.
    assert!(cuzk_filecoin::finish_c2(&c1, vec![0; 192], &td.dirs.params).is_err());
}
