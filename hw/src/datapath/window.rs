//! The IFM elements in an OFM position's kernel window: the divisor of a
//! padded average pool (TRM 4.8.2 table 4-122: kernel at most 8x8; the
//! golden model's `run_pool` counts the window's elements inside the
//! upscaled IFM).
//!
//! # Ports
//!
//! `y`, `x` (the OFM position) and `shape` in, `count` out, combinational:
//! per axis ([`AxisTaps`]) the kernel taps k < 8 whose coordinate
//! o * stride + k * dilation - padding lies in the IFM, and their product
//! (1..=64 for a kernel of at most 8x8 whose window touches the IFM).

use crate::central_control::traversal::TraversalShape;
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

#[derive(LogicBlock, Default)]
pub struct WindowCount {
    pub y: Signal<In, Bits<16>>,
    pub x: Signal<In, Bits<16>>,
    pub shape: Signal<In, TraversalShape>,
    pub count: Signal<Out, Bits<7>>,
    rows: AxisTaps,
    columns: AxisTaps,
    area: Signal<Local, Bits<32>>,
}

impl Logic for WindowCount {
    #[hdl_gen]
    fn update(&mut self) {
        self.rows.position.next = self.y.val();
        self.rows.stride.next = self.shape.val().stride_y;
        self.rows.dilation.next = self.shape.val().dilation_y;
        self.rows.pad.next = self.shape.val().pad_top;
        self.rows.kernel.next = self.shape.val().kernel_height;
        self.rows.extent.next = self.shape.val().ifm_height;
        self.columns.position.next = self.x.val();
        self.columns.stride.next = self.shape.val().stride_x;
        self.columns.dilation.next = self.shape.val().dilation_x;
        self.columns.pad.next = self.shape.val().pad_left;
        self.columns.kernel.next = self.shape.val().kernel_width;
        self.columns.extent.next = self.shape.val().ifm_width;
        self.area.next =
            bit_cast::<16, 4>(self.rows.taps.val()) * bit_cast::<16, 4>(self.columns.taps.val());
        self.count.next = self.area.val().get_bits::<7>(0);
    }
}
