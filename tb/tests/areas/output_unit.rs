//! The output unit (TRM 3.3.7): its datapath, the scale records and sets, the OFM writer.
//!
//! One test binary per area (`cargo test -p npu-tb --test output_unit`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../ofm_writer.rs"]
mod ofm_writer;
#[path = "../output_unit.rs"]
mod output_unit;
#[path = "../scale_records.rs"]
mod scale_records;
#[path = "../scale_sets.rs"]
mod scale_sets;
