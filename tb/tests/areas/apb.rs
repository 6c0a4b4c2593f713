//! The APB4 completer and register file (TRM 4.1, 4.2, appendix A).
//!
//! One test binary per area (`cargo test -p npu-tb --test apb`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM 4.1 | access control: PORPL x PORSL x PPROT x read/write | `apb_access::access_control_matrix`, `apb_access::non_permitted_reads_of_constant_registers_return_zero` |
//! | appendix A | APB4 protocol: PCLKEN-divided and stalled buses, the monitor | `apb_protocol::apb_at_half_the_npu_clock`, `apb_protocol::apb_with_random_pclken_stalls`, `apb_protocol::no_transfer_completes_while_pclken_is_low`, `apb_protocol::the_monitor_catches_requester_violations` |
//! | TRM 4.2-4.5 register tables | reset values, field storage, read-only registers, LOCK, undefined addresses, partial writes, random accesses against the scoreboard | `apb_registers::every_register_reads_its_reset_value`, `apb_registers::reset_values_match_the_trm_tables`, `apb_registers::every_register_reads_back_what_its_fields_keep`, `apb_registers::read_only_registers_ignore_writes`, `apb_registers::storage_registers_keep_every_defined_bit_and_no_reserved_bit`, `apb_registers::lock_takes_a_write_only_when_the_old_or_new_value_is_zero`, `apb_registers::pmu_set_and_clear_registers_share_their_state`, `apb_registers::pmcr_action_bits_read_zero_and_event_count_is_fixed`, `apb_registers::undefined_addresses_answer_slverr_and_change_nothing`, `apb_registers::partial_writes_answer_slverr_and_change_nothing`, `apb_registers::random_accesses_match_the_scoreboard` |

#[path = "../apb_access.rs"]
mod apb_access;
#[path = "../apb_protocol.rs"]
mod apb_protocol;
#[path = "../apb_registers.rs"]
mod apb_registers;
