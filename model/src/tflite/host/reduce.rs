//! Reductions over axes (MEAN, SUM, REDUCE_MAX, REDUCE_MIN) and along one
//! axis (ARG_MAX, ARG_MIN), as TensorFlow Lite Micro's reference
//! kernels compute them (reduce_common.cc over reference/reduce.h,
//! arg_min_max.cc). A reduction folds its input in row-major order into
//! one accumulator per output element ([`Walk`]), which is also the order
//! of the float sums of reference_ops::Mean's 4D height-and-width special
//! case, so that case needs no path of its own. `keep_dims` changes only
//! the output's shape, which the model gives. The axes are read when the
//! model is loaded where they are constant, else on every run (TFLite Micro
//! reads them on every run).

use super::arith::{multiply_by_quantized_multiplier as rescale, type_range};
use super::binary::{multiplier, quantization, Value, Walk};
use super::{kernel, Element, Io, Kernel, OpDesc, Operand, Support, MAX_RANK};
use anyhow::{ensure, Result};
use std::sync::Arc;
use Element::{F32, I16, I32, I8};

pub(super) const OPERATORS: &[Support] = &[
    Support::new("MEAN", &[I8, I16, F32]),
    Support::new("SUM", &[I8, I16, F32]),
    Support::new("REDUCE_MAX", &[I8, F32]),
    Support::new("REDUCE_MIN", &[I8, F32]),
    Support::new("ARG_MAX", &[I8, F32]),
    Support::new("ARG_MIN", &[I8, F32]),
];

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let name = op.name_in(OPERATORS, "a reduction")?;
    let (input, axes, output) = (op.input(0)?, op.input(1)?, op.output(0)?);
    ensure!(
        axes.element == I32,
        "axis tensor {} is {}; TFLite Micro's {name} takes INT32",
        axes.name,
        axes.element
    );
    ensure!(input.elements() > 0, "input {} is empty", input.name);
    match name {
        "ARG_MAX" => arg(op, name, true),
        "ARG_MIN" => arg(op, name, false),
        _ => reduce(op, name, input, axes, output),
    }
}

/// MEAN, SUM, REDUCE_MAX and REDUCE_MIN over the axes `axes` holds: any
/// order, negative (counted from the end), repeated; ignored for a scalar.
fn reduce(
    op: &OpDesc,
    name: &'static str,
    input: &Operand,
    axes: &Operand,
    output: &Operand,
) -> Result<Arc<dyn Kernel>> {
    let e = input.element;
    if output.element != e {
        return Err(op.unsupported("output", output));
    }
    let shapes = Shapes {
        input: input.shape.clone(),
        output: output.shape.clone(),
    };
    let plan = match &axes.constant {
        Some(bytes) => Axes::Constant(shapes.plan(&I32.ints(bytes))?),
        None => Axes::Runtime(shapes),
    };
    let r = Reducer {
        name,
        plan,
        element: e,
        outputs: output.elements(),
    };
    Ok(match (name, e) {
        // Float sums in single precision, the mean then divided by the count
        // (reference_ops::Mean); SUM's ReduceGeneric adds in the same order.
        ("MEAN", F32) => r.kernel(
            0.0,
            |acc: f32, v| acc + v,
            |count| count as f32,
            |s, count| s / count,
        ),
        ("SUM", F32) => r.kernel(0.0, |acc: f32, v| acc + v, |_| (), |s, _| s),
        ("MEAN" | "SUM", _) => {
            let (si, zi) = quantization(input)?;
            let (so, zo) = quantization(output)?;
            let (m, shift) = multiplier(f64::from(si) / f64::from(so))?;
            let mean = name == "MEAN";
            let range = type_range(e);
            // The int32 sum wraps in C; the exact sum taken modulo 2^32 agrees.
            r.kernel(
                0,
                |acc: i64, v| acc + v,
                move |count| {
                    let (m, shift) = if mean {
                        fold_count(m, shift, count)
                    } else {
                        (m, shift)
                    };
                    (m, shift, i64::from(zi) * count as i64)
                },
                move |sum, &(m, shift, offset)| {
                    let out = rescale((sum - offset) as i32, m, shift).wrapping_add(zo);
                    out.max(range.0).min(range.1).into()
                },
            )
        }
        _ => {
            if e == I8 {
                // reduce_common.cc refuses a rescale for the extremes.
                ensure!(
                    input.scales.first() == output.scales.first()
                        && input.zero_point() == output.zero_point(),
                    "input {} and output {} are quantised apart, which TFLite Micro's {name} \
                     refuses",
                    input.name,
                    output.name
                );
            }
            let max = name == "REDUCE_MAX";
            // Starting from the type's extremes: a float input of only
            // -inf (or NaN) gives the lowest finite float.
            match (e, max) {
                (F32, true) => r.kernel(
                    f32::MIN,
                    |acc, v| if v > acc { v } else { acc },
                    |_| (),
                    unchanged,
                ),
                (F32, false) => r.kernel(
                    f32::MAX,
                    |acc, v| if v < acc { v } else { acc },
                    |_| (),
                    unchanged,
                ),
                (_, true) => r.kernel(
                    e.min(),
                    |acc, v| if v > acc { v } else { acc },
                    |_| (),
                    unchanged,
                ),
                (_, false) => r.kernel(
                    e.max(),
                    |acc, v| if v < acc { v } else { acc },
                    |_| (),
                    unchanged,
                ),
            }
        }
    })
}

/// A reduction's result as it is written.
fn unchanged<V>(v: V, _: &()) -> V {
    v
}

/// QuantizedMeanOrSum's fold of 1 / `count` into the multiplier, moving up
/// to 32 bits of it into the shift (and no more than keeps the shift at or
/// above -31).
fn fold_count(m: i32, shift: i32, count: usize) -> (i32, i32) {
    let bits = (63 - (count as u64).leading_zeros() as i32)
        .min(32)
        .min(31 + shift);
    (((i64::from(m) << bits) / count as i64) as i32, shift - bits)
}

/// The input and output shapes of a reduction, to plan it by.
#[derive(Debug, Clone)]
struct Shapes {
    input: Vec<usize>,
    output: Vec<usize>,
}

/// How a reduction walks its input: into which output element each input
/// element goes, and how many go into each.
#[derive(Debug, Clone)]
struct Plan {
    walk: Walk,
    count: usize,
}

impl Shapes {
    /// The plan for reducing over `axes`, which must name dimensions of the
    /// input and leave as many elements as the output has.
    fn plan(&self, axes: &[i64]) -> Result<Plan> {
        let rank = self.input.len();
        let mut reduced = vec![false; rank];
        if rank > 0 {
            for &axis in axes {
                let resolved = if axis < 0 { axis + rank as i64 } else { axis };
                ensure!(
                    (0..rank as i64).contains(&resolved),
                    "axis {axis} is outside a rank-{rank} input"
                );
                reduced[resolved as usize] = true;
            }
        }
        let count: usize = (0..rank)
            .filter(|&d| reduced[d])
            .map(|d| self.input[d])
            .product();
        let outputs = self.input.iter().product::<usize>() / count;
        let output_elements: usize = self.output.iter().product();
        ensure!(
            output_elements == outputs,
            "output {:?} has {output_elements} elements where reducing input {:?} over axes {:?} \
             gives {outputs}",
            self.output,
            self.input,
            (0..rank).filter(|&d| reduced[d]).collect::<Vec<_>>()
        );
        Ok(Plan {
            walk: reduce_walk(&self.input, &reduced),
            count,
        })
    }
}

/// The axes of a reduction: planned when the model is loaded, or read from
/// their tensor (input 1) on every run.
#[derive(Debug, Clone)]
enum Axes {
    Constant(Plan),
    Runtime(Shapes),
}

impl Axes {
    /// The plan for this run.
    fn plan(&self, io: &Io<'_>) -> Result<std::borrow::Cow<'_, Plan>> {
        Ok(match self {
            Axes::Constant(plan) => std::borrow::Cow::Borrowed(plan),
            Axes::Runtime(shapes) => std::borrow::Cow::Owned(shapes.plan(&I32.ints(io.input(1)))?),
        })
    }
}

/// The walk over `shape` of its row-major offsets and those of the output
/// element each point reduces into (its `reduced` dimensions dropped).
fn reduce_walk(shape: &[usize], reduced: &[bool]) -> Walk {
    let mut dims = vec![[0; 3]; shape.len()];
    let (mut input_step, mut output_step) = (1, 1);
    for d in (0..shape.len()).rev() {
        dims[d] = [
            shape[d],
            input_step,
            if reduced[d] { 0 } else { output_step },
        ];
        input_step *= shape[d];
        if !reduced[d] {
            output_step *= shape[d];
        }
    }
    Walk::new(dims)
}

/// A reduction being built: how it walks its input into its outputs.
struct Reducer {
    name: &'static str,
    plan: Axes,
    element: Element,
    outputs: usize,
}

impl Reducer {
    /// The kernel folding each output's inputs with `step` from `init`, in
    /// `V` (float32 as `f32`, integers as `i64`), and writing `finish` of
    /// the result, given what `prepare` works out from the number of inputs
    /// per output once per run.
    fn kernel<V: Value, S: 'static>(
        self,
        init: V,
        step: impl Fn(V, V) -> V + Send + Sync + 'static,
        prepare: impl Fn(usize) -> S + Send + Sync + 'static,
        finish: impl Fn(V, &S) -> V + Send + Sync + 'static,
    ) -> Arc<dyn Kernel> {
        let Reducer {
            name,
            plan,
            element,
            outputs,
        } = self;
        kernel(name, move |io| {
            let plan = plan.plan(io)?;
            let scale = prepare(plan.count);
            let x = V::decode(element, io.input(0));
            let mut acc = vec![init; outputs];
            plan.walk.for_each(|i, o| acc[o] = step(acc[o], x[i]));
            let y = io.output(0);
            for (o, v) in acc.into_iter().enumerate() {
                finish(v, &scale).store(element, y, o);
            }
            Ok(())
        })
    }
}

/// ARG_MAX and ARG_MIN along the axis the first element of the axis tensor
/// names, into int32 indices: the first index of the extreme, by plain `>`
/// and `<` (arg_min_max.cc's GreaterFn and LessFn), so a NaN is never
/// taken unless it comes first, and then kept.
fn arg(op: &OpDesc, name: &'static str, max: bool) -> Result<Arc<dyn Kernel>> {
    let (input, axes, output) = (op.input(0)?, op.input(1)?, op.output(0)?);
    if output.element != I32 {
        return Err(op.unsupported("output", output));
    }
    let rank = input.shape.len();
    ensure!(
        (1..=MAX_RANK).contains(&rank),
        "input {} has rank {rank}; TFLite Micro's {name} takes 1 to {MAX_RANK}",
        input.name
    );
    ensure!(axes.elements() > 0, "axis tensor {} is empty", axes.name);
    let shapes = Shapes {
        input: input.shape.clone(),
        output: output.shape.clone(),
    };
    let axis = match &axes.constant {
        Some(bytes) => Some(shapes.along(I32.load(bytes, 0))?),
        None => None,
    };
    Ok(if input.element == F32 {
        arg_kernel::<f32>(name, F32, shapes, axis, max)
    } else {
        arg_kernel::<i64>(name, input.element, shapes, axis, max)
    })
}

impl Shapes {
    /// The lengths along `axis` and inside it, which must name a dimension
    /// of the input and leave as many elements as the output has.
    fn along(&self, axis: i64) -> Result<[usize; 2]> {
        let rank = self.input.len() as i64;
        ensure!(
            (-rank..rank).contains(&axis),
            "axis {axis} is outside a rank-{rank} input"
        );
        let d = axis.rem_euclid(rank) as usize;
        let outer: usize = self.input[..d].iter().product();
        let inner: usize = self.input[d + 1..].iter().product();
        let output_elements: usize = self.output.iter().product();
        ensure!(
            output_elements == outer * inner,
            "output {:?} has {output_elements} elements where input {:?} along axis {axis} gives {}",
            self.output,
            self.input,
            outer * inner
        );
        Ok([self.input[d], inner])
    }
}

/// The index kernel over blocks of `length` rows of `inner` `V` values,
/// `along` the axis given or, when `None`, the one input 1 holds on the run.
fn arg_kernel<V: Value>(
    name: &'static str,
    element: Element,
    shapes: Shapes,
    along: Option<[usize; 2]>,
    max: bool,
) -> Arc<dyn Kernel> {
    kernel(name, move |io| {
        let [length, inner] = match along {
            Some(along) => along,
            None => shapes.along(I32.load(io.input(1), 0))?,
        };
        let (x, y) = io.input_output(0, 0);
        let x = V::decode(element, x);
        for (o, block) in x.chunks_exact(length * inner).enumerate() {
            for i in 0..inner {
                let (mut best, mut index) = (block[i], 0);
                for k in 1..length {
                    let v = block[k * inner + i];
                    let better = if max { v > best } else { v < best };
                    if better {
                        (best, index) = (v, k);
                    }
                }
                I32.store(index as i64, y, o * inner + i);
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::super::binary::tests::{desc, refusal, run, tensor};
    use super::super::fb::{BuiltinOptions, ReducerOptions};
    use super::*;
    use Element::I64;

    fn axes(v: &[i32]) -> Operand {
        let bytes = v.iter().flat_map(|a| a.to_le_bytes()).collect();
        tensor(&[v.len()], I32, None, Some(bytes))
    }

    #[test]
    fn refuses_what_tflite_micro_does_not_take() {
        let q = Some((0.05, 0));
        let x = || tensor(&[2, 3, 4], I8, q, None);
        let mean = |axes, y| desc("MEAN", vec![x(), axes], y, None);
        let err = refusal(build, &mean(axes(&[3]), tensor(&[2, 3], I8, q, None)));
        assert!(err.contains("axis 3 is outside a rank-3 input"), "{err}");
        let err = refusal(build, &mean(axes(&[-4]), tensor(&[2, 3], I8, q, None)));
        assert!(err.contains("axis -4"), "{err}");
        let err = refusal(build, &mean(axes(&[1]), tensor(&[2, 3], I8, q, None)));
        assert!(err.contains("gives 8"), "{err}");
        let wide = tensor(&[1], I64, None, Some(vec![0; 8]));
        let err = refusal(build, &mean(wide, tensor(&[3, 4], I8, q, None)));
        assert!(err.contains("INT64"), "{err}");
        let apart = tensor(&[2, 4], I8, Some((0.1, 0)), None);
        let max = desc("REDUCE_MAX", vec![x(), axes(&[1])], apart, None);
        assert!(refusal(build, &max).contains("quantised apart"));
        let indices = tensor(&[2, 4], I64, None, None);
        let arg = desc("ARG_MAX", vec![x(), axes(&[1])], indices, None);
        assert!(refusal(build, &arg).contains("INT64"));
    }

    #[test]
    fn axes_given_at_run_time_are_checked_on_every_run() {
        let q = Some((0.5, 0));
        let axes = tensor(&[1], I32, None, None);
        let mean = desc(
            "MEAN",
            vec![tensor(&[2, 3], I8, q, None), axes.clone()],
            tensor(&[2], I8, q, None),
            None,
        );
        let x: Vec<u8> = [1i8, 2, 2, -1, -2, -2].iter().map(|&v| v as u8).collect();
        let axis = |a: i32| a.to_le_bytes().to_vec();
        assert_eq!(
            run(build, &mean, &[&x, &axis(1)]).unwrap(),
            vec![2, (-2i8) as u8]
        );
        let err = format!("{:#}", run(build, &mean, &[&x, &axis(0)]).unwrap_err());
        assert!(err.contains("gives 3"), "{err}");
        assert!(run(build, &mean, &[&x, &axis(2)]).is_err());
        let indices = tensor(&[3], I32, None, None);
        let arg = desc(
            "ARG_MIN",
            vec![tensor(&[2, 3], I8, q, None), axes],
            indices,
            None,
        );
        let zeros = vec![0, 0, 0, 0, 0, 0];
        // Column minima of [[1, 2, 2], [-1, -2, -2]]: row 1 each.
        let ones: Vec<u8> = [1i32; 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(run(build, &arg, &[&x, &axis(-2)]).unwrap(), ones);
        assert!(run(build, &arg, &[&zeros, &axis(1)]).is_err());
    }

    #[test]
    fn int8_mean_folds_the_count_into_the_multiplier() {
        // Mean of 3 equal-scale values: (1 + 2 + 2) / 3 = 1.67 -> 2, and
        // (-1 - 2 - 2) / 3 -> -2; keep_dims only shapes the output.
        let q = Some((0.5, 0));
        let options = Some(BuiltinOptions::ReducerOptions(Box::new(ReducerOptions {
            keep_dims: true,
        })));
        let mean = desc(
            "MEAN",
            vec![tensor(&[2, 3], I8, q, None), axes(&[-1])],
            tensor(&[2, 1], I8, q, None),
            options,
        );
        let x: Vec<u8> = [1i8, 2, 2, -1, -2, -2].iter().map(|&v| v as u8).collect();
        assert_eq!(
            run(build, &mean, &[&x, &[]]).unwrap(),
            vec![2, (-2i8) as u8]
        );
    }

    #[test]
    fn reduce_walk_maps_inputs_to_outputs() {
        // [2, 3, 4] over axis 1: output [2, 4].
        let walk = reduce_walk(&[2, 3, 4], &[false, true, false]);
        let mut seen = Vec::new();
        walk.for_each(|i, o| seen.push((i, o)));
        assert_eq!(seen.len(), 24);
        assert_eq!(seen[5], (5, 1));
        assert_eq!(seen[13], (13, 5));
        // Every axis: one output.
        let walk = reduce_walk(&[2, 3], &[true, true]);
        let mut outputs = Vec::new();
        walk.for_each(|_, o| outputs.push(o));
        assert_eq!(outputs, vec![0; 6]);
    }
}
