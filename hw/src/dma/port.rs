//! The read-address side of one AXI manager port: arbitration between the
//! DMA read channels that use the port, the AR register, and the port's read
//! events for the PMU.

use super::clients;
use super::events::ReadEvents;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// One channel's burst request; `grant` takes it into the AR register.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct ReadRequest {
    pub valid: Signal<In, Bit>,
    pub address: Signal<In, Bits<40>>,
    pub len: Signal<In, Bits<8>>,
    pub cache: Signal<In, Bits<4>>,
    pub grant: Signal<Out, Bit>,
    /// For the events of the channel's bursts on AR and R (matched by ID):
    /// its outstanding counter; its burst for this port is held back by the
    /// counter's limit.
    pub counter: Signal<In, Bits<2>>,
    pub limit_stall: Signal<In, Bit>,
}

/// The AR channel of one port, shared by `requests` in priority order (the
/// lowest index first: the command stream, whose fetches are few and bounded
/// by its buffer, before the user DMA). The AR register changes only on
/// cycles with ACLKEN high and holds its payload until ARREADY (AMBA AXI
/// A3.2.1). `events` is what the PMU counts of the port's AR and R channels
/// (TRM table 4-79), the burst on AR and the beat on R attributed by ID.
#[derive(LogicBlock)]
pub struct ReadPort {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub aclken: Signal<In, Bit>,
    /// AxPROT for every burst.
    pub prot: Signal<In, Bits<3>>,
    pub requests: Vec<ReadRequest>,
    pub arvalid: Signal<Out, Bit>,
    pub arid: Signal<Out, Bits<8>>,
    pub araddr: Signal<Out, Bits<40>>,
    pub arlen: Signal<Out, Bits<8>>,
    pub arcache: Signal<Out, Bits<4>>,
    pub arprot: Signal<Out, Bits<3>>,
    pub arready: Signal<In, Bit>,
    /// The R channel's handshake, ID and last-beat flag (RREADY is high).
    pub rvalid: Signal<In, Bit>,
    pub rid: Signal<In, Bits<8>>,
    pub rlast: Signal<In, Bit>,
    pub events: Signal<Out, ReadEvents>,
    load: Signal<Local, Bit>,
    /// A request for this port is held back by its outstanding limit.
    limit_stall: Signal<Local, Bit>,
    /// A request of higher priority was granted this cycle.
    granted: Signal<Local, Bit>,
    /// Per request: its channel's ARID and PMCAXI_CHAN.CH_SEL code.
    ids: Vec<Constant<Bits<8>>>,
    channels: Vec<Constant<Bits<4>>>,
    valid: ResetReg<Bit>,
    id: ResetReg<Bits<8>>,
    address: ResetReg<Bits<40>>,
    len: ResetReg<Bits<8>>,
    cache: ResetReg<Bits<4>>,
    prot_q: ResetReg<Bits<3>>,
}

impl ReadPort {
    /// A port shared by read channels with these ARIDs and faulting-channel
    /// codes (the router's client table), highest priority first.
    pub fn new(requesters: &[(u8, u32)]) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            aclken: Default::default(),
            prot: Default::default(),
            requests: requesters.iter().map(|_| Default::default()).collect(),
            arvalid: Default::default(),
            arid: Default::default(),
            araddr: Default::default(),
            arlen: Default::default(),
            arcache: Default::default(),
            arprot: Default::default(),
            arready: Default::default(),
            rvalid: Default::default(),
            rid: Default::default(),
            rlast: Default::default(),
            events: Default::default(),
            load: Default::default(),
            limit_stall: Default::default(),
            granted: Default::default(),
            ids: clients::ids(requesters),
            channels: clients::channels(requesters),
            valid: Default::default(),
            id: Default::default(),
            address: Default::default(),
            len: Default::default(),
            cache: Default::default(),
            prot_q: Default::default(),
        }
    }
}

impl Logic for ReadPort {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, id, address, len, cache, prot_q);
        self.valid.rst_n.next = self.rst_n.val();
        self.id.rst_n.next = self.rst_n.val();
        self.address.rst_n.next = self.rst_n.val();
        self.len.rst_n.next = self.rst_n.val();
        self.cache.rst_n.next = self.rst_n.val();
        self.prot_q.rst_n.next = self.rst_n.val();

        if self.aclken.val() & self.valid.q.val() & self.arready.val() {
            self.valid.d.next = false;
        }
        self.load.next = self.aclken.val() & (!self.valid.q.val() | self.arready.val());
        self.granted.next = false;
        for i in 0..self.requests.len() {
            self.requests[i].grant.next =
                self.load.val() & self.requests[i].valid.val() & !self.granted.val();
            if self.requests[i].grant.val() {
                self.granted.next = true;
                self.valid.d.next = true;
                self.id.d.next = self.ids[i].val();
                self.address.d.next = self.requests[i].address.val();
                self.len.d.next = self.requests[i].len.val();
                self.cache.d.next = self.requests[i].cache.val();
                self.prot_q.d.next = self.prot.val();
            }
        }
        self.arvalid.next = self.valid.q.val();
        self.arid.next = self.id.q.val();
        self.araddr.next = self.address.q.val();
        self.arlen.next = self.len.q.val();
        self.arcache.next = self.cache.q.val();
        self.arprot.next = self.prot_q.q.val();

        // ---- Events, qualified with ACLKEN ----
        self.events.next.ar_accepted = self.aclken.val() & self.valid.q.val() & self.arready.val();
        self.events.next.ar_stalled = self.aclken.val() & self.valid.q.val() & !self.arready.val();
        self.events.next.r_beat = self.aclken.val() & self.rvalid.val();
        self.events.next.r_last = self.rlast.val();
        self.events.next.ar_channel = 0.into();
        self.events.next.ar_counter = 0.into();
        self.events.next.r_channel = 0.into();
        self.events.next.r_counter = 0.into();
        self.limit_stall.next = false;
        for i in 0..self.requests.len() {
            if self.id.q.val() == self.ids[i].val() {
                self.events.next.ar_channel = self.channels[i].val();
                self.events.next.ar_counter = self.requests[i].counter.val();
            }
            if self.rid.val() == self.ids[i].val() {
                self.events.next.r_channel = self.channels[i].val();
                self.events.next.r_counter = self.requests[i].counter.val();
            }
            if self.requests[i].limit_stall.val() {
                self.limit_stall.next = true;
            }
        }
        self.events.next.limit_stall = self.aclken.val() & self.limit_stall.val();
    }
}
