//! The NPU top level. Port names are the TRM appendix A signal names; the
//! AXI managers are bundles that the emitted wrapper flattens to `xxxMn`.

use crate::apb::{ApbCompleter, RegisterFile};
use crate::axi::{AxiManagerPort, IdleAxiManager};
use crate::cpm::Cpm;
use npu_spec::config::NpuConfig;
use rust_hdl::prelude::*;

#[allow(non_snake_case)]
#[derive(LogicBlock)]
pub struct Npu {
    // Clock and reset (TRM A.1).
    pub CLK: Signal<In, Clock>,
    pub nRESET: Signal<In, Bit>,
    pub PORPL: Signal<In, Bit>,
    pub PORSL: Signal<In, Bit>,
    // Interrupt (TRM A.2).
    pub IRQ: Signal<Out, Bit>,
    // Clock and power Q-channels (TRM A.3).
    pub CLKQACTIVE: Signal<Out, Bit>,
    pub CLKQREQn: Signal<In, Bit>,
    pub CLKQACCEPTn: Signal<Out, Bit>,
    pub CLKQDENY: Signal<Out, Bit>,
    pub PWRQACTIVE: Signal<Out, Bit>,
    pub PWRQREQn: Signal<In, Bit>,
    pub PWRQACCEPTn: Signal<Out, Bit>,
    pub PWRQDENY: Signal<Out, Bit>,
    // AXI managers (TRM A.4).
    pub m0: AxiManagerPort,
    pub m1: AxiManagerPort,
    // APB4 completer (TRM A.5).
    pub PWAKEUP: Signal<In, Bit>,
    pub PCLKEN: Signal<In, Bit>,
    pub PSEL: Signal<In, Bit>,
    pub PENABLE: Signal<In, Bit>,
    pub PPROT: Signal<In, Bits<3>>,
    pub PWRITE: Signal<In, Bit>,
    pub PADDR: Signal<In, Bits<12>>,
    pub PWDATA: Signal<In, Bits<32>>,
    pub PSTRB: Signal<In, Bits<4>>,
    pub PREADY: Signal<Out, Bit>,
    pub PSLVERR: Signal<Out, Bit>,
    pub PRDATA: Signal<Out, Bits<32>>,
    // DFT and MBIST (TRM A.6).
    pub DFTCGEN: Signal<In, Bit>,
    pub DFTRSTDISABLE: Signal<In, Bits<2>>,
    pub DFTRAMHOLD: Signal<In, Bit>,
    pub MBISTREQ: Signal<In, Bit>,
    pub nMBISTRESET: Signal<In, Bit>,
    cpm: Cpm,
    apb: ApbCompleter,
    regs: RegisterFile,
    idle_m0: IdleAxiManager,
    idle_m1: IdleAxiManager,
}

impl Npu {
    pub fn new(config: &NpuConfig) -> Self {
        Self {
            CLK: Default::default(),
            nRESET: Default::default(),
            PORPL: Default::default(),
            PORSL: Default::default(),
            IRQ: Default::default(),
            CLKQACTIVE: Default::default(),
            CLKQREQn: Default::default(),
            CLKQACCEPTn: Default::default(),
            CLKQDENY: Default::default(),
            PWRQACTIVE: Default::default(),
            PWRQREQn: Default::default(),
            PWRQACCEPTn: Default::default(),
            PWRQDENY: Default::default(),
            m0: Default::default(),
            m1: Default::default(),
            PWAKEUP: Default::default(),
            PCLKEN: Default::default(),
            PSEL: Default::default(),
            PENABLE: Default::default(),
            PPROT: Default::default(),
            PWRITE: Default::default(),
            PADDR: Default::default(),
            PWDATA: Default::default(),
            PSTRB: Default::default(),
            PREADY: Default::default(),
            PSLVERR: Default::default(),
            PRDATA: Default::default(),
            DFTCGEN: Default::default(),
            DFTRSTDISABLE: Default::default(),
            DFTRAMHOLD: Default::default(),
            MBISTREQ: Default::default(),
            nMBISTRESET: Default::default(),
            cpm: Default::default(),
            apb: Default::default(),
            regs: RegisterFile::new(config),
            idle_m0: Default::default(),
            idle_m1: Default::default(),
        }
    }
}

impl Logic for Npu {
    #[hdl_gen]
    fn update(&mut self) {
        self.cpm.clock.next = self.CLK.val();
        self.cpm.n_reset.next = self.nRESET.val();
        self.cpm.n_mbist_reset.next = self.nMBISTRESET.val();
        self.cpm.mbist_req.next = self.MBISTREQ.val();
        self.cpm.dft_rst_disable.next = self.DFTRSTDISABLE.val();
        self.cpm.porpl.next = self.PORPL.val();
        self.cpm.porsl.next = self.PORSL.val();
        self.cpm.active.next = self.PWAKEUP.val();
        self.cpm.clock_q.qreq_n.next = self.CLKQREQn.val();
        self.cpm.power_q.qreq_n.next = self.PWRQREQn.val();
        self.CLKQACTIVE.next = self.cpm.clock_q.qactive.val();
        self.CLKQACCEPTn.next = self.cpm.clock_q.qaccept_n.val();
        self.CLKQDENY.next = self.cpm.clock_q.qdeny.val();
        self.PWRQACTIVE.next = self.cpm.power_q.qactive.val();
        self.PWRQACCEPTn.next = self.cpm.power_q.qaccept_n.val();
        self.PWRQDENY.next = self.cpm.power_q.qdeny.val();

        self.apb.clock.next = self.CLK.val();
        self.apb.rst_n.next = self.cpm.rst_n.val();
        self.apb.pclken.next = self.PCLKEN.val();
        self.apb.psel.next = self.PSEL.val();
        self.apb.penable.next = self.PENABLE.val();
        self.apb.pprot.next = self.PPROT.val();
        self.apb.pwrite.next = self.PWRITE.val();
        self.apb.paddr.next = self.PADDR.val();
        self.apb.pwdata.next = self.PWDATA.val();
        self.apb.pstrb.next = self.PSTRB.val();
        self.apb.prot.next = self.cpm.prot.val();
        self.PREADY.next = self.apb.pready.val();
        self.PSLVERR.next = self.apb.pslverr.val();
        self.PRDATA.next = self.apb.prdata.val();

        self.regs.clock.next = self.CLK.val();
        self.regs.rst_n.next = self.cpm.rst_n.val();
        self.regs.addr.next = self.apb.reg_addr.val();
        self.regs.write.next = self.apb.reg_write.val();
        self.regs.wdata.next = self.apb.reg_wdata.val();
        self.apb.reg_rdata.next = self.regs.rdata.val();
        self.apb.reg_defined.next = self.regs.defined.val();
        self.regs.prot.next = self.cpm.prot.val();
        // Nothing runs yet: stopped, no IRQ, no command read.
        self.regs.status.next = 0.into();
        self.regs.qread.next = 0.into();
        self.IRQ.next = false;

        AxiManagerPort::link(&mut self.m0, &mut self.idle_m0.port);
        AxiManagerPort::link(&mut self.m1, &mut self.idle_m1.port);
    }
}
