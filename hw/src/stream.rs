//! The one handshake of the design: a valid/ready stream whose payload is a
//! struct with named fields.
//!
//! A beat moves on a clock edge where `valid` and `ready` are both high. The
//! sender holds `valid` and `data` until then; `ready` may depend on
//! `valid`, `valid` never on `ready`. Blocks present [`StreamOut`] or
//! [`StreamIn`] and a parent joins them in one line
//! (`StreamOut::join(&mut a.out, &mut b.input)`) or passes one through to a
//! child (`StreamOut::link`).

use rust_hdl::prelude::*;

/// The sending side of a stream.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "StreamIn"]
pub struct StreamOut<T: Synth> {
    pub valid: Signal<Out, Bit>,
    pub data: Signal<Out, T>,
    pub ready: Signal<In, Bit>,
}

/// The receiving side of a stream.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "StreamOut"]
pub struct StreamIn<T: Synth> {
    pub valid: Signal<In, Bit>,
    pub data: Signal<In, T>,
    pub ready: Signal<Out, Bit>,
}

/// A 128-bit data beat of which byte lanes `first_lane..=last_lane` hold
/// data: what a DMA read channel delivers (the command stream, mem2mem
/// source data).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct LaneBeat {
    pub data: Bits<128>,
    pub first_lane: Bits<4>,
    pub last_lane: Bits<4>,
}

/// A 128-bit beat and its byte strobes: what the aligner emits toward a
/// destination (memory or the shared buffer).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct StrobedBeat {
    pub data: Bits<128>,
    pub strobe: Bits<16>,
}

/// A beat of an AXI write burst: data, strobes and WLAST.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct WriteBeat {
    pub data: Bits<128>,
    pub strobe: Bits<16>,
    pub last: Bit,
}
