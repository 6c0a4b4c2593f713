//! The IFM elements in an OFM position's kernel window: the divisor of a
//! padded average pool (TRM 4.8.2 table 4-122: kernel at most 8x8; the
//! golden model's `run_pool` counts the window's elements inside the
//! upscaled IFM).
//!
//! The count is found in two steps a FIFO apart, so that neither is in
//! the cycle the output unit takes a beat (issue 36): [`WordWindows`]
//! counts each axis's taps for every position of a readout word as the
//! word goes into the readout FIFO, and [`WindowCount`] multiplies its
//! position's two as the word comes out.
//!
//! # Ports
//!
//! - [`WordWindows`]: `oy`, `ox` (the word's first position) and `shape`
//!   in, `taps` out, combinational.
//! - [`WindowCount`]: `taps`, `position` (0 to 3 in the word) and
//!   `one_row` in, `count` out, combinational: 1..=64 for a kernel of at
//!   most 8x8 whose window touches the IFM.

use crate::datapath::{TraversalShape, WindowTaps};
use rust_hdl::prelude::*;

/// One axis of the window: of the first `kernel` taps (at most 8) from
/// `position * stride - pad`, `dilation` apart, those in 0..`extent`.
#[derive(LogicBlock, Default)]
pub struct AxisTaps {
    pub position: Signal<In, Bits<16>>,
    pub stride: Signal<In, Bits<2>>,
    pub dilation: Signal<In, Bits<2>>,
    pub pad: Signal<In, Bits<16>>,
    pub kernel: Signal<In, Bits<16>>,
    pub extent: Signal<In, Bits<16>>,
    pub taps: Signal<Out, Bits<4>>,
    /// The first tap's coordinate and tap k's, 20-bit two's complement.
    first: Signal<Local, Bits<20>>,
    tap: Signal<Local, Bits<20>>,
    /// Bit k: tap k is in the IFM.
    in_ifm: Signal<Local, Bits<8>>,
}

impl Logic for AxisTaps {
    #[hdl_gen]
    fn update(&mut self) {
        // Strides are 1 to 3: shifts and adds.
        self.first.next = bit_cast::<20, 16>(self.position.val());
        if self.stride.val() == 2 {
            self.first.next = bit_cast::<20, 16>(self.position.val()) << 1;
        }
        if self.stride.val() == 3 {
            self.first.next = bit_cast::<20, 16>(self.position.val())
                + (bit_cast::<20, 16>(self.position.val()) << 1);
        }
        self.first.next = self.first.val() - bit_cast::<20, 16>(self.pad.val());
        // Each tap from the first (dilation 1 or 2), side by side, then
        // counted as a tree: no chain of eight adds.
        self.in_ifm.next = 0.into();
        for k in 0..8_usize {
            self.tap.next = self.first.val() + k.to_bits::<20>();
            if self.dilation.val() == 2 {
                self.tap.next = self.first.val() + (2 * k).to_bits::<20>();
            }
            if (k.to_bits::<16>() < self.kernel.val())
                & !self.tap.val().get_bit(19)
                & (self.tap.val() < bit_cast::<20, 16>(self.extent.val()))
            {
                self.in_ifm.next = self.in_ifm.val().replace_bit(k, true);
            }
        }
        self.taps.next = ((bit_cast::<4, 1>(self.in_ifm.val().get_bits::<1>(0))
            + bit_cast::<4, 1>(self.in_ifm.val().get_bits::<1>(1)))
            + (bit_cast::<4, 1>(self.in_ifm.val().get_bits::<1>(2))
                + bit_cast::<4, 1>(self.in_ifm.val().get_bits::<1>(3))))
            + ((bit_cast::<4, 1>(self.in_ifm.val().get_bits::<1>(4))
                + bit_cast::<4, 1>(self.in_ifm.val().get_bits::<1>(5)))
                + (bit_cast::<4, 1>(self.in_ifm.val().get_bits::<1>(6))
                    + bit_cast::<4, 1>(self.in_ifm.val().get_bits::<1>(7))));
    }
}

#[derive(LogicBlock)]
pub struct WordWindows {
    pub oy: Signal<In, Bits<16>>,
    pub ox: Signal<In, Bits<16>>,
    pub shape: Signal<In, TraversalShape>,
    pub taps: Signal<Out, WindowTaps>,
    rows: Vec<AxisTaps>,
    columns: Vec<AxisTaps>,
}

impl Default for WordWindows {
    fn default() -> Self {
        Self {
            oy: Default::default(),
            ox: Default::default(),
            shape: Default::default(),
            taps: Default::default(),
            rows: (0..2).map(|_| AxisTaps::default()).collect(),
            columns: (0..4).map(|_| AxisTaps::default()).collect(),
        }
    }
}

impl Logic for WordWindows {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..2_usize {
            self.rows[k].position.next = self.oy.val() + k.to_bits::<16>();
            self.rows[k].stride.next = self.shape.val().stride_y;
            self.rows[k].dilation.next = self.shape.val().dilation_y;
            self.rows[k].pad.next = self.shape.val().pad_top;
            self.rows[k].kernel.next = self.shape.val().kernel_height;
            self.rows[k].extent.next = self.shape.val().ifm_height;
        }
        for k in 0..4_usize {
            self.columns[k].position.next = self.ox.val() + k.to_bits::<16>();
            self.columns[k].stride.next = self.shape.val().stride_x;
            self.columns[k].dilation.next = self.shape.val().dilation_x;
            self.columns[k].pad.next = self.shape.val().pad_left;
            self.columns[k].kernel.next = self.shape.val().kernel_width;
            self.columns[k].extent.next = self.shape.val().ifm_width;
        }
        self.taps.next.row0 = self.rows[0].taps.val();
        self.taps.next.row1 = self.rows[1].taps.val();
        self.taps.next.column0 = self.columns[0].taps.val();
        self.taps.next.column1 = self.columns[1].taps.val();
        self.taps.next.column2 = self.columns[2].taps.val();
        self.taps.next.column3 = self.columns[3].taps.val();
    }
}

#[derive(LogicBlock, Default)]
pub struct WindowCount {
    pub taps: Signal<In, WindowTaps>,
    pub position: Signal<In, Bits<2>>,
    pub one_row: Signal<In, Bit>,
    pub count: Signal<Out, Bits<7>>,
    row: Signal<Local, Bits<4>>,
    column: Signal<Local, Bits<4>>,
    area: Signal<Local, Bits<32>>,
}

impl Logic for WindowCount {
    #[hdl_gen]
    fn update(&mut self) {
        self.row.next = self.taps.val().row0;
        self.column.next = self.taps.val().column0;
        if self.position.val() == 1 {
            self.column.next = self.taps.val().column1;
        }
        if self.position.val() == 2 {
            self.row.next = self.taps.val().row1;
            if self.one_row.val() {
                self.row.next = self.taps.val().row0;
                self.column.next = self.taps.val().column2;
            }
        }
        if self.position.val() == 3 {
            self.row.next = self.taps.val().row1;
            self.column.next = self.taps.val().column1;
            if self.one_row.val() {
                self.row.next = self.taps.val().row0;
                self.column.next = self.taps.val().column3;
            }
        }
        self.area.next = bit_cast::<16, 4>(self.row.val()) * bit_cast::<16, 4>(self.column.val());
        self.count.next = self.area.val().get_bits::<7>(0);
    }
}
