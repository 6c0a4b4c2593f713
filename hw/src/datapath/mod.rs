//! The datapath: the units that run a kernel operation (NPU_OP_CONV,
//! NPU_OP_DEPTHWISE, NPU_OP_POOL, NPU_OP_ELEMENTWISE), wired as the TRM's block
//! diagram (TRM 3.3): the traversal (central control, TRM 4.9) drives the
//! IFM fetch into the shared buffer, the IFM unit and the MAC unit; the
//! weight decoder feeds the MAC unit through its weight groups; the
//! accumulators go through the output unit, with the scale/bias records, to
//! the OFM channel.
//!
//! Operations overlap at their ends (TRM 4.6.1). The next one is taken
//! when every OFM byte of this one is written and answered, but its front
//! end starts before: once this operation has offered its last IFM block
//! job, the block walk, the IFM fetch and the weight and scale starts take
//! their settings from the kernel queue's next operation (`front`, while
//! the beats, the MAC and output units and the OFM writer keep this one's,
//! `decoder`). Its first weight stream and its first OFM block's scale
//! records are queued at once ([`Lookahead`]; BLOCKDEP orders IFM reads
//! only). Its block walk starts, and its first job goes to the IFM fetch,
//! when NPU_SET_BLOCKDEP allows read 0 before any of this operation's OFM
//! block writes is complete (TRM 4.9: k at least this operation's OFM
//! blocks) and its IFM buffer is free ([`FrontEnd`]); the job waits in
//! `fetched` until the operation is taken. Its later jobs wait until then,
//! when every write of this one is answered, so BLOCKDEP is always met.
//! Each memory round trip so hidden is a few hundred cycles per operation
//! behind a DRAM.
//!
//! Each core ([`Core`]: u65-512 has two, TRM 4.7.5.1) has its own weight
//! streams, weight decoder, MAC unit with its accumulators, and scale/bias
//! records; the traversal, IFM fetch and IFM unit, output unit and OFM
//! writer are shared. In parallel mode (NPU_SET_PARALLEL_MODE 1, which Vela
//! sets on every u65-512 operation) core k computes OFM channels k, k + 2,
//! ... from its own weight stream (WEIGHT or WEIGHT1 base and length) and
//! scale/bias stream (SCALE or SCALE1 base, at the core-local channel); its
//! results go to OFM channels 2 * local + core (one masked write per
//! position, `OfmResult::spread`).
//!
//! Both cores run at once: they share the IFM blocks, so the traversal
//! walks core 0's OFM blocks and each beat also goes to core 1, with core
//! 1's weight group, where core 1 has the beat's slice (`MacBeat::paired`):
//! 512 MACs a cycle on convolutions, 64 on depthwise ones (TRM table
//! 4-128). A depthwise IFM block holds both cores' channels of the OFM
//! block, and the IFM unit gives core 0 the even elements of each line and
//! core 1 the odd ones (`IfmSettings::interleaved`, `IfmActs::odd_acts`);
//! with 16-bit IFMs both cores' 16 channels are two lines, read at once:
//! the second from core 1's bank, which holds the same IFM blocks (the
//! IFM unit's pair ports), so 16-bit depthwise beats keep 8 channels a
//! core. Pools walk the same way with unit weights. Each readout reads both cores' words at one address, and
//! both cores' output units take a position's beat at once (core 1's
//! results are the odd channels of the same OFM write, `OfmResult::
//! paired_values`): 16 OFM values a cycle. Elementwise operations in
//! parallel mode split each operand group between both output units (core
//! k's unit takes channels c + 2i + k, with core k's LUT, as the golden
//! model's); without parallel mode they use core 0's output unit only.
//!
//! The PMU's MAC, AO and WD events (core 0's) count the work of both cores:
//! a cycle in which either MAC unit takes a beat, or either weight decoder
//! works, and the output units' common beats; the second core's events
//! count nothing.
//!
//! Pools (NPU_OP_POOL, TRM 4.6.4; table 4-122): max and average pools walk
//! as depthwise convolutions (4 positions x 8 channels x 1 kernel element a
//! beat) and REDUCE_SUM as a convolution with one OFM channel, both without
//! a weight stream: the traversal does not pad their kernels to weight
//! groups (`TraversalShape::pool`), no weight read is issued, the MAC beats
//! take unit weights (a REDUCE_SUM beat only for the IFM block's channels)
//! and the weight-stream states and faults do not apply. An int32
//! REDUCE_SUM (an int8 softmax's sum of exponentials, TRM table 4-125)
//! walks IFM blocks of 8 channels in groups of 4, one beat per byte of the
//! values (the IFM unit's `int32`, the MAC unit's `byte` weighting). Max pools run the
//! MAC unit's max mode with padding read as the IFM type's minimum (the IFM
//! unit's `pad_minimum`), so padding never wins; max pools and padded
//! average pools do not scale and read no scale records; a padded average
//! divides each position's sum by its window's IFM elements (`window`: the
//! taps counted as the word is queued, multiplied as it is read out; the
//! output unit's division); REDUCE_SUM and unpadded average pools scale as
//! convolutions. In parallel mode pools run as depthwise and
//! REDUCE_SUM as a convolution (core 1 has no channel).
//!
//! Elementwise operations (NPU_OP_ELEMENTWISE, TRM 4.8.2 table 4-124) walk
//! their OFM blocks as a 1x1 depthwise pool, one pass in parallel mode
//! too: each IFM block is its OFM block. The IFM fetch puts a job's IFM
//! block into halves of [2 KB, IFM2_IB_START) and a second fetch its IFM2
//! block (broadcast dimensions of extent 1) into halves of [IFM2_IB_START,
//! IB_END), both through the DMA's IFM channel, the IFM2 copies last (TRM
//! table 4-137; without IFM2 in memory the IFM has [2 KB, IB_END)). The
//! operand reader ([`OperandReader`]) reads the filled blocks from two
//! shared-buffer ports (the IFM unit and MAC array idle) and gives the
//! output unit 8 lanes of operand pairs a cycle (in parallel mode on two
//! cores up to 16, half to each output unit, each unit taking its half when
//! it is ready), with their OFM position; no weights or scale records are
//! read.
//!
//! Streams per operation:
//! - IFM blocks: each traversal job goes to the IFM fetch (its copies to
//!   the DMA's IFM channel) and waits in `fetched` until the DMA reports its
//!   last copy in the shared buffer; then the traversal walks its beats.
//! - Weights (not for pools): every spatial OFM block reads the whole weight
//!   stream again (each core's; its z slices in order, as the traversal
//!   consumes them), decoded and regrouped into MAC weight groups; a group
//!   is used by the beats up to one marked `group_end` ([`JobStreams`] says
//!   which jobs start which streams). The DMA reads the
//!   next stream ahead; the decoder starts it once this one's last group is
//!   used and nothing of it is left.
//! - Faults: a weight stream the decoder rejects, one that does not hold
//!   whole MAC groups, or one with fewer or more groups than the beats use
//!   (the golden model's count check) stops the operation: `fault` rises
//!   with the operation's command offset, no further beat is multiplied and
//!   no further stream decoded; OFM blocks finished before stay written. The
//!   channels drain, so the NPU's AXI ports go idle; a reset ends it.
//! - Scale/bias: every OFM block reads its channels' 10-byte records.
//! - Beats: each traversal beat is an IFM unit request and a tag
//!   ([`BeatIssue`]); the tag, the activations and the current weight
//!   group make a MAC beat (a `skip` beat only drops its weight group).
//! - Readouts: each accumulator word gives an output-unit beat per OFM
//!   position it holds, with the records of its 8 channels; results go to
//!   the OFM writer with their position.

mod beat_issue;
mod core;
mod decode;
mod front_end;
mod ifm_fetch;
mod job_streams;
mod lookahead;
mod operand_reader;
pub mod traversal;
mod window;

pub use self::core::Core;
pub use beat_issue::{BeatIssue, BeatTag};
pub use decode::OperationDecoder;
pub use front_end::FrontEnd;
pub use ifm_fetch::{IfmBuffers, IfmFetch};
pub use job_streams::JobStreams;
pub use lookahead::Lookahead;
pub use operand_reader::{
    LineOperands, OperandPair, OperandReader, OperandSettings, UnitOperands, OPERAND_LANES,
};
pub use window::{WindowCount, WindowTaps, WordWindows};

use crate::central_control::{KernelKinds, KernelOperation};
use crate::dma::{OfmWrite, ShramFill, StreamRead};
use crate::mac_unit::IfmUnit;
use crate::output_unit::{AccumulatorBeat, OfmWriter, OutputUnit, ResultBeat};
use crate::shram::LutWrite;
use crate::shram::{BankReads, READ_BANKS, READ_PORTS, UNIT_ADDRESS_BITS};
use traversal::{IfmBlockJob, Readout, Traversal};

const _: () = assert!(READ_PORTS == 4 && UNIT_ADDRESS_BITS == 13);
use crate::stream::{LaneBeat, StreamIn, StreamOut};
use crate::widgets::{per_core, Fifo, ResetReg};
use npu_arch::config::NpuConfig;
use rust_hdl::prelude::*;

/// A readout word and its positions' window taps, counted as it is queued.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ReadoutTag {
    pub word: Readout,
    pub windows: WindowTaps,
}

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

/// An output-unit beat's OFM position and channels.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OfmPosition {
    pub y: Bits<16>,
    pub x: Bits<16>,
    pub c: Bits<16>,
    /// Core 1's output unit has results of the position too.
    pub paired: Bit,
}

#[derive(LogicBlock)]
pub struct Datapath {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub operations: StreamIn<KernelOperation>,
    pub runs: Signal<Out, KernelKinds>,
    /// An operation taken is still running.
    pub busy: Signal<Out, Bit>,
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
    /// The DMA's IFM channel, its OFM channel, and its weight and
    /// scale/bias channels have work in flight.
    pub ifm_busy: Signal<In, Bit>,
    pub ofm_busy: Signal<In, Bit>,
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
    lookahead: Lookahead,
    /// The streams a job queues.
    job_streams: JobStreams,
    traversal: Traversal,
    ifm_fetch: IfmFetch,
    /// Elementwise: IFM2's blocks, fetched after the IFM's of each job.
    ifm2_fetch: IfmFetch,
    operand_reader: OperandReader,
    /// Each core's output-unit beat of an elementwise operand group.
    unit_operands: Vec<UnitOperands>,
    fetched: Fifo<IfmBlockJob, 1, 2>,
    ifm_unit: IfmUnit,
    beat_issue: BeatIssue,
    beat_tags: Fifo<BeatTag, 3, 4>,
    /// Each core's weights, MAC unit and scale/bias records.
    cores: Vec<Core>,
    word_windows: WordWindows,
    readout_tags: Fifo<ReadoutTag, 2, 3>,
    /// Each core's output unit, in lockstep (elementwise operations: core
    /// 0's, or both in parallel mode).
    output_units: Vec<OutputUnit>,
    output_tags: Fifo<OfmPosition, 3, 4>,
    window: WindowCount,
    ofm_writer: OfmWriter,

    operation: ResetReg<KernelOperation>,
    /// The IFM fetch has put the current job's IFM copies out: IFM2's are next.
    fetching_ifm2: ResetReg<Bit>,
    active: ResetReg<Bit>,
    starting: ResetReg<Bit>,
    /// IFM blocks whose last copy is in the shared buffer, not yet walked.
    filled: ResetReg<Bits<2>>,
    /// The current readout word's next position.
    position: ResetReg<Bits<2>>,
    faulted: ResetReg<Bit>,
    /// Bit k: output unit k has taken the current elementwise beat.
    units_taken: ResetReg<Bits<2>>,
    /// Cycles left to run after the last operation ended.
    settling: ResetReg<Bits<2>>,

    job: Signal<Local, IfmBlockJob>,
    elementwise: Signal<Local, Bit>,
    reads_ifm2: Signal<Local, Bit>,
    ifm2_job: Signal<Local, IfmBlockJob>,
    ifm_job_fetched: Signal<Local, Bit>,
    elementwise_fire: Signal<Local, Bit>,
    /// Elementwise in parallel mode on two cores: each output unit takes
    /// half of each operand group.
    paired_elementwise: Signal<Local, Bit>,
    /// Bit k: output unit k takes the elementwise beat this cycle.
    units_firing: Signal<Local, Bits<2>>,
    /// Bit k: output unit k has taken or takes the beat.
    units_having: Signal<Local, Bits<2>>,
    units_done: Signal<Local, Bit>,
    positions_left: Signal<Local, Bits<4>>,
    positions_after: Signal<Local, Bits<4>>,
    word: Signal<Local, Readout>,
    parallel: Signal<Local, Bit>,
    /// Depthwise in parallel mode: a core's IFM channels are every other
    /// one of its IFM blocks.
    interleaved: Signal<Local, Bit>,
    /// Bit k: core k takes the job (core 1 beside core 0 where it has
    /// channels, parallel mode), and the same for the beat at the MAC units.
    head_cores: Signal<Local, Bits<2>>,
    head_stream_ends: Signal<Local, Bits<2>>,
    slice_finished: Signal<Local, Bit>,
    operand: Signal<Local, crate::mac_unit::OperandBeat>,
    paired_job: Signal<Local, Bit>,
    cores_room: Signal<Local, Bit>,
    cores_ready: Signal<Local, Bit>,
    cores_fault: Signal<Local, Bit>,
    cores_idle: Signal<Local, Bit>,
    /// Bit k: the job taken starts core k's weight stream, or its scale
    /// records (unless the lookahead queued them already).
    job_weights: Signal<Local, Bits<2>>,
    job_scales: Signal<Local, Bits<2>>,
    weights_rooms: Signal<Local, Bits<2>>,
    scales_rooms: Signal<Local, Bits<2>>,
    /// The lookahead queues its reads this cycle.
    looking_ahead: Signal<Local, Bit>,
    taken: Signal<Local, Bit>,
    front_pool: Signal<Local, Bit>,
    front_per_channel: Signal<Local, Bit>,
    readout_ready: Signal<Local, Bit>,
    results_valid: Signal<Local, Bit>,
    acc_read: Signal<Local, crate::mac_unit::AccRead>,
    /// Core 1's word beside core 0's (parallel mode): at the output units,
    /// at the OFM writer.
    word_paired: Signal<Local, Bit>,
    result_paired: Signal<Local, Bit>,
    paired_ready: Signal<Local, Bit>,
    /// Core 0's output unit's beat (or an elementwise one).
    unit_beat: Signal<Local, AccumulatorBeat>,
    unit_valid: Signal<Local, Bit>,
    units_ready: Signal<Local, Bit>,
    paired_units_ready: Signal<Local, Bit>,
    paired_result: Signal<Local, ResultBeat>,
    paired_results_ready: Signal<Local, Bit>,
    result_fire: Signal<Local, Bit>,
    /// The readout word's first OFM channel.
    word_channel: Signal<Local, Bits<16>>,
    per_channel: Signal<Local, Bit>,
    tee_ready: Signal<Local, Bit>,
    job_taken: Signal<Local, Bit>,
    joined: Signal<Local, Bit>,
    tag: Signal<Local, BeatTag>,
    to_mac: Signal<Local, Bit>,
    join_fire: Signal<Local, Bit>,
    filled_taken: Signal<Local, Bit>,
    group_ready: Signal<Local, Bit>,
    position_present: Signal<Local, Bit>,
    last_position: Signal<Local, Bit>,
    stage_fire: Signal<Local, Bit>,
    word_done: Signal<Local, Bit>,
    idle: Signal<Local, Bit>,
    /// NPU_OP_POOL: no weight stream; unit weights instead.
    pool: Signal<Local, Bit>,
    unit_lanes: Signal<Local, Bits<8>>,
    unit_weights: Signal<Local, Bits<576>>,
    groups_ready: Signal<Local, Bit>,
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
            ifm_fills: Default::default(),
            ifm_filled: Default::default(),
            weight_reads: per_core(cores),
            weight_beats: per_core(cores),
            scale_reads: per_core(cores),
            scale_beats: per_core(cores),
            ofm_writes: Default::default(),
            writes_done: Default::default(),
            ifm_busy: Default::default(),
            ofm_busy: Default::default(),
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
            lookahead: Default::default(),
            job_streams: Default::default(),
            traversal: Default::default(),
            ifm_fetch: Default::default(),
            ifm2_fetch: Default::default(),
            operand_reader: Default::default(),
            unit_operands: (0..cores).map(UnitOperands::new).collect(),
            fetched: Default::default(),
            beat_issue: Default::default(),
            ifm_unit: IfmUnit::new(config.shram_kib as usize * 1024 / config.cores as usize),
            beat_tags: Default::default(),
            cores: (0..cores).map(Core::new).collect(),
            word_windows: Default::default(),
            readout_tags: Default::default(),
            output_units: (0..cores)
                .map(|_| OutputUnit::new(config.cores as usize))
                .collect(),
            output_tags: Default::default(),
            window: Default::default(),
            ofm_writer: Default::default(),
            operation: Default::default(),
            fetching_ifm2: Default::default(),
            active: Default::default(),
            starting: Default::default(),
            filled: Default::default(),
            position: Default::default(),
            faulted: Default::default(),
            units_taken: Default::default(),
            settling: Default::default(),
            job: Default::default(),
            elementwise: Default::default(),
            reads_ifm2: Default::default(),
            ifm2_job: Default::default(),
            ifm_job_fetched: Default::default(),
            paired_elementwise: Default::default(),
            units_firing: Default::default(),
            units_having: Default::default(),
            units_done: Default::default(),
            elementwise_fire: Default::default(),
            positions_left: Default::default(),
            positions_after: Default::default(),
            word: Default::default(),
            parallel: Default::default(),
            interleaved: Default::default(),
            head_cores: Default::default(),
            head_stream_ends: Default::default(),
            slice_finished: Default::default(),
            operand: Default::default(),
            paired_job: Default::default(),
            cores_room: Default::default(),
            cores_ready: Default::default(),
            cores_fault: Default::default(),
            cores_idle: Default::default(),
            job_weights: Default::default(),
            job_scales: Default::default(),
            weights_rooms: Default::default(),
            scales_rooms: Default::default(),
            looking_ahead: Default::default(),
            taken: Default::default(),
            front_pool: Default::default(),
            front_per_channel: Default::default(),
            readout_ready: Default::default(),
            results_valid: Default::default(),
            acc_read: Default::default(),
            word_paired: Default::default(),
            result_paired: Default::default(),
            paired_ready: Default::default(),
            unit_beat: Default::default(),
            unit_valid: Default::default(),
            units_ready: Default::default(),
            paired_units_ready: Default::default(),
            paired_result: Default::default(),
            paired_results_ready: Default::default(),
            result_fire: Default::default(),
            word_channel: Default::default(),
            per_channel: Default::default(),
            tee_ready: Default::default(),
            job_taken: Default::default(),
            joined: Default::default(),
            tag: Default::default(),
            to_mac: Default::default(),
            join_fire: Default::default(),
            filled_taken: Default::default(),
            group_ready: Default::default(),
            position_present: Default::default(),
            last_position: Default::default(),
            stage_fire: Default::default(),
            word_done: Default::default(),
            idle: Default::default(),
            pool: Default::default(),
            unit_lanes: Default::default(),
            unit_weights: Default::default(),
            groups_ready: Default::default(),
        }
    }
}

impl Logic for Datapath {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            operation,
            fetching_ifm2,
            active,
            starting,
            filled,
            position,
            faulted,
            units_taken,
            settling
        );
        self.units_taken.rst_n.next = self.rst_n.val();
        self.settling.rst_n.next = self.rst_n.val();
        self.faulted.rst_n.next = self.rst_n.val();
        self.operation.rst_n.next = self.rst_n.val();
        self.fetching_ifm2.rst_n.next = self.rst_n.val();
        self.active.rst_n.next = self.rst_n.val();
        self.starting.rst_n.next = self.rst_n.val();
        self.filled.rst_n.next = self.rst_n.val();
        self.position.rst_n.next = self.rst_n.val();
        self.front_end.clock.next = self.clock.val();
        self.front_end.rst_n.next = self.rst_n.val();
        self.lookahead.clock.next = self.clock.val();
        self.lookahead.rst_n.next = self.rst_n.val();
        self.traversal.clock.next = self.clock.val();
        self.traversal.rst_n.next = self.rst_n.val();
        self.ifm_fetch.clock.next = self.clock.val();
        self.ifm_fetch.rst_n.next = self.rst_n.val();
        self.ifm2_fetch.clock.next = self.clock.val();
        self.ifm2_fetch.rst_n.next = self.rst_n.val();
        self.operand_reader.clock.next = self.clock.val();
        self.operand_reader.rst_n.next = self.rst_n.val();
        self.fetched.clock.next = self.clock.val();
        self.fetched.rst_n.next = self.rst_n.val();
        self.ifm_unit.clock.next = self.clock.val();
        self.ifm_unit.rst_n.next = self.rst_n.val();
        self.beat_tags.clock.next = self.clock.val();
        self.beat_tags.rst_n.next = self.rst_n.val();
        for k in 0..self.cores.len() {
            self.cores[k].clock.next = self.clock.val();
            self.cores[k].rst_n.next = self.rst_n.val();
        }
        self.readout_tags.clock.next = self.clock.val();
        self.readout_tags.rst_n.next = self.rst_n.val();
        for k in 0..self.output_units.len() {
            self.output_units[k].clock.next = self.clock.val();
            self.output_units[k].rst_n.next = self.rst_n.val();
        }
        self.output_tags.clock.next = self.clock.val();
        self.output_tags.rst_n.next = self.rst_n.val();
        self.ofm_writer.clock.next = self.clock.val();
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
        self.front_end.lookahead_done.next = self.lookahead.done.val();
        self.front_end.fetched_count.next = self.fetched.count.val();
        self.front.operation.next = self.operation.q.val();
        if self.front_end.front_next.val() {
            self.front.operation.next = self.operations.data.val();
        }
        self.traversal.walk_shape.next = self.front.shape.val();
        self.front_per_channel.next = self.front.per_channel.val();
        self.front_pool.next = self.front.shape.val().pool;
        // Its first weight stream and scale records (`Lookahead`).
        self.lookahead.front_next.next = self.front_end.front_next.val();
        self.lookahead.shape.next = self.front.shape.val();
        self.lookahead.per_channel.next = self.front_per_channel.val();
        self.lookahead.taken.next = self.taken.val();
        self.weights_rooms.next = 3.into();
        self.scales_rooms.next = 3.into();
        for k in 0..self.cores.len() {
            self.weights_rooms.next = self
                .weights_rooms
                .val()
                .replace_bit(k, self.cores[k].weights_room.val());
            self.scales_rooms.next = self
                .scales_rooms
                .val()
                .replace_bit(k, self.cores[k].scales_room.val());
        }
        self.lookahead.weights_room.next = self.weights_rooms.val();
        self.lookahead.scales_room.next = self.scales_rooms.val();
        self.looking_ahead.next =
            (self.lookahead.start_weights.val() | self.lookahead.start_scales.val()) != 0;
        // Its block walk and first IFM block, where BLOCKDEP and the shared
        // buffer allow.
        self.traversal.start.next = (self.starting.q.val() & !self.front_end.walk_early.val())
            | self.front_end.early_start.val();

        // ---- IFM blocks: to the fetch, the weight and scale streams ----
        self.job.next = self.traversal.ifm_blocks.data.val();
        // The fetch takes a job with its last copy, so it sees the job
        // while the queues beside it have room (which only a taken job
        // uses up).
        self.cores_room.next = true;
        for k in 0..self.cores.len() {
            self.cores_room.next = self.cores_room.val()
                & self.cores[k].weights_room.val()
                & self.cores[k].scales_room.val();
        }
        self.tee_ready.next = self.fetched.tail.ready.val() & self.cores_room.val();
        // Elementwise: a job's IFM copies, then its IFM2 copies, the last
        // of those ending the block (the DMA's `ifm_filled`).
        self.elementwise.next = self.decoder.elementwise.val();
        self.reads_ifm2.next = self.front.reads_ifm2.val();
        self.ifm_fetch.jobs.valid.next = self.traversal.ifm_blocks.valid.val()
            & self.tee_ready.val()
            & self.front_end.jobs_allowed.val()
            & !self.fetching_ifm2.q.val();
        self.ifm2_fetch.jobs.valid.next = self.traversal.ifm_blocks.valid.val()
            & self.tee_ready.val()
            & self.front_end.jobs_allowed.val()
            & self.fetching_ifm2.q.val();
        self.ifm_job_fetched.next =
            self.ifm_fetch.jobs.valid.val() & self.ifm_fetch.jobs.ready.val();
        if self.ifm_job_fetched.val() & self.reads_ifm2.val() {
            self.fetching_ifm2.d.next = true;
        }
        self.traversal.ifm_blocks.ready.next = ((self.ifm_fetch.jobs.ready.val()
            & !self.reads_ifm2.val()
            & !self.fetching_ifm2.q.val())
            | (self.ifm2_fetch.jobs.ready.val() & self.fetching_ifm2.q.val()))
            & self.front_end.jobs_allowed.val();
        self.job_taken.next =
            self.traversal.ifm_blocks.valid.val() & self.traversal.ifm_blocks.ready.val();
        if self.job_taken.val() {
            self.fetching_ifm2.d.next = false;
        }
        self.front_end.job_taken.next = self.job_taken.val();
        self.front_end.job_first.next = self.job.val().first;
        self.ifm_fetch.jobs.data.next = self.job.val();
        self.ifm_fetch.view.next = self.front.ifm_view.val();
        self.ifm_fetch.buffers.next = self.front.ifm_buffers.val();
        // IFM2's block: the IFM block with its broadcast dimensions 1.
        self.ifm2_job.next = self.job.val();
        if self.front.operand_settings.val().broadcast_h {
            self.ifm2_job.next.y0 = 0.into();
            self.ifm2_job.next.height = 1.into();
        }
        if self.front.operand_settings.val().broadcast_w {
            self.ifm2_job.next.x0 = 0.into();
            self.ifm2_job.next.width = 1.into();
        }
        if self.front.operand_settings.val().broadcast_c {
            self.ifm2_job.next.channel0 = 0.into();
            self.ifm2_job.next.channels = 1.into();
        }
        self.ifm2_fetch.jobs.data.next = self.ifm2_job.val();
        self.ifm2_fetch.view.next = self.front.ifm2_view.val();
        self.ifm2_fetch.buffers.next = self.front.ifm2_buffers.val();
        self.ifm_fills.valid.next = self.ifm_fetch.fills.valid.val();
        self.ifm_fills.data.next = self.ifm_fetch.fills.data.val();
        if self.reads_ifm2.val() {
            self.ifm_fills.data.next.block_end = false;
        }
        self.ifm_fetch.fills.ready.next = self.ifm_fills.ready.val() & !self.fetching_ifm2.q.val();
        self.ifm2_fetch.fills.ready.next = self.ifm_fills.ready.val() & self.fetching_ifm2.q.val();
        if self.fetching_ifm2.q.val() {
            self.ifm_fills.valid.next = self.ifm2_fetch.fills.valid.val();
            self.ifm_fills.data.next = self.ifm2_fetch.fills.data.val();
        }
        // The weight streams and scale records the job queues (TRM 4.7.5,
        // `JobStreams`).
        self.paired_job.next = self.job.val().paired_depth != 0;
        self.job_streams.first.next = self.job.val().first;
        self.job_streams.depth_start.next = self.job.val().ofm_z == 0;
        self.job_streams.paired.next = self.paired_job.val();
        self.job_streams.pool.next = self.front_pool.val();
        self.job_streams.per_channel.next = self.front_per_channel.val();
        self.job_weights.next = 0.into();
        self.job_scales.next = 0.into();
        if self.job_taken.val() {
            self.job_weights.next = self.job_streams.weights.val();
            self.job_scales.next = self.job_streams.scales.val();
        }
        for k in 0..self.cores.len() {
            self.cores[k].view.next = self.front.weights_view.val();
            self.cores[k].depthwise.next = self.decoder.shape.val().depthwise;
            self.cores[k].halt.next = self.faulted.q.val();
            self.cores[k].next_weights.next = self.lookahead.held.val().get_bit(k);
            self.cores[k].next_scales.next = self.lookahead.held_scales.val().get_bit(k);
            self.cores[k].start_weights.next = (self.job_weights.val().get_bit(k)
                & !self.lookahead.weights_ahead.val().get_bit(k))
                | self.lookahead.start_weights.val().get_bit(k);
            self.cores[k].start_scales.next = (self.job_scales.val().get_bit(k)
                & !self.lookahead.scales_ahead.val().get_bit(k))
                | self.lookahead.start_scales.val().get_bit(k);
            self.cores[k].scale_channel.next = self.job.val().ofm_z;
            self.cores[k].scale_depth.next = self.job.val().ofm_depth;
            if self.looking_ahead.val() {
                self.cores[k].scale_channel.next = 0.into();
                self.cores[k].scale_depth.next = self.lookahead.scale_depth.val();
            }
            StreamOut::<StreamRead>::link(
                &mut self.weight_reads[k],
                &mut self.cores[k].weight_reads,
            );
            StreamIn::<LaneBeat>::link(&mut self.weight_beats[k], &mut self.cores[k].weight_beats);
            StreamOut::<StreamRead>::link(&mut self.scale_reads[k], &mut self.cores[k].scale_reads);
            StreamIn::<LaneBeat>::link(&mut self.scale_beats[k], &mut self.cores[k].scale_beats);
        }
        // Core 1 beside core 0: its own depth.
        for k in 1..self.cores.len() {
            if self.paired_job.val() {
                self.cores[k].scale_depth.next = self.job.val().paired_depth;
            }
            if self.looking_ahead.val() {
                self.cores[k].scale_depth.next = self.lookahead.paired_scale_depth.val();
            }
        }
        self.lookahead.weights_used.next = self.job_weights.val();
        self.lookahead.scales_used.next = self.job_scales.val();
        self.fetched.tail.valid.next = self.job_taken.val();
        self.fetched.tail.data.next = self.job.val();

        // An IFM block is walked once its last copy is in the shared buffer.
        // (Elementwise: read by the operand reader, not walked in beats.)
        self.traversal.filled.valid.next = self.fetched.head.valid.val()
            & (self.filled.q.val() != 0)
            & !self.front_end.fetched_ahead.val()
            & !self.elementwise.val();
        self.traversal.filled.data.next = self.fetched.head.data.val();
        self.operand_reader.jobs.valid.next = self.fetched.head.valid.val()
            & (self.filled.q.val() != 0)
            & !self.front_end.fetched_ahead.val()
            & self.elementwise.val();
        self.operand_reader.jobs.data.next = self.fetched.head.data.val();
        self.filled_taken.next = (self.traversal.filled.valid.val()
            & self.traversal.filled.ready.val())
            | (self.operand_reader.jobs.valid.val() & self.operand_reader.jobs.ready.val());
        self.fetched.head.ready.next = self.filled_taken.val();
        if self.ifm_filled.val() & !self.filled_taken.val() {
            self.filled.d.next = self.filled.q.val() + 1;
        }
        if !self.ifm_filled.val() & self.filled_taken.val() {
            self.filled.d.next = self.filled.q.val() - 1;
        }

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

        // ---- MAC beats: activations + tag + each of its cores' weight group ----
        self.tag.next = self.beat_tags.head.data.val();
        self.head_cores.next = self.tag.val().cores;
        self.head_stream_ends.next = self.tag.val().stream_ends;
        // A pool's beats take no weight group.
        self.groups_ready.next = true;
        for k in 0..self.cores.len() {
            if self.head_cores.val().get_bit(k)
                & !self.pool.val()
                & !self.cores[k].group_ready.val()
            {
                self.groups_ready.next = false;
            }
        }
        self.joined.next = self.ifm_unit.acts.valid.val()
            & self.beat_tags.head.valid.val()
            & self.groups_ready.val()
            & !self.faulted.q.val();
        // A skip beat multiplies nothing, except that a slice's last beat
        // always reaches the MAC unit (with zero weights) for `slice_done`.
        self.to_mac.next = !self.tag.val().skip | self.tag.val().slice_end;
        self.operand.next.acts = self.ifm_unit.acts.data.val().acts;
        // Unit weights: weight (0, k) of a convolution-shaped beat, of
        // channel k of a depthwise one, both in bits 9k+8..9k.
        self.unit_lanes.next = self.tag.val().unit_lanes;
        self.unit_weights.next = 0.into();
        for k in 0..8_usize {
            if self.unit_lanes.val().get_bit(k) {
                self.unit_weights.next =
                    self.unit_weights.val() | (bits::<576>(1) << (9 * k).to_bits::<10>());
            }
        }
        // A pool's unit weights (a core multiplies its group instead,
        // `Core::multiply_group`); a skip beat's zeros.
        self.operand.next.weights = self.unit_weights.val();
        if self.tag.val().skip {
            self.operand.next.weights = 0.into();
        }
        self.operand.next.acc_address = self.tag.val().acc_address;
        self.operand.next.first = self.tag.val().first;
        self.operand.next.slice_end = self.tag.val().slice_end;
        self.operand.next.depthwise = self.decoder.shape.val().depthwise;
        self.operand.next.byte = self.tag.val().byte;
        self.operand.next.max = self.decoder.pool_max.val();
        self.operand.next.low = self.decoder.ifm_wide.val() & (self.tag.val().byte == 0);
        // The beat's cores take it together (a MAC unit's `ready` does not
        // depend on its `valid`).
        self.cores_ready.next = true;
        for k in 0..self.cores.len() {
            if self.head_cores.val().get_bit(k) & !self.cores[k].operands.ready.val() {
                self.cores_ready.next = false;
            }
        }
        for k in 0..self.cores.len() {
            self.cores[k].operands.valid.next = self.joined.val()
                & self.to_mac.val()
                & self.cores_ready.val()
                & self.head_cores.val().get_bit(k);
            self.cores[k].operands.data.next = self.operand.val();
            self.cores[k].odd_acts.next = self.ifm_unit.acts.data.val().odd_acts;
            self.cores[k].interleaved.next = self.interleaved.val();
            self.cores[k].multiply_group.next = !self.pool.val() & !self.tag.val().skip;
        }
        self.join_fire.next = self.joined.val() & (!self.to_mac.val() | self.cores_ready.val());
        self.ifm_unit.acts.ready.next = self.join_fire.val();
        self.beat_tags.head.ready.next = self.join_fire.val();
        // Each core's weight groups and stream state (its faults: golden
        // OpError::Weights); any fault stops the operation.
        self.slice_finished.next = false;
        self.cores_fault.next = false;
        self.clearing.next = false;
        for k in 0..self.cores.len() {
            self.cores[k].group_taken.next = self.join_fire.val()
                & self.tag.val().group_end
                & !self.pool.val()
                & self.head_cores.val().get_bit(k);
            self.cores[k].stream_used.next = self.join_fire.val()
                & self.tag.val().group_end
                & self.head_stream_ends.val().get_bit(k);
            self.cores[k].group_wanted.next =
                self.beat_tags.head.valid.val() & self.head_cores.val().get_bit(k);
            self.cores[k].clear.next = self.clear.val();
            self.slice_finished.next = self.slice_finished.val() | self.cores[k].slice_done.val();
            self.cores_fault.next = self.cores_fault.val() | self.cores[k].fault.val();
            self.clearing.next = self.clearing.val() | self.cores[k].clearing.val();
        }
        // Both cores of a paired beat finish a slice in the same cycle.
        self.traversal.slice_done.next = self.slice_finished.val();
        // The IFM block's last activations are out of the shared buffer.
        self.traversal.ib_read.next =
            (self.join_fire.val() & self.tag.val().job_end) | self.operand_reader.released.val();
        if self.cores_fault.val() {
            self.faulted.d.next = true;
        }
        self.fault.next = self.faulted.q.val();
        self.fault_offset.next = self.operation.q.val().offset;

        // ---- Readout: each core's accumulator word to its output unit ----
        // Core 1's word beside core 0's at the same address (parallel mode).
        self.acc_read.next.address = self.traversal.readouts.data.val().acc_address;
        // Both words are read at once: each core's request waits for the
        // other's readiness (a MAC unit's readout `ready` does not depend on
        // its `valid`).
        self.readout_ready.next = self.cores[0].readout.ready.val();
        for k in 1..self.cores.len() {
            if (self.traversal.readouts.data.val().paired_channels != 0)
                & !self.cores[k].readout.ready.val()
            {
                self.readout_ready.next = false;
            }
        }
        self.cores[0].readout.valid.next = self.traversal.readouts.valid.val()
            & self.readout_tags.tail.ready.val()
            & self.readout_ready.val();
        self.cores[0].readout.data.next = self.acc_read.val();
        for k in 1..self.cores.len() {
            self.cores[k].readout.valid.next = self.traversal.readouts.valid.val()
                & self.readout_tags.tail.ready.val()
                & self.readout_ready.val()
                & (self.traversal.readouts.data.val().paired_channels != 0);
            self.cores[k].readout.data.next = self.acc_read.val();
        }
        self.traversal.readouts.ready.next =
            self.readout_ready.val() & self.readout_tags.tail.ready.val();
        self.readout_tags.tail.valid.next =
            self.traversal.readouts.valid.val() & self.readout_ready.val();
        self.readout_tags.tail.data.next.word = self.traversal.readouts.data.val();
        self.word_windows.oy.next = self.traversal.readouts.data.val().oy;
        self.word_windows.ox.next = self.traversal.readouts.data.val().ox;
        self.word_windows.shape.next = self.decoder.shape.val();
        self.readout_tags.tail.data.next.windows = self.word_windows.taps.val();

        // The words' accumulators, and the records of their slice
        // (per-channel scaling) gathered ahead by each core's scale sets.
        self.word.next = self.readout_tags.head.data.val().word;
        self.word_paired.next =
            self.readout_tags.head.valid.val() & (self.word.val().paired_channels != 0);
        self.paired_ready.next = true;
        for k in 1..self.cores.len() {
            if self.word_paired.val()
                & (!self.cores[k].results_valid.val()
                    | (self.per_channel.val() & !self.cores[k].sets_valid.val()))
            {
                self.paired_ready.next = false;
            }
        }
        self.results_valid.next = self.cores[0].results_valid.val() & self.paired_ready.val();
        self.group_ready.next = !self.per_channel.val() | self.cores[0].sets_valid.val();

        // One output-unit beat per position of the words that is in the
        // block, to both cores' output units at once.
        self.positions_left.next =
            self.word.val().positions >> bit_cast::<4, 2>(self.position.q.val());
        self.positions_after.next = self.positions_left.val() >> 1;
        self.position_present.next = self.positions_left.val().get_bit(0);
        self.last_position.next = self.positions_after.val() == 0;
        // Each core's beat of the position (its accumulators, records and LUT).
        self.window.taps.next = self.readout_tags.head.data.val().windows;
        self.window.position.next = self.position.q.val();
        self.window.one_row.next = self.decoder.shape.val().one_row;
        self.cores[0].channels.next = self.word.val().channels;
        for k in 0..self.cores.len() {
            self.cores[k].position.next = self.position.q.val();
            self.cores[k].count.next = self.window.count.val();
        }
        for k in 1..self.cores.len() {
            self.cores[k].channels.next = self.word.val().paired_channels;
        }
        // Core 1's output unit (when the words are paired) takes the beat
        // with core 0's. An output unit's `ready` may depend on its `valid`
        // (a wide elementwise beat's steps), so core 0's `valid` waits only
        // for the other unit.
        self.paired_units_ready.next = true;
        for k in 1..self.output_units.len() {
            if self.word_paired.val() & !self.output_units[k].accumulators.ready.val() {
                self.paired_units_ready.next = false;
            }
        }
        self.units_ready.next =
            self.output_units[0].accumulators.ready.val() & self.paired_units_ready.val();
        // Each signal below is assigned before anything reads it, so the
        // block has no read-before-write loop and Verilator can split it:
        // a block left whole is evaluated on every cycle of the ungated
        // clock domains it reads, the datapath's clock gated or not.
        self.unit_valid.next = self.results_valid.val()
            & self.readout_tags.head.valid.val()
            & self.group_ready.val()
            & self.position_present.val()
            & self.output_tags.tail.ready.val();
        self.unit_beat.next = self.cores[0].beat.val();
        // Elementwise: the operand reader's groups instead, to core 0's
        // output unit, or halved between both (`UnitOperands`). Each unit
        // takes the beat when it is ready (a wide beat takes several
        // cycles); the group goes when every unit has it.
        for k in 0..self.unit_operands.len() {
            self.unit_operands[k].group.next = self.operand_reader.operands.data.val();
            self.unit_operands[k].paired.next = self.paired_elementwise.val();
        }
        if self.elementwise.val() {
            self.unit_valid.next =
                self.operand_reader.operands.valid.val() & self.output_tags.tail.ready.val();
            self.unit_beat.next = self.unit_operands[0].beat.val();
        }
        self.stage_fire.next = self.results_valid.val()
            & self.readout_tags.head.valid.val()
            & self.group_ready.val()
            & (!self.position_present.val()
                | (self.units_ready.val() & self.output_tags.tail.ready.val()));
        self.output_units[0].accumulators.valid.next =
            self.unit_valid.val() & self.paired_units_ready.val();
        if self.elementwise.val() {
            self.output_units[0].accumulators.valid.next =
                self.unit_valid.val() & !self.units_taken.q.val().get_bit(0);
        }
        self.output_units[0].accumulators.data.next = self.unit_beat.val();
        for k in 0..self.output_units.len() {
            self.output_units[k].settings.next = self.decoder.output_settings.val();
            self.output_units[k].lut_write.next = self.lut_write.val();
        }
        for k in 1..self.output_units.len() {
            self.output_units[k].accumulators.valid.next = self.unit_valid.val()
                & self.units_ready.val()
                & self.word_paired.val()
                & !self.elementwise.val();
            self.output_units[k].accumulators.data.next = self.cores[k].beat.val();
            if self.elementwise.val() {
                self.output_units[k].accumulators.valid.next = self.unit_valid.val()
                    & self.paired_elementwise.val()
                    & !self.units_taken.q.val().get_bit(1);
                self.output_units[k].accumulators.data.next = self.unit_operands[k].beat.val();
            }
        }
        self.units_firing.next = 0.into();
        if self.output_units[0].accumulators.valid.val()
            & self.output_units[0].accumulators.ready.val()
        {
            self.units_firing.next = 1.into();
        }
        for k in 1..self.output_units.len() {
            if self.output_units[k].accumulators.valid.val()
                & self.output_units[k].accumulators.ready.val()
            {
                self.units_firing.next = self.units_firing.val() | 2;
            }
        }
        self.units_having.next = self.units_taken.q.val() | self.units_firing.val();
        self.units_done.next = self.units_having.val().get_bit(0)
            & (self.units_having.val().get_bit(1) | !self.paired_elementwise.val());
        self.operand_reader.operands.ready.next =
            self.elementwise.val() & self.output_tags.tail.ready.val() & self.units_done.val();
        self.elementwise_fire.next =
            self.operand_reader.operands.valid.val() & self.operand_reader.operands.ready.val();
        if self.elementwise.val() {
            self.units_taken.d.next = self.units_taken.q.val() | self.units_firing.val();
        }
        if self.elementwise_fire.val() {
            self.units_taken.d.next = 0.into();
        }
        self.output_tags.tail.valid.next =
            self.unit_valid.val() & self.units_ready.val() & !self.elementwise.val();
        // Position p of a 2x2 microblock is (oy + p / 2, ox + p % 2), of a
        // 1x4 one (a one-row OFM) (oy, ox + p).
        self.output_tags.tail.data.next.y =
            self.word.val().oy + bit_cast::<16, 2>(self.position.q.val() >> 1);
        self.output_tags.tail.data.next.x =
            self.word.val().ox + bit_cast::<16, 2>(self.position.q.val() & 1);
        if self.decoder.shape.val().one_row {
            self.output_tags.tail.data.next.y = self.word.val().oy;
            self.output_tags.tail.data.next.x =
                self.word.val().ox + bit_cast::<16, 2>(self.position.q.val());
        }
        // Parallel mode: local channel oz of core k is OFM channel 2oz + k.
        self.word_channel.next = self.word.val().oz;
        if self.parallel.val() {
            self.word_channel.next = self.word.val().oz << 1;
        }
        self.output_tags.tail.data.next.c = self.word_channel.val();
        self.output_tags.tail.data.next.paired = self.word_paired.val();
        if self.elementwise.val() {
            self.output_tags.tail.valid.next = self.elementwise_fire.val();
            self.output_tags.tail.data.next.y = self.operand_reader.operands.data.val().y;
            self.output_tags.tail.data.next.x = self.operand_reader.operands.data.val().x;
            self.output_tags.tail.data.next.c = self.operand_reader.operands.data.val().c;
            self.output_tags.tail.data.next.paired = self.paired_elementwise.val();
        }
        self.word_done.next = self.stage_fire.val() & self.last_position.val();
        if self.stage_fire.val() {
            self.position.d.next = self.position.q.val() + 1;
        }
        if self.word_done.val() {
            self.position.d.next = 0.into();
        }
        self.cores[0].sets_taken.next =
            self.word_done.val() & self.word.val().group_end & self.per_channel.val();
        self.cores[0].results_taken.next = self.word_done.val();
        for k in 1..self.cores.len() {
            self.cores[k].sets_taken.next = self.word_done.val()
                & self.word.val().group_end
                & self.per_channel.val()
                & self.word_paired.val();
            self.cores[k].results_taken.next = self.word_done.val() & self.word_paired.val();
        }
        self.readout_tags.head.ready.next = self.word_done.val();

        // ---- OFM: both cores' results of a position to the OFM writer ----
        self.result_paired.next =
            self.output_tags.head.valid.val() & self.output_tags.head.data.val().paired;
        self.ofm_writer.view.next = self.decoder.ofm_view.val();
        self.ofm_writer.results.data.next.values = self.output_units[0].results.data.val().values;
        self.ofm_writer.results.data.next.lanes = self.output_units[0].results.data.val().lanes;
        self.ofm_writer.results.data.next.paired_values = 0.into();
        self.ofm_writer.results.data.next.paired_lanes = 0.into();
        self.paired_results_ready.next = true;
        self.paired_result.next = self.output_units[0].results.data.val();
        for k in 1..self.output_units.len() {
            self.paired_result.next = self.output_units[k].results.data.val();
            if self.result_paired.val() & !self.output_units[k].results.valid.val() {
                self.paired_results_ready.next = false;
            }
        }
        if self.result_paired.val() {
            self.ofm_writer.results.data.next.paired_values = self.paired_result.val().values;
            self.ofm_writer.results.data.next.paired_lanes = self.paired_result.val().lanes;
        }
        self.ofm_writer.results.valid.next = self.output_units[0].results.valid.val()
            & self.paired_results_ready.val()
            & self.output_tags.head.valid.val();
        self.ofm_writer.results.data.next.y = self.output_tags.head.data.val().y;
        self.ofm_writer.results.data.next.x = self.output_tags.head.data.val().x;
        self.ofm_writer.results.data.next.c = self.output_tags.head.data.val().c;
        self.ofm_writer.results.data.next.spread =
            self.parallel.val() | self.paired_elementwise.val();
        self.result_fire.next =
            self.ofm_writer.results.valid.val() & self.ofm_writer.results.ready.val();
        self.output_units[0].results.ready.next = self.result_fire.val();
        for k in 1..self.output_units.len() {
            self.output_units[k].results.ready.next =
                self.result_fire.val() & self.result_paired.val();
        }
        self.output_tags.head.ready.next = self.result_fire.val();
        StreamOut::<OfmWrite>::link(&mut self.ofm_writes, &mut self.ofm_writer.writes);

        // ---- Done: nothing of the operation is left anywhere ----
        self.cores_idle.next = true;
        for k in 0..self.cores.len() {
            self.cores_idle.next = self.cores_idle.val() & self.cores[k].idle.val();
        }
        // (Nor of the next operation's first job, once fetched ahead.)
        self.writes_done.next = !self.starting.q.val()
            & !self.traversal.beats_busy.val()
            & (!self.traversal.blocks_busy.val() | self.front_end.walk_early.val())
            & (self.front_end.fetched_current.val() == 0)
            & self.cores_idle.val()
            & (self.beat_tags.count.val() == 0)
            & (self.readout_tags.count.val() == 0)
            & (self.output_tags.count.val() == 0)
            & !self.operand_reader.busy.val()
            & !self.ofm_writer.busy.val();
        // The weight and scale/bias channels may be reading the next
        // operation's first streams (`Lookahead`); this one's are all used.
        self.idle.next = self.writes_done.val()
            & !self.ofm_busy.val()
            & (!self.ifm_busy.val() | self.front_end.walk_early.val())
            & (!self.streams_busy.val()
                | ((self.lookahead.held.val() | self.lookahead.held_scales.val()) != 0));
        if self.active.q.val() & self.idle.val() {
            self.active.d.next = false;
        }
        self.busy.next = self.active.q.val();
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
            | (self.settling.q.val() != 0)
            | self.clear.val()
            | self.clearing.val()
            | (self.lut_write.val().cores != 0);

        // ---- PMU events (TRM table 4-79; definitions at `DatapathEvents`) ----
        self.events.next.mac_active = false;
        self.events.next.wd_active = false;
        for k in 0..self.cores.len() {
            if self.cores[k].operands.valid.val() & self.cores[k].operands.ready.val() {
                self.events.next.mac_active = true;
            }
            if self.cores[k].decoding.val() {
                self.events.next.wd_active = true;
            }
        }
        self.events.next.ao_active = self.output_units[0].accumulators.valid.val()
            & self.output_units[0].accumulators.ready.val();
        self.events.next.wide = self.decoder.ifm_wide.val();
    }
}
