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
use npu_arch::command::broadcast;
use npu_arch::limits::BLOCKDEP_MAX;
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
                    let channels = (b.z..b.z + b.depth).map(|c| c * cores + b.core);
                    written.extend(spans(
                        ofm,
                        b.y..b.y + b.height,
                        b.x..b.x + b.width,
                        channels,
                    ));
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
    let channels = rect.channel0..rect.channel0 + rect.channels;
    spans(
        map,
        rect.y0..rect.y0 + rect.height,
        rect.x0..rect.x0 + rect.width,
        channels,
    )
}

/// The bytes of `map` at `rows` x `columns` and `channels` (ascending): one
/// span per position and run of channels adjacent in memory.
fn spans(
    map: &FeatureMap,
    rows: Range<usize>,
    columns: Range<usize>,
    channels: impl Iterator<Item = usize> + Clone,
) -> Vec<Span> {
    let element = map.dtype.bytes() as u64;
    let mut spans: Vec<Span> = Vec::new();
    for y in rows {
        for x in columns.clone() {
            for c in channels.clone() {
                let start = map.offset(y, x, c).max(0) as u64;
                match spans.last_mut() {
                    Some(last) if last.bytes.end == start => last.bytes.end = start + element,
                    _ => spans.push(Span {
                        region: map.region,
                        bytes: start..start + element,
                    }),
                }
            }
        }
    }
    spans
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
