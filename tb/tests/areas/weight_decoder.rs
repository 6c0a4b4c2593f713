//! The weight decoder (TRM 3.3.5, 4.7) and its MAC weight groups.
//!
//! One test binary per area (`cargo test -p npu-tb --test weight_decoder`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM 3.3.5, 4.7 | every coding mode and Vela's streams against the golden decoder; padding, start and reset | `weight_decoder::every_coding_mode_matches_the_golden_decoder`, `weight_decoder::vela_streams_match_the_golden_decoder`, `weight_decoder::empty_stream_and_back_to_back_streams`, `weight_decoder::padding_between_slices_and_the_longest_slices`, `weight_decoder::start_waits_for_idle_and_reset_aborts_a_stream` |
//! | TRM 4.7 | header, length and chunk faults; random corruptions never hang | `weight_decoder_malformed::header_and_length_faults_are_reported`, `weight_decoder_malformed::chunk_faults_are_reported`, `weight_decoder_malformed::random_corruptions_never_hang_or_read_past_the_length` |
//! | TRM 4.7.5 | MAC weight groups: 64s or 8s, a group a cycle, ragged part groups | `weight_groups::mac_groups_are_the_stream_cut_in_64s_or_8s`, `weight_groups::convolution_takes_16_weights_and_depthwise_gives_a_group_every_cycle`, `weight_groups::a_stream_of_part_groups_is_ragged_and_leaves_weights_behind` |

#[path = "../weight_decoder.rs"]
mod weight_decoder;
#[path = "../weight_decoder_common/mod.rs"]
mod weight_decoder_common;
#[path = "../weight_decoder_malformed.rs"]
mod weight_decoder_malformed;
#[path = "../weight_groups.rs"]
mod weight_groups;
