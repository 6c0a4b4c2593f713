//! Central control (TRM 4.2, 4.6, 4.8.2, 4.9): command fetch and decode, the operation rules, the block traversal.
//!
//! One test binary per area (`cargo test -p npu-tb --test central_control`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../central_control.rs"]
mod central_control;
#[path = "../operation_rules.rs"]
mod operation_rules;
#[path = "../traversal.rs"]
mod traversal;
