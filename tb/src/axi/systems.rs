//! Vela's system configurations as memory presets for the AXI completers:
//! the memories Vela 5.2.0's `Arm/vela.ini` puts behind AXI0 and AXI1 for
//! each Ethos-U55 and Ethos-U65 system, with the figures its performance
//! estimate uses (read and write latency in NPU cycles, bandwidth as the
//! clock scale times the 16-byte port) and the outstanding limits its
//! timing adapters add (`max_reads`, `max_writes`).
//!
//! Which regions reach which port is the driver's REGIONCFG, and each
//! system says where its memory mode (`vela.ini`'s `Memory_Mode`) puts
//! Vela's regions (0 the constants, 1 the arena, which holds the OFMs, 2
//! the fast scratch): `Dedicated_Sram` for the DRAM systems (constants and
//! arena on AXI1, the cache on AXI0: the Ethos-U driver's default,
//! `npu_tb::driver::AxiSettings`), `Shared_Sram` for the flash ones, whose
//! flash is read-only (constants on AXI1, the arena and cache on AXI0).

use super::CompleterConfig;
use crate::driver::AxiSettings;
use npu_arch::regs::REGION_COUNT;

/// The memory behind one AXI port (a `vela.ini` memory: Sram, Dram or
/// OffChipFlash).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PortMemory {
    pub kind: &'static str,
    /// The memory's clock over the NPU's: its bandwidth is this times the
    /// port's 16 bytes a cycle.
    pub clock_scale: f64,
    /// Bytes Vela's estimate assumes per burst.
    pub burst_length: u32,
    /// NPU cycles from an accepted read address to its data, and from a
    /// burst's last write beat to its response.
    pub read_latency: u64,
    pub write_latency: u64,
    /// Transactions the memory (a timing adapter) holds at once.
    pub max_reads: usize,
    pub max_writes: usize,
}

/// Where a `vela.ini` memory mode puts the constants, the arena and the
/// cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryMode {
    /// Constants on AXI1, arena and cache on AXI0.
    SharedSram,
    /// Constants and arena on AXI1, the cache on AXI0.
    DedicatedSram,
}

impl MemoryMode {
    pub fn name(&self) -> &'static str {
        match self {
            MemoryMode::SharedSram => "Shared_Sram",
            MemoryMode::DedicatedSram => "Dedicated_Sram",
        }
    }

    /// REGIONCFG for Vela's regions: region 0 (constants) on counter 3 of
    /// AXI1, region 1 (the arena) on counter 2 of AXI1 or 0 of AXI0, the
    /// others (the cache; the network's inputs and outputs, which Vela puts
    /// in the arena) on counter 1 of AXI0. `DedicatedSram` gives the
    /// Ethos-U driver's default.
    pub fn regioncfg(&self) -> [u32; REGION_COUNT] {
        let arena = match self {
            MemoryMode::SharedSram => 0,
            MemoryMode::DedicatedSram => 2,
        };
        std::array::from_fn(|k| match k {
            0 => 3,
            1 => arena,
            _ => 1,
        })
    }
}

/// A `vela.ini` system configuration: the NPU clock, each port's memory
/// and the memory mode its networks run in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SystemConfig {
    pub name: &'static str,
    pub core_clock_hz: f64,
    /// AXI0 (M0) and AXI1 (M1).
    pub ports: [PortMemory; 2],
    pub memory_mode: MemoryMode,
}

const fn memory(
    kind: &'static str,
    clock_scale: f64,
    burst_length: u32,
    [read_latency, write_latency]: [u64; 2],
    [max_reads, max_writes]: [usize; 2],
) -> PortMemory {
    PortMemory {
        kind,
        clock_scale,
        burst_length,
        read_latency,
        write_latency,
        max_reads,
        max_writes,
    }
}

const fn sram(max: usize) -> PortMemory {
    memory("Sram", 1.0, 32, [32, 32], [max, max])
}

const fn flash(clock_scale: f64) -> PortMemory {
    memory("OffChipFlash", clock_scale, 128, [64, 0], [2, 0])
}

const fn dram(clock_scale: f64, [max_reads, max_writes]: [usize; 2]) -> PortMemory {
    memory(
        "Dram",
        clock_scale,
        128,
        [500, 250],
        [max_reads, max_writes],
    )
}

/// Vela 5.2.0's Ethos-U55 and Ethos-U65 system configurations (`vela.ini`).
pub const SYSTEM_CONFIGS: [SystemConfig; 6] = [
    SystemConfig {
        name: "Ethos_U55_Deep_Embedded",
        core_clock_hz: 200e6,
        ports: [sram(8), flash(0.0625)],
        memory_mode: MemoryMode::SharedSram,
    },
    SystemConfig {
        name: "Ethos_U55_High_End_Embedded",
        core_clock_hz: 500e6,
        ports: [sram(4), flash(0.125)],
        memory_mode: MemoryMode::SharedSram,
    },
    SystemConfig {
        name: "Ethos_U65_Embedded",
        core_clock_hz: 500e6,
        ports: [sram(8), flash(0.0625)],
        memory_mode: MemoryMode::SharedSram,
    },
    SystemConfig {
        name: "Ethos_U65_Mid_End",
        core_clock_hz: 500e6,
        ports: [sram(8), dram(0.46875, [12, 6])],
        memory_mode: MemoryMode::DedicatedSram,
    },
    SystemConfig {
        name: "Ethos_U65_High_End",
        core_clock_hz: 1e9,
        ports: [sram(16), dram(0.234375, [24, 12])],
        memory_mode: MemoryMode::DedicatedSram,
    },
    SystemConfig {
        name: "Ethos_U65_Client_Server",
        core_clock_hz: 1e9,
        ports: [sram(16), dram(0.75, [24, 12])],
        memory_mode: MemoryMode::DedicatedSram,
    },
];

impl SystemConfig {
    /// The configuration named `name`; the error lists the known names.
    pub fn by_name(name: &str) -> Result<&'static SystemConfig, String> {
        SYSTEM_CONFIGS
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| {
                let known: Vec<&str> = SYSTEM_CONFIGS.iter().map(|c| c.name).collect();
                format!(
                    "{name}: not one of Vela's system configurations ({})",
                    known.join(", ")
                )
            })
    }

    /// Port `port`'s completer as Vela's estimate models the memory
    /// (latency and bandwidth), and with `limits` its outstanding limits
    /// too, as a timing adapter adds them.
    pub fn completer(&self, port: usize, limits: bool) -> CompleterConfig {
        let m = self.ports[port];
        CompleterConfig {
            read_latency: m.read_latency,
            write_latency: m.write_latency,
            bytes_per_cycle: Some(16.0 * m.clock_scale),
            max_reads: limits.then_some(m.max_reads),
            max_writes: limits.then_some(m.max_writes),
            ..CompleterConfig::ideal()
        }
    }

    /// What the driver programs on this system: REGIONCFG as its memory
    /// mode places the regions, Arm's defaults for the rest.
    pub fn axi_settings(&self) -> AxiSettings {
        AxiSettings {
            regioncfg: self.memory_mode.regioncfg(),
            ..AxiSettings::default()
        }
    }

    /// One line: each port's memory, latency and bandwidth, the memory mode.
    pub fn describe(&self) -> String {
        let port = |k: usize| {
            let m = self.ports[k];
            format!(
                "AXI{k} {} ({}/{} cycles read/write latency, {} bytes a cycle)",
                m.kind,
                m.read_latency,
                m.write_latency,
                16.0 * m.clock_scale
            )
        };
        format!(
            "{}: {}, {}; {}",
            self.name,
            port(0),
            port(1),
            self.memory_mode.name()
        )
    }
}
