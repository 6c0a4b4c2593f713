//! Operators that move elements without arithmetic: reshapes, slices,
//! concatenation, padding, gathers and resizes, as TensorFlow Lite Micro's
//! reference kernels compute them.

use super::{kernel, Element, Kernel, OpDesc, Support};
use anyhow::{bail, ensure, Result};
use std::sync::Arc;
use Element::{F32, I8};

pub(super) const OPERATORS: &[Support] = &[Support::new("GATHER", &[I8, F32])];

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    match op.name.as_str() {
        "GATHER" => gather(op),
        other => bail!("{other} is not a layout operator"),
    }
}

/// GATHER of slices along an axis (gather.cc): `outer` blocks of
/// `axis_len` slices; the output takes slices `indices` of every block.
fn gather(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, GatherOptions);
    ensure!(
        o.batch_dims == 0,
        "batch_dims {}; the host's GATHER takes 0",
        o.batch_dims
    );
    let input = op.input(0)?;
    let positions = op.input(1)?;
    let output = op.output(0)?;
    if output.element != input.element {
        return Err(op.unsupported("output", output));
    }
    let indices = positions.constant_ints()?;
    let rank = input.shape.len() as i32;
    ensure!(
        (-rank..rank).contains(&o.axis),
        "axis {} is outside a rank-{rank} input",
        o.axis
    );
    let axis = o.axis.rem_euclid(rank) as usize;
    let axis_len = input.shape[axis];
    if let Some(bad) = indices.iter().find(|&&i| i < 0 || i >= axis_len as i64) {
        bail!("index {bad} is outside axis {axis} of length {axis_len}");
    }
    let outer: usize = input.shape[..axis].iter().product();
    let slice_bytes = input.shape[axis + 1..].iter().product::<usize>() * input.element.size();
    ensure!(
        output.bytes() == outer * indices.len() * slice_bytes,
        "output {} is {} bytes, not the {} its input and indices give",
        output.name,
        output.bytes(),
        outer * indices.len() * slice_bytes
    );
    Ok(kernel("GATHER", move |io| {
        let (x, y) = io.input_output(0, 0);
        let mut at = 0;
        for block in x.chunks_exact(axis_len * slice_bytes).take(outer) {
            for &i in &indices {
                let start = i as usize * slice_bytes;
                y[at..at + slice_bytes].copy_from_slice(&block[start..start + slice_bytes]);
                at += slice_bytes;
            }
        }
        Ok(())
    }))
}
