//! Operators that cut a tensor into blocks or join blocks into one:
//! CONCATENATION and PACK, SPLIT, SPLIT_V and UNPACK, SLICE and
//! STRIDED_SLICE.

use super::copy::{strides, Axis};
use super::Element::{I16, I32, I64, I8};
use super::{
    at_most_rank, axis, constant_axis, constant_ints, fixed_movement, int_input, movement,
    output_shape, same_element, Ends, Fill, Move, Planned, StridedCopy,
};
use crate::tflite::host::{Kernel, OpDesc, Operand};
use anyhow::{ensure, Result};
use std::sync::Arc;

/// Where an operator's blocks come from and go.
#[derive(Debug, Clone, Copy)]
enum Blocks {
    /// The inputs, joined into output 0 (CONCATENATION, PACK).
    Join,
    /// The outputs, cut from input `n` (SPLIT, SPLIT_V, UNPACK).
    Cut(usize),
}

/// The extents along `axis` of `parts`: each has the whole's shape but
/// there, or (`stacked`, as PACK and UNPACK) the whole's shape without
/// that axis, one slice of it.
fn extents(parts: &[&Operand], whole: &Operand, axis: usize, stacked: bool) -> Result<Vec<usize>> {
    let mut extents = Vec::new();
    for p in parts {
        let mut want = whole.shape.clone();
        let extent = if stacked {
            want.remove(axis);
            1
        } else {
            want[axis] = *p.shape.get(axis).unwrap_or(&0);
            want[axis]
        };
        ensure!(
            p.shape == want && p.element == whole.element,
            "{} is {} {:?}, not {} {want:?} as {} along axis {axis} needs",
            p.name,
            p.element,
            p.shape,
            whole.element,
            whole.name
        );
        extents.push(extent);
    }
    let total: usize = extents.iter().sum();
    ensure!(
        total == whole.shape[axis],
        "the blocks along axis {axis} add up to {total}, not {}'s {}",
        whole.name,
        whole.shape[axis]
    );
    Ok(extents)
}

/// The moves between the whole tensor and its blocks along `axis`, each
/// block a tensor of its own.
fn blocks(op: &OpDesc, way: Blocks, axis: usize, stacked: bool) -> Result<Vec<Move>> {
    let (whole, parts): (&Operand, Vec<&Operand>) = match way {
        Blocks::Join => (
            op.output(0)?,
            (0..op.inputs.len())
                .map(|i| op.input(i))
                .collect::<Result<_>>()?,
        ),
        Blocks::Cut(data) => (op.input(data)?, op.outputs.iter().collect()),
    };
    let extents = extents(&parts, whole, axis, stacked)?;
    let element = whole.element.size();
    let whole_strides = strides(&whole.shape);
    let mut offset = 0;
    let mut moves = Vec::new();
    for (i, &extent) in extents.iter().enumerate() {
        let mut part = whole.shape.clone();
        part[axis] = extent;
        let part_strides = strides(&part);
        let at = offset * whole_strides[axis] as usize;
        let (whole_len, part_len) = (whole.elements(), part.iter().product());
        let axes = |src: &[isize], dst: &[isize]| -> Vec<Axis> {
            (0..part.len())
                .map(|d| Axis::new(part[d], src[d], dst[d]))
                .collect()
        };
        moves.push(match way {
            Blocks::Join => Move {
                input: i,
                output: 0,
                copy: StridedCopy::new(
                    element,
                    0,
                    at,
                    &axes(&part_strides, &whole_strides),
                    part_len,
                    whole_len,
                )?,
            },
            Blocks::Cut(data) => Move {
                input: data,
                output: i,
                copy: StridedCopy::new(
                    element,
                    at,
                    0,
                    &axes(&whole_strides, &part_strides),
                    whole_len,
                    part_len,
                )?,
            },
        });
        offset += extent;
    }
    Ok(moves)
}

/// CONCATENATION (concatenation.cc): up to 10 inputs of up to 6
/// dimensions, no fused activation, and no requantisation: int8 inputs
/// must share the output's scale and zero point, int16 ones a zero point
/// of 0 (their scales TFLite Micro ignores).
pub(super) fn concatenation(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, ConcatenationOptions);
    let output = op.output(0)?;
    ensure!(
        o.fused_activation_function == 0,
        "fused activation {}; TFLite Micro's CONCATENATION takes none",
        o.fused_activation_function
    );
    ensure!(
        (1..=10).contains(&op.inputs.len()),
        "{} inputs; TFLite Micro's CONCATENATION takes 1 to 10",
        op.inputs.len()
    );
    at_most_rank(output, 6, "output")?;
    for i in 0..op.inputs.len() {
        let input = op.input(i)?;
        same_element(op, input, output)?;
        if input.element == I8 {
            ensure!(
                input.scales.first() == output.scales.first()
                    && input.zero_point() == output.zero_point(),
                "input {i} ({}) is quantised as {:?} + {}, output {} as {:?} + {}; TFLite Micro's \
                 int8 CONCATENATION does not requantise",
                input.name,
                input.scales,
                input.zero_point(),
                output.name,
                output.scales,
                output.zero_point()
            );
        }
        if input.element == I16 {
            ensure!(
                input.zero_point() == 0 && output.zero_point() == 0,
                "int16 CONCATENATION needs zero points of 0"
            );
        }
    }
    let axis = axis(o.axis.into(), output.shape.len(), "axis")?;
    let moves = blocks(op, Blocks::Join, axis, false)?;
    Ok(fixed_movement("CONCATENATION", output.element, moves))
}

/// PACK (pack.cc): `values_count` inputs of one shape stacked along a new
/// axis of the output.
pub(super) fn pack(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, PackOptions);
    let output = op.output(0)?;
    ensure!(
        o.values_count as usize == op.inputs.len() && o.values_count > 0,
        "values_count {} for {} inputs",
        o.values_count,
        op.inputs.len()
    );
    let axis = axis(o.axis.into(), output.shape.len(), "axis")?;
    let moves = blocks(op, Blocks::Join, axis, true)?;
    Ok(fixed_movement("PACK", output.element, moves))
}

/// UNPACK (unpack.cc): `num` outputs, the input's slices along an axis.
pub(super) fn unpack(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, UnpackOptions);
    let input = op.input(0)?;
    ensure!(
        o.num as usize == op.outputs.len(),
        "num {} for {} outputs",
        o.num,
        op.outputs.len()
    );
    let axis = axis(o.axis.into(), input.shape.len(), "axis")?;
    let moves = blocks(op, Blocks::Cut(0), axis, true)?;
    Ok(fixed_movement("UNPACK", input.element, moves))
}

/// SPLIT (split.cc): input 0 the constant axis, input 1 cut into equal
/// outputs along it.
pub(super) fn split(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(1)?;
    let axis = axis(constant_axis(op, 0)?, input.shape.len(), "axis")?;
    let n = op.outputs.len();
    ensure!(
        n > 0 && input.shape[axis] % n == 0,
        "axis {axis} of length {} does not split into {n}",
        input.shape[axis]
    );
    let moves = blocks(op, Blocks::Cut(1), axis, false)?;
    Ok(fixed_movement("SPLIT", input.element, moves))
}

/// SPLIT_V (split_v.cc): input 0 cut along the constant axis input 2 into
/// outputs as long as they are (TFLite Micro reads their shapes, not
/// `size_splits`, which must agree where constant, -1 standing for any).
pub(super) fn split_v(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let axis = axis(constant_axis(op, 2)?, input.shape.len(), "axis")?;
    if op.input(1)?.constant.is_some() {
        let sizes = constant_ints(op, 1, &[I32, I64])?;
        let lengths: Vec<i64> = op
            .outputs
            .iter()
            .map(|o| *o.shape.get(axis).unwrap_or(&0) as i64)
            .collect();
        ensure!(
            sizes.len() == lengths.len()
                && sizes.iter().zip(&lengths).all(|(&s, &l)| s == l || s == -1)
                && sizes.iter().filter(|&&s| s == -1).count() <= 1,
            "size_splits {sizes:?} do not give the outputs' lengths {lengths:?}"
        );
    }
    let moves = blocks(op, Blocks::Cut(0), axis, false)?;
    Ok(fixed_movement("SPLIT_V", input.element, moves))
}

/// SLICE (slice.cc): int32 or int64 begin and size (-1: to the end) of up
/// to 5 dimensions, read when the kernel runs unless constant.
pub(super) fn slice(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let output = op.output(0)?;
    same_element(op, input, output)?;
    at_most_rank(input, 5, "input")?;
    let begin_type = int_input(op, 1, &[I32, I64])?;
    ensure!(
        int_input(op, 2, &[I32, I64])? == begin_type,
        "begin is {begin_type} but size is not"
    );
    let (in_shape, out_shape) = (input.shape.clone(), output.shape.clone());
    let (in_strides, out_strides) = (strides(&in_shape), strides(&out_shape));
    let ends = Ends::of(op)?;
    let plan = Planned::new(op, &[1, 2], move |b| {
        let begin = begin_type.ints(b[0]);
        let size = begin_type.ints(b[1]);
        let rank = in_shape.len();
        ensure!(
            begin.len() == rank && size.len() == rank,
            "begin {begin:?} and size {size:?} are not one per dimension of {in_shape:?}"
        );
        let mut start = 0;
        let mut axes = Vec::new();
        for d in 0..rank {
            let dim = in_shape[d] as i64;
            let stop = if size[d] == -1 {
                dim
            } else {
                begin[d] + size[d]
            };
            ensure!(
                (0..=dim).contains(&begin[d])
                    && (begin[d]..=dim).contains(&stop)
                    && stop - begin[d] == out_shape[d] as i64,
                "begin {begin:?} and size {size:?} do not cut {out_shape:?} from {in_shape:?}"
            );
            start += begin[d] as usize * in_strides[d] as usize;
            axes.push(Axis::new(out_shape[d], in_strides[d], out_strides[d]));
        }
        ends.one(start, &axes)
    })?;
    Ok(movement("SLICE", input.element, Fill::Zero, plan))
}

/// STRIDED_SLICE (strided_slice.cc, reference_ops::StridedSlice): constant
/// int32 begin, end and strides, one per dimension of up to 4, with the
/// begin, end and shrink-axis masks. TFLite Micro sets the ellipsis and
/// new-axis masks to 0 and leaves out `offset` (strided_slice_common.cc),
/// so they are ignored here too.
pub(super) fn strided_slice(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, StridedSliceOptions);
    let input = op.input(0)?;
    let output = op.output(0)?;
    same_element(op, input, output)?;
    at_most_rank(input, 4, "input")?;
    let rank = input.shape.len();
    let [begin, end, step] = [1, 2, 3].map(|i| constant_ints(op, i, &[I32]));
    let (begin, end, step) = (begin?, end?, step?);
    ensure!(
        begin.len() == rank && end.len() == rank && step.len() == rank,
        "begin {begin:?}, end {end:?} and strides {step:?} are not one per dimension of {:?}",
        input.shape
    );
    let bit = |mask: i32, d: usize| mask & (1 << d) != 0;
    let in_strides = strides(&input.shape);
    let (mut start_at, mut counts, mut kept) = (0usize, Vec::new(), Vec::new());
    let mut steps = Vec::new();
    for d in 0..rank {
        let size = input.shape[d] as i64;
        let stride = step[d];
        ensure!(stride != 0, "stride {d} is 0");
        let (lo, hi) = if stride > 0 {
            (0, size)
        } else {
            (-1, size - 1)
        };
        // StridedSliceStartForAxis / EndForAxis: wrap a negative index,
        // clamp, then let a mask take the whole axis.
        let clamp = |i: i64| (if i < 0 { i + size } else { i }).clamp(lo, hi);
        let first = match bit(o.begin_mask, d) {
            true if stride > 0 => 0,
            true => size - 1,
            false => clamp(begin[d]),
        };
        let count = if bit(o.shrink_axis_mask, d) {
            // TFLite Micro's kernel writes nothing for such an axis.
            ensure!(
                stride > 0 && first < size,
                "shrink axis {d} with begin {} and stride {stride} selects nothing in TFLite Micro",
                begin[d]
            );
            1
        } else {
            let stop = match bit(o.end_mask, d) {
                true if stride > 0 => size,
                true => -1,
                false => clamp(end[d]),
            };
            let span = if stride > 0 {
                stop - first
            } else {
                first - stop
            };
            let count = (span.max(0) + stride.abs() - 1) / stride.abs();
            kept.push(count as usize);
            count
        };
        if count > 0 {
            start_at += first as usize * in_strides[d] as usize;
        }
        counts.push(count as usize);
        steps.push(stride as isize * in_strides[d]);
    }
    output_shape(output, &kept)?;
    let out_strides = strides(&counts);
    let axes: Vec<Axis> = (0..rank)
        .map(|d| Axis::new(counts[d], steps[d], out_strides[d]))
        .collect();
    let moves = Ends::of(op)?.one(start_at, &axes)?;
    Ok(fixed_movement("STRIDED_SLICE", input.element, moves))
}
