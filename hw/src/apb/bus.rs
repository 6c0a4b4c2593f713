//! The register-access bundle: how the APB completer reaches the register
//! file, and the register file the PMU's page.

use rust_hdl::prelude::*;

/// The requesting side. `write` is a permitted full-word write completing
/// this cycle; only a register at `addr` takes it. `defined` says some
/// register lives at `addr`, and `rdata` is its read value.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "RegisterTarget"]
pub struct RegisterBus {
    pub addr: Signal<Out, Bits<12>>,
    pub write: Signal<Out, Bit>,
    pub wdata: Signal<Out, Bits<32>>,
    pub defined: Signal<In, Bit>,
    pub rdata: Signal<In, Bits<32>>,
}

/// The registers' side of a [`RegisterBus`].
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "RegisterBus"]
pub struct RegisterTarget {
    pub addr: Signal<In, Bits<12>>,
    pub write: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub defined: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
}
