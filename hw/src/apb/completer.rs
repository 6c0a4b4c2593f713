//! The APB4 completer: protocol, PCLKEN sampling and the TRM 4.1 access rule.

use super::bus::RegisterBus;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// Zero-wait-state APB4 completer with registered outputs.
///
/// The setup phase samples read data and the response; the access phase then
/// completes with PREADY high and performs a write. A transfer already in
/// its access phase when the (gated) clock starts again is sampled on that
/// edge and completes one cycle later. Inputs are sampled only
/// on clock edges with PCLKEN high, so outputs hold between them (TRM A.5).
///
/// Responses: a non-permitted read returns 0 and a non-permitted write is
/// ignored, both with PSLVERR low (TRM 4.1). An undefined address, or a write
/// with PSTRB other than 0b1111, is ignored and answered with PSLVERR high.
#[derive(LogicBlock, Default)]
pub struct ApbCompleter {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// APB4 requester side (TRM table A-21).
    pub pclken: Signal<In, Bit>,
    pub psel: Signal<In, Bit>,
    pub penable: Signal<In, Bit>,
    pub pprot: Signal<In, Bits<3>>,
    pub pwrite: Signal<In, Bit>,
    pub paddr: Signal<In, Bits<12>>,
    pub pwdata: Signal<In, Bits<32>>,
    pub pstrb: Signal<In, Bits<4>>,
    pub pready: Signal<Out, Bit>,
    pub pslverr: Signal<Out, Bit>,
    pub prdata: Signal<Out, Bits<32>>,
    /// PROT: bit 0 active_CPL, bit 1 active_CSL (CNS).
    pub prot: Signal<In, Bits<2>>,
    /// The register file.
    pub registers: RegisterBus,
    permitted: Signal<Local, Bit>,
    setup: Signal<Local, Bit>,
    complete: Signal<Local, Bit>,
    ready: ResetReg<Bit>,
    error: ResetReg<Bit>,
    rdata: ResetReg<Bits<32>>,
}

impl Logic for ApbCompleter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ready, error, rdata);
        self.ready.rst_n.next = self.rst_n.val();
        self.error.rst_n.next = self.rst_n.val();
        self.rdata.rst_n.next = self.rst_n.val();

        // TRM 4.1: permitted iff PPROT[0] >= CPL && PPROT[1] <= CNS.
        self.permitted.next = (self.pprot.val().get_bit(0) | !self.prot.val().get_bit(0))
            & (!self.pprot.val().get_bit(1) | self.prot.val().get_bit(1));
        // The setup phase, or the first edge of a transfer whose setup phase
        // the completer missed while its clock was gated (the transfer then
        // completes with one wait state).
        self.setup.next = self.pclken.val() & self.psel.val() & !self.ready.q.val();
        self.complete.next =
            self.pclken.val() & self.psel.val() & self.penable.val() & self.ready.q.val();

        // An undefined address takes no write: no register matches it.
        self.registers.addr.next = self.paddr.val();
        self.registers.wdata.next = self.pwdata.val();
        self.registers.write.next = self.complete.val()
            & self.pwrite.val()
            & self.permitted.val()
            & (self.pstrb.val() == 15);

        if self.setup.val() {
            self.ready.d.next = true;
            self.error.d.next =
                !self.registers.defined.val() | (self.pwrite.val() & (self.pstrb.val() != 15));
            self.rdata.d.next = 0.into();
            if !self.pwrite.val() & self.permitted.val() {
                self.rdata.d.next = self.registers.rdata.val();
            }
        }
        if self.complete.val() {
            self.ready.d.next = false;
            self.error.d.next = false;
            self.rdata.d.next = 0.into();
        }

        self.pready.next = self.ready.q.val();
        self.pslverr.next = self.error.q.val();
        self.prdata.next = self.rdata.q.val();
    }
}
