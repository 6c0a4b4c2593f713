//! APB4 completer and register file (TRM 4.1-4.5, A.5).

mod completer;
mod register_file;
mod registers;

pub use completer::ApbCompleter;
pub use register_file::RegisterFile;
pub use registers::{ConstantRegister, StorageRegister};
