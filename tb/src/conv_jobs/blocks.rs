//! OFM blocks, IFM buffers and accumulators (TRM 4.9): the sizes a spec
//! resolves to, Vela's choice of them, and the checks that they fit.

use super::{ConvKind, ConvSpec, REGIONS};
use crate::vela_blocks::{find_block_config, BlockKind, BlockQuery, Resampling};
use npu_arch::command::{Layout, PoolingMode, UpscaleMode, WeightOrder as WeightOrderBit};
use npu_arch::shared_buffer::{AB_HALF_WORDS, IB_END_MAX_KB, IB_START_KB};
use npu_model::schedule::ConvShape;
use npu_model::weights::order::{Traversal, U65_UBLOCK_DEPTH};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

impl ConvSpec {
    /// The operation as Vela's block search sees it ([`crate::vela_blocks`]).
    pub fn vela_query(&self) -> BlockQuery {
        BlockQuery {
            cores: if self.parallel { 2 } else { 1 },
            kind: match self.kind {
                ConvKind::Conv => BlockKind::Convolution,
                ConvKind::Depthwise => BlockKind::Depthwise,
                ConvKind::Pool(PoolingMode::ReduceSum) => BlockKind::ReduceSum,
                ConvKind::Pool(_) => BlockKind::Pooling,
            },
            ofm: self.ofm,
            ifm: self.ifm_shape(),
            ifm2: None,
            scalar: false,
            ifm_bits: self.ifm_type.bits as usize,
            kernel: self.kernel,
            stride: self.stride,
            dilation: self.dilation,
            lut: self.activation.bits() >= 16,
            scaled: self.scales(),
            resampling: match self.upscale {
                UpscaleMode::None => Resampling::None,
                UpscaleMode::Nearest => Resampling::Nearest,
                UpscaleMode::Zeros => Resampling::Transpose,
            },
        }
    }

    /// Takes the OFM block, IFM_IB_END and AB_START Vela chooses, and keeps
    /// the weight order (a benchmark's row names its own); false, and the
    /// spec as it was, where Vela finds none.
    pub fn take_vela_layout(&mut self) -> bool {
        self.take_vela(false)
    }

    /// Takes the OFM block, IFM_IB_END, AB_START and a convolution's weight
    /// order as Vela chooses them (its block search,
    /// [`crate::vela_blocks::find_block_config`]); false, and the spec as
    /// it was, where Vela finds none.
    pub fn take_vela_block(&mut self) -> bool {
        self.take_vela(true)
    }

    fn take_vela(&mut self, weight_order: bool) -> bool {
        let Some(config) = find_block_config(&self.vela_query()) else {
            return false;
        };
        self.block = Some(config.ofm_block);
        self.ib_end = Some(config.ib_end);
        self.ab_start = Some(config.ab_start);
        if weight_order && self.kind == ConvKind::Conv {
            self.weight_order = if config.part_kernel {
                WeightOrderBit::PartKernelFirst
            } else {
                WeightOrderBit::DepthFirst
            };
        }
        true
    }

    /// The traversal of this operation with OFM block `block`.
    pub fn conv_shape(&self, block: [usize; 3]) -> ConvShape {
        let [ifm_height, ifm_width] = self.upscaled_extent();
        ConvShape {
            ofm_height: self.ofm[0],
            ofm_width: self.ofm[1],
            ofm_depth: self.ofm[2],
            ifm_depth: self.ifm_channels(),
            ifm_height,
            ifm_width,
            kernel_height: self.kernel[0],
            kernel_width: self.kernel[1],
            stride_x: self.stride[1],
            stride_y: self.stride[0],
            dilation_x: self.dilation[1],
            dilation_y: self.dilation[0],
            pad_top: self.pad[0],
            pad_left: self.pad[1],
            upscale: self.upscale,
            traversal: self.traversal(),
            decomposition: self.decomposition,
            ifm_bits: self.ifm_type.bits,
            block_height: block[0],
            block_width: block[1],
            block_depth: block[2],
            parallel: self.parallel,
            pool: self.pool().is_some(),
        }
    }

    /// Bytes of one position of an IFM block in the shared buffer (TRM
    /// tables 4-134 and 4-135: ALIGN(IFM_MEMBLK_DEPTH x bytes, 8)).
    fn position_bytes(&self, block_depth: usize) -> usize {
        let channels = match (self.traversal(), self.ifm_type.bits) {
            (Traversal::DepthWise, _) => block_depth,
            (_, 32) => self.ifm_depth.min(8).next_multiple_of(2),
            (_, 16) => self.ifm_depth.min(16).next_multiple_of(4),
            (Traversal::DepthFirst, _) => self.ifm_depth.min(32).next_multiple_of(8),
            _ => self.ifm_depth.min(16).next_multiple_of(8),
        };
        (channels * self.ifm_type.bytes()).next_multiple_of(8)
    }

    /// Source rows (or columns) one OFM block of `block` rows reads through
    /// one sub-kernel (TRM table 4-134, plus one for upscaling).
    fn ib_side(&self, block: usize, axis: usize) -> usize {
        let up = self.upscale_factor();
        let [dkh, dkw] = self.dilated_kernel();
        let dk = [dkh, dkw][axis];
        let sub = (block - 1) * self.stride[axis] + self.split().min(dk);
        let whole = self.ifm_shape()[axis];
        (sub.div_ceil(up) + up - 1).min(whole).next_multiple_of(2)
    }

    /// The TRM-style size of an IFM block of OFM block `block`, bytes.
    fn ib_bound(&self, block: [usize; 3]) -> usize {
        self.ib_side(block[0], 0) * self.ib_side(block[1], 1) * self.position_bytes(block[2])
    }

    /// The largest IFM block the traversal fetches with OFM block `block`.
    fn ib_actual(&self, block: [usize; 3]) -> usize {
        self.conv_shape(block)
            .block_ops()
            .iter()
            .map(|op| op.rect.height * op.rect.width * op.rect.position_bytes(self.ifm_type.bits))
            .max()
            .unwrap_or(0)
    }

    /// The smallest IFM_IB_END (even, KB) whose IB0/IB1 hold the IFM blocks
    /// of OFM block `block`.
    pub fn least_ib_end(&self, block: [usize; 3]) -> usize {
        let bytes = self.ib_bound(block).max(self.ib_actual(block));
        IB_START_KB + 2 * bytes.div_ceil(1024).max(1)
    }

    /// The OFM block limits of TRM 4.9 and the accumulator buffer.
    fn block_ok(&self, [h, w, d]: [usize; 3]) -> bool {
        let shape_ok = (2..=32).contains(&h)
            && h % 2 == 0
            && (2..=64).contains(&w)
            && w % 2 == 0
            && (8..=128).contains(&d)
            && d % 8 == 0
            && (d % 16 == 0 || self.ofm[2] <= d);
        shape_ok
            && h.div_ceil(2) * w.div_ceil(2) * d.div_ceil(8) <= AB_HALF_WORDS
            && self.ib_bound([h, w, d]) <= (IB_END_MAX_KB - IB_START_KB) / 2 * 1024
    }

    /// The OFM block: the given one, or the largest (by volume, then the
    /// deepest) that fits and is no larger than the OFM needs.
    pub fn resolved_block(&self) -> [usize; 3] {
        if let Some(b) = self.block {
            return b;
        }
        let max_h = self.ofm[0].next_multiple_of(2).min(32);
        let max_w = self.ofm[1].next_multiple_of(2).min(64);
        let max_d = self.ofm[2].next_multiple_of(self.depth_step()).min(128);
        let mut best = [2, 2, self.depth_step()];
        for d in (8..=max_d).step_by(8) {
            for h in (2..=max_h).step_by(2) {
                for w in (2..=max_w).step_by(2) {
                    let volume = |[h, w, d]: [usize; 3]| (h * w * d, d);
                    if self.block_ok([h, w, d]) && volume([h, w, d]) > volume(best) {
                        best = [h, w, d];
                    }
                }
            }
        }
        best
    }

    /// A random OFM block within the limits, at most a little beyond the OFM.
    pub(super) fn random_block(&self, rng: &mut StdRng) -> [usize; 3] {
        for _ in 0..20 {
            let block = [
                2 * rng.gen_range(1..=(self.ofm[0].div_ceil(2) + 1).min(16)),
                2 * rng.gen_range(1..=(self.ofm[1].div_ceil(2) + 1).min(32)),
                self.depth_step()
                    * rng.gen_range(
                        1..=(self.ofm[2].div_ceil(self.depth_step()) + 1)
                            .min(128 / self.depth_step()),
                    ),
            ];
            if self.block_ok(block) {
                return block;
            }
        }
        [2, 2, self.depth_step() * self.ofm[2].div_ceil(8).min(2)]
    }

    /// OFM block depths are multiples of this: 16 in parallel mode (TRM
    /// table 4-133, MIN_BLOCK_DEPTH), else 8.
    fn depth_step(&self) -> usize {
        if self.parallel {
            16
        } else {
            U65_UBLOCK_DEPTH
        }
    }

    /// Whether the spec makes a valid job: what the generator itself can
    /// lay out ([`ConvSpec::check_layout`]), then TRM 4.8.2's operation rules
    /// as the golden model judges them ([`Job::check_rules`](npu_model::job::Job::check_rules): one rule set,
    /// not a copy of it here). Builds the job with data from a fixed seed.
    pub fn check(&self) -> Result<(), String> {
        self.build(&mut StdRng::seed_from_u64(0)).map(|_| ())
    }

    /// What the generator and the RTL's shared-buffer layout need of a spec,
    /// beyond the TRM's operation rules: positive sizes, an IFM window the
    /// padding leaves, dilation the kernel-stride command's bit holds, tiles
    /// on NHCWB16 feature maps, OFM blocks and IFM buffers that fit (TRM 4.9,
    /// the module doc), regions that exist; pools without dilation, depth first.
    pub fn check_layout(&self) -> Result<(), String> {
        let [oh, ow, oc] = self.ofm;
        let [kh, kw] = self.kernel;
        if oh * ow * oc * kh * kw * self.ifm_channels() == 0 {
            return Err("sizes must be positive".into());
        }
        if self.dilation.iter().any(|d| !(1..=2).contains(d)) {
            return Err(format!(
                "dilation {:?} (1 or 2: one bit of NPU_SET_KERNEL_STRIDE)",
                self.dilation
            ));
        }
        if self.upscaled_extent().contains(&0) {
            return Err("the padding covers the whole IFM window".into());
        }
        if self.pool().is_some()
            && (self.dilation != [1, 1] || self.weight_order != WeightOrderBit::DepthFirst)
        {
            return Err("pools: no dilation, depth-first".into());
        }
        let [sh, sw, _] = self.ifm_shape();
        for (tiles, layout, (h, w), what) in [
            (self.ifm_tiles, self.ifm_layout, (sh, sw), "IFM"),
            (self.ofm_tiles, self.ofm_layout, (oh, ow), "OFM"),
        ] {
            if let Some(t) = tiles {
                if layout != Layout::Nhcwb16 {
                    return Err(format!("{what} tiles need NHCWB16 (TRM 3.1.1)"));
                }
                let ok = (1..=w).contains(&t.width0)
                    && (1..=h).contains(&t.height0)
                    && (1..=h).contains(&t.height1);
                if !ok {
                    return Err(format!("{what} tiles {t:?} outside {h}x{w}"));
                }
            }
        }
        let block = self.resolved_block();
        if !self.block_ok(block) {
            return Err(format!(
                "OFM block {block:?}: TRM 4.9 limits, at most {AB_HALF_WORDS} accumulator words"
            ));
        }
        // The IB must hold the traversal's own IFM blocks; a stream may
        // give less than the generator's TRM-style bound (Vela sizes by
        // its own, without the bound's upscaling row).
        let ib_end = self.ib_end.unwrap_or_else(|| self.least_ib_end(block));
        let needed = IB_START_KB + 2 * self.ib_actual(block).div_ceil(1024).max(1);
        if !ib_end.is_multiple_of(2) || ib_end > IB_END_MAX_KB || ib_end < needed {
            return Err(format!(
                "IFM_IB_END {ib_end}: even, at most {IB_END_MAX_KB}, at least {needed}"
            ));
        }
        if self
            .ab_start
            .is_some_and(|kb| kb < ib_end || kb > IB_END_MAX_KB)
        {
            return Err(format!(
                "AB_START {:?}: from IFM_IB_END {ib_end} to {IB_END_MAX_KB} (TRM table 4-138)",
                self.ab_start
            ));
        }
        if self.regions.iter().any(|&r| r >= REGIONS) {
            return Err(format!("regions {:?}", self.regions));
        }
        Ok(())
    }
}
