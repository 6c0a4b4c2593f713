//! Operators that move elements without arithmetic (reshapes, slices,
//! concatenation and splits, pads, transposes, tiles, reverses, gathers)
//! and the resizes, as TensorFlow Lite Micro's reference kernels compute
//! them (LiteRT's for TILE, which TFLite Micro lacks).
//!
//! Every fixed pattern of movement is worked out when the model is loaded
//! as a few [`StridedCopy`]s, one loop for every operator; a pattern that
//! hangs on a tensor computed at run time (a slice's begin, a reverse's
//! axes) is worked out on each run from it ([`Planned`]). Data movement
//! does not look at element values, so one kernel serves every type an
//! operator takes.

mod arrange;
mod copy;
mod gather;
mod reshape;
mod resize;
mod slice;

// The options! macro names `super::fb` from the submodules.
use super::fb;
use super::{kernel, Element, Io, Kernel, OpDesc, Operand, Support};
use anyhow::{bail, ensure, Result};
use copy::StridedCopy;
use std::sync::Arc;
use Element::{Bool, F32, I16, I32, I64, I8, U8};

/// Every type the host has: what the operators that only copy bytes take.
const ANY: &[Element] = &[Bool, I8, U8, I16, I32, I64, F32];

pub(super) const OPERATORS: &[Support] = &[
    Support::new("CONCATENATION", &[Bool, I8, I16, I32, I64, F32]),
    Support::new("RESHAPE", ANY),
    Support::new("SQUEEZE", ANY),
    Support::new("EXPAND_DIMS", &[I8, I16, F32]),
    Support::new("PAD", &[I8, I16, I32, F32]),
    Support::new("PADV2", &[I8, I16, I32, F32]),
    Support::new("MIRROR_PAD", &[I8, F32]),
    Support::new("STRIDED_SLICE", &[Bool, I8, I16, I32, F32]),
    Support::new("SLICE", &[Bool, I8, I16, I32, F32]),
    Support::keyed("SPLIT", 1, &[I8, I16, I32, F32]),
    Support::new("SPLIT_V", &[I8, I16, I32, F32]),
    Support::new("PACK", &[I8, I16, I32, I64, F32]),
    Support::new("UNPACK", &[I8, I16, I32, F32]),
    Support::new("TRANSPOSE", &[I8, I16, F32]),
    Support::new("GATHER", &[I8, F32]),
    Support::new("GATHER_ND", &[I8, F32]),
    Support::new("SPACE_TO_DEPTH", &[I8, F32]),
    Support::new("DEPTH_TO_SPACE", &[I8, F32]),
    Support::keyed("FILL", 1, &[I8, I32, F32]),
    Support::new("ZEROS_LIKE", &[I8, I32, I64, F32]),
    Support::new("SHAPE", ANY),
    Support::new("TILE", ANY),
    Support::new("REVERSE_V2", ANY),
    Support::new("RESIZE_BILINEAR", &[I8, F32]),
    Support::new("RESIZE_NEAREST_NEIGHBOR", &[I8, I16, F32]),
];

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    match op.name.as_str() {
        "RESHAPE" => reshape::reshape(op),
        "SQUEEZE" => reshape::squeeze(op),
        "EXPAND_DIMS" => reshape::expand_dims(op),
        "SHAPE" => reshape::shape(op),
        "FILL" => reshape::fill(op),
        "ZEROS_LIKE" => reshape::zeros_like(op),
        "CONCATENATION" => slice::concatenation(op),
        "PACK" => slice::pack(op),
        "SPLIT" => slice::split(op),
        "SPLIT_V" => slice::split_v(op),
        "UNPACK" => slice::unpack(op),
        "SLICE" => slice::slice(op),
        "STRIDED_SLICE" => slice::strided_slice(op),
        "PAD" | "PADV2" => arrange::pad(op),
        "MIRROR_PAD" => arrange::mirror_pad(op),
        "TRANSPOSE" => arrange::transpose(op),
        "SPACE_TO_DEPTH" => arrange::space_to_depth(op),
        "DEPTH_TO_SPACE" => arrange::depth_to_space(op),
        "TILE" => arrange::tile(op),
        "REVERSE_V2" => arrange::reverse(op),
        "GATHER" => gather::gather(op),
        "GATHER_ND" => gather::gather_nd(op),
        "RESIZE_BILINEAR" => resize::bilinear(op),
        "RESIZE_NEAREST_NEIGHBOR" => resize::nearest(op),
        other => bail!("{other} is not a layout operator"),
    }
}

/// Something an operator works out from some of its inputs (a slice's
/// begin, a gather's indices): once when the model is loaded where they
/// are constant, else on every run, where a value it refuses is a run-time
/// error as TFLite Micro's kTfLiteError is.
enum Planned<T> {
    Fixed(T),
    PerRun { inputs: Vec<usize>, plan: PlanFn<T> },
}

type PlanFn<T> = Box<dyn Fn(&[&[u8]]) -> Result<T> + Send + Sync>;

impl<T> Planned<T> {
    /// `plan` of the bytes of `inputs`.
    fn new(
        op: &OpDesc,
        inputs: &[usize],
        plan: impl Fn(&[&[u8]]) -> Result<T> + Send + Sync + 'static,
    ) -> Result<Planned<T>> {
        let mut constants = Vec::new();
        for &i in inputs {
            match &op.input(i)?.constant {
                Some(bytes) => constants.push(bytes.as_slice()),
                None => {
                    return Ok(Planned::PerRun {
                        inputs: inputs.to_vec(),
                        plan: Box::new(plan),
                    })
                }
            }
        }
        Ok(Planned::Fixed(plan(&constants)?))
    }

    /// Runs `f` with the plan for this run's inputs.
    fn run(&self, io: &mut Io<'_>, f: impl FnOnce(&T, &mut Io<'_>)) -> Result<()> {
        match self {
            Planned::Fixed(t) => f(t, io),
            Planned::PerRun { inputs, plan } => {
                let t = {
                    let bytes: Vec<&[u8]> = inputs.iter().map(|&i| io.input(i)).collect();
                    plan(&bytes)?
                };
                f(&t, io);
            }
        }
        Ok(())
    }
}

/// One strided copy from an input into an output.
#[derive(Debug, Clone)]
struct Move {
    input: usize,
    output: usize,
    copy: StridedCopy,
}

impl Move {
    fn apply(&self, io: &mut Io<'_>) {
        let (x, y) = io.input_output(self.input, self.output);
        self.copy.apply(x, y);
    }
}

/// What a kernel writes over its output before the moves: nothing (the
/// output starts zeroed), an element's bytes, or the value of an input.
#[derive(Debug, Clone)]
enum Fill {
    Zero,
    Bytes(Vec<u8>),
    Input(usize),
}

impl Fill {
    fn apply(&self, io: &mut Io<'_>, element: usize) {
        let value = match self {
            Fill::Zero => return,
            Fill::Bytes(b) => b.clone(),
            Fill::Input(i) => io.input(*i)[..element].to_vec(),
        };
        for chunk in io.output(0).chunks_exact_mut(element) {
            chunk.copy_from_slice(&value);
        }
    }
}

/// The kernel that fills output 0 as `fill` says, then makes the moves
/// `plan` gives.
fn movement(
    name: &'static str,
    element: Element,
    fill: Fill,
    plan: Planned<Vec<Move>>,
) -> Arc<dyn Kernel> {
    kernel(name, move |io| {
        fill.apply(io, element.size());
        plan.run(io, |moves, io| moves.iter().for_each(|m| m.apply(io)))
    })
}

/// The kernel whose moves are worked out now.
fn fixed_movement(name: &'static str, element: Element, moves: Vec<Move>) -> Arc<dyn Kernel> {
    movement(name, element, Fill::Zero, Planned::Fixed(moves))
}

/// Input 0 and output 0 as a copy between them sees them: the element
/// size and their lengths in elements.
#[derive(Debug, Clone, Copy)]
struct Ends {
    element: usize,
    input: usize,
    output: usize,
}

impl Ends {
    fn of(op: &OpDesc) -> Result<Ends> {
        let (input, output) = (op.input(0)?, op.output(0)?);
        Ok(Ends {
            element: input.element.size(),
            input: input.elements(),
            output: output.elements(),
        })
    }

    /// The one move of input 0 into output 0 along `axes` (outermost
    /// first, strides in elements) from input element `src_start`.
    fn one(&self, src_start: usize, axes: &[copy::Axis]) -> Result<Vec<Move>> {
        let copy = StridedCopy::new(self.element, src_start, 0, axes, self.input, self.output)?;
        Ok(vec![Move {
            input: 0,
            output: 0,
            copy,
        }])
    }
}

/// Refuses an output whose element type is not the input's.
fn same_element(op: &OpDesc, input: &Operand, output: &Operand) -> Result<()> {
    if output.element != input.element {
        return Err(op.unsupported("output", output));
    }
    Ok(())
}

/// Refuses `t` (named `what`) with more than `max` dimensions.
fn at_most_rank(t: &Operand, max: usize, what: &str) -> Result<()> {
    ensure!(
        t.shape.len() <= max,
        "{what} {} has rank {}; TFLite Micro takes at most {max}",
        t.name,
        t.shape.len()
    );
    Ok(())
}

/// Refuses an output whose shape is not `want`.
fn output_shape(output: &Operand, want: &[usize]) -> Result<()> {
    ensure!(
        output.shape == want,
        "output {} has shape {:?}, not the {want:?} its inputs give",
        output.name,
        output.shape
    );
    Ok(())
}

/// Axis `value` of a rank-`rank` tensor, negative counting from the end.
fn axis(value: i64, rank: usize, what: &str) -> Result<usize> {
    let r = rank as i64;
    ensure!(
        (-r..r).contains(&value),
        "{what} {value} is outside a rank-{rank} input"
    );
    Ok(value.rem_euclid(r) as usize)
}

/// The element type of integer input `i`, refused unless one of `types`.
fn int_input(op: &OpDesc, i: usize, types: &[Element]) -> Result<Element> {
    let t = op.input(i)?;
    ensure!(
        types.contains(&t.element),
        "input {i} ({}) is {}; TFLite Micro's {} takes {} there",
        t.name,
        t.element,
        op.name,
        types
            .iter()
            .map(|e| e.name())
            .collect::<Vec<_>>()
            .join(" or ")
    );
    Ok(t.element)
}

/// The values of constant integer input `i` of one of `types`.
fn constant_ints(op: &OpDesc, i: usize, types: &[Element]) -> Result<Vec<i64>> {
    int_input(op, i, types)?;
    op.input(i)?.constant_ints()
}

/// The first value of a constant axis input `i` (int32, as TFLite Micro
/// reads it).
fn constant_axis(op: &OpDesc, i: usize) -> Result<i64> {
    let values = constant_ints(op, i, &[I32])?;
    ensure!(
        values.len() == 1,
        "axis input {i} has {} values, not one",
        values.len()
    );
    Ok(values[0])
}

#[cfg(test)]
mod tests;
