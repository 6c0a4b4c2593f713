//! First-mismatch localisation (`npu-sim compare`): a job runs on a
//! reference backend (the golden model) and a candidate (the RTL); when
//! their results differ, the command stream is cut after one kernel
//! operation after another (NPU_OP_STOP appended, so everything up to the
//! cut completes) to find the operation whose output differs first, and the
//! first differing element of its OFM is named with its coordinates.
//!
//! The cut is found by bisection over the kernel operations: a difference
//! in memory, STATUS, QREAD, IRQ or the shared buffer after a prefix is
//! taken to last to the end of every longer prefix. A wrong result that a
//! later operation overwrites with a right one is outside that assumption;
//! the operation reported then still is one whose prefix agrees without it
//! and differs with it.

use crate::cmdstream::{decode, encode, Command};
use crate::job::{Backend, BackendRun, Job};
use crate::state::OpRecord;
use anyhow::{bail, Context, Result};
use npu_arch::command::Opcode;
use npu_arch::regs::STATUS;
use std::fmt;

/// The kernel operation whose output differs first, and how.
#[derive(Debug, Clone)]
pub struct Divergence {
    /// The operation (its golden-model record: offset, kind, shapes), or
    /// `None` when every kernel operation agrees and what follows the last
    /// one (a DMA, the stop) differs.
    pub operation: Option<OpRecord>,
    /// The first differing OFM element (y, x, c) of the operation with the
    /// reference's and the candidate's values, where the first differing
    /// byte is one of its OFM's.
    pub element: Option<([usize; 3], i64, i64)>,
    /// The first difference as [`difference`] words it.
    pub detail: String,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.operation {
            Some(op) => {
                write!(
                    f,
                    "first differing kernel operation: {} at command-stream offset {:#x}",
                    op.kind, op.offset
                )?;
                if let Some([h, w, d]) = op.ofm {
                    write!(f, ", OFM {h}x{w}x{d}")?;
                }
            }
            None => write!(
                f,
                "every kernel operation agrees; the commands after the last one differ"
            )?,
        }
        match self.element {
            Some(([y, x, c], reference, candidate)) => write!(
                f,
                "\nfirst differing OFM element (y {y}, x {x}, c {c}): reference {reference}, candidate {candidate} ({})",
                self.detail
            ),
            None => write!(f, "\n{}", self.detail),
        }
    }
}

/// A kernel operation's command: its offset, the offset just after it, its
/// opcode.
struct KernelCommand {
    offset: usize,
    end: usize,
    op: Opcode,
}

/// The kernel operations of `stream`, in order.
fn kernel_commands(stream: &[u8]) -> Result<Vec<KernelCommand>> {
    let commands = decode(stream).context("the command stream does not decode")?;
    Ok(commands
        .into_iter()
        .filter(|c| c.op.is_kernel_op())
        .map(|c| KernelCommand {
            offset: c.offset,
            // NPU_OP_CONV .. NPU_OP_ELEMENTWISE are cmd0: one word.
            end: c.offset + 4,
            op: c.op,
        })
        .collect())
}

/// `job` with its command stream cut at byte `end` and NPU_OP_STOP appended.
fn prefix(job: &Job, end: usize) -> Job {
    let mut cut = job.clone();
    cut.command_stream.truncate(end);
    cut.command_stream
        .extend(encode(&[Command::cmd0(Opcode::NpuOpStop, 0xffff)]));
    cut
}

/// The first byte in which two runs' regions differ: (region, offset).
fn first_region_difference(
    reference: &BackendRun,
    candidate: &BackendRun,
) -> Option<(usize, usize)> {
    reference.regions.iter().find_map(|(&k, r)| {
        let c = candidate.regions.get(&k)?;
        r.iter().zip(c).position(|(a, b)| a != b).map(|i| (k, i))
    })
}

/// The OFM element of `op` that holds byte `offset` of region `region`, with
/// the reference's and the candidate's values of it.
fn ofm_element(
    op: &OpRecord,
    (region, offset): (usize, usize),
    reference: &BackendRun,
    candidate: &BackendRun,
) -> Option<([usize; 3], i64, i64)> {
    let (layout, [h, w, d]) = (op.ofm_layout.as_ref()?, op.ofm?);
    if layout.region != region {
        return None;
    }
    let bytes = layout.dtype.bytes();
    for y in 0..h {
        for x in 0..w {
            for c in 0..d {
                let start = layout.offset(y, x, c);
                if start >= 0 && (start as usize..start as usize + bytes).contains(&offset) {
                    let value = |run: &BackendRun| {
                        layout.dtype.load(&run.regions[&region][start as usize..])
                    };
                    return Some(([y, x, c], value(reference), value(candidate)));
                }
            }
        }
    }
    None
}

/// Runs `job` on both backends; `None` when they agree, else where they
/// first differ. `progress` hears of each run (its number, the runs at most).
pub fn first_divergence(
    job: &Job,
    reference: &mut dyn Backend,
    candidate: &mut dyn Backend,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Option<Divergence>> {
    let kernels = kernel_commands(&job.command_stream)?;
    // The whole stream, then a bisection over kernels.len() + 1 prefixes.
    let most = 1 + (kernels.len() + 1).next_power_of_two().ilog2() as usize;
    let mut runs = 0;
    let mut run_both = |job: &Job| -> Result<(BackendRun, BackendRun)> {
        runs += 1;
        progress(runs, most);
        let r = reference
            .run(job, &mut |_, _| {})
            .with_context(|| format!("the {} backend", reference.name()))?;
        let c = candidate
            .run(job, &mut |_, _| {})
            .with_context(|| format!("the {} backend", candidate.name()))?;
        Ok((r, c))
    };
    let (whole_reference, whole_candidate) = run_both(job)?;
    if difference(&whole_reference, &whole_candidate).is_none() {
        return Ok(None);
    }
    // Bisection: prefix `agree` agrees (-1: the empty one), prefix `differ`
    // differs (kernels.len(): the whole stream).
    let (mut agree, mut differ) = (-1isize, kernels.len() as isize);
    let mut differing = (whole_reference, whole_candidate);
    while differ - agree > 1 {
        let mid = (agree + differ) / 2;
        let runs_of_mid = run_both(&prefix(job, kernels[mid as usize].end))?;
        if difference(&runs_of_mid.0, &runs_of_mid.1).is_some() {
            differ = mid;
            differing = runs_of_mid;
        } else {
            agree = mid;
        }
    }
    let (reference_run, candidate_run) = differing;
    let Some(detail) = difference(&reference_run, &candidate_run) else {
        bail!("the runs differed and then agreed: a backend is not deterministic");
    };
    // The golden model's record of the operation (none if it refused it).
    let operation = kernels.get(differ as usize).map(|k| {
        reference_run
            .layers
            .iter()
            .find(|l| l.offset == k.offset)
            .cloned()
            .unwrap_or_else(|| OpRecord {
                offset: k.offset,
                kind: k.op.name().to_string(),
                ..OpRecord::default()
            })
    });
    let element = match (
        &operation,
        first_region_difference(&reference_run, &candidate_run),
    ) {
        (Some(op), Some(at)) => ofm_element(op, at, &reference_run, &candidate_run),
        _ => None,
    };
    Ok(Some(Divergence {
        operation,
        element,
        detail,
    }))
}

/// How a run ended, by STATUS.
pub fn outcome(run: &BackendRun) -> &'static str {
    let field = |name: &str| STATUS.field(name).get(run.status) != 0;
    if field("bus_status") {
        "a bus error"
    } else if field("cmd_parse_error") {
        "a parse error"
    } else if run.stop_reached {
        "NPU_OP_STOP"
    } else if field("cmd_end_reached") {
        "the end of the stream (no NPU_OP_STOP)"
    } else {
        "a stop without NPU_OP_STOP or the end of the stream"
    }
}

/// STATUS, QREAD and IRQ of a run, in words.
pub fn summary(run: &BackendRun) -> String {
    format!(
        "STATUS {}, QREAD {:#x}, IRQ {}",
        npu_arch::regs::describe_status(run.status),
        run.qread,
        u8::from(run.irq)
    )
}

/// What differs between two runs (STATUS, QREAD, IRQ, memory, the shared
/// buffer but its scratch), if anything.
pub fn difference(golden: &BackendRun, rtl: &BackendRun) -> Option<String> {
    if (golden.status, golden.qread, golden.irq) != (rtl.status, rtl.qread, rtl.irq) {
        let fault = golden
            .fault
            .as_ref()
            .map_or(String::new(), |f| format!(" ({f})"));
        return Some(format!(
            "golden {}{fault}; rtl {}",
            summary(golden),
            summary(rtl)
        ));
    }
    for (k, g) in &golden.regions {
        let r = &rtl.regions[k];
        if let Some(i) = g.iter().zip(r).position(|(a, b)| a != b) {
            return Some(format!(
                "region {k} byte {i:#x}: golden {:#04x}, rtl {:#04x}",
                g[i], r[i]
            ));
        }
    }
    let scratch = |i: usize| golden.shram_scratch.iter().any(|r| r.contains(&i));
    for (core, (g, r)) in golden.shram.iter().zip(&rtl.shram).enumerate() {
        if let Some(i) = (0..g.len()).find(|&i| g[i] != r[i] && !scratch(i)) {
            return Some(format!(
                "shared buffer of core {core} byte {i:#x}: golden {:#04x}, rtl {:#04x}",
                g[i], r[i]
            ));
        }
    }
    None
}
