//! A register with an asynchronous, active-low reset to a fixed value.
//!
//! rust-hdl's `DFF` relies on `initial` values; the TRM requires that every
//! register clears on `nRESET`, so all state in the NPU lives in this widget.

use rust_hdl::prelude::*;

/// `q` takes `d` on each rising `clock` edge and `init` while `rst_n` is low.
///
/// Its ports are named like rust-hdl's `DFF`, so `dff_setup!` wires `clock`
/// and holds `d = q` by default; `rst_n` is wired beside it.
#[derive(Clone, Debug, LogicBlock)]
pub struct ResetReg<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    init: Constant<T>,
}

impl<T: Synth> ResetReg<T> {
    pub fn new(init: T) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            d: Default::default(),
            q: Default::default(),
            init: Constant::new(init),
        }
    }
}

impl<T: Synth> Default for ResetReg<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: Synth> Logic for ResetReg<T> {
    fn update(&mut self) {
        if !self.rst_n.val() {
            self.q.next = self.init.val();
        } else if self.clock.pos_edge() {
            self.q.next = self.d.val();
        }
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "\
always @(posedge clock or negedge rst_n) begin
   if (!rst_n) q <= init;
   else q <= d;
end"
            .into(),
        )
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "reset_reg".into(),
            clock: "clock".into(),
            inputs: vec!["d".into()],
            outputs: vec!["q".into()],
        }]
    }
}
