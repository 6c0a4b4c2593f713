//! Small building blocks shared by every hardware block.

mod reset_reg;
mod synchronizer;

pub use reset_reg::ResetReg;
pub use synchronizer::Synchronizer;
