//! The datapath: the units that run a kernel operation (NPU_OP_CONV,
//! NPU_OP_DEPTHWISE, NPU_OP_POOL, NPU_OP_ELEMENTWISE), wired as the TRM's block
//! diagram (TRM 3.3): the traversal drives the IFM fetch into the shared
//! buffer, the IFM unit and the MAC unit; the weight decoder feeds the MAC unit
//! through its weight groups; the accumulators go through the output unit, with
//! the scale/bias records, to the OFM channel.
//!
//! Ports: kernel operations in from central control's queue (`operations`);
//! IFM fills, weight and scale/bias reads and OFM writes out to the DMA's
//! channels; shared-buffer reads; the LUT write; `fault` with its command
//! offset; the PMU's events.
//!
//! Invariants: the next operation is taken once every OFM write of this one is
//! out (TRM 4.6.1), its front end starts earlier from the kernel queue's next
//! entry; each IFM block's copies wait for NPU_SET_BLOCKDEP (TRM 4.9) and a free
//! IFM buffer; a weight-stream fault stops the operation with the blocks
//! finished before written. Each core ([`Core`], two on u65-512, TRM 4.7.5.1)
//! has its own weight streams, weight decoder, MAC unit and scale records; the
//! rest is shared. Theory of operation: `docs/datapath.md`.

mod beat_issue;
mod beat_join;
mod block_fetch;
mod core;
mod decode;
mod fetched_jobs;
mod front_end;
mod ifm_fetch;
mod ifm_pieces;
mod job_streams;
mod lookahead;
mod operand_reader;
mod output_stage;
mod payloads;
mod stream_starts;
pub mod traversal;
mod window;

pub use self::core::{
    Core, CoreBeats, CoreBeatsPort, CoreOutput, CoreOutputPort, CoreStreams, CoreStreamsPort,
};
pub use beat_issue::BeatIssue;
pub use beat_join::BeatJoin;
pub use block_fetch::BlockFetch;
pub use decode::OperationDecoder;
pub use fetched_jobs::FetchedJobs;
pub use front_end::FrontEnd;
pub use ifm_fetch::IfmFetch;
pub use ifm_pieces::IfmPieces;
pub use job_streams::JobStreams;
pub use lookahead::Lookahead;
pub use operand_reader::{LineOperands, OperandReader, UnitOperands, OPERAND_LANES};
pub use output_stage::OutputStage;
pub use payloads::{
    BeatTag, IfmBlockJob, IfmBuffers, MacBeat, OperandPair, OperandSettings, Readout,
    TraversalShape, WindowTaps,
};
pub use stream_starts::StreamStarts;
pub use window::{WindowCount, WordWindows};

use crate::dma::{OfmWrite, ShramFill, StreamRead};
use crate::mac_unit::{IfmActs, IfmUnit};
use crate::op_state::{KernelKinds, KernelOperation};
use crate::output_unit::{OfmResult, OfmWriter};
use crate::shram::LutWrite;
use crate::shram::{BankReads, READ_BANKS, READ_PORTS, UNIT_ADDRESS_BITS};
use traversal::Traversal;

const _: () = assert!(READ_PORTS == 4 && UNIT_ADDRESS_BITS == 13);
use crate::stream::{LaneBeat, StreamIn, StreamOut};
use crate::widgets::{per_core, Fifo, ResetReg};
use npu_arch::config::NpuConfig;
use rust_hdl::prelude::*;

/// What the datapath tells the PMU each cycle (TRM table 4-79, first core).
/// The TRM defines each event as "valid blk_cmd (ofd_cmd) and not stalled";
/// here a unit is active in a cycle in which it takes a beat of work. In
/// parallel mode core 0's events count the work of both cores (a cycle in
/// which either MAC unit or weight decoder works; the output units work in
/// lockstep), and the second core's count nothing.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct DatapathEvents {
    /// MAC: ACTIVE, "MAC is doing block traversal": the MAC unit takes an
    /// operand beat (`operands` valid and ready). A beat of a weight group
    /// of padding never reaches it, except a slice's last beat.
    pub mac_active: Bit,
    /// AO: ACTIVE, "AO is doing block traversal of ACC or IB": the output
    /// unit takes one OFM position's accumulators (`accumulators` valid and
    /// ready).
    pub ao_active: Bit,
    /// WD: ACTIVE, "WD is decoding weight stream": the weight decoder is
    /// busy and takes a stream word or delivers a weight group.
    pub wd_active: Bit,
    /// The operation's IFM is 16-bit: splits MAC and AO activity into their
    /// 8-bit and 16-bit events. The TRM's "8 or 16 bit block traversal" is
    /// the traversal's IFM precision, so the output unit's beats of a
    /// 16-bit IFM operation are 16-bit whatever the OFM type.
    pub wide: Bit,
}

#[derive(LogicBlock)]
pub struct Datapath {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub operations: StreamIn<KernelOperation>,
    pub runs: Signal<Out, KernelKinds>,
    /// An operation taken is still running; the one before it has OFM
    /// blocks whose writes are not all answered.
    pub busy: Signal<Out, Bit>,
    pub draining: Signal<Out, Bit>,
    /// The DMA's datapath channels.
    pub ifm_fills: StreamOut<ShramFill>,
    pub ifm_filled: Signal<In, Bit>,
    /// Per core.
    pub weight_reads: Vec<StreamOut<StreamRead>>,
    pub weight_beats: Vec<StreamIn<LaneBeat>>,
    pub scale_reads: Vec<StreamOut<StreamRead>>,
    pub scale_beats: Vec<StreamIn<LaneBeat>>,
    pub ofm_writes: StreamOut<OfmWrite>,
    /// Every OFM write of the operation is out: the OFM channel sends what
    /// it holds at once.
    pub writes_done: Signal<Out, Bit>,
    /// OFM blocks whose last write the OFM channel saw answered this cycle.
    pub blocks_written: Signal<In, Bits<5>>,
    /// The DMA's IFM channel, and its weight and scale/bias channels, have
    /// work in flight.
    pub ifm_busy: Signal<In, Bit>,
    pub streams_busy: Signal<In, Bit>,
    /// The shared buffer's banks, read by the IFM unit (both) and the
    /// operand reader (bank 0's ports 0 and 1).
    pub shram_reads: Vec<BankReads>,
    /// The shared buffer's writes to its LUT areas, for the output unit.
    pub lut_write: Signal<In, LutWrite>,
    /// Clear the accumulators (TRM 3.3.4.1, with the shared buffer).
    pub clear: Signal<In, Bit>,
    pub clearing: Signal<Out, Bit>,
    /// The operation stopped on a malformed weight stream, and its command
    /// offset (held until reset).
    pub fault: Signal<Out, Bit>,
    pub fault_offset: Signal<Out, Bits<32>>,
    /// The PMU's MAC, output-unit and weight-decoder events (TRM table 4-79).
    pub events: Signal<Out, DatapathEvents>,
    /// The datapath needs its clock (the clock and power module gates it
    /// otherwise): an operation offered or running, an accumulator clear, a
    /// write to a LUT area, or the few cycles after an operation in which
    /// its units settle.
    pub clock_wanted: Signal<Out, Bit>,

    kinds: Constant<KernelKinds>,
    decoder: OperationDecoder,
    /// The settings of the operation whose jobs are offered: the current
    /// one's, or the next one's once the current one offered its last job.
    front: OperationDecoder,
    front_end: FrontEnd,
    stream_starts: StreamStarts,
    traversal: Traversal,
    block_fetch: BlockFetch,
    operand_reader: OperandReader,
    fetched: FetchedJobs,
    ifm_unit: IfmUnit,
    beat_issue: BeatIssue,
    beat_tags: Fifo<BeatTag, 3, 4>,
    beat_join: BeatJoin,
    /// Each core's weights, MAC unit and scale/bias records.
    cores: Vec<Core>,
    output_stage: OutputStage,
    ofm_writer: OfmWriter,

    operation: ResetReg<KernelOperation>,
    active: ResetReg<Bit>,
    starting: ResetReg<Bit>,
    faulted: ResetReg<Bit>,
    /// Cycles left to run after the last operation ended.
    settling: ResetReg<Bits<2>>,

    job: Signal<Local, IfmBlockJob>,
    elementwise: Signal<Local, Bit>,
    /// Elementwise in parallel mode on two cores: each output unit takes
    /// half of each operand group.
    paired_elementwise: Signal<Local, Bit>,
    parallel: Signal<Local, Bit>,
    /// Depthwise in parallel mode: a core's IFM channels are every other
    /// one of its IFM blocks.
    interleaved: Signal<Local, Bit>,
    cores_fault: Signal<Local, Bit>,
    cores_idle: Signal<Local, Bit>,
    taken: Signal<Local, Bit>,
    per_channel: Signal<Local, Bit>,
    tee_ready: Signal<Local, Bit>,
    job_taken: Signal<Local, Bit>,
    idle: Signal<Local, Bit>,
    /// NPU_OP_POOL: no weight stream; unit weights instead.
    pool: Signal<Local, Bit>,
}

impl Datapath {
    pub fn new(config: &NpuConfig) -> Self {
        let cores = config.cores as usize;
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            operations: Default::default(),
            runs: Default::default(),
            busy: Default::default(),
            draining: Default::default(),
            ifm_fills: Default::default(),
            ifm_filled: Default::default(),
            weight_reads: per_core(cores),
            weight_beats: per_core(cores),
            scale_reads: per_core(cores),
            scale_beats: per_core(cores),
            ofm_writes: Default::default(),
            writes_done: Default::default(),
            blocks_written: Default::default(),
            ifm_busy: Default::default(),
            streams_busy: Default::default(),
            shram_reads: (0..READ_BANKS).map(|_| Default::default()).collect(),
            lut_write: Default::default(),
            clear: Default::default(),
            clearing: Default::default(),
            fault: Default::default(),
            fault_offset: Default::default(),
            events: Default::default(),
            clock_wanted: Default::default(),
            kinds: Constant::new(KernelKinds {
                conv: true,
                depthwise: true,
                pool: true,
                elementwise: true,
                parallel: config.cores == 2,
            }),
            decoder: Default::default(),
            front: Default::default(),
            front_end: Default::default(),
            stream_starts: StreamStarts::new(cores),
            traversal: Default::default(),
            block_fetch: Default::default(),
            operand_reader: Default::default(),
            fetched: Default::default(),
            beat_issue: Default::default(),
            ifm_unit: IfmUnit::new(config.shram_kib as usize * 1024 / config.cores as usize),
            beat_tags: Default::default(),
            beat_join: BeatJoin::new(cores),
            cores: (0..cores).map(Core::new).collect(),
            output_stage: OutputStage::new(cores),
            ofm_writer: Default::default(),
            operation: Default::default(),
            active: Default::default(),
            starting: Default::default(),
            faulted: Default::default(),
            settling: Default::default(),
            job: Default::default(),
            elementwise: Default::default(),
            paired_elementwise: Default::default(),
            parallel: Default::default(),
            interleaved: Default::default(),
            cores_fault: Default::default(),
            cores_idle: Default::default(),
            taken: Default::default(),
            per_channel: Default::default(),
            tee_ready: Default::default(),
            job_taken: Default::default(),
            idle: Default::default(),
            pool: Default::default(),
        }
    }
}

impl Logic for Datapath {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, operation, active, starting, faulted, settling);
        self.settling.rst_n.next = self.rst_n.val();
        self.faulted.rst_n.next = self.rst_n.val();
        self.operation.rst_n.next = self.rst_n.val();
        self.active.rst_n.next = self.rst_n.val();
        self.starting.rst_n.next = self.rst_n.val();
        clock!(
            self,
            clock,
            block_fetch,
            front_end,
            stream_starts,
            traversal,
            operand_reader,
            fetched,
            ifm_unit,
            beat_tags,
            output_stage,
            ofm_writer
        );
        self.block_fetch.rst_n.next = self.rst_n.val();
        self.front_end.rst_n.next = self.rst_n.val();
        self.stream_starts.rst_n.next = self.rst_n.val();
        self.traversal.rst_n.next = self.rst_n.val();
        self.operand_reader.rst_n.next = self.rst_n.val();
        self.fetched.rst_n.next = self.rst_n.val();
        self.ifm_unit.rst_n.next = self.rst_n.val();
        self.beat_tags.rst_n.next = self.rst_n.val();
        self.output_stage.rst_n.next = self.rst_n.val();
        self.ofm_writer.rst_n.next = self.rst_n.val();

        // ---- The operation: taken when idle, held while it runs ----
        self.runs.next = self.kinds.val();
        self.operations.ready.next = !self.active.q.val();
        if self.operations.valid.val() & !self.active.q.val() {
            self.active.d.next = true;
            self.operation.d.next = self.operations.data.val();
        }
        self.taken.next = self.operations.valid.val() & !self.active.q.val();
        self.starting.d.next = self.taken.val();
        self.decoder.operation.next = self.operation.q.val();
        // Parallel mode reaches here only on two cores (central control
        // refuses it elsewhere: `kinds.parallel`).
        self.parallel.next = self.decoder.shape.val().parallel;
        self.traversal.shape.next = self.decoder.shape.val();
        self.interleaved.next = self.parallel.val() & self.decoder.shape.val().depthwise;
        self.per_channel.next = self.decoder.per_channel.val();
        self.pool.next = self.decoder.shape.val().pool;

        // ---- The front end: the block walk, the IFM fetch and the weight
        // and scale starts, on the current operation until it has offered
        // its last job, then on the next one in the kernel queue
        // (`FrontEnd`) ----
        self.front_end.active.next = self.active.q.val();
        self.front_end.starting.next = self.starting.q.val();
        self.front_end.faulted.next = self.faulted.q.val();
        self.front_end.next_valid.next = self.operations.valid.val();
        self.front_end.taken.next = self.taken.val();
        self.front_end.offering.next = self.traversal.offering.val();
        self.front_end.halves_held.next = self.traversal.halves_held.val();
        self.front_end.next_half.next = self.traversal.next_half.val();
        self.front_end.current_buffers.next = self.decoder.ifm_buffers.val();
        self.front_end.current_reads_ifm2.next = self.decoder.reads_ifm2.val();
        self.front_end.next_buffers.next = self.front.ifm_buffers.val();
        self.front_end.next_reads_ifm2.next = self.front.reads_ifm2.val();
        self.front_end.next_blockdep.next = self.front.blockdep.val();
        self.front_end.lookahead_done.next = self.stream_starts.lookahead_done.val();
        self.front_end.fetched_count.next = self.fetched.count.val();
        self.front_end.blocks_written.next = self.blocks_written.val();
        self.front_end.current_blockdep.next = self.decoder.blockdep.val();
        self.front.operation.next = self.operation.q.val();
        if self.front_end.front_next.val() {
            self.front.operation.next = self.operations.data.val();
        }
        self.traversal.walk_shape.next = self.front.shape.val();
        // Its first weight stream and scale records (`StreamStarts`).
        self.stream_starts.front_next.next = self.front_end.front_next.val();
        self.stream_starts.shape.next = self.front.shape.val();
        self.stream_starts.per_channel.next = self.front.per_channel.val();
        self.stream_starts.taken.next = self.taken.val();
        // Its block walk and first IFM block, where BLOCKDEP and the shared
        // buffer allow.
        self.traversal.start.next = (self.starting.q.val() & !self.front_end.walk_early.val())
            | self.front_end.early_start.val();

        // ---- IFM blocks: to the fetch, the weight and scale streams ----
        self.job.next = self.traversal.ifm_blocks.data.val();
        // The fetch takes a job with its last copy, so it sees the job
        // while the queues beside it have room (which only a taken job
        // uses up).
        self.tee_ready.next = self.fetched.jobs.ready.val() & self.stream_starts.room.val();
        self.elementwise.next = self.decoder.elementwise.val();
        // The job's copies, and IFM2's (`BlockFetch`).
        self.block_fetch.jobs.valid.next =
            self.traversal.ifm_blocks.valid.val() & self.tee_ready.val();
        self.block_fetch.jobs.data.next = self.job.val();
        self.block_fetch.allowed.next = self.front_end.jobs_allowed.val();
        self.traversal.ifm_blocks.ready.next = self.block_fetch.jobs.ready.val();
        self.job_taken.next =
            self.traversal.ifm_blocks.valid.val() & self.traversal.ifm_blocks.ready.val();
        self.front_end.job_taken.next = self.job_taken.val();
        self.front_end.job_offered.next =
            self.block_fetch.jobs.valid.val() & self.front_end.jobs_allowed.val();
        self.front_end.job_first.next = self.job.val().first;
        self.block_fetch.ifm_view.next = self.front.ifm_view.val();
        self.block_fetch.ifm_buffers.next = self.front.ifm_buffers.val();
        self.block_fetch.ifm2_view.next = self.front.ifm2_view.val();
        self.block_fetch.ifm2_buffers.next = self.front.ifm2_buffers.val();
        self.block_fetch.operand_settings.next = self.front.operand_settings.val();
        self.block_fetch.reads_ifm2.next = self.front.reads_ifm2.val();
        StreamOut::<ShramFill>::link(&mut self.ifm_fills, &mut self.block_fetch.fills);
        // The weight streams and scale records the job queues (TRM 4.7.5,
        // `StreamStarts`).
        self.stream_starts.job.next = self.job.val();
        self.stream_starts.job_taken.next = self.job_taken.val();
        for k in 0..self.cores.len() {
            self.cores[k].clock.next = self.clock.val();
            self.cores[k].rst_n.next = self.rst_n.val();
            CoreStreams::join(&mut self.cores[k].streams, &mut self.stream_starts.cores[k]);
            self.cores[k].view.next = self.front.weights_view.val();
            self.cores[k].depthwise.next = self.decoder.shape.val().depthwise;
            self.cores[k].halt.next = self.faulted.q.val();
            StreamOut::<StreamRead>::link(
                &mut self.weight_reads[k],
                &mut self.cores[k].weight_reads,
            );
            StreamIn::<LaneBeat>::link(&mut self.weight_beats[k], &mut self.cores[k].weight_beats);
            StreamOut::<StreamRead>::link(&mut self.scale_reads[k], &mut self.cores[k].scale_reads);
            StreamIn::<LaneBeat>::link(&mut self.scale_beats[k], &mut self.cores[k].scale_beats);
        }
        // An IFM block is walked once its last copy is in the shared buffer
        // (`FetchedJobs`; elementwise: read by the operand reader).
        self.fetched.jobs.valid.next = self.job_taken.val();
        self.fetched.jobs.data.next = self.job.val();
        self.fetched.filled.next = self.ifm_filled.val();
        self.fetched.hold.next = self.front_end.fetched_ahead.val();
        self.fetched.elementwise.next = self.elementwise.val();
        StreamOut::<IfmBlockJob>::join(&mut self.fetched.walks, &mut self.traversal.filled);
        StreamOut::<IfmBlockJob>::join(&mut self.fetched.reads, &mut self.operand_reader.jobs);

        // ---- Beats: an IFM unit request and a tag each (`BeatIssue`) ----
        self.beat_issue.beats.valid.next = self.traversal.beats.valid.val();
        self.beat_issue.beats.data.next = self.traversal.beats.data.val();
        self.traversal.beats.ready.next = self.beat_issue.beats.ready.val();
        self.beat_issue.walked.next = self.traversal.current.val();
        self.beat_issue.shape.next = self.decoder.shape.val();
        self.beat_issue.ifm_view.next = self.decoder.ifm_view.val();
        self.beat_issue.ifm_buffers.next = self.decoder.ifm_buffers.val();
        self.beat_issue.wide.next = self.decoder.ifm_wide.val();
        self.beat_issue.int32.next = self.decoder.ifm_int32.val();
        self.beat_issue.signed_ifm.next = self.decoder.ifm_signed.val();
        self.beat_issue.max_pool.next = self.decoder.pool_max.val();
        self.beat_issue.interleaved.next = self.interleaved.val();
        self.ifm_unit.requests.valid.next = self.beat_issue.requests.valid.val();
        self.ifm_unit.requests.data.next = self.beat_issue.requests.data.val();
        self.beat_issue.requests.ready.next = self.ifm_unit.requests.ready.val();
        self.beat_tags.tail.valid.next = self.beat_issue.tags.valid.val();
        self.beat_tags.tail.data.next = self.beat_issue.tags.data.val();
        self.beat_issue.tags.ready.next = self.beat_tags.tail.ready.val();
        self.ifm_unit.settings.next = self.beat_issue.ifm_settings.val();
        self.shram_reads[0].enable.next = self.ifm_unit.bank_reads[0].enable.val();
        self.shram_reads[0].address.next = self.ifm_unit.bank_reads[0].address.val();
        self.ifm_unit.bank_reads[0].data.next = self.shram_reads[0].data.val();
        BankReads::link(&mut self.shram_reads[1], &mut self.ifm_unit.bank_reads[1]);
        // Elementwise: the operand reader has bank 0's ports 0 and 1 (the
        // IFM unit is idle).
        if self.elementwise.val() {
            self.shram_reads[0].enable.next =
                bit_cast::<4, 2>(self.operand_reader.shram_read_enable.val());
            self.shram_reads[0].address.next =
                bit_cast::<52, 26>(self.operand_reader.shram_read_address.val());
        }
        self.operand_reader.shram_read_data.next =
            self.shram_reads[0].data.val().get_bits::<256>(0);
        // Parallel mode pairs the groups where there are two cores.
        self.paired_elementwise.next = self.elementwise.val()
            & self.decoder.operand_settings.val().paired
            & self.kinds.val().parallel;
        self.operand_reader.settings.next = self.decoder.operand_settings.val();
        self.operand_reader.settings.next.paired = self.paired_elementwise.val();
        self.operand_reader.ifm_buffers.next = self.decoder.ifm_buffers.val();
        self.operand_reader.ifm2_buffers.next = self.decoder.ifm2_buffers.val();

        // ---- MAC beats: activations + tag + each of its cores' weight
        // group (`BeatJoin`) ----
        StreamOut::<IfmActs>::join(&mut self.ifm_unit.acts, &mut self.beat_join.acts);
        StreamOut::<BeatTag>::join(&mut self.beat_tags.head, &mut self.beat_join.tags);
        for k in 0..self.cores.len() {
            CoreBeats::join(&mut self.cores[k].beats, &mut self.beat_join.cores[k]);
        }
        self.beat_join.pool.next = self.pool.val();
        self.beat_join.depthwise.next = self.decoder.shape.val().depthwise;
        self.beat_join.max_pool.next = self.decoder.pool_max.val();
        self.beat_join.wide.next = self.decoder.ifm_wide.val();
        self.beat_join.interleaved.next = self.interleaved.val();
        self.beat_join.halt.next = self.faulted.q.val();
        // Both cores of a paired beat finish a slice in the same cycle.
        self.traversal.slice_done.next = self.beat_join.slice_done.val();
        // The IFM block's last activations are out of the shared buffer.
        self.traversal.ib_read.next =
            self.beat_join.block_read.val() | self.operand_reader.released.val();
        // Each core's stream state (its faults: golden OpError::Weights);
        // any fault stops the operation.
        self.cores_fault.next = false;
        self.clearing.next = false;
        self.cores_idle.next = true;
        self.events.next.wd_active = false;
        for k in 0..self.cores.len() {
            self.cores[k].clear.next = self.clear.val();
            self.cores_fault.next = self.cores_fault.val() | self.cores[k].fault.val();
            self.clearing.next = self.clearing.val() | self.cores[k].clearing.val();
            self.cores_idle.next = self.cores_idle.val() & self.cores[k].idle.val();
            self.events.next.wd_active = self.events.val().wd_active | self.cores[k].decoding.val();
        }
        if self.cores_fault.val() {
            self.faulted.d.next = true;
        }
        self.fault.next = self.faulted.q.val();
        self.fault_offset.next = self.operation.q.val().offset;

        // ---- Readout: each core's accumulator words through the output
        // units to the OFM writer (`OutputStage`) ----
        StreamOut::<Readout>::join(&mut self.traversal.readouts, &mut self.output_stage.words);
        for k in 0..self.cores.len() {
            CoreOutput::join(&mut self.cores[k].words, &mut self.output_stage.cores[k]);
        }
        StreamOut::<OperandPair>::join(
            &mut self.operand_reader.operands,
            &mut self.output_stage.operands,
        );
        self.output_stage.shape.next = self.decoder.shape.val();
        self.output_stage.settings.next = self.decoder.output_settings.val();
        self.output_stage.per_channel.next = self.per_channel.val();
        self.output_stage.parallel.next = self.parallel.val();
        self.output_stage.elementwise.next = self.elementwise.val();
        self.output_stage.paired_elementwise.next = self.paired_elementwise.val();
        self.output_stage.lut_write.next = self.lut_write.val();
        StreamOut::<OfmResult>::join(&mut self.output_stage.results, &mut self.ofm_writer.results);
        self.ofm_writer.view.next = self.decoder.ofm_view.val();
        StreamOut::<OfmWrite>::link(&mut self.ofm_writes, &mut self.ofm_writer.writes);

        // ---- Done: nothing of the operation is left anywhere ----
        // (Nor of the next operation's first job, once fetched ahead.)
        self.writes_done.next = !self.starting.q.val()
            & !self.traversal.beats_busy.val()
            & (!self.traversal.blocks_busy.val() | self.front_end.walk_early.val())
            & (self.front_end.fetched_current.val() == 0)
            & self.cores_idle.val()
            & (self.beat_tags.count.val() == 0)
            & !self.output_stage.busy.val()
            & !self.operand_reader.busy.val()
            & !self.ofm_writer.busy.val();
        // The weight and scale/bias channels may be reading the next
        // operation's first streams (`Lookahead`); this one's are all used.
        // Its OFM blocks are answered while the next one runs, one
        // operation's at a time (`FrontEnd`).
        self.idle.next = self.writes_done.val()
            & !self.front_end.draining.val()
            & (!self.ifm_busy.val() | self.front_end.walk_early.val())
            & (!self.streams_busy.val() | self.stream_starts.reading_ahead.val());
        self.front_end.ending.next = self.active.q.val() & self.idle.val();
        if self.active.q.val() & self.idle.val() {
            self.active.d.next = false;
        }
        self.busy.next = self.active.q.val();
        self.draining.next = self.front_end.draining.val();
        // The clock runs on for three cycles after an operation, so
        // registers that settle after the last OFM write (the MAC unit's
        // forwarding, the decoder's quiet count) always reach their idle
        // values before it stops.
        if self.active.q.val() {
            self.settling.d.next = 3.into();
        } else if self.settling.q.val() != 0 {
            self.settling.d.next = self.settling.q.val() - 1;
        }
        // A write to a LUT area reaches the output unit's copy between
        // operations too.
        self.clock_wanted.next = self.operations.valid.val()
            | self.active.q.val()
            | self.front_end.draining.val()
            | (self.settling.q.val() != 0)
            | self.clear.val()
            | self.clearing.val()
            | (self.lut_write.val().cores != 0);

        // ---- PMU events (TRM table 4-79; definitions at `DatapathEvents`) ----
        self.events.next.mac_active = self.beat_join.mac_active.val();
        self.events.next.ao_active = self.output_stage.ao_active.val();
        self.events.next.wide = self.decoder.ifm_wide.val();
    }
}
