//! The output unit after scaling (TRM 3.3.7): the global OFM scale, zero
//! point, activation function, clip range, LUT and saturation.

use super::io::ScaleRecord;
use super::Op;
use crate::fixed;
use crate::state::NpuState;
use crate::tensor::DType;
use npu_arch::command::{ActivationFunction, RoundMode};
use npu_arch::shared_buffer::LUT_BYTES;

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
    pub(super) fn new(op: &Op, npu: &NpuState) -> OutStage {
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

/// The global OFM scale of a pooling or elementwise result (NPU_SET_OFM_SCALE
/// with OFM_PRECISION.round_mode); for 32-bit OFMs only the shift applies
/// (TRM 4.6.5 NPU_SET_OFM_SCALE note).
#[derive(Clone, Copy, Debug)]
pub struct OutputScale {
    pub record: ScaleRecord,
    pub round: RoundMode,
    pub shift_only: bool,
}

impl Op {
    /// `record` as this operation's OFM scale: its rounding, and the shift
    /// alone for a 32-bit OFM (TRM 4.6.5 NPU_SET_OFM_SCALE note).
    pub(super) fn output_scale(&self, record: ScaleRecord) -> OutputScale {
        OutputScale {
            record,
            round: self.round,
            shift_only: self.ofm.dtype.bits == 32,
        }
    }
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
