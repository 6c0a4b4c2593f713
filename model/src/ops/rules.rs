//! The rules an operation must keep (TRM 4.8.2 tables 4-120 to 4-125 and
//! TRM 4.6.4): types, shapes, kernel, strides and stream lengths.

use super::io::scale_stream_ops;
use super::{bad, forbidden, KernelKind, Op, MAX_ELEMENTS};
use crate::state::{NpuState, OpError};
use crate::tensor::DType;
use crate::weights::order::core_share;
use npu_arch::command::{
    AccFormat, ActivationClipRange, ActivationFunction, ElementwiseMode, OfmScaleMode, PoolingMode,
    UpscaleMode, SCALE_BIAS_RECORD_BYTES,
};
use npu_arch::limits::*;

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

impl Op {
    /// The rules of TRM 4.8.2 (tables 4-120 to 4-125) and 4.6.4.
    pub(super) fn validate(&self) -> Result<(), OpError> {
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
    pub(super) fn validate_on(&self, npu: &NpuState) -> Result<(), OpError> {
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
}
