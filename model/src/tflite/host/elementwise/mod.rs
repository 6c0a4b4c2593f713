//! Unary operators, activations and softmax, as TensorFlow Lite Micro's
//! reference kernels compute them (and, for RELU_N1_TO_1, RELU_0_TO_1 and
//! GELU, which TFLite Micro lacks, as LiteRT's reference kernels do).
//!
//! Every quantised elementwise operator is a function of one int8 or int16
//! value, so the host evaluates TFLite's integer arithmetic for every
//! possible input once, when the model is loaded ([`quantized`]), and looks
//! its results up while it runs. Float32 operators apply the same libm
//! functions TFLite calls, in single precision as the C++ does ([`float`]);
//! softmax and log-softmax work on rows ([`softmax`]).

mod float;
mod gelu;
mod quantized;
mod softmax;

/// LOGISTIC and TANH of one element, and TFLite's `CheckedLog2`, which
/// TFLite Micro's LSTM uses for its gates and cell state.
pub(super) use float::logistic as logistic_f32;
pub(super) use quantized::{checked_log2, logistic_int16, tanh_int16, SigmoidInput};

// The options! macro names the schema as super::fb from the submodules.
use super::fb;
use super::{kernel, Element, Kernel, OpDesc, Operand, Support};
use anyhow::{bail, ensure, Result};
use std::sync::Arc;
use Element::{F32, I16, I8};

pub(super) const OPERATORS: &[Support] = &[
    Support::new("ABS", &[F32, I8, I16]),
    Support::new("NEG", &[F32]),
    Support::new("RSQRT", &[F32, I8, I16]),
    Support::new("SQRT", &[F32]),
    Support::new("SQUARE", &[F32]),
    Support::new("SIN", &[F32]),
    Support::new("COS", &[F32]),
    Support::new("EXP", &[F32]),
    Support::new("LOG", &[F32]),
    Support::new("FLOOR", &[F32]),
    Support::new("CEIL", &[F32]),
    Support::new("ROUND", &[F32]),
    Support::new("LOGISTIC", &[F32, I8, I16]),
    Support::new("TANH", &[F32, I8, I16]),
    Support::new("HARD_SWISH", &[F32, I8]),
    Support::new("RELU", &[F32, I8, I16]),
    Support::new("RELU6", &[F32, I8, I16]),
    Support::new("RELU_N1_TO_1", &[F32, I8]),
    Support::new("RELU_0_TO_1", &[F32, I8]),
    Support::new("LEAKY_RELU", &[F32, I8, I16]),
    Support::new("ELU", &[F32, I8]),
    Support::new("GELU", &[F32, I8, I16]),
    Support::new("SOFTMAX", &[F32, I8, I16]),
    Support::new("LOG_SOFTMAX", &[F32, I8]),
];

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let name = op.name_in(OPERATORS, "an elementwise operator")?;
    ensure!(
        op.inputs.len() == 1 && op.outputs.len() == 1,
        "{name} has {} inputs and {} outputs; it takes one of each",
        op.inputs.len(),
        op.outputs.len()
    );
    let input = op.input(0)?;
    let output = op.output(0)?;
    ensure!(
        output.shape == input.shape,
        "output {} has shape {:?}, not its input's {:?}",
        output.name,
        output.shape,
        input.shape
    );
    // SOFTMAX alone changes the type: int8 in, int16 out.
    let softmax_to_int16 = name == "SOFTMAX" && input.element == I8 && output.element == I16;
    if output.element != input.element && !softmax_to_int16 {
        return Err(op.unsupported("output", output));
    }
    match (name, input.element) {
        ("SOFTMAX" | "LOG_SOFTMAX", _) => softmax::build(op, name),
        (_, F32) => float::build(op, name),
        (_, I8) => Ok(tabulated::<1>(
            name,
            quantized::function(op, name)?,
            input.element,
        )),
        (_, I16) => Ok(tabulated::<2>(
            name,
            quantized::function(op, name)?,
            input.element,
        )),
        _ => Err(op.unsupported("input", input)),
    }
}

/// The scale and zero point of a quantised operand, which must have one
/// positive, finite scale.
fn quantization(t: &Operand) -> Result<(f32, i32)> {
    ensure!(
        !t.scales.is_empty(),
        "tensor {} ({}) is not quantised; the host takes quantised {} here",
        t.name,
        t.element,
        t.element
    );
    let scale = t.scale()?;
    ensure!(
        scale > 0.0 && scale.is_finite(),
        "tensor {} has scale {scale}; the host takes positive finite scales",
        t.name
    );
    Ok((scale, t.zero_point()))
}

/// An elementwise function of a quantised value: its result, or `None`
/// where TFLite's kernel fails (RSQRT of a value below zero).
type Function = Box<dyn Fn(i32) -> Option<i32>>;

/// A kernel that looks up `f` of every `N`-byte input element in a table
/// of `f` over every value of `element`, made now.
fn tabulated<const N: usize>(name: &'static str, f: Function, element: Element) -> Arc<dyn Kernel> {
    let table: Vec<Option<[u8; N]>> = (0..1usize << (8 * N))
        .map(|bits| {
            let value = wrap_signed(bits as i64, 8 * N as u32);
            f(value as i32).map(|y| {
                debug_assert_eq!(element.saturate(y.into()), i64::from(y));
                y.to_le_bytes()[..N].try_into().expect("N bytes")
            })
        })
        .collect();
    kernel(name, move |io| {
        let (x, y) = io.input_output(0, 0);
        for (xi, yi) in x.chunks_exact(N).zip(y.chunks_exact_mut(N)) {
            let bits = xi.iter().rev().fold(0, |a, &b| a << 8 | usize::from(b));
            match &table[bits] {
                Some(v) => yi.copy_from_slice(v),
                None => bail!(
                    "{name} is undefined for input {} (TFLite Micro fails)",
                    wrap_signed(bits as i64, 8 * N as u32)
                ),
            }
        }
        Ok(())
    })
}

/// The low `bits` bits of `v` as a two's complement number.
fn wrap_signed(v: i64, bits: u32) -> i64 {
    let shift = 64 - bits;
    (v << shift) >> shift
}

/// C's `static_cast<int32_t>` of a double as x86-64 performs it
/// (`cvttsd2si`): toward zero, and `i32::MIN` for NaN and out-of-range
/// values, which C leaves undefined.
fn double_to_int32(f: f64) -> i32 {
    if f.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&f) {
        i32::MIN
    } else {
        f as i32
    }
}

/// C++'s `std::max(a, b)` on floats: `a < b ? b : a` (so NaN in `a` stays).
fn cpp_max(a: f32, b: f32) -> f32 {
    if a < b {
        b
    } else {
        a
    }
}

/// C++'s `std::min(a, b)` on floats: `b < a ? b : a`.
fn cpp_min(a: f32, b: f32) -> f32 {
    if b < a {
        b
    } else {
        a
    }
}

/// TFLite's `LUTPopulateInt8` (common.h), which ELU's table also is:
/// `transform` of every dequantised int8 value, requantised in single
/// precision.
fn int8_lut_value(
    x: i32,
    (input_scale, input_zero_point): (f32, i32),
    (output_scale, output_zero_point): (f32, i32),
    transform: impl Fn(f32) -> f32,
) -> i32 {
    let inverse_scale = 1.0 / output_scale;
    let dequantized = input_scale * (x - input_zero_point) as f32;
    let rescaled = (transform(dequantized) * inverse_scale).round();
    super::arith::float_to_int32(rescaled + output_zero_point as f32).clamp(-128, 127)
}

/// The 513 entries of an int16 lookup table with interpolation.
type Int16Lut = [i16; 513];

/// TFLite's `LUTPopulateInt16<float>` (common.h): `transform` sampled at
/// 512 steps over the input's range, each entry biased by half the
/// interpolation error at the step's midpoint, and the range's end.
fn int16_lut(
    (input_scale, input_zero_point): (f32, i32),
    (output_scale, output_zero_point): (f32, i32),
    transform: impl Fn(f32) -> f32,
) -> Int16Lut {
    let input_min = input_scale * (-32768 - input_zero_point) as f32;
    let input_max = input_scale * (32767 - input_zero_point) as f32;
    let output_min = output_scale * (-32768 - output_zero_point) as f32;
    let output_max = output_scale * (32767 - output_zero_point) as f32;
    let step = (input_max - input_min) / 512.0;
    let half_step = step / 2.0;
    let output_scaling_inv = 65536.0 / (output_max - output_min);
    let to_entry = |v: f32| cpp_min(cpp_max(v, -32768.0), 32767.0) as i16;
    let mut lut = [0; 513];
    for (i, entry) in lut.iter_mut().take(512).enumerate() {
        let at = input_min + i as f32 * step;
        let val = transform(at);
        let val_midpoint = transform(at + half_step);
        let val_next = transform(input_min + (i + 1) as f32 * step);
        let sample_val = (val * output_scaling_inv).round();
        let midpoint_interp_val =
            ((val_next * output_scaling_inv + (val * output_scaling_inv).round()) / 2.0).round();
        let midpoint_val = (val_midpoint * output_scaling_inv).round();
        let bias = ((midpoint_interp_val - midpoint_val) / 2.0).round();
        *entry = to_entry(sample_val - bias);
    }
    lut[512] = to_entry((transform(input_max) * output_scaling_inv).round());
    lut
}

/// TFLite's `LUTLookup` for int16: the entry of the top 9 bits,
/// interpolated by the low 7 (the slope in int16, as the C++ keeps it).
fn int16_lut_lookup(value: i16, lut: &Int16Lut) -> i16 {
    let index = (256 + i32::from(value >> 7)) as usize;
    let offset = i32::from(value & 0x7f);
    let base = lut[index];
    let slope = lut[index + 1].wrapping_sub(base);
    let delta = (i32::from(slope) * offset + 64) >> 7;
    (i32::from(base) + delta) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_x86() {
        assert_eq!(double_to_int32(2_147_483_648.0), i32::MIN);
        assert_eq!(double_to_int32(-2.9), -2);
        assert_eq!(double_to_int32(f64::NAN), i32::MIN);
        assert_eq!(wrap_signed(0xff, 8), -1);
        assert_eq!(wrap_signed(0x8000, 16), -32768);
        assert!(cpp_max(f32::NAN, 1.0).is_nan());
        assert_eq!(cpp_max(1.0, f32::NAN), 1.0);
    }

    #[test]
    fn int16_lut_interpolates_between_entries() {
        let identity = int16_lut((1.0 / 32768.0, 0), (1.0 / 32768.0, 0), |x| x);
        assert_eq!(identity[0], -32768);
        // The middle sample sits half a step of the output below zero.
        assert!(identity[256].abs() <= 1);
        assert_eq!(identity[512], 32767);
        for v in [-32768i16, -1000, -1, 0, 1, 63, 64, 1000, 32767] {
            assert!((i32::from(int16_lut_lookup(v, &identity)) - i32::from(v)).abs() <= 1);
        }
    }
}
