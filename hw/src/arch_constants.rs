//! Values of the register map (`npu_arch::regs`) as constants of a block:
//! rust-hdl cannot name a Rust constant in logic, so blocks hold these.

use npu_arch::regs::Register;
use rust_hdl::prelude::*;

/// A register's byte address.
pub fn address(register: &Register) -> Constant<Bits<12>> {
    Constant::new(u64::from(register.address).into())
}

/// A register field's bits in place.
pub fn field_mask(register: &Register, field: &str) -> Constant<Bits<32>> {
    word(register.field(field).mask())
}

/// A register field's lowest bit, as a shift amount.
pub fn field_lsb(register: &Register, field: &str) -> Constant<Bits<5>> {
    Constant::new(u64::from(register.field(field).lsb).into())
}

/// A value of the specification (an enum's encoding, a limit) as an
/// `N`-bit constant.
pub fn constant<const N: usize>(value: u64) -> Constant<Bits<N>> {
    Constant::new(value.into())
}

/// A 32-bit register value.
pub fn word(value: u32) -> Constant<Bits<32>> {
    Constant::new(u64::from(value).into())
}

/// A kernel operation's parameter field (NPU_OP_POOL's pooling_mode) as a
/// mask of its `N`-bit value. (The NPU_SET_* values reach the blocks decoded
/// into the op-state views' named fields.)
pub fn command_field_mask<const N: usize>(
    opcode: npu_arch::command::Opcode,
    field: &str,
) -> Constant<Bits<N>> {
    let f = opcode.field(field);
    Constant::new((((1u64 << f.width) - 1) << f.lo).into())
}
