//! The operation state: the value of every NPU_SET_* command (TRM 4.6.2:
//! "applied to all following kernel operations, until a new command
//! overwrites it"), built from the command table of `npu_arch::command` and
//! exported as one struct per unit (`npu_arch::views`).

mod fields;
mod kernel_operation;

pub use fields::{FeatureMapType, KernelStride};
pub use kernel_operation::{KernelKinds, KernelOperation};

use crate::widgets::ResetReg;
use npu_arch::command::{field_mask, CmdKind, CommandInfo, Opcode};
use rust_hdl::prelude::*;

/// The bit a cmd1's key has set above its opcode.
pub const CMD1_KEY: u64 = 1 << 10;

/// A command's key on the op-state write bus: [`CMD1_KEY`] set for cmd1,
/// bits 9:0 the opcode (TRM table 4-107).
pub fn command_key(op: Opcode) -> u64 {
    let cmd1 = if op.kind() == CmdKind::Cmd1 {
        CMD1_KEY
    } else {
        0
    };
    cmd1 | u64::from(op.code())
}

/// One NPU_SET_* value: the command's value space (cmd0: the 16-bit
/// parameter; cmd1: payload in bits 31:0, parameter in 47:32). A value with
/// bits outside every field of the command is `reserved`: the central
/// control refuses it with a parse error instead of writing it.
#[derive(LogicBlock)]
pub struct SetRegister {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    pub key: Signal<In, Bits<11>>,
    pub value: Signal<In, Bits<48>>,
    /// `key` is this register's; and `value` sets reserved bits.
    pub hit: Signal<Out, Bit>,
    pub reserved: Signal<Out, Bit>,
    pub q: Signal<Out, Bits<48>>,
    register_key: Constant<Bits<11>>,
    mask: Constant<Bits<48>>,
    stored: ResetReg<Bits<48>>,
}

impl SetRegister {
    pub fn new(info: &CommandInfo) -> Self {
        let mask = field_mask(info.fields);
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            write: Default::default(),
            key: Default::default(),
            value: Default::default(),
            hit: Default::default(),
            reserved: Default::default(),
            q: Default::default(),
            register_key: Constant::new(command_key(info.op).into()),
            mask: Constant::new(mask.into()),
            stored: Default::default(),
        }
    }
}

impl Logic for SetRegister {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, stored);
        self.stored.rst_n.next = self.rst_n.val();
        self.hit.next = self.key.val() == self.register_key.val();
        self.reserved.next = self.hit.val() & ((self.value.val() & !self.mask.val()) != 0);
        // Masked although reserved values are never written: the bits
        // outside the fields are then constants that synthesis removes.
        if self.write.val() & self.hit.val() {
            self.stored.d.next = self.value.val() & self.mask.val();
        }
        self.q.next = self.stored.q.val();
    }
}

// The views and the block that exports them: `DmaDescriptor`, `IfmView`,
// ..., `OperationState` and `OpState`, generated from `npu_arch::views`.
include!(concat!(env!("OUT_DIR"), "/op_state.rs"));

/// That generated source's text (`hw/build.rs`), for the tools that map a
/// generated module back to its struct (npu-tb's coverage report).
pub const OP_STATE_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/op_state.rs"));
