//! gemmlowp's fixed-point arithmetic (fixedpoint.h), and the fixed-point
//! helpers TensorFlow Lite builds on it (kernels/internal/common.h), as the
//! reference kernels use them on 32-bit values.
//!
//! A value is gemmlowp's `FixedPoint<int32_t, I>`, held as its raw `i32`:
//! Q`I`.`31-I`, so `1 << (31 - I)` is one. Functions take the integer bits
//! `I` where gemmlowp's templates do. As in C, `+` and `-` on raw values
//! wrap (gemmlowp's `Add`/`Sub` are plain integer operations), the product
//! of a Q`a` and a Q`b` value is the Q`a+b` value
//! [`SaturatingRoundingDoublingHighMul`](doubling_high_mul) gives, and
//! constants are gemmlowp's raw 32-bit constants.

pub use super::arith::{doubling_high_mul, rounding_divide_by_pot};

/// `FixedPoint<int32_t, I>::One()`: the largest value when there are no
/// integer bits.
pub const fn one(integer_bits: u32) -> i32 {
    if integer_bits == 0 {
        i32::MAX
    } else {
        1 << (31 - integer_bits)
    }
}

/// gemmlowp's `SaturatingRoundingMultiplyByPOT` (and TFLite's `...Param`
/// variant): `x * 2^exponent`, saturating to the type's range for a
/// positive exponent, rounding half away from zero for a negative one.
pub fn multiply_by_pot(x: i32, exponent: i32) -> i32 {
    if exponent >= 0 {
        let wide = i64::from(x) << exponent.min(32);
        wide.clamp(i32::MIN.into(), i32::MAX.into()) as i32
    } else {
        rounding_divide_by_pot(x, -exponent)
    }
}

/// gemmlowp's `Rescale`: a Q`from` value as a Q`to` value.
pub fn rescale(x: i32, from: u32, to: u32) -> i32 {
    multiply_by_pot(x, from as i32 - to as i32)
}

/// gemmlowp's `RoundingHalfSum`: `(a + b) / 2`, rounded half away from zero.
pub fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = i64::from(a) + i64::from(b);
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i32
}

/// TFLite's `SaturatingAddNonGemmlowp` on 32 bits.
fn saturating_add(a: i32, b: i32) -> i32 {
    a.saturating_add(b)
}

/// exp(a) for a Q0 `a` in [-1/4, 0), by a Taylor expansion around -1/8.
fn exp_on_interval_between_negative_one_quarter_and_0_excl(a: i32) -> i32 {
    const EXP_MINUS_ONE_EIGHTH: i32 = 1_895_147_668;
    const ONE_THIRD: i32 = 715_827_883;
    let x = a.wrapping_add(1 << 28);
    let x2 = doubling_high_mul(x, x);
    let x3 = doubling_high_mul(x2, x);
    let x4 = doubling_high_mul(x2, x2);
    let x4_over_4 = multiply_by_pot(x4, -2);
    let poly = multiply_by_pot(
        doubling_high_mul(x4_over_4.wrapping_add(x3), ONE_THIRD).wrapping_add(x2),
        -1,
    );
    EXP_MINUS_ONE_EIGHTH.wrapping_add(doubling_high_mul(
        EXP_MINUS_ONE_EIGHTH,
        x.wrapping_add(poly),
    ))
}

/// gemmlowp's `exp_on_negative_values`: exp(a) as Q0 for a Q`integer_bits`
/// `a <= 0`: exp of `a` modulo 1/4 by polynomial, then one multiply by
/// exp(-2^k) for each set bit k of the rest.
pub fn exp_on_negative_values(a: i32, integer_bits: u32) -> i32 {
    let fractional_bits = 31 - integer_bits as i32;
    let one_quarter = 1i32 << (fractional_bits - 2);
    let a_mod_quarter_minus_one_quarter = (a & (one_quarter - 1)).wrapping_sub(one_quarter);
    let mut result = exp_on_interval_between_negative_one_quarter_and_0_excl(rescale(
        a_mod_quarter_minus_one_quarter,
        integer_bits,
        0,
    ));
    let remainder = a_mod_quarter_minus_one_quarter.wrapping_sub(a);
    // exp(-2^k) for k = -2..=4, as Q0.
    const BARREL: [(i32, i32); 7] = [
        (-2, 1_672_461_947),
        (-1, 1_302_514_674),
        (0, 790_015_084),
        (1, 290_630_308),
        (2, 39_332_535),
        (3, 720_401),
        (4, 242),
    ];
    for (exponent, multiplier) in BARREL {
        if integer_bits as i32 > exponent && remainder & (1 << (fractional_bits + exponent)) != 0 {
            result = doubling_high_mul(result, multiplier);
        }
    }
    if integer_bits > 5 && a < -(1 << (36 - integer_bits)) {
        result = 0;
    }
    if a == 0 {
        result = one(0);
    }
    result
}

/// The Newton-Raphson iterations shared by gemmlowp's
/// `one_over_one_plus_x_for_x_in_0_1` and
/// `one_minus_x_over_one_plus_x_for_x_in_0_1`: 1 / ((1 + a) / 2) as Q2.
fn reciprocal_of_half_denominator(a: i32) -> (i32, i32) {
    const FORTY_EIGHT_SEVENTEENTHS: i32 = 1_515_870_810;
    const MINUS_THIRTY_TWO_SEVENTEENTHS: i32 = -1_010_580_540;
    let half_denominator = rounding_half_sum(a, one(0));
    let mut x = FORTY_EIGHT_SEVENTEENTHS.wrapping_add(doubling_high_mul(
        half_denominator,
        MINUS_THIRTY_TWO_SEVENTEENTHS,
    ));
    for _ in 0..3 {
        let one_minus_half_denominator_times_x =
            one(2).wrapping_sub(doubling_high_mul(half_denominator, x));
        x = x.wrapping_add(rescale(
            doubling_high_mul(x, one_minus_half_denominator_times_x),
            4,
            2,
        ));
    }
    (half_denominator, x)
}

/// gemmlowp's `one_over_one_plus_x_for_x_in_0_1`: 1 / (1 + a), Q0 in and out.
pub fn one_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    let (_, x) = reciprocal_of_half_denominator(a);
    // ExactMulByPot<-1> makes the Q2 value Q1 without changing it.
    rescale(x, 1, 0)
}

/// gemmlowp's `one_minus_x_over_one_plus_x_for_x_in_0_1`: (1 - a) / (1 + a).
fn one_minus_x_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    let (_, x) = reciprocal_of_half_denominator(a);
    rescale(x.wrapping_sub(one(2)), 2, 0)
}

/// gemmlowp's `tanh` of a Q`integer_bits` value, as Q0.
pub fn tanh(a: i32, integer_bits: u32) -> i32 {
    let negative = a < 0;
    let n = if negative { a } else { a.wrapping_neg() };
    // ExactMulByPot<1>: the same raw value read with one more integer bit.
    let t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(n, integer_bits + 1));
    match a {
        0 => 0,
        _ if negative => t.wrapping_neg(),
        _ => t,
    }
}

/// gemmlowp's `logistic` of a Q`integer_bits` value, as Q0.
pub fn logistic(a: i32, integer_bits: u32) -> i32 {
    let positive = a > 0;
    let abs = if positive { a } else { a.wrapping_neg() };
    let if_positive =
        one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(abs.wrapping_neg(), integer_bits));
    match a {
        0 => 1 << 30,
        _ if positive => if_positive,
        _ => one(0).wrapping_sub(if_positive),
    }
}

/// TFLite's `log_x_for_x_greater_than_or_equal_to_1_impl` (common.h): ln(x)
/// as Q`output_bits` for a Q`input_bits` `x >= 1`, from the power of two
/// of `x` and a rational approximation of the rest.
pub fn log_x_for_x_greater_than_or_equal_to_1(x: i32, input_bits: u32, output_bits: u32) -> i32 {
    const LOG_2: i32 = 1_488_522_236;
    const SQRT_SQRT_HALF: i32 = 1_805_811_301;
    const SQRT_HALF: i32 = 1_518_500_250;
    const ONE_QUARTER: i32 = 536_870_912;
    const ALPHA_N: i32 = 117_049_297;
    const ALPHA_D: i32 = 127_690_142;
    const ALPHA_I: i32 = 1_057_819_769;
    const ALPHA_F: i32 = 638_450_708;
    // One more integer bit than the output, so that z_pow_2_adj * log_2
    // may saturate without spoiling the sum.
    let accum_bits = output_bits + 1;
    let shifted_quarter = rescale(ONE_QUARTER, 0, accum_bits);
    let integer_part = |bits: i32| multiply_by_pot(bits, 31 - accum_bits as i32);

    let z_a_headroom_plus_1 = (x as u32).leading_zeros() as i32;
    let r_a_tmp = multiply_by_pot(x, z_a_headroom_plus_1 - 1);
    let r_a = multiply_by_pot(doubling_high_mul(r_a_tmp, SQRT_HALF), 1);
    let z_a_pow_2_adj = saturating_add(
        integer_part(input_bits as i32 - z_a_headroom_plus_1),
        shifted_quarter,
    );

    let z_b = doubling_high_mul(x, SQRT_HALF);
    let z_b_headroom = (z_b as u32).leading_zeros() as i32 - 1;
    let r_b = multiply_by_pot(x, z_b_headroom);
    let z_b_pow_2_adj =
        integer_part(input_bits as i32 - z_b_headroom).saturating_sub(shifted_quarter);

    let r = r_a.min(r_b);
    let z_pow_2_adj = z_a_pow_2_adj.max(z_b_pow_2_adj);

    let p = rounding_half_sum(r, SQRT_SQRT_HALF);
    let q = r.wrapping_sub(SQRT_SQRT_HALF);
    let q = q.wrapping_add(q);
    let common_sq = doubling_high_mul(q, q);
    let num = doubling_high_mul(q, r)
        .wrapping_add(doubling_high_mul(doubling_high_mul(q, common_sq), ALPHA_N));
    let denom_minus_one = doubling_high_mul(
        p,
        ALPHA_I
            .wrapping_add(q)
            .wrapping_add(doubling_high_mul(ALPHA_D, common_sq)),
    )
    .wrapping_add(doubling_high_mul(ALPHA_F, q));
    let recip_denom = one_over_one_plus_x_for_x_in_0_1(denom_minus_one);
    let num_scaled = rescale(num, 0, accum_bits);
    rescale(
        doubling_high_mul(z_pow_2_adj, LOG_2)
            .wrapping_add(doubling_high_mul(num_scaled, recip_denom)),
        accum_bits,
        output_bits,
    )
}

/// TFLite's `GetReciprocal` (common.h) of a positive Q`integer_bits` `x`:
/// 1 / x as a Q0 value and the power of two it was scaled by (the bits of
/// `x` above one).
pub fn reciprocal(x: i32, integer_bits: u32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros();
    let bits_over_unit = integer_bits as i32 - headroom_plus_one as i32;
    let shifted_minus_one = ((x as u32) << headroom_plus_one).wrapping_sub(1 << 31) as i32;
    (
        one_over_one_plus_x_for_x_in_0_1(shifted_minus_one),
        bits_over_unit,
    )
}

/// TFLite's `GetInvSqrtQuantizedMultiplierExp` (common.h) for an integer
/// `input >= 0`: 1 / sqrt(input) as a multiplier and shift (left shifts
/// positive, after multiplying the shift by `reverse_shift`), by five
/// Newton-Raphson iterations in Q3.
pub fn inv_sqrt_quantized_multiplier_exp(input: i32, reverse_shift: i32) -> (i32, i32) {
    if input <= 1 {
        // 0 is taken as 1, as TFLite does.
        return (i32::MAX, 0);
    }
    let mut input = input;
    let mut shift = 11;
    while input >= 1 << 29 {
        input /= 4;
        shift += 1;
    }
    let left_shift_bit_pairs = ((input as u32).leading_zeros() as i32 - 1) / 2 - 1;
    shift -= left_shift_bit_pairs;
    input <<= 2 * left_shift_bit_pairs;
    const THREE_HALVES: i32 = (1 << 28) + (1 << 27);
    const HALF_SQRT_2: i32 = 1_518_500_250;
    let half_input = multiply_by_pot(input >> 1, -1);
    let mut x = one(3);
    for _ in 0..5 {
        let x3 = rescale(doubling_high_mul(doubling_high_mul(x, x), x), 9, 3);
        x = rescale(
            doubling_high_mul(THREE_HALVES, x).wrapping_sub(doubling_high_mul(half_input, x3)),
            6,
            3,
        );
    }
    let mut multiplier = doubling_high_mul(x, HALF_SQRT_2);
    if shift < 0 {
        multiplier = multiplier.wrapping_shl(-shift as u32);
        shift = 0;
    }
    (multiplier, shift * reverse_shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn real(x: i32, integer_bits: u32) -> f64 {
        f64::from(x) / f64::from(1u32 << (31 - integer_bits))
    }

    fn raw(v: f64, integer_bits: u32) -> i32 {
        (v * f64::from(1u32 << (31 - integer_bits))).round() as i32
    }

    #[test]
    fn rounding_half_sum_rounds_away_from_zero() {
        assert_eq!(rounding_half_sum(1, 2), 2);
        assert_eq!(rounding_half_sum(-1, -2), -2);
        assert_eq!(rounding_half_sum(i32::MAX, i32::MAX), i32::MAX);
        assert_eq!(rounding_half_sum(0, 0), 0);
        assert_eq!(rounding_half_sum(-1, 0), -1);
    }

    #[test]
    fn multiply_by_pot_saturates_and_rounds() {
        assert_eq!(multiply_by_pot(1 << 29, 2), i32::MAX);
        assert_eq!(multiply_by_pot(-(1 << 29), 2), i32::MIN);
        assert_eq!(multiply_by_pot(-(1 << 29) - 1, 2), i32::MIN);
        assert_eq!(multiply_by_pot(5, -1), 3);
        assert_eq!(multiply_by_pot(-5, -1), -3);
    }

    #[test]
    fn functions_approximate_their_real_counterparts() {
        for v in [-7.9, -3.0, -1.0, -0.3, -0.01] {
            let e = real(exp_on_negative_values(raw(v, 5), 5), 0);
            assert!((e - v.exp()).abs() < 1e-6, "exp({v}) = {e}");
        }
        assert_eq!(exp_on_negative_values(0, 5), i32::MAX);
        for v in [-7.0, -0.5, 0.25, 3.0] {
            assert!((real(tanh(raw(v, 4), 4), 0) - f64::tanh(v)).abs() < 1e-6);
            let s = 1.0 / (1.0 + f64::exp(-v));
            assert!((real(logistic(raw(v, 4), 4), 0) - s).abs() < 1e-6);
        }
        assert_eq!(logistic(0, 4), 1 << 30);
        for v in [1.0, 1.5, 7.0, 100.0, 4000.0] {
            let l = real(log_x_for_x_greater_than_or_equal_to_1(raw(v, 12), 12, 5), 5);
            assert!((l - f64::ln(v)).abs() < 1e-6, "ln({v}) = {l}");
        }
        let (r, bits) = reciprocal(raw(3.0, 12), 12);
        // 3 = 1.5 * 2^1: 1 / 1.5 with one bit over the unit.
        assert_eq!(bits, 1);
        assert!((real(r, 0) / 2.0 - 1.0 / 3.0).abs() < 1e-8);
        let (m, shift) = inv_sqrt_quantized_multiplier_exp(100, -1);
        let v = f64::from(m) * 2f64.powi(shift - 31);
        assert!((v - 0.1).abs() < 1e-6, "{m} {shift}");
    }
}
