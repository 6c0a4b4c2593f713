//! One lane of the output unit's wide elementwise path (TRM 4.8.2 table
//! 4-124), combinational: the elementwise operations whose values leave
//! the [`super::Scaler`]'s 40-bit input, with their output scale, bit for
//! bit as `npu_model::ops::ElementwiseArithmetic::apply`:
//! - MUL of 32-bit operands (a * b, up to 2^62);
//! - ADD/SUB of 32-bit operands with IFM_PRECISION.scale_mode 0:
//!   a * (OPA_SCALE & 0xffff) +- b * OPB_SCALE (up to 2^48);
//! - ADD/SUB with a 32-bit input scale (scale_mode 1 or 2, 8- and 16-bit
//!   IFMs): one operand `fixed::scale(x << l, OPA_SCALE, OPA_SHIFT + l,
//!   IFM_PRECISION.round_mode)`, the other `x << (l - 1)`, l = 20 for an
//!   8-bit and 15 for a 16-bit IFM (`npu_model::ops::add_input_shift`);
//!   the shift reaches 83 and the sum 2^50.
//!
//! The output scale (`fixed::scale`, or `fixed::shift_only` for a 32-bit
//! OFM) is computed on the whole 64-bit value: the 96-bit product with
//! NPU_SET_OFM_SCALE, the TFL rounding's saturating left shift, its first
//! rounding wrapped to an i64 as the golden model's, then its second. The
//! result leaves saturated to 34 bits, which the Scaler passes unchanged
//! with scale 1 and shift 0 (its doc: every value beyond 34 bits ends as
//! the same OFM value).
//!
//! # Ports
//!
//! - `settings`: the operation ([`OutputSettings`]).
//! - `a`, `b`: the lane's operands (int32).
//! - `value`: the result, 34-bit two's complement sign-extended to 40.
//!
//! # Throughput
//!
//! Combinational, one lane a cycle: the output unit has
//! [`super::WIDE_LANES`] of them and holds a wide beat at its input a
//! cycle per WIDE_LANES lanes.

use super::OutputSettings;
use npu_spec::command::{ActivationPrecision, ElementwiseMode, IfmScaleMode, RoundMode};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct WideLane {
    pub settings: Signal<In, OutputSettings>,
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    pub value: Signal<Out, Bits<40>>,
    // Encodings (npu_spec::command).
    mul: Constant<Bits<6>>,
    sub: Constant<Bits<6>>,
    bits_8: Constant<Bits<2>>,
    opb_32: Constant<Bits<2>>,
    tfl: Constant<Bits<2>>,
    truncate: Constant<Bits<2>>,
    /// IFM_PRECISION.round_mode DoubleRounding (the TFL rounding).
    input_tfl: Constant<Bits<2>>,
    /// All ones, and the ones above bit 63 (sign extensions).
    ones_96: Constant<Bits<96>>,
    ones_98: Constant<Bits<98>>,
    ones_66: Constant<Bits<66>>,
    high_96: Constant<Bits<96>>,
    high_98: Constant<Bits<98>>,
    high_66: Constant<Bits<66>>,
    // The operation.
    mode: Signal<Local, Bits<6>>,
    advanced: Signal<Local, Bit>,
    opb_scaled: Signal<Local, Bit>,
    opa_scale: Signal<Local, Bits<32>>,
    ofm_scale: Signal<Local, Bits<32>>,
    ofm_shift: Signal<Local, Bits<6>>,
    round_mode: Signal<Local, Bits<2>>,
    // Operands.
    a_negative: Signal<Local, Bit>,
    b_negative: Signal<Local, Bit>,
    a_magnitude: Signal<Local, Bits<32>>,
    b_magnitude: Signal<Local, Bits<32>>,
    // |x| * y, 32 x 32 bits.
    x: Signal<Local, Bits<32>>,
    y: Signal<Local, Bits<32>>,
    x_0: Signal<Local, Bits<16>>,
    x_1: Signal<Local, Bits<16>>,
    y_0: Signal<Local, Bits<16>>,
    y_1: Signal<Local, Bits<16>>,
    xy_00: Signal<Local, Bits<32>>,
    xy_01: Signal<Local, Bits<32>>,
    xy_10: Signal<Local, Bits<32>>,
    xy_11: Signal<Local, Bits<32>>,
    xy_negative: Signal<Local, Bit>,
    term_x: Signal<Local, Bits<64>>,
    // b * OPB_SCALE, 32 x 16 bits.
    b_0: Signal<Local, Bits<16>>,
    b_1: Signal<Local, Bits<16>>,
    opb: Signal<Local, Bits<16>>,
    bo_0: Signal<Local, Bits<32>>,
    bo_1: Signal<Local, Bits<32>>,
    term_b: Signal<Local, Bits<64>>,
    // The 32-bit input scale.
    input_shift: Signal<Local, Bits<7>>,
    input_p: Signal<Local, Bits<96>>,
    input_addend: Signal<Local, Bits<96>>,
    input_v: Signal<Local, Bits<96>>,
    input_shifted: Signal<Local, Bits<96>>,
    other: Signal<Local, Bits<64>>,
    first_term: Signal<Local, Bits<64>>,
    second_term: Signal<Local, Bits<64>>,
    // The value before the output scale.
    r: Signal<Local, Bits<64>>,
    r_negative: Signal<Local, Bit>,
    r_magnitude: Signal<Local, Bits<64>>,
    r_top: Signal<Local, Bits<64>>,
    // |r| * OFM scale, 64 x 32 bits.
    r_0: Signal<Local, Bits<16>>,
    r_1: Signal<Local, Bits<16>>,
    r_2: Signal<Local, Bits<16>>,
    r_3: Signal<Local, Bits<16>>,
    s_0: Signal<Local, Bits<16>>,
    s_1: Signal<Local, Bits<16>>,
    rs_00: Signal<Local, Bits<32>>,
    rs_01: Signal<Local, Bits<32>>,
    rs_10: Signal<Local, Bits<32>>,
    rs_11: Signal<Local, Bits<32>>,
    rs_20: Signal<Local, Bits<32>>,
    rs_21: Signal<Local, Bits<32>>,
    rs_30: Signal<Local, Bits<32>>,
    rs_31: Signal<Local, Bits<32>>,
    product: Signal<Local, Bits<98>>,
    // floor((p + addend) / 2^shift), then TFL's second rounding.
    saturated: Signal<Local, Bit>,
    second_rounding: Signal<Local, Bit>,
    p: Signal<Local, Bits<98>>,
    shift: Signal<Local, Bits<6>>,
    power: Signal<Local, Bits<98>>,
    addend: Signal<Local, Bits<98>>,
    v: Signal<Local, Bits<98>>,
    shifted: Signal<Local, Bits<98>>,
    first: Signal<Local, Bits<64>>,
    exponent: Signal<Local, Bits<6>>,
    half: Signal<Local, Bits<66>>,
    w: Signal<Local, Bits<66>>,
    w_shifted: Signal<Local, Bits<66>>,
    result: Signal<Local, Bits<64>>,
}

impl Default for WideLane {
    fn default() -> Self {
        let c6 = |m: ElementwiseMode| Constant::new(u64::from(m.bits()).into());
        let c2 = |v: u32| Constant::new(u64::from(v).into());
        Self {
            settings: Default::default(),
            a: Default::default(),
            b: Default::default(),
            value: Default::default(),
            mul: c6(ElementwiseMode::Mul),
            sub: c6(ElementwiseMode::Sub),
            bits_8: c2(ActivationPrecision::Bits8.bits()),
            opb_32: c2(IfmScaleMode::Opb32.bits()),
            tfl: c2(RoundMode::Tfl.bits()),
            truncate: c2(RoundMode::Truncate.bits()),
            input_tfl: c2(npu_spec::command::IfmRoundMode::DoubleRounding.bits()),
            ones_96: Constant::new(Bits::<96>::mask()),
            ones_98: Constant::new(Bits::<98>::mask()),
            ones_66: Constant::new(Bits::<66>::mask()),
            high_96: Constant::new(Bits::<96>::mask() << 64u64),
            high_98: Constant::new(Bits::<98>::mask() << 64u64),
            high_66: Constant::new(Bits::<66>::mask() << 64u64),
            mode: Default::default(),
            advanced: Default::default(),
            opb_scaled: Default::default(),
            opa_scale: Default::default(),
            ofm_scale: Default::default(),
            ofm_shift: Default::default(),
            round_mode: Default::default(),
            a_negative: Default::default(),
            b_negative: Default::default(),
            a_magnitude: Default::default(),
            b_magnitude: Default::default(),
            x: Default::default(),
            y: Default::default(),
            x_0: Default::default(),
            x_1: Default::default(),
            y_0: Default::default(),
            y_1: Default::default(),
            xy_00: Default::default(),
            xy_01: Default::default(),
            xy_10: Default::default(),
            xy_11: Default::default(),
            xy_negative: Default::default(),
            term_x: Default::default(),
            b_0: Default::default(),
            b_1: Default::default(),
            opb: Default::default(),
            bo_0: Default::default(),
            bo_1: Default::default(),
            term_b: Default::default(),
            input_shift: Default::default(),
            input_p: Default::default(),
            input_addend: Default::default(),
            input_v: Default::default(),
            input_shifted: Default::default(),
            other: Default::default(),
            first_term: Default::default(),
            second_term: Default::default(),
            r: Default::default(),
            r_negative: Default::default(),
            r_magnitude: Default::default(),
            r_top: Default::default(),
            r_0: Default::default(),
            r_1: Default::default(),
            r_2: Default::default(),
            r_3: Default::default(),
            s_0: Default::default(),
            s_1: Default::default(),
            rs_00: Default::default(),
            rs_01: Default::default(),
            rs_10: Default::default(),
            rs_11: Default::default(),
            rs_20: Default::default(),
            rs_21: Default::default(),
            rs_30: Default::default(),
            rs_31: Default::default(),
            product: Default::default(),
            saturated: Default::default(),
            second_rounding: Default::default(),
            p: Default::default(),
            shift: Default::default(),
            power: Default::default(),
            addend: Default::default(),
            v: Default::default(),
            shifted: Default::default(),
            first: Default::default(),
            exponent: Default::default(),
            half: Default::default(),
            w: Default::default(),
            w_shifted: Default::default(),
            result: Default::default(),
        }
    }
}

impl Logic for WideLane {
    #[hdl_gen]
    fn update(&mut self) {
        self.mode.next = self.settings.val().elementwise_mode;
        self.advanced.next =
            (self.settings.val().ifm_scale_mode != 0) & (self.mode.val() != self.mul.val());
        self.opb_scaled.next = self.settings.val().ifm_scale_mode == self.opb_32.val();
        self.opa_scale.next = self.settings.val().opa_scale;
        self.ofm_scale.next = self.settings.val().scale;
        self.ofm_shift.next = self.settings.val().shift;
        self.round_mode.next = self.settings.val().round_mode;
        self.a_negative.next = self.a.val().get_bit(31);
        self.b_negative.next = self.b.val().get_bit(31);
        self.a_magnitude.next = self.a.val();
        if self.a_negative.val() {
            self.a_magnitude.next = bits::<32>(0) - self.a.val();
        }
        self.b_magnitude.next = self.b.val();
        if self.b_negative.val() {
            self.b_magnitude.next = bits::<32>(0) - self.b.val();
        }

        // |x| * y: a * b (MUL), the scaled operand times OPA_SCALE (32-bit
        // input scale), or a times OPA_SCALE's low 16 bits.
        self.x.next = self.a_magnitude.val();
        self.y.next = bit_cast::<32, 16>(self.opa_scale.val().get_bits::<16>(0));
        self.xy_negative.next = self.a_negative.val();
        if self.mode.val() == self.mul.val() {
            self.y.next = self.b_magnitude.val();
            self.xy_negative.next = self.a_negative.val() ^ self.b_negative.val();
        } else if self.advanced.val() {
            self.y.next = self.opa_scale.val();
            if self.opb_scaled.val() {
                self.x.next = self.b_magnitude.val();
                self.xy_negative.next = self.b_negative.val();
            }
        }
        self.x_0.next = self.x.val().get_bits::<16>(0);
        self.x_1.next = self.x.val().get_bits::<16>(16);
        self.y_0.next = self.y.val().get_bits::<16>(0);
        self.y_1.next = self.y.val().get_bits::<16>(16);
        self.xy_00.next = self.x_0.val() * self.y_0.val();
        self.xy_01.next = self.x_0.val() * self.y_1.val();
        self.xy_10.next = self.x_1.val() * self.y_0.val();
        self.xy_11.next = self.x_1.val() * self.y_1.val();
        self.term_x.next = bit_cast::<64, 32>(self.xy_00.val())
            + (bit_cast::<64, 32>(self.xy_01.val()) << 16)
            + (bit_cast::<64, 32>(self.xy_10.val()) << 16)
            + (bit_cast::<64, 32>(self.xy_11.val()) << 32);
        if self.xy_negative.val() {
            self.term_x.next = bits::<64>(0) - self.term_x.val();
        }
        // b * OPB_SCALE.
        self.b_0.next = self.b_magnitude.val().get_bits::<16>(0);
        self.b_1.next = self.b_magnitude.val().get_bits::<16>(16);
        self.opb.next = self.settings.val().opb_scale;
        self.bo_0.next = self.b_0.val() * self.opb.val();
        self.bo_1.next = self.b_1.val() * self.opb.val();
        self.term_b.next =
            bit_cast::<64, 32>(self.bo_0.val()) + (bit_cast::<64, 32>(self.bo_1.val()) << 16);
        if self.b_negative.val() {
            self.term_b.next = bits::<64>(0) - self.term_b.val();
        }

        // The 32-bit input scale: floor((x * scale * 2^l + addend) / 2^s)
        // with s = OPA_SHIFT + l (the Scaler's doc derives the addends of
        // both roundings); the other operand shifted by l - 1.
        self.input_p.next = bit_cast::<96, 64>(self.term_x.val());
        if self.term_x.val().get_bit(63) {
            self.input_p.next = self.input_p.val() | self.high_96.val();
        }
        self.input_shift.next = bit_cast::<7, 6>(self.settings.val().opa_shift) + 15;
        self.other.next = bit_cast::<64, 32>(self.b.val());
        if self.opb_scaled.val() {
            self.other.next = bit_cast::<64, 32>(self.a.val());
        }
        if self.other.val().get_bit(31) {
            self.other.next = self.other.val() | 0xffff_ffff_0000_0000_u64;
        }
        if self.settings.val().ifm_precision == self.bits_8.val() {
            self.input_p.next = self.input_p.val() << 20;
            self.input_shift.next = self.input_shift.val() + 5;
            self.other.next = self.other.val() << 19;
        } else {
            self.input_p.next = self.input_p.val() << 15;
            self.other.next = self.other.val() << 14;
        }
        self.input_addend.next = bits::<96>(1) << (self.input_shift.val() - 1);
        if (self.settings.val().ifm_round_mode == self.input_tfl.val())
            & (self.input_shift.val() > 31)
        {
            self.input_addend.next = self.input_addend.val() + 0x4000_0000_u64;
            // p < -2^30: negative and not all ones from bit 30 up.
            if self.input_p.val().get_bit(95) & !self.input_p.val().get_bits::<66>(30).all() {
                self.input_addend.next = self.input_addend.val() - 0x8000_0000_u64;
            }
        }
        self.input_v.next = self.input_p.val() + self.input_addend.val();
        self.input_shifted.next = self.input_v.val();
        if self.input_v.val().get_bit(95) {
            self.input_shifted.next = self.input_v.val() ^ self.ones_96.val();
        }
        self.input_shifted.next = self.input_shifted.val() >> self.input_shift.val();
        if self.input_v.val().get_bit(95) {
            self.input_shifted.next = self.input_shifted.val() ^ self.ones_96.val();
        }
        self.first_term.next = self.term_x.val();
        self.second_term.next = self.term_b.val();
        if self.advanced.val() {
            self.first_term.next = self.input_shifted.val().get_bits::<64>(0);
            self.second_term.next = self.other.val();
            if self.opb_scaled.val() {
                self.first_term.next = self.other.val();
                self.second_term.next = self.input_shifted.val().get_bits::<64>(0);
            }
        }
        self.r.next = self.first_term.val() + self.second_term.val();
        if self.mode.val() == self.sub.val() {
            self.r.next = self.first_term.val() - self.second_term.val();
        }
        if self.mode.val() == self.mul.val() {
            self.r.next = self.term_x.val();
        }

        // The output scale: p = |r| * scale, signed.
        self.r_negative.next = self.r.val().get_bit(63);
        self.r_magnitude.next = self.r.val();
        self.r_top.next = self.r.val();
        if self.r_negative.val() {
            self.r_magnitude.next = bits::<64>(0) - self.r.val();
            self.r_top.next = !self.r.val();
        }
        self.r_0.next = self.r_magnitude.val().get_bits::<16>(0);
        self.r_1.next = self.r_magnitude.val().get_bits::<16>(16);
        self.r_2.next = self.r_magnitude.val().get_bits::<16>(32);
        self.r_3.next = self.r_magnitude.val().get_bits::<16>(48);
        self.s_0.next = self.ofm_scale.val().get_bits::<16>(0);
        self.s_1.next = self.ofm_scale.val().get_bits::<16>(16);
        self.rs_00.next = self.r_0.val() * self.s_0.val();
        self.rs_01.next = self.r_0.val() * self.s_1.val();
        self.rs_10.next = self.r_1.val() * self.s_0.val();
        self.rs_11.next = self.r_1.val() * self.s_1.val();
        self.rs_20.next = self.r_2.val() * self.s_0.val();
        self.rs_21.next = self.r_2.val() * self.s_1.val();
        self.rs_30.next = self.r_3.val() * self.s_0.val();
        self.rs_31.next = self.r_3.val() * self.s_1.val();
        self.product.next = bit_cast::<98, 32>(self.rs_00.val())
            + (bit_cast::<98, 32>(self.rs_01.val()) << 16)
            + (bit_cast::<98, 32>(self.rs_10.val()) << 16)
            + (bit_cast::<98, 32>(self.rs_11.val()) << 32)
            + (bit_cast::<98, 32>(self.rs_20.val()) << 32)
            + (bit_cast::<98, 32>(self.rs_21.val()) << 48)
            + (bit_cast::<98, 32>(self.rs_30.val()) << 48)
            + (bit_cast::<98, 32>(self.rs_31.val()) << 64);
        if self.r_negative.val() {
            self.product.next = bits::<98>(0) - self.product.val();
        }

        // floor((p + addend) / 2^shift): natural, truncate, TFL's first
        // rounding (shift 31, addend 2^30, after the left shift by
        // 31 - shift, which is the natural rounding unless it saturates),
        // or a 32-bit OFM's shift alone (TFL: halves away from zero).
        self.p.next = self.product.val();
        self.shift.next = self.ofm_shift.val();
        self.saturated.next = (self.round_mode.val() == self.tfl.val())
            & !self.settings.val().shift_only
            & (self.ofm_shift.val() < 31)
            & ((self.r_top.val() >> (bit_cast::<7, 6>(self.ofm_shift.val()) + 32)) != 0);
        self.second_rounding.next = (self.round_mode.val() == self.tfl.val())
            & !self.settings.val().shift_only
            & (self.ofm_shift.val() >= 31);
        if self.settings.val().shift_only {
            self.p.next = bit_cast::<98, 64>(self.r.val());
            if self.r_negative.val() {
                self.p.next = self.p.val() | self.high_98.val();
            }
        }
        if self.second_rounding.val() {
            self.shift.next = 31.into();
        }
        // x << (31 - shift) leaves the i64 range: the golden model's
        // i64::MAX or i64::MIN times the scale.
        if self.saturated.val() {
            self.shift.next = 31.into();
            self.p.next = (bit_cast::<98, 32>(self.ofm_scale.val()) << 63)
                - bit_cast::<98, 32>(self.ofm_scale.val());
            if self.r_negative.val() {
                self.p.next = bits::<98>(0) - (bit_cast::<98, 32>(self.ofm_scale.val()) << 63);
            }
        }
        self.power.next = bits::<98>(1) << self.shift.val();
        self.addend.next = self.power.val() >> 1;
        if self.round_mode.val() == self.truncate.val() {
            self.addend.next = 0.into();
            if self.p.val().get_bit(97) {
                self.addend.next = self.power.val() - 1;
            }
        }
        if (self.round_mode.val() == self.tfl.val())
            & self.settings.val().shift_only
            & self.p.val().get_bit(97)
            & (self.shift.val() != 0)
        {
            self.addend.next = self.addend.val() - 1;
        }
        self.v.next = self.p.val() + self.addend.val();
        self.shifted.next = self.v.val();
        if self.v.val().get_bit(97) {
            self.shifted.next = self.v.val() ^ self.ones_98.val();
        }
        self.shifted.next = self.shifted.val() >> self.shift.val();
        if self.v.val().get_bit(97) {
            self.shifted.next = self.shifted.val() ^ self.ones_98.val();
        }
        // As an i64, wrapped as the golden model's cast.
        self.first.next = self.shifted.val().get_bits::<64>(0);
        self.result.next = self.first.val();
        // TFL's second rounding: RoundingDivideByPOT by shift - 31.
        self.exponent.next = self.ofm_shift.val() - 31;
        self.w.next = bit_cast::<66, 64>(self.first.val());
        if self.first.val().get_bit(63) {
            self.w.next = self.w.val() | self.high_66.val();
        }
        self.half.next = (bits::<66>(1) << self.exponent.val()) >> 1;
        if self.first.val().get_bit(63) & (self.exponent.val() != 0) {
            self.half.next = self.half.val() - 1;
        }
        self.w.next = self.w.val() + self.half.val();
        self.w_shifted.next = self.w.val();
        if self.w.val().get_bit(65) {
            self.w_shifted.next = self.w.val() ^ self.ones_66.val();
        }
        self.w_shifted.next = self.w_shifted.val() >> self.exponent.val();
        if self.w.val().get_bit(65) {
            self.w_shifted.next = self.w_shifted.val() ^ self.ones_66.val();
        }
        if self.second_rounding.val() & !self.saturated.val() {
            self.result.next = self.w_shifted.val().get_bits::<64>(0);
        }
        // A 32-bit OFM's shift by 63 gives 0 in every mode.
        if self.settings.val().shift_only & (self.ofm_shift.val() == 63) {
            self.result.next = 0.into();
        }
        // Saturated to 34 bits.
        self.value.next = bit_cast::<40, 34>(self.result.val().get_bits::<34>(0));
        if self.result.val().get_bit(33) {
            self.value.next = self.value.val() | 0xfc_0000_0000_u64;
        }
        if !(self.result.val().get_bits::<31>(33).all()
            | !self.result.val().get_bits::<31>(33).any())
        {
            self.value.next = 0x1_ffff_ffff_u64.into();
            if self.result.val().get_bit(63) {
                self.value.next = 0xfe_0000_0000_u64.into();
            }
        }
    }
}
