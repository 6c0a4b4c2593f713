//! The NPU_SET_* state decoded into an [`Op`]: feature maps, kernel,
//! strides, padding and the output unit's settings (TRM 4.6).

use super::{bad, KernelKind, Op};
use crate::state::{NpuState, OpError};
use crate::tensor::{DType, FeatureMap};
use npu_arch::command::{
    AccFormat, ActivationClipRange, ActivationFunction, ActivationPrecision, KernelDecomposition,
    Layout, OfmScaleMode, Opcode, PoolingMode, RoundMode, UpscaleMode,
    WeightOrder as WeightOrderBit,
};

fn dtype(npu: &NpuState, op: Opcode, what: &str) -> Result<DType, OpError> {
    let signed = npu.field(op, "activation_type") == 1;
    let p = npu.field(op, "activation_precision");
    let precision = ActivationPrecision::from_bits(p as u32)
        .ok_or_else(|| bad(format!("{what} activation precision {p} is reserved")))?;
    let dtype = DType::from_precision(signed, precision);
    if dtype.bits == 32 && !signed {
        return Err(bad(format!(
            "{what} is unsigned 32-bit, which no operation supports"
        )));
    }
    Ok(dtype)
}

fn layout(npu: &NpuState, op: Opcode, what: &str) -> Result<Layout, OpError> {
    let v = npu.field(op, "activation_format") as u32;
    Layout::from_bits(v).ok_or_else(|| bad(format!("{what} format {v} is reserved")))
}

pub(super) struct FmRegs {
    region: Opcode,
    base: [Opcode; 4],
    stride: [Opcode; 3],
    width0: Opcode,
    height0: Opcode,
    height1: Opcode,
    precision: Opcode,
    zero_point: Opcode,
}

const IFM: FmRegs = FmRegs {
    region: Opcode::NpuSetIfmRegion,
    base: [
        Opcode::NpuSetIfmBase0,
        Opcode::NpuSetIfmBase1,
        Opcode::NpuSetIfmBase2,
        Opcode::NpuSetIfmBase3,
    ],
    stride: [
        Opcode::NpuSetIfmStrideX,
        Opcode::NpuSetIfmStrideY,
        Opcode::NpuSetIfmStrideC,
    ],
    width0: Opcode::NpuSetIfmWidth0M1,
    height0: Opcode::NpuSetIfmHeight0M1,
    height1: Opcode::NpuSetIfmHeight1M1,
    precision: Opcode::NpuSetIfmPrecision,
    zero_point: Opcode::NpuSetIfmZeroPoint,
};

pub(super) const IFM2: FmRegs = FmRegs {
    region: Opcode::NpuSetIfm2Region,
    base: [
        Opcode::NpuSetIfm2Base0,
        Opcode::NpuSetIfm2Base1,
        Opcode::NpuSetIfm2Base2,
        Opcode::NpuSetIfm2Base3,
    ],
    stride: [
        Opcode::NpuSetIfm2StrideX,
        Opcode::NpuSetIfm2StrideY,
        Opcode::NpuSetIfm2StrideC,
    ],
    width0: Opcode::NpuSetIfm2Width0M1,
    height0: Opcode::NpuSetIfm2Height0M1,
    height1: Opcode::NpuSetIfm2Height1M1,
    precision: Opcode::NpuSetIfm2Precision,
    zero_point: Opcode::NpuSetIfm2ZeroPoint,
};

const OFM: FmRegs = FmRegs {
    region: Opcode::NpuSetOfmRegion,
    base: [
        Opcode::NpuSetOfmBase0,
        Opcode::NpuSetOfmBase1,
        Opcode::NpuSetOfmBase2,
        Opcode::NpuSetOfmBase3,
    ],
    stride: [
        Opcode::NpuSetOfmStrideX,
        Opcode::NpuSetOfmStrideY,
        Opcode::NpuSetOfmStrideC,
    ],
    width0: Opcode::NpuSetOfmWidth0M1,
    height0: Opcode::NpuSetOfmHeight0M1,
    height1: Opcode::NpuSetOfmHeight1M1,
    precision: Opcode::NpuSetOfmPrecision,
    zero_point: Opcode::NpuSetOfmZeroPoint,
};

pub(super) fn feature_map(npu: &NpuState, r: &FmRegs, what: &str) -> Result<FeatureMap, OpError> {
    let dtype = dtype(npu, r.precision, what)?;
    let m1 = |op: Opcode| {
        npu.field(
            op,
            if op == r.width0 {
                "width_m1"
            } else {
                "height_m1"
            },
        )
    };
    Ok(FeatureMap {
        region: npu.field(r.region, "region") as usize,
        base: r.base.map(|op| npu.field(op, "addr") as u64),
        stride_x: npu.field(r.stride[0], "stride"),
        stride_y: npu.field(r.stride[1], "stride"),
        stride_c: npu.field(r.stride[2], "stride"),
        width0: m1(r.width0) as usize + 1,
        height0: m1(r.height0) as usize + 1,
        height1: m1(r.height1) as usize + 1,
        dtype,
        layout: layout(npu, r.precision, what)?,
        zero_point: dtype.param16(npu.field(r.zero_point, "zero_point") as u16),
    })
}

impl Op {
    pub(super) fn decode(npu: &NpuState, kind: KernelKind) -> Result<Op, OpError> {
        let f = |op, name| npu.field(op, name);
        // An elementwise operation has no kernel window (TRM 4.8.2 table
        // 4-124): its kernel, stride and padding registers are not read.
        let window = |op, name| match kind {
            KernelKind::Elementwise(_) => 0,
            _ => npu.field(op, name),
        };
        let ks = Opcode::NpuSetKernelStride;
        // TRM 4.6.4 NPU_SET_KERNEL_STRIDE: stride = (msb << 1 | lsb) + 1.
        let stride_x =
            ((window(ks, "stride_x_msb") << 1) | window(ks, "stride_x_lsb")) as usize + 1;
        let stride_y =
            ((window(ks, "stride_y_msb") << 1) | window(ks, "stride_y_lsb")) as usize + 1;
        let act = Opcode::NpuSetActivation;
        let activation = ActivationFunction::from_bits(f(act, "activation_function") as u32)
            .ok_or_else(|| {
                bad(format!(
                    "activation function {} is reserved",
                    f(act, "activation_function")
                ))
            })?;
        let clip = ActivationClipRange::from_bits(f(act, "activation_clip_range") as u32)
            .ok_or_else(|| {
                bad(format!(
                    "activation clip range {} is reserved",
                    f(act, "activation_clip_range")
                ))
            })?;
        let upscale = UpscaleMode::from_bits(f(Opcode::NpuSetIfmUpscale, "mode") as u32)
            .ok_or_else(|| bad("IFM upscale mode 3 is reserved"))?;
        let acc = AccFormat::from_bits(f(Opcode::NpuSetAccFormat, "acc_format") as u32)
            .ok_or_else(|| bad("accumulator format 3 is reserved"))?;
        let round = RoundMode::from_bits(f(Opcode::NpuSetOfmPrecision, "round_mode") as u32)
            .ok_or_else(|| bad("OFM rounding mode 3 is reserved"))?;
        let ofm_scale_mode =
            OfmScaleMode::from_bits(f(Opcode::NpuSetOfmPrecision, "scale_mode") as u32)
                .unwrap_or(OfmScaleMode::PerChannel);
        let parallel = f(Opcode::NpuSetParallelMode, "parallel_mode") == 1;
        let oc = f(Opcode::NpuSetOfmDepthM1, "depth_m1") as usize + 1;
        Ok(Op {
            kind,
            ifm: feature_map(npu, &IFM, "IFM")?,
            ofm: feature_map(npu, &OFM, "OFM")?,
            oh: f(Opcode::NpuSetOfmHeightM1, "height_m1") as usize + 1,
            ow: f(Opcode::NpuSetOfmWidthM1, "width_m1") as usize + 1,
            oc,
            ifm_depth: f(Opcode::NpuSetIfmDepthM1, "depth_m1") as usize + 1,
            stride_x,
            stride_y,
            dil_x: window(ks, "dilation_x") as usize + 1,
            dil_y: window(ks, "dilation_y") as usize + 1,
            dkw: window(Opcode::NpuSetKernelWidthM1, "width_m1") as usize + 1,
            dkh: window(Opcode::NpuSetKernelHeightM1, "height_m1") as usize + 1,
            pad_top: window(Opcode::NpuSetIfmPadTop, "pad") as usize,
            pad_left: window(Opcode::NpuSetIfmPadLeft, "pad") as usize,
            pad_bottom: window(Opcode::NpuSetIfmPadBottom, "pad") as usize,
            pad_right: window(Opcode::NpuSetIfmPadRight, "pad") as usize,
            upscale,
            weight_order: WeightOrderBit::from_bits(window(ks, "weight_order") as u32)
                .unwrap_or(WeightOrderBit::DepthFirst),
            decomposition: KernelDecomposition::from_bits(window(ks, "decomposition") as u32)
                .unwrap_or(KernelDecomposition::D8x8),
            acc,
            round,
            ofm_scale_mode,
            activation,
            clip,
            act_min: f(Opcode::NpuSetActivationMin, "clip_min") as u16,
            act_max: f(Opcode::NpuSetActivationMax, "clip_max") as u16,
            parallel,
        })
    }

    pub(crate) fn kernel_w(&self) -> usize {
        (self.dkw - 1) / self.dil_x + 1
    }
    pub(crate) fn kernel_h(&self) -> usize {
        (self.dkh - 1) / self.dil_y + 1
    }
    pub(crate) fn has_padding(&self) -> bool {
        self.pad_top + self.pad_left + self.pad_bottom + self.pad_right > 0
    }

    /// Height and width of the (upscaled) IFM the operation reads: the rows
    /// and columns the kernel windows cover minus the padding.
    pub(crate) fn ifm_extent(&self) -> Result<(usize, usize), OpError> {
        let h = ((self.oh - 1) * self.stride_y + self.dkh) as i64
            - (self.pad_top + self.pad_bottom) as i64;
        let w = ((self.ow - 1) * self.stride_x + self.dkw) as i64
            - (self.pad_left + self.pad_right) as i64;
        if h < 1 || w < 1 {
            return Err(bad(format!(
                "padding ({} top, {} bottom, {} left, {} right) covers the whole IFM window",
                self.pad_top, self.pad_bottom, self.pad_left, self.pad_right
            )));
        }
        Ok((h as usize, w as usize))
    }

    pub(crate) fn lut_slot(&self) -> Option<usize> {
        let v = self.activation.bits();
        (16..=23).contains(&v).then(|| (v - 16) as usize)
    }

    /// The type named by ACTIVATION\[15:12\] (None = OFM precision).
    pub(crate) fn clip_dtype(&self) -> Option<DType> {
        match self.clip {
            ActivationClipRange::OfmPrecision => None,
            ActivationClipRange::ForceUint8 => Some(DType::U8),
            ActivationClipRange::ForceInt8 => Some(DType::I8),
            ActivationClipRange::ForceInt16 => Some(DType::I16),
        }
    }

    /// The range values are clipped to before the activation function.
    pub(crate) fn lut_dtype(&self) -> DType {
        self.clip_dtype().unwrap_or(self.ofm.dtype)
    }

    /// The IFM depth the operation reads: its own for convolution and
    /// REDUCE_SUM, the OFM's for depthwise, pooling and elementwise.
    pub(super) fn ifm_channels(&self) -> usize {
        match self.kind {
            KernelKind::Conv | KernelKind::Pool(PoolingMode::ReduceSum) => self.ifm_depth,
            _ => self.oc,
        }
    }
}
