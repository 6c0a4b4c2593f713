//! The NPU hardware, one module per TRM functional block.
