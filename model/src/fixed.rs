//! Fixed-point arithmetic of the output unit (TRM 3.3.7.1): scaling with the
//! three rounding modes of OFM_PRECISION\[15:14\].

use npu_spec::command::RoundMode;

/// TensorFlow Lite's `SaturatingRoundingDoublingHighMul` (gemmlowp
/// fixedpoint.h), widened to 64-bit operands so 40-bit accumulators fit:
/// `(a * b + nudge) / 2^31` with nudge = 2^30 for a non-negative product and
/// `1 - 2^30` otherwise, division truncating toward zero. The one saturating
/// case of the 32-bit original (a = b = i32::MIN) is kept.
pub fn srdhm(a: i64, b: i64) -> i64 {
    if a == i32::MIN as i64 && b == i32::MIN as i64 {
        return i32::MAX as i64;
    }
    let ab = a as i128 * b as i128;
    let nudge: i128 = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
    ((ab + nudge) / (1i128 << 31)) as i64
}

/// TensorFlow Lite's `RoundingDivideByPOT` (gemmlowp): arithmetic shift right
/// by `exponent`, rounding half away from zero.
pub fn rounding_divide_by_pot(x: i64, exponent: u32) -> i64 {
    if exponent == 0 {
        return x;
    }
    if exponent >= 63 {
        return 0;
    }
    let mask = (1i64 << exponent) - 1;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i64::from(x < 0);
    (x >> exponent) + i64::from(remainder > threshold)
}

/// `x * scale * 2^-shift` with the given rounding (TRM 4.6.4 OFM_PRECISION).
///
/// - `Tfl`: TensorFlow Lite's `MultiplyByQuantizedMultiplier`: with
///   `exponent = 31 - shift`, a left shift by `max(exponent, 0)`, then
///   `SaturatingRoundingDoublingHighMul`, then `RoundingDivideByPOT` by
///   `max(-exponent, 0)`; two roundings, exactly as TFLite.
/// - `Truncate`: one rounding toward zero.
/// - `Natural`: one rounding to nearest, halves toward +infinity.
pub fn scale(x: i64, scale: u32, shift: u32, mode: RoundMode) -> i64 {
    let scale = scale as i64;
    match mode {
        RoundMode::Tfl => {
            if shift >= 31 {
                rounding_divide_by_pot(srdhm(x, scale), shift - 31)
            } else {
                let left = 31 - shift;
                let shifted = (x as i128) << left;
                let sat = shifted.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
                srdhm(sat, scale)
            }
        }
        RoundMode::Truncate => {
            let p = x as i128 * scale as i128;
            let d = p / (1i128 << shift.min(100));
            d as i64
        }
        RoundMode::Natural => {
            let p = x as i128 * scale as i128;
            if shift == 0 {
                p as i64
            } else {
                ((p + (1i128 << (shift - 1))) >> shift) as i64
            }
        }
    }
}

/// Shift right by `shift` only (no multiplier), as the output unit does for
/// 32-bit results (TRM 4.6.5 NPU_SET_OFM_SCALE note).
pub fn shift_only(x: i64, shift: u32, mode: RoundMode) -> i64 {
    match mode {
        RoundMode::Tfl => rounding_divide_by_pot(x, shift),
        RoundMode::Truncate => {
            if shift >= 63 {
                0
            } else {
                x / (1i64 << shift)
            }
        }
        RoundMode::Natural => {
            if shift == 0 {
                x
            } else if shift >= 63 {
                0
            } else {
                (x + (1i64 << (shift - 1))) >> shift
            }
        }
    }
}

/// TFLite reference average-pool division: round half away from zero.
pub fn divide_round_away(sum: i64, count: i64) -> i64 {
    if sum >= 0 {
        (sum + count / 2) / count
    } else {
        (sum - count / 2) / count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Independent reference: the gemmlowp formulas written with i64 on i32
    // inputs, exactly as TFLite's reference kernels state them.
    fn tfl_mbqm(x: i32, m: i32, exp: i32) -> i32 {
        let left = exp.max(0);
        let right = (-exp).max(0);
        let a = x.wrapping_mul(1 << left);
        let overflow = a == i32::MIN && m == i32::MIN;
        let ab = a as i64 * m as i64;
        let nudge = if ab >= 0 {
            1i64 << 30
        } else {
            1 - (1i64 << 30)
        };
        let hi = if overflow {
            i32::MAX
        } else {
            ((ab + nudge) / (1i64 << 31)) as i32
        };
        let mask = (1i32 << right) - 1;
        let rem = hi & mask;
        let thr = (mask >> 1) + (hi < 0) as i32;
        (hi >> right) + (rem > thr) as i32
    }

    #[test]
    fn tfl_matches_reference_formula() {
        let mut s: u64 = 0x1234_5678;
        for _ in 0..100_000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = ((s >> 16) as i32) >> ((s >> 8) as u32 % 12);
            let m = (1 << 30) + ((s >> 40) as i32 & 0x3fff_ffff);
            let shift = 20 + (s % 30) as u32;
            let exp = 31 - shift as i32;
            if exp > 0 && (x as i64).abs() << exp > i32::MAX as i64 {
                continue;
            }
            assert_eq!(
                scale(x as i64, m as u32, shift, RoundMode::Tfl),
                tfl_mbqm(x, m, exp) as i64,
                "x={x} m={m} shift={shift}"
            );
        }
    }

    #[test]
    fn rounding_modes() {
        // 5 * 1 / 2 = 2.5; -5 / 2 = -2.5
        let half = 1u32 << 30; // 0.5 at shift 31
        assert_eq!(scale(5, half, 31, RoundMode::Natural), 3);
        assert_eq!(scale(-5, half, 31, RoundMode::Natural), -2);
        assert_eq!(scale(5, half, 31, RoundMode::Truncate), 2);
        assert_eq!(scale(-5, half, 31, RoundMode::Truncate), -2);
        assert_eq!(scale(5, half, 31, RoundMode::Tfl), 3);
        // gemmlowp SRDHM: nudge 1 - 2^30 for negative products, so -2.5 -> -2.
        assert_eq!(scale(-5, half, 31, RoundMode::Tfl), -2);
        assert_eq!(divide_round_away(-7, 2), -4);
        assert_eq!(divide_round_away(7, 2), 4);
        assert_eq!(rounding_divide_by_pot(-3, 1), -2);
    }
}
