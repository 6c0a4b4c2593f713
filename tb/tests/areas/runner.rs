//! npu-sim as a user runs it: the command line, Vela networks on the golden model and the RTL, timelines, regressions split over machines.
//!
//! One test binary per area (`cargo test -p npu-tb --test runner`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../networks_compare.rs"]
mod networks_compare;
#[path = "../networks_rtl.rs"]
mod networks_rtl;
#[path = "../npu_sim.rs"]
mod npu_sim;
#[path = "../npu_sim_tflite.rs"]
mod npu_sim_tflite;
#[path = "../regress.rs"]
mod regress;
#[path = "../timeline.rs"]
mod timeline;
