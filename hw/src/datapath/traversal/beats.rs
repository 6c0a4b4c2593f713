//! Walks the weight groups of an IFM block in weight-stream order (TRM
//! 4.7.5, `npu_model::weights::order::stream_order`) and, per group, the
//! microblocks of the OFM block (2x2, or 1x4 on a one-row OFM): one MAC
//! beat each (two for 16-bit IFMs, four for 16-bit depthwise in parallel
//! mode; four for 32-bit ones, whose groups are 4 channels).

use super::FinishedBlock;
use crate::datapath::{IfmBlockJob, MacBeat, TraversalShape};
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct BeatWalker {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub shape: Signal<In, TraversalShape>,
    /// IFM blocks in the shared buffer.
    pub jobs: StreamIn<IfmBlockJob>,
    /// The job being walked.
    pub current: Signal<Out, IfmBlockJob>,
    pub beats: StreamOut<MacBeat>,
    /// OFM blocks toward the readout, each as its last IFM block starts.
    pub finished: StreamOut<FinishedBlock>,
    /// An OFM block is read out: its accumulator half is free.
    pub ab_release: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    s: Signal<Local, TraversalShape>,
    j: Signal<Local, IfmBlockJob>,
    /// Microblocks across and down the OFM block, and their product.
    across: Signal<Local, Bits<16>>,
    down: Signal<Local, Bits<16>>,
    microblocks_product: Signal<Local, Bits<32>>,
    microblocks: Signal<Local, Bits<16>>,
    sub_width: Signal<Local, Bits<16>>,
    sub_height: Signal<Local, Bits<16>>,
    area_product: Signal<Local, Bits<32>>,
    /// Kernel elements of the sub-kernel, padded (TRM 4.7.5: to 4 for
    /// depthwise and part-kernel-first, 2 for 16-bit part-kernel-first; a
    /// pool has no weight stream to pad).
    area: Signal<Local, Bits<16>>,
    elements: Signal<Local, Bits<16>>,
    /// IFM channels the inner (depth-first) or outer (part-kernel-first)
    /// loop covers.
    loop_channels: Signal<Local, Bits<16>>,
    ifm_channel: Signal<Local, Bits<16>>,
    /// IFM channels of a beat: 8, or 4 of 32 bits.
    channel_step: Signal<Local, Bits<16>>,
    /// The last byte of the activations.
    last_byte: Signal<Local, Bit>,
    padding: Signal<Local, Bit>,
    last_microblock: Signal<Local, Bit>,
    group_end: Signal<Local, Bit>,
    last_inner: Signal<Local, Bit>,
    last_element: Signal<Local, Bit>,
    last_ublock: Signal<Local, Bit>,
    last_outer: Signal<Local, Bit>,
    job_end: Signal<Local, Bit>,
    slice_end: Signal<Local, Bit>,
    /// The job is its OFM block's last: the block goes to the readout.
    last_job_start: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    start_job: Signal<Local, Bit>,
    active: ResetReg<Bit>,
    job: ResetReg<IfmBlockJob>,
    outer: ResetReg<Bits<16>>,
    ublock: ResetReg<Bits<16>>,
    element: ResetReg<Bits<16>>,
    ky: ResetReg<Bits<16>>,
    kx: ResetReg<Bits<16>>,
    inner: ResetReg<Bits<16>>,
    my: ResetReg<Bits<16>>,
    mx: ResetReg<Bits<16>>,
    /// The activation byte of the microblock's beat.
    beat_byte: ResetReg<Bits<2>>,
    /// Accumulator word of the current microblock within the half.
    word: ResetReg<Bits<9>>,
    /// Accumulator word of microblock 0 for the current 8 OFM channels.
    group_base: ResetReg<Bits<9>>,
    ab_half: ResetReg<Bit>,
    /// Accumulator halves in use: accumulating or waiting for readout.
    ab_held: ResetReg<Bits<2>>,
}

impl Logic for BeatWalker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, active, job, outer, ublock, element, ky, kx, inner, my, mx, beat_byte,
            word, group_base, ab_half, ab_held
        );
        self.active.rst_n.next = self.rst_n.val();
        self.job.rst_n.next = self.rst_n.val();
        self.outer.rst_n.next = self.rst_n.val();
        self.ublock.rst_n.next = self.rst_n.val();
        self.element.rst_n.next = self.rst_n.val();
        self.ky.rst_n.next = self.rst_n.val();
        self.kx.rst_n.next = self.rst_n.val();
        self.inner.rst_n.next = self.rst_n.val();
        self.my.rst_n.next = self.rst_n.val();
        self.mx.rst_n.next = self.rst_n.val();
        self.beat_byte.rst_n.next = self.rst_n.val();
        self.word.rst_n.next = self.rst_n.val();
        self.group_base.rst_n.next = self.rst_n.val();
        self.ab_half.rst_n.next = self.rst_n.val();
        self.ab_held.rst_n.next = self.rst_n.val();
        self.s.next = self.shape.val();
        self.j.next = self.job.q.val();
        self.current.next = self.job.q.val();

        // 2x2 microblocks, or 1x4 on a one-row OFM (whose blocks are one
        // row: one microblock down either way).
        self.across.next = (self.j.val().ofm_width + 1) >> 1;
        if self.s.val().one_row {
            self.across.next = (self.j.val().ofm_width + 3) >> 2;
        }
        self.down.next = (self.j.val().ofm_height + 1) >> 1;
        self.microblocks_product.next = self.across.val() * self.down.val();
        self.microblocks.next = self.microblocks_product.val().get_bits::<16>(0);
        self.sub_width.next = self.j.val().sub_width;
        self.sub_height.next = self.j.val().sub_height;
        self.area_product.next = self.sub_width.val() * self.sub_height.val();
        self.area.next = self.area_product.val().get_bits::<16>(0);
        self.elements.next = self.area.val();
        if self.s.val().depthwise | (self.s.val().part_kernel_first & !self.s.val().wide) {
            self.elements.next = (self.area.val() + 3) & 0xfffc;
        }
        if self.s.val().part_kernel_first & self.s.val().wide {
            self.elements.next = (self.area.val() + 1) & 0xfffe;
        }
        if self.s.val().pool {
            self.elements.next = self.area.val();
        }
        // Depth-first walks the whole IFM block depth (padded to 32, 16 or
        // 8), part-kernel-first the block's channels, depthwise one
        // 8-channel step.
        self.loop_channels.next = 32.into();
        if self.s.val().wide {
            self.loop_channels.next = 16.into();
        }
        if self.s.val().int32 {
            self.loop_channels.next = 8.into();
        }
        self.channel_step.next = 8.into();
        if self.s.val().int32 {
            self.channel_step.next = 4.into();
        }
        if self.s.val().part_kernel_first {
            self.loop_channels.next = self.j.val().channels;
        }
        if self.s.val().depthwise {
            self.loop_channels.next = 8.into();
        }
        self.ifm_channel.next = self.outer.q.val() + self.inner.q.val();
        if self.s.val().depthwise {
            self.ifm_channel.next = self.ublock.q.val();
        }
        self.padding.next = (self.ky.q.val() >= self.j.val().sub_height)
            | (!self.s.val().depthwise & (self.ifm_channel.val() >= self.j.val().channels));

        self.last_byte.next = (!self.s.val().wide & !self.s.val().int32)
            | (self.s.val().wide & (self.beat_byte.q.val() == 1))
            | (self.s.val().int32 & (self.beat_byte.q.val() == 3));
        self.last_microblock.next = (self.mx.q.val() + 1 == self.across.val())
            & (self.my.q.val() + 1 == self.down.val())
            & self.last_byte.val();
        self.group_end.next = self.padding.val() | self.last_microblock.val();
        self.last_inner.next = self.s.val().part_kernel_first
            | (self.inner.q.val() + self.channel_step.val() >= self.loop_channels.val());
        self.last_element.next = self.element.q.val() + 1 == self.elements.val();
        self.last_ublock.next = self.ublock.q.val() + 8 >= self.j.val().ofm_depth;
        self.last_outer.next =
            !self.s.val().part_kernel_first | (self.outer.q.val() + 8 >= self.loop_channels.val());
        self.job_end.next = self.group_end.val()
            & self.last_inner.val()
            & self.last_element.val()
            & self.last_ublock.val()
            & self.last_outer.val();
        // Weight order finishes a slice's groups in its last IFM channel
        // pass (TRM 4.7.5).
        self.slice_end.next = self.group_end.val()
            & self.last_inner.val()
            & self.last_element.val()
            & self.last_outer.val()
            & self.j.val().last;

        self.beats.data.next.oy = self.j.val().ofm_y + (self.my.q.val() << 1);
        self.beats.data.next.ox = self.j.val().ofm_x + (self.mx.q.val() << 1);
        if self.s.val().one_row {
            self.beats.data.next.ox = self.j.val().ofm_x + (self.mx.q.val() << 2);
        }
        self.beats.data.next.ky = self.j.val().sub_y + self.ky.q.val();
        self.beats.data.next.kx = self.j.val().sub_x + self.kx.q.val();
        self.beats.data.next.ifm_channel = self.ifm_channel.val();
        self.beats.data.next.acc_address = self.word.q.val();
        // The second half starts at npu_arch::shared_buffer::AB_HALF_WORDS.
        if self.ab_half.q.val() {
            self.beats.data.next.acc_address = self.word.q.val() | 0x100;
        }
        // A multi-byte microblock's later beats add to its first beat's sums.
        self.beats.data.next.first = self.j.val().first
            & (self.outer.q.val() == 0)
            & (self.element.q.val() == 0)
            & (self.inner.q.val() == 0)
            & (self.beat_byte.q.val() == 0);
        self.beats.data.next.byte = self.beat_byte.q.val();
        // Core 1 has the slice in parallel mode (its groups follow core
        // 0's, slice for slice).
        self.beats.data.next.paired = self.ublock.q.val() < self.j.val().paired_depth;
        self.beats.data.next.paired_block_end = self.slice_end.val()
            & self.beats.data.val().paired
            & (self.ublock.q.val() + 8 >= self.j.val().paired_depth);
        self.beats.data.next.skip = self.padding.val();
        self.beats.data.next.group_end = self.group_end.val();
        self.beats.data.next.job_end = self.job_end.val();
        self.beats.data.next.slice_end = self.slice_end.val();
        self.beats.data.next.block_end = self.job_end.val() & self.j.val().last;

        self.beats.valid.next = self.active.q.val();
        self.take.next = self.beats.valid.val() & self.beats.ready.val();

        if self.take.val() {
            self.beat_byte.d.next = self.beat_byte.q.val() + 1;
            if self.last_byte.val() {
                self.beat_byte.d.next = 0.into();
                self.word.d.next = self.word.q.val() + 1;
                self.mx.d.next = self.mx.q.val() + 1;
                if self.mx.q.val() + 1 == self.across.val() {
                    self.mx.d.next = 0.into();
                    self.my.d.next = self.my.q.val() + 1;
                }
            }
            if self.group_end.val() {
                // The next weight group.
                self.word.d.next = self.group_base.q.val();
                self.beat_byte.d.next = 0.into();
                self.mx.d.next = 0.into();
                self.my.d.next = 0.into();
                self.inner.d.next = self.inner.q.val() + self.channel_step.val();
                if self.last_inner.val() {
                    self.inner.d.next = 0.into();
                    self.element.d.next = self.element.q.val() + 1;
                    self.kx.d.next = self.kx.q.val() + 1;
                    if self.kx.q.val() + 1 == self.j.val().sub_width {
                        self.kx.d.next = 0.into();
                        self.ky.d.next = self.ky.q.val() + 1;
                    }
                    if self.last_element.val() {
                        self.element.d.next = 0.into();
                        self.kx.d.next = 0.into();
                        self.ky.d.next = 0.into();
                        self.ublock.d.next = self.ublock.q.val() + 8;
                        self.group_base.d.next =
                            self.group_base.q.val() + self.microblocks.val().get_bits::<9>(0);
                        self.word.d.next =
                            self.group_base.q.val() + self.microblocks.val().get_bits::<9>(0);
                        if self.last_ublock.val() {
                            self.ublock.d.next = 0.into();
                            self.group_base.d.next = 0.into();
                            self.word.d.next = 0.into();
                            self.outer.d.next = self.outer.q.val() + 8;
                            if self.last_outer.val() {
                                self.outer.d.next = 0.into();
                                self.active.d.next = false;
                                if self.j.val().last {
                                    self.ab_half.d.next = !self.ab_half.q.val();
                                }
                            }
                        }
                    }
                }
            }
        }

        // A job starts an OFM block only while an accumulator half is free;
        // a block's last job hands the block to the readout as it starts,
        // so its slices are read out as they finish.
        self.last_job_start.next = self.jobs.data.val().last;
        self.jobs.ready.next = !self.active.q.val()
            & (!self.jobs.data.val().first | (self.ab_held.q.val() != 2))
            & (!self.last_job_start.val() | self.finished.ready.val());
        self.start_job.next = self.jobs.valid.val() & self.jobs.ready.val();
        self.finished.valid.next = self.start_job.val() & self.last_job_start.val();
        self.finished.data.next.ofm_y = self.jobs.data.val().ofm_y;
        self.finished.data.next.ofm_x = self.jobs.data.val().ofm_x;
        self.finished.data.next.ofm_z = self.jobs.data.val().ofm_z;
        self.finished.data.next.ofm_height = self.jobs.data.val().ofm_height;
        self.finished.data.next.ofm_width = self.jobs.data.val().ofm_width;
        self.finished.data.next.ofm_depth = self.jobs.data.val().ofm_depth;
        // The half this job accumulates into (it toggles after a block).
        self.finished.data.next.ab_half = self.ab_half.q.val();
        self.finished.data.next.paired_depth = self.jobs.data.val().paired_depth;
        if self.start_job.val() {
            self.active.d.next = true;
            self.job.d.next = self.jobs.data.val();
        }
        if self.start_job.val() & self.jobs.data.val().first & !self.ab_release.val() {
            self.ab_held.d.next = self.ab_held.q.val() + 1;
        }
        if !(self.start_job.val() & self.jobs.data.val().first) & self.ab_release.val() {
            self.ab_held.d.next = self.ab_held.q.val() - 1;
        }
        self.busy.next = self.active.q.val();
    }
}
