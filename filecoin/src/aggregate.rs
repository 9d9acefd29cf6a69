//! SnarkPack aggregation of seal proofs: the C2 proofs of N sectors of one
//! proof type → one aggregate, the bytes filecoin-proofs'
//! `aggregate_seal_commit_proofs` makes for the same inputs and aggregate
//! version, made by [`cuzk_snarkpack`] (its pairing products on every
//! core) from the inner-product SRS file in the parameter directory
//! ([`check_srs`], [`read_srs`]).
//!
//! Nothing is returned that filecoin-proofs' verifier would reject: the
//! aggregate is verified with `verify_aggregate_seal_commit_proofs` before
//! it is returned, which checks every input proof too; when it fails, each
//! input proof is verified against its own statement to name the bad
//! sector.

use std::path::Path;

use base64::Engine as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bellperson::groth16::aggregate::{AggregateVersion, GenericSRS};
use bellperson::groth16::Proof;
use cuzk_field::Bls12;
use filecoin_proofs::PoRepConfig;
use storage_proofs_core::api_version::ApiFeature;
use storage_proofs_core::merkle::MerkleTreeTrait;

use crate::c1::{format_size, parse_hex32, parse_prover_id, C1Public, SealProofKind};
use crate::error::{proofs, FilecoinError, Result};
use crate::params::{check_srs, locate_srs, read_srs, use_param_dir};
use crate::with_tree;

/// The most partition proofs one aggregate holds: Filecoin's largest
/// aggregates (819 interactive 32 GiB sectors of 10 partitions; 65
/// NI-PoRep sectors of 126) pad to 8192, the size its SRS is specialised
/// to on chain.
pub const MAX_AGGREGATED_PROOFS: usize = 8192;

/// What one seal proof proves: the sector and its public values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SealStatement {
    /// Sector number.
    pub sector_id: u64,
    /// Prover id (32 bytes).
    pub prover_id: [u8; 32],
    /// comm_r, comm_d, ticket, seed.
    pub public: C1Public,
}

/// One sector's C2 proof (its partition proofs, 192 bytes each) and its
/// statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealedProof {
    /// What it proves.
    pub statement: SealStatement,
    /// The C2 proof bytes.
    pub proof: Vec<u8>,
}

/// A whole aggregation request: the proof type, the aggregate version and
/// the sectors in aggregate order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AggregateRequest {
    /// Every sector's registered seal proof.
    pub kind: SealProofKind,
    /// filecoin-proofs' aggregate version (V2 on today's network).
    pub version: AggregateVersion,
    /// The sectors, in the order the aggregate commits to.
    pub seals: Vec<SealedProof>,
}

fn bad(msg: String) -> FilecoinError {
    FilecoinError::AggregateInput(msg)
}

impl AggregateRequest {
    /// Parses a manifest (JSON):
    ///
    /// ```json
    /// { "registered_proof": "StackedDrg32GiBV1_1",
    ///   "aggregate_version": "v2",
    ///   "sectors": [ { "sector_id": 1, "prover_id": "f01000",
    ///                  "comm_r": "<64 hex>", "comm_d": "<64 hex>",
    ///                  "ticket": "<64 hex>", "seed": "<64 hex>",
    ///                  "proof": "<base64>" } ] }
    /// ```
    ///
    /// `registered_proof` is an api name or a registered id;
    /// `aggregate_version` is optional (`v2`). With `files` set, a sector
    /// may give `"proof_file": "PATH"` (raw C2 bytes, relative to `files`)
    /// instead of `proof`; without it (a request from the network) only
    /// inline proofs are read. A sector without either is a statement
    /// only: enough to verify an aggregate, refused for making one.
    pub fn parse(json: &[u8], files: Option<&Path>) -> Result<Self> {
        let v: serde_json::Value =
            serde_json::from_slice(json).map_err(|e| bad(format!("not a JSON manifest: {e}")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| bad("the manifest must be a JSON object".into()))?;
        for k in obj.keys() {
            if !["registered_proof", "aggregate_version", "sectors"].contains(&k.as_str()) {
                return Err(bad(format!("unknown manifest key {k:?}")));
            }
        }
        let kind = match obj.get("registered_proof") {
            Some(serde_json::Value::String(s)) => SealProofKind::from_api_name(s)?,
            Some(serde_json::Value::Number(n)) => SealProofKind::from_registered_id(
                n.as_u64()
                    .ok_or_else(|| bad(format!("registered_proof {n} is not an id")))?,
            )?,
            _ => {
                return Err(bad(
                    "registered_proof (an api name or a registered id) is missing".into(),
                ))
            }
        };
        let version = match obj.get("aggregate_version").map(|v| v.as_str()) {
            None | Some(Some("v2" | "V2")) => AggregateVersion::V2,
            Some(Some("v1" | "V1")) => AggregateVersion::V1,
            Some(other) => {
                return Err(bad(format!(
                    "aggregate_version must be \"v1\" or \"v2\", got {other:?}"
                )))
            }
        };
        let sectors = obj
            .get("sectors")
            .and_then(|s| s.as_array())
            .ok_or_else(|| bad("sectors (a JSON array) is missing".into()))?;
        // Bounded before anything per sector is decoded.
        if sectors.len() > MAX_AGGREGATED_PROOFS {
            return Err(bad(format!(
                "{} sectors: an aggregate holds at most {MAX_AGGREGATED_PROOFS} proofs",
                sectors.len()
            )));
        }
        let seals = sectors
            .iter()
            .enumerate()
            .map(|(i, s)| parse_sector(i, s, files))
            .collect::<Result<Vec<_>>>()?;
        Ok(AggregateRequest {
            kind,
            version,
            seals,
        })
    }
}

fn parse_sector(i: usize, v: &serde_json::Value, files: Option<&Path>) -> Result<SealedProof> {
    let at = |msg: String| bad(format!("sector {i}: {msg}"));
    let o = v
        .as_object()
        .ok_or_else(|| at("must be a JSON object".into()))?;
    const KEYS: [&str; 8] = [
        "sector_id",
        "prover_id",
        "comm_r",
        "comm_d",
        "ticket",
        "seed",
        "proof",
        "proof_file",
    ];
    if let Some(k) = o.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(at(format!("unknown key {k:?}")));
    }
    let sector_id = o
        .get("sector_id")
        .and_then(|v| v.as_u64())
        .ok_or_else(|| at("sector_id (a number) is missing".into()))?;
    let prover_id = parse_prover_id(
        o.get("prover_id")
            .and_then(|v| v.as_str())
            .ok_or_else(|| at("prover_id is missing".into()))?,
    )?;
    let b32 = |key: &str| -> Result<[u8; 32]> {
        let s = o
            .get(key)
            .and_then(|v| v.as_str())
            .ok_or_else(|| at(format!("{key} is missing")))?;
        parse_hex32(s).ok_or_else(|| at(format!("{key} must be 64 hex digits, got {s:?}")))
    };
    let public = C1Public {
        comm_r: b32("comm_r")?,
        comm_d: b32("comm_d")?,
        ticket: b32("ticket")?,
        seed: b32("seed")?,
    };
    let proof = match (o.get("proof"), o.get("proof_file"), files) {
        (Some(_), Some(_), _) => return Err(at("give proof or proof_file, not both".into())),
        (Some(p), None, _) => base64::engine::general_purpose::STANDARD
            .decode(
                p.as_str()
                    .ok_or_else(|| at("proof must be a base64 string".into()))?,
            )
            .map_err(|e| at(format!("proof is not base64: {e}")))?,
        (None, Some(f), Some(dir)) => {
            let path = dir.join(
                f.as_str()
                    .ok_or_else(|| at("proof_file must be a path".into()))?,
            );
            // The largest C2 proof is a few KB (10 partitions of 192 bytes).
            cuzk_groth16::file::read_capped(&path, 1 << 20, "a C2 proof file")?
        }
        (None, Some(_), None) => {
            return Err(at(
                "proof_file is accepted only from a manifest file: send the proof inline".into(),
            ))
        }
        // A statement without its proof: enough to verify an aggregate
        // ([`check_request`] refuses it for aggregation).
        (None, None, _) => Vec::new(),
    };
    Ok(SealedProof {
        statement: SealStatement {
            sector_id,
            prover_id,
            public,
        },
        proof,
    })
}

/// The partition proofs an aggregate of `sectors` sectors of `kind` holds
/// once padded (filecoin-proofs repeats the last proof up to a power of
/// two, at least 2).
pub fn padded_proofs(kind: &SealProofKind, sectors: usize) -> Result<usize> {
    let n = sectors * usize::from(kind.porep_config()?.partitions);
    Ok(if n <= 1 { 2 } else { n.next_power_of_two() })
}

/// Checks the shape of a request: one proof type, counts within
/// filecoin-proofs' bounds, proofs of the right length, no all-zero
/// commitment. Cheap; no proof is verified.
pub fn check_request(req: &AggregateRequest) -> Result<()> {
    let kind = &req.kind;
    let config = kind.porep_config()?;
    let n = req.seals.len();
    if n == 0 {
        return Err(bad("no sectors to aggregate".into()));
    }
    if kind.aggregated() {
        if req.version != AggregateVersion::V2 {
            return Err(bad(format!(
                "{} aggregates only with aggregate version v2",
                kind.api_name()
            )));
        }
        let (min, max) = (
            filecoin_proofs::FIP92_MIN_NI_POREP_AGGREGATION_PROOFS,
            filecoin_proofs::FIP92_MAX_NI_POREP_AGGREGATION_PROOFS,
        );
        if !(min..=max).contains(&n) {
            return Err(bad(format!(
                "{n} NI-PoRep sectors: FIP-0092 aggregates {min}..={max}"
            )));
        }
    }
    let padded = padded_proofs(kind, n)?;
    if padded > MAX_AGGREGATED_PROOFS {
        return Err(bad(format!(
            "{n} sectors of {} are {padded} partition proofs once padded: at most \
             {MAX_AGGREGATED_PROOFS}",
            kind.api_name()
        )));
    }
    let want = usize::from(config.partitions) * cuzk_groth16::PROOF_BYTES;
    for (i, s) in req.seals.iter().enumerate() {
        if s.proof.len() != want {
            return Err(bad(format!(
                "sector {i} (id {}): a {} C2 proof is {want} bytes, got {}",
                s.statement.sector_id,
                format_size(kind.sector_size),
                s.proof.len()
            )));
        }
        s.statement
            .public
            .check_nonzero()
            .map_err(|e| bad(format!("sector {i} (id {}): {e}", s.statement.sector_id)))?;
    }
    Ok(())
}

/// Aggregates `req`'s seal proofs: checks the request, aggregates as
/// filecoin-proofs does and verifies the aggregate before returning its
/// bytes. When the aggregate cannot be made or does not verify, every
/// proof is verified for its own statement and
/// [`FilecoinError::SealInvalid`] names the first that fails.
pub fn aggregate_seals(req: &AggregateRequest, param_dir: &Path) -> Result<Vec<u8>> {
    check_request(req)?;
    check_srs(param_dir, &req.kind, req.seals.len())?;
    use_param_dir(param_dir)?;
    let config = req.kind.porep_config()?;
    with_tree!(req.kind.sector_size, aggregate_tree(&config, req))
}

/// Verifies an aggregate of seal proofs of `kind` for `statements` (in
/// aggregate order) with filecoin-proofs' `verify_aggregate_seal_commit_proofs`.
/// `Ok(false)` is an aggregate that does not verify (bytes that do not
/// decode included); a malformed request is an error.
pub fn verify_aggregate(
    kind: &SealProofKind,
    version: AggregateVersion,
    statements: &[SealStatement],
    aggregate: &[u8],
    param_dir: &Path,
) -> Result<bool> {
    if statements.is_empty() {
        return Err(bad("no sectors to verify".into()));
    }
    if padded_proofs(kind, statements.len())? > MAX_AGGREGATED_PROOFS {
        return Err(bad(format!(
            "{} sectors are more than an aggregate holds",
            statements.len()
        )));
    }
    for s in statements {
        s.public.check_nonzero()?;
    }
    check_srs(param_dir, kind, statements.len())?;
    use_param_dir(param_dir)?;
    let config = kind.porep_config()?;
    type Aggregate = bellperson::groth16::aggregate::AggregateProof<blstrs::Bls12>;
    match Aggregate::read(std::io::Cursor::new(aggregate)) {
        Ok(a) if a.tmipp.gipa.nproofs as usize == padded_proofs(kind, statements.len())? => {}
        _ => return Ok(false),
    }
    with_tree!(
        kind.sector_size,
        verify_tree(&config, version, statements, aggregate)
    )
}

fn aggregate_tree<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    req: &AggregateRequest,
) -> Result<Vec<u8>> {
    let st: Vec<SealStatement> = req.seals.iter().map(|s| s.statement).collect();
    // The aggregate's verification checks every input proof's Groth16
    // equation (under the transcript's random combination), so when it
    // passes no input needs its own check: that batch verification cost
    // as much as the aggregation itself (1024 2 KiB proofs on 2 cores).
    let made = make(
        config,
        &st.iter().map(|s| s.public.comm_r).collect::<Vec<_>>(),
        &st.iter().map(|s| s.public.seed).collect::<Vec<_>>(),
        &req.seals.iter().map(|s| &s.proof[..]).collect::<Vec<_>>(),
        req.version,
    );
    let failure = match made {
        Ok(agg) if verify_tree::<Tree>(config, req.version, &st, &agg)? => return Ok(agg),
        Ok(_) => FilecoinError::AggregateUnverified,
        Err(e) => e,
    };
    // Name the first proof that does not verify for its own statement
    // (bytes that are not points included); if every one does, the
    // failure is the aggregate's own.
    for (index, s) in req.seals.iter().enumerate() {
        let ok = filecoin_proofs::verify_seal::<Tree>(
            config,
            s.statement.public.comm_r,
            s.statement.public.comm_d,
            s.statement.prover_id,
            s.statement.sector_id.into(),
            s.statement.public.ticket,
            s.statement.public.seed,
            &s.proof,
        )
        .unwrap_or(false);
        if !ok {
            return Err(FilecoinError::SealInvalid {
                index,
                sector_id: s.statement.sector_id,
            });
        }
    }
    Err(failure)
}

/// The process's SnarkPack SRS: the file in filecoin-proofs' parameter
/// directory ([`use_param_dir`]), read up to the most powers asked so far
/// (filecoin-proofs likewise keeps its specialised SRS per count).
static SRS: Mutex<Option<(PathBuf, Arc<GenericSRS<Bls12>>)>> = Mutex::new(None);

/// Where the process's aggregates run their pairing products: GPU 0 when
/// this build has CUDA and a device answers, else every core (its stream
/// is made once).
fn pairing() -> &'static cuzk_snarkpack::Pairing {
    static PAIRING: std::sync::OnceLock<cuzk_snarkpack::Pairing> = std::sync::OnceLock::new();
    PAIRING.get_or_init(cuzk_snarkpack::Pairing::auto)
}

fn srs(powers: usize) -> Result<Arc<GenericSRS<Bls12>>> {
    let dir = PathBuf::from(&storage_proofs_core::settings::SETTINGS.parameter_cache);
    let path = locate_srs(&dir)?;
    let mut held = SRS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((p, s)) = &*held {
        if *p == path && s.h_beta_powers.len() >= powers {
            return Ok(s.clone());
        }
    }
    let s = Arc::new(read_srs(&path, powers)?);
    *held = Some((path, s.clone()));
    Ok(s)
}

/// Sectors' C2 proofs (`outputs`, with their comm_r and seeds, in aggregate
/// order) → the aggregate's bytes, exactly as filecoin-proofs'
/// `aggregate_seal_commit_proofs` makes them: every partition proof in
/// order, padded to a power of two (at least 2) by repeating the last,
/// SHA-256 of the (seed, comm_r) pairs (comm_rs alone for non-interactive
/// PoRep, whose challenges take no seed) as the transcript input, and
/// `cuzk_snarkpack`'s prover. Also the last step of a non-interactive
/// PoRep's C2 (`porep::finish_c2`: one sector, its partition proofs).
pub(crate) fn make(
    config: &PoRepConfig,
    comm_rs: &[[u8; 32]],
    seeds: &[[u8; 32]],
    outputs: &[&[u8]],
    version: AggregateVersion,
) -> Result<Vec<u8>> {
    use filecoin_proofs::constants::{
        FIP92_MAX_NI_POREP_AGGREGATION_PROOFS, FIP92_MIN_NI_POREP_AGGREGATION_PROOFS,
    };
    use sha2::{Digest, Sha256};
    let ni = config.feature_enabled(ApiFeature::NonInteractivePoRep);
    if outputs.is_empty() {
        return Err(bad("no seal proofs to aggregate".into()));
    }
    if ni
        && outputs.len() > 1
        && !(FIP92_MIN_NI_POREP_AGGREGATION_PROOFS..=FIP92_MAX_NI_POREP_AGGREGATION_PROOFS)
            .contains(&outputs.len())
    {
        return Err(bad(format!(
            "{} non-interactive sectors; FIP-0092 aggregates {FIP92_MIN_NI_POREP_AGGREGATION_PROOFS}..={FIP92_MAX_NI_POREP_AGGREGATION_PROOFS}",
            outputs.len()
        )));
    }
    let partitions = usize::from(config.partitions);
    let mut proofs = Vec::with_capacity(outputs.len() * partitions);
    for (i, bytes) in outputs.iter().enumerate() {
        if bytes.len() != partitions * cuzk_groth16::PROOF_BYTES {
            return Err(bad(format!(
                "sector {i}: a {}-byte seal proof; {partitions} partitions make {}",
                bytes.len(),
                partitions * cuzk_groth16::PROOF_BYTES
            )));
        }
        for (k, p) in bytes.chunks_exact(cuzk_groth16::PROOF_BYTES).enumerate() {
            proofs.push(Proof::<Bls12>::read(p).map_err(|e| {
                bad(format!(
                    "sector {i}, partition {k}: not a Groth16 proof: {e}"
                ))
            })?);
        }
    }
    let target = proofs.len().next_power_of_two().max(2);
    let last = proofs[proofs.len() - 1].clone();
    proofs.resize(target, last);

    let mut h = Sha256::new();
    if ni {
        comm_rs.iter().for_each(|c| h.update(c));
    } else {
        for (seed, comm_r) in seeds.iter().zip(comm_rs) {
            h.update(seed);
            h.update(comm_r);
        }
    }
    let include: [u8; 32] = h.finalize().into();

    let srs = srs(2 * target)?;
    let agg = cuzk_snarkpack::aggregate(pairing(), &srs, &include, &proofs, version)?;
    let mut out = Vec::new();
    agg.write(&mut out)
        .map_err(|e| bad(format!("writing the aggregate: {e}")))?;
    Ok(out)
}

fn verify_tree<Tree: 'static + MerkleTreeTrait>(
    config: &PoRepConfig,
    version: AggregateVersion,
    st: &[SealStatement],
    aggregate: &[u8],
) -> Result<bool> {
    let mut inputs = Vec::new();
    for s in st {
        inputs.extend(
            filecoin_proofs::get_seal_inputs::<Tree>(
                config,
                s.public.comm_r,
                s.public.comm_d,
                s.prover_id,
                s.sector_id.into(),
                s.public.ticket,
                s.public.seed,
            )
            .map_err(proofs)?,
        );
    }
    filecoin_proofs::verify_aggregate_seal_commit_proofs::<Tree>(
        config,
        aggregate.to_vec(),
        &st.iter().map(|s| s.public.comm_r).collect::<Vec<_>>(),
        &st.iter().map(|s| s.public.seed).collect::<Vec<_>>(),
        inputs,
        version,
    )
    .map_err(proofs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(extra: &str, sector: &str) -> String {
        format!(r#"{{"registered_proof": "StackedDrg2KiBV1_1"{extra}, "sectors": [{sector}]}}"#)
    }

    const GOOD: &str = r#"{"sector_id": 7, "prover_id": "f01000",
        "comm_r": "0101010101010101010101010101010101010101010101010101010101010101",
        "comm_d": "0202020202020202020202020202020202020202020202020202020202020202",
        "ticket": "0303030303030303030303030303030303030303030303030303030303030303",
        "seed": "0404040404040404040404040404040404040404040404040404040404040404",
        "proof": "AAEC"}"#;

    #[test]
    fn a_manifest_parses_and_every_field_is_checked() {
        let r = AggregateRequest::parse(manifest("", GOOD).as_bytes(), None).unwrap();
        assert_eq!(r.kind.sector_size, 2048);
        assert_eq!(r.version, AggregateVersion::V2);
        assert_eq!(r.seals.len(), 1);
        let s = &r.seals[0];
        assert_eq!(s.statement.sector_id, 7);
        assert_eq!(s.statement.public.comm_r, [1; 32]);
        assert_eq!(s.statement.public.seed, [4; 32]);
        assert_eq!(s.statement.prover_id[..2], [0xe8, 0x07]);
        assert_eq!(s.proof, vec![0, 1, 2]);
        // The right length is checked separately (cheaply, before proving).
        assert!(matches!(
            check_request(&r),
            Err(FilecoinError::AggregateInput(m)) if m.contains("192 bytes, got 3")
        ));
        let v1 = AggregateRequest::parse(
            manifest(r#", "aggregate_version": "v1""#, GOOD).as_bytes(),
            None,
        )
        .unwrap();
        assert_eq!(v1.version, AggregateVersion::V1);

        let cases = [
            ("{", "not a JSON manifest"),
            (&manifest(r#", "x": 1"#, GOOD), "unknown manifest key"),
            (&GOOD.replace("\"sector_id\": 7", "\"sector_id\": -7"), ""),
            (
                &manifest("", &GOOD.replace("0101", "01")),
                "comm_r must be 64 hex",
            ),
            (
                &manifest("", &GOOD.replace("\"seed\"", "\"sead\"")),
                "unknown key",
            ),
            (&manifest("", &GOOD.replace("AAEC", "!!")), "not base64"),
            (
                &manifest("", &GOOD.replace("\"proof\"", "\"proof_file\"")),
                "only from a manifest file",
            ),
            (
                &manifest(r#", "aggregate_version": "v3""#, GOOD),
                "v1\" or \"v2",
            ),
            (
                &manifest("", GOOD).replace("StackedDrg2KiBV1_1", "StackedDrg3KiBV1_1"),
                "",
            ),
        ];
        for (json, want) in cases {
            let e = AggregateRequest::parse(json.as_bytes(), None).unwrap_err();
            assert!(e.to_string().contains(want), "{json}: {e}");
        }
        // A statement alone (for verifying) parses; both proof forms do not.
        let bare = GOOD.replace(",\n        \"proof\": \"AAEC\"", "");
        assert_ne!(bare, GOOD);
        let r = AggregateRequest::parse(manifest("", &bare).as_bytes(), None).unwrap();
        assert!(r.seals[0].proof.is_empty());
        let both = GOOD.replace("\"proof\"", "\"proof_file\": \"x\", \"proof\"");
        let e = AggregateRequest::parse(manifest("", &both).as_bytes(), None).unwrap_err();
        assert!(e.to_string().contains("not both"), "{e}");
        let many = vec![GOOD; MAX_AGGREGATED_PROOFS + 1].join(",");
        let e = AggregateRequest::parse(manifest("", &many).as_bytes(), None).unwrap_err();
        assert!(e.to_string().contains("at most 8192"), "{e}");
    }

    #[test]
    fn counts_follow_filecoin_proofs_padding_and_bounds() {
        let k2 = SealProofKind::from_api_name("StackedDrg2KiBV1_1").unwrap();
        let k32 = SealProofKind::from_api_name("StackedDrg32GiBV1_1").unwrap();
        let ni =
            SealProofKind::from_api_name("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep").unwrap();
        assert_eq!(padded_proofs(&k2, 1).unwrap(), 2);
        assert_eq!(padded_proofs(&k2, 3).unwrap(), 4);
        assert_eq!(padded_proofs(&k2, 1024).unwrap(), 1024);
        assert_eq!(padded_proofs(&k32, 819).unwrap(), 8192);
        assert_eq!(padded_proofs(&ni, 65).unwrap(), 8192);

        let req = |kind: SealProofKind, n: usize, version| AggregateRequest {
            kind,
            version,
            seals: vec![
                SealedProof {
                    statement: SealStatement {
                        sector_id: 1,
                        prover_id: [0; 32],
                        public: C1Public {
                            comm_r: [1; 32],
                            comm_d: [2; 32],
                            ticket: [3; 32],
                            seed: [4; 32],
                        },
                    },
                    proof: vec![0; usize::from(kind.porep_config().unwrap().partitions) * 192],
                };
                n
            ],
        };
        let v2 = AggregateVersion::V2;
        assert!(check_request(&req(k32, 819, v2)).is_ok());
        for (r, want) in [
            (req(k32, 0, v2), "no sectors"),
            (req(k32, 820, v2), "at most 8192"),
            (req(ni, 66, v2), "FIP-0092"),
            (
                req(ni, 2, AggregateVersion::V1),
                "only with aggregate version v2",
            ),
        ] {
            let e = check_request(&r).unwrap_err();
            assert!(e.to_string().contains(want), "{want}: {e}");
        }
        let mut zero = req(k2, 2, v2);
        zero.seals[1].statement.public.comm_d = [0; 32];
        let e = check_request(&zero).unwrap_err();
        assert!(e.to_string().contains("sector 1"), "{e}");
    }
}
