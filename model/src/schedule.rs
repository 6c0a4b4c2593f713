//! The block traversal of a convolution as the hardware runs it (TRM 4.9,
//! 4.7.5): OFM blocks in z, x, y order; per OFM block its IFM blocks (IFM
//! depth chunks times sub-kernels), each fetched into the shared buffer; per
//! IFM block the weight groups of the decoded weight stream, in stream order;
//! per weight group one MAC beat for every microblock of the OFM block:
//! 2x2 OFM positions, or 1x4 (four consecutive positions of the row) when
//! the OFM is one row high ([`ConvShape::microblock`]).
//!
//! In parallel mode (TRM 4.7.5.1, [`ConvShape::parallel`]) core k holds OFM
//! channels k, k + 2, ..., each core reading its own weight stream, and
//! both cores run at once: the z loop is core 0's, over its local channels
//! in blocks of half the block depth, and each OFM block also holds core
//! 1's channels of the same local range ([`OfmBlock::paired_depth`]), which
//! core 1 computes from the same IFM blocks in the same beats with its own
//! weight groups ([`Beat::paired`]). Readouts give both cores' words of a
//! microblock together, channels core-local (global channel = 2 * local +
//! core). A depthwise IFM block holds
//! the global IFM channels of the OFM block's local ones, both cores' (2z ..
//! 2(z + depth)), of which each core reads every other one
//! ([`ConvShape::ifm_channel`]).
//!
//! This is the reference of the RTL's traversal and of the units it drives
//! (IFM unit, MAC unit and its accumulator buffer): [`accumulate`] runs a
//! convolution through exactly these steps, reading activations the way the
//! IFM unit reads them from a packed IFM block, and must give the
//! accumulators of a plain convolution (tested below against a direct one).

use crate::weights::order::{core_share, Traversal, U65_UBLOCK_DEPTH};
use npu_arch::command::{KernelDecomposition, UpscaleMode};
use npu_arch::shared_buffer::AB_HALF_WORDS;
use rand::Rng;

/// OFM positions of a microblock: the MAC unit's four position lanes.
pub const UBLOCK_POSITIONS: usize = 4;

/// Everything that fixes a convolution's traversal (the decoded NPU_SET_*
/// values of one operation, one core).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvShape {
    /// OFM height, width, depth.
    pub ofm_height: usize,
    pub ofm_width: usize,
    pub ofm_depth: usize,
    /// IFM depth (for depthwise equal to `ofm_depth`).
    pub ifm_depth: usize,
    /// Extent of the upscaled IFM the kernel windows read (the golden
    /// model's `ifm_extent`); the source IFM is half of it when upscaling.
    pub ifm_height: usize,
    pub ifm_width: usize,
    /// Kernel size before dilation.
    pub kernel_height: usize,
    pub kernel_width: usize,
    pub stride_x: usize,
    pub stride_y: usize,
    pub dilation_x: usize,
    pub dilation_y: usize,
    pub pad_top: usize,
    pub pad_left: usize,
    pub upscale: UpscaleMode,
    pub traversal: Traversal,
    pub decomposition: KernelDecomposition,
    /// IFM element width in bits, 8 or 16; 32 for an int32 REDUCE_SUM
    /// (TRM table 4-125), whose beats carry 4 channels.
    pub ifm_bits: u32,
    /// NPU_SET_OFM_BLK_HEIGHT/WIDTH/DEPTH_M1 + 1.
    pub block_height: usize,
    pub block_width: usize,
    pub block_depth: usize,
    /// NPU_SET_PARALLEL_MODE 1 on two cores (TRM 4.7.5.1): OFM channels
    /// split between the cores, every other one.
    pub parallel: bool,
    /// A pooling operation (NPU_OP_POOL, TRM 4.6.4): no weight stream, so a
    /// depthwise-shaped pool's kernel elements are not padded to 4 (the
    /// walk has no weight groups of padding), and REDUCE_SUM walks as a
    /// depth-first convolution.
    pub pool: bool,
}

/// A rectangle of OFM positions and channels: `z..z + depth` are channels
/// local to `core` (all of them, core 0, outside parallel mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OfmBlock {
    pub y: usize,
    pub x: usize,
    pub z: usize,
    pub height: usize,
    pub width: usize,
    pub depth: usize,
    pub core: usize,
    /// Parallel mode: core 1's local channels `z..z + paired_depth` are
    /// computed beside core 0's (0 when core 1 has none left, and on one
    /// core).
    pub paired_depth: usize,
}

impl OfmBlock {
    /// Core 1's block beside this one (parallel mode).
    pub fn paired_block(&self) -> Option<OfmBlock> {
        (self.paired_depth > 0).then_some(OfmBlock {
            depth: self.paired_depth,
            core: 1,
            paired_depth: 0,
            ..*self
        })
    }

    /// Microblocks of (height, width) `ublock` of the block (partial ones
    /// at its edges included), in raster order: the top-left OFM position
    /// of each.
    pub fn microblocks(
        &self,
        (uh, uw): (usize, usize),
    ) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.height.div_ceil(uh)).flat_map(move |my| {
            (0..self.width.div_ceil(uw)).map(move |mx| (self.y + uh * my, self.x + uw * mx))
        })
    }

    /// Microblocks of (height, width) `ublock`: the block's accumulator
    /// words per 8 OFM channels.
    pub fn microblock_count(&self, (uh, uw): (usize, usize)) -> usize {
        self.height.div_ceil(uh) * self.width.div_ceil(uw)
    }
}

/// The source-IFM rectangle an IFM block holds, as fetched into the shared
/// buffer: rows `y0..y0 + height`, columns `x0..x0 + width`, channels
/// `channel0..channel0 + channels`. Empty (height or width 0) when the
/// sub-kernel sees only padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IfmRect {
    pub y0: usize,
    pub x0: usize,
    pub height: usize,
    pub width: usize,
    pub channel0: usize,
    pub channels: usize,
}

impl IfmRect {
    /// Bytes per position in the shared buffer: the block's channels padded
    /// to 8 bytes (TRM table 4-135: ALIGN(IFM_MEMBLK_DEPTH * bytes, 8)).
    pub fn position_bytes(&self, ifm_bits: u32) -> usize {
        (self.channels * ifm_bits as usize / 8).next_multiple_of(8)
    }
}

/// A sub-kernel: kernel rows `y..y + height`, columns `x..x + width`
/// (undilated indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubKernel {
    pub y: usize,
    pub x: usize,
    pub height: usize,
    pub width: usize,
}

/// One weight group of the decoded stream: 64 weights (8 OFM x 8 IFM
/// channels, OFM channel outer) or, depthwise, 8 (one per channel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightGroup {
    /// First OFM channel, relative to the OFM block.
    pub ofm_channel: usize,
    /// Kernel element (undilated, absolute).
    pub ky: usize,
    pub kx: usize,
    /// First IFM channel, relative to the IFM block (depthwise: equal to
    /// `ofm_channel`).
    pub ifm_channel: usize,
    /// Weights the decoder delivers for it.
    pub weights: usize,
    /// Every weight is padding (a kernel element past the sub-kernel or
    /// IFM channels past the IFM): the group is decoded and dropped, no
    /// MAC beat runs for it.
    pub padding: bool,
}

/// One IFM block operation (TRM 4.9, BLOCKDEP counts these).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfmBlockOp {
    pub ofm: OfmBlock,
    pub rect: IfmRect,
    pub sub_kernel: SubKernel,
    /// The first IFM block of its OFM block: its first beat of each
    /// accumulator starts from zero.
    pub first: bool,
    /// The last: after it the OFM block's accumulators are complete.
    pub last: bool,
    pub groups: Vec<WeightGroup>,
}

impl ConvShape {
    fn depthwise(&self) -> bool {
        self.traversal == Traversal::DepthWise
    }

    /// Microblock height and width: 2x2 (TRM table 4-126, the 2x2x8
    /// microblock), or 1x4 when the OFM is one row, so that CONV1D and
    /// DepthwiseConv1D (tables 4-126/4-127, OFM height 1) fill all four
    /// position lanes. Position p of a microblock at (oy, ox) is
    /// (oy + p / width, ox + p % width).
    pub fn microblock(&self) -> (usize, usize) {
        if self.ofm_height == 1 {
            (1, UBLOCK_POSITIONS)
        } else {
            (2, 2)
        }
    }

    /// IFM channels per IFM block (TRM table 4-134, as Vela's weight order
    /// uses them).
    pub fn ifm_block_depth(&self) -> usize {
        if self.depthwise() {
            self.block_depth
        } else if self.traversal == Traversal::PartKernelFirst || self.ifm_bits == 16 {
            16
        } else if self.ifm_bits == 32 {
            // As many bytes as 32 8-bit channels.
            8
        } else {
            32
        }
    }

    /// IFM channels a beat carries: 8, or 4 of a 32-bit IFM (one
    /// shared-buffer line a position).
    pub fn beat_channels(&self) -> usize {
        if self.ifm_bits == 32 {
            U65_UBLOCK_DEPTH / 2
        } else {
            U65_UBLOCK_DEPTH
        }
    }

    /// Beats a microblock takes per group: one per byte of an activation.
    pub fn activation_bytes(&self) -> usize {
        self.ifm_bits as usize / 8
    }

    /// Cores the OFM channels are split between: 2 in parallel mode.
    pub fn cores(&self) -> usize {
        if self.parallel {
            2
        } else {
            1
        }
    }

    /// OFM channels of `core` (channels core, core + cores, ...).
    pub fn core_depth(&self, core: usize) -> usize {
        core_share(self.ofm_depth, self.cores(), core)
    }

    /// `core`'s OFM block depth (TRM 4.7.5.1: half the block depth in
    /// parallel mode, rounded as `weights::order::split_parallel` does).
    pub fn core_block_depth(&self, core: usize) -> usize {
        core_share(self.block_depth, self.cores(), core)
    }

    /// The OFM channel of `core`'s local channel `local`.
    pub fn global_channel(&self, core: usize, local: usize) -> usize {
        local * self.cores() + core
    }

    /// Where a depthwise beat's channel `c` (relative to the OFM block, of
    /// `core`) is in its IFM block: every other channel in parallel mode.
    pub fn ifm_channel(&self, core: usize, c: usize) -> usize {
        if self.depthwise() {
            self.global_channel(core, c)
        } else {
            c
        }
    }

    /// OFM blocks in z, x, y order (TRM 4.9), partial at the edges: core
    /// 0's, with core 1's beside them in parallel mode.
    pub fn ofm_blocks(&self) -> Vec<OfmBlock> {
        let mut out = Vec::new();
        let (depth, block_depth) = (self.core_depth(0), self.core_block_depth(0));
        let (depth1, block_depth1) = (self.core_depth(1), self.core_block_depth(1));
        for y in (0..self.ofm_height).step_by(self.block_height) {
            for x in (0..self.ofm_width).step_by(self.block_width) {
                for z in (0..depth).step_by(block_depth) {
                    out.push(OfmBlock {
                        y,
                        x,
                        z,
                        height: self.block_height.min(self.ofm_height - y),
                        width: self.block_width.min(self.ofm_width - x),
                        depth: block_depth.min(depth - z),
                        core: 0,
                        paired_depth: if self.parallel && z < depth1 {
                            block_depth1.min(depth1 - z)
                        } else {
                            0
                        },
                    });
                }
            }
        }
        out
    }

    /// Sub-kernels in stream order (TRM 4.7.5: rows of sub-kernels, x inner).
    pub fn sub_kernels(&self) -> Vec<SubKernel> {
        let split = match self.decomposition {
            KernelDecomposition::D8x8 => 8,
            KernelDecomposition::D4x4 => 4,
        };
        let split_h = split / self.dilation_y;
        let split_w = split / self.dilation_x;
        let mut out = Vec::new();
        for y in (0..self.kernel_height).step_by(split_h) {
            for x in (0..self.kernel_width).step_by(split_w) {
                out.push(SubKernel {
                    y,
                    x,
                    height: split_h.min(self.kernel_height - y),
                    width: split_w.min(self.kernel_width - x),
                });
            }
        }
        out
    }

    /// The IFM blocks of an OFM block, in order.
    pub fn ifm_blocks(&self, ofm: &OfmBlock) -> Vec<IfmBlockOp> {
        let ibd = self.ifm_block_depth();
        let (c_start, c_end) = if self.depthwise() && self.parallel {
            (2 * ofm.z, (2 * (ofm.z + ofm.depth)).min(self.ifm_depth))
        } else if self.depthwise() {
            (ofm.z, ofm.z + ofm.depth)
        } else {
            (0, self.ifm_depth)
        };
        let subs = self.sub_kernels();
        let mut out = Vec::new();
        for channel0 in (c_start..c_end).step_by(ibd) {
            let channels = ibd.min(c_end - channel0);
            for sub in &subs {
                out.push(IfmBlockOp {
                    ofm: *ofm,
                    rect: self.rect(ofm, sub, channel0, channels),
                    sub_kernel: *sub,
                    first: false,
                    last: false,
                    groups: self.groups(ofm, sub, channels),
                });
            }
        }
        if let Some(b) = out.first_mut() {
            b.first = true;
        }
        if let Some(b) = out.last_mut() {
            b.last = true;
        }
        out
    }

    /// Source rows (or columns) `lo..hi` that OFM positions `o0..o0 + n`
    /// read through kernel rows `k0..k0 + kn`, clipped to the IFM.
    #[allow(clippy::too_many_arguments)]
    fn source_range(
        &self,
        o0: usize,
        n: usize,
        stride: usize,
        k0: usize,
        kn: usize,
        dilation: usize,
        pad: usize,
        extent: usize,
    ) -> (usize, usize) {
        let first = (o0 * stride + k0 * dilation) as i64 - pad as i64;
        let last = ((o0 + n - 1) * stride + (k0 + kn - 1) * dilation) as i64 - pad as i64;
        let first = first.max(0);
        let last = last.min(extent as i64 - 1);
        if last < first {
            return (0, 0);
        }
        let to_source = |u: i64| {
            if self.upscale == UpscaleMode::None {
                u as usize
            } else {
                u as usize / 2
            }
        };
        (to_source(first), to_source(last) + 1)
    }

    fn rect(&self, ofm: &OfmBlock, sub: &SubKernel, channel0: usize, channels: usize) -> IfmRect {
        let (y0, y1) = self.source_range(
            ofm.y,
            ofm.height,
            self.stride_y,
            sub.y,
            sub.height,
            self.dilation_y,
            self.pad_top,
            self.ifm_height,
        );
        let (x0, x1) = self.source_range(
            ofm.x,
            ofm.width,
            self.stride_x,
            sub.x,
            sub.width,
            self.dilation_x,
            self.pad_left,
            self.ifm_width,
        );
        let empty = y1 == y0 || x1 == x0;
        IfmRect {
            y0: if empty { 0 } else { y0 },
            x0: if empty { 0 } else { x0 },
            height: if empty { 0 } else { y1 - y0 },
            width: if empty { 0 } else { x1 - x0 },
            channel0,
            channels,
        }
    }

    /// The weight groups of one IFM block: the loops of
    /// `weights::order::stream_order` inside one (OFM block, IFM block,
    /// sub-kernel).
    fn groups(&self, ofm: &OfmBlock, sub: &SubKernel, channels: usize) -> Vec<WeightGroup> {
        let ub = U65_UBLOCK_DEPTH;
        let pk = self.traversal == Traversal::PartKernelFirst;
        let dw = self.depthwise();
        let pad_to = match (self.traversal, self.ifm_bits) {
            _ if self.pool => 1,
            (Traversal::PartKernelFirst, 16) => 2,
            (Traversal::PartKernelFirst, _) | (Traversal::DepthWise, _) => 4,
            (Traversal::DepthFirst, _) => 1,
        };
        let elements = (sub.width * sub.height).div_ceil(pad_to) * pad_to;
        let block_channels = match self.traversal {
            Traversal::DepthWise => ub,
            Traversal::PartKernelFirst => channels,
            Traversal::DepthFirst => self.ifm_block_depth(),
        };
        let (outer_d, inner_d) = if pk {
            (block_channels, 1)
        } else {
            (1, block_channels)
        };
        let mut out = Vec::new();
        for outer in (0..outer_d).step_by(ub) {
            for ofm_channel in (0..ofm.depth).step_by(ub) {
                for element in 0..elements {
                    let (kx, ky) = (element % sub.width, element / sub.width);
                    for inner in (0..inner_d).step_by(self.beat_channels()) {
                        let ifm_channel = if dw { ofm_channel } else { outer + inner };
                        let padding = ky >= sub.height || (!dw && ifm_channel >= channels);
                        out.push(WeightGroup {
                            ofm_channel,
                            ky: sub.y + ky,
                            kx: sub.x + kx,
                            ifm_channel,
                            weights: if dw { ub } else { ub * ub },
                            padding,
                        });
                    }
                }
            }
        }
        out
    }

    /// A random convolution within the traversal's limits: kernels up to
    /// 9x9, strides 1-3, dilation 1-2, any padding and upscaling, both
    /// weight orders and depthwise, small OFM and blocks.
    pub fn random(rng: &mut impl Rng) -> ConvShape {
        let traversal = [
            Traversal::DepthFirst,
            Traversal::PartKernelFirst,
            Traversal::DepthWise,
        ][rng.gen_range(0..3)];
        let ifm_bits = if traversal == Traversal::PartKernelFirst || rng.gen_bool(0.7) {
            8
        } else {
            16
        };
        let kernel_height = rng.gen_range(1..=9);
        let kernel_width = rng.gen_range(1..=9);
        let dilation_y = rng.gen_range(1..=2);
        let dilation_x = rng.gen_range(1..=2);
        let stride_y = rng.gen_range(1..=3);
        let stride_x = rng.gen_range(1..=3);
        // One-row OFMs (1x4 microblocks) a quarter of the time.
        let ofm_height = if rng.gen_bool(0.25) {
            1
        } else {
            rng.gen_range(1..=7)
        };
        let ofm_width = rng.gen_range(1..=7);
        let ofm_depth = rng.gen_range(1..=20);
        let ifm_depth = if traversal == Traversal::DepthWise {
            ofm_depth
        } else {
            rng.gen_range(1..=40)
        };
        let dkh = (kernel_height - 1) * dilation_y + 1;
        let dkw = (kernel_width - 1) * dilation_x + 1;
        let pad_top = rng.gen_range(0..dkh);
        let pad_left = rng.gen_range(0..dkw);
        let pad_bottom = rng.gen_range(0..dkh);
        let pad_right = rng.gen_range(0..dkw);
        let h = ((ofm_height - 1) * stride_y + dkh) as i64 - (pad_top + pad_bottom) as i64;
        let w = ((ofm_width - 1) * stride_x + dkw) as i64 - (pad_left + pad_right) as i64;
        let upscale =
            [UpscaleMode::None, UpscaleMode::Nearest, UpscaleMode::Zeros][rng.gen_range(0..3)];
        ConvShape {
            ofm_height,
            ofm_width,
            ofm_depth,
            ifm_depth,
            ifm_height: h.max(1) as usize,
            ifm_width: w.max(1) as usize,
            kernel_height,
            kernel_width,
            stride_x,
            stride_y,
            dilation_x,
            dilation_y,
            pad_top,
            pad_left,
            upscale,
            traversal,
            decomposition: if rng.gen_bool(0.3) {
                KernelDecomposition::D4x4
            } else {
                KernelDecomposition::D8x8
            },
            ifm_bits,
            block_height: 2 * rng.gen_range(1..=3),
            block_width: 2 * rng.gen_range(1..=3),
            block_depth: 8 * rng.gen_range(1..=3),
            parallel: false,
            pool: false,
        }
    }

    /// [`ConvShape::random`], in parallel mode a quarter of the time
    /// (parallel blocks are multiples of 16 deep, TRM table 4-133).
    pub fn random_parallel(rng: &mut impl Rng) -> ConvShape {
        let mut s = ConvShape::random(rng);
        if rng.gen_bool(0.25) {
            s.parallel = true;
            s.block_depth = 16 * rng.gen_range(1..=2);
        }
        s
    }

    /// Every IFM block operation of the convolution, in order.
    pub fn block_ops(&self) -> Vec<IfmBlockOp> {
        self.ofm_blocks()
            .iter()
            .flat_map(|b| self.ifm_blocks(b))
            .collect()
    }
}

/// One MAC beat (the RTL traversal's `MacBeat`): microblock at OFM
/// (`oy`, `ox`), kernel element (`ky`, `kx`), IFM channels from
/// `ifm_channel` of the IFM block, accumulator word `acc_address`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Beat {
    pub oy: usize,
    pub ox: usize,
    pub ky: usize,
    pub kx: usize,
    pub ifm_channel: usize,
    pub acc_address: usize,
    /// The accumulators start from zero.
    pub first: bool,
    /// The part of multi-byte activations the beat carries: 1 the high
    /// byte of 16-bit ones, 0-3 the byte of 32-bit ones.
    pub byte: usize,
    /// Core 1 takes the beat too, with a weight group of its own (parallel
    /// mode, core 1 having the beat's OFM slice).
    pub paired: bool,
    /// Core 1's last beat of the OFM block (of its last slice, in the
    /// block's last IFM block).
    pub paired_block_end: bool,
    /// A weight group of padding: consumed, nothing multiplied.
    pub skip: bool,
    pub group_end: bool,
    /// The last beat of its IFM block: once its activations are read, the
    /// block's IFM buffer may be refilled.
    pub job_end: bool,
    /// The last beat of an 8-OFM-channel slice of its OFM block: once it is
    /// in the accumulators, the slice can be read out while the next ones
    /// accumulate.
    pub slice_end: bool,
    pub block_end: bool,
}

/// One accumulator word read out: microblock at OFM (`oy`, `ox`), OFM
/// channels `oz..oz + channels` (core-local in parallel mode), bit p of
/// `positions` set when microblock position p (raster order) is in the OFM
/// block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Readout {
    pub acc_address: usize,
    pub oy: usize,
    pub ox: usize,
    pub oz: usize,
    pub positions: u8,
    pub channels: usize,
    /// Core 1's channels `oz..oz + paired_channels` of its word at the
    /// same address (parallel mode; 0 when it has none).
    pub paired_channels: usize,
    /// The last word of these OFM channels.
    pub group_end: bool,
    pub block_end: bool,
}

impl ConvShape {
    /// Every MAC beat of the convolution, in order, its first OFM block
    /// in accumulator half `first_half` (the halves alternate from one
    /// operation to the next too).
    pub fn beats(&self, first_half: usize) -> Vec<Beat> {
        let mut out = Vec::new();
        let mut ofm_blocks = first_half;
        let ublock = self.microblock();
        for op in self.block_ops() {
            let half = ofm_blocks % 2;
            let m_count = op.ofm.microblock_count(ublock);
            let group_count = op.groups.len();
            // The last group of each slice (weight order visits a slice's
            // groups together only in its last IFM channel pass).
            let mut slice_last = vec![0; op.ofm.depth.div_ceil(U65_UBLOCK_DEPTH)];
            for (gi, g) in op.groups.iter().enumerate() {
                slice_last[g.ofm_channel / U65_UBLOCK_DEPTH] = gi;
            }
            for (gi, g) in op.groups.iter().enumerate() {
                let slice_end = op.last && slice_last[g.ofm_channel / U65_UBLOCK_DEPTH] == gi;
                let first = op.first
                    && (g.ky, g.kx) == (op.sub_kernel.y, op.sub_kernel.x)
                    && (self.depthwise() || g.ifm_channel == 0);
                let job_end = gi + 1 == group_count;
                let word = half * AB_HALF_WORDS + g.ofm_channel / U65_UBLOCK_DEPTH * m_count;
                let beat = |(oy, ox): (usize, usize), m: usize, byte: usize, end: bool| Beat {
                    oy,
                    ox,
                    ky: g.ky,
                    kx: g.kx,
                    ifm_channel: g.ifm_channel,
                    acc_address: word + m,
                    first: first && byte == 0,
                    byte,
                    paired: g.ofm_channel < op.ofm.paired_depth,
                    paired_block_end: slice_end
                        && end
                        && g.ofm_channel < op.ofm.paired_depth
                        && g.ofm_channel + U65_UBLOCK_DEPTH >= op.ofm.paired_depth,
                    skip: g.padding,
                    group_end: end,
                    job_end: job_end && end,
                    slice_end: slice_end && end,
                    block_end: op.last && job_end && end,
                };
                if g.padding {
                    out.push(beat((op.ofm.y, op.ofm.x), 0, 0, true));
                    continue;
                }
                let bytes = self.activation_bytes();
                for (m, at) in op.ofm.microblocks(ublock).enumerate() {
                    for byte in 0..bytes {
                        let end = m + 1 == m_count && byte + 1 == bytes;
                        out.push(beat(at, m, byte, end));
                    }
                }
            }
            if op.last {
                ofm_blocks += 1;
            }
        }
        out
    }

    /// Every accumulator word read out, in order: per OFM block, per 8 OFM
    /// channels, every microblock (in parallel mode core 1's word at the
    /// same address beside core 0's); the first OFM block in half
    /// `first_half`.
    pub fn readouts(&self, first_half: usize) -> Vec<Readout> {
        let mut out = Vec::new();
        let (uh, uw) = self.microblock();
        for (n, b) in self.ofm_blocks().iter().enumerate() {
            let mut word = (first_half + n) % 2 * AB_HALF_WORDS;
            for oz in (0..b.depth).step_by(U65_UBLOCK_DEPTH) {
                let m_count = b.microblock_count((uh, uw));
                for (m, (oy, ox)) in b.microblocks((uh, uw)).enumerate() {
                    let positions = (0..UBLOCK_POSITIONS)
                        .filter(|p| oy + p / uw < b.y + b.height && ox + p % uw < b.x + b.width)
                        .fold(0u8, |bits, p| bits | 1 << p);
                    out.push(Readout {
                        acc_address: word,
                        oy,
                        ox,
                        oz: b.z + oz,
                        positions,
                        channels: U65_UBLOCK_DEPTH.min(b.depth - oz),
                        paired_channels: U65_UBLOCK_DEPTH.min(b.paired_depth.saturating_sub(oz)),
                        group_end: m + 1 == m_count,
                        block_end: false,
                    });
                    word += 1;
                }
            }
            if let Some(last) = out.last_mut() {
                last.block_end = true;
            }
        }
        out
    }
}

/// The activation the IFM unit gives for OFM position (oy, ox) at kernel
/// element (ky, kx) and channel `c` of the IFM block, from the block as
/// fetched (`ib`: `rect.height x rect.width` positions of
/// `rect.channels` values, IFM value minus zero point, row-major): 0 for
/// padding and for the zeros of a zero-inserting upscale.
pub fn activation(
    s: &ConvShape,
    rect: &IfmRect,
    ib: &[i32],
    (oy, ox): (usize, usize),
    (ky, kx): (usize, usize),
    c: usize,
) -> i32 {
    let uy = (oy * s.stride_y + ky * s.dilation_y) as i64 - s.pad_top as i64;
    let ux = (ox * s.stride_x + kx * s.dilation_x) as i64 - s.pad_left as i64;
    if uy < 0 || ux < 0 || uy >= s.ifm_height as i64 || ux >= s.ifm_width as i64 {
        return 0;
    }
    let (sy, sx) = match s.upscale {
        UpscaleMode::None => (uy as usize, ux as usize),
        UpscaleMode::Zeros if uy % 2 == 1 || ux % 2 == 1 => return 0,
        _ => (uy as usize / 2, ux as usize / 2),
    };
    let (r, q) = (sy - rect.y0, sx - rect.x0);
    assert!(
        r < rect.height && q < rect.width && c < rect.channels,
        "the IFM block {rect:?} lacks source ({sy}, {sx}) channel {c}"
    );
    ib[(r * rect.width + q) * rect.channels + c]
}

/// Runs a convolution through the traversal: `ifm` is the source IFM
/// (height, width, depth; IFM value minus zero point), `streams` the
/// decoded weight stream of each core (stream order, as `weights::decode`
/// gives it). Returns the accumulators in (y, x, oc) order, whole (not
/// wrapped).
pub fn accumulate(s: &ConvShape, ifm: &[i32], streams: &[Vec<i16>]) -> Vec<i64> {
    let (src_h, src_w) = match s.upscale {
        UpscaleMode::None => (s.ifm_height, s.ifm_width),
        _ => (s.ifm_height.div_ceil(2), s.ifm_width.div_ceil(2)),
    };
    assert_eq!(ifm.len(), src_h * src_w * s.ifm_depth, "IFM size");
    let mut out = vec![0i64; s.ofm_height * s.ofm_width * s.ofm_depth];
    assert_eq!(streams.len(), s.cores(), "a weight stream per core");
    let mut next_weights = vec![0; s.cores()];
    let dw = s.traversal == Traversal::DepthWise;
    let ub = U65_UBLOCK_DEPTH;
    let (uh, uw) = s.microblock();
    for op in s.block_ops() {
        let rect = op.rect;
        let ib: Vec<i32> = (0..rect.height)
            .flat_map(|r| (0..rect.width).map(move |q| (r, q)))
            .flat_map(|(r, q)| {
                let base = ((rect.y0 + r) * src_w + rect.x0 + q) * s.ifm_depth + rect.channel0;
                ifm[base..base + rect.channels].to_vec()
            })
            .collect();
        // Core 0's block, and core 1's beside it in parallel mode: the
        // same groups up to its depth.
        for block in std::iter::once(op.ofm).chain(op.ofm.paired_block()) {
            // The weight stream holds each OFM depth slice once: every
            // spatial OFM block reads it again from the start.
            let stream = &streams[block.core];
            let next_weight = &mut next_weights[block.core];
            if op.first && op.ofm.z == 0 {
                *next_weight = 0;
            }
            let mut accs = vec![0i64; block.height * block.width * block.depth];
            for g in op.groups.iter().filter(|g| g.ofm_channel < block.depth) {
                let w = &stream[*next_weight..*next_weight + g.weights];
                *next_weight += g.weights;
                if g.padding {
                    continue;
                }
                for (my, mx) in block.microblocks((uh, uw)) {
                    for p in 0..uh * uw {
                        let (oy, ox) = (my + p / uw, mx + p % uw);
                        if oy >= block.y + block.height || ox >= block.x + block.width {
                            continue;
                        }
                        let at = ((oy - block.y) * block.width + ox - block.x) * block.depth;
                        for o in 0..ub {
                            if g.ofm_channel + o >= block.depth {
                                continue;
                            }
                            let sum: i64 = if dw {
                                let a = activation(
                                    s,
                                    &rect,
                                    &ib,
                                    (oy, ox),
                                    (g.ky, g.kx),
                                    s.ifm_channel(block.core, g.ifm_channel + o),
                                );
                                i64::from(a) * i64::from(w[o])
                            } else {
                                (0..ub)
                                    .filter(|k| g.ifm_channel + k < rect.channels)
                                    .map(|k| {
                                        let a = activation(
                                            s,
                                            &rect,
                                            &ib,
                                            (oy, ox),
                                            (g.ky, g.kx),
                                            g.ifm_channel + k,
                                        );
                                        i64::from(a) * i64::from(w[o * ub + k])
                                    })
                                    .sum()
                            };
                            accs[at + g.ofm_channel + o] += sum;
                        }
                    }
                }
            }
            // The block's accumulators carry over its IFM blocks; `first`
            // starts them, `last` reads them out.
            if op.first {
                clear_block(&mut out, s, &block);
            }
            add_block(&mut out, s, &block, &accs);
        }
    }
    for (used, stream) in next_weights.iter().zip(streams) {
        assert_eq!(
            *used,
            stream.len(),
            "the traversal consumes the whole stream"
        );
    }
    out
}

fn block_index(s: &ConvShape, b: &OfmBlock, i: usize) -> usize {
    let c = i % b.depth;
    let x = (i / b.depth) % b.width;
    let y = i / b.depth / b.width;
    ((b.y + y) * s.ofm_width + b.x + x) * s.ofm_depth + s.global_channel(b.core, b.z + c)
}

fn clear_block(out: &mut [i64], s: &ConvShape, b: &OfmBlock) {
    for i in 0..b.height * b.width * b.depth {
        out[block_index(s, b, i)] = 0;
    }
}

fn add_block(out: &mut [i64], s: &ConvShape, b: &OfmBlock, accs: &[i64]) {
    for (i, a) in accs.iter().enumerate() {
        out[block_index(s, b, i)] += a;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::weights::order::{self, WeightOrder};
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    /// A direct convolution of the padded, upscaled IFM (the golden model's
    /// arithmetic, written out plainly).
    fn direct(s: &ConvShape, ifm: &[i32], ohwi: &[i16]) -> Vec<i64> {
        let dw = s.traversal == Traversal::DepthWise;
        let (src_w, d) = (
            match s.upscale {
                UpscaleMode::None => s.ifm_width,
                _ => s.ifm_width.div_ceil(2),
            },
            s.ifm_depth,
        );
        let up = |y: i64, x: i64, c: usize| -> i64 {
            if y < 0 || x < 0 || y >= s.ifm_height as i64 || x >= s.ifm_width as i64 {
                return 0;
            }
            let (y, x) = (y as usize, x as usize);
            let (sy, sx) = match s.upscale {
                UpscaleMode::None => (y, x),
                UpscaleMode::Zeros if y % 2 == 1 || x % 2 == 1 => return 0,
                _ => (y / 2, x / 2),
            };
            i64::from(ifm[(sy * src_w + sx) * d + c])
        };
        let (kh, kw) = (s.kernel_height, s.kernel_width);
        let per_oc = if dw { kh * kw } else { kh * kw * d };
        let mut out = Vec::new();
        for oy in 0..s.ofm_height {
            for ox in 0..s.ofm_width {
                for oc in 0..s.ofm_depth {
                    let mut acc = 0i64;
                    for ky in 0..kh {
                        for kx in 0..kw {
                            let y = (oy * s.stride_y + ky * s.dilation_y) as i64 - s.pad_top as i64;
                            let x =
                                (ox * s.stride_x + kx * s.dilation_x) as i64 - s.pad_left as i64;
                            if dw {
                                let w = ohwi[oc * per_oc + ky * kw + kx];
                                acc += up(y, x, oc) * i64::from(w);
                            } else {
                                for ic in 0..d {
                                    let w = ohwi[oc * per_oc + (ky * kw + kx) * d + ic];
                                    acc += up(y, x, ic) * i64::from(w);
                                }
                            }
                        }
                    }
                    out.push(acc);
                }
            }
        }
        out
    }

    #[test]
    fn the_traversal_computes_the_convolution() {
        let seed = std::env::var("SCHEDULE_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2026);
        println!("schedule test seed {seed} (set SCHEDULE_SEED to change)");
        let mut rng = StdRng::seed_from_u64(seed);
        let (mut one_row, mut parallel) = (0, 0);
        for case in 0..300 {
            let s = ConvShape::random_parallel(&mut rng);
            parallel += usize::from(s.parallel);
            one_row += usize::from(s.microblock() == (1, 4));
            let src_h = s
                .ifm_height
                .div_ceil(if s.upscale == UpscaleMode::None { 1 } else { 2 });
            let src_w = s
                .ifm_width
                .div_ceil(if s.upscale == UpscaleMode::None { 1 } else { 2 });
            let range = if s.ifm_bits == 8 { 255 } else { 65535 };
            let ifm: Vec<i32> = (0..src_h * src_w * s.ifm_depth)
                .map(|_| rng.gen_range(-range..=range))
                .collect();
            let dw = s.traversal == Traversal::DepthWise;
            let order = WeightOrder {
                ofm_depth: s.ofm_depth,
                ifm_depth: if dw { 1 } else { s.ifm_depth },
                kernel_height: s.kernel_height,
                kernel_width: s.kernel_width,
                ofm_block_depth: s.block_depth,
                traversal: s.traversal,
                ifm_bits: s.ifm_bits,
                dilation_x2: s.dilation_x == 2,
                dilation_y2: s.dilation_y == 2,
                decomposition: s.decomposition,
                ofm_ublock_depth: U65_UBLOCK_DEPTH,
                ifm_ublock_depth: U65_UBLOCK_DEPTH,
            };
            let ohwi: Vec<i16> = (0..order.tensor_len())
                .map(|_| rng.gen_range(-255..=255))
                .collect();
            // Each core's stream of its channels (TRM 4.7.5.1); none for a
            // core without channels.
            let mut streams: Vec<Vec<i16>> = order::split_parallel(&ohwi, &order, s.cores())
                .expect("a valid order")
                .iter()
                .map(|(part, o)| order::to_stream(part, o).expect("a valid order"))
                .collect();
            streams.resize(s.cores(), Vec::new());
            assert_eq!(
                accumulate(&s, &ifm, &streams),
                direct(&s, &ifm, &ohwi),
                "case {case} (seed {seed}): {s:?}"
            );
        }
        assert!(
            (30..=270).contains(&one_row),
            "both microblock shapes: {one_row} of 300 one-row cases"
        );
        assert!(
            (10..=100).contains(&parallel),
            "parallel mode in {parallel} of 300 cases"
        );
    }

    /// A one-row OFM 1x10, blocks 2x6: 1x4 microblocks at x 0 and 4 of the
    /// first block (the second partial: positions 0-1), x 6 of the second
    /// (positions 0-3).
    #[test]
    fn a_one_row_ofm_has_1x4_microblocks() {
        let s = ConvShape {
            ofm_height: 1,
            ofm_width: 10,
            ofm_depth: 8,
            ifm_depth: 8,
            ifm_height: 1,
            ifm_width: 10,
            kernel_height: 1,
            kernel_width: 1,
            stride_x: 1,
            stride_y: 1,
            dilation_x: 1,
            dilation_y: 1,
            pad_top: 0,
            pad_left: 0,
            upscale: UpscaleMode::None,
            traversal: Traversal::DepthFirst,
            decomposition: KernelDecomposition::D8x8,
            ifm_bits: 8,
            block_height: 2,
            block_width: 6,
            block_depth: 8,
            parallel: false,
            pool: false,
        };
        assert_eq!(s.microblock(), (1, 4));
        let words: Vec<_> = s
            .readouts(0)
            .iter()
            .map(|r| (r.acc_address, r.oy, r.ox, r.positions))
            .collect();
        assert_eq!(
            words,
            [
                (0, 0, 0, 0b1111),
                (1, 0, 4, 0b0011),
                (AB_HALF_WORDS, 0, 6, 0b1111)
            ]
        );
        let two_rows = ConvShape {
            ofm_height: 2,
            ifm_height: 2,
            ..s
        };
        assert_eq!(two_rows.microblock(), (2, 2));
        assert_eq!(two_rows.readouts(0).len(), 5);
    }
}
