//! AXI4 protocol monitor for one port: checks every clock edge and reports
//! the first rule either side breaks.

use super::signals::{AxiSignals, BEAT_BYTES};
use super::AxiPort;
use npu_arch::regs;
use std::collections::{HashMap, VecDeque};

/// What the manager's traffic on one port must respect, as the driver
/// programmed it in AXI_LIMITn (TRM 4.2.14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxiLimits {
    /// Most reads in flight.
    pub reads: usize,
    /// Most writes in flight.
    pub writes: usize,
    /// Read bursts stay inside aligned blocks of this many bytes (the
    /// burst-split alignment, max_beats).
    pub read_split: u64,
    /// The same for write bursts.
    pub write_split: u64,
}

impl AxiLimits {
    /// AXI's own rules only: no bound on transactions in flight, 4 KB blocks.
    pub const UNLIMITED: Self = Self {
        reads: usize::MAX,
        writes: usize::MAX,
        read_split: 4096,
        write_split: 4096,
    };

    /// What port `port` may carry with AXI_LIMIT0-3 holding `registers`
    /// and traffic on the counters `used`: REGIONCFG and QCONFIG send reads
    /// and writes to a port's two counters (M0: AXI_LIMIT0 and 1, M1: 2 and
    /// 3), each with its own limit, so at most the sum of the limits of
    /// those in use is in flight, in bursts inside the larger of their
    /// burst-split blocks (TRM 4.2.13-17; the limit fields' bits above the
    /// TRM ranges are ignored, as the NPU ignores them).
    pub fn programmed(port: AxiPort, registers: [u32; 4], used: CountersInUse) -> Self {
        let r = &regs::AXI_LIMIT0;
        let field = |name: &str, v: u32| r.field(name).get(v) as usize;
        let ours = || (2 * port.index()..2 * port.index() + 2).map(|c| (c, registers[c]));
        let split = ours()
            .map(|(_, v)| 64 << field("max_beats", v).min(2))
            .max()
            .unwrap_or(64);
        let sum = |in_use: [bool; 4], name: &str, range: usize| {
            ours()
                .filter(|&(c, _)| in_use[c])
                .map(|(_, v)| field(name, v) % range + 1)
                .sum()
        };
        Self {
            reads: sum(used.reads, "max_outstanding_read_m1", 64),
            writes: sum(used.writes, "max_outstanding_write_m1", 32),
            read_split: split,
            write_split: split,
        }
    }
}

/// The outstanding counters (0-3) reads and writes may go to: those of the
/// regions REGIONCFG names, and for reads QCONFIG's, the command stream's
/// (TRM 4.2.8, 4.2.13).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CountersInUse {
    pub reads: [bool; 4],
    pub writes: [bool; 4],
}

impl CountersInUse {
    pub fn programmed(regioncfg: u32, qconfig: u32) -> Self {
        let counter =
            |k: usize, value: u32| regs::REGIONCFG.field(&format!("region{k}")).get(value) as usize;
        let mut used = Self::default();
        for k in 0..regs::REGION_COUNT {
            used.reads[counter(k, regioncfg)] = true;
            used.writes[counter(k, regioncfg)] = true;
        }
        // QCONFIG is coded as a REGIONCFG region (TRM 4.2.8).
        used.reads[counter(0, qconfig)] = true;
        used
    }

    /// The counters either uses.
    pub fn union(self, other: Self) -> Self {
        let either = |a: [bool; 4], b: [bool; 4]| std::array::from_fn(|c| a[c] | b[c]);
        Self {
            reads: either(self.reads, other.reads),
            writes: either(self.writes, other.writes),
        }
    }
}

pub struct AxiMonitor {
    pub name: String,
    pub limits: AxiLimits,
    previous: Option<AxiSignals>,
    /// The wires before the last edge, when it had ACLKEN low.
    before_disabled_edge: Option<AxiSignals>,
    /// Beats left per outstanding read, oldest first, by ID.
    reads: HashMap<u8, VecDeque<u16>>,
    /// ID and length of accepted write bursts whose data is incomplete.
    write_bursts: VecDeque<(u8, u16)>,
    /// WLAST of beats whose address has not been accepted yet.
    early_beats: Vec<bool>,
    beats_in_burst: u16,
    /// Writes whose data is complete and whose response is due, by ID.
    responses_due: HashMap<u8, usize>,
    writes_outstanding: usize,
    pub cycle: u64,
}

fn burst_crosses(addr: u64, len: u8, size: u8, block: u64) -> bool {
    let step = 1u64 << size;
    let last = (addr & !(step - 1)) + u64::from(len) * step + step - 1;
    addr / block != last / block
}

impl AxiMonitor {
    pub fn new(name: &str, limits: AxiLimits) -> Self {
        Self {
            name: name.to_string(),
            limits,
            previous: None,
            before_disabled_edge: None,
            reads: HashMap::new(),
            write_bursts: VecDeque::new(),
            early_beats: vec![],
            beats_in_burst: 0,
            responses_due: HashMap::new(),
            writes_outstanding: 0,
            cycle: 0,
        }
    }

    /// Reads in flight (address accepted, last beat not yet).
    pub fn reads_outstanding(&self) -> usize {
        self.reads.values().map(VecDeque::len).sum()
    }

    pub fn writes_outstanding(&self) -> usize {
        self.writes_outstanding
    }

    fn err(&self, what: String) -> String {
        format!("AXI4 monitor {} at edge {}: {what}", self.name, self.cycle)
    }

    /// Checks the wires at a clock edge with ACLKEN low: nothing transfers,
    /// and the manager holds its outputs until the next edge (TRM A.4).
    pub fn disabled_edge(&mut self, s: &AxiSignals) -> Result<(), String> {
        self.check_outputs_held(s)?;
        self.before_disabled_edge = Some(*s);
        Ok(())
    }

    /// Checks the wires as they are at a clock edge (with ACLKEN high).
    pub fn edge(&mut self, s: &AxiSignals) -> Result<(), String> {
        // A quiet edge after a quiet one has nothing to check: the common idle case.
        if !s.any_valid()
            && self.before_disabled_edge.is_none()
            && self.previous.as_ref().is_none_or(|p| !p.any_valid())
        {
            self.cycle += 1;
            return Ok(());
        }
        self.check_outputs_held(s)?;
        self.before_disabled_edge = None;
        if let Some(p) = self.previous {
            self.check_held(&p, s)?;
        }
        if s.arvalid {
            let split = self.limits.read_split;
            self.check_address("AR", s.araddr, s.arlen, s.arsize, s.arburst, split)?;
        }
        if s.awvalid {
            let split = self.limits.write_split;
            self.check_address("AW", s.awaddr, s.awlen, s.awsize, s.awburst, split)?;
        }
        if s.ar_fire() {
            if self.reads_outstanding() >= self.limits.reads {
                return Err(self.err(format!("more than {} reads outstanding", self.limits.reads)));
            }
            self.reads
                .entry(s.arid)
                .or_default()
                .push_back(u16::from(s.arlen) + 1);
        }
        if s.r_fire() {
            let Some(left) = self.reads.get_mut(&s.rid).and_then(|q| q.front_mut()) else {
                return Err(self.err(format!(
                    "R beat with ID {} that has no read outstanding",
                    s.rid
                )));
            };
            *left -= 1;
            let left = *left;
            if s.rlast != (left == 0) {
                return Err(self.err(format!(
                    "RLAST {} with {left} beats left for ID {}",
                    s.rlast, s.rid
                )));
            }
            if left == 0 {
                self.reads.get_mut(&s.rid).expect("present").pop_front();
            }
        }
        if s.aw_fire() {
            if self.writes_outstanding >= self.limits.writes {
                return Err(self.err(format!(
                    "more than {} writes outstanding",
                    self.limits.writes
                )));
            }
            self.writes_outstanding += 1;
            self.write_bursts
                .push_back((s.awid, u16::from(s.awlen) + 1));
            // Beats that came before their address (allowed in AXI4) are checked now.
            for wlast in std::mem::take(&mut self.early_beats) {
                self.write_beat(wlast)?;
            }
        }
        if s.w_fire() {
            self.write_beat(s.wlast)?;
        }
        if s.b_fire() {
            match self.responses_due.get_mut(&s.bid) {
                Some(n) if *n > 0 => *n -= 1,
                _ => {
                    return Err(self.err(format!(
                        "B response with ID {} before its write data completed",
                        s.bid
                    )))
                }
            }
            self.writes_outstanding -= 1;
        }
        self.previous = Some(*s);
        self.cycle += 1;
        Ok(())
    }

    fn write_beat(&mut self, wlast: bool) -> Result<(), String> {
        let Some(&(id, len)) = self.write_bursts.front() else {
            self.early_beats.push(wlast);
            return Ok(());
        };
        self.beats_in_burst += 1;
        let last = self.beats_in_burst == len;
        if wlast != last {
            return Err(self.err(format!(
                "WLAST {wlast} on beat {} of a {len}-beat burst",
                self.beats_in_burst
            )));
        }
        if last {
            self.write_bursts.pop_front();
            self.beats_in_burst = 0;
            *self.responses_due.entry(id).or_default() += 1;
        }
        Ok(())
    }

    /// One address: INCR, at most 128 bits, 40 bits, inside its 4 KB and
    /// burst-split blocks.
    fn check_address(
        &self,
        ch: &str,
        addr: u64,
        len: u8,
        size: u8,
        burst: u8,
        split: u64,
    ) -> Result<(), String> {
        if burst != 1 {
            return Err(self.err(format!("{ch} burst type {burst}, the NPU issues INCR (1)")));
        }
        if size > 4 {
            return Err(self.err(format!("{ch} size {size} wider than the 128-bit bus")));
        }
        if addr >> 40 != 0 {
            return Err(self.err(format!("{ch} address {addr:#x} beyond 40 bits")));
        }
        if burst_crosses(addr, len, size, 4096) {
            return Err(self.err(format!(
                "{ch} burst at {addr:#x} of {} beats crosses a 4 KB boundary",
                u16::from(len) + 1
            )));
        }
        if burst_crosses(addr, len, size, split) {
            return Err(self.err(format!(
                "{ch} burst at {addr:#x} of {} beats crosses a {split}-byte boundary \
                 (the burst-split alignment in AXI_LIMITn)",
                u16::from(len) + 1
            )));
        }
        Ok(())
    }

    /// VALID stays high until READY, and the payload stays put meanwhile.
    fn check_held(&self, p: &AxiSignals, s: &AxiSignals) -> Result<(), String> {
        let checks = [
            ("AR", p.arvalid && !p.arready, s.arvalid, ar(p) == ar(s)),
            ("AW", p.awvalid && !p.awready, s.awvalid, aw(p) == aw(s)),
            ("W", p.wvalid && !p.wready, s.wvalid, w(p) == w(s)),
            ("R", p.rvalid && !p.rready, s.rvalid, r(p) == r(s)),
            ("B", p.bvalid && !p.bready, s.bvalid, b(p) == b(s)),
        ];
        for (ch, waiting, valid, same) in checks {
            if waiting && !valid {
                return Err(self.err(format!("{ch}VALID dropped before {ch}READY")));
            }
            if waiting && !same {
                return Err(self.err(format!(
                    "{ch} payload changed while {ch}VALID waited for {ch}READY"
                )));
            }
        }
        Ok(())
    }

    /// The manager's outputs did not move across the last edge if it had ACLKEN low.
    fn check_outputs_held(&self, s: &AxiSignals) -> Result<(), String> {
        match &self.before_disabled_edge {
            Some(p) if manager_outputs(p) != manager_outputs(s) => Err(self.err(format!(
                "manager outputs changed across a clock edge with ACLKEN low: {:?} -> {:?} \
                 ((AWVALID, AW), (WVALID, W), BREADY, (ARVALID, AR), RREADY)",
                manager_outputs(p),
                manager_outputs(s)
            ))),
            _ => Ok(()),
        }
    }
}

type AddressPayload = (u8, u64, u8, u8, u8, u8, u8);

fn ar(x: &AxiSignals) -> AddressPayload {
    (
        x.arid, x.araddr, x.arlen, x.arsize, x.arburst, x.arcache, x.arprot,
    )
}
fn aw(x: &AxiSignals) -> AddressPayload {
    (
        x.awid, x.awaddr, x.awlen, x.awsize, x.awburst, x.awcache, x.awprot,
    )
}
fn w(x: &AxiSignals) -> ([u8; BEAT_BYTES], u16, bool) {
    (x.wdata, x.wstrb, x.wlast)
}
fn r(x: &AxiSignals) -> (u8, [u8; BEAT_BYTES], u8, bool) {
    (x.rid, x.rdata, x.rresp, x.rlast)
}
fn b(x: &AxiSignals) -> (u8, u8) {
    (x.bid, x.bresp)
}

/// What the manager drives, each payload only while its VALID is high.
#[allow(clippy::type_complexity)]
fn manager_outputs(
    x: &AxiSignals,
) -> (
    Option<AddressPayload>,
    Option<([u8; BEAT_BYTES], u16, bool)>,
    bool,
    Option<AddressPayload>,
    bool,
) {
    (
        x.awvalid.then(|| aw(x)),
        x.wvalid.then(|| w(x)),
        x.bready,
        x.arvalid.then(|| ar(x)),
        x.rready,
    )
}
