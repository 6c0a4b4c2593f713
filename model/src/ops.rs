//! Kernel operations of TRM 4.8: convolution, vector product, depth-wise,
//! pooling, reduce sum and elementwise, with the output unit of TRM 3.3.7.
//!
//! Every operation reads the NPU_SET_* state the stream left behind, checks
//! it against the rules of TRM 4.8.2, reads its inputs from the base-pointer
//! regions, computes with exact integer arithmetic and writes the OFM.

use crate::check::{Access, OperationAccess, Role};
use crate::cmdstream::Command;
use crate::fixed;
use crate::floor::{RateClass, RateFacts};
use crate::footprint::{BlockFootprints, Ifm2, OperationBytes};
use crate::schedule::ConvShape;
use crate::state::{NpuState, OpError, OpRecord, LUT_BYTES};
use crate::tensor::{DType, FeatureMap};
use crate::weights;
use crate::weights::order::{core_share, Traversal, WeightOrder, U65_UBLOCK_DEPTH};
use npu_arch::command::{
    broadcast, AccFormat, ActivationClipRange, ActivationFunction, ActivationPrecision,
    ElementwiseMode, IfmRoundMode, IfmScaleMode, KernelDecomposition, Layout, OfmScaleMode, Opcode,
    PoolingMode, RoundMode, UpscaleMode, WeightOrder as WeightOrderBit, SCALE_BIAS_RECORD_BYTES,
};
use npu_arch::limits::*;
use npu_arch::regs::faulting_channel;

/// Largest feature map or weight tensor (elements) the model will allocate.
pub const MAX_ELEMENTS: usize = 1 << 24;

/// Which computation a kernel command asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelKind {
    Conv,
    Depthwise,
    Pool(PoolingMode),
    Elementwise(ElementwiseMode),
}

fn forbidden(rule: &'static str, detail: impl Into<String>) -> OpError {
    OpError::Forbidden {
        rule,
        detail: detail.into(),
    }
}

fn bad(detail: impl Into<String>) -> OpError {
    OpError::BadParam(detail.into())
}

/// Decode the kernel command and run it. Returns its record with the kind,
/// shapes and kernel filled in (the caller adds offset, MACs and traffic).
pub(crate) fn run_kernel(npu: &mut NpuState, command: &Command) -> Result<OpRecord, OpError> {
    let (op, param) = (command.op, command.param);
    let kind = match op {
        Opcode::NpuOpConv => KernelKind::Conv,
        Opcode::NpuOpDepthwise => KernelKind::Depthwise,
        Opcode::NpuOpPool => KernelKind::Pool(
            PoolingMode::from_bits(param as u32)
                .ok_or_else(|| bad(format!("pooling mode {param} is not 0-2")))?,
        ),
        _ => KernelKind::Elementwise(
            ElementwiseMode::from_bits(param as u32)
                .ok_or_else(|| bad(format!("elementwise mode {param} is not 0-9")))?,
        ),
    };
    let name = match kind {
        KernelKind::Pool(mode) => format!("{} {mode:?}", op.name()).to_uppercase(),
        KernelKind::Elementwise(mode) => format!("{} {mode:?}", op.name()).to_uppercase(),
        _ => op.name().to_string(),
    };
    let op = Op::decode(npu, kind)?;
    op.validate()?;
    op.validate_on(npu)?;
    let record = op.record(npu, name.clone())?;
    if !npu.rules_only() {
        crate::coverage::kernel(&op, npu);
    }
    if npu.accesses {
        let accesses = op.accesses(npu)?;
        npu.stats.accesses.push(OperationAccess {
            offset: command.offset,
            operation: name,
            accesses,
        });
    }
    if npu.records_footprints() {
        let blocks = op.footprints(npu)?;
        npu.record_blocks(command.offset, blocks)?;
    }
    if npu.rules_only() {
        return Ok(record);
    }
    match kind {
        KernelKind::Conv | KernelKind::Depthwise => op.run_conv(npu),
        KernelKind::Pool(mode) => op.run_pool(npu, mode),
        KernelKind::Elementwise(mode) => op.run_elementwise(npu, mode),
    }?;
    Ok(record)
}

/// TRM 4.8.2 table 4-124: the IFM and OFM types elementwise mode `m` takes.
pub fn elementwise_types_allowed(m: ElementwiseMode, i: DType, o: DType) -> bool {
    use ElementwiseMode as E;
    match m {
        E::Mul | E::Add | E::Sub => true,
        E::Min | E::Max | E::Lrelu | E::Abs => i == o && i.bits <= 16,
        // Table 4-124 lists {int8, uint8, int32} OFMs for SHR, but Vela's
        // int16 softmax ends with an int32 -> int16 SHR, so int16 is allowed.
        E::Shr => i == DType::I32 && (o.bits == 8 || o == DType::I16 || o == DType::I32),
        E::Clz | E::Shl => i == DType::I32 && o == DType::I32,
    }
}

// ---------------------------------------------------------------- decoding

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

struct FmRegs {
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

const IFM2: FmRegs = FmRegs {
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

fn feature_map(npu: &NpuState, r: &FmRegs, what: &str) -> Result<FeatureMap, OpError> {
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

/// Per-channel or global output scaling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScaleRecord {
    /// 40-bit signed bias.
    pub bias: i64,
    pub scale: u32,
    /// 6-bit shift.
    pub shift: u32,
}

impl ScaleRecord {
    /// Parse one 10-byte record of the scale/bias stream (JOBS.md): bias in
    /// bytes 0-4 (signed 40-bit), scale in bytes 5-8, shift in byte 9 bits 0-5.
    pub fn parse(b: &[u8; SCALE_BIAS_RECORD_BYTES]) -> ScaleRecord {
        let mut bias = [0u8; 8];
        bias[..5].copy_from_slice(&b[..5]);
        let bias = (i64::from_le_bytes(bias) << 24) >> 24;
        ScaleRecord {
            bias,
            scale: u32::from_le_bytes([b[5], b[6], b[7], b[8]]),
            shift: (b[9] & 0x3f) as u32,
        }
    }
    /// The 10-byte encoding (inverse of [`ScaleRecord::parse`]).
    pub fn to_bytes(&self) -> [u8; SCALE_BIAS_RECORD_BYTES] {
        let mut out = [0u8; SCALE_BIAS_RECORD_BYTES];
        out[..5].copy_from_slice(&self.bias.to_le_bytes()[..5]);
        out[5..9].copy_from_slice(&self.scale.to_le_bytes());
        out[9] = (self.shift & 0x3f) as u8;
        out
    }
}

/// Everything an operation needs, decoded from the NPU_SET_* state.
pub(crate) struct Op {
    pub(crate) kind: KernelKind,
    pub(crate) ifm: FeatureMap,
    pub(crate) ofm: FeatureMap,
    /// OFM height, width, depth.
    pub(crate) oh: usize,
    pub(crate) ow: usize,
    pub(crate) oc: usize,
    pub(crate) ifm_depth: usize,
    pub(crate) stride_x: usize,
    pub(crate) stride_y: usize,
    pub(crate) dil_x: usize,
    pub(crate) dil_y: usize,
    /// Dilated kernel size.
    pub(crate) dkw: usize,
    pub(crate) dkh: usize,
    pub(crate) pad_top: usize,
    pub(crate) pad_left: usize,
    pub(crate) pad_bottom: usize,
    pub(crate) pad_right: usize,
    pub(crate) upscale: UpscaleMode,
    pub(crate) weight_order: WeightOrderBit,
    pub(crate) decomposition: KernelDecomposition,
    pub(crate) acc: AccFormat,
    pub(crate) round: RoundMode,
    pub(crate) ofm_scale_mode: OfmScaleMode,
    pub(crate) activation: ActivationFunction,
    pub(crate) clip: ActivationClipRange,
    pub(crate) act_min: u16,
    pub(crate) act_max: u16,
    pub(crate) parallel: bool,
}

impl Op {
    fn decode(npu: &NpuState, kind: KernelKind) -> Result<Op, OpError> {
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

    /// The rules of TRM 4.8.2 (tables 4-120 to 4-125) and 4.6.4.
    fn validate(&self) -> Result<(), OpError> {
        use KernelKind as K;
        self.check_size()?;
        let (i, o) = (self.ifm.dtype, self.ofm.dtype);
        let conv_like = matches!(self.kind, K::Conv | K::Depthwise);
        self.validate_acc()?;
        if !matches!(self.kind, K::Elementwise(_)) {
            if !(1..=STRIDE_MAX).contains(&(self.stride_x as u64))
                || !(1..=STRIDE_MAX).contains(&(self.stride_y as u64))
            {
                return Err(forbidden(
                    "TRM 4.8.2 (1 <= stride <= 3)",
                    format!("stride {}x{}", self.stride_x, self.stride_y),
                ));
            }
            if !(self.dkw - 1).is_multiple_of(self.dil_x)
                || !(self.dkh - 1).is_multiple_of(self.dil_y)
            {
                return Err(bad(format!(
                    "dilated kernel {}x{} is not a multiple of dilation {}x{} (TRM 4.6.4 NPU_SET_KERNEL_WIDTH_M1)",
                    self.dkw, self.dkh, self.dil_x, self.dil_y
                )));
            }
            if self.upscale != UpscaleMode::None && (self.stride_x, self.stride_y) != (1, 1) {
                return Err(forbidden(
                    "TRM 4.8.2 (a 2x2 upscale must use a stride of 1x1)",
                    format!("stride {}x{}", self.stride_x, self.stride_y),
                ));
            }
        }
        let i8ish = |t: DType| t.bits == 8 || t == DType::I16;
        if conv_like {
            if !i8ish(i) || !(i8ish(o) || o == DType::I32) {
                return Err(forbidden(
                    "TRM 4.8.2 table 4-120 ({uint8, int8, int16} -> {uint8, int8, int16, int32})",
                    format!("IFM {i}, OFM {o}"),
                ));
            }
            if self.kernel_h() as u64 > CONV_KERNEL_HEIGHT_MAX
                || (self.dkw * self.dkh) as u64 > CONV_KERNEL_AREA_MAX
            {
                return Err(forbidden(
                    "TRM 4.8.2 table 4-120 (kernel_y <= 64, kernel_x*kernel_y <= 64*64 after dilation)",
                    format!("dilated kernel {}x{}", self.dkw, self.dkh),
                ));
            }
            if self.pad_top.max(self.pad_left) as u64 > CONV_PAD_TOP_LEFT_MAX
                || self.pad_bottom.max(self.pad_right) as u64 > CONV_PAD_BOTTOM_RIGHT_MAX
            {
                return Err(forbidden(
                    "TRM 4.8.2 table 4-120 (padding 0-31 top/left, 0-32 bottom/right)",
                    format!(
                        "padding top {} left {} bottom {} right {}",
                        self.pad_top, self.pad_left, self.pad_bottom, self.pad_right
                    ),
                ));
            }
        }
        match self.kind {
            K::Pool(PoolingMode::Max) | K::Pool(PoolingMode::Average) => {
                let max = self.kind == K::Pool(PoolingMode::Max);
                let avg_padded = !max && self.has_padding();
                if !i8ish(i) || !i8ish(o) || ((max || avg_padded) && i != o) {
                    return Err(forbidden(
                        "TRM 4.8.2 table 4-122 (max pool and padded average pool: OFM type = IFM type in {int8, uint8, int16})",
                        format!("IFM {i}, OFM {o}"),
                    ));
                }
                if avg_padded {
                    if self.kernel_w().max(self.kernel_h()) as u64 > PADDED_AVERAGE_KERNEL_MAX {
                        return Err(forbidden(
                            "TRM 4.8.2 table 4-122 (average pool with padding: kernel <= 8x8)",
                            format!("kernel {}x{}", self.kernel_w(), self.kernel_h()),
                        ));
                    }
                    if self.pad_top.max(self.pad_left) as u64 > PADDED_AVERAGE_PAD_TOP_LEFT_MAX
                        || self.pad_bottom.max(self.pad_right) as u64
                            > PADDED_AVERAGE_PAD_BOTTOM_RIGHT_MAX
                    {
                        return Err(forbidden(
                            "TRM 4.8.2 table 4-122 (average pool padding 0-3 top/left, 0-4 bottom/right)",
                            "padding too large",
                        ));
                    }
                } else if self.kernel_h() as u64 > POOL_KERNEL_HEIGHT_MAX
                    || (self.kernel_w() * self.kernel_h()) as u64 > POOL_KERNEL_AREA_MAX
                {
                    return Err(forbidden(
                        "TRM 4.8.2 table 4-122 (kernel_y <= 256, kernel_x*kernel_y <= 256*256)",
                        format!("kernel {}x{}", self.kernel_w(), self.kernel_h()),
                    ));
                }
                if max && self.upscale == UpscaleMode::Zeros {
                    return Err(forbidden(
                        "TRM 4.8.2 table 4-122 (max pool upscale: none or 2x2 nearest)",
                        "insert-zeros upscale",
                    ));
                }
            }
            K::Pool(PoolingMode::ReduceSum) => {
                if o != DType::I32 {
                    return Err(forbidden(
                        "TRM 4.8.2 table 4-125 (REDUCE_SUM OFM is int32)",
                        format!("OFM {o}"),
                    ));
                }
                if self.upscale != UpscaleMode::None || self.has_padding() {
                    return Err(forbidden(
                        "TRM 4.8.2 table 4-125 (REDUCE_SUM: upscale 1x1 only, no padding)",
                        "upscale or padding set",
                    ));
                }
                if self.oc != 1 {
                    return Err(forbidden(
                        "TRM 4.8.2 table 4-125 (REDUCE_SUM writes one channel)",
                        format!("OFM depth {}", self.oc),
                    ));
                }
            }
            K::Elementwise(m) => self.validate_elementwise(m)?,
            _ => {}
        }
        if i.bits == 32 && self.ifm.zero_point != 0 {
            return Err(forbidden(
                "TRM 4.6.4 NPU_SET_IFM_ZERO_POINT (must be zero for 32-bit IFM)",
                format!("zero point {}", self.ifm.zero_point),
            ));
        }
        let lut = self.lut_slot().is_some();
        if o.bits == 32 {
            let lut_ok = lut && self.clip != ActivationClipRange::OfmPrecision;
            if self.activation != ActivationFunction::None && !lut_ok {
                return Err(forbidden(
                    "TRM 4.8.2 (int32 OFM: no activation, linear output only)",
                    format!("activation {:?}", self.activation),
                ));
            }
        }
        if matches!(
            self.activation,
            ActivationFunction::Tanh | ActivationFunction::Sigmoid
        ) && !i8ish(self.lut_dtype())
        {
            return Err(forbidden(
                "TRM 4.8.2 (tanh and sigmoid for {int8, uint8, int16} activation types)",
                format!(
                    "{:?} with a {} activation type",
                    self.activation,
                    self.lut_dtype()
                ),
            ));
        }
        if !lut {
            if let Some(t) = self.clip_dtype() {
                if self.clip != ActivationClipRange::OfmPrecision && t != o {
                    return Err(forbidden(
                        "TRM 4.8.2 (if LUT is not used, the activation and OFM type must match)",
                        format!("clip range {:?}, OFM {o}", self.clip),
                    ));
                }
            }
        }
        if let Some(slot) = self.lut_slot() {
            if self.lut_dtype().bits == 16 && slot != 0 {
                return Err(bad(format!(
                    "a 16-bit LUT fills the whole 2 KB LUT area, so it must use slot 0, not {slot}"
                )));
            }
            if self.lut_dtype().bits == 8 && o.bits == 32 && slot as u64 > LUT_SLOT_MAX_32BIT {
                return Err(bad(format!(
                    "a LUT of 32-bit values takes 1 KB, so it must start in slot 0-4, not {slot}"
                )));
            }
        }
        Ok(())
    }

    /// The rules on what the operation's own settings do not hold: parallel
    /// mode needs two cores (TRM 4.7.5.1), and each scale/bias stream holds
    /// a record for each of its core's channels. The NPU checks them, as
    /// [`Op::validate`]'s, when it dispatches the operation.
    fn validate_on(&self, npu: &NpuState) -> Result<(), OpError> {
        let cores = npu.shram.len();
        if self.parallel && cores < 2 && !matches!(self.kind, KernelKind::Elementwise(_)) {
            return Err(forbidden(
                "TRM 4.7.5.1 (parallel mode is only available for the 512 configuration)",
                format!("NPU_SET_PARALLEL_MODE 1 on {}", npu.config.name),
            ));
        }
        if let KernelKind::Elementwise(mode) = self.kind {
            self.elementwise_inputs(npu, mode)?;
        }
        if self.uses_channel_scales() {
            let streams = if self.parallel { cores } else { 1 };
            for core in 0..streams.min(self.oc) {
                let (_, len_op) = scale_stream_ops(core);
                let len = npu.field(len_op, "length") as usize;
                let n = core_share(self.oc, streams, core);
                let need = n * SCALE_BIAS_RECORD_BYTES;
                if len < need {
                    return Err(bad(format!(
                        "{} is {len} bytes but {n} output channels need {need}",
                        len_op.name()
                    )));
                }
            }
        }
        Ok(())
    }

    /// The operation reads per-channel scale/bias records: convolutions,
    /// and average pools without padding and REDUCE_SUM (TRM 4.8.2 tables
    /// 4-122, 4-125), unless NPU_SET_OFM_PRECISION selects the global scale.
    pub(crate) fn uses_channel_scales(&self) -> bool {
        self.ofm_scale_mode == OfmScaleMode::PerChannel
            && match self.kind {
                KernelKind::Conv | KernelKind::Depthwise => true,
                KernelKind::Pool(PoolingMode::Average) => !self.has_padding(),
                KernelKind::Pool(PoolingMode::ReduceSum) => true,
                _ => false,
            }
    }

    /// NPU_SET_ACC_FORMAT against the accumulators of TRM 4.8.2.
    fn validate_acc(&self) -> Result<(), OpError> {
        use KernelKind as K;
        match (self.acc, self.kind) {
            (AccFormat::FpS5_10, K::Pool(_)) => Err(forbidden(
                "TRM 4.8.2 tables 4-122 and 4-125 (pooling and REDUCE_SUM accumulators: int32, int40)",
                "NPU_SET_ACC_FORMAT 2 (s5.10)",
            )),
            // Elementwise operations use no accumulators (TRM 4.8.2 table
            // 4-124 names none): the format is ignored, as the RTL does.
            (_, K::Elementwise(_)) => Ok(()),
            // Tables 4-120 and 4-121 allow it for convolutions, but the TRM
            // gives only its name, so this NPU refuses it rather than compute
            // a result no reference can check.
            (AccFormat::FpS5_10, _) => Err(OpError::NotImplemented(
                "NPU_SET_ACC_FORMAT 2 (s5.10 floating-point accumulators): the TRM names the format \
                 (4.6.4, 4.8.1, 3.3.6.3 \"improves performance but impacts accuracy\") but not how \
                 products are rounded into it, the order they are summed in, overflow, or how the \
                 output unit reads it; Vela never selects it"
                    .into(),
            )),
            (AccFormat::Int40, K::Pool(PoolingMode::Max)) => Err(forbidden(
                "TRM 4.8.2 table 4-122 (int40 accumulators only for average pool without padding)",
                "NPU_SET_ACC_FORMAT 1 (int40) with a max pool",
            )),
            (AccFormat::Int40, K::Pool(PoolingMode::Average)) if self.has_padding() => Err(forbidden(
                "TRM 4.8.2 table 4-122 (int40 accumulators only for average pool without padding)",
                "NPU_SET_ACC_FORMAT 1 (int40) with a padded average pool",
            )),
            _ => Ok(()),
        }
    }

    fn validate_elementwise(&self, m: ElementwiseMode) -> Result<(), OpError> {
        use ElementwiseMode as E;
        let (i, o) = (self.ifm.dtype, self.ofm.dtype);
        if !elementwise_types_allowed(m, i, o) {
            return Err(forbidden(
                "TRM 4.8.2 table 4-124 (elementwise precision)",
                format!("{m:?} with IFM {i}, OFM {o}"),
            ));
        }
        if m == E::Clz && self.ofm.zero_point != 0 {
            return Err(forbidden(
                "TRM 4.6.4 NPU_SET_OFM_ZERO_POINT (must be 0 for CLZ)",
                format!("zero point {}", self.ofm.zero_point),
            ));
        }
        Ok(())
    }

    /// The model holds whole feature maps and weight tensors in memory;
    /// refuse operations beyond [`MAX_ELEMENTS`] before allocating anything.
    fn check_size(&self) -> Result<(), OpError> {
        let ofm = ("OFM", self.oh * self.ow * self.oc);
        let sizes = if matches!(self.kind, KernelKind::Elementwise(_)) {
            vec![ofm]
        } else {
            let ph = (self.oh - 1) * self.stride_y + self.dkh;
            let pw = (self.ow - 1) * self.stride_x + self.dkw;
            let c = self.ifm_depth.max(self.oc);
            // A depthwise kernel holds one weight per tap and channel, not
            // one per input channel; pooling reads no weights.
            let weights_in = match self.kind {
                KernelKind::Conv => self.ifm_depth,
                KernelKind::Depthwise => 1,
                _ => 0,
            };
            vec![
                ofm,
                ("padded IFM", ph * pw * c),
                ("weights", self.oc * self.dkh * self.dkw * weights_in),
            ]
        };
        for (what, n) in sizes {
            if n > MAX_ELEMENTS {
                return Err(OpError::Unsupported(format!(
                    "{what} of {n} elements exceeds the model's limit of {MAX_ELEMENTS}"
                )));
            }
        }
        Ok(())
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
    fn ifm_channels(&self) -> usize {
        match self.kind {
            KernelKind::Conv | KernelKind::Pool(PoolingMode::ReduceSum) => self.ifm_depth,
            _ => self.oc,
        }
    }

    /// The operation's row of the per-layer report: kind and shapes.
    fn record(&self, npu: &NpuState, kind: String) -> Result<OpRecord, OpError> {
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
    fn traversal(&self) -> Traversal {
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

    fn footprints(&self, npu: &NpuState) -> Result<BlockFootprints, OpError> {
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
    fn accesses(&self, npu: &NpuState) -> Result<Vec<Access>, OpError> {
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

    fn core_of(&self, channel: usize, cores: usize) -> usize {
        if self.parallel {
            channel % cores
        } else {
            0
        }
    }
}

// ------------------------------------------------------------ output unit

/// Fraction bits of a tanh/sigmoid result in the activation type `lut`
/// (the clip range's, else the OFM's): the fixed quantization TensorFlow
/// Lite gives their outputs (1/32768 for int16, 1/128 for 8-bit tanh,
/// 1/256 for 8-bit sigmoid; see lib.rs).
fn tanh_sigmoid_frac_bits(lut: DType, activation: ActivationFunction) -> u32 {
    match (lut.bits, activation) {
        (16, _) => 15,
        (_, ActivationFunction::Sigmoid) => 8,
        _ => 7,
    }
}

/// The output unit after scaling (TRM 3.3.7): zero point, activation
/// function, clip range, LUT, ACTIVATION_MIN/MAX and saturation to the OFM type.
/// Public, built by [`OutStage::linear`], as the reference of the output
/// unit's block bench.
pub struct OutStage {
    ofm: DType,
    zp: i64,
    activation: ActivationFunction,
    /// Fraction bits of a tanh/sigmoid result.
    frac_bits: u32,
    pub(crate) clip: DType,
    pub(crate) clamp: Option<(i64, i64)>,
    /// Each core's 2 KB LUT area when a LUT is used.
    luts: Vec<Vec<u8>>,
    slot: usize,
}

impl OutStage {
    fn new(op: &Op, npu: &NpuState) -> OutStage {
        let luts = match op.lut_slot() {
            Some(_) => npu
                .shram
                .iter()
                .map(|s| s[s.len() - LUT_BYTES..].to_vec())
                .collect(),
            None => Vec::new(),
        };
        OutStage::with_activation(
            op.ofm.dtype,
            op.ofm.zero_point,
            op.clip_dtype(),
            op.act_min,
            op.act_max,
            op.activation,
            luts,
        )
    }

    /// The stage of any activation function: [`OutStage::linear`]'s
    /// arguments, the function of NPU_SET_ACTIVATION and, for a LUT, each
    /// core's last 2 KB of the shared buffer (`luts[core]`).
    pub fn with_activation(
        ofm: DType,
        zero_point: i64,
        clip: Option<DType>,
        act_min: u16,
        act_max: u16,
        activation: ActivationFunction,
        luts: Vec<Vec<u8>>,
    ) -> OutStage {
        let linear = OutStage::linear(ofm, zero_point, clip, act_min, act_max);
        let slot = (activation.bits() as usize).saturating_sub(16);
        OutStage {
            activation,
            frac_bits: tanh_sigmoid_frac_bits(linear.clip, activation),
            luts,
            slot,
            ..linear
        }
    }

    /// The stage for no activation function (NPU_SET_ACTIVATION 0): OFM type
    /// `ofm`, OFM zero point `zero_point`, the type the clip range forces
    /// (`None` for the OFM precision), ACTIVATION_MIN/MAX as programmed.
    pub fn linear(
        ofm: DType,
        zero_point: i64,
        clip: Option<DType>,
        act_min: u16,
        act_max: u16,
    ) -> OutStage {
        let forced = clip.is_some();
        let clip = clip.unwrap_or(ofm);
        // ACTIVATION_MIN/MAX are in the OFM type's range; for 32-bit OFMs
        // (linear output only) they apply only with a forced clip range.
        let bound_type = if ofm.bits == 32 { clip } else { ofm };
        let clamp = (ofm.bits < 32 || forced)
            .then(|| (bound_type.param16(act_min), bound_type.param16(act_max)));
        OutStage {
            ofm,
            zp: zero_point,
            activation: ActivationFunction::None,
            frac_bits: 0,
            clip,
            clamp,
            luts: Vec::new(),
            slot: 0,
        }
    }

    /// `scaled` is the scaled result before the OFM zero point is added;
    /// `core` picks the LUT. The zero point is added without overflow (a
    /// scaled value near the i64 limits stays beyond every OFM type).
    pub fn finish(&self, scaled: i64, core: usize) -> i64 {
        let mut v = match self.activation {
            ActivationFunction::Tanh => fixed::tanh_fixed(scaled, self.frac_bits),
            ActivationFunction::Sigmoid => fixed::sigmoid_fixed(scaled, self.frac_bits),
            _ => scaled,
        }
        .saturating_add(self.zp);
        if !self.luts.is_empty() {
            // The clip range and ACTIVATION_MIN/MAX bound the table index
            // (TRM 4.6.4: the clip range applies "before table lookup"; Vela
            // bounds the index of its 32-bit softmax tables with them).
            v = self.clip.saturate(v);
            if let Some((lo, hi)) = self.clamp {
                v = self.clip.saturate(v.max(lo).min(hi));
            }
            v = self.lookup(v, core);
        } else {
            if self.clip != self.ofm {
                v = self.clip.saturate(v);
            }
            if let Some((lo, hi)) = self.clamp {
                v = v.max(lo).min(hi);
            }
        }
        self.ofm.saturate(v)
    }

    /// TRM 4.6.4 NPU_SET_ACTIVATION 0x10+n: LUT at byte n*256 of the last 2 KB
    /// of the shared buffer. 8-bit: 256 bytes indexed by value - type minimum;
    /// with a 32-bit OFM, 256 little-endian 32-bit words (1 KB) indexed so
    /// (how Vela's int8 softmax reads its exp table, "Force I8 range").
    /// 16-bit: 512 words, base in bits 0-15 and slope in 16-31, indexed by the
    /// top 9 bits of value + 32768 and interpolated over the low 7 bits
    /// (Vela's `create_lut_int16_op` layout; TFLite's int16 LUT lookup).
    fn lookup(&self, v: i64, core: usize) -> i64 {
        let lut = &self.luts[core.min(self.luts.len() - 1)];
        if self.clip.bits == 8 {
            let idx = (v - self.clip.min()) as usize;
            if self.ofm.bits == 32 {
                let w = &lut[self.slot * 256 + idx * 4..][..4];
                return i32::from_le_bytes([w[0], w[1], w[2], w[3]]) as i64;
            }
            let b = lut[self.slot * 256 + idx];
            if self.clip.signed {
                b as i8 as i64
            } else {
                b as i64
            }
        } else {
            let u = (v + 32768) as usize;
            let (idx, frac) = (u >> 7, (u & 0x7f) as i64);
            let w = &lut[idx * 4..idx * 4 + 4];
            let base = i16::from_le_bytes([w[0], w[1]]) as i64;
            let slope = i16::from_le_bytes([w[2], w[3]]) as i64;
            base + ((slope * frac + 64) >> 7)
        }
    }
}

// ----------------------------------------------------------------- inputs

/// Read an `h` x `w` x `c` feature map, zero point subtracted.
fn load_fm(
    npu: &NpuState,
    fm: &FeatureMap,
    h: usize,
    w: usize,
    c: usize,
    what: &str,
) -> Result<Vec<i32>, OpError> {
    let e = fm.dtype.bytes();
    let region = npu.memory.region(fm.region);
    npu.memory.count_read(h * w * c * e);
    let mut out = Vec::with_capacity(h * w * c);
    for y in 0..h {
        for x in 0..w {
            for ch in 0..c {
                let off = fm.offset(y, x, ch);
                if off < 0 || off as usize + e > region.len() {
                    return Err(OpError::OutOfRange {
                        what: format!("{what} element (y {y}, x {x}, c {ch})"),
                        channel: faulting_channel::IFM,
                        region: fm.region,
                        start: off,
                        end: off + e as i64,
                        size: region.len(),
                    });
                }
                let v = fm.dtype.load(&region[off as usize..]);
                out.push((v - fm.zero_point) as i32);
            }
        }
    }
    Ok(out)
}

/// Write an `h` x `w` x `c` OFM.
fn store_fm(
    npu: &mut NpuState,
    fm: &FeatureMap,
    h: usize,
    w: usize,
    c: usize,
    vals: &[i64],
) -> Result<(), OpError> {
    let e = fm.dtype.bytes();
    let mut i = 0;
    for y in 0..h {
        for x in 0..w {
            for ch in 0..c {
                let off = fm.offset(y, x, ch);
                let dst = npu.memory.write(
                    faulting_channel::OFM,
                    &format!("OFM element (y {y}, x {x}, c {ch})"),
                    fm.region,
                    off,
                    e,
                )?;
                fm.dtype.store(vals[i], dst);
                i += 1;
            }
        }
    }
    Ok(())
}

/// The upscaled IFM (TRM 4.6.4 NPU_SET_IFM_UPSCALE): `h` x `w` x `c`, read
/// from a source of half the size when upscaling.
fn load_upscaled(
    npu: &NpuState,
    op: &Op,
    h: usize,
    w: usize,
    c: usize,
) -> Result<Vec<i32>, OpError> {
    if op.upscale == UpscaleMode::None {
        return load_fm(npu, &op.ifm, h, w, c, "IFM");
    }
    let (sh, sw) = (h.div_ceil(2), w.div_ceil(2));
    let src = load_fm(npu, &op.ifm, sh, sw, c, "IFM")?;
    let mut out = vec![0; h * w * c];
    for y in 0..h {
        for x in 0..w {
            if op.upscale == UpscaleMode::Zeros && (y % 2 == 1 || x % 2 == 1) {
                continue;
            }
            let s = ((y / 2) * sw + x / 2) * c;
            out[(y * w + x) * c..][..c].copy_from_slice(&src[s..s + c]);
        }
    }
    Ok(out)
}

/// Core `core`'s NPU_SET_SCALE*_BASE and NPU_SET_SCALE*_LENGTH.
fn scale_stream_ops(core: usize) -> (Opcode, Opcode) {
    if core == 0 {
        (Opcode::NpuSetScaleBase, Opcode::NpuSetScaleLength)
    } else {
        (Opcode::NpuSetScale1Base, Opcode::NpuSetScale1Length)
    }
}

/// Core `core`'s NPU_SET_WEIGHT*_BASE and NPU_SET_WEIGHT*_LENGTH.
fn weight_stream_ops(core: usize) -> (Opcode, Opcode) {
    if core == 0 {
        (Opcode::NpuSetWeightBase, Opcode::NpuSetWeightLength)
    } else {
        (Opcode::NpuSetWeight1Base, Opcode::NpuSetWeight1Length)
    }
}

/// Scale/bias records for `n` channels from one stream (its length
/// checked by [`Op::validate_on`]).
fn load_scales(npu: &NpuState, core: usize, n: usize) -> Result<Vec<ScaleRecord>, OpError> {
    let (base_op, _) = scale_stream_ops(core);
    let need = n * SCALE_BIAS_RECORD_BYTES;
    let region = npu.field(Opcode::NpuSetScaleRegion, "region") as usize;
    let bytes = npu.memory.read(
        faulting_channel::SCALE,
        &format!("scale/bias stream {core}"),
        region,
        npu.field(base_op, "addr"),
        need,
    )?;
    Ok(bytes
        .chunks_exact(SCALE_BIAS_RECORD_BYTES)
        .map(|c| ScaleRecord::parse(c.try_into().expect("chunk of record size")))
        .collect())
}

/// Per-channel records for all `oc` channels; in parallel mode core k's
/// stream holds channels k, k+2, ... (TRM 4.7.5.1).
fn channel_scales(npu: &NpuState, op: &Op) -> Result<Vec<ScaleRecord>, OpError> {
    if !op.parallel {
        return load_scales(npu, 0, op.oc);
    }
    let cores = npu.shram.len();
    let mut out = vec![
        ScaleRecord {
            bias: 0,
            scale: 0,
            shift: 0
        };
        op.oc
    ];
    for core in 0..cores.min(op.oc) {
        let n = core_share(op.oc, cores, core);
        for (j, r) in load_scales(npu, core, n)?.into_iter().enumerate() {
            out[core + j * cores] = r;
        }
    }
    Ok(out)
}

fn global_scale(npu: &NpuState) -> ScaleRecord {
    ScaleRecord {
        bias: 0,
        scale: npu.field(Opcode::NpuSetOfmScale, "scale") as u32,
        shift: npu.field(Opcode::NpuSetOfmScale, "shift") as u32,
    }
}

/// OHWI weights (zero-point corrected, 9-bit) for all `oc` channels, from
/// the weight stream(s) (TRM 4.7; order TRM 4.7.5; parallel mode 4.7.5.1).
/// The kernel decomposition (NPU_SET_KERNEL_STRIDE bit 5) only orders the
/// weights: every sub-kernel adds into the same integer accumulators, so the
/// result is that of the whole kernel.
fn load_weights(
    npu: &NpuState,
    op: &Op,
    ifm_depth: usize,
    traversal: Traversal,
) -> Result<Vec<i16>, OpError> {
    let cores = if op.parallel { npu.shram.len() } else { 1 };
    let block_depth = npu.field(Opcode::NpuSetOfmBlkDepthM1, "depth_m1") as usize + 1;
    let (kh, kw) = (op.kernel_h(), op.kernel_w());
    let per_oc = kh * kw * ifm_depth;
    let mut ohwi = vec![0i16; op.oc * per_oc];
    for core in 0..cores.min(op.oc) {
        let (base_op, len_op) = weight_stream_ops(core);
        let order = WeightOrder {
            ofm_depth: core_share(op.oc, cores, core),
            ifm_depth,
            kernel_height: kh,
            kernel_width: kw,
            // Each core's block depth in parallel mode (TRM 4.7.5.1: half the
            // OFM block depth, rounded as Vela does).
            ofm_block_depth: core_share(block_depth, cores, core),
            traversal,
            ifm_bits: op.ifm.dtype.bits,
            dilation_x2: op.dil_x == 2,
            dilation_y2: op.dil_y == 2,
            decomposition: op.decomposition,
            ofm_ublock_depth: U65_UBLOCK_DEPTH,
            ifm_ublock_depth: U65_UBLOCK_DEPTH,
        };
        let region = npu.field(Opcode::NpuSetWeightRegion, "region") as usize;
        let len = npu.field(len_op, "length") as usize;
        let what = format!("weight stream {core}");
        let bytes = npu.memory.read(
            faulting_channel::WEIGHTS,
            &what,
            region,
            npu.field(base_op, "addr"),
            len,
        )?;
        let stream =
            weights::decode(bytes).map_err(|e| OpError::Weights(format!("{what}: {e}")))?;
        if stream.len() < order.tensor_len() {
            return Err(OpError::Weights(format!(
                "{what} decodes to {} weights, fewer than the {} the operation needs",
                stream.len(),
                order.tensor_len()
            )));
        }
        let expected = weights::order::stream_order(&order)
            .map_err(|e| OpError::Weights(format!("{what}: {e}")))?
            .len();
        if stream.len() != expected {
            return Err(OpError::Weights(format!(
                "{what} decodes to {} weights, the operation needs {expected}",
                stream.len()
            )));
        }
        let part = weights::order::from_stream(&stream, &order)
            .map_err(|e| OpError::Weights(format!("{what}: {e}")))?;
        for (j, w) in part.chunks_exact(per_oc).enumerate() {
            let oc = core + j * cores;
            ohwi[oc * per_oc..(oc + 1) * per_oc].copy_from_slice(w);
        }
    }
    Ok(ohwi)
}

// ----------------------------------------------------------- convolution

/// One convolution output before the activation: the accumulator plus the
/// channel's bias, wrapped to the accumulator width, then the output unit's
/// per-channel scale with the OFM rounding mode (TRM 3.3.7). Public as the
/// reference of the accumulator and output-unit block benches.
pub fn scale_accumulator(
    acc: i64,
    record: &ScaleRecord,
    format: AccFormat,
    round: RoundMode,
) -> i64 {
    fixed::scale(
        wrap_accumulator(acc + record.bias, format),
        record.scale,
        record.shift,
        round,
    )
}

/// The MAC unit's accumulator: `v` wrapped to the accumulator width (TRM
/// 4.6.4 NPU_SET_ACC_FORMAT: 32 or 40 bits). Public as the reference of the
/// unit's block bench.
pub fn wrap_accumulator(v: i64, acc: AccFormat) -> i64 {
    match acc {
        AccFormat::Int32 => v as i32 as i64,
        _ => (v << 24) >> 24,
    }
}

/// Dot product of 8-bit activations (zero point removed, so |a| <= 255) with
/// 9-bit weights: i16 lanes summed in i32 chunks small enough not to
/// overflow (16384 * 255 * 255 < 2^31), so the compiler can vectorise it.
#[inline]
fn dot_i16(a: &[i16], b: &[i16]) -> i64 {
    let mut total = 0i64;
    for (ca, cb) in a.chunks(16384).zip(b.chunks(16384)) {
        let s: i32 = ca.iter().zip(cb).map(|(&x, &y)| x as i32 * y as i32).sum();
        total += s as i64;
    }
    total
}

#[inline]
fn dot_i32(a: &[i32], b: &[i16]) -> i64 {
    a.iter().zip(b).map(|(&x, &y)| x as i64 * y as i64).sum()
}

/// The padded, upscaled IFM: rows/columns of padding hold 0 (the zero
/// point, already subtracted).
struct Padded<T> {
    data: Vec<T>,
    w: usize,
    c: usize,
}

fn pad<T: Copy + Default>(
    src: &[i32],
    h: usize,
    w: usize,
    c: usize,
    op: &Op,
    cvt: impl Fn(i32) -> T,
) -> Padded<T> {
    let ph = (op.oh - 1) * op.stride_y + op.dkh;
    let pw = (op.ow - 1) * op.stride_x + op.dkw;
    let mut data = vec![T::default(); ph * pw * c];
    for y in 0..h {
        let dst = ((y + op.pad_top) * pw + op.pad_left) * c;
        for (d, &s) in data[dst..dst + w * c]
            .iter_mut()
            .zip(&src[y * w * c..(y + 1) * w * c])
        {
            *d = cvt(s);
        }
    }
    Padded { data, w: pw, c }
}

impl Op {
    fn run_conv(&self, npu: &mut NpuState) -> Result<(), OpError> {
        let depthwise = self.kind == KernelKind::Depthwise;
        let (h, w) = self.ifm_extent()?;
        let c = self.ifm_channels();
        let traversal = self.traversal();
        let weights = load_weights(npu, self, if depthwise { 1 } else { c }, traversal)?;
        let ifm = load_upscaled(npu, self, h, w, c)?;
        let scales = match self.ofm_scale_mode {
            OfmScaleMode::Global => vec![global_scale(npu); self.oc],
            OfmScaleMode::PerChannel => channel_scales(npu, self)?,
        };
        let accs = if self.ifm.dtype.bits == 8 {
            self.conv_accumulate(
                &pad(&ifm, h, w, c, self, |v| v as i16),
                &weights,
                depthwise,
                dot_i16,
            )
        } else {
            self.conv_accumulate(
                &pad(&ifm, h, w, c, self, |v| v),
                &weights,
                depthwise,
                dot_i32,
            )
        };
        self.count_macs(npu, if depthwise { 1 } else { c });
        let stage = OutStage::new(self, npu);
        let cores = npu.shram.len();
        let out: Vec<i64> = accs
            .iter()
            .enumerate()
            .map(|(i, &acc)| {
                let ch = i % self.oc;
                let r = scales[ch];
                stage.finish(
                    scale_accumulator(acc, &r, self.acc, self.round),
                    self.core_of(ch, cores),
                )
            })
            .collect();
        store_fm(npu, &self.ofm.clone(), self.oh, self.ow, self.oc, &out)
    }

    /// Accumulators in (y, x, oc) order. For each output position the
    /// receptive field is gathered once into a contiguous patch in OHWI
    /// kernel order, then each output channel is one dot product with its
    /// weights: no bounds checks or allocation in the MAC loop.
    fn conv_accumulate<T: Copy + Default + Into<i64>>(
        &self,
        p: &Padded<T>,
        weights: &[i16],
        depthwise: bool,
        dot: fn(&[T], &[i16]) -> i64,
    ) -> Vec<i64> {
        let (kh, kw, c) = (self.kernel_h(), self.kernel_w(), p.c);
        let mut out = Vec::with_capacity(self.oh * self.ow * self.oc);
        if depthwise {
            let kk = kh * kw;
            // Weights transposed to [ky][kx][c] so each tap is a contiguous row.
            let mut wt = vec![0i16; kk * c];
            for ch in 0..c {
                for k in 0..kk {
                    wt[k * c + ch] = weights[ch * kk + k];
                }
            }
            let mut acc = vec![0i64; c];
            for oy in 0..self.oh {
                for ox in 0..self.ow {
                    acc.iter_mut().for_each(|a| *a = 0);
                    for ky in 0..kh {
                        for kx in 0..kw {
                            let y = oy * self.stride_y + ky * self.dil_y;
                            let x = ox * self.stride_x + kx * self.dil_x;
                            let row = &p.data[(y * p.w + x) * c..][..c];
                            let wr = &wt[(ky * kw + kx) * c..][..c];
                            for ((a, &v), &wv) in acc.iter_mut().zip(row).zip(wr) {
                                *a += v.into() * wv as i64;
                            }
                        }
                    }
                    out.extend_from_slice(&acc);
                }
            }
            return out;
        }
        let patch_len = kh * kw * c;
        let mut patch = vec![T::default(); patch_len];
        for oy in 0..self.oh {
            for ox in 0..self.ow {
                for ky in 0..kh {
                    let y = oy * self.stride_y + ky * self.dil_y;
                    if self.dil_x == 1 {
                        let x = ox * self.stride_x;
                        let src = &p.data[(y * p.w + x) * c..][..kw * c];
                        patch[ky * kw * c..][..kw * c].copy_from_slice(src);
                    } else {
                        for kx in 0..kw {
                            let x = ox * self.stride_x + kx * self.dil_x;
                            let src = &p.data[(y * p.w + x) * c..][..c];
                            patch[(ky * kw + kx) * c..][..c].copy_from_slice(src);
                        }
                    }
                }
                for wrow in weights.chunks_exact(patch_len) {
                    out.push(dot(&patch, wrow));
                }
            }
        }
        out
    }
}

// --------------------------------------------------------------- pooling

impl Op {
    /// Apply the global OFM scale to a pooling or elementwise result; for
    /// 32-bit OFMs only the shift applies (TRM 4.6.5 NPU_SET_OFM_SCALE note).
    fn global(&self, v: i64, record: ScaleRecord) -> i64 {
        OutputScale {
            record,
            round: self.round,
            shift_only: self.ofm.dtype.bits == 32,
        }
        .apply(v)
    }

    fn run_pool(&self, npu: &mut NpuState, mode: PoolingMode) -> Result<(), OpError> {
        let (h, w) = self.ifm_extent()?;
        let reduce = mode == PoolingMode::ReduceSum;
        let c = self.ifm_channels();
        let ifm = load_upscaled(npu, self, h, w, c)?;
        // Average pool without padding and REDUCE_SUM scale (TRM 4.8.2 table
        // 4-122, 4-125); max pool and padded average pool do not.
        let scales =
            if mode == PoolingMode::Max || (mode == PoolingMode::Average && self.has_padding()) {
                None
            } else {
                Some(match self.ofm_scale_mode {
                    OfmScaleMode::Global => vec![global_scale(npu); self.oc],
                    OfmScaleMode::PerChannel => channel_scales(npu, self)?,
                })
            };
        // The zero points apply as for every operation: (x - IFM zp), then
        // + OFM zp. TFLite averages raw values, so its rounding differs on
        // half-way sums when the zero points are not 0; Vela's compiler
        // therefore gives average pools zero points of 0 (use_zero_point_0).
        let stage = OutStage::new(self, npu);
        let cores = npu.shram.len();
        let (kh, kw) = (self.kernel_h(), self.kernel_w());
        let mut out = Vec::with_capacity(self.oh * self.ow * self.oc);
        for oy in 0..self.oh {
            for ox in 0..self.ow {
                for ch in 0..self.oc {
                    let mut sum = 0i64;
                    let mut max = i64::MIN;
                    let mut count = 0i64;
                    for ky in 0..kh {
                        let y = (oy * self.stride_y + ky * self.dil_y) as i64 - self.pad_top as i64;
                        if y < 0 || y >= h as i64 {
                            continue;
                        }
                        for kx in 0..kw {
                            let x = (ox * self.stride_x + kx * self.dil_x) as i64
                                - self.pad_left as i64;
                            if x < 0 || x >= w as i64 {
                                continue;
                            }
                            let px = &ifm[(y as usize * w + x as usize) * c..][..c];
                            count += 1;
                            if reduce {
                                sum += px.iter().map(|&v| v as i64).sum::<i64>();
                            } else {
                                sum += px[ch] as i64;
                                max = max.max(px[ch] as i64);
                            }
                        }
                    }
                    let v = match (mode, &scales) {
                        (PoolingMode::Max, _) => {
                            if count == 0 {
                                self.ifm.dtype.min() - self.ifm.zero_point
                            } else {
                                max
                            }
                        }
                        // TFLite reference AveragePool: divide by the number of
                        // non-padding elements, rounding half away from zero.
                        (_, None) => fixed::divide_round_away(sum, count.max(1)),
                        (_, Some(s)) => {
                            let r = s[ch];
                            self.global(wrap_accumulator(sum + r.bias, self.acc), r)
                        }
                    };
                    out.push(stage.finish(v, self.core_of(ch, cores)));
                }
            }
        }
        self.count_macs(npu, if reduce { c } else { 1 });
        store_fm(npu, &self.ofm.clone(), self.oh, self.ow, self.oc, &out)
    }

    /// Counts the operation's MACs as Vela's per-layer report does (its
    /// `MAC Count`, `npu_performance.measure_cycle_cost`): per OFM value,
    /// the kernel elements times the IFM channels summed into it, `depth`
    /// (1 for depthwise convolutions and max or average pools). Elementwise
    /// operations count none.
    fn count_macs(&self, npu: &mut NpuState, depth: usize) {
        let per_value = (self.kernel_h() * self.kernel_w() * depth) as u64;
        npu.stats.macs += (self.oh * self.ow * self.oc) as u64 * per_value;
    }
}

// ------------------------------------------------------------ elementwise

/// The input shift of the 32-bit ADD/SUB input scale: 20 for 8-bit and 15 for
/// 16-bit IFMs, the `left_shift` of TFLite's quantized ADD (add.cc) and of
/// Vela's `advanced_elementwise_add_sub_scale`.
pub fn add_input_shift(t: DType) -> u32 {
    if t.bits == 8 {
        20
    } else {
        15
    }
}

/// IFM2's height, width and depth under NPU_SET_IFM2_BROADCAST `bc`: a
/// broadcast dimension is 1.
fn ifm2_extent(bc: u16, h: usize, w: usize, c: usize) -> (usize, usize, usize) {
    let dim = |bit: u16, n: usize| if bc & bit != 0 { 1 } else { n };
    (
        dim(broadcast::H, h),
        dim(broadcast::W, w),
        dim(broadcast::C, c),
    )
}

/// What [`Op::elementwise_inputs`] decodes: IFM2 in memory (none for a
/// unary mode or a scalar), the scalar less IFM2's zero point, and the
/// ADD/SUB input scaling.
pub(crate) struct ElementwiseInputs {
    pub(crate) ifm2_map: Option<FeatureMap>,
    scalar: i64,
    pub(crate) scale_mode: IfmScaleMode,
    pub(crate) input_round: RoundMode,
}

/// The global OFM scale of a pooling or elementwise result (NPU_SET_OFM_SCALE
/// with OFM_PRECISION.round_mode); for 32-bit OFMs only the shift applies
/// (TRM 4.6.5 NPU_SET_OFM_SCALE note).
#[derive(Clone, Copy, Debug)]
pub struct OutputScale {
    pub record: ScaleRecord,
    pub round: RoundMode,
    pub shift_only: bool,
}

impl OutputScale {
    pub fn apply(&self, v: i64) -> i64 {
        if self.shift_only {
            fixed::shift_only(v, self.record.shift, self.round)
        } else {
            fixed::scale(v, self.record.scale, self.record.shift, self.round)
        }
    }
}

/// The elementwise unit's arithmetic on one pair of operands (TRM 4.8.2
/// table 4-124), zero points already subtracted, before the output stage
/// ([`OutStage::finish`]): input scaling of ADD/SUB, the operation, and the
/// global output scale where the operation has one. Public as the
/// reference of the elementwise unit's block bench.
#[derive(Clone, Copy, Debug)]
pub struct ElementwiseArithmetic {
    pub mode: ElementwiseMode,
    /// IFM_PRECISION.scale_mode: ADD/SUB input scaling.
    pub scale_mode: IfmScaleMode,
    /// IFM_PRECISION.round_mode: rounding of the 32-bit input scale.
    pub input_round: RoundMode,
    /// [`add_input_shift`] of the IFM type.
    pub input_shift: u32,
    /// NPU_SET_OPA_SCALE and NPU_SET_OPB_SCALE.
    pub opa_scale: u32,
    pub opa_shift: u32,
    pub opb_scale: i64,
    pub output: OutputScale,
}

impl ElementwiseArithmetic {
    /// Operand `a` and `b` (for unary operations `b` is unused) to the value
    /// the output stage takes.
    pub fn apply(&self, a: i64, b: i64) -> i64 {
        use ElementwiseMode as E;
        let l = self.input_shift;
        let scaled_input =
            |x: i64| fixed::scale(x << l, self.opa_scale, self.opa_shift + l, self.input_round);
        match self.mode {
            E::Add | E::Sub => {
                let (sa, sb) = match self.scale_mode {
                    // 16-bit scales multiply both operands.
                    IfmScaleMode::Opa16Opb16 => {
                        (a * (self.opa_scale & 0xffff) as i64, b * self.opb_scale)
                    }
                    // 32-bit scale on one operand, TFLite's
                    // MultiplyByQuantizedMultiplierSmallerThanOneExp
                    // of (x << left_shift); the other operand gets
                    // the fixed shift left_shift - 1 (TFLite's
                    // 0.5 multiplier of the larger-scale input).
                    IfmScaleMode::Opa32 => (scaled_input(a), b << (l - 1)),
                    IfmScaleMode::Opb32 => (a << (l - 1), scaled_input(b)),
                };
                let r = if self.mode == E::Add {
                    sa + sb
                } else {
                    sa - sb
                };
                self.output.apply(r)
            }
            E::Mul => self.output.apply(a * b),
            E::Min => a.min(b),
            E::Max => a.max(b),
            E::Abs => self.output.apply(a.abs()),
            // TRM 4.8.2 table 4-124: Leaky ReLU scales only negative inputs.
            E::Lrelu => {
                if a < 0 {
                    self.output.apply(a)
                } else {
                    a
                }
            }
            E::Clz => (a as i32).leading_zeros() as i64,
            // A negative shift amount shifts by 0 (lib.rs); 63
            // and 31 already shift any int32 out.
            E::Shr => {
                let s = b.clamp(0, 63) as u32;
                self.output
                    .apply(fixed::shift_only(a, s, self.output.round))
            }
            E::Shl => {
                let s = b.clamp(0, 31) as u32;
                DType::I32.saturate(a << s)
            }
        }
    }
}

impl Op {
    /// An elementwise operation's second operand and input scaling, decoded
    /// and checked against TRM 4.8.2 table 4-124 and NPU_SET_IFM2_*: when
    /// it is dispatched (`validate_on`, so `Npu::check_rules` refuses what
    /// a run refuses) and when it runs.
    pub(crate) fn elementwise_inputs(
        &self,
        npu: &NpuState,
        mode: ElementwiseMode,
    ) -> Result<ElementwiseInputs, OpError> {
        use ElementwiseMode as E;
        let bc = npu.reg(Opcode::NpuSetIfm2Broadcast) as u16;
        let mut ifm2_map = None;
        let mut scalar = 0i64;
        if !mode.unary() {
            let fm2 = feature_map(npu, &IFM2, "IFM2")?;
            if fm2.dtype != self.ifm.dtype {
                return Err(forbidden(
                    "TRM 4.6.4 NPU_SET_IFM2_PRECISION (type and precision must match IFM)",
                    format!("IFM {}, IFM2 {}", self.ifm.dtype, fm2.dtype),
                ));
            }
            if bc & broadcast::SCALAR != 0 {
                if self.ifm.dtype.bits == 32 {
                    return Err(forbidden(
                        "TRM 4.8.2 table 4-124 (scalar constant is not supported for a 32-bit IFM)",
                        "IFM2_BROADCAST bit 7 with a 32-bit IFM",
                    ));
                }
                let raw = npu.field(Opcode::NpuSetIfm2Scalar, "scalar") as u16;
                scalar = fm2.dtype.param16(raw) - fm2.zero_point;
            } else {
                if fm2.dtype.bits == 32 && fm2.zero_point != 0 {
                    return Err(forbidden(
                        "TRM 4.6.4 NPU_SET_IFM2_ZERO_POINT (must be zero for 32-bit IFM)",
                        format!("zero point {}", fm2.zero_point),
                    ));
                }
                ifm2_map = Some(fm2);
            }
        }
        let scale_mode =
            IfmScaleMode::from_bits(npu.field(Opcode::NpuSetIfmPrecision, "scale_mode") as u32)
                .ok_or_else(|| bad("IFM scale mode 3 is reserved"))?;
        let wide = self.ifm.dtype.bits == 32 || self.ofm.dtype.bits == 32;
        if matches!(mode, E::Add | E::Sub) && scale_mode != IfmScaleMode::Opa16Opb16 && wide {
            return Err(forbidden(
                "TRM 4.8.2 table 4-124 (ADD/SUB input scaling only when neither the IFM nor the activation type is 32-bit)",
                format!("IFM {}, OFM {}, IFM scale mode {scale_mode:?}", self.ifm.dtype, self.ofm.dtype),
            ));
        }
        // IFM_PRECISION[15:14]: rounding of the 32-bit input scale (TRM 4.6.4).
        let input_round = match IfmRoundMode::from_bits(
            npu.field(Opcode::NpuSetIfmPrecision, "round_mode") as u32,
        ) {
            Some(IfmRoundMode::DoubleRounding) => RoundMode::Tfl,
            Some(IfmRoundMode::Natural) => RoundMode::Natural,
            None => return Err(bad("IFM round mode 1 and 3 are reserved")),
        };
        Ok(ElementwiseInputs {
            ifm2_map,
            scalar,
            scale_mode,
            input_round,
        })
    }

    fn run_elementwise(&self, npu: &mut NpuState, mode: ElementwiseMode) -> Result<(), OpError> {
        let unary = mode.unary();
        let (h, w, c) = (self.oh, self.ow, self.oc);
        let bc = npu.reg(Opcode::NpuSetIfm2Broadcast) as u16;
        let reversed = bc & broadcast::REVERSE_OPERANDS != 0;
        let (bh, bw, bcn) = ifm2_extent(bc, h, w, c);
        let ElementwiseInputs {
            ifm2_map,
            scalar,
            scale_mode,
            input_round,
        } = self.elementwise_inputs(npu, mode)?;
        // The settings are checked before any feature map is read, as the
        // NPU refuses an operation when it is dispatched.
        let a_all = load_fm(npu, &self.ifm, h, w, c, "IFM")?;
        let ifm2 = match &ifm2_map {
            Some(fm2) => Some(load_fm(npu, fm2, bh, bw, bcn, "IFM2")?),
            None => None,
        };
        let arithmetic = ElementwiseArithmetic {
            mode,
            scale_mode,
            input_round,
            input_shift: add_input_shift(self.ifm.dtype),
            opa_scale: npu.field(Opcode::NpuSetOpaScale, "scale") as u32,
            opa_shift: npu.field(Opcode::NpuSetOpaScale, "shift") as u32,
            opb_scale: npu.field(Opcode::NpuSetOpbScale, "scale"),
            output: OutputScale {
                record: global_scale(npu),
                round: self.round,
                shift_only: self.ofm.dtype.bits == 32,
            },
        };
        let stage = OutStage::new(self, npu);
        let cores = npu.shram.len();
        let mut out = Vec::with_capacity(h * w * c);
        for y in 0..h {
            for x in 0..w {
                for ch in 0..c {
                    let first = a_all[(y * w + x) * c + ch] as i64;
                    let second = match &ifm2 {
                        Some(b) => {
                            let (y2, x2, c2) = (y.min(bh - 1), x.min(bw - 1), ch.min(bcn - 1));
                            b[(y2 * bw + x2) * bcn + c2] as i64
                        }
                        None => scalar,
                    };
                    // IFM2_BROADCAST bit 6: IFM2 is operand A.
                    let (a, b) = if reversed && !unary {
                        (second, first)
                    } else {
                        (first, second)
                    };
                    let v = arithmetic.apply(a, b);
                    out.push(stage.finish(v, self.core_of(ch, cores)));
                }
            }
        }
        store_fm(npu, &self.ofm.clone(), h, w, c, &out)
    }
}

/// `map` as the footprints take an IFM2: with its broadcast setting.
fn ifm2_of<'a>(map: &'a FeatureMap, npu: &NpuState) -> Ifm2<'a> {
    Ifm2 {
        map,
        broadcast: npu.reg(Opcode::NpuSetIfm2Broadcast) as u16,
    }
}
