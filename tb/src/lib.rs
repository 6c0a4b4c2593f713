//! The NPU testbench: Verilator harness, bus models and protocol monitors,
//! and the driver that runs the NPU through its real ports.

pub mod apb;
pub mod axi;
pub mod driver;
pub mod npu;
pub mod register_model;
pub mod seed;
pub mod verilator;
