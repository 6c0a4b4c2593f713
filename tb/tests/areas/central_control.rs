//! Central control (TRM 4.2, 4.6, 4.8.2): command fetch and decode, the operation rules.
//!
//! One test binary per area (`cargo test -p npu-tb --test central_control`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM 4.2.2-4.2.9, 4.6 | STOP and IRQ, parse errors, end of stream, CMD clear bits, QREAD, QSIZE | `central_control::irq_keeps_running_stop_stops_and_both_set_the_irq_history`, `central_control::a_reserved_cmd0_opcode_is_a_parse_error`, `central_control::a_reserved_cmd1_opcode_is_a_parse_error`, `central_control::format_bits_other_than_cmd0_and_cmd1_are_a_parse_error`, `central_control::a_cmd1_cut_off_by_the_end_of_the_stream_is_a_parse_error`, `central_control::a_dma_command_for_a_channel_other_than_0_is_a_parse_error`, `central_control::unknown_pooling_and_elementwise_modes_and_types_are_refused`, `central_control::int32_ifms_outside_reduce_sum_and_elementwise_are_refused`, `central_control::parallel_mode_is_refused_on_one_core`, `central_control::a_qsize_that_is_not_a_multiple_of_4_is_a_parse_error_before_any_fetch`, `central_control::a_stream_without_stop_ends_with_cmd_end_reached_and_no_irq`, `central_control::a_stream_without_stop_stops_only_once_its_operations_are_complete`, `central_control::cmd_clears_irq_history_bits_one_by_one`, `central_control::every_run_starts_at_qbase_and_a_second_stream_runs_after_a_stop` |
//! | TRM 4.8.2 tables 4-120 to 4-125, 4.6.4 | forbidden and reserved kernel settings stop the RTL as the golden model | `operation_rules::forbidden_and_reserved_operations_stop_the_rtl_as_the_golden_model`, `operation_rules::elementwise_operations_ignore_the_accumulator_format` |

#[path = "../central_control.rs"]
mod central_control;
#[path = "../operation_rules.rs"]
mod operation_rules;
