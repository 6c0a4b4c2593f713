//! The APB4 completer and register file (TRM 4.1, 4.2, appendix A).
//!
//! One test binary per area (`cargo test -p npu-tb --test apb`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../apb_access.rs"]
mod apb_access;
#[path = "../apb_protocol.rs"]
mod apb_protocol;
#[path = "../apb_registers.rs"]
mod apb_registers;
