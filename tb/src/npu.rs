//! The NPU on the bench: its Verilated model with every input held at a
//! defined value, the APB4 requester and monitor, the AXI memory completers
//! and monitors on M0 and M1 behind one sparse memory, and reset sequencing.

use crate::apb::{ApbMonitor, ApbPorts, ApbRequest, ApbResponse};
use crate::axi::{
    AddressSpace, Attributes, AxiCompleter, AxiLimits, AxiMonitor, AxiPort, AxiPorts, AxiSignals,
    CompleterConfig, Counters, CountersInUse,
};
use crate::blockdep::BlockdepChecker;
use crate::bounds::BoundsWatcher;
use crate::layer_probe::{readable_signals, LayerProbe, AXI_LIMIT_SIGNALS, COUNTER_SIGNALS};
use crate::q_channel::{QChannel, QChecker, QState};
use crate::seed::seed;
use crate::verilator::build::workspace_root;
use crate::verilator::{DesignFiles, Model, PortId, PublicSignal, TraceWindow, WaveFormat};
use anyhow::{Context, Result};
use npu_arch::config::NpuConfig;
use npu_arch::regs;
use npu_model::device::{Apb, Device, DeviceError};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Environment variable naming a VCD file to write for every NPU built
/// (an FST when the name ends `.fst`).
pub const VCD_ENV: &str = "NPU_VCD";
/// Environment variable limiting the VCD to cycles `START:END`.
pub const VCD_WINDOW_ENV: &str = "NPU_VCD_WINDOW";
/// Environment variable naming an FST file to write for every NPU built.
pub const FST_ENV: &str = "NPU_FST";
/// Environment variable limiting the FST to cycles `START:END`.
pub const FST_WINDOW_ENV: &str = "NPU_FST_WINDOW";

/// STATUS reads while waiting for a reset to finish, and cycles between them:
/// well beyond the largest shared buffer's clear.
const RESET_POLLS: u64 = 1000;
const RESET_POLL_INTERVAL: u64 = 16;
/// Cycles a Q-channel handshake may take (QREQn is synchronised by the NPU).
const Q_HANDSHAKE_CYCLES: u64 = 16;
/// Privileged and secure: every register access is permitted (TRM 4.1).
use npu_model::driver::HOST_PPROT;

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

/// A waveform file to write, its format and the cycles to dump into it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waveform {
    pub path: PathBuf,
    pub window: TraceWindow,
    pub format: WaveFormat,
}

impl Waveform {
    /// A waveform in the format `path` names: FST for a name ending `.fst`,
    /// else VCD.
    pub fn new(path: PathBuf, window: TraceWindow) -> Self {
        let format = WaveFormat::of_path(&path);
        Self {
            path,
            window,
            format,
        }
    }

    /// An FST whatever `path`'s name ends with, except `.vcd`: a name that
    /// asks for the other format is refused.
    pub fn fst(path: PathBuf, window: TraceWindow) -> Result<Self> {
        if path
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case("vcd"))
        {
            anyhow::bail!(
                "{} names a VCD, not an FST: give it the extension .fst (or write a VCD)",
                path.display()
            );
        }
        Ok(Self {
            path,
            window,
            format: WaveFormat::Fst,
        })
    }

    /// The waveform `NPU_VCD` or `NPU_FST` and its window (`NPU_VCD_WINDOW`,
    /// `NPU_FST_WINDOW`) ask for, if any.
    pub fn from_env() -> Result<Option<Self>> {
        let window = |name: &str| match std::env::var(name) {
            Ok(w) => TraceWindow::parse(&w).map_err(|e| anyhow::anyhow!("{name}: {e}")),
            Err(_) => Ok(TraceWindow::ALL),
        };
        let path = |name: &str| std::env::var_os(name).map(PathBuf::from);
        match (path(VCD_ENV), path(FST_ENV)) {
            (None, None) => Ok(None),
            (Some(_), Some(_)) => anyhow::bail!("set {VCD_ENV} or {FST_ENV}, not both"),
            (Some(vcd), None) => Ok(Some(Self::new(vcd, window(VCD_WINDOW_ENV)?))),
            (None, Some(fst)) => Self::fst(fst, window(FST_WINDOW_ENV)?).map(Some),
        }
    }
}

/// One AXI manager port bound to its memory completer and protocol monitor.
/// Both act only on CLK edges with the port's ACLKEN high.
/// The first error `edge` gives for this clock edge's handshakes on the
/// enabled ports.
fn first_failure(
    axi: &[AxiBinding],
    mut edge: impl FnMut(usize, &AxiSignals) -> Result<(), String>,
) -> Option<String> {
    axi.iter()
        .enumerate()
        .filter(|(_, a)| a.enabled)
        .find_map(|(port, a)| edge(port, &a.signals).err())
}

struct AxiBinding {
    wires: AxiPorts,
    completer: AxiCompleter,
    monitor: AxiMonitor,
    /// ACLKEN for successive CLK cycles, repeated.
    aclken_pattern: Vec<bool>,
    /// The port's wires this cycle.
    signals: AxiSignals,
    /// ACLKEN of this cycle's edge.
    enabled: bool,
}

impl AxiBinding {
    fn new(model: &mut Model, port: AxiPort) -> Self {
        let wires = AxiPorts::new(model, port);
        let signals = AxiSignals::default();
        wires.drive(model, &signals);
        Self {
            wires,
            completer: AxiCompleter::new(CompleterConfig::ideal(), 0),
            monitor: AxiMonitor::new(&port.to_string(), AxiLimits::UNLIMITED),
            aclken_pattern: vec![true],
            signals,
            enabled: true,
        }
    }

    /// Sets ACLKEN and the completer's outputs for the cycle (the model's
    /// inputs keep their values, so only changed outputs need writing).
    fn drive(&mut self, model: &mut Model) {
        let phase = (model.cycle() % self.aclken_pattern.len() as u64) as usize;
        self.enabled = self.aclken_pattern[phase];
        model.set(self.wires.aclken, u64::from(self.enabled));
        let before = self.signals;
        self.completer.drive(&mut self.signals);
        if !self.signals.same_completer_outputs(&before) {
            self.wires.drive(model, &self.signals);
        }
    }

    /// Checks the settled wires just before the edge.
    fn check(&mut self, model: &Model) -> Result<(), String> {
        self.wires.sample(model, &mut self.signals);
        if self.enabled {
            self.monitor.edge(&self.signals)
        } else {
            self.monitor.disabled_edge(&self.signals)
        }
    }

    /// Takes the edge's handshakes into the completer and the memory.
    fn edge(&mut self, memory: &mut AddressSpace) {
        if self.enabled {
            self.completer.edge(&self.signals, memory);
        }
    }
}

pub struct NpuTb {
    pub model: Model,
    pub config: NpuConfig,
    pub apb: ApbPorts,
    monitor: ApbMonitor,
    /// PCLKEN for successive CLK cycles, repeated.
    pclken_pattern: Vec<bool>,
    /// M0 and M1.
    axi: [AxiBinding; 2],
    /// The memory behind both AXI ports.
    memory: AddressSpace,
    /// Seed of the AXI completers' randomness, drawn when first needed.
    axi_seed: Option<u64>,
    /// The clock and power Q-channel handshakes.
    q_checkers: [QChecker; 2],
    /// Times kernel operations and DMAs while attached ([`NpuTb::watch_layers`]).
    layer_probe: Option<LayerProbe>,
    /// Fails any IFM read BLOCKDEP forbids while attached ([`NpuTb::watch_blockdep`]).
    blockdep: Option<BlockdepChecker>,
    bounds: Option<BoundsWatcher>,
    /// The waveform being written.
    waveform: Option<PathBuf>,
    irq: PortId,
    /// AXI_LIMIT0-3 in the register file: the monitors check what they hold.
    /// AXI_LIMIT0-3, REGIONCFG and QCONFIG, and per port the counters they
    /// named since the port was last quiet.
    axi_limit_registers: Option<[PublicSignal; 6]>,
    counters_used: [CountersInUse; 2],
}

/// The generated design of `config` from `verilog-out/`, with the signals
/// the layer probe and the AXI monitors read made readable.
pub fn npu_design(config: &NpuConfig) -> Result<DesignFiles> {
    let dir = workspace_root().join("verilog-out");
    let module = config.module_name();
    let design = DesignFiles::load(&dir, &module)
        .with_context(|| format!("loading the design of {}; run `make verilog`", config.name))?;
    Ok(design.with_readable(readable_signals(&module)))
}

impl NpuTb {
    /// Builds the configuration's committed Verilog (`verilog-out/`) and
    /// applies a hard reset with PORPL = PORSL = 0. Writes the waveform that
    /// `NPU_VCD` or `NPU_FST` names, if any.
    pub fn new(config: &str) -> Result<Self> {
        Self::with_waveform(config, Waveform::from_env()?)
    }

    /// As [`NpuTb::new`], writing `waveform` if given.
    pub fn with_waveform(config: &str, waveform: Option<Waveform>) -> Result<Self> {
        let config = NpuConfig::by_name(config)?;
        let design = npu_design(&config)?;
        let mut model = match &waveform {
            Some(w) => Model::with_trace(&design, "CLK", &w.path, w.window, w.format)?,
            None => Model::new(&design, "CLK")?,
        };
        for &(name, value) in IDLE_INPUTS {
            let id = model.port(name);
            model.set(id, value);
        }
        let apb = ApbPorts::new(&model);
        let axi = AxiPort::ALL.map(|port| AxiBinding::new(&mut model, port));
        let q_checkers = QChannel::ALL.map(|channel| QChecker::new(&model, channel));
        let limits: Option<Vec<PublicSignal>> = AXI_LIMIT_SIGNALS
            .iter()
            .chain(&COUNTER_SIGNALS)
            .map(|&(_, scope, var)| model.public_signal(scope, var))
            .collect();
        let mut tb = Self {
            irq: model.port("IRQ"),
            axi_limit_registers: limits.map(|v| [v[0], v[1], v[2], v[3], v[4], v[5]]),
            counters_used: Default::default(),
            model,
            config,
            apb,
            monitor: ApbMonitor::new(apb),
            pclken_pattern: vec![true],
            axi,
            memory: AddressSpace::default(),
            axi_seed: None,
            q_checkers,
            layer_probe: None,
            blockdep: None,
            bounds: None,
            waveform: waveform.map(|w| w.path),
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
        for checker in &mut self.q_checkers {
            checker.reset();
        }
        self.set("nRESET", 1);
        self.cycles(4);
        self.wait_for_reset();
        self.follow_axi_limits();
    }

    /// The monitors' limits from what AXI_LIMIT0-3 hold now, on the
    /// counters REGIONCFG and QCONFIG name now and, while a port has traffic
    /// in flight, those they named since it was last quiet.
    fn follow_axi_limits(&mut self) {
        if let Some(signals) = &self.axi_limit_registers {
            let [l0, l1, l2, l3, regioncfg, qconfig] =
                signals.map(|s| self.model.read_signal(&s) as u32);
            let named = CountersInUse::programmed(regioncfg, qconfig);
            for port in AxiPort::ALL {
                let monitor = &mut self.axi[port.index()].monitor;
                let used = &mut self.counters_used[port.index()];
                let quiet = monitor.reads_outstanding() == 0 && monitor.writes_outstanding() == 0;
                *used = if quiet { named } else { used.union(named) };
                monitor.limits = AxiLimits::programmed(port, [l0, l1, l2, l3], *used);
            }
        }
    }

    /// Reads STATUS until reset_status is 0: after a reset the NPU clears
    /// its shared buffer first (TRM 3.3.4.1, appendix C soft reset flow).
    pub fn wait_for_reset(&mut self) {
        let reset_status = regs::STATUS.field("reset_status");
        for _ in 0..RESET_POLLS {
            let status = self.read(regs::STATUS.address, HOST_PPROT).rdata;
            if reset_status.get(status) == 0 {
                return;
            }
            self.cycles(RESET_POLL_INTERVAL);
        }
        self.fail("STATUS.reset_status still 1 long after the reset");
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

    /// ACLKEN of port `port` for successive CLK cycles, repeated:
    /// `[true, false]` runs the AXI clock at half the NPU clock.
    pub fn set_aclken_pattern(&mut self, port: AxiPort, pattern: &[bool]) {
        assert!(
            pattern.contains(&true),
            "AXI {port} never advances with ACLKEN always low"
        );
        self.axi[port.index()].aclken_pattern = pattern.to_vec();
    }

    /// The memory behind both AXI ports.
    pub fn memory(&self) -> &AddressSpace {
        &self.memory
    }

    pub fn memory_mut(&mut self) -> &mut AddressSpace {
        &mut self.memory
    }

    /// Traffic the completer of `port` has served.
    pub fn axi_counters(&self, port: AxiPort) -> Counters {
        self.axi[port.index()].completer.counters
    }

    /// Clock edges of `port` with ACLKEN high since its completer was set.
    pub fn axi_enabled_cycles(&self, port: AxiPort) -> u64 {
        self.axi[port.index()].completer.enabled_cycles()
    }

    /// The completer serving `port`: its counters, by ID too.
    pub fn axi_completer(&self, port: AxiPort) -> &AxiCompleter {
        &self.axi[port.index()].completer
    }

    /// Attaches a [`LayerProbe`]: from the next cycle on it times every
    /// kernel operation and DMA and counts their AXI bytes.
    pub fn watch_layers(&mut self) -> Result<()> {
        self.layer_probe = Some(LayerProbe::new(&self.model, &self.config)?);
        Ok(())
    }

    /// Has the attached probe record a timeline too ([`LayerProbe::record_timeline`]).
    pub fn record_timeline(&mut self) {
        if let Some(probe) = &mut self.layer_probe {
            probe.record_timeline(&self.config);
        }
    }

    /// Detaches the probe [`NpuTb::watch_layers`] attached, with what it saw.
    /// Checks every following IFM read against NPU_SET_BLOCKDEP (TRM 4.9)
    /// until [`NpuTb::stop_watching_blockdep`].
    pub fn watch_blockdep(&mut self, checker: BlockdepChecker) {
        self.blockdep = Some(checker);
    }

    pub fn stop_watching_blockdep(&mut self) {
        self.blockdep = None;
    }

    /// Checks every following AXI access against the stream checker's
    /// ranges ([`BoundsWatcher`]) until [`NpuTb::take_bounds_watcher`].
    pub fn watch_bounds(&mut self, watcher: BoundsWatcher) {
        self.bounds = Some(watcher);
    }

    /// Detaches the bounds watcher, with what it saw.
    pub fn take_bounds_watcher(&mut self) -> Option<BoundsWatcher> {
        self.bounds.take()
    }

    pub fn take_layer_probe(&mut self) -> Option<LayerProbe> {
        self.layer_probe.take()
    }

    /// The distinct (ID, AxCACHE, AxPROT) sets seen on `port`'s AR and AW.
    pub fn axi_attributes(&self, port: AxiPort) -> &BTreeSet<Attributes> {
        &self.axi[port.index()].completer.attributes
    }

    /// True when no AXI transaction is in flight on either port.
    pub fn axi_idle(&self) -> bool {
        self.axi.iter().all(|a| a.completer.idle())
    }

    /// Replaces the completer of `port` by one with `config` (latency,
    /// back-pressure, reordering, error ranges). A random one draws from the
    /// bench's AXI seed ([`NpuTb::set_axi_seed`], else the test's printed
    /// seed, which `NPU_SEED` sets), distinct per port. Its counters restart
    /// from zero.
    ///
    /// # Panics
    /// When a transaction is in flight on the port.
    pub fn set_axi_config(&mut self, port: AxiPort, config: CompleterConfig) {
        let binding = &self.axi[port.index()];
        assert!(
            binding.completer.idle(),
            "AXI {port}: the completer is replaced with transactions in flight"
        );
        let port_seed = if config.is_random() {
            let seed = *self.axi_seed.get_or_insert_with(seed);
            seed ^ (port.index() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        } else {
            0
        };
        self.axi[port.index()].completer = AxiCompleter::new(config, port_seed);
    }

    /// Where memory answers on `port` (`None`: everywhere), keeping the
    /// completer's other settings and its transactions in flight: a device
    /// whose host maps and unmaps windows as it runs answers DECERR outside
    /// them.
    pub fn set_address_map(&mut self, port: AxiPort, map: Option<Vec<std::ops::Range<u64>>>) {
        self.axi[port.index()].completer.config.address_map = map;
    }

    /// Memory answers on both ports only inside the windows of the address
    /// space, each to its last whole 16-byte beat (bursts move whole beats;
    /// the bytes past a window's end in its last beat are the space's pages,
    /// never the host's buffer): DECERR elsewhere.
    pub fn answer_only_windows(&mut self) {
        let windows: Vec<_> = self
            .memory
            .windows()
            .map(|w| w.start..w.end.next_multiple_of(16))
            .collect();
        for port in AxiPort::ALL {
            self.set_address_map(port, Some(windows.clone()));
        }
    }

    /// The seed of the completers [`NpuTb::set_axi_config`] makes from now
    /// on: for a test that derives it from its own seed.
    pub fn set_axi_seed(&mut self, seed: u64) {
        self.axi_seed = Some(seed);
    }

    /// Transactions in flight and burst-split blocks the monitor of `port`
    /// allows: what AXI_LIMITn held after the last APB write.
    pub fn axi_limits(&self, port: AxiPort) -> AxiLimits {
        self.axi[port.index()].monitor.limits
    }

    /// One CLK cycle, checked by the protocol monitors: the clock falls and
    /// the inputs settle, the monitors check the wires, the clock rises, the
    /// AXI completers take the handshakes and update the memory.
    pub fn tick(&mut self) {
        let phase = (self.model.cycle() % self.pclken_pattern.len() as u64) as usize;
        let pclken = self.pclken_pattern[phase];
        self.model.set(self.apb.pclken, u64::from(pclken));
        for a in &mut self.axi {
            a.drive(&mut self.model);
        }
        self.model.fall();
        if let Err(e) = self.monitor.before_edge(&self.model) {
            self.fail(&format!("APB4 monitor: {e}"));
        }
        for i in 0..self.axi.len() {
            if let Err(e) = self.axi[i].check(&self.model) {
                self.fail(&e);
            }
        }
        let cycle = self.model.cycle();
        let failed = [
            self.blockdep
                .as_mut()
                .and_then(|c| first_failure(&self.axi, |p, s| c.edge(p, s, cycle))),
            self.bounds
                .as_mut()
                .and_then(|w| first_failure(&self.axi, |p, s| w.edge(p, s, cycle))),
        ];
        if let Some(e) = failed.into_iter().flatten().next() {
            self.fail(&e);
        }
        if let Some(probe) = &mut self.layer_probe {
            let by_id = self
                .axi
                .each_ref()
                .map(|a| a.completer.bytes_by_id.as_ref());
            probe.sample(&self.model, by_id);
        }
        self.model.rise();
        if let Err(e) = self.monitor.after_edge(&self.model) {
            self.fail(&format!("APB4 monitor: {e}"));
        }
        for a in &mut self.axi {
            a.edge(&mut self.memory);
        }
        for i in 0..self.q_checkers.len() {
            if let Err(e) = self.q_checkers[i].edge(&self.model) {
                self.fail(&e);
            }
        }
    }

    /// The Q-channel's state as the checker saw it at the last edge.
    pub fn q_state(&self, channel: QChannel) -> QState {
        self.q_checkers[channel.index()].state()
    }

    /// Drives QREQn as a clock or power controller: low asks for
    /// quiescence, high for the return to Q_RUN.
    pub fn set_q_request(&mut self, channel: QChannel, request: bool) {
        let wire = self.q_checkers[channel.index()].wires.qreq_n;
        self.model.set(wire, u64::from(!request));
    }

    /// Requests quiescence on `channel` and waits for the answer: Q_STOPPED
    /// (accepted) or Q_DENIED.
    pub fn q_request(&mut self, channel: QChannel) -> QState {
        self.set_q_request(channel, true);
        self.q_wait(channel, &[QState::Stopped, QState::Denied])
    }

    /// Withdraws the request and waits for Q_RUN.
    pub fn q_release(&mut self, channel: QChannel) {
        self.set_q_request(channel, false);
        self.q_wait(channel, &[QState::Run]);
    }

    fn q_wait(&mut self, channel: QChannel, states: &[QState]) -> QState {
        for _ in 0..Q_HANDSHAKE_CYCLES {
            self.tick();
            let state = self.q_state(channel);
            if states.contains(&state) {
                return state;
            }
        }
        self.fail(&format!(
            "{channel}: still {:?} {Q_HANDSHAKE_CYCLES} cycles after QREQn changed",
            self.q_state(channel)
        ))
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

    /// An APB write; the AXI monitors then follow AXI_LIMIT0-3 as they are.
    pub fn write(&mut self, addr: u16, data: u32, pprot: u8) -> ApbResponse {
        let response = self.apb(ApbRequest::write(addr, data, pprot));
        self.follow_axi_limits();
        response
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
        match &self.waveform {
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
                     (limit it with {VCD_WINDOW_ENV}=START:END cycles; {FST_ENV}=/tmp/npu.fst for a smaller FST)"
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

impl Device for NpuTb {
    fn config(&self) -> &NpuConfig {
        &self.config
    }

    fn read(&mut self, offset: u16, pprot: u8) -> Apb {
        let r = NpuTb::read(self, offset, pprot);
        Apb {
            rdata: r.rdata,
            slverr: r.slverr,
        }
    }

    fn write(&mut self, offset: u16, value: u32, pprot: u8) -> Result<Apb, DeviceError> {
        let r = NpuTb::write(self, offset, value, pprot);
        Ok(Apb {
            rdata: r.rdata,
            slverr: r.slverr,
        })
    }

    fn run(&mut self, cycles: u64) -> Result<(), DeviceError> {
        self.cycles(cycles);
        Ok(())
    }

    fn cycle(&self) -> u64 {
        self.model.cycle()
    }

    fn irq(&self) -> bool {
        self.model.get(self.irq) != 0
    }

    fn quiet(&self) -> bool {
        self.axi_idle() && self.get("CLKQACTIVE") == 0
    }

    fn hard_reset(&mut self, porpl: bool, porsl: bool) -> Result<(), DeviceError> {
        NpuTb::hard_reset(self, porpl, porsl);
        Ok(())
    }

    fn set_q_request(&mut self, channel: QChannel, request: bool) -> Result<(), DeviceError> {
        NpuTb::set_q_request(self, channel, request);
        Ok(())
    }

    fn q_state(&self, channel: QChannel) -> QState {
        NpuTb::q_state(self, channel)
    }

    fn memory(&self) -> &AddressSpace {
        &self.memory
    }

    fn memory_mut(&mut self) -> &mut AddressSpace {
        &mut self.memory
    }
}
