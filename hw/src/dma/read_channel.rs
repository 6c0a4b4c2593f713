//! A DMA read channel: issues the bursts of one transfer, buffers the read
//! data and hands it on as beats with their valid byte lanes.

use super::reads::ReadClient;
use super::walker::{TransferShape, TransferWalker};
use crate::stream::{LaneBeat, StreamOut};
use crate::widgets::{RamFifo, ResetReg};
use rust_hdl::prelude::*;

/// Reads one transfer at a time. `N` is log2 of the buffer depth in beats,
/// at least 4 (a 256-byte burst), `C` = `N + 1`; the buffer is a RAM
/// ([`RamFifo`]), deep enough to keep AXI_LIMIT's outstanding bursts in
/// flight behind a slow memory.
///
/// Bursts are only requested while the buffer has room for all their beats
/// (beats requested and not yet taken by the consumer never exceed the
/// depth), so RREADY can stay high: one channel's data never blocks another
/// channel's on the same port.
#[derive(LogicBlock)]
pub struct ReadChannel<const N: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Begin a transfer (only while `busy` is low).
    pub start: Signal<In, Bit>,
    pub shape: TransferShape,
    /// Request no more bursts (a bus error).
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
    /// Bursts remain to be requested or beats to be delivered.
    pub busy: Signal<Out, Bit>,
    depth: Constant<Bits<C>>,
    burst_beats: Signal<Local, Bits<C>>,
    /// A burst could be requested but for the outstanding limit.
    burst_ready: Signal<Local, Bit>,
    issue: TransferWalker,
    receive: TransferWalker,
    buffer: RamFifo<LaneBeat, N, C>,
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
            busy: Default::default(),
            depth: Constant::new((1u64 << N).into()),
            burst_beats: Default::default(),
            burst_ready: Default::default(),
            issue: Default::default(),
            receive: Default::default(),
            buffer: Default::default(),
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
        dff_setup!(self, clock, reserved, discarding, counter_q, cache_q);
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
        self.receive.clock.next = self.clock.val();
        self.receive.rst_n.next = self.rst_n.val();
        self.buffer.clock.next = self.clock.val();
        self.buffer.rst_n.next = self.rst_n.val();
        TransferShape::link(&mut self.shape, &mut self.issue.shape);
        TransferShape::link(&mut self.shape, &mut self.receive.shape);
        self.issue.start.next = self.start.val();
        self.receive.start.next = self.start.val();

        self.burst_beats.next = bit_cast::<C, 4>(self.issue.beats_m1.val()) + 1;
        self.burst_ready.next = self.issue.valid.val()
            & !self.halt.val()
            & (self.reserved.q.val() <= self.depth.val() - self.burst_beats.val());
        self.reads.request.next = self.burst_ready.val() & self.reads.may_issue.val();
        self.reads.limit_stall.next = self.burst_ready.val() & !self.reads.may_issue.val();
        self.reads.address.next = self.issue.address.val();
        self.reads.len.next = bit_cast::<8, 4>(self.issue.beats_m1.val());
        self.issue.next_burst.next = self.reads.grant.val();
        self.issue.next_beat.next = false;
        self.issue.cancel.next = self.cancel.val();
        self.receive.cancel.next = false;
        if self.cancel.val() {
            self.discarding.d.next = true;
        }
        if self.start.val() {
            self.discarding.d.next = false;
        }

        // Every beat gets the lanes of its place in the transfer.
        self.receive.next_burst.next = false;
        self.receive.next_beat.next = self.reads.beat.val();
        // The buffer has room: every burst reserved its beats when issued.
        self.buffer.tail.valid.next = self.reads.beat.val();
        self.buffer.tail.data.next.data = self.reads.data.val();
        self.buffer.tail.data.next.first_lane = self.receive.beat_first_lane.val();
        self.buffer.tail.data.next.last_lane = self.receive.beat_last_lane.val();

        self.out.valid.next = self.buffer.head.valid.val() & !self.discarding.q.val();
        self.out.data.next = self.buffer.head.data.val();
        self.buffer.head.ready.next = self.out.ready.val() | self.discarding.q.val();
        self.popped.next = self.buffer.head.valid.val() & self.buffer.head.ready.val();

        if self.reads.grant.val() {
            self.reserved.d.next = self.reserved.q.val() + self.burst_beats.val();
            if self.popped.val() {
                self.reserved.d.next = self.reserved.q.val() + self.burst_beats.val() - 1;
            }
        } else if self.popped.val() {
            self.reserved.d.next = self.reserved.q.val() - 1;
        }
        self.busy.next = self.issue.valid.val() | (self.reserved.q.val() != 0);
    }
}
