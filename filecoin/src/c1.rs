//! C1 outputs: the registered seal proof types and the three JSON forms a
//! C1 output arrives in.
//!
//! 1. filecoin-proofs' own `SealCommitPhase1Output<Tree>` (keys
//!    `vanilla_proofs`, `comm_r`, `comm_d`, `replica_id`, `seed`,
//!    `ticket`; the vanilla proofs a plain `[[proof, …], …]`): the sector
//!    size and proof type must come from elsewhere.
//! 2. filecoin-proofs-api's form, which Lotus and Curio hand around: the
//!    same keys plus `registered_proof` (e.g. `"StackedDrg32GiBV1_1"`), and
//!    `vanilla_proofs` wrapped in an enum tag (`{"StackedDrg32GiBV1": […]}`).
//! 3. Curio's task wrapper `{"SectorNum", "Phase1Out": base64(form 2),
//!    "SectorSize"}`.
//!
//! [`parse_c1`] normalises all three to [`C1Output`]: the proof type and the
//! form-1 JSON, which the shape-generic code then deserializes for its tree.

use crate::error::{FilecoinError, Result};
use base64::Engine as _;
use filecoin_proofs::PoRepConfig;
use serde_json::{Map, Value};
use storage_proofs_core::api_version::{ApiFeature, ApiVersion};

/// The registered PoRep sector sizes (bytes).
pub const SECTOR_SIZES: [u64; 5] = [1 << 11, 1 << 23, 1 << 29, 1 << 35, 1 << 36];

/// Which generation of the seal proof a sector was sealed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SealVersion {
    /// `StackedDrg…V1` (ids 0–4, API 1.0).
    V1,
    /// `StackedDrg…V1_1` (ids 5–9, API 1.1): what the network uses.
    V1_1,
    /// `StackedDrg…V1_1_Feat_SyntheticPoRep` (ids 10–14, API 1.2).
    V1_1Synthetic,
    /// `StackedDrg…V1_2_Feat_NonInteractivePoRep` (ids 15–19, API 1.2,
    /// FIP-0092): the same partition circuit and parameters as V1_1, many
    /// more partitions (126 at 32 GiB), and a C2 that is their SnarkPack
    /// aggregate ([`crate::porep::finish_c2`]).
    V1_2NonInteractive,
}

/// A registered seal proof type: sector size and version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SealProofKind {
    /// Sector size in bytes (one of [`SECTOR_SIZES`]).
    pub sector_size: u64,
    /// Proof generation.
    pub version: SealVersion,
}

impl SealProofKind {
    /// The kind for a sector size, checking that the size is registered.
    pub fn new(sector_size: u64, version: SealVersion) -> Result<Self> {
        if !SECTOR_SIZES.contains(&sector_size) {
            return Err(FilecoinError::SectorSize(format!(
                "{} is not a registered PoRep sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)",
                format_size(sector_size)
            )));
        }
        Ok(Self {
            sector_size,
            version,
        })
    }

    /// The registered proof id, as filecoin-proofs-api numbers them.
    pub fn registered_id(&self) -> u64 {
        let base = match self.version {
            SealVersion::V1 => 0,
            SealVersion::V1_1 => 5,
            SealVersion::V1_1Synthetic => 10,
            SealVersion::V1_2NonInteractive => 15,
        };
        let idx = SECTOR_SIZES
            .iter()
            .position(|&s| s == self.sector_size)
            .unwrap_or(0) as u64;
        base + idx
    }

    /// The kind for a registered proof id (0–19).
    pub fn from_registered_id(id: u64) -> Result<Self> {
        let version = match id / 5 {
            0 => SealVersion::V1,
            1 => SealVersion::V1_1,
            2 => SealVersion::V1_1Synthetic,
            3 => SealVersion::V1_2NonInteractive,
            _ => {
                return Err(FilecoinError::Unsupported(format!(
                    "registered seal proof id {id}"
                )))
            }
        };
        Self::new(SECTOR_SIZES[(id % 5) as usize], version)
    }

    /// The name filecoin-proofs-api serializes (`"StackedDrg2KiBV1_1"`).
    pub fn api_name(&self) -> String {
        let size = format_size(self.sector_size);
        match self.version {
            SealVersion::V1 => format!("StackedDrg{size}V1"),
            SealVersion::V1_1 => format!("StackedDrg{size}V1_1"),
            SealVersion::V1_1Synthetic => format!("StackedDrg{size}V1_1_Feat_SyntheticPoRep"),
            SealVersion::V1_2NonInteractive => {
                format!("StackedDrg{size}V1_2_Feat_NonInteractivePoRep")
            }
        }
    }

    /// Parses an api name (the inverse of [`Self::api_name`]).
    pub fn from_api_name(name: &str) -> Result<Self> {
        let bad = || FilecoinError::BadC1(format!("unknown registered_proof {name:?}"));
        let rest = name.strip_prefix("StackedDrg").ok_or_else(bad)?;
        let (size, version) = if let Some(s) = rest.strip_suffix("V1_1_Feat_SyntheticPoRep") {
            (s, SealVersion::V1_1Synthetic)
        } else if let Some(s) = rest.strip_suffix("V1_2_Feat_NonInteractivePoRep") {
            (s, SealVersion::V1_2NonInteractive)
        } else if let Some(s) = rest.strip_suffix("V1_1") {
            (s, SealVersion::V1_1)
        } else if let Some(s) = rest.strip_suffix("V1") {
            (s, SealVersion::V1)
        } else {
            return Err(bad());
        };
        let size = parse_size(size).map_err(|_| bad())?;
        Self::new(size, version)
    }

    /// The tag of filecoin-proofs-api's `VanillaSealProof` enum for this
    /// size (`"StackedDrg2KiBV1"`, the same for every version).
    pub fn vanilla_tag(&self) -> String {
        format!("StackedDrg{}V1", format_size(self.sector_size))
    }

    /// The porep id: registered proof id little-endian in bytes 0..8, the
    /// nonce (always 0 so far) in 8..16.
    pub fn porep_id(&self) -> [u8; 32] {
        let mut id = [0u8; 32];
        id[..8].copy_from_slice(&self.registered_id().to_le_bytes());
        id
    }

    /// Whether C2 aggregates the partition proofs (non-interactive PoRep).
    pub fn aggregated(&self) -> bool {
        self.version == SealVersion::V1_2NonInteractive
    }

    /// filecoin-proofs' configuration for this proof type.
    pub fn porep_config(&self) -> Result<PoRepConfig> {
        let (api, feats) = match self.version {
            SealVersion::V1 => (ApiVersion::V1_0_0, vec![]),
            SealVersion::V1_1 => (ApiVersion::V1_1_0, vec![]),
            SealVersion::V1_1Synthetic => (ApiVersion::V1_2_0, vec![ApiFeature::SyntheticPoRep]),
            SealVersion::V1_2NonInteractive => {
                (ApiVersion::V1_2_0, vec![ApiFeature::NonInteractivePoRep])
            }
        };
        PoRepConfig::new_groth16_with_features(self.sector_size, self.porep_id(), api, feats)
            .map_err(crate::error::proofs)
    }
}

/// "2KiB", "8MiB", "512MiB", "32GiB", or the byte count.
pub fn format_size(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}

/// Parses a sector size: "2KiB", "2k", "8MiB", "32GiB", "32G" or a plain
/// byte count, with the one size syntax of every cuzk setting
/// ([`cuzk_scheduler::parse_bytes`]: every unit a power of 1024).
pub fn parse_size(s: &str) -> Result<u64> {
    cuzk_scheduler::parse_bytes(s).map_err(|e| {
        FilecoinError::SectorSize(format!(
            "cannot parse sector size {s:?} ({e}; e.g. 2KiB, 32GiB)"
        ))
    })
}

/// A parsed C1 output: proof type, sector number if the wrapper gave one,
/// and the body in filecoin-proofs' own form (deserialized per tree shape
/// later).
#[derive(Clone, Debug)]
pub struct C1Output {
    /// The proof type.
    pub kind: SealProofKind,
    /// Sector number from the Curio wrapper, if any.
    pub sector_num: Option<u64>,
    /// filecoin-proofs' `SealCommitPhase1Output<Tree>` JSON.
    pub body: Value,
    /// The public 32-byte values, read from the body.
    pub public: C1Public,
}

/// The public values of a C1 output (all a verifier needs besides the
/// prover and sector ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct C1Public {
    /// Replica commitment.
    pub comm_r: [u8; 32],
    /// Data commitment.
    pub comm_d: [u8; 32],
    /// Sealing ticket.
    pub ticket: [u8; 32],
    /// Interactive seed (challenge randomness).
    pub seed: [u8; 32],
}

impl C1Public {
    /// Refuses all-zero commitments and seed, as filecoin-proofs does.
    pub fn check_nonzero(&self) -> Result<()> {
        if self.comm_d == [0; 32] {
            return Err(FilecoinError::ZeroCommitment("comm_d"));
        }
        if self.comm_r == [0; 32] {
            return Err(FilecoinError::ZeroCommitment("comm_r"));
        }
        if self.seed == [0; 32] {
            return Err(FilecoinError::ZeroCommitment("seed"));
        }
        Ok(())
    }
}

/// Parses a C1 output in any of the three forms (see the module docs).
/// `declared_size` is the sector size the caller expects (e.g. from a
/// command-line flag); it is required for form 1 and checked against the
/// others. Plain form-1 outputs are taken as V1_1 (what the network seals).
pub fn parse_c1(bytes: &[u8], declared_size: Option<u64>) -> Result<C1Output> {
    let v: Value = serde_json::from_slice(bytes)
        .map_err(|e| FilecoinError::BadC1(format!("not JSON: {e}")))?;
    parse_c1_value(v, declared_size, None)
}

fn parse_c1_value(
    v: Value,
    declared_size: Option<u64>,
    sector_num: Option<u64>,
) -> Result<C1Output> {
    let Value::Object(mut obj) = v else {
        return Err(FilecoinError::BadC1("expected a JSON object".into()));
    };
    if let Some(inner) = obj.remove("Phase1Out") {
        return parse_curio(obj, inner, declared_size);
    }
    let kind = match obj.remove("registered_proof") {
        Some(Value::String(name)) => {
            let kind = SealProofKind::from_api_name(&name)?;
            if let Some(d) = declared_size {
                check_same_size(d, kind.sector_size, &format!("registered_proof {name}"))?;
            }
            let vanilla = obj
                .remove("vanilla_proofs")
                .ok_or_else(|| missing("vanilla_proofs"))?;
            obj.insert("vanilla_proofs".into(), untag_vanilla(vanilla, &kind)?);
            kind
        }
        Some(other) => {
            return Err(FilecoinError::BadC1(format!(
                "registered_proof is not a string: {other}"
            )))
        }
        None => {
            let size = declared_size.ok_or_else(|| {
                FilecoinError::SectorSize(
                    "this C1 output does not name its proof type; give the sector size (--sector-size)".into(),
                )
            })?;
            SealProofKind::new(size, SealVersion::V1_1)?
        }
    };
    for key in ["vanilla_proofs", "replica_id"] {
        if !obj.contains_key(key) {
            return Err(missing(key));
        }
    }
    check_body(&obj, &kind)?;
    let public = C1Public {
        comm_r: bytes32(&obj, "comm_r")?,
        comm_d: bytes32(&obj, "comm_d")?,
        ticket: bytes32(&obj, "ticket")?,
        seed: bytes32(&obj, "seed")?,
    };
    Ok(C1Output {
        kind,
        sector_num,
        body: Value::Object(obj),
        public,
    })
}

fn parse_curio(
    obj: Map<String, Value>,
    inner: Value,
    declared_size: Option<u64>,
) -> Result<C1Output> {
    let Value::String(b64) = inner else {
        return Err(FilecoinError::BadC1(
            "Phase1Out is not a base64 string".into(),
        ));
    };
    let raw = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|e| FilecoinError::BadC1(format!("Phase1Out is not valid base64: {e}")))?;
    let wrapper_size = match obj.get("SectorSize") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| FilecoinError::BadC1(format!("SectorSize is not a number: {v}")))?,
        ),
    };
    if let (Some(d), Some(w)) = (declared_size, wrapper_size) {
        check_same_size(d, w, "the wrapper's SectorSize")?;
    }
    let sector_num = match obj.get("SectorNum") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| FilecoinError::BadC1(format!("SectorNum is not a number: {v}")))?,
        ),
    };
    let v: Value = serde_json::from_slice(&raw)
        .map_err(|e| FilecoinError::BadC1(format!("Phase1Out is not JSON: {e}")))?;
    if v.get("Phase1Out").is_some() {
        return Err(FilecoinError::BadC1("nested Phase1Out wrappers".into()));
    }
    let out = parse_c1_value(v, wrapper_size.or(declared_size), sector_num)?;
    if let Some(w) = wrapper_size {
        check_same_size(w, out.kind.sector_size, "the wrapper's SectorSize")?;
    }
    Ok(out)
}

fn untag_vanilla(v: Value, kind: &SealProofKind) -> Result<Value> {
    match v {
        Value::Object(mut m) if m.len() == 1 => {
            let (tag, inner) = m
                .iter_mut()
                .next()
                .map(|(k, v)| (k.clone(), v.take()))
                .expect("one entry");
            if tag != kind.vanilla_tag() {
                return Err(FilecoinError::SectorSize(format!(
                    "registered_proof says {} but the vanilla proofs are tagged {tag}",
                    kind.api_name()
                )));
            }
            Ok(inner)
        }
        // Some tools write the api form with untagged vanilla proofs.
        Value::Array(a) => Ok(Value::Array(a)),
        other => Err(FilecoinError::BadC1(format!(
            "vanilla_proofs must be a list or a one-entry tagged object, got {}",
            type_name(&other)
        ))),
    }
}

fn check_same_size(expected: u64, got: u64, source: &str) -> Result<()> {
    if expected != got {
        return Err(FilecoinError::SectorSize(format!(
            "expected a {} sector, but {source} says {}",
            format_size(expected),
            format_size(got)
        )));
    }
    Ok(())
}

fn missing(key: &str) -> FilecoinError {
    FilecoinError::BadC1(format!("missing field {key:?}"))
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Checks what a C1 body must satisfy before filecoin-proofs builds
/// circuits from it, which it does with asserts and `expect`s: a hostile
/// body would panic there instead of failing with an error. Checked: the
/// partition count of the proof type, non-empty partitions of challenge
/// proofs with as many labeling proofs as the sector has layers and the
/// graph's parent counts, and every 32-byte value (commitments, replica
/// id, path hashes, leaves, labels) a canonical field element.
fn check_body(obj: &Map<String, Value>, kind: &SealProofKind) -> Result<()> {
    let parts = match obj.get("vanilla_proofs") {
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(FilecoinError::BadC1(format!(
                "vanilla_proofs must be a list of partitions, got {}",
                type_name(other)
            )))
        }
        None => return Err(missing("vanilla_proofs")),
    };
    if let Ok(config) = kind.porep_config() {
        let want = usize::from(config.partitions);
        if parts.len() != want {
            return Err(FilecoinError::SectorSize(format!(
                "a {} sector's C2 has {want} partition(s), the C1 output has {}",
                format_size(kind.sector_size),
                parts.len()
            )));
        }
    }
    let layers = filecoin_proofs::constants::LAYERS
        .read()
        .ok()
        .and_then(|m| m.get(&kind.sector_size).copied());
    for (k, part) in parts.iter().enumerate() {
        let challenges = match part {
            Value::Array(c) if !c.is_empty() => c,
            _ => {
                return Err(FilecoinError::BadC1(format!(
                    "vanilla_proofs[{k}] must be a non-empty list of challenge proofs"
                )))
            }
        };
        for (i, proof) in challenges.iter().enumerate() {
            check_challenge(proof, layers)
                .map_err(|m| FilecoinError::BadC1(format!("vanilla_proofs[{k}][{i}]: {m}")))?;
        }
    }
    for key in ["replica_id", "comm_r", "comm_d"] {
        if let Some(v) = obj.get(key) {
            check_elements(v, &mut key.to_string()).map_err(FilecoinError::BadC1)?;
        }
    }
    Ok(())
}

/// One challenge's proof: counts filecoin-proofs asserts on, then every
/// 32-byte value in it.
fn check_challenge(proof: &Value, layers: Option<usize>) -> std::result::Result<(), String> {
    let Value::Object(p) = proof else {
        return Err(format!("expected an object, got {}", type_name(proof)));
    };
    let count = |v: Option<&Value>, what: &str| -> std::result::Result<Option<usize>, String> {
        match v {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a.len())),
            Some(other) => Err(format!("{what} must be a list, got {}", type_name(other))),
        }
    };
    if let Some(n) = count(p.get("labeling_proofs"), "labeling_proofs")? {
        match layers {
            Some(l) if n != l => {
                return Err(format!("{n} labeling proofs; the sector has {l} layers"))
            }
            _ if n == 0 => return Err("no labeling proofs".into()),
            _ => {}
        }
    }
    if let Some(Value::Object(cols)) = p.get("replica_column_proofs") {
        use filecoin_proofs::constants::{DRG_DEGREE, EXP_DEGREE};
        for (key, want) in [("drg_parents", DRG_DEGREE), ("exp_parents", EXP_DEGREE)] {
            if let Some(n) = count(cols.get(key), key)? {
                if n != want {
                    return Err(format!("{n} {key} columns; the graph has {want}"));
                }
            }
        }
    }
    check_elements(proof, &mut String::new())
}

/// Every list of exactly 32 integers under `v` (how the JSON holds a
/// 32-byte domain value) must be bytes of a canonical field element:
/// storage-proofs converts each with `from_repr(..).expect(..)`.
fn check_elements(v: &Value, path: &mut String) -> std::result::Result<(), String> {
    match v {
        Value::Array(a) if a.len() == 32 && a.iter().all(Value::is_u64) => {
            let mut b = [0u8; 32];
            for (out, x) in b.iter_mut().zip(a) {
                *out = x
                    .as_u64()
                    .and_then(|x| u8::try_from(x).ok())
                    .ok_or_else(|| format!("{path}: {x} is not a byte"))?;
            }
            if bool::from(cuzk_field::Fr::from_bytes_le(&b).is_none()) {
                return Err(format!("{path}: not a canonical field element"));
            }
            Ok(())
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                check_elements(x, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Object(m) => {
            for (k, x) in m {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                check_elements(x, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn bytes32(obj: &Map<String, Value>, key: &str) -> Result<[u8; 32]> {
    let v = obj.get(key).ok_or_else(|| missing(key))?;
    serde_json::from_value::<[u8; 32]>(v.clone())
        .map_err(|e| FilecoinError::BadC1(format!("{key} must be a list of 32 bytes: {e}")))
}

/// Decodes a prover id: 64 hex digits (the 32 bytes), or a miner actor id
/// (`f01000`, `t01000`, `1000`), which Lotus turns into the unsigned LEB128
/// bytes of the number, zero-padded to 32.
pub fn parse_prover_id(s: &str) -> Result<[u8; 32]> {
    let t = s.trim();
    if let Some(out) = parse_hex32(t) {
        return Ok(out);
    }
    let num = t
        .strip_prefix("f0")
        .or_else(|| t.strip_prefix("t0"))
        .unwrap_or(t);
    let mut id: u64 = num
        .parse()
        .map_err(|_| FilecoinError::BadProverId(s.to_string()))?;
    let mut out = [0u8; 32];
    let mut i = 0;
    loop {
        let byte = (id & 0x7f) as u8;
        id >>= 7;
        if id == 0 {
            out[i] = byte;
            break;
        }
        out[i] = byte | 0x80;
        i += 1;
    }
    Ok(out)
}

/// 64 hex digits (an optional `0x`) as 32 bytes.
pub fn parse_hex32(s: &str) -> Option<[u8; 32]> {
    let s = s.trim();
    let digits = s.strip_prefix("0x").unwrap_or(s);
    hex::decode(digits).ok()?.try_into().ok()
}

/// 64 lowercase hex digits.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
