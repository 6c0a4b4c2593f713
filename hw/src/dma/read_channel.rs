//! A DMA read channel: issues the bursts of its transfers, buffers the read
//! data and hands it on as beats with their valid byte lanes.

use super::reads::ReadClient;
use super::walker::{TransferShape, TransferWalker};
use crate::stream::{LaneBeat, StreamOut};
use crate::widgets::{RamFifo, ResetReg};
use rust_hdl::prelude::*;

/// What the consumer needs to know of an issued burst to label its beats:
/// the first beat's first byte lane, the last beat's last, and the beats.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct BurstLanes {
    pub first_lane: Bits<4>,
    pub last_lane: Bits<4>,
    pub beats_m1: Bits<4>,
}

/// Reads transfers one after another. `N` is log2 of the buffer depth in
/// beats, at least 4 (a 256-byte burst), `C` = `N + 1`; the buffer is a RAM
/// ([`RamFifo`]), deep enough to keep AXI_LIMIT's outstanding bursts in
/// flight behind a slow memory.
///
/// Bursts are only requested while the buffer has room for all their beats
/// (beats requested and not yet taken by the consumer never exceed the
/// depth), so RREADY can stay high: one channel's data never blocks another
/// channel's on the same port. Each granted burst leaves its lanes in
/// `burst_lanes` until its beats take them on their way out (128 bursts:
/// AXI_LIMIT's most, 64, in flight and as many again waiting in the
/// buffer); so the next transfer may start once the last burst of this one
/// is issued (`may_start`), and its reads are in flight while this one's
/// data still arrives. The router follows a
/// channel's outstanding reads by the channel's current counter, so a
/// transfer on another counter waits until nothing is outstanding.
#[derive(LogicBlock)]
pub struct ReadChannel<const N: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Begin a transfer (only while `may_start`).
    pub start: Signal<In, Bit>,
    pub shape: TransferShape,
    /// Request no bursts while high (a bus error; a stream reader that has
    /// read as far ahead as it may).
    pub halt: Signal<In, Bit>,
    /// Abandon the transfer: request no more bursts and discard the data of
    /// those requested; `busy` falls when the last of it has arrived.
    pub cancel: Signal<In, Bit>,
    /// The transfer's outstanding counter and ARCACHE, taken at `start`.
    pub counter: Signal<In, Bits<2>>,
    pub cache: Signal<In, Bits<4>>,
    /// Bursts to the DMA's read router, and their beats back.
    pub reads: ReadClient,
    /// Beats to the consumer, with the lanes that hold transfer bytes.
    pub out: StreamOut<LaneBeat>,
    /// A transfer with `counter` may start: every burst of the last one is
    /// issued, none is being discarded, and the counter is the one in use
    /// or no read is in flight.
    pub may_start: Signal<Out, Bit>,
    /// Bursts remain to be requested or beats to be delivered.
    pub busy: Signal<Out, Bit>,
    /// Bursts remain to be requested.
    pub issuing: Signal<Out, Bit>,
    /// Beats requested and not yet taken by the consumer: how far ahead of
    /// it the channel reads.
    pub reserved_beats: Signal<Out, Bits<C>>,
    depth: Constant<Bits<C>>,
    burst_beats: Signal<Local, Bits<C>>,
    /// A burst could be requested but for the outstanding limit.
    burst_ready: Signal<Local, Bit>,
    issue: TransferWalker,
    buffer: RamFifo<Bits<128>, N, C>,
    burst_lanes: RamFifo<BurstLanes, 7, 8>,
    /// The head beat's place in its burst.
    out_beat: ResetReg<Bits<4>>,
    /// The buffer's head beat leaves (delivered or discarded).
    popped: Signal<Local, Bit>,
    /// Beats requested and not yet taken by the consumer.
    reserved: ResetReg<Bits<C>>,
    discarding: ResetReg<Bit>,
    counter_q: ResetReg<Bits<2>>,
    cache_q: ResetReg<Bits<4>>,
}

impl<const N: usize, const C: usize> Default for ReadChannel<N, C> {
    fn default() -> Self {
        assert!(N >= 4, "a read channel buffers at least one 16-beat burst");
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            shape: Default::default(),
            halt: Default::default(),
            cancel: Default::default(),
            counter: Default::default(),
            cache: Default::default(),
            reads: Default::default(),
            out: Default::default(),
            may_start: Default::default(),
            busy: Default::default(),
            issuing: Default::default(),
            reserved_beats: Default::default(),
            depth: Constant::new((1u64 << N).into()),
            burst_beats: Default::default(),
            burst_ready: Default::default(),
            issue: Default::default(),
            buffer: Default::default(),
            burst_lanes: Default::default(),
            out_beat: Default::default(),
            popped: Default::default(),
            reserved: Default::default(),
            discarding: Default::default(),
            counter_q: Default::default(),
            cache_q: Default::default(),
        }
    }
}

impl<const N: usize, const C: usize> Logic for ReadChannel<N, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_beat, reserved, discarding, counter_q, cache_q);
        self.out_beat.rst_n.next = self.rst_n.val();
        self.reserved.rst_n.next = self.rst_n.val();
        self.discarding.rst_n.next = self.rst_n.val();
        self.counter_q.rst_n.next = self.rst_n.val();
        self.cache_q.rst_n.next = self.rst_n.val();
        if self.start.val() {
            self.counter_q.d.next = self.counter.val();
            self.cache_q.d.next = self.cache.val();
        }
        self.reads.counter.next = self.counter_q.q.val();
        self.reads.cache.next = self.cache_q.q.val();
        self.issue.clock.next = self.clock.val();
        self.issue.rst_n.next = self.rst_n.val();
        self.buffer.clock.next = self.clock.val();
        self.buffer.rst_n.next = self.rst_n.val();
        self.burst_lanes.clock.next = self.clock.val();
        self.burst_lanes.rst_n.next = self.rst_n.val();
        TransferShape::link(&mut self.shape, &mut self.issue.shape);
        self.issue.start.next = self.start.val();
        self.may_start.next = !self.issue.busy.val()
            & !self.discarding.q.val()
            & ((self.reserved.q.val() == 0) | (self.counter.val() == self.counter_q.q.val()));

        self.burst_beats.next = bit_cast::<C, 4>(self.issue.beats_m1.val()) + 1;
        self.burst_ready.next = self.issue.valid.val()
            & !self.halt.val()
            & self.burst_lanes.tail.ready.val()
            & (self.reserved.q.val() <= self.depth.val() - self.burst_beats.val());
        self.reads.request.next = self.burst_ready.val() & self.reads.may_issue.val();
        self.reads.limit_stall.next = self.burst_ready.val() & !self.reads.may_issue.val();
        self.reads.address.next = self.issue.address.val();
        self.reads.len.next = bit_cast::<8, 4>(self.issue.beats_m1.val());
        self.issue.next_burst.next = self.reads.grant.val();
        self.issue.next_beat.next = false;
        self.issue.cancel.next = self.cancel.val();
        self.burst_lanes.tail.valid.next = self.reads.grant.val();
        self.burst_lanes.tail.data.next.first_lane = bit_cast::<4, 40>(self.issue.address.val());
        self.burst_lanes.tail.data.next.last_lane = self.issue.burst_last_lane.val();
        self.burst_lanes.tail.data.next.beats_m1 = self.issue.beats_m1.val();
        if self.cancel.val() {
            self.discarding.d.next = true;
        } else if self.reserved.q.val() == 0 {
            self.discarding.d.next = false;
        }

        // The buffer has room: every burst reserved its beats when issued.
        self.buffer.tail.valid.next = self.reads.beat.val();
        self.buffer.tail.data.next = self.reads.data.val();

        // Every beat gets the lanes of its place in its burst; a burst's
        // lanes are in `burst_lanes` before its first beat reaches the head.
        self.out.valid.next = self.buffer.head.valid.val()
            & self.burst_lanes.head.valid.val()
            & !self.discarding.q.val();
        self.out.data.next.data = self.buffer.head.data.val();
        self.out.data.next.first_lane = 0.into();
        if self.out_beat.q.val() == 0 {
            self.out.data.next.first_lane = self.burst_lanes.head.data.val().first_lane;
        }
        self.out.data.next.last_lane = 15.into();
        if self.out_beat.q.val() == self.burst_lanes.head.data.val().beats_m1 {
            self.out.data.next.last_lane = self.burst_lanes.head.data.val().last_lane;
        }
        self.buffer.head.ready.next =
            self.burst_lanes.head.valid.val() & (self.out.ready.val() | self.discarding.q.val());
        self.popped.next = self.buffer.head.valid.val() & self.buffer.head.ready.val();
        self.burst_lanes.head.ready.next = false;
        if self.popped.val() {
            self.out_beat.d.next = self.out_beat.q.val() + 1;
            if self.out_beat.q.val() == self.burst_lanes.head.data.val().beats_m1 {
                self.out_beat.d.next = 0.into();
                self.burst_lanes.head.ready.next = true;
            }
        }

        if self.reads.grant.val() {
            self.reserved.d.next = self.reserved.q.val() + self.burst_beats.val();
            if self.popped.val() {
                self.reserved.d.next = self.reserved.q.val() + self.burst_beats.val() - 1;
            }
        } else if self.popped.val() {
            self.reserved.d.next = self.reserved.q.val() - 1;
        }
        self.busy.next = self.issue.busy.val() | (self.reserved.q.val() != 0);
        self.issuing.next = self.issue.busy.val();
        self.reserved_beats.next = self.reserved.q.val();
    }
}
