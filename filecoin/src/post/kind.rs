//! The registered PoSt proof types (filecoin-proofs-api's
//! `RegisteredPoStProof`) and their filecoin-proofs configuration.

use crate::c1::format_size;
use crate::error::{proofs, FilecoinError, Result};
use filecoin_proofs::{
    parameters::{window_post_setup_params, winning_post_setup_params},
    PoStConfig, PoStType, SectorSize,
};
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_post::fallback;

/// WinningPoSt's engine priority: above everything, since a block must be
/// out within seconds. The gap to [`WINDOW_POST_PRIORITY`] is wide because
/// the engine ages waiting jobs by one level per `aging` partitions.
pub const WINNING_POST_PRIORITY: i32 = 1_000_000;
/// WindowPoSt's engine priority: above PoRep and SnapDeals (priority 0),
/// which have hours where a deadline has 30 minutes.
pub const WINDOW_POST_PRIORITY: i32 = 10_000;

/// Winning or Window PoSt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PostType {
    /// One sector, 66 challenges, one partition.
    Winning,
    /// Up to the size's sector count per partition, 10 challenges each.
    Window,
}

/// The API version a registered PoSt proof type runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PostVersion {
    /// `StackedDrgWinning…V1`, `StackedDrgWindow…V1` (API 1.0).
    V1,
    /// `StackedDrgWindow…V1_2` (API 1.2: challenges no longer depend on the
    /// sector's index); what the network uses for WindowPoSt.
    V1_2,
}

/// A registered PoSt proof type: kind, sector size and version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PostProofKind {
    /// Winning or Window.
    pub typ: PostType,
    /// Sector size in bytes.
    pub sector_size: u64,
    /// API version.
    pub version: PostVersion,
}

impl PostProofKind {
    /// A proof type, checking that filecoin-proofs-api registers it.
    pub fn new(typ: PostType, sector_size: u64, version: PostVersion) -> Result<Self> {
        if !crate::c1::SECTOR_SIZES.contains(&sector_size) {
            return Err(FilecoinError::SectorSize(format!(
                "{} is not a registered PoSt sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)",
                format_size(sector_size)
            )));
        }
        if typ == PostType::Winning && version == PostVersion::V1_2 {
            return Err(FilecoinError::Unsupported(
                "WinningPoSt has no V1_2 proof type".into(),
            ));
        }
        Ok(Self {
            typ,
            sector_size,
            version,
        })
    }

    /// The name filecoin-proofs-api serializes (`"StackedDrgWindow2KiBV1_2"`).
    pub fn api_name(&self) -> String {
        let size = format_size(self.sector_size);
        let typ = match self.typ {
            PostType::Winning => "Winning",
            PostType::Window => "Window",
        };
        let version = match self.version {
            PostVersion::V1 => "V1",
            PostVersion::V1_2 => "V1_2",
        };
        format!("StackedDrg{typ}{size}{version}")
    }

    /// Parses an api name (the inverse of [`Self::api_name`]).
    pub fn from_api_name(name: &str) -> Result<Self> {
        let bad = || FilecoinError::Unsupported(format!("unknown registered PoSt proof {name:?}"));
        let rest = name.strip_prefix("StackedDrg").ok_or_else(bad)?;
        let (typ, rest) = if let Some(r) = rest.strip_prefix("Winning") {
            (PostType::Winning, r)
        } else if let Some(r) = rest.strip_prefix("Window") {
            (PostType::Window, r)
        } else {
            return Err(bad());
        };
        let (size, version) = if let Some(s) = rest.strip_suffix("V1_2") {
            (s, PostVersion::V1_2)
        } else if let Some(s) = rest.strip_suffix("V1") {
            (s, PostVersion::V1)
        } else {
            return Err(bad());
        };
        let size = crate::c1::parse_size(size).map_err(|_| bad())?;
        Self::new(typ, size, version)
    }

    /// The numeric id filecoin-ffi and Curio send (go-state-types'
    /// `RegisteredPoStProof`): Winning V1 0..=4, Window V1 5..=9, Window
    /// V1_2 (Go's `…V1_1`) 10..=14, each run over 2 KiB, 8 MiB, 512 MiB,
    /// 32 GiB, 64 GiB.
    pub fn registered_id(&self) -> u64 {
        let size = crate::c1::SECTOR_SIZES
            .iter()
            .position(|&s| s == self.sector_size)
            .unwrap_or(0) as u64;
        let base = match (self.typ, self.version) {
            (PostType::Winning, _) => 0,
            (PostType::Window, PostVersion::V1) => 5,
            (PostType::Window, PostVersion::V1_2) => 10,
        };
        base + size
    }

    /// The proof type of a numeric id ([`Self::registered_id`]).
    pub fn from_registered_id(id: u64) -> Result<Self> {
        let (typ, version) = match id / 5 {
            0 => (PostType::Winning, PostVersion::V1),
            1 => (PostType::Window, PostVersion::V1),
            2 => (PostType::Window, PostVersion::V1_2),
            _ => {
                return Err(FilecoinError::Unsupported(format!(
                    "{id} is not a RegisteredPoStProof (0..=14)"
                )))
            }
        };
        Self::new(typ, crate::c1::SECTOR_SIZES[(id % 5) as usize], version)
    }

    /// The engine priority of this kind's jobs.
    pub fn priority(&self) -> i32 {
        match self.typ {
            PostType::Winning => WINNING_POST_PRIORITY,
            PostType::Window => WINDOW_POST_PRIORITY,
        }
    }

    /// filecoin-proofs' configuration, as filecoin-proofs-api's
    /// `as_v1_config` makes it.
    pub fn post_config(&self) -> PoStConfig {
        let api_version = match self.version {
            PostVersion::V1 => ApiVersion::V1_0_0,
            PostVersion::V1_2 => ApiVersion::V1_2_0,
        };
        let (typ, challenge_count, sector_count) = match self.typ {
            PostType::Winning => (
                PoStType::Winning,
                filecoin_proofs::WINNING_POST_CHALLENGE_COUNT,
                filecoin_proofs::WINNING_POST_SECTOR_COUNT,
            ),
            PostType::Window => (
                PoStType::Window,
                filecoin_proofs::WINDOW_POST_CHALLENGE_COUNT,
                window_sector_count(self.sector_size),
            ),
        };
        PoStConfig {
            sector_size: SectorSize(self.sector_size),
            challenge_count,
            sector_count,
            typ,
            priority: true,
            api_version,
        }
    }

    /// filecoin-proofs' vanilla parameters of one partition circuit.
    pub(super) fn vanilla_params(&self) -> Result<fallback::PublicParams> {
        let config = self.post_config();
        let setup = match self.typ {
            PostType::Winning => winning_post_setup_params(&config).map_err(proofs)?,
            PostType::Window => window_post_setup_params(&config),
        };
        Ok(fallback::PublicParams {
            sector_size: setup.sector_size,
            challenge_count: setup.challenge_count,
            sector_count: setup.sector_count,
            api_version: setup.api_version,
        })
    }

    /// Sectors per WindowPoSt partition (1 for WinningPoSt).
    pub fn sectors_per_partition(&self) -> usize {
        self.post_config().sector_count
    }

    /// Partitions of a proof over `sectors` sectors.
    pub fn partitions(&self, sectors: usize) -> usize {
        match self.typ {
            PostType::Winning => 1,
            PostType::Window => sectors.div_ceil(self.sectors_per_partition()).max(1),
        }
    }
}

fn window_sector_count(size: u64) -> usize {
    filecoin_proofs::WINDOW_POST_SECTOR_COUNT
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .get(&size)
        .copied()
        .unwrap_or(1)
}
