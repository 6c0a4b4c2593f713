//! The clock and power module (TRM 3.3.4, appendix C).
//!
//! One test binary per area (`cargo test -p npu-tb --test cpm`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM 3.3.4, appendix C | hard reset, MBIST override, PROT levels, Q-channel denial, AXI idle until started | `cpm::nreset_clears_every_register_asynchronously`, `cpm::reset_release_is_synchronised`, `cpm::mbist_reset_overrides_nreset_while_mbistreq_is_high`, `cpm::prot_follows_the_power_on_levels_of_each_hard_reset`, `cpm::clock_q_channel_denies_requests_cmd_does_not_allow`, `cpm::power_q_channel_denies_requests_cmd_does_not_allow`, `cpm::qactive_follows_pwakeup`, `cpm::axi_managers_stay_idle_until_started` |
//! | TRM 3.3.4 | datapath clock gate: ticks only with work, DFTCGEN | `cpm_datapath_clock::the_datapath_clock_ticks_only_while_the_datapath_has_work`, `cpm_datapath_clock::dftcgen_holds_the_datapath_clock_gate_open` |
//! | TRM 3.3.4.2-3.3.4.3, A.3 | clock and power Q-channels: accept, deny, QACTIVE, PWAKEUP | `cpm_q_channels::an_idle_npu_accepts_both_requests_and_the_clock_gate_stops_the_apb_completer`, `cpm_q_channels::dftcgen_holds_the_clock_gate_open`, `cpm_q_channels::pwakeup_raises_qactive_and_prevents_acceptance`, `cpm_q_channels::a_running_npu_denies_and_a_stopped_one_with_a_pending_irq_denies_too` |
//! | TRM 3.3.4.1, 4.2.4 | soft reset: drain, reset, the RAM clears in parallel (shared buffer, LUT copies, accumulators) within 512 cycles, PROT transitions, boot flow | `cpm_soft_reset::a_soft_reset_during_dma_traffic_drains_resets_and_clears_the_shared_buffer`, `cpm_soft_reset::a_soft_reset_of_an_idle_npu_takes_at_most_512_cycles`, `cpm_soft_reset::every_prot_transition_rule`, `cpm_soft_reset::boot_flow_then_a_run` |

#[path = "../cpm.rs"]
mod cpm;
#[path = "../cpm_datapath_clock.rs"]
mod cpm_datapath_clock;
#[path = "../cpm_q_channels.rs"]
mod cpm_q_channels;
#[path = "../cpm_soft_reset.rs"]
mod cpm_soft_reset;
