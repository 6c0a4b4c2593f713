//! The one definition of the Ethos-U65 programmers' model (TRM chapter 4).
//!
//! Plain Rust data with no dependency on rust-hdl: the RTL, the golden model,
//! the testbench driver, the disassembler and the generated docs all read it.

pub mod command;
pub mod config;
pub mod limits;
pub mod pmu;
pub mod reference;
pub mod regs;
pub mod shared_buffer;
pub mod tables;
pub mod views;
