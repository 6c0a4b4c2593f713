//! The OFM block and shared-buffer layout Vela 5.2.0 chooses for an
//! operation (`ethosu.vela.architecture_allocator.find_block_config`, with
//! the Ethos-U65 figures of `architecture_features.py`), restated as facts
//! so the random suites draw the blocks real command streams use: large
//! blocks near the shared buffer's limits (issue 30: a real network's
//! 26x16x8 parallel-mode depthwise block, its IFM block 4032 bytes of a 4 KB
//! IB, had never been drawn).
//!
//! `tb/tests/vela_blocks.rs` checks [`find_block_config`] against Vela
//! itself on a table of random operations (`scripts/vela/block_configs.py`
//! writes it), so this stays Vela's rule and not a guess at it.

use serde::{Deserialize, Serialize};

/// Vela's kind of operation (`NpuBlockType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    Convolution,
    Depthwise,
    /// Max and average pools.
    Pooling,
    ReduceSum,
    Elementwise,
}

/// NPU_SET_IFM_UPSCALE as Vela's `resampling_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resampling {
    None,
    Nearest,
    Transpose,
}

/// One operation as Vela's block search sees it: shapes are (height,
/// width, depth); the kernel's stride and dilation are (y, x).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockQuery {
    /// 1 (u65-256) or 2 (u65-512): Vela's search is the same for both, the
    /// OFM block covering both cores' channels.
    pub cores: usize,
    pub kind: BlockKind,
    pub ofm: [usize; 3],
    pub ifm: [usize; 3],
    /// An elementwise operation's IFM2 (its larger shape is the IFM's).
    pub ifm2: Option<[usize; 3]>,
    pub scalar: bool,
    pub ifm_bits: usize,
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    /// A LUT activation: Vela keeps 2 banks for it (it keeps 2 anyway).
    pub lut: bool,
    /// The operation scales its output (Vela's `has_scaling`).
    pub scaled: bool,
    pub resampling: Resampling,
}

/// Vela's answer: the OFM block, the IFM block it sized the buffers by,
/// and the shared-buffer layout in KB (NPU_SET_IFM_IB_END,
/// NPU_SET_IFM2_IB_START, NPU_SET_AB_START).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockConfig {
    pub ofm_block: [usize; 3],
    pub ifm_block: [usize; 3],
    pub ib_end: usize,
    pub ib_start2: usize,
    pub ab_start: usize,
    /// 40-bit accumulators (Vela's Acc40), else 32-bit.
    pub acc40: bool,
    /// Part-kernel-first weight order.
    pub part_kernel: bool,
}

/// Ethos-U65 figures (`architecture_features.py`): a 2x2x8 microblock,
/// blocks up to 32x64x128, 8x8 sub-kernels, OFM depth split at 16, 48
/// banks of 1 KB with 2 for the output buffers and 2 kept at the end, and
/// the rounding granules in banks.
const UBLOCK: [usize; 3] = [2, 2, 8];
const BLOCK_MAX: [usize; 3] = [32, 64, 128];
const SUB_KERNEL_MAX: usize = 8;
const SPLIT_DEPTH: usize = 16;
const BANK_BYTES: usize = 1024;
const TOTAL_BANKS: usize = 48;
const OUTPUT_BANKS: usize = 2;
const END_BANKS: usize = 2;
const IFM_GRANULE_32: usize = 16;
const IFM_GRANULE: usize = 8;
const ACC32_GRANULE: usize = 16;
const ACC40_GRANULE: usize = 20;

struct Layout {
    ib_end: usize,
    ib_start2: usize,
    ab_start: usize,
}

/// Vela's `_try_block_config`: the layout that holds an IFM block of
/// `ifm_block` (both halves) and accumulators of `ofm_block`, or `None`.
fn try_layout(
    q: &BlockQuery,
    ofm_block: [usize; 3],
    ifm_block: [usize; 3],
    acc_bits: usize,
) -> Option<Layout> {
    let ifm_granule = if q.ifm_bits == 32 {
        IFM_GRANULE_32
    } else {
        IFM_GRANULE
    };
    let acc_granule = if acc_bits == 40 {
        ACC40_GRANULE
    } else {
        ACC32_GRANULE
    };
    let ifm_bytes =
        ifm_block[0] * ifm_block[1] * (ifm_block[2] * q.ifm_bits / 8).next_multiple_of(8);
    let ifm_banks = (ifm_bytes.div_ceil(BANK_BYTES) * 2).next_multiple_of(ifm_granule);
    let lut_start = TOTAL_BANKS - END_BANKS;
    let mut ifm_end = OUTPUT_BANKS + ifm_banks;
    let ifm2_start = ifm_end;
    let mut acc_start = lut_start;
    if q.kind == BlockKind::Elementwise {
        let ifm2_banks = if q.scalar { 0 } else { ifm_banks };
        if ifm2_start + ifm2_banks > acc_start {
            return None;
        }
        ifm_end = acc_start;
    } else {
        let acc_bytes =
            ofm_block[0] * ofm_block[1] * ofm_block[2].next_multiple_of(8) * acc_bits / 8;
        let acc_banks = (acc_bytes.div_ceil(BANK_BYTES) * 2).next_multiple_of(acc_granule);
        acc_start = acc_start.checked_sub(acc_banks)?;
    }
    (ifm_end <= acc_start).then_some(Layout {
        ib_end: ifm_end,
        ib_start2: ifm2_start,
        ab_start: acc_start,
    })
}

/// Vela's `_choose_kernel_method`: part-kernel-first when it uses the MACs
/// better than depth-first.
fn part_kernel_first(ifm_depth: usize, ifm_bits: usize, kernel_elements: usize) -> bool {
    if ifm_depth <= 8 {
        return true;
    }
    let depth = ifm_depth as f64;
    let depth_utilisation =
        depth / ifm_depth.next_multiple_of(if ifm_bits == 8 { 32 } else { 16 }) as f64;
    let part_utilisation = depth * kernel_elements as f64
        / (ifm_depth.next_multiple_of(8)
            * kernel_elements.next_multiple_of(if ifm_bits == 8 { 4 } else { 2 })) as f64;
    part_utilisation > depth_utilisation
}

/// Vela's `_required_size`: IFM rows (or columns) for `value` OFM rows.
fn required_size(
    value: usize,
    stride: usize,
    border: usize,
    upscale: usize,
    nearest: usize,
) -> usize {
    ((value - 1) * stride + border + nearest).div_ceil(upscale)
}

/// Vela's `find_block_config`: the OFM block of least relative fetch cost
/// (ties to the larger IFM coverage for blocks up to 4x4), its IFM block
/// and the shared-buffer layout; `None` where no block fits.
pub fn find_block_config(q: &BlockQuery) -> Option<BlockConfig> {
    let ifm = match q.ifm2 {
        Some(ifm2) if ifm2.iter().product::<usize>() > q.ifm.iter().product::<usize>() => ifm2,
        _ => q.ifm,
    };
    let equal_depth = !matches!(q.kind, BlockKind::Convolution | BlockKind::ReduceSum);
    let convolution = matches!(q.kind, BlockKind::Convolution | BlockKind::Depthwise);
    let area = [
        (q.kernel[0] - 1) * q.dilation[0] + 1,
        (q.kernel[1] - 1) * q.dilation[1] + 1,
    ];
    let part_kernel =
        convolution && part_kernel_first(ifm[2], q.ifm_bits, q.kernel[0] * q.kernel[1]);
    let acc40 = q.ifm_bits == 16 && q.kind != BlockKind::Pooling && q.scaled;
    let acc_bits = if acc40 { 40 } else { 32 };
    let (upscale, nearest) = match q.resampling {
        Resampling::None => (1, 0),
        Resampling::Nearest => (2, 1),
        Resampling::Transpose => (2, 0),
    };
    let ifm_repeats = area[1].div_ceil(SUB_KERNEL_MAX) * area[0].div_ceil(SUB_KERNEL_MAX);
    let ifm_block_depth = if q.ifm_bits == 16 {
        ifm[2].min(16).next_multiple_of(4)
    } else {
        ifm[2]
            .min(if part_kernel { 16 } else { 32 })
            .next_multiple_of(UBLOCK[2])
    };
    let weight_fetch_wh = if convolution { area[0] * area[1] } else { 0 };
    let search: [usize; 3] =
        std::array::from_fn(|i| q.ofm[i].min(BLOCK_MAX[i]).next_multiple_of(UBLOCK[i]));
    let ofm_elements = q.ofm.iter().product::<usize>() as f64;
    let ifm_elements = ifm.iter().product::<usize>();

    let mut best: Option<BlockConfig> = None;
    let mut best_cost = f64::INFINITY;
    let mut best_coverage = f64::INFINITY;
    let mut depth = UBLOCK[2].max(search[2].min(SPLIT_DEPTH));
    if depth < q.ofm[2] {
        depth = depth.next_multiple_of(SPLIT_DEPTH);
    }
    while depth <= search[2] {
        // Vela marks (width, height) and asks for (height, width).
        let mut wont_fit = std::collections::HashSet::new();
        for height in (UBLOCK[0]..=search[0]).step_by(UBLOCK[0]) {
            for width in (UBLOCK[1]..=search[1]).step_by(UBLOCK[1]) {
                if wont_fit.contains(&(height, width)) {
                    continue;
                }
                let side = |value: usize, axis: usize| {
                    let border = area[axis].min(SUB_KERNEL_MAX);
                    required_size(value, q.stride[axis], border, upscale, nearest)
                        .next_multiple_of(UBLOCK[axis])
                };
                let ifm_block = [
                    side(height, 0),
                    side(width, 1),
                    if equal_depth { depth } else { ifm_block_depth },
                ];
                // Vela's 256/512 CONV1D fit: a one-row OFM with a one-row kernel.
                let fitted_height = if q.ofm[0] == 1 && q.kernel[0] == 1 {
                    height.min(q.ofm[0])
                } else {
                    height
                };
                let ofm_block = [fitted_height, width, depth];
                let Some(layout) = try_layout(q, ofm_block, ifm_block, acc_bits) else {
                    wont_fit.insert((width, height));
                    continue;
                };
                let full_blocks: [usize; 3] =
                    std::array::from_fn(|i| q.ofm[i].div_ceil(ofm_block[i]));
                let blocks: [f64; 3] =
                    std::array::from_fn(|i| q.ofm[i] as f64 / ofm_block[i] as f64);
                let mut weight_fetch =
                    (weight_fetch_wh * ifm[2] * full_blocks[0] * full_blocks[1]) as f64;
                if q.kind != BlockKind::Depthwise {
                    weight_fetch *= depth as f64 * blocks[2];
                }
                let mut ifm_fetch = (ifm_block[0] * ifm_block[1] * ifm[2] * ifm_repeats) as f64
                    * (blocks[1] * blocks[0]);
                if !equal_depth {
                    ifm_fetch *= full_blocks[2] as f64;
                }
                let mut cost = if q.kind == BlockKind::Elementwise {
                    (ofm_elements / (height * width * depth) as f64).max(1.0)
                } else {
                    (ifm_fetch + weight_fetch) / ofm_elements
                };
                if ifm_elements < ifm_block.iter().product::<usize>() * 2 {
                    cost /= 2.0;
                }
                if cost > best_cost {
                    continue;
                }
                if cost == best_cost {
                    let covered = (ifm[0].min(ifm_block[0]) * ifm[1].min(ifm_block[1])) as f64;
                    let coverage = (ifm[0] * ifm[1]) as f64 / covered;
                    if !(coverage <= best_coverage && height <= 4 && width <= 4) {
                        continue;
                    }
                    best_coverage = coverage;
                } else {
                    best_coverage = f64::INFINITY;
                }
                best_cost = cost;
                best = Some(BlockConfig {
                    ofm_block: [height, width, depth],
                    ifm_block,
                    ib_end: layout.ib_end,
                    ib_start2: layout.ib_start2,
                    ab_start: layout.ab_start,
                    acc40,
                    part_kernel,
                });
            }
        }
        depth += UBLOCK[2];
        if depth < q.ofm[2] {
            depth = depth.next_multiple_of(SPLIT_DEPTH);
        }
    }
    best
}
