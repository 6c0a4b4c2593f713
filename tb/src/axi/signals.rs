//! One cycle's values of an AXI port's wires (TRM A.4: 40-bit address,
//! 128-bit data, 8-bit IDs).

/// Bytes in one 128-bit beat.
pub const BEAT_BYTES: usize = 16;

/// AXI response codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resp {
    Okay = 0,
    ExOkay = 1,
    SlvErr = 2,
    DecErr = 3,
}

/// The wires of one AXI port, as seen just before a clock edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AxiSignals {
    pub awvalid: bool,
    pub awready: bool,
    pub awid: u8,
    pub awaddr: u64,
    pub awlen: u8,
    pub awsize: u8,
    pub awburst: u8,
    pub awcache: u8,
    pub awprot: u8,
    pub wvalid: bool,
    pub wready: bool,
    pub wdata: [u8; BEAT_BYTES],
    pub wstrb: u16,
    pub wlast: bool,
    pub bvalid: bool,
    pub bready: bool,
    pub bid: u8,
    pub bresp: u8,
    pub arvalid: bool,
    pub arready: bool,
    pub arid: u8,
    pub araddr: u64,
    pub arlen: u8,
    pub arsize: u8,
    pub arburst: u8,
    pub arcache: u8,
    pub arprot: u8,
    pub rvalid: bool,
    pub rready: bool,
    pub rid: u8,
    pub rdata: [u8; BEAT_BYTES],
    pub rresp: u8,
    pub rlast: bool,
}

impl AxiSignals {
    /// A write burst of one 16-byte beat to `address` with `strobe`,
    /// address and data handshaking on the same edge (for checker tests).
    pub fn one_beat_write(id: u8, address: u64, strobe: u16) -> AxiSignals {
        AxiSignals {
            awvalid: true,
            awready: true,
            awid: id,
            awaddr: address,
            awsize: 4,
            wvalid: true,
            wready: true,
            wstrb: strobe,
            wlast: true,
            ..AxiSignals::default()
        }
    }

    pub fn aw_fire(&self) -> bool {
        self.awvalid && self.awready
    }
    pub fn w_fire(&self) -> bool {
        self.wvalid && self.wready
    }
    pub fn b_fire(&self) -> bool {
        self.bvalid && self.bready
    }
    pub fn ar_fire(&self) -> bool {
        self.arvalid && self.arready
    }
    pub fn r_fire(&self) -> bool {
        self.rvalid && self.rready
    }
    /// True when the completer drives the same values in both.
    pub fn same_completer_outputs(&self, other: &AxiSignals) -> bool {
        let outputs = |x: &AxiSignals| {
            (
                x.awready, x.wready, x.arready, x.bvalid, x.bid, x.bresp, x.rvalid, x.rid, x.rresp,
                x.rlast, x.rdata,
            )
        };
        outputs(self) == outputs(other)
    }
    /// True when any channel's VALID is high.
    pub fn any_valid(&self) -> bool {
        self.awvalid || self.wvalid || self.bvalid || self.arvalid || self.rvalid
    }
}
