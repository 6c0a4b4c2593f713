//! Binary elementwise operators with broadcasting (ADD, SUB, MUL, DIV,
//! SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, PRELU, FLOOR_DIV, FLOOR_MOD and the
//! comparisons), as TensorFlow Lite Micro's reference kernels compute them
//! (add.cc, sub.cc, mul.cc, div.cc, squared_difference.cc,
//! maximum_minimum.cc, prelu.cc, floor_div.cc, floor_mod.cc,
//! comparisons.cc). Every one walks
//! its operands as reference/broadcast_loop.h does ([`Walk`], which the
//! reductions share); the quantised kernels' multipliers are worked out
//! when the model is loaded, as their Prepare works them out.

use super::arith::{
    doubling_high_mul, multiply_by_quantized_multiplier as rescale, multiply_greater_than_one,
    multiply_smaller_than_one, quantize_multiplier, rounding_divide_by_pot, type_range, Activation,
};
use super::{f32s, kernel, Element, Kernel, OpDesc, Operand, Support, MAX_RANK};
use anyhow::{ensure, Result};
use std::sync::Arc;
use Element::{Bool, F32, I16, I32, I64, I8};

pub(super) const OPERATORS: &[Support] = &[
    Support::new("ADD", &[I8, I16, I32, F32]),
    Support::new("SUB", &[I8, I16, I32, F32]),
    Support::new("MUL", &[I8, I16, I32, F32]),
    Support::new("DIV", &[I8, I32, F32]),
    Support::new("SQUARED_DIFFERENCE", &[I8, I16, I32, F32]),
    Support::new("MAXIMUM", &[I8, I16, I32, I64, F32]),
    Support::new("MINIMUM", &[I8, I16, I32, I64, F32]),
    Support::new("PRELU", &[I8, I16, F32]),
    Support::new("FLOOR_DIV", &[F32]),
    Support::new("FLOOR_MOD", &[F32]),
    Support::new("EQUAL", &[Bool, I8, I32, I64, F32]),
    Support::new("NOT_EQUAL", &[Bool, I8, I32, I64, F32]),
    // GREATER also dispatches int16, with scaling parameters its Prepare
    // never sets (comparisons.cc): the host does not take it.
    Support::new("LESS", &[I8, I32, I64, F32]),
    Support::new("LESS_EQUAL", &[I8, I32, I64, F32]),
    Support::new("GREATER", &[I8, I32, I64, F32]),
    Support::new("GREATER_EQUAL", &[I8, I32, I64, F32]),
];

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let name = op.name_in(OPERATORS, "a binary operator")?;
    let (a, b, y) = (op.input(0)?, op.input(1)?, op.output(0)?);
    // PRELU's alpha is int8 for both quantised inputs (prelu_common.cc).
    let second = match (name, a.element) {
        ("PRELU", I8 | I16) => I8,
        _ => a.element,
    };
    if b.element != second {
        return Err(op.unsupported("input 1", b));
    }
    let comparison = Comparison::of(name);
    if y.element != comparison.map_or(a.element, |_| Bool) {
        return Err(op.unsupported("output", y));
    }
    for t in [a, b, y] {
        ensure!(
            t.shape.len() <= MAX_RANK,
            "tensor {} has rank {}; TFLite Micro's shapes hold at most {MAX_RANK} dimensions",
            t.name,
            t.shape.len()
        );
    }
    let x = Binary {
        op,
        name,
        a,
        b,
        y,
        walk: Walk::broadcast(a, b, y)?,
    };
    match name {
        "ADD" => add_sub(&x, false),
        "SUB" => add_sub(&x, true),
        "MUL" => mul(&x),
        "DIV" => div(&x),
        "SQUARED_DIFFERENCE" => squared_difference(&x),
        "MAXIMUM" => Ok(extremum(&x, true)),
        "MINIMUM" => Ok(extremum(&x, false)),
        "PRELU" => prelu(&x),
        "FLOOR_DIV" => Ok(floor_div(&x)),
        "FLOOR_MOD" => Ok(floor_mod(&x)),
        _ => compare(&x, comparison.expect("the remaining operators compare")),
    }
}

/// A binary operator being built: its operands and the walk of its output.
struct Binary<'a> {
    op: &'a OpDesc,
    name: &'static str,
    a: &'a Operand,
    b: &'a Operand,
    y: &'a Operand,
    walk: Walk,
}

impl Binary<'_> {
    /// The kernel applying `f` to every pair of input elements the output
    /// takes, in `V` (float32 as `f32`, integers as `i64`).
    fn kernel<V: Value>(
        &self,
        f: impl Fn(V, V) -> Option<V> + Send + Sync + 'static,
    ) -> Arc<dyn Kernel> {
        self.kernel_into(f)
    }

    /// The kernel applying `f` to every pair of input elements the output
    /// takes, from `V` into `W` (float32 as `f32`, integers and bools as
    /// `i64`). `f` gives `None` where TFLite Micro's kernel fails: a
    /// division by zero.
    fn kernel_into<V: Value, W: Value>(
        &self,
        f: impl Fn(V, V) -> Option<W> + Send + Sync + 'static,
    ) -> Arc<dyn Kernel> {
        let walk = self.walk.clone();
        let [ea, eb, ey] = [self.a.element, self.b.element, self.y.element];
        kernel(self.name, move |io| {
            let (a, b) = (V::decode(ea, io.input(0)), V::decode(eb, io.input(1)));
            let y = io.output(0);
            let (mut at, mut trapped) = (0, false);
            walk.for_each(|i, j| {
                match f(a[i], b[j]) {
                    Some(v) => v.store(ey, y, at),
                    None => trapped = true,
                }
                at += 1;
            });
            ensure!(
                !trapped,
                "a division by zero (or of the most negative int32 by -1), where TFLite Micro's \
                 kernel fails"
            );
            Ok(())
        })
    }

    /// The fused activation `code` of the operator's options.
    fn activation(&self, code: i8) -> Result<Activation> {
        Activation::of(self.op, code)
    }

    /// Refuses quantised int32 inputs, as add.cc, sub.cc and div.cc do.
    fn unquantized(&self, tensors: &[&Operand]) -> Result<()> {
        for t in tensors {
            ensure!(
                t.scales.is_empty(),
                "tensor {} is quantised; TFLite Micro's {} takes INT32 unquantised",
                t.name,
                self.name
            );
        }
        Ok(())
    }
}

/// ADD and SUB. Float32 and int32 SUB clamp to the fused activation's
/// range; int32 ADD does not (add.cc sets the whole int32 range). The
/// quantised kernels bring both inputs to twice the larger input scale,
/// shifted left 20 bits (int8) or 15 (int16), and rescale the sum: int16
/// takes this general path too, whatever `pot_scale_int16` says.
fn add_sub(x: &Binary, subtract: bool) -> Result<Arc<dyn Kernel>> {
    let act = x.activation(if subtract {
        options!(x.op, SubOptions).fused_activation_function
    } else {
        options!(x.op, AddOptions).fused_activation_function
    })?;
    match x.a.element {
        F32 => {
            let (lo, hi) = act.float_range();
            Ok(if subtract {
                x.kernel(move |a: f32, b| Some(clamp(a - b, lo, hi)))
            } else {
                x.kernel(move |a: f32, b| Some(clamp(a + b, lo, hi)))
            })
        }
        I32 if subtract => {
            x.unquantized(&[x.a, x.b, x.y])?;
            let range = int32_range(act);
            Ok(x.kernel(move |a: i64, b| {
                Some(limit((a as i32).wrapping_sub(b as i32), range).into())
            }))
        }
        I32 => {
            x.unquantized(&[x.a, x.b])?;
            Ok(x.kernel(|a: i64, b| Some((a as i32).wrapping_add(b as i32).into())))
        }
        _ => {
            let ((s1, z1), (s2, z2), (so, zo)) =
                (quantization(x.a)?, quantization(x.b)?, quantization(x.y)?);
            let left_shift = if x.a.element == I16 { 15 } else { 20 };
            // In double precision for both (the single-precision sub_common.cc of
            // newer TFLite Micro rounds some multipliers apart; the oracle's does not).
            let twice = 2.0 * f64::from(s1.max(s2));
            let real_out = twice / (f64::from(1 << left_shift) * f64::from(so));
            let (real1, real2) = (f64::from(s1) / twice, f64::from(s2) / twice);
            let in1 = Aligned::new(z1, left_shift, real1)?;
            let in2 = Aligned::new(z2, left_shift, real2)?;
            let (m, shift) = smaller_than_one(real_out)?;
            let range = act.quantized_range(x.y)?;
            Ok(x.kernel(move |a: i64, b| {
                let (p, q) = (in1.apply(a), in2.apply(b));
                let sum = if subtract {
                    p.wrapping_sub(q)
                } else {
                    p.wrapping_add(q)
                };
                let out = multiply_smaller_than_one(sum, m, shift).wrapping_add(zo);
                Some(limit(out, range).into())
            }))
        }
    }
}

/// MUL: the product of the offset inputs rescaled by s1 * s2 / s_out
/// (mul_common.cc); int16 takes zero points 0 only.
fn mul(x: &Binary) -> Result<Arc<dyn Kernel>> {
    let act = x.activation(options!(x.op, MulOptions).fused_activation_function)?;
    match x.a.element {
        F32 => {
            let (lo, hi) = act.float_range();
            Ok(x.kernel(move |a: f32, b| Some(clamp(a * b, lo, hi))))
        }
        I32 => {
            let range = int32_range(act);
            Ok(x.kernel(move |a: i64, b| {
                Some(limit((a as i32).wrapping_mul(b as i32), range).into())
            }))
        }
        _ => {
            let ((s1, z1), (s2, z2), (so, zo)) =
                (quantization(x.a)?, quantization(x.b)?, quantization(x.y)?);
            if x.a.element == I16 {
                zero_points_zero(x, &[x.a, x.b, x.y])?;
            }
            let (m, shift) = multiplier(f64::from(s1) * f64::from(s2) / f64::from(so))?;
            let range = act.quantized_range(x.y)?;
            Ok(x.kernel(move |a: i64, b| {
                let product = (a as i32)
                    .wrapping_sub(z1)
                    .wrapping_mul((b as i32).wrapping_sub(z2));
                Some(limit(rescale(product, m, shift).wrapping_add(zo), range).into())
            }))
        }
    }
}

/// DIV. Int32 divides toward zero and traps on a zero divisor; int8
/// multiplies by the divisor's fixed-point reciprocal (reference div.h's
/// DivElementwise), with the multiplier s1 / (s2 * s_out) worked out in
/// single precision (div.cc).
fn div(x: &Binary) -> Result<Arc<dyn Kernel>> {
    let act = x.activation(options!(x.op, DivOptions).fused_activation_function)?;
    match x.a.element {
        F32 => {
            let (lo, hi) = act.float_range();
            Ok(x.kernel(move |a: f32, b| Some(clamp(a / b, lo, hi))))
        }
        I32 => {
            x.unquantized(&[x.a, x.b])?;
            let range = int32_range(act);
            Ok(x.kernel(move |a: i64, b| {
                let q = (a as i32).checked_div(b as i32)?;
                Some(limit(q, range).into())
            }))
        }
        _ => {
            let ((s1, z1), (s2, z2), (so, zo)) =
                (quantization(x.a)?, quantization(x.b)?, quantization(x.y)?);
            let real = f64::from(s1 / (s2 * so));
            let (m, shift) = quantize_multiplier(real);
            // With |numerator| <= 255 (headroom >= 23) and divisor <= 255
            // (reciprocal shift <= 7), these bounds keep the final rounding
            // shift within 0..=63, where the x86-64 behaviour below is known.
            ensure!(
                real.is_finite() && (-25..=22).contains(&shift),
                "DIV's rescale {s1} / ({s2} * {so}) = {real} is outside the range the host takes \
                 (2^-26 to 2^22)"
            );
            let range = act.quantized_range(x.y)?;
            Ok(x.kernel(move |a: i64, b| {
                let (mut n, mut d) = ((a as i32).wrapping_sub(z1), (b as i32).wrapping_sub(z2));
                if d < 0 {
                    (n, d) = (n.wrapping_neg(), d.wrapping_neg());
                }
                let (reciprocal, reciprocal_shift) = reciprocal(d);
                let headroom = leading_sign_bits(n);
                let quotient = multiply_greater_than_one(n, reciprocal, headroom);
                let total_shift = shift - reciprocal_shift - headroom;
                let out = rounding_divide_by_pot_x86(doubling_high_mul(quotient, m), -total_shift);
                Some(limit(out.wrapping_add(zo), range).into())
            }))
        }
    }
}

/// SQUARED_DIFFERENCE, without a fused activation. The quantised kernels
/// align the inputs as ADD does, shifted left 7 bits (int8) or 0 (int16,
/// zero points 0), and rescale the squared difference by
/// (2 * max scale)^2 / (2^(2 * shift) * s_out) (squared_difference.cc).
fn squared_difference(x: &Binary) -> Result<Arc<dyn Kernel>> {
    match x.a.element {
        F32 => Ok(x.kernel(|a: f32, b| {
            let d = a - b;
            Some(d * d)
        })),
        I32 => Ok(x.kernel(|a: i64, b| {
            let d = (a as i32).wrapping_sub(b as i32);
            Some(d.wrapping_mul(d).into())
        })),
        e => {
            let ((s1, z1), (s2, z2), (so, zo)) =
                (quantization(x.a)?, quantization(x.b)?, quantization(x.y)?);
            let left_shift = if e == I16 {
                zero_points_zero(x, &[x.a, x.b, x.y])?;
                0
            } else {
                7
            };
            let twice = 2.0 * f64::from(s1.max(s2));
            let in1 = Aligned::new(z1, left_shift, f64::from(s1) / twice)?;
            let in2 = Aligned::new(z2, left_shift, f64::from(s2) / twice)?;
            // The divisor's product is single precision: an int times a float.
            let real_out = twice * twice / f64::from((1 << (2 * left_shift)) as f32 * so);
            let (m, shift) = multiplier(real_out)?;
            let range = type_range(e);
            Ok(x.kernel(move |a: i64, b| {
                let d = in1.apply(a).wrapping_sub(in2.apply(b));
                let out = rescale(d.wrapping_mul(d), m, shift).wrapping_add(zo);
                Some(limit(out, range).into())
            }))
        }
    }
}

/// MAXIMUM and MINIMUM of the raw values, whatever their quantisation
/// (maximum_minimum.h): `a > b ? a : b`, so a NaN in `b` wins and one in
/// `a` loses.
fn extremum(x: &Binary, maximum: bool) -> Arc<dyn Kernel> {
    match (x.a.element, maximum) {
        (F32, true) => x.kernel(|a: f32, b| Some(if a > b { a } else { b })),
        (F32, false) => x.kernel(|a: f32, b| Some(if a < b { a } else { b })),
        (_, true) => x.kernel(|a: i64, b| Some(if a > b { a } else { b })),
        (_, false) => x.kernel(|a: i64, b| Some(if a < b { a } else { b })),
    }
}

/// PRELU: `x >= 0 ? x : x * alpha`. The float kernel is 4D
/// (prelu_common.cc); the quantised ones rescale the two cases apart, by
/// s_in / s_out and s_in * s_alpha / s_out, and clamp to the output type.
fn prelu(x: &Binary) -> Result<Arc<dyn Kernel>> {
    if x.a.element == F32 {
        for t in [x.a, x.b, x.y] {
            ensure!(
                t.shape.len() <= 4,
                "tensor {} has rank {}; TFLite Micro's float32 PRELU takes at most 4",
                t.name,
                t.shape.len()
            );
        }
        return Ok(x.kernel(|v: f32, alpha| Some(if v >= 0.0 { v } else { v * alpha })));
    }
    let ((si, zi), (sa, za), (so, zo)) =
        (quantization(x.a)?, quantization(x.b)?, quantization(x.y)?);
    let (m1, shift1) = multiplier(f64::from(si) / f64::from(so))?;
    let (m2, shift2) = multiplier(f64::from(si) * f64::from(sa) / f64::from(so))?;
    let range = type_range(x.y.element);
    Ok(x.kernel(move |v: i64, alpha| {
        let v = (v as i32).wrapping_sub(zi);
        let out = if v >= 0 {
            rescale(v, m1, shift1)
        } else {
            rescale(v.wrapping_mul((alpha as i32).wrapping_sub(za)), m2, shift2)
        };
        Some(limit(out.wrapping_add(zo), range).into())
    }))
}

/// FLOOR_DIV on float32: `floor(a / b)` in double precision, rounded to
/// single (reference floor_div.h); floor_div.cc fails on any zero divisor.
fn floor_div(x: &Binary) -> Arc<dyn Kernel> {
    x.kernel(|a: f32, b: f32| (b != 0.0).then(|| (f64::from(a) / f64::from(b)).floor() as f32))
}

/// FLOOR_MOD on float32: C's `fmod` (Rust's `%`), moved into the divisor's
/// sign when it is not already there (reference floor_mod.h). A zero divisor
/// gives NaN.
fn floor_mod(x: &Binary) -> Arc<dyn Kernel> {
    x.kernel(|a: f32, b: f32| {
        let r = a % b;
        Some(if r != 0.0 && (b < 0.0) != (r < 0.0) {
            r + b
        } else {
            r
        })
    })
}

/// A comparison operator, into bools.
#[derive(Debug, Clone, Copy)]
enum Comparison {
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

impl Comparison {
    fn of(name: &str) -> Option<Comparison> {
        Some(match name {
            "EQUAL" => Comparison::Equal,
            "NOT_EQUAL" => Comparison::NotEqual,
            "LESS" => Comparison::Less,
            "LESS_EQUAL" => Comparison::LessEqual,
            "GREATER" => Comparison::Greater,
            "GREATER_EQUAL" => Comparison::GreaterEqual,
            _ => return None,
        })
    }

    /// 1 where `a` and `b` compare so (C's operators: false against NaN but
    /// for `!=`), else 0.
    fn holds<V: PartialOrd>(self, a: V, b: V) -> i64 {
        i64::from(match self {
            Comparison::Equal => a == b,
            Comparison::NotEqual => a != b,
            Comparison::Less => a < b,
            Comparison::LessEqual => a <= b,
            Comparison::Greater => a > b,
            Comparison::GreaterEqual => a >= b,
        })
    }
}

/// The comparisons. Int8 compares both inputs brought to a common real
/// scale as ADD aligns them, shifted left 8 bits and multiplied by their
/// own scales, which must be below one (comparisons.cc's Prepare,
/// reference comparisons.h's ComparisonWithScaling); the other types
/// compare raw values.
fn compare(x: &Binary, comparison: Comparison) -> Result<Arc<dyn Kernel>> {
    Ok(match x.a.element {
        F32 => x.kernel_into(move |a: f32, b| Some(comparison.holds(a, b))),
        I8 => {
            let ((s1, z1), (s2, z2)) = (quantization(x.a)?, quantization(x.b)?);
            let in1 = Aligned::new(z1, 8, f64::from(s1))?;
            let in2 = Aligned::new(z2, 8, f64::from(s2))?;
            x.kernel_into(move |a: i64, b| Some(comparison.holds(in1.apply(a), in2.apply(b))))
        }
        _ => x.kernel_into(move |a: i64, b| Some(comparison.holds(a, b))),
    })
}

/// One input of ADD, SUB or SQUARED_DIFFERENCE on the common scale:
/// offset by its zero point, shifted left, multiplied by a factor below
/// one (reference add.h's AddFunc).
#[derive(Debug, Clone, Copy)]
struct Aligned {
    zero_point: i32,
    left_shift: i32,
    multiplier: i32,
    shift: i32,
}

impl Aligned {
    fn new(zero_point: i32, left_shift: i32, real: f64) -> Result<Aligned> {
        let (multiplier, shift) = smaller_than_one(real)?;
        Ok(Aligned {
            zero_point,
            left_shift,
            multiplier,
            shift,
        })
    }

    fn apply(self, q: i64) -> i32 {
        let shifted = (q as i32)
            .wrapping_sub(self.zero_point)
            .wrapping_mul(1 << self.left_shift);
        multiply_smaller_than_one(shifted, self.multiplier, self.shift)
    }
}

/// The scale and zero point of a per-tensor quantised operand: the scale
/// positive and finite, the zero point in the element type's range.
pub(super) fn quantization(t: &Operand) -> Result<(f32, i32)> {
    let scale = t.scale()?;
    ensure!(
        scale > 0.0 && scale.is_finite(),
        "tensor {} has quantisation scale {scale}",
        t.name
    );
    let zero_point = t.zero_points.first().copied().unwrap_or(0);
    ensure!(
        (t.element.min()..=t.element.max()).contains(&zero_point),
        "tensor {} has zero point {zero_point}, outside {}",
        t.name,
        t.element
    );
    Ok((scale, zero_point as i32))
}

/// TFLite's `QuantizeMultiplier` of `real`, refused where its shift left
/// would pass 31 bits (C leaves that undefined).
pub(super) fn multiplier(real: f64) -> Result<(i32, i32)> {
    ensure!(
        real.is_finite() && real >= 0.0,
        "rescale factor {real} is not a finite non-negative number"
    );
    let (m, shift) = quantize_multiplier(real);
    ensure!(
        shift <= 31,
        "rescale factor {real} is too large for a 32-bit multiplier"
    );
    Ok((m, shift))
}

/// TFLite's `QuantizeMultiplierSmallerThanOneExp`, which aborts unless
/// 0 < `real` < 1 and its shift is one to the right.
fn smaller_than_one(real: f64) -> Result<(i32, i32)> {
    let (m, shift) = quantize_multiplier(real);
    ensure!(
        real > 0.0 && real < 1.0 && shift <= 0,
        "rescale factor {real} is outside (0, 1), where TFLite Micro's \
         QuantizeMultiplierSmallerThanOneExp aborts"
    );
    Ok((m, shift))
}

fn zero_points_zero(x: &Binary, tensors: &[&Operand]) -> Result<()> {
    for t in tensors {
        ensure!(
            t.zero_point() == 0,
            "tensor {} has zero point {}; TFLite Micro's INT16 {} takes 0",
            t.name,
            t.zero_point(),
            x.name
        );
    }
    Ok(())
}

/// `std::min(hi, std::max(lo, v))`, which unlike `clamp` takes lo > hi.
fn limit(v: i32, (lo, hi): (i32, i32)) -> i32 {
    v.max(lo).min(hi)
}

/// `std::min(std::max(x, lo), hi)` on floats: a NaN passes, infinities
/// become the bounds (with no activation, the largest finite floats).
fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x < lo { lo } else { x };
    if hi < x {
        hi
    } else {
        x
    }
}

/// TFLite's `CalculateActivationRange` for int32.
fn int32_range(act: Activation) -> (i32, i32) {
    match act {
        Activation::None => (i32::MIN, i32::MAX),
        Activation::Relu => (0, i32::MAX),
        Activation::ReluN1To1 => (-1, 1),
        Activation::Relu6 => (0, 6),
    }
}

/// GCC's `__builtin_clrsb` (TFLite's `CountLeadingSignBits`): 31 for 0.
fn leading_sign_bits(x: i32) -> i32 {
    (x ^ (x >> 31)).leading_zeros() as i32 - 1
}

/// TFLite's `GetReciprocal(x, 31)`: 1 / x as a Q0.31 fixed-point value and
/// the shift that scales it back. A zero divisor (which C shifts by 32
/// bits, leaving 0) gives one_over_one_plus_x(-1.0) and shift -1, which
/// the kernel goes on with.
fn reciprocal(x: i32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros();
    let shifted = (x as u32)
        .checked_shl(headroom_plus_one)
        .unwrap_or(0)
        .wrapping_sub(1 << 31) as i32;
    (one_over_one_plus_x(shifted), 31 - headroom_plus_one as i32)
}

/// gemmlowp's `one_over_one_plus_x_for_x_in_0_1` on int32 (Q0.31 in and
/// out): three Newton-Raphson steps in Q2.29 from 48/17 - 32/17 * d.
fn one_over_one_plus_x(a: i32) -> i32 {
    const ONE_Q2: i32 = 1 << 29;
    // RoundingHalfSum(a, 1.0): (a + max + sign) / 2, rounded away from zero.
    let sum = i64::from(a) + i64::from(i32::MAX);
    let half_denominator = ((sum + if sum >= 0 { 1 } else { -1 }) / 2) as i32;
    let mut x = 1_515_870_810i32.wrapping_add(doubling_high_mul(half_denominator, -1_010_580_540));
    for _ in 0..3 {
        let one_minus = ONE_Q2.wrapping_sub(doubling_high_mul(half_denominator, x));
        x = x.wrapping_add(saturating_shift_left(doubling_high_mul(x, one_minus), 2));
    }
    saturating_shift_left(x, 1)
}

/// gemmlowp's `SaturatingRoundingMultiplyByPOT` for a positive exponent.
fn saturating_shift_left(x: i32, exponent: u32) -> i32 {
    let threshold = (1i32 << (31 - exponent)) - 1;
    if x > threshold {
        i32::MAX
    } else if x < -threshold {
        i32::MIN
    } else {
        x << exponent
    }
}

/// gemmlowp's `RoundingDivideByPOT` on int32 as TFLite Micro's x86-64 build
/// computes it, exponents past 31 included (C leaves them undefined): the
/// mask `(1ll << e) - 1` truncates to all ones and the shift counts modulo
/// 32, so a non-negative `x` gains one. DIV reaches them for quotients far
/// below one output step.
fn rounding_divide_by_pot_x86(x: i32, exponent: i32) -> i32 {
    if exponent < 32 {
        rounding_divide_by_pot(x, exponent)
    } else {
        (x >> (exponent & 31)) + i32::from(x >= 0)
    }
}

/// Element values as the kernels compute with them: float32 as `f32`,
/// every integer type as `i64`.
pub(super) trait Value: Copy + PartialOrd + Send + Sync + 'static {
    /// Every element of `bytes`, of type `element`.
    fn decode(element: Element, bytes: &[u8]) -> Vec<Self>;
    /// Writes the value as element `i` of `bytes`, of type `element`
    /// (already in its range).
    fn store(self, element: Element, bytes: &mut [u8], i: usize);
}

impl Value for f32 {
    fn decode(_: Element, bytes: &[u8]) -> Vec<f32> {
        f32s(bytes)
    }

    fn store(self, _: Element, bytes: &mut [u8], i: usize) {
        bytes[4 * i..4 * i + 4].copy_from_slice(&self.to_le_bytes());
    }
}

impl Value for i64 {
    // One loop per type: Element::ints and Element::store copy a
    // variable number of bytes per element, several times slower.
    fn decode(element: Element, bytes: &[u8]) -> Vec<i64> {
        match element {
            I8 => bytes.iter().map(|&b| i64::from(b as i8)).collect(),
            I16 => bytes
                .chunks_exact(2)
                .map(|b| i16::from_le_bytes([b[0], b[1]]).into())
                .collect(),
            I32 => bytes
                .chunks_exact(4)
                .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]).into())
                .collect(),
            _ => element.ints(bytes),
        }
    }

    fn store(self, element: Element, bytes: &mut [u8], i: usize) {
        match element {
            I8 => bytes[i] = self as u8,
            I16 => bytes[2 * i..2 * i + 2].copy_from_slice(&(self as i16).to_le_bytes()),
            I32 => bytes[4 * i..4 * i + 4].copy_from_slice(&(self as i32).to_le_bytes()),
            _ => element.store(self, bytes, i),
        }
    }
}

/// A loop nest in row-major order over an iteration space, with the offsets
/// two operands take at each point: each steps through the space with its
/// own strides, 0 along dimensions it repeats (reference broadcast_loop.h's
/// fused loops). A binary operator walks its output with its two inputs; a
/// reduction walks its input with itself and its output.
#[derive(Debug, Clone, Default)]
pub(super) struct Walk {
    /// Loops, outermost first: extent and the two operands' strides.
    loops: Vec<[usize; 3]>,
    /// Some extent is 0: there is nothing to visit.
    empty: bool,
}

impl Walk {
    /// The walk over dimensions `[extent, stride_a, stride_b]`, outermost
    /// first. Loops of extent 1 are dropped, and a loop that the one
    /// outside it continues merged into it.
    pub(super) fn new(dims: impl IntoIterator<Item = [usize; 3]>) -> Walk {
        let mut walk = Walk::default();
        for [n, a, b] in dims {
            walk.empty |= n == 0;
            if n == 1 {
                continue;
            }
            match walk.loops.last_mut() {
                Some(outer) if outer[1] == a * n && outer[2] == b * n => {
                    *outer = [outer[0] * n, a, b];
                }
                _ => walk.loops.push([n, a, b]),
            }
        }
        walk
    }

    /// The walk over `output` of a binary operator's inputs `a` and `b`,
    /// which must broadcast to it: aligned at their last dimensions, each
    /// dimension the output's or 1, the output's the larger of the two.
    fn broadcast(a: &Operand, b: &Operand, output: &Operand) -> Result<Walk> {
        let rank = a.shape.len().max(b.shape.len()).max(output.shape.len());
        let extend = |t: &Operand| -> Vec<usize> {
            let mut s = vec![1; rank - t.shape.len()];
            s.extend(&t.shape);
            s
        };
        let (sa, sb, so) = (extend(a), extend(b), extend(output));
        let fits = (0..rank).all(|d| {
            let larger = if sa[d] == 1 { sb[d] } else { sa[d] };
            (sa[d] == sb[d] || sa[d] == 1 || sb[d] == 1) && so[d] == larger
        });
        ensure!(
            fits,
            "inputs {} {:?} and {} {:?} do not broadcast to output {} {:?}",
            a.name,
            a.shape,
            b.name,
            b.shape,
            output.name,
            output.shape
        );
        let (ta, tb) = (broadcast_strides(&sa), broadcast_strides(&sb));
        Ok(Walk::new((0..rank).map(|d| [so[d], ta[d], tb[d]])))
    }

    /// Calls `f(offset_a, offset_b)` at every point, in row-major order.
    pub(super) fn for_each(&self, mut f: impl FnMut(usize, usize)) {
        if self.empty {
            return;
        }
        let Some((&[n, step_a, step_b], outer)) = self.loops.split_last() else {
            f(0, 0);
            return;
        };
        let mut index = vec![0; outer.len()];
        let (mut a, mut b) = (0, 0);
        loop {
            for k in 0..n {
                f(a + k * step_a, b + k * step_b);
            }
            let mut d = outer.len();
            loop {
                let Some(up) = d.checked_sub(1) else {
                    return;
                };
                d = up;
                let [extent, da, db] = outer[d];
                index[d] += 1;
                a += da;
                b += db;
                if index[d] < extent {
                    break;
                }
                index[d] = 0;
                a -= da * extent;
                b -= db * extent;
            }
        }
    }
}

/// Row-major strides of `shape`, 0 along its dimensions of 1 (which
/// broadcast).
fn broadcast_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut step = 1;
    for d in (0..shape.len()).rev() {
        strides[d] = if shape[d] == 1 { 0 } else { step };
        step *= shape[d];
    }
    strides
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{Io, Value as Bytes};
    use super::*;

    /// A tensor for a test operator: quantised when `q` gives (scale, zero
    /// point), constant when `constant` gives its bytes.
    pub(in crate::tflite::host) fn tensor(
        shape: &[usize],
        element: Element,
        q: Option<(f32, i64)>,
        constant: Option<Vec<u8>>,
    ) -> Operand {
        Operand {
            index: 0,
            name: "t".into(),
            shape: shape.to_vec(),
            element,
            scales: q.map(|q| q.0).into_iter().collect(),
            zero_points: q.map(|q| q.1).into_iter().collect(),
            quantized_dimension: 0,
            constant,
            variable: false,
        }
    }

    /// Operator `name` of `inputs` into `output` with `options`.
    pub(in crate::tflite::host) fn desc(
        name: &str,
        inputs: Vec<Operand>,
        output: Operand,
        options: Option<super::super::fb::BuiltinOptions>,
    ) -> OpDesc {
        OpDesc {
            index: 0,
            name: name.into(),
            version: 1,
            inputs: inputs.into_iter().map(Some).collect(),
            outputs: vec![output],
            intermediates: Vec::new(),
            options,
        }
    }

    /// The error building `op` gives.
    pub(in crate::tflite::host) fn refusal(
        build: fn(&OpDesc) -> Result<Arc<dyn Kernel>>,
        op: &OpDesc,
    ) -> String {
        format!("{:#}", build(op).expect_err("refused"))
    }

    /// Runs `op`'s kernel on `inputs`' bytes, into its output's.
    pub(in crate::tflite::host) fn run(
        build: fn(&OpDesc) -> Result<Arc<dyn Kernel>>,
        op: &OpDesc,
        inputs: &[&[u8]],
    ) -> Result<Vec<u8>> {
        let mut io = Io {
            inputs: inputs.iter().map(|b| Bytes::Read(b)).collect(),
            outputs: vec![vec![0; op.outputs[0].bytes()]],
        };
        build(op)?.run(&mut io)?;
        Ok(io.outputs.remove(0))
    }

    fn i8s(v: &[i8]) -> Vec<u8> {
        v.iter().map(|&x| x as u8).collect()
    }

    #[test]
    fn refuses_what_tflite_micro_does_not_take() {
        let q = Some((0.05, 0));
        let t = |shape: &[usize], e| tensor(shape, e, q, None);
        let add = |a, b, y| desc("ADD", vec![a, b], y, None);
        let err = refusal(build, &add(t(&[2, 3], I8), t(&[4], I8), t(&[2, 3], I8)));
        assert!(err.contains("do not broadcast"), "{err}");
        let err = refusal(build, &add(t(&[2, 3], I8), t(&[3], I8), t(&[3, 3], I8)));
        assert!(err.contains("do not broadcast"), "{err}");
        let rank7 = [1, 1, 1, 1, 1, 2, 3];
        let err = refusal(build, &add(t(&rank7, I8), t(&[3], I8), t(&rank7, I8)));
        assert!(err.contains("rank 7"), "{err}");
        let err = refusal(build, &add(t(&[3], I8), t(&[3], I16), t(&[3], I8)));
        assert!(err.contains("INT16"), "{err}");
        // An output scale so small that the sum's rescale passes one.
        let tiny = tensor(&[3], I8, Some((1e-9, 0)), None);
        let err = refusal(build, &add(t(&[3], I8), t(&[3], I8), tiny));
        assert!(err.contains("outside (0, 1)"), "{err}");
        let zp = tensor(&[3], I16, Some((0.05, 3)), None);
        let mul = desc("MUL", vec![zp, t(&[3], I16)], t(&[3], I16), None);
        assert!(refusal(build, &mul).contains("zero point 3"));
        let huge = tensor(&[3], I8, Some((1e6, 0)), None);
        let div = desc("DIV", vec![huge, t(&[3], I8)], t(&[3], I8), None);
        assert!(refusal(build, &div).contains("outside the range"));
        let rank5 = [1, 1, 2, 2, 3];
        let f = |shape: &[usize]| tensor(shape, F32, None, None);
        let prelu = desc("PRELU", vec![f(&rank5), f(&[3])], f(&rank5), None);
        assert!(refusal(build, &prelu).contains("at most 4"));
        let int32 = desc("ADD", vec![t(&[3], I32), t(&[3], I32)], t(&[3], I32), None);
        assert!(refusal(build, &int32).contains("quantised"));
    }

    #[test]
    fn int32_division_by_zero_is_an_error() {
        let t = || tensor(&[2], I32, None, None);
        let div = desc("DIV", vec![t(), t()], t(), None);
        let bytes = |v: [i32; 2]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>();
        let (a, b) = (bytes([7, -7]), bytes([2, 2]));
        assert_eq!(run(build, &div, &[&a, &b]).unwrap(), bytes([3, -3]));
        let zero = bytes([2, 0]);
        let err = format!("{:#}", run(build, &div, &[&a, &zero]).unwrap_err());
        assert!(err.contains("division by zero"), "{err}");
        let (min, minus_one) = (bytes([i32::MIN, 1]), bytes([-1, 1]));
        assert!(run(build, &div, &[&min, &minus_one]).is_err());
    }

    #[test]
    fn floor_div_fails_on_a_zero_divisor_and_floor_mod_takes_the_divisor_sign() {
        let t = || tensor(&[3], F32, None, None);
        let bytes = |v: [f32; 3]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>();
        let div = desc("FLOOR_DIV", vec![t(), t()], t(), None);
        let (a, b) = (bytes([7.0, -7.0, 1.0]), bytes([2.0, 2.0, -0.0]));
        assert!(run(build, &div, &[&a, &b]).is_err());
        let b = bytes([2.0, 2.0, -3.0]);
        assert_eq!(
            run(build, &div, &[&a, &b]).unwrap(),
            bytes([3.0, -4.0, -1.0])
        );
        let rem = desc("FLOOR_MOD", vec![t(), t()], t(), None);
        assert_eq!(
            run(build, &rem, &[&a, &b]).unwrap(),
            bytes([1.0, 1.0, -2.0])
        );
    }

    #[test]
    fn int8_comparisons_meet_on_the_real_scale() {
        let b = tensor(&[2], I8, Some((0.25, 0)), None);
        let y = tensor(&[2], Bool, None, None);
        let equal = desc(
            "EQUAL",
            vec![tensor(&[2], I8, Some((0.5, 0)), None), b.clone()],
            y.clone(),
            None,
        );
        let got = run(build, &equal, &[&i8s(&[1, -3]), &i8s(&[2, -5])]).unwrap();
        assert_eq!(got, vec![1, 0]);
        // QuantizeMultiplierSmallerThanOneExp aborts on a scale of one or more.
        let wide = tensor(&[2], I8, Some((1.5, 0)), None);
        let less = desc("LESS", vec![wide, b], y, None);
        assert!(refusal(build, &less).contains("outside (0, 1)"));
    }

    #[test]
    fn int8_add_rounds_ties_away_from_zero() {
        // Equal input scales, the output's twice theirs: (a + b) / 2.
        let t = |s| tensor(&[4], I8, Some((s, 0)), None);
        let add = desc("ADD", vec![t(0.1), t(0.1)], t(0.2), None);
        let got = run(
            build,
            &add,
            &[&i8s(&[1, -1, 3, 127]), &i8s(&[0, 0, 0, 127])],
        )
        .unwrap();
        assert_eq!(got, i8s(&[1, -1, 2, 127]));
    }

    fn points(walk: &Walk) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        walk.for_each(|a, b| v.push((a, b)));
        v
    }

    #[test]
    fn walk_broadcasts_and_fuses() {
        // [2, 1, 3] against [1, 2, 1]: output [2, 2, 3].
        let walk = Walk::new([[2, 3, 0], [2, 0, 1], [3, 1, 0]]);
        assert_eq!(walk.loops.len(), 3);
        let got = points(&walk);
        assert_eq!(got.len(), 12);
        assert_eq!(&got[..6], &[(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]);
        assert_eq!(got[6], (3, 0));
        // Contiguous dimensions fuse into one loop; extents of 1 vanish.
        let walk = Walk::new([[4, 6, 0], [1, 0, 0], [2, 3, 0], [3, 1, 0]]);
        assert_eq!(walk.loops, vec![[24, 1, 0]]);
        assert_eq!(points(&Walk::new([])), vec![(0, 0)]);
        assert!(points(&Walk::new([[3, 1, 1], [0, 1, 1]])).is_empty());
    }

    #[test]
    fn reciprocal_matches_gemmlowp() {
        // 1 / 1: one_over_one_plus_x(0) is just below 1.0.
        let (r, shift) = reciprocal(1);
        assert_eq!(shift, 0);
        assert!(r > i32::MAX - 64, "{r}");
        // 1 / 3 = 0.6667 * 2^-1: x = 3 * 2^30 - 2^31 = 0.5 in Q0.31.
        let (r, shift) = reciprocal(3);
        assert_eq!(shift, 1);
        assert!((f64::from(r) / 2f64.powi(31) - 2.0 / 3.0).abs() < 1e-8);
        assert_eq!(leading_sign_bits(0), 31);
        assert_eq!(leading_sign_bits(1), 30);
        assert_eq!(leading_sign_bits(-1), 31);
        assert_eq!(leading_sign_bits(-256), 23);
    }

    #[test]
    fn wide_rounding_shifts_as_x86() {
        assert_eq!(rounding_divide_by_pot_x86(5, 1), 3);
        assert_eq!(rounding_divide_by_pot_x86(0, 40), 1);
        assert_eq!(rounding_divide_by_pot_x86(1 << 20, 39), (1 << 13) + 1);
        assert_eq!(rounding_divide_by_pot_x86(-(1 << 20), 39), -(1 << 13));
    }

    #[test]
    fn float_clamp_keeps_nan_and_bounds_infinities() {
        let (lo, hi) = Activation::None.float_range();
        assert!(clamp(f32::NAN, lo, hi).is_nan());
        assert_eq!(clamp(f32::INFINITY, lo, hi), f32::MAX);
        assert_eq!(clamp(f32::NEG_INFINITY, 0.0, 6.0), 0.0);
    }
}
