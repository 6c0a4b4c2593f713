//! The output unit (TRM 3.3.7): finished accumulators, or an elementwise
//! operation's operand pairs, in; OFM values out, [`LANES`] channels of one
//! OFM position per cycle, bit for bit as the golden model's
//! `scale_accumulator` then `OutStage::finish` (or, elementwise,
//! `ElementwiseArithmetic::apply` then `finish`): bias and wrap, scale with the
//! rounding mode, activation function ([`Activation`]), zero point, clip range,
//! ACTIVATION_MIN/MAX and saturation to the OFM type.
//!
//! Ports:
//! - `settings` ([`OutputSettings`]): a beat taken carries its operation's
//!   control on, so operations follow beat to beat; a change holds the input
//!   [`SETTLE_CYCLES`] cycles while [`ControlDecoder`] decodes it.
//! - `accumulators` ([`AccumulatorBeat`]s): `ready` depends on `results.ready`
//!   within the cycle, never on its `valid`.
//! - `results` ([`ResultBeat`]s): one per beat taken, in order, [`LATENCY`]
//!   cycles later unstalled ([`WIDE_LATENCY`] more on the wide path).
//! - `lut_write` ([`crate::shram::LutWrite`]): the shared buffer's writes to a
//!   core's last 2 KB, mirrored for the LUT.
//!
//! One beat a cycle; an activation function takes one lane a cycle. The steps
//! and the throughput in full: `docs/output-unit.md`.

mod activation;
mod divide;
mod elementwise;
mod finish;
mod lane_result;
mod lut_ram;
mod ofm_writer;
mod scale;
mod scale_records;
mod scale_sets;
mod settings;
mod sigmoid_table;
mod wide;

pub use activation::Activation;
pub use divide::{reciprocal, Reciprocals, NUMERATOR_LIMIT};
pub use elementwise::{Elementwise, ElementwiseFinish, FinishMode};
pub use finish::Finisher;
pub use lut_ram::LutRam;
pub use ofm_writer::{OfmResult, OfmWriter};
pub use scale::Scaler;
pub use scale_records::{ScaleRecordBeat, ScaleRecords};
pub use scale_sets::{ScaleSet, ScaleSets};
pub use settings::{BeatControl, ClampBounds, ControlDecoder, OutputSettings, SETTLE_CYCLES};
pub use sigmoid_table::SigmoidTable;
pub use wide::{WideLane, WideOperation, WidePath, WideTag, WIDE_LANES, WIDE_LATENCY};

use crate::shram::LutWrite;
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// Channels per beat: one OFM position times 8 OFM channels (TRM 4.8.3's
/// microblock depth).
pub const LANES: usize = 8;
/// Pipeline stages from a beat taken to its result offered.
pub const LATENCY: usize = 6;

/// One OFM position's accumulators for up to [`LANES`] channels, with each
/// channel's scale record (`npu_model::ops::ScaleRecord`). Lane i is in
/// bits 40i+39..40i of `values` and `biases`, 32i+31..32i of `scales`,
/// 6i+5..6i of `shifts`; bit i of `lanes` says it holds a channel.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct AccumulatorBeat {
    /// Accumulators, 40-bit two's complement (a 32-bit accumulator
    /// sign-extended, or not: only its low 32 bits count then).
    pub values: Bits<{ LANES * 40 }>,
    /// Biases, 40-bit two's complement.
    pub biases: Bits<{ LANES * 40 }>,
    /// Scales, unsigned.
    pub scales: Bits<{ LANES * 32 }>,
    /// Right shifts, 0-63.
    pub shifts: Bits<{ LANES * 6 }>,
    pub lanes: Bits<LANES>,
    /// The core whose pass the beat is (parallel mode; its LUT is used).
    pub core: Bit,
    /// The IFM elements of the position's kernel window, 1..=64: the
    /// divisor of a padded average pool (`OutputSettings::divide`).
    pub count: Bits<7>,
    /// An elementwise operation's operand B of lane i (IFM2 or the
    /// scalar, zero point subtracted) in bits 32i+31..32i; operand A, an
    /// int32, is bits 40i+31..40i of `values` (the lane's upper 8 bits are
    /// not read). Scale records and `count` are 0 then.
    pub second: Bits<{ LANES * 32 }>,
}

/// The OFM values of an [`AccumulatorBeat`]: lane i in bits 32i+31..32i,
/// two's complement in the OFM type's range (an 8- or 16-bit value
/// sign- or zero-extended), 0 for a lane off in `lanes`.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ResultBeat {
    pub values: Bits<{ LANES * 32 }>,
    pub lanes: Bits<LANES>,
}

/// A beat in the operand stage, the first: its Scaler inputs, or an
/// elementwise beat part-way ([`Elementwise`], finished by
/// [`ElementwiseFinish`] on its way to the Scaler), and its control.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OperandStage {
    /// Lane i in bits 40i+39..40i: the Scaler's input, or an elementwise
    /// lane's first value.
    pub values: Bits<{ LANES * 40 }>,
    /// Lane i's bias, or an elementwise lane's second value.
    pub biases: Bits<{ LANES * 40 }>,
    pub scales: Bits<{ LANES * 32 }>,
    pub shifts: Bits<{ LANES * 6 }>,
    /// Elementwise: each lane's SHR amount and its values' signs.
    pub amounts: Bits<{ LANES * 6 }>,
    pub signs: Bits<{ LANES * 2 }>,
    pub elementwise: Bit,
    pub finish: FinishMode,
    pub acc_int32: Bit,
    pub control: BeatControl,
}

#[derive(LogicBlock)]
pub struct OutputUnit {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The operation of the beat offered on `accumulators`.
    pub settings: Signal<In, OutputSettings>,
    /// Accumulators and scale records from the accumulator buffer.
    pub accumulators: StreamIn<AccumulatorBeat>,
    /// OFM values toward the output buffer.
    pub results: StreamOut<ResultBeat>,
    /// Writes to the LUT areas of the shared buffer.
    pub lut_write: Signal<In, LutWrite>,
    decoder: ControlDecoder,
    reciprocals: Reciprocals,
    elementwise: Elementwise,
    elementwise_finish: ElementwiseFinish,
    wide_path: WidePath,
    scaler: Scaler,
    activation: Activation,
    finisher: Finisher,
    /// A beat in stage 0..3 and 5 (the activation stage knows its own).
    full_0: ResetReg<Bit>,
    operands: ResetReg<OperandStage>,
    full_1: ResetReg<Bit>,
    full_2: ResetReg<Bit>,
    full_3: ResetReg<Bit>,
    full_5: ResetReg<Bit>,
    /// Stage k takes a beat this cycle (it is empty or its beat moves on).
    take_0: Signal<Local, Bit>,
    take_1: Signal<Local, Bit>,
    take_2: Signal<Local, Bit>,
    take_3: Signal<Local, Bit>,
    take_5: Signal<Local, Bit>,
    biases: Signal<Local, Bits<{ LANES * 40 }>>,
    scales: Signal<Local, Bits<{ LANES * 32 }>>,
    shifts: Signal<Local, Bits<{ LANES * 6 }>>,
    raw_values: Signal<Local, Bits<{ LANES * 40 }>>,
    values: Signal<Local, Bits<{ LANES * 40 }>>,
    lane_value: Signal<Local, Bits<40>>,
    divisor: Signal<Local, Bits<40>>,
    negated: Signal<Local, Bits<40>>,
    doubled: Signal<Local, Bits<40>>,
    unit_scales: Signal<Local, Bits<{ LANES * 32 }>>,
    wide: Signal<Local, Bit>,
    /// Stage 1 takes the wide path's finished beat.
    wide_finished: Signal<Local, Bit>,
    /// Stage 0 takes the beat offered on `accumulators`; stage 1 takes
    /// stage 0's.
    take_offered: Signal<Local, Bit>,
    operands_move: Signal<Local, Bit>,
    /// The control of the beat offered.
    beat_control: Signal<Local, BeatControl>,
    /// Stage 1's beat: the Scaler's inputs.
    scaler_values: Signal<Local, Bits<{ LANES * 40 }>>,
}

impl OutputUnit {
    /// The output unit of an NPU with `cores` cores (a LUT area each).
    pub fn new(cores: usize) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            settings: Default::default(),
            accumulators: Default::default(),
            results: Default::default(),
            lut_write: Default::default(),
            decoder: Default::default(),
            elementwise: Default::default(),
            elementwise_finish: Default::default(),
            wide_path: Default::default(),
            scaler: Default::default(),
            activation: Activation::new(cores),
            finisher: Default::default(),
            full_0: Default::default(),
            operands: Default::default(),
            full_1: Default::default(),
            full_2: Default::default(),
            full_3: Default::default(),
            full_5: Default::default(),
            take_0: Default::default(),
            take_1: Default::default(),
            take_2: Default::default(),
            take_3: Default::default(),
            take_5: Default::default(),
            biases: Default::default(),
            scales: Default::default(),
            shifts: Default::default(),
            reciprocals: Default::default(),
            raw_values: Default::default(),
            values: Default::default(),
            lane_value: Default::default(),
            divisor: Default::default(),
            negated: Default::default(),
            doubled: Default::default(),
            unit_scales: Default::default(),
            wide: Default::default(),
            wide_finished: Default::default(),
            take_offered: Default::default(),
            operands_move: Default::default(),
            beat_control: Default::default(),
            scaler_values: Default::default(),
        }
    }
}

impl Logic for OutputUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, full_0, operands, full_1, full_2, full_3, full_5);
        self.full_0.rst_n.next = self.rst_n.val();
        self.operands.rst_n.next = self.rst_n.val();
        self.full_1.rst_n.next = self.rst_n.val();
        self.full_2.rst_n.next = self.rst_n.val();
        self.full_3.rst_n.next = self.rst_n.val();
        self.full_5.rst_n.next = self.rst_n.val();
        self.scaler.clock.next = self.clock.val();
        self.scaler.rst_n.next = self.rst_n.val();
        self.activation.clock.next = self.clock.val();
        self.activation.rst_n.next = self.rst_n.val();
        self.finisher.clock.next = self.clock.val();
        self.finisher.rst_n.next = self.rst_n.val();

        // The operation's control (decoded in two stages: a beat is taken
        // once its settings have settled), with the beat's lanes and core.
        self.decoder.clock.next = self.clock.val();
        self.decoder.rst_n.next = self.rst_n.val();
        self.decoder.settings.next = self.settings.val();
        self.beat_control.next = self.decoder.control.val();
        self.beat_control.next.lanes = self.accumulators.data.val().lanes;
        self.beat_control.next.core = self.accumulators.data.val().core;

        self.raw_values.next = self.accumulators.data.val().values;
        // The wide path: its beats go in WIDE_LANES lanes a cycle and come
        // out whole, each lane with its output scale done (scale 1 and
        // shift 0 in the Scaler).
        self.wide.next = self.elementwise.wide.val();
        self.wide_path.clock.next = self.clock.val();
        self.wide_path.rst_n.next = self.rst_n.val();
        self.wide_path.settings.next = self.settings.val();
        self.wide_path.offered.next =
            self.accumulators.valid.val() & self.wide.val() & self.decoder.settled.val();
        self.wide_path.first.next = self.raw_values.val();
        self.wide_path.second.next = self.accumulators.data.val().second;
        self.wide_path.lanes.next = self.accumulators.data.val().lanes;
        self.wide_path.control.next = self.beat_control.val();

        // Handshake: each stage moves when the next can take its beat; the
        // activation stage's beat moves when it says `done`.
        self.take_5.next = !self.full_5.q.val() | self.results.ready.val();
        self.activation.next_ready.next = self.take_5.val();
        self.take_3.next = !self.full_3.q.val() | self.activation.done.val();
        self.take_2.next = !self.full_2.q.val() | self.take_3.val();
        self.take_1.next = !self.full_1.q.val() | self.take_2.val();
        // Stage 1 takes stage 0's beat, else the wide path's finished one;
        // a beat goes into stage 0 only behind every wide one, and a wide
        // beat into the wide path behind stage 0's (beats stay in order). A
        // wide beat is taken when its last lanes go into the wide path.
        self.operands_move.next = self.take_1.val() & self.full_0.q.val();
        self.wide_finished.next =
            self.take_1.val() & !self.full_0.q.val() & self.wide_path.valid.val();
        self.wide_path.ready.next = self.take_1.val() & !self.full_0.q.val();
        self.take_0.next = !self.full_0.q.val() | self.take_1.val();
        self.take_offered.next = self.take_0.val()
            & self.accumulators.valid.val()
            & !self.wide.val()
            & self.wide_path.empty.val()
            & self.decoder.settled.val();
        self.accumulators.ready.next = (self.take_0.val()
            & !self.wide.val()
            & self.wide_path.empty.val()
            & self.decoder.settled.val())
            | (self.wide.val() & self.wide_path.accepts_last.val() & self.decoder.settled.val());
        if self.take_0.val() {
            self.full_0.d.next = self.take_offered.val();
        }
        if self.take_1.val() {
            self.full_1.d.next = self.full_0.q.val() | self.wide_path.valid.val();
        }
        if self.take_2.val() {
            self.full_2.d.next = self.full_1.q.val();
        }
        if self.take_3.val() {
            self.full_3.d.next = self.full_2.q.val();
        }
        if self.take_5.val() {
            self.full_5.d.next = self.activation.valid.val();
        }
        self.results.valid.next = self.full_5.q.val();

        // The beat's scale records, or the global scale and no bias.
        self.biases.next = self.accumulators.data.val().biases;
        self.scales.next = self.accumulators.data.val().scales;
        self.shifts.next = self.accumulators.data.val().shifts;
        if self.settings.val().global_scale {
            self.biases.next = 0.into();
            self.scales.next = 0.into();
            self.shifts.next = 0.into();
            for i in 0..LANES {
                self.scales.next = self.scales.val()
                    | (bit_cast::<{ LANES * 32 }, 32>(self.settings.val().scale)
                        << (i * 32).to_bits::<8>());
                self.shifts.next = self.shifts.val()
                    | (bit_cast::<{ LANES * 6 }, 6>(self.settings.val().shift)
                        << (i * 6).to_bits::<6>());
            }
        }
        // No scaling (max and padded average pools): scale 1, shift 0, no
        // bias. A padded average pool divides (see `divide`): twice the
        // accumulator plus +-count (the sign of the accumulator), times the
        // count's reciprocal, truncated.
        self.values.next = self.raw_values.val();
        self.reciprocals.count.next = self.accumulators.data.val().count;
        // (Each lane's value is made in a 40-bit local: Verilog would widen
        // a shift or a negation inside the packing to the whole word.)
        self.divisor.next = bit_cast::<40, 7>(self.accumulators.data.val().count);
        self.negated.next = bits::<40>(0) - self.divisor.val();
        self.lane_value.next = 0.into();
        self.doubled.next = 0.into();
        self.unit_scales.next = 0.into();
        for i in 0..LANES {
            self.unit_scales.next =
                self.unit_scales.val() | (bits::<{ LANES * 32 }>(1) << (i * 32).to_bits::<8>());
        }
        if self.settings.val().unscaled {
            self.biases.next = 0.into();
            self.scales.next = self.unit_scales.val();
            self.shifts.next = 0.into();
        }
        if self.settings.val().divide {
            self.values.next = 0.into();
            self.scales.next = 0.into();
            for i in 0..LANES {
                self.lane_value.next = self.raw_values.val().get_bits::<40>(i * 40);
                self.doubled.next = self.lane_value.val() << 1;
                self.values.next = self.values.val()
                    | (bit_cast::<{ LANES * 40 }, 40>(self.doubled.val())
                        << (i * 40).to_bits::<9>());
                if self.lane_value.val().get_bit(39) {
                    self.biases.next = self.biases.val()
                        | (bit_cast::<{ LANES * 40 }, 40>(self.negated.val())
                            << (i * 40).to_bits::<9>());
                } else {
                    self.biases.next = self.biases.val()
                        | (bit_cast::<{ LANES * 40 }, 40>(self.divisor.val())
                            << (i * 40).to_bits::<9>());
                }
                self.scales.next = self.scales.val()
                    | (bit_cast::<{ LANES * 32 }, 32>(self.reciprocals.scale.val())
                        << (i * 32).to_bits::<8>());
                self.shifts.next = self.shifts.val()
                    | (bit_cast::<{ LANES * 6 }, 6>(self.reciprocals.shift.val())
                        << (i * 6).to_bits::<6>());
            }
        }
        // An elementwise operation's values, scales and shifts from its
        // operands.
        self.elementwise.settings.next = self.settings.val();
        self.elementwise.first.next = self.raw_values.val();
        self.elementwise.second.next = self.accumulators.data.val().second;
        if self.settings.val().elementwise {
            self.values.next = self.elementwise.values.val();
            self.biases.next = self.elementwise.seconds.val();
            self.scales.next = self.elementwise.scales.val();
            self.shifts.next = self.elementwise.shifts.val();
        }
        // A scaled pool or an elementwise operation with a 32-bit OFM
        // shifts only: scale 1.
        if self.settings.val().shift_only {
            self.scales.next = self.unit_scales.val();
        }

        // Stage 0, the operand stage: the beat's Scaler inputs and control,
        // an elementwise beat's values part-way.
        if self.take_offered.val() {
            self.operands.d.next.values = self.values.val();
            self.operands.d.next.biases = self.biases.val();
            self.operands.d.next.scales = self.scales.val();
            self.operands.d.next.shifts = self.shifts.val();
            self.operands.d.next.amounts = self.elementwise.amounts.val();
            self.operands.d.next.signs = self.elementwise.signs.val();
            self.operands.d.next.elementwise = self.settings.val().elementwise;
            self.operands.d.next.finish = self.elementwise.finish.val();
            // Elementwise values are 40-bit whatever NPU_SET_ACC_FORMAT says.
            self.operands.d.next.acc_int32 =
                self.decoder.acc_int32.val() & !self.settings.val().elementwise;
            self.operands.d.next.control = self.beat_control.val();
        }

        // Into stage 1: stage 0's beat (an elementwise one finished, with no
        // bias), or the wide path's (scale 1, shift 0, no bias).
        self.elementwise_finish.finish.next = self.operands.q.val().finish;
        self.elementwise_finish.firsts.next = self.operands.q.val().values;
        self.elementwise_finish.seconds.next = self.operands.q.val().biases;
        self.elementwise_finish.signs.next = self.operands.q.val().signs;
        self.elementwise_finish.amounts.next = self.operands.q.val().amounts;
        self.scaler_values.next = self.operands.q.val().values;
        self.scaler.biases.next = self.operands.q.val().biases;
        if self.operands.q.val().elementwise {
            self.scaler_values.next = self.elementwise_finish.values.val();
            self.scaler.biases.next = 0.into();
        }
        self.scaler.scales.next = self.operands.q.val().scales;
        self.scaler.shifts.next = self.operands.q.val().shifts;
        self.scaler.acc_int32.next = self.operands.q.val().acc_int32;
        self.scaler.control.next = self.operands.q.val().control;
        if !self.full_0.q.val() {
            self.scaler_values.next = self.wide_path.values.val();
            self.scaler.biases.next = 0.into();
            self.scaler.scales.next = self.unit_scales.val();
            self.scaler.shifts.next = 0.into();
            self.scaler.acc_int32.next = false;
            self.scaler.control.next = self.wide_path.values_control.val();
        }
        self.scaler.accumulators.next = self.scaler_values.val();
        self.scaler.load_1.next = self.operands_move.val() | self.wide_finished.val();
        self.scaler.load_2.next = self.take_2.val() & self.full_1.q.val();
        self.scaler.load_3.next = self.take_3.val() & self.full_2.q.val();

        self.activation.scaled.next = self.scaler.scaled.val();
        self.activation.control.next = self.scaler.scaled_control.val();
        self.activation.full.next = self.full_3.q.val();
        self.activation.lut_write.next = self.lut_write.val();

        self.finisher.scaled.next = self.activation.values.val();
        self.finisher.control.next = self.activation.values_control.val();
        self.finisher.load.next = self.take_5.val() & self.activation.valid.val();
        self.results.data.next.values = self.finisher.results.val();
        self.results.data.next.lanes = self.finisher.lanes.val();
    }
}
