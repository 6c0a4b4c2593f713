//! APB4 completer and register file (TRM 4.1-4.5, A.5).

mod bus;
mod completer;
mod register_file;
mod registers;

pub use bus::{RegisterBus, RegisterTarget};
pub use completer::ApbCompleter;
pub use register_file::RegisterFile;
pub use registers::{ConstantRegister, StorageRegister};
