//! The NPU testbench: Verilator harness, bus models and protocol monitors,
//! the driver that runs the NPU through its real ports, the RTL as a job
//! backend, and the random job generators of the test suites. The runner
//! (`npu-sim`, its own crate `sim/`) sits above it.

pub mod apb;
pub mod axi;
pub mod bench_filter;
pub mod block;
pub mod blockdep;
pub mod bounds;
pub mod conv_jobs;
pub mod coverage_report;
pub mod driver;
pub mod elementwise_jobs;
pub mod fst;
pub mod fuzz;
pub mod layer_probe;
pub mod npu;
pub mod q_channel;
pub mod register_model;
pub mod rtl_backend;
pub mod seed;
pub mod shram;
pub mod timeline;
pub mod vela_blocks;
pub mod verilator;
