//! The whole datapath on the NPU: Vela fixtures, random operations, large blocks, bus errors, malformed weights, soft reset.
//!
//! One test binary per area (`cargo test -p npu-tb --test datapath`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../datapath_errors.rs"]
mod datapath_errors;
#[path = "../datapath_jobs.rs"]
mod datapath_jobs;
#[path = "../datapath_large_blocks.rs"]
mod datapath_large_blocks;
#[path = "../datapath_random.rs"]
mod datapath_random;
#[path = "../datapath_soft_reset.rs"]
mod datapath_soft_reset;
#[path = "../datapath_weight_faults.rs"]
mod datapath_weight_faults;
