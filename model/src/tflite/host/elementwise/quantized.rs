//! The quantised elementwise operators as functions of one int8 or int16
//! value, with what TFLite's Prepare works out from the tensors' scales.

use super::super::arith::{
    float_to_int32, multiply_by_quantized_multiplier as mbqm, quantize_multiplier, type_range,
};
use super::super::fixedpoint::{self, inv_sqrt_quantized_multiplier_exp};
use super::{
    double_to_int32, gelu, int16_lut, int16_lut_lookup, int8_lut_value, quantization, Function,
};
use crate::fixed::{sigmoid_fixed, tanh_fixed};
use crate::tflite::host::{Element, OpDesc};
use anyhow::{bail, ensure, Result};
use Element::{I16, I8};

/// The function `name` computes of each element of `op`'s input.
pub(super) fn function(op: &OpDesc, name: &str) -> Result<Function> {
    let input = op.input(0)?;
    let element = input.element;
    // ABS takes an int16 tensor without quantisation: |x|, wrapping at
    // -32768 as the int16 store of C's abs does.
    if name == "ABS" && element == I16 && input.scales.is_empty() {
        return Ok(Box::new(|x| Some(i32::from((x.abs()) as i16))));
    }
    let q_in = quantization(input)?;
    let q_out = quantization(op.output(0)?)?;
    let params = Params {
        element,
        range: type_range(element),
        q_in,
        q_out,
    };
    Ok(match name {
        "ABS" => abs(params)?,
        "RSQRT" => rsqrt(params)?,
        "RELU" => relu(params, 0.0, None)?,
        "RELU_N1_TO_1" => relu(params, -1.0, Some(1.0))?,
        "RELU_0_TO_1" => relu(params, 0.0, Some(1.0))?,
        "RELU6" => relu6(params),
        "LEAKY_RELU" => leaky_relu(params, options!(op, LeakyReluOptions).alpha),
        "HARD_SWISH" => hard_swish(params)?,
        "ELU" => Box::new(move |x| {
            Some(int8_lut_value(x, q_in, q_out, |v| {
                if v < 0.0 {
                    v.exp() - 1.0
                } else {
                    v
                }
            }))
        }),
        "GELU" => {
            let transform = gelu::transform(options!(op, GeluOptions).approximate);
            match element {
                I8 => Box::new(move |x| Some(int8_lut_value(x, q_in, q_out, transform))),
                _ => {
                    let lut = int16_lut(q_in, q_out, transform);
                    Box::new(move |x| Some(int16_lut_lookup(x as i16, &lut).into()))
                }
            }
        }
        "LOGISTIC" | "TANH" if element == I8 => sigmoid_int8(params, name == "TANH")?,
        "LOGISTIC" | "TANH" => sigmoid_int16(params, name == "TANH")?,
        other => bail!("{other} has no {element} kernel"),
    })
}

/// What every quantised element function starts from.
#[derive(Clone, Copy)]
struct Params {
    element: Element,
    /// The element type's range.
    range: (i32, i32),
    /// Scale and zero point of the input and the output.
    q_in: (f32, i32),
    q_out: (f32, i32),
}

impl Params {
    fn clamp(&self, v: i32) -> i32 {
        v.clamp(self.range.0, self.range.1)
    }

    /// TFLite Micro's int16 kernels take symmetric tensors only.
    fn require_int16_zero_points(&self, op: &str) -> Result<()> {
        if self.element == I16 {
            ensure!(
                self.q_in.1 == 0 && self.q_out.1 == 0,
                "int16 {op} needs zero points 0, not {} and {}",
                self.q_in.1,
                self.q_out.1
            );
        }
        Ok(())
    }
}

/// ABS (elementwise.cc `AbsEvalQuantized`): |x - zp_in| requantised when
/// the scales differ.
fn abs(p: Params) -> Result<Function> {
    p.require_int16_zero_points("ABS")?;
    let ((scale_in, zp_in), (scale_out, zp_out)) = (p.q_in, p.q_out);
    // The ratio is taken in single precision.
    let rescale = scale_in != scale_out;
    let (multiplier, shift) = quantize_multiplier(f64::from(scale_in / scale_out));
    Ok(Box::new(move |x| {
        let value = (x - zp_in).abs();
        let scaled = if rescale {
            mbqm(value, multiplier, shift)
        } else {
            value
        };
        Some(p.clamp(scaled + zp_out))
    }))
}

/// RSQRT (elementwise.cc `RsqrtEvalQuantized`): TFLite's fixed-point
/// 1/sqrt of `x - zp_in` shifted up by 2^20, then rescaled by 1 /
/// (sqrt(scale_in) * scale_out); 0 gives the type's maximum, and values
/// below the zero point fail.
fn rsqrt(p: Params) -> Result<Function> {
    p.require_int16_zero_points("RSQRT")?;
    let ((scale_in, zp_in), (scale_out, zp_out)) = (p.q_in, p.q_out);
    let (multiplier, shift) = quantize_multiplier(1.0 / f64::from(scale_in.sqrt() * scale_out));
    const KEEP_INTEGER: i32 = 20;
    Ok(Box::new(move |x| {
        if x < zp_in {
            return None;
        }
        let value = x - zp_in;
        if value == 0 {
            return Some(p.range.1);
        }
        let (inv_sqrt, inv_shift) = inv_sqrt_quantized_multiplier_exp(value, -1);
        let data = mbqm(1, inv_sqrt, inv_shift + KEEP_INTEGER);
        Some(p.clamp(mbqm(data, multiplier, shift - KEEP_INTEGER) + zp_out))
    }))
}

/// RELU, RELU_N1_TO_1 and RELU_0_TO_1 (activations_common.cc
/// `ReluQuantized`, LiteRT's `QuantizedReluX`): requantise, then clamp to
/// `[low, high]` quantised with the output's scale.
fn relu(p: Params, low: f32, high: Option<f32>) -> Result<Function> {
    p.require_int16_zero_points("RELU")?;
    let ((scale_in, zp_in), (scale_out, zp_out)) = (p.q_in, p.q_out);
    let (multiplier, shift) = quantize_multiplier(f64::from(scale_in / scale_out));
    let quantize = |v: f32| zp_out.wrapping_add(float_to_int32((v / scale_out).round()));
    let min = p.range.0.max(quantize(low));
    let max = high.map_or(p.range.1, |h| p.range.1.min(quantize(h)));
    Ok(Box::new(move |x| {
        let v = zp_out.wrapping_add(mbqm(x - zp_in, multiplier, shift));
        Some(v.max(min).min(max))
    }))
}

/// RELU6 (activations.cc `Relu6Quantized`): the input clamped between its
/// own zero point and 6 on its own scale; the output's quantisation is not
/// read.
fn relu6(p: Params) -> Function {
    let (scale, zero) = p.q_in;
    // micro_utils.h FloatToQuantizedType: round(6 / scale) + zp in double.
    let six = p.clamp(double_to_int32(
        f64::from((6.0 / scale).round()) + f64::from(zero),
    ));
    Box::new(move |x| {
        Some(if x > six {
            six
        } else if x < zero {
            zero
        } else {
            x
        })
    })
}

/// LEAKY_RELU (reference_ops::QuantizeLeakyRelu): one multiplier for
/// values at or above the zero point, another (alpha's, its sign taken
/// apart) below it.
fn leaky_relu(p: Params, alpha: f32) -> Function {
    let ((scale_in, zp_in), (scale_out, zp_out)) = (p.q_in, p.q_out);
    let (alpha_multiplier, alpha_shift) =
        quantize_multiplier(f64::from(scale_in * alpha / scale_out));
    let (identity_multiplier, identity_shift) =
        quantize_multiplier(f64::from(scale_in / scale_out));
    let negative_alpha = alpha_multiplier < 0;
    let alpha_magnitude = alpha_multiplier.wrapping_abs();
    Box::new(move |x| {
        let value = x - zp_in;
        let scaled = if value >= 0 {
            mbqm(value, identity_multiplier, identity_shift)
        } else {
            let s = mbqm(value, alpha_magnitude, alpha_shift);
            if negative_alpha {
                s.wrapping_neg()
            } else {
                s
            }
        };
        Some(p.clamp(zp_out.wrapping_add(scaled)))
    })
}

/// HARD_SWISH (reference_ops::HardSwish, hard_swish_common.cc): x times a
/// "relu-ish" factor in [0, 1], all in int16 fixed point with 16-bit
/// multipliers; the last product truncates instead of rounding.
fn hard_swish(p: Params) -> Result<Function> {
    let ((scale_in, zp_in), (scale_out, zp_out)) = (p.q_in, p.q_out);
    let hires_input_scale = (1.0f32 / 128.0) * scale_in;
    let reluish_scale = 3.0f32 / 32768.0;
    let (output_multiplier, output_exponent) =
        quantize_multiplier(f64::from(hires_input_scale / scale_out));
    ensure!(
        output_exponent <= 0,
        "HARD_SWISH output scale {scale_out} is below 1/64 of the input's {scale_in}, which \
         TFLite Micro refuses"
    );
    let (reluish_multiplier, reluish_exponent) =
        quantize_multiplier(f64::from(hires_input_scale / reluish_scale));
    ensure!(
        (-31..=31).contains(&reluish_exponent),
        "HARD_SWISH input scale {scale_in} is out of the range TFLite's shifts take"
    );
    let output_multiplier = downscale_to_int16(output_multiplier);
    let reluish_multiplier = downscale_to_int16(reluish_multiplier);
    Ok(Box::new(move |x| {
        let input_value = (x - zp_in) as i16;
        let on_hires_input_scale = input_value.wrapping_mul(1 << 7);
        let on_preshift_output_scale = srdhm16(on_hires_input_scale, output_multiplier);
        let mut reluish = on_hires_input_scale;
        if reluish_exponent > 0 {
            reluish = saturating_left_shift16(reluish, reluish_exponent - 1);
        }
        reluish = srdhm16(reluish, reluish_multiplier);
        if reluish_exponent > 0 {
            reluish = saturating_left_shift16(reluish, 1);
        }
        if reluish_exponent < 0 {
            reluish = rdbpot16(reluish, -reluish_exponent);
        }
        // From [-1, 1] to [0, 1].
        let reluish = ((i32::from(reluish) + (1 << 15)) >> 1) as i16;
        let preshift_output = sdhm16(reluish, on_preshift_output_scale);
        // The zero point is added in int16, wrapping as the C++ does.
        let out = rdbpot16(preshift_output, -output_exponent).wrapping_add(zp_out as i16);
        Some(p.clamp(out.into()))
    }))
}

/// TFLite's `DownScaleInt32ToInt16Multiplier`: the high 16 bits, rounded.
fn downscale_to_int16(multiplier: i32) -> i16 {
    if multiplier >= i32::MAX - (1 << 15) {
        i16::MAX
    } else {
        ((multiplier + (1 << 15)) >> 16) as i16
    }
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul` on int16.
fn srdhm16(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    let ab = i32::from(a) * i32::from(b);
    let nudge = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    ((ab + nudge) / (1 << 15)) as i16
}

/// hard_swish.h `SaturatingDoublingHighMul`: as [`srdhm16`], truncating.
fn sdhm16(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    ((i32::from(a) * i32::from(b)) / (1 << 15)) as i16
}

/// hard_swish.h `SaturatingLeftShift`.
fn saturating_left_shift16(value: i16, amount: i32) -> i16 {
    (i64::from(value) << amount).clamp(i16::MIN.into(), i16::MAX.into()) as i16
}

/// gemmlowp's `RoundingDivideByPOT` on int16, its mask truncated to 16
/// bits as the C++ truncates it.
fn rdbpot16(x: i16, exponent: i32) -> i16 {
    let mask = ((1i64 << exponent) - 1) as i16;
    let remainder = x & mask;
    let threshold = (mask >> 1).wrapping_add(i16::from(x < 0));
    ((i32::from(x) >> exponent) as i16).wrapping_add(i16::from(remainder > threshold))
}

/// LOGISTIC and TANH on int8 (reference_integer_ops::Logistic, Tanh):
/// gemmlowp's fixed-point function of the input rescaled to Q4.27, with
/// inputs beyond the radius where it saturates taken to the ends. LOGISTIC
/// needs the output zero point -128; TANH does not read the output's
/// quantisation at all.
fn sigmoid_int8(p: Params, is_tanh: bool) -> Result<Function> {
    const INPUT_INTEGER_BITS: u32 = 4;
    let ((scale_in, zp_in), (_, zp_out)) = (p.q_in, p.q_out);
    ensure!(
        is_tanh || zp_out == -128,
        "int8 LOGISTIC output zero point is {zp_out}; TFLite Micro takes -128"
    );
    // logistic_common.cc, tanh.cc: the multiplier's own frexp and rounding.
    let (q, shift) =
        super::super::arith::frexp(f64::from(scale_in) * f64::from(1 << (31 - INPUT_INTEGER_BITS)));
    ensure!(
        (0..=62).contains(&shift),
        "int8 input scale {scale_in} is outside the range TFLite's input radius takes"
    );
    let multiplier = double_to_int32((q * 2f64.powi(31)).round());
    let radius = input_radius(INPUT_INTEGER_BITS, shift);
    Ok(Box::new(move |x| {
        let input = x - zp_in;
        if input <= -radius {
            return Some(-128);
        }
        if input >= radius {
            return Some(127);
        }
        let in_q4 = mbqm(input, multiplier, shift);
        Some(if is_tanh {
            let out = fixedpoint::tanh(in_q4, INPUT_INTEGER_BITS);
            fixedpoint::rounding_divide_by_pot(out, 24).clamp(-128, 127)
        } else {
            let out = fixedpoint::logistic(in_q4, INPUT_INTEGER_BITS);
            (fixedpoint::rounding_divide_by_pot(out, 23) - 128).clamp(-128, 127)
        })
    }))
}

/// TFLite's `CalculateInputRadius` (quantization_util.cc) for 31 signed
/// bits: the largest input whose rescaled value stays below the range's
/// top.
pub(super) fn input_radius(integer_bits: u32, left_shift: i32) -> i32 {
    let max = f64::from((1 << integer_bits) - 1) * 2f64.powi(31 - integer_bits as i32)
        / 2f64.powi(left_shift);
    max.floor() as i32
}

/// How TFLite's int16 LOGISTIC and TANH scale their input onto the sigmoid
/// table's 1/4096 * 1/3 steps (reference_integer_ops::Logistic, Tanh):
/// `(x * multiplier + round) >> shift` in int32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SigmoidInput {
    multiplier: i32,
    shift: u32,
}

impl SigmoidInput {
    /// The scaling from the kernels' `input_multiplier` and
    /// `input_left_shift`; a zero multiplier is the power-of-two case,
    /// `3 << input_left_shift`.
    pub fn new(input_multiplier: i32, input_left_shift: i32) -> SigmoidInput {
        if input_multiplier == 0 {
            SigmoidInput {
                multiplier: 3 << input_left_shift,
                shift: 0,
            }
        } else {
            SigmoidInput {
                multiplier: input_multiplier,
                shift: input_left_shift as u32,
            }
        }
    }

    fn apply(self, x: i16) -> i32 {
        let round = if self.shift > 0 {
            1 << (self.shift - 1)
        } else {
            0
        };
        i32::from(x)
            .wrapping_mul(self.multiplier)
            .wrapping_add(round)
            >> self.shift
    }
}

/// TFLite Micro's int16 LOGISTIC of one element (Q0.15 out), which its
/// LSTM also uses for the gates.
pub fn logistic_int16(x: i16, input: SigmoidInput) -> i16 {
    sigmoid_fixed(input.apply(x).into(), 15) as i16
}

/// TFLite Micro's int16 TANH of one element (Q0.15 out), which its LSTM
/// also uses.
pub fn tanh_int16(x: i16, input: SigmoidInput) -> i16 {
    tanh_fixed(input.apply(x).into(), 15) as i16
}

/// LOGISTIC and TANH on int16 (logistic_common.cc, tanh.cc Prepare): zero
/// points 0, the output scale 2^-15, and the input either on a power-of-two
/// scale the table takes directly or rescaled by a 15-bit multiplier.
fn sigmoid_int16(p: Params, is_tanh: bool) -> Result<Function> {
    p.require_int16_zero_points(if is_tanh { "TANH" } else { "LOGISTIC" })?;
    let ((scale_in, _), (scale_out, _)) = (p.q_in, p.q_out);
    let (log2_in, pot) = checked_log2(scale_in);
    let pot_shift = 12 + log2_in;
    let input = if pot && (pot_shift == 0 || (is_tanh && pot_shift == 1)) {
        SigmoidInput::new(0, pot_shift)
    } else {
        let mut multiplier = f64::from(scale_in) * 4096.0 * 3.0;
        let mut shift = 0;
        while multiplier <= 32767.0 / 2.0 && shift <= 30 {
            shift += 1;
            multiplier *= 2.0;
        }
        ensure!(
            multiplier <= 32767.0,
            "int16 input scale {scale_in} is above the range TFLite's 15-bit multiplier takes"
        );
        SigmoidInput::new(multiplier as i32, shift)
    };
    let (log2_out, pot_out) = checked_log2(scale_out);
    ensure!(
        pot_out && log2_out == -15,
        "int16 output scale is {scale_out}; TFLite Micro takes 2^-15"
    );
    Ok(if is_tanh {
        Box::new(move |x| Some(tanh_int16(x as i16, input).into()))
    } else {
        Box::new(move |x| Some(logistic_int16(x as i16, input).into()))
    })
}

/// TFLite's `CheckedLog2`: log2(x) rounded, and whether x is within 1e-3
/// of that power of two (in single precision, through ln).
pub(in crate::tflite::host) fn checked_log2(x: f32) -> (i32, bool) {
    let x_log2 = x.ln() * (1.0 / 2f32.ln());
    let rounded = x_log2.round();
    (rounded as i32, (x_log2 - rounded).abs() < 1e-3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int16_helpers_follow_gemmlowp() {
        assert_eq!(srdhm16(i16::MIN, i16::MIN), i16::MAX);
        assert_eq!(srdhm16(16384, 3), 2);
        assert_eq!(srdhm16(-16384, 3), -1);
        assert_eq!(sdhm16(16384, 3), 1);
        assert_eq!(sdhm16(-16384, 3), -1);
        assert_eq!(rdbpot16(5, 1), 3);
        assert_eq!(rdbpot16(-5, 1), -3);
        assert_eq!(rdbpot16(-6, 2), -2);
        assert_eq!(saturating_left_shift16(20000, 1), i16::MAX);
        assert_eq!(downscale_to_int16(i32::MAX), i16::MAX);
        assert_eq!(downscale_to_int16(1 << 30), 1 << 14);
    }

    #[test]
    fn int16_sigmoids_on_a_power_of_two_scale() {
        // Scale 2^-12: the table takes the input times 3 directly.
        let input = SigmoidInput::new(0, 0);
        assert_eq!(logistic_int16(0, input), 16384);
        assert_eq!(tanh_int16(0, input), 0);
        // The ends are +-8: sigmoid(8) = 0.99966 and sigmoid(-8) = 0.00034,
        // tanh(1) = 0.76159 and sigmoid(1) = 0.73106, in Q0.15.
        assert!((i32::from(logistic_int16(i16::MAX, input)) - 32757).abs() <= 2);
        assert!((i32::from(logistic_int16(i16::MIN, input)) - 11).abs() <= 2);
        assert!(tanh_int16(i16::MIN, input) <= -32766);
        assert!((i32::from(tanh_int16(4096, input)) - 24956).abs() <= 2);
        assert!((i32::from(logistic_int16(4096, input)) - 23955).abs() <= 2);
    }

    #[test]
    fn radius_and_log2_as_tflite() {
        assert_eq!(input_radius(4, 0), 15 << 27);
        assert_eq!(input_radius(4, 31), 0);
        assert_eq!(input_radius(5, 20), (31 << 26) >> 20);
        assert_eq!(checked_log2(1.0 / 32768.0), (-15, true));
        assert!(!checked_log2(0.0003).1);
    }
}
