//! The PMU (TRM 4.5).
//!
//! One test binary per area (`cargo test -p npu-tb --test pmu`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM 4.5 | PMU registers, cycle and event counters, overflow and IRQ, NPU and AXI events | `pmu::pmu_registers_hold_what_is_written_while_nothing_counts`, `pmu::cycle_counter_counts_every_cycle_between_enable_and_disable`, `pmu::event_counters_count_their_event_when_enabled`, `pmu::reset_bits_restart_their_counters_and_counting_goes_on`, `pmu::the_cycle_counter_counts_only_ungated_cycles`, `pmu::event_counter_wrap_sets_its_flag_and_an_enabled_flag_raises_the_irq`, `pmu::cycle_counter_carries_into_its_high_word_and_wraps_at_48_bits`, `pmu::software_flags_and_enables_raise_the_irq_as_wraps_do`, `pmu::npu_idle_and_running_events_split_the_cycles_of_a_run`, `pmu::axi_events_equal_what_the_memory_models_served_on_each_port`, `pmu::limit_stall_events_count_bursts_held_back_by_axi_limit`, `pmu::bandwidth_filter_counts_the_selected_channel_only`, `pmu::latency_events_bucket_the_selected_transactions`, `pmu::pmu_mask_gates_counting_when_mask_en_is_set`, `pmu::events_without_a_source_count_nothing`, `pmu::run_end_irq_and_pmu_irq_share_the_irq_line`, `pmu::datapath_events_count_the_beats_of_the_schedule`, `pmu::second_core_datapath_events_stay_zero_on_one_core` |

#[path = "../pmu.rs"]
mod pmu;
