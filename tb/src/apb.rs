//! APB4 bus model: the requester's port handles and a protocol monitor.
//!
//! The testbench moves the bus one PCLK edge at a time (a CLK edge with
//! PCLKEN high); the monitor sees every CLK edge and fails on any APB4 rule
//! the completer or the requester breaks.

use crate::verilator::{Model, PortId};

/// Handles of the APB4 completer's ports (TRM table A-21).
#[derive(Clone, Copy, Debug)]
pub struct ApbPorts {
    pub pclken: PortId,
    pub psel: PortId,
    pub penable: PortId,
    pub pprot: PortId,
    pub pwrite: PortId,
    pub paddr: PortId,
    pub pwdata: PortId,
    pub pstrb: PortId,
    pub pready: PortId,
    pub pslverr: PortId,
    pub prdata: PortId,
}

impl ApbPorts {
    pub fn new(model: &Model) -> Self {
        Self {
            pclken: model.port("PCLKEN"),
            psel: model.port("PSEL"),
            penable: model.port("PENABLE"),
            pprot: model.port("PPROT"),
            pwrite: model.port("PWRITE"),
            paddr: model.port("PADDR"),
            pwdata: model.port("PWDATA"),
            pstrb: model.port("PSTRB"),
            pready: model.port("PREADY"),
            pslverr: model.port("PSLVERR"),
            prdata: model.port("PRDATA"),
        }
    }

    /// Drives the requester's signals: idle for `None`, else the setup phase
    /// of `request`, or its access phase when `access_phase` is set.
    pub fn drive(&self, model: &mut Model, request: Option<&ApbRequest>, access_phase: bool) {
        match request {
            None => {
                model.set(self.psel, 0);
                model.set(self.penable, 0);
            }
            Some(r) => {
                model.set(self.psel, 1);
                model.set(self.penable, u64::from(access_phase));
                model.set(self.pprot, u64::from(r.pprot));
                model.set(self.paddr, u64::from(r.addr));
                model.set(self.pwrite, u64::from(r.write.is_some()));
                model.set(self.pwdata, u64::from(r.write.unwrap_or(0)));
                model.set(
                    self.pstrb,
                    u64::from(if r.write.is_some() { r.pstrb } else { 0 }),
                );
            }
        }
    }

    fn sample(&self, model: &Model) -> ApbSample {
        ApbSample {
            pclken: model.get(self.pclken) != 0,
            psel: model.get(self.psel) != 0,
            penable: model.get(self.penable) != 0,
            pprot: model.get(self.pprot) as u8,
            pwrite: model.get(self.pwrite) != 0,
            paddr: model.get(self.paddr) as u16,
            pwdata: model.get(self.pwdata) as u32,
            pstrb: model.get(self.pstrb) as u8,
            pready: model.get(self.pready) != 0,
            pslverr: model.get(self.pslverr) != 0,
            prdata: model.get(self.prdata) as u32,
        }
    }
}

/// One APB transfer as the requester issues it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApbRequest {
    pub addr: u16,
    /// `Some(data)` for a write.
    pub write: Option<u32>,
    /// PPROT[2:0]: bit 0 privileged, bit 1 non-secure.
    pub pprot: u8,
    pub pstrb: u8,
}

impl ApbRequest {
    pub fn read(addr: u16, pprot: u8) -> Self {
        Self {
            addr,
            write: None,
            pprot,
            pstrb: 0,
        }
    }
    pub fn write(addr: u16, data: u32, pprot: u8) -> Self {
        Self {
            addr,
            write: Some(data),
            pprot,
            pstrb: 0xF,
        }
    }
}

/// What the completer answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApbResponse {
    pub rdata: u32,
    pub slverr: bool,
    /// Access-phase PCLK cycles with PREADY low.
    pub wait_states: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ApbSample {
    pclken: bool,
    psel: bool,
    penable: bool,
    pprot: u8,
    pwrite: bool,
    paddr: u16,
    pwdata: u32,
    pstrb: u8,
    pready: bool,
    pslverr: bool,
    prdata: u32,
}

impl ApbSample {
    fn request_payload(&self) -> (u8, bool, u16, u32, u8) {
        (self.pprot, self.pwrite, self.paddr, self.pwdata, self.pstrb)
    }
    fn completer_outputs(&self) -> (bool, bool, u32) {
        (self.pready, self.pslverr, self.prdata)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BusState {
    Idle,
    Setup,
    Access { waits: u32 },
}

/// Checks APB4 rules at every CLK edge.
pub struct ApbMonitor {
    ports: ApbPorts,
    state: BusState,
    payload: (u8, bool, u16, u32, u8),
    before_edge: Option<ApbSample>,
    /// Most access-phase PCLK cycles with PREADY low before the completer is hung.
    pub max_wait_states: u32,
    /// Transfers completed.
    pub transfers: u64,
}

impl ApbMonitor {
    pub fn new(ports: ApbPorts) -> Self {
        Self {
            ports,
            state: BusState::Idle,
            payload: Default::default(),
            before_edge: None,
            max_wait_states: 16,
            transfers: 0,
        }
    }

    /// Call with inputs settled, just before a CLK edge.
    pub fn before_edge(&mut self, model: &Model) -> Result<(), String> {
        let s = self.ports.sample(model);
        self.before_edge = Some(s);
        if !s.pclken {
            return Ok(());
        }
        match self.state {
            BusState::Idle => {
                if s.psel && s.penable {
                    return Err("PENABLE high without a setup phase".into());
                }
                if s.psel {
                    self.start(&s)?;
                }
            }
            BusState::Setup => {
                if !(s.psel && s.penable) {
                    return Err("the cycle after a setup phase is not an access phase (PSEL and PENABLE high)".into());
                }
                self.check_stable(&s)?;
                self.state = BusState::Access { waits: 0 };
                self.access_edge(&s)?;
            }
            BusState::Access { .. } => {
                if !(s.psel && s.penable) {
                    return Err("the requester left the access phase before PREADY".into());
                }
                self.check_stable(&s)?;
                self.access_edge(&s)?;
            }
        }
        Ok(())
    }

    /// Call right after the CLK edge.
    pub fn after_edge(&mut self, model: &Model) -> Result<(), String> {
        let before = self
            .before_edge
            .take()
            .ok_or("after_edge without before_edge")?;
        let after = self.ports.sample(model);
        if !before.pclken && before.completer_outputs() != after.completer_outputs() {
            return Err(format!(
                "completer outputs changed on a CLK edge with PCLKEN low: {:?} -> {:?}",
                before.completer_outputs(),
                after.completer_outputs()
            ));
        }
        Ok(())
    }

    fn start(&mut self, s: &ApbSample) -> Result<(), String> {
        if !s.pwrite && s.pstrb != 0 {
            return Err(format!(
                "PSTRB {:#x} on a read (APB4 needs it low)",
                s.pstrb
            ));
        }
        self.payload = s.request_payload();
        self.state = BusState::Setup;
        Ok(())
    }

    fn check_stable(&self, s: &ApbSample) -> Result<(), String> {
        if s.request_payload() != self.payload {
            return Err(format!(
                "request changed during a transfer: {:?} -> {:?} (PPROT, PWRITE, PADDR, PWDATA, PSTRB)",
                self.payload,
                s.request_payload()
            ));
        }
        Ok(())
    }

    fn access_edge(&mut self, s: &ApbSample) -> Result<(), String> {
        let BusState::Access { waits } = self.state else {
            unreachable!()
        };
        if s.pready {
            self.transfers += 1;
            self.state = BusState::Idle;
        } else if waits >= self.max_wait_states {
            return Err(format!(
                "PREADY low for {waits} access cycles: the completer hangs"
            ));
        } else {
            self.state = BusState::Access { waits: waits + 1 };
        }
        Ok(())
    }
}
