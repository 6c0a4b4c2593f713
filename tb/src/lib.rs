//! The NPU testbench: Verilator harness, bus models and protocol monitors,
//! the driver that runs the NPU through its real ports, and the RTL as a
//! job backend.

pub mod apb;
pub mod axi;
pub mod bench_filter;
pub mod block;
pub mod compare;
pub mod conv_jobs;
pub mod driver;
pub mod elementwise_jobs;
pub mod fuzz;
pub mod layer_probe;
pub mod networks;
pub mod npu;
pub mod q_channel;
pub mod register_model;
pub mod rtl_backend;
pub mod seed;
pub mod shram;
pub mod vela_blocks;
pub mod verilator;
