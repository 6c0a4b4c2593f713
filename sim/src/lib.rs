//! `npu-sim`, the runner: jobs and Vela-compiled networks on the golden
//! model or the RTL, the command-stream disassembler and assembler, and
//! regressions spread over machines. The RTL and what needs it sit behind
//! the `rtl` feature (on by default): without it the runner builds without
//! rust-hdl, the hardware crates and Verilator.

pub mod regress;

#[cfg(feature = "rtl")]
pub mod coverage;
#[cfg(feature = "rtl")]
pub mod fuzz;
#[cfg(feature = "rtl")]
pub mod networks;
#[cfg(feature = "rtl")]
pub mod sweep;

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
