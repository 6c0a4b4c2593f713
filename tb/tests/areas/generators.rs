//! The random job generators and the differential fuzzer against the golden model and the RTL.
//!
//! One test binary per area (`cargo test -p npu-tb --test generators`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../conv_jobs.rs"]
mod conv_jobs;
#[path = "../differential.rs"]
mod differential;
#[path = "../elementwise_jobs.rs"]
mod elementwise_jobs;
#[path = "../fuzz.rs"]
mod fuzz;
#[path = "../vela_blocks.rs"]
mod vela_blocks;
