//! RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR of [batch, height, width,
//! depth] tensors to the constant size input, with TFLite's coordinate
//! conventions (align_corners, half_pixel_centers) and arithmetic: single
//! precision for float32, 10-bit fixed point for int8.

use super::gather::blocks;
use super::Element::{F32, I32, I8};
use super::{constant_ints, output_shape, same_element, Planned};
use crate::tflite::host::{f32s, kernel, put_f32s, Kernel, OpDesc};
use anyhow::{anyhow, ensure, Result};
use std::sync::Arc;

/// The input's [batch, height, width, depth] and the output's [height,
/// width] from the size input, checked against the output tensor.
fn geometry(op: &OpDesc) -> Result<([usize; 4], [usize; 2])> {
    let input = op.input(0)?;
    let output = op.output(0)?;
    same_element(op, input, output)?;
    let dims: [usize; 4] = input.shape.as_slice().try_into().map_err(|_| {
        anyhow!(
            "input {} has shape {:?}, not rank 4",
            input.name,
            input.shape
        )
    })?;
    let size = constant_ints(op, 1, &[I32])?;
    ensure!(
        size.len() == 2 && size.iter().all(|&s| s > 0),
        "size {size:?} is not a height and a width"
    );
    let (h, w) = (size[0] as usize, size[1] as usize);
    output_shape(output, &[dims[0], h, w, dims[3]])?;
    Ok((dims, [h, w]))
}

/// reference_ops::GetNearestNeighbor: the input index output index `i`
/// takes, in single precision.
fn nearest_index(i: usize, input: usize, output: usize, align: bool, half: bool) -> usize {
    let scale = if align && output > 1 {
        (input - 1) as f32 / (output - 1) as f32
    } else {
        input as f32 / output as f32
    };
    let offset = if half { 0.5 } else { 0.0 };
    let at = (i as f32 + offset) * scale;
    let index = if align {
        at.round() as i32
    } else {
        at.floor() as i32
    };
    let index = index.min(input as i32 - 1);
    (if half { index.max(0) } else { index }) as usize
}

/// RESIZE_NEAREST_NEIGHBOR (resize_nearest_neighbor.cc): each output pixel
/// copies the depth vector of its nearest input pixel.
pub(super) fn nearest(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, ResizeNearestNeighborOptions);
    let ([batches, in_h, in_w, depth], [out_h, out_w]) = geometry(op)?;
    let (align, half) = (o.align_corners, o.half_pixel_centers);
    let pixel = depth * op.input(0)?.element.size();
    let mut offsets = Vec::with_capacity(batches * out_h * out_w);
    for b in 0..batches {
        for y in 0..out_h {
            let row = b * in_h + nearest_index(y, in_h, out_h, align, half);
            for x in 0..out_w {
                let column = nearest_index(x, in_w, out_w, align, half);
                offsets.push((row * in_w + column) * pixel);
            }
        }
    }
    Ok(blocks(
        "RESIZE_NEAREST_NEIGHBOR",
        pixel,
        Planned::Fixed(offsets),
    ))
}

/// Where output index `i` samples along one axis: the two input indices
/// either side and the distance past the first.
#[derive(Debug, Clone, Copy)]
struct Sample<W> {
    low: usize,
    high: usize,
    past: W,
}

/// ComputeInterpolationValues in single precision.
fn float_sample(i: usize, scale: f32, half: bool, input: usize) -> Sample<f32> {
    let at = if half {
        (i as f32 + 0.5) * scale - 0.5
    } else {
        i as f32 * scale
    };
    let last = input as i32 - 1;
    // TFLite bounds each index on one side only; the other bound keeps a
    // rounding slip inside the input, which TFLite's positions never need.
    let low = (at.floor() as i32).clamp(0, last);
    let high = (at.ceil() as i32).clamp(0, last);
    Sample {
        low: low as usize,
        high: high as usize,
        past: at - low as f32,
    }
}

/// ComputeInterpolationValuesInteger: positions in 1/1024ths, the past
/// distance too.
fn fixed_sample(i: usize, scale_10: i32, half: bool, input: usize) -> Sample<i32> {
    let at = if half {
        i as i32 * scale_10 + scale_10 / 2 - (1 << 9)
    } else {
        i as i32 * scale_10
    };
    let last = input as i32 - 1;
    let low = (at / (1 << 10)).clamp(0, last);
    let high = ((at + (1 << 10) - 1) / (1 << 10)).clamp(0, last);
    Sample {
        low: low as usize,
        high: high as usize,
        past: at - (1 << 10) * low,
    }
}

/// The samples of every output index along one axis.
fn samples<W>(n: usize, sample: impl Fn(usize) -> Sample<W>) -> Vec<Sample<W>> {
    (0..n).map(sample).collect()
}

/// Visits every output element with the input element offsets of its
/// four neighbours (low/high row, low/high column) and its two samples.
fn each_output<W: Copy>(
    [batches, in_h, in_w, depth]: [usize; 4],
    ys: &[Sample<W>],
    xs: &[Sample<W>],
    mut f: impl FnMut(usize, [usize; 4], W, W),
) {
    let mut out = 0;
    for b in 0..batches {
        for y in ys {
            let (r0, r1) = ((b * in_h + y.low) * in_w, (b * in_h + y.high) * in_w);
            for x in xs {
                let at = [
                    (r0 + x.low) * depth,
                    (r1 + x.low) * depth,
                    (r0 + x.high) * depth,
                    (r1 + x.high) * depth,
                ];
                for c in 0..depth {
                    f(out, at.map(|a| a + c), y.past, x.past);
                    out += 1;
                }
            }
        }
    }
}

/// RESIZE_BILINEAR (resize_bilinear.cc, reference_ops::ResizeBilinear and
/// ResizeBilinearInteger); align_corners and half_pixel_centers together
/// are refused, as TFLite Micro refuses them.
pub(super) fn bilinear(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, ResizeBilinearOptions);
    let (dims, [out_h, out_w]) = geometry(op)?;
    let (align, half) = (o.align_corners, o.half_pixel_centers);
    ensure!(
        !(align && half),
        "align_corners and half_pixel_centers together, which TFLite Micro refuses"
    );
    let [_, in_h, in_w, _] = dims;
    let aligned = |output: usize| align && output > 1;
    match op.input(0)?.element {
        F32 => {
            let scale = |input: usize, output: usize| match aligned(output) {
                true => (input - 1) as f32 / (output - 1) as f32,
                false => input as f32 / output as f32,
            };
            let (sy, sx) = (scale(in_h, out_h), scale(in_w, out_w));
            let ys = samples(out_h, |i| float_sample(i, sy, half, in_h));
            let xs = samples(out_w, |i| float_sample(i, sx, half, in_w));
            Ok(kernel("RESIZE_BILINEAR", move |io| {
                let x = f32s(io.input(0));
                let mut y = vec![0f32; io.output(0).len() / 4];
                each_output(dims, &ys, &xs, |out, [a, b, c, d], dy, dx| {
                    // The reference's products in its order, then + 0.
                    y[out] = x[a] * (1.0 - dy) * (1.0 - dx)
                        + x[b] * dy * (1.0 - dx)
                        + x[c] * (1.0 - dy) * dx
                        + x[d] * dy * dx
                        + 0.0;
                });
                put_f32s(y, io.output(0));
                Ok(())
            }))
        }
        I8 => {
            let scale = |input: usize, output: usize| -> i32 {
                let (i, o) = match aligned(output) {
                    true => (input as i32 - 1, output as i32 - 1),
                    false => (input as i32, output as i32),
                };
                ((1 << 10) * i + o / 2) / o
            };
            let (sy, sx) = (scale(in_h, out_h), scale(in_w, out_w));
            let ys = samples(out_h, |i| fixed_sample(i, sy, half, in_h));
            let xs = samples(out_w, |i| fixed_sample(i, sx, half, in_w));
            Ok(kernel("RESIZE_BILINEAR", move |io| {
                let (x, y) = io.input_output(0, 0);
                let one = 1i64 << 10;
                each_output(dims, &ys, &xs, |out, [a, b, c, d], dy, dx| {
                    let (dy, dx) = (i64::from(dy), i64::from(dx));
                    let v = |i: usize| i64::from(x[i] as i8);
                    let sum = v(a) * (one - dy) * (one - dx)
                        + v(b) * dy * (one - dx)
                        + v(c) * (one - dy) * dx
                        + v(d) * dy * dx;
                    // Rounds half away from zero (TFLITE_SINGLE_ROUNDING off).
                    let round = if sum > 0 { 1 << 19 } else { -(1 << 19) };
                    y[out] = ((sum + round) / (1 << 20)) as i8 as u8;
                });
                Ok(())
            }))
        }
        _ => Err(op.unsupported("input", op.input(0)?)),
    }
}
