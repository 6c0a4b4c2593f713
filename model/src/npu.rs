//! The NPU as a command-stream interpreter: NPU_SET_* state, STOP/IRQ,
//! user DMA and the dispatch of kernel operations (TRM 4.6).

use crate::cmdstream::{bytes_to_words, decode_one, Command, StreamError};
use crate::footprint::{largest_safe_blockdep, BlockFootprints};
use crate::ops;
use crate::tensor::FeatureMap;
use npu_arch::command::{CmdKind, DmaRegionMode, DmaStrideMode, Opcode, COMMANDS};
use npu_arch::command::{DMA_CHANNELS, DMA_CORE_MASK_MAX, DMA_DESCRIPTORS};
use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, counter_port, faulting_channel, DRIVER_REGIONCFG};
use serde::Serialize;
use std::cell::Cell;
use std::collections::BTreeMap;

/// Number of base-pointer regions a stream can name (TRM 4.3: region fields are 3 bits).
pub const NUM_REGIONS: usize = 8;

/// Size of the LUT area at the end of each core's shared buffer (TRM 4.6.4
/// NPU_SET_ACTIVATION: "the last 2KB page of the shared buffer").
pub const LUT_BYTES: usize = 2048;

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
    #[error("not modelled: {0}")]
    Unsupported(String),
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
            OpError::BadParam(_) | OpError::Forbidden { .. } | OpError::Weights(_) => {
                Some(Outcome::ParseError)
            }
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

/// An error while running a stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("parse error: {0}")]
    Stream(#[from] StreamError),
    #[error("byte offset {offset:#x}, {name}: {error}")]
    Command {
        offset: usize,
        name: &'static str,
        error: OpError,
    },
}

impl ModelError {
    /// True when a job runner refuses the stream for this error
    /// ([`OpError::refused_by_runner`]).
    pub fn refused_by_runner(&self) -> bool {
        matches!(self, ModelError::Command { error, .. } if error.refused_by_runner())
    }

    /// Byte offset in the stream of the failing command.
    pub fn offset(&self) -> usize {
        match self {
            ModelError::Stream(e) => e.offset(),
            ModelError::Command { offset, .. } => *offset,
        }
    }
}

/// Base-pointer regions: region `i`'s bytes start at BASEP\[i\] and every
/// stream address is a byte offset into it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Memory {
    regions: Vec<Vec<u8>>,
    /// Bytes read and written so far, for the per-operation records.
    traffic: Cell<Traffic>,
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
            regions: vec![Vec::new(); NUM_REGIONS],
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
        let slot = self
            .regions
            .get_mut(index)
            .ok_or_else(|| OpError::BadParam(format!("region {index} is not 0-7")))?;
        *slot = bytes;
        Ok(())
    }
    /// Region `index`'s bytes (empty if never set).
    pub fn region(&self, index: usize) -> &[u8] {
        self.regions.get(index).map_or(&[], |r| r.as_slice())
    }

    fn check(
        &self,
        channel: u32,
        what: &str,
        region: usize,
        start: i64,
        len: usize,
    ) -> Result<(), OpError> {
        let size = self.region(region).len();
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
        self.count_read(len);
        Ok(&self.regions[region][start as usize..start as usize + len])
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
        let t = self.traffic.get();
        self.traffic.set(Traffic {
            written: t.written + len as u64,
            ..t
        });
        Ok(&mut self.regions[region][start as usize..start as usize + len])
    }
}

/// The model's view of STATUS (TRM 4.2.2); [`NpuStatus::register`] packs it
/// with the field layout of `npu_arch::regs::STATUS`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NpuStatus {
    /// STATUS.state: true = running.
    pub running: bool,
    pub irq_raised: bool,
    /// OR of the masks of NPU_OP_IRQ and NPU_OP_STOP (TRM 4.6.4).
    pub irq_history_mask: u16,
    pub cmd_parse_error: bool,
    pub cmd_end_reached: bool,
    pub bus_status: bool,
    /// STATUS.faulting_channel and faulting_interface of a bus error.
    pub faulting_channel: u32,
    pub faulting_interface: u32,
}

impl NpuStatus {
    /// The STATUS register value.
    pub fn register(&self) -> u32 {
        let set = |v: u32, name: &str, x: u32| -> u32 {
            regs::STATUS
                .fields
                .iter()
                .find(|f| f.name == name)
                .map_or(v, |f| f.set(v, x))
        };
        let mut v = 0;
        v = set(v, "state", self.running as u32);
        v = set(v, "irq_raised", self.irq_raised as u32);
        v = set(v, "bus_status", self.bus_status as u32);
        v = set(v, "cmd_parse_error", self.cmd_parse_error as u32);
        v = set(v, "cmd_end_reached", self.cmd_end_reached as u32);
        v = set(v, "faulting_channel", self.faulting_channel);
        v = set(v, "faulting_interface", self.faulting_interface);
        set(v, "irq_history_mask", self.irq_history_mask as u32)
    }
    /// True when no error bit is set.
    pub fn ok(&self) -> bool {
        !(self.cmd_parse_error || self.bus_status)
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
    /// ([`Npu::record_footprints`]).
    pub footprints: Vec<(usize, BlockFootprints)>,
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
    /// An operator Vela left on the CPU, which the host ran (`kind` is its
    /// TFLite name; no offset, cycles or ports; bytes are its tensors').
    pub on_cpu: bool,
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

/// Control flow after one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// The golden functional model of one NPU.
#[derive(Debug, Clone)]
pub struct Npu {
    pub config: NpuConfig,
    pub memory: Memory,
    /// Each core's shared buffer (TRM 4.9.1); the LUT lives in its last 2 KB.
    pub shram: Vec<Vec<u8>>,
    pub status: NpuStatus,
    pub stats: RunStats,
    /// QREAD (TRM 4.2.7): the byte offset of the first command not yet
    /// completed, or past NPU_OP_STOP once stopped.
    pub qread: usize,
    /// REGIONCFG.region<k>: region k's AXI counter, hence the interface a
    /// bus error on its reads reports (writes are on M0).
    pub regioncfg: [u32; NUM_REGIONS],
    regs: Vec<u64>,
    /// Decode and check each kernel operation against TRM 4.8.2's rules
    /// without computing it ([`Npu::check_rules`]).
    rules_only: bool,
    /// Give each kernel operation's record its block footprints.
    footprints: bool,
    /// An NPU_OP_KERNEL_WAIT 0 came after the last kernel operation: the
    /// next one starts after it has ended, whatever its BLOCKDEP.
    kernels_drained: bool,
}

impl Npu {
    pub fn new(config: NpuConfig) -> Npu {
        let cores = config.cores.max(1) as usize;
        let per_core = config.shram_kib as usize * 1024 / cores;
        Npu {
            memory: Memory::new(),
            shram: vec![vec![0; per_core]; cores],
            status: NpuStatus::default(),
            stats: RunStats::default(),
            qread: 0,
            regioncfg: DRIVER_REGIONCFG,
            regs: vec![0; COMMANDS.len()],
            rules_only: false,
            footprints: false,
            kernels_drained: false,
            config,
        }
    }

    /// Walk a byte stream as [`Npu::run`] does, but check each kernel
    /// operation against the rules (TRM 4.8.2 tables 4-120 to 4-125, 4.6.4)
    /// without computing it: the one rule set, which the test generators ask
    /// too. DMAs still run, so a LUT they load is in place.
    pub fn check_rules(&mut self, stream: &[u8]) -> Result<(), ModelError> {
        self.rules_only = true;
        let result = self.run(stream).map(|_| ());
        self.rules_only = false;
        result
    }

    /// Record each kernel operation's block footprints (TRM 4.9) in
    /// `stats.footprints`, for a BLOCKDEP checker.
    pub fn record_footprints(&mut self) {
        self.footprints = true;
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

    /// Whether kernel operations are only checked ([`Npu::check_rules`]).
    pub(crate) fn rules_only(&self) -> bool {
        self.rules_only
    }

    /// The value last set by an NPU_SET_* command (its value space, see
    /// `npu_arch::command`), 0 if never set.
    pub fn reg(&self, op: Opcode) -> u64 {
        self.regs[op as usize]
    }

    /// One named field of a command's value.
    pub(crate) fn field(&self, op: Opcode, name: &str) -> i64 {
        op.field(name).get(self.reg(op))
    }

    /// Run a byte stream until NPU_OP_STOP or its end (TRM 4.6). Equivalent
    /// to [`Npu::run_with_progress`] without progress.
    pub fn run(&mut self, stream: &[u8]) -> Result<&RunStats, ModelError> {
        self.run_with_progress(stream, &mut |_, _| {})
    }

    /// Run a byte stream; `progress(done_bytes, total_bytes)` is called after
    /// each kernel or DMA operation. Commands are parsed as they execute, as
    /// the hardware does: a parse error stops the NPU with
    /// STATUS.cmd_parse_error after the commands before it have run.
    pub fn run_with_progress(
        &mut self,
        stream: &[u8],
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<&RunStats, ModelError> {
        self.status.running = true;
        self.qread = 0;
        // TRM 4.2.9: QSIZE is a multiple of 4; checked before any fetch.
        let words = bytes_to_words(stream).inspect_err(|_| self.parse_error())?;
        let mut i = 0;
        while i < words.len() {
            self.qread = i * 4;
            let (cmd, n) = decode_one(&words, i).inspect_err(|_| self.parse_error())?;
            i += n;
            let heavy = cmd.op.is_kernel_op() || cmd.op == Opcode::NpuOpDmaStart;
            if self.execute(&cmd)? == Flow::Stop {
                self.qread = i * 4;
                return Ok(&self.stats);
            }
            if heavy {
                progress(i * 4, stream.len());
            }
        }
        // TRM 4.2.2: STATUS.cmd_end_reached; the NPU stops.
        self.qread = stream.len();
        self.status.cmd_end_reached = true;
        self.status.running = false;
        Ok(&self.stats)
    }

    /// TRM 4.2.2: a parse error sets cmd_parse_error, stops and raises IRQ;
    /// QREAD stays at the refused command.
    fn parse_error(&mut self) {
        self.status.cmd_parse_error = true;
        self.status.running = false;
        self.status.irq_raised = true;
    }

    /// A bus error (TRM 4.2.2): bus_status, the faulting channel and
    /// interface, stop, IRQ. The DMA runs beside the command stream, so QREAD
    /// is past the DMA_START that faulted (the hardware may be further on if
    /// commands that do not wait follow it).
    fn bus_error(&mut self, channel: u32, region: usize, next_command: usize) {
        let write = channel == faulting_channel::MEM2MEM_WRITE || channel == faulting_channel::OFM;
        self.status.bus_status = true;
        self.status.faulting_channel = channel;
        self.status.faulting_interface = if write {
            0
        } else {
            counter_port(self.regioncfg.get(region).copied().unwrap_or(0))
        };
        self.status.running = false;
        self.status.irq_raised = true;
        self.qread = next_command;
    }

    /// Execute one command.
    pub fn execute(&mut self, cmd: &Command) -> Result<Flow, ModelError> {
        self.stats.commands += 1;
        let next_command = cmd.offset + if cmd.payload.is_some() { 8 } else { 4 };
        let result = self.execute_op(cmd);
        match result {
            Ok(flow) => Ok(flow),
            Err(error) => {
                match (&error, error.outcome()) {
                    (
                        OpError::OutOfRange {
                            channel, region, ..
                        },
                        Some(Outcome::BusError),
                    ) => self.bus_error(*channel, *region, next_command),
                    (_, Some(Outcome::ParseError)) => self.parse_error(),
                    _ => {}
                }
                Err(ModelError::Command {
                    offset: cmd.offset,
                    name: cmd.op.name(),
                    error,
                })
            }
        }
    }

    fn execute_op(&mut self, cmd: &Command) -> Result<Flow, OpError> {
        if cmd.op.kind() == CmdKind::Cmd1 && cmd.payload.is_none() {
            return Err(OpError::BadParam("cmd1 command without payload".into()));
        }
        // Bits outside every field of the command are reserved: an error
        // rather than a silently aliased value (e.g. region 8).
        let value = cmd.value();
        let reserved = value & !cmd.op.field_mask();
        if reserved != 0 {
            return Err(OpError::BadParam(format!(
                "value {value:#x} sets reserved bits {reserved:#x}"
            )));
        }
        match cmd.op {
            // TRM 4.6.4: NPU_OP_STOP sets STATUS |= mask<<16, stops, raises
            // IRQ; like NPU_OP_IRQ only once every earlier operation completed.
            Opcode::NpuOpStop => {
                self.irq(cmd.param);
                self.status.running = false;
                self.stats.stopped = true;
                return Ok(Flow::Stop);
            }
            // TRM 4.6.4: NPU_OP_IRQ sets STATUS |= mask<<16, raises IRQ, keeps running.
            Opcode::NpuOpIrq => self.irq(cmd.param),
            Opcode::NpuOpDmaStart => {
                if cmd.param >> 4 >= DMA_CHANNELS {
                    return Err(OpError::BadParam(format!(
                        "NPU_OP_DMA_START {}: only channel 0 exists (TRM 4.6.4)",
                        cmd.param
                    )));
                }
                let before = self.memory.traffic();
                let bytes = self.dma_start()?;
                let after = self.memory.traffic();
                self.stats.layers.push(OpRecord {
                    offset: cmd.offset,
                    kind: cmd.op.name().to_string(),
                    bytes_read: after.read - before.read,
                    bytes_written: bytes,
                    ..OpRecord::default()
                });
            }
            // Waits are satisfied at once in an untimed model: every earlier
            // operation has completed. Their parameters are still checked.
            Opcode::NpuOpDmaWait => {
                if cmd.param >> 4 >= DMA_CHANNELS || cmd.param & 0xf >= DMA_DESCRIPTORS {
                    return Err(OpError::BadParam(format!(
                        "NPU_OP_DMA_WAIT {}: channel must be 0 and k 0 or 1 (TRM 4.6.4)",
                        cmd.param
                    )));
                }
            }
            Opcode::NpuOpKernelWait => self.kernels_drained |= cmd.param == 0,
            Opcode::NpuOpPmuMask => {}
            Opcode::NpuOpConv
            | Opcode::NpuOpDepthwise
            | Opcode::NpuOpPool
            | Opcode::NpuOpElementwise => {
                let (before, macs) = (self.memory.traffic(), self.stats.macs);
                let ib_end = self.field(Opcode::NpuSetIfmIbEnd, "ib_end_kb") as usize * 1024;
                self.stats.shram_scratch.push(0..ib_end);
                let mut record = ops::run_kernel(self, cmd)?;
                *self.stats.ops.entry(cmd.op.name()).or_default() += 1;
                let after = self.memory.traffic();
                record.offset = cmd.offset;
                record.macs = self.stats.macs - macs;
                record.bytes_read = after.read - before.read;
                record.bytes_written = after.written - before.written;
                self.stats.layers.push(record);
            }
            op => self.regs[op as usize] = value,
        }
        Ok(Flow::Continue)
    }

    /// NPU_OP_IRQ and NPU_OP_STOP (TRM 4.6.4).
    fn irq(&mut self, mask: u16) {
        self.status.irq_history_mask |= mask;
        self.status.irq_raised = true;
        self.stats.irqs += 1;
    }

    /// TRM 4.6.4 NPU_OP_DMA_START, TRM 4.6.5 NPU_SET_DMA0_*: copy
    /// LEN bytes (1D), SIZE0 rows of LEN (2D) or SIZE1 planes of SIZE0 rows
    /// (3D). On a side in 2D/3D mode SKIP0 bytes are skipped after each row
    /// (TRM 4.6.5 "byte distance to skip after each inner transfer") and a
    /// plane starts SKIP1 bytes after LEN*SIZE0 (see `row_starts`); the other
    /// side is contiguous. A destination with region bit 8 set
    /// is the shared buffer of each core in the mask (how LUTs are loaded).
    ///
    /// The descriptor is checked first, as the hardware does when it decodes
    /// the command (errors are parse errors): an external source, regions
    /// 0-7, stride modes 0-2, a core mask of 1-3. Returns the bytes moved.
    fn dma_start(&mut self) -> Result<u64, OpError> {
        let src_region = self.field(Opcode::NpuSetDma0SrcRegion, "region") as usize;
        let src_mode = self.field(Opcode::NpuSetDma0SrcRegion, "region_mode") as u32;
        let src_stride = self.field(Opcode::NpuSetDma0SrcRegion, "stride_mode") as u32;
        let dst_region = self.field(Opcode::NpuSetDma0DstRegion, "region") as usize;
        let dst_mode = self.field(Opcode::NpuSetDma0DstRegion, "region_mode") as u32;
        let dst_stride = self.field(Opcode::NpuSetDma0DstRegion, "stride_mode") as u32;
        if DmaRegionMode::from_bits(src_mode) != Some(DmaRegionMode::External) {
            return Err(OpError::Forbidden {
                rule: "TRM 4.6.4 NPU_SET_DMA0_SRC_REGION",
                detail: "source bit 8 must be 0 (external)".into(),
            });
        }
        let stride_mode = |v: u32, which: &str| {
            DmaStrideMode::from_bits(v).ok_or_else(|| {
                OpError::BadParam(format!("DMA {which} stride mode {v} is not 0-2 (1D/2D/3D)"))
            })
        };
        let src_stride = stride_mode(src_stride, "source")?;
        let dst_stride = stride_mode(dst_stride, "destination")?;
        let internal = DmaRegionMode::from_bits(dst_mode) == Some(DmaRegionMode::Internal);
        if src_region >= NUM_REGIONS || (!internal && dst_region >= NUM_REGIONS) {
            return Err(OpError::BadParam(format!(
                "DMA region {} is not 0-7 (TRM 4.6.4 NPU_SET_DMA0_*_REGION)",
                src_region.max(dst_region)
            )));
        }
        // Internal: bits 0-7 are a core mask, "bit k set for core k=0,1"
        // (TRM 4.6.4 NPU_SET_DMA0_DST_REGION). Vela writes mask 3 for every
        // configuration, so the bit of a core the configuration lacks is
        // ignored; other bits are reserved.
        if internal && (dst_region == 0 || dst_region as u64 > DMA_CORE_MASK_MAX) {
            return Err(OpError::BadParam(format!(
                "DMA destination core mask {dst_region:#x} is not 1-3 (bit k for core k = 0, 1)"
            )));
        }
        let dims = |m: DmaStrideMode| match m {
            DmaStrideMode::D1 => 1,
            DmaStrideMode::D2 => 2,
            DmaStrideMode::D3 => 3,
        };
        let ndim = dims(src_stride).max(dims(dst_stride));
        let len = self.field(Opcode::NpuSetDma0Len, "addr") as u64;
        let size0 = if ndim >= 2 {
            self.field(Opcode::NpuSetDma0Size0, "size") as u64
        } else {
            1
        };
        let size1 = if ndim >= 3 {
            self.field(Opcode::NpuSetDma0Size1, "size") as u64
        } else {
            1
        };
        let skip0 = self.field(Opcode::NpuSetDma0Skip0, "addr");
        let skip1 = self.field(Opcode::NpuSetDma0Skip1, "addr");
        let rows = size0 * size1;
        if len == 0 || rows == 0 {
            return Ok(0);
        }
        // Rows never overlap (skips are unsigned), so a transfer larger than
        // its source region cannot be in range; refuse it before allocating.
        let src_size = self.memory.region(src_region).len() as u64;
        let total = len.saturating_mul(rows);
        if total > src_size {
            let start = self.field(Opcode::NpuSetDma0Src, "addr");
            return Err(OpError::OutOfRange {
                what: format!("DMA source ({rows} rows of {len} bytes)"),
                channel: faulting_channel::MEM2MEM_READ,
                region: src_region,
                start,
                end: start.saturating_add(total as i64),
                size: src_size as usize,
            });
        }
        // Start offset of each row on one side: row r of plane p starts at
        // base + p*(LEN*SIZE0 + SKIP1) + r*(LEN + SKIP0) on a 3D side, base +
        // r*(LEN + SKIP0) on a 2D side, and rows are packed on a 1D side.
        // (Arm's U65 command-stream generator programs SKIP0 = row stride -
        // LEN and SKIP1 = plane stride - LEN*SIZE0.)
        let row_starts = |base: i64, m: DmaStrideMode| -> Vec<i64> {
            let len = len as i64;
            let size0 = size0 as i64;
            let (row, plane) = match dims(m) {
                1 => (len, len * size0),
                2 => (
                    len.saturating_add(skip0),
                    len.saturating_add(skip0).saturating_mul(size0),
                ),
                _ => (
                    len.saturating_add(skip0),
                    (len * size0).saturating_add(skip1),
                ),
            };
            let mut v = Vec::with_capacity(rows as usize);
            for p in 0..size1 as i64 {
                for r in 0..size0 {
                    v.push(
                        base.saturating_add(p.saturating_mul(plane))
                            .saturating_add(r.saturating_mul(row)),
                    );
                }
            }
            v
        };
        let src = row_starts(self.field(Opcode::NpuSetDma0Src, "addr"), src_stride);
        let dst = row_starts(self.field(Opcode::NpuSetDma0Dst, "addr"), dst_stride);
        let mut data = Vec::with_capacity((len * rows) as usize);
        for &s in &src {
            data.extend_from_slice(self.memory.read(
                faulting_channel::MEM2MEM_READ,
                "DMA source",
                src_region,
                s,
                len as usize,
            )?);
        }
        if internal {
            self.check_shram_rows(dst_region, &dst, len as i64)?;
        } else {
            for &d in &dst {
                self.memory.check(
                    faulting_channel::MEM2MEM_WRITE,
                    "DMA destination",
                    dst_region,
                    d,
                    len as usize,
                )?;
            }
            let (read, written) = (
                Extent::of_rows(src_region, &src, len),
                Extent::of_rows(dst_region, &dst, len),
            );
            // TRM 4.6.3: the inputs of an operation must be known as it
            // starts; the DMA streams forward, reading ahead of its writes.
            if let Some((a, b)) = read.overlap(&written) {
                return Err(OpError::Unpredictable {
                    rule: "TRM 4.6.3",
                    detail: format!(
                        "DMA source and destination overlap in region {src_region} at bytes \
                         [{a:#x}, {b:#x})"
                    ),
                });
            }
        }
        let chunks = data.chunks_exact(len as usize);
        if internal {
            for (core, buf) in self.shram.iter_mut().enumerate() {
                if dst_region & (1 << core) != 0 {
                    for (&d, chunk) in dst.iter().zip(chunks.clone()) {
                        buf[d as usize..d as usize + chunk.len()].copy_from_slice(chunk);
                    }
                }
            }
        } else {
            for (&d, chunk) in dst.iter().zip(chunks) {
                self.memory
                    .write(
                        faulting_channel::MEM2MEM_WRITE,
                        "DMA destination",
                        dst_region,
                        d,
                        len as usize,
                    )?
                    .copy_from_slice(chunk);
            }
        }
        self.stats.dma_ops += 1;
        self.stats.dma_bytes += len * rows;
        Ok(len * rows)
    }

    /// Every row fits the shared buffer of each core in `mask` (the job
    /// runner refuses a stream that writes past its end).
    fn check_shram_rows(&self, mask: usize, rows: &[i64], len: i64) -> Result<(), OpError> {
        for (core, buf) in self.shram.iter().enumerate() {
            if mask & (1 << core) == 0 {
                continue;
            }
            let size = buf.len();
            if let Some(&d) = rows.iter().find(|&&d| d < 0 || d + len > size as i64) {
                return Err(OpError::ShramOutOfRange {
                    what: "DMA destination".into(),
                    core,
                    start: d,
                    end: d + len,
                    size,
                });
            }
        }
        Ok(())
    }
}

/// The bytes a DMA touches on one side: sorted, disjoint byte ranges of one region.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Extent {
    region: usize,
    ranges: Vec<(i64, i64)>,
}

impl Extent {
    /// Rows of `len` bytes at ascending `starts`, adjacent rows merged.
    fn of_rows(region: usize, starts: &[i64], len: u64) -> Extent {
        let mut ranges: Vec<(i64, i64)> = Vec::new();
        for &s in starts {
            let e = s + len as i64;
            match ranges.last_mut() {
                Some(last) if last.1 >= s => last.1 = last.1.max(e),
                _ => ranges.push((s, e)),
            }
        }
        Extent { region, ranges }
    }

    /// The first bytes both extents touch, if any.
    fn overlap(&self, other: &Extent) -> Option<(i64, i64)> {
        if self.region != other.region {
            return None;
        }
        let (mut i, mut j) = (0, 0);
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a, b) = (self.ranges[i], other.ranges[j]);
            let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
            if lo < hi {
                return Some((lo, hi));
            }
            if a.1 <= b.1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        None
    }
}
