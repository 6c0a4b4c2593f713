//! The output unit's wide elementwise path (TRM 4.8.2 table 4-124): the
//! elementwise operations whose values leave the [`super::Scaler`]'s 40-bit
//! input (MUL and scale_mode 0 ADD/SUB of 32-bit operands, ADD/SUB with a
//! 32-bit input scale), with their output scale computed on the whole 64-bit
//! value, bit for bit as `npu_model::ops::ElementwiseArithmetic::apply`. The
//! result leaves saturated to 34 bits, which the Scaler passes unchanged.
//!
//! [`WidePath`] takes a wide beat's lanes [`WIDE_LANES`] a cycle into as many
//! [`WideLane`]s and gives the whole beat back, with its control,
//! [`WIDE_LATENCY`] cycles after its last lanes went in. A lane's two
//! multiplies (32 x 32, then 64 x 32) take eight register stages, none deeper
//! than about one 32-bit multiply; every stage moves together (`advance`), so
//! the path stalls as a whole. Each operation's arithmetic:
//! `docs/output-unit.md`.

use super::{BeatControl, OutputSettings, LANES};
use crate::widgets::ResetReg;
use npu_arch::command::{ActivationPrecision, ElementwiseMode, IfmScaleMode, RoundMode};
use rust_hdl::prelude::*;

/// Lanes of a wide beat computed per cycle (each a [`WideLane`]).
pub const WIDE_LANES: usize = 2;
/// Register stages of a [`WideLane`]: cycles from a lane going in to its
/// value, and from a beat's last lanes going in to the beat coming out.
pub const WIDE_LATENCY: usize = 8;
/// Steps of a full wide beat.
const WIDE_STEPS: usize = LANES / WIDE_LANES;
// `WidePath::update` writes step k's lanes as 2k and 2k + 1 and reads
// the last tag as tags[7] (a constant there would be an undeclared
// Verilog name).
const _: () = assert!(WIDE_LANES == 2 && WIDE_LATENCY == 8);

/// The operation's fields a lane needs past its first stage, decoded there
/// and carried with the lane: consecutive operations follow each other
/// beat to beat.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct WideOperation {
    pub mul: Bit,
    pub sub: Bit,
    /// ADD/SUB with a 32-bit input scale.
    pub advanced: Bit,
    /// IFM_PRECISION.scale_mode OPB_32: operand B is the scaled one.
    pub opb_scaled: Bit,
    pub ifm_8bit: Bit,
    /// The input scale's right shift, OPA_SHIFT + l.
    pub input_shift: Bits<7>,
    /// IFM_PRECISION.round_mode DoubleRounding (the TFL rounding).
    pub input_tfl: Bit,
    pub ofm_scale: Bits<32>,
    pub ofm_shift: Bits<6>,
    pub round_mode: Bits<2>,
    pub shift_only: Bit,
}

/// One lane of the wide path: operands in, the lane's value
/// [`WIDE_LATENCY`] advances later.
#[derive(LogicBlock)]
pub struct WideLane {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Every stage takes the one before it.
    pub advance: Signal<In, Bit>,
    /// The operation of the lane going in.
    pub settings: Signal<In, OutputSettings>,
    /// The lane's operands (int32).
    pub a: Signal<In, Bits<32>>,
    pub b: Signal<In, Bits<32>>,
    /// The result, 34-bit two's complement sign-extended to 40.
    pub value: Signal<Out, Bits<40>>,
    // Encodings (npu_arch::command).
    mul: Constant<Bits<6>>,
    sub: Constant<Bits<6>>,
    bits_8: Constant<Bits<2>>,
    opb_32: Constant<Bits<2>>,
    input_tfl: Constant<Bits<2>>,
    /// All ones, and the ones above bit 63 (sign extensions).
    ones_96: Constant<Bits<96>>,
    high_96: Constant<Bits<96>>,
    // Stage 1: the operation, the 16x16 products of |x| * y and of
    // |b| * OPB_SCALE, their signs, the unscaled operand of an input scale.
    operation_1: ResetReg<WideOperation>,
    xy_00: ResetReg<Bits<32>>,
    xy_01: ResetReg<Bits<32>>,
    xy_10: ResetReg<Bits<32>>,
    xy_11: ResetReg<Bits<32>>,
    bo_0: ResetReg<Bits<32>>,
    bo_1: ResetReg<Bits<32>>,
    xy_negative: ResetReg<Bit>,
    b_negative: ResetReg<Bit>,
    other_1: ResetReg<Bits<64>>,
    // Stage 2: the signed terms.
    operation_2: ResetReg<WideOperation>,
    term_x_2: ResetReg<Bits<64>>,
    term_b_2: ResetReg<Bits<64>>,
    other_2: ResetReg<Bits<64>>,
    // Stage 3: the input scale's product plus its rounding addend.
    operation_3: ResetReg<WideOperation>,
    input_v: ResetReg<Bits<96>>,
    term_x_3: ResetReg<Bits<64>>,
    term_b_3: ResetReg<Bits<64>>,
    other_3: ResetReg<Bits<64>>,
    // Stage 4: the value before the output scale.
    operation_4: ResetReg<WideOperation>,
    r_4: ResetReg<Bits<64>>,
    /// Stages 5-8.
    output_scale: WideOutputScale,
    // Stage 1's logic.
    operation: Signal<Local, WideOperation>,
    mode: Signal<Local, Bits<6>>,
    opa_scale: Signal<Local, Bits<32>>,
    a_negative: Signal<Local, Bit>,
    /// |x| * y is negative.
    x_negative: Signal<Local, Bit>,
    a_magnitude: Signal<Local, Bits<32>>,
    b_magnitude: Signal<Local, Bits<32>>,
    x: Signal<Local, Bits<32>>,
    y: Signal<Local, Bits<32>>,
    x_0: Signal<Local, Bits<16>>,
    x_1: Signal<Local, Bits<16>>,
    y_0: Signal<Local, Bits<16>>,
    y_1: Signal<Local, Bits<16>>,
    b_0: Signal<Local, Bits<16>>,
    b_1: Signal<Local, Bits<16>>,
    opb: Signal<Local, Bits<16>>,
    other: Signal<Local, Bits<64>>,
    // Stage 2's.
    term_x: Signal<Local, Bits<64>>,
    term_b: Signal<Local, Bits<64>>,
    // Stage 3's.
    input_p: Signal<Local, Bits<96>>,
    input_addend: Signal<Local, Bits<96>>,
    // Stage 4's.
    input_shifted: Signal<Local, Bits<96>>,
    first_term: Signal<Local, Bits<64>>,
    second_term: Signal<Local, Bits<64>>,
    r: Signal<Local, Bits<64>>,
}

impl Default for WideLane {
    fn default() -> Self {
        let c6 = |m: ElementwiseMode| Constant::new(u64::from(m.bits()).into());
        let c2 = |v: u32| Constant::new(u64::from(v).into());
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            advance: Default::default(),
            settings: Default::default(),
            a: Default::default(),
            b: Default::default(),
            value: Default::default(),
            mul: c6(ElementwiseMode::Mul),
            sub: c6(ElementwiseMode::Sub),
            bits_8: c2(ActivationPrecision::Bits8.bits()),
            opb_32: c2(IfmScaleMode::Opb32.bits()),
            input_tfl: c2(npu_arch::command::IfmRoundMode::DoubleRounding.bits()),
            ones_96: Constant::new(Bits::<96>::mask()),
            high_96: Constant::new(Bits::<96>::mask() << 64u64),
            operation_1: Default::default(),
            xy_00: Default::default(),
            xy_01: Default::default(),
            xy_10: Default::default(),
            xy_11: Default::default(),
            bo_0: Default::default(),
            bo_1: Default::default(),
            xy_negative: Default::default(),
            b_negative: Default::default(),
            other_1: Default::default(),
            operation_2: Default::default(),
            term_x_2: Default::default(),
            term_b_2: Default::default(),
            other_2: Default::default(),
            operation_3: Default::default(),
            input_v: Default::default(),
            term_x_3: Default::default(),
            term_b_3: Default::default(),
            other_3: Default::default(),
            operation_4: Default::default(),
            r_4: Default::default(),
            output_scale: Default::default(),
            operation: Default::default(),
            mode: Default::default(),
            opa_scale: Default::default(),
            a_negative: Default::default(),
            x_negative: Default::default(),
            a_magnitude: Default::default(),
            b_magnitude: Default::default(),
            x: Default::default(),
            y: Default::default(),
            x_0: Default::default(),
            x_1: Default::default(),
            y_0: Default::default(),
            y_1: Default::default(),
            b_0: Default::default(),
            b_1: Default::default(),
            opb: Default::default(),
            other: Default::default(),
            term_x: Default::default(),
            term_b: Default::default(),
            input_p: Default::default(),
            input_addend: Default::default(),
            input_shifted: Default::default(),
            first_term: Default::default(),
            second_term: Default::default(),
            r: Default::default(),
        }
    }
}

impl Logic for WideLane {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            operation_1,
            xy_00,
            xy_01,
            xy_10,
            xy_11,
            bo_0,
            bo_1,
            xy_negative,
            b_negative,
            other_1,
            operation_2,
            term_x_2,
            term_b_2,
            other_2,
            operation_3,
            input_v,
            term_x_3,
            term_b_3,
            other_3,
            operation_4,
            r_4
        );
        self.operation_1.rst_n.next = self.rst_n.val();
        self.xy_00.rst_n.next = self.rst_n.val();
        self.xy_01.rst_n.next = self.rst_n.val();
        self.xy_10.rst_n.next = self.rst_n.val();
        self.xy_11.rst_n.next = self.rst_n.val();
        self.bo_0.rst_n.next = self.rst_n.val();
        self.bo_1.rst_n.next = self.rst_n.val();
        self.xy_negative.rst_n.next = self.rst_n.val();
        self.b_negative.rst_n.next = self.rst_n.val();
        self.other_1.rst_n.next = self.rst_n.val();
        self.operation_2.rst_n.next = self.rst_n.val();
        self.term_x_2.rst_n.next = self.rst_n.val();
        self.term_b_2.rst_n.next = self.rst_n.val();
        self.other_2.rst_n.next = self.rst_n.val();
        self.operation_3.rst_n.next = self.rst_n.val();
        self.input_v.rst_n.next = self.rst_n.val();
        self.term_x_3.rst_n.next = self.rst_n.val();
        self.term_b_3.rst_n.next = self.rst_n.val();
        self.other_3.rst_n.next = self.rst_n.val();
        self.operation_4.rst_n.next = self.rst_n.val();
        self.r_4.rst_n.next = self.rst_n.val();

        // Stage 1: the operation; |x| * y as four 16x16 products: a * b
        // (MUL), the scaled operand times OPA_SCALE (32-bit input scale),
        // or a times OPA_SCALE's low 16 bits; b * OPB_SCALE as two.
        self.mode.next = self.settings.val().elementwise_mode;
        self.operation.next.mul = self.mode.val() == self.mul.val();
        self.operation.next.sub = self.mode.val() == self.sub.val();
        self.operation.next.advanced =
            (self.settings.val().ifm_scale_mode != 0) & (self.mode.val() != self.mul.val());
        self.operation.next.opb_scaled = self.settings.val().ifm_scale_mode == self.opb_32.val();
        self.operation.next.ifm_8bit = self.settings.val().ifm_precision == self.bits_8.val();
        self.operation.next.input_shift = bit_cast::<7, 6>(self.settings.val().opa_shift) + 15;
        if self.operation.val().ifm_8bit {
            self.operation.next.input_shift = self.operation.val().input_shift + 5;
        }
        self.operation.next.input_tfl = self.settings.val().ifm_round_mode == self.input_tfl.val();
        self.operation.next.ofm_scale = self.settings.val().scale;
        self.operation.next.ofm_shift = self.settings.val().shift;
        self.operation.next.round_mode = self.settings.val().round_mode;
        self.operation.next.shift_only = self.settings.val().shift_only;

        self.a_negative.next = self.a.val().get_bit(31);
        self.a_magnitude.next = self.a.val();
        if self.a_negative.val() {
            self.a_magnitude.next = bits::<32>(0) - self.a.val();
        }
        self.b_magnitude.next = self.b.val();
        if self.b.val().get_bit(31) {
            self.b_magnitude.next = bits::<32>(0) - self.b.val();
        }
        self.x.next = self.a_magnitude.val();
        self.opa_scale.next = self.settings.val().opa_scale;
        self.y.next = bit_cast::<32, 16>(self.opa_scale.val().get_bits::<16>(0));
        self.x_negative.next = self.a_negative.val();
        if self.operation.val().mul {
            self.y.next = self.b_magnitude.val();
            self.x_negative.next = self.a_negative.val() ^ self.b.val().get_bit(31);
        } else if self.operation.val().advanced {
            self.y.next = self.opa_scale.val();
            if self.operation.val().opb_scaled {
                self.x.next = self.b_magnitude.val();
                self.x_negative.next = self.b.val().get_bit(31);
            }
        }
        self.x_0.next = self.x.val().get_bits::<16>(0);
        self.x_1.next = self.x.val().get_bits::<16>(16);
        self.y_0.next = self.y.val().get_bits::<16>(0);
        self.y_1.next = self.y.val().get_bits::<16>(16);
        self.b_0.next = self.b_magnitude.val().get_bits::<16>(0);
        self.b_1.next = self.b_magnitude.val().get_bits::<16>(16);
        self.opb.next = self.settings.val().opb_scale;
        // The unscaled operand of a 32-bit input scale, shifted by l - 1.
        self.other.next = bit_cast::<64, 32>(self.b.val());
        if self.operation.val().opb_scaled {
            self.other.next = bit_cast::<64, 32>(self.a.val());
        }
        if self.other.val().get_bit(31) {
            self.other.next = self.other.val() | 0xffff_ffff_0000_0000_u64;
        }
        if self.operation.val().ifm_8bit {
            self.other.next = self.other.val() << 19;
        } else {
            self.other.next = self.other.val() << 14;
        }
        if self.advance.val() {
            self.operation_1.d.next = self.operation.val();
            self.xy_00.d.next = self.x_0.val() * self.y_0.val();
            self.xy_01.d.next = self.x_0.val() * self.y_1.val();
            self.xy_10.d.next = self.x_1.val() * self.y_0.val();
            self.xy_11.d.next = self.x_1.val() * self.y_1.val();
            self.bo_0.d.next = self.b_0.val() * self.opb.val();
            self.bo_1.d.next = self.b_1.val() * self.opb.val();
            self.b_negative.d.next = self.b.val().get_bit(31);
            self.other_1.d.next = self.other.val();
            self.xy_negative.d.next = self.x_negative.val();
        }

        // Stage 2: the terms with their signs.
        self.term_x.next = bit_cast::<64, 32>(self.xy_00.q.val())
            + (bit_cast::<64, 32>(self.xy_01.q.val()) << 16)
            + (bit_cast::<64, 32>(self.xy_10.q.val()) << 16)
            + (bit_cast::<64, 32>(self.xy_11.q.val()) << 32);
        if self.xy_negative.q.val() {
            self.term_x.next = bits::<64>(0) - self.term_x.val();
        }
        self.term_b.next =
            bit_cast::<64, 32>(self.bo_0.q.val()) + (bit_cast::<64, 32>(self.bo_1.q.val()) << 16);
        if self.b_negative.q.val() {
            self.term_b.next = bits::<64>(0) - self.term_b.val();
        }
        if self.advance.val() {
            self.operation_2.d.next = self.operation_1.q.val();
            self.term_x_2.d.next = self.term_x.val();
            self.term_b_2.d.next = self.term_b.val();
            self.other_2.d.next = self.other_1.q.val();
        }

        // Stage 3: the 32-bit input scale's x * scale * 2^l plus its
        // rounding addend, to be shifted by s = OPA_SHIFT + l (the Scaler's
        // doc derives the addends of both roundings).
        self.input_p.next = bit_cast::<96, 64>(self.term_x_2.q.val());
        if self.term_x_2.q.val().get_bit(63) {
            self.input_p.next = self.input_p.val() | self.high_96.val();
        }
        if self.operation_2.q.val().ifm_8bit {
            self.input_p.next = self.input_p.val() << 20;
        } else {
            self.input_p.next = self.input_p.val() << 15;
        }
        self.input_addend.next = bits::<96>(1) << (self.operation_2.q.val().input_shift - 1);
        if self.operation_2.q.val().input_tfl & (self.operation_2.q.val().input_shift > 31) {
            self.input_addend.next = self.input_addend.val() + 0x4000_0000_u64;
            // p < -2^30: negative and not all ones from bit 30 up.
            if self.input_p.val().get_bit(95) & !self.input_p.val().get_bits::<66>(30).all() {
                self.input_addend.next = self.input_addend.val() - 0x8000_0000_u64;
            }
        }
        if self.advance.val() {
            self.operation_3.d.next = self.operation_2.q.val();
            self.input_v.d.next = self.input_p.val() + self.input_addend.val();
            self.term_x_3.d.next = self.term_x_2.q.val();
            self.term_b_3.d.next = self.term_b_2.q.val();
            self.other_3.d.next = self.other_2.q.val();
        }

        // Stage 4: the input scale's shift, then r, the value before the
        // output scale.
        self.input_shifted.next = self.input_v.q.val();
        if self.input_v.q.val().get_bit(95) {
            self.input_shifted.next = self.input_v.q.val() ^ self.ones_96.val();
        }
        self.input_shifted.next = self.input_shifted.val() >> self.operation_3.q.val().input_shift;
        if self.input_v.q.val().get_bit(95) {
            self.input_shifted.next = self.input_shifted.val() ^ self.ones_96.val();
        }
        self.first_term.next = self.term_x_3.q.val();
        self.second_term.next = self.term_b_3.q.val();
        if self.operation_3.q.val().advanced {
            self.first_term.next = self.input_shifted.val().get_bits::<64>(0);
            self.second_term.next = self.other_3.q.val();
            if self.operation_3.q.val().opb_scaled {
                self.first_term.next = self.other_3.q.val();
                self.second_term.next = self.input_shifted.val().get_bits::<64>(0);
            }
        }
        self.r.next = self.first_term.val() + self.second_term.val();
        if self.operation_3.q.val().sub {
            self.r.next = self.first_term.val() - self.second_term.val();
        }
        if self.operation_3.q.val().mul {
            self.r.next = self.term_x_3.q.val();
        }
        if self.advance.val() {
            self.operation_4.d.next = self.operation_3.q.val();
            self.r_4.d.next = self.r.val();
        }

        // Stages 5-8: the output scale.
        self.output_scale.clock.next = self.clock.val();
        self.output_scale.rst_n.next = self.rst_n.val();
        self.output_scale.advance.next = self.advance.val();
        self.output_scale.operation.next = self.operation_4.q.val();
        self.output_scale.r.next = self.r_4.q.val();
        self.value.next = self.output_scale.value.val();
    }
}

/// Stages 5-8 of a [`WideLane`]: the output scale (`fixed::scale`, or
/// `fixed::shift_only` for a 32-bit OFM) of the lane's 64-bit value `r`,
/// saturated to 34 bits, four advances later.
#[derive(LogicBlock)]
pub struct WideOutputScale {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub advance: Signal<In, Bit>,
    /// The lane's operation and value before the output scale.
    pub operation: Signal<In, WideOperation>,
    pub r: Signal<In, Bits<64>>,
    /// The result, 34-bit two's complement sign-extended to 40.
    pub value: Signal<Out, Bits<40>>,
    tfl: Constant<Bits<2>>,
    truncate: Constant<Bits<2>>,
    /// All ones, and the ones above bit 63 (sign extensions).
    ones_98: Constant<Bits<98>>,
    ones_66: Constant<Bits<66>>,
    high_98: Constant<Bits<98>>,
    high_66: Constant<Bits<66>>,
    // Stage 5: the 16x16 products of |r| * OFM scale (r_k times s_j at
    // 32 (2k + j)), and whether the TFL rounding's left shift saturates.
    operation_5: ResetReg<WideOperation>,
    rs: ResetReg<Bits<256>>,
    saturated_5: ResetReg<Bit>,
    r_5: ResetReg<Bits<64>>,
    // Stage 6: |r| * OFM scale, and p where the left shift saturates.
    operation_6: ResetReg<WideOperation>,
    product_6: ResetReg<Bits<98>>,
    p_saturated_6: ResetReg<Bits<98>>,
    saturated_6: ResetReg<Bit>,
    r_6: ResetReg<Bits<64>>,
    // Stage 7: p + addend and the shift.
    operation_7: ResetReg<WideOperation>,
    v_7: ResetReg<Bits<98>>,
    shift_7: ResetReg<Bits<6>>,
    saturated_7: ResetReg<Bit>,
    // Stage 8: the value.
    value_8: ResetReg<Bits<40>>,
    // Stage 5's.
    r_magnitude: Signal<Local, Bits<64>>,
    r_top: Signal<Local, Bits<64>>,
    ofm_scale: Signal<Local, Bits<32>>,
    products: Signal<Local, Bits<256>>,
    r_limb: Signal<Local, Bits<16>>,
    s_limb: Signal<Local, Bits<16>>,
    rs_term: Signal<Local, Bits<32>>,
    // Stage 6's.
    product: Signal<Local, Bits<98>>,
    p_saturated: Signal<Local, Bits<98>>,
    // Stage 7's.
    r_negative: Signal<Local, Bit>,
    second_rounding: Signal<Local, Bit>,
    low_ones: Signal<Local, Bits<98>>,
    p: Signal<Local, Bits<98>>,
    p_carry: Signal<Local, Bits<98>>,
    p_negative: Signal<Local, Bit>,
    shift: Signal<Local, Bits<6>>,
    power: Signal<Local, Bits<98>>,
    addend: Signal<Local, Bits<98>>,
    // Stage 8's.
    shifted: Signal<Local, Bits<98>>,
    first: Signal<Local, Bits<64>>,
    exponent: Signal<Local, Bits<6>>,
    half: Signal<Local, Bits<66>>,
    w: Signal<Local, Bits<66>>,
    w_shifted: Signal<Local, Bits<66>>,
    result: Signal<Local, Bits<64>>,
    lane_value: Signal<Local, Bits<40>>,
}

impl Default for WideOutputScale {
    fn default() -> Self {
        let c2 = |v: u32| Constant::new(u64::from(v).into());
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            advance: Default::default(),
            operation: Default::default(),
            r: Default::default(),
            value: Default::default(),
            tfl: c2(RoundMode::Tfl.bits()),
            truncate: c2(RoundMode::Truncate.bits()),
            ones_98: Constant::new(Bits::<98>::mask()),
            ones_66: Constant::new(Bits::<66>::mask()),
            high_98: Constant::new(Bits::<98>::mask() << 64u64),
            high_66: Constant::new(Bits::<66>::mask() << 64u64),
            operation_5: Default::default(),
            rs: Default::default(),
            saturated_5: Default::default(),
            r_5: Default::default(),
            operation_6: Default::default(),
            product_6: Default::default(),
            p_saturated_6: Default::default(),
            saturated_6: Default::default(),
            r_6: Default::default(),
            operation_7: Default::default(),
            v_7: Default::default(),
            shift_7: Default::default(),
            saturated_7: Default::default(),
            value_8: Default::default(),
            r_magnitude: Default::default(),
            r_top: Default::default(),
            ofm_scale: Default::default(),
            products: Default::default(),
            r_limb: Default::default(),
            s_limb: Default::default(),
            rs_term: Default::default(),
            product: Default::default(),
            p_saturated: Default::default(),
            r_negative: Default::default(),
            second_rounding: Default::default(),
            low_ones: Default::default(),
            p: Default::default(),
            p_carry: Default::default(),
            p_negative: Default::default(),
            shift: Default::default(),
            power: Default::default(),
            addend: Default::default(),
            shifted: Default::default(),
            first: Default::default(),
            exponent: Default::default(),
            half: Default::default(),
            w: Default::default(),
            w_shifted: Default::default(),
            result: Default::default(),
            lane_value: Default::default(),
        }
    }
}

impl Logic for WideOutputScale {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            operation_5,
            rs,
            saturated_5,
            r_5,
            operation_6,
            product_6,
            p_saturated_6,
            saturated_6,
            r_6,
            operation_7,
            v_7,
            shift_7,
            saturated_7,
            value_8
        );
        self.operation_5.rst_n.next = self.rst_n.val();
        self.rs.rst_n.next = self.rst_n.val();
        self.saturated_5.rst_n.next = self.rst_n.val();
        self.r_5.rst_n.next = self.rst_n.val();
        self.operation_6.rst_n.next = self.rst_n.val();
        self.product_6.rst_n.next = self.rst_n.val();
        self.p_saturated_6.rst_n.next = self.rst_n.val();
        self.saturated_6.rst_n.next = self.rst_n.val();
        self.r_6.rst_n.next = self.rst_n.val();
        self.operation_7.rst_n.next = self.rst_n.val();
        self.v_7.rst_n.next = self.rst_n.val();
        self.shift_7.rst_n.next = self.rst_n.val();
        self.saturated_7.rst_n.next = self.rst_n.val();
        self.value_8.rst_n.next = self.rst_n.val();

        // Stage 5: |r| * OFM scale as eight 16x16 products, and whether
        // x << (31 - shift) leaves the i64 range (the golden model's
        // i64::MAX or i64::MIN times the scale then).
        self.r_magnitude.next = self.r.val();
        self.r_top.next = self.r.val();
        if self.r.val().get_bit(63) {
            self.r_magnitude.next = bits::<64>(0) - self.r.val();
            self.r_top.next = !self.r.val();
        }
        self.ofm_scale.next = self.operation.val().ofm_scale;
        self.products.next = 0.into();
        for k in 0..4 {
            for j in 0..2 {
                self.r_limb.next = self.r_magnitude.val().get_bits::<16>(16 * k);
                self.s_limb.next = self.ofm_scale.val().get_bits::<16>(16 * j);
                self.rs_term.next = self.r_limb.val() * self.s_limb.val();
                self.products.next = self.products.val()
                    | (bit_cast::<256, 32>(self.rs_term.val())
                        << (32 * (2 * k + j)).to_bits::<8>());
            }
        }
        if self.advance.val() {
            self.operation_5.d.next = self.operation.val();
            self.rs.d.next = self.products.val();
            self.saturated_5.d.next = (self.operation.val().round_mode == self.tfl.val())
                & !self.operation.val().shift_only
                & (self.operation.val().ofm_shift < 31)
                & ((self.r_top.val() >> (bit_cast::<7, 6>(self.operation.val().ofm_shift) + 32))
                    != 0);
            self.r_5.d.next = self.r.val();
        }

        // Stage 6: the products summed; and where the left shift saturates,
        // p = x * scale for x = i64::MAX or i64::MIN (as x << 63 - x and
        // -(x << 63): no carry chain of its own ahead of stage 7's sum).
        self.p_saturated.next = (bit_cast::<98, 32>(self.operation_5.q.val().ofm_scale) << 63)
            - bit_cast::<98, 32>(self.operation_5.q.val().ofm_scale);
        if self.r_5.q.val().get_bit(63) {
            self.p_saturated.next =
                bits::<98>(0) - (bit_cast::<98, 32>(self.operation_5.q.val().ofm_scale) << 63);
        }
        self.product.next = 0.into();
        for k in 0..4 {
            for j in 0..2 {
                self.rs_term.next = self.rs.q.val().get_bits::<32>(32 * (2 * k + j));
                self.product.next = self.product.val()
                    + (bit_cast::<98, 32>(self.rs_term.val()) << (16 * (k + j)).to_bits::<7>());
            }
        }
        if self.advance.val() {
            self.operation_6.d.next = self.operation_5.q.val();
            self.product_6.d.next = self.product.val();
            self.p_saturated_6.d.next = self.p_saturated.val();
            self.saturated_6.d.next = self.saturated_5.q.val();
            self.r_6.d.next = self.r_5.q.val();
        }

        // Stage 7: floor((p + addend) / 2^shift)'s sum: natural, truncate,
        // TFL's first rounding (shift 31, addend 2^30, after the left shift
        // by 31 - shift, which is the natural rounding unless it
        // saturates), or a 32-bit OFM's shift alone (TFL: halves away from
        // zero). A negative r's p = -|r| * scale is summed as !product + 1
        // (p_carry) and its sign read as product != 0 (below 2^95): one
        // carry chain in the stage, not a negation's ahead of the sum's.
        self.r_negative.next = self.r_6.q.val().get_bit(63);
        self.p.next = self.product_6.q.val();
        self.p_carry.next = 0.into();
        self.p_negative.next = false;
        if self.r_negative.val() {
            self.p.next = !self.product_6.q.val();
            self.p_carry.next = 1.into();
            self.p_negative.next = self.product_6.q.val().any();
        }
        self.shift.next = self.operation_6.q.val().ofm_shift;
        self.second_rounding.next = (self.operation_6.q.val().round_mode == self.tfl.val())
            & !self.operation_6.q.val().shift_only
            & (self.operation_6.q.val().ofm_shift >= 31);
        if self.operation_6.q.val().shift_only {
            self.p.next = bit_cast::<98, 64>(self.r_6.q.val());
            if self.r_negative.val() {
                self.p.next = self.p.val() | self.high_98.val();
            }
            self.p_carry.next = 0.into();
            self.p_negative.next = self.r_negative.val();
        }
        if self.second_rounding.val() {
            self.shift.next = 31.into();
        }
        if self.saturated_6.q.val() {
            self.shift.next = 31.into();
            self.p.next = self.p_saturated_6.q.val();
            self.p_carry.next = 0.into();
            self.p_negative.next = self.p_saturated_6.q.val().get_bit(97);
        }
        // The addends as masks, not sums: 2^shift - 1 is `low_ones`, and
        // 2^(shift-1) - 1 is `low_ones >> 1`.
        self.power.next = bits::<98>(1) << self.shift.val();
        self.low_ones.next = !(self.ones_98.val() << self.shift.val());
        self.addend.next = self.power.val() >> 1;
        if self.operation_6.q.val().round_mode == self.truncate.val() {
            self.addend.next = 0.into();
            if self.p_negative.val() {
                self.addend.next = self.low_ones.val();
            }
        }
        if (self.operation_6.q.val().round_mode == self.tfl.val())
            & self.operation_6.q.val().shift_only
            & self.p_negative.val()
            & (self.shift.val() != 0)
        {
            self.addend.next = self.low_ones.val() >> 1;
        }
        if self.advance.val() {
            self.operation_7.d.next = self.operation_6.q.val();
            self.v_7.d.next = self.p.val() + self.addend.val() + self.p_carry.val();
            self.shift_7.d.next = self.shift.val();
            self.saturated_7.d.next = self.saturated_6.q.val();
        }

        // Stage 8: the shift, as an i64 wrapped as the golden model's cast;
        // TFL's second rounding (RoundingDivideByPOT by shift - 31); the
        // value saturated to 34 bits.
        self.shifted.next = self.v_7.q.val();
        if self.v_7.q.val().get_bit(97) {
            self.shifted.next = self.v_7.q.val() ^ self.ones_98.val();
        }
        self.shifted.next = self.shifted.val() >> self.shift_7.q.val();
        if self.v_7.q.val().get_bit(97) {
            self.shifted.next = self.shifted.val() ^ self.ones_98.val();
        }
        self.first.next = self.shifted.val().get_bits::<64>(0);
        self.result.next = self.first.val();
        self.exponent.next = self.operation_7.q.val().ofm_shift - 31;
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
        if (self.operation_7.q.val().round_mode == self.tfl.val())
            & !self.operation_7.q.val().shift_only
            & (self.operation_7.q.val().ofm_shift >= 31)
            & !self.saturated_7.q.val()
        {
            self.result.next = self.w_shifted.val().get_bits::<64>(0);
        }
        // A 32-bit OFM's shift by 63 gives 0 in every mode.
        if self.operation_7.q.val().shift_only & (self.operation_7.q.val().ofm_shift == 63) {
            self.result.next = 0.into();
        }
        self.lane_value.next = bit_cast::<40, 34>(self.result.val().get_bits::<34>(0));
        if self.result.val().get_bit(33) {
            self.lane_value.next = self.lane_value.val() | 0xfc_0000_0000_u64;
        }
        if !(self.result.val().get_bits::<31>(33).all()
            | !self.result.val().get_bits::<31>(33).any())
        {
            self.lane_value.next = 0x1_ffff_ffff_u64.into();
            if self.result.val().get_bit(63) {
                self.lane_value.next = 0xfe_0000_0000_u64.into();
            }
        }
        if self.advance.val() {
            self.value_8.d.next = self.lane_value.val();
        }
        self.value.next = self.value_8.q.val();
    }
}

/// A wide beat's lane pair on its way through the [`WideLane`]s: the
/// beat's step it is, whether it is the beat's last, and the beat's
/// control.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct WideTag {
    pub valid: Bit,
    pub step: Bits<2>,
    pub last: Bit,
    pub control: BeatControl,
}

/// The wide beats' way to the Scaler: a beat offered goes into the
/// [`WideLane`]s [`WIDE_LANES`] lanes a cycle up to its last lane on (it
/// is taken with its last ones), and comes out whole, with the control it
/// was offered with, [`WIDE_LATENCY`] cycles after.
///
/// # Ports
///
/// - `settings`: the operation of the beat offered.
/// - `offered`, `first`, `second`, `lanes`, `control`: a wide beat is
///   offered: lane i's operand A in bits 40i+31..40i of `first`, operand
///   B in bits 32i+31..32i of `second`, bit i of `lanes` set for a lane
///   holding a channel, and the control its results carry on.
/// - `accepts_last`: the offered beat's last lanes go in this cycle, so
///   the beat is taken (a `ready` that does not depend on `offered`).
/// - `valid`, `values`, `values_control`, `ready`: a finished beat, lane i
///   in bits 40i+39..40i (34-bit two's complement, sign-extended), taken
///   when `ready`; every stage waits while it is not (`ready` may depend
///   on `valid`; `accepts_last` depends on `ready`).
/// - `empty`: no beat is on its way or waiting.
#[derive(LogicBlock)]
pub struct WidePath {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub settings: Signal<In, OutputSettings>,
    pub offered: Signal<In, Bit>,
    pub first: Signal<In, Bits<{ LANES * 40 }>>,
    pub second: Signal<In, Bits<{ LANES * 32 }>>,
    pub lanes: Signal<In, Bits<LANES>>,
    pub control: Signal<In, BeatControl>,
    pub accepts_last: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub values: Signal<Out, Bits<{ LANES * 40 }>>,
    pub values_control: Signal<Out, BeatControl>,
    pub ready: Signal<In, Bit>,
    pub empty: Signal<Out, Bit>,
    wide_lanes: Vec<WideLane>,
    /// The offered beat's next step.
    step: ResetReg<Bits<2>>,
    /// Tag k goes with the lanes in stage k + 1 of the [`WideLane`]s.
    tags: Vec<ResetReg<WideTag>>,
    /// The lanes of the beat coming out, from its steps before.
    collected: ResetReg<Bits<{ LANES * 40 }>>,
    advance: Signal<Local, Bit>,
    last: Signal<Local, Bit>,
    out_tag: Signal<Local, WideTag>,
    merged: Signal<Local, Bits<{ LANES * 40 }>>,
    lane_value: Signal<Local, Bits<40>>,
    stage_tag: Signal<Local, WideTag>,
    in_flight: Signal<Local, Bit>,
}

impl Default for WidePath {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            settings: Default::default(),
            offered: Default::default(),
            first: Default::default(),
            second: Default::default(),
            lanes: Default::default(),
            control: Default::default(),
            accepts_last: Default::default(),
            valid: Default::default(),
            values: Default::default(),
            values_control: Default::default(),
            ready: Default::default(),
            empty: Default::default(),
            wide_lanes: (0..WIDE_LANES).map(|_| WideLane::default()).collect(),
            step: Default::default(),
            tags: (0..WIDE_LATENCY).map(|_| ResetReg::default()).collect(),
            collected: Default::default(),
            advance: Default::default(),
            last: Default::default(),
            out_tag: Default::default(),
            merged: Default::default(),
            lane_value: Default::default(),
            stage_tag: Default::default(),
            in_flight: Default::default(),
        }
    }
}

impl Logic for WidePath {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, step, collected);
        self.step.rst_n.next = self.rst_n.val();
        self.collected.rst_n.next = self.rst_n.val();
        for i in 0..WIDE_LATENCY {
            self.tags[i].clock.next = self.clock.val();
            self.tags[i].rst_n.next = self.rst_n.val();
            self.tags[i].d.next = self.tags[i].q.val();
        }

        // Every stage moves unless the finished beat waits.
        self.out_tag.next = self.tags[7].q.val();
        self.valid.next = self.out_tag.val().valid & self.out_tag.val().last;
        self.advance.next = !self.valid.val() | self.ready.val();
        for j in 0..WIDE_LANES {
            self.wide_lanes[j].clock.next = self.clock.val();
            self.wide_lanes[j].rst_n.next = self.rst_n.val();
            self.wide_lanes[j].advance.next = self.advance.val();
            self.wide_lanes[j].settings.next = self.settings.val();
            self.wide_lanes[j].a.next = 0.into();
            self.wide_lanes[j].b.next = 0.into();
        }
        // Step k: lanes 2k and 2k + 1 go in.
        self.last.next = false;
        for k in 0..WIDE_STEPS {
            if self.step.q.val() == k.to_bits::<2>() {
                for j in 0..WIDE_LANES {
                    self.wide_lanes[j].a.next = self.first.val().get_bits::<32>((2 * k + j) * 40);
                    self.wide_lanes[j].b.next = self.second.val().get_bits::<32>((2 * k + j) * 32);
                }
                self.last.next = (self.lanes.val() >> (2 * k + 2).to_bits::<4>()) == 0;
            }
        }
        self.accepts_last.next = self.advance.val() & self.last.val();
        if self.advance.val() {
            self.tags[0].d.next.valid = self.offered.val();
            self.tags[0].d.next.step = self.step.q.val();
            self.tags[0].d.next.last = self.last.val();
            self.tags[0].d.next.control = self.control.val();
            for i in 1..WIDE_LATENCY {
                self.tags[i].d.next = self.tags[i - 1].q.val();
            }
            if self.offered.val() {
                self.step.d.next = self.step.q.val() + 1;
                if self.last.val() {
                    self.step.d.next = 0.into();
                }
            }
        }

        // The lanes coming out join the beat's earlier ones; its last step
        // finishes it.
        self.merged.next = 0.into();
        for k in 0..WIDE_STEPS {
            for j in 0..WIDE_LANES {
                self.lane_value.next = self.collected.q.val().get_bits::<40>((2 * k + j) * 40);
                if self.out_tag.val().step == k.to_bits::<2>() {
                    self.lane_value.next = self.wide_lanes[j].value.val();
                }
                self.merged.next = self.merged.val()
                    | (bit_cast::<{ LANES * 40 }, 40>(self.lane_value.val())
                        << ((2 * k + j) * 40).to_bits::<9>());
            }
        }
        if self.advance.val() & self.out_tag.val().valid {
            self.collected.d.next = self.merged.val();
            if self.out_tag.val().last {
                self.collected.d.next = 0.into();
            }
        }
        self.values.next = self.merged.val();
        self.values_control.next = self.out_tag.val().control;
        self.in_flight.next = false;
        for i in 0..WIDE_LATENCY {
            self.stage_tag.next = self.tags[i].q.val();
            self.in_flight.next = self.in_flight.val() | self.stage_tag.val().valid;
        }
        self.empty.next = !self.in_flight.val() & (self.step.q.val() == 0);
    }
}
