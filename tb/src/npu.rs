//! The NPU on the bench: its Verilated model with every input held at a
//! defined value, the APB4 requester and monitor, and reset sequencing.

use crate::apb::{ApbMonitor, ApbPorts, ApbRequest, ApbResponse};
use crate::verilator::build::workspace_root;
use crate::verilator::{DesignFiles, Model, TraceWindow};
use anyhow::{Context, Result};
use npu_spec::config::NpuConfig;
use std::path::PathBuf;

/// Environment variable naming a VCD file to write for every NPU built.
pub const VCD_ENV: &str = "NPU_VCD";
/// Environment variable limiting the VCD to cycles `START:END`.
pub const VCD_WINDOW_ENV: &str = "NPU_VCD_WINDOW";

/// Inputs that are held at one value unless a test drives them (TRM appendix A).
const IDLE_INPUTS: &[(&str, u64)] = &[
    ("nRESET", 0),
    ("PORPL", 0),
    ("PORSL", 0),
    ("PCLKEN", 1),
    ("PSEL", 0),
    ("PENABLE", 0),
    ("PWAKEUP", 0),
    ("CLKQREQn", 1),
    ("PWRQREQn", 1),
    ("ACLKENM0", 1),
    ("ACLKENM1", 1),
    ("DFTCGEN", 0),
    ("DFTRSTDISABLE", 0),
    ("DFTRAMHOLD", 0),
    ("MBISTREQ", 0),
    ("nMBISTRESET", 1),
];

pub struct NpuTb {
    pub model: Model,
    pub config: NpuConfig,
    pub apb: ApbPorts,
    monitor: ApbMonitor,
    /// PCLKEN for successive CLK cycles, repeated.
    pclken_pattern: Vec<bool>,
    vcd: Option<PathBuf>,
}

impl NpuTb {
    /// Builds the configuration's committed Verilog (`verilog-out/`) and
    /// applies a hard reset with PORPL = PORSL = 0.
    pub fn new(config: &str) -> Result<Self> {
        let config = NpuConfig::by_name(config)?;
        let dir = workspace_root().join("verilog-out");
        let design = DesignFiles::load(&dir, &config.module_name()).with_context(|| {
            format!("loading the design of {}; run `make verilog`", config.name)
        })?;
        let mut model = Model::new(&design, "CLK")?;
        for &(name, value) in IDLE_INPUTS {
            let id = model.port(name);
            model.set(id, value);
        }
        let vcd = std::env::var_os(VCD_ENV).map(PathBuf::from);
        if let Some(path) = &vcd {
            let window = match std::env::var(VCD_WINDOW_ENV) {
                Ok(w) => TraceWindow::parse(&w).map_err(anyhow::Error::msg)?,
                Err(_) => TraceWindow::ALL,
            };
            model.trace_to(path, window).map_err(anyhow::Error::msg)?;
        }
        let apb = ApbPorts::new(&model);
        let mut tb = Self {
            model,
            config,
            apb,
            monitor: ApbMonitor::new(apb),
            pclken_pattern: vec![true],
            vcd,
        };
        tb.hard_reset(false, false);
        Ok(tb)
    }

    /// Asserts nRESET for a few cycles with the given power-on levels, then
    /// releases it and waits for the reset synchroniser.
    pub fn hard_reset(&mut self, porpl: bool, porsl: bool) {
        self.set("PORPL", u64::from(porpl));
        self.set("PORSL", u64::from(porsl));
        self.set("nRESET", 0);
        self.cycles(4);
        self.set("nRESET", 1);
        self.cycles(4);
    }

    /// Sets an input port by name.
    pub fn set(&mut self, port: &str, value: u64) {
        let id = self.model.port(port);
        self.model.set(id, value);
    }

    /// Reads a port by name.
    pub fn get(&self, port: &str) -> u64 {
        self.model.get(self.model.port(port))
    }

    /// PCLKEN for successive CLK cycles, repeated: `[false, true]` runs APB at half rate.
    pub fn set_pclken_pattern(&mut self, pattern: &[bool]) {
        assert!(
            pattern.contains(&true),
            "APB never advances with PCLKEN always low"
        );
        self.pclken_pattern = pattern.to_vec();
    }

    /// One CLK cycle, checked by the protocol monitors.
    pub fn tick(&mut self) {
        let phase = (self.model.cycle() % self.pclken_pattern.len() as u64) as usize;
        let pclken = self.pclken_pattern[phase];
        self.model.set(self.apb.pclken, u64::from(pclken));
        self.model.eval();
        if let Err(e) = self.monitor.before_edge(&self.model) {
            self.fail(&format!("APB4 monitor: {e}"));
        }
        self.model.tick();
        if let Err(e) = self.monitor.after_edge(&self.model) {
            self.fail(&format!("APB4 monitor: {e}"));
        }
    }

    pub fn cycles(&mut self, n: u64) {
        for _ in 0..n {
            self.tick();
        }
    }

    /// Runs CLK cycles up to and including the next edge with PCLKEN high.
    fn pclk_edge(&mut self) -> bool {
        loop {
            let phase = (self.model.cycle() % self.pclken_pattern.len() as u64) as usize;
            let pclken = self.pclken_pattern[phase];
            self.tick();
            if pclken {
                return true;
            }
        }
    }

    /// One APB4 transfer: setup phase, then access phases until PREADY.
    pub fn apb(&mut self, request: ApbRequest) -> ApbResponse {
        self.apb.drive(&mut self.model, Some(&request), false);
        self.pclk_edge();
        self.apb.drive(&mut self.model, Some(&request), true);
        let mut wait_states = 0;
        loop {
            // Sample at the edge: the values the completer presents before it.
            self.settle_to_next_pclk_edge();
            let ready = self.model.get(self.apb.pready) != 0;
            let response = ApbResponse {
                rdata: self.model.get(self.apb.prdata) as u32,
                slverr: self.model.get(self.apb.pslverr) != 0,
                wait_states,
            };
            self.pclk_edge();
            if ready {
                self.apb.drive(&mut self.model, None, false);
                return response;
            }
            wait_states += 1;
        }
    }

    /// Runs CLK cycles with PCLKEN low until the next cycle has PCLKEN high.
    fn settle_to_next_pclk_edge(&mut self) {
        while !self.pclken_pattern[(self.model.cycle() % self.pclken_pattern.len() as u64) as usize]
        {
            self.tick();
        }
        self.model.eval();
    }

    pub fn read(&mut self, addr: u16, pprot: u8) -> ApbResponse {
        self.apb(ApbRequest::read(addr, pprot))
    }

    pub fn write(&mut self, addr: u16, data: u32, pprot: u8) -> ApbResponse {
        self.apb(ApbRequest::write(addr, data, pprot))
    }

    /// APB transfers the monitor has seen complete.
    pub fn apb_transfers(&self) -> u64 {
        self.monitor.transfers
    }

    /// Fails the running test, saying where the waveform is or how to get one.
    pub fn fail(&mut self, message: &str) -> ! {
        self.model.flush_trace();
        panic!("cycle {}: {message}", self.model.cycle());
    }

    fn waveform_hint(&self) -> String {
        match &self.vcd {
            Some(path) => format!("waveform: {}", path.display()),
            None => {
                let test = std::thread::current().name().unwrap_or("TEST").to_string();
                let binary = std::env::current_exe()
                    .ok()
                    .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                    .map(|s| {
                        s.rsplit_once('-')
                            .map_or(s.clone(), |(name, _)| name.to_string())
                    })
                    .unwrap_or_else(|| "TESTS".into());
                format!(
                    "for a waveform: {VCD_ENV}=/tmp/npu.vcd cargo test -p npu-tb --test {binary} -- --exact {test} \
                     (limit it with {VCD_WINDOW_ENV}=START:END cycles)"
                )
            }
        }
    }
}

impl Drop for NpuTb {
    fn drop(&mut self) {
        self.model.flush_trace();
        if std::thread::panicking() {
            eprintln!("{}", self.waveform_hint());
        }
    }
}
