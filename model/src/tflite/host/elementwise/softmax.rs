//! SOFTMAX and LOG_SOFTMAX over the last axis (softmax_common.cc,
//! log_softmax.cc, reference/softmax.h, reference/log_softmax.h).

use super::super::arith::{
    multiply_by_quantized_multiplier as mbqm, multiply_greater_than_one, quantize_multiplier,
};
use super::super::fixedpoint::{
    doubling_high_mul, exp_on_negative_values, log_x_for_x_greater_than_or_equal_to_1, reciprocal,
    rescale, rounding_divide_by_pot,
};
use super::quantized::input_radius;
use super::{cpp_max, int16_lut, int16_lut_lookup, quantization, Int16Lut, Kernel};
use crate::tflite::host::{kernel, Element, OpDesc};
use anyhow::{ensure, Result};
use std::sync::Arc;
use Element::{F32, I16, I8};

/// Integer bits of the scaled differences fed to exp (Q5.26) and of the
/// sum of exponentials (Q12.19).
const DIFF_INTEGER_BITS: u32 = 5;
const ACCUMULATION_INTEGER_BITS: u32 = 12;

pub(super) fn build(op: &OpDesc, name: &'static str) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let output = op.output(0)?;
    ensure!(
        !input.shape.is_empty(),
        "{name} needs an input of rank 1 or more"
    );
    let depth = *input.shape.last().expect("rank 1 or more");
    let log = name == "LOG_SOFTMAX";
    let beta = if log {
        1.0
    } else {
        options!(op, SoftmaxOptions).beta
    };
    let rows = Rows { depth };
    match (input.element, output.element) {
        (F32, _) if log => Ok(rows.kernel(name, log_softmax_f32)),
        (F32, _) => Ok(rows.kernel(name, move |x, y| softmax_f32(x, y, beta))),
        (I8, _) if log => {
            let (scale_out, zp_out) = quantization(output)?;
            ensure!(
                scale_out == 16.0 / 256.0 && zp_out == 127,
                "int8 LOG_SOFTMAX output is quantised ({scale_out}, {zp_out}); TFLite Micro takes \
                 (1/16, 127)"
            );
            let params = Int8::new(quantization(input)?.0, 1.0, true)?;
            Ok(rows.kernel(name, move |x, y| params.log_softmax(x, y)))
        }
        (I8, I8) => {
            let (scale_out, zp_out) = quantization(output)?;
            ensure!(
                scale_out == 1.0 / 256.0 && zp_out == -128,
                "int8 SOFTMAX output is quantised ({scale_out}, {zp_out}); TFLite Micro takes \
                 (1/256, -128)"
            );
            let params = Int8::new(quantization(input)?.0, beta, false)?;
            Ok(rows.kernel(name, move |x, y: &mut [i8]| params.softmax(x, y, 8)))
        }
        (I8, _) => {
            let (scale_out, zp_out) = quantization(output)?;
            ensure!(
                near(scale_out, 1.0 / 65536.0) && zp_out == -32768,
                "int16 SOFTMAX output of an int8 input is quantised ({scale_out}, {zp_out}); \
                 TFLite Micro takes (1/65536, -32768)"
            );
            let params = Int8::new(quantization(input)?.0, beta, false)?;
            Ok(rows.kernel(name, move |x, y: &mut [i16]| params.softmax(x, y, 16)))
        }
        (I16, _) => {
            let (scale_in, zp_in) = quantization(input)?;
            let (scale_out, zp_out) = quantization(output)?;
            ensure!(
                zp_in == 0 && zp_out == 0 && near(scale_out, 1.0 / 32768.0),
                "int16 SOFTMAX needs input zero point 0 and output (1/32768, 0), not {zp_in} and \
                 ({scale_out}, {zp_out})"
            );
            let params = Int16::new(scale_in, beta);
            Ok(rows.kernel(name, move |x, y| params.softmax(x, y)))
        }
        _ => Err(op.unsupported("input", input)),
    }
}

/// `TF_LITE_ENSURE_NEAR` with TFLite's tolerance of a thousandth.
fn near(scale: f32, expected: f32) -> bool {
    (scale - expected).abs() <= 0.001 * expected
}

/// The input's rows along its last axis.
#[derive(Clone, Copy)]
struct Rows {
    depth: usize,
}

/// A type a softmax row is read or written in.
trait Value: Copy + Default + Send + Sync + 'static {
    const SIZE: usize;
    fn read(b: &[u8]) -> Self;
    fn write(self, b: &mut [u8]);
}

macro_rules! value {
    ($t:ty) => {
        impl Value for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("one element"))
            }
            fn write(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_le_bytes());
            }
        }
    };
}
value!(i8);
value!(i16);
value!(f32);

impl Rows {
    /// A kernel that reads each row into `I`s, lets `row` compute it into
    /// `O`s and writes them out (row buffers are allocated once a run).
    fn kernel<I: Value, O: Value>(
        self,
        name: &'static str,
        row: impl Fn(&[I], &mut [O]) -> Result<()> + Send + Sync + 'static,
    ) -> Arc<dyn Kernel> {
        let depth = self.depth;
        kernel(name, move |io| {
            if depth == 0 {
                return Ok(());
            }
            let (x, y) = io.input_output(0, 0);
            let mut xs = vec![I::default(); depth];
            let mut ys = vec![O::default(); depth];
            for (xr, yr) in x
                .chunks_exact(depth * I::SIZE)
                .zip(y.chunks_exact_mut(depth * O::SIZE))
            {
                for (v, b) in xs.iter_mut().zip(xr.chunks_exact(I::SIZE)) {
                    *v = I::read(b);
                }
                row(&xs, &mut ys)?;
                for (v, b) in ys.iter().zip(yr.chunks_exact_mut(O::SIZE)) {
                    v.write(b);
                }
            }
            Ok(())
        })
    }
}

/// reference_ops::Softmax on float: exp((x - max) * beta) in single
/// precision, summed in order, each divided by the sum.
fn softmax_f32(x: &[f32], y: &mut [f32], beta: f32) -> Result<()> {
    let max = x.iter().fold(f32::MIN, |m, &v| cpp_max(m, v));
    let mut sum = 0.0f32;
    for (out, &v) in y.iter_mut().zip(x) {
        *out = ((v - max) * beta).exp();
        sum += *out;
    }
    for out in y.iter_mut() {
        *out /= sum;
    }
    Ok(())
}

/// reference_ops::LogSoftmax on float: x - max - log(sum of exp(x - max)).
fn log_softmax_f32(x: &[f32], y: &mut [f32]) -> Result<()> {
    let max = x.iter().fold(f32::MIN, |m, &v| cpp_max(m, v));
    let sum: f32 = x.iter().fold(0.0, |s, &v| s + (v - max).exp());
    let log_sum = sum.ln();
    for (out, &v) in y.iter_mut().zip(x) {
        *out = v - max - log_sum;
    }
    Ok(())
}

/// What Prepare works out for int8 SOFTMAX and LOG_SOFTMAX.
#[derive(Clone, Copy)]
struct Int8 {
    /// beta * input scale as a Q5.26 multiplier (greater than one).
    multiplier: i32,
    left_shift: i32,
    /// Differences from the row's maximum below this are taken as -inf.
    diff_min: i32,
    /// LOG_SOFTMAX: the inverse of the multiplier.
    reverse_multiplier: i32,
    reverse_shift: i32,
}

impl Int8 {
    /// quantization_util.cc `PreprocessSoftmaxScaling` (and, for
    /// LOG_SOFTMAX, `PreprocessLogSoftmaxScalingExp`).
    fn new(scale_in: f32, beta: f32, log: bool) -> Result<Int8> {
        let real =
            (f64::from(beta) * f64::from(scale_in) * f64::from(1 << (31 - DIFF_INTEGER_BITS)))
                .min(f64::from(i32::MAX));
        ensure!(
            real > 1.0,
            "beta {beta} times input scale {scale_in} is too small for TFLite's int8 softmax \
             (which aborts)"
        );
        let (multiplier, left_shift) = quantize_multiplier(real);
        let (reverse_multiplier, reverse_shift) = if log {
            let reverse = f64::from(1 << (31 - left_shift)) / f64::from(multiplier);
            // QuantizeMultiplierSmallerThanOneExp aborts at 1.
            ensure!(
                reverse < 1.0,
                "input scale {scale_in} makes TFLite's LOG_SOFTMAX reverse scaling 1 (it aborts)"
            );
            quantize_multiplier(reverse)
        } else {
            (0, 0)
        };
        let diff_min = -input_radius(DIFF_INTEGER_BITS, left_shift);
        Ok(Int8 {
            multiplier,
            left_shift,
            diff_min,
            reverse_multiplier,
            reverse_shift,
        })
    }

    /// reference_ops::Softmax for int8 input and an `out_bits`-bit output
    /// (its zero point the type's minimum).
    fn softmax<O: Value + TryFrom<i32>>(&self, x: &[i8], y: &mut [O], out_bits: u32) -> Result<()> {
        let max = i32::from(x.iter().copied().max().unwrap_or(i8::MIN));
        let exp_of = |v: i8| {
            let diff = i32::from(v) - max;
            (diff >= self.diff_min).then(|| {
                exp_on_negative_values(
                    multiply_greater_than_one(diff, self.multiplier, self.left_shift),
                    DIFF_INTEGER_BITS,
                )
            })
        };
        let sum = x.iter().filter_map(|&v| exp_of(v)).fold(0i32, |s, e| {
            s.wrapping_add(rescale(e, 0, ACCUMULATION_INTEGER_BITS))
        });
        ensure!(sum > 0, "SOFTMAX row's sum of exponentials overflows int32");
        let (shifted_scale, bits_over_unit) = reciprocal(sum, ACCUMULATION_INTEGER_BITS);
        let exponent = bits_over_unit + 31 - out_bits as i32;
        ensure!(
            (0..=31).contains(&exponent),
            "SOFTMAX row's sum of exponentials is out of the range TFLite checks (it aborts)"
        );
        let (min, max_out) = (-(1i32 << (out_bits - 1)), (1i32 << (out_bits - 1)) - 1);
        for (out, &v) in y.iter_mut().zip(x) {
            let q = match exp_of(v) {
                Some(e) => {
                    let unsat =
                        rounding_divide_by_pot(doubling_high_mul(shifted_scale, e), exponent);
                    (unsat + min).clamp(min, max_out)
                }
                None => min,
            };
            *out = O::try_from(q).ok().expect("clamped to the output type");
        }
        Ok(())
    }

    /// reference_ops::LogSoftmaxQuantized for int8: (x - max) rescaled to
    /// Q5.26 minus log(sum of exps), to Q4.3 (scale 1/16, zero point 127).
    fn log_softmax(&self, x: &[i8], y: &mut [i8]) -> Result<()> {
        let max = i32::from(x.iter().copied().max().unwrap_or(i8::MIN));
        let sum = x
            .iter()
            .map(|&v| i32::from(v) - max)
            .filter(|&diff| diff >= self.diff_min)
            .fold(0i32, |s, diff| {
                let scaled = mbqm(diff, self.multiplier, self.left_shift);
                s.wrapping_add(rescale(
                    exp_on_negative_values(scaled, DIFF_INTEGER_BITS),
                    0,
                    ACCUMULATION_INTEGER_BITS,
                ))
            });
        let log_sum = log_x_for_x_greater_than_or_equal_to_1(
            sum,
            ACCUMULATION_INTEGER_BITS,
            DIFF_INTEGER_BITS,
        );
        let adjusted_diff_min = (self.diff_min - 1).max(mbqm(
            log_sum.wrapping_add(i32::MIN),
            self.reverse_multiplier,
            self.reverse_shift,
        ));
        for (out, &v) in y.iter_mut().zip(x) {
            let diff = i32::from(v) - max;
            *out = if diff > adjusted_diff_min {
                let scaled = mbqm(diff, self.multiplier, self.left_shift);
                let q = rounding_divide_by_pot(scaled.wrapping_sub(log_sum), 31 - 5 - 4) + 127;
                q.clamp(-128, 127) as i8
            } else {
                i8::MIN
            };
        }
        Ok(())
    }
}

/// What Prepare works out for int16 SOFTMAX: the input multiplier onto
/// [-10, 0] in 65535 steps and the two tables (softmax_common.cc).
struct Int16 {
    multiplier: i32,
    shift: i32,
    exp_lut: Int16Lut,
    one_over_one_plus_x_lut: Int16Lut,
}

impl Int16 {
    fn new(scale_in: f32, beta: f32) -> Int16 {
        let range = 65535.0f32;
        let (multiplier, shift) =
            quantize_multiplier(f64::from(scale_in) * f64::from(beta) / (10.0 / 65535.0));
        Int16 {
            multiplier,
            shift,
            exp_lut: int16_lut((10.0 / range, 32767), (2.0 / range, 0), f32::exp),
            one_over_one_plus_x_lut: int16_lut((1.0 / range, -32768), (2.0 / range, 0), |x| {
                1.0 / (1.0 + x)
            }),
        }
    }

    /// reference_ops::SoftmaxInt16.
    fn softmax(&self, x: &[i16], y: &mut [i16]) -> Result<()> {
        let max = i32::from(x.iter().copied().max().unwrap_or(i16::MIN));
        let mut sum = 0i32;
        for (out, &v) in y.iter_mut().zip(x) {
            let scaled = mbqm(i32::from(v) - max, self.multiplier, self.shift);
            let centred = scaled.wrapping_add(32767).clamp(-32768, 32767) as i16;
            *out = int16_lut_lookup(centred, &self.exp_lut);
            sum = sum.wrapping_add(i32::from(*out));
        }
        ensure!(sum > 0, "SOFTMAX row's sum of exponentials overflows int32");
        let headroom_plus_one = (sum as u32).leading_zeros();
        let shifted_sum = (((i64::from(sum) << (headroom_plus_one - 1)) + (1 << 13)) >> 14) as i32;
        // 1/(1 + x) of the sum minus one, recentred onto the table's input.
        let centred = (shifted_sum - ((1 << 15) + (1 << 16))).clamp(-32768, 32767) as i16;
        let reciprocal = i64::from(int16_lut_lookup(centred, &self.one_over_one_plus_x_lut));
        let right_shift = 31 - headroom_plus_one;
        let round = 1i64 << (right_shift - 1);
        for out in y.iter_mut() {
            let r = ((i64::from(*out) * reciprocal + round) >> right_shift) as i32;
            *out = r.clamp(0, 32767) as i16;
        }
        Ok(())
    }
}
