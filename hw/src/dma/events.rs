//! What the DMA does on each AXI manager port, for the PMU (TRM 4.5.5 table
//! 4-79, 4.5.12).
//!
//! Every handshake and stall bit is qualified with the port's ACLKEN: it
//! describes one edge of the AXI clock. `*_channel` is the traffic type of
//! the transfer on that AXI channel, coded as `PMCAXI_CHAN.CH_SEL` and
//! `STATUS.faulting_channel` (read: 0 command, 1 IFM, 2 weights, 3 scale and
//! bias, 4 mem2mem; write: 8 OFM, 9 mem2mem); `*_counter` is its outstanding
//! counter 0-3 (REGIONCFG, QCONFIG: 0 and 1 on M0, 2 and 3 on M1).

use rust_hdl::prelude::*;

/// One port's activity in a CLK cycle, as the DMA drives it.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "AxiEventsIn"]
pub struct AxiEvents {
    /// ACLKEN.
    pub enabled: Signal<Out, Bit>,
    /// ARVALID & ARREADY; ARVALID & !ARREADY.
    pub ar_accepted: Signal<Out, Bit>,
    pub ar_stalled: Signal<Out, Bit>,
    pub ar_channel: Signal<Out, Bits<4>>,
    pub ar_counter: Signal<Out, Bits<2>>,
    /// RVALID & RREADY, and RLAST of that beat.
    pub r_beat: Signal<Out, Bit>,
    pub r_last: Signal<Out, Bit>,
    pub r_channel: Signal<Out, Bits<4>>,
    pub r_counter: Signal<Out, Bits<2>>,
    /// AWVALID & AWREADY; AWVALID & !AWREADY.
    pub aw_accepted: Signal<Out, Bit>,
    pub aw_stalled: Signal<Out, Bit>,
    pub aw_channel: Signal<Out, Bits<4>>,
    pub aw_counter: Signal<Out, Bits<2>>,
    /// WVALID & WREADY; WVALID & !WREADY.
    pub w_beat: Signal<Out, Bit>,
    pub w_stalled: Signal<Out, Bit>,
    pub w_channel: Signal<Out, Bits<4>>,
    /// BVALID & BREADY.
    pub b_response: Signal<Out, Bit>,
    pub b_channel: Signal<Out, Bits<4>>,
    pub b_counter: Signal<Out, Bits<2>>,
    /// A read or write burst is ready to be issued on this port but its
    /// counter's outstanding limit (AXI_LIMITn) holds it back.
    pub read_limit_stall: Signal<Out, Bit>,
    pub write_limit_stall: Signal<Out, Bit>,
}

/// [`AxiEvents`] as the PMU takes them.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "AxiEvents"]
pub struct AxiEventsIn {
    pub enabled: Signal<In, Bit>,
    pub ar_accepted: Signal<In, Bit>,
    pub ar_stalled: Signal<In, Bit>,
    pub ar_channel: Signal<In, Bits<4>>,
    pub ar_counter: Signal<In, Bits<2>>,
    pub r_beat: Signal<In, Bit>,
    pub r_last: Signal<In, Bit>,
    pub r_channel: Signal<In, Bits<4>>,
    pub r_counter: Signal<In, Bits<2>>,
    pub aw_accepted: Signal<In, Bit>,
    pub aw_stalled: Signal<In, Bit>,
    pub aw_channel: Signal<In, Bits<4>>,
    pub aw_counter: Signal<In, Bits<2>>,
    pub w_beat: Signal<In, Bit>,
    pub w_stalled: Signal<In, Bit>,
    pub w_channel: Signal<In, Bits<4>>,
    pub b_response: Signal<In, Bit>,
    pub b_channel: Signal<In, Bits<4>>,
    pub b_counter: Signal<In, Bits<2>>,
    pub read_limit_stall: Signal<In, Bit>,
    pub write_limit_stall: Signal<In, Bit>,
}
