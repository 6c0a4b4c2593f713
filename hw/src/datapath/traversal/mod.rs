//! The block traversal of a convolution (TRM 4.9, 4.7.5): the RTL of
//! `npu_model::schedule`, step for step; pools walk the same way
//! (`TraversalShape::pool`). Three walkers run at once, joined by streams and
//! credits, so fetching, multiplying and reading out overlap: [`BlockWalker`]
//! offers OFM blocks' IFM block jobs, [`BeatWalker`] one [`MacBeat`] per
//! weight group and microblock once a job's block is filled, and
//! [`ReadoutWalker`] each 8-channel slice once its last beat is in the
//! accumulators.
//!
//! Ports: `start` with `shape` ([`TraversalShape`], held until `busy` falls)
//! and `walk_shape` (the next operation's once this one's jobs are walked);
//! the streams `ifm_blocks`, `filled`, `beats`, `readouts`; `ib_read`, a pulse
//! once an IFM block's last beat is read (not merely offered: the next fill
//! would overwrite data the IFM unit still reads); `slice_done` from the MAC
//! unit; `busy` until the last readout is taken, `offering` until the last
//! job is. At most two jobs (IB0/IB1) are between `ifm_blocks` and `ib_read`.
//! The walkers in full: `docs/datapath.md`.

mod beats;
mod blocks;
mod readout;

pub use beats::BeatWalker;
pub use blocks::{BlockWalker, OfmBlockDepths};
pub use readout::ReadoutWalker;

use crate::stream::{StreamIn, StreamOut};
use crate::widgets::Fifo;
use rust_hdl::prelude::*;

/// A convolution's traversal parameters (`npu_model::schedule::ConvShape`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct TraversalShape {
    pub ofm_height: Bits<16>,
    pub ofm_width: Bits<16>,
    pub ofm_depth: Bits<16>,
    pub ifm_depth: Bits<16>,
    /// The upscaled IFM extent the kernel windows read.
    pub ifm_height: Bits<16>,
    pub ifm_width: Bits<16>,
    /// Kernel size before dilation.
    pub kernel_height: Bits<16>,
    pub kernel_width: Bits<16>,
    /// 1 to 3.
    pub stride_x: Bits<2>,
    pub stride_y: Bits<2>,
    /// 1 or 2.
    pub dilation_x: Bits<2>,
    pub dilation_y: Bits<2>,
    pub pad_top: Bits<16>,
    pub pad_left: Bits<16>,
    /// 2x2 upscaling (either mode): source coordinates are halved.
    pub upscale: Bit,
    pub depthwise: Bit,
    pub part_kernel_first: Bit,
    /// NPU_SET_KERNEL_STRIDE bit 5: sub-kernels of at most 4x4.
    pub decomposition_4x4: Bit,
    /// 16-bit IFM.
    pub wide: Bit,
    /// 32-bit IFM (an int32 REDUCE_SUM, TRM table 4-125): IFM blocks of 8
    /// channels, walked in 4-channel groups of four beats (bytes 0-3).
    pub int32: Bit,
    /// The OFM is one row (`ofm_height` 1): microblocks are 1x4, four
    /// consecutive positions of the row, instead of 2x2 (CONV1D rows of
    /// TRM tables 4-126/4-127 fill the MAC array).
    pub one_row: Bit,
    pub block_height: Bits<16>,
    pub block_width: Bits<16>,
    pub block_depth: Bits<16>,
    /// NPU_SET_PARALLEL_MODE 1 (TRM 4.7.5.1): OFM channels split between
    /// two cores, core k holding channels k, k + 2, ...; each core's blocks
    /// are half `block_depth` deep.
    pub parallel: Bit,
    /// NPU_OP_POOL (`npu_model::schedule::ConvShape::pool`): no weights, so
    /// kernel elements are not padded to whole weight groups.
    pub pool: Bit,
}

/// One IFM block operation (`npu_model::schedule::IfmBlockOp`): its OFM
/// block, the source-IFM rectangle to fetch (empty when `height` or `width`
/// is 0) and the sub-kernel.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct IfmBlockJob {
    pub ofm_y: Bits<16>,
    pub ofm_x: Bits<16>,
    pub ofm_z: Bits<16>,
    pub ofm_height: Bits<16>,
    pub ofm_width: Bits<16>,
    pub ofm_depth: Bits<16>,
    pub y0: Bits<16>,
    pub x0: Bits<16>,
    pub height: Bits<16>,
    pub width: Bits<16>,
    pub channel0: Bits<16>,
    pub channels: Bits<16>,
    pub sub_y: Bits<16>,
    pub sub_x: Bits<16>,
    pub sub_height: Bits<16>,
    pub sub_width: Bits<16>,
    pub first: Bit,
    pub last: Bit,
    /// The IFM buffer (IB0/IB1) it goes to.
    pub ib_half: Bit,
    /// Core 0's last OFM block in depth of this spatial block (its weight
    /// stream ends with it).
    pub last_depth: Bit,
    /// Parallel mode: `ofm_z` and `ofm_depth` count core 0's channels, and
    /// core 1's local channels `ofm_z..ofm_z + paired_depth` are computed
    /// beside them; whether this is core 1's last OFM block in depth.
    pub paired_depth: Bits<16>,
    pub paired_last_depth: Bit,
}

/// One MAC beat: the microblock at OFM (`oy`, `ox`) (top-left position),
/// kernel element (`ky`, `kx`), the 8 IFM channels from `ifm_channel` of
/// the IFM block and accumulator word `acc_address`.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct MacBeat {
    pub oy: Bits<16>,
    pub ox: Bits<16>,
    pub ky: Bits<16>,
    pub kx: Bits<16>,
    pub ifm_channel: Bits<16>,
    pub acc_address: Bits<9>,
    /// The accumulators start from zero.
    pub first: Bit,
    /// The part of multi-byte activations the beat carries: 1 the high
    /// byte of 16-bit ones, 0-3 the byte of 32-bit ones.
    pub byte: Bits<2>,
    /// Core 1 takes the beat too, with a weight group of its own (parallel
    /// mode, core 1 having the beat's OFM slice), and the beat is core 1's
    /// last of the OFM block.
    pub paired: Bit,
    pub paired_block_end: Bit,
    /// The weight group is all padding: consume it, multiply nothing.
    pub skip: Bit,
    /// The weight group's last beat: the next beat takes the next group.
    pub group_end: Bit,
    /// The IFM block's last beat: once its activations are read from the
    /// shared buffer, the consumer frees the block's IFM buffer (`ib_read`).
    pub job_end: Bit,
    /// The last beat of an 8-OFM-channel slice of the OFM block (in the
    /// block's last IFM block): the slice can be read out once it is in
    /// the accumulators.
    pub slice_end: Bit,
    /// The OFM block's last beat.
    pub block_end: Bit,
}

/// One accumulator word to read out: the microblock at OFM (`oy`, `ox`),
/// channels `oz..oz + channels`; bit p of `positions` says position p of
/// the microblock (raster order: (`oy` + p / 2, `ox` + p % 2) for 2x2,
/// (`oy`, `ox` + p) for 1x4) lies in the OFM block.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Readout {
    pub acc_address: Bits<9>,
    pub oy: Bits<16>,
    pub ox: Bits<16>,
    pub oz: Bits<16>,
    pub positions: Bits<4>,
    /// Channels of core 0's word, and of core 1's at the same address
    /// (parallel mode, `oz` counting each core's channels: OFM channel 2 *
    /// oz + core; 0 when core 1 has none).
    pub channels: Bits<4>,
    pub paired_channels: Bits<4>,
    /// The last word of these OFM channels (their scale records are used up).
    pub group_end: Bit,
    /// The OFM block's last word.
    pub block_end: Bit,
}

/// An OFM block whose last IFM block has started, toward the readout.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct FinishedBlock {
    pub ofm_y: Bits<16>,
    pub ofm_x: Bits<16>,
    pub ofm_z: Bits<16>,
    pub ofm_height: Bits<16>,
    pub ofm_width: Bits<16>,
    pub ofm_depth: Bits<16>,
    pub ab_half: Bit,
    /// Core 1's channels beside core 0's (parallel mode).
    pub paired_depth: Bits<16>,
}

#[derive(LogicBlock, Default)]
pub struct Traversal {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    /// The shape of the operation whose jobs are offered, and of the one
    /// whose beats and readouts are walked (the same but while the next
    /// operation's first job is fetched ahead).
    pub walk_shape: Signal<In, TraversalShape>,
    pub shape: Signal<In, TraversalShape>,
    pub ifm_blocks: StreamOut<IfmBlockJob>,
    pub filled: StreamIn<IfmBlockJob>,
    pub current: Signal<Out, IfmBlockJob>,
    pub beats: StreamOut<MacBeat>,
    pub ib_read: Signal<In, Bit>,
    pub slice_done: Signal<In, Bit>,
    pub readouts: StreamOut<Readout>,
    pub busy: Signal<Out, Bit>,
    pub offering: Signal<Out, Bit>,
    pub blocks_busy: Signal<Out, Bit>,
    pub beats_busy: Signal<Out, Bit>,
    /// IFM buffers held by jobs offered, not yet read; the next job's.
    pub halves_held: Signal<Out, Bits<2>>,
    pub next_half: Signal<Out, Bit>,
    block_walker: BlockWalker,
    beat_walker: BeatWalker,
    readout_walker: ReadoutWalker,
    finished: Fifo<FinishedBlock, 1, 2>,
}

impl Logic for Traversal {
    #[hdl_gen]
    fn update(&mut self) {
        self.block_walker.clock.next = self.clock.val();
        self.block_walker.rst_n.next = self.rst_n.val();
        self.beat_walker.clock.next = self.clock.val();
        self.beat_walker.rst_n.next = self.rst_n.val();
        self.readout_walker.clock.next = self.clock.val();
        self.readout_walker.rst_n.next = self.rst_n.val();
        self.finished.clock.next = self.clock.val();
        self.finished.rst_n.next = self.rst_n.val();

        self.block_walker.start.next = self.start.val();
        self.block_walker.shape.next = self.walk_shape.val();
        self.beat_walker.shape.next = self.shape.val();
        self.readout_walker.shape.next = self.shape.val();
        self.block_walker.ib_release.next = self.ib_read.val();
        self.beat_walker.ab_release.next = self.readout_walker.ab_release.val();
        self.readout_walker.slice_done.next = self.slice_done.val();
        StreamOut::<IfmBlockJob>::link(&mut self.ifm_blocks, &mut self.block_walker.jobs);
        StreamIn::<IfmBlockJob>::link(&mut self.filled, &mut self.beat_walker.jobs);
        StreamOut::<MacBeat>::link(&mut self.beats, &mut self.beat_walker.beats);
        StreamOut::<FinishedBlock>::join(&mut self.beat_walker.finished, &mut self.finished.tail);
        StreamOut::<FinishedBlock>::join(&mut self.finished.head, &mut self.readout_walker.blocks);
        StreamOut::<Readout>::link(&mut self.readouts, &mut self.readout_walker.readouts);
        self.current.next = self.beat_walker.current.val();
        self.offering.next = self.block_walker.offering.val();
        self.halves_held.next = self.block_walker.halves_held.val();
        self.next_half.next = self.block_walker.next_half.val();
        self.blocks_busy.next = self.block_walker.busy.val();
        self.beats_busy.next = self.beat_walker.busy.val()
            | (self.finished.count.val() != 0)
            | self.readout_walker.busy.val();
        self.busy.next = self.blocks_busy.val() | self.beats_busy.val();
    }
}
