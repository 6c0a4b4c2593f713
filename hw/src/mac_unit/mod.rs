//! The MAC unit's dot-product units and adder array (TRM 3.3.6.2, 3.3.6.3)
//! for one 2x2x8 microblock: per cycle one operand beat of 4 OFM positions
//! x 8 IFM channels of activations and 8 OFM channels x 8 IFM channels of
//! weights, 256 9-bit x 9-bit products (TRM table 4-126: 256 8x8 MACs per
//! cycle on u65-256) summed into 32 accumulators. The IFM unit that makes
//! the activations and the weight buffer that reuses weights across the
//! positions of an OFM block come later; this block holds only the
//! accumulators of the microblock being computed.
//!
//! # Ports
//!
//! - `operands` (a [`StreamIn`] of [`OperandBeat`]s): one beat a cycle is
//!   taken while the result can move on; `ready` depends on the `results`
//!   stream's `ready` (and on the staged beat's `last`), never on `valid`.
//! - `results` (a [`StreamOut`] of [`Accumulators`]): the 32 accumulators
//!   after a beat flagged `last`, offered from the second clock edge after
//!   that beat was taken (the dot products are registered on the first). The
//!   accumulators of the next run are built while a result waits, so
//!   back-to-back `last` beats run at one beat a cycle while `results` is
//!   ready; a waiting result stalls `operands` only when the next `last`
//!   beat needs its place.
//!
//! # Arithmetic
//!
//! Accumulator (p, o) += sum over k of act(p, k) * w(o, k), k the 8 IFM
//! channels of the beat; for a `depthwise` beat (TRM: 32 MACs a cycle on
//! the same shape) accumulator (p, c) += act(p, c) * w(c) (the dot-product
//! units see a diagonal weight matrix). Operands are 9-bit two's complement:
//! an 8-bit IFM value minus its zero point (-255..255 for int8 and uint8)
//! and a decoded weight (TRM 4.7: -255..255). A 16-bit IFM value v minus
//! its zero point (17 bits) is fed as two beats with the same weights
//! (TRM table 4-127: half rate): the low byte `v & 0xff` (0..255, a
//! positive 9-bit value) and, flagged `high`, `v >> 8` (arithmetic,
//! -256..255), whose products the adder array weights by 2^8.
//!
//! Accumulators are 40-bit two's complement and wrap modulo 2^40
//! (NPU_SET_ACC_FORMAT 1, int40). For NPU_SET_ACC_FORMAT 0 (int32) the
//! output unit keeps the low 32 bits: wrapping is modular, so wrapping once
//! at the end equals wrapping after every addition
//! (`npu_model::ops::wrap_accumulator`). A `first` beat starts the
//! accumulators from 0: the bias is added by the output unit (the golden
//! model's `scale_accumulator` adds it before the wrap, which modular
//! arithmetic makes the same), which keeps the 32 x 40 bits of an initial
//! value out of every operand beat.

mod adder_array;
mod dot_products;
mod ifm_unit;

use crate::stream::{StreamIn, StreamOut};
use adder_array::AdderArray;
use dot_products::{DotBeat, DotProducts};
pub use ifm_unit::{IfmActs, IfmRequest, IfmSettings, IfmUnit, IfmUnitBench, LineWrite};
use rust_hdl::prelude::*;

/// OFM positions of a microblock (2x2).
pub const POSITIONS: usize = 4;
/// IFM channels summed by each dot product.
pub const IFM_CHANNELS: usize = 8;
/// OFM channels of a microblock.
pub const OFM_CHANNELS: usize = 8;
/// Bits of an activation or a weight: two's complement.
pub const OPERAND_BITS: usize = 9;
/// Bits of an accumulator: two's complement, modular.
pub const ACC_BITS: usize = 40;
/// Accumulators of a microblock.
pub const ACCUMULATORS: usize = POSITIONS * OFM_CHANNELS;
/// Bits of one dot product: 8 products of 9-bit operands, each in
/// -65280..=65536, sum in -522240..=524288.
pub const DOT_BITS: usize = 21;

// `update` functions write these as literals: rust-hdl turns a Rust const in
// an expression into an undeclared Verilog name.
const _: () = assert!(POSITIONS == 4 && IFM_CHANNELS == 8 && OFM_CHANNELS == 8);
const _: () = assert!(OPERAND_BITS == 9 && ACC_BITS == 40 && DOT_BITS == 21);

/// One cycle's operands.
///
/// - `acts`: activation (p, k) of OFM position p (0..4, the 2x2 microblock
///   in raster order) and IFM channel k (0..8) in bits 9(8p+k)+8..9(8p+k).
/// - `weights`: weight (o, k) of OFM channel o and IFM channel k in bits
///   9(8o+k)+8..9(8o+k). In a `depthwise` beat, the weight of channel c is
///   in bits 9c+8..9c and the rest is ignored.
/// - `first`: the accumulators start from 0 before this beat.
/// - `last`: after this beat the accumulators go out on `results`; the
///   next beat must be `first`.
/// - `depthwise`: accumulator (p, c) takes act(p, c) * w(c) only.
/// - `high`: the products count 2^8 times (the high part of a 16-bit
///   activation).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OperandBeat {
    pub acts: Bits<{ POSITIONS * IFM_CHANNELS * OPERAND_BITS }>,
    pub weights: Bits<{ OFM_CHANNELS * IFM_CHANNELS * OPERAND_BITS }>,
    pub first: Bit,
    pub last: Bit,
    pub depthwise: Bit,
    pub high: Bit,
}

/// The 32 accumulators of a microblock: accumulator (p, o) of OFM position
/// p and OFM channel o in bits 40(8p+o)+39..40(8p+o), two's complement.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Accumulators {
    pub values: Bits<{ ACCUMULATORS * ACC_BITS }>,
}

#[derive(LogicBlock, Default)]
pub struct MacUnit {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Operand beats from the IFM unit and the weight buffer.
    pub operands: StreamIn<OperandBeat>,
    /// A microblock's accumulators toward the output unit.
    pub results: StreamOut<Accumulators>,
    dot_units: DotProducts,
    adder_array: AdderArray,
}

impl Logic for MacUnit {
    #[hdl_gen]
    fn update(&mut self) {
        self.dot_units.clock.next = self.clock.val();
        self.dot_units.rst_n.next = self.rst_n.val();
        self.adder_array.clock.next = self.clock.val();
        self.adder_array.rst_n.next = self.rst_n.val();
        StreamIn::<OperandBeat>::link(&mut self.operands, &mut self.dot_units.operands);
        StreamOut::<DotBeat>::join(&mut self.dot_units.sums, &mut self.adder_array.sums);
        StreamOut::<Accumulators>::link(&mut self.results, &mut self.adder_array.results);
    }
}
