//! The elementwise stage of the output unit (TRM 3.3.7, 4.8.2 table 4-124):
//! each lane's two operands (zero points subtracted, broadcast and operand
//! order applied) to the value, scale and shift the [`super::Scaler`] takes,
//! so that its output scale completes
//! `npu_model::ops::ElementwiseArithmetic::apply` bit for bit. Two
//! combinational halves around the output unit's operand stage register:
//! [`Elementwise`] leaves the products' magnitudes and signs, or SHR's rounded
//! value and amount, or every other mode's final value; [`ElementwiseFinish`]
//! signs and sums them, so neither half is deeper than about one 32-bit
//! multiply. 32-bit MUL/ADD/SUB and a 32-bit input scale are
//! [`super::WideLane`]'s (`wide`).
//!
//! Ports: `settings` (the beat's [`OutputSettings`]); `first`/`second` (lane
//! i's operands A and B); `values`, `scales`, `shifts` (lane i's Scaler
//! input), with `seconds`, `signs` and `amounts` as `finish` says. Every lane
//! of every beat, 8 a cycle. Each mode's arithmetic: `docs/output-unit.md`.

use super::{OutputSettings, LANES};
use npu_arch::command::{ActivationPrecision, ElementwiseMode, RoundMode};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Elementwise {
    pub settings: Signal<In, OutputSettings>,
    pub first: Signal<In, Bits<{ LANES * 40 }>>,
    pub second: Signal<In, Bits<{ LANES * 32 }>>,
    pub values: Signal<Out, Bits<{ LANES * 40 }>>,
    pub seconds: Signal<Out, Bits<{ LANES * 40 }>>,
    pub scales: Signal<Out, Bits<{ LANES * 32 }>>,
    pub shifts: Signal<Out, Bits<{ LANES * 6 }>>,
    pub amounts: Signal<Out, Bits<{ LANES * 6 }>>,
    pub signs: Signal<Out, Bits<{ LANES * 2 }>>,
    pub finish: Signal<Out, FinishMode>,
    /// The beat's lanes are the wide path's ([`super::WideLane`]): MUL,
    /// ADD or SUB of 32-bit operands, or ADD/SUB with a 32-bit input scale.
    pub wide: Signal<Out, Bit>,
    // Encodings (npu_arch::command).
    mul: Constant<Bits<6>>,
    add: Constant<Bits<6>>,
    sub: Constant<Bits<6>>,
    min: Constant<Bits<6>>,
    max: Constant<Bits<6>>,
    lrelu: Constant<Bits<6>>,
    abs: Constant<Bits<6>>,
    clz: Constant<Bits<6>>,
    shr: Constant<Bits<6>>,
    shl: Constant<Bits<6>>,
    tfl: Constant<Bits<2>>,
    truncate: Constant<Bits<2>>,
    bits_32: Constant<Bits<2>>,
    /// 2^31: flips the sign of an int32, for signed comparisons.
    sign_32: Constant<Bits<32>>,
    ones_40: Constant<Bits<40>>,
    // The operation.
    mode: Signal<Local, Bits<6>>,
    opa_scale: Signal<Local, Bits<32>>,
    opa_16: Signal<Local, Bits<17>>,
    opb: Signal<Local, Bits<16>>,
    // Per-lane temporaries.
    a: Signal<Local, Bits<32>>,
    b: Signal<Local, Bits<32>>,
    a_negative: Signal<Local, Bit>,
    b_negative: Signal<Local, Bit>,
    a_40: Signal<Local, Bits<40>>,
    b_40: Signal<Local, Bits<40>>,
    a_magnitude: Signal<Local, Bits<32>>,
    b_magnitude: Signal<Local, Bits<32>>,
    factor_x: Signal<Local, Bits<17>>,
    factor_y: Signal<Local, Bits<17>>,
    low_x: Signal<Local, Bits<16>>,
    low_y: Signal<Local, Bits<16>>,
    low_b: Signal<Local, Bits<16>>,
    low_product_a: Signal<Local, Bits<32>>,
    low_product_b: Signal<Local, Bits<32>>,
    /// The 17th bits' terms of |a| * y.
    term_x16: Signal<Local, Bits<40>>,
    term_y16: Signal<Local, Bits<40>>,
    product_a: Signal<Local, Bits<40>>,
    product_b: Signal<Local, Bits<40>>,
    product_a_negative: Signal<Local, Bit>,
    /// CLZ: the count so far and the value shifted up by it.
    leading_zeros: Signal<Local, Bits<6>>,
    clz_x: Signal<Local, Bits<32>>,
    amount: Signal<Local, Bits<6>>,
    wide_a: Signal<Local, Bits<64>>,
    power: Signal<Local, Bits<40>>,
    /// 2^amount - 1.
    low_ones: Signal<Local, Bits<40>>,
    addend: Signal<Local, Bits<40>>,
    value: Signal<Local, Bits<40>>,
    second_value: Signal<Local, Bits<40>>,
    scaled: Signal<Local, Bit>,
    lane_scale: Signal<Local, Bits<32>>,
    lane_shift: Signal<Local, Bits<6>>,
}

impl Default for Elementwise {
    fn default() -> Self {
        let mode = |m: ElementwiseMode| Constant::new(u64::from(m.bits()).into());
        let round = |m: RoundMode| Constant::new(u64::from(m.bits()).into());
        Self {
            settings: Default::default(),
            first: Default::default(),
            second: Default::default(),
            values: Default::default(),
            seconds: Default::default(),
            scales: Default::default(),
            shifts: Default::default(),
            amounts: Default::default(),
            signs: Default::default(),
            finish: Default::default(),
            wide: Default::default(),
            mul: mode(ElementwiseMode::Mul),
            add: mode(ElementwiseMode::Add),
            sub: mode(ElementwiseMode::Sub),
            min: mode(ElementwiseMode::Min),
            max: mode(ElementwiseMode::Max),
            lrelu: mode(ElementwiseMode::Lrelu),
            abs: mode(ElementwiseMode::Abs),
            clz: mode(ElementwiseMode::Clz),
            shr: mode(ElementwiseMode::Shr),
            shl: mode(ElementwiseMode::Shl),
            tfl: round(RoundMode::Tfl),
            truncate: round(RoundMode::Truncate),
            bits_32: Constant::new(u64::from(ActivationPrecision::Bits32.bits()).into()),
            sign_32: Constant::new(0x8000_0000_u64.into()),
            ones_40: Constant::new(Bits::<40>::mask()),
            mode: Default::default(),
            opa_scale: Default::default(),
            opa_16: Default::default(),
            opb: Default::default(),
            a: Default::default(),
            b: Default::default(),
            a_negative: Default::default(),
            b_negative: Default::default(),
            a_40: Default::default(),
            b_40: Default::default(),
            a_magnitude: Default::default(),
            b_magnitude: Default::default(),
            factor_x: Default::default(),
            factor_y: Default::default(),
            low_x: Default::default(),
            low_y: Default::default(),
            low_b: Default::default(),
            low_product_a: Default::default(),
            low_product_b: Default::default(),
            term_x16: Default::default(),
            term_y16: Default::default(),
            product_a: Default::default(),
            product_b: Default::default(),
            product_a_negative: Default::default(),
            leading_zeros: Default::default(),
            clz_x: Default::default(),
            amount: Default::default(),
            wide_a: Default::default(),
            power: Default::default(),
            low_ones: Default::default(),
            addend: Default::default(),
            value: Default::default(),
            second_value: Default::default(),
            scaled: Default::default(),
            lane_scale: Default::default(),
            lane_shift: Default::default(),
        }
    }
}

impl Logic for Elementwise {
    #[hdl_gen]
    fn update(&mut self) {
        self.mode.next = self.settings.val().elementwise_mode;
        self.opa_scale.next = self.settings.val().opa_scale;
        self.opa_16.next = bit_cast::<17, 16>(self.opa_scale.val().get_bits::<16>(0));
        self.opb.next = self.settings.val().opb_scale;
        self.wide.next = self.settings.val().elementwise
            & (((self.mode.val() == self.mul.val())
                & (self.settings.val().ifm_precision == self.bits_32.val()))
                | (((self.mode.val() == self.add.val()) | (self.mode.val() == self.sub.val()))
                    & ((self.settings.val().ifm_precision == self.bits_32.val())
                        | (self.settings.val().ifm_scale_mode != 0))));
        self.finish.next.mul = self.mode.val() == self.mul.val();
        self.finish.next.add = self.mode.val() == self.add.val();
        self.finish.next.sub = self.mode.val() == self.sub.val();
        self.finish.next.shr = self.mode.val() == self.shr.val();
        self.values.next = 0.into();
        self.seconds.next = 0.into();
        self.scales.next = 0.into();
        self.shifts.next = 0.into();
        self.amounts.next = 0.into();
        self.signs.next = 0.into();
        for i in 0..LANES {
            self.a.next = self.first.val().get_bits::<32>(i * 40);
            self.b.next = self.second.val().get_bits::<32>(i * 32);
            self.a_negative.next = self.a.val().get_bit(31);
            self.b_negative.next = self.b.val().get_bit(31);
            self.a_40.next = bit_cast::<40, 32>(self.a.val());
            if self.a_negative.val() {
                self.a_40.next = self.a_40.val() | 0xff_0000_0000_u64;
            }
            self.b_40.next = bit_cast::<40, 32>(self.b.val());
            if self.b_negative.val() {
                self.b_40.next = self.b_40.val() | 0xff_0000_0000_u64;
            }
            self.a_magnitude.next = self.a.val();
            if self.a_negative.val() {
                self.a_magnitude.next = bits::<32>(0) - self.a.val();
            }
            self.b_magnitude.next = self.b.val();
            if self.b_negative.val() {
                self.b_magnitude.next = bits::<32>(0) - self.b.val();
            }

            // |a| times |b| (MUL) or OPA's 16-bit scale (ADD/SUB): 17-bit
            // factors, x * y = xl * yl + (x16 ? y << 16) + (y16 ? xl << 16),
            // one sum; its sign is applied after the operand stage.
            self.factor_x.next = self.a_magnitude.val().get_bits::<17>(0);
            self.factor_y.next = self.opa_16.val();
            self.product_a_negative.next = self.a_negative.val();
            if self.mode.val() == self.mul.val() {
                self.factor_y.next = self.b_magnitude.val().get_bits::<17>(0);
                self.product_a_negative.next = self.a_negative.val() ^ self.b_negative.val();
            }
            self.low_x.next = self.factor_x.val().get_bits::<16>(0);
            self.low_y.next = self.factor_y.val().get_bits::<16>(0);
            self.low_product_a.next = self.low_x.val() * self.low_y.val();
            self.term_x16.next = 0.into();
            if self.factor_x.val().get_bit(16) {
                self.term_x16.next = bit_cast::<40, 17>(self.factor_y.val()) << 16;
            }
            self.term_y16.next = 0.into();
            if self.factor_y.val().get_bit(16) {
                self.term_y16.next = bit_cast::<40, 16>(self.low_x.val()) << 16;
            }
            self.product_a.next = bit_cast::<40, 32>(self.low_product_a.val())
                + self.term_x16.val()
                + self.term_y16.val();
            // |b| * OPB_SCALE (16 bits unsigned).
            self.low_b.next = self.b_magnitude.val().get_bits::<16>(0);
            self.low_product_b.next = self.low_b.val() * self.opb.val();
            self.product_b.next = bit_cast::<40, 32>(self.low_product_b.val());
            if self.b_magnitude.val().get_bit(16) {
                self.product_b.next =
                    self.product_b.val() + (bit_cast::<40, 16>(self.opb.val()) << 16);
            }

            // CLZ: the highest set bit's distance from bit 31 (32 for 0),
            // found in halves.
            self.clz_x.next = self.a.val();
            self.leading_zeros.next = 0.into();
            if self.clz_x.val().get_bits::<16>(16) == 0 {
                self.leading_zeros.next = self.leading_zeros.val() | 16;
                self.clz_x.next = self.clz_x.val() << 16;
            }
            if self.clz_x.val().get_bits::<8>(24) == 0 {
                self.leading_zeros.next = self.leading_zeros.val() | 8;
                self.clz_x.next = self.clz_x.val() << 8;
            }
            if self.clz_x.val().get_bits::<4>(28) == 0 {
                self.leading_zeros.next = self.leading_zeros.val() | 4;
                self.clz_x.next = self.clz_x.val() << 4;
            }
            if self.clz_x.val().get_bits::<2>(30) == 0 {
                self.leading_zeros.next = self.leading_zeros.val() | 2;
                self.clz_x.next = self.clz_x.val() << 2;
            }
            if !self.clz_x.val().get_bit(31) {
                self.leading_zeros.next = self.leading_zeros.val() | 1;
            }
            if !self.a.val().any() {
                self.leading_zeros.next = 32.into();
            }

            // SHL and SHR amounts: b clamped to 0..31 (SHL) or 0..33 (SHR:
            // an int32 shifted by 33 or more rounds to 0 in every mode).
            self.amount.next = self.b.val().get_bits::<6>(0);
            if self.b_negative.val() {
                self.amount.next = 0.into();
            } else if (self.mode.val() == self.shl.val()) & (self.b.val() > 31) {
                self.amount.next = 31.into();
            } else if (self.mode.val() != self.shl.val()) & (self.b.val() > 33) {
                self.amount.next = 33.into();
            }
            self.wide_a.next = bit_cast::<64, 40>(self.a_40.val());
            if self.a_negative.val() {
                self.wide_a.next = self.wide_a.val() | 0xffff_ff00_0000_0000_u64;
            }
            self.wide_a.next = self.wide_a.val() << self.amount.val();

            // SHR: a + addend here, floor(/ 2^amount) after the operand
            // stage, with the OFM's rounding: TFL halves away from zero
            // (`fixed::rounding_divide_by_pot`), natural halves up, truncate
            // toward zero. The addends are masks, not sums.
            self.power.next = 1.into();
            self.power.next = self.power.val() << self.amount.val();
            self.low_ones.next = !(self.ones_40.val() << self.amount.val());
            self.addend.next = self.power.val() >> 1;
            if (self.settings.val().round_mode == self.tfl.val())
                & self.a_negative.val()
                & (self.amount.val() != 0)
            {
                self.addend.next = self.low_ones.val() >> 1;
            }
            if self.settings.val().round_mode == self.truncate.val() {
                self.addend.next = 0.into();
                if self.a_negative.val() {
                    self.addend.next = self.low_ones.val();
                }
            }

            // The lane's value, and whether the output scale applies; the
            // deepest (the products) last.
            self.value.next = self.a_40.val();
            self.second_value.next = 0.into();
            self.scaled.next = true;
            if (self.mode.val() == self.min.val()) | (self.mode.val() == self.max.val()) {
                self.scaled.next = false;
                if ((self.a.val() ^ self.sign_32.val()) < (self.b.val() ^ self.sign_32.val()))
                    ^ (self.mode.val() == self.min.val())
                {
                    self.value.next = self.b_40.val();
                }
            }
            if self.mode.val() == self.abs.val() {
                self.value.next = bit_cast::<40, 32>(self.a_magnitude.val());
            }
            if self.mode.val() == self.lrelu.val() {
                // TRM 4.8.2 table 4-124: LReLU scales negative inputs only.
                self.scaled.next = self.a_negative.val();
            }
            if self.mode.val() == self.clz.val() {
                self.scaled.next = false;
                self.value.next = bit_cast::<40, 6>(self.leading_zeros.val());
            }
            if self.mode.val() == self.shl.val() {
                self.scaled.next = false;
                self.value.next = bit_cast::<40, 64>(self.wide_a.val());
                // Saturated to int32: bits 63..31 not all the sign.
                if !(self.wide_a.val().get_bits::<33>(31).all()
                    | !self.wide_a.val().get_bits::<33>(31).any())
                {
                    self.value.next = 0x7fff_ffff_u64.into();
                    if self.a_negative.val() {
                        self.value.next = 0xff_8000_0000_u64.into();
                    }
                }
            }
            if self.mode.val() == self.shr.val() {
                self.value.next = self.a_40.val() + self.addend.val();
            }
            if (self.mode.val() == self.mul.val())
                | (self.mode.val() == self.add.val())
                | (self.mode.val() == self.sub.val())
            {
                self.value.next = self.product_a.val();
                self.second_value.next = self.product_b.val();
            }
            self.lane_scale.next = 1.into();
            self.lane_shift.next = 0.into();
            if self.scaled.val() {
                self.lane_scale.next = self.settings.val().scale;
                self.lane_shift.next = self.settings.val().shift;
            }
            self.values.next = self.values.val()
                | (bit_cast::<{ LANES * 40 }, 40>(self.value.val()) << (i * 40).to_bits::<9>());
            self.seconds.next = self.seconds.val()
                | (bit_cast::<{ LANES * 40 }, 40>(self.second_value.val())
                    << (i * 40).to_bits::<9>());
            self.scales.next = self.scales.val()
                | (bit_cast::<{ LANES * 32 }, 32>(self.lane_scale.val())
                    << (i * 32).to_bits::<8>());
            self.shifts.next = self.shifts.val()
                | (bit_cast::<{ LANES * 6 }, 6>(self.lane_shift.val()) << (i * 6).to_bits::<6>());
            self.amounts.next = self.amounts.val()
                | (bit_cast::<{ LANES * 6 }, 6>(self.amount.val()) << (i * 6).to_bits::<6>());
            if self.product_a_negative.val() {
                self.signs.next = self.signs.val().replace_bit(2 * i, true);
            }
            if self.b_negative.val() {
                self.signs.next = self.signs.val().replace_bit(2 * i + 1, true);
            }
        }
    }
}

/// What [`ElementwiseFinish`] does to an elementwise beat after the operand
/// stage.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct FinishMode {
    /// The value is the signed product A.
    pub mul: Bit,
    /// The value is the signed product A plus (or minus) the signed B.
    pub add: Bit,
    pub sub: Bit,
    /// The value is shifted right arithmetically by the lane's amount.
    pub shr: Bit,
}

/// The elementwise stage's second half, after the output unit's operand
/// stage register: each lane's products signed and summed (MUL/ADD/SUB)
/// or its rounded value shifted (SHR), as [`Elementwise`] left them
/// (`values`, `seconds`, `signs`, `amounts`); other lanes pass.
/// Combinational.
#[derive(LogicBlock, Default)]
pub struct ElementwiseFinish {
    pub finish: Signal<In, FinishMode>,
    pub firsts: Signal<In, Bits<{ LANES * 40 }>>,
    pub seconds: Signal<In, Bits<{ LANES * 40 }>>,
    pub signs: Signal<In, Bits<{ LANES * 2 }>>,
    pub amounts: Signal<In, Bits<{ LANES * 6 }>>,
    pub values: Signal<Out, Bits<{ LANES * 40 }>>,
    first: Signal<Local, Bits<40>>,
    second: Signal<Local, Bits<40>>,
    amount: Signal<Local, Bits<6>>,
    value: Signal<Local, Bits<40>>,
}

impl Logic for ElementwiseFinish {
    #[hdl_gen]
    fn update(&mut self) {
        self.values.next = 0.into();
        for i in 0..LANES {
            self.first.next = self.firsts.val().get_bits::<40>(i * 40);
            self.second.next = self.seconds.val().get_bits::<40>(i * 40);
            self.amount.next = self.amounts.val().get_bits::<6>(i * 6);
            self.value.next = self.first.val();
            // Arithmetic shift right: a logical one of the value or of its
            // complement.
            if self.finish.val().shr {
                if self.first.val().get_bit(39) {
                    self.value.next = !self.first.val();
                }
                self.value.next = self.value.val() >> self.amount.val();
                if self.first.val().get_bit(39) {
                    self.value.next = !self.value.val();
                }
            }
            if self.signs.val().get_bit(2 * i) {
                self.first.next = bits::<40>(0) - self.first.val();
            }
            if self.signs.val().get_bit(2 * i + 1) {
                self.second.next = bits::<40>(0) - self.second.val();
            }
            if self.finish.val().mul {
                self.value.next = self.first.val();
            }
            if self.finish.val().add {
                self.value.next = self.first.val() + self.second.val();
            }
            if self.finish.val().sub {
                self.value.next = self.first.val() - self.second.val();
            }
            self.values.next = self.values.val()
                | (bit_cast::<{ LANES * 40 }, 40>(self.value.val()) << (i * 40).to_bits::<9>());
        }
    }
}
