//! What central control hands the datapath: a dispatched kernel operation
//! with its operation state (TRM 4.6.1, 4.6.2), and the kinds a datapath
//! runs.

use super::OperationState;
use rust_hdl::prelude::*;

/// A dispatched kernel operation: its opcode and parameter (TRM 4.6.4:
/// NPU_OP_CONV, _DEPTHWISE, _POOL, _ELEMENTWISE), the operation state at
/// dispatch, and the command's byte offset in the stream (QREAD if the
/// operation fails).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct KernelOperation {
    pub code: Bits<10>,
    pub param: Bits<16>,
    pub state: OperationState,
    pub offset: Bits<32>,
}

/// The kernel operations a datapath runs, one bit per NPU_OP_*. Central
/// control refuses any other with STATUS.cmd_parse_error, so an operation
/// the datapath cannot run is never skipped silently.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct KernelKinds {
    pub conv: Bit,
    pub depthwise: Bit,
    pub pool: Bit,
    pub elementwise: Bit,
    /// NPU_SET_PARALLEL_MODE 1 (TRM 4.7.5.1: two cores, u65-512 only) for
    /// NPU_OP_CONV, NPU_OP_DEPTHWISE and NPU_OP_POOL; refused on a
    /// one-core configuration.
    pub parallel: Bit,
}
