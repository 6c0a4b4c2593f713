//! A job's pieces and tiles (TRM 4.6.5: an IFM is up to four tiles, tile 0
//! left of WIDTH0 and above HEIGHT0, tile 1 right of it and above HEIGHT1,
//! tiles 2 and 3 below them): the rectangle's piece left of WIDTH0 (a) and
//! right of it (b), each piece's tile and tile-relative first row, and its
//! rows above its tile split. Combinational; the IFM fetch registers the
//! result in its first set-up step.

use crate::datapath::IfmBlockJob;
use rust_hdl::prelude::*;

/// A job's pieces and tiles, registered in set-up step 0 so that the
/// products of the later steps and the fills start from registers.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct JobPieces {
    pub has_a: Bit,
    pub has_b: Bit,
    pub width_a: Bits<16>,
    pub width_b: Bits<16>,
    /// Tile-relative first column of piece b, first rows of a and b.
    pub x_b: Bits<17>,
    pub y_a: Bits<17>,
    pub y_b: Bits<17>,
    pub base_a: Bits<40>,
    pub base_b: Bits<40>,
    pub upper_a: Bits<16>,
    pub upper_b: Bits<16>,
    pub split_a: Bit,
    pub split_b: Bit,
}

#[derive(LogicBlock, Default)]
pub struct IfmPieces {
    pub job: Signal<In, IfmBlockJob>,
    /// WIDTH0, HEIGHT0 and HEIGHT1 (not minus 1), and the four tiles' bases.
    pub width0: Signal<In, Bits<17>>,
    pub height0: Signal<In, Bits<17>>,
    pub height1: Signal<In, Bits<17>>,
    pub base_0: Signal<In, Bits<40>>,
    pub base_1: Signal<In, Bits<40>>,
    pub base_2: Signal<In, Bits<40>>,
    pub base_3: Signal<In, Bits<40>>,
    pub pieces: Signal<Out, JobPieces>,
    x0: Signal<Local, Bits<17>>,
    y0: Signal<Local, Bits<17>>,
    y_end: Signal<Local, Bits<17>>,
    x_end: Signal<Local, Bits<17>>,
    a_end: Signal<Local, Bits<17>>,
    width_a: Signal<Local, Bits<16>>,
}

impl Logic for IfmPieces {
    #[hdl_gen]
    fn update(&mut self) {
        self.x0.next = bit_cast::<17, 16>(self.job.val().x0);
        self.y0.next = bit_cast::<17, 16>(self.job.val().y0);
        self.x_end.next = self.x0.val() + bit_cast::<17, 16>(self.job.val().width);
        self.y_end.next = self.y0.val() + bit_cast::<17, 16>(self.job.val().height);
        self.pieces.next.has_a = self.x0.val() < self.width0.val();
        self.pieces.next.has_b = self.x_end.val() > self.width0.val();
        self.a_end.next = self.x_end.val();
        if self.x_end.val() > self.width0.val() {
            self.a_end.next = self.width0.val();
        }
        self.width_a.next = 0.into();
        self.pieces.next.x_b = self.x0.val() - self.width0.val();
        if self.x0.val() < self.width0.val() {
            self.width_a.next = bit_cast::<16, 17>(self.a_end.val() - self.x0.val());
            self.pieces.next.x_b = 0.into();
        }
        self.pieces.next.width_a = self.width_a.val();
        self.pieces.next.width_b = self.job.val().width - self.width_a.val();
        self.pieces.next.y_a = self.y0.val();
        self.pieces.next.base_a = self.base_0.val();
        if self.y0.val() >= self.height0.val() {
            self.pieces.next.y_a = self.y0.val() - self.height0.val();
            self.pieces.next.base_a = self.base_2.val();
        }
        self.pieces.next.y_b = self.y0.val();
        self.pieces.next.base_b = self.base_1.val();
        if self.y0.val() >= self.height1.val() {
            self.pieces.next.y_b = self.y0.val() - self.height1.val();
            self.pieces.next.base_b = self.base_3.val();
        }
        // Each piece's rows above its tile split, the rest below it.
        self.pieces.next.upper_a = self.job.val().height;
        self.pieces.next.split_a = false;
        if (self.y0.val() < self.height0.val()) & (self.y_end.val() > self.height0.val()) {
            self.pieces.next.upper_a = bit_cast::<16, 17>(self.height0.val() - self.y0.val());
            self.pieces.next.split_a = true;
        }
        self.pieces.next.upper_b = self.job.val().height;
        self.pieces.next.split_b = false;
        if (self.y0.val() < self.height1.val()) & (self.y_end.val() > self.height1.val()) {
            self.pieces.next.upper_b = bit_cast::<16, 17>(self.height1.val() - self.y0.val());
            self.pieces.next.split_b = true;
        }
    }
}
