//! The write side of the DMA: every write channel is a [`WriteClient`], and
//! one [`WriteRouter`] serves them all through M0 (TRM 3.3.3: writes always
//! use M0).
//!
//! Client `i` has the AWID `ids[i]` and the STATUS.faulting_channel code
//! `channels[i]`; a lower index wins the AW channel, and client 0 also
//! holds it while it `waiting`: a burst of its is ready but its address
//! registers are still busy with the last one, whose data waits behind
//! another client's burst (AXI4 writes data in address order), so that the
//! other client's next burst does not cut in after every one of its. An
//! address presented and not yet accepted stays presented (AXI: AWVALID never drops and the
//! payload never changes before AWREADY). Write data follows the order of
//! the accepted addresses (an order queue of client indices); when no
//! accepted address waits for data, the presented address's data goes out
//! beside it (AXI lets W lead or join its AW), so a single-beat write takes
//! one cycle, not two. Responses go back by BID. The router counts
//! outstanding writes per outstanding counter against AXI_LIMITn (TRM
//! 4.2.14-17) from the issue to the response, reports the first response
//! that answers SLVERR or DECERR, and derives what the PMU counts of M0's
//! write channels (TRM 4.5.5).

use super::clients;
use super::events::WriteEvents;
use crate::widgets::{Fifo, ResetReg};
use rust_hdl::prelude::*;

/// A write channel as the router sees it.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "WriteClientPort"]
pub struct WriteClient {
    pub awvalid: Signal<Out, Bit>,
    pub awaddr: Signal<Out, Bits<40>>,
    pub awlen: Signal<Out, Bits<8>>,
    pub awcache: Signal<Out, Bits<4>>,
    pub awready: Signal<In, Bit>,
    pub wvalid: Signal<Out, Bit>,
    pub wdata: Signal<Out, Bits<128>>,
    pub wstrb: Signal<Out, Bits<16>>,
    pub wlast: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    /// A burst is ready to issue once the client's address and data
    /// registers are free (client 0 keeps the AW channel for it).
    pub waiting: Signal<Out, Bit>,
    /// The counter of the next burst, and whether it has room; a burst
    /// issued this cycle (counted from here).
    pub issue_counter: Signal<Out, Bits<2>>,
    pub may_issue: Signal<In, Bit>,
    pub burst_issued: Signal<Out, Bit>,
    /// The counter the client's outstanding writes count on, and a write
    /// response of this client.
    pub response_counter: Signal<Out, Bits<2>>,
    pub b_valid: Signal<In, Bit>,
    /// A burst is held back by its outstanding limit (for the PMU).
    pub limit_stall: Signal<Out, Bit>,
}

/// The router's side of a [`WriteClient`].
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "WriteClient"]
pub struct WriteClientPort {
    pub awvalid: Signal<In, Bit>,
    pub awaddr: Signal<In, Bits<40>>,
    pub awlen: Signal<In, Bits<8>>,
    pub awcache: Signal<In, Bits<4>>,
    pub awready: Signal<Out, Bit>,
    pub wvalid: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<128>>,
    pub wstrb: Signal<In, Bits<16>>,
    pub wlast: Signal<In, Bit>,
    pub wready: Signal<Out, Bit>,
    pub waiting: Signal<In, Bit>,
    pub issue_counter: Signal<In, Bits<2>>,
    pub may_issue: Signal<Out, Bit>,
    pub burst_issued: Signal<In, Bit>,
    pub response_counter: Signal<In, Bits<2>>,
    pub b_valid: Signal<Out, Bit>,
    pub limit_stall: Signal<In, Bit>,
}

/// The AW, W and B channels of M0, and what the PMU counts of them.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct WritePortSignals {
    pub aclken: Signal<In, Bit>,
    pub awvalid: Signal<Out, Bit>,
    pub awid: Signal<Out, Bits<8>>,
    pub awaddr: Signal<Out, Bits<40>>,
    pub awlen: Signal<Out, Bits<8>>,
    pub awcache: Signal<Out, Bits<4>>,
    pub awready: Signal<In, Bit>,
    pub wvalid: Signal<Out, Bit>,
    pub wdata: Signal<Out, Bits<128>>,
    pub wstrb: Signal<Out, Bits<16>>,
    pub wlast: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    pub bvalid: Signal<In, Bit>,
    pub bid: Signal<In, Bits<8>>,
    pub bresp: Signal<In, Bits<2>>,
    /// What the PMU counts of AW, W and B: handshakes and stalls qualified
    /// with ACLKEN, the channel code and counter of each transfer (B's by
    /// BID), a client held back by its limit.
    pub events: Signal<Out, WriteEvents>,
}

/// Clients of the router; the order queue holds their indices.
const CLIENTS: usize = 2;

#[derive(LogicBlock)]
pub struct WriteRouter {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// AXI_LIMIT0-3.
    pub axi_limit: Vec<Signal<In, Bits<32>>>,
    pub clients: Vec<WriteClientPort>,
    pub m0: WritePortSignals,
    /// No write is outstanding (issued and not yet answered).
    pub quiet: Signal<Out, Bit>,
    /// A response answered SLVERR or DECERR this cycle, and its client's
    /// channel code.
    pub error: Signal<Out, Bit>,
    pub error_channel: Signal<Out, Bits<4>>,
    ids: Vec<Constant<Bits<8>>>,
    channels: Vec<Constant<Bits<4>>>,
    writes_m1_lsb: Constant<Bits<5>>,
    order: Fifo<Bit, 2, 3>,
    /// The client whose address is presented, and whether it must stay.
    pick: Signal<Local, Bit>,
    held: ResetReg<Bit>,
    held_client: ResetReg<Bit>,
    w_client: Signal<Local, Bit>,
    /// W may go out: an accepted address waits for data, or the presented
    /// one's data has not gone ahead yet.
    w_open: Signal<Local, Bit>,
    w_last_fire: Signal<Local, Bit>,
    /// The presented address's last data beat went out before it.
    w_ahead: ResetReg<Bit>,
    b_client: Signal<Local, Bit>,
    b_ours: Signal<Local, Bit>,
    aw_fire: Signal<Local, Bit>,
    limit: Signal<Local, Bits<32>>,
    room: Signal<Local, Bits<4>>,
    limit_stall: Signal<Local, Bit>,
    completed: Signal<Local, Bits<4>>,
    issued_first: Signal<Local, Bits<4>>,
    issued_second: Signal<Local, Bits<4>>,
    outstanding: Vec<ResetReg<Bits<7>>>,
}

impl WriteRouter {
    /// A router for clients with these AWIDs and faulting-channel codes,
    /// highest priority first.
    pub fn new(clients: &[(u8, u32); CLIENTS], writes_m1_lsb: u32) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            axi_limit: (0..4).map(|_| Default::default()).collect(),
            clients: clients.iter().map(|_| Default::default()).collect(),
            m0: Default::default(),
            quiet: Default::default(),
            error: Default::default(),
            error_channel: Default::default(),
            ids: clients::ids(clients),
            channels: clients::channels(clients),
            writes_m1_lsb: Constant::new(u64::from(writes_m1_lsb).into()),
            order: Default::default(),
            pick: Default::default(),
            held: Default::default(),
            held_client: Default::default(),
            w_client: Default::default(),
            w_open: Default::default(),
            w_last_fire: Default::default(),
            w_ahead: Default::default(),
            b_client: Default::default(),
            b_ours: Default::default(),
            aw_fire: Default::default(),
            limit: Default::default(),
            room: Default::default(),
            limit_stall: Default::default(),
            completed: Default::default(),
            issued_first: Default::default(),
            issued_second: Default::default(),
            outstanding: (0..4).map(|_| Default::default()).collect(),
        }
    }
}

impl Logic for WriteRouter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, held_client, w_ahead);
        self.w_ahead.rst_n.next = self.rst_n.val();
        self.held.rst_n.next = self.rst_n.val();
        self.held_client.rst_n.next = self.rst_n.val();
        self.order.clock.next = self.clock.val();
        self.order.rst_n.next = self.rst_n.val();
        for c in 0..4 {
            self.outstanding[c].clock.next = self.clock.val();
            self.outstanding[c].rst_n.next = self.rst_n.val();
            self.outstanding[c].d.next = self.outstanding[c].q.val();
        }

        // ---- AW: a presented address stays until accepted ----
        self.pick.next = (self.clients[1].awvalid.val() | self.clients[1].waiting.val())
            & !self.clients[0].awvalid.val()
            & !self.clients[0].waiting.val();
        if self.held.q.val() {
            self.pick.next = self.held_client.q.val();
        }
        self.m0.awvalid.next = false;
        self.m0.awid.next = 0.into();
        self.m0.awaddr.next = 0.into();
        self.m0.awlen.next = 0.into();
        self.m0.awcache.next = 0.into();
        self.m0.events.next.aw_channel = 0.into();
        self.m0.events.next.aw_counter = 0.into();
        for i in 0..CLIENTS {
            self.clients[i].awready.next = false;
            if self.pick.val() == (i == 1) {
                self.m0.awvalid.next = self.clients[i].awvalid.val() & self.order.tail.ready.val();
                self.m0.awid.next = self.ids[i].val();
                self.m0.awaddr.next = self.clients[i].awaddr.val();
                self.m0.awlen.next = self.clients[i].awlen.val();
                self.m0.awcache.next = self.clients[i].awcache.val();
                self.m0.events.next.aw_channel = self.channels[i].val();
                self.m0.events.next.aw_counter = self.clients[i].response_counter.val();
                self.clients[i].awready.next = self.m0.awready.val() & self.order.tail.ready.val();
            }
        }
        self.aw_fire.next = self.m0.aclken.val() & self.m0.awvalid.val() & self.m0.awready.val();
        self.m0.events.next.aw_accepted = self.aw_fire.val();
        self.m0.events.next.aw_stalled =
            self.m0.aclken.val() & self.m0.awvalid.val() & !self.m0.awready.val();
        if self.m0.aclken.val() {
            self.held.d.next = self.m0.awvalid.val() & !self.m0.awready.val();
            self.held_client.d.next = self.pick.val();
        }
        self.order.tail.data.next = self.pick.val();

        // ---- W: in the order of the accepted addresses, then the presented one's ----
        self.w_client.next = self.order.head.data.val();
        self.w_open.next = self.order.head.valid.val();
        if !self.order.head.valid.val() {
            self.w_client.next = self.pick.val();
            self.w_open.next = self.m0.awvalid.val() & !self.w_ahead.q.val();
        }
        self.m0.wvalid.next = false;
        self.m0.wdata.next = 0.into();
        self.m0.wstrb.next = 0.into();
        self.m0.wlast.next = false;
        self.m0.events.next.w_channel = 0.into();
        for i in 0..CLIENTS {
            self.clients[i].wready.next = false;
            if self.w_open.val() & (self.w_client.val() == (i == 1)) {
                self.m0.wvalid.next = self.clients[i].wvalid.val();
                self.m0.wdata.next = self.clients[i].wdata.val();
                self.m0.wstrb.next = self.clients[i].wstrb.val();
                self.m0.wlast.next = self.clients[i].wlast.val();
                self.m0.events.next.w_channel = self.channels[i].val();
                self.clients[i].wready.next = self.m0.wready.val();
            }
        }
        self.m0.events.next.w_beat =
            self.m0.aclken.val() & self.m0.wvalid.val() & self.m0.wready.val();
        self.m0.events.next.w_stalled =
            self.m0.aclken.val() & self.m0.wvalid.val() & !self.m0.wready.val();
        self.w_last_fire.next = self.m0.aclken.val()
            & self.m0.wvalid.val()
            & self.m0.wready.val()
            & self.m0.wlast.val();
        self.order.head.ready.next = self.w_last_fire.val() & self.order.head.valid.val();
        // An accepted address whose data has all gone needs no queue entry.
        self.order.tail.valid.next = self.aw_fire.val()
            & !self.w_ahead.q.val()
            & !(self.w_last_fire.val() & !self.order.head.valid.val());
        if self.w_last_fire.val() & !self.order.head.valid.val() & !self.aw_fire.val() {
            self.w_ahead.d.next = true;
        }
        if self.aw_fire.val() {
            self.w_ahead.d.next = false;
        }

        // ---- B: by BID ----
        self.b_client.next = self.m0.bid.val() == self.ids[1].val();
        self.b_ours.next = self.m0.bvalid.val() & self.m0.aclken.val();
        self.m0.events.next.b_response = self.b_ours.val();
        self.m0.events.next.b_channel = self.channels[0].val();
        self.m0.events.next.b_counter = self.clients[0].response_counter.val();
        if self.b_client.val() {
            self.m0.events.next.b_channel = self.channels[1].val();
            self.m0.events.next.b_counter = self.clients[1].response_counter.val();
        }
        self.completed.next = 0.into();
        for i in 0..CLIENTS {
            self.clients[i].b_valid.next = self.b_ours.val() & (self.b_client.val() == (i == 1));
            if self.clients[i].b_valid.val() {
                self.completed.next = bits::<4>(1) << self.clients[i].response_counter.val();
            }
        }
        self.error.next = self.b_ours.val() & self.m0.bresp.val().get_bit(1);
        self.error_channel.next = self.m0.events.val().b_channel;

        // ---- Outstanding writes per counter: room while count <= limit - 1
        // (the field's bits above the TRM range 0-31 are ignored) ----
        self.room.next = 0.into();
        for c in 0..4 {
            self.limit.next = self.axi_limit[c].val() >> self.writes_m1_lsb.val();
            if self.outstanding[c].q.val() <= bit_cast::<7, 5>(self.limit.val().get_bits::<5>(0)) {
                self.room.next = self.room.val().replace_bit(c, true);
            }
        }
        self.limit_stall.next = false;
        for i in 0..CLIENTS {
            self.clients[i].may_issue.next =
                (self.room.val() & (bits::<4>(1) << self.clients[i].issue_counter.val())) != 0;
            self.limit_stall.next = self.limit_stall.val() | self.clients[i].limit_stall.val();
        }
        self.m0.events.next.limit_stall = self.m0.aclken.val() & self.limit_stall.val();
        // Both clients may issue on one cycle, on the same counter.
        self.issued_first.next = 0.into();
        if self.clients[0].burst_issued.val() {
            self.issued_first.next = bits::<4>(1) << self.clients[0].issue_counter.val();
        }
        self.issued_second.next = 0.into();
        if self.clients[1].burst_issued.val() {
            self.issued_second.next = bits::<4>(1) << self.clients[1].issue_counter.val();
        }
        for c in 0..4 {
            if self.completed.val().get_bit(c) {
                self.outstanding[c].d.next = self.outstanding[c].q.val() - 1;
            }
            if self.issued_first.val().get_bit(c) {
                self.outstanding[c].d.next = self.outstanding[c].d.val() + 1;
            }
            if self.issued_second.val().get_bit(c) {
                self.outstanding[c].d.next = self.outstanding[c].d.val() + 1;
            }
        }
        self.quiet.next = (self.outstanding[0].q.val() == 0)
            & (self.outstanding[1].q.val() == 0)
            & (self.outstanding[2].q.val() == 0)
            & (self.outstanding[3].q.val() == 0);
    }
}
