//! What an operation reports: its per-layer row, the rate facts of the
//! performance floor, its block footprints and its memory accesses.

use super::elementwise::ifm2_extent;
use super::io::{scale_stream_ops, weight_stream_ops};
use super::{KernelKind, Op};
use crate::access::{Access, Role};
use crate::floor::{RateClass, RateFacts};
use crate::footprint::{BlockFootprints, Ifm2, OperationBytes};
use crate::schedule::ConvShape;
use crate::state::{NpuState, OpError, OpRecord};
use crate::tensor::FeatureMap;
use crate::weights::order::Traversal;
use npu_arch::command::{
    broadcast, ActivationFunction, IfmScaleMode, Opcode, PoolingMode, UpscaleMode,
    WeightOrder as WeightOrderBit,
};

impl Op {
    /// The operation's row of the per-layer report: kind and shapes.
    pub(super) fn record(&self, npu: &NpuState, kind: String) -> Result<OpRecord, OpError> {
        let ofm = [self.oh, self.ow, self.oc];
        let (ifm, ifm2, kernel) = match self.kind {
            KernelKind::Elementwise(mode) => {
                let bc = npu.reg(Opcode::NpuSetIfm2Broadcast) as u16;
                let ifm2 = (!mode.unary() && bc & broadcast::SCALAR == 0)
                    .then(|| ifm2_extent(bc, self.oh, self.ow, self.oc).into());
                (ofm, ifm2, None)
            }
            _ => {
                let (h, w) = self.ifm_extent()?;
                let (h, w) = match self.upscale {
                    UpscaleMode::None => (h, w),
                    _ => (h.div_ceil(2), w.div_ceil(2)),
                };
                let kernel = [self.kernel_h(), self.kernel_w()];
                ([h, w, self.ifm_channels()], None, Some(kernel))
            }
        };
        Ok(OpRecord {
            kind,
            ifm: Some(ifm),
            ifm2,
            ofm: Some(ofm),
            ofm_layout: Some(self.ofm.clone()),
            kernel,
            rate_facts: Some(self.rate_facts(npu)),
            ..OpRecord::default()
        })
    }

    /// What its floor depends on ([`crate::floor`]).
    fn rate_facts(&self, npu: &NpuState) -> RateFacts {
        let class = match self.kind {
            KernelKind::Conv => RateClass::Conv,
            KernelKind::Depthwise => RateClass::Depthwise,
            KernelKind::Pool(_) => RateClass::Pool,
            KernelKind::Elementwise(mode) => RateClass::Elementwise(mode),
        };
        let ifm_scale = npu.field(Opcode::NpuSetIfmPrecision, "scale_mode");
        RateFacts {
            class,
            ifm_bits: self.ifm.dtype.bits,
            ofm_bits: self.ofm.dtype.bits,
            advanced: ifm_scale != i64::from(IfmScaleMode::Opa16Opb16.bits()),
            lookup: self.activation != ActivationFunction::None,
            blockdep: npu.field(Opcode::NpuSetBlockdep, "blockdep") as u32,
        }
    }

    /// The order of the weights and the block walk (TRM 4.7.5, 4.9):
    /// a convolution's weight order, depth first for REDUCE_SUM, depthwise
    /// for the others.
    pub(super) fn traversal(&self) -> Traversal {
        match (self.kind, self.weight_order) {
            (KernelKind::Pool(PoolingMode::ReduceSum), _) => Traversal::DepthFirst,
            (KernelKind::Conv, WeightOrderBit::DepthFirst) => Traversal::DepthFirst,
            (KernelKind::Conv, WeightOrderBit::PartKernelFirst) => Traversal::PartKernelFirst,
            _ => Traversal::DepthWise,
        }
    }

    /// The traversal the hardware walks (TRM 4.9): an elementwise
    /// operation's as a 1x1 depthwise pool over the OFM.
    fn traversal_shape(&self, npu: &NpuState) -> Result<ConvShape, OpError> {
        let block = |op, name| npu.field(op, name) as usize + 1;
        let elementwise = ConvShape {
            ofm_height: self.oh,
            ofm_width: self.ow,
            ofm_depth: self.oc,
            ifm_depth: self.ifm_channels(),
            ifm_height: self.oh,
            ifm_width: self.ow,
            kernel_height: 1,
            kernel_width: 1,
            stride_x: 1,
            stride_y: 1,
            dilation_x: 1,
            dilation_y: 1,
            pad_top: 0,
            pad_left: 0,
            upscale: UpscaleMode::None,
            traversal: self.traversal(),
            decomposition: self.decomposition,
            ifm_bits: self.ifm.dtype.bits,
            block_height: block(Opcode::NpuSetOfmBlkHeightM1, "height_m1"),
            block_width: block(Opcode::NpuSetOfmBlkWidthM1, "width_m1"),
            block_depth: block(Opcode::NpuSetOfmBlkDepthM1, "depth_m1"),
            parallel: false,
            pool: !matches!(self.kind, KernelKind::Conv | KernelKind::Depthwise),
        };
        if matches!(self.kind, KernelKind::Elementwise(_)) {
            return Ok(elementwise);
        }
        let (ifm_height, ifm_width) = self.ifm_extent()?;
        Ok(ConvShape {
            ifm_height,
            ifm_width,
            kernel_height: self.kernel_h(),
            kernel_width: self.kernel_w(),
            stride_x: self.stride_x,
            stride_y: self.stride_y,
            dilation_x: self.dil_x,
            dilation_y: self.dil_y,
            pad_top: self.pad_top,
            pad_left: self.pad_left,
            upscale: self.upscale,
            parallel: self.parallel,
            ..elementwise
        })
    }

    /// What each block operation reads and writes (TRM 4.9).
    /// The IFM2 an elementwise operation reads from memory (none for a
    /// unary mode or a scalar).
    fn ifm2_map(&self, npu: &NpuState) -> Result<Option<FeatureMap>, OpError> {
        Ok(match self.kind {
            KernelKind::Elementwise(mode) => self.elementwise_inputs(npu, mode)?.ifm2_map,
            _ => None,
        })
    }

    pub(super) fn footprints(&self, npu: &NpuState) -> Result<BlockFootprints, OpError> {
        let ifm2 = self.ifm2_map(npu)?;
        Ok(BlockFootprints::new(
            &self.traversal_shape(npu)?,
            &self.ifm,
            ifm2.as_ref().map(|map| ifm2_of(map, npu)),
            &self.ofm,
            npu.field(Opcode::NpuSetBlockdep, "blockdep") as usize,
        ))
    }

    /// The bytes the operation reads and writes (`crate::check`): its
    /// feature maps' (the union of its block footprints), and each core's
    /// weight stream (convolutions) and scale stream (per-channel scaling)
    /// by base and length, as the DMA fetches them.
    pub(super) fn accesses(&self, npu: &NpuState) -> Result<Vec<Access>, OpError> {
        let ifm2 = self.ifm2_map(npu)?;
        let bytes = OperationBytes::new(
            &self.traversal_shape(npu)?,
            &self.ifm,
            ifm2.as_ref().map(|map| ifm2_of(map, npu)),
            &self.ofm,
        );
        let mut out = vec![Access::read(Role::Ifm, self.ifm.region, bytes.ifm)];
        if let Some(map) = &ifm2 {
            out.push(Access::read(Role::Ifm2, map.region, bytes.ifm2));
        }
        out.push(Access::write(Role::Ofm, self.ofm.region, bytes.ofm));
        let streams = if self.parallel { npu.shram.len() } else { 1 };
        let stream = |region_op, (base_op, len_op): (Opcode, Opcode), role| {
            let region = npu.field(region_op, "region") as usize;
            let base = npu.field(base_op, "addr");
            let len = npu.field(len_op, "length");
            Access::read(
                role,
                region,
                std::iter::once(base..base.saturating_add(len)).collect(),
            )
        };
        if matches!(self.kind, KernelKind::Conv | KernelKind::Depthwise) {
            for core in 0..streams.min(self.oc) {
                out.push(stream(
                    Opcode::NpuSetWeightRegion,
                    weight_stream_ops(core),
                    Role::Weights { core },
                ));
            }
        }
        if self.uses_channel_scales() {
            for core in 0..streams.min(self.oc) {
                out.push(stream(
                    Opcode::NpuSetScaleRegion,
                    scale_stream_ops(core),
                    Role::Scales { core },
                ));
            }
        }
        Ok(out)
    }

    pub(super) fn core_of(&self, channel: usize, cores: usize) -> usize {
        if self.parallel {
            channel % cores
        } else {
            0
        }
    }
}

/// `map` as the footprints take an IFM2: with its broadcast setting.
fn ifm2_of<'a>(map: &'a FeatureMap, npu: &NpuState) -> Ifm2<'a> {
    Ifm2 {
        map,
        broadcast: npu.reg(Opcode::NpuSetIfm2Broadcast) as u16,
    }
}
