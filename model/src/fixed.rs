//! Fixed-point arithmetic of the output unit (TRM 3.3.7): scaling with the
//! three rounding modes of OFM_PRECISION\[15:14\] (3.3.7.1) and the
//! table-based tanh and sigmoid (3.3.7.3).

use npu_arch::command::RoundMode;

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

/// The hardwired table of the tanh/sigmoid unit (TRM 3.3.7.3), kept in
/// `npu_arch` with the other hardware constants.
pub use npu_arch::tables::SIGMOID_TABLE;

/// Interpolates [`SIGMOID_TABLE`] at `a / 2^frac_bits` table steps (the
/// table's last entry holds beyond it): the result has `frac_bits` more
/// fraction bits than the table.
fn sigmoid_table_at(a: u64, frac_bits: u32, saturated: i64) -> i64 {
    let i = (a >> frac_bits) as usize;
    if i >= SIGMOID_TABLE.len() - 1 {
        return saturated;
    }
    let (lo, hi) = (SIGMOID_TABLE[i] as i64, SIGMOID_TABLE[i + 1] as i64);
    let frac = (a & ((1 << frac_bits) - 1)) as i64;
    (lo << frac_bits) + frac * (hi - lo)
}

/// Rounds `v`, which has `from` fraction bits, to nearest with `to` fraction
/// bits; ties go up, or down when `ties_up` is false (for negative inputs),
/// so that tanh is odd and sigmoid(-x) = 1 - sigmoid(x) exactly.
fn round_table(v: i64, from: u32, to: u32, ties_up: bool) -> i64 {
    let half = 1 << (from - to - 1);
    if ties_up {
        (v + half) >> (from - to)
    } else {
        (v + half - 1) >> (from - to)
    }
}

/// tanh of `x / 0x3000` with `frac_bits` fraction bits, as the output unit's
/// tanh activation computes it (`x` is the scaled value; Vela programs
/// OFM_SCALE so that one unit is 1/0x3000). It uses tanh(x) = 2 *
/// sigmoid(2x) - 1: the table is read at |x| / 256 with 8 interpolation bits
/// (0.23 fixed point) and rounded once to `frac_bits`. With 15 fraction bits
/// this is TensorFlow Lite's int16 TANH reference kernel after its input
/// scaling.
pub fn tanh_fixed(x: i64, frac_bits: u32) -> i64 {
    let t = sigmoid_table_at(x.unsigned_abs(), 8, 0xffff << 8) - (1 << 23);
    if x >= 0 {
        round_table(t, 23, frac_bits, true)
    } else {
        round_table(-t, 23, frac_bits, false)
    }
}

/// sigmoid of `x / 0x3000` with `frac_bits` fraction bits, as the output
/// unit's sigmoid activation computes it: the table is read at |x| / 512
/// with 9 interpolation bits (0.25 fixed point) and rounded once to
/// `frac_bits`; a negative input gives 1 - sigmoid(|x|). With 15 fraction
/// bits this is TensorFlow Lite's int16 LOGISTIC reference kernel after its
/// input scaling.
pub fn sigmoid_fixed(x: i64, frac_bits: u32) -> i64 {
    let s = sigmoid_table_at(x.unsigned_abs(), 9, 0x7fff << 10);
    if x >= 0 {
        round_table(s, 25, frac_bits, true)
    } else {
        round_table((1 << 25) - s, 25, frac_bits, false)
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

    #[test]
    fn sigmoid_table_is_sigmoid_of_i_over_24() {
        for (i, &v) in SIGMOID_TABLE.iter().enumerate() {
            let exact = 65536.0 / (1.0 + (-(i as f64) / 24.0).exp());
            assert!((v as f64 - exact).abs() < 1.2, "entry {i}: {v} vs {exact}");
        }
    }

    #[test]
    fn tanh_sigmoid_track_the_real_functions() {
        // x in units of 1/0x3000: the table covers |x| < 255 * 256 (tanh) and
        // 255 * 512 (sigmoid), about 10.6 in real terms.
        for x in -140_000i64..140_000 {
            let r = x as f64 / 12288.0;
            let t = (r.tanh() * 32768.0).clamp(-32768.0, 32767.0);
            let s = (32768.0 / (1.0 + (-r).exp())).min(32767.0);
            assert!((tanh_fixed(x, 15) as f64 - t).abs() < 1.5, "tanh {x}");
            assert!((sigmoid_fixed(x, 15) as f64 - s).abs() < 1.1, "sigmoid {x}");
        }
        assert_eq!(tanh_fixed(0, 15), 0);
        assert_eq!(sigmoid_fixed(0, 15), 16384);
        let big = 1 << 20;
        assert_eq!((tanh_fixed(big, 15), tanh_fixed(-big, 15)), (32767, -32767));
        assert_eq!(
            (sigmoid_fixed(big, 15), sigmoid_fixed(-big, 15)),
            (32767, 1)
        );
        assert_eq!((tanh_fixed(big, 7), tanh_fixed(-big, 7)), (128, -128));
        assert_eq!((sigmoid_fixed(big, 8), sigmoid_fixed(-big, 8)), (256, 0));
    }
}
