//! What an operation touches: the bytes each of its tensors reads or writes
//! in each base-pointer region, as the golden model records them for the
//! stream checker, the floor and the bounds watcher.

use crate::footprint::joined;
use serde::Serialize;
use std::ops::Range;

/// What an access is to its operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Ifm,
    Ifm2,
    Ofm,
    /// Core `core`'s weight stream.
    Weights {
        core: usize,
    },
    /// Core `core`'s scale and bias stream.
    Scales {
        core: usize,
    },
    DmaSource,
    DmaDestination,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Role::Ifm => write!(f, "IFM"),
            Role::Ifm2 => write!(f, "IFM2"),
            Role::Ofm => write!(f, "OFM"),
            Role::Weights { core } => write!(f, "weight stream {core}"),
            Role::Scales { core } => write!(f, "scale stream {core}"),
            Role::DmaSource => write!(f, "DMA source"),
            Role::DmaDestination => write!(f, "DMA destination"),
        }
    }
}

/// The bytes one tensor of an operation reads or writes in one region, as
/// offsets from the region's base (sorted, joined; signed as computed, so
/// a negative stride shows where it lands).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Access {
    pub role: Role,
    pub region: usize,
    pub write: bool,
    pub bytes: Vec<Range<i64>>,
}

impl Access {
    pub fn read(role: Role, region: usize, bytes: Vec<Range<i64>>) -> Access {
        Access {
            role,
            region,
            write: false,
            bytes: joined(bytes),
        }
    }

    pub fn write(role: Role, region: usize, bytes: Vec<Range<i64>>) -> Access {
        Access {
            write: true,
            ..Access::read(role, region, bytes)
        }
    }
}

/// One kernel operation or DMA and what it touches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OperationAccess {
    /// Byte offset of its command in the stream.
    pub offset: usize,
    /// Its TRM name, with the mode (`NPU_OP_POOL MAX`).
    pub operation: String,
    pub accesses: Vec<Access>,
}
