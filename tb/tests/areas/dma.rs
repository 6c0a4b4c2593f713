//! The DMA (TRM 3.3.3, 4.6.4-4.6.5): the user DMA and bus errors.
//!
//! One test binary per area (`cargo test -p npu-tb --test dma`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).
//!
//! # Testplan
//!
//! | TRM | feature | tests |
//! | --- | --- | --- |
//! | TRM 4.6.4-4.6.5 | user DMA: random 1D/2D/3D transfers on both configurations | `dma::random_transfers_match_the_golden_model_u65_256`, `dma::random_transfers_match_the_golden_model_u65_512` |
//! | TRM 4.2.2 | bus errors on every DMA channel and port | `dma_errors::bus_errors_on_every_channel_and_port_stop_the_npu_cleanly` |

#[path = "../dma.rs"]
mod dma;
#[path = "../dma_errors.rs"]
mod dma_errors;
