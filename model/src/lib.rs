//! Golden functional model of the NPU.
//!
//! - [`cmdstream`]: command-stream decoder, encoder, disassembler, assembler.
//! - [`payload`]: the Ethos-U driver payload (`COP1`).
//! - [`npu`]: [`npu::Npu`], the model: NPU_SET_* state, STOP/IRQ, DMA, operators.
//! - [`job`]: job folders (JOBS.md) and the [`job::Backend`] trait.
//! - [`weights`]: the weight-stream codec (TRM 4.7).

pub mod cmdstream;
pub mod fixed;
pub mod job;
pub mod npu;
pub mod ops;
pub mod payload;
pub mod tensor;
pub mod weights;
