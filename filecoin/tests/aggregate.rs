//! SnarkPack aggregates of 2 KiB seal proofs against filecoin-proofs:
//! cuzk's aggregates verify with `verify_aggregate_seal_commit_proofs` at
//! N = 2, 3 (padded), 8, 64 and 1024 sectors, have the bytes
//! filecoin-proofs' `aggregate_seal_commit_proofs` makes, and one with two
//! proofs swapped is rejected. Bad input gets its typed error and no
//! aggregate.
//!
//! Needs the 2 KiB PoRep parameters: made by cuzk's setup when none are
//! cached (~3 min on 2 cores, once per machine, in ~/.cache/cuzk/filecoin;
//! `cuzk testdata porep --sector-size 2KiB --generator cuzk` makes the
//! same). The SRS is the seeded TEST one (1024 proofs).

use std::sync::OnceLock;
use std::time::Instant;

use bellperson::groth16::aggregate::AggregateVersion;
use cuzk_filecoin::aggregate::{aggregate_seals, verify_aggregate, AggregateRequest};
use cuzk_filecoin::{
    prove_c2, C2Options, FilecoinError, SealProofKind, SealStatement, SealVersion, SealedProof,
};
use cuzk_filecoin_tools::testdata;

/// Distinct sealed sectors the aggregates cycle through.
const SECTORS: u64 = 4;

struct Fixture {
    params: std::path::PathBuf,
    seals: Vec<SealedProof>,
    _dir: tempfile::TempDir,
}

fn kind() -> SealProofKind {
    SealProofKind::new(2048, SealVersion::V1_1).unwrap()
}

/// Four 2 KiB sectors (their own prover, sector ids, tickets, seeds),
/// each proved by cuzk on the CPU.
fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let td = testdata::ensure_testdata_with(&kind(), testdata::ParamsGenerator::Cuzk).unwrap();
        testdata::ensure_srs(&td.dirs).unwrap();
        let engine = cuzk_scheduler::Engine::cpu().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let seals = (0..SECTORS)
            .map(|i| {
                let s =
                    testdata::seal_test_sector(&kind(), &dir.path().join(i.to_string()), 40 + i)
                        .unwrap();
                let c1 = testdata::read_c1(&s).unwrap();
                let out = prove_c2(&c1, &C2Options::new(td.dirs.params.clone(), &engine)).unwrap();
                SealedProof {
                    statement: SealStatement {
                        sector_id: s.meta.sector_id,
                        prover_id: s.meta.prover_id_bytes().unwrap(),
                        public: c1.public,
                    },
                    proof: out.proof,
                }
            })
            .collect();
        Fixture {
            params: td.dirs.params.clone(),
            seals,
            _dir: dir,
        }
    })
}

fn request(n: usize) -> AggregateRequest {
    AggregateRequest {
        kind: kind(),
        version: AggregateVersion::V2,
        seals: fixture().seals.iter().cycle().take(n).cloned().collect(),
    }
}

fn statements(req: &AggregateRequest) -> Vec<SealStatement> {
    req.seals.iter().map(|s| s.statement).collect()
}

/// filecoin-proofs' own aggregate of the same proofs, by its API.
fn reference(req: &AggregateRequest) -> Vec<u8> {
    let config = kind().porep_config().unwrap();
    filecoin_proofs::aggregate_seal_commit_proofs::<filecoin_proofs::SectorShape2KiB>(
        &config,
        &req.seals
            .iter()
            .map(|s| s.statement.public.comm_r)
            .collect::<Vec<_>>(),
        &req.seals
            .iter()
            .map(|s| s.statement.public.seed)
            .collect::<Vec<_>>(),
        &req.seals
            .iter()
            .map(|s| filecoin_proofs::SealCommitOutput {
                proof: s.proof.clone(),
            })
            .collect::<Vec<_>>(),
        req.version,
    )
    .unwrap()
}

fn verify(req: &AggregateRequest, st: &[SealStatement], agg: &[u8]) -> bool {
    verify_aggregate(&req.kind, req.version, st, agg, &fixture().params).unwrap()
}

#[test]
fn aggregates_verify_and_have_filecoin_proofs_bytes() {
    let f = fixture();
    for n in [2, 3, 8, 64, 1024] {
        let req = request(n);
        // filecoin-proofs first, cold: its first call for an N specialises
        // the SRS (kept in the process); cuzk's call then finds it made.
        let secs = |t: Instant| t.elapsed().as_secs_f64();
        let t = Instant::now();
        let cold = reference(&req);
        let cold_s = secs(t);
        // cuzk twice: its first call for an N reads the SRS powers and
        // makes filecoin-proofs' verifier specialise its own key.
        let t = Instant::now();
        let agg = aggregate_seals(&req, &f.params).unwrap();
        let ours_cold = secs(t);
        let t = Instant::now();
        let again = aggregate_seals(&req, &f.params).unwrap();
        let ours_warm = secs(t);
        assert_eq!(agg, again, "N = {n}: the same request, the same aggregate");
        let t = Instant::now();
        let warm = reference(&req);
        eprintln!(
            "N = {n}: {} bytes; filecoin-proofs {cold_s:.2} s cold, {:.2} s warm; \
             cuzk (its checks included) {ours_cold:.2} s cold, {ours_warm:.2} s warm",
            agg.len(),
            secs(t)
        );
        assert!(verify(&req, &statements(&req), &agg), "N = {n}");
        assert_eq!(agg, cold, "N = {n}: filecoin-proofs' bytes");
        assert_eq!(agg, warm, "N = {n}: filecoin-proofs' bytes");
        // Another order of the same statements is another aggregate.
        let mut st = statements(&req);
        st.swap(0, 1);
        assert!(!verify(&req, &st, &agg), "N = {n}: statements swapped");
        // A flipped byte or a cut aggregate does not verify.
        for pos in [0, agg.len() / 2, agg.len() - 1] {
            let mut bad = agg.clone();
            bad[pos] ^= 1;
            assert!(
                !verify(&req, &statements(&req), &bad),
                "N = {n}, byte {pos}"
            );
        }
        assert!(!verify(&req, &statements(&req), &agg[..agg.len() - 1]));
    }
    // Version 1 aggregates (older network versions) verify as version 1
    // only.
    let mut v1 = request(4);
    v1.version = AggregateVersion::V1;
    let agg = aggregate_seals(&v1, &f.params).unwrap();
    assert!(verify(&v1, &statements(&v1), &agg));
    assert_eq!(agg, reference(&v1));
    let v2 = request(4);
    assert!(!verify(&v2, &statements(&v2), &agg));
}

#[test]
fn an_aggregate_of_swapped_proofs_is_rejected_and_cuzk_refuses_to_make_one() {
    let f = fixture();
    let req = request(8);
    // filecoin-proofs will aggregate proofs that do not fit their
    // statements (proofs 0 and 1 swapped); the verifier rejects it.
    let mut swapped = req.clone();
    let (p0, p1) = (
        swapped.seals[0].proof.clone(),
        swapped.seals[1].proof.clone(),
    );
    swapped.seals[0].proof = p1;
    swapped.seals[1].proof = p0;
    let agg = reference(&swapped);
    assert!(!verify(&req, &statements(&req), &agg));
    // cuzk verifies every input first and names the first bad one.
    match aggregate_seals(&swapped, &f.params) {
        Err(FilecoinError::SealInvalid { index, sector_id }) => {
            assert_eq!((index, sector_id), (0, req.seals[0].statement.sector_id))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_input_gets_a_typed_error_and_no_aggregate() {
    let f = fixture();
    let base = request(4);
    let invalid_at = |req: &AggregateRequest| match aggregate_seals(req, &f.params) {
        Err(FilecoinError::SealInvalid { index, .. }) => index,
        other => panic!("{other:?}"),
    };
    // A proof from another sector.
    let mut other = base.clone();
    other.seals[2].proof = base.seals[1].proof.clone();
    assert_eq!(invalid_at(&other), 2);
    // A mismatched seed, ticket, sector id or prover.
    let mut seed = base.clone();
    seed.seals[3].statement.public.seed[5] ^= 1;
    assert_eq!(invalid_at(&seed), 3);
    let mut ticket = base.clone();
    ticket.seals[1].statement.public.ticket[0] ^= 1;
    assert_eq!(invalid_at(&ticket), 1);
    let mut id = base.clone();
    id.seals[0].statement.sector_id += 1;
    assert_eq!(invalid_at(&id), 0);
    // Bytes that are not points.
    let mut junk = base.clone();
    junk.seals[1].proof = vec![0xff; 192];
    assert_eq!(invalid_at(&junk), 1);
    // Wrong length, no sectors: refused before any verification.
    let mut short = base.clone();
    short.seals[0].proof.pop();
    assert!(matches!(
        aggregate_seals(&short, &f.params),
        Err(FilecoinError::AggregateInput(m)) if m.contains("191")
    ));
    let mut none = base.clone();
    none.seals.clear();
    assert!(matches!(
        aggregate_seals(&none, &f.params),
        Err(FilecoinError::AggregateInput(_))
    ));
    // More than the TEST SRS holds (1024 proofs): a clear error, not
    // bellperson's assertion.
    match aggregate_seals(&request(1025), &f.params) {
        Err(FilecoinError::ParamsMismatch { detail, .. }) => {
            assert!(detail.contains("needs 4096"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
    // Verifying against the wrong number of statements.
    let agg = aggregate_seals(&base, &f.params).unwrap();
    let st = statements(&base);
    // (Three statements pad to four by repeating the third; the fourth
    // proof is another sector's.)
    assert!(!verify(&base, &st[..3], &agg));
    assert!(!verify(&base, &[st.clone(), st.clone()].concat(), &agg));
}
