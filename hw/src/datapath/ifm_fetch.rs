//! The IFM channel's address generator (TRM 3.3.3 IFM channel, 4.9.1 shared
//! buffer): each IFM block job becomes the 3D copies ([`ShramFill`]s) that put
//! its source rectangle, packed as TRM table 4-135 sizes it, into the job's IFM
//! buffer: one fill per piece of the rectangle in one tile, at most four per
//! channel group whatever the block's height, so the DMA streams a block's
//! rows without a round trip per row. Offsets are modulo 2^40, so strides may
//! be negative.
//!
//! Ports:
//! - `jobs` ([`IfmBlockJob`]s): taken with their last fill; `ready` depends on
//!   `fills.ready`, never on `valid`.
//! - `view` ([`IfmView`], IFM2's too) and `buffers` ([`IfmBuffers`]): held
//!   while the operation's jobs are offered.
//! - `fills` ([`ShramFill`]s) toward the IFM channel; `block_end` marks a job's
//!   last (an empty rectangle gives one fill of 0 rows).
//!
//! Nine cycles of set-up per job through one shared multiplier, then one fill
//! a cycle. The packing and tiles in full: `docs/datapath.md`.

use super::ifm_pieces::{IfmPieces, JobPieces};
use crate::datapath::{IfmBlockJob, IfmBuffers};

use crate::dma::ShramFill;
use crate::op_state::IfmView;
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::{Multiply16x40, ResetReg};
use rust_hdl::prelude::*;

/// The products of a job's set-up (its addresses' row, column and channel
/// terms), registered for its fills.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct JobTerms {
    /// Channel term of a source address: channel0 * e (NHWC) or
    /// (channel0 / 16) * STRIDE_C (NHCWB16).
    pub channel_term: Bits<40>,
    /// Column and channel terms of the left (a) and right (b) pieces.
    pub inner_a: Bits<40>,
    pub inner_b: Bits<40>,
    /// Source of each piece's first row.
    pub row_a: Bits<40>,
    pub row_b: Bits<40>,
    /// Shared-buffer bytes of a rectangle row, the offset of the right
    /// piece, and of each piece's rows in its lower tile.
    pub dest_row_step: Bits<16>,
    pub dest_b_offset: Bits<16>,
    pub dest_lower_a: Bits<16>,
    pub dest_lower_b: Bits<16>,
}

#[derive(LogicBlock, Default)]
pub struct IfmFetch {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// IFM block jobs from the traversal.
    pub jobs: StreamIn<IfmBlockJob>,
    /// The operation's IFM registers.
    pub view: Signal<In, IfmView>,
    pub buffers: Signal<In, IfmBuffers>,
    /// 3D copies toward the IFM channel.
    pub fills: StreamOut<ShramFill>,
    multiply: Multiply16x40,
    piece_split: IfmPieces,
    /// The multiplier's operands, loaded the step before their product.
    multiply_a: ResetReg<Bits<16>>,
    multiply_b: ResetReg<Bits<40>>,
    /// A job is being set up (steps 0-8) or emitted (step 9).
    active: ResetReg<Bit>,
    step: ResetReg<Bits<4>>,
    load_step: Signal<Local, Bits<4>>,
    /// The set-up's products.
    terms: ResetReg<JobTerms>,
    pieces: ResetReg<JobPieces>,
    /// The output stage: the fill on `fills`, before its plane skips.
    fill: ResetReg<ShramFill>,
    fill_full: ResetReg<Bit>,
    /// The job's last fill is in the output stage.
    sent_last: ResetReg<Bit>,
    /// Current piece, and whether its rows in the lower tile (2 or 3).
    piece_b: ResetReg<Bit>,
    lower: ResetReg<Bit>,
    /// NHCWB16: (group - first group) * STRIDE_C and the group's first
    /// channel (16g; NHWC: channel0).
    group_offset: ResetReg<Bits<40>>,
    group_base: ResetReg<Bits<16>>,
    // The job and view, decoded.
    job: Signal<Local, IfmBlockJob>,
    job_pieces: Signal<Local, JobPieces>,
    /// log2 of the element bytes.
    element_shift: Signal<Local, Bits<4>>,
    nhcwb16: Signal<Local, Bit>,
    stride_x: Signal<Local, Bits<40>>,
    stride_y: Signal<Local, Bits<40>>,
    stride_c: Signal<Local, Bits<40>>,
    base_0: Signal<Local, Bits<40>>,
    base_1: Signal<Local, Bits<40>>,
    base_2: Signal<Local, Bits<40>>,
    base_3: Signal<Local, Bits<40>>,
    width0: Signal<Local, Bits<17>>,
    height0: Signal<Local, Bits<17>>,
    height1: Signal<Local, Bits<17>>,
    x_step: Signal<Local, Bits<40>>,
    block_bytes: Signal<Local, Bits<16>>,
    position_bytes: Signal<Local, Bits<16>>,
    ib_base: Signal<Local, Bits<16>>,
    first_group: Signal<Local, Bits<16>>,
    channel_end: Signal<Local, Bits<16>>,
    empty: Signal<Local, Bit>,
    // The fill being offered.
    group_low: Signal<Local, Bits<16>>,
    group_end: Signal<Local, Bits<16>>,
    last_group: Signal<Local, Bit>,
    last_piece: Signal<Local, Bit>,
    last_tile: Signal<Local, Bit>,
    block_end: Signal<Local, Bit>,
    fill_len: Signal<Local, Bits<16>>,
    fill_rows: Signal<Local, Bits<16>>,
    /// The generator's fill, offered to the output stage.
    generating: Signal<Local, Bit>,
    generated: Signal<Local, ShramFill>,
    accept: Signal<Local, Bit>,
    offered: Signal<Local, ShramFill>,
    /// A plane's packed bytes: the offered fill's `rows` * `len`.
    plane_bytes: Signal<Local, Bits<32>>,
    channel_skip: Signal<Local, Bits<16>>,
    block_skip: Signal<Local, Bits<16>>,
    taken: Signal<Local, Bit>,
}

impl Logic for IfmFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            active,
            step,
            terms,
            multiply_a,
            multiply_b,
            pieces,
            fill,
            fill_full,
            sent_last,
            piece_b,
            lower,
            group_offset,
            group_base
        );
        self.active.rst_n.next = self.rst_n.val();
        self.step.rst_n.next = self.rst_n.val();
        self.terms.rst_n.next = self.rst_n.val();
        self.multiply_a.rst_n.next = self.rst_n.val();
        self.multiply_b.rst_n.next = self.rst_n.val();
        self.pieces.rst_n.next = self.rst_n.val();
        self.fill.rst_n.next = self.rst_n.val();
        self.fill_full.rst_n.next = self.rst_n.val();
        self.sent_last.rst_n.next = self.rst_n.val();
        self.piece_b.rst_n.next = self.rst_n.val();
        self.lower.rst_n.next = self.rst_n.val();
        self.group_offset.rst_n.next = self.rst_n.val();
        self.group_base.rst_n.next = self.rst_n.val();

        // The view: NPU_SET_IFM_PRECISION activation_precision 1 (16-bit), 2
        // (32-bit) and activation_format 1 (NHCWB16); 40-bit offsets.
        self.job.next = self.jobs.data.val();
        self.element_shift.next = bit_cast::<4, 2>(self.view.val().precision_activation_precision);
        self.nhcwb16.next = self.view.val().precision_activation_format != 0;
        self.stride_x.next = bit_cast::<40, 48>(self.view.val().stride_x);
        self.stride_y.next = bit_cast::<40, 48>(self.view.val().stride_y);
        self.stride_c.next = bit_cast::<40, 48>(self.view.val().stride_c);
        self.base_0.next = bit_cast::<40, 48>(self.view.val().base0);
        self.base_1.next = bit_cast::<40, 48>(self.view.val().base1);
        self.base_2.next = bit_cast::<40, 48>(self.view.val().base2);
        self.base_3.next = bit_cast::<40, 48>(self.view.val().base3);
        self.width0.next = bit_cast::<17, 16>(self.view.val().width0_m1) + 1;
        self.height0.next = bit_cast::<17, 16>(self.view.val().height0_m1) + 1;
        self.height1.next = bit_cast::<17, 16>(self.view.val().height1_m1) + 1;

        // The rectangle's pieces left (a) and right (b) of WIDTH0, their
        // tiles and first rows (`IfmPieces`).
        self.piece_split.job.next = self.job.val();
        self.piece_split.width0.next = self.width0.val();
        self.piece_split.height0.next = self.height0.val();
        self.piece_split.height1.next = self.height1.val();
        self.piece_split.base_0.next = self.base_0.val();
        self.piece_split.base_1.next = self.base_1.val();
        self.piece_split.base_2.next = self.base_2.val();
        self.piece_split.base_3.next = self.base_3.val();
        self.x_step.next = self.stride_x.val();
        if self.nhcwb16.val() {
            self.x_step.next = bits::<40>(16) << self.element_shift.val();
        }

        // Shared-buffer layout.
        self.block_bytes.next = self.job.val().channels << self.element_shift.val();
        self.position_bytes.next = (self.block_bytes.val() + 7) & 0xfff8;
        self.ib_base.next = self.buffers.val().start;
        if self.job.val().ib_half {
            self.ib_base.next = self.buffers.val().start + self.buffers.val().half;
        }
        self.first_group.next = self.job.val().channel0;
        if self.nhcwb16.val() {
            self.first_group.next = self.job.val().channel0 & 0xfff0;
        }
        self.channel_end.next = self.job.val().channel0 + self.job.val().channels;
        self.empty.next = (self.job.val().height == 0) | (self.job.val().width == 0);

        // Step 0 registers the pieces; the later steps and the fills use them.
        self.job_pieces.next = self.pieces.q.val();
        if self.active.q.val() & (self.step.q.val() == 0) {
            self.pieces.d.next = self.piece_split.pieces.val();
        }

        // Set-up: one product a step, its operands registered the step
        // before (step 0's as the job arrives).
        self.load_step.next = self.step.q.val() + 1;
        if !self.active.q.val() {
            self.load_step.next = 0.into();
        }
        match self.load_step.val().index() {
            0 => {
                self.multiply_a.d.next = self.job.val().channel0;
                self.multiply_b.d.next = bits::<40>(1) << self.element_shift.val();
                if self.nhcwb16.val() {
                    self.multiply_a.d.next = self.job.val().channel0 >> 4;
                    self.multiply_b.d.next = self.stride_c.val();
                }
            }
            1 => {
                self.multiply_a.d.next = self.job.val().x0;
                self.multiply_b.d.next = self.x_step.val();
            }
            2 => {
                self.multiply_a.d.next = bit_cast::<16, 17>(self.job_pieces.val().x_b);
                self.multiply_b.d.next = self.x_step.val();
            }
            3 => {
                self.multiply_a.d.next = bit_cast::<16, 17>(self.job_pieces.val().y_a);
                self.multiply_b.d.next = self.stride_y.val();
            }
            4 => {
                self.multiply_a.d.next = bit_cast::<16, 17>(self.job_pieces.val().y_b);
                self.multiply_b.d.next = self.stride_y.val();
            }
            5 => {
                self.multiply_a.d.next = self.job.val().width;
                self.multiply_b.d.next = bit_cast::<40, 16>(self.position_bytes.val());
            }
            6 => {
                self.multiply_a.d.next = self.job_pieces.val().width_a;
                self.multiply_b.d.next = bit_cast::<40, 16>(self.position_bytes.val());
            }
            7 => {
                self.multiply_a.d.next = self.job_pieces.val().upper_a;
                self.multiply_b.d.next = bit_cast::<40, 16>(self.terms.q.val().dest_row_step);
            }
            8 => {
                self.multiply_a.d.next = self.job_pieces.val().upper_b;
                self.multiply_b.d.next = bit_cast::<40, 16>(self.terms.q.val().dest_row_step);
            }
            _ => {}
        }
        self.multiply.a.next = self.multiply_a.q.val();
        self.multiply.b.next = self.multiply_b.q.val();
        match self.step.q.val().index() {
            0 => {
                self.terms.d.next.channel_term = self.multiply.product.val();
            }
            1 => {
                self.terms.d.next.inner_a =
                    self.multiply.product.val() + self.terms.q.val().channel_term;
            }
            2 => {
                self.terms.d.next.inner_b =
                    self.multiply.product.val() + self.terms.q.val().channel_term;
            }
            3 => {
                self.terms.d.next.row_a = self.multiply.product.val()
                    + self.job_pieces.val().base_a
                    + self.terms.q.val().inner_a;
            }
            4 => {
                self.terms.d.next.row_b = self.multiply.product.val()
                    + self.job_pieces.val().base_b
                    + self.terms.q.val().inner_b;
            }
            5 => {
                self.terms.d.next.dest_row_step = self.multiply.product.val().get_bits::<16>(0);
            }
            6 => {
                self.terms.d.next.dest_b_offset = self.multiply.product.val().get_bits::<16>(0);
                self.piece_b.d.next = !self.job_pieces.val().has_a;
                self.lower.d.next = false;
                self.group_offset.d.next = 0.into();
                self.group_base.d.next = self.first_group.val();
            }
            7 => {
                self.terms.d.next.dest_lower_a = self.multiply.product.val().get_bits::<16>(0);
            }
            8 => {
                self.terms.d.next.dest_lower_b = self.multiply.product.val().get_bits::<16>(0);
            }
            _ => {}
        }
        if self.active.q.val() & (self.step.q.val() != 9) {
            self.step.d.next = self.step.q.val() + 1;
        }
        if !self.active.q.val() & self.jobs.valid.val() {
            self.active.d.next = true;
            self.step.d.next = 0.into();
        }

        // The fill: the current row, piece and channel group.
        self.group_low.next = self.group_base.q.val();
        if self.group_base.q.val() < self.job.val().channel0 {
            self.group_low.next = self.job.val().channel0;
        }
        self.last_group.next = true;
        self.group_end.next = self.channel_end.val();
        if self.nhcwb16.val() & ((self.group_base.q.val() + 16) < self.channel_end.val()) {
            self.last_group.next = false;
            self.group_end.next = self.group_base.q.val() + 16;
        }
        self.last_piece.next = self.piece_b.q.val() | !self.job_pieces.val().has_b;
        self.last_tile.next = self.lower.q.val() | !self.job_pieces.val().split_a;
        if self.piece_b.q.val() {
            self.last_tile.next = self.lower.q.val() | !self.job_pieces.val().split_b;
        }
        self.fill_len.next =
            (self.group_end.val() - self.group_low.val()) << self.element_shift.val();
        self.channel_skip.next =
            (self.group_low.val() - self.group_base.q.val()) << self.element_shift.val();
        self.block_skip.next =
            (self.group_low.val() - self.job.val().channel0) << self.element_shift.val();

        self.generating.next =
            self.active.q.val() & (self.step.q.val() == 9) & !self.sent_last.q.val();
        self.accept.next = !self.fill_full.q.val() | self.fills.ready.val();
        self.generated.next.region = self.view.val().region;
        self.generated.next.len = self.fill_len.val();
        self.generated.next.source_skip =
            self.x_step.val() - bit_cast::<40, 16>(self.fill_len.val());
        self.generated.next.destination_skip = self.position_bytes.val() - self.fill_len.val();
        // Piece a's rows in tile 0 (or 2), or below HEIGHT0 in tile 2.
        self.fill_rows.next = self.job_pieces.val().width_a;
        self.generated.next.planes = self.job_pieces.val().upper_a;
        self.generated.next.source = self.terms.q.val().row_a;
        self.generated.next.destination = self.ib_base.val();
        if self.lower.q.val() {
            self.generated.next.planes = self.job.val().height - self.job_pieces.val().upper_a;
            self.generated.next.source = self.base_2.val() + self.terms.q.val().inner_a;
            self.generated.next.destination = self.ib_base.val() + self.terms.q.val().dest_lower_a;
        }
        // Piece b's in tile 1 (or 3), or below HEIGHT1 in tile 3.
        if self.piece_b.q.val() {
            self.fill_rows.next = self.job_pieces.val().width_b;
            self.generated.next.planes = self.job_pieces.val().upper_b;
            self.generated.next.source = self.terms.q.val().row_b;
            self.generated.next.destination = self.ib_base.val() + self.terms.q.val().dest_b_offset;
            if self.lower.q.val() {
                self.generated.next.planes = self.job.val().height - self.job_pieces.val().upper_b;
                self.generated.next.source = self.base_3.val() + self.terms.q.val().inner_b;
                self.generated.next.destination = self.ib_base.val()
                    + self.terms.q.val().dest_b_offset
                    + self.terms.q.val().dest_lower_b;
            }
        }
        self.generated.next.source = self.generated.val().source
            + self.group_offset.q.val()
            + bit_cast::<40, 16>(self.channel_skip.val());
        self.generated.next.destination = self.generated.val().destination + self.block_skip.val();
        self.generated.next.rows = self.fill_rows.val();
        // Planes are a rectangle row apart in the source (STRIDE_Y) and in
        // the IFM buffer; the output stage takes a plane's bytes off.
        self.generated.next.source_plane_skip = self.stride_y.val();
        self.generated.next.destination_plane_skip = self.terms.q.val().dest_row_step;
        self.block_end.next = self.last_group.val() & self.last_tile.val() & self.last_piece.val();
        if self.empty.val() {
            self.generated.next.rows = 0.into();
            self.block_end.next = true;
        }
        self.generated.next.block_end = self.block_end.val();
        self.taken.next = self.generating.val() & self.accept.val();

        // The output stage: a plane's packed bytes, `rows` * `len`.
        if self.accept.val() {
            self.fill_full.d.next = self.generating.val();
            self.fill.d.next = self.generated.val();
        }
        self.offered.next = self.fill.q.val();
        self.plane_bytes.next = self.offered.val().rows * self.offered.val().len;
        self.fills.valid.next = self.fill_full.q.val();
        // The job is taken as its last fill leaves.
        self.jobs.ready.next =
            self.fill_full.q.val() & self.fills.ready.val() & self.offered.val().block_end;
        if self.jobs.ready.val() {
            self.active.d.next = false;
            self.sent_last.d.next = false;
        }
        self.fills.data.next = self.offered.val();
        self.fills.data.next.source_plane_skip =
            self.offered.val().source_plane_skip - bit_cast::<40, 32>(self.plane_bytes.val());
        self.fills.data.next.destination_plane_skip =
            self.offered.val().destination_plane_skip - self.plane_bytes.val().get_bits::<16>(0);

        // Next group, tile or piece: additions only.
        if self.taken.val() {
            if self.block_end.val() {
                self.sent_last.d.next = true;
            } else if !self.last_group.val() {
                self.group_offset.d.next = self.group_offset.q.val() + self.stride_c.val();
                self.group_base.d.next = self.group_base.q.val() + 16;
            } else {
                self.group_offset.d.next = 0.into();
                self.group_base.d.next = self.first_group.val();
                if !self.last_tile.val() {
                    self.lower.d.next = true;
                } else {
                    self.lower.d.next = false;
                    self.piece_b.d.next = true;
                }
            }
        }
    }
}
