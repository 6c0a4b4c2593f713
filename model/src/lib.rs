//! Golden functional model of the NPU.
//!
//! - [`cmdstream`]: command-stream decoder, encoder, disassembler, assembler.
//! - [`payload`]: the Ethos-U driver payload (`COP1`).
//! - [`npu`]: [`npu::Npu`], the model: the command-stream interpreter (STOP/IRQ,
//!   DMA, the dispatch of kernel operations).
//! - [`state`]: what operations act on (NPU_SET_* values, memory, shared buffer,
//!   run statistics) and what they record.
//! - [`ops`]: the operators of TRM 4.8 and the output unit of TRM 3.3.7.
//! - [`fixed`]: the output unit's fixed-point scaling and rounding modes.
//! - [`tensor`]: feature-map element types, layouts and tile addressing.
//! - [`job`]: job folders (JOBS.md) and the [`job::Backend`] trait.
//! - [`weights`]: the weight-stream codec (TRM 4.7).
//! - [`tflite`]: Vela-compiled TensorFlow Lite networks, laid out as the
//!   Ethos-U driver does and run on any [`job::Backend`].
//! - [`report`]: the per-layer report of a run.
//! - [`coverage`]: functional coverage of the programmers' model, collected
//!   as the model runs.
//!
//! What the model decides where the TRM leaves a choice open: `docs/golden-model.md`.

pub mod access;
pub mod address_space;
pub mod check;
pub mod cmdstream;
pub mod compare;
pub mod coverage;
pub mod device;
pub mod driver;
pub mod fixed;
pub mod floor;
pub mod footprint;
pub mod job;
pub mod job_folder;
pub mod npu;
pub mod ops;
pub mod payload;
pub mod report;
pub mod schedule;
pub mod state;
pub mod tensor;
pub mod tflite;
pub mod weights;
