//! A DMA write channel: buffers destination beats, issues a burst's
//! address once all its data is buffered, then streams the data.

use super::walker::{TransferShape, TransferWalker};
use crate::stream::{StreamIn, WriteBeat};
use crate::widgets::{Fifo, ResetReg};
use rust_hdl::prelude::*;

/// Writes one transfer at a time. `N` is log2 of the buffer depth in beats
/// (at least one 16-beat burst), `C` = `N + 1`.
///
/// An address is issued only when every beat of its burst is buffered, so
/// the data follows it without gaps and no burst is left without data when
/// a bus error halts the channel. All AXI outputs come from registers that
/// change only on cycles with ACLKEN high.
#[derive(LogicBlock)]
pub struct WriteChannel<const N: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub aclken: Signal<In, Bit>,
    /// Begin a transfer (only while `busy` is low).
    pub start: Signal<In, Bit>,
    pub shape: TransferShape,
    /// Issue no more bursts (a bus error); bursts already issued complete.
    pub halt: Signal<In, Bit>,
    /// The outstanding-write counter of this channel's region has room.
    pub may_issue: Signal<In, Bit>,
    /// Destination beats, their WLAST computed by the producer.
    pub beats: StreamIn<WriteBeat>,
    /// Write address and data channels; `awid`, `awcache`, `awprot` are
    /// passed through from the inputs of the same name.
    pub awvalid: Signal<Out, Bit>,
    pub awaddr: Signal<Out, Bits<40>>,
    pub awlen: Signal<Out, Bits<8>>,
    pub awready: Signal<In, Bit>,
    pub wvalid: Signal<Out, Bit>,
    pub wdata: Signal<Out, Bits<128>>,
    pub wstrb: Signal<Out, Bits<16>>,
    pub wlast: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    /// A write response for this channel was accepted.
    pub b_valid: Signal<In, Bit>,
    /// A burst was committed this cycle (for the outstanding counters).
    pub burst_issued: Signal<Out, Bit>,
    /// A burst is ready but `may_issue` holds it back (for the PMU).
    pub limit_stall: Signal<Out, Bit>,
    /// Data or responses remain.
    pub busy: Signal<Out, Bit>,
    burst_beats: Signal<Local, Bits<C>>,
    /// The address slot is free and a burst's data is in: it could be issued
    /// but for the outstanding limit.
    burst_ready: Signal<Local, Bit>,
    load_address: Signal<Local, Bit>,
    load_data: Signal<Local, Bit>,
    issue: TransferWalker,
    buffer: Fifo<WriteBeat, N, C>,
    /// A beat enters the buffer.
    pushed: Signal<Local, Bit>,
    /// Buffered beats no issued burst covers yet.
    unclaimed: ResetReg<Bits<C>>,
    /// Buffered beats of issued bursts.
    claimed: ResetReg<Bits<C>>,
    /// Issued bursts without a response (at most 32, TRM 4.2.14).
    responses_due: ResetReg<Bits<6>>,
    aw_valid: ResetReg<Bit>,
    aw_addr: ResetReg<Bits<40>>,
    aw_len: ResetReg<Bits<8>>,
    w_valid: ResetReg<Bit>,
    w_beat: ResetReg<WriteBeat>,
}

impl<const N: usize, const C: usize> Default for WriteChannel<N, C> {
    fn default() -> Self {
        assert!(N >= 4, "a write channel buffers at least one 16-beat burst");
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            aclken: Default::default(),
            start: Default::default(),
            shape: Default::default(),
            halt: Default::default(),
            may_issue: Default::default(),
            beats: Default::default(),
            awvalid: Default::default(),
            awaddr: Default::default(),
            awlen: Default::default(),
            awready: Default::default(),
            wvalid: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            wlast: Default::default(),
            wready: Default::default(),
            b_valid: Default::default(),
            burst_issued: Default::default(),
            limit_stall: Default::default(),
            busy: Default::default(),
            burst_beats: Default::default(),
            burst_ready: Default::default(),
            load_address: Default::default(),
            load_data: Default::default(),
            issue: Default::default(),
            buffer: Default::default(),
            pushed: Default::default(),
            unclaimed: Default::default(),
            claimed: Default::default(),
            responses_due: Default::default(),
            aw_valid: Default::default(),
            aw_addr: Default::default(),
            aw_len: Default::default(),
            w_valid: Default::default(),
            w_beat: Default::default(),
        }
    }
}

impl<const N: usize, const C: usize> Logic for WriteChannel<N, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            unclaimed,
            claimed,
            responses_due,
            aw_valid,
            aw_addr,
            aw_len,
            w_valid,
            w_beat
        );
        self.unclaimed.rst_n.next = self.rst_n.val();
        self.claimed.rst_n.next = self.rst_n.val();
        self.responses_due.rst_n.next = self.rst_n.val();
        self.aw_valid.rst_n.next = self.rst_n.val();
        self.aw_addr.rst_n.next = self.rst_n.val();
        self.aw_len.rst_n.next = self.rst_n.val();
        self.w_valid.rst_n.next = self.rst_n.val();
        self.w_beat.rst_n.next = self.rst_n.val();
        self.issue.clock.next = self.clock.val();
        self.issue.rst_n.next = self.rst_n.val();
        self.buffer.clock.next = self.clock.val();
        self.buffer.rst_n.next = self.rst_n.val();
        TransferShape::link(&mut self.shape, &mut self.issue.shape);
        self.issue.start.next = self.start.val();
        self.issue.next_beat.next = false;
        self.issue.cancel.next = false;

        StreamIn::<WriteBeat>::link(&mut self.beats, &mut self.buffer.tail);
        self.pushed.next = self.beats.valid.val() & self.beats.ready.val();

        // Address: when the slot is free (or being taken) and the burst's data is in.
        self.burst_beats.next = bit_cast::<C, 4>(self.issue.beats_m1.val()) + 1;
        self.burst_ready.next = (!self.aw_valid.q.val() | self.awready.val())
            & self.issue.valid.val()
            & !self.halt.val()
            & (self.unclaimed.q.val() >= self.burst_beats.val());
        self.load_address.next = self.aclken.val() & self.burst_ready.val() & self.may_issue.val();
        self.limit_stall.next = self.burst_ready.val() & !self.may_issue.val();
        if self.aclken.val() & self.aw_valid.q.val() & self.awready.val() {
            self.aw_valid.d.next = false;
        }
        if self.load_address.val() {
            self.aw_valid.d.next = true;
            self.aw_addr.d.next = self.issue.address.val();
            self.aw_len.d.next = bit_cast::<8, 4>(self.issue.beats_m1.val());
        }
        self.issue.next_burst.next = self.load_address.val();
        self.burst_issued.next = self.load_address.val();

        // Data: the next beat of an issued burst.
        self.load_data.next = self.aclken.val()
            & (!self.w_valid.q.val() | self.wready.val())
            & (self.claimed.q.val() != 0);
        if self.aclken.val() & self.w_valid.q.val() & self.wready.val() {
            self.w_valid.d.next = false;
        }
        if self.load_data.val() {
            self.w_valid.d.next = true;
            self.w_beat.d.next = self.buffer.head.data.val();
        }
        self.buffer.head.ready.next = self.load_data.val();

        self.unclaimed.d.next = self.unclaimed.q.val();
        if self.pushed.val() {
            self.unclaimed.d.next = self.unclaimed.q.val() + 1;
        }
        if self.load_address.val() {
            self.unclaimed.d.next = self.unclaimed.d.val() - self.burst_beats.val();
        }
        self.claimed.d.next = self.claimed.q.val();
        if self.load_address.val() {
            self.claimed.d.next = self.claimed.q.val() + self.burst_beats.val();
        }
        if self.load_data.val() {
            self.claimed.d.next = self.claimed.d.val() - 1;
        }
        if self.load_address.val() & !self.b_valid.val() {
            self.responses_due.d.next = self.responses_due.q.val() + 1;
        }
        if !self.load_address.val() & self.b_valid.val() {
            self.responses_due.d.next = self.responses_due.q.val() - 1;
        }

        self.awvalid.next = self.aw_valid.q.val();
        self.awaddr.next = self.aw_addr.q.val();
        self.awlen.next = self.aw_len.q.val();
        self.wvalid.next = self.w_valid.q.val();
        self.wdata.next = self.w_beat.q.val().data;
        self.wstrb.next = self.w_beat.q.val().strobe;
        self.wlast.next = self.w_beat.q.val().last;
        self.busy.next = self.issue.busy.val()
            | self.buffer.head.valid.val()
            | self.aw_valid.q.val()
            | self.w_valid.q.val()
            | (self.responses_due.q.val() != 0);
    }
}
