//! The NPU as a command-stream interpreter: NPU_SET_* commands set the
//! operation state ([`crate::state`]); STOP/IRQ, user DMA and the dispatch of
//! kernel operations (TRM 4.6).

use crate::access::{Access, OperationAccess, Role};
use crate::cmdstream::{bytes_to_words, decode_one, Command, StreamError};
use crate::coverage::{self, End};
use crate::ops;
use crate::state::{NpuState, OpError, OpRecord, Outcome, RunStats, NUM_REGIONS};
use npu_arch::command::{ActivationFunction, CmdKind, DmaRegionMode, DmaStrideMode, Opcode};
use npu_arch::command::{DMA_CHANNELS, DMA_CORE_MASK_MAX, DMA_DESCRIPTORS};
use npu_arch::config::NpuConfig;
use npu_arch::limits::OUTSTANDING_KERNELS_MAX;
use npu_arch::regs::{self, counter_port, faulting_channel, DRIVER_REGIONCFG};
use npu_arch::shared_buffer::LUT_BYTES;
use std::collections::{BTreeMap, BTreeSet};

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

/// Control flow after one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// The golden functional model of one NPU.
#[derive(Debug, Clone)]
pub struct Npu {
    /// What kernel operations and DMAs act on.
    pub state: NpuState,
    pub status: NpuStatus,
    /// QREAD (TRM 4.2.7): the byte offset of the first command not yet
    /// completed, or past NPU_OP_STOP once stopped.
    pub qread: usize,
    /// REGIONCFG.region<k>: region k's AXI counter, hence the interface a
    /// bus error on its reads and writes reports.
    pub regioncfg: [u32; NUM_REGIONS],
}

impl Npu {
    pub fn new(config: NpuConfig) -> Npu {
        Npu {
            state: NpuState::new(config),
            status: NpuStatus::default(),
            qread: 0,
            regioncfg: DRIVER_REGIONCFG,
        }
    }

    /// Walk a byte stream as [`Npu::run`] does, but check each kernel
    /// operation against the rules (TRM 4.8.2 tables 4-120 to 4-125, 4.6.4)
    /// without computing it: the one rule set, which the test generators ask
    /// too. DMAs still run, so a LUT they load is in place.
    pub fn check_rules(&mut self, stream: &[u8]) -> Result<(), ModelError> {
        self.state.rules_only = true;
        let result = self.run(stream).map(|_| ());
        self.state.rules_only = false;
        result
    }

    /// Record each kernel operation's block footprints (TRM 4.9) in
    /// `stats.footprints`, for a BLOCKDEP checker.
    pub fn record_footprints(&mut self) {
        self.state.footprints = true;
    }

    /// The stream checker's mode (`crate::check`): regions of `sizes`
    /// bytes that hold nothing; kernel operations checked against their
    /// rules, not computed; each operation's accesses recorded, no data
    /// moved; reads of registers the stream never set tracked.
    pub fn check_accesses(&mut self, sizes: &BTreeMap<usize, u64>) -> Result<(), OpError> {
        for (&region, &size) in sizes {
            let size = usize::try_from(size).map_err(|_| {
                OpError::BadParam(format!(
                    "region {region}: {size} bytes do not fit an address"
                ))
            })?;
            self.state.memory.set_unbacked(region, size)?;
        }
        self.state.rules_only = true;
        self.state.accesses = true;
        self.state.unset_reads = Some(Default::default());
        Ok(())
    }

    /// The registers read since the last call that the stream never set.
    pub fn take_unset_reads(&mut self) -> BTreeSet<Opcode> {
        self.state
            .unset_reads
            .as_ref()
            .map(|r| r.take())
            .unwrap_or_default()
    }

    /// The accesses recorded so far (`Npu::check_accesses`).
    pub fn take_accesses(&mut self) -> Vec<OperationAccess> {
        std::mem::take(&mut self.state.stats.accesses)
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
        self.run_part(stream, 0, false, progress)?;
        Ok(&self.state.stats)
    }

    /// Runs `stream` from byte `from` (0: a start, with QREAD at 0), as
    /// [`Npu::run_with_progress`]; with `pause_at_irq`, up to and including
    /// the next NPU_OP_IRQ: then the NPU is still running and the offset of
    /// the command after it is returned, where a later call goes on.
    pub fn run_part(
        &mut self,
        stream: &[u8],
        from: usize,
        pause_at_irq: bool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Option<usize>, ModelError> {
        self.status.running = true;
        self.qread = from;
        if from == 0 {
            // A start follows a stop or the end of a stream, by which every
            // operation has completed (TRM 4.6.4 NPU_OP_STOP).
            self.state.kernels_in_flight.clear();
        }
        // TRM 4.2.9: QSIZE is a multiple of 4; checked before any fetch.
        let words = bytes_to_words(stream).inspect_err(|_| self.parse_error())?;
        let mut i = from / 4;
        while i < words.len() {
            self.qread = i * 4;
            let (cmd, n) = decode_one(&words, i).inspect_err(|_| self.parse_error())?;
            i += n;
            let heavy = cmd.op.is_kernel_op() || cmd.op == Opcode::NpuOpDmaStart;
            if self.execute(&cmd)? == Flow::Stop {
                self.qread = i * 4;
                return Ok(None);
            }
            if heavy {
                progress(i * 4, stream.len());
            }
            if pause_at_irq && cmd.op == Opcode::NpuOpIrq {
                self.qread = i * 4;
                return Ok(Some(i * 4));
            }
        }
        // TRM 4.2.2: STATUS.cmd_end_reached; the NPU stops without IRQ.
        self.record_end(End::Drained);
        self.qread = stream.len();
        self.status.cmd_end_reached = true;
        self.status.running = false;
        Ok(None)
    }

    /// TRM 4.2.2: a parse error sets cmd_parse_error, stops and raises IRQ;
    /// QREAD stays at the refused command.
    fn parse_error(&mut self) {
        self.record_end(End::ParseError);
        self.status.cmd_parse_error = true;
        self.status.running = false;
        self.status.irq_raised = true;
    }

    /// A bus error (TRM 4.2.2): bus_status, the faulting channel and
    /// interface, stop, IRQ. The DMA runs beside the command stream, so QREAD
    /// is past the DMA_START that faulted (the hardware may be further on if
    /// commands that do not wait follow it).
    fn bus_error(&mut self, channel: u32, region: usize, next_command: usize) {
        self.record_end(End::BusError);
        self.status.bus_status = true;
        self.status.faulting_channel = channel;
        // Reads and writes alike go out on the port of the region's counter.
        self.status.faulting_interface =
            counter_port(self.regioncfg.get(region).copied().unwrap_or(0));
        self.status.running = false;
        self.status.irq_raised = true;
        self.qread = next_command;
    }

    /// Execute one command.
    pub fn execute(&mut self, cmd: &Command) -> Result<Flow, ModelError> {
        self.state.stats.commands += 1;
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
            // It ends the command stream wherever it stands: the commands
            // after it are not started, so STATUS.cmd_end_reached (TRM 4.2.2).
            Opcode::NpuOpStop => {
                self.record_end(End::Stop);
                self.irq(cmd.param);
                self.status.cmd_end_reached = true;
                self.status.running = false;
                self.state.stats.stopped = true;
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
                let before = self.state.memory.traffic();
                let bytes = self.dma_start(cmd.offset)?;
                let after = self.state.memory.traffic();
                self.state.stats.layers.push(OpRecord {
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
            Opcode::NpuOpKernelWait => {
                self.state.kernels_drained |= cmd.param == 0;
                let running = &mut self.state.kernels_in_flight;
                running.drain(..running.len().saturating_sub(cmd.param as usize));
            }
            Opcode::NpuOpPmuMask => {}
            Opcode::NpuOpConv
            | Opcode::NpuOpDepthwise
            | Opcode::NpuOpPool
            | Opcode::NpuOpElementwise => {
                let (before, macs) = (self.state.memory.traffic(), self.state.stats.macs);
                let ib_end = self.state.field(Opcode::NpuSetIfmIbEnd, "ib_end_kb") as usize * 1024;
                let mut uses: Vec<_> = std::iter::once(0..ib_end as i64).collect();
                // A LUT function reads the last 2 KB (TRM 4.6.4 NPU_SET_ACTIVATION).
                let activation = self
                    .state
                    .field(Opcode::NpuSetActivation, "activation_function");
                if ActivationFunction::from_bits(activation as u32)
                    .and_then(ActivationFunction::lut_slot)
                    .is_some()
                {
                    let size = self.state.shram[0].len() as i64;
                    uses.push(size - LUT_BYTES as i64..size);
                }
                let running = &mut self.state.kernels_in_flight;
                running.push((cmd.offset, uses));
                running.drain(..running.len().saturating_sub(OUTSTANDING_KERNELS_MAX));
                self.state.stats.shram_scratch.push(0..ib_end);
                let mut record = ops::run_kernel(&mut self.state, cmd, coverage::kernel)?;
                *self.state.stats.ops.entry(cmd.op.name()).or_default() += 1;
                let after = self.state.memory.traffic();
                record.offset = cmd.offset;
                record.macs = self.state.stats.macs - macs;
                record.bytes_read = after.read - before.read;
                record.bytes_written = after.written - before.written;
                self.state.stats.layers.push(record);
            }
            op => {
                self.state.regs[op as usize] = value;
                self.state.given[op as usize] = true;
            }
        }
        Ok(Flow::Continue)
    }

    /// Counts how the run ended in the coverage (not in a rules check).
    fn record_end(&self, end: End) {
        if !self.state.rules_only {
            coverage::end(&self.state.config, end);
        }
    }

    /// NPU_OP_IRQ and NPU_OP_STOP (TRM 4.6.4).
    fn irq(&mut self, mask: u16) {
        self.status.irq_history_mask |= mask;
        self.status.irq_raised = true;
        self.state.stats.irqs += 1;
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
    fn dma_start(&mut self, offset: usize) -> Result<u64, OpError> {
        let src_region = self.state.field(Opcode::NpuSetDma0SrcRegion, "region") as usize;
        let src_mode = self.state.field(Opcode::NpuSetDma0SrcRegion, "region_mode") as u32;
        let src_stride = self.state.field(Opcode::NpuSetDma0SrcRegion, "stride_mode") as u32;
        let dst_region = self.state.field(Opcode::NpuSetDma0DstRegion, "region") as usize;
        let dst_mode = self.state.field(Opcode::NpuSetDma0DstRegion, "region_mode") as u32;
        let dst_stride = self.state.field(Opcode::NpuSetDma0DstRegion, "stride_mode") as u32;
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
        let len = self.state.field(Opcode::NpuSetDma0Len, "addr") as u64;
        let size0 = if ndim >= 2 {
            self.state.field(Opcode::NpuSetDma0Size0, "size") as u64
        } else {
            1
        };
        let size1 = if ndim >= 3 {
            self.state.field(Opcode::NpuSetDma0Size1, "size") as u64
        } else {
            1
        };
        // A 1D transfer reads no skips, a 2D one no plane skip.
        let skip0 = if ndim >= 2 {
            self.state.field(Opcode::NpuSetDma0Skip0, "addr")
        } else {
            0
        };
        let skip1 = if ndim >= 3 {
            self.state.field(Opcode::NpuSetDma0Skip1, "addr")
        } else {
            0
        };
        let rows = size0 * size1;
        if !self.state.rules_only {
            let dma = coverage::Dma {
                src: src_stride,
                dst: dst_stride,
                core_mask: internal.then_some(dst_region),
                rows,
                len,
            };
            coverage::dma(&self.state.config, &dma);
        }
        if len == 0 || rows == 0 {
            return Ok(0);
        }
        // Start offset of each row on one side: row r of plane p starts at
        // base + p*(LEN*SIZE0 + SKIP1) + r*(LEN + SKIP0) on a 3D side, base +
        // r*(LEN + SKIP0) on a 2D side, and rows are packed on a 1D side.
        // (Arm's U65 command-stream generator programs SKIP0 = row stride -
        // LEN and SKIP1 = plane stride - LEN*SIZE0.)
        let steps = |m: DmaStrideMode| -> (i64, i64) {
            let (len, size0) = (len as i64, size0 as i64);
            match dims(m) {
                1 => (len, len * size0),
                2 => (
                    len.saturating_add(skip0),
                    len.saturating_add(skip0).saturating_mul(size0),
                ),
                _ => (
                    len.saturating_add(skip0),
                    (len * size0).saturating_add(skip1),
                ),
            }
        };
        let row_start = |base: i64, m: DmaStrideMode, p: i64, r: i64| {
            let (row, plane) = steps(m);
            base.saturating_add(p.saturating_mul(plane))
                .saturating_add(r.saturating_mul(row))
        };
        let src_base = self.state.field(Opcode::NpuSetDma0Src, "addr");
        let dst_base = self.state.field(Opcode::NpuSetDma0Dst, "addr");
        // Rows never overlap (skips are unsigned), so a transfer larger than
        // its source region cannot be in range; refuse it before allocating.
        let src_size = self.state.memory.region_len(src_region) as u64;
        let total = len.saturating_mul(rows);
        if self.state.accesses && total > src_size {
            // The checker's verdict refuses it; what it may touch lies
            // between each side's first row and the end of its last.
            let span = |base: i64, m: DmaStrideMode| {
                let last = row_start(base, m, size1 as i64 - 1, size0 as i64 - 1);
                std::iter::once(base..last.saturating_add(len as i64)).collect()
            };
            let mut accesses = vec![Access::read(
                Role::DmaSource,
                src_region,
                span(src_base, src_stride),
            )];
            if !internal {
                accesses.push(Access::write(
                    Role::DmaDestination,
                    dst_region,
                    span(dst_base, dst_stride),
                ));
            }
            self.record_dma(offset, accesses);
            return Ok(total);
        }
        if total > src_size {
            return Err(OpError::OutOfRange {
                what: format!("DMA source ({rows} rows of {len} bytes)"),
                channel: faulting_channel::MEM2MEM_READ,
                region: src_region,
                start: src_base,
                end: src_base.saturating_add(total as i64),
                size: src_size as usize,
            });
        }
        let row_starts = |base: i64, m: DmaStrideMode| -> Vec<i64> {
            let mut v = Vec::with_capacity(rows as usize);
            for p in 0..size1 as i64 {
                for r in 0..size0 as i64 {
                    v.push(row_start(base, m, p, r));
                }
            }
            v
        };
        let src = row_starts(src_base, src_stride);
        let dst = row_starts(dst_base, dst_stride);
        // The checker's mode moves nothing and bounds the rows in its verdict.
        let mut data = Vec::new();
        if !self.state.accesses {
            data.reserve((len * rows) as usize);
            for &s in &src {
                data.extend_from_slice(self.state.memory.read(
                    faulting_channel::MEM2MEM_READ,
                    "DMA source",
                    src_region,
                    s,
                    len as usize,
                )?);
            }
        }
        if internal {
            self.check_shram_rows(dst_region, &dst, len as i64)?;
            // TRM 4.6.3: the shared buffer holds a running operation's
            // inputs (its input buffer, its LUT); writing them under the
            // operation leaves them unknown.
            for (op, uses) in &self.state.kernels_in_flight {
                let hit = dst.iter().find_map(|&d| {
                    let row = d..d + len as i64;
                    uses.iter()
                        .find(|u| u.start < row.end && row.start < u.end)
                        .map(|u| (row.start.max(u.start), row.end.min(u.end)))
                });
                if let Some((a, b)) = hit {
                    return Err(OpError::Unpredictable {
                        rule: "TRM 4.6.3",
                        detail: format!(
                            "a user DMA writes shared-buffer bytes [{a:#x}, {b:#x}) that the \
                             kernel operation at {op:#x} may still be using (no \
                             NPU_OP_KERNEL_WAIT between them)"
                        ),
                    });
                }
            }
        } else {
            if !self.state.accesses {
                for &d in &dst {
                    self.state.memory.check(
                        faulting_channel::MEM2MEM_WRITE,
                        "DMA destination",
                        dst_region,
                        d,
                        len as usize,
                    )?;
                }
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
        self.state.stats.dma_ops += 1;
        self.state.stats.dma_bytes += len * rows;
        if self.state.accesses {
            let rows_of = |starts: &[i64]| starts.iter().map(|&s| s..s + len as i64).collect();
            let mut accesses = vec![Access::read(Role::DmaSource, src_region, rows_of(&src))];
            if !internal {
                accesses.push(Access::write(
                    Role::DmaDestination,
                    dst_region,
                    rows_of(&dst),
                ));
            }
            self.record_dma(offset, accesses);
            return Ok(len * rows);
        }
        let chunks = data.chunks_exact(len as usize);
        if internal {
            for (core, buf) in self.state.shram.iter_mut().enumerate() {
                if dst_region & (1 << core) != 0 {
                    for (&d, chunk) in dst.iter().zip(chunks.clone()) {
                        buf[d as usize..d as usize + chunk.len()].copy_from_slice(chunk);
                    }
                }
            }
        } else {
            for (&d, chunk) in dst.iter().zip(chunks) {
                self.state
                    .memory
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
        Ok(len * rows)
    }

    /// Every row fits the shared buffer of each core in `mask` (the job
    /// runner refuses a stream that writes past its end).
    /// Records the accesses of the DMA at `offset` (the checker's mode).
    fn record_dma(&mut self, offset: usize, accesses: Vec<Access>) {
        self.state.stats.accesses.push(OperationAccess {
            offset,
            operation: Opcode::NpuOpDmaStart.name().to_string(),
            accesses,
        });
    }

    fn check_shram_rows(&self, mask: usize, rows: &[i64], len: i64) -> Result<(), OpError> {
        for (core, buf) in self.state.shram.iter().enumerate() {
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
