//! The DMA (TRM 3.3.3, 4.6.4-4.6.5): the user DMA, bus errors, the IFM channel's address generator.
//!
//! One test binary per area (`cargo test -p npu-tb --test dma`), a module per
//! block: each file beside this folder is the tests of one block (`tb/tests/<block>.rs`).

#[path = "../dma.rs"]
mod dma;
#[path = "../dma_errors.rs"]
mod dma_errors;
#[path = "../ifm_fetch.rs"]
mod ifm_fetch;
