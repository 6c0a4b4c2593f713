//! AXI4 bus models: a memory completer serving M0 and M1 from one address
//! space (`npu_model::address_space`), and a protocol monitor. Both work on [`AxiSignals`], one cycle's
//! values of a port's wires, so they run the same against the RTL (through
//! [`AxiPorts`]) and against a Rust requester in their own tests.

mod completer;
mod monitor;
mod ports;
mod signals;
mod systems;

pub use completer::{
    describe_ports, Attributes, AxiCompleter, BytesById, CompleterConfig, Counters, ErrorRange,
};
pub use monitor::{AxiLimits, AxiMonitor, CountersInUse};
pub use npu_model::address_space::AddressSpace;
pub use ports::{beat_to_words, random_aclken_pattern, words_to_beat, AxiPort, AxiPorts};
pub use signals::{AxiSignals, Resp, BEAT_BYTES};
pub use systems::{MemoryMode, PortMemory, SystemConfig, SYSTEM_CONFIGS};
