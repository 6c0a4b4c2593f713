//! FULLY_CONNECTED and BATCH_MATMUL: rows of the data against rows of the
//! weights, and broadcast batches of matrix products.

use super::super::arith::{type_range, Activation};
use super::super::{Element, Kernel, OpDesc};
use super::mac::{
    channel_multipliers, mac_kernel, product_multiplier, Accumulator, Factors, Products, Stage,
};
use super::{conv_sixteen, nonempty, Convolution};
use anyhow::{bail, ensure, Result};
use std::sync::Arc;
use Element::{F32, I16, I8};

/// FULLY_CONNECTED (reference_ops::FullyConnected,
/// reference_integer_ops::FullyConnected and FullyConnectedPerChannel):
/// each row of the input (its last dimension, the filter's) against each
/// row of the filter. The output's shape, whatever `keep_num_dims` made
/// it, gives the rows.
pub(super) fn fully_connected(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, FullyConnectedOptions);
    ensure!(
        o.weights_format == 0,
        "FULLY_CONNECTED has weights_format {} (shuffled); the host's takes DEFAULT (0)",
        o.weights_format
    );
    let activation = Activation::of(op, o.fused_activation_function)?;
    let operands = Convolution::of(op, 0, 1, 2)?;
    let (input, filter, output) = (operands.input, operands.filter, operands.output);
    for (what, t) in [("input", input), ("filter", filter), ("output", output)] {
        nonempty(op, what, t)?;
    }
    let &[.., units, depth] = filter.shape.as_slice() else {
        bail!(
            "FULLY_CONNECTED's filter {} has rank {}; it needs 2",
            filter.name,
            filter.shape.len()
        );
    };
    let rows = output.elements() / units;
    ensure!(
        filter.elements() == units * depth
            && output.shape.last() == Some(&units)
            && input.elements() == rows * depth,
        "FULLY_CONNECTED's input {:?}, filter {:?} and output {:?} do not make rows of {depth} \
         against {units} units",
        input.shape,
        filter.shape,
        output.shape
    );
    let per_channel = filter.scales.len() > 1;
    let multipliers = || {
        if per_channel {
            return channel_multipliers(input, filter, output, units);
        }
        if let Some(bias) = operands.bias {
            // GetQuantizedConvolutionMultipler: the bias's scale within 2%
            // of an output step of the product of scales.
            let product = f64::from(input.scale()? * filter.scale()?);
            let bias_scale = f64::from(bias.scales.first().copied().unwrap_or(0.0));
            ensure!(
                (product - bias_scale).abs() / f64::from(output.scale()?) <= 0.02,
                "FULLY_CONNECTED's bias {} has scale {bias_scale}, not the product {product} of \
                 its input's and filter's",
                bias.name
            );
        }
        Ok(vec![product_multiplier(input, filter, output)?; units])
    };
    let (stage, input_offset) = operands.stage(
        op,
        activation,
        units,
        multipliers,
        conv_sixteen(o.quantized_bias_type, true),
    )?;
    // Per-tensor weights less their zero point; per-channel ones as they are.
    let filter_offset = if per_channel || input.element == F32 {
        0
    } else {
        filter.zero_point()
    };
    let factors = Factors {
        data: (0, input_offset),
        weights: (1, filter_offset),
        bias: operands.bias.map(|_| 2),
    };
    let products = Dense { units, depth };
    mac_kernel("FULLY_CONNECTED", op, products, factors, stage)
}

struct Dense {
    units: usize,
    depth: usize,
}

impl Products for Dense {
    fn accumulate<A: Accumulator>(&self, x: &[A::Value], w: &[A::Value], sums: &mut [A]) {
        for (row, out) in sums.chunks_exact_mut(self.units).enumerate() {
            let xs = &x[row * self.depth..][..self.depth];
            for (sum, ws) in out.iter_mut().zip(w.chunks_exact(self.depth)) {
                *sum = xs
                    .iter()
                    .zip(ws)
                    .fold(A::default(), |s, (&a, &b)| s.mac(a, b));
            }
        }
    }
}

/// BATCH_MATMUL (reference_ops::BatchMatMul): `lhs x rhs` over batch
/// dimensions that broadcast, each matrix transposed first when
/// `adj_x`/`adj_y`; quantised with the product of the two scales, no
/// activation. Either input may be computed.
pub(super) fn batch_matmul(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, BatchMatMulOptions);
    let (lhs, rhs, output) = (op.input(0)?, op.input(1)?, op.output(0)?);
    for (what, t) in [("lhs", lhs), ("rhs", rhs), ("output", output)] {
        nonempty(op, what, t)?;
        ensure!(
            t.element == lhs.element,
            "BATCH_MATMUL's {what} {} is {} and its lhs {}; they must match",
            t.name,
            t.element,
            lhs.element
        );
        if what != "output" {
            ensure!(
                (2..=5).contains(&t.shape.len()),
                "BATCH_MATMUL's {what} {} has rank {}; it takes 2 to 5",
                t.name,
                t.shape.len()
            );
        }
    }
    let rank = lhs.shape.len().max(rhs.shape.len());
    let extend = |shape: &[usize]| {
        let mut dims = vec![1; rank - shape.len()];
        dims.extend_from_slice(shape);
        dims
    };
    let (l, r) = (extend(&lhs.shape), extend(&rhs.shape));
    let (rows, depth) = if o.adj_x {
        (l[rank - 1], l[rank - 2])
    } else {
        (l[rank - 2], l[rank - 1])
    };
    let (rhs_depth, cols) = if o.adj_y {
        (r[rank - 1], r[rank - 2])
    } else {
        (r[rank - 2], r[rank - 1])
    };
    ensure!(
        depth == rhs_depth,
        "BATCH_MATMUL's lhs {:?} (adj_x {}) and rhs {:?} (adj_y {}) do not share a depth",
        lhs.shape,
        o.adj_x,
        rhs.shape,
        o.adj_y
    );
    let pairs = broadcast_batches(&l[..rank - 2], &r[..rank - 2]).ok_or_else(|| {
        anyhow::anyhow!(
            "BATCH_MATMUL's batch dimensions {:?} and {:?} do not broadcast",
            &l[..rank - 2],
            &r[..rank - 2]
        )
    })?;
    // ReshapeOutputTensor: as many elements, and at least the rank.
    ensure!(
        output.elements() == pairs.len() * rows * cols && output.shape.len() >= rank,
        "BATCH_MATMUL's output {:?} is not {} batches of {rows}x{cols}",
        output.shape,
        pairs.len()
    );
    let stage = match lhs.element {
        // No activation: not even the clamp to the finite floats.
        F32 => Stage::Float((f32::NEG_INFINITY, f32::INFINITY)),
        I8 | I16 => {
            let wide = lhs.element == I16;
            if wide {
                for (what, t) in [("lhs", lhs), ("rhs", rhs), ("output", output)] {
                    ensure!(
                        t.zero_point() == 0,
                        "BATCH_MATMUL's int16 {what} {} has zero point {}; it must be 0",
                        t.name,
                        t.zero_point()
                    );
                }
            }
            let (multiplier, shift) = product_multiplier(lhs, rhs, output)?;
            Stage::quantized(
                vec![(multiplier, shift)],
                output.zero_point(),
                type_range(lhs.element),
                lhs.element,
                wide,
            )?
        }
        _ => return Err(op.unsupported("lhs", lhs)),
    };
    let products = MatMul {
        pairs,
        rows,
        cols,
        depth,
        lhs_strides: if o.adj_x { [1, rows] } else { [depth, 1] },
        rhs_strides: if o.adj_y { [1, depth] } else { [cols, 1] },
    };
    let factors = Factors {
        data: (0, lhs.zero_point()),
        weights: (1, rhs.zero_point()),
        bias: None,
    };
    mac_kernel("BATCH_MATMUL", op, products, factors, stage)
}

/// The lhs and rhs matrix of every output matrix, where batch dimensions
/// of 1 repeat; `None` where two differ otherwise.
fn broadcast_batches(lhs: &[usize], rhs: &[usize]) -> Option<Vec<(usize, usize)>> {
    let mut pairs = vec![(0, 0)];
    for (&a, &b) in lhs.iter().zip(rhs) {
        if a != b && a != 1 && b != 1 {
            return None;
        }
        let n = a.max(b);
        pairs = pairs
            .iter()
            .flat_map(|&(l, r)| {
                (0..n).map(move |i| {
                    (
                        l * a + if a == 1 { 0 } else { i },
                        r * b + if b == 1 { 0 } else { i },
                    )
                })
            })
            .collect();
    }
    Some(pairs)
}

/// Matrix products: `rows x depth` from the first factor, `depth x cols`
/// from the second, elements `strides` apart along (row, depth) and
/// (depth, column).
struct MatMul {
    pairs: Vec<(usize, usize)>,
    rows: usize,
    cols: usize,
    depth: usize,
    lhs_strides: [usize; 2],
    rhs_strides: [usize; 2],
}

impl Products for MatMul {
    fn accumulate<A: Accumulator>(&self, x: &[A::Value], w: &[A::Value], sums: &mut [A]) {
        let (lhs_size, rhs_size) = (self.rows * self.depth, self.depth * self.cols);
        let [li, lk] = self.lhs_strides;
        let [rk, rj] = self.rhs_strides;
        for (out, &(l, r)) in sums
            .chunks_exact_mut(self.rows * self.cols)
            .zip(&self.pairs)
        {
            let a = &x[l * lhs_size..][..lhs_size];
            let b = &w[r * rhs_size..][..rhs_size];
            for (i, out_row) in out.chunks_exact_mut(self.cols).enumerate() {
                for (j, sum) in out_row.iter_mut().enumerate() {
                    *sum = (0..self.depth).fold(A::default(), |s, k| {
                        s.mac(a[i * li + k * lk], b[k * rk + j * rj])
                    });
                }
            }
        }
    }
}
