//! The weight decoder's groups of [`LANES`] weights regrouped as the MAC unit
//! takes them (TRM 4.7.5 stream order, TRM table 4-126 shape): 64 consecutive
//! stream weights, 8 OFM channels x 8 IFM channels, or for a depthwise
//! operation 8, one per channel.
//!
//! Ports:
//! - `depthwise`: held while a stream's groups are offered.
//! - `weights` ([`WeightGroup`]s, the decoder's): a stream holds whole MAC
//!   groups, so none spans two streams and no flush is needed; `ready`
//!   depends on the buffer's room and `depthwise`, never on `valid`.
//! - `groups` ([`MacWeights`]): from a 2-entry buffer.
//! - `empty`: no weight is held.
//! - `ragged`: an input group no well-formed stream ends with (TRM 4.7.5 pads
//!   every stream to whole microblocks): the stream is malformed and its
//!   groups are not to be used.
//!
//! One input group a cycle: a MAC group every 4 cycles for convolution, one a
//! cycle for depthwise.

use super::{WeightGroup, LANES};
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::{Fifo, ResetReg};
use rust_hdl::prelude::*;

/// Weights in a MAC group (8 OFM channels x 8 IFM channels).
pub const MAC_WEIGHTS: usize = 64;

// `update` writes these as literals (a Rust const in an `update` expression
// becomes an undeclared Verilog name).
const _: () = assert!(LANES == 16 && MAC_WEIGHTS == 64);

/// The weights of one MAC beat: weight i of the group in bits 9i+8..9i,
/// which is weight (o, k) = (i / 8, i % 8) of the MAC unit's
/// `OperandBeat::weights`. A depthwise group has its 8 weights in lanes
/// 0..8 and zeros above.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct MacWeights {
    pub weights: Bits<{ MAC_WEIGHTS * 9 }>,
}

#[derive(LogicBlock, Default)]
pub struct WeightGroups {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The operation is depthwise: MAC groups of 8 weights.
    pub depthwise: Signal<In, Bit>,
    /// Decoded weights from the weight decoder.
    pub weights: StreamIn<WeightGroup>,
    /// MAC groups toward the MAC unit's weight register.
    pub groups: StreamOut<MacWeights>,
    pub empty: Signal<Out, Bit>,
    pub ragged: Signal<Out, Bit>,
    buffer: Fifo<MacWeights, 1, 2>,
    /// Convolution: the first `quarters` input groups of the MAC group being
    /// assembled, quarter j in bits 144j+143..144j. Depthwise with
    /// `upper_pending`: the upper 8 weights of the last input group in bits
    /// 71..0.
    assembled: ResetReg<Bits<{ 3 * LANES * 9 }>>,
    quarters: ResetReg<Bits<2>>,
    upper_pending: ResetReg<Bit>,
    incoming: Signal<Local, Bits<{ LANES * 9 }>>,
    incoming_count: Signal<Local, Bits<5>>,
    taken: Signal<Local, Bit>,
}

impl Logic for WeightGroups {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, assembled, quarters, upper_pending);
        self.assembled.rst_n.next = self.rst_n.val();
        self.quarters.rst_n.next = self.rst_n.val();
        self.upper_pending.rst_n.next = self.rst_n.val();
        self.buffer.clock.next = self.clock.val();
        self.buffer.rst_n.next = self.rst_n.val();
        StreamOut::<MacWeights>::link(&mut self.groups, &mut self.buffer.head);

        self.incoming.next = self.weights.data.val().weights;
        self.incoming_count.next = self.weights.data.val().count;
        self.weights.ready.next = false;
        self.buffer.tail.valid.next = false;
        self.buffer.tail.data.next.weights = 0.into();
        if self.upper_pending.q.val() {
            // Depthwise: the held upper half goes out before the next input.
            self.buffer.tail.valid.next = true;
            self.buffer.tail.data.next.weights =
                bit_cast::<576, 72>(self.assembled.q.val().get_bits::<72>(0));
            if self.buffer.tail.ready.val() {
                self.upper_pending.d.next = false;
            }
        } else if self.depthwise.val() {
            self.weights.ready.next = self.buffer.tail.ready.val();
            self.buffer.tail.valid.next = self.weights.valid.val();
            self.buffer.tail.data.next.weights =
                bit_cast::<576, 72>(self.incoming.val().get_bits::<72>(0));
        } else if self.quarters.q.val() == 3 {
            // Convolution: the fourth quarter completes the MAC group.
            self.weights.ready.next = self.buffer.tail.ready.val();
            self.buffer.tail.valid.next = self.weights.valid.val();
            self.buffer.tail.data.next.weights = bit_cast::<576, 432>(self.assembled.q.val())
                | (bit_cast::<576, 144>(self.incoming.val()) << 432);
        } else {
            self.weights.ready.next = true;
        }

        self.taken.next = self.weights.valid.val() & self.weights.ready.val();
        self.empty.next = (self.buffer.count.val() == 0)
            & (self.quarters.q.val() == 0)
            & !self.upper_pending.q.val();
        self.ragged.next = false;
        if self.taken.val() {
            if self.depthwise.val() {
                self.ragged.next =
                    (self.incoming_count.val() != 8) & (self.incoming_count.val() != 16);
            } else {
                self.ragged.next = self.incoming_count.val() != 16;
            }
        }
        if self.taken.val() & self.depthwise.val() & (self.incoming_count.val() > 8) {
            self.upper_pending.d.next = true;
            self.assembled.d.next = bit_cast::<432, 72>(self.incoming.val().get_bits::<72>(72));
        }
        if self.taken.val() & !self.depthwise.val() {
            self.quarters.d.next = self.quarters.q.val() + 1;
            if self.quarters.q.val() == 0 {
                self.assembled.d.next = bit_cast::<432, 144>(self.incoming.val());
            }
            if self.quarters.q.val() == 1 {
                self.assembled.d.next =
                    self.assembled.q.val() | (bit_cast::<432, 144>(self.incoming.val()) << 144);
            }
            if self.quarters.q.val() == 2 {
                self.assembled.d.next =
                    self.assembled.q.val() | (bit_cast::<432, 144>(self.incoming.val()) << 288);
            }
        }
    }
}
