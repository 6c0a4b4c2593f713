//! A scoreboard model of the register file, derived from the register map:
//! what every APB access must return and how it changes the registers.

use crate::npu::NpuTb;
use crate::shram::{acc_buffer_contents, lut_copy_contents, shram_contents};
use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, Register};
use npu_model::device::RegisterFile;

/// Privileged and secure: every access is permitted (TRM 4.1).
use npu_model::driver::HOST_PPROT;

/// Expected response of one access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    pub rdata: u32,
    pub slverr: bool,
}

/// A write to `addr` that changes registers only: CMD with
/// transition_to_running_state cleared, PMCR with cnt_en cleared, and none
/// at all to RESET, which always starts a soft reset. The scoreboard models
/// the registers while nothing runs and the PMU counts nothing; runs,
/// resets and counting are the central control's, the CPM's and the PMU's
/// tests.
pub fn quiet_write(addr: u16, value: u32) -> Option<u32> {
    if addr == regs::RESET.address {
        None
    } else if addr == regs::CMD.address {
        Some(value & !regs::CMD.field("transition_to_running_state").mask())
    } else if addr == regs::PMCR.address {
        Some(value & !regs::PMCR.field("cnt_en").mask())
    } else {
        Some(value)
    }
}

/// Register values as the NPU must hold them while nothing runs: the
/// golden device's register file (`npu_model::device::RegisterFile`) with
/// STATUS and QREAD at rest, and the APB completer's PSTRB rule.
pub struct RegisterModel {
    registers: RegisterFile,
}

impl RegisterModel {
    /// The state right after a hard reset with the given power-on levels.
    pub fn after_reset(config: &NpuConfig, porpl: bool, porsl: bool) -> Self {
        Self {
            registers: RegisterFile::after_reset(config, porpl, porsl),
        }
    }

    /// Applies one APB access and returns what the completer must answer.
    pub fn access(&mut self, addr: u16, write: Option<u32>, pprot: u8, pstrb: u8) -> Expected {
        let refused = Expected {
            rdata: 0,
            slverr: true,
        };
        let Some(r) = regs::at(addr) else {
            return refused;
        };
        let permitted = self.registers.permits(pprot);
        let Some(data) = write else {
            let rdata = if permitted { self.read_value(r) } else { 0 };
            return Expected {
                rdata,
                slverr: false,
            };
        };
        if pstrb != 0xF {
            return refused;
        }
        if permitted {
            self.registers.write(r, data);
        }
        Expected {
            rdata: 0,
            slverr: false,
        }
    }

    /// What a permitted read of `r` must return now: nothing runs, so
    /// STATUS and QREAD read 0 but for the PMU interrupt that PMOVSSET and
    /// PMINTSET raise.
    pub fn read_value(&self, r: &Register) -> u32 {
        self.registers.value(r, 0, 0)
    }
}

/// Waits for the reset under way (and the shared-buffer clear that ends it)
/// and checks that every register reads its reset value for the given
/// power-on levels; `what` names the case in a failure.
pub fn assert_reset_values(tb: &mut NpuTb, porpl: bool, porsl: bool, what: &str) {
    tb.wait_for_reset();
    let model = RegisterModel::after_reset(&tb.config.clone(), porpl, porsl);
    for r in regs::REGISTERS {
        assert_eq!(
            tb.read(r.address, HOST_PPROT).rdata,
            model.read_value(r),
            "{what}: {}",
            r.name
        );
    }
}

/// A soft reset as the host does it (TRM C.1), whatever the NPU is doing:
/// RESET written by a secure privileged host with pending_CSL = pending_CPL
/// = 0, then [`assert_soft_reset_done`].
pub fn soft_reset_and_check(tb: &mut NpuTb, what: &str) {
    tb.write(regs::RESET.address, 0, HOST_PPROT);
    assert_soft_reset_done(tb, what);
}

/// After a RESET write with pending_CSL = pending_CPL = 0: STATUS is polled
/// until reset_status is 0; then every AXI transaction has completed (the
/// protocol monitors watched them), every register reads its reset value
/// (the levels equal a hard reset's with PORPL = PORSL = 0) and every byte
/// of the shared buffer and the accumulator buffer is zero (TRM 3.3.4.1: a
/// reset clears the memories).
pub fn assert_soft_reset_done(tb: &mut NpuTb, what: &str) {
    assert_reset_values(tb, false, false, &format!("{what}, after a soft reset"));
    assert!(
        tb.axi_idle(),
        "{what}: AXI transactions in flight after a soft reset"
    );
    for (core, bank) in shram_contents(tb).iter().enumerate() {
        if let Some(i) = bank.iter().position(|&b| b != 0) {
            panic!(
                "{what}: core {core}'s shared buffer byte {i:#x} is not cleared by a soft reset"
            );
        }
    }
    for (n, words) in acc_buffer_contents(tb).iter().enumerate() {
        if let Some(i) = words.iter().position(|&b| b != 0) {
            panic!("{what}: accumulator buffer {n} byte {i:#x} is not cleared by a soft reset");
        }
    }
    let luts = lut_copy_contents(tb);
    assert!(!luts.is_empty(), "{what}: the model has no LUT copies");
    for (n, lines) in luts.iter().enumerate() {
        if let Some(i) = lines.iter().position(|&b| b != 0) {
            panic!("{what}: LUT copy {n} byte {i:#x} is not cleared by a soft reset");
        }
    }
}
