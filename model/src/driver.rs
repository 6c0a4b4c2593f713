//! The host side: runs a command stream on any [`Device`] through its
//! registers the way Arm's Ethos-U core driver does (ethos-u-core-driver:
//! `ethosu_driver.c`, `ethosu_device_u55_u65.c`, defaults from
//! `ethosu_config_u65.h`; `../shared/DRIVERS.md`).
//!
//! One invocation, as the driver's `ethosu_invoke_async` and `ethosu_wait`:
//! 1. soft reset (TRM C.1): RESET with the requested security and privilege
//!    levels, poll STATUS.reset_status, check PROT, then AXI_LIMIT0-3;
//! 2. CMD with clock_q_enable = power_q_enable = 0: the NPU keeps its clock
//!    and power while it runs (the driver's power request);
//! 3. QBASE0/1, QSIZE, QCONFIG, BASEP0-15, REGIONCFG, then
//!    CMD.transition_to_running_state, keeping the Q-channel bits;
//! 4. wait for the NPU to stop, read STATUS, clear the IRQ through
//!    CMD.clear_irq: bus_status, cmd_parse_error and ecc_fault are errors,
//!    and so is a stop without STATUS.cmd_end_reached;
//! 5. CMD with clock_q_enable = power_q_enable = 1 (the power release).
//!
//! Departures, all for a testbench: the wait reads STATUS at each new IRQ
//! and every few hundred cycles, because an NPU can stop without an IRQ (a
//! stream without NPU_OP_STOP ends with STATUS.cmd_end_reached); an IRQ with
//! STATUS.state still running (NPU_OP_IRQ, TRM 4.6.4) is left raised and
//! waited past, where Arm's driver would end the inference, so STATUS is
//! returned as the NPU stopped. After an error the NPU is left as it is, for
//! inspection (Arm's driver soft-resets it; the next invocation here starts
//! with a soft reset anyway).

use crate::device::{Device, DeviceError};
use npu_arch::regs::describe_status;
use npu_arch::regs::{self, Register, DRIVER_REGIONCFG, REGION_COUNT};
use rand::Rng;
use std::fmt;

/// The host's APB accesses are privileged and secure (PPROT = 0b001), which
/// TRM 4.1 permits whatever levels the NPU runs at.
pub const HOST_PPROT: u8 = 0b001;

/// How often STATUS.reset_status is read before a soft reset counts as hung
/// (the driver's `ethosu_dev_soft_reset` bound).
const SOFT_RESET_POLLS: u32 = 100_000;

/// Cycles between the QREAD reads that report progress while waiting.
const PROGRESS_INTERVAL: u64 = 1 << 14;

/// Cycles between STATUS reads while waiting with IRQ low (an NPU that ends
/// a stream without NPU_OP_STOP stops without IRQ), and with an IRQ of
/// NPU_OP_IRQ raised (a later STOP raises no new edge). They bound how late
/// such a stop is seen; a STOP's own IRQ is seen at once.
const STATUS_POLL_INTERVAL: u64 = 1 << 10;
const STATUS_POLL_INTERVAL_IRQ_RAISED: u64 = 1 << 6;

/// Default IRQ wait, in CLK cycles.
pub const DEFAULT_MAX_CYCLES: u64 = 20_000_000;

/// Base addresses and the command stream are 16-byte aligned (the driver's
/// `handle_command_stream` checks).
const ALIGNMENT: u64 = 16;

const AXI_LIMIT: [Register; 4] = [
    regs::AXI_LIMIT0,
    regs::AXI_LIMIT1,
    regs::AXI_LIMIT2,
    regs::AXI_LIMIT3,
];

/// One AXI_LIMITn register (TRM 4.2.14-4.2.17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxiLimit {
    /// Burst-split alignment: 0 = 64 B, 1 = 128 B, 2 = 256 B.
    pub max_beats: u32,
    /// Memory type, giving AxCACHE (TRM table 4-31), 0-11.
    pub memtype: u32,
    /// Outstanding reads allowed, 1-64.
    pub max_outstanding_reads: u32,
    /// Outstanding writes allowed, 1-32.
    pub max_outstanding_writes: u32,
}

impl AxiLimit {
    /// `ethosu_config_u65.h`: AXI_LIMITn_MAX_BEATS_BYTES 0, AXI_LIMITn_MEM_TYPE 0,
    /// AXI_LIMITn_MAX_OUTSTANDING_READS 64, AXI_LIMITn_MAX_OUTSTANDING_WRITES 32.
    pub const U65_DEFAULT: Self = Self {
        max_beats: 0,
        memtype: 0,
        max_outstanding_reads: 64,
        max_outstanding_writes: 32,
    };

    /// Bytes of the aligned blocks bursts are split at: 64 << max_beats.
    pub fn burst_split(&self) -> u64 {
        64 << self.max_beats
    }

    /// The register value, with the field layout of `npu_arch::regs`.
    pub fn register_value(&self) -> u32 {
        let r = &regs::AXI_LIMIT0;
        [
            ("max_beats", self.max_beats),
            ("memtype", self.memtype),
            ("max_outstanding_read_m1", self.max_outstanding_reads - 1),
            ("max_outstanding_write_m1", self.max_outstanding_writes - 1),
        ]
        .iter()
        .fold(0, |v, &(name, x)| r.field(name).set(v, x))
    }

    fn validate(&self, n: usize) -> Result<(), DriverError> {
        let ok = self.max_beats <= 2
            && self.memtype <= 11
            && (1..=64).contains(&self.max_outstanding_reads)
            && (1..=32).contains(&self.max_outstanding_writes);
        if ok {
            Ok(())
        } else {
            Err(DriverError::Invalid(format!(
                "AXI_LIMIT{n} {self:?}: max_beats 0-2, memtype 0-11, 1-64 reads and 1-32 writes"
            )))
        }
    }
}

/// What the driver programs for the AXI managers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxiSettings {
    /// REGIONCFG.region<k> for each region: 0, 1 = M0 with counter 0, 1;
    /// 2, 3 = M1 with counter 2, 3 (TRM 4.2.13).
    pub regioncfg: [u32; REGION_COUNT],
    /// AXI_LIMIT0-3: the limits of counters 0-3.
    pub axi_limits: [AxiLimit; 4],
    /// QCONFIG: the command stream's port and counter, coded as a REGIONCFG field (TRM 4.2.8).
    pub qconfig: u32,
}

impl Default for AxiSettings {
    /// `ethosu_config_u65.h`: NPU_QCONFIG 2, NPU_REGIONCFG_0 3, NPU_REGIONCFG_1 2,
    /// NPU_REGIONCFG_2..7 1, and [`AxiLimit::U65_DEFAULT`] for every counter.
    fn default() -> Self {
        Self {
            regioncfg: DRIVER_REGIONCFG,
            axi_limits: [AxiLimit::U65_DEFAULT; 4],
            qconfig: 2,
        }
    }
}

impl AxiSettings {
    /// What Linux's accel/ethosu programs at every reset
    /// (`../shared/DRIVERS.md`): REGIONCFG 0x0000AA8A (region 2, Vela's
    /// fast scratch, on M0 with counter 0; every other region on M1 with
    /// counter 2), AXI_LIMIT0 0x1F3F00B0 (64-byte bursts, memory type 0xB)
    /// and AXI_LIMIT2 0x1F3F0002 (256-byte bursts); AXI_LIMIT1 and 3 and
    /// QCONFIG keep their reset values.
    pub fn linux_accel_ethosu() -> Self {
        let at_reset = AxiLimit {
            max_beats: 0,
            memtype: 0,
            max_outstanding_reads: 1,
            max_outstanding_writes: 1,
        };
        Self {
            regioncfg: std::array::from_fn(|k| if k == 2 { 0 } else { 2 }),
            axi_limits: [
                AxiLimit {
                    memtype: 0xB,
                    ..AxiLimit::U65_DEFAULT
                },
                at_reset,
                AxiLimit {
                    max_beats: 2,
                    ..AxiLimit::U65_DEFAULT
                },
                at_reset,
            ],
            qconfig: 0,
        }
    }

    /// Any valid settings: each region and the command stream on a random
    /// counter (so port), each AXI_LIMITn with a random burst split, memory
    /// type and outstanding limits. For randomized tests.
    pub fn random(rng: &mut impl Rng) -> Self {
        Self {
            regioncfg: std::array::from_fn(|_| rng.gen_range(0..4)),
            qconfig: rng.gen_range(0..4),
            axi_limits: std::array::from_fn(|_| AxiLimit {
                max_beats: rng.gen_range(0..3),
                memtype: rng.gen_range(0..12),
                max_outstanding_reads: rng.gen_range(1..=64),
                max_outstanding_writes: rng.gen_range(1..=32),
            }),
        }
    }

    /// The REGIONCFG register value.
    pub fn regioncfg_value(&self) -> u32 {
        self.regioncfg.iter().enumerate().fold(0, |v, (k, &x)| {
            regs::REGIONCFG.field(&format!("region{k}")).set(v, x)
        })
    }

    fn validate(&self) -> Result<(), DriverError> {
        for (n, l) in self.axi_limits.iter().enumerate() {
            l.validate(n)?;
        }
        if let Some(k) = self.regioncfg.iter().position(|&x| x > 3) {
            return Err(DriverError::Invalid(format!(
                "REGIONCFG.region{k} = {} is not a counter 0-3",
                self.regioncfg[k]
            )));
        }
        if self.qconfig > 3 {
            return Err(DriverError::Invalid(format!(
                "QCONFIG = {} is not a counter 0-3",
                self.qconfig
            )));
        }
        Ok(())
    }
}

/// One command stream to run, with the memory it runs against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inference {
    /// Address of the command stream in the NPU's memory, 16-byte aligned.
    pub command_stream: u64,
    /// Length of the stream in bytes (QSIZE).
    pub command_stream_size: u32,
    /// Base address of region k at index k (BASEP[2k], BASEP[2k+1]), 16-byte
    /// aligned; at most 8 regions.
    pub base_addresses: Vec<u64>,
    pub axi: AxiSettings,
    /// Security level the NPU takes as an AXI manager (RESET.pending_CSL, TRM 4.2.4).
    pub secure: bool,
    /// Privilege level the NPU takes as an AXI manager (RESET.pending_CPL).
    pub privileged: bool,
    /// CLK cycles to wait for the IRQ before giving up.
    pub max_cycles: u64,
}

impl Inference {
    /// The driver's defaults: U65 AXI settings; secure and unprivileged,
    /// the levels a hard reset with PORSL = PORPL = 0 gives.
    pub fn new(command_stream: u64, command_stream_size: u32, base_addresses: Vec<u64>) -> Self {
        Self {
            command_stream,
            command_stream_size,
            base_addresses,
            axi: AxiSettings::default(),
            secure: true,
            privileged: false,
            max_cycles: DEFAULT_MAX_CYCLES,
        }
    }

    fn validate(&self, address_bits: u32) -> Result<(), DriverError> {
        let invalid = |m: String| Err(DriverError::Invalid(m));
        let fits = |a: u64| a >> address_bits == 0;
        if !self.command_stream.is_multiple_of(ALIGNMENT) || !fits(self.command_stream) {
            return invalid(format!(
                "command stream address {:#x} is not a 16-byte aligned {address_bits}-bit address",
                self.command_stream
            ));
        }
        if self.command_stream_size == 0 || !self.command_stream_size.is_multiple_of(4) {
            return invalid(format!(
                "command stream size {} is not a positive multiple of 4 bytes",
                self.command_stream_size
            ));
        }
        if self.base_addresses.len() > REGION_COUNT {
            return invalid(format!(
                "{} base addresses; the NPU has {REGION_COUNT} regions",
                self.base_addresses.len()
            ));
        }
        for (k, &a) in self.base_addresses.iter().enumerate() {
            if !a.is_multiple_of(ALIGNMENT) || !fits(a) {
                return invalid(format!(
                    "region {k} base address {a:#x} is not a 16-byte aligned {address_bits}-bit address"
                ));
            }
        }
        self.axi.validate()
    }
}

/// STATUS and QREAD as the driver last read them, with the IRQ output then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NpuState {
    pub status: u32,
    pub qread: u32,
    pub qsize: u32,
    pub irq: bool,
}

impl NpuState {
    fn field(&self, name: &str) -> u32 {
        regs::STATUS.field(name).get(self.status)
    }

    /// STATUS.bus_status, cmd_parse_error or ecc_fault: the NPU stopped on an error.
    pub fn has_error(&self) -> bool {
        ["bus_status", "cmd_parse_error", "ecc_fault"]
            .iter()
            .any(|f| self.field(f) != 0)
    }

    /// Stopped with STATUS.cmd_end_reached and no error: what Arm's driver
    /// requires of an inference (its interrupt handler's STATUS check).
    pub fn succeeded(&self) -> bool {
        !self.running() && !self.has_error() && self.field("cmd_end_reached") != 0
    }

    pub fn running(&self) -> bool {
        self.field("state") != 0
    }
}

impl fmt::Display for NpuState {
    /// `STATUS 0x00000005 (state=1 bus_status=1 ...), QREAD 0x10 of QSIZE 0x2c, IRQ 1`:
    /// STATUS with its state and every field that is not zero.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "STATUS {}, QREAD {:#x} of QSIZE {:#x}, IRQ {}",
            describe_status(self.status),
            self.qread,
            self.qsize,
            u8::from(self.irq)
        )
    }
}

/// Why an invocation failed.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("invalid inference: {0}")]
    Invalid(String),
    #[error("APB {access} of {register} answered PSLVERR")]
    Apb {
        access: &'static str,
        register: &'static str,
    },
    #[error("soft reset: {0}")]
    SoftReset(String),
    #[error("the NPU did not stop within {cycles} cycles of the start: {state}")]
    Timeout { cycles: u64, state: NpuState },
    #[error("the NPU stopped on an error or before the end of its stream after {cycles} cycles: {state}")]
    Fault { cycles: u64, state: NpuState },
    #[error("{0}")]
    Device(#[from] DeviceError),
}

/// A finished invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvokeResult {
    /// STATUS, QREAD and IRQ as the NPU stopped, before the driver cleared the IRQ.
    pub state: NpuState,
    /// CLK cycles from the CMD write that started the NPU to the read of
    /// STATUS that saw it stopped.
    pub cycles: u64,
    /// IRQs raised while the NPU kept running (NPU_OP_IRQ), before the final one.
    pub irqs: u32,
}

/// An invocation under way: the NPU was started and its IRQ is awaited.
#[must_use = "an invocation is finished by `wait`"]
#[derive(Clone, Copy, Debug)]
pub struct Running {
    started_at: u64,
    max_cycles: u64,
    qsize: u32,
}

fn read<D: Device + ?Sized>(dev: &mut D, reg: &Register) -> Result<u32, DriverError> {
    let r = dev.read(reg.address, HOST_PPROT);
    if r.slverr {
        return Err(DriverError::Apb {
            access: "read",
            register: reg.name,
        });
    }
    Ok(r.rdata)
}

fn write<D: Device + ?Sized>(dev: &mut D, reg: &Register, value: u32) -> Result<(), DriverError> {
    if dev.write(reg.address, value, HOST_PPROT)?.slverr {
        return Err(DriverError::Apb {
            access: "write",
            register: reg.name,
        });
    }
    Ok(())
}

/// CMD keeping only its Q-channel enables (the driver's `NPU_CMD_PWR_CLK_MASK`),
/// then `set` applied.
fn write_cmd<D: Device + ?Sized>(dev: &mut D, set: impl Fn(u32) -> u32) -> Result<(), DriverError> {
    let q = regs::CMD.field("clock_q_enable").mask() | regs::CMD.field("power_q_enable").mask();
    let cmd = read(dev, &regs::CMD)? & q;
    write(dev, &regs::CMD, set(cmd))
}

/// Clock and power Q-channel enables (the driver's `ethosu_dev_set_clock_and_power`).
fn set_clock_and_power<D: Device + ?Sized>(dev: &mut D, enable: bool) -> Result<(), DriverError> {
    write_cmd(dev, |cmd| {
        let cmd = regs::CMD
            .field("clock_q_enable")
            .set(cmd, u32::from(enable));
        regs::CMD
            .field("power_q_enable")
            .set(cmd, u32::from(enable))
    })
}

/// TRM C.1 soft reset flow, then the AXI limits (the driver's `ethosu_dev_soft_reset`).
fn soft_reset<D: Device + ?Sized>(dev: &mut D, inference: &Inference) -> Result<(), DriverError> {
    // CSL 0 is secure, CPL 1 privileged (TRM 4.2.4, 4.2.10).
    let (csl, cpl) = (
        u32::from(!inference.secure),
        u32::from(inference.privileged),
    );
    let reset = regs::RESET.field("pending_CSL").set(0, csl);
    write(
        dev,
        &regs::RESET,
        regs::RESET.field("pending_CPL").set(reset, cpl),
    )?;
    let in_reset = regs::STATUS.field("reset_status");
    let mut polls = 0;
    while in_reset.get(read(dev, &regs::STATUS)?) != 0 {
        polls += 1;
        if polls == SOFT_RESET_POLLS {
            return Err(DriverError::SoftReset(format!(
                "STATUS.reset_status still 1 after {SOFT_RESET_POLLS} reads"
            )));
        }
    }
    let prot = read(dev, &regs::PROT)?;
    let active = (
        regs::PROT.field("active_CSL").get(prot),
        regs::PROT.field("active_CPL").get(prot),
    );
    if active != (csl, cpl) {
        return Err(DriverError::SoftReset(format!(
            "PROT reads active_CSL={} active_CPL={} after a reset to pending_CSL={csl} pending_CPL={cpl}",
            active.0, active.1
        )));
    }
    for (reg, limit) in AXI_LIMIT.iter().zip(&inference.axi.axi_limits) {
        write(dev, reg, limit.register_value())?;
    }
    Ok(())
}

/// Writes a 40-bit address as a low and a high register.
fn write_address<D: Device + ?Sized>(
    dev: &mut D,
    low: &Register,
    high: &Register,
    address: u64,
) -> Result<(), DriverError> {
    write(dev, low, address as u32)?;
    write(dev, high, (address >> 32) as u32)
}

/// Programs the NPU and starts it; [`wait`] finishes the invocation.
pub fn invoke_async<D: Device + ?Sized>(
    dev: &mut D,
    inference: &Inference,
) -> Result<Running, DriverError> {
    invoke_async_with(dev, inference, &mut |_| {})
}

/// As [`invoke_async`], calling `begin` once the NPU is reset and
/// programmed, just before it starts: the driver's `ethosu_inference_begin`
/// hook, where a profiler sets up the PMU (a soft reset clears it).
pub fn invoke_async_with<D: Device + ?Sized>(
    dev: &mut D,
    inference: &Inference,
    begin: &mut dyn FnMut(&mut D),
) -> Result<Running, DriverError> {
    inference.validate(dev.config().axi_addr_bits)?;
    soft_reset(dev, inference)?;
    set_clock_and_power(dev, false)?;
    write_address(dev, &regs::QBASE0, &regs::QBASE1, inference.command_stream)?;
    write(dev, &regs::QSIZE, inference.command_stream_size)?;
    write(dev, &regs::QCONFIG, inference.axi.qconfig)?;
    for (k, &base) in inference.base_addresses.iter().enumerate() {
        write_address(dev, &regs::BASEP[2 * k], &regs::BASEP[2 * k + 1], base)?;
    }
    write(dev, &regs::REGIONCFG, inference.axi.regioncfg_value())?;
    begin(dev);
    write_cmd(dev, |cmd| {
        regs::CMD.field("transition_to_running_state").set(cmd, 1)
    })?;
    Ok(Running {
        started_at: dev.cycle(),
        max_cycles: inference.max_cycles,
        qsize: inference.command_stream_size,
    })
}

/// Waits for the NPU to stop; see [`wait_with_progress`].
pub fn wait<D: Device + ?Sized>(
    dev: &mut D,
    running: Running,
) -> Result<InvokeResult, DriverError> {
    wait_with_progress(dev, running, &mut |_, _| {})
}

/// Waits for the NPU to stop, up to its cycle limit, and checks STATUS.
/// `progress(qread, qsize)` is called every few thousand cycles.
pub fn wait_with_progress<D: Device + ?Sized>(
    dev: &mut D,
    running: Running,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<InvokeResult, DriverError> {
    let mut irqs = 0;
    let mut irq_seen = false;
    let mut next_poll = STATUS_POLL_INTERVAL;
    let mut next_progress = PROGRESS_INTERVAL;
    loop {
        let cycles = dev.cycle() - running.started_at;
        let irq_high = dev.irq();
        if (irq_high && !irq_seen) || cycles >= next_poll {
            let state = read_state(dev, running)?;
            if !state.running() {
                write_cmd(dev, |cmd| regs::CMD.field("clear_irq").set(cmd, 1))?;
                set_clock_and_power(dev, true)?;
                if !state.succeeded() {
                    return Err(DriverError::Fault { cycles, state });
                }
                return Ok(InvokeResult {
                    state,
                    cycles,
                    irqs,
                });
            }
            if irq_high && !irq_seen {
                irqs += 1;
            }
            irq_seen = irq_high;
            next_poll = cycles
                + if irq_high {
                    STATUS_POLL_INTERVAL_IRQ_RAISED
                } else {
                    STATUS_POLL_INTERVAL
                };
        }
        if cycles >= running.max_cycles {
            let state = read_state(dev, running)?;
            return Err(DriverError::Timeout { cycles, state });
        }
        if cycles >= next_progress {
            next_progress += PROGRESS_INTERVAL;
            let qread = read(dev, &regs::QREAD)?;
            progress(qread as usize, running.qsize as usize);
        }
        dev.run(1)?;
    }
}

fn read_state<D: Device + ?Sized>(dev: &mut D, running: Running) -> Result<NpuState, DriverError> {
    let irq = dev.irq();
    Ok(NpuState {
        irq,
        status: read(dev, &regs::STATUS)?,
        qread: read(dev, &regs::QREAD)?,
        qsize: running.qsize,
    })
}

/// Runs `inference` to its end: [`invoke_async`] then [`wait`].
pub fn invoke<D: Device + ?Sized>(
    dev: &mut D,
    inference: &Inference,
) -> Result<InvokeResult, DriverError> {
    let running = invoke_async(dev, inference)?;
    wait(dev, running)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The register values `../shared/DRIVERS.md` gives for Linux.
    #[test]
    fn linux_s_settings_are_the_register_values_it_writes() {
        let linux = AxiSettings::linux_accel_ethosu();
        linux.validate().unwrap();
        assert_eq!(linux.regioncfg_value(), 0x0000_AA8A);
        let limits = linux.axi_limits.map(|l| l.register_value());
        let reset = regs::AXI_LIMIT1.reset_value(0, false, false);
        assert_eq!(limits, [0x1F3F_00B0, reset, 0x1F3F_0002, reset]);
        assert_eq!(linux.qconfig, regs::QCONFIG.reset_value(0, false, false));
    }
}
