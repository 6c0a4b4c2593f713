//! The wires of one AXI manager port of the Verilated NPU (TRM A.4), moved
//! to and from [`AxiSignals`].

use super::signals::{AxiSignals, BEAT_BYTES};
use crate::verilator::{Model, PortId};
use rand::Rng;
use std::fmt;

/// The NPU's two AXI managers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AxiPort {
    M0,
    M1,
}

impl AxiPort {
    pub const ALL: [AxiPort; 2] = [AxiPort::M0, AxiPort::M1];

    pub fn index(self) -> usize {
        self as usize
    }
}

/// A random ACLKEN pattern for [`crate::npu::NpuTb::set_aclken_pattern`]:
/// always high half the time, else high every other cycle or two cycles of
/// three.
pub fn random_aclken_pattern(rng: &mut impl Rng) -> Vec<bool> {
    match rng.gen_range(0..4) {
        0 => vec![false, true],
        1 => vec![true, false, true],
        _ => vec![true],
    }
}

impl fmt::Display for AxiPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

/// Handles of one manager port's wires, named `<SIGNAL>M0` or `<SIGNAL>M1`.
#[derive(Clone, Copy, Debug)]
pub struct AxiPorts {
    pub aclken: PortId,
    pub awvalid: PortId,
    pub awready: PortId,
    pub awid: PortId,
    pub awaddr: PortId,
    pub awlen: PortId,
    pub awsize: PortId,
    pub awburst: PortId,
    pub awcache: PortId,
    pub awprot: PortId,
    pub wvalid: PortId,
    pub wready: PortId,
    pub wdata: PortId,
    pub wstrb: PortId,
    pub wlast: PortId,
    pub bvalid: PortId,
    pub bready: PortId,
    pub bid: PortId,
    pub bresp: PortId,
    pub arvalid: PortId,
    pub arready: PortId,
    pub arid: PortId,
    pub araddr: PortId,
    pub arlen: PortId,
    pub arsize: PortId,
    pub arburst: PortId,
    pub arcache: PortId,
    pub arprot: PortId,
    pub rvalid: PortId,
    pub rready: PortId,
    pub rid: PortId,
    pub rdata: PortId,
    pub rresp: PortId,
    pub rlast: PortId,
}

/// A 128-bit beat as the model's 32-bit words: byte lane k is bits 8k+7:8k.
pub fn beat_to_words(beat: &[u8; BEAT_BYTES]) -> [u32; BEAT_BYTES / 4] {
    std::array::from_fn(|i| u32::from_le_bytes(beat[4 * i..4 * i + 4].try_into().unwrap()))
}

/// The inverse of [`beat_to_words`].
pub fn words_to_beat(words: &[u32]) -> [u8; BEAT_BYTES] {
    std::array::from_fn(|k| words[k / 4].to_le_bytes()[k % 4])
}

impl AxiPorts {
    pub fn new(model: &Model, port: AxiPort) -> Self {
        let p = |signal: &str| model.port(&format!("{signal}{port}"));
        Self {
            aclken: p("ACLKEN"),
            awvalid: p("AWVALID"),
            awready: p("AWREADY"),
            awid: p("AWID"),
            awaddr: p("AWADDR"),
            awlen: p("AWLEN"),
            awsize: p("AWSIZE"),
            awburst: p("AWBURST"),
            awcache: p("AWCACHE"),
            awprot: p("AWPROT"),
            wvalid: p("WVALID"),
            wready: p("WREADY"),
            wdata: p("WDATA"),
            wstrb: p("WSTRB"),
            wlast: p("WLAST"),
            bvalid: p("BVALID"),
            bready: p("BREADY"),
            bid: p("BID"),
            bresp: p("BRESP"),
            arvalid: p("ARVALID"),
            arready: p("ARREADY"),
            arid: p("ARID"),
            araddr: p("ARADDR"),
            arlen: p("ARLEN"),
            arsize: p("ARSIZE"),
            arburst: p("ARBURST"),
            arcache: p("ARCACHE"),
            arprot: p("ARPROT"),
            rvalid: p("RVALID"),
            rready: p("RREADY"),
            rid: p("RID"),
            rdata: p("RDATA"),
            rresp: p("RRESP"),
            rlast: p("RLAST"),
        }
    }

    /// Reads the manager's outputs into `s`. A channel's payload is read only
    /// while its VALID is high (otherwise `s` keeps the old one), which keeps
    /// idle cycles cheap.
    pub fn sample(&self, model: &Model, s: &mut AxiSignals) {
        s.awvalid = model.get(self.awvalid) != 0;
        if s.awvalid {
            s.awid = model.get(self.awid) as u8;
            s.awaddr = model.get(self.awaddr);
            s.awlen = model.get(self.awlen) as u8;
            s.awsize = model.get(self.awsize) as u8;
            s.awburst = model.get(self.awburst) as u8;
            s.awcache = model.get(self.awcache) as u8;
            s.awprot = model.get(self.awprot) as u8;
        }
        s.wvalid = model.get(self.wvalid) != 0;
        if s.wvalid {
            s.wdata = words_to_beat(&model.get_wide(self.wdata));
            s.wstrb = model.get(self.wstrb) as u16;
            s.wlast = model.get(self.wlast) != 0;
        }
        s.bready = model.get(self.bready) != 0;
        s.arvalid = model.get(self.arvalid) != 0;
        if s.arvalid {
            s.arid = model.get(self.arid) as u8;
            s.araddr = model.get(self.araddr);
            s.arlen = model.get(self.arlen) as u8;
            s.arsize = model.get(self.arsize) as u8;
            s.arburst = model.get(self.arburst) as u8;
            s.arcache = model.get(self.arcache) as u8;
            s.arprot = model.get(self.arprot) as u8;
        }
        s.rready = model.get(self.rready) != 0;
    }

    /// Drives the completer's side from `s`; RDATA changes only with RVALID high.
    pub fn drive(&self, model: &mut Model, s: &AxiSignals) {
        model.set(self.awready, u64::from(s.awready));
        model.set(self.wready, u64::from(s.wready));
        model.set(self.arready, u64::from(s.arready));
        model.set(self.bvalid, u64::from(s.bvalid));
        model.set(self.bid, u64::from(s.bid));
        model.set(self.bresp, u64::from(s.bresp));
        model.set(self.rvalid, u64::from(s.rvalid));
        model.set(self.rid, u64::from(s.rid));
        model.set(self.rresp, u64::from(s.rresp));
        model.set(self.rlast, u64::from(s.rlast));
        if s.rvalid {
            model.set_wide(self.rdata, &beat_to_words(&s.rdata));
        }
    }
}
