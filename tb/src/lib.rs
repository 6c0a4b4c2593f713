//! The NPU testbench: Verilator harness, bus models and protocol monitors,
//! the driver that runs the NPU through its real ports, and the RTL as a
//! job backend.

pub mod apb;
pub mod axi;
pub mod bench_filter;
pub mod block;
pub mod blockdep;
pub mod compare;
pub mod conv_jobs;
pub mod driver;
pub mod elementwise_jobs;
pub mod fuzz;
pub mod job_folder;
pub mod layer_probe;
pub mod networks;
pub mod npu;
pub mod q_channel;
pub mod register_model;
pub mod regress;
pub mod rtl_backend;
pub mod seed;
pub mod shram;
pub mod sweep;
pub mod timeline;
pub mod vela_blocks;
pub mod verilator;

/// The `npu-sim` binary, for this package's integration tests: nextest's
/// `NEXTEST_BIN_EXE_npu-sim` when it runs them (from an archive, the
/// binary where the archive was unpacked), else Cargo's build of it.
#[macro_export]
macro_rules! npu_sim_exe {
    () => {
        std::env::var_os("NEXTEST_BIN_EXE_npu-sim")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_BIN_EXE_npu-sim")))
    };
}
