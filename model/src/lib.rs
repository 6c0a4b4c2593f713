//! Golden functional model of the NPU.
