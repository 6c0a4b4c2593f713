//! The output unit (TRM 3.3.7): its datapath, the scale records and sets, the OFM writer.
//!
//! One test binary per area (`cargo test -p npu-tb --test output_unit`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM 3.1.1, 4.7.5.1 | OFM writes at feature-map offsets, a write a cycle | `ofm_writer::writes_match_feature_map_offset_and_store`, `ofm_writer::one_write_a_cycle` |
//! | TRM 3.3.7 | output unit lanes (convolution and elementwise) against the golden model, elementwise rate | `output_unit::every_lane_matches_the_golden_model`, `output_unit::elementwise_lanes_match_the_golden_model`, `output_unit::elementwise_beats_flow_at_their_rate` |
//! | TRM 4.7.6 | scale/bias stream cut into records, a record a cycle | `scale_records::records_match_scale_record_parse`, `scale_records::full_beats_give_a_record_every_cycle` |
//! | TRM 4.7.6 | records grouped per 8-channel slice | `scale_sets::sets_are_the_blocks_records_cut_into_slices`, `scale_sets::a_record_a_cycle_while_the_consumer_holds_a_set` |

#[path = "../ofm_writer.rs"]
mod ofm_writer;
#[path = "../output_unit.rs"]
mod output_unit;
#[path = "../scale_records.rs"]
mod scale_records;
#[path = "../scale_sets.rs"]
mod scale_sets;
