//! The MAC unit's dot-product units, adder array and accumulator buffer
//! (TRM 3.3.6.2, 3.3.6.3): per cycle one operand beat of 4 OFM positions x 8
//! IFM channels of activations and 8 OFM channels x 8 IFM channels of weights,
//! 256 9-bit x 9-bit products (TRM table 4-126) summed into the 32 40-bit
//! accumulators of one microblock, word `acc_address` of the accumulator
//! buffer (AB).
//!
//! Ports:
//! - `operands` ([`OperandBeat`]s): one beat every cycle, ready except while
//!   `clearing`; a forwarding register makes back-to-back beats on one word
//!   run without a stall.
//! - `slice_done`: a pulse [`LATENCY`] cycles after a `slice_end` beat, when
//!   its write has reached the AB; a `readout` taken then sees the slice.
//! - `readout` ([`AccRead`]s) and `results` ([`Accumulators`]): in request
//!   order from the next edge, on an AB read port of its own; never a word
//!   that beats in flight still write.
//! - `clear`/`clearing`: zeros every AB word after a reset (TRM 3.3.4.1),
//!   meant for when no beat is in flight.
//!
//! Pipeline and arithmetic (16- and 32-bit IFMs as byte beats, max pooling,
//! accumulator wrapping): `docs/mac-unit.md`.

mod acc_buffer;
mod adder_array;
mod dot_products;
mod ifm_unit;

use crate::stream::{StreamIn, StreamOut};
use crate::widgets::ResetReg;
use acc_buffer::AccBuffer;
pub use acc_buffer::ACC_CLEAR_WAYS;
use adder_array::AdderArray;
use dot_products::{DotBeat, DotProducts};
pub use ifm_unit::{IfmActs, IfmRequest, IfmSettings, IfmUnit, IfmUnitBench, LineWrite};
use rust_hdl::prelude::*;

/// OFM positions of a microblock (2x2, or 1x4 on a one-row OFM).
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

/// Bits of an accumulator-buffer word address: 512 words, two halves of 256
/// that the traversal alternates between OFM blocks.
pub const ACC_ADDRESS_BITS: usize = 9;
/// Bits of the AB clear's group counter: two words a group.
const ACC_CLEAR_GROUP_BITS: usize = ACC_ADDRESS_BITS - 1;
const _: () = assert!(ACC_CLEAR_WAYS == 2);
/// Cycles from a beat taken to the cycle its write has reached the AB (the
/// `slice_done` pulse of a `slice_end` beat).
pub const LATENCY: usize = 2;

// `update` functions write these as literals: rust-hdl turns a Rust const in
// an expression into an undeclared Verilog name.
const _: () = assert!(POSITIONS == 4 && IFM_CHANNELS == 8 && OFM_CHANNELS == 8);
const _: () = assert!(OPERAND_BITS == 9 && ACC_BITS == 40 && DOT_BITS == 21);

/// One cycle's operands.
///
/// - `acts`: activation (p, k) of OFM position p (0..4, the microblock in
///   raster order, 2x2 or 1x4: the traversal's choice) and IFM channel k
///   (0..8) in bits 9(8p+k)+8..9(8p+k).
/// - `weights`: weight (o, k) of OFM channel o and IFM channel k in bits
///   9(8o+k)+8..9(8o+k). In a `depthwise` beat, the weight of channel c is
///   in bits 9c+8..9c and the rest is ignored.
/// - `acc_address`: the AB word of the microblock's 32 accumulators.
/// - `first`: the word's accumulators start from 0 before this beat.
/// - `slice_end`: the last beat of a slice (8 OFM channels of an OFM
///   block): `slice_done` pulses when its write has reached the AB.
/// - `depthwise`: accumulator (p, c) takes act(p, c) * w(c) only.
/// - `byte`: the products count 2^(8 x `byte`) times: 1 for the high
///   part of a 16-bit activation, 1 to 3 for the upper bytes of a 32-bit
///   one.
/// - `max`: max pooling (NPU_OP_POOL mode 0): accumulator (p, o) becomes
///   the larger of itself and the dot product (the dot product itself for
///   a `first` beat) instead of their sum.
/// - `low`: the low byte of a 16-bit activation: in `max` mode its dot
///   products (0..255, unit weights) are held and the word is left as it
///   is; the next beat, its high beat (`byte` 1), compares 2^8 x its own plus them.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OperandBeat {
    pub acts: Bits<{ POSITIONS * IFM_CHANNELS * OPERAND_BITS }>,
    pub weights: Bits<{ OFM_CHANNELS * IFM_CHANNELS * OPERAND_BITS }>,
    pub acc_address: Bits<ACC_ADDRESS_BITS>,
    pub first: Bit,
    pub slice_end: Bit,
    pub depthwise: Bit,
    pub byte: Bits<2>,
    pub max: Bit,
    pub low: Bit,
}

/// A readout request: the AB word to send out on `results`.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct AccRead {
    pub address: Bits<ACC_ADDRESS_BITS>,
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
    /// Pulses when the writes of a slice's beats have all reached the AB.
    pub slice_done: Signal<Out, Bit>,
    /// AB words to read out, toward the output unit.
    pub readout: StreamIn<AccRead>,
    /// The words `readout` asked for, in order.
    pub results: StreamOut<Accumulators>,
    /// Zeroes the AB; `clearing` until the last word is written.
    pub clear: Signal<In, Bit>,
    pub clearing: Signal<Out, Bit>,
    dot_units: DotProducts,
    adder_array: AdderArray,
    acc_buffer: AccBuffer,
    /// The AB's readout port holds a result not yet taken.
    result_held: ResetReg<Bit>,
    clear_active: ResetReg<Bit>,
    clear_group: ResetReg<Bits<ACC_CLEAR_GROUP_BITS>>,
    readout_take: Signal<Local, Bit>,
}

impl Logic for MacUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, result_held, clear_active, clear_group);
        self.result_held.rst_n.next = self.rst_n.val();
        self.clear_active.rst_n.next = self.rst_n.val();
        self.clear_group.rst_n.next = self.rst_n.val();
        self.dot_units.clock.next = self.clock.val();
        self.dot_units.rst_n.next = self.rst_n.val();
        self.adder_array.clock.next = self.clock.val();
        self.adder_array.rst_n.next = self.rst_n.val();
        self.acc_buffer.clock.next = self.clock.val();

        // Accumulation: the word is read as the beat enters the dot-product
        // stage (a `first` beat of every lane needs none), added and written
        // a cycle later.
        // Beats wait while the AB is cleared.
        self.dot_units.operands.valid.next = self.operands.valid.val() & !self.clear_active.q.val();
        self.dot_units.operands.data.next = self.operands.data.val();
        self.operands.ready.next = self.dot_units.operands.ready.val() & !self.clear_active.q.val();
        StreamOut::<DotBeat>::join(&mut self.dot_units.sums, &mut self.adder_array.sums);
        self.acc_buffer.rmw_read_enable.next =
            self.operands.valid.val() & self.operands.ready.val() & !self.operands.data.val().first;
        self.acc_buffer.rmw_read_address.next = self.operands.data.val().acc_address;
        self.adder_array.stored.next = self.acc_buffer.rmw_read_data.val();
        self.acc_buffer.write_enable.next = self.adder_array.write_enable.val();
        self.acc_buffer.write_address.next = self.adder_array.write_address.val();
        self.acc_buffer.write_data.next = self.adder_array.write_data.val();
        self.slice_done.next = self.adder_array.slice_done.val();

        // Clearing: group after group of ACC_CLEAR_WAYS (2) words, from 0
        // to the last.
        self.acc_buffer.write_clear.next = self.clear_active.q.val();
        if self.clear_active.q.val() {
            self.acc_buffer.write_enable.next = true;
            self.acc_buffer.write_address.next =
                bit_cast::<ACC_ADDRESS_BITS, ACC_CLEAR_GROUP_BITS>(self.clear_group.q.val()) << 1;
            self.clear_group.d.next = self.clear_group.q.val() + 1;
            if self.clear_group.q.val().all() {
                self.clear_active.d.next = false;
            }
        }
        if self.clear.val() {
            self.clear_active.d.next = true;
            self.clear_group.d.next = 0.into();
        }
        self.clearing.next = self.clear_active.q.val();

        // Readout: the AB's read register holds a result until it is taken
        // (the port reads nothing meanwhile).
        self.readout.ready.next = !self.result_held.q.val() | self.results.ready.val();
        self.readout_take.next = self.readout.valid.val() & self.readout.ready.val();
        self.acc_buffer.readout_read_enable.next = self.readout_take.val();
        self.acc_buffer.readout_read_address.next = self.readout.data.val().address;
        if self.results.ready.val() {
            self.result_held.d.next = false;
        }
        if self.readout_take.val() {
            self.result_held.d.next = true;
        }
        self.results.valid.next = self.result_held.q.val();
        self.results.data.next.values = self.acc_buffer.readout_read_data.val();
    }
}
