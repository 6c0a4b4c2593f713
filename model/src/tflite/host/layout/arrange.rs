//! Operators that rearrange a tensor's elements into a new shape: PAD and
//! PADV2, MIRROR_PAD, TRANSPOSE, SPACE_TO_DEPTH and DEPTH_TO_SPACE, TILE
//! and REVERSE_V2, each a few strided copies.

use super::copy::{strides, Axis};
use super::Element::{I32, I64, I8};
use super::{
    at_most_rank, constant_ints, fixed_movement, int_input, movement, output_shape, same_element,
    Ends, Fill, Move, Planned, StridedCopy,
};
use crate::tflite::host::{Kernel, OpDesc, MAX_RANK};
use anyhow::{ensure, Result};
use std::sync::Arc;

/// PAD and PADV2 (pad.cc, pad_common.cc): constant int32 paddings of up to
/// 5 dimensions; the value is input 2 when given, else the output's zero
/// point for int8 and 0 otherwise. An int8 value must share the output's
/// quantisation.
pub(super) fn pad(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let output = op.output(0)?;
    same_element(op, input, output)?;
    at_most_rank(input, 5, "input")?;
    let paddings = constant_ints(op, 1, &[I32])?;
    let rank = input.shape.len();
    ensure!(
        paddings.len() == 2 * rank && output.shape.len() == rank,
        "paddings {paddings:?} are not two per dimension of {:?}",
        input.shape
    );
    let want: Vec<usize> = (0..rank)
        .map(|d| input.shape[d] as i64 + paddings[2 * d] + paddings[2 * d + 1])
        .map(|d| d.max(0) as usize)
        .collect();
    ensure!(
        paddings.iter().all(|&p| p >= 0),
        "negative paddings {paddings:?}"
    );
    output_shape(output, &want)?;
    let fill = match op.optional_input(2) {
        Some(value) => {
            same_element(op, input, value)?;
            ensure!(
                value.elements() == 1,
                "constant value {} has {} elements, not one",
                value.name,
                value.elements()
            );
            ensure!(
                input.element != I8
                    || (value.scales.first() == output.scales.first()
                        && value.zero_point() == output.zero_point()),
                "constant value {} is not quantised as output {} is",
                value.name,
                output.name
            );
            Fill::Input(2)
        }
        None if input.element == I8 => {
            let zp = output.zero_point();
            ensure!(
                i8::try_from(zp).is_ok(),
                "output zero point {zp} is not an int8"
            );
            Fill::Bytes(vec![zp as i8 as u8])
        }
        None => Fill::Zero,
    };
    let out_strides = strides(&output.shape);
    let in_strides = strides(&input.shape);
    let dst_start: i64 = (0..rank)
        .map(|d| paddings[2 * d] * out_strides[d] as i64)
        .sum();
    let axes: Vec<Axis> = (0..rank)
        .map(|d| Axis::new(input.shape[d], in_strides[d], out_strides[d]))
        .collect();
    let copy = StridedCopy::new(
        input.element.size(),
        0,
        dst_start as usize,
        &axes,
        input.elements(),
        output.elements(),
    )?;
    let plan = Planned::Fixed(vec![Move {
        input: 0,
        output: 0,
        copy,
    }]);
    Ok(movement("PAD", input.element, fill, plan))
}

/// MIRROR_PAD (mirror_pad.cc): int32 or int64 paddings [rank, 2], read
/// when the kernel runs unless constant, of at most the input's length
/// less one (REFLECT) or the length (SYMMETRIC) on each side, where
/// TFLite Micro would read outside the input.
pub(super) fn mirror_pad(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, MirrorPadOptions);
    let input = op.input(0)?;
    let output = op.output(0)?;
    same_element(op, input, output)?;
    let kind = int_input(op, 1, &[I32, I64])?;
    let rank = input.shape.len();
    let paddings = op.input(1)?;
    ensure!(
        paddings.shape == [rank, 2],
        "paddings {} have shape {:?}, not [{rank}, 2]",
        paddings.name,
        paddings.shape
    );
    // REFLECT (0) leaves out the edge element; SYMMETRIC repeats it.
    let offset = usize::from(o.mode == 0);
    let (in_shape, out_shape) = (input.shape.clone(), output.shape.clone());
    let element = input.element.size();
    let plan = Planned::new(op, &[1], move |b| {
        let p = kind.ints(b[0]);
        // Per axis, three segments: (first output index, length, first
        // input index, input step).
        let mut segments = Vec::new();
        for d in 0..rank {
            let (n, left, right) = (in_shape[d] as i64, p[2 * d], p[2 * d + 1]);
            let most = n - offset as i64;
            ensure!(
                (0..=most).contains(&left) && (0..=most).contains(&right),
                "paddings {left} and {right} of axis {d} (length {n}) exceed {most}"
            );
            ensure!(
                n + left + right == out_shape[d] as i64,
                "paddings {p:?} do not pad {in_shape:?} to {out_shape:?}"
            );
            let (l, n) = (left as usize, n as usize);
            segments.push([
                (0, l, (l + offset) as isize - 1, -1),
                (l, n, 0, 1),
                (l + n, right as usize, n as isize - 1 - offset as isize, -1),
            ]);
        }
        mirror_moves(element, &in_shape, &out_shape, &segments)
    })?;
    Ok(movement("MIRROR_PAD", input.element, Fill::Zero, plan))
}

/// One copy for each choice of a segment per axis.
fn mirror_moves(
    element: usize,
    in_shape: &[usize],
    out_shape: &[usize],
    segments: &[[(usize, usize, isize, isize); 3]],
) -> Result<Vec<Move>> {
    let (in_strides, out_strides) = (strides(in_shape), strides(out_shape));
    let (in_len, out_len) = (in_shape.iter().product(), out_shape.iter().product());
    let rank = in_shape.len();
    let mut moves = Vec::new();
    for choice in 0..3usize.pow(rank as u32) {
        let (mut src, mut dst, mut axes) = (0isize, 0isize, Vec::new());
        let mut digits = choice;
        for d in (0..rank).rev() {
            let (out_first, len, in_first, step) = segments[d][digits % 3];
            digits /= 3;
            src += in_first * in_strides[d];
            dst += out_first as isize * out_strides[d];
            axes.push(Axis::new(len, step * in_strides[d], out_strides[d]));
        }
        if axes.iter().any(|a| a.len == 0) {
            continue;
        }
        axes.reverse();
        let copy = StridedCopy::new(element, src as usize, dst as usize, &axes, in_len, out_len)?;
        moves.push(Move {
            input: 0,
            output: 0,
            copy,
        });
    }
    Ok(moves)
}

/// TRANSPOSE (transpose.cc): a constant int32 permutation of up to 5
/// dimensions.
pub(super) fn transpose(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let output = op.output(0)?;
    same_element(op, input, output)?;
    at_most_rank(input, 5, "input")?;
    let perm = constant_ints(op, 1, &[I32])?;
    let rank = input.shape.len();
    let mut sorted = perm.clone();
    sorted.sort_unstable();
    ensure!(
        sorted == (0..rank as i64).collect::<Vec<_>>(),
        "perm {perm:?} is not a permutation of {rank} dimensions"
    );
    let perm: Vec<usize> = perm.iter().map(|&p| p as usize).collect();
    let want: Vec<usize> = perm.iter().map(|&p| input.shape[p]).collect();
    output_shape(output, &want)?;
    let (in_strides, out_strides) = (strides(&input.shape), strides(&want));
    let axes: Vec<Axis> = (0..rank)
        .map(|d| Axis::new(want[d], in_strides[perm[d]], out_strides[d]))
        .collect();
    let moves = Ends::of(op)?.one(0, &axes)?;
    Ok(fixed_movement("TRANSPOSE", input.element, moves))
}

/// The block size of SPACE_TO_DEPTH or DEPTH_TO_SPACE, and the rank-4
/// input's dimensions.
fn block_size(op: &OpDesc, block: i32) -> Result<(usize, [usize; 4])> {
    let input = op.input(0)?;
    same_element(op, input, op.output(0)?)?;
    let dims: [usize; 4] = input.shape.as_slice().try_into().map_err(|_| {
        anyhow::anyhow!(
            "input {} has shape {:?}, not rank 4",
            input.name,
            input.shape
        )
    })?;
    ensure!(block > 0, "block_size {block}");
    Ok((block as usize, dims))
}

/// SPACE_TO_DEPTH (space_to_depth.cc): each `block` x `block` patch of
/// the height and width moved into the depth, patch row major.
pub(super) fn space_to_depth(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, SpaceToDepthOptions);
    let (bs, [b, h, w, c]) = block_size(op, o.block_size)?;
    ensure!(
        h % bs == 0 && w % bs == 0,
        "height {h} and width {w} are not multiples of block_size {bs}"
    );
    output_shape(op.output(0)?, &[b, h / bs, w / bs, c * bs * bs])?;
    let s = strides(&[b, h, w, c]);
    // The output walked as [b, h / bs, w / bs, bs, bs, c].
    let walk = [b, h / bs, w / bs, bs, bs, c];
    let src = [s[0], bs as isize * s[1], bs as isize * s[2], s[1], s[2], 1];
    let moves = Ends::of(op)?.one(0, &zip_axes(&walk, &src))?;
    Ok(fixed_movement(
        "SPACE_TO_DEPTH",
        op.input(0)?.element,
        moves,
    ))
}

/// DEPTH_TO_SPACE (depth_to_space.cc): the inverse of SPACE_TO_DEPTH.
pub(super) fn depth_to_space(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let o = options!(op, DepthToSpaceOptions);
    let (bs, [b, h, w, c]) = block_size(op, o.block_size)?;
    ensure!(
        c % (bs * bs) == 0,
        "depth {c} is not a multiple of block_size {bs} squared"
    );
    let oc = c / (bs * bs);
    output_shape(op.output(0)?, &[b, h * bs, w * bs, oc])?;
    let s = strides(&[b, h, w, c]);
    // The output walked as [b, h, bs, w, bs, c / bs^2].
    let walk = [b, h, bs, w, bs, oc];
    let src = [s[0], s[1], (bs * oc) as isize, s[2], oc as isize, 1];
    let moves = Ends::of(op)?.one(0, &zip_axes(&walk, &src))?;
    Ok(fixed_movement(
        "DEPTH_TO_SPACE",
        op.input(0)?.element,
        moves,
    ))
}

/// The axes of a walk over `shape`, written in order, reading with
/// source strides `src`.
fn zip_axes(shape: &[usize], src: &[isize]) -> Vec<Axis> {
    let dst = strides(shape);
    (0..shape.len())
        .map(|d| Axis::new(shape[d], src[d], dst[d]))
        .collect()
}

/// TILE (LiteRT's tile.cc; TFLite Micro has none): int32 or int64
/// multiples, read when the kernel runs unless constant.
pub(super) fn tile(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let output = op.output(0)?;
    same_element(op, input, output)?;
    let kind = int_input(op, 1, &[I32, I64])?;
    let (in_shape, out_shape) = (input.shape.clone(), output.shape.clone());
    let ends = Ends::of(op)?;
    let plan = Planned::new(op, &[1], move |b| {
        let multiples = kind.ints(b[0]);
        let tiled: Vec<i64> = in_shape
            .iter()
            .zip(&multiples)
            .map(|(&d, &m)| d as i64 * m)
            .collect();
        ensure!(
            multiples.len() == in_shape.len()
                && multiples.iter().all(|&m| m >= 0)
                && tiled.iter().zip(&out_shape).all(|(&t, &o)| t == o as i64),
            "multiples {multiples:?} do not tile {in_shape:?} into {out_shape:?}"
        );
        let (in_strides, out_strides) = (strides(&in_shape), strides(&out_shape));
        // Each axis as [multiple, length]: the copies read the same input.
        let mut axes = Vec::new();
        for d in 0..in_shape.len() {
            let n = in_shape[d] as isize;
            axes.push(Axis::new(multiples[d] as usize, 0, n * out_strides[d]));
            axes.push(Axis::new(in_shape[d], in_strides[d], out_strides[d]));
        }
        ends.one(0, &axes)
    })?;
    Ok(movement("TILE", input.element, Fill::Zero, plan))
}

/// REVERSE_V2 (reverse.cc): int32 axes, read when the kernel runs unless
/// constant, which TFLite Micro takes only contiguous once sorted, of an
/// input of up to `MAX_RANK` dimensions.
pub(super) fn reverse(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    let input = op.input(0)?;
    let output = op.output(0)?;
    same_element(op, input, output)?;
    output_shape(output, &input.shape)?;
    at_most_rank(input, MAX_RANK, "input")?;
    int_input(op, 1, &[I32])?;
    let axes_input = op.input(1)?;
    ensure!(
        axes_input.shape.len() == 1 && axes_input.shape[0] <= input.shape.len(),
        "axes {} have shape {:?}: TFLite Micro takes a list of at most {}",
        axes_input.name,
        axes_input.shape,
        input.shape.len()
    );
    let shape = input.shape.clone();
    let ends = Ends::of(op)?;
    let plan = Planned::new(op, &[1], move |b| {
        let rank = shape.len() as i64;
        let mut axes = I32.ints(b[0]);
        for a in &mut axes {
            ensure!(
                (-rank..rank).contains(a),
                "axis {a} is outside a rank-{rank} input"
            );
            *a = a.rem_euclid(rank);
        }
        axes.sort_unstable();
        ensure!(
            !axes.is_empty() && axes.windows(2).all(|w| w[0] + 1 == w[1]),
            "axes {axes:?} are not one contiguous run, as TFLite Micro needs"
        );
        let in_strides = strides(&shape);
        let mut start = 0;
        let walk: Vec<Axis> = (0..shape.len())
            .map(|d| {
                let s = in_strides[d];
                if axes.contains(&(d as i64)) {
                    start += (shape[d].max(1) - 1) * s as usize;
                    Axis::new(shape[d], -s, s)
                } else {
                    Axis::new(shape[d], s, s)
                }
            })
            .collect();
        ends.one(start, &walk)
    })?;
    Ok(movement("REVERSE_V2", input.element, Fill::Zero, plan))
}
