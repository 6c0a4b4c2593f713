//! The MAC unit and its IFM unit (TRM 3.3.6).
//!
//! One test binary per area (`cargo test -p npu-tb --test mac_unit`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM 3.3.6.1 | IFM unit activations against the golden model, a request a cycle | `ifm_unit::activations_match_the_golden_model`, `ifm_unit::one_request_a_cycle` |
//! | TRM 3.3.6 | MAC unit accumulators against the reference | `mac_unit::accumulators_match_the_reference` |

#[path = "../ifm_unit.rs"]
mod ifm_unit;
#[path = "../mac_unit.rs"]
mod mac_unit;
