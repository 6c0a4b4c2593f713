//! The Verilator harness and bus models: AXI completers and monitors, the driver, the RTL backend, the simulation build, waveforms, mismatch localisation.
//!
//! One test binary per area (`cargo test -p npu-tb --test harness`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM A.2 | AXI completers and monitors bound to M0 and M1 | `axi_binding::byte_lane_k_is_bits_8k_plus_7_to_8k`, `axi_binding::ports_drive_and_read_the_wires_of_their_manager`, `axi_binding::idle_bus_under_back_pressure_aclken_ratios_and_apb_traffic` |
//! | AMBA AXI4 | completer (latency, back-pressure, reordering, limits, errors) and protocol monitor | `axi_models::outstanding_and_bandwidth_limits_hold`, `axi_models::monitor_limits_add_the_counters_in_use`, `axi_models::data_survives_latency_back_pressure_and_reordering`, `axi_models::reordering_across_ids_happens_and_never_within_an_id`, `axi_models::errors_are_injected_by_address_range_and_block_writes`, `axi_models::monitor_catches_each_rule`, `axi_models::monitor_catches_outputs_moving_across_an_edge_with_aclken_low` |
//! | TRM 4.9 | the BLOCKDEP checker on every RTL run's AXI traffic: fails a forbidden IFM read, passes an allowed one, counts written bytes by strobe, catches the RTL's early read | `blockdep_checker::a_read_the_rule_forbids_fails_and_one_it_allows_passes`, `blockdep_checker::a_block_counts_as_written_only_when_strobes_covered_all_of_it`, `blockdep_checker::the_checker_fails_the_rtls_early_read_when_told_a_smaller_blockdep` |
//! | - | the bounds watcher on every RTL run's AXI traffic: fails a read beat or strobed byte outside the stream checker's ranges naming the operation, measures the checker's slack, catches an RTL write the checker does not allow | `bounds_watcher::accesses_outside_the_checkers_ranges_fail_naming_the_nearest_operation`, `bounds_watcher::slack_counts_the_allowed_bytes_no_access_touched`, `bounds_watcher::the_watcher_fails_the_rtls_write_the_checker_does_not_allow` |
//! | - | code coverage (make coverage): a block's coverage build, its data and the report's modules and Rust structs | `code_coverage::a_block_s_coverage_run_reports_its_modules` |
//! | - | first-mismatch localisation | `compare::the_first_wrong_kernel_operation_and_element_are_named`, `compare::agreeing_models_are_reported_as_agreeing` |
//! | TRM 4.2 | the driver's register programming, waits, timeouts and faults | `driver::programs_the_u65_defaults_and_runs_to_the_stop`, `driver::an_irq_while_running_is_waited_past`, `driver::a_stream_the_npu_cannot_fetch_times_out_naming_status_and_qread`, `driver::faults_name_the_status_fields`, `driver::inference_overrides_regioncfg_axi_limits_and_qconfig`, `driver::invalid_inferences_are_refused_before_touching_the_npu` |
//! | TRM 4.2.13 | jobs on the RTL: base addresses, back-pressure, ACLKEN, memory systems, each port's own address map, writes on the port of their region | `rtl_backend::a_dma_job_runs_bit_exact_at_base_addresses_of_its_own`, `rtl_backend::vela_dma_jobs_pass_under_back_pressure_and_a_half_rate_aclken`, `rtl_backend::a_run_that_never_stops_is_a_clear_error`, `rtl_backend::the_backend_programs_its_axi_settings`, `rtl_backend::writes_go_out_on_the_port_regioncfg_gives_their_region` |
//! | - | the Verilator configuration takes effect | `verilator_build::every_combinational_block_is_read_and_every_isolation_splits_a_block`, `verilator_build::only_the_ifm_unit_and_the_weight_decoder_are_left_whole` |
//! | - | every area's testplan lists exactly its tests | `testplans::every_area_testplan_names_exactly_its_tests` |
//! | - | waveforms, VCD and FST: windows, a job's run, the format a name asks for, unwritable paths | `waveform::vcd_holds_the_apb_signals_and_the_register_file_in_the_window`, `waveform::fst_holds_the_apb_signals_and_the_register_file_in_the_window`, `waveform::a_job_s_fst_spans_its_run_or_its_window`, `waveform::waveforms_that_cannot_be_written_or_name_the_other_format_are_refused`, `waveform::trace_windows_parse` |

#[path = "../axi_binding.rs"]
mod axi_binding;
#[path = "../axi_models.rs"]
mod axi_models;
#[path = "../blockdep_checker.rs"]
mod blockdep_checker;
#[path = "../bounds_watcher.rs"]
mod bounds_watcher;
#[path = "../code_coverage.rs"]
mod code_coverage;
#[path = "../compare.rs"]
mod compare;
#[path = "../driver.rs"]
mod driver;
#[path = "../rtl_backend.rs"]
mod rtl_backend;
#[path = "../testplans.rs"]
mod testplans;
#[path = "../verilator_build.rs"]
mod verilator_build;
#[path = "../waveform.rs"]
mod waveform;
