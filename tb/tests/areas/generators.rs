//! The random job generators and the differential fuzzer's parts.
//!
//! One test binary per area (`cargo test -p npu-tb --test generators`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM 4.8.2, 4.9 | the convolution generator: direct-convolution check, layout refusals, block choice, Vela's blocks | `conv_jobs::random_jobs_run_on_the_golden_model_as_a_direct_convolution`, `conv_jobs::check_refuses_blocks_and_buffers_that_do_not_fit`, `conv_jobs::table_shapes_build_with_the_largest_block_that_fits`, `conv_jobs::a_saved_job_loads_as_the_same_job`, `conv_jobs::vela_s_blocks_hold_the_traversal_s_ifm_blocks` |
//! | TRM 4.2.2, 4.6 | streams the TRM leaves open: one regression per disagreement the fuzzer found | `differential::overlapping_source_and_destination_are_refused_on_both_models`, `differential::a_dma_reads_what_the_one_before_wrote`, `differential::a_stream_without_stop_ends_at_once_with_cmd_end_reached_on_both_models`, `differential::npu_op_stop_sets_cmd_end_reached_wherever_it_stands_on_both_models`, `differential::an_irq_without_stop_does_not_complete_and_both_report_irq_raised`, `differential::a_kernel_operation_before_the_end_of_the_stream_or_a_refused_command_completes`, `differential::values_outside_the_trm_ranges_are_parse_errors_on_both_models`, `differential::a_shared_buffer_destination_past_its_end_is_refused`, `differential::accesses_outside_the_regions_are_bus_errors_on_both_models`, `differential::a_blockdep_that_lets_a_read_pass_the_write_it_needs_is_refused_on_both_models` |
//! | TRM 4.8.2 table 4-124 | the elementwise generator covers every mode | `elementwise_jobs::random_elementwise_jobs_run_on_the_golden_model_and_cover_every_mode` |
//! | - | the differential fuzzer's comparison, shrinking and saved cases | `fuzz::every_difference_is_reported`, `fuzz::shrinking_keeps_only_what_the_failure_needs`, `fuzz::shrinking_never_empties_the_stream`, `fuzz::a_saved_case_loads_as_a_job_and_its_listing_assembles_to_its_stream`, `fuzz::a_user_dma_into_the_shared_buffer_beside_an_operation_is_refused` |
//! | TRM 4.9 | Vela's block search gives Vela's answer | `vela_blocks::the_block_search_gives_vela_s_answer_on_every_reference_operation` |

#[path = "../conv_jobs.rs"]
mod conv_jobs;
#[path = "../differential.rs"]
mod differential;
#[path = "../elementwise_jobs.rs"]
mod elementwise_jobs;
#[path = "../fuzz.rs"]
mod fuzz;
#[path = "../vela_blocks.rs"]
mod vela_blocks;
