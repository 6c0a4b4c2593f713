//! Walks the OFM blocks of a convolution in z, x, y order and, per OFM
//! block, its IFM blocks: IFM depth chunks (TRM table 4-134), sub-kernels
//! inside (TRM 4.7.5), each with the source rectangle it needs.
//!
//! In parallel mode (TRM 4.7.5.1) the z loop is core 0's, over its
//! ceil(D / 2) channels in blocks of ceil(B / 2), and each job also names
//! core 1's channels of the same local range (`paired_depth`: floor(D / 2)
//! in blocks of floor(B / 2)), which core 1 computes in lockstep from the
//! same IFM blocks; `ofm_z`/`ofm_depth` count core-local channels. The IFM
//! blocks of a convolution do not depend on the OFM channels, so they are
//! those of the same block without parallel mode; a depthwise one holds
//! IFM channels 2z .. 2(z + depth), both cores', of which each core reads
//! every other one.
//!
//! The next job's geometry ([`JobGeometry`]) is registered from the
//! walker's position, so a job is offered at most every other cycle: the
//! IFM channel spends more than that setting up each one.

use crate::datapath::{IfmBlockJob, TraversalShape};
use crate::stream::StreamOut;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// The next job's OFM block (extent, rows and columns times the strides,
/// channels, IFM depth chunks) and sub-kernel (extent, rows and columns
/// times the dilations): registered from the walker's position and the
/// shape, so they settle one cycle after the position moves.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct JobGeometry {
    pub sub_height: Bits<16>,
    pub sub_width: Bits<16>,
    pub ky_first: Bits<16>,
    pub ky_last: Bits<16>,
    pub kx_first: Bits<16>,
    pub kx_last: Bits<16>,
    pub block_height: Bits<16>,
    pub block_width: Bits<16>,
    pub oy_first: Bits<16>,
    pub oy_last: Bits<16>,
    pub ox_first: Bits<16>,
    pub ox_last: Bits<16>,
    pub block_depth: Bits<16>,
    pub core_block_depth: Bits<16>,
    pub last_z: Bit,
    pub paired_block_depth: Bits<16>,
    pub paired_last_depth: Bit,
    pub channel_start: Bits<16>,
    pub channel_end: Bits<16>,
    pub ifm_block_depth: Bits<16>,
}

/// The OFM block at channel `z` of the z loop (core-local in parallel mode,
/// TRM 4.7.5.1): core 0's depth step and this block's depth (partial at the
/// end), and core 1's channels beside it (`npu_model::schedule::ConvShape::
/// core_depth`). The block walker asks it at its position; the datapath's
/// lookahead at z = 0, for the first block of the next operation.
#[derive(LogicBlock, Default)]
pub struct OfmBlockDepths {
    pub shape: Signal<In, TraversalShape>,
    pub z: Signal<In, Bits<16>>,
    pub core_block_depth: Signal<Out, Bits<16>>,
    pub block_depth: Signal<Out, Bits<16>>,
    /// The core's last OFM block of the spatial block.
    pub last_z: Signal<Out, Bit>,
    pub paired_block_depth: Signal<Out, Bits<16>>,
    pub paired_last_depth: Signal<Out, Bit>,
    core_depth: Signal<Local, Bits<16>>,
    paired_core_depth: Signal<Local, Bits<16>>,
}

impl Logic for OfmBlockDepths {
    #[hdl_gen]
    fn update(&mut self) {
        // Core 0's channels: ceil(D / 2) in blocks of ceil(B / 2) in parallel mode.
        self.core_depth.next = self.shape.val().ofm_depth;
        self.core_block_depth.next = self.shape.val().block_depth;
        if self.shape.val().parallel {
            self.core_depth.next = (self.shape.val().ofm_depth + 1) >> 1;
            self.core_block_depth.next = (self.shape.val().block_depth + 1) >> 1;
        }
        self.last_z.next = self.z.val() + self.core_block_depth.val() >= self.core_depth.val();
        self.block_depth.next = self.core_block_depth.val();
        if self.core_depth.val() - self.z.val() < self.core_block_depth.val() {
            self.block_depth.next = self.core_depth.val() - self.z.val();
        }
        // Core 1's channels beside core 0's z block: floor(D / 2) in blocks
        // of floor(B / 2), none past its depth.
        self.paired_core_depth.next = self.shape.val().ofm_depth >> 1;
        self.paired_block_depth.next = 0.into();
        if self.shape.val().parallel & (self.z.val() < self.paired_core_depth.val()) {
            self.paired_block_depth.next = self.shape.val().block_depth >> 1;
            if self.paired_core_depth.val() - self.z.val() < (self.shape.val().block_depth >> 1) {
                self.paired_block_depth.next = self.paired_core_depth.val() - self.z.val();
            }
        }
        self.paired_last_depth.next =
            self.z.val() + (self.shape.val().block_depth >> 1) >= self.paired_core_depth.val();
    }
}

#[derive(LogicBlock, Default)]
pub struct BlockWalker {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub shape: Signal<In, TraversalShape>,
    pub jobs: StreamOut<IfmBlockJob>,
    /// The beats of a job are done: its IFM buffer is free.
    pub ib_release: Signal<In, Bit>,
    /// Jobs remain to be offered, or offered jobs hold an IFM buffer.
    pub busy: Signal<Out, Bit>,
    /// Jobs remain to be offered.
    pub offering: Signal<Out, Bit>,
    /// IFM buffers held by offered jobs, and the one the next job takes.
    pub halves_held: Signal<Out, Bits<2>>,
    pub next_half: Signal<Out, Bit>,
    s: Signal<Local, TraversalShape>,
    block_height: Signal<Local, Bits<16>>,
    block_width: Signal<Local, Bits<16>>,
    depths: OfmBlockDepths,
    channel_start: Signal<Local, Bits<16>>,
    channel_end: Signal<Local, Bits<16>>,
    ifm_block_depth: Signal<Local, Bits<16>>,
    split_height: Signal<Local, Bits<16>>,
    split_width: Signal<Local, Bits<16>>,
    sub_height: Signal<Local, Bits<16>>,
    sub_width: Signal<Local, Bits<16>>,
    // Per dimension: OFM first and last position times the stride, kernel
    // first and last row times the dilation.
    oy_first: Signal<Local, Bits<16>>,
    oy_last: Signal<Local, Bits<16>>,
    ky_first: Signal<Local, Bits<16>>,
    ky_last: Signal<Local, Bits<16>>,
    ox_first: Signal<Local, Bits<16>>,
    ox_last: Signal<Local, Bits<16>>,
    kx_first: Signal<Local, Bits<16>>,
    kx_last: Signal<Local, Bits<16>>,
    uy_first: Signal<Local, Bits<16>>,
    uy_last: Signal<Local, Bits<16>>,
    ux_first: Signal<Local, Bits<16>>,
    ux_last: Signal<Local, Bits<16>>,
    rows_empty: Signal<Local, Bit>,
    columns_empty: Signal<Local, Bit>,
    last_sub_x: Signal<Local, Bit>,
    last_sub_y: Signal<Local, Bit>,
    last_chunk: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    job_geometry: Signal<Local, JobGeometry>,
    geometry: ResetReg<JobGeometry>,
    /// The position moved: `geometry` settles this cycle, no job is offered.
    settling: ResetReg<Bit>,
    running: ResetReg<Bit>,
    y: ResetReg<Bits<16>>,
    x: ResetReg<Bits<16>>,
    z: ResetReg<Bits<16>>,
    channel0: ResetReg<Bits<16>>,
    sub_y: ResetReg<Bits<16>>,
    sub_x: ResetReg<Bits<16>>,
    ib_half: ResetReg<Bit>,
    /// IFM buffers held by offered jobs.
    held: ResetReg<Bits<2>>,
}

impl Logic for BlockWalker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, geometry, settling, running, y, x, z, channel0, sub_y, sub_x, ib_half,
            held
        );
        self.geometry.rst_n.next = self.rst_n.val();
        self.settling.rst_n.next = self.rst_n.val();
        self.running.rst_n.next = self.rst_n.val();
        self.y.rst_n.next = self.rst_n.val();
        self.x.rst_n.next = self.rst_n.val();
        self.z.rst_n.next = self.rst_n.val();
        self.channel0.rst_n.next = self.rst_n.val();
        self.sub_y.rst_n.next = self.rst_n.val();
        self.sub_x.rst_n.next = self.rst_n.val();
        self.ib_half.rst_n.next = self.rst_n.val();
        self.held.rst_n.next = self.rst_n.val();
        self.s.next = self.shape.val();

        // The OFM block, partial at the edges.
        self.block_height.next = self.s.val().block_height;
        if self.s.val().ofm_height - self.y.q.val() < self.s.val().block_height {
            self.block_height.next = self.s.val().ofm_height - self.y.q.val();
        }
        self.block_width.next = self.s.val().block_width;
        if self.s.val().ofm_width - self.x.q.val() < self.s.val().block_width {
            self.block_width.next = self.s.val().ofm_width - self.x.q.val();
        }
        self.depths.shape.next = self.s.val();
        self.depths.z.next = self.z.q.val();

        // IFM channels of the block (TRM table 4-134): depthwise the OFM
        // block's, else the IFM in chunks of 32 (16 part-kernel-first or
        // 16-bit; 8 of 32 bits, as many bytes as 32 of 8 bits).
        self.channel_start.next = 0.into();
        self.channel_end.next = self.s.val().ifm_depth;
        self.ifm_block_depth.next = 32.into();
        if self.s.val().part_kernel_first | self.s.val().wide {
            self.ifm_block_depth.next = 16.into();
        }
        if self.s.val().int32 {
            self.ifm_block_depth.next = 8.into();
        }
        if self.s.val().depthwise {
            self.channel_start.next = self.z.q.val();
            self.channel_end.next = self.z.q.val() + self.depths.block_depth.val();
            self.ifm_block_depth.next = self.s.val().block_depth;
        }
        // Parallel depthwise: both cores' IFM channels of the local ones,
        // 2z .. 2(z + depth), of which the core reads every other one.
        if self.s.val().depthwise & self.s.val().parallel {
            self.channel_start.next = self.z.q.val() << 1;
            self.channel_end.next = (self.z.q.val() + self.depths.block_depth.val()) << 1;
            if self.channel_end.val() > self.s.val().ifm_depth {
                self.channel_end.next = self.s.val().ifm_depth;
            }
        }

        // The OFM block's first and last row and column times the stride.
        self.oy_first.next = self.y.q.val();
        self.oy_last.next = self.y.q.val() + self.block_height.val() - 1;
        if self.s.val().stride_y == 2 {
            self.oy_first.next = self.y.q.val() << 1;
            self.oy_last.next = (self.y.q.val() + self.block_height.val() - 1) << 1;
        }
        if self.s.val().stride_y == 3 {
            self.oy_first.next = (self.y.q.val() << 1) + self.y.q.val();
            self.oy_last.next = ((self.y.q.val() + self.block_height.val() - 1) << 1)
                + self.y.q.val()
                + self.block_height.val()
                - 1;
        }
        self.ox_first.next = self.x.q.val();
        self.ox_last.next = self.x.q.val() + self.block_width.val() - 1;
        if self.s.val().stride_x == 2 {
            self.ox_first.next = self.x.q.val() << 1;
            self.ox_last.next = (self.x.q.val() + self.block_width.val() - 1) << 1;
        }
        if self.s.val().stride_x == 3 {
            self.ox_first.next = (self.x.q.val() << 1) + self.x.q.val();
            self.ox_last.next = ((self.x.q.val() + self.block_width.val() - 1) << 1)
                + self.x.q.val()
                + self.block_width.val()
                - 1;
        }
        // Sub-kernels of at most 8x8 (4x4), halved where dilated.
        self.split_height.next = 8.into();
        self.split_width.next = 8.into();
        if self.s.val().decomposition_4x4 {
            self.split_height.next = 4.into();
            self.split_width.next = 4.into();
        }
        if self.s.val().dilation_y == 2 {
            self.split_height.next = self.split_height.val() >> 1;
        }
        if self.s.val().dilation_x == 2 {
            self.split_width.next = self.split_width.val() >> 1;
        }
        self.sub_height.next = self.split_height.val();
        if self.s.val().kernel_height - self.sub_y.q.val() < self.split_height.val() {
            self.sub_height.next = self.s.val().kernel_height - self.sub_y.q.val();
        }
        self.sub_width.next = self.split_width.val();
        if self.s.val().kernel_width - self.sub_x.q.val() < self.split_width.val() {
            self.sub_width.next = self.s.val().kernel_width - self.sub_x.q.val();
        }

        // Source rows: (o * stride + k * dilation - pad), clipped to the
        // IFM, halved when upscaling (`npu_model::schedule`'s
        // `source_range`). Strides are 1-3 and dilations 1-2: adds, no
        // multipliers.
        self.ky_first.next = self.sub_y.q.val();
        self.ky_last.next = self.sub_y.q.val() + self.sub_height.val() - 1;
        if self.s.val().dilation_y == 2 {
            self.ky_first.next = self.sub_y.q.val() << 1;
            self.ky_last.next = (self.sub_y.q.val() + self.sub_height.val() - 1) << 1;
        }
        self.kx_first.next = self.sub_x.q.val();
        self.kx_last.next = self.sub_x.q.val() + self.sub_width.val() - 1;
        if self.s.val().dilation_x == 2 {
            self.kx_first.next = self.sub_x.q.val() << 1;
            self.kx_last.next = (self.sub_x.q.val() + self.sub_width.val() - 1) << 1;
        }

        self.geometry.d.next.sub_height = self.sub_height.val();
        self.geometry.d.next.sub_width = self.sub_width.val();
        self.geometry.d.next.ky_first = self.ky_first.val();
        self.geometry.d.next.ky_last = self.ky_last.val();
        self.geometry.d.next.kx_first = self.kx_first.val();
        self.geometry.d.next.kx_last = self.kx_last.val();
        self.geometry.d.next.block_depth = self.depths.block_depth.val();
        self.geometry.d.next.oy_first = self.oy_first.val();
        self.geometry.d.next.oy_last = self.oy_last.val();
        self.geometry.d.next.ox_first = self.ox_first.val();
        self.geometry.d.next.ox_last = self.ox_last.val();
        self.geometry.d.next.block_height = self.block_height.val();
        self.geometry.d.next.block_width = self.block_width.val();
        self.geometry.d.next.core_block_depth = self.depths.core_block_depth.val();
        self.geometry.d.next.last_z = self.depths.last_z.val();
        self.geometry.d.next.paired_block_depth = self.depths.paired_block_depth.val();
        self.geometry.d.next.paired_last_depth = self.depths.paired_last_depth.val();
        self.geometry.d.next.channel_start = self.channel_start.val();
        self.geometry.d.next.channel_end = self.channel_end.val();
        self.geometry.d.next.ifm_block_depth = self.ifm_block_depth.val();
        self.job_geometry.next = self.geometry.q.val();
        self.settling.d.next = false;

        self.uy_first.next = 0.into();
        if self.job_geometry.val().oy_first + self.job_geometry.val().ky_first
            > self.s.val().pad_top
        {
            self.uy_first.next = self.job_geometry.val().oy_first
                + self.job_geometry.val().ky_first
                - self.s.val().pad_top;
        }
        self.uy_last.next = self.job_geometry.val().oy_last + self.job_geometry.val().ky_last
            - self.s.val().pad_top;
        if self.uy_last.val() >= self.s.val().ifm_height {
            self.uy_last.next = self.s.val().ifm_height - 1;
        }
        self.rows_empty.next = (self.job_geometry.val().oy_last + self.job_geometry.val().ky_last
            < self.s.val().pad_top)
            | (self.uy_first.val() >= self.s.val().ifm_height);
        self.ux_first.next = 0.into();
        if self.job_geometry.val().ox_first + self.job_geometry.val().kx_first
            > self.s.val().pad_left
        {
            self.ux_first.next = self.job_geometry.val().ox_first
                + self.job_geometry.val().kx_first
                - self.s.val().pad_left;
        }
        self.ux_last.next = self.job_geometry.val().ox_last + self.job_geometry.val().kx_last
            - self.s.val().pad_left;
        if self.ux_last.val() >= self.s.val().ifm_width {
            self.ux_last.next = self.s.val().ifm_width - 1;
        }
        self.columns_empty.next = (self.job_geometry.val().ox_last
            + self.job_geometry.val().kx_last
            < self.s.val().pad_left)
            | (self.ux_first.val() >= self.s.val().ifm_width);
        if self.s.val().upscale {
            self.uy_first.next = self.uy_first.val() >> 1;
            self.uy_last.next = self.uy_last.val() >> 1;
            self.ux_first.next = self.ux_first.val() >> 1;
            self.ux_last.next = self.ux_last.val() >> 1;
        }

        self.jobs.data.next.ofm_y = self.y.q.val();
        self.jobs.data.next.ofm_x = self.x.q.val();
        self.jobs.data.next.ofm_z = self.z.q.val();
        self.jobs.data.next.ofm_height = self.job_geometry.val().block_height;
        self.jobs.data.next.ofm_width = self.job_geometry.val().block_width;
        self.jobs.data.next.ofm_depth = self.job_geometry.val().block_depth;
        self.jobs.data.next.y0 = self.uy_first.val();
        self.jobs.data.next.x0 = self.ux_first.val();
        self.jobs.data.next.height = self.uy_last.val() - self.uy_first.val() + 1;
        self.jobs.data.next.width = self.ux_last.val() - self.ux_first.val() + 1;
        if self.rows_empty.val() | self.columns_empty.val() {
            self.jobs.data.next.y0 = 0.into();
            self.jobs.data.next.x0 = 0.into();
            self.jobs.data.next.height = 0.into();
            self.jobs.data.next.width = 0.into();
        }
        self.jobs.data.next.channel0 = self.channel0.q.val();
        self.jobs.data.next.channels = self.job_geometry.val().ifm_block_depth;
        if self.job_geometry.val().channel_end - self.channel0.q.val()
            < self.job_geometry.val().ifm_block_depth
        {
            self.jobs.data.next.channels =
                self.job_geometry.val().channel_end - self.channel0.q.val();
        }
        self.jobs.data.next.sub_y = self.sub_y.q.val();
        self.jobs.data.next.sub_x = self.sub_x.q.val();
        self.jobs.data.next.sub_height = self.job_geometry.val().sub_height;
        self.jobs.data.next.sub_width = self.job_geometry.val().sub_width;
        self.last_sub_x.next =
            self.sub_x.q.val() + self.split_width.val() >= self.s.val().kernel_width;
        self.last_sub_y.next =
            self.sub_y.q.val() + self.split_height.val() >= self.s.val().kernel_height;
        self.last_chunk.next = self.channel0.q.val() + self.job_geometry.val().ifm_block_depth
            >= self.job_geometry.val().channel_end;
        self.jobs.data.next.first = (self.channel0.q.val()
            == self.job_geometry.val().channel_start)
            & (self.sub_y.q.val() == 0)
            & (self.sub_x.q.val() == 0);
        self.jobs.data.next.last =
            self.last_sub_x.val() & self.last_sub_y.val() & self.last_chunk.val();
        self.jobs.data.next.ib_half = self.ib_half.q.val();
        self.jobs.data.next.last_depth = self.job_geometry.val().last_z;
        self.jobs.data.next.paired_depth = self.job_geometry.val().paired_block_depth;
        self.jobs.data.next.paired_last_depth = self.job_geometry.val().paired_last_depth;

        // Two IFM buffers: a job is offered while one is free.
        self.jobs.valid.next =
            self.running.q.val() & !self.settling.q.val() & (self.held.q.val() != 2);
        self.take.next = self.jobs.valid.val() & self.jobs.ready.val();
        if self.take.val() & !self.ib_release.val() {
            self.held.d.next = self.held.q.val() + 1;
        }
        if !self.take.val() & self.ib_release.val() {
            self.held.d.next = self.held.q.val() - 1;
        }
        if self.take.val() {
            self.settling.d.next = true;
            self.ib_half.d.next = !self.ib_half.q.val();
            self.sub_x.d.next = self.sub_x.q.val() + self.split_width.val();
            if self.last_sub_x.val() {
                self.sub_x.d.next = 0.into();
                self.sub_y.d.next = self.sub_y.q.val() + self.split_height.val();
                if self.last_sub_y.val() {
                    self.sub_y.d.next = 0.into();
                    self.channel0.d.next =
                        self.channel0.q.val() + self.job_geometry.val().ifm_block_depth;
                    if self.last_chunk.val() {
                        // The next OFM block: z, then x, then y.
                        self.channel0.d.next = 0.into();
                        self.z.d.next = self.z.q.val() + self.job_geometry.val().core_block_depth;
                        if self.job_geometry.val().last_z {
                            self.z.d.next = 0.into();
                            self.x.d.next = self.x.q.val() + self.s.val().block_width;
                            if self.x.q.val() + self.s.val().block_width >= self.s.val().ofm_width {
                                self.x.d.next = 0.into();
                                self.y.d.next = self.y.q.val() + self.s.val().block_height;
                                if self.y.q.val() + self.s.val().block_height
                                    >= self.s.val().ofm_height
                                {
                                    self.running.d.next = false;
                                }
                            }
                        }
                        if self.s.val().depthwise & !self.job_geometry.val().last_z {
                            self.channel0.d.next =
                                self.z.q.val() + self.job_geometry.val().core_block_depth;
                            if self.s.val().parallel {
                                self.channel0.d.next = (self.z.q.val()
                                    + self.job_geometry.val().core_block_depth)
                                    << 1;
                            }
                        }
                    }
                }
            }
        }
        if self.start.val() & !self.running.q.val() {
            self.running.d.next = true;
            self.settling.d.next = true;
            self.y.d.next = 0.into();
            self.x.d.next = 0.into();
            self.z.d.next = 0.into();
            self.channel0.d.next = 0.into();
            self.sub_y.d.next = 0.into();
            self.sub_x.d.next = 0.into();
        }
        self.busy.next = self.running.q.val() | (self.held.q.val() != 0);
        self.offering.next = self.running.q.val();
        self.halves_held.next = self.held.q.val();
        self.next_half.next = self.ib_half.q.val();
    }
}
