//! Groups an OFM block's scale records into the sets of its 8-channel
//! slices (the channels one accumulator word holds), gathering the next
//! slice's set while the output unit uses this one, so a slice's first
//! output beat never waits for its records.
//!
//! # Ports
//!
//! - `depths` (a [`StreamIn`] of 16-bit OFM block depths): one per scale
//!   stream, in the order of the streams' records; taken as the block
//!   before hands over its last set.
//! - `records` (a [`StreamIn`] of [`ScaleRecordBeat`]s, from
//!   [`super::ScaleRecords`]): taken while the set being gathered lacks
//!   records of its slice. Both `ready`s depend on `sets.ready` (a set
//!   handed over makes room), never on a `valid`.
//! - `sets` (a [`StreamOut`] of [`ScaleSet`]s): per slice, min(8, channels
//!   left) records; record i in lane i, the lanes past them zero.
//!
//! # Throughput
//!
//! One record a cycle, also in the cycle a gathered set moves to `sets`
//! (the cycle the one there is taken); a block's first record waits a cycle
//! for its depth.

use super::ScaleRecordBeat;
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// The scale records of one slice, lane i in each field's bits (40i, 32i,
/// 6i): bias 40-bit two's complement, scale 32 bits, shift 6 bits.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ScaleSet {
    pub biases: Bits<320>,
    pub scales: Bits<256>,
    pub shifts: Bits<48>,
}

#[derive(LogicBlock, Default)]
pub struct ScaleSets {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub depths: StreamIn<Bits<16>>,
    pub records: StreamIn<ScaleRecordBeat>,
    pub sets: StreamOut<ScaleSet>,
    /// Channels of the current block not yet in a gathered set.
    left: ResetReg<Bits<16>>,
    /// The set being gathered and its record count.
    gathering: ResetReg<ScaleSet>,
    count: ResetReg<Bits<4>>,
    /// The set offered on `sets`.
    offered: ResetReg<ScaleSet>,
    offered_valid: ResetReg<Bit>,
    record: Signal<Local, ScaleRecordBeat>,
    lane: Signal<Local, Bits<9>>,
    slice_channels: Signal<Local, Bits<16>>,
    record_in: Signal<Local, Bit>,
    gathered: Signal<Local, Bit>,
    slot_free: Signal<Local, Bit>,
    hand_over: Signal<Local, Bit>,
    remaining: Signal<Local, Bits<16>>,
    count_after: Signal<Local, Bits<4>>,
    gathering_after: Signal<Local, ScaleSet>,
    next_channels: Signal<Local, Bits<16>>,
}

impl Logic for ScaleSets {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, left, gathering, count, offered, offered_valid);
        self.left.rst_n.next = self.rst_n.val();
        self.gathering.rst_n.next = self.rst_n.val();
        self.count.rst_n.next = self.rst_n.val();
        self.offered.rst_n.next = self.rst_n.val();
        self.offered_valid.rst_n.next = self.rst_n.val();

        self.slice_channels.next = 8.into();
        if self.left.q.val() < 8 {
            self.slice_channels.next = self.left.q.val();
        }
        self.gathered.next = (self.left.q.val() != 0)
            & (bit_cast::<16, 4>(self.count.q.val()) == self.slice_channels.val());
        self.sets.valid.next = self.offered_valid.q.val();
        self.sets.data.next = self.offered.q.val();
        self.slot_free.next = !self.offered_valid.q.val() | self.sets.ready.val();
        self.hand_over.next = self.gathered.val() & self.slot_free.val();

        // What is left once this cycle's set is handed over: the record
        // and the depth taken this cycle go there.
        self.remaining.next = self.left.q.val();
        self.count_after.next = self.count.q.val();
        self.gathering_after.next = self.gathering.q.val();
        if self.hand_over.val() {
            self.remaining.next = self.left.q.val() - self.slice_channels.val();
            self.count_after.next = 0.into();
            self.gathering_after.next.biases = 0.into();
            self.gathering_after.next.scales = 0.into();
            self.gathering_after.next.shifts = 0.into();
        }
        self.next_channels.next = 8.into();
        if self.remaining.val() < 8 {
            self.next_channels.next = self.remaining.val();
        }
        self.depths.ready.next = self.remaining.val() == 0;
        self.records.ready.next = (self.remaining.val() != 0)
            & (bit_cast::<16, 4>(self.count_after.val()) != self.next_channels.val());
        self.record_in.next = self.records.valid.val() & self.records.ready.val();

        self.left.d.next = self.remaining.val();
        if self.depths.valid.val() & self.depths.ready.val() {
            self.left.d.next = self.depths.data.val();
        }
        self.count.d.next = self.count_after.val();
        self.gathering.d.next = self.gathering_after.val();
        // Record i of the set goes to lane i.
        self.record.next = self.records.data.val();
        self.lane.next = bit_cast::<9, 4>(self.count_after.val());
        if self.record_in.val() {
            self.count.d.next = self.count_after.val() + 1;
            self.gathering.d.next.biases = self.gathering_after.val().biases
                | (bit_cast::<320, 40>(self.record.val().bias)
                    << ((self.lane.val() << 5) + (self.lane.val() << 3)));
            self.gathering.d.next.scales = self.gathering_after.val().scales
                | (bit_cast::<256, 32>(self.record.val().scale) << (self.lane.val() << 5));
            self.gathering.d.next.shifts = self.gathering_after.val().shifts
                | (bit_cast::<48, 6>(self.record.val().shift)
                    << ((self.lane.val() << 2) + (self.lane.val() << 1)));
        }

        if self.sets.ready.val() {
            self.offered_valid.d.next = false;
        }
        if self.hand_over.val() {
            self.offered.d.next = self.gathering.q.val();
            self.offered_valid.d.next = true;
        }
    }
}
