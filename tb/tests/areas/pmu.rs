//! The PMU (TRM 4.5).
//!
//! One test binary per area (`cargo test -p npu-tb --test pmu`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../pmu.rs"]
mod pmu;
