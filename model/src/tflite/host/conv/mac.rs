//! What every product-summing operator of the family shares: operand
//! values, the three accumulators TFLite Micro's kernels use (int32 that
//! wraps, int64, float32) and the output stage that adds the bias, scales
//! each channel and clamps to the fused activation.

use super::super::arith::{
    multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_64, quantize_multiplier,
};
use super::super::{f32s, kernel, put_f32s, Element, Io, Kernel, OpDesc, Operand};
use anyhow::{bail, ensure, Result};
use std::borrow::Cow;
use std::sync::Arc;

/// An element as the kernels compute with it: an integer less its zero
/// point, a bias, or a float.
pub(super) trait Value: Copy + Default + Send + Sync + 'static {
    /// Every element of `bytes`, of type `element`; an integer less `offset`.
    fn decode(element: Element, bytes: &[u8], offset: i32) -> Vec<Self>;
    /// Writes `values` as elements of type `element` (already in range).
    fn encode(values: &[Self], element: Element, bytes: &mut [u8]);
}

impl Value for i32 {
    fn decode(element: Element, bytes: &[u8], offset: i32) -> Vec<i32> {
        // C adds the negated zero point in int32, wrapping for absurd ones.
        (0..bytes.len() / element.size())
            .map(|i| (element.load(bytes, i) as i32).wrapping_sub(offset))
            .collect()
    }

    fn encode(values: &[i32], element: Element, bytes: &mut [u8]) {
        for (i, &v) in values.iter().enumerate() {
            element.store(v.into(), bytes, i);
        }
    }
}

impl Value for i64 {
    fn decode(element: Element, bytes: &[u8], offset: i32) -> Vec<i64> {
        (0..bytes.len() / element.size())
            .map(|i| element.load(bytes, i).wrapping_sub(offset.into()))
            .collect()
    }

    fn encode(values: &[i64], element: Element, bytes: &mut [u8]) {
        element.put_ints(values.iter().copied(), bytes);
    }
}

impl Value for f32 {
    fn decode(_: Element, bytes: &[u8], _: i32) -> Vec<f32> {
        f32s(bytes)
    }

    fn encode(values: &[f32], _: Element, bytes: &mut [u8]) {
        put_f32s(values.iter().copied(), bytes);
    }
}

/// An operand's values: decoded once when constant, else at every run.
pub(super) enum Source<V> {
    Constant(Vec<V>),
    Input {
        index: usize,
        element: Element,
        offset: i32,
    },
}

impl<V: Value> Source<V> {
    /// Input `index` of `op`, less `offset` when an integer.
    pub fn new(op: &OpDesc, index: usize, offset: i32) -> Result<Source<V>> {
        let operand = op.input(index)?;
        Ok(match &operand.constant {
            Some(bytes) => Source::Constant(V::decode(operand.element, bytes, offset)),
            None => Source::Input {
                index,
                element: operand.element,
                offset,
            },
        })
    }

    pub fn values<'a>(&'a self, io: &Io<'_>) -> Cow<'a, [V]> {
        match self {
            Source::Constant(values) => Cow::Borrowed(values),
            Source::Input {
                index,
                element,
                offset,
            } => Cow::Owned(V::decode(*element, io.input(*index), *offset)),
        }
    }
}

/// A sum of products as one of TFLite Micro's kernels keeps it.
pub(super) trait Accumulator: Copy + Default + Send + Sync + 'static {
    /// The factors' type.
    type Value: Value;
    /// The bias's type.
    type Bias: Value;
    /// What turns a sum into an output element.
    type Stage: Send + Sync + 'static;
    /// `self + a * b`.
    fn mac(self, a: Self::Value, b: Self::Value) -> Self;
    /// Every output element from its sum (channels last): bias, scale, clamp.
    fn finish(sums: &[Self], bias: Option<&[Self::Bias]>, stage: &Self::Stage, out: &mut [u8]);
}

/// The int8 kernels' int32 sum, which wraps as the C sum does on the
/// x86-64 host TFLite Micro's reference runs on.
impl Accumulator for i32 {
    type Value = i32;
    type Bias = i64;
    type Stage = Requantizer;

    fn mac(self, a: i32, b: i32) -> i32 {
        self.wrapping_add(a.wrapping_mul(b))
    }

    fn finish(sums: &[i32], bias: Option<&[i64]>, stage: &Requantizer, out: &mut [u8]) {
        stage.write(sums, bias, out, |sum, bias, (multiplier, shift)| {
            multiply_by_quantized_multiplier(sum.wrapping_add(bias as i32), multiplier, shift)
        });
    }
}

/// The 16-bit kernels' int64 sum, scaled by the reduced-multiplier
/// `MultiplyByQuantizedMultiplier` for int64.
impl Accumulator for i64 {
    type Value = i32;
    type Bias = i64;
    type Stage = Requantizer;

    fn mac(self, a: i32, b: i32) -> i64 {
        self.wrapping_add(i64::from(a) * i64::from(b))
    }

    fn finish(sums: &[i64], bias: Option<&[i64]>, stage: &Requantizer, out: &mut [u8]) {
        stage.write(sums, bias, out, |sum, bias, (multiplier, shift)| {
            multiply_by_quantized_multiplier_64(sum.wrapping_add(bias), multiplier, shift)
        });
    }
}

/// Float32 sums, clamped to the activation's range (lowest and highest
/// finite floats without one).
impl Accumulator for f32 {
    type Value = f32;
    type Bias = f32;
    type Stage = (f32, f32);

    fn mac(self, a: f32, b: f32) -> f32 {
        self + a * b
    }

    fn finish(sums: &[f32], bias: Option<&[f32]>, &range: &(f32, f32), out: &mut [u8]) {
        let biased = sums.iter().enumerate().map(|(i, &sum)| match bias {
            Some(b) => sum + b[i % b.len()],
            None => sum,
        });
        put_f32s(biased.map(|v| clamp_float(v, range)), out);
    }
}

/// TFLite's `ActivationFunctionWithMinMax` on floats: `std::min(std::max(v,
/// lo), hi)`, which lets NaN through.
pub(super) fn clamp_float(v: f32, (lo, hi): (f32, f32)) -> f32 {
    let v = if v < lo { lo } else { v };
    if hi < v {
        hi
    } else {
        v
    }
}

/// The integer output stage: a multiplier and shift per output channel (the
/// same in every channel for per-tensor weights), the output's zero point
/// and the activation's range.
pub(super) struct Requantizer {
    channels: Vec<(i32, i32)>,
    zero_point: i32,
    range: (i32, i32),
    element: Element,
}

impl Requantizer {
    /// The stage for a kernel with `wide` (int64) or int32 sums. The shifts
    /// must be ones the scaling functions take without undefined shifts.
    pub fn new(
        channels: Vec<(i32, i32)>,
        zero_point: i32,
        range: (i32, i32),
        element: Element,
        wide: bool,
    ) -> Result<Requantizer> {
        // The int64 scaling shifts right by 15 - shift; the int32 one left
        // by the shift.
        let largest = if wide { 14 } else { 31 };
        if let Some(&(_, shift)) = channels.iter().find(|&&(_, s)| s > largest) {
            bail!(
                "an effective output scale of 2^{shift} is beyond the {} kernel's scaling",
                if wide { "64-bit" } else { "32-bit" }
            );
        }
        ensure!(!channels.is_empty(), "no output channels");
        Ok(Requantizer {
            channels,
            zero_point,
            range,
            element,
        })
    }

    fn write<A: Copy>(
        &self,
        sums: &[A],
        bias: Option<&[i64]>,
        out: &mut [u8],
        scale: impl Fn(A, i64, (i32, i32)) -> i32,
    ) {
        let n = self.channels.len();
        for (i, &sum) in sums.iter().enumerate() {
            let c = i % n;
            let scaled = scale(sum, bias.map_or(0, |b| b[c]), self.channels[c]);
            let v = scaled.wrapping_add(self.zero_point);
            let v = v.max(self.range.0).min(self.range.1);
            self.element.store(v.into(), out, i);
        }
    }
}

/// A kernel's output stage, which also picks its accumulator.
pub(super) enum Stage {
    Float((f32, f32)),
    Narrow(Requantizer),
    Wide(Requantizer),
}

impl Stage {
    pub fn quantized(
        channels: Vec<(i32, i32)>,
        zero_point: i32,
        range: (i32, i32),
        element: Element,
        wide: bool,
    ) -> Result<Stage> {
        let requantizer = Requantizer::new(channels, zero_point, range, element, wide)?;
        Ok(if wide {
            Stage::Wide(requantizer)
        } else {
            Stage::Narrow(requantizer)
        })
    }
}

/// TFLite's `PopulateConvolutionQuantizationParams`: for each of `channels`
/// output channels, `input_scale * filter_scale / output_scale` in double
/// precision as a multiplier and shift; one filter scale serves every
/// channel.
pub(super) fn channel_multipliers(
    input: &Operand,
    filter: &Operand,
    output: &Operand,
    channels: usize,
) -> Result<Vec<(i32, i32)>> {
    let (input_scale, output_scale) = (input.scale()?, output.scale()?);
    let scales = &filter.scales;
    match scales.len() {
        1 => {}
        n if n == channels && filter.shape.get(filter.quantized_dimension) == Some(&n) => {}
        0 => bail!("filter {} has no quantisation scale", filter.name),
        n => bail!(
            "filter {} has {n} scales along dimension {} for {channels} output channels",
            filter.name,
            filter.quantized_dimension
        ),
    }
    (0..channels)
        .map(|c| {
            let scale = f64::from(scales[c % scales.len()]);
            multiplier(
                f64::from(input_scale) * scale / f64::from(output_scale),
                output,
            )
        })
        .collect()
}

/// `real` as a multiplier and shift; refused unless a finite, non-negative
/// number, which the scaling functions take.
fn multiplier(real: f64, output: &Operand) -> Result<(i32, i32)> {
    ensure!(
        real.is_finite() && real >= 0.0,
        "output {} has an effective scale of {real}, not a finite non-negative number",
        output.name
    );
    Ok(quantize_multiplier(real))
}

/// TFLite's `GetQuantizedConvolutionMultipler` without a bias: the
/// product of the two scales in single precision, divided in double.
pub(super) fn product_multiplier(a: &Operand, b: &Operand, output: &Operand) -> Result<(i32, i32)> {
    let product = f64::from(a.scale()? * b.scale()?);
    multiplier(product / f64::from(output.scale()?), output)
}

/// How a kernel sums products: its loops, whatever the accumulator. `x`
/// and `w` are its two factors (data and weights, or the two matrices);
/// `sums` has one zeroed element per output element, channels last.
pub(super) trait Products: Send + Sync + 'static {
    fn accumulate<A: Accumulator>(&self, x: &[A::Value], w: &[A::Value], sums: &mut [A]);
}

/// Which inputs hold a product-summing kernel's factors and bias, and the
/// zero points its integer kernel subtracts from the factors (0 where
/// TFLite Micro's kernel ignores one).
pub(super) struct Factors {
    pub data: (usize, i32),
    pub weights: (usize, i32),
    pub bias: Option<usize>,
}

/// The kernel that sums `products` of the `factors` and finishes with
/// `stage`.
pub(super) fn mac_kernel<P: Products>(
    name: &'static str,
    op: &OpDesc,
    products: P,
    factors: Factors,
    stage: Stage,
) -> Result<Arc<dyn Kernel>> {
    match stage {
        Stage::Float(range) => Mac::<f32, P>::kernel(name, op, products, factors, range),
        Stage::Narrow(r) => Mac::<i32, P>::kernel(name, op, products, factors, r),
        Stage::Wide(r) => Mac::<i64, P>::kernel(name, op, products, factors, r),
    }
}

struct Mac<A: Accumulator, P> {
    products: P,
    data: Source<A::Value>,
    weights: Source<A::Value>,
    bias: Option<Source<A::Bias>>,
    stage: A::Stage,
    outputs: usize,
}

impl<A: Accumulator, P: Products> Mac<A, P> {
    fn kernel(
        name: &'static str,
        op: &OpDesc,
        products: P,
        factors: Factors,
        stage: A::Stage,
    ) -> Result<Arc<dyn Kernel>> {
        let mac = Mac::<A, P> {
            products,
            data: Source::new(op, factors.data.0, factors.data.1)?,
            weights: Source::new(op, factors.weights.0, factors.weights.1)?,
            bias: factors.bias.map(|b| Source::new(op, b, 0)).transpose()?,
            stage,
            outputs: op.output(0)?.elements(),
        };
        Ok(kernel(name, move |io| {
            mac.run(io);
            Ok(())
        }))
    }

    fn run(&self, io: &mut Io<'_>) {
        let x = self.data.values(io);
        let w = self.weights.values(io);
        let bias = self.bias.as_ref().map(|b| b.values(io));
        let mut sums = vec![A::default(); self.outputs];
        self.products.accumulate(&x, &w, &mut sums);
        A::finish(&sums, bias.as_deref(), &self.stage, io.output(0));
    }
}
