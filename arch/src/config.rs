//! NPU configurations (TRM 4.2.11 CONFIG, 4.9.1 shared buffer, tables ).
//!
//! A configuration is data: `npu-gen` elaborates the hardware from it, the
//! testbench and the golden model read the same values.

use serde::{Deserialize, Serialize};
use std::ops::RangeInclusive;

/// ARID range of each DMA read channel on AXI M0 (TRM tables ).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadIdRanges {
    pub command: RangeInclusive<u8>,
    pub ifm: RangeInclusive<u8>,
    pub weight: Vec<RangeInclusive<u8>>,
    pub scale: Vec<RangeInclusive<u8>>,
    pub mem2mem: RangeInclusive<u8>,
}

/// One buildable NPU configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NpuConfig {
    /// Name used on command lines, e.g. `u65-256`.
    pub name: String,
    /// 8x8-bit MACs per clock cycle.
    pub macs_per_cycle: u32,
    /// MAC cores; output channels split between them in parallel mode (TRM 4.7.5.1).
    pub cores: u32,
    /// Shared buffer size in KiB.
    pub shram_kib: u32,
    /// AXI data width in bits.
    pub axi_data_bits: u32,
    /// AXI address width in bits.
    pub axi_addr_bits: u32,
    /// AXI ID width in bits.
    pub axi_id_bits: u32,
    pub read_ids: ReadIdRanges,
}

/// CONFIG.product (TRM 4.2.11).
const PRODUCT: u32 = 1;
/// CONFIG.cmd_stream_version (TRM 4.2.11).
const CMD_STREAM_VERSION: u32 = 0;

impl NpuConfig {
    /// Ethos-U65 with 256 MACs per cycle.
    pub fn u65_256() -> Self {
        Self {
            name: "u65-256".into(),
            macs_per_cycle: 256,
            cores: 1,
            shram_kib: 48,
            axi_data_bits: 128,
            axi_addr_bits: 40,
            axi_id_bits: 8,
            read_ids: ReadIdRanges {
                command: 0..=3,
                ifm: 4..=31,
                weight: vec![32..=59],
                scale: vec![60..=63],
                mem2mem: 64..=115,
            },
        }
    }

    /// Ethos-U65 with 512 MACs per cycle in two cores.
    pub fn u65_512() -> Self {
        Self {
            name: "u65-512".into(),
            macs_per_cycle: 512,
            cores: 2,
            shram_kib: 96,
            axi_data_bits: 128,
            axi_addr_bits: 40,
            axi_id_bits: 8,
            read_ids: ReadIdRanges {
                command: 0..=3,
                ifm: 4..=55,
                weight: vec![56..=83, 140..=167],
                scale: vec![84..=87, 168..=171],
                mem2mem: 88..=139,
            },
        }
    }

    /// The configurations this project builds and tests.
    pub fn builtin() -> Vec<Self> {
        vec![Self::u65_256(), Self::u65_512()]
    }

    /// The built-in configuration called `name`.
    pub fn by_name(name: &str) -> Result<Self, UnknownConfig> {
        Self::builtin()
            .into_iter()
            .find(|c| c.name == name)
            .ok_or_else(|| UnknownConfig(name.to_string()))
    }

    /// The name as a Verilog identifier, e.g. `npu_u65_256`.
    pub fn module_name(&self) -> String {
        format!("npu_{}", self.name.replace(['-', '.'], "_"))
    }

    /// The CONFIG register's value (TRM 4.2.11).
    pub fn config_register(&self) -> u32 {
        (PRODUCT << 28)
            | (self.shram_kib << 8)
            | (CMD_STREAM_VERSION << 4)
            | self.macs_per_cycle.trailing_zeros()
    }

    /// Checks the values the hardware depends on.
    pub fn validate(&self) -> Result<(), String> {
        let mut problems = vec![];
        if !self.macs_per_cycle.is_power_of_two() || !(256..=512).contains(&self.macs_per_cycle) {
            problems.push(format!(
                "macs_per_cycle {} is not 256 or 512",
                self.macs_per_cycle
            ));
        }
        if self.shram_kib == 0 || self.shram_kib > 255 {
            problems.push(format!(
                "shram_kib {} does not fit CONFIG.shram_size",
                self.shram_kib
            ));
        }
        // TRM 4.7.5.1: one core, or two in parallel mode (the datapath's
        // per-core masks and the DMA's client table hold two).
        if !(1..=2).contains(&self.cores)
            || self.read_ids.weight.len() != self.cores as usize
            || self.read_ids.scale.len() != self.cores as usize
        {
            problems.push(format!(
                "cores {} is not 1 or 2 with one weight and one scale ARID range per core",
                self.cores
            ));
        }
        if (self.axi_data_bits, self.axi_addr_bits, self.axi_id_bits) != (128, 40, 8) {
            problems.push(
                "the AXI managers are 128-bit data, 40-bit address, 8-bit ID (TRM A.4)".into(),
            );
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "configuration {}: {}",
                self.name,
                problems.join("; ")
            ))
        }
    }
}

/// A configuration name that is not built in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownConfig(pub String);

impl std::fmt::Display for UnknownConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = NpuConfig::builtin().into_iter().map(|c| c.name).collect();
        write!(
            f,
            "unknown configuration '{}' (known: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownConfig {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_register_matches_trm() {
        // TRM 4.2.11: 0x10003008 for the 256 configuration, 0x10006009 for the 512.
        assert_eq!(NpuConfig::u65_256().config_register(), 0x1000_3008);
        assert_eq!(NpuConfig::u65_512().config_register(), 0x1000_6009);
    }

    #[test]
    fn builtins_validate_and_round_trip_through_json() {
        for c in NpuConfig::builtin() {
            c.validate().unwrap();
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(serde_json::from_str::<NpuConfig>(&json).unwrap(), c);
        }
        assert!(NpuConfig::by_name("u65-1024")
            .unwrap_err()
            .to_string()
            .contains("u65-256"));
    }

    #[test]
    fn three_cores_are_refused() {
        let mut c = NpuConfig::u65_512();
        c.cores = 3;
        c.read_ids.weight.push(172..=175);
        c.read_ids.scale.push(176..=179);
        let problems = c.validate().unwrap_err();
        assert!(problems.contains("cores 3 is not 1 or 2"), "{problems}");
    }
}
