//! End to end against filecoin-proofs: a sealed 2 KiB sector's C1 output →
//! cuzk C2 → filecoin-proofs' `verify_seal` accepts; one flipped byte is
//! rejected. Ignored by default: the first run on a machine generates the
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
}
