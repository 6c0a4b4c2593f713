//! What the DMA does on each AXI manager port, for the PMU (TRM 4.5.5 table
//! 4-79, 4.5.12).
//!
//! Each half is derived where its handshakes live: the read half by the
//! port's [`ReadPort`](super::ReadPort), the write half by the
//! port's [`WritePort`](super::WritePort).
//! Every handshake and stall bit is qualified with the port's ACLKEN: it
//! describes one edge of the AXI clock. `*_channel` is the traffic type of
//! the transfer on that AXI channel, coded as `PMCAXI_CHAN.CH_SEL` and
//! `STATUS.faulting_channel` (read: 0 command, 1 IFM, 2 weights, 3 scale and
//! bias, 4 mem2mem; write: 8 OFM, 9 mem2mem); `*_counter` is its outstanding
//! counter 0-3 (REGIONCFG, QCONFIG: 0 and 1 on M0, 2 and 3 on M1).

use rust_hdl::prelude::*;

/// The AR and R channels of one port in a CLK cycle.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ReadEvents {
    /// ARVALID & ARREADY; ARVALID & !ARREADY.
    pub ar_accepted: Bit,
    pub ar_stalled: Bit,
    pub ar_channel: Bits<4>,
    pub ar_counter: Bits<2>,
    /// RVALID & RREADY, and RLAST of that beat.
    pub r_beat: Bit,
    pub r_last: Bit,
    pub r_channel: Bits<4>,
    pub r_counter: Bits<2>,
    /// A burst is ready to be issued on this port but its counter's
    /// outstanding limit (AXI_LIMITn) holds it back.
    pub limit_stall: Bit,
}

/// The AW, W and B channels of one port in a CLK cycle.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct WriteEvents {
    /// AWVALID & AWREADY; AWVALID & !AWREADY.
    pub aw_accepted: Bit,
    pub aw_stalled: Bit,
    pub aw_channel: Bits<4>,
    pub aw_counter: Bits<2>,
    /// WVALID & WREADY; WVALID & !WREADY.
    pub w_beat: Bit,
    pub w_stalled: Bit,
    pub w_channel: Bits<4>,
    /// BVALID & BREADY.
    pub b_response: Bit,
    pub b_channel: Bits<4>,
    pub b_counter: Bits<2>,
    /// A burst is ready to be issued on this port but its counter's
    /// outstanding limit (AXI_LIMITn) holds it back.
    pub limit_stall: Bit,
}

/// One port's activity in a CLK cycle, as the DMA drives it.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "AxiEventsIn"]
pub struct AxiEvents {
    /// ACLKEN.
    pub enabled: Signal<Out, Bit>,
    pub reads: Signal<Out, ReadEvents>,
    pub writes: Signal<Out, WriteEvents>,
}

/// [`AxiEvents`] as the PMU takes them.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "AxiEvents"]
pub struct AxiEventsIn {
    pub enabled: Signal<In, Bit>,
    pub reads: Signal<In, ReadEvents>,
    pub writes: Signal<In, WriteEvents>,
}
