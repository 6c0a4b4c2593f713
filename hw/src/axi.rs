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
