//! The NPU as a device behind the C API (`capi/`): the C ABI at its edges,
//! the golden model and the RTL as register-level devices that answer alike,
//! and the deployed drivers' register sequences in C on both.
//!
//! The crate's one test binary (`cargo test -p npu-capi --test device`), a
//! module per part (`capi/tests/<part>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | 4.1, 4.2 | the C ABI refuses bad calls with a code and a message, never a crash: NULL pointers, dead handles, offsets, mappings, backends | `api::bad_calls_answer_a_code_and_a_message` |
//! | - | an RTL device's waveform: an FST by its name's extension, of its window; an unwritable path refused with the reason | `api::an_rtl_device_writes_an_fst_of_its_window_and_refuses_an_unwritable_path` |
//! | 4.6, 4.9 | the stream checker through the C API: ranges as JSON, a refusal at its command, bad calls | `api::the_stream_checker_answers_through_the_c_api` |
//! | 4.2.2, 4.2.3, 3.3.4 | through the API on both backends: a stream started by CMD, the IRQ's edges to a callback, Q-channel requests, a hard reset; devices side by side | `api::a_device_tells_its_irq_edges_and_answers_q_channel_requests`, `api::several_devices_live_side_by_side` |
//! | 4.2-4.5 | the golden device answers every register as the RTL after the same random sequences of writes, reads, soft resets and runs | `differential::random_register_sequences_read_the_same_on_both_backends` |
//! | 4.2.2, 4.6 | Arm's core driver and Linux's accel/ethosu run every bundled network on both backends and configurations bit-exact with TFLite Micro | `c_drivers::arm_s_core_driver_runs_every_bundled_network_bit_exact_on_both_backends`, `c_drivers::linux_s_accel_ethosu_runs_every_bundled_network_bit_exact_on_both_backends` |
//! | 4.2.2, 4.2.4, 4.6.4 | a broken inference (parse error, bus error, NPU_OP_IRQ) fails and the next runs; invocations in a row, non-secure user mode; a soft reset while an operation runs | `c_drivers::the_core_driver_fails_a_broken_inference_soft_resets_and_runs_the_next`, `c_drivers::the_core_driver_runs_invocation_after_invocation_in_every_mode`, `c_drivers::a_soft_reset_while_an_operation_runs_leaves_the_npu_ready_for_the_next`, `c_drivers::accel_ethosu_fails_a_broken_job_and_runs_the_next_after_its_reset` |

#[path = "../api.rs"]
mod api;
#[path = "../c_drivers.rs"]
mod c_drivers;
#[path = "../differential.rs"]
mod differential;
