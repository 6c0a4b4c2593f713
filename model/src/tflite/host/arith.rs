//! TensorFlow Lite's quantised arithmetic (tensorflow/lite/kernels/internal
//! common.h, quantization_util.cc, kernel_util.cc) as its reference
//! kernels use it: multipliers from real scales, the two ways of applying
//! them, and the clamps of fused activations.

use super::{Element, OpDesc, Operand};
use crate::fixed::{rounding_divide_by_pot as rdbpot, srdhm};
use anyhow::{bail, Result};

/// gemmlowp's `SaturatingRoundingDoublingHighMul` on 32-bit values.
pub fn doubling_high_mul(a: i32, b: i32) -> i32 {
    srdhm(a.into(), b.into()) as i32
}

/// gemmlowp's `RoundingDivideByPOT` on a 32-bit value.
pub fn rounding_divide_by_pot(x: i32, exponent: i32) -> i32 {
    rdbpot(x.into(), exponent as u32) as i32
}

/// C's `frexp`: `x = m * 2^e` with `0.5 <= |m| < 1` (0 gives 0, 0).
pub fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    if exponent == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(x * f64::powi(2.0, 64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exponent - 1022)
}

/// TFLite's `QuantizeMultiplier`: `real = multiplier * 2^(shift - 31)`
/// with the multiplier in [2^30, 2^31), rounded half away from zero.
pub fn quantize_multiplier(real: f64) -> (i32, i32) {
    if real == 0.0 {
        return (0, 0);
    }
    let (q, mut shift) = frexp(real);
    let mut q_fixed = (q * (1u64 << 31) as f64).round() as i64;
    if q_fixed == 1 << 31 {
        q_fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        return (0, 0);
    }
    (q_fixed as i32, shift)
}

/// TFLite's `MultiplyByQuantizedMultiplier` for a 32-bit value: a left
/// shift (wrapping, as the C multiply does), the doubling high multiply,
/// then a rounding right shift.
pub fn multiply_by_quantized_multiplier(x: i32, multiplier: i32, shift: i32) -> i32 {
    let left = shift.max(0);
    let right = (-shift).max(0);
    rounding_divide_by_pot(
        doubling_high_mul(x.wrapping_mul(1 << left), multiplier),
        right,
    )
}

/// TFLite's `MultiplyByQuantizedMultiplier` for a 64-bit accumulator (the
/// 16-bit kernels): the multiplier reduced to 16 bits, one rounding shift.
pub fn multiply_by_quantized_multiplier_64(x: i64, multiplier: i32, shift: i32) -> i32 {
    let reduced = if multiplier < 0x7fff_0000 {
        i64::from((multiplier + (1 << 15)) >> 16)
    } else {
        0x7fff
    };
    let total_shift = 15 - shift;
    let round = 1i64 << (total_shift - 1);
    ((x.wrapping_mul(reduced) + round) >> total_shift) as i32
}

/// TFLite's `MultiplyByQuantizedMultiplierSmallerThanOneExp`.
pub fn multiply_smaller_than_one(x: i32, multiplier: i32, left_shift: i32) -> i32 {
    rounding_divide_by_pot(doubling_high_mul(x, multiplier), -left_shift)
}

/// TFLite's `MultiplyByQuantizedMultiplierGreaterThanOne`.
pub fn multiply_greater_than_one(x: i32, multiplier: i32, left_shift: i32) -> i32 {
    doubling_high_mul(x.wrapping_mul(1 << left_shift), multiplier)
}

/// C's conversion of a float to int32 as x86-64 performs it (`cvttss2si`):
/// toward zero, and `i32::MIN` for NaN and out-of-range values, which C
/// leaves undefined and TFLite Micro's host build computes so.
pub fn float_to_int32(f: f32) -> i32 {
    if f.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&f) {
        i32::MIN
    } else {
        f as i32
    }
}

/// A fused activation function (schema.fbs `ActivationFunctionType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    None,
    Relu,
    ReluN1To1,
    Relu6,
}

impl Activation {
    /// The activation `code` of `op`'s options; TANH and SIGN_BIT, which no
    /// TFLite Micro kernel fuses, are refused.
    pub fn of(op: &OpDesc, code: i8) -> Result<Activation> {
        Ok(match code {
            0 => Activation::None,
            1 => Activation::Relu,
            2 => Activation::ReluN1To1,
            3 => Activation::Relu6,
            other => bail!(
                "{} has fused activation {other}, which no TFLite Micro kernel fuses",
                op.name
            ),
        })
    }

    /// TFLite's `CalculateActivationRange` for float32.
    pub fn float_range(self) -> (f32, f32) {
        match self {
            Activation::None => (f32::MIN, f32::MAX),
            Activation::Relu => (0.0, f32::MAX),
            Activation::ReluN1To1 => (-1.0, 1.0),
            Activation::Relu6 => (0.0, 6.0),
        }
    }

    /// TFLite's `CalculateActivationRangeQuantized` for `output`: the
    /// type's range, narrowed by the activation's bounds quantised with
    /// the output's scale and zero point (`zp + round(f / scale)` in
    /// single precision).
    pub fn quantized_range(self, output: &Operand) -> Result<(i32, i32)> {
        let (qmin, qmax) = (output.element.min() as i32, output.element.max() as i32);
        let scale = output.scale()?;
        let zero_point = output.zero_point();
        let quantize = |f: f32| zero_point + (f / scale).round() as i32;
        Ok(match self {
            Activation::None => (qmin, qmax),
            Activation::Relu => (qmin.max(quantize(0.0)), qmax),
            Activation::ReluN1To1 => (qmin.max(quantize(-1.0)), qmax.min(quantize(1.0))),
            Activation::Relu6 => (qmin.max(quantize(0.0)), qmax.min(quantize(6.0))),
        })
    }
}

/// The integer range of an element type, as i32 (int8, uint8, int16).
pub fn type_range(e: Element) -> (i32, i32) {
    (e.min() as i32, e.max() as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantize_multiplier_matches_tflite() {
        assert_eq!(quantize_multiplier(0.5), (1 << 30, 0));
        assert_eq!(quantize_multiplier(1.0), (1 << 30, 1));
        assert_eq!(quantize_multiplier(0.75), (0x6000_0000, 0));
        // Rounds up to 2^31: halved, shift one more.
        assert_eq!(quantize_multiplier(1.0 - 1e-12), (1 << 30, 1));
        assert_eq!(quantize_multiplier(1e-12), (0, 0));
        assert_eq!(frexp(3.0), (0.75, 2));
        assert_eq!(frexp(f64::MIN_POSITIVE / 4.0), (0.5, -1023));
    }

    #[test]
    fn multiplies_round_as_tflite() {
        // 100 * 0.5: no rounding; the doubling high multiply takes 1.5 up
        // to 2 and -1.5 to -1.
        assert_eq!(multiply_by_quantized_multiplier(100, 1 << 30, 0), 50);
        assert_eq!(multiply_by_quantized_multiplier(3, 1 << 30, 0), 2);
        assert_eq!(multiply_by_quantized_multiplier(-3, 1 << 30, 0), -1);
        // With a right shift, RoundingDivideByPOT rounds half away from zero.
        assert_eq!(multiply_by_quantized_multiplier(-6, 1 << 30, -1), -2);
        assert_eq!(multiply_by_quantized_multiplier(3, 1 << 30, 2), 6);
        assert_eq!(multiply_by_quantized_multiplier_64(3, 1 << 30, 0), 2);
        assert_eq!(multiply_by_quantized_multiplier_64(-3, 1 << 30, 0), -1);
    }
}
