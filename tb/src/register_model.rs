//! A scoreboard model of the register file, derived from the register map:
//! what every APB access must return and how it changes the registers.

use crate::npu::NpuTb;
use crate::shram::{acc_buffer_contents, lut_copy_contents, shram_contents};
use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, Behaviour, Register, SharedBits};
use std::collections::HashMap;

/// Privileged and secure: every access is permitted (TRM 4.1).
const HOST_PPROT: u8 = 0b001;

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

/// Register values as the NPU must hold them while nothing runs.
pub struct RegisterModel {
    config_word: u32,
    prot: u32,
    stored: HashMap<u16, u32>,
    shared: HashMap<SharedBits, u32>,
    /// STATUS.pmu_irq_raised.
    pmu_irq: bool,
}

impl RegisterModel {
    /// The state right after a hard reset with the given power-on levels.
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

    fn value(&self, r: &Register) -> u32 {
        match r.behaviour {
            Behaviour::SetBits(s) | Behaviour::ClearBits(s) => {
                self.shared.get(&s).copied().unwrap_or(0)
            }
            // Nothing runs while only registers are accessed: STATUS and QREAD
            // stay 0 but for the PMU interrupt that PMOVSSET and PMINTSET raise.
            Behaviour::Live if r.name == "PROT" => self.prot,
            Behaviour::Live if r.name == "STATUS" => regs::STATUS
                .field("pmu_irq_raised")
                .set(0, u32::from(self.pmu_irq)),
            _ => self.stored[&r.address],
        }
    }

    /// Applies one APB access and returns what the completer must answer.
    pub fn access(&mut self, addr: u16, write: Option<u32>, pprot: u8, pstrb: u8) -> Expected {
        let Some(r) = regs::at(addr) else {
            return Expected {
                rdata: 0,
                slverr: true,
            };
        };
        let permitted = regs::access_permitted(pprot, self.prot);
        let Some(data) = write else {
            let rdata = if permitted { self.value(r) } else { 0 };
            return Expected {
                rdata,
                slverr: false,
            };
        };
        if pstrb != 0xF {
            return Expected {
                rdata: 0,
                slverr: true,
            };
        }
        if permitted {
            self.write(r, data);
        }
        Expected {
            rdata: 0,
            slverr: false,
        }
    }

    fn write(&mut self, r: &Register, data: u32) {
        let fixed = r.fixed_bits(self.config_word);
        let stored = (data & r.stored_mask()) | fixed;
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

    /// What a permitted read of `r` must return now.
    pub fn read_value(&self, r: &Register) -> u32 {
        self.value(r)
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
