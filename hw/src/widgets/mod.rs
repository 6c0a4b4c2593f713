//! Small building blocks shared by every hardware block.

mod clock_gate;
mod fifo;
mod multiply;
mod reset_reg;
mod synchronizer;

pub use clock_gate::ClockGate;
pub use fifo::{BufferRam, Fifo, RamFifo, RegisterArray};
pub use multiply::Multiply16x40;
pub use reset_reg::ResetReg;
pub use synchronizer::Synchronizer;

/// `n` default instances: one per core of a block's per-core ports and
/// sub-blocks.
pub fn per_core<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}
