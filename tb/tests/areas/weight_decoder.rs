//! The weight decoder (TRM 3.3.5, 4.7) and its MAC weight groups.
//!
//! One test binary per area (`cargo test -p npu-tb --test weight_decoder`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../weight_decoder.rs"]
mod weight_decoder;
#[path = "../weight_decoder_malformed.rs"]
mod weight_decoder_malformed;
#[path = "../weight_groups.rs"]
mod weight_groups;
