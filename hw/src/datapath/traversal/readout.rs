//! Reads an OFM block's accumulators out: per 8 OFM channels (a slice),
//! every microblock (2x2, or 1x4 on a one-row OFM), each slice once the MAC
//! unit reports its last beat written (`slice_done`). In parallel mode a
//! readout also names core 1's word of the microblock where core 1 has the
//! slice (both cores' accumulators are at the same address).

use super::FinishedBlock;
use crate::datapath::{Readout, TraversalShape};
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct ReadoutWalker {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub shape: Signal<In, TraversalShape>,
    pub blocks: StreamIn<FinishedBlock>,
    /// A pulse per slice whose last beat is in the accumulators.
    pub slice_done: Signal<In, Bit>,
    pub readouts: StreamOut<Readout>,
    /// The last word of a block is taken: its accumulator half is free.
    pub ab_release: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    one_row: Signal<Local, Bit>,
    b: Signal<Local, FinishedBlock>,
    across: Signal<Local, Bits<16>>,
    down: Signal<Local, Bits<16>>,
    channels_left: Signal<Local, Bits<16>>,
    rows_left: Signal<Local, Bits<16>>,
    columns_left: Signal<Local, Bits<16>>,
    last_microblock: Signal<Local, Bit>,
    paired_left: Signal<Local, Bits<16>>,
    last_word: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    start_block: Signal<Local, Bit>,
    active: ResetReg<Bit>,
    block: ResetReg<FinishedBlock>,
    ublock: ResetReg<Bits<16>>,
    my: ResetReg<Bits<16>>,
    mx: ResetReg<Bits<16>>,
    word: ResetReg<Bits<9>>,
    /// `slice_done` pulses whose slices are not read out yet (the slices
    /// of two blocks at most: the next block's wait for a free half).
    done: ResetReg<Bits<6>>,
    slice_read: Signal<Local, Bit>,
}

impl Logic for ReadoutWalker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, active, block, ublock, my, mx, word, done);
        self.active.rst_n.next = self.rst_n.val();
        self.block.rst_n.next = self.rst_n.val();
        self.ublock.rst_n.next = self.rst_n.val();
        self.my.rst_n.next = self.rst_n.val();
        self.mx.rst_n.next = self.rst_n.val();
        self.word.rst_n.next = self.rst_n.val();
        self.done.rst_n.next = self.rst_n.val();
        self.b.next = self.block.q.val();
        self.one_row.next = self.shape.val().one_row;

        // 2x2 microblocks, or 1x4 on a one-row OFM (one microblock down).
        self.across.next = (self.b.val().ofm_width + 1) >> 1;
        if self.one_row.val() {
            self.across.next = (self.b.val().ofm_width + 3) >> 2;
        }
        self.down.next = (self.b.val().ofm_height + 1) >> 1;
        self.channels_left.next = self.b.val().ofm_depth - self.ublock.q.val();
        self.paired_left.next = 0.into();
        if self.ublock.q.val() < self.b.val().paired_depth {
            self.paired_left.next = self.b.val().paired_depth - self.ublock.q.val();
        }
        self.rows_left.next = self.b.val().ofm_height - (self.my.q.val() << 1);
        self.columns_left.next = self.b.val().ofm_width - (self.mx.q.val() << 1);
        if self.one_row.val() {
            self.columns_left.next = self.b.val().ofm_width - (self.mx.q.val() << 2);
        }
        self.last_microblock.next =
            (self.mx.q.val() + 1 == self.across.val()) & (self.my.q.val() + 1 == self.down.val());
        self.last_word.next =
            self.last_microblock.val() & (self.ublock.q.val() + 8 >= self.b.val().ofm_depth);

        self.readouts.data.next.acc_address = self.word.q.val();
        if self.b.val().ab_half {
            self.readouts.data.next.acc_address = self.word.q.val() | 0x100;
        }
        self.readouts.data.next.oy = self.b.val().ofm_y + (self.my.q.val() << 1);
        self.readouts.data.next.ox = self.b.val().ofm_x + (self.mx.q.val() << 1);
        if self.one_row.val() {
            self.readouts.data.next.ox = self.b.val().ofm_x + (self.mx.q.val() << 2);
        }
        self.readouts.data.next.oz = self.b.val().ofm_z + self.ublock.q.val();
        self.readouts.data.next.paired_channels = 8.into();
        if self.paired_left.val() < 8 {
            self.readouts.data.next.paired_channels = self.paired_left.val().get_bits::<4>(0);
        }
        self.readouts.data.next.channels = 8.into();
        if self.channels_left.val() < 8 {
            self.readouts.data.next.channels = self.channels_left.val().get_bits::<4>(0);
        }
        // Positions in raster order: the right column and the lower row
        // exist when the block has them; in a 1x4 microblock the columns
        // the block has.
        self.readouts.data.next.positions = 1.into();
        if self.columns_left.val() > 1 {
            self.readouts.data.next.positions = 3.into();
        }
        if self.one_row.val() {
            if self.columns_left.val() > 2 {
                self.readouts.data.next.positions = 7.into();
            }
            if self.columns_left.val() > 3 {
                self.readouts.data.next.positions = 15.into();
            }
        } else if self.rows_left.val() > 1 {
            self.readouts.data.next.positions = 5.into();
            if self.columns_left.val() > 1 {
                self.readouts.data.next.positions = 15.into();
            }
        }
        self.readouts.data.next.group_end = self.last_microblock.val();
        self.readouts.data.next.block_end = self.last_word.val();
        self.readouts.valid.next = self.active.q.val() & (self.done.q.val() != 0);
        self.take.next = self.readouts.valid.val() & self.readouts.ready.val();

        self.ab_release.next = false;
        if self.take.val() {
            self.word.d.next = self.word.q.val() + 1;
            self.mx.d.next = self.mx.q.val() + 1;
            if self.mx.q.val() + 1 == self.across.val() {
                self.mx.d.next = 0.into();
                self.my.d.next = self.my.q.val() + 1;
                if self.last_microblock.val() {
                    self.my.d.next = 0.into();
                    self.ublock.d.next = self.ublock.q.val() + 8;
                }
            }
            if self.last_word.val() {
                self.active.d.next = false;
                self.ab_release.next = true;
            }
        }

        self.blocks.ready.next = !self.active.q.val();
        self.start_block.next = self.blocks.valid.val() & self.blocks.ready.val();
        if self.start_block.val() {
            self.active.d.next = true;
            self.block.d.next = self.blocks.data.val();
            self.ublock.d.next = 0.into();
            self.my.d.next = 0.into();
            self.mx.d.next = 0.into();
            self.word.d.next = 0.into();
        }
        self.slice_read.next = self.take.val() & self.last_microblock.val();
        if self.slice_done.val() & !self.slice_read.val() {
            self.done.d.next = self.done.q.val() + 1;
        }
        if !self.slice_done.val() & self.slice_read.val() {
            self.done.d.next = self.done.q.val() - 1;
        }
        self.busy.next = self.active.q.val();
    }
}
