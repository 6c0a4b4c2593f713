//! Register slots of the register file, each built from its entry in the
//! register map (`npu_arch::regs`).

use crate::arch_constants::address;
use crate::widgets::ResetReg;
use npu_arch::regs::{Behaviour, Register};
use rust_hdl::prelude::*;

/// A register whose ReadWrite fields hold the last write it was given.
///
/// ReadOnly fields read their reset value; WriteAction fields read 0. LOCK
/// (TRM 4.2.12) takes a write only when its current or new value is 0.
#[derive(LogicBlock)]
pub struct StorageRegister {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub addr: Signal<In, Bits<12>>,
    pub write: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    /// The address selects this register.
    pub hit: Signal<Out, Bit>,
    /// The register's read value.
    pub q: Signal<Out, Bits<32>>,
    written: Signal<Local, Bit>,
    address: Constant<Bits<12>>,
    stored_mask: Constant<Bits<32>>,
    fixed_bits: Constant<Bits<32>>,
    lock_rule: Constant<Bit>,
    value: ResetReg<Bits<32>>,
}

impl StorageRegister {
    pub fn new(register: &Register, config_word: u32) -> Self {
        let reset = register.reset_value(config_word, false, false);
        let stored = register.stored_mask();
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            addr: Default::default(),
            write: Default::default(),
            wdata: Default::default(),
            hit: Default::default(),
            q: Default::default(),
            written: Default::default(),
            address: address(register),
            stored_mask: Constant::new(u64::from(stored).into()),
            fixed_bits: Constant::new(u64::from(register.fixed_bits(config_word)).into()),
            lock_rule: Constant::new(register.behaviour == Behaviour::Lock),
            value: ResetReg::new(u64::from(reset & stored).into()),
        }
    }
}

impl Logic for StorageRegister {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, value);
        self.value.rst_n.next = self.rst_n.val();
        self.hit.next = self.addr.val() == self.address.val();
        self.written.next = self.hit.val()
            & self.write.val()
            & (!self.lock_rule.val() | (self.value.q.val() == 0) | (self.wdata.val() == 0));
        if self.written.val() {
            self.value.d.next = self.wdata.val() & self.stored_mask.val();
        }
        self.q.next = self.value.q.val() | self.fixed_bits.val();
    }
}

/// A read-only register with a value fixed by the design or configuration.
#[derive(LogicBlock)]
pub struct ConstantRegister {
    pub addr: Signal<In, Bits<12>>,
    pub hit: Signal<Out, Bit>,
    pub q: Signal<Out, Bits<32>>,
    address: Constant<Bits<12>>,
    value: Constant<Bits<32>>,
}

impl ConstantRegister {
    pub fn new(register: &Register, config_word: u32) -> Self {
        Self {
            addr: Default::default(),
            hit: Default::default(),
            q: Default::default(),
            address: address(register),
            value: Constant::new(u64::from(register.reset_value(config_word, false, false)).into()),
        }
    }
}

impl Logic for ConstantRegister {
    #[hdl_gen]
    fn update(&mut self) {
        self.hit.next = self.addr.val() == self.address.val();
        self.q.next = self.value.val();
    }
}
