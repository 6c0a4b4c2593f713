//! The Verilator harness and bus models: AXI completers and monitors, the driver, the RTL backend, the simulation build, waveforms, mismatch localisation.
//!
//! One test binary per area (`cargo test -p npu-tb --test harness`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../axi_binding.rs"]
mod axi_binding;
#[path = "../axi_models.rs"]
mod axi_models;
#[path = "../compare.rs"]
mod compare;
#[path = "../driver.rs"]
mod driver;
#[path = "../rtl_backend.rs"]
mod rtl_backend;
#[path = "../verilator_build.rs"]
mod verilator_build;
#[path = "../waveform.rs"]
mod waveform;
