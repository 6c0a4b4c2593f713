//! Golden functional model of the NPU.

pub mod weights;
