//! npu-sim as a user runs it: the command line, Vela networks on the golden model and the RTL, timelines, regressions split over machines.
//!
//! The runner crate's one test binary (`cargo test -p npu-sim --test runner`), a module
//! per part: each file beside this folder is the tests of one part (`sim/tests/<part>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | - | differential fuzzing of random streams on the golden model and the RTL (CI's share) | `fuzz::random_streams_agree_on_the_golden_model_and_the_rtl` |
//! | - | every bundled network agrees with the golden model on both configurations behind random memory | `networks_compare::every_bundled_network_agrees_on_both_configurations` |
//! | - | bundled networks bit-exact with TFLite Micro on the RTL, per-layer report checked | `networks_rtl::the_demo_network_runs_bit_exact_on_the_rtl`, `networks_rtl::a_residual_add_network_runs_bit_exact_on_the_rtl`, `networks_rtl::a_two_input_two_output_network_runs_bit_exact_on_the_rtl`, `networks_rtl::a_tanh_and_softmax_network_runs_bit_exact_on_the_rtl`, `networks_rtl::a_mobilenet_v2_sized_network_runs_bit_exact_on_the_rtl`, `networks_rtl::a_u65_512_network_runs_bit_exact_on_the_rtl`, `networks_rtl::a_float_network_with_quantize_and_dequantize_on_the_host_runs_bit_exact_on_the_rtl`, `networks_rtl::a_gather_between_two_ethos_u_operators_runs_bit_exact_on_the_rtl`, `networks_rtl::an_int16_lstm_network_runs_bit_exact_on_the_rtl`, `networks_rtl::host_and_npu_parts_in_any_order_run_bit_exact_on_the_rtl`, `networks_rtl::a_transpose_conv_on_the_host_runs_bit_exact_on_the_rtl` |
//! | - | the real third-party networks' core tier (../shared/real-networks) bit-exact with TFLite Micro on the RTL, per-layer report checked | `networks_rtl::the_real_networks_run_bit_exact_on_the_rtl` |
//! | - | npu-sim asm, disasm and compare at their edges | `cli::asm_and_disasm_refuse_empty_input`, `cli::asm_names_a_huge_bad_token_briefly`, `cli::a_stream_with_words_that_are_no_command_round_trips`, `cli::disasm_lists_a_vela_network_and_names_a_corrupt_one`, `cli::compare_runs_the_rtl_beside_the_golden_model`, `cli::compare_names_wrong_arguments` |
//! | - | npu-sim check: a network's ranges as text and JSON, a region too small refused at its command, the kernel policy, bad arguments | `cli::check_gives_a_network_s_ranges_and_refuses_what_reaches_outside`, `cli::check_with_the_kernel_policy_refuses_an_irq` |
//! | - | npu-sim run on the RTL: waveform (VCD, FST by flag, name or NPU_FST, bad waveform paths refused), a run that never stops, the memory knobs, Vela's memory systems | `cli_rtl::npu_sim_runs_a_job_on_the_rtl_with_a_waveform_and_reports_a_run_that_never_stops`, `cli_rtl::npu_sim_writes_an_fst_by_flag_name_or_environment_and_refuses_bad_waveform_paths`, `cli_rtl::npu_sim_sweeps_the_memory_behind_the_ports`, `cli_rtl::npu_sim_runs_behind_vela_s_memory_systems` |
//! | - | npu-sim tflite on the golden model: outputs, report, refusals, Vela's estimate | `npu_sim_tflite::the_demo_runs_bit_exact_and_writes_its_report`, `npu_sim_tflite::refusals_name_the_problem`, `npu_sim_tflite::repeated_flags_map_in_network_order`, `npu_sim_tflite::vela_s_per_layer_estimate_is_printed_beside_the_kernel_operations` |
//! | - | fuzz and sweep shards and their merge | `regress::fuzz_shards_merge_into_the_unsharded_run`, `regress::sweep_shards_run_every_network_behind_every_memory_and_report_a_mismatch` |
//! | - | the regression scripts: every failure of any part (build, tests, fuzz, sweep, a missing JUnit report, a shard that never ran, results of another run) fails the merge and names it | `regress::a_regression_whose_parts_all_pass_merges_into_a_pass`, `regress::every_failure_of_a_part_fails_the_merge_and_names_it`, `regress::a_failed_build_fails_every_shard_and_the_merge_at_once`, `regress::stale_or_missing_shard_results_fail_the_merge` |
//! | TRM 4.6.4, 4.8.2 | functional coverage of the programmers' model on the golden model: every class of every setting on both configurations, holes only where waived | `coverage::every_class_of_the_programmers_model_is_hit_on_both_configurations` |
//! | - | a network's timeline agrees with its per-layer report | `timeline::the_timeline_of_a_network_agrees_with_its_per_layer_report` |

#[path = "../cli.rs"]
mod cli;
#[path = "../cli_rtl.rs"]
mod cli_rtl;
#[path = "../coverage.rs"]
mod coverage;
#[path = "../fuzz.rs"]
mod fuzz;
#[path = "../networks_compare.rs"]
mod networks_compare;
#[path = "../networks_rtl.rs"]
mod networks_rtl;
#[path = "../npu_sim_tflite.rs"]
mod npu_sim_tflite;
#[path = "../regress.rs"]
mod regress;
#[path = "../timeline.rs"]
mod timeline;
