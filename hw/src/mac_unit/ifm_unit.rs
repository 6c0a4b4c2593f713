//! The IFM unit (TRM 3.3.6.1): per request, the activations of one MAC beat
//! ([`super::OperandBeat::acts`]) read from the IFM block in the shared
//! buffer, with the padding around the IFM, the 2x2 upscaling of transpose
//! convolution and the IFM zero point applied: the golden model's `pad` of
//! its `load_upscaled` IFM, as `conv_accumulate` indexes it.
//!
//! Ports:
//! - `settings` ([`IfmSettings`]): sampled with each request taken; it holds
//!   while an IFM block's requests are offered.
//! - `requests` ([`IfmRequest`]s): `ready` depends on `acts.ready` within the
//!   cycle, never on `requests.valid`.
//! - `acts` ([`IfmActs`]): one beat per request, in order, offered
//!   [`IfmUnit::LATENCY`] (3) edges after it is taken when nothing stalls; a
//!   skid register keeps a stall from losing or repeating a beat.
//! - `bank_reads` ([`BankReads`]): a read port per position with a
//!   [`SramBank`](crate::shram::SramBank)'s timing; bank 1's only for 16-bit
//!   interleaved groups. Padding and inserted zeros are not read.
//!
//! Arithmetic, shared-buffer layout and throughput: `docs/mac-unit.md`.

mod bench;
mod conversion;

pub use bench::{IfmUnitBench, LineWrite};
pub use conversion::{ActConversion, Conversion};

use crate::shram::{BankReads, LINE_ADDRESS_BITS, READ_BANKS, READ_PORTS, UNIT_ADDRESS_BITS};
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// What the IFM unit needs of an operation and its IFM block, by name.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct IfmSettings {
    /// Byte address of IB position (0, 0) in the shared buffer, a multiple
    /// of 8.
    pub ib_base: Bits<16>,
    /// Positions in an IB row.
    pub ib_width: Bits<8>,
    /// Bytes of an IB position, a multiple of 8.
    pub position_bytes: Bits<8>,
    /// Source-IFM row and column of IB position (0, 0).
    pub origin_y: Bits<16>,
    pub origin_x: Bits<16>,
    /// The upscaled IFM's height and width (the golden model's
    /// `Op::ifm_extent`).
    pub ifm_height: Bits<16>,
    pub ifm_width: Bits<16>,
    /// NPU_SET_IFM_PAD_TOP and NPU_SET_IFM_PAD_LEFT.
    pub pad_top: Bits<8>,
    pub pad_left: Bits<8>,
    /// Kernel strides, 1 to 3, and dilations, 1 or 2 (NPU_SET_KERNEL_STRIDE).
    pub stride_y: Bits<2>,
    pub stride_x: Bits<2>,
    pub dilation_y: Bits<2>,
    pub dilation_x: Bits<2>,
    /// NPU_SET_IFM_UPSCALE ([`npu_arch::command::UpscaleMode`]).
    pub upscale: Bits<2>,
    /// A 16-bit IFM.
    pub wide: Bit,
    /// A 32-bit IFM: 4-channel groups, four beats a group (`byte`).
    pub int32: Bit,
    /// 1x4 microblocks (the OFM is one row), not 2x2.
    pub one_row: Bit,
    /// A signed IFM (int8, int16).
    pub signed: Bit,
    /// NPU_SET_IFM_ZERO_POINT, in the IFM's type.
    pub zero_point: Bits<16>,
    /// Depthwise in parallel mode (TRM 4.7.5.1): a beat's channels are the
    /// even (core 0's) and odd (core 1's) elements of the 16 bytes at the
    /// group's offset (8-bit), or of 32 (16-bit).
    pub interleaved: Bit,
    /// Max pooling: padding reads the IFM type's minimum (minus the zero
    /// point), which never wins a maximum, instead of the zero point.
    pub pad_minimum: Bit,
}

/// One MAC beat's activations to make.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct IfmRequest {
    /// OFM row and column of the microblock's top-left position.
    pub oy: Bits<16>,
    pub ox: Bits<16>,
    /// Kernel element, undilated: up to 256 rows and 65536 columns (a
    /// pool's kernel, TRM 4.8.2 table 4-122).
    pub ky: Bits<8>,
    pub kx: Bits<16>,
    /// Byte offset of the 8-channel (4 for 32 bits) group in an IB position.
    pub channel_offset: Bits<8>,
    /// The part of multi-byte activations: 1 the upper part of 16-bit
    /// ones, 0-3 the byte of 32-bit ones.
    pub byte: Bits<2>,
}

/// Activation (p, k) of position p and channel k in bits 9(8p+k)+8..9(8p+k),
/// as [`super::OperandBeat::acts`]; an interleaved group's odd elements
/// (core 1's channels) in `odd_acts`, the same way.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct IfmActs {
    pub acts: Bits<{ super::POSITIONS * super::IFM_CHANNELS * super::OPERAND_BITS }>,
    pub odd_acts: Bits<{ super::POSITIONS * super::IFM_CHANNELS * super::OPERAND_BITS }>,
}

/// A request located in the IB: stage 1.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Located {
    /// Bit p: position p reads IFM data (not padding, not an inserted zero).
    pub present: Bits<4>,
    /// IB row of pair r (positions 2r, 2r + 1) in bits 16r..16r + 16; IB
    /// column of position p in bits 16p..16p + 16.
    pub rows: Bits<32>,
    pub columns: Bits<64>,
    /// In 8-byte units: an IB row, a position, and `ib_base` plus the
    /// channel offset.
    pub row_units: Bits<13>,
    pub position_units: Bits<5>,
    pub base_units: Bits<14>,
    pub conversion: Conversion,
}

/// A beat whose lines are being read: stage 2.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Reading {
    pub present: Bits<4>,
    pub conversion: Conversion,
}

/// The IFM unit: requests in, activations out, four shared-buffer read
/// ports (see the module doc).
#[derive(LogicBlock)]
pub struct IfmUnit {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The operation and IB of the request offered.
    pub settings: Signal<In, IfmSettings>,
    /// Beats to make, from the traversal.
    pub requests: StreamIn<IfmRequest>,
    /// Activations toward the MAC unit's dot products.
    pub acts: StreamOut<IfmActs>,
    /// Shared-buffer read ports, one per position, of each bank read.
    pub bank_reads: Vec<BankReads>,
    /// 8-byte units in the shared buffer.
    buffer_units: Constant<Bits<32>>,
    located: ResetReg<Located>,
    located_full: ResetReg<Bit>,
    reading: ResetReg<Reading>,
    reading_full: ResetReg<Bit>,
    out: ResetReg<Bits<576>>,
    out_full: ResetReg<Bit>,
    skid: ResetReg<Bits<576>>,
    skid_full: ResetReg<Bit>,
    // Handshake.
    take_out: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    take_request: Signal<Local, Bit>,
    // Stage 0: locating a request.
    oy: Signal<Local, Bits<20>>,
    ox: Signal<Local, Bits<20>>,
    stride_y: Signal<Local, Bits<20>>,
    stride_x: Signal<Local, Bits<20>>,
    tap_y: Signal<Local, Bits<20>>,
    tap_x: Signal<Local, Bits<20>>,
    uy: Signal<Local, Bits<20>>,
    ux: Signal<Local, Bits<20>>,
    ux_origin: Signal<Local, Bits<20>>,
    data_rows: Signal<Local, Bits<2>>,
    data_row: Signal<Local, Bit>,
    data_column: Signal<Local, Bit>,
    present_now: Signal<Local, Bits<4>>,
    source: Signal<Local, Bits<20>>,
    rows: Signal<Local, Bits<32>>,
    columns: Signal<Local, Bits<64>>,
    position_bytes: Signal<Local, Bits<8>>,
    position_units: Signal<Local, Bits<5>>,
    row_units: Signal<Local, Bits<32>>,
    ib_base: Signal<Local, Bits<16>>,
    channel_offset: Signal<Local, Bits<8>>,
    base_units: Signal<Local, Bits<14>>,
    conversion_now: Signal<Local, Conversion>,
    // Stage 1: addresses.
    row_pitch: Signal<Local, Bits<16>>,
    column_pitch: Signal<Local, Bits<16>>,
    rows_q: Signal<Local, Bits<32>>,
    columns_q: Signal<Local, Bits<64>>,
    row_q: Signal<Local, Bits<16>>,
    column_q: Signal<Local, Bits<16>>,
    offset_first: Signal<Local, Bits<32>>,
    offset_second: Signal<Local, Bits<32>>,
    offset_column: Signal<Local, Bits<32>>,
    units: Signal<Local, Bits<32>>,
    /// The ports' unit addresses, packed.
    read_units: Signal<Local, Bits<{ READ_PORTS * UNIT_ADDRESS_BITS }>>,
    pair_units: Signal<Local, Bits<{ READ_PORTS * UNIT_ADDRESS_BITS }>>,
    located_conversion: Signal<Local, Conversion>,
    // Stage 2: conversion.
    converter: ActConversion,
    /// Both cores' lanes: odd elements of interleaved groups from bit 288.
    converted: Signal<Local, Bits<576>>,
}

impl IfmUnit {
    /// Cycles from a request taken to its activations offered.
    pub const LATENCY: usize = 3;

    /// An IFM unit reading a shared buffer of `shram_bytes` bytes.
    pub fn new(shram_bytes: usize) -> Self {
        assert!(
            shram_bytes.is_multiple_of(crate::shram::LINE_BYTES)
                && shram_bytes / crate::shram::LINE_BYTES <= 1 << LINE_ADDRESS_BITS,
            "a shared buffer of {shram_bytes} bytes does not fit {LINE_ADDRESS_BITS}-bit line addresses"
        );
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            settings: Default::default(),
            requests: Default::default(),
            acts: Default::default(),
            bank_reads: (0..READ_BANKS).map(|_| Default::default()).collect(),
            read_units: Default::default(),
            pair_units: Default::default(),
            buffer_units: Constant::new(((shram_bytes / 8) as u64).into()),
            located: Default::default(),
            located_full: Default::default(),
            reading: Default::default(),
            reading_full: Default::default(),
            out: Default::default(),
            out_full: Default::default(),
            skid: Default::default(),
            skid_full: Default::default(),
            take_out: Default::default(),
            issue: Default::default(),
            take_request: Default::default(),
            oy: Default::default(),
            ox: Default::default(),
            stride_y: Default::default(),
            stride_x: Default::default(),
            tap_y: Default::default(),
            tap_x: Default::default(),
            uy: Default::default(),
            ux: Default::default(),
            ux_origin: Default::default(),
            data_rows: Default::default(),
            data_row: Default::default(),
            data_column: Default::default(),
            present_now: Default::default(),
            source: Default::default(),
            rows: Default::default(),
            columns: Default::default(),
            position_bytes: Default::default(),
            position_units: Default::default(),
            row_units: Default::default(),
            ib_base: Default::default(),
            channel_offset: Default::default(),
            base_units: Default::default(),
            conversion_now: Default::default(),
            row_pitch: Default::default(),
            column_pitch: Default::default(),
            rows_q: Default::default(),
            columns_q: Default::default(),
            row_q: Default::default(),
            column_q: Default::default(),
            offset_first: Default::default(),
            offset_second: Default::default(),
            offset_column: Default::default(),
            units: Default::default(),
            located_conversion: Default::default(),
            converter: Default::default(),
            converted: Default::default(),
        }
    }
}

impl Logic for IfmUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            located,
            located_full,
            reading,
            reading_full,
            out,
            out_full,
            skid,
            skid_full
        );
        self.located.rst_n.next = self.rst_n.val();
        self.located_full.rst_n.next = self.rst_n.val();
        self.reading.rst_n.next = self.rst_n.val();
        self.reading_full.rst_n.next = self.rst_n.val();
        self.out.rst_n.next = self.rst_n.val();
        self.out_full.rst_n.next = self.rst_n.val();
        self.skid.rst_n.next = self.rst_n.val();
        self.skid_full.rst_n.next = self.rst_n.val();

        // Handshake. A read is issued only when the output and skid
        // registers can take its beat on the edge after next whatever
        // `acts.ready` does then: at most one of them full after this edge.
        self.take_out.next = self.out_full.q.val() & self.acts.ready.val();
        self.issue.next = self.located_full.q.val()
            & (self.take_out.val()
                | !((self.out_full.q.val() & self.skid_full.q.val())
                    | (self.out_full.q.val() & self.reading_full.q.val())
                    | (self.skid_full.q.val() & self.reading_full.q.val())));
        self.take_request.next = !self.located_full.q.val() | self.issue.val();
        self.requests.ready.next = self.take_request.val();

        // Stage 0: the request's upscaled-IFM rows and columns. Strides and
        // dilations are 1-3 and 1-2: shifts and adds.
        self.oy.next = bit_cast::<20, 16>(self.requests.data.val().oy);
        self.ox.next = bit_cast::<20, 16>(self.requests.data.val().ox);
        self.stride_y.next = bit_cast::<20, 2>(self.settings.val().stride_y);
        self.stride_x.next = bit_cast::<20, 2>(self.settings.val().stride_x);
        self.tap_y.next = bit_cast::<20, 8>(self.requests.data.val().ky);
        if self.settings.val().dilation_y == 2 {
            self.tap_y.next = self.tap_y.val() << 1;
        }
        self.tap_x.next = bit_cast::<20, 16>(self.requests.data.val().kx);
        if self.settings.val().dilation_x == 2 {
            self.tap_x.next = self.tap_x.val() << 1;
        }
        // The upscaled rows of the two pairs: the second one row down
        // (2x2) or the same (1x4); inside the upscaled IFM (bit 19:
        // negative) and not an inserted zero (TRM 4.6.4 NPU_SET_IFM_UPSCALE
        // mode 2: odd rows and columns); IB rows: the source row (halved
        // when upscaling) minus the IB origin, modulo 2^16.
        self.uy.next = self.oy.val();
        if self.settings.val().stride_y == 2 {
            self.uy.next = self.oy.val() << 1;
        }
        if self.settings.val().stride_y == 3 {
            self.uy.next = self.oy.val() + (self.oy.val() << 1);
        }
        self.uy.next =
            self.uy.val() + self.tap_y.val() - bit_cast::<20, 8>(self.settings.val().pad_top);
        self.data_rows.next = 0.into();
        self.rows.next = 0.into();
        for r in 0..2_usize {
            if !self.settings.val().one_row & (r == 1) {
                self.uy.next = self.uy.val() + self.stride_y.val();
            }
            if !self.uy.val().get_bit(19)
                & (self.uy.val() < bit_cast::<20, 16>(self.settings.val().ifm_height))
                & !((self.settings.val().upscale == 2) & self.uy.val().get_bit(0))
            {
                self.data_rows.next = self.data_rows.val() | (bits::<2>(1) << r.to_bits::<1>());
            }
            self.source.next = self.uy.val();
            if self.settings.val().upscale != 0 {
                self.source.next = self.uy.val() >> 1;
            }
            self.source.next = self.source.val() - bit_cast::<20, 16>(self.settings.val().origin_y);
            self.rows.next = self.rows.val()
                | (bit_cast::<32, 16>(self.source.val().get_bits::<16>(0))
                    << (16 * r).to_bits::<5>());
        }

        // The upscaled columns of the positions, one stride apart along
        // the row; the second pair starts again at the first's column
        // (2x2) or goes on (1x4). Bit p of `present_now`: position p reads
        // data (its pair's row and its column do). IB columns as rows.
        self.ux_origin.next = self.ox.val();
        if self.settings.val().stride_x == 2 {
            self.ux_origin.next = self.ox.val() << 1;
        }
        if self.settings.val().stride_x == 3 {
            self.ux_origin.next = self.ox.val() + (self.ox.val() << 1);
        }
        self.ux_origin.next = self.ux_origin.val() + self.tap_x.val()
            - bit_cast::<20, 8>(self.settings.val().pad_left);
        self.ux.next = self.ux_origin.val();
        self.present_now.next = 0.into();
        self.columns.next = 0.into();
        for p in 0..4_usize {
            if !self.settings.val().one_row & (p == 2) {
                self.ux.next = self.ux_origin.val();
            }
            self.data_column.next = !self.ux.val().get_bit(19)
                & (self.ux.val() < bit_cast::<20, 16>(self.settings.val().ifm_width))
                & !((self.settings.val().upscale == 2) & self.ux.val().get_bit(0));
            self.data_row.next = self.data_rows.val().get_bit(0);
            if p >= 2 {
                self.data_row.next = self.data_rows.val().get_bit(1);
            }
            if self.data_row.val() & self.data_column.val() {
                self.present_now.next = self.present_now.val() | (bits::<4>(1) << p.to_bits::<2>());
            }
            self.source.next = self.ux.val();
            if self.settings.val().upscale != 0 {
                self.source.next = self.ux.val() >> 1;
            }
            self.source.next = self.source.val() - bit_cast::<20, 16>(self.settings.val().origin_x);
            self.columns.next = self.columns.val()
                | (bit_cast::<64, 16>(self.source.val().get_bits::<16>(0))
                    << (16 * p).to_bits::<6>());
            self.ux.next = self.ux.val() + self.stride_x.val();
        }

        // Pitches in 8-byte units: a position, an IB row; the IB base plus
        // the channel group.
        self.position_bytes.next = self.settings.val().position_bytes;
        self.position_units.next = self.position_bytes.val().get_bits::<5>(3);
        self.row_units.next = bit_cast::<16, 8>(self.settings.val().ib_width)
            * bit_cast::<16, 5>(self.position_units.val());
        self.ib_base.next = self.settings.val().ib_base;
        self.channel_offset.next = self.requests.data.val().channel_offset;
        self.base_units.next = bit_cast::<14, 13>(self.ib_base.val().get_bits::<13>(3))
            + bit_cast::<14, 5>(self.channel_offset.val().get_bits::<5>(3));

        self.conversion_now.next.wide = self.settings.val().wide;
        self.conversion_now.next.int32 = self.settings.val().int32;
        self.conversion_now.next.interleaved = self.settings.val().interleaved;
        self.conversion_now.next.signed = self.settings.val().signed;
        self.conversion_now.next.byte = self.requests.data.val().byte;
        self.conversion_now.next.zero_point = self.settings.val().zero_point;
        self.conversion_now.next.pad_minimum = self.settings.val().pad_minimum;

        if self.take_request.val() {
            self.located_full.d.next = self.requests.valid.val();
            self.located.d.next.present = self.present_now.val();
            self.located.d.next.rows = self.rows.val();
            self.located.d.next.columns = self.columns.val();
            self.located.d.next.row_units = self.row_units.val().get_bits::<13>(0);
            self.located.d.next.position_units = self.position_units.val();
            self.located.d.next.base_units = self.base_units.val();
            self.located.d.next.conversion = self.conversion_now.val();
        }

        // Stage 1: each position's byte address in 8-byte units,
        // row * row pitch + column * position pitch + base; past the buffer
        // (only a position outside the OFM) it reads unit 0.
        self.row_pitch.next = bit_cast::<16, 13>(self.located.q.val().row_units);
        self.column_pitch.next = bit_cast::<16, 5>(self.located.q.val().position_units);
        self.rows_q.next = self.located.q.val().rows;
        self.columns_q.next = self.located.q.val().columns;
        self.row_q.next = self.rows_q.val().get_bits::<16>(0);
        self.offset_first.next = self.row_q.val() * self.row_pitch.val()
            + bit_cast::<32, 14>(self.located.q.val().base_units);
        self.row_q.next = self.rows_q.val().get_bits::<16>(16);
        self.offset_second.next = self.row_q.val() * self.row_pitch.val()
            + bit_cast::<32, 14>(self.located.q.val().base_units);
        self.read_units.next = 0.into();
        self.pair_units.next = 0.into();
        for p in 0..4 {
            self.column_q.next = self.columns_q.val().get_bits::<16>(16 * p);
            self.offset_column.next = self.column_q.val() * self.column_pitch.val();
            self.units.next = self.offset_first.val() + self.offset_column.val();
            if p >= 2 {
                self.units.next = self.offset_second.val() + self.offset_column.val();
            }
            if self.units.val() >= self.buffer_units.val() {
                self.units.next = 0.into();
            }
            self.read_units.next = self.read_units.val()
                | (bit_cast::<52, 13>(self.units.val().get_bits::<13>(0))
                    << (13 * p).to_bits::<6>());
            self.pair_units.next = self.pair_units.val()
                | (bit_cast::<52, 13>(self.units.val().get_bits::<13>(0) + 2)
                    << (13 * p).to_bits::<6>());
        }
        self.bank_reads[0].address.next = self.read_units.val();
        self.bank_reads[1].address.next = self.pair_units.val();
        self.bank_reads[0].enable.next = 0.into();
        self.bank_reads[1].enable.next = 0.into();
        self.located_conversion.next = self.located.q.val().conversion;
        if self.issue.val() {
            self.bank_reads[0].enable.next = self.located.q.val().present;
            if self.located_conversion.val().interleaved & self.located_conversion.val().wide {
                self.bank_reads[1].enable.next = self.located.q.val().present;
            }
        }
        self.reading_full.d.next = self.issue.val();
        if self.issue.val() {
            self.reading.d.next.present = self.located.q.val().present;
            self.reading.d.next.conversion = self.located.q.val().conversion;
        }

        // Stage 2: the lines read, converted (`ActConversion`).
        self.converter.lines.next = self.bank_reads[0].data.val();
        self.converter.pair_lines.next = self.bank_reads[1].data.val();
        self.converter.present.next = self.reading.q.val().present;
        self.converter.conversion.next = self.reading.q.val().conversion;
        self.converted.next = self.converter.converted.val();

        // Output and skid registers: a beat taken makes room (the skid's
        // beat moves up), and the beat read lands in the first free one.
        if self.take_out.val() {
            if self.skid_full.q.val() {
                self.out.d.next = self.skid.q.val();
                self.skid_full.d.next = false;
            } else {
                self.out_full.d.next = false;
            }
        }
        if self.reading_full.q.val() {
            if (!self.out_full.q.val() | self.take_out.val()) & !self.skid_full.q.val() {
                self.out.d.next = self.converted.val();
                self.out_full.d.next = true;
            } else {
                self.skid.d.next = self.converted.val();
                self.skid_full.d.next = true;
            }
        }
        self.acts.valid.next = self.out_full.q.val();
        self.acts.data.next.acts = self.out.q.val().get_bits::<288>(0);
        self.acts.data.next.odd_acts = self.out.q.val().get_bits::<288>(288);
    }
}
