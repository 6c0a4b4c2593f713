//! The host side: Arm's Ethos-U core driver's sequence over any device
//! (`npu_model::driver`), re-exported for the bench, whose
//! [`NpuTb`](crate::npu::NpuTb) is the RTL as a device.

pub use npu_model::driver::*;
