//! Operators that keep the elements in their order: RESHAPE, SQUEEZE and
//! EXPAND_DIMS (a copy under a new shape), and those that write a tensor
//! from its shape alone: SHAPE, FILL, ZEROS_LIKE.

use super::Element::{I16, I32, I64, I8};
use super::{
    at_most_rank, constant_axis, constant_ints, fixed_movement, movement, output_shape,
    same_element, Fill, Move, Planned, StridedCopy,
};
use crate::tflite::host::{kernel, Kernel, OpDesc};
use anyhow::{ensure, Result};
use std::sync::Arc;

/// Input 0 copied into output 0 as it is.
fn copy_through(op: &OpDesc, name: &'static str) -> Result<Arc<dyn Kernel>> {
    let (input, output) = (op.input(0)?, op.output(0)?);
    same_element(op, input, output)?;
    ensure!(
        input.elements() == output.elements(),
        "output {} has {} elements where input {} has {}",
        output.name,
        output.elements(),
        input.name,
        input.elements()
    );
    let copy = StridedCopy::whole(input.element.size(), input.elements())?;
    let moves = vec![Move {
        input: 0,
        output: 0,
        copy,
    }];
    Ok(fixed_movement(name, input.element, moves))
}

/// RESHAPE (reshape.cc): TFLite Micro takes the output's shape from the
/// output tensor; a constant shape input must agree with it.
pub(super) fn reshape(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let output = op.output(0)?;
    if op.optional_input(1).is_some_and(|s| s.constant.is_some()) {
        let shape = constant_ints(op, 1, &[I32, I64])?;
        let known: i64 = shape.iter().filter(|&&d| d != -1).product();
        let stretch = shape.iter().filter(|&&d| d == -1).count();
        ensure!(stretch <= 1, "shape {shape:?} has more than one -1");
        let resolved: Vec<i64> = shape
            .iter()
            .map(|&d| match d {
                -1 if known > 0 => input.elements() as i64 / known,
                d => d,
            })
            .collect();
        let want: Vec<i64> = output.shape.iter().map(|&d| d as i64).collect();
        // A legacy [0] shape means a scalar.
        ensure!(
            resolved == want || (shape == [0] && want.is_empty()),
            "shape input {shape:?} does not give output {}'s shape {:?}",
            output.name,
            output.shape
        );
    }
    copy_through(op, "RESHAPE")
}

/// SQUEEZE (squeeze.cc): the listed dimensions of size 1, or every one.
pub(super) fn squeeze(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, SqueezeOptions);
    let input = op.input(0)?;
    at_most_rank(input, 8, "input")?;
    let rank = input.shape.len();
    let dims = o.squeeze_dims.unwrap_or_default();
    let mut squeezed: Vec<bool> = input
        .shape
        .iter()
        .map(|&d| dims.is_empty() && d == 1)
        .collect();
    for &d in &dims {
        let a = super::axis(d.into(), rank, "squeeze dimension")?;
        ensure!(
            input.shape[a] == 1,
            "squeeze dimension {d} has size {}, not 1",
            input.shape[a]
        );
        squeezed[a] = true;
    }
    let want: Vec<usize> = (0..rank)
        .filter(|&a| !squeezed[a])
        .map(|a| input.shape[a])
        .collect();
    output_shape(op.output(0)?, &want)?;
    copy_through(op, "SQUEEZE")
}

/// EXPAND_DIMS (expand_dims.cc): a constant int32 axis in [-rank-1, rank].
pub(super) fn expand_dims(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let axis = constant_axis(op, 1)?;
    let rank = input.shape.len() as i64;
    ensure!(
        (-rank - 1..=rank).contains(&axis),
        "axis {axis} is outside [-{}, {rank}] for a rank-{rank} input",
        rank + 1
    );
    let mut want = input.shape.clone();
    want.insert(axis.rem_euclid(rank + 1) as usize, 1);
    output_shape(op.output(0)?, &want)?;
    copy_through(op, "EXPAND_DIMS")
}

/// SHAPE (shape.cc): the input's dimensions, as int32 only.
pub(super) fn shape(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let output = op.output(0)?;
    if output.element != I32 {
        return Err(op.unsupported("output", output));
    }
    output_shape(output, &[input.shape.len()])?;
    let dims: Vec<i64> = input.shape.iter().map(|&d| d as i64).collect();
    Ok(kernel("SHAPE", move |io| {
        I32.put_ints(dims.iter().copied(), io.output(0));
        Ok(())
    }))
}

/// FILL (fill.cc): a constant dims input equal to the output's shape, and a
/// scalar value of the output's type, read when the kernel runs.
pub(super) fn fill(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let value = op.input(1)?;
    let output = op.output(0)?;
    same_element(op, value, output)?;
    ensure!(
        value.shape.is_empty(),
        "value {} has shape {:?}, not a scalar",
        value.name,
        value.shape
    );
    let dims = constant_ints(op, 0, &[I8, I16, I32, I64])?;
    let want: Vec<i64> = output.shape.iter().map(|&d| d as i64).collect();
    ensure!(
        dims == want,
        "dims {dims:?} are not output {}'s shape {:?}",
        output.name,
        output.shape
    );
    Ok(movement(
        "FILL",
        value.element,
        Fill::Input(1),
        Planned::Fixed(Vec::new()),
    ))
}

/// ZEROS_LIKE (zeros_like.cc): zeros of the input's shape.
pub(super) fn zeros_like(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let (input, output) = (op.input(0)?, op.output(0)?);
    same_element(op, input, output)?;
    output_shape(output, &input.shape)?;
    Ok(kernel("ZEROS_LIKE", |io| {
        io.output(0).fill(0);
        Ok(())
    }))
}
