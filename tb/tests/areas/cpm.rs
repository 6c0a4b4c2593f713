//! The clock and power module (TRM 3.3.4, appendix C).
//!
//! One test binary per area (`cargo test -p npu-tb --test cpm`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../cpm.rs"]
mod cpm;
#[path = "../cpm_datapath_clock.rs"]
mod cpm_datapath_clock;
#[path = "../cpm_q_channels.rs"]
mod cpm_q_channels;
#[path = "../cpm_soft_reset.rs"]
mod cpm_soft_reset;
