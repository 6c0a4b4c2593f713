//! Where each block operation of a kernel operation reads and writes
//! (TRM 4.9, "Block dependency"): the bytes IFM block read n and OFM block
//! write m touch, in block order. NPU_SET_BLOCKDEP k promises that IFM block
//! read n of an operation starts only once every OFM block write of the
//! previous kernel operation but the last max(k - n, 0) is complete; the
//! harness's BLOCKDEP checker holds the RTL's AXI traffic against these
//! footprints.
//!
//! The blocks are the traversal's own ([`ConvShape::block_ops`]): OFM
//! blocks in z, x, y order, each with its IFM blocks (IFM depth chunks times
//! sub-kernels for a convolution). An elementwise operation walks as a 1x1
//! depthwise kernel: its IFM block is the OFM block's positions and
//! channels, and IFM2's the same with each broadcast dimension at 0.

use crate::schedule::{ConvShape, IfmRect};
use crate::tensor::FeatureMap;
use npu_arch::command::{broadcast, Layout};
use npu_arch::limits::BLOCKDEP_MAX;
use std::collections::BTreeMap;
use std::ops::Range;

/// Bytes of one base-pointer region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub region: usize,
    pub bytes: Range<u64>,
}

/// The block operations of one kernel operation as memory footprints.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockFootprints {
    /// NPU_SET_BLOCKDEP's k for this operation.
    pub blockdep: usize,
    /// What IFM block read n reads (IFM and IFM2), sorted and merged.
    pub ifm_reads: Vec<Vec<Span>>,
    /// What OFM block write m writes, sorted and merged.
    pub ofm_writes: Vec<Vec<Span>>,
}

/// IFM2 of a binary elementwise operation read from memory (not a scalar).
pub struct Ifm2<'a> {
    pub map: &'a FeatureMap,
    /// NPU_SET_IFM2_BROADCAST.
    pub broadcast: u16,
}

impl BlockFootprints {
    /// The footprints of an operation whose traversal is `shape`.
    pub fn new(
        shape: &ConvShape,
        ifm: &FeatureMap,
        ifm2: Option<Ifm2>,
        ofm: &FeatureMap,
        blockdep: usize,
    ) -> BlockFootprints {
        let cores = shape.cores();
        let ofm_writes = shape
            .ofm_blocks()
            .iter()
            .map(|block| {
                let mut written = Vec::new();
                for b in std::iter::once(*block).chain(block.paired_block()) {
                    let rect = |channel0, channels| IfmRect {
                        y0: b.y,
                        x0: b.x,
                        height: b.height,
                        width: b.width,
                        channel0,
                        channels,
                    };
                    if cores == 1 {
                        written.extend(rect_spans(ofm, &rect(b.z, b.depth)));
                    } else {
                        // Parallel mode: the block's channels are every `cores`th.
                        for c in (b.z..b.z + b.depth).map(|c| c * cores + b.core) {
                            written.extend(rect_spans(ofm, &rect(c, 1)));
                        }
                    }
                }
                merged(written)
            })
            .collect();
        let ifm_reads = shape
            .block_ops()
            .iter()
            .map(|op| {
                let mut read = rect_spans(ifm, &op.rect);
                if let Some(second) = &ifm2 {
                    read.extend(rect_spans(second.map, &broadcast_rect(&op.rect, second)));
                }
                merged(read)
            })
            .collect();
        BlockFootprints {
            blockdep,
            ifm_reads,
            ofm_writes,
        }
    }
}

/// What one kernel operation reads and writes as a whole, per feature map:
/// the union of its block footprints, as signed byte offsets (a negative
/// stride can reach below a region's start). The stream checker's
/// feature-map ranges (`crate::check`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OperationBytes {
    pub ifm: Vec<Range<i64>>,
    /// Empty for a unary elementwise operation or a scalar IFM2.
    pub ifm2: Vec<Range<i64>>,
    pub ofm: Vec<Range<i64>>,
}

impl OperationBytes {
    /// The feature-map bytes of an operation whose traversal is `shape`.
    pub fn new(
        shape: &ConvShape,
        ifm: &FeatureMap,
        ifm2: Option<Ifm2>,
        ofm: &FeatureMap,
    ) -> OperationBytes {
        // Block reads overlap by their kernel margins and abut along every
        // axis: merge the rectangles along channels, then columns, then
        // rows, so each byte's row is emitted about once.
        let mut boxes: Vec<Box3> = shape
            .block_ops()
            .iter()
            .map(|op| {
                let r = op.rect;
                [
                    (r.y0, r.y0 + r.height),
                    (r.x0, r.x0 + r.width),
                    (r.channel0, r.channel0 + r.channels),
                ]
            })
            .collect();
        for axis in [2, 1, 0] {
            boxes = merged_along(boxes, axis);
        }
        let mut ifm_bytes = Vec::new();
        let mut ifm2_bytes = Vec::new();
        for [(y0, y1), (x0, x1), (c0, c1)] in boxes {
            let rect = IfmRect {
                y0,
                x0,
                height: y1 - y0,
                width: x1 - x0,
                channel0: c0,
                channels: c1 - c0,
            };
            runs(ifm, &rect, &mut ifm_bytes);
            if let Some(second) = &ifm2 {
                runs(second.map, &broadcast_rect(&rect, second), &mut ifm2_bytes);
            }
        }
        let mut ofm_bytes = Vec::new();
        let whole = IfmRect {
            y0: 0,
            x0: 0,
            height: shape.ofm_height,
            width: shape.ofm_width,
            channel0: 0,
            channels: shape.ofm_depth,
        };
        runs(ofm, &whole, &mut ofm_bytes);
        OperationBytes {
            ifm: joined(ifm_bytes),
            ifm2: joined(ifm2_bytes),
            ofm: joined(ofm_bytes),
        }
    }
}

/// A box of positions: (start, end) of rows, columns and channels.
type Box3 = [(usize, usize); 3];

/// `boxes` with those equal on the other two axes joined where they
/// overlap or abut along `axis`: the same union.
fn merged_along(boxes: Vec<Box3>, axis: usize) -> Vec<Box3> {
    let mut by_rest: BTreeMap<Box3, Vec<Range<usize>>> = BTreeMap::new();
    for mut b in boxes {
        let (start, end) = std::mem::take(&mut b[axis]);
        by_rest.entry(b).or_default().push(start..end);
    }
    by_rest
        .into_iter()
        .flat_map(|(rest, along)| {
            joined(along).into_iter().map(move |r| {
                let mut b = rest;
                b[axis] = (r.start, r.end);
                b
            })
        })
        .collect()
}

/// The byte runs of `map` at `rect`, appended to `out`: one per row and
/// contiguous stretch of positions (each tile apart), or per position
/// where the channels do not fill a position's bytes.
pub fn runs(map: &FeatureMap, rect: &IfmRect, out: &mut Vec<Range<i64>>) {
    let element = map.dtype.bytes() as i64;
    let (x0, x1) = (rect.x0, rect.x0 + rect.width);
    let (c0, c1) = (rect.channel0, rect.channel0 + rect.channels);
    if rect.height == 0 || x0 == x1 || c0 == c1 {
        return;
    }
    // Columns left and right of the tile boundary lie in different tiles.
    let sides = [(x0, x1.min(map.width0)), (x0.max(map.width0), x1)];
    let run =
        |y: usize, xs: Range<usize>, cs: Range<usize>, per_position: i64, out: &mut Vec<_>| {
            let position_bytes = cs.len() as i64 * element;
            if per_position == position_bytes {
                let start = map.offset(y, xs.start, cs.start);
                out.push(start..start.saturating_add(xs.len() as i64 * position_bytes));
            } else {
                for x in xs {
                    let start = map.offset(y, x, cs.start);
                    out.push(start..start.saturating_add(position_bytes));
                }
            }
        };
    for (xa, xb) in sides.into_iter().filter(|(a, b)| a < b) {
        for y in rect.y0..rect.y0 + rect.height {
            match map.layout {
                Layout::Nhwc => run(y, xa..xb, c0..c1, map.stride_x, out),
                Layout::Nhcwb16 => {
                    for brick in c0 / 16..=(c1 - 1) / 16 {
                        let cs = c0.max(brick * 16)..c1.min(brick * 16 + 16);
                        run(y, xa..xb, cs, 16 * element, out);
                    }
                }
            }
        }
    }
}

/// Sorted, with touching or overlapping ranges joined.
pub fn joined<T: Ord + Copy>(mut ranges: Vec<Range<T>>) -> Vec<Range<T>> {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<T>> = Vec::with_capacity(ranges.len());
    for r in ranges.into_iter().filter(|r| r.start < r.end) {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// The largest NPU_SET_BLOCKDEP (0-3) under which `next` reads only bytes
/// `previous` has written (TRM 4.9): IFM block read n may start with the
/// last max(k - n, 0) OFM blocks of `previous` unwritten, so none of them
/// may write a byte it reads.
pub fn largest_safe_blockdep(previous: &BlockFootprints, next: &BlockFootprints) -> usize {
    let blocks = previous.ofm_writes.len();
    next.ifm_reads
        .iter()
        .enumerate()
        .filter_map(|(n, reads)| {
            // The last OFM block of `previous` that writes what read n reads.
            let m = previous
                .ofm_writes
                .iter()
                .rposition(|writes| overlap(reads, writes))?;
            // Read n waits for block m while max(k - n, 0) < blocks - m.
            Some(blocks - m + n - 1)
        })
        .fold(BLOCKDEP_MAX as usize, usize::min)
}

/// Two sorted, merged span lists share a byte.
fn overlap(a: &[Span], b: &[Span]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (&a[i], &b[j]);
        if x.region == y.region && x.bytes.start < y.bytes.end && y.bytes.start < x.bytes.end {
            return true;
        }
        if (x.region, x.bytes.end) <= (y.region, y.bytes.end) {
            i += 1;
        } else {
            j += 1;
        }
    }
    false
}

/// IFM2's part of an IFM block: a broadcast dimension reads index 0.
fn broadcast_rect(rect: &IfmRect, ifm2: &Ifm2) -> IfmRect {
    let pick = |bit: u16, start: usize, len: usize| {
        if ifm2.broadcast & bit != 0 && len > 0 {
            (0, 1)
        } else {
            (start, len)
        }
    };
    let (y0, height) = pick(broadcast::H, rect.y0, rect.height);
    let (x0, width) = pick(broadcast::W, rect.x0, rect.width);
    let (channel0, channels) = pick(broadcast::C, rect.channel0, rect.channels);
    IfmRect {
        y0,
        x0,
        height,
        width,
        channel0,
        channels,
    }
}

fn rect_spans(map: &FeatureMap, rect: &IfmRect) -> Vec<Span> {
    let mut bytes = Vec::new();
    runs(map, rect, &mut bytes);
    bytes
        .into_iter()
        .map(|r| Span {
            region: map.region,
            bytes: r.start.max(0) as u64..r.end.max(0) as u64,
        })
        .collect()
}

/// Sorted, with touching or overlapping spans of a region joined.
fn merged(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_by_key(|s| (s.region, s.bytes.start));
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match out.last_mut() {
            Some(last) if last.region == s.region && s.bytes.start <= last.bytes.end => {
                last.bytes.end = last.bytes.end.max(s.bytes.end)
            }
            _ => out.push(s),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::DType;
    use crate::weights::order::Traversal;
    use npu_arch::command::{KernelDecomposition, Layout, UpscaleMode};

    fn nhwc(region: usize, height: usize, width: usize, depth: usize) -> FeatureMap {
        FeatureMap {
            region,
            base: [0; 4],
            stride_x: depth as i64,
            stride_y: (width * depth) as i64,
            stride_c: 1,
            width0: width,
            height0: height,
            height1: height,
            dtype: DType::I8,
            layout: Layout::Nhwc,
            zero_point: 0,
        }
    }

    fn shape_3x3(block: [usize; 3]) -> ConvShape {
        ConvShape {
            ofm_height: 4,
            ofm_width: 4,
            ofm_depth: 8,
            ifm_depth: 8,
            ifm_height: 4,
            ifm_width: 4,
            kernel_height: 3,
            kernel_width: 3,
            stride_x: 1,
            stride_y: 1,
            dilation_x: 1,
            dilation_y: 1,
            pad_top: 1,
            pad_left: 1,
            upscale: UpscaleMode::None,
            traversal: Traversal::DepthFirst,
            decomposition: KernelDecomposition::D8x8,
            ifm_bits: 8,
            block_height: block[0],
            block_width: block[1],
            block_depth: block[2],
            parallel: false,
            pool: false,
        }
    }

    #[test]
    fn a_3x3_convolutions_blocks_read_their_rows_with_the_kernel_margin() {
        // 4x4x8 IFM and OFM, OFM blocks of 2 rows: block 0 writes rows 0-1
        // and reads rows 0-2 (padding above), block 1 writes rows 2-3 and
        // reads rows 1-3.
        let (ifm, ofm) = (nhwc(1, 4, 4, 8), nhwc(2, 4, 4, 8));
        let f = BlockFootprints::new(&shape_3x3([2, 4, 8]), &ifm, None, &ofm, 3);
        let row = 4 * 8;
        let span = |region, rows: Range<u64>| Span {
            region,
            bytes: rows.start * row..rows.end * row,
        };
        assert_eq!(f.ofm_writes, vec![vec![span(2, 0..2)], vec![span(2, 2..4)]]);
        assert_eq!(f.ifm_reads, vec![vec![span(1, 0..3)], vec![span(1, 1..4)]]);
        assert_eq!(f.blockdep, 3);
    }

    #[test]
    fn the_largest_safe_blockdep_keeps_each_read_behind_the_writes_it_reads() {
        // A 3x3 convolution reading the OFM of one with 2-row blocks: read 0
        // (rows 0-2) needs both of the first's blocks, read 1 (rows 1-3)
        // the second too, so read n may pass no block: k = 0. With 1-row
        // blocks (4 blocks), read n (rows n-1..n+1) needs block n + 1, so
        // k = 2 leaves max(2 - n, 0) <= 3 - (n + 1) unwritten: safe; k = 3 not.
        let (a_ifm, mid, out) = (nhwc(1, 4, 4, 8), nhwc(2, 4, 4, 8), nhwc(3, 4, 4, 8));
        let make = |block, ifm: &FeatureMap, ofm: &FeatureMap| {
            BlockFootprints::new(&shape_3x3(block), ifm, None, ofm, 0)
        };
        let rows2 = (make([2, 4, 8], &a_ifm, &mid), make([2, 4, 8], &mid, &out));
        assert_eq!(largest_safe_blockdep(&rows2.0, &rows2.1), 0);
        let rows1 = (make([1, 4, 8], &a_ifm, &mid), make([1, 4, 8], &mid, &out));
        assert_eq!(largest_safe_blockdep(&rows1.0, &rows1.1), 2);
        // Independent operations: any k.
        let apart = make([1, 4, 8], &out, &nhwc(4, 4, 4, 8));
        assert_eq!(largest_safe_blockdep(&rows1.0, &apart), 3);
    }

    #[test]
    fn a_broadcast_ifm2_is_read_at_index_0_of_each_broadcast_dimension() {
        let shape = ConvShape {
            kernel_height: 1,
            kernel_width: 1,
            pad_top: 0,
            pad_left: 0,
            traversal: Traversal::DepthWise,
            pool: true,
            ..shape_3x3([2, 4, 8])
        };
        let (ifm, ofm) = (nhwc(1, 4, 4, 8), nhwc(2, 4, 4, 8));
        let ifm2 = nhwc(3, 1, 4, 8);
        let second = Ifm2 {
            map: &ifm2,
            broadcast: broadcast::H,
        };
        let f = BlockFootprints::new(&shape, &ifm, Some(second), &ofm, 0);
        let row = 4 * 8;
        let expected = |rows: Range<u64>| {
            vec![
                Span {
                    region: 1,
                    bytes: rows.start * row..rows.end * row,
                },
                Span {
                    region: 3,
                    bytes: 0..row,
                },
            ]
        };
        assert_eq!(f.ifm_reads, vec![expected(0..2), expected(2..4)]);
    }
}
