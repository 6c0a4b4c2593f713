//! The read-address side of one AXI manager port: arbitration between the
//! DMA read channels that use the port, and the AR register.

use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// One channel's burst request; `grant` takes it into the AR register.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct ReadRequest {
    pub valid: Signal<In, Bit>,
    pub id: Signal<In, Bits<8>>,
    pub address: Signal<In, Bits<40>>,
    pub len: Signal<In, Bits<8>>,
    pub cache: Signal<In, Bits<4>>,
    pub grant: Signal<Out, Bit>,
}

/// The AR channel of one port. The command channel has priority over the
/// user DMA (its fetches are few and bounded by its buffer). The AR
/// register changes only on cycles with ACLKEN high and holds its payload
/// until ARREADY (AMBA AXI A3.2.1).
#[derive(LogicBlock, Default)]
pub struct ReadPort {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub aclken: Signal<In, Bit>,
    /// AxPROT for every burst.
    pub prot: Signal<In, Bits<3>>,
    pub command: ReadRequest,
    pub mem2mem: ReadRequest,
    pub arvalid: Signal<Out, Bit>,
    pub arid: Signal<Out, Bits<8>>,
    pub araddr: Signal<Out, Bits<40>>,
    pub arlen: Signal<Out, Bits<8>>,
    pub arcache: Signal<Out, Bits<4>>,
    pub arprot: Signal<Out, Bits<3>>,
    pub arready: Signal<In, Bit>,
    load: Signal<Local, Bit>,
    valid: ResetReg<Bit>,
    id: ResetReg<Bits<8>>,
    address: ResetReg<Bits<40>>,
    len: ResetReg<Bits<8>>,
    cache: ResetReg<Bits<4>>,
    prot_q: ResetReg<Bits<3>>,
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
        self.command.grant.next = self.load.val() & self.command.valid.val();
        self.mem2mem.grant.next =
            self.load.val() & !self.command.valid.val() & self.mem2mem.valid.val();
        if self.command.grant.val() {
            self.valid.d.next = true;
            self.id.d.next = self.command.id.val();
            self.address.d.next = self.command.address.val();
            self.len.d.next = self.command.len.val();
            self.cache.d.next = self.command.cache.val();
            self.prot_q.d.next = self.prot.val();
        }
        if self.mem2mem.grant.val() {
            self.valid.d.next = true;
            self.id.d.next = self.mem2mem.id.val();
            self.address.d.next = self.mem2mem.address.val();
            self.len.d.next = self.mem2mem.len.val();
            self.cache.d.next = self.mem2mem.cache.val();
            self.prot_q.d.next = self.prot.val();
        }
        self.arvalid.next = self.valid.q.val();
        self.arid.next = self.id.q.val();
        self.araddr.next = self.address.q.val();
        self.arlen.next = self.len.q.val();
        self.arcache.next = self.cache.q.val();
        self.arprot.next = self.prot_q.q.val();
    }
}
