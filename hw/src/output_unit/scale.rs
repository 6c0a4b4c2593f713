//! The scaling stages (TRM 3.3.7.1) of the output unit, all lanes in one
//! block: the accumulator plus its bias wrapped to the accumulator format,
//! times the 32-bit scale, shifted right with the operation's rounding, as
//! `npu_model::fixed::scale`. Three pipeline registers, each loaded when its
//! `load_*` input is high: `x` = wrap(accumulator + bias) with the scale and
//! shift; `p` = x * scale (72 bits from six 16x16 products) with whether TFL's
//! left shift saturates; `scaled`, saturated to 34 bits (enough for every
//! result a zero point can bring back into int32).
//!
//! Every rounding mode is one `floor((p + a) / 2^shift)` with its own addend
//! `a`, TFL's double rounding included: why that is exact is in
//! `docs/output-unit.md`.

use super::{BeatControl, LANES};
use crate::widgets::ResetReg;
use npu_arch::command::RoundMode;
use rust_hdl::prelude::*;

/// The Scaler's rounding mode 3, which OFM_PRECISION.round_mode does not
/// encode (TRM 4.6.4 uses 0-2): one rounding half away from zero, a pool's
/// shift-only TFL rounding (`npu_model::fixed::rounding_divide_by_pot`).
pub const HALF_AWAY_FROM_ZERO: u64 = 3;

#[derive(LogicBlock)]
pub struct Scaler {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The beat coming in: lane i's accumulator in bits 40i+39..40i, its
    /// (already chosen) scale record in `bias`/`scale`/`shift` the same way;
    /// the accumulator format is 32-bit when `acc_int32`.
    pub accumulators: Signal<In, Bits<{ LANES * 40 }>>,
    pub biases: Signal<In, Bits<{ LANES * 40 }>>,
    pub scales: Signal<In, Bits<{ LANES * 32 }>>,
    pub shifts: Signal<In, Bits<{ LANES * 6 }>>,
    pub acc_int32: Signal<In, Bit>,
    /// The operation's control, travelling with the beat.
    pub control: Signal<In, BeatControl>,
    /// Register loads, one per stage.
    pub load_1: Signal<In, Bit>,
    pub load_2: Signal<In, Bit>,
    pub load_3: Signal<In, Bit>,
    /// Stage 3: lane i's scaled value (34-bit two's complement) in bits
    /// 34i+33..34i, and its control.
    pub scaled: Signal<Out, Bits<{ LANES * 34 }>>,
    pub scaled_control: Signal<Out, BeatControl>,
    /// The TRM encodings of the rounding modes, and [`HALF_AWAY_FROM_ZERO`].
    tfl: Constant<Bits<2>>,
    truncate: Constant<Bits<2>>,
    half_away: Constant<Bits<2>>,
    /// 2^72 (the sign of a 73-bit value) and 2^73 - 1.
    sign_73: Constant<Bits<73>>,
    ones_73: Constant<Bits<73>>,
    /// All ones, and the ones from bit 31 up.
    ones_64: Constant<Bits<64>>,
    above_31: Constant<Bits<64>>,
    // Stage 1.
    x: ResetReg<Bits<{ LANES * 40 }>>,
    scale_1: ResetReg<Bits<{ LANES * 32 }>>,
    shift_1: ResetReg<Bits<{ LANES * 6 }>>,
    control_1: ResetReg<BeatControl>,
    // Stage 2.
    product: ResetReg<Bits<{ LANES * 72 }>>,
    scale_2: ResetReg<Bits<{ LANES * 32 }>>,
    shift_2: ResetReg<Bits<{ LANES * 6 }>>,
    saturated: ResetReg<Bits<LANES>>,
    negative: ResetReg<Bits<LANES>>,
    control_2: ResetReg<BeatControl>,
    // Stage 3.
    result: ResetReg<Bits<{ LANES * 34 }>>,
    control_3: ResetReg<BeatControl>,
    // Per-lane temporaries.
    sum: Signal<Local, Bits<40>>,
    lane_x: Signal<Local, Bits<40>>,
    lane_scale: Signal<Local, Bits<32>>,
    lane_shift: Signal<Local, Bits<6>>,
    limb_0: Signal<Local, Bits<16>>,
    limb_1: Signal<Local, Bits<16>>,
    limb_2: Signal<Local, Bits<16>>,
    scale_lo: Signal<Local, Bits<16>>,
    scale_hi: Signal<Local, Bits<16>>,
    pp_00: Signal<Local, Bits<32>>,
    pp_01: Signal<Local, Bits<32>>,
    pp_10: Signal<Local, Bits<32>>,
    pp_11: Signal<Local, Bits<32>>,
    pp_20: Signal<Local, Bits<32>>,
    pp_21: Signal<Local, Bits<32>>,
    p: Signal<Local, Bits<72>>,
    sum_low: Signal<Local, Bits<72>>,
    sum_middle: Signal<Local, Bits<72>>,
    sum_high: Signal<Local, Bits<72>>,
    correction: Signal<Local, Bits<72>>,
    magnitude_top: Signal<Local, Bits<8>>,
    lane_p: Signal<Local, Bits<72>>,
    power: Signal<Local, Bits<64>>,
    low_ones: Signal<Local, Bits<64>>,
    addend: Signal<Local, Bits<64>>,
    v: Signal<Local, Bits<73>>,
    shifted: Signal<Local, Bits<73>>,
    r: Signal<Local, Bits<64>>,
    r34: Signal<Local, Bits<34>>,
    products: Signal<Local, Bits<{ LANES * 72 }>>,
    saturations: Signal<Local, Bits<LANES>>,
    signs: Signal<Local, Bits<LANES>>,
    xs: Signal<Local, Bits<{ LANES * 40 }>>,
    results: Signal<Local, Bits<{ LANES * 34 }>>,
}

impl Default for Scaler {
    fn default() -> Self {
        let sign_73: Bits<73> = Bits::<73>::from(1u64) << 72u64;
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            accumulators: Default::default(),
            biases: Default::default(),
            scales: Default::default(),
            shifts: Default::default(),
            acc_int32: Default::default(),
            control: Default::default(),
            load_1: Default::default(),
            load_2: Default::default(),
            load_3: Default::default(),
            scaled: Default::default(),
            scaled_control: Default::default(),
            tfl: Constant::new(u64::from(RoundMode::Tfl.bits()).into()),
            truncate: Constant::new(u64::from(RoundMode::Truncate.bits()).into()),
            half_away: Constant::new(HALF_AWAY_FROM_ZERO.into()),
            sign_73: Constant::new(sign_73),
            ones_73: Constant::new(Bits::<73>::mask()),
            ones_64: Constant::new(Bits::<64>::mask()),
            above_31: Constant::new(Bits::<64>::mask() << 31u64),
            x: Default::default(),
            scale_1: Default::default(),
            shift_1: Default::default(),
            control_1: Default::default(),
            product: Default::default(),
            scale_2: Default::default(),
            shift_2: Default::default(),
            saturated: Default::default(),
            negative: Default::default(),
            control_2: Default::default(),
            result: Default::default(),
            control_3: Default::default(),
            sum: Default::default(),
            lane_x: Default::default(),
            lane_scale: Default::default(),
            lane_shift: Default::default(),
            limb_0: Default::default(),
            limb_1: Default::default(),
            limb_2: Default::default(),
            scale_lo: Default::default(),
            scale_hi: Default::default(),
            pp_00: Default::default(),
            pp_01: Default::default(),
            pp_10: Default::default(),
            pp_11: Default::default(),
            pp_20: Default::default(),
            pp_21: Default::default(),
            p: Default::default(),
            sum_low: Default::default(),
            sum_middle: Default::default(),
            sum_high: Default::default(),
            correction: Default::default(),
            magnitude_top: Default::default(),
            lane_p: Default::default(),
            power: Default::default(),
            low_ones: Default::default(),
            addend: Default::default(),
            v: Default::default(),
            shifted: Default::default(),
            r: Default::default(),
            r34: Default::default(),
            products: Default::default(),
            saturations: Default::default(),
            signs: Default::default(),
            xs: Default::default(),
            results: Default::default(),
        }
    }
}

impl Logic for Scaler {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, x, scale_1, shift_1, control_1, product, scale_2, shift_2, saturated,
            negative, control_2, result, control_3
        );
        self.x.rst_n.next = self.rst_n.val();
        self.scale_1.rst_n.next = self.rst_n.val();
        self.shift_1.rst_n.next = self.rst_n.val();
        self.control_1.rst_n.next = self.rst_n.val();
        self.product.rst_n.next = self.rst_n.val();
        self.scale_2.rst_n.next = self.rst_n.val();
        self.shift_2.rst_n.next = self.rst_n.val();
        self.saturated.rst_n.next = self.rst_n.val();
        self.negative.rst_n.next = self.rst_n.val();
        self.control_2.rst_n.next = self.rst_n.val();
        self.result.rst_n.next = self.rst_n.val();
        self.control_3.rst_n.next = self.rst_n.val();

        // Stage 1: accumulator + bias, wrapped to 40 bits, or to 32 bits and
        // sign-extended (NPU_SET_ACC_FORMAT).
        self.xs.next = 0.into();
        for i in 0..LANES {
            self.sum.next = self.accumulators.val().get_bits::<40>(i * 40)
                + self.biases.val().get_bits::<40>(i * 40);
            if self.acc_int32.val() {
                self.sum.next = bit_cast::<40, 32>(self.sum.val().get_bits::<32>(0));
                if self.sum.val().get_bit(31) {
                    self.sum.next = self.sum.val() | 0xff_0000_0000_u64;
                }
            }
            self.xs.next = self.xs.val()
                | (bit_cast::<{ LANES * 40 }, 40>(self.sum.val()) << (i * 40).to_bits::<9>());
        }
        if self.load_1.val() {
            self.x.d.next = self.xs.val();
            self.scale_1.d.next = self.scales.val();
            self.shift_1.d.next = self.shifts.val();
            self.control_1.d.next = self.control.val();
        }

        // Stage 2: p = x * scale. x as 40-bit unsigned is three 16-bit limbs
        // (the top one 8 bits); a negative x then takes scale * 2^40 off.
        self.products.next = 0.into();
        self.saturations.next = 0.into();
        self.signs.next = 0.into();
        for i in 0..LANES {
            self.lane_x.next = self.x.q.val().get_bits::<40>(i * 40);
            self.lane_scale.next = self.scale_1.q.val().get_bits::<32>(i * 32);
            self.lane_shift.next = self.shift_1.q.val().get_bits::<6>(i * 6);
            self.limb_0.next = self.lane_x.val().get_bits::<16>(0);
            self.limb_1.next = self.lane_x.val().get_bits::<16>(16);
            self.limb_2.next = bit_cast::<16, 8>(self.lane_x.val().get_bits::<8>(32));
            self.scale_lo.next = self.lane_scale.val().get_bits::<16>(0);
            self.scale_hi.next = self.lane_scale.val().get_bits::<16>(16);
            self.pp_00.next = self.limb_0.val() * self.scale_lo.val();
            self.pp_01.next = self.limb_0.val() * self.scale_hi.val();
            self.pp_10.next = self.limb_1.val() * self.scale_lo.val();
            self.pp_11.next = self.limb_1.val() * self.scale_hi.val();
            self.pp_20.next = self.limb_2.val() * self.scale_lo.val();
            self.pp_21.next = self.limb_2.val() * self.scale_hi.val();
            // The partial products and a negative x's correction summed as a
            // tree: three adders deep, not seven in a chain.
            self.sum_low.next =
                bit_cast::<72, 32>(self.pp_00.val()) + (bit_cast::<72, 32>(self.pp_01.val()) << 16);
            self.sum_middle.next = (bit_cast::<72, 32>(self.pp_10.val()) << 16)
                + (bit_cast::<72, 32>(self.pp_11.val()) << 32);
            self.sum_high.next = (bit_cast::<72, 32>(self.pp_20.val()) << 32)
                + (bit_cast::<72, 32>(self.pp_21.val()) << 48);
            self.correction.next = 0.into();
            self.magnitude_top.next = self.lane_x.val().get_bits::<8>(32);
            if self.lane_x.val().get_bit(39) {
                self.correction.next =
                    bits::<72>(0) - (bit_cast::<72, 32>(self.lane_scale.val()) << 40);
                self.magnitude_top.next = !self.magnitude_top.val();
            }
            self.p.next = (self.sum_low.val() + self.sum_middle.val())
                + (self.sum_high.val() + self.correction.val());
            self.products.next = self.products.val()
                | (bit_cast::<{ LANES * 72 }, 72>(self.p.val()) << (i * 72).to_bits::<10>());
            // x << (31 - shift) leaves the i64 range: |x| (as x or !x) has a
            // bit at 32 + shift or above.
            if (self.control_1.q.val().round_mode == self.tfl.val())
                & (self.lane_shift.val() < 31)
                & ((self.magnitude_top.val() >> self.lane_shift.val()) != 0)
            {
                self.saturations.next = self.saturations.val().replace_bit(i, true);
            }
            if self.lane_x.val().get_bit(39) {
                self.signs.next = self.signs.val().replace_bit(i, true);
            }
        }
        if self.load_2.val() {
            self.product.d.next = self.products.val();
            self.scale_2.d.next = self.scale_1.q.val();
            self.shift_2.d.next = self.shift_1.q.val();
            self.saturated.d.next = self.saturations.val();
            self.negative.d.next = self.signs.val();
            self.control_2.d.next = self.control_1.q.val();
        }

        // Stage 3: floor((p + addend) / 2^shift) as an i64, saturated to 34 bits.
        self.results.next = 0.into();
        for i in 0..LANES {
            self.lane_p.next = self.product.q.val().get_bits::<72>(i * 72);
            self.lane_scale.next = self.scale_2.q.val().get_bits::<32>(i * 32);
            self.lane_shift.next = self.shift_2.q.val().get_bits::<6>(i * 6);
            // The addends are masks, not sums (one adder in the stage): with
            // h = 2^(shift-1), h - 1 is `low_ones >> 1`, and for shift > 31
            // h + 2^30 sets bit 30 beside h, h + 2^30 - 2^31 is bits
            // 31..shift-2 and bit 30.
            self.power.next = 1.into();
            self.power.next = self.power.val() << self.lane_shift.val();
            self.low_ones.next = !(self.ones_64.val() << self.lane_shift.val());
            self.addend.next = self.power.val() >> 1;
            if self.control_2.q.val().round_mode == self.truncate.val() {
                self.addend.next = 0.into();
                if self.lane_p.val().get_bit(71) {
                    self.addend.next = self.low_ones.val();
                }
            }
            // Mode 3 (a pool's shift-only TFL rounding): halves away from
            // zero, one less for a negative product.
            if (self.control_2.q.val().round_mode == self.half_away.val())
                & self.lane_p.val().get_bit(71)
                & (self.lane_shift.val() != 0)
            {
                self.addend.next = self.low_ones.val() >> 1;
            }
            if (self.control_2.q.val().round_mode == self.tfl.val()) & (self.lane_shift.val() > 31)
            {
                self.addend.next = self.addend.val() | 0x4000_0000_u64;
                // p < -2^30: negative and not all ones from bit 30 up.
                if self.lane_p.val().get_bit(71) & !self.lane_p.val().get_bits::<42>(30).all() {
                    self.addend.next =
                        ((self.low_ones.val() >> 1) & self.above_31.val()) | 0x4000_0000_u64;
                }
            }
            self.v.next = bit_cast::<73, 72>(self.lane_p.val());
            if self.lane_p.val().get_bit(71) {
                self.v.next = self.v.val() | self.sign_73.val();
            }
            self.v.next = self.v.val() + bit_cast::<73, 64>(self.addend.val());
            // Arithmetic shift right: a logical one of the value or of its
            // complement.
            self.shifted.next = self.v.val();
            if self.v.val().get_bit(72) {
                self.shifted.next = self.v.val() ^ self.ones_73.val();
            }
            self.shifted.next = self.shifted.val() >> self.lane_shift.val();
            if self.v.val().get_bit(72) {
                self.shifted.next = self.shifted.val() ^ self.ones_73.val();
            }
            self.r.next = self.shifted.val().get_bits::<64>(0);
            self.r34.next = self.r.val().get_bits::<34>(0);
            if !(self.r.val().get_bits::<31>(33).all() | !self.r.val().get_bits::<31>(33).any()) {
                if self.r.val().get_bit(63) {
                    self.r34.next = 0x2_0000_0000_u64.into();
                } else {
                    self.r34.next = 0x1_ffff_ffff_u64.into();
                }
            }
            // The saturated left shift of the TFL rounding: 0 for a zero
            // scale, else at least 2^32 in magnitude with the sign of bit 63
            // of (-scale mod 2^32) << 32 (negative for 0 < scale <= 2^31), or
            // of (scale << 32) - k (negative for scale > 2^31).
            if self.saturated.q.val().get_bit(i) {
                if self.lane_scale.val() == 0 {
                    self.r34.next = 0.into();
                } else if self.negative.q.val().get_bit(i)
                    ^ (self.lane_scale.val() > 0x8000_0000_u64)
                {
                    self.r34.next = 0x2_0000_0000_u64.into();
                } else {
                    self.r34.next = 0x1_ffff_ffff_u64.into();
                }
            }
            self.results.next = self.results.val()
                | (bit_cast::<{ LANES * 34 }, 34>(self.r34.val()) << (i * 34).to_bits::<9>());
        }
        if self.load_3.val() {
            self.result.d.next = self.results.val();
            self.control_3.d.next = self.control_2.q.val();
        }
        self.scaled.next = self.result.q.val();
        self.scaled_control.next = self.control_3.q.val();
    }
}
