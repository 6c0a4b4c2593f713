//! CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV and the two pools: NHWC
//! images, a window sliding over them.

use super::super::arith::Activation;
use super::super::{kernel, Element, Kernel, OpDesc};
use super::mac::{
    channel_multipliers, clamp_float, mac_kernel, Accumulator, Factors, Products, Value,
};
use super::window::{Stepping, Window};
use super::{conv_sixteen, dims4, expect, Convolution, Sixteen};
use anyhow::{ensure, Result};
use std::borrow::Cow;
use std::sync::Arc;
use Element::{F32, I16, I32, I64, I8};

/// CONV_2D (reference_ops::Conv, reference_integer_ops::ConvPerChannel),
/// grouped when the filter is shallower than the input.
pub(super) fn conv(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, Conv2DOptions);
    let stepping = Stepping::new(
        op,
        o.padding,
        [o.stride_h, o.stride_w],
        [o.dilation_hfactor, o.dilation_wfactor],
    )?;
    let activation = Activation::of(op, o.fused_activation_function)?;
    let operands = Convolution::of(op, 0, 1, 2)?;
    let [batches, rows, cols, depth] = dims4(op, "input", operands.input)?;
    let [channels, filter_rows, filter_cols, filter_depth] = dims4(op, "filter", operands.filter)?;
    let [out_batches, out_rows, out_cols, out_depth] = dims4(op, "output", operands.output)?;
    ensure!(
        out_batches == batches && out_depth == channels,
        "CONV_2D's output has {out_batches} images of {out_depth} channels where its input has \
         {batches} and its filter {channels}"
    );
    ensure!(
        depth % filter_depth == 0 && channels % (depth / filter_depth) == 0,
        "CONV_2D's input depth {depth} is not a whole number of groups of its filter's \
         {filter_depth} that divides its {channels} output channels"
    );
    let window = Window::sliding(
        op,
        &stepping,
        batches,
        [rows, cols],
        [filter_rows, filter_cols],
        [out_rows, out_cols],
    )?;
    let (stage, input_offset) = operands.stage(
        op,
        activation,
        channels,
        || channel_multipliers(operands.input, operands.filter, operands.output, channels),
        conv_sixteen(o.quantized_bias_type, false),
    )?;
    let products = Conv {
        window,
        depth,
        filter_depth,
        channels,
        group_channels: channels / (depth / filter_depth),
    };
    mac_kernel(
        "CONV_2D",
        op,
        products,
        factors(0, input_offset, 1, op, 2),
        stage,
    )
}

/// Data from input `data` less `offset`, weights from input `weights`, and
/// the optional bias input `bias`.
fn factors(data: usize, offset: i32, weights: usize, op: &OpDesc, bias: usize) -> Factors {
    Factors {
        data: (data, offset),
        weights: (weights, 0),
        bias: op.optional_input(bias).map(|_| bias),
    }
}

struct Conv {
    window: Window,
    depth: usize,
    filter_depth: usize,
    channels: usize,
    group_channels: usize,
}

impl Products for Conv {
    fn accumulate<A: Accumulator>(&self, x: &[A::Value], w: &[A::Value], sums: &mut [A]) {
        let filter_size = self.window.filter_taps() * self.filter_depth;
        self.window.walk(|position, taps| {
            let out = &mut sums[position * self.channels..][..self.channels];
            for (channel, sum) in out.iter_mut().enumerate() {
                let first = channel / self.group_channels * self.filter_depth;
                let filter = &w[channel * filter_size..][..filter_size];
                for tap in taps {
                    let xs = &x[tap.pixel * self.depth + first..][..self.filter_depth];
                    let ws = &filter[tap.filter * self.filter_depth..][..self.filter_depth];
                    *sum = xs.iter().zip(ws).fold(*sum, |s, (&a, &b)| s.mac(a, b));
                }
            }
        });
    }
}

/// DEPTHWISE_CONV_2D (reference_ops::DepthwiseConv,
/// reference_integer_ops::DepthwiseConvPerChannel): output channel
/// `c * depth_multiplier + m` filters input channel `c`.
pub(super) fn depthwise(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, DepthwiseConv2DOptions);
    let stepping = Stepping::new(
        op,
        o.padding,
        [o.stride_h, o.stride_w],
        [o.dilation_hfactor, o.dilation_wfactor],
    )?;
    let activation = Activation::of(op, o.fused_activation_function)?;
    let operands = Convolution::of(op, 0, 1, 2)?;
    let [batches, rows, cols, depth] = dims4(op, "input", operands.input)?;
    let [one, filter_rows, filter_cols, channels] = dims4(op, "filter", operands.filter)?;
    let [out_batches, out_rows, out_cols, out_depth] = dims4(op, "output", operands.output)?;
    ensure!(
        one == 1,
        "DEPTHWISE_CONV_2D's filter has {one} in dimension 0, not 1"
    );
    // TFLite Micro's kernel loops over the options' multiplier.
    ensure!(
        out_batches == batches
            && out_depth == channels
            && usize::try_from(o.depth_multiplier).ok() == Some(channels / depth)
            && channels % depth == 0,
        "DEPTHWISE_CONV_2D's output has {out_batches} images of {out_depth} channels and its \
         filter {channels}, which its input's {batches} images of {depth} channels and depth \
         multiplier {} do not give",
        o.depth_multiplier
    );
    let window = Window::sliding(
        op,
        &stepping,
        batches,
        [rows, cols],
        [filter_rows, filter_cols],
        [out_rows, out_cols],
    )?;
    let (stage, input_offset) = operands.stage(
        op,
        activation,
        channels,
        || channel_multipliers(operands.input, operands.filter, operands.output, channels),
        // The 16-bit kernel takes an int64 bias only.
        Sixteen {
            narrow: &[],
            wide: &[I64],
            unbiased_wide: true,
            zero_points: false,
        },
    )?;
    let products = Depthwise {
        window,
        depth,
        multiplier: channels / depth,
    };
    mac_kernel(
        "DEPTHWISE_CONV_2D",
        op,
        products,
        factors(0, input_offset, 1, op, 2),
        stage,
    )
}

struct Depthwise {
    window: Window,
    depth: usize,
    multiplier: usize,
}

impl Products for Depthwise {
    fn accumulate<A: Accumulator>(&self, x: &[A::Value], w: &[A::Value], sums: &mut [A]) {
        let channels = self.depth * self.multiplier;
        // Each input channel repeated for its multiples, so that output
        // channels and their inputs line up.
        let x: Cow<[A::Value]> = if self.multiplier == 1 {
            Cow::Borrowed(x)
        } else {
            let repeated = x
                .iter()
                .flat_map(|&a| std::iter::repeat_n(a, self.multiplier));
            Cow::Owned(repeated.collect())
        };
        self.window.walk(|position, taps| {
            let out = &mut sums[position * channels..][..channels];
            for tap in taps {
                let xs = &x[tap.pixel * channels..][..channels];
                let ws = &w[tap.filter * channels..][..channels];
                for ((sum, &a), &b) in out.iter_mut().zip(xs).zip(ws) {
                    *sum = sum.mac(a, b);
                }
            }
        });
    }
}

/// TRANSPOSE_CONV (reference_ops::TransposeConv,
/// reference_integer_ops::TransposeConv): every input pixel scatters its
/// filter over the output. The window slides over the output image, one
/// position per input pixel, padded as TFLite pads a convolution from the
/// output to the input. Input 0, the output's shape, may be computed: the
/// kernel, as TFLite Micro's, takes the output tensor's shape instead.
pub(super) fn transpose_conv(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, TransposeConvOptions);
    let stepping = Stepping::new(op, o.padding, [o.stride_h, o.stride_w], [1, 1])?;
    let activation = Activation::of(op, o.fused_activation_function)?;
    let operands = Convolution::of(op, 2, 1, 3)?;
    let [batches, rows, cols, depth] = dims4(op, "input", operands.input)?;
    let [channels, filter_rows, filter_cols, filter_depth] = dims4(op, "filter", operands.filter)?;
    let [out_batches, out_rows, out_cols, out_depth] = dims4(op, "output", operands.output)?;
    ensure!(
        out_batches == batches && out_depth == channels && filter_depth == depth,
        "TRANSPOSE_CONV's output has {out_batches} images of {out_depth} channels where its \
         input has {batches} of {depth} and its filter {channels} of {filter_depth}"
    );
    let shape = op.input(0)?;
    expect(op, "output shape", shape, &[I32])?;
    if shape.constant.is_some() {
        let given = shape.constant_ints()?;
        ensure!(
            given
                .iter()
                .map(|&d| d as usize)
                .eq(operands.output.shape.iter().copied()),
            "TRANSPOSE_CONV's output shape {given:?} is not its output's {:?}",
            operands.output.shape
        );
    }
    let image = [out_rows, out_cols];
    let filter = [filter_rows, filter_cols];
    let window = Window {
        batches,
        image,
        positions: [rows, cols],
        filter,
        stride: stepping.stride,
        dilation: [1, 1],
        padding: stepping.positions(image, filter).1,
    };
    let (stage, input_offset) = operands.stage(
        op,
        activation,
        channels,
        || channel_multipliers(operands.input, operands.filter, operands.output, channels),
        // The 16-bit kernel widens an int16 bias to int64; it reads int32
        // as int64.
        Sixteen {
            narrow: &[],
            wide: &[I16, I64],
            unbiased_wide: true,
            zero_points: false,
        },
    )?;
    let products = TransposeConv {
        window,
        depth,
        channels,
    };
    mac_kernel(
        "TRANSPOSE_CONV",
        op,
        products,
        factors(2, input_offset, 1, op, 3),
        stage,
    )
}

struct TransposeConv {
    window: Window,
    depth: usize,
    channels: usize,
}

impl Products for TransposeConv {
    fn accumulate<A: Accumulator>(&self, x: &[A::Value], w: &[A::Value], sums: &mut [A]) {
        let filter_size = self.window.filter_taps() * self.depth;
        // Each output element sums input pixels in order, and each pixel's
        // channels in order, as the reference's scatter adds them.
        self.window.walk(|pixel, taps| {
            let xs = &x[pixel * self.depth..][..self.depth];
            for tap in taps {
                let out = &mut sums[tap.pixel * self.channels..][..self.channels];
                for (channel, sum) in out.iter_mut().enumerate() {
                    let ws = &w[channel * filter_size + tap.filter * self.depth..][..self.depth];
                    *sum = xs.iter().zip(ws).fold(*sum, |s, (&a, &b)| s.mac(a, b));
                }
            }
        });
    }
}

/// The two pools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pool {
    Average,
    Max,
}

/// AVERAGE_POOL_2D and MAX_POOL_2D (reference_ops and
/// reference_integer_ops AveragePool, MaxPool) over the taps inside the
/// image; the quantised ones need the output quantised as the input.
pub(super) fn pool(op: &OpDesc, pool: Pool) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, Pool2DOptions);
    let stepping = Stepping::new(op, o.padding, [o.stride_h, o.stride_w], [1, 1])?;
    let activation = Activation::of(op, o.fused_activation_function)?;
    let input = op.input(0)?;
    let output = op.output(0)?;
    let [batches, rows, cols, depth] = dims4(op, "input", input)?;
    let [out_batches, out_rows, out_cols, out_depth] = dims4(op, "output", output)?;
    ensure!(
        out_batches == batches && out_depth == depth,
        "{}'s output has {out_batches} images of {out_depth} channels where its input has \
         {batches} of {depth}",
        op.name
    );
    ensure!(
        o.filter_height > 0 && o.filter_width > 0,
        "{} has a {}x{} filter (height x width)",
        op.name,
        o.filter_height,
        o.filter_width
    );
    let filter = [o.filter_height as usize, o.filter_width as usize];
    let window = Window::sliding(
        op,
        &stepping,
        batches,
        [rows, cols],
        filter,
        [out_rows, out_cols],
    )?;
    if output.element != input.element {
        return Err(op.unsupported("output", output));
    }
    let element = input.element;
    let name = match pool {
        Pool::Average => "AVERAGE_POOL_2D",
        Pool::Max => "MAX_POOL_2D",
    };
    match (element, pool) {
        (F32, Pool::Average) => Ok(pool_kernel(
            name,
            window,
            depth,
            element,
            FloatMean(activation.float_range()),
        )),
        (F32, Pool::Max) => Ok(pool_kernel(
            name,
            window,
            depth,
            element,
            FloatMax(activation.float_range()),
        )),
        (I8 | I16, _) => {
            // PoolingPrepare: the scales within 1e-6 (in double), the zero
            // points equal.
            let (scale_in, scale_out) = (input.scale()?, output.scale()?);
            ensure!(
                (f64::from(scale_in) - f64::from(scale_out)).abs() <= 1e-6
                    && input.zero_point() == output.zero_point(),
                "{name}'s output {} is quantised with scale {scale_out} and zero point {}, its \
                 input with {scale_in} and {}; they must match",
                output.name,
                output.zero_point(),
                input.zero_point()
            );
            let range = activation.quantized_range(output)?;
            Ok(match pool {
                Pool::Average => pool_kernel(name, window, depth, element, IntMean(range)),
                Pool::Max => pool_kernel(
                    name,
                    window,
                    depth,
                    element,
                    IntMax(element.min() as i32, range),
                ),
            })
        }
        _ => Err(op.unsupported("input", input)),
    }
}

/// How a pool reduces the values of a window's taps: from `first`, adding
/// each tap's value in order, then finishing with the number of taps.
trait Reduce: Send + Sync + 'static {
    type Value: Value;
    fn first(&self) -> Self::Value;
    fn add(&self, so_far: Self::Value, value: Self::Value) -> Self::Value;
    fn finish(&self, total: Self::Value, count: usize) -> Self::Value;
}

/// The mean in float32, clamped.
struct FloatMean((f32, f32));

impl Reduce for FloatMean {
    type Value = f32;

    fn first(&self) -> f32 {
        0.0
    }

    fn add(&self, sum: f32, v: f32) -> f32 {
        sum + v
    }

    fn finish(&self, sum: f32, count: usize) -> f32 {
        clamp_float(sum / count as f32, self.0)
    }
}

/// The largest value by `std::max`, which keeps the first of a NaN pair,
/// from the lowest float, clamped.
struct FloatMax((f32, f32));

impl Reduce for FloatMax {
    type Value = f32;

    fn first(&self) -> f32 {
        f32::MIN
    }

    fn add(&self, max: f32, v: f32) -> f32 {
        if max < v {
            v
        } else {
            max
        }
    }

    fn finish(&self, max: f32, _: usize) -> f32 {
        clamp_float(max, self.0)
    }
}

/// The int32 sum divided by the count, rounding half away from zero,
/// clamped.
struct IntMean((i32, i32));

impl Reduce for IntMean {
    type Value = i32;

    fn first(&self) -> i32 {
        0
    }

    fn add(&self, sum: i32, v: i32) -> i32 {
        sum.wrapping_add(v)
    }

    fn finish(&self, sum: i32, count: usize) -> i32 {
        // The window positions TFLite computes always hold a tap.
        let n = count.max(1) as i32;
        let mean = if sum > 0 {
            sum.wrapping_add(n / 2) / n
        } else {
            sum.wrapping_sub(n / 2) / n
        };
        mean.max(self.0 .0).min(self.0 .1)
    }
}

/// The largest value, from the type's lowest (`.0`), clamped.
struct IntMax(i32, (i32, i32));

impl Reduce for IntMax {
    type Value = i32;

    fn first(&self) -> i32 {
        self.0
    }

    fn add(&self, max: i32, v: i32) -> i32 {
        max.max(v)
    }

    fn finish(&self, max: i32, _: usize) -> i32 {
        max.max(self.1 .0).min(self.1 .1)
    }
}

/// The pool of `channels`-deep images reducing each window with `reducer`.
fn pool_kernel<R: Reduce>(
    name: &'static str,
    window: Window,
    channels: usize,
    element: Element,
    reducer: R,
) -> Arc<dyn Kernel> {
    kernel(name, move |io| {
        let (x, y) = io.input_output(0, 0);
        let x = R::Value::decode(element, x, 0);
        let mut out = vec![reducer.first(); y.len() / element.size()];
        window.walk(|position, taps| {
            let totals = &mut out[position * channels..][..channels];
            for tap in taps {
                let values = &x[tap.pixel * channels..][..channels];
                for (total, &v) in totals.iter_mut().zip(values) {
                    *total = reducer.add(*total, v);
                }
            }
            for total in totals {
                *total = reducer.finish(*total, taps.len());
            }
        });
        R::Value::encode(&out, element, y);
        Ok(())
    })
}
