//! Command-stream opcodes and fields (TRM 4.6).
