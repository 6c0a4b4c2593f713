//! The activation stage of the output unit (TRM 3.3.7.3), between the scaling
//! and the last stage: tanh and sigmoid from the hardwired table with
//! interpolation, and the LUTs (TRM 4.6.4 NPU_SET_ACTIVATION 16 + n), bit for
//! bit as `npu_model::ops::OutStage::finish`.
//!
//! Ports: `scaled`, `control`, `full` (the scaler's last register; `done` when
//! its beat moves on); `values`, `values_control`, `valid` (this stage's
//! register; `next_ready` when the last stage takes it); `lut_write` (writes to
//! each core's last 2 KB, mirrored into a [`LutRam`] per core).
//!
//! A beat without an activation function passes in a cycle; with one, one
//! lane a cycle (TRM 3.3.7.3 gives one tanh or sigmoid a cycle): more would
//! need a table and LUT read port per lane. Each function's arithmetic:
//! `docs/output-unit.md`.

use super::lane_result::{LaneRead, LaneResult};
use super::lut_ram::LutRam;
use super::sigmoid_table::SigmoidTable;
use super::{BeatControl, LANES};
use crate::shram::{LutWrite, LINE_BYTES};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Activation {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The scaler's beat, held while `done` is low.
    pub scaled: Signal<In, Bits<{ LANES * 34 }>>,
    pub control: Signal<In, BeatControl>,
    pub full: Signal<In, Bit>,
    pub done: Signal<Out, Bit>,
    /// The beat for the last stage.
    pub values: Signal<Out, Bits<{ LANES * 34 }>>,
    pub values_control: Signal<Out, BeatControl>,
    pub valid: Signal<Out, Bit>,
    pub next_ready: Signal<In, Bit>,
    pub lut_write: Signal<In, LutWrite>,
    sigmoid_rom: SigmoidTable,
    lane_result: LaneResult,
    luts: Vec<LutRam>,
    /// 2^34: flips the sign of a 35-bit value, for signed comparisons.
    sign_35: Constant<Bits<35>>,
    ones_34: Constant<Bits<34>>,
    /// The scaler's beat's next lane to issue.
    lane: ResetReg<Bits<3>>,
    /// The lane issued last cycle, waiting for its table or LUT read.
    pending: ResetReg<Bit>,
    pending_lane: ResetReg<Bits<3>>,
    pending_last: ResetReg<Bit>,
    pending_control: ResetReg<BeatControl>,
    /// tanh/sigmoid: the input's sign, whether its magnitude is beyond the
    /// table; the interpolation fraction (also the 16-bit LUT's).
    pending_negative: ResetReg<Bit>,
    pending_saturated: ResetReg<Bit>,
    pending_fraction: ResetReg<Bits<9>>,
    /// The LUT entry's byte in its line.
    pending_byte: ResetReg<Bits<4>>,
    /// The lane read last cycle, waiting for its result.
    read_full: ResetReg<Bit>,
    read: ResetReg<LaneRead>,
    read_control: ResetReg<BeatControl>,
    out_values: ResetReg<Bits<{ LANES * 34 }>>,
    out_control: ResetReg<BeatControl>,
    out_full: ResetReg<Bit>,
    // Handshake.
    free: Signal<Local, Bit>,
    nonlinear: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    collect: Signal<Local, Bit>,
    pass: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    last_lane: Signal<Local, Bits<3>>,
    lanes_in: Signal<Local, Bits<LANES>>,
    beat: Signal<Local, BeatControl>,
    // Issue: the lane's input and its table or LUT address.
    x: Signal<Local, Bits<34>>,
    magnitude: Signal<Local, Bits<34>>,
    v: Signal<Local, Bits<35>>,
    index_low: Signal<Local, Bits<35>>,
    index_high: Signal<Local, Bits<35>>,
    index: Signal<Local, Bits<16>>,
    /// The value is below the index bounds, above them, and the low bound
    /// is above the high one.
    below: Signal<Local, Bit>,
    above: Signal<Local, Bit>,
    raised_above: Signal<Local, Bit>,
    address: Signal<Local, Bits<11>>,
    cores_written: Signal<Local, Bits<2>>,
    /// Bit k: the beat reads core k's LUT.
    lut_select: Signal<Local, Bits<2>>,
    // Read: the lane's table entry or LUT word.
    reading: Signal<Local, BeatControl>,
    line: Signal<Local, Bits<128>>,
    word: Signal<Local, Bits<32>>,
    entry_byte: Signal<Local, Bits<8>>,
    interpolated: Signal<Local, Bits<26>>,
    // Collect: the lane's result.
    held: Signal<Local, BeatControl>,
    lane_read: Signal<Local, LaneRead>,
    slope_product: Signal<Local, Bits<32>>,
    result: Signal<Local, Bits<34>>,
}

impl Activation {
    /// The stage of an NPU with `cores` cores (a LUT area each).
    pub fn new(cores: usize) -> Self {
        assert!(
            (1..=2).contains(&cores),
            "the output unit serves 1 or 2 cores"
        );
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            scaled: Default::default(),
            control: Default::default(),
            full: Default::default(),
            done: Default::default(),
            values: Default::default(),
            values_control: Default::default(),
            valid: Default::default(),
            next_ready: Default::default(),
            lut_write: Default::default(),
            sigmoid_rom: Default::default(),
            lane_result: Default::default(),
            luts: (0..cores).map(|_| LutRam::default()).collect(),
            sign_35: Constant::new((1u64 << 34).into()),
            ones_34: Constant::new(((1u64 << 34) - 1).into()),
            lane: Default::default(),
            pending: Default::default(),
            pending_lane: Default::default(),
            pending_last: Default::default(),
            pending_control: Default::default(),
            pending_negative: Default::default(),
            pending_saturated: Default::default(),
            pending_fraction: Default::default(),
            pending_byte: Default::default(),
            read_full: Default::default(),
            read: Default::default(),
            read_control: Default::default(),
            out_values: Default::default(),
            out_control: Default::default(),
            out_full: Default::default(),
            free: Default::default(),
            nonlinear: Default::default(),
            advance: Default::default(),
            collect: Default::default(),
            pass: Default::default(),
            issue: Default::default(),
            last_lane: Default::default(),
            lanes_in: Default::default(),
            beat: Default::default(),
            x: Default::default(),
            magnitude: Default::default(),
            v: Default::default(),
            index_low: Default::default(),
            index_high: Default::default(),
            index: Default::default(),
            below: Default::default(),
            above: Default::default(),
            raised_above: Default::default(),
            address: Default::default(),
            cores_written: Default::default(),
            lut_select: Default::default(),
            reading: Default::default(),
            held: Default::default(),
            lane_read: Default::default(),
            line: Default::default(),
            word: Default::default(),
            entry_byte: Default::default(),
            interpolated: Default::default(),
            slope_product: Default::default(),
            result: Default::default(),
        }
    }
}

impl Logic for Activation {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            lane,
            pending,
            pending_lane,
            pending_last,
            pending_control,
            pending_negative,
            pending_saturated,
            pending_fraction,
            pending_byte,
            read_full,
            read,
            read_control,
            out_values,
            out_control,
            out_full
        );
        self.lane.rst_n.next = self.rst_n.val();
        self.pending.rst_n.next = self.rst_n.val();
        self.pending_lane.rst_n.next = self.rst_n.val();
        self.pending_last.rst_n.next = self.rst_n.val();
        self.pending_control.rst_n.next = self.rst_n.val();
        self.pending_negative.rst_n.next = self.rst_n.val();
        self.pending_saturated.rst_n.next = self.rst_n.val();
        self.pending_fraction.rst_n.next = self.rst_n.val();
        self.pending_byte.rst_n.next = self.rst_n.val();
        self.read_full.rst_n.next = self.rst_n.val();
        self.read.rst_n.next = self.rst_n.val();
        self.read_control.rst_n.next = self.rst_n.val();
        self.out_values.rst_n.next = self.rst_n.val();
        self.out_control.rst_n.next = self.rst_n.val();
        self.out_full.rst_n.next = self.rst_n.val();
        self.sigmoid_rom.clock.next = self.clock.val();
        self.sigmoid_rom.rst_n.next = self.rst_n.val();

        // ---- Handshake ----
        self.beat.next = self.control.val();
        self.nonlinear.next =
            self.beat.val().tanh | self.beat.val().sigmoid | self.beat.val().lookup;
        // The stage's register is free, or its beat moves on.
        self.free.next = !self.out_full.q.val() | self.next_ready.val();
        // A lane goes issue -> pending (its read) -> read -> the register.
        self.collect.next = self.read_full.q.val() & self.free.val();
        self.advance.next = self.pending.q.val() & (!self.read_full.q.val() | self.collect.val());
        self.pass.next = self.full.val()
            & !self.nonlinear.val()
            & !self.pending.q.val()
            & !self.read_full.q.val()
            & self.free.val();
        self.issue.next =
            self.full.val() & self.nonlinear.val() & (!self.pending.q.val() | self.advance.val());
        // The beat's last lane holding a channel.
        self.lanes_in.next = self.beat.val().lanes;
        self.last_lane.next = 0.into();
        for i in 0..LANES {
            if self.lanes_in.val().get_bit(i) {
                self.last_lane.next = i.to_bits::<3>();
            }
        }
        self.done.next =
            self.pass.val() | (self.issue.val() & (self.lane.q.val() == self.last_lane.val()));
        if self.issue.val() {
            self.lane.d.next = self.lane.q.val() + 1;
            if self.lane.q.val() == self.last_lane.val() {
                self.lane.d.next = 0.into();
            }
        }
        if self.advance.val() {
            self.pending.d.next = false;
        }
        if self.collect.val() {
            self.read_full.d.next = false;
        }
        if self.out_full.q.val() & self.next_ready.val() {
            self.out_full.d.next = false;
        }

        // ---- Issue: the lane's table index or LUT address ----
        self.x.next = self.scaled.val().get_bits::<34>(0);
        for i in 0..LANES {
            if self.lane.q.val() == i.to_bits::<3>() {
                self.x.next = self.scaled.val().get_bits::<34>(i * 34);
            }
        }
        self.magnitude.next = self.x.val();
        if self.x.val().get_bit(33) {
            self.magnitude.next = !self.x.val() + 1;
        }
        // tanh reads the table at |x| / 256, sigmoid at |x| / 512
        // (`npu_model::fixed`); beyond entry 254 the result saturates.
        self.sigmoid_rom.index.next = self.magnitude.val().get_bits::<8>(8);
        self.pending_fraction.d.next = bit_cast::<9, 8>(self.magnitude.val().get_bits::<8>(0));
        self.pending_saturated.d.next = (self.magnitude.val() >> 8) >= 255;
        if self.beat.val().sigmoid {
            self.sigmoid_rom.index.next = self.magnitude.val().get_bits::<8>(9);
            self.pending_fraction.d.next = self.magnitude.val().get_bits::<9>(0);
            self.pending_saturated.d.next = (self.magnitude.val() >> 9) >= 255;
        }
        // A LUT's index: value + zero point within the index bounds.
        self.v.next = bit_cast::<35, 34>(self.x.val());
        if self.x.val().get_bit(33) {
            self.v.next = self.v.val() | self.sign_35.val();
        }
        self.v.next = self.v.val() + self.beat.val().zero_point;
        self.index_low.next = bit_cast::<35, 17>(self.beat.val().index_low);
        if self.index_low.val().get_bit(16) {
            self.index_low.next = self.index_low.val() | 0x7_fffe_0000_u64;
        }
        self.index_high.next = bit_cast::<35, 17>(self.beat.val().index_high);
        if self.index_high.val().get_bit(16) {
            self.index_high.next = self.index_high.val() | 0x7_fffe_0000_u64;
        }
        // max(v, low), then min(.., high), with the three comparisons side
        // by side rather than one after the other.
        self.below.next =
            (self.v.val() ^ self.sign_35.val()) < (self.index_low.val() ^ self.sign_35.val());
        self.above.next =
            (self.v.val() ^ self.sign_35.val()) > (self.index_high.val() ^ self.sign_35.val());
        self.raised_above.next = (self.index_low.val() ^ self.sign_35.val())
            > (self.index_high.val() ^ self.sign_35.val());
        if self.below.val() {
            self.v.next = self.index_low.val();
            self.above.next = self.raised_above.val();
        }
        if self.above.val() {
            self.v.next = self.index_high.val();
        }
        // Value - type minimum (within the bounds, only the low bits count).
        self.index.next = self.v.val().get_bits::<16>(0);
        if self.beat.val().index_signed {
            self.index.next = self.v.val().get_bits::<16>(0) ^ bits::<16>(0x80);
            if self.beat.val().wide {
                self.index.next = self.v.val().get_bits::<16>(0) ^ bits::<16>(0x8000);
            }
        }
        // Byte address in the 2 KB area (TRM 4.6.4: slot n at n * 256).
        self.address.next = (bit_cast::<11, 3>(self.beat.val().lut_slot) << 8)
            + bit_cast::<11, 8>(self.index.val().get_bits::<8>(0));
        if self.beat.val().lut_words {
            self.address.next = (bit_cast::<11, 3>(self.beat.val().lut_slot) << 8)
                + (bit_cast::<11, 8>(self.index.val().get_bits::<8>(0)) << 2);
        }
        if self.beat.val().wide {
            self.address.next = bit_cast::<11, 9>(self.index.val().get_bits::<9>(7)) << 2;
            if self.beat.val().lookup {
                self.pending_fraction.d.next = bit_cast::<9, 7>(self.index.val().get_bits::<7>(0));
            }
        }
        self.sigmoid_rom.enable.next =
            self.issue.val() & (self.beat.val().tanh | self.beat.val().sigmoid);
        self.cores_written.next = self.lut_write.val().cores;
        self.lut_select.next = 1.into();
        if self.beat.val().core {
            self.lut_select.next = 2.into();
        }
        for core in 0..self.luts.len() {
            self.luts[core].clock.next = self.clock.val();
            self.luts[core].write_enable.next = self.cores_written.val().get_bit(core);
            self.luts[core].write_line.next = self.lut_write.val().line;
            self.luts[core].write_data.next = self.lut_write.val().data;
            self.luts[core].write_strobe.next = self.lut_write.val().strobe;
            self.luts[core].write_clear.next = self.lut_write.val().clear;
            self.luts[core].read_enable.next =
                self.issue.val() & self.beat.val().lookup & self.lut_select.val().get_bit(core);
            self.luts[core].read_line.next = self.address.val().get_bits::<7>(4);
        }
        if self.issue.val() {
            self.pending.d.next = true;
            self.pending_lane.d.next = self.lane.q.val();
            self.pending_last.d.next = self.lane.q.val() == self.last_lane.val();
            self.pending_control.d.next = self.beat.val();
            self.pending_negative.d.next = self.x.val().get_bit(33);
            self.pending_byte.d.next = self.address.val().get_bits::<4>(0);
        } else {
            self.pending_fraction.d.next = self.pending_fraction.q.val();
            self.pending_saturated.d.next = self.pending_saturated.q.val();
        }

        // ---- Read: the issued lane's table entry or LUT word ----
        self.reading.next = self.pending_control.q.val();
        // tanh: (entry << 8) + fraction * step - 2^23 at 23 fraction bits,
        // or 2^23 - 2^8 beyond the table; sigmoid: (entry << 9) + fraction *
        // step at 25, or 2^25 - 2^10 beyond it (`sigmoid_table_at`).
        self.interpolated.next = (bit_cast::<26, 16>(self.sigmoid_rom.entry.val()) << 8)
            + bit_cast::<26, 32>(
                bit_cast::<16, 9>(self.pending_fraction.q.val())
                    * bit_cast::<16, 10>(self.sigmoid_rom.step.val()),
            )
            - 0x80_0000;
        if self.pending_saturated.q.val() {
            self.interpolated.next = 0x7f_ff00.into();
        }
        if self.reading.val().sigmoid {
            self.interpolated.next = (bit_cast::<26, 16>(self.sigmoid_rom.entry.val()) << 9)
                + bit_cast::<26, 32>(
                    bit_cast::<16, 9>(self.pending_fraction.q.val())
                        * bit_cast::<16, 10>(self.sigmoid_rom.step.val()),
                );
            if self.pending_saturated.q.val() {
                self.interpolated.next = 0x1ff_fc00.into();
            }
        }
        // The LUT entry.
        self.line.next = self.luts[0].read_data.val();
        for core in 1..self.luts.len() {
            if self.reading.val().core {
                self.line.next = self.luts[core].read_data.val();
            }
        }
        self.word.next = self.line.val().get_bits::<32>(0);
        self.entry_byte.next = self.line.val().get_bits::<8>(0);
        for i in 0..LINE_BYTES {
            if self.pending_byte.q.val() == i.to_bits::<4>() {
                self.entry_byte.next = self.line.val().get_bits::<8>(8 * i);
            }
        }
        for i in 0..4 {
            if self.pending_byte.q.val().get_bits::<2>(2) == i.to_bits::<2>() {
                self.word.next = self.line.val().get_bits::<32>(32 * i);
            }
        }
        // The 16-bit LUT's slope * fraction, signed: the unsigned product
        // less fraction << 16 for a negative slope.
        self.slope_product.next = bit_cast::<16, 16>(self.word.val().get_bits::<16>(16))
            * bit_cast::<16, 9>(self.pending_fraction.q.val());
        if self.word.val().get_bit(31) {
            self.slope_product.next =
                self.slope_product.val() - (bit_cast::<32, 9>(self.pending_fraction.q.val()) << 16);
        }
        if self.advance.val() {
            self.read_full.d.next = true;
            self.read.d.next.slope_product = self.slope_product.val();
            self.read.d.next.lane = self.pending_lane.q.val();
            self.read.d.next.last = self.pending_last.q.val();
            self.read.d.next.negative = self.pending_negative.q.val();
            self.read.d.next.fraction = self.pending_fraction.q.val();
            self.read.d.next.interpolated = self.interpolated.val();
            self.read.d.next.word = self.word.val();
            self.read.d.next.entry_byte = self.entry_byte.val();
            self.read_control.d.next = self.pending_control.q.val();
        }

        // ---- Collect: the read lane's result (`LaneResult`) ----
        self.held.next = self.read_control.q.val();
        self.lane_read.next = self.read.q.val();
        self.lane_result.read.next = self.lane_read.val();
        self.lane_result.control.next = self.held.val();
        self.result.next = self.lane_result.result.val();

        // ---- The stage's register ----
        if self.pass.val() {
            self.out_values.d.next = self.scaled.val();
            self.out_control.d.next = self.beat.val();
            self.out_full.d.next = true;
        }
        if self.collect.val() {
            for i in 0..LANES {
                if self.lane_read.val().lane == i.to_bits::<3>() {
                    self.out_values.d.next = (self.out_values.q.val()
                        & !(bit_cast::<{ LANES * 34 }, 34>(self.ones_34.val())
                            << (i * 34).to_bits::<9>()))
                        | (bit_cast::<{ LANES * 34 }, 34>(self.result.val())
                            << (i * 34).to_bits::<9>());
                }
            }
            if self.lane_read.val().last {
                self.out_control.d.next = self.held.val();
                // The LUT took the zero point already.
                if self.held.val().lookup {
                    self.out_control.d.next.zero_point = 0.into();
                }
                self.out_full.d.next = true;
            }
        }
        self.values.next = self.out_values.q.val();
        self.values_control.next = self.out_control.q.val();
        self.valid.next = self.out_full.q.val();
    }
}
