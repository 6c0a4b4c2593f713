//! The beat join: a MAC beat is the IFM unit's activations, the beat's tag
//! (`BeatIssue`) and the weight group of each core that takes it (TRM
//! 3.3.6: the MAC unit's operands).
//!
//! A beat goes when its activations and tag are there and every core it
//! names has its weight group (a pool's beats take none: unit weights), and
//! never after a fault (`halt`). The cores take it together (a MAC unit's
//! `ready` does not depend on its `valid`). A skip beat multiplies nothing
//! and only drops its weight group, except that a slice's last beat always
//! reaches the MAC units (with zero weights) for their `slice_done`.
//!
//! # Ports
//!
//! - `acts` and `tags`: the IFM unit's activations and the beats' tags, in
//!   step; `cores`: each core's side ([`CoreBeatsPort`]).
//! - `pool`, `depthwise`, `max_pool`, `wide`, `interleaved`, `halt`: the
//!   current operation's (`wide`: a 16-bit IFM, whose beats go low byte
//!   first).
//! - `slice_done`: a core finished a slice (paired cores finish together);
//!   `block_read`: the beat ending an IFM block is taken (its activations
//!   are out of the shared buffer); `mac_active`: a MAC unit takes a beat
//!   (the PMU's MAC event).

use super::core::CoreBeatsPort;
use crate::datapath::BeatTag;
use crate::mac_unit::{IfmActs, OperandBeat};
use crate::stream::StreamIn;
use crate::widgets::per_core;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BeatJoin {
    pub acts: StreamIn<IfmActs>,
    pub tags: StreamIn<BeatTag>,
    pub cores: Vec<CoreBeatsPort>,
    pub pool: Signal<In, Bit>,
    pub depthwise: Signal<In, Bit>,
    pub max_pool: Signal<In, Bit>,
    pub wide: Signal<In, Bit>,
    pub interleaved: Signal<In, Bit>,
    pub halt: Signal<In, Bit>,
    pub slice_done: Signal<Out, Bit>,
    pub block_read: Signal<Out, Bit>,
    pub mac_active: Signal<Out, Bit>,

    tag: Signal<Local, BeatTag>,
    head_cores: Signal<Local, Bits<2>>,
    head_stream_ends: Signal<Local, Bits<2>>,
    groups_ready: Signal<Local, Bit>,
    joined: Signal<Local, Bit>,
    to_mac: Signal<Local, Bit>,
    operand: Signal<Local, OperandBeat>,
    unit_lanes: Signal<Local, Bits<8>>,
    unit_weights: Signal<Local, Bits<576>>,
    cores_ready: Signal<Local, Bit>,
    join_fire: Signal<Local, Bit>,
}

impl BeatJoin {
    /// The beat join of `cores` cores (1 or 2).
    pub fn new(cores: usize) -> Self {
        Self {
            acts: Default::default(),
            tags: Default::default(),
            cores: per_core(cores),
            pool: Default::default(),
            depthwise: Default::default(),
            max_pool: Default::default(),
            wide: Default::default(),
            interleaved: Default::default(),
            halt: Default::default(),
            slice_done: Default::default(),
            block_read: Default::default(),
            mac_active: Default::default(),
            tag: Default::default(),
            head_cores: Default::default(),
            head_stream_ends: Default::default(),
            groups_ready: Default::default(),
            joined: Default::default(),
            to_mac: Default::default(),
            operand: Default::default(),
            unit_lanes: Default::default(),
            unit_weights: Default::default(),
            cores_ready: Default::default(),
            join_fire: Default::default(),
        }
    }
}

impl Logic for BeatJoin {
    #[hdl_gen]
    fn update(&mut self) {
        self.tag.next = self.tags.data.val();
        self.head_cores.next = self.tag.val().cores;
        self.head_stream_ends.next = self.tag.val().stream_ends;
        // A pool's beats take no weight group.
        self.groups_ready.next = true;
        for k in 0..self.cores.len() {
            if self.head_cores.val().get_bit(k)
                & !self.pool.val()
                & !self.cores[k].group_ready.val()
            {
                self.groups_ready.next = false;
            }
        }
        self.joined.next = self.acts.valid.val()
            & self.tags.valid.val()
            & self.groups_ready.val()
            & !self.halt.val();
        self.to_mac.next = !self.tag.val().skip | self.tag.val().slice_end;
        self.operand.next.acts = self.acts.data.val().acts;
        // Unit weights: weight (0, k) of a convolution-shaped beat, of
        // channel k of a depthwise one, both in bits 9k+8..9k.
        self.unit_lanes.next = self.tag.val().unit_lanes;
        self.unit_weights.next = 0.into();
        for k in 0..8_usize {
            if self.unit_lanes.val().get_bit(k) {
                self.unit_weights.next =
                    self.unit_weights.val() | (bits::<576>(1) << (9 * k).to_bits::<10>());
            }
        }
        // A pool's unit weights (a core multiplies its group instead,
        // `Core::multiply_group`); a skip beat's zeros.
        self.operand.next.weights = self.unit_weights.val();
        if self.tag.val().skip {
            self.operand.next.weights = 0.into();
        }
        self.operand.next.acc_address = self.tag.val().acc_address;
        self.operand.next.first = self.tag.val().first;
        self.operand.next.slice_end = self.tag.val().slice_end;
        self.operand.next.depthwise = self.depthwise.val();
        self.operand.next.byte = self.tag.val().byte;
        self.operand.next.max = self.max_pool.val();
        self.operand.next.low = self.wide.val() & (self.tag.val().byte == 0);
        self.cores_ready.next = true;
        for k in 0..self.cores.len() {
            if self.head_cores.val().get_bit(k) & !self.cores[k].operands.ready.val() {
                self.cores_ready.next = false;
            }
        }
        for k in 0..self.cores.len() {
            self.cores[k].operands.valid.next = self.joined.val()
                & self.to_mac.val()
                & self.cores_ready.val()
                & self.head_cores.val().get_bit(k);
            self.cores[k].operands.data.next = self.operand.val();
            self.cores[k].odd_acts.next = self.acts.data.val().odd_acts;
            self.cores[k].interleaved.next = self.interleaved.val();
            self.cores[k].multiply_group.next = !self.pool.val() & !self.tag.val().skip;
        }
        self.join_fire.next = self.joined.val() & (!self.to_mac.val() | self.cores_ready.val());
        self.acts.ready.next = self.join_fire.val();
        self.tags.ready.next = self.join_fire.val();
        // Each core's weight groups and stream state.
        self.slice_done.next = false;
        self.mac_active.next = false;
        for k in 0..self.cores.len() {
            self.cores[k].group_taken.next = self.join_fire.val()
                & self.tag.val().group_end
                & !self.pool.val()
                & self.head_cores.val().get_bit(k);
            self.cores[k].stream_used.next = self.join_fire.val()
                & self.tag.val().group_end
                & self.head_stream_ends.val().get_bit(k);
            self.cores[k].group_wanted.next =
                self.tags.valid.val() & self.head_cores.val().get_bit(k);
            self.slice_done.next = self.slice_done.val() | self.cores[k].slice_done.val();
            if self.cores[k].operands.valid.val() & self.cores[k].operands.ready.val() {
                self.mac_active.next = true;
            }
        }
        self.block_read.next = self.join_fire.val() & self.tag.val().job_end;
    }
}
