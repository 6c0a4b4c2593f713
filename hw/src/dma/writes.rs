//! The write side of the DMA: every write channel is a [`WriteClient`], and
//! one [`WriteRouter`] serves them all through M0 and M1.
//!
//! A client's writes go out on the port of its region's outstanding counter
//! (REGIONCFG: counters 0 and 1 on M0, 2 and 3 on M1, TRM 4.2.13), with
//! that counter's AXI_LIMITn write limit (TRM 4.2.14-17). A client keeps
//! every burst it has outstanding on one counter (a burst to another
//! counter waits until they are answered), so its AW, W and B channels are
//! those of one port at a time: `counter` names it, and `aclken` is that
//! port's ACLKEN. Each port is a [`WritePort`]: the two move data at once.
//!
//! Client `i` has the AWID `ids[i]` and the STATUS.faulting_channel code
//! `channels[i]`. The router counts outstanding writes per counter from the
//! issue to the response and reports the first response that answers
//! SLVERR or DECERR, with its port (STATUS.faulting_interface).

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
    /// registers are free (client 0 keeps its port's AW channel for it).
    pub waiting: Signal<Out, Bit>,
    /// The outstanding counter of the client's bursts in flight, or with
    /// none of the next one; the ACLKEN of its port; whether the counter
    /// has room; a burst issued this cycle (counted from here).
    pub counter: Signal<Out, Bits<2>>,
    pub aclken: Signal<In, Bit>,
    pub may_issue: Signal<In, Bit>,
    pub burst_issued: Signal<Out, Bit>,
    /// A write response of this client.
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
    pub counter: Signal<In, Bits<2>>,
    pub aclken: Signal<Out, Bit>,
    pub may_issue: Signal<Out, Bit>,
    pub burst_issued: Signal<In, Bit>,
    pub b_valid: Signal<Out, Bit>,
    pub limit_stall: Signal<In, Bit>,
}

/// The AW, W and B channels of one AXI manager port, and what the PMU
/// counts of them.
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

/// Clients of the router; a port's order queue holds their indices.
const CLIENTS: usize = 2;

/// Client `i` as one port sees it: its channels, and whether its
/// `counter` is on this port (`active`); what the port answers it.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct PortClient {
    pub active: Signal<In, Bit>,
    pub awvalid: Signal<In, Bit>,
    pub awaddr: Signal<In, Bits<40>>,
    pub awlen: Signal<In, Bits<8>>,
    pub awcache: Signal<In, Bits<4>>,
    pub wvalid: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<128>>,
    pub wstrb: Signal<In, Bits<16>>,
    pub wlast: Signal<In, Bit>,
    pub waiting: Signal<In, Bit>,
    pub counter: Signal<In, Bits<2>>,
    pub limit_stall: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    pub wready: Signal<Out, Bit>,
    pub b_valid: Signal<Out, Bit>,
}

/// The AW, W and B channels of one port, shared by the clients whose
/// counter is on it. A lower index wins the AW channel, and client 0 also
/// holds it while it is `waiting`: a burst of its is ready but its address
/// registers are still busy with the last one, whose data waits behind
/// another client's burst (AXI4 writes data in address order), so that the
/// other client's next burst does not cut in after every one of its. An
/// address presented and not yet accepted stays presented (AXI: AWVALID
/// never drops and the payload never changes before AWREADY). Write data
/// follows the order of the accepted addresses (an order queue of client
/// indices); when no accepted address waits for data, the presented
/// address's data goes out beside it (AXI lets W lead or join its AW), so a
/// single-beat write takes one cycle, not two. Responses go back by BID.
#[derive(LogicBlock)]
pub struct WritePort {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The router's clients, all of them.
    pub clients: Vec<PortClient>,
    pub axi: WritePortSignals,
    /// A response of this port this cycle: its client's counter, and
    /// whether it answers SLVERR or DECERR with that client's channel code.
    pub completed: Signal<Out, Bits<4>>,
    pub error: Signal<Out, Bit>,
    pub error_channel: Signal<Out, Bits<4>>,
    ids: Vec<Constant<Bits<8>>>,
    channels: Vec<Constant<Bits<4>>>,
    order: Fifo<Bit, 2, 3>,
    awvalid: Signal<Local, Bits<CLIENTS>>,
    waiting: Signal<Local, Bits<CLIENTS>>,
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
    /// A response is on the bus at an enabled edge; it answers a client.
    b_taken: Signal<Local, Bit>,
    b_matched: Signal<Local, Bit>,
    aw_fire: Signal<Local, Bit>,
}

impl WritePort {
    /// A port for clients with these AWIDs and faulting-channel codes,
    /// highest priority first.
    pub fn new(clients: &[(u8, u32); CLIENTS]) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            clients: clients.iter().map(|_| Default::default()).collect(),
            axi: Default::default(),
            completed: Default::default(),
            error: Default::default(),
            error_channel: Default::default(),
            ids: clients::ids(clients),
            channels: clients::channels(clients),
            order: Default::default(),
            awvalid: Default::default(),
            waiting: Default::default(),
            pick: Default::default(),
            held: Default::default(),
            held_client: Default::default(),
            w_client: Default::default(),
            w_open: Default::default(),
            w_last_fire: Default::default(),
            w_ahead: Default::default(),
            b_taken: Default::default(),
            b_matched: Default::default(),
            aw_fire: Default::default(),
        }
    }
}

impl Logic for WritePort {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, held_client, w_ahead);
        self.w_ahead.rst_n.next = self.rst_n.val();
        self.held.rst_n.next = self.rst_n.val();
        self.held_client.rst_n.next = self.rst_n.val();
        self.order.clock.next = self.clock.val();
        self.order.rst_n.next = self.rst_n.val();
        self.awvalid.next = 0.into();
        self.waiting.next = 0.into();
        for i in 0..CLIENTS {
            if self.clients[i].active.val() {
                self.awvalid.next = self
                    .awvalid
                    .val()
                    .replace_bit(i, self.clients[i].awvalid.val());
                self.waiting.next = self
                    .waiting
                    .val()
                    .replace_bit(i, self.clients[i].waiting.val());
            }
        }

        // ---- AW: a presented address stays until accepted ----
        self.pick.next = (self.awvalid.val().get_bit(1) | self.waiting.val().get_bit(1))
            & !self.awvalid.val().get_bit(0)
            & !self.waiting.val().get_bit(0);
        if self.held.q.val() {
            self.pick.next = self.held_client.q.val();
        }
        self.axi.awvalid.next = false;
        self.axi.awid.next = 0.into();
        self.axi.awaddr.next = 0.into();
        self.axi.awlen.next = 0.into();
        self.axi.awcache.next = 0.into();
        self.axi.events.next.aw_channel = 0.into();
        self.axi.events.next.aw_counter = 0.into();
        for i in 0..CLIENTS {
            self.clients[i].awready.next = false;
            if self.pick.val() == (i == 1) {
                self.axi.awvalid.next = self.awvalid.val().get_bit(i) & self.order.tail.ready.val();
                self.axi.awid.next = self.ids[i].val();
                self.axi.awaddr.next = self.clients[i].awaddr.val();
                self.axi.awlen.next = self.clients[i].awlen.val();
                self.axi.awcache.next = self.clients[i].awcache.val();
                self.axi.events.next.aw_channel = self.channels[i].val();
                self.axi.events.next.aw_counter = self.clients[i].counter.val();
                self.clients[i].awready.next = self.clients[i].active.val()
                    & self.axi.awready.val()
                    & self.order.tail.ready.val();
            }
        }
        self.aw_fire.next = self.axi.aclken.val() & self.axi.awvalid.val() & self.axi.awready.val();
        self.axi.events.next.aw_accepted = self.aw_fire.val();
        self.axi.events.next.aw_stalled =
            self.axi.aclken.val() & self.axi.awvalid.val() & !self.axi.awready.val();
        if self.axi.aclken.val() {
            self.held.d.next = self.axi.awvalid.val() & !self.axi.awready.val();
            self.held_client.d.next = self.pick.val();
        }
        self.order.tail.data.next = self.pick.val();

        // ---- W: in the order of the accepted addresses, then the presented one's ----
        self.w_client.next = self.order.head.data.val();
        self.w_open.next = self.order.head.valid.val();
        if !self.order.head.valid.val() {
            self.w_client.next = self.pick.val();
            self.w_open.next = self.axi.awvalid.val() & !self.w_ahead.q.val();
        }
        self.axi.wvalid.next = false;
        self.axi.wdata.next = 0.into();
        self.axi.wstrb.next = 0.into();
        self.axi.wlast.next = false;
        self.axi.events.next.w_channel = 0.into();
        for i in 0..CLIENTS {
            self.clients[i].wready.next = false;
            if self.w_open.val() & (self.w_client.val() == (i == 1)) {
                self.axi.wvalid.next = self.clients[i].wvalid.val();
                self.axi.wdata.next = self.clients[i].wdata.val();
                self.axi.wstrb.next = self.clients[i].wstrb.val();
                self.axi.wlast.next = self.clients[i].wlast.val();
                self.axi.events.next.w_channel = self.channels[i].val();
                self.clients[i].wready.next = self.axi.wready.val();
            }
        }
        self.axi.events.next.w_beat =
            self.axi.aclken.val() & self.axi.wvalid.val() & self.axi.wready.val();
        self.axi.events.next.w_stalled =
            self.axi.aclken.val() & self.axi.wvalid.val() & !self.axi.wready.val();
        self.w_last_fire.next = self.axi.aclken.val()
            & self.axi.wvalid.val()
            & self.axi.wready.val()
            & self.axi.wlast.val();
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

        // ---- B: by BID, to a client whose writes are on this port; a BID
        // of neither is taken and ignored, as the read side ignores an RID ----
        self.b_taken.next = self.axi.bvalid.val() & self.axi.aclken.val();
        self.axi.events.next.b_response = self.b_taken.val();
        self.axi.events.next.b_channel = self.channels[0].val();
        self.axi.events.next.b_counter = self.clients[0].counter.val();
        if self.axi.bid.val() == self.ids[1].val() {
            self.axi.events.next.b_channel = self.channels[1].val();
            self.axi.events.next.b_counter = self.clients[1].counter.val();
        }
        self.completed.next = 0.into();
        self.b_matched.next = false;
        for i in 0..CLIENTS {
            self.clients[i].b_valid.next = self.b_taken.val()
                & self.clients[i].active.val()
                & (self.axi.bid.val() == self.ids[i].val());
            if self.clients[i].b_valid.val() {
                self.completed.next = bits::<4>(1) << self.clients[i].counter.val();
                self.b_matched.next = true;
            }
        }
        self.error.next = self.b_matched.val() & self.axi.bresp.val().get_bit(1);
        self.error_channel.next = self.axi.events.val().b_channel;

        self.axi.events.next.limit_stall = false;
        for i in 0..CLIENTS {
            if self.clients[i].active.val() & self.clients[i].limit_stall.val() {
                self.axi.events.next.limit_stall = self.axi.aclken.val();
            }
        }
    }
}

#[derive(LogicBlock)]
pub struct WriteRouter {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// AXI_LIMIT0-3.
    pub axi_limit: Vec<Signal<In, Bits<32>>>,
    pub clients: Vec<WriteClientPort>,
    pub m0: WritePortSignals,
    pub m1: WritePortSignals,
    /// No write is outstanding (issued and not yet answered).
    pub quiet: Signal<Out, Bit>,
    /// A response answered SLVERR or DECERR this cycle: its client's
    /// channel code and port (M0's first when both answer one).
    pub error: Signal<Out, Bit>,
    pub error_channel: Signal<Out, Bits<4>>,
    pub error_interface: Signal<Out, Bit>,
    writes_m1_lsb: Constant<Bits<5>>,
    /// M0's and M1's channels.
    port0: WritePort,
    port1: WritePort,
    limit: Signal<Local, Bits<32>>,
    limit_m1: Signal<Local, Bits<7>>,
    room: Signal<Local, Bits<4>>,
    /// Counters with one write left, and those with room for client 1.
    last_slot: Signal<Local, Bits<4>>,
    room_second: Signal<Local, Bits<4>>,
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
            m1: Default::default(),
            quiet: Default::default(),
            error: Default::default(),
            error_channel: Default::default(),
            error_interface: Default::default(),
            writes_m1_lsb: Constant::new(u64::from(writes_m1_lsb).into()),
            port0: WritePort::new(clients),
            port1: WritePort::new(clients),
            limit: Default::default(),
            limit_m1: Default::default(),
            room: Default::default(),
            last_slot: Default::default(),
            room_second: Default::default(),
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
        self.port0.clock.next = self.clock.val();
        self.port0.rst_n.next = self.rst_n.val();
        self.port1.clock.next = self.clock.val();
        self.port1.rst_n.next = self.rst_n.val();
        for c in 0..4 {
            self.outstanding[c].clock.next = self.clock.val();
            self.outstanding[c].rst_n.next = self.rst_n.val();
            self.outstanding[c].d.next = self.outstanding[c].q.val();
        }

        // ---- The ports: M0's and M1's channels ----
        self.port0.axi.aclken.next = self.m0.aclken.val();
        self.port0.axi.awready.next = self.m0.awready.val();
        self.port0.axi.wready.next = self.m0.wready.val();
        self.port0.axi.bvalid.next = self.m0.bvalid.val();
        self.port0.axi.bid.next = self.m0.bid.val();
        self.port0.axi.bresp.next = self.m0.bresp.val();
        self.m0.awvalid.next = self.port0.axi.awvalid.val();
        self.m0.awid.next = self.port0.axi.awid.val();
        self.m0.awaddr.next = self.port0.axi.awaddr.val();
        self.m0.awlen.next = self.port0.axi.awlen.val();
        self.m0.awcache.next = self.port0.axi.awcache.val();
        self.m0.wvalid.next = self.port0.axi.wvalid.val();
        self.m0.wdata.next = self.port0.axi.wdata.val();
        self.m0.wstrb.next = self.port0.axi.wstrb.val();
        self.m0.wlast.next = self.port0.axi.wlast.val();
        self.m0.events.next = self.port0.axi.events.val();
        self.port1.axi.aclken.next = self.m1.aclken.val();
        self.port1.axi.awready.next = self.m1.awready.val();
        self.port1.axi.wready.next = self.m1.wready.val();
        self.port1.axi.bvalid.next = self.m1.bvalid.val();
        self.port1.axi.bid.next = self.m1.bid.val();
        self.port1.axi.bresp.next = self.m1.bresp.val();
        self.m1.awvalid.next = self.port1.axi.awvalid.val();
        self.m1.awid.next = self.port1.axi.awid.val();
        self.m1.awaddr.next = self.port1.axi.awaddr.val();
        self.m1.awlen.next = self.port1.axi.awlen.val();
        self.m1.awcache.next = self.port1.axi.awcache.val();
        self.m1.wvalid.next = self.port1.axi.wvalid.val();
        self.m1.wdata.next = self.port1.axi.wdata.val();
        self.m1.wstrb.next = self.port1.axi.wstrb.val();
        self.m1.wlast.next = self.port1.axi.wlast.val();
        self.m1.events.next = self.port1.axi.events.val();

        // ---- Each client on the port of its counter (bit 1: M1) ----
        for i in 0..CLIENTS {
            self.port0.clients[i].active.next = !self.clients[i].counter.val().get_bit(1);
            self.port1.clients[i].active.next = self.clients[i].counter.val().get_bit(1);
            self.port0.clients[i].awvalid.next = self.clients[i].awvalid.val();
            self.port1.clients[i].awvalid.next = self.clients[i].awvalid.val();
            self.port0.clients[i].awaddr.next = self.clients[i].awaddr.val();
            self.port1.clients[i].awaddr.next = self.clients[i].awaddr.val();
            self.port0.clients[i].awlen.next = self.clients[i].awlen.val();
            self.port1.clients[i].awlen.next = self.clients[i].awlen.val();
            self.port0.clients[i].awcache.next = self.clients[i].awcache.val();
            self.port1.clients[i].awcache.next = self.clients[i].awcache.val();
            self.port0.clients[i].wvalid.next = self.clients[i].wvalid.val();
            self.port1.clients[i].wvalid.next = self.clients[i].wvalid.val();
            self.port0.clients[i].wdata.next = self.clients[i].wdata.val();
            self.port1.clients[i].wdata.next = self.clients[i].wdata.val();
            self.port0.clients[i].wstrb.next = self.clients[i].wstrb.val();
            self.port1.clients[i].wstrb.next = self.clients[i].wstrb.val();
            self.port0.clients[i].wlast.next = self.clients[i].wlast.val();
            self.port1.clients[i].wlast.next = self.clients[i].wlast.val();
            self.port0.clients[i].waiting.next = self.clients[i].waiting.val();
            self.port1.clients[i].waiting.next = self.clients[i].waiting.val();
            self.port0.clients[i].counter.next = self.clients[i].counter.val();
            self.port1.clients[i].counter.next = self.clients[i].counter.val();
            self.port0.clients[i].limit_stall.next = self.clients[i].limit_stall.val();
            self.port1.clients[i].limit_stall.next = self.clients[i].limit_stall.val();
            self.clients[i].awready.next =
                self.port0.clients[i].awready.val() | self.port1.clients[i].awready.val();
            self.clients[i].wready.next =
                self.port0.clients[i].wready.val() | self.port1.clients[i].wready.val();
            self.clients[i].b_valid.next =
                self.port0.clients[i].b_valid.val() | self.port1.clients[i].b_valid.val();
            self.clients[i].aclken.next = self.m0.aclken.val();
            if self.clients[i].counter.val().get_bit(1) {
                self.clients[i].aclken.next = self.m1.aclken.val();
            }
        }
        self.error.next = self.port0.error.val() | self.port1.error.val();
        self.error_channel.next = self.port1.error_channel.val();
        self.error_interface.next = true;
        if self.port0.error.val() {
            self.error_channel.next = self.port0.error_channel.val();
            self.error_interface.next = false;
        }

        // ---- Outstanding writes per counter: room while count <= limit - 1
        // (the field's bits above the TRM range 0-31 are ignored) ----
        self.room.next = 0.into();
        self.last_slot.next = 0.into();
        for c in 0..4 {
            self.limit.next = self.axi_limit[c].val() >> self.writes_m1_lsb.val();
            self.limit_m1.next = bit_cast::<7, 5>(self.limit.val().get_bits::<5>(0));
            if self.outstanding[c].q.val() <= self.limit_m1.val() {
                self.room.next = self.room.val().replace_bit(c, true);
            }
            if self.outstanding[c].q.val() == self.limit_m1.val() {
                self.last_slot.next = self.last_slot.val().replace_bit(c, true);
            }
        }
        // Both clients may issue on one cycle on one counter, but its last
        // slot goes to client 0 alone (TRM 4.2.14: the limit is the counter's).
        self.issued_first.next = 0.into();
        if self.clients[0].burst_issued.val() {
            self.issued_first.next = bits::<4>(1) << self.clients[0].counter.val();
        }
        self.room_second.next = self.room.val() & !(self.issued_first.val() & self.last_slot.val());
        self.clients[0].may_issue.next =
            (self.room.val() & (bits::<4>(1) << self.clients[0].counter.val())) != 0;
        self.clients[1].may_issue.next =
            (self.room_second.val() & (bits::<4>(1) << self.clients[1].counter.val())) != 0;
        self.issued_second.next = 0.into();
        if self.clients[1].burst_issued.val() {
            self.issued_second.next = bits::<4>(1) << self.clients[1].counter.val();
        }
        // A counter is on one port, whose one response a cycle answers it.
        self.completed.next = self.port0.completed.val() | self.port1.completed.val();
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
