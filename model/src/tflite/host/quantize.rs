//! Conversions between element types: QUANTIZE, DEQUANTIZE and CAST, as
//! TensorFlow Lite Micro's reference kernels compute them (quantize_common.cc,
//! dequantize_common.cc, cast.cc).

use super::arith::{float_to_int32, multiply_by_quantized_multiplier, quantize_multiplier};
use super::{f32s, kernel, put_f32s, Element, Kernel, OpDesc, Support};
use anyhow::{bail, Result};
use std::sync::Arc;
use Element::{F32, I16, I32, I8, U8};

pub(super) const OPERATORS: &[Support] = &[
    Support::new("QUANTIZE", &[F32, I8, U8, I16, I32]),
    Support::new("DEQUANTIZE", &[I8, U8, I16]),
    Support::new("CAST", &[I8, I16, I32, F32]),
];

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let output = op.output(0)?;
    let (from, to) = (input.element, output.element);
    match op.name.as_str() {
        "QUANTIZE" if from == F32 => {
            if !matches!(to, I8 | I16) {
                return Err(op.unsupported("output", output));
            }
            // TFLite's AffineQuantize: round(x / scale) in single precision.
            let scale = output.scale()?;
            let zero_point = output.zero_point();
            Ok(kernel("QUANTIZE", move |io| {
                let (x, y) = io.input_output(0, 0);
                let q = f32s(x).into_iter().map(|v| {
                    let q = float_to_int32((v / scale).round()).wrapping_add(zero_point);
                    to.saturate(q.into())
                });
                to.put_ints(q, y);
                Ok(())
            }))
        }
        "QUANTIZE" => {
            let allowed: &[Element] = match from {
                I8 => &[I8, U8, I16, I32],
                U8 => &[I8],
                I16 => &[I8, I16, I32],
                I32 => &[I8, I16],
                _ => &[],
            };
            if !allowed.contains(&to) {
                return Err(op.unsupported("output", output));
            }
            // TFLite's Requantize: (q - zp_in) * (scale_in / scale_out) + zp_out.
            let real = f64::from(input.scale()?) / f64::from(output.scale()?);
            let (multiplier, shift) = quantize_multiplier(real);
            let (zp_in, zp_out) = (input.zero_point(), output.zero_point());
            Ok(kernel("QUANTIZE", move |io| {
                let (x, y) = io.input_output(0, 0);
                let q = from.ints(x).into_iter().map(|v| {
                    let scaled = multiply_by_quantized_multiplier(
                        (v as i32).wrapping_sub(zp_in),
                        multiplier,
                        shift,
                    );
                    to.saturate(scaled.wrapping_add(zp_out).into())
                });
                to.put_ints(q, y);
                Ok(())
            }))
        }
        "DEQUANTIZE" => {
            if to != F32 {
                return Err(op.unsupported("output", output));
            }
            // scale * (q - zp) in double precision, then to single.
            let scale = f64::from(input.scale()?);
            let zero_point = i64::from(input.zero_point());
            Ok(kernel("DEQUANTIZE", move |io| {
                let (x, y) = io.input_output(0, 0);
                let v = from
                    .ints(x)
                    .into_iter()
                    .map(|q| (scale * (q - zero_point) as f64) as f32);
                put_f32s(v, y);
                Ok(())
            }))
        }
        "CAST" => {
            if !matches!(to, I8 | I16 | I32 | F32) {
                return Err(op.unsupported("output", output));
            }
            Ok(kernel("CAST", move |io| {
                let (x, y) = io.input_output(0, 0);
                match (from, to) {
                    (F32, F32) => y.copy_from_slice(x),
                    // From float: toward zero, saturating, NaN to 0.
                    (F32, _) => to.put_ints(f32s(x).into_iter().map(|v| to.saturate(v as i64)), y),
                    (_, F32) => put_f32s(from.ints(x).into_iter().map(|v| v as f32), y),
                    _ => to.put_ints(from.ints(x).into_iter().map(|v| wrap(v, to)), y),
                }
                Ok(())
            }))
        }
        other => bail!("{other} is not a conversion"),
    }
}

/// `v` narrowed to `to` as C's integer conversions narrow: modulo 2^bits.
fn wrap(v: i64, to: Element) -> i64 {
    let bits = 8 * to.size() as u32;
    let shift = 64 - bits;
    (v << shift) >> shift
}
