//! GATHER and GATHER_ND: output blocks copied in order from input blocks
//! that int32 indices choose, read when the kernel runs unless constant.
//! A chosen block outside the input is a run-time error (a load-time one
//! for constant indices), where TFLite Micro would read past it.

use super::Element::I32;
use super::{int_input, output_shape, same_element, Planned};
use crate::tflite::host::{kernel, Kernel, OpDesc};
use anyhow::{ensure, Result};
use std::sync::Arc;

/// The kernel that fills output 0 with blocks of `block` bytes of input 0,
/// from the byte offsets `plan` gives, in order.
pub(super) fn blocks(
    name: &'static str,
    block: usize,
    plan: Planned<Vec<usize>>,
) -> Arc<dyn Kernel> {
    kernel(name, move |io| {
        plan.run(io, |offsets, io| {
            if block == 0 {
                return;
            }
            let (x, y) = io.input_output(0, 0);
            for (out, &from) in y.chunks_exact_mut(block).zip(offsets) {
                out.copy_from_slice(&x[from..from + block]);
            }
        })
    })
}

/// GATHER (gather.cc): slices along `axis` chosen by the indices, with the
/// indices' first `batch_dims` dimensions matching the input's.
pub(super) fn gather(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, GatherOptions);
    let input = op.input(0)?;
    let positions = op.input(1)?;
    let output = op.output(0)?;
    same_element(op, input, output)?;
    int_input(op, 1, &[I32])?;
    let (rank, coords_rank) = (input.shape.len(), positions.shape.len());
    let axis = super::axis(o.axis.into(), rank, "axis")?;
    let batch_dims = if o.batch_dims < 0 {
        o.batch_dims + coords_rank as i32
    } else {
        o.batch_dims
    };
    ensure!(
        (0..rank as i32).contains(&batch_dims)
            && batch_dims as usize <= axis
            && batch_dims as usize <= coords_rank,
        "batch_dims {} for axis {axis} of a rank-{rank} input and rank-{coords_rank} indices",
        o.batch_dims
    );
    let batch_dims = batch_dims as usize;
    ensure!(
        input.shape[..batch_dims] == positions.shape[..batch_dims],
        "the first {batch_dims} dimensions of input {:?} and indices {:?} differ",
        input.shape,
        positions.shape
    );
    let mut want = input.shape[..axis].to_vec();
    want.extend(&positions.shape[batch_dims..]);
    want.extend(&input.shape[axis + 1..]);
    output_shape(output, &want)?;
    let batches: usize = input.shape[..batch_dims].iter().product();
    let outer: usize = input.shape[batch_dims..axis].iter().product();
    let coords: usize = positions.shape[batch_dims..].iter().product();
    let axis_len = input.shape[axis];
    let block = input.shape[axis + 1..].iter().product::<usize>() * input.element.size();
    let plan = Planned::new(op, &[1], move |b| {
        let indices = I32.ints(b[0]);
        if let Some(bad) = indices
            .iter()
            .find(|&&i| !(0..axis_len as i64).contains(&i))
        {
            anyhow::bail!("index {bad} is outside axis {axis} of length {axis_len}");
        }
        let mut offsets = Vec::with_capacity(batches * outer * coords);
        for batch in 0..batches {
            for o in 0..outer {
                for c in 0..coords {
                    let i = indices[batch * coords + c] as usize;
                    offsets.push(((batch * outer + o) * axis_len + i) * block);
                }
            }
        }
        Ok(offsets)
    })?;
    Ok(blocks("GATHER", block, plan))
}

/// GATHER_ND (gather_nd.cc): each index vector (the indices' last
/// dimension, at most 5 long) picks a slice of the input's leading
/// dimensions. TFLite Micro checks only that the slice's flat position
/// lies in the input, so a component past its own dimension but inside
/// the input is taken as it does.
pub(super) fn gather_nd(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let params = op.input(0)?;
    let indices = op.input(1)?;
    let output = op.output(0)?;
    same_element(op, params, output)?;
    int_input(op, 1, &[I32])?;
    ensure!(
        !params.shape.is_empty() && !indices.shape.is_empty(),
        "params {:?} and indices {:?} must be at least vectors",
        params.shape,
        indices.shape
    );
    let nd = *indices.shape.last().expect("not a scalar");
    ensure!(
        nd <= params.shape.len() && nd <= 5,
        "index vectors of {nd} for rank-{} params (at most 5)",
        params.shape.len()
    );
    let mut want = indices.shape[..indices.shape.len() - 1].to_vec();
    want.extend(&params.shape[nd..]);
    output_shape(output, &want)?;
    let slice: usize = params.shape[nd..].iter().product();
    let slices: usize = want[..indices.shape.len() - 1].iter().product();
    let total = params.elements() as i64;
    // The flat stride of each of the leading `nd` dimensions.
    let counts: Vec<i64> = (0..nd)
        .map(|d| params.shape[d + 1..].iter().product::<usize>() as i64)
        .collect();
    let element = params.element.size();
    let plan = Planned::new(op, &[1], move |b| {
        let indices = I32.ints(b[0]);
        let mut offsets = Vec::with_capacity(slices);
        for s in 0..slices {
            let vector = &indices[s * nd..(s + 1) * nd];
            let from: i64 = vector.iter().zip(&counts).map(|(&i, &c)| i * c).sum();
            ensure!(
                from >= 0 && from + slice as i64 <= total,
                "index {vector:?} reaches outside params of {total} elements"
            );
            offsets.push(from as usize * element);
        }
        Ok(offsets)
    })?;
    Ok(blocks("GATHER_ND", slice * element, plan))
}
