//! The NPU as a device other software drives: registers over APB with
//! PPROT, memory at AXI addresses (an [`AddressSpace`]), clocking, the IRQ,
//! resets and the Q-channels ([`Device`]). Two backends answer it alike:
//! the RTL (`npu_tb::npu::NpuTb`) and the golden model as a register-level
//! device ([`GoldenDevice`]), which the drivers, the runner, the C API and
//! the tests all stand on.

use crate::address_space::AddressSpace;
use crate::npu::{ModelError, Npu};
use crate::state::RunStats;
use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, counter_port, Behaviour, Register, SharedBits, REGION_COUNT};
use std::collections::HashMap;
use std::fmt;

/// What one APB transfer answers: its read data (0 for a write, a
/// refused read or a reserved address) and PSLVERR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Apb {
    pub rdata: u32,
    pub slverr: bool,
}

/// The clock or the power Q-channel (TRM A.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QChannel {
    Clock,
    Power,
}

impl QChannel {
    pub const ALL: [QChannel; 2] = [QChannel::Clock, QChannel::Power];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The TRM's signal-name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            QChannel::Clock => "CLK",
            QChannel::Power => "PWR",
        }
    }

    /// CMD's enable bit for the channel (TRM 4.2.3).
    fn enable(self) -> &'static regs::Field {
        match self {
            QChannel::Clock => regs::CMD.field("clock_q_enable"),
            QChannel::Power => regs::CMD.field("power_q_enable"),
        }
    }
}

impl fmt::Display for QChannel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Q", self.prefix())
    }
}

/// Interface states of AMBA LPI, from (QREQn, QACCEPTn, QDENY).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QState {
    Run,
    Request,
    Stopped,
    Exit,
    Denied,
    Continue,
}

impl QState {
    /// The state of the wires, or `None` for QACCEPTn low with QDENY high,
    /// which no state has.
    pub fn of(qreq_n: bool, qaccept_n: bool, qdeny: bool) -> Option<QState> {
        Some(match (qreq_n, qaccept_n, qdeny) {
            (true, true, false) => QState::Run,
            (false, true, false) => QState::Request,
            (false, false, false) => QState::Stopped,
            (true, false, false) => QState::Exit,
            (false, true, true) => QState::Denied,
            (true, true, true) => QState::Continue,
            _ => return None,
        })
    }

    /// Transitions the protocol allows from this state (staying put is
    /// always allowed).
    pub fn may_become(self, next: QState) -> bool {
        use QState::*;
        next == self
            || matches!(
                (self, next),
                (Run, Request)
                    | (Request, Stopped)
                    | (Request, Denied)
                    | (Stopped, Exit)
                    | (Exit, Run)
                    | (Denied, Continue)
                    | (Continue, Run)
            )
    }
}

/// Why a device cannot go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// The golden model met a stream whose result it cannot give (the
    /// TRM calls it UNPREDICTABLE, or the model's own limits).
    #[error("golden model: {0}")]
    Model(String),
    /// The simulation cannot go on (a protocol checker failed, a build).
    #[error("simulation: {0}")]
    Simulation(String),
}

/// One NPU, driven through its ports.
pub trait Device {
    fn config(&self) -> &NpuConfig;
    /// One APB read of the register at byte `offset` with `pprot`.
    fn read(&mut self, offset: u16, pprot: u8) -> Apb;
    /// One APB write (every byte strobe set).
    fn write(&mut self, offset: u16, value: u32, pprot: u8) -> Result<Apb, DeviceError>;
    /// Runs `cycles` CLK cycles.
    fn run(&mut self, cycles: u64) -> Result<(), DeviceError>;
    /// CLK cycles run since the device was made.
    fn cycle(&self) -> u64;
    /// The IRQ output.
    fn irq(&self) -> bool;
    /// No work outstanding: no AXI transaction, queued operation or DMA
    /// (the Q-channels' QACTIVE low).
    fn quiet(&self) -> bool;
    /// nRESET with the given power-on levels (TRM A.1, 4.2.10).
    fn hard_reset(&mut self, porpl: bool, porsl: bool) -> Result<(), DeviceError>;
    /// Drives QREQn of `channel` as a controller: `true` asks for quiescence.
    fn set_q_request(&mut self, channel: QChannel, request: bool) -> Result<(), DeviceError>;
    fn q_state(&self, channel: QChannel) -> QState;
    /// The memory behind the AXI managers.
    fn memory(&self) -> &AddressSpace;
    fn memory_mut(&mut self) -> &mut AddressSpace;

    /// Runs until the IRQ is high, at most `budget` cycles; the cycles run.
    fn run_until_irq(&mut self, budget: u64) -> Result<u64, DeviceError> {
        let mut ran = 0;
        while !self.irq() && ran < budget {
            self.run(1)?;
            ran += 1;
        }
        Ok(ran)
    }
}

/// Register values as the NPU holds them (TRM 4.2-4.5), from the register
/// map: storage, locks, the PMU's set/clear pairs and control bits. The
/// live values (STATUS, QREAD) are the caller's; PROT is held here.
#[derive(Clone, Debug)]
pub struct RegisterFile {
    config_word: u32,
    prot: u32,
    stored: HashMap<u16, u32>,
    shared: HashMap<SharedBits, u32>,
    /// STATUS.pmu_irq_raised: an enabled overflow flag set.
    pmu_irq: bool,
}

impl RegisterFile {
    /// The registers right after a hard reset with the given power-on levels.
    pub fn after_reset(config: &NpuConfig, porpl: bool, porsl: bool) -> Self {
        let config_word = config.config_register();
        let stored = regs::REGISTERS
            .iter()
            .map(|r| (r.address, r.reset_value(config_word, porpl, porsl)))
            .collect();
        Self {
            config_word,
            prot: regs::PROT.reset_value(config_word, porpl, porsl),
            stored,
            shared: HashMap::new(),
            pmu_irq: false,
        }
    }

    pub fn prot(&self) -> u32 {
        self.prot
    }

    pub fn pmu_irq(&self) -> bool {
        self.pmu_irq
    }

    /// TRM 4.1: whether an access with `pprot` is permitted.
    pub fn permits(&self, pprot: u8) -> bool {
        regs::access_permitted(pprot, self.prot)
    }

    /// What `r` reads, `status` and `qread` being the live values.
    pub fn value(&self, r: &Register, status: u32, qread: u32) -> u32 {
        match r.behaviour {
            Behaviour::SetBits(s) | Behaviour::ClearBits(s) => {
                self.shared.get(&s).copied().unwrap_or(0)
            }
            Behaviour::Live if r.address == regs::PROT.address => self.prot,
            Behaviour::Live if r.address == regs::STATUS.address => regs::STATUS
                .field("pmu_irq_raised")
                .set(status, u32::from(self.pmu_irq)),
            Behaviour::Live if r.address == regs::QREAD.address => qread,
            _ => self.stored[&r.address],
        }
    }

    /// The stored value of `r` (its last permitted write, or reset value).
    pub fn stored(&self, r: &Register) -> u32 {
        self.stored[&r.address]
    }

    /// A permitted write of `data` to `r`: what it stores and what the PMU's
    /// pairs and control bits do. Actions beyond the registers (CMD,
    /// RESET) are the caller's.
    pub fn write(&mut self, r: &Register, data: u32) {
        let stored = (data & r.stored_mask()) | r.fixed_bits(self.config_word);
        match r.behaviour {
            Behaviour::Constant | Behaviour::Live => {}
            Behaviour::Lock => {
                if self.stored[&r.address] == 0 || data == 0 {
                    self.stored.insert(r.address, stored);
                }
            }
            Behaviour::SetBits(s) => {
                let bits = data & r.stored_mask();
                let state = |s| self.shared.get(&s).copied().unwrap_or(0);
                let (flags, enables) = (
                    state(SharedBits::Overflow),
                    state(SharedBits::InterruptEnable),
                );
                // An enabled flag set, or the interrupt of a set flag newly enabled.
                match s {
                    SharedBits::Overflow if bits & enables != 0 => self.pmu_irq = true,
                    SharedBits::InterruptEnable if bits & !enables & flags != 0 => {
                        self.pmu_irq = true
                    }
                    _ => {}
                }
                *self.shared.entry(s).or_default() |= bits;
            }
            Behaviour::ClearBits(s) => {
                *self.shared.entry(s).or_default() &= !(data & r.stored_mask())
            }
            Behaviour::Command => {
                if regs::CMD.field("clear_irq").get(data) != 0 {
                    self.pmu_irq = false;
                }
                self.stored.insert(r.address, stored);
            }
            Behaviour::PmuControl => {
                self.stored.insert(r.address, stored);
                let mut reset = vec![];
                if r.field("event_cnt_rst").get(data) != 0 {
                    reset.extend(regs::PMU_EVCNTR);
                }
                if r.field("cycle_cnt_rst").get(data) != 0 {
                    reset.extend([regs::PMCCNTR_LO, regs::PMCCNTR_HI]);
                }
                for counter in reset {
                    self.stored.insert(counter.address, 0);
                }
            }
            Behaviour::Storage | Behaviour::SoftReset | Behaviour::Counter => {
                self.stored.insert(r.address, stored);
            }
        }
    }

    /// An address made of a low and a high register, to the AXI width.
    fn address(&self, low: &Register, high: &Register, bits: u32) -> u64 {
        let a = u64::from(self.stored(low)) | u64::from(self.stored(high)) << 32;
        a & ((1 << bits) - 1)
    }
}

/// TRM 3.3.4.1: the levels a soft reset requested with `pending` by an
/// access with `pprot` applies: active_CSL = pending_CSL if PPROT\[1\] is 0,
/// else non-secure; active_CPL = pending_CPL if PPROT\[0\] is 1, else user.
pub fn soft_reset_levels(pending: u32, pprot: u8) -> (bool, bool) {
    let cpl = regs::RESET.field("pending_CPL").get(pending) != 0 && pprot & 1 != 0;
    let csl = regs::RESET.field("pending_CSL").get(pending) != 0 || pprot & 2 != 0;
    (cpl, csl)
}

/// The golden model as a register-level device: the registers answer as
/// the RTL's do after the same accesses, and a start through CMD runs the
/// stream at QBASE at once, on the regions the base pointers give, read and
/// written in place in the device's memory. The model has no clock: a run
/// is over when the CMD write that starts it returns, so the NPU reads as
/// stopped at once, but for an NPU_OP_IRQ: there the run stops, running,
/// with its IRQ raised, and goes on at the next cycle run (so a host sees
/// STATUS at the IRQ as it would on the RTL). Cycles only count (the PMU
/// counts no events; its counters hold what is written). Between runs the
/// NPU_SET_* state and the shared buffer stay, as on the RTL, until a reset.
pub struct GoldenDevice {
    config: NpuConfig,
    registers: RegisterFile,
    /// The NPU_SET_* state, the shared buffer, STATUS and QREAD.
    npu: Npu,
    memory: AddressSpace,
    cycle: u64,
    q_states: [QState; 2],
    /// The last run's error, when it stopped on one (what STATUS says, in
    /// the model's words).
    last_error: Option<ModelError>,
    /// Told of each run's progress, while [`GoldenDevice::run_with_progress`] lends it.
    progress: Option<*mut (dyn FnMut(usize, usize) + 'static)>,
    /// A run that raised an IRQ with NPU_OP_IRQ and runs on at the next
    /// cycle: its stream and the offset it goes on from.
    paused: Option<(Vec<u8>, usize)>,
}

// SAFETY: the progress pointer lives only while `run_with_progress` holds
// the device, on its caller's thread; the memory is `Send` itself.
unsafe impl Send for GoldenDevice {}

impl GoldenDevice {
    /// A device after a hard reset with PORPL = PORSL = 0.
    pub fn new(config: NpuConfig) -> GoldenDevice {
        GoldenDevice {
            registers: RegisterFile::after_reset(&config, false, false),
            npu: Npu::new(config.clone()),
            memory: AddressSpace::default(),
            cycle: 0,
            q_states: [QState::Run; 2],
            last_error: None,
            progress: None,
            paused: None,
            config,
        }
    }

    /// Runs `f` on the device, telling `progress(done_bytes, total_bytes)`
    /// of every run's command stream as its kernel operations and DMAs go.
    pub fn run_with_progress<R>(
        &mut self,
        progress: &mut dyn FnMut(usize, usize),
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        struct Lent<'a>(&'a mut GoldenDevice);
        impl Drop for Lent<'_> {
            fn drop(&mut self) {
                self.0.progress = None;
            }
        }
        let borrowed: *mut (dyn FnMut(usize, usize) + '_) = progress;
        // SAFETY: only the lifetime changes; `Lent` takes the pointer back
        // before `progress`'s borrow ends, however `f` returns.
        self.progress = Some(unsafe {
            std::mem::transmute::<
                *mut (dyn FnMut(usize, usize) + '_),
                *mut (dyn FnMut(usize, usize) + 'static),
            >(borrowed)
        });
        let lent = Lent(self);
        f(lent.0)
    }

    /// The model as the last run left it: its shared buffer, its records.
    pub fn npu(&self) -> &Npu {
        &self.npu
    }

    pub fn into_npu(self) -> Npu {
        self.npu
    }

    /// The last run's statistics (operations, records, MACs).
    pub fn stats(&self) -> &RunStats {
        &self.npu.state.stats
    }

    /// Why the last run stopped on an error, if it did.
    pub fn last_error(&self) -> Option<&ModelError> {
        self.last_error.as_ref()
    }

    pub fn registers(&self) -> &RegisterFile {
        &self.registers
    }

    fn status(&self) -> u32 {
        self.npu.status.register()
    }

    fn stopped(&self) -> bool {
        !self.npu.status.running
    }

    /// A soft or hard reset: every register (PROT to the levels given), the
    /// model's state and shared buffer, STATUS and QREAD.
    fn reset(&mut self, cpl: bool, csl: bool) {
        self.registers = RegisterFile::after_reset(&self.config, cpl, csl);
        self.npu = Npu::new(self.config.clone());
        self.last_error = None;
        self.paused = None;
    }

    /// CMD.transition_to_running_state (TRM 4.2.3): ignored while an error
    /// is set; runs the stream of QSIZE bytes at QBASE.
    fn start(&mut self) -> Result<(), DeviceError> {
        let status = &mut self.npu.status;
        if status.running || status.cmd_parse_error || status.bus_status {
            return Ok(());
        }
        self.last_error = None;
        self.npu.state.stats = RunStats::default();
        self.npu.qread = 0;
        let bits = self.config.axi_addr_bits;
        let size = self.registers.stored(&regs::QSIZE) as usize;
        // TRM 4.2.5: QBASE bits 1:0 are ignored.
        let base = self.registers.address(&regs::QBASE0, &regs::QBASE1, bits) & !3;
        if !size.is_multiple_of(4) {
            // TRM 4.2.9: checked before any fetch.
            self.npu.run(&vec![0; size]).ok();
            return Ok(());
        }
        let mut stream = vec![0; size];
        if size > 0 && self.memory.copy_out(base, &mut stream).is_err() {
            // The command channel's read answers DECERR.
            let qconfig = self.registers.stored(&regs::QCONFIG) & 3;
            let status = &mut self.npu.status;
            status.bus_status = true;
            status.faulting_channel = regs::FaultingChannel::CommandRead as u32;
            status.faulting_interface = counter_port(qconfig);
            status.irq_raised = true;
            return Ok(());
        }
        self.go(stream, 0)
    }

    /// Runs the stream from byte `from` on the regions the base pointers
    /// give now, up to its end or the next NPU_OP_IRQ (TRM 4.6.4: the IRQ
    /// is raised and the NPU runs on, which it does at the next cycle).
    fn go(&mut self, stream: Vec<u8>, from: usize) -> Result<(), DeviceError> {
        let bits = self.config.axi_addr_bits;
        let regioncfg = self.registers.stored(&regs::REGIONCFG);
        for k in 0..REGION_COUNT {
            self.npu.regioncfg[k] = regs::REGIONCFG.field(&format!("region{k}")).get(regioncfg);
            let base = self
                .registers
                .address(&regs::BASEP[2 * k], &regs::BASEP[2 * k + 1], bits);
            let bytes = &mut self.npu.state.memory;
            let set = match self.memory.window_from(base) {
                // SAFETY: the window stays mapped and untouched until the
                // views are dropped below, before this call returns.
                Some((ptr, len)) => unsafe { bytes.set_view(k, ptr, len) },
                None => bytes.set_region(k, Vec::new()),
            };
            set.expect("regions 0-7 exist");
        }
        let mut report = |done: usize, total: usize| {
            if let Some(progress) = self.progress {
                // SAFETY: set only while `run_with_progress` lends it.
                unsafe { (*progress)(done, total) }
            }
        };
        let result = self.npu.run_part(&stream, from, true, &mut report);
        for k in 0..REGION_COUNT {
            self.npu
                .state
                .memory
                .set_region(k, Vec::new())
                .expect("regions 0-7 exist");
        }
        match result {
            Ok(Some(next)) => {
                self.paused = Some((stream, next));
                Ok(())
            }
            Ok(None) => {
                self.npu.status.running = false;
                Ok(())
            }
            Err(e) if !self.npu.status.ok() => {
                self.npu.status.running = false;
                self.last_error = Some(e);
                Ok(())
            }
            Err(e) => {
                self.npu.status.running = false;
                Err(DeviceError::Model(format!(
                    "{e} (the NPU's result is not defined; the device stops here)"
                )))
            }
        }
    }
}

impl Device for GoldenDevice {
    fn config(&self) -> &NpuConfig {
        &self.config
    }

    fn read(&mut self, offset: u16, pprot: u8) -> Apb {
        let Some(r) = regs::at(offset) else {
            return Apb {
                rdata: 0,
                slverr: true,
            };
        };
        let rdata = if self.registers.permits(pprot) {
            self.registers
                .value(r, self.status(), self.npu.qread as u32)
        } else {
            0
        };
        Apb {
            rdata,
            slverr: false,
        }
    }

    fn write(&mut self, offset: u16, value: u32, pprot: u8) -> Result<Apb, DeviceError> {
        let Some(r) = regs::at(offset) else {
            return Ok(Apb {
                rdata: 0,
                slverr: true,
            });
        };
        if !self.registers.permits(pprot) {
            return Ok(Apb::default());
        }
        self.registers.write(r, value);
        match r.address {
            a if a == regs::RESET.address => {
                let (cpl, csl) = soft_reset_levels(value, pprot);
                self.reset(cpl, csl);
            }
            a if a == regs::CMD.address => {
                let cmd = &regs::CMD;
                let status = &mut self.npu.status;
                if cmd.field("clear_irq").get(value) != 0 {
                    status.irq_raised = false;
                }
                status.irq_history_mask &= !(cmd.field("clear_irq_history").get(value) as u16);
                if cmd.field("transition_to_running_state").get(value) != 0 {
                    self.start()?;
                }
            }
            // TRM 4.2.2: writing QBASE or QSIZE while stopped clears
            // STATUS.cmd_end_reached.
            a if self.stopped()
                && [
                    regs::QBASE0.address,
                    regs::QBASE1.address,
                    regs::QSIZE.address,
                ]
                .contains(&a) =>
            {
                self.npu.status.cmd_end_reached = false;
            }
            _ => {}
        }
        Ok(Apb::default())
    }

    fn run(&mut self, cycles: u64) -> Result<(), DeviceError> {
        self.cycle += cycles;
        match self.paused.take() {
            Some((stream, from)) if cycles > 0 => self.go(stream, from),
            paused => {
                self.paused = paused;
                Ok(())
            }
        }
    }

    fn cycle(&self) -> u64 {
        self.cycle
    }

    fn irq(&self) -> bool {
        self.npu.status.irq_raised || self.registers.pmu_irq()
    }

    fn quiet(&self) -> bool {
        true
    }

    fn hard_reset(&mut self, porpl: bool, porsl: bool) -> Result<(), DeviceError> {
        self.reset(porpl, porsl);
        self.q_states = [QState::Run; 2];
        Ok(())
    }

    /// TRM 3.3.4.2-3.3.4.3: a request is accepted when the NPU is idle (no
    /// IRQ raised: the model has no work left after a run) and CMD enables
    /// the channel, otherwise denied; withdrawn, the channel runs again.
    fn set_q_request(&mut self, channel: QChannel, request: bool) -> Result<(), DeviceError> {
        let enabled = channel.enable().get(self.registers.stored(&regs::CMD)) != 0;
        self.q_states[channel.index()] = match (request, enabled && !self.irq()) {
            (true, true) => QState::Stopped,
            (true, false) => QState::Denied,
            (false, _) => QState::Run,
        };
        Ok(())
    }

    fn q_state(&self, channel: QChannel) -> QState {
        self.q_states[channel.index()]
    }

    fn memory(&self) -> &AddressSpace {
        &self.memory
    }

    fn memory_mut(&mut self) -> &mut AddressSpace {
        &mut self.memory
    }
}
