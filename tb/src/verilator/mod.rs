//! The Verilator harness: builds a generated design into a shared library
//! (cached, rebuilt when its Verilog changes) and drives its ports from Rust.
//!
//! Port values live in the Verilated model; Rust reads and writes them through
//! raw pointers, so only `eval` crosses the FFI boundary each half cycle.

pub mod build;
pub mod coverage;
mod isolate;
mod model;

pub use build::{build, workspace_root, BuildError, DesignFiles, Trace, WaveFormat};
pub use model::{Model, PortId, PublicArray, PublicSignal, TraceWindow};
