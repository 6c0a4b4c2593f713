//! The next operation's first reads, queued while the current one finishes
//! (TRM 4.6.1: kernel operations are non-blocking): once the current
//! operation's traversal has offered its last IFM block job, each core's first
//! weight stream and the scale records of its first OFM block for the kernel
//! queue's next operation, a memory round trip early. That is safe: BLOCKDEP
//! orders IFM reads only (TRM 4.9), weights and scales are no operation's OFM,
//! and a DMA writing them is waited for before the operation is queued.
//!
//! `weights_ahead`/`scales_ahead` keep the next operation's first job from
//! queueing them again; until the operation is taken `held` keeps each core's
//! weight decoder from starting the stream read ahead (its groups follow the
//! current operation's depthwise setting). What is read ahead is what the
//! first job would queue: the settings are the front end's, the depths the
//! traversal's [`OfmBlockDepths`].

use super::traversal::OfmBlockDepths;
use super::JobStreams;
use crate::datapath::TraversalShape;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Lookahead {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The front end is on the next operation (`FrontEnd::front_next`):
    /// the current one queues no further weight stream or scale records,
    /// and the next one is in the kernel queue. Its traversal shape and
    /// whether it reads scale records per channel.
    pub front_next: Signal<In, Bit>,
    pub shape: Signal<In, TraversalShape>,
    pub per_channel: Signal<In, Bit>,
    /// The next operation is taken: it is the current one from now on.
    pub taken: Signal<In, Bit>,
    /// Bit k: core k has room for a weight stream; for scale records.
    pub weights_room: Signal<In, Bits<2>>,
    pub scales_room: Signal<In, Bits<2>>,
    /// Bit k: core k queues the next operation's first weight stream, or
    /// its first block's scale records, this cycle, with these settings.
    pub start_weights: Signal<Out, Bits<2>>,
    pub start_scales: Signal<Out, Bits<2>>,
    /// Core 0's and core 1's channels of the first OFM block (core-local).
    pub scale_depth: Signal<Out, Bits<16>>,
    pub paired_scale_depth: Signal<Out, Bits<16>>,
    /// Bit k: core k's first weight stream, or scale records, of the
    /// operation are queued already.
    pub weights_ahead: Signal<Out, Bits<2>>,
    pub scales_ahead: Signal<Out, Bits<2>>,
    /// Bit k: the operation's first job queues (or would queue) core k's
    /// weight stream, or scale records.
    pub weights_used: Signal<In, Bits<2>>,
    pub scales_used: Signal<In, Bits<2>>,
    /// Bit k: core k's last queued weight stream, or scale records, are the
    /// next operation's.
    pub held: Signal<Out, Bits<2>>,
    pub held_scales: Signal<Out, Bits<2>>,
    /// The next operation's first reads are queued.
    pub done: Signal<Out, Bit>,

    depths: OfmBlockDepths,
    /// What its first job queues.
    first_job: JobStreams,
    /// The next operation's first reads are queued (until it is taken).
    queued: ResetReg<Bit>,
    weights_ahead_bits: ResetReg<Bits<2>>,
    scales_ahead_bits: ResetReg<Bits<2>>,
    /// What was queued, until the operation is taken (its first job may
    /// be taken before: `Datapath`'s early block walk).
    held_weights: ResetReg<Bits<2>>,
    held_scale_bits: ResetReg<Bits<2>>,
    fire: Signal<Local, Bit>,
}

impl Logic for Lookahead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            queued,
            weights_ahead_bits,
            scales_ahead_bits,
            held_weights,
            held_scale_bits
        );
        self.held_weights.rst_n.next = self.rst_n.val();
        self.held_scale_bits.rst_n.next = self.rst_n.val();
        self.queued.rst_n.next = self.rst_n.val();
        self.weights_ahead_bits.rst_n.next = self.rst_n.val();
        self.scales_ahead_bits.rst_n.next = self.rst_n.val();
        self.depths.shape.next = self.shape.val();
        self.depths.z.next = 0.into();

        // What the first job queues (the datapath's starts, `JobStreams`).
        self.first_job.first.next = true;
        self.first_job.depth_start.next = true;
        self.first_job.paired.next = self.depths.paired_block_depth.val() != 0;
        self.first_job.pool.next = self.shape.val().pool;
        self.first_job.per_channel.next = self.per_channel.val();
        // All of them at once, when every core has room.
        self.fire.next = self.front_next.val()
            & !self.queued.q.val()
            & ((self.first_job.weights.val() & !self.weights_room.val()) == 0)
            & ((self.first_job.scales.val() & !self.scales_room.val()) == 0);
        self.start_weights.next = 0.into();
        self.start_scales.next = 0.into();
        if self.fire.val() {
            self.start_weights.next = self.first_job.weights.val();
            self.start_scales.next = self.first_job.scales.val();
            self.queued.d.next = true;
        }
        self.scale_depth.next = self.depths.block_depth.val();
        self.paired_scale_depth.next = self.depths.paired_block_depth.val();

        self.weights_ahead_bits.d.next =
            (self.weights_ahead_bits.q.val() & !self.weights_used.val()) | self.start_weights.val();
        self.scales_ahead_bits.d.next =
            (self.scales_ahead_bits.q.val() & !self.scales_used.val()) | self.start_scales.val();
        self.held_weights.d.next = self.held_weights.q.val() | self.start_weights.val();
        self.held_scale_bits.d.next = self.held_scale_bits.q.val() | self.start_scales.val();
        if self.taken.val() {
            self.queued.d.next = false;
            self.held_weights.d.next = 0.into();
            self.held_scale_bits.d.next = 0.into();
        }
        self.done.next = self.queued.q.val();
        self.weights_ahead.next = self.weights_ahead_bits.q.val();
        self.scales_ahead.next = self.scales_ahead_bits.q.val();
        self.held.next = self.held_weights.q.val();
        self.held_scales.next = self.held_scale_bits.q.val();
    }
}
