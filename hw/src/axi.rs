//! The AXI manager port bundle (TRM A.4), one per manager M0 and M1.

use rust_hdl::prelude::*;

/// One AMBA 5 AXI manager port: 40-bit addresses, 128-bit data, 8-bit IDs,
/// plus the ACLKEN clock enable and AWAKEUP. Field names are the TRM's
/// signal names without the `Mx` suffix.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct AxiManagerPort {
    pub aclken: Signal<In, Bit>,
    pub awakeup: Signal<Out, Bit>,
    // Write address channel.
    pub awvalid: Signal<Out, Bit>,
    pub awid: Signal<Out, Bits<8>>,
    pub awaddr: Signal<Out, Bits<40>>,
    pub awlen: Signal<Out, Bits<8>>,
    pub awsize: Signal<Out, Bits<3>>,
    pub awburst: Signal<Out, Bits<2>>,
    pub awcache: Signal<Out, Bits<4>>,
    pub awprot: Signal<Out, Bits<3>>,
    pub awready: Signal<In, Bit>,
    // Write data channel (TRM table A-7 prints WSTRB[7:0]; 128-bit data needs 16 strobes).
    pub wvalid: Signal<Out, Bit>,
    pub wdata: Signal<Out, Bits<128>>,
    pub wstrb: Signal<Out, Bits<16>>,
    pub wlast: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    // Write response channel.
    pub bvalid: Signal<In, Bit>,
    pub bid: Signal<In, Bits<8>>,
    pub bresp: Signal<In, Bits<2>>,
    pub bready: Signal<Out, Bit>,
    // Read address channel.
    pub arvalid: Signal<Out, Bit>,
    pub arid: Signal<Out, Bits<8>>,
    pub araddr: Signal<Out, Bits<40>>,
    pub arlen: Signal<Out, Bits<8>>,
    pub arsize: Signal<Out, Bits<3>>,
    pub arburst: Signal<Out, Bits<2>>,
    pub arcache: Signal<Out, Bits<4>>,
    pub arprot: Signal<Out, Bits<3>>,
    pub arready: Signal<In, Bit>,
    // Read data channel.
    pub rvalid: Signal<In, Bit>,
    pub rid: Signal<In, Bits<8>>,
    pub rdata: Signal<In, Bits<128>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rlast: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
}

/// Holds a manager port protocol-idle: no VALID, no READY, no wake-up.
/// The DMA takes its place when it drives the port.
#[derive(LogicBlock, Default)]
pub struct IdleAxiManager {
    pub port: AxiManagerPort,
}

impl Logic for IdleAxiManager {
    #[hdl_gen]
    fn update(&mut self) {
        self.port.awakeup.next = false;
        self.port.awvalid.next = false;
        self.port.awid.next = 0.into();
        self.port.awaddr.next = 0.into();
        self.port.awlen.next = 0.into();
        self.port.awsize.next = 0.into();
        self.port.awburst.next = 0.into();
        self.port.awcache.next = 0.into();
        self.port.awprot.next = 0.into();
        self.port.wvalid.next = false;
        self.port.wdata.next = 0.into();
        self.port.wstrb.next = 0.into();
        self.port.wlast.next = false;
        self.port.bready.next = false;
        self.port.arvalid.next = false;
        self.port.arid.next = 0.into();
        self.port.araddr.next = 0.into();
        self.port.arlen.next = 0.into();
        self.port.arsize.next = 0.into();
        self.port.arburst.next = 0.into();
        self.port.arcache.next = 0.into();
        self.port.arprot.next = 0.into();
        self.port.rready.next = false;
    }
}
