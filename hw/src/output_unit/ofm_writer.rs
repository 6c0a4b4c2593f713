//! The OFM writer: the output unit's results of one OFM position and up to 8
//! channels become one OFM write at the feature map's byte address
//! (`npu_model::tensor::FeatureMap::offset`: tiles, NHWC or NHCWB16, TRM
//! 4.6.5), the values little-endian in 1, 2 or 4 bytes as `DType::store` does.
//!
//! Ports:
//! - `results` ([`OfmResult`]s): `c` a multiple of 8 (16 with `spread`, the
//!   parallel mode's even and odd channels, TRM 4.7.5.1); `ready` depends on
//!   `writes.ready` and the result's lanes, never on `valid`.
//! - `view` ([`OfmView`]): held while the operation's results are offered.
//! - `writes` ([`OfmWrite`]s): `count` bytes from `offset`, every byte in
//!   `mask`; a spread 32-bit result of more than 4 lanes is two writes.
//! - `busy`: a taken result has not yet left as a write.
//!
//! Offsets are modulo 2^40 through two [`Multiply16x40`]s, so negative strides
//! work as two's complement. One write a cycle, two register stages after the
//! result.

use crate::dma::OfmWrite;
use crate::op_state::OfmView;
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::{Multiply16x40, ResetReg};
use rust_hdl::prelude::*;

/// One OFM position's results: lane i (channel c + i, or c + 2i when
/// `spread`) in bits 32i+31..32i, two's complement, already saturated to
/// the OFM type; `lanes` a contiguous prefix of lanes; when `spread`, core
/// 1's lane i (channel c + 2i + 1) likewise in `paired_values`.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OfmResult {
    pub values: Bits<256>,
    pub lanes: Bits<8>,
    pub paired_values: Bits<256>,
    pub paired_lanes: Bits<8>,
    pub y: Bits<16>,
    pub x: Bits<16>,
    pub c: Bits<16>,
    pub spread: Bit,
    /// The OFM block's last position: its last write ends the block.
    pub block_end: Bit,
}

#[derive(LogicBlock)]
pub struct OfmWriter {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Results from the output unit, with their OFM coordinates.
    pub results: StreamIn<OfmResult>,
    /// The operation's OFM registers.
    pub view: Signal<In, OfmView>,
    /// Writes toward the DMA OFM channel.
    pub writes: StreamOut<OfmWrite>,
    /// A taken result is still in the writer (either stage).
    pub busy: Signal<Out, Bit>,
    row_product: Multiply16x40,
    column_product: Multiply16x40,
    /// The locate stage: the write but for its offset's products, and their
    /// operands (row: y and STRIDE_Y; column: x and STRIDE_X, or c / 16
    /// and STRIDE_C).
    located_full: ResetReg<Bit>,
    located: ResetReg<OfmWrite>,
    row_factor: ResetReg<Bits<16>>,
    row_stride: ResetReg<Bits<40>>,
    column_factor: ResetReg<Bits<16>>,
    column_stride: ResetReg<Bits<40>>,
    /// The write stage: the write on `writes`.
    full: ResetReg<Bit>,
    write: ResetReg<OfmWrite>,
    /// The first write of a spread 32-bit result is out: its lanes 4-7 are
    /// next.
    upper: ResetReg<Bit>,
    take: Signal<Local, Bit>,
    locate: Signal<Local, Bit>,
    /// The result needs two writes.
    split: Signal<Local, Bit>,
    result: Signal<Local, OfmResult>,
    /// The lanes of this write (the result's, or its upper four), their
    /// first channel.
    values: Signal<Local, Bits<256>>,
    lanes: Signal<Local, Bits<8>>,
    paired_values: Signal<Local, Bits<256>>,
    paired_lanes: Signal<Local, Bits<8>>,
    paired_count: Signal<Local, Bits<6>>,
    /// Elements of a spread write: up to the last lane of either core.
    spread_elements: Signal<Local, Bits<6>>,
    channel: Signal<Local, Bits<16>>,
    /// The byte mask of a write of contiguous channels.
    every_byte: Constant<Bits<32>>,
    /// log2 of the element bytes.
    element_shift: Signal<Local, Bits<2>>,
    nhcwb16: Signal<Local, Bit>,
    width0: Signal<Local, Bits<17>>,
    height0: Signal<Local, Bits<17>>,
    height1: Signal<Local, Bits<17>>,
    y: Signal<Local, Bits<17>>,
    x: Signal<Local, Bits<17>>,
    base: Signal<Local, Bits<48>>,
    /// Offset of the element in its row: c * e (NHWC) or (x * 16 + c % 16)
    /// * e (NHCWB16).
    in_row: Signal<Local, Bits<40>>,
    lane_count: Signal<Local, Bits<6>>,
    /// Lane i of the loop: on, and its low byte and half word.
    lane_on: Signal<Local, Bits<1>>,
    lane_low_8: Signal<Local, Bits<8>>,
    lane_low_16: Signal<Local, Bits<16>>,
    lane_value: Signal<Local, Bits<32>>,
    packed_8: Signal<Local, Bits<256>>,
    packed_16: Signal<Local, Bits<256>>,
    /// Spread: lane i at byte 2i * e.
    spread_8: Signal<Local, Bits<256>>,
    spread_16: Signal<Local, Bits<256>>,
    spread_32: Signal<Local, Bits<256>>,
    mask_8: Signal<Local, Bits<32>>,
    mask_16: Signal<Local, Bits<32>>,
    mask_32: Signal<Local, Bits<32>>,
}

impl Default for OfmWriter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            results: Default::default(),
            view: Default::default(),
            writes: Default::default(),
            busy: Default::default(),
            row_product: Default::default(),
            column_product: Default::default(),
            located_full: Default::default(),
            located: Default::default(),
            row_factor: Default::default(),
            row_stride: Default::default(),
            column_factor: Default::default(),
            column_stride: Default::default(),
            full: Default::default(),
            write: Default::default(),
            upper: Default::default(),
            take: Default::default(),
            locate: Default::default(),
            split: Default::default(),
            result: Default::default(),
            values: Default::default(),
            lanes: Default::default(),
            paired_values: Default::default(),
            paired_lanes: Default::default(),
            paired_count: Default::default(),
            spread_elements: Default::default(),
            channel: Default::default(),
            every_byte: Constant::new(0xFFFF_FFFF_u64.into()),
            element_shift: Default::default(),
            nhcwb16: Default::default(),
            width0: Default::default(),
            height0: Default::default(),
            height1: Default::default(),
            y: Default::default(),
            x: Default::default(),
            base: Default::default(),
            in_row: Default::default(),
            lane_count: Default::default(),
            lane_on: Default::default(),
            lane_low_8: Default::default(),
            lane_low_16: Default::default(),
            lane_value: Default::default(),
            packed_8: Default::default(),
            packed_16: Default::default(),
            spread_8: Default::default(),
            spread_16: Default::default(),
            spread_32: Default::default(),
            mask_8: Default::default(),
            mask_16: Default::default(),
            mask_32: Default::default(),
        }
    }
}

impl Logic for OfmWriter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            located_full,
            located,
            row_factor,
            row_stride,
            column_factor,
            column_stride,
            full,
            write,
            upper
        );
        self.located_full.rst_n.next = self.rst_n.val();
        self.located.rst_n.next = self.rst_n.val();
        self.row_factor.rst_n.next = self.rst_n.val();
        self.row_stride.rst_n.next = self.rst_n.val();
        self.column_factor.rst_n.next = self.rst_n.val();
        self.column_stride.rst_n.next = self.rst_n.val();
        self.full.rst_n.next = self.rst_n.val();
        self.write.rst_n.next = self.rst_n.val();
        self.upper.rst_n.next = self.rst_n.val();
        self.take.next = !self.full.q.val() | self.writes.ready.val();
        self.locate.next = !self.located_full.q.val() | self.take.val();
        self.writes.valid.next = self.full.q.val();
        self.busy.next = self.located_full.q.val() | self.full.q.val();
        self.writes.data.next = self.write.q.val();

        self.result.next = self.results.data.val();
        self.element_shift.next = self.view.val().precision_activation_precision;
        // A spread 32-bit result spans up to 60 bytes: lanes 0-3, then 4-7.
        self.split.next = self.result.val().spread
            & (self.element_shift.val() == 2)
            & ((self.result.val().lanes & 16) != 0);
        self.results.ready.next = self.locate.val() & (!self.split.val() | self.upper.q.val());
        self.values.next = self.result.val().values;
        self.lanes.next = self.result.val().lanes;
        self.paired_values.next = self.result.val().paired_values;
        self.paired_lanes.next = self.result.val().paired_lanes;
        self.channel.next = self.result.val().c;
        if self.split.val() & !self.upper.q.val() {
            self.lanes.next = self.result.val().lanes & 15;
            self.paired_lanes.next = self.result.val().paired_lanes & 15;
        }
        if self.upper.q.val() {
            self.values.next = self.result.val().values >> 128;
            self.lanes.next = self.result.val().lanes >> 4;
            self.paired_values.next = self.result.val().paired_values >> 128;
            self.paired_lanes.next = self.result.val().paired_lanes >> 4;
            self.channel.next = self.result.val().c + 8;
        }
        self.nhcwb16.next = self.view.val().precision_activation_format != 0;

        // The tile and the tile-relative position (FeatureMap::offset).
        self.width0.next = bit_cast::<17, 16>(self.view.val().width0_m1) + 1;
        self.height0.next = bit_cast::<17, 16>(self.view.val().height0_m1) + 1;
        self.height1.next = bit_cast::<17, 16>(self.view.val().height1_m1) + 1;
        self.y.next = bit_cast::<17, 16>(self.result.val().y);
        self.x.next = bit_cast::<17, 16>(self.result.val().x);
        self.base.next = self.view.val().base0;
        if self.x.val() >= self.width0.val() {
            self.x.next = bit_cast::<17, 16>(self.result.val().x) - self.width0.val();
            self.base.next = self.view.val().base1;
            if self.y.val() >= self.height1.val() {
                self.y.next = bit_cast::<17, 16>(self.result.val().y) - self.height1.val();
                self.base.next = self.view.val().base3;
            }
        } else if self.y.val() >= self.height0.val() {
            self.y.next = bit_cast::<17, 16>(self.result.val().y) - self.height0.val();
            self.base.next = self.view.val().base2;
        }

        self.in_row.next = bit_cast::<40, 16>(self.channel.val()) << self.element_shift.val();
        if self.nhcwb16.val() {
            self.in_row.next = ((bit_cast::<40, 17>(self.x.val()) << 4)
                + bit_cast::<40, 16>(self.channel.val() & 15))
                << self.element_shift.val();
        }

        // The lanes' low bytes, packed.
        self.lane_count.next = 0.into();
        self.packed_8.next = 0.into();
        self.packed_16.next = 0.into();
        self.spread_8.next = 0.into();
        self.spread_16.next = 0.into();
        self.spread_32.next = 0.into();
        self.mask_8.next = 0.into();
        self.mask_16.next = 0.into();
        self.mask_32.next = 0.into();
        self.paired_count.next = 0.into();
        for i in 0..8 {
            // Core 1's lane i: channel c + 2i + 1, one element after core 0's.
            self.lane_on.next = self.paired_lanes.val().get_bits::<1>(i);
            self.lane_low_8.next = self.paired_values.val().get_bits::<8>(i * 32);
            self.lane_low_16.next = self.paired_values.val().get_bits::<16>(i * 32);
            self.paired_count.next = self.paired_count.val() + bit_cast::<6, 1>(self.lane_on.val());
            self.spread_8.next = self.spread_8.val()
                | (bit_cast::<256, 8>(self.lane_low_8.val()) << (i * 16 + 8).to_bits::<8>());
            self.spread_16.next = self.spread_16.val()
                | (bit_cast::<256, 16>(self.lane_low_16.val()) << (i * 32 + 16).to_bits::<8>());
            self.mask_8.next = self.mask_8.val()
                | (bit_cast::<32, 1>(self.lane_on.val()) << (i * 2 + 1).to_bits::<6>());
            self.mask_16.next = self.mask_16.val()
                | (bit_cast::<32, 1>(self.lane_on.val()) << (i * 4 + 2).to_bits::<6>())
                | (bit_cast::<32, 1>(self.lane_on.val()) << (i * 4 + 3).to_bits::<6>());
        }
        for i in 0..4 {
            self.lane_on.next = self.paired_lanes.val().get_bits::<1>(i);
            self.lane_value.next = self.paired_values.val().get_bits::<32>(i * 32);
            self.spread_32.next = self.spread_32.val()
                | (bit_cast::<256, 32>(self.lane_value.val()) << (i * 64 + 32).to_bits::<8>());
            for b in 0..4 {
                self.mask_32.next = self.mask_32.val()
                    | (bit_cast::<32, 1>(self.lane_on.val()) << (i * 8 + 4 + b).to_bits::<6>());
            }
        }
        for i in 0..8 {
            self.lane_on.next = self.lanes.val().get_bits::<1>(i);
            self.lane_low_8.next = self.values.val().get_bits::<8>(i * 32);
            self.lane_low_16.next = self.values.val().get_bits::<16>(i * 32);
            self.lane_count.next = self.lane_count.val() + bit_cast::<6, 1>(self.lane_on.val());
            self.packed_8.next = self.packed_8.val()
                | (bit_cast::<256, 8>(self.lane_low_8.val()) << (i * 8).to_bits::<8>());
            self.packed_16.next = self.packed_16.val()
                | (bit_cast::<256, 16>(self.lane_low_16.val()) << (i * 16).to_bits::<8>());
            self.spread_8.next = self.spread_8.val()
                | (bit_cast::<256, 8>(self.lane_low_8.val()) << (i * 16).to_bits::<8>());
            self.spread_16.next = self.spread_16.val()
                | (bit_cast::<256, 16>(self.lane_low_16.val()) << (i * 32).to_bits::<8>());
            self.mask_8.next = self.mask_8.val()
                | (bit_cast::<32, 1>(self.lane_on.val()) << (i * 2).to_bits::<6>());
            self.mask_16.next = self.mask_16.val()
                | (bit_cast::<32, 1>(self.lane_on.val()) << (i * 4).to_bits::<6>())
                | (bit_cast::<32, 1>(self.lane_on.val()) << (i * 4 + 1).to_bits::<6>());
        }
        for i in 0..4 {
            self.lane_on.next = self.lanes.val().get_bits::<1>(i);
            self.lane_value.next = self.values.val().get_bits::<32>(i * 32);
            self.spread_32.next = self.spread_32.val()
                | (bit_cast::<256, 32>(self.lane_value.val()) << (i * 64).to_bits::<8>());
            for b in 0..4 {
                self.mask_32.next = self.mask_32.val()
                    | (bit_cast::<32, 1>(self.lane_on.val()) << (i * 8 + b).to_bits::<6>());
            }
        }

        self.spread_elements.next = (self.lane_count.val() << 1) - 1;
        if (self.paired_count.val() << 1) > self.spread_elements.val() {
            self.spread_elements.next = self.paired_count.val() << 1;
        }
        if self.locate.val() {
            self.located_full.d.next = self.results.valid.val();
            self.row_factor.d.next = bit_cast::<16, 17>(self.y.val());
            self.row_stride.d.next = bit_cast::<40, 48>(self.view.val().stride_y);
            self.column_factor.d.next = bit_cast::<16, 17>(self.x.val());
            self.column_stride.d.next = bit_cast::<40, 48>(self.view.val().stride_x);
            if self.nhcwb16.val() {
                self.column_factor.d.next = self.channel.val() >> 4;
                self.column_stride.d.next = bit_cast::<40, 48>(self.view.val().stride_c);
            }
            self.located.d.next.region = self.view.val().region;
            self.located.d.next.block_end =
                self.result.val().block_end & (!self.split.val() | self.upper.q.val());
            self.located.d.next.offset = bit_cast::<40, 48>(self.base.val()) + self.in_row.val();
            self.located.d.next.count = self.lane_count.val() << self.element_shift.val();
            self.located.d.next.mask = self.every_byte.val();
            self.located.d.next.data = self.values.val();
            if self.element_shift.val() == 0 {
                self.located.d.next.data = self.packed_8.val();
            }
            if self.element_shift.val() == 1 {
                self.located.d.next.data = self.packed_16.val();
            }
            if self.result.val().spread {
                // From channel c to the last lane's: 2n - 1 elements of n
                // core-0 lanes, 2m of m core-1 lanes.
                self.located.d.next.count = self.spread_elements.val() << self.element_shift.val();
                self.located.d.next.data = self.spread_32.val();
                self.located.d.next.mask = self.mask_32.val();
                if self.element_shift.val() == 0 {
                    self.located.d.next.data = self.spread_8.val();
                    self.located.d.next.mask = self.mask_8.val();
                }
                if self.element_shift.val() == 1 {
                    self.located.d.next.data = self.spread_16.val();
                    self.located.d.next.mask = self.mask_16.val();
                }
            }
            if self.results.valid.val() & self.split.val() {
                self.upper.d.next = !self.upper.q.val();
            }
        }

        // The write stage: the offset's products.
        self.row_product.a.next = self.row_factor.q.val();
        self.row_product.b.next = self.row_stride.q.val();
        self.column_product.a.next = self.column_factor.q.val();
        self.column_product.b.next = self.column_stride.q.val();
        if self.take.val() {
            self.full.d.next = self.located_full.q.val();
            self.write.d.next = self.located.q.val();
            self.write.d.next.offset = self.located.q.val().offset
                + self.row_product.product.val()
                + self.column_product.product.val();
        }
    }
}
