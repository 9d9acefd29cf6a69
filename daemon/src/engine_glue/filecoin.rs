//! The Filecoin kinds' side of [`EngineHost`] (feature `filecoin`): which
//! parameter file a request or a Curio id names, where it is, and the
//! engine job of a PoRep, PoSt or SnapDeals request.

use super::{EngineHost, ProofInput};
use crate::error::DaemonError;
use cuzk_filecoin::compiled::R1csReport;
use cuzk_filecoin::{
    C1Output, FilecoinError, PostInput, PostProofKind, PostType, PostVersion, ProofKind,
    SealProofKind, SealVersion, SnapInput, SnapProofKind,
};
use cuzk_scheduler::PartitionSource;
use cuzk_synth::compiled::CompiledR1cs;
use std::path::PathBuf;
use std::sync::Arc;

impl ProofInput {
    /// A PoRep input: the C1 output and the id of its parameters.
    pub fn porep(c1: C1Output) -> Result<Self, DaemonError> {
        let circuit_id = circuit_id(c1.kind.into(), "POREP_SEAL_COMMIT: ")?;
        let c1 = Arc::new(c1);
        Ok(ProofInput::Porep { c1, circuit_id })
    }

    /// A PoSt input: the statement and the id of its parameters.
    pub fn post(input: PostInput) -> Result<Self, DaemonError> {
        let circuit_id = circuit_id(input.kind.into(), "")?;
        let input = Arc::new(input);
        Ok(ProofInput::Post { input, circuit_id })
    }

    /// A SnapDeals input: the statement and the id of its parameters.
    pub fn snap(input: SnapInput) -> Result<Self, DaemonError> {
        let circuit_id = circuit_id(input.kind.into(), "SNAP_DEALS_UPDATE: ")?;
        let input = Arc::new(input);
        Ok(ProofInput::Snap { input, circuit_id })
    }
}

/// The standard name of `kind`'s parameter file: the engine's circuit id
/// of its parameters; `what` prefixes an error.
fn circuit_id(kind: ProofKind, what: &str) -> Result<String, DaemonError> {
    kind.params_file_name()
        .map_err(|e| DaemonError::InvalidArgument(format!("{what}{e}")))
}

/// Curio's short names for the sector sizes of its parameter-set ids
/// (`porep-32g`, `wpost-32g`, `winning-32g`, `snap-32g`).
const SIZE_SUFFIXES: [(&str, u64); 5] = [
    ("2k", 2 << 10),
    ("8m", 8 << 20),
    ("512m", 512 << 20),
    ("32g", 32 << 30),
    ("64g", 64 << 30),
];

/// The proof kind of one of Curio's parameter-set ids, `None` for an id of
/// another form.
fn curio_id_kind(id: &str) -> Option<Result<ProofKind, FilecoinError>> {
    let (kind, size) = id.split_once('-')?;
    let size = SIZE_SUFFIXES.iter().find(|(s, _)| *s == size)?.1;
    // Curio's ids name the sector size; the network's proofs are PoRep
    // V1_1 and WindowPoSt V1_2.
    Some(match kind {
        "porep" => SealProofKind::new(size, SealVersion::V1_1).map(ProofKind::from),
        "wpost" => PostProofKind::new(PostType::Window, size, PostVersion::V1_2).map(Into::into),
        "winning" => PostProofKind::new(PostType::Winning, size, PostVersion::V1).map(Into::into),
        "snap" => SnapProofKind::new(size).map(Into::into),
        _ => return None,
    })
}

/// The proof kind whose parameter file is `file` (named by `id`): from a
/// Curio id directly, else by its standard name among the kinds Curio's
/// ids name (the network's versions; other versions share their circuit
/// and file). `None` for a file of no known kind.
fn kind_of(id: &str, file: &str) -> Option<ProofKind> {
    if let Some(Ok(k)) = curio_id_kind(id) {
        return Some(k);
    }
    SIZE_SUFFIXES
        .iter()
        .flat_map(|(short, _)| {
            ["porep", "wpost", "winning", "snap"].map(|k| curio_id_kind(&format!("{k}-{short}")))
        })
        .flatten()
        .filter_map(Result::ok)
        .find(|k| k.params_file_name().ok().as_deref() == Some(file))
}

/// The parameter file an id names, by its standard name: one of Curio's
/// ids or a `v28-….params` file name; `None` for an id of another form.
pub(super) fn params_file(id: &str) -> Option<Result<String, DaemonError>> {
    if let Some(kind) = curio_id_kind(id) {
        return Some(
            kind.and_then(|k| k.params_file_name())
                .map_err(|e| DaemonError::InvalidArgument(e.to_string())),
        );
    }
    (id.starts_with("v28-") && id.ends_with(".params") && !id.contains('/'))
        .then(|| Ok(id.to_string()))
}

/// What a circuit id's message lists beyond the bench circuit.
pub(super) const KNOWN_IDS: &str =
    "; porep-, wpost-, winning-, snap- with 2k, 8m, 512m, 32g, 64g; a v28-….params file name";

impl EngineHost {
    /// Makes the circuit record of the kind whose parameter file is `file`
    /// ready (loaded, or recorded once per proof type and saved), so the
    /// first job of a preloaded kind does not wait for a recording: a
    /// 32 GiB PoRep records in 86–108 s on a 16-core host, a WindowPoSt
    /// (its sectors on all cores) in 51 s.
    pub(super) fn warm_record(&self, id: &str, file: &str) -> Result<(), DaemonError> {
        let Some(kind) = kind_of(id, file) else {
            return Ok(());
        };
        let engine = Some(&self.engine);
        let r = match kind {
            ProofKind::Porep(k) => self.r1cs.porep(&k, engine),
            ProofKind::Post(k) => self.r1cs.post(&k, engine),
            ProofKind::Snap(k) => self.r1cs.snap(&k, engine),
        }
        .map_err(|e| DaemonError::Params {
            circuit: id.to_string(),
            message: format!("recording the circuit: {e}"),
        })?;
        record_ready(r);
        Ok(())
    }

    /// The parameter file `name` in the Filecoin parameter directory.
    pub(super) fn filecoin_params_file(
        &self,
        circuit_id: &str,
        name: &str,
    ) -> Result<PathBuf, DaemonError> {
        cuzk_filecoin::params::locate_file(&self.filecoin_params, name).map_err(|e| {
            DaemonError::Params {
                circuit: circuit_id.to_string(),
                message: e.to_string(),
            }
        })
    }

    /// The partitions of a Filecoin request, its parameters loaded.
    pub(super) fn filecoin_source(
        &self,
        input: &ProofInput,
        circuit_id: &str,
    ) -> Result<Arc<dyn PartitionSource>, DaemonError> {
        // No constraint check on the worker: the engine verifies every
        // partition proof before returning it, which bad input fails.
        let map = |what: &str, e: FilecoinError| match e {
            FilecoinError::MissingParams { .. } | FilecoinError::ParamsMismatch { .. } => {
                DaemonError::Params {
                    circuit: circuit_id.to_string(),
                    message: e.to_string(),
                }
            }
            other => DaemonError::InvalidArgument(format!("{what}: {other}")),
        };
        let dir = &self.filecoin_params;
        Ok(match input {
            ProofInput::Porep { c1, .. } => {
                let map = |e| map("POREP_SEAL_COMMIT", e);
                // Missing parameters (and a non-interactive PoRep's SRS)
                // are reported before a first recording.
                cuzk_filecoin::locate(dir, c1.kind).map_err(map)?;
                if c1.kind.aggregated() {
                    cuzk_filecoin::check_srs(dir, &c1.kind, 1).map_err(map)?;
                }
                let r1cs =
                    record_ready(self.r1cs.porep(&c1.kind, Some(&self.engine)).map_err(map)?);
                cuzk_filecoin::porep::porep_job(c1, dir, false, Some(&r1cs), self.witness.porep)
                    .map_err(map)?
                    .source
            }
            ProofInput::Post { input, .. } => {
                let what = match input.kind.typ {
                    PostType::Winning => "WINNING_POST",
                    PostType::Window => "WINDOW_POST_PARTITION",
                };
                let map = |e| map(what, e);
                cuzk_filecoin::locate(dir, input.kind).map_err(map)?;
                let r1cs = record_ready(
                    self.r1cs
                        .post(&input.kind, Some(&self.engine))
                        .map_err(map)?,
                );
                cuzk_filecoin::post::post_job(input, dir, false, Some(&r1cs), self.witness.post)
                    .map_err(map)?
                    .source
            }
            ProofInput::Snap { input, .. } => {
                let map = |e| map("SNAP_DEALS_UPDATE", e);
                cuzk_filecoin::locate(dir, input.kind).map_err(map)?;
                let r1cs = record_ready(
                    self.r1cs
                        .snap(&input.kind, Some(&self.engine))
                        .map_err(map)?,
                );
                cuzk_filecoin::snap::snap_job(input, dir, false, Some(&r1cs), self.witness.snap)
                    .map_err(map)?
                    .source
            }
            ProofInput::Bench(_) | ProofInput::Aggregate(_) => {
                return Err(DaemonError::Internal(
                    "not an engine job of a Filecoin proof".into(),
                ))
            }
        })
    }

    /// Makes the aggregate of `req` (every input proof verified first, the
    /// aggregate verified after), one aggregation at a time; `ready` runs
    /// once it is this one's turn and says whether to go on (`None`: the
    /// job was cancelled while it waited).
    pub fn aggregate(
        &self,
        req: &cuzk_filecoin::AggregateRequest,
        ready: impl FnOnce() -> bool,
    ) -> Option<Result<Vec<u8>, DaemonError>> {
        let _turn = self.aggregating.lock();
        if !ready() {
            return None;
        }
        Some(
            cuzk_filecoin::aggregate_seals(req, &self.filecoin_params).map_err(|e| match e {
                FilecoinError::MissingParams { .. } | FilecoinError::ParamsMismatch { .. } => {
                    DaemonError::Params {
                        circuit: cuzk_filecoin::params::srs_file_name(),
                        message: e.to_string(),
                    }
                }
                other => DaemonError::InvalidArgument(format!("CUZK_AGGREGATE_SEAL: {other}")),
            }),
        )
    }
}

/// Logs how a circuit's record was obtained (a load or a recording; a hit
/// in memory says nothing) and returns it.
fn record_ready((r1cs, report): (Arc<CompiledR1cs>, Option<R1csReport>)) -> Arc<CompiledR1cs> {
    if let Some(rep) = report {
        tracing::info!(
            path = %rep.path.display(),
            recorded = rep.recorded,
            replaced = ?rep.replaced,
            seconds = rep.elapsed.as_secs_f64(),
            "circuit record ready"
        );
    }
    r1cs
}
