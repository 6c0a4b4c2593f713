//! Elementwise operations (TRM 4.8.2 table 4-124).

use super::decode::{feature_map, IFM2};
use super::io::{global_scale, load_fm, store_fm};
use super::output_stage::{OutStage, OutputScale};
use super::{bad, forbidden, Op};
use crate::fixed;
use crate::state::{NpuState, OpError};
use crate::tensor::{DType, FeatureMap};
use npu_arch::command::{
    broadcast, ElementwiseMode, IfmRoundMode, IfmScaleMode, Opcode, RoundMode,
};

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
pub(super) fn ifm2_extent(bc: u16, h: usize, w: usize, c: usize) -> (usize, usize, usize) {
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

    pub(super) fn run_elementwise(
        &self,
        npu: &mut NpuState,
        mode: ElementwiseMode,
    ) -> Result<(), OpError> {
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
            output: self.output_scale(global_scale(npu)),
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
