//! What kernel operations and DMAs act on: the NPU_SET_* registers, memory,
//! each core's shared buffer and the run's statistics; and what an operation
//! leaves behind (its record) or why it cannot run.

use crate::access::OperationAccess;
use crate::floor::{Floor, FloorInput, RateFacts};
use crate::footprint::{largest_safe_blockdep, BlockFootprints};
use crate::tensor::FeatureMap;
use npu_arch::command::{Opcode, COMMANDS};
use npu_arch::config::NpuConfig;
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::ptr::NonNull;

/// Number of base-pointer regions a stream can name (TRM 4.3: region fields are 3 bits).
pub const NUM_REGIONS: usize = 8;

/// Why an operation cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpError {
    /// A bus error on hardware: STATUS.bus_status with `channel` as
    /// STATUS.faulting_channel (`npu_arch::regs::faulting_channel`).
    #[error("{what}: bytes [{start:#x}, {end:#x}) are outside region {region} ({size} bytes)")]
    OutOfRange {
        what: String,
        channel: u32,
        region: usize,
        start: i64,
        end: i64,
        size: usize,
    },
    #[error(
        "{what}: shared-buffer bytes [{start:#x}, {end:#x}) are outside core {core}'s {size} bytes"
    )]
    ShramOutOfRange {
        what: String,
        core: usize,
        start: i64,
        end: i64,
        size: usize,
    },
    #[error("forbidden by {rule}: {detail}")]
    Forbidden { rule: &'static str, detail: String },
    #[error("bad parameter: {0}")]
    BadParam(String),
    #[error("weight stream: {0}")]
    Weights(String),
    /// Beyond what the golden model can compute (a size limit of its own).
    #[error("not modelled: {0}")]
    Unsupported(String),
    /// A command the TRM allows but leaves undefined, which this NPU
    /// refuses (STATUS.cmd_parse_error) rather than guess at.
    #[error("not implemented by this NPU: {0}")]
    NotImplemented(String),
    /// The TRM makes the result UNPREDICTABLE (e.g. TRM 4.6.3: a DMA reading
    /// bytes an unfinished DMA writes); the job runner refuses such streams.
    #[error("UNPREDICTABLE by {rule}: {detail}")]
    Unpredictable { rule: &'static str, detail: String },
}

impl OpError {
    /// What the NPU does on this error: `None` where the error is the
    /// model's (not modelled) or the stream is refused before it runs.
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            OpError::OutOfRange { .. } => Some(Outcome::BusError),
            OpError::BadParam(_)
            | OpError::Forbidden { .. }
            | OpError::Weights(_)
            | OpError::NotImplemented(_) => Some(Outcome::ParseError),
            OpError::ShramOutOfRange { .. }
            | OpError::Unsupported(_)
            | OpError::Unpredictable { .. } => None,
        }
    }

    /// True for the errors a job runner refuses a stream for before running
    /// it, as the Linux accel/ethosu driver checks every stream's buffers:
    /// accesses outside the job's memory and UNPREDICTABLE programming.
    pub fn refused_by_runner(&self) -> bool {
        matches!(
            self,
            OpError::OutOfRange { .. }
                | OpError::ShramOutOfRange { .. }
                | OpError::Unpredictable { .. }
        )
    }
}

/// How the NPU stops on an error (TRM 4.2.2 STATUS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// STATUS.cmd_parse_error: a command the NPU refuses.
    ParseError,
    /// STATUS.bus_status with the faulting channel and interface.
    BusError,
}

/// Base-pointer regions: region `i`'s bytes start at BASEP\[i\] and every
/// stream address is a byte offset into it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Memory {
    regions: Vec<Region>,
    /// Bytes read and written so far, for the per-operation records.
    traffic: Cell<Traffic>,
}

/// A region's bytes: its own, or a view of a device's memory (regions whose
/// base pointers fall in one window see the same bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Region {
    Owned(Vec<u8>),
    View {
        ptr: NonNull<u8>,
        len: usize,
    },
    /// A size without bytes: the stream checker's regions, which nothing
    /// reads or writes.
    Unbacked(usize),
}

impl Default for Region {
    fn default() -> Self {
        Region::Owned(Vec::new())
    }
}

impl Region {
    fn bytes(&self) -> &[u8] {
        match self {
            Region::Owned(v) => v,
            // SAFETY: `Memory::set_view`'s caller keeps the bytes valid.
            Region::View { ptr, len } => unsafe { std::slice::from_raw_parts(ptr.as_ptr(), *len) },
            Region::Unbacked(_) => &[],
        }
    }

    fn len(&self) -> usize {
        match self {
            Region::Unbacked(len) => *len,
            other => other.bytes().len(),
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Region::Owned(v) => v,
            // SAFETY: as in `bytes`; the memory is borrowed mutably, so no
            // other region's slice is alive.
            Region::View { ptr, len } => unsafe {
                std::slice::from_raw_parts_mut(ptr.as_ptr(), *len)
            },
            Region::Unbacked(_) => &mut [],
        }
    }
}

/// Bytes moved between the NPU and memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traffic {
    pub read: u64,
    pub written: u64,
}

impl Memory {
    pub fn new() -> Memory {
        Memory {
            regions: vec![Region::default(); NUM_REGIONS],
            traffic: Cell::default(),
        }
    }
    /// Bytes read and written since the memory was made.
    pub fn traffic(&self) -> Traffic {
        self.traffic.get()
    }
    /// Count `len` bytes read by a caller that reads a region's bytes directly.
    pub(crate) fn count_read(&self, len: usize) {
        let t = self.traffic.get();
        self.traffic.set(Traffic {
            read: t.read + len as u64,
            ..t
        });
    }
    /// Replace region `index`'s bytes.
    pub fn set_region(&mut self, index: usize, bytes: Vec<u8>) -> Result<(), OpError> {
        *self.slot(index)? = Region::Owned(bytes);
        Ok(())
    }

    /// Makes region `index` the `len` bytes at `ptr`, read and written in
    /// place: a device's memory from the region's base pointer on.
    ///
    /// # Safety
    /// The bytes must be valid for reads and writes, and touched by nothing
    /// but this memory, while the region views them (until the next
    /// `set_region` or `set_view` of `index`, or the memory's drop).
    pub unsafe fn set_view(
        &mut self,
        index: usize,
        ptr: NonNull<u8>,
        len: usize,
    ) -> Result<(), OpError> {
        *self.slot(index)? = Region::View { ptr, len };
        Ok(())
    }

    /// Makes region `index` `len` bytes long without bytes of its own: an
    /// access is checked against the size, and a read or write of it is an
    /// error (the stream checker's regions).
    pub fn set_unbacked(&mut self, index: usize, len: usize) -> Result<(), OpError> {
        *self.slot(index)? = Region::Unbacked(len);
        Ok(())
    }

    /// Region `index`'s size in bytes.
    pub fn region_len(&self, index: usize) -> usize {
        self.regions.get(index).map_or(0, Region::len)
    }

    fn slot(&mut self, index: usize) -> Result<&mut Region, OpError> {
        self.regions
            .get_mut(index)
            .ok_or_else(|| OpError::BadParam(format!("region {index} is not 0-7")))
    }

    /// Region `index`'s bytes (empty if never set).
    pub fn region(&self, index: usize) -> &[u8] {
        self.regions.get(index).map_or(&[], |r| r.bytes())
    }

    pub(crate) fn check(
        &self,
        channel: u32,
        what: &str,
        region: usize,
        start: i64,
        len: usize,
    ) -> Result<(), OpError> {
        let size = self.region_len(region);
        let end = start.saturating_add(len as i64);
        if region >= NUM_REGIONS || start < 0 || end > size as i64 {
            return Err(OpError::OutOfRange {
                what: what.to_string(),
                channel,
                region,
                start,
                end,
                size,
            });
        }
        Ok(())
    }
    /// `len` bytes at `start` of `region`, read by the DMA channel
    /// `channel` (its STATUS.faulting_channel code).
    pub fn read(
        &self,
        channel: u32,
        what: &str,
        region: usize,
        start: i64,
        len: usize,
    ) -> Result<&[u8], OpError> {
        self.check(channel, what, region, start, len)?;
        self.backed(region)?;
        self.count_read(len);
        Ok(&self.regions[region].bytes()[start as usize..start as usize + len])
    }
    /// Mutable `len` bytes at `start` of `region`, for channel `channel`.
    pub fn write(
        &mut self,
        channel: u32,
        what: &str,
        region: usize,
        start: i64,
        len: usize,
    ) -> Result<&mut [u8], OpError> {
        self.check(channel, what, region, start, len)?;
        self.backed(region)?;
        let t = self.traffic.get();
        self.traffic.set(Traffic {
            written: t.written + len as u64,
            ..t
        });
        Ok(&mut self.regions[region].bytes_mut()[start as usize..start as usize + len])
    }
}

impl Memory {
    fn backed(&self, region: usize) -> Result<(), OpError> {
        match self.regions[region] {
            Region::Unbacked(_) => Err(OpError::Unsupported(format!(
                "region {region} has a size but no bytes (a stream check reads and writes nothing)"
            ))),
            _ => Ok(()),
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Commands executed.
    pub commands: usize,
    /// Kernel operations by TRM name.
    pub ops: BTreeMap<&'static str, usize>,
    /// NPU_OP_DMA_START count.
    pub dma_ops: usize,
    /// Bytes moved by user DMA.
    pub dma_bytes: u64,
    /// Multiply-accumulates of convolutions, depthwise convolutions and
    /// pools, as Vela's per-layer report counts them (elementwise
    /// operations none).
    pub macs: u64,
    /// IRQs raised (NPU_OP_IRQ and NPU_OP_STOP).
    pub irqs: usize,
    /// NPU_OP_STOP was reached.
    pub stopped: bool,
    /// Byte ranges of every core's shared buffer that kernel operations
    /// used as working memory (TRM 4.9.1 table 4-136: the output and IFM
    /// buffers below IFM_IB_END). What they hold after a run is the
    /// hardware's business, so they are not compared.
    pub shram_scratch: Vec<std::ops::Range<usize>>,
    /// Every kernel operation and DMA that ran, in stream order.
    pub layers: Vec<OpRecord>,
    /// Each kernel operation that passed the operation rules (and so began
    /// to run), with its command's offset: what its block operations read
    /// and write (TRM 4.9), when the run records them
    /// (`Npu::record_footprints`).
    pub footprints: Vec<(usize, BlockFootprints)>,
    /// Each kernel operation and DMA that passed its rules, with the bytes
    /// it reads and writes, when the run records them (`crate::check`).
    pub accesses: Vec<OperationAccess>,
}

/// A feature map's height, width and depth.
pub type Shape = [usize; 3];

/// One kernel operation or DMA of a run: a row of the per-layer report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OpRecord {
    /// Byte offset of the operation's command in the stream.
    pub offset: usize,
    /// TRM name, with the pooling or elementwise mode (`NPU_OP_POOL MAX`).
    pub kind: String,
    /// The IFM extent the operation reads (before upscaling).
    pub ifm: Option<Shape>,
    /// The IFM2 extent of a binary elementwise operation (after broadcast
    /// dimensions collapse to 1; none for a scalar).
    pub ifm2: Option<Shape>,
    pub ofm: Option<Shape>,
    /// Where the OFM's elements lie in memory (to name the element of a
    /// differing byte); not a column of the report.
    #[serde(skip)]
    pub ofm_layout: Option<FeatureMap>,
    /// Kernel height and width (before dilation).
    pub kernel: Option<[usize; 2]>,
    pub macs: u64,
    /// Bytes read from and written to the base-pointer regions (a DMA into
    /// the shared buffer writes no region but counts as written).
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Clock cycles from the operation's start to its end, from a timed
    /// backend (the golden model has none).
    pub cycles: Option<u64>,
    /// Bytes each AXI port (M0, M1) moved for the operation, from a timed
    /// backend.
    pub ports: Option<[PortBytes; 2]>,
    /// The least cycles the operation could take on the timed backend's
    /// memory ([`crate::floor`]).
    pub floor: Option<Floor>,
    /// A kernel operation's settings its floor depends on.
    #[serde(skip)]
    pub rate_facts: Option<RateFacts>,
    /// An operator Vela left on the CPU, which the host ran (`kind` is its
    /// TFLite name; no offset, region bytes, cycles or ports).
    pub on_cpu: bool,
    /// Such an operator's tensors.
    pub host: Option<HostTensors>,
}

impl OpRecord {
    /// What [`crate::floor::floors`] reads of the row.
    pub fn floor_input(&self) -> FloorInput {
        FloorInput {
            offset: self.offset,
            on_cpu: self.on_cpu,
            rate_facts: self.rate_facts,
            ofm: self.ofm,
            macs: self.macs,
        }
    }
}

/// The tensors of an operator the host ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HostTensors {
    /// Shapes of its inputs and outputs, in operand order.
    pub inputs: Vec<Vec<usize>>,
    pub outputs: Vec<Vec<usize>>,
    /// Elements it wrote.
    pub elements: u64,
    /// Bytes of its tensors it read and wrote (host memory, not the NPU's).
    pub bytes_read: u64,
    pub bytes_written: u64,
}

/// Bytes one AXI port read and wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PortBytes {
    pub read: u64,
    pub written: u64,
}

impl RunStats {
    /// Total kernel operations.
    pub fn kernel_ops(&self) -> usize {
        self.ops.values().sum()
    }
}

/// The state the command stream sets up for kernel operations and DMAs.
#[derive(Debug, Clone)]
pub struct NpuState {
    pub config: NpuConfig,
    pub memory: Memory,
    /// Each core's shared buffer (TRM 4.9.1); the LUT lives in its last 2 KB.
    pub shram: Vec<Vec<u8>>,
    pub stats: RunStats,
    /// The value of every NPU_SET_* command, by opcode.
    pub(crate) regs: Vec<u64>,
    /// Decode and check each kernel operation against TRM 4.8.2's rules
    /// without computing it (`Npu::check_rules`).
    pub(crate) rules_only: bool,
    /// Give each kernel operation's record its block footprints.
    pub(crate) footprints: bool,
    /// Record each operation's accesses in `stats.accesses`, and move no
    /// data (the stream checker's run).
    pub(crate) accesses: bool,
    /// Which NPU_SET_* commands the stream has given, by opcode.
    pub(crate) given: Vec<bool>,
    /// When tracked: the NPU_SET_* commands an operation read that the
    /// stream never gave (`crate::check`).
    pub(crate) unset_reads: Option<RefCell<BTreeSet<Opcode>>>,
    /// An NPU_OP_KERNEL_WAIT 0 came after the last kernel operation: the
    /// next one starts after it has ended, whatever its BLOCKDEP.
    pub(crate) kernels_drained: bool,
    /// The kernel operations that may still run (the last
    /// `OUTSTANDING_KERNELS_MAX`; none after an NPU_OP_KERNEL_WAIT 0, the
    /// last n after NPU_OP_KERNEL_WAIT n): each
    /// one's offset and the shared-buffer bytes it uses (its input buffer,
    /// and the LUT area when its activation is a LUT).
    pub(crate) kernels_in_flight: Vec<(usize, Vec<std::ops::Range<i64>>)>,
}

impl NpuState {
    pub fn new(config: NpuConfig) -> NpuState {
        let cores = config.cores.max(1) as usize;
        let per_core = config.shram_kib as usize * 1024 / cores;
        NpuState {
            memory: Memory::new(),
            shram: vec![vec![0; per_core]; cores],
            stats: RunStats::default(),
            regs: vec![0; COMMANDS.len()],
            rules_only: false,
            footprints: false,
            accesses: false,
            given: vec![false; COMMANDS.len()],
            unset_reads: None,
            kernels_drained: false,
            kernels_in_flight: Vec::new(),
            config,
        }
    }

    pub(crate) fn records_footprints(&self) -> bool {
        self.footprints
    }

    /// Records a kernel operation's block footprints (TRM 4.9) after
    /// checking its NPU_SET_BLOCKDEP against the kernel operation before it:
    /// a BLOCKDEP that lets an IFM block read start before an OFM block
    /// write it reads is UNPREDICTABLE (TRM 4.6.3: the operation's inputs
    /// are not known as it starts), unless an NPU_OP_KERNEL_WAIT 0 came
    /// between them.
    pub(crate) fn record_blocks(
        &mut self,
        offset: usize,
        blocks: BlockFootprints,
    ) -> Result<(), OpError> {
        if let Some((_, before)) = self.stats.footprints.last() {
            let safe = largest_safe_blockdep(before, &blocks);
            if !self.kernels_drained && blocks.blockdep > safe {
                return Err(OpError::Unpredictable {
                    rule: "TRM 4.9 and 4.6.3 (NPU_SET_BLOCKDEP)",
                    detail: format!(
                        "BLOCKDEP {} lets an IFM block read start before an OFM block write of the \
                         kernel operation before it that it reads; at most {safe} keeps every read \
                         behind the writes it needs",
                        blocks.blockdep
                    ),
                });
            }
        }
        self.kernels_drained = false;
        self.stats.footprints.push((offset, blocks));
        Ok(())
    }

    /// Whether kernel operations are only checked (`Npu::check_rules`).
    pub(crate) fn rules_only(&self) -> bool {
        self.rules_only
    }

    /// The value last set by an NPU_SET_* command (its value space, see
    /// `npu_arch::command`), 0 if never set.
    pub fn reg(&self, op: Opcode) -> u64 {
        if let Some(unset) = &self.unset_reads {
            if !self.given[op as usize] {
                unset.borrow_mut().insert(op);
            }
        }
        self.regs[op as usize]
    }

    /// One named field of a command's value.
    pub(crate) fn field(&self, op: Opcode, name: &str) -> i64 {
        op.field(name).get(self.reg(op))
    }
}
