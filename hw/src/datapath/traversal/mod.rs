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

use crate::datapath::{IfmBlockJob, MacBeat, Readout, TraversalShape};
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::Fifo;
use rust_hdl::prelude::*;

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
