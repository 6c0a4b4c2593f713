//! The integrated clock-gate cell: the only latch in the design.

use rust_hdl::prelude::*;

/// `gated` follows `clock` while `enable` is high. A latch, transparent
/// while `clock` is low, holds `enable` through the high phase, so `gated`
/// never glitches (a standard ICG; a synthesis flow maps it to its library's
/// cell, which is why its module name says `clock_gate`).
#[derive(LogicBlock, Default)]
pub struct ClockGate {
    pub clock: Signal<In, Clock>,
    pub enable: Signal<In, Bit>,
    pub gated: Signal<Out, Clock>,
    _enable_latched: bool,
}

impl Logic for ClockGate {
    fn update(&mut self) {
        if !self.clock.val().clk {
            self._enable_latched = self.enable.val();
        }
        self.gated.next = Clock {
            clk: self.clock.val().clk && self._enable_latched,
        };
    }

    fn connect(&mut self) {
        self.gated.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "\
reg enable_latched;
always @(*) if (!clock) enable_latched = enable;
always @(*) gated = clock & enable_latched;"
                .into(),
        )
    }
}
