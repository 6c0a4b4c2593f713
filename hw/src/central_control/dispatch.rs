//! The kernel-operation dispatch interface and its placeholder.

use rust_hdl::prelude::*;

/// Stands in for the datapath (MAC unit, output unit) until it exists:
/// refuses every kernel operation, so a stream with one stops with
/// STATUS.cmd_parse_error instead of silently skipping it.
#[derive(LogicBlock, Default)]
pub struct NoDatapath {
    pub op_valid: Signal<In, Bit>,
    pub op_code: Signal<In, Bits<10>>,
    pub op_param: Signal<In, Bits<16>>,
    pub op_accept: Signal<Out, Bit>,
    pub op_refuse: Signal<Out, Bit>,
}

impl Logic for NoDatapath {
    #[hdl_gen]
    fn update(&mut self) {
        self.op_accept.next = false;
        self.op_refuse.next = self.op_valid.val();
    }
}
