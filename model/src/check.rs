//! The command-stream checker: the bytes each kernel operation and DMA of a
//! stream may read and write in each base-pointer region, their union per
//! region, and a verdict against the regions' sizes. The NPU is a bus
//! master with no MPU of its own; this is what a kernel driver needs before
//! it hands a stream over (`docs/stream-checker.md`).
//!
//! The stream runs on the golden model in a mode that computes nothing and
//! moves no data. Each kernel operation passes the operation rules (TRM
//! 4.8.2) and gives its feature maps' bytes (the union of its block
//! footprints, TRM 4.9: tiles, layouts, strides, padding, broadcast; no
//! bytes for a scalar IFM2) and its weight and scale streams (base and
//! length, per core); each DMA its source and destination rows. Whatever
//! the golden model refuses (a reserved value, an UNPREDICTABLE case, a
//! parse error) refuses the stream at that command, as does an operation
//! reading an NPU_SET_* register the stream never set.

use crate::access::OperationAccess;
use crate::cmdstream::{bytes_to_words, decode_one, Command};
use crate::footprint::joined;
use crate::npu::{Flow, ModelError, Npu};
use crate::state::OpError;
use npu_arch::command::Opcode;
use npu_arch::config::NpuConfig;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

/// What the checker refuses beyond what the NPU itself refuses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Policy {
    /// Bounds, rules and registers: every stream the NPU runs within its
    /// regions passes.
    #[default]
    Npu,
    /// Also what a shared NPU's kernel refuses (the hardened Linux
    /// validator, `../shared/DRIVERS.md` §2): NPU_OP_IRQ (the kernel owns
    /// the interrupt), an NPU_OP_STOP that is not the stream's last word,
    /// and a stream without one.
    Kernel,
}

/// What to check a stream against.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    pub config: NpuConfig,
    /// Each region's size in bytes; a region not given has none.
    pub region_sizes: BTreeMap<usize, u64>,
    pub policy: Policy,
}

/// Everything a stream's operations touch in one region.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegionUse {
    pub region: usize,
    pub size: u64,
    pub read: Vec<Range<i64>>,
    pub written: Vec<Range<i64>>,
}

/// A stream that passed: each operation's accesses and their union per
/// region.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamCheck {
    pub operations: Vec<OperationAccess>,
    pub regions: Vec<RegionUse>,
}

/// Why a stream is refused: the command, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("command at byte {offset:#x} ({command}): {reason}")]
pub struct Refusal {
    pub offset: usize,
    /// Its TRM name (with the mode for a kernel operation).
    pub command: String,
    pub kind: RefusalKind,
    pub reason: String,
}

/// The rule a refused stream breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalKind {
    /// Not a command stream: a cut-off command, an unknown opcode.
    Stream,
    /// The region sizes given cannot be regions.
    Regions,
    /// What the NPU itself refuses or the TRM calls UNPREDICTABLE.
    Rules,
    /// A register the stream never set.
    Unset,
    /// An access outside its region.
    Bounds,
    /// What only the kernel policy refuses.
    Policy,
}

impl RefusalKind {
    pub fn describe(self) -> &'static str {
        match self {
            RefusalKind::Stream => "not a command stream",
            RefusalKind::Regions => "regions that cannot be",
            RefusalKind::Rules => "what the NPU refuses or the TRM calls UNPREDICTABLE",
            RefusalKind::Unset => "a register the stream never set",
            RefusalKind::Bounds => "an access outside its region",
            RefusalKind::Policy => "what the kernel policy refuses",
        }
    }
}

/// Checks `stream` (little-endian command words) against `options`.
pub fn check_stream(stream: &[u8], options: &CheckOptions) -> Result<StreamCheck, Refusal> {
    match walk(stream, options, true) {
        (check, None) => Ok(check),
        (_, Some(refusal)) => Err(refusal),
    }
}

/// What a run of `stream` after a reset may touch, whether or not the
/// checker would pass it: the accesses of every operation before the first
/// command the NPU itself refuses or stops at (registers the stream never
/// set read as their reset values; operations reaching outside their
/// regions included, as the NPU runs them), and the checker's first
/// refusal. A run of the stream touches at most these bytes.
pub fn accesses_before_refusal(
    stream: &[u8],
    options: &CheckOptions,
) -> (StreamCheck, Option<Refusal>) {
    walk(stream, options, false)
}

/// Runs `stream` in the checker's mode until its end, its NPU_OP_STOP or
/// the first refusal; gives what the operations before that touch. With
/// `verdict`, registers never set are refused and the operations end
/// before the first that reaches outside its region.
fn walk(stream: &[u8], options: &CheckOptions, verdict: bool) -> (StreamCheck, Option<Refusal>) {
    let mut npu = Npu::new(options.config.clone());
    let mut refusal = run_checked(&mut npu, stream, options, verdict).err();
    let mut operations = npu.take_accesses();
    if let Some(r) = &refusal {
        operations.retain(|op| op.offset < r.offset);
    }
    // The first operation reaching outside its region is the verdict's
    // refusal; the NPU itself runs on past it.
    if let Some((at, outside)) = operations
        .iter()
        .enumerate()
        .find_map(|(i, op)| bounds_refusal(op, options).map(|r| (i, r)))
    {
        if verdict {
            operations.truncate(at);
        }
        refusal = Some(outside);
    }
    (union(operations, options), refusal)
}

/// Executes the stream's commands; the first refused one ends it.
fn run_checked(
    npu: &mut Npu,
    stream: &[u8],
    options: &CheckOptions,
    refuse_unset: bool,
) -> Result<(), Refusal> {
    let words = bytes_to_words(stream).map_err(|e| Refusal {
        offset: e.offset(),
        command: "(stream)".into(),
        kind: RefusalKind::Stream,
        reason: e.to_string(),
    })?;
    npu.check_accesses(&options.region_sizes)
        .map_err(|e| Refusal {
            offset: 0,
            command: "(regions)".into(),
            kind: RefusalKind::Regions,
            reason: e.to_string(),
        })?;
    let mut at = 0;
    let mut stopped = None;
    while at < words.len() {
        let (cmd, n) = decode_one(&words, at).map_err(|e| Refusal {
            offset: e.offset(),
            command: "(stream)".into(),
            kind: RefusalKind::Stream,
            reason: e.to_string(),
        })?;
        at += n;
        if options.policy == Policy::Kernel && cmd.op == Opcode::NpuOpIrq {
            return Err(refusal(
                &cmd,
                RefusalKind::Policy,
                "the kernel policy refuses NPU_OP_IRQ: the interrupt is the kernel's".into(),
            ));
        }
        let flow = npu.execute(&cmd).map_err(|e| model_refusal(&cmd, e))?;
        let unset = npu.take_unset_reads();
        if refuse_unset && !unset.is_empty() {
            return Err(refusal(&cmd, RefusalKind::Unset, unset_reason(&unset)));
        }
        if flow == Flow::Stop {
            stopped = Some((cmd, at * 4));
            break;
        }
    }
    if options.policy == Policy::Kernel {
        match &stopped {
            None => {
                return Err(Refusal {
                    offset: stream.len(),
                    command: "(end of stream)".into(),
                    kind: RefusalKind::Policy,
                    reason: "the kernel policy refuses a stream without NPU_OP_STOP".into(),
                })
            }
            Some((stop, end)) if *end != stream.len() => {
                return Err(refusal(
                    stop,
                    RefusalKind::Policy,
                    format!(
                        "the kernel policy refuses an NPU_OP_STOP that is not the last word: {} \
                         bytes follow it",
                        stream.len() - end
                    ),
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The refusal of an operation with an access outside its region.
fn bounds_refusal(op: &OperationAccess, options: &CheckOptions) -> Option<Refusal> {
    op.accesses.iter().find_map(|a| {
        let size = options.region_sizes.get(&a.region).copied().unwrap_or(0);
        let outside = outside(&a.bytes, size)?;
        Some(Refusal {
            offset: op.offset,
            command: op.operation.clone(),
            kind: RefusalKind::Bounds,
            reason: format!(
                "its {} {} region {} bytes [{}, {}): byte {} is outside the region's {size} bytes",
                a.role,
                if a.write { "writes" } else { "reads" },
                a.region,
                signed_hex(outside.start),
                signed_hex(outside.end),
                signed_hex(first_outside(&outside, size)),
            ),
        })
    })
}

/// The operations' accesses with their union per region.
fn union(operations: Vec<OperationAccess>, options: &CheckOptions) -> StreamCheck {
    // Each region's reads and writes.
    let mut regions: BTreeMap<usize, [Vec<Range<i64>>; 2]> = BTreeMap::new();
    for a in operations.iter().flat_map(|op| &op.accesses) {
        let entry = regions.entry(a.region).or_default();
        let side = &mut entry[a.write as usize];
        side.extend(a.bytes.iter().cloned());
    }
    StreamCheck {
        operations,
        regions: regions
            .into_iter()
            .map(|(region, [read, written])| RegionUse {
                region,
                size: options.region_sizes.get(&region).copied().unwrap_or(0),
                read: joined(read),
                written: joined(written),
            })
            .collect(),
    }
}

/// The first of `bytes` (sorted) not inside `0..size`.
fn outside(bytes: &[Range<i64>], size: u64) -> Option<Range<i64>> {
    bytes
        .iter()
        .find(|r| r.start < 0 || r.end as u64 > size)
        .cloned()
}

fn first_outside(r: &Range<i64>, size: u64) -> i64 {
    if r.start < 0 {
        r.start
    } else {
        r.start.max(size as i64)
    }
}

/// `-0x10` for a byte before the region's base, where `{:#x}` would print
/// its two's complement.
pub fn signed_hex(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", v.unsigned_abs())
    } else {
        format!("{v:#x}")
    }
}

fn refusal(cmd: &Command, kind: RefusalKind, reason: String) -> Refusal {
    Refusal {
        offset: cmd.offset,
        command: cmd.op.name().to_string(),
        kind,
        reason,
    }
}

fn model_refusal(cmd: &Command, e: ModelError) -> Refusal {
    match e {
        ModelError::Command {
            offset,
            name,
            error,
        } => Refusal {
            offset,
            command: name.to_string(),
            kind: match error {
                OpError::OutOfRange { .. } => RefusalKind::Bounds,
                _ => RefusalKind::Rules,
            },
            reason: error.to_string(),
        },
        other => refusal(cmd, RefusalKind::Rules, other.to_string()),
    }
}

fn unset_reason(unset: &BTreeSet<Opcode>) -> String {
    let names: Vec<&str> = unset.iter().map(|op| op.name()).collect();
    format!(
        "it uses {}, which the stream never set: the NPU would run with whatever an earlier \
         stream left there",
        names.join(", ")
    )
}
