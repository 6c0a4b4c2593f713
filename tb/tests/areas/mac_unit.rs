//! The MAC unit and its IFM unit (TRM 3.3.6).
//!
//! One test binary per area (`cargo test -p npu-tb --test mac_unit`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../ifm_unit.rs"]
mod ifm_unit;
#[path = "../mac_unit.rs"]
mod mac_unit;
