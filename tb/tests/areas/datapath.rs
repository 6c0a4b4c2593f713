//! The datapath: its block traversal (TRM 4.9) and IFM fetch on their own benches, and the whole datapath on the NPU: Vela fixtures, random operations, large blocks, bus errors, malformed weights, soft reset.
//!
//! One test binary per area (`cargo test -p npu-tb --test datapath`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM 4.2.2 | bus errors on the IFM, weight and scale/bias channels; recovery by soft reset | `datapath_errors::bus_errors_on_every_datapath_channel_stop_the_npu_and_a_soft_reset_recovers` |
//! | TRM 4.8 | every Vela fixture the RTL runs, bit-exact, also behind random memory | `datapath_jobs::every_convolution_fixture_runs_bit_exact_on_the_rtl`, `datapath_jobs::some_convolution_fixtures_run_bit_exact_behind_random_memory_systems` |
//! | TRM 4.9.1 table 4-135 | IFM blocks as large as the IB allows (u65-512) | `datapath_large_blocks::the_issue_30_depthwise_runs_bit_exact_on_u65_512` |
//! | TRM 4.7.5.1, 4.8 | random convolutions, parallel mode, pools, elementwise, LUT reloads, DMA after a kernel (also sharing a counter's one write slot), behind random memory | `datapath_random::random_convolutions_agree_with_the_golden_model`, `datapath_random::random_parallel_convolutions_agree_with_the_golden_model`, `datapath_random::a_user_dma_after_a_kernel_operation_agrees_with_the_golden_model`, `datapath_random::the_ofm_and_a_user_dma_share_one_counters_single_write_slot`, `datapath_random::a_lut_reloaded_between_two_convolutions_is_read_afresh`, `datapath_random::random_pools_agree_with_the_golden_model`, `datapath_random::random_elementwise_operations_agree_with_the_golden_model`, `datapath_random::pools_with_kernels_beyond_64_agree_with_the_golden_model` |
//! | TRM 4.6.1 | operations back to back: the next one's weights and scales read while the one before finishes, behind random memory | `datapath_random::random_chains_of_operations_agree_with_the_golden_model` |
//! | TRM 4.9 | an operation reading the one before's OFM, with the largest safe NPU_SET_BLOCKDEP or 0, behind random memory, under the BLOCKDEP checker | `datapath_random::random_dependent_operations_agree_with_the_golden_model` |
//! | TRM 4.9 | an elementwise operation reading the OFMs of the two operations before it, with the largest safe NPU_SET_BLOCKDEP or 0, behind random memory, under the BLOCKDEP checker | `datapath_random::elementwise_operations_reading_two_earlier_ofms_agree_with_the_golden_model` |
//! | TRM 4.9 | the next operation's first IFM read goes out before the previous one's writes are answered only as NPU_SET_BLOCKDEP allows, after one OFM block and after four (read 0 once all but k are written) | `datapath_overlap::the_next_operations_first_ifm_read_overlaps_the_writes_only_as_blockdep_allows` |
//! | TRM 3.3.4.1 | soft reset in the middle of a convolution | `datapath_soft_reset::a_soft_reset_during_a_convolution_drains_and_clears_and_the_job_runs_again` |
//! | TRM 4.7 | malformed weight streams stop the operation as the golden model | `datapath_weight_faults::malformed_weight_streams_stop_the_operation_as_the_golden_model_does` |
//! | TRM 4.9 | convolution block traversal: jobs, beats and readout against the schedule, a beat a cycle | `traversal::every_job_beat_and_readout_matches_the_schedule`, `traversal::beats_flow_one_a_cycle` |
//! | TRM 4.9.1, 3.1.1 | IFM address generator: tiles, layouts, IB placement | `ifm_fetch::fills_put_every_element_where_the_ib_layout_says` |

#[path = "../datapath_errors.rs"]
mod datapath_errors;
#[path = "../datapath_jobs.rs"]
mod datapath_jobs;
#[path = "../datapath_large_blocks.rs"]
mod datapath_large_blocks;
#[path = "../datapath_overlap.rs"]
mod datapath_overlap;
#[path = "../datapath_random.rs"]
mod datapath_random;
#[path = "../datapath_soft_reset.rs"]
mod datapath_soft_reset;
#[path = "../datapath_weight_faults.rs"]
mod datapath_weight_faults;
#[path = "../ifm_fetch.rs"]
mod ifm_fetch;
#[path = "../traversal.rs"]
mod traversal;
