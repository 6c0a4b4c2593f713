//! The read side of the DMA: every read channel is a [`ReadClient`], and one
//! [`ReadRouter`] serves them all through M0 and M1 (TRM 3.3.3).
//!
//! The router takes its clients as a table: client `i` has the ARID
//! `ids[i]` (TRM tables) and the STATUS.faulting_channel code
//! `channels[i]` (also its PMCAXI_CHAN.CH_SEL code), and a lower index wins
//! the AR channel of a port. Per client, its region's outstanding counter
//! (REGIONCFG, QCONFIG: 0 and 1 on M0, 2 and 3 on M1) picks the port; read
//! beats come back by RID. The router counts the outstanding reads of each
//! counter against AXI_LIMITn (TRM 4.2.14-17) and reports the first read that
//! answers SLVERR or DECERR. Each port's [`ReadPort`] derives what the PMU
//! counts of it (TRM 4.5.5).

use super::clients;
use super::events::ReadEvents;
use super::port::ReadPort;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// A read channel as the router sees it.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "ReadClientPort"]
pub struct ReadClient {
    /// A burst to read; `grant` takes it. Requested only while `may_issue`.
    pub request: Signal<Out, Bit>,
    pub address: Signal<Out, Bits<40>>,
    pub len: Signal<Out, Bits<8>>,
    pub grant: Signal<In, Bit>,
    /// The outstanding counter of the transfer's region, and its ARCACHE.
    pub counter: Signal<Out, Bits<2>>,
    pub cache: Signal<Out, Bits<4>>,
    /// The counter has room for one more burst.
    pub may_issue: Signal<In, Bit>,
    /// A burst is ready but `may_issue` holds it back (for the PMU).
    pub limit_stall: Signal<Out, Bit>,
    /// A read beat of this client, and its data.
    pub beat: Signal<In, Bit>,
    pub data: Signal<In, Bits<128>>,
}

/// The router's side of a [`ReadClient`].
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "ReadClient"]
pub struct ReadClientPort {
    pub request: Signal<In, Bit>,
    pub address: Signal<In, Bits<40>>,
    pub len: Signal<In, Bits<8>>,
    pub grant: Signal<Out, Bit>,
    pub counter: Signal<In, Bits<2>>,
    pub cache: Signal<In, Bits<4>>,
    pub may_issue: Signal<Out, Bit>,
    pub limit_stall: Signal<In, Bit>,
    pub beat: Signal<Out, Bit>,
    pub data: Signal<Out, Bits<128>>,
}

/// The AR and R channels of one AXI manager port, and what the PMU counts
/// of them.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct ReadPortSignals {
    pub aclken: Signal<In, Bit>,
    pub arvalid: Signal<Out, Bit>,
    pub arid: Signal<Out, Bits<8>>,
    pub araddr: Signal<Out, Bits<40>>,
    pub arlen: Signal<Out, Bits<8>>,
    pub arcache: Signal<Out, Bits<4>>,
    pub arprot: Signal<Out, Bits<3>>,
    pub arready: Signal<In, Bit>,
    pub rvalid: Signal<In, Bit>,
    pub rid: Signal<In, Bits<8>>,
    pub rdata: Signal<In, Bits<128>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rlast: Signal<In, Bit>,
    pub events: Signal<Out, ReadEvents>,
}

#[derive(LogicBlock)]
pub struct ReadRouter {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// AxPROT of every burst.
    pub prot: Signal<In, Bits<3>>,
    /// AXI_LIMIT0-3.
    pub axi_limit: Vec<Signal<In, Bits<32>>>,
    pub clients: Vec<ReadClientPort>,
    pub m0: ReadPortSignals,
    pub m1: ReadPortSignals,
    /// No read is outstanding (granted and not yet answered in full).
    pub quiet: Signal<Out, Bit>,
    /// A read beat answered SLVERR or DECERR this cycle: the first such
    /// client's channel code and port.
    pub error: Signal<Out, Bit>,
    pub error_channel: Signal<Out, Bits<4>>,
    pub error_interface: Signal<Out, Bit>,
    ids: Vec<Constant<Bits<8>>>,
    channels: Vec<Constant<Bits<4>>>,
    reads_m1_lsb: Constant<Bits<5>>,
    port0: ReadPort,
    port1: ReadPort,
    limit: Signal<Local, Bits<32>>,
    room: Signal<Local, Bits<4>>,
    issued: Signal<Local, Bits<4>>,
    completed: Signal<Local, Bits<4>>,
    rlast: Signal<Local, Bit>,
    rresp: Signal<Local, Bits<2>>,
    outstanding: Vec<ResetReg<Bits<7>>>,
}

impl ReadRouter {
    /// A router for clients with these ARIDs and faulting-channel codes,
    /// highest priority first.
    pub fn new(clients: &[(u8, u32)], reads_m1_lsb: u32) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            prot: Default::default(),
            axi_limit: (0..4).map(|_| Default::default()).collect(),
            clients: clients.iter().map(|_| Default::default()).collect(),
            m0: Default::default(),
            m1: Default::default(),
            quiet: Default::default(),
            error: Default::default(),
            error_channel: Default::default(),
            error_interface: Default::default(),
            ids: clients::ids(clients),
            channels: clients::channels(clients),
            reads_m1_lsb: Constant::new(u64::from(reads_m1_lsb).into()),
            port0: ReadPort::new(clients),
            port1: ReadPort::new(clients),
            limit: Default::default(),
            room: Default::default(),
            issued: Default::default(),
            completed: Default::default(),
            rlast: Default::default(),
            rresp: Default::default(),
            outstanding: (0..4).map(|_| Default::default()).collect(),
        }
    }
}

impl Logic for ReadRouter {
    #[hdl_gen]
    fn update(&mut self) {
        self.port0.clock.next = self.clock.val();
        self.port0.rst_n.next = self.rst_n.val();
        self.port1.clock.next = self.clock.val();
        self.port1.rst_n.next = self.rst_n.val();
        self.port0.aclken.next = self.m0.aclken.val();
        self.port1.aclken.next = self.m1.aclken.val();
        self.port0.prot.next = self.prot.val();
        self.port1.prot.next = self.prot.val();
        self.port0.arready.next = self.m0.arready.val();
        self.port1.arready.next = self.m1.arready.val();
        self.port0.rvalid.next = self.m0.rvalid.val();
        self.port1.rvalid.next = self.m1.rvalid.val();
        self.port0.rid.next = self.m0.rid.val();
        self.port1.rid.next = self.m1.rid.val();
        self.port0.rlast.next = self.m0.rlast.val();
        self.port1.rlast.next = self.m1.rlast.val();
        self.m0.events.next = self.port0.events.val();
        self.m1.events.next = self.port1.events.val();
        self.m0.arvalid.next = self.port0.arvalid.val();
        self.m0.arid.next = self.port0.arid.val();
        self.m0.araddr.next = self.port0.araddr.val();
        self.m0.arlen.next = self.port0.arlen.val();
        self.m0.arcache.next = self.port0.arcache.val();
        self.m0.arprot.next = self.port0.arprot.val();
        self.m1.arvalid.next = self.port1.arvalid.val();
        self.m1.arid.next = self.port1.arid.val();
        self.m1.araddr.next = self.port1.araddr.val();
        self.m1.arlen.next = self.port1.arlen.val();
        self.m1.arcache.next = self.port1.arcache.val();
        self.m1.arprot.next = self.port1.arprot.val();

        // Room on each counter: count <= limit - 1 (the field's bits above
        // the TRM range 0-63 are reserved and ignored).
        self.room.next = 0.into();
        for c in 0..4 {
            self.outstanding[c].clock.next = self.clock.val();
            self.outstanding[c].rst_n.next = self.rst_n.val();
            self.outstanding[c].d.next = self.outstanding[c].q.val();
            self.limit.next = self.axi_limit[c].val() >> self.reads_m1_lsb.val();
            if self.outstanding[c].q.val() <= bit_cast::<7, 6>(self.limit.val().get_bits::<6>(0)) {
                self.room.next = self.room.val().replace_bit(c, true);
            }
        }

        self.issued.next = 0.into();
        self.completed.next = 0.into();
        self.error.next = false;
        self.error_channel.next = 0.into();
        self.error_interface.next = false;
        for i in 0..self.clients.len() {
            // AR: on the port of the client's counter.
            self.clients[i].may_issue.next =
                (self.room.val() & (bits::<4>(1) << self.clients[i].counter.val())) != 0;
            self.port0.requests[i].valid.next =
                self.clients[i].request.val() & !self.clients[i].counter.val().get_bit(1);
            self.port1.requests[i].valid.next =
                self.clients[i].request.val() & self.clients[i].counter.val().get_bit(1);
            self.port0.requests[i].address.next = self.clients[i].address.val();
            self.port1.requests[i].address.next = self.clients[i].address.val();
            self.port0.requests[i].len.next = self.clients[i].len.val();
            self.port1.requests[i].len.next = self.clients[i].len.val();
            self.port0.requests[i].cache.next = self.clients[i].cache.val();
            self.port1.requests[i].cache.next = self.clients[i].cache.val();
            self.port0.requests[i].counter.next = self.clients[i].counter.val();
            self.port1.requests[i].counter.next = self.clients[i].counter.val();
            self.port0.requests[i].limit_stall.next =
                self.clients[i].limit_stall.val() & !self.clients[i].counter.val().get_bit(1);
            self.port1.requests[i].limit_stall.next =
                self.clients[i].limit_stall.val() & self.clients[i].counter.val().get_bit(1);
            self.clients[i].grant.next =
                self.port0.requests[i].grant.val() | self.port1.requests[i].grant.val();
            if self.clients[i].grant.val() {
                self.issued.next =
                    self.issued.val() | (bits::<4>(1) << self.clients[i].counter.val());
            }

            // R: beats by RID on the client's port.
            if self.clients[i].counter.val().get_bit(1) {
                self.clients[i].beat.next = self.m1.rvalid.val()
                    & self.m1.aclken.val()
                    & (self.m1.rid.val() == self.ids[i].val());
                self.clients[i].data.next = self.m1.rdata.val();
                self.rlast.next = self.m1.rlast.val();
                self.rresp.next = self.m1.rresp.val();
            } else {
                self.clients[i].beat.next = self.m0.rvalid.val()
                    & self.m0.aclken.val()
                    & (self.m0.rid.val() == self.ids[i].val());
                self.clients[i].data.next = self.m0.rdata.val();
                self.rlast.next = self.m0.rlast.val();
                self.rresp.next = self.m0.rresp.val();
            }
            if self.clients[i].beat.val() & self.rlast.val() {
                self.completed.next =
                    self.completed.val() | (bits::<4>(1) << self.clients[i].counter.val());
            }
            // RRESP bit 1: SLVERR or DECERR.
            if self.clients[i].beat.val() & self.rresp.val().get_bit(1) & !self.error.val() {
                self.error.next = true;
                self.error_channel.next = self.channels[i].val();
                self.error_interface.next = self.clients[i].counter.val().get_bit(1);
            }
        }

        // One grant and at most one last beat per counter per cycle (a
        // counter is on one port).
        self.quiet.next = true;
        for c in 0..4 {
            if self.issued.val().get_bit(c) & !self.completed.val().get_bit(c) {
                self.outstanding[c].d.next = self.outstanding[c].q.val() + 1;
            }
            if !self.issued.val().get_bit(c) & self.completed.val().get_bit(c) {
                self.outstanding[c].d.next = self.outstanding[c].q.val() - 1;
            }
            if self.outstanding[c].q.val() != 0 {
                self.quiet.next = false;
            }
        }
    }
}
