//! The output unit's per-operation settings: the fields of the NPU_SET_*
//! values it reads, by name ([`OutputSettings`], filled from the op-state
//! views by the datapath's operation decoder), and what the pipeline
//! carries of them with each beat ([`BeatControl`], from
//! [`ControlDecoder`]).

use super::LANES;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

// `ControlDecoder` takes LUT n (TRM 4.6.4 NPU_SET_ACTIVATION 16 + n) as bits
// 11..3 equal to LUT 0's and the slot from bits 2..0.
const _: () = assert!(
    (npu_arch::command::ActivationFunction::Lut0 as u32).is_multiple_of(8)
        && npu_arch::command::ActivationFunction::Lut7 as u32
            == npu_arch::command::ActivationFunction::Lut0 as u32 + 7
);

/// What the output unit needs of an operation, by name. Enumerated fields
/// hold the TRM encoding (`npu_arch::command`'s enums give the values).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OutputSettings {
    /// OFM_PRECISION.round_mode ([`npu_arch::command::RoundMode`]).
    pub round_mode: Bits<2>,
    /// OFM_PRECISION.activation_type: the OFM is signed.
    pub ofm_signed: Bit,
    /// OFM_PRECISION.activation_precision
    /// ([`npu_arch::command::ActivationPrecision`]: 8, 16 or 32 bits).
    pub ofm_precision: Bits<2>,
    /// OFM_PRECISION.scale_mode: 1 = every channel uses `scale` and `shift`
    /// and no bias ([`npu_arch::command::OfmScaleMode::Global`]).
    pub global_scale: Bit,
    /// NPU_SET_OFM_SCALE scale and shift.
    pub scale: Bits<32>,
    pub shift: Bits<6>,
    /// NPU_SET_OFM_ZERO_POINT, int16 or uint16 by `ofm_signed`.
    pub zero_point: Bits<16>,
    /// NPU_SET_ACC_FORMAT ([`npu_arch::command::AccFormat`]).
    pub acc_format: Bits<2>,
    /// NPU_SET_ACTIVATION.activation_function
    /// ([`npu_arch::command::ActivationFunction`]: none, tanh, sigmoid or
    /// LUT 0-7).
    pub function: Bits<12>,
    /// NPU_SET_ACTIVATION.activation_clip_range
    /// ([`npu_arch::command::ActivationClipRange`]).
    pub clip_range: Bits<4>,
    /// NPU_SET_ACTIVATION_MIN/MAX, int16 or uint16 by the bound's type.
    pub activation_min: Bits<16>,
    pub activation_max: Bits<16>,
    /// No scaling (max pool, padded average pool; TRM 4.8.2 table 4-122):
    /// the accumulator is the scaled value, and no scale record is read.
    pub unscaled: Bit,
    /// Padded average pool: the accumulator is divided by the beat's
    /// `count` of IFM elements, rounding half away from zero (with
    /// `unscaled`).
    pub divide: Bit,
    /// A scaled pool or an elementwise operation with a 32-bit OFM: the
    /// shift alone, no multiplier
    /// (TRM 4.6.5 NPU_SET_OFM_SCALE note; `npu_model::fixed::shift_only`),
    /// the TFL rounding then rounding half away from zero.
    pub shift_only: Bit,
    /// The operation is NPU_OP_ELEMENTWISE (TRM 4.6.4): each lane's value
    /// comes from its two operands ([`super::Elementwise`]), not from an
    /// accumulator and a scale record.
    pub elementwise: Bit,
    /// NPU_OP_ELEMENTWISE's parameter
    /// ([`npu_arch::command::ElementwiseMode`]).
    pub elementwise_mode: Bits<6>,
    /// IFM_PRECISION.activation_precision
    /// ([`npu_arch::command::ActivationPrecision`]: 8, 16 or 32 bits).
    pub ifm_precision: Bits<2>,
    /// IFM_PRECISION.scale_mode: ADD/SUB input scaling
    /// ([`npu_arch::command::IfmScaleMode`]).
    pub ifm_scale_mode: Bits<2>,
    /// IFM_PRECISION.round_mode: rounding of the 32-bit input scale
    /// ([`npu_arch::command::IfmRoundMode`]).
    pub ifm_round_mode: Bits<2>,
    /// NPU_SET_OPA_SCALE scale and shift, NPU_SET_OPB_SCALE scale.
    pub opa_scale: Bits<32>,
    pub opa_shift: Bits<6>,
    pub opb_scale: Bits<16>,
}

/// What travels with a beat through the pipeline: its lane mask and what
/// the later stages need of its operation.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct BeatControl {
    /// Lanes holding a channel (bit i for lane i).
    pub lanes: Bits<LANES>,
    /// OFM_PRECISION.round_mode.
    pub round_mode: Bits<2>,
    /// The OFM zero point and the bounds of the final clamp, 35-bit two's
    /// complement (for a LUT: the OFM type's range).
    pub zero_point: Bits<35>,
    pub low: Bits<35>,
    pub high: Bits<35>,
    /// The activation function (none when all three are low).
    pub tanh: Bit,
    pub sigmoid: Bit,
    pub lookup: Bit,
    /// The activation type (the clip range's, else the OFM's) is 16-bit:
    /// 15 fraction bits for tanh/sigmoid, the interpolated 16-bit LUT.
    pub wide: Bit,
    /// The activation type is signed (a LUT index counts from its minimum,
    /// an 8-bit LUT's bytes are signed).
    pub index_signed: Bit,
    /// An 8-bit LUT of 32-bit words (the OFM is 32-bit).
    pub lut_words: Bit,
    /// The LUT's 256-byte slot.
    pub lut_slot: Bits<3>,
    /// A LUT's index bounds (clip range and ACTIVATION_MIN/MAX), 17-bit
    /// two's complement.
    pub index_low: Bits<17>,
    pub index_high: Bits<17>,
    /// The core whose LUT the beat reads (parallel mode's second core).
    pub core: Bit,
}

/// The parts of a [`BeatControl`]'s bounds, between the [`ControlDecoder`]'s
/// stages: the OFM type's range, the clip range, ACTIVATION_MIN/MAX (35-bit
/// two's complement), and whether MIN/MAX apply.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ClampBounds {
    pub ofm_low: Bits<35>,
    pub ofm_high: Bits<35>,
    pub clip_low: Bits<35>,
    pub clip_high: Bits<35>,
    pub min: Bits<35>,
    pub max: Bits<35>,
    pub clamp_enable: Bit,
}

/// The bounds between the [`ControlDecoder`]'s second and third stages: the
/// clip range clamped to ACTIVATION_MIN/MAX (`low`, `high`), and the ranges
/// the third stage clamps a LUT's index and the values to.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct InnerBounds {
    pub low: Bits<35>,
    pub high: Bits<35>,
    pub ofm_low: Bits<35>,
    pub ofm_high: Bits<35>,
    pub clip_low: Bits<35>,
    pub clip_high: Bits<35>,
}

/// Cycles `settings` must hold before the [`ControlDecoder`]'s `control` is
/// theirs: the change is seen, then three register stages.
pub const SETTLE_CYCLES: usize = 4;

/// [`OutputSettings`] in, [`BeatControl`] out (each beat puts in its own
/// lanes and core) [`SETTLE_CYCLES`] cycles after a change, in three
/// register stages so that none is deeper than about one 32-bit multiply
/// (`make timing`): the fields and the bounds' parts, the clip range's
/// clamp to ACTIVATION_MIN/MAX, then a LUT index's clip and the OFM type's
/// saturation. The control: the zero point by the OFM's signedness, and the clip range
/// (NPU_SET_ACTIVATION clip range, if it forces a type), ACTIVATION_MIN/MAX
/// (with an 8- or 16-bit OFM, or a forced clip range; in the OFM type's
/// signedness, or the forced type's for a 32-bit OFM) and the OFM type's
/// saturation, applied in that order, as one clamp: a clamp of a clamp is
/// the clamp to the outer clamp of the inner bounds. That is
/// `npu_model::ops::OutStage` for the linear activation and tanh/sigmoid
/// (after the function). A LUT's index is clamped to the clip range,
/// ACTIVATION_MIN/MAX and the clip range again (`index_low/high`); its
/// entry only to the OFM type (`low/high`).
#[derive(LogicBlock)]
pub struct ControlDecoder {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub settings: Signal<In, OutputSettings>,
    /// The control of `settings` (its `lanes` and `core` 0: each beat's
    /// own), valid when `settled`.
    pub control: Signal<Out, BeatControl>,
    /// `settings` have held for [`SETTLE_CYCLES`] cycles: `control` is
    /// theirs.
    pub settled: Signal<Out, Bit>,
    /// NPU_SET_ACC_FORMAT is int32.
    pub acc_int32: Signal<Out, Bit>,
    // Encodings (npu_arch::command).
    bits_8: Constant<Bits<2>>,
    bits_16: Constant<Bits<2>>,
    force_uint8: Constant<Bits<4>>,
    force_int8: Constant<Bits<4>>,
    force_int16: Constant<Bits<4>>,
    int32: Constant<Bits<2>>,
    int32_ofm: Constant<Bits<2>>,
    tanh: Constant<Bits<12>>,
    sigmoid: Constant<Bits<12>>,
    truncate: Constant<Bits<2>>,
    tfl: Constant<Bits<2>>,
    half_away: Constant<Bits<2>>,
    /// LUT n is function 16 + n: bits 11..3 of LUT 0's code.
    lut_group: Constant<Bits<9>>,
    sign_35: Constant<Bits<35>>,
    /// The settings of the cycle before, and bit k: they changed k + 1
    /// cycles before (both set at reset).
    settings_seen: ResetReg<OutputSettings>,
    unsettled: ResetReg<Bits<3>>,
    /// Stage 1: the control without its bounds, and the bounds' parts.
    partial: ResetReg<BeatControl>,
    bounds: ResetReg<ClampBounds>,
    /// Stage 2: the control without its bounds, the inner bounds.
    inner_control: ResetReg<BeatControl>,
    inner: ResetReg<InnerBounds>,
    inner_bounds: Signal<Local, InnerBounds>,
    /// Stage 3: the control.
    decoded: ResetReg<BeatControl>,
    changed: Signal<Local, Bit>,
    partial_control: Signal<Local, BeatControl>,
    zero_point: Signal<Local, Bits<35>>,
    function_code: Signal<Local, Bits<12>>,
    lookup: Signal<Local, Bit>,
    clip_low: Signal<Local, Bits<35>>,
    clip_high: Signal<Local, Bits<35>>,
    index_low: Signal<Local, Bits<35>>,
    index_high: Signal<Local, Bits<35>>,
    ofm_low: Signal<Local, Bits<35>>,
    ofm_high: Signal<Local, Bits<35>>,
    clamp_enable: Signal<Local, Bit>,
    bound_signed: Signal<Local, Bit>,
    min: Signal<Local, Bits<35>>,
    max: Signal<Local, Bits<35>>,
    low: Signal<Local, Bits<35>>,
    high: Signal<Local, Bits<35>>,
}

impl Default for ControlDecoder {
    fn default() -> Self {
        use npu_arch::command::{
            AccFormat, ActivationClipRange as Clip, ActivationFunction, ActivationPrecision,
            RoundMode,
        };
        let c2 = |v: u32| Constant::new(u64::from(v).into());
        let c4 = |v: u32| Constant::new(u64::from(v).into());
        let c12 = |v: u32| Constant::new(u64::from(v).into());
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            settings: Default::default(),
            control: Default::default(),
            settled: Default::default(),
            acc_int32: Default::default(),
            bits_8: c2(ActivationPrecision::Bits8.bits()),
            bits_16: c2(ActivationPrecision::Bits16.bits()),
            force_uint8: c4(Clip::ForceUint8.bits()),
            force_int8: c4(Clip::ForceInt8.bits()),
            force_int16: c4(Clip::ForceInt16.bits()),
            int32: c2(AccFormat::Int32.bits()),
            int32_ofm: c2(ActivationPrecision::Bits32.bits()),
            tanh: c12(ActivationFunction::Tanh.bits()),
            sigmoid: c12(ActivationFunction::Sigmoid.bits()),
            truncate: c2(RoundMode::Truncate.bits()),
            tfl: c2(RoundMode::Tfl.bits()),
            half_away: Constant::new(super::scale::HALF_AWAY_FROM_ZERO.into()),
            lut_group: Constant::new(u64::from(ActivationFunction::Lut0.bits() >> 3).into()),
            sign_35: Constant::new((1u64 << 34).into()),
            settings_seen: Default::default(),
            unsettled: ResetReg::new(7.into()),
            partial: Default::default(),
            bounds: Default::default(),
            inner_control: Default::default(),
            inner: Default::default(),
            inner_bounds: Default::default(),
            decoded: Default::default(),
            changed: Default::default(),
            partial_control: Default::default(),
            zero_point: Default::default(),
            function_code: Default::default(),
            lookup: Default::default(),
            clip_low: Default::default(),
            clip_high: Default::default(),
            index_low: Default::default(),
            index_high: Default::default(),
            ofm_low: Default::default(),
            ofm_high: Default::default(),
            clamp_enable: Default::default(),
            bound_signed: Default::default(),
            min: Default::default(),
            max: Default::default(),
            low: Default::default(),
            high: Default::default(),
        }
    }
}

impl Logic for ControlDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            settings_seen,
            unsettled,
            partial,
            bounds,
            inner_control,
            inner,
            decoded
        );
        self.settings_seen.rst_n.next = self.rst_n.val();
        self.unsettled.rst_n.next = self.rst_n.val();
        self.partial.rst_n.next = self.rst_n.val();
        self.bounds.rst_n.next = self.rst_n.val();
        self.inner_control.rst_n.next = self.rst_n.val();
        self.inner.rst_n.next = self.rst_n.val();
        self.decoded.rst_n.next = self.rst_n.val();
        // The control of settings that held for the three stages.
        self.changed.next = self.settings.val() != self.settings_seen.q.val();
        self.settings_seen.d.next = self.settings.val();
        self.unsettled.d.next =
            (self.unsettled.q.val() << 1) | bit_cast::<3, 1>(self.changed.val().into());
        self.settled.next = !self.changed.val() & (self.unsettled.q.val() == 0);
        self.control.next = self.decoded.q.val();

        // ---- Stage 1: the fields, the bounds' parts ----
        self.acc_int32.next = self.settings.val().acc_format == self.int32.val();
        self.partial_control.next.lanes = 0.into();
        self.partial_control.next.core = false;
        self.partial_control.next.low = 0.into();
        self.partial_control.next.high = 0.into();
        self.partial_control.next.index_low = 0.into();
        self.partial_control.next.index_high = 0.into();
        self.partial_control.next.round_mode = self.settings.val().round_mode;
        // TRM 4.6.4 NPU_SET_ACTIVATION: 3 tanh, 4 sigmoid, 16 + n LUT n.
        self.function_code.next = self.settings.val().function;
        self.lookup.next = self.function_code.val().get_bits::<9>(3) == self.lut_group.val();
        self.partial_control.next.tanh = self.function_code.val() == self.tanh.val();
        self.partial_control.next.sigmoid = self.function_code.val() == self.sigmoid.val();
        self.partial_control.next.lookup = self.lookup.val();
        self.partial_control.next.lut_slot = self.function_code.val().get_bits::<3>(0);
        // The padded average pool's division truncates (`super::divide`).
        if self.settings.val().divide {
            self.partial_control.next.round_mode = self.truncate.val();
        }
        // A shift-only TFL rounding is one rounding half away from zero:
        // the Scaler's HALF_AWAY_FROM_ZERO (no TRM encoding).
        if self.settings.val().shift_only & (self.settings.val().round_mode == self.tfl.val()) {
            self.partial_control.next.round_mode = self.half_away.val();
        }
        // (Bits are read from locals: yosys cannot index a slice.)
        self.zero_point.next = bit_cast::<35, 16>(self.settings.val().zero_point);
        if self.settings.val().ofm_signed & self.zero_point.val().get_bit(15) {
            self.zero_point.next = self.zero_point.val() | 0x7_ffff_0000_u64;
        }
        self.partial_control.next.zero_point = self.zero_point.val();
        // The OFM type's range (35-bit two's complement: 0x7_ffff_ff80 is
        // -128, 0x7_ffff_8000 -32768, 0x7_8000_0000 -2^31).
        if self.settings.val().ofm_precision == self.bits_8.val() {
            self.ofm_low.next = 0.into();
            self.ofm_high.next = 255.into();
            if self.settings.val().ofm_signed {
                self.ofm_low.next = 0x7_ffff_ff80_u64.into();
                self.ofm_high.next = 127.into();
            }
        } else if self.settings.val().ofm_precision == self.bits_16.val() {
            self.ofm_low.next = 0.into();
            self.ofm_high.next = 65535.into();
            if self.settings.val().ofm_signed {
                self.ofm_low.next = 0x7_ffff_8000_u64.into();
                self.ofm_high.next = 32767.into();
            }
        } else {
            self.ofm_low.next = 0x7_8000_0000_u64.into();
            self.ofm_high.next = 0x7fff_ffff_u64.into();
        }
        // The clip range: a forced type's, else the OFM's; ACTIVATION_MIN/MAX
        // apply with a forced type.
        self.clamp_enable.next = true;
        self.bound_signed.next = true;
        self.partial_control.next.wide = false;
        self.partial_control.next.index_signed = true;
        if self.settings.val().clip_range == self.force_uint8.val() {
            self.clip_low.next = 0.into();
            self.clip_high.next = 255.into();
            self.bound_signed.next = false;
            self.partial_control.next.index_signed = false;
        } else if self.settings.val().clip_range == self.force_int8.val() {
            self.clip_low.next = 0x7_ffff_ff80_u64.into();
            self.clip_high.next = 127.into();
        } else if self.settings.val().clip_range == self.force_int16.val() {
            self.clip_low.next = 0x7_ffff_8000_u64.into();
            self.clip_high.next = 32767.into();
            self.partial_control.next.wide = true;
        } else {
            self.clamp_enable.next = false;
            self.clip_low.next = self.ofm_low.val();
            self.clip_high.next = self.ofm_high.val();
            self.partial_control.next.wide =
                self.settings.val().ofm_precision == self.bits_16.val();
            self.partial_control.next.index_signed = self.settings.val().ofm_signed;
        }
        // A 32-bit OFM with an 8-bit clip range: a LUT of 32-bit words.
        self.partial_control.next.lut_words = (self.settings.val().ofm_precision
            == self.int32_ofm.val())
            & (self.settings.val().clip_range != 0);
        // ACTIVATION_MIN/MAX: with an 8- or 16-bit OFM in its signedness;
        // with a 32-bit OFM only when the clip range forces a type, in that
        // type's signedness.
        if (self.settings.val().ofm_precision == self.bits_8.val())
            | (self.settings.val().ofm_precision == self.bits_16.val())
        {
            self.bound_signed.next = self.settings.val().ofm_signed;
            self.clamp_enable.next = true;
        }
        self.min.next = bit_cast::<35, 16>(self.settings.val().activation_min);
        self.max.next = bit_cast::<35, 16>(self.settings.val().activation_max);
        if self.bound_signed.val() & self.min.val().get_bit(15) {
            self.min.next = self.min.val() | 0x7_ffff_0000_u64;
        }
        if self.bound_signed.val() & self.max.val().get_bit(15) {
            self.max.next = self.max.val() | 0x7_ffff_0000_u64;
        }
        self.partial.d.next = self.partial_control.val();
        self.bounds.d.next.ofm_low = self.ofm_low.val();
        self.bounds.d.next.ofm_high = self.ofm_high.val();
        self.bounds.d.next.clip_low = self.clip_low.val();
        self.bounds.d.next.clip_high = self.clip_high.val();
        self.bounds.d.next.min = self.min.val();
        self.bounds.d.next.max = self.max.val();
        self.bounds.d.next.clamp_enable = self.clamp_enable.val();

        // ---- Stage 2: the clip range clamped to ACTIVATION_MIN/MAX ----
        self.clip_low.next = self.bounds.q.val().clip_low;
        self.clip_high.next = self.bounds.q.val().clip_high;
        self.min.next = self.bounds.q.val().min;
        self.max.next = self.bounds.q.val().max;
        self.low.next = self.clip_low.val();
        self.high.next = self.clip_high.val();
        if self.bounds.q.val().clamp_enable {
            // low = min(max(low, min), max), high likewise.
            if (self.low.val() ^ self.sign_35.val()) < (self.min.val() ^ self.sign_35.val()) {
                self.low.next = self.min.val();
            }
            if (self.low.val() ^ self.sign_35.val()) > (self.max.val() ^ self.sign_35.val()) {
                self.low.next = self.max.val();
            }
            if (self.high.val() ^ self.sign_35.val()) < (self.min.val() ^ self.sign_35.val()) {
                self.high.next = self.min.val();
            }
            if (self.high.val() ^ self.sign_35.val()) > (self.max.val() ^ self.sign_35.val()) {
                self.high.next = self.max.val();
            }
        }
        self.inner_control.d.next = self.partial.q.val();
        self.inner.d.next.low = self.low.val();
        self.inner.d.next.high = self.high.val();
        self.inner.d.next.ofm_low = self.bounds.q.val().ofm_low;
        self.inner.d.next.ofm_high = self.bounds.q.val().ofm_high;
        self.inner.d.next.clip_low = self.clip_low.val();
        self.inner.d.next.clip_high = self.clip_high.val();

        // ---- Stage 3: a LUT index's clip, the OFM type's saturation ----
        self.inner_bounds.next = self.inner.q.val();
        self.decoded.d.next = self.inner_control.q.val();
        self.low.next = self.inner_bounds.val().low;
        self.high.next = self.inner_bounds.val().high;
        self.ofm_low.next = self.inner_bounds.val().ofm_low;
        self.ofm_high.next = self.inner_bounds.val().ofm_high;
        self.clip_low.next = self.inner_bounds.val().clip_low;
        self.clip_high.next = self.inner_bounds.val().clip_high;
        // A LUT's index: clipped to the clip range again (`OutStage::finish`).
        self.index_low.next = self.low.val();
        if (self.index_low.val() ^ self.sign_35.val()) < (self.clip_low.val() ^ self.sign_35.val())
        {
            self.index_low.next = self.clip_low.val();
        }
        if (self.index_low.val() ^ self.sign_35.val()) > (self.clip_high.val() ^ self.sign_35.val())
        {
            self.index_low.next = self.clip_high.val();
        }
        self.index_high.next = self.high.val();
        if (self.index_high.val() ^ self.sign_35.val()) < (self.clip_low.val() ^ self.sign_35.val())
        {
            self.index_high.next = self.clip_low.val();
        }
        if (self.index_high.val() ^ self.sign_35.val())
            > (self.clip_high.val() ^ self.sign_35.val())
        {
            self.index_high.next = self.clip_high.val();
        }
        self.decoded.d.next.index_low = self.index_low.val().get_bits::<17>(0);
        self.decoded.d.next.index_high = self.index_high.val().get_bits::<17>(0);
        // The OFM type's saturation.
        if (self.low.val() ^ self.sign_35.val()) < (self.ofm_low.val() ^ self.sign_35.val()) {
            self.low.next = self.ofm_low.val();
        }
        if (self.low.val() ^ self.sign_35.val()) > (self.ofm_high.val() ^ self.sign_35.val()) {
            self.low.next = self.ofm_high.val();
        }
        if (self.high.val() ^ self.sign_35.val()) < (self.ofm_low.val() ^ self.sign_35.val()) {
            self.high.next = self.ofm_low.val();
        }
        if (self.high.val() ^ self.sign_35.val()) > (self.ofm_high.val() ^ self.sign_35.val()) {
            self.high.next = self.ofm_high.val();
        }
        self.decoded.d.next.low = self.low.val();
        self.decoded.d.next.high = self.high.val();
        // A LUT's entry is only saturated to the OFM type.
        if self.inner_control.q.val().lookup {
            self.decoded.d.next.low = self.ofm_low.val();
            self.decoded.d.next.high = self.ofm_high.val();
        }
    }
}
