//! The output stage: the traversal's readout words through the output units
//! to the OFM writer (TRM 3.3.6, 3.3.7). Each word is read from core 0's MAC
//! unit, and at the same address from core 1's where it has paired channels;
//! it waits with its window taps until its accumulators and, per-channel, each
//! core's scale set are there; then each OFM position it holds is one beat to
//! the output units, both at once when paired (core 1's results the odd
//! channels of the same OFM write). Elementwise operations give the operand
//! reader's groups to core 0's unit, or half to each in parallel mode.
//!
//! Ports: `words` and `cores` ([`CoreOutputPort`]); `operands`; the current
//! operation's `shape`, `settings`, `per_channel`, `parallel`, `elementwise`,
//! `paired_elementwise`; `lut_write`; `results` (one OFM position's, both
//! cores' when `spread`); `busy`; `ao_active` (the PMU's AO event).

use super::core::CoreOutputPort;
use super::operand_reader::UnitOperands;
use crate::datapath::{OperandPair, Readout, TraversalShape, WindowTaps};

use super::window::{WindowCount, WordWindows};
use crate::mac_unit::AccRead;
use crate::output_unit::{AccumulatorBeat, OfmResult, OutputSettings, OutputUnit, ResultBeat};
use crate::shram::LutWrite;
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::{per_core, Fifo, ResetReg};
use rust_hdl::prelude::*;

/// A readout word and its positions' window taps, counted as it is queued.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ReadoutTag {
    pub word: Readout,
    pub windows: WindowTaps,
}

/// An output-unit beat's OFM position and channels.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OfmPosition {
    pub y: Bits<16>,
    pub x: Bits<16>,
    pub c: Bits<16>,
    /// Core 1's output unit has results of the position too.
    pub paired: Bit,
    /// The OFM block's last position.
    pub block_end: Bit,
}

#[derive(LogicBlock)]
pub struct OutputStage {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub words: StreamIn<Readout>,
    pub cores: Vec<CoreOutputPort>,
    pub operands: StreamIn<OperandPair>,
    pub shape: Signal<In, TraversalShape>,
    pub settings: Signal<In, OutputSettings>,
    pub per_channel: Signal<In, Bit>,
    pub parallel: Signal<In, Bit>,
    pub elementwise: Signal<In, Bit>,
    /// Elementwise in parallel mode on two cores: each output unit takes
    /// half of each operand group.
    pub paired_elementwise: Signal<In, Bit>,
    pub lut_write: Signal<In, LutWrite>,
    pub results: StreamOut<OfmResult>,
    pub busy: Signal<Out, Bit>,
    pub ao_active: Signal<Out, Bit>,

    word_windows: WordWindows,
    readout_tags: Fifo<ReadoutTag, 2, 3>,
    window: WindowCount,
    /// Each core's output-unit beat of an elementwise operand group.
    unit_operands: Vec<UnitOperands>,
    /// Each core's output unit, in lockstep (elementwise operations: core
    /// 0's, or both in parallel mode).
    output_units: Vec<OutputUnit>,
    output_tags: Fifo<OfmPosition, 3, 4>,
    /// The current readout word's next position.
    position: ResetReg<Bits<2>>,
    /// Bit k: output unit k has taken the current elementwise beat.
    units_taken: ResetReg<Bits<2>>,

    acc_read: Signal<Local, AccRead>,
    readout_ready: Signal<Local, Bit>,
    word: Signal<Local, Readout>,
    /// Core 1's word beside core 0's (parallel mode): at the output units,
    /// at the OFM writer.
    word_paired: Signal<Local, Bit>,
    result_paired: Signal<Local, Bit>,
    paired_ready: Signal<Local, Bit>,
    results_valid: Signal<Local, Bit>,
    group_ready: Signal<Local, Bit>,
    positions_left: Signal<Local, Bits<4>>,
    positions_after: Signal<Local, Bits<4>>,
    position_present: Signal<Local, Bit>,
    last_position: Signal<Local, Bit>,
    /// Core 0's output unit's beat (or an elementwise one).
    unit_beat: Signal<Local, AccumulatorBeat>,
    unit_valid: Signal<Local, Bit>,
    units_ready: Signal<Local, Bit>,
    paired_units_ready: Signal<Local, Bit>,
    stage_fire: Signal<Local, Bit>,
    word_done: Signal<Local, Bit>,
    /// Bit k: output unit k takes the elementwise beat this cycle.
    units_firing: Signal<Local, Bits<2>>,
    /// Bit k: output unit k has taken or takes the beat.
    units_having: Signal<Local, Bits<2>>,
    units_done: Signal<Local, Bit>,
    elementwise_fire: Signal<Local, Bit>,
    /// The readout word's first OFM channel.
    word_channel: Signal<Local, Bits<16>>,
    paired_result: Signal<Local, ResultBeat>,
    paired_results_ready: Signal<Local, Bit>,
    result_fire: Signal<Local, Bit>,
}

impl OutputStage {
    /// The output stage of `cores` cores (1 or 2).
    pub fn new(cores: usize) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            words: Default::default(),
            cores: per_core(cores),
            operands: Default::default(),
            shape: Default::default(),
            settings: Default::default(),
            per_channel: Default::default(),
            parallel: Default::default(),
            elementwise: Default::default(),
            paired_elementwise: Default::default(),
            lut_write: Default::default(),
            results: Default::default(),
            busy: Default::default(),
            ao_active: Default::default(),
            word_windows: Default::default(),
            readout_tags: Default::default(),
            window: Default::default(),
            unit_operands: (0..cores).map(UnitOperands::new).collect(),
            output_units: (0..cores).map(|_| OutputUnit::new(cores)).collect(),
            output_tags: Default::default(),
            position: Default::default(),
            units_taken: Default::default(),
            acc_read: Default::default(),
            readout_ready: Default::default(),
            word: Default::default(),
            word_paired: Default::default(),
            result_paired: Default::default(),
            paired_ready: Default::default(),
            results_valid: Default::default(),
            group_ready: Default::default(),
            positions_left: Default::default(),
            positions_after: Default::default(),
            position_present: Default::default(),
            last_position: Default::default(),
            unit_beat: Default::default(),
            unit_valid: Default::default(),
            units_ready: Default::default(),
            paired_units_ready: Default::default(),
            stage_fire: Default::default(),
            word_done: Default::default(),
            units_firing: Default::default(),
            units_having: Default::default(),
            units_done: Default::default(),
            elementwise_fire: Default::default(),
            word_channel: Default::default(),
            paired_result: Default::default(),
            paired_results_ready: Default::default(),
            result_fire: Default::default(),
        }
    }
}

impl Logic for OutputStage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, position, units_taken);
        self.position.rst_n.next = self.rst_n.val();
        self.units_taken.rst_n.next = self.rst_n.val();
        clock!(self, clock, readout_tags, output_tags);
        self.readout_tags.rst_n.next = self.rst_n.val();
        self.output_tags.rst_n.next = self.rst_n.val();
        for k in 0..self.output_units.len() {
            self.output_units[k].clock.next = self.clock.val();
            self.output_units[k].rst_n.next = self.rst_n.val();
        }

        // ---- Each core's accumulator word, read at one address ----
        self.acc_read.next.address = self.words.data.val().acc_address;
        // Both words are read at once: each core's request waits for the
        // other's readiness (a MAC unit's readout `ready` does not depend on
        // its `valid`).
        self.readout_ready.next = self.cores[0].readout.ready.val();
        for k in 1..self.cores.len() {
            if (self.words.data.val().paired_channels != 0) & !self.cores[k].readout.ready.val() {
                self.readout_ready.next = false;
            }
        }
        self.cores[0].readout.valid.next =
            self.words.valid.val() & self.readout_tags.tail.ready.val() & self.readout_ready.val();
        self.cores[0].readout.data.next = self.acc_read.val();
        for k in 1..self.cores.len() {
            self.cores[k].readout.valid.next = self.words.valid.val()
                & self.readout_tags.tail.ready.val()
                & self.readout_ready.val()
                & (self.words.data.val().paired_channels != 0);
            self.cores[k].readout.data.next = self.acc_read.val();
        }
        self.words.ready.next = self.readout_ready.val() & self.readout_tags.tail.ready.val();
        self.readout_tags.tail.valid.next = self.words.valid.val() & self.readout_ready.val();
        self.readout_tags.tail.data.next.word = self.words.data.val();
        self.word_windows.oy.next = self.words.data.val().oy;
        self.word_windows.ox.next = self.words.data.val().ox;
        self.word_windows.shape.next = self.shape.val();
        self.readout_tags.tail.data.next.windows = self.word_windows.taps.val();

        // The words' accumulators, and the records of their slice
        // (per-channel scaling) gathered ahead by each core's scale sets.
        self.word.next = self.readout_tags.head.data.val().word;
        self.word_paired.next =
            self.readout_tags.head.valid.val() & (self.word.val().paired_channels != 0);
        self.paired_ready.next = true;
        for k in 1..self.cores.len() {
            if self.word_paired.val()
                & (!self.cores[k].results_valid.val()
                    | (self.per_channel.val() & !self.cores[k].sets_valid.val()))
            {
                self.paired_ready.next = false;
            }
        }
        self.results_valid.next = self.cores[0].results_valid.val() & self.paired_ready.val();
        self.group_ready.next = !self.per_channel.val() | self.cores[0].sets_valid.val();

        // ---- One output-unit beat per position of the word that is in
        // the block, to both cores' output units at once ----
        self.positions_left.next =
            self.word.val().positions >> bit_cast::<4, 2>(self.position.q.val());
        self.positions_after.next = self.positions_left.val() >> 1;
        self.position_present.next = self.positions_left.val().get_bit(0);
        self.last_position.next = self.positions_after.val() == 0;
        // Each core's beat of the position (its accumulators, records and LUT).
        self.window.taps.next = self.readout_tags.head.data.val().windows;
        self.window.position.next = self.position.q.val();
        self.window.one_row.next = self.shape.val().one_row;
        self.cores[0].channels.next = self.word.val().channels;
        for k in 0..self.cores.len() {
            self.cores[k].position.next = self.position.q.val();
            self.cores[k].count.next = self.window.count.val();
        }
        for k in 1..self.cores.len() {
            self.cores[k].channels.next = self.word.val().paired_channels;
        }
        // Core 1's output unit (when the words are paired) takes the beat
        // with core 0's. An output unit's `ready` may depend on its `valid`
        // (a wide elementwise beat's steps), so core 0's `valid` waits only
        // for the other unit.
        self.paired_units_ready.next = true;
        for k in 1..self.output_units.len() {
            if self.word_paired.val() & !self.output_units[k].accumulators.ready.val() {
                self.paired_units_ready.next = false;
            }
        }
        self.units_ready.next =
            self.output_units[0].accumulators.ready.val() & self.paired_units_ready.val();
        // Each signal below is assigned before anything reads it, so the
        // block has no read-before-write loop and Verilator can split it:
        // a block left whole is evaluated on every cycle of the ungated
        // clock domains it reads, the datapath's clock gated or not.
        self.unit_valid.next = self.results_valid.val()
            & self.readout_tags.head.valid.val()
            & self.group_ready.val()
            & self.position_present.val()
            & self.output_tags.tail.ready.val();
        self.unit_beat.next = self.cores[0].beat.val();
        // Elementwise: the operand reader's groups instead, to core 0's
        // output unit, or halved between both (`UnitOperands`). Each unit
        // takes the beat when it is ready (a wide beat takes several
        // cycles); the group goes when every unit has it.
        for k in 0..self.unit_operands.len() {
            self.unit_operands[k].group.next = self.operands.data.val();
            self.unit_operands[k].paired.next = self.paired_elementwise.val();
        }
        if self.elementwise.val() {
            self.unit_valid.next = self.operands.valid.val() & self.output_tags.tail.ready.val();
            self.unit_beat.next = self.unit_operands[0].beat.val();
        }
        self.stage_fire.next = self.results_valid.val()
            & self.readout_tags.head.valid.val()
            & self.group_ready.val()
            & (!self.position_present.val()
                | (self.units_ready.val() & self.output_tags.tail.ready.val()));
        self.output_units[0].accumulators.valid.next =
            self.unit_valid.val() & self.paired_units_ready.val();
        if self.elementwise.val() {
            self.output_units[0].accumulators.valid.next =
                self.unit_valid.val() & !self.units_taken.q.val().get_bit(0);
        }
        self.output_units[0].accumulators.data.next = self.unit_beat.val();
        for k in 0..self.output_units.len() {
            self.output_units[k].settings.next = self.settings.val();
            self.output_units[k].lut_write.next = self.lut_write.val();
        }
        for k in 1..self.output_units.len() {
            self.output_units[k].accumulators.valid.next = self.unit_valid.val()
                & self.units_ready.val()
                & self.word_paired.val()
                & !self.elementwise.val();
            self.output_units[k].accumulators.data.next = self.cores[k].beat.val();
            if self.elementwise.val() {
                self.output_units[k].accumulators.valid.next = self.unit_valid.val()
                    & self.paired_elementwise.val()
                    & !self.units_taken.q.val().get_bit(1);
                self.output_units[k].accumulators.data.next = self.unit_operands[k].beat.val();
            }
        }
        self.units_firing.next = 0.into();
        if self.output_units[0].accumulators.valid.val()
            & self.output_units[0].accumulators.ready.val()
        {
            self.units_firing.next = 1.into();
        }
        for k in 1..self.output_units.len() {
            if self.output_units[k].accumulators.valid.val()
                & self.output_units[k].accumulators.ready.val()
            {
                self.units_firing.next = self.units_firing.val() | 2;
            }
        }
        self.units_having.next = self.units_taken.q.val() | self.units_firing.val();
        self.units_done.next = self.units_having.val().get_bit(0)
            & (self.units_having.val().get_bit(1) | !self.paired_elementwise.val());
        self.operands.ready.next =
            self.elementwise.val() & self.output_tags.tail.ready.val() & self.units_done.val();
        self.elementwise_fire.next = self.operands.valid.val() & self.operands.ready.val();
        if self.elementwise.val() {
            self.units_taken.d.next = self.units_taken.q.val() | self.units_firing.val();
        }
        if self.elementwise_fire.val() {
            self.units_taken.d.next = 0.into();
        }
        self.output_tags.tail.valid.next =
            self.unit_valid.val() & self.units_ready.val() & !self.elementwise.val();
        // Position p of a 2x2 microblock is (oy + p / 2, ox + p % 2), of a
        // 1x4 one (a one-row OFM) (oy, ox + p).
        self.output_tags.tail.data.next.y =
            self.word.val().oy + bit_cast::<16, 2>(self.position.q.val() >> 1);
        self.output_tags.tail.data.next.x =
            self.word.val().ox + bit_cast::<16, 2>(self.position.q.val() & 1);
        if self.shape.val().one_row {
            self.output_tags.tail.data.next.y = self.word.val().oy;
            self.output_tags.tail.data.next.x =
                self.word.val().ox + bit_cast::<16, 2>(self.position.q.val());
        }
        // Parallel mode: local channel oz of core k is OFM channel 2oz + k.
        self.word_channel.next = self.word.val().oz;
        if self.parallel.val() {
            self.word_channel.next = self.word.val().oz << 1;
        }
        self.output_tags.tail.data.next.c = self.word_channel.val();
        self.output_tags.tail.data.next.paired = self.word_paired.val();
        self.output_tags.tail.data.next.block_end =
            self.word.val().block_end & self.last_position.val();
        if self.elementwise.val() {
            self.output_tags.tail.valid.next = self.elementwise_fire.val();
            self.output_tags.tail.data.next.y = self.operands.data.val().y;
            self.output_tags.tail.data.next.x = self.operands.data.val().x;
            self.output_tags.tail.data.next.c = self.operands.data.val().c;
            self.output_tags.tail.data.next.paired = self.paired_elementwise.val();
            self.output_tags.tail.data.next.block_end = self.operands.data.val().block_end;
        }
        self.word_done.next = self.stage_fire.val() & self.last_position.val();
        if self.stage_fire.val() {
            self.position.d.next = self.position.q.val() + 1;
        }
        if self.word_done.val() {
            self.position.d.next = 0.into();
        }
        self.cores[0].sets_taken.next =
            self.word_done.val() & self.word.val().group_end & self.per_channel.val();
        self.cores[0].results_taken.next = self.word_done.val();
        for k in 1..self.cores.len() {
            self.cores[k].sets_taken.next = self.word_done.val()
                & self.word.val().group_end
                & self.per_channel.val()
                & self.word_paired.val();
            self.cores[k].results_taken.next = self.word_done.val() & self.word_paired.val();
        }
        self.readout_tags.head.ready.next = self.word_done.val();

        // ---- Both cores' results of a position, to the OFM writer ----
        self.result_paired.next =
            self.output_tags.head.valid.val() & self.output_tags.head.data.val().paired;
        self.results.data.next.values = self.output_units[0].results.data.val().values;
        self.results.data.next.lanes = self.output_units[0].results.data.val().lanes;
        self.results.data.next.paired_values = 0.into();
        self.results.data.next.paired_lanes = 0.into();
        self.paired_results_ready.next = true;
        self.paired_result.next = self.output_units[0].results.data.val();
        for k in 1..self.output_units.len() {
            self.paired_result.next = self.output_units[k].results.data.val();
            if self.result_paired.val() & !self.output_units[k].results.valid.val() {
                self.paired_results_ready.next = false;
            }
        }
        if self.result_paired.val() {
            self.results.data.next.paired_values = self.paired_result.val().values;
            self.results.data.next.paired_lanes = self.paired_result.val().lanes;
        }
        self.results.valid.next = self.output_units[0].results.valid.val()
            & self.paired_results_ready.val()
            & self.output_tags.head.valid.val();
        self.results.data.next.y = self.output_tags.head.data.val().y;
        self.results.data.next.x = self.output_tags.head.data.val().x;
        self.results.data.next.c = self.output_tags.head.data.val().c;
        self.results.data.next.spread = self.parallel.val() | self.paired_elementwise.val();
        self.results.data.next.block_end = self.output_tags.head.data.val().block_end;
        self.result_fire.next = self.results.valid.val() & self.results.ready.val();
        self.output_units[0].results.ready.next = self.result_fire.val();
        for k in 1..self.output_units.len() {
            self.output_units[k].results.ready.next =
                self.result_fire.val() & self.result_paired.val();
        }
        self.output_tags.head.ready.next = self.result_fire.val();

        self.busy.next = (self.readout_tags.count.val() != 0) | (self.output_tags.count.val() != 0);
        self.ao_active.next = self.output_units[0].accumulators.valid.val()
            & self.output_units[0].accumulators.ready.val();
    }
}
