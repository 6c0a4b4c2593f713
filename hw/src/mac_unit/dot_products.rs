//! The dot-product units (TRM 3.3.6.2): the 32 dot products of an operand
//! beat, each over its 8 IFM channels, in a pipeline register toward the
//! adder array.
//!
//! Each product is rust-hdl's one multiplication, `Signed<16> * Signed<16>`,
//! of the sign-extended 9-bit operands. yosys's `wreduce` removes the copies
//! of the sign bit, so synthesis builds 9 x 9 multipliers: a sum of 8 such
//! products synthesises to the same cell count written with 16-bit or with
//! 9-bit signed operands (5202 cells, measured with yosys 0.23). Unsigned
//! 9 x 9 products of offset operands (a + 256, w + 256) are cheaper alone
//! (4325 cells for 8 products and their sum), but the correction they need,
//! 256 (sum of a' over the position + sum of w' over the OFM channel)
//! subtracted from each dot product, ate most of it: the whole array came
//! to 165368 cells against 169729 (-2.6 %), not worth the less obvious
//! arithmetic.

use super::OperandBeat;
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// A beat's dot products and what the adder array needs of the rest of it:
/// dot (p, o) of position p and OFM channel o, 21-bit two's complement, in
/// bits 21(8p+o)+20..21(8p+o).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct DotBeat {
    pub sums: Bits<{ super::ACCUMULATORS * super::DOT_BITS }>,
    pub acc_address: Bits<{ super::ACC_ADDRESS_BITS }>,
    pub first: Bit,
    pub slice_end: Bit,
    pub byte: Bits<2>,
    pub max: Bit,
    pub low: Bit,
}

#[derive(LogicBlock, Default)]
pub struct DotProducts {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Operand beats, taken while the stage register is empty or emptied.
    pub operands: StreamIn<OperandBeat>,
    /// Each beat's dot products, a clock edge later.
    pub sums: StreamOut<DotBeat>,
    stage: ResetReg<DotBeat>,
    full: ResetReg<Bit>,
    /// The beat's fields: a part-select of a struct field cannot be
    /// part-selected again in the Verilog rust-hdl writes.
    acts: Signal<Local, Bits<{ super::POSITIONS * super::IFM_CHANNELS * 9 }>>,
    weights: Signal<Local, Bits<{ super::OFM_CHANNELS * super::IFM_CHANNELS * 9 }>>,
    depthwise: Signal<Local, Bit>,
    weight: Signal<Local, Bits<9>>,
    act16: Signal<Local, Signed<16>>,
    weight16: Signal<Local, Signed<16>>,
    dot: Signal<Local, Signed<32>>,
    dot_bits: Signal<Local, Bits<32>>,
    dots: Signal<Local, Bits<{ super::ACCUMULATORS * super::DOT_BITS }>>,
    take: Signal<Local, Bit>,
}

impl Logic for DotProducts {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, stage, full);
        self.stage.rst_n.next = self.rst_n.val();
        self.full.rst_n.next = self.rst_n.val();

        self.acts.next = self.operands.data.val().acts;
        self.weights.next = self.operands.data.val().weights;
        self.depthwise.next = self.operands.data.val().depthwise;
        self.dots.next = 0.into();
        for p in 0..4 {
            for o in 0..8 {
                self.dot.next = 0.into();
                for k in 0..8 {
                    self.weight.next = self.weights.val().get_bits::<9>((o * 8 + k) * 9);
                    // Depthwise: the diagonal, channel o's weight from lane o.
                    if self.depthwise.val() {
                        self.weight.next = 0.into();
                        if o == k {
                            self.weight.next = self.weights.val().get_bits::<9>(o * 9);
                        }
                    }
                    self.act16.next = signed_bit_cast::<16, 9>(signed_cast::<9>(
                        self.acts.val().get_bits::<9>((p * 8 + k) * 9),
                    ));
                    self.weight16.next =
                        signed_bit_cast::<16, 9>(signed_cast::<9>(self.weight.val()));
                    self.dot.next = self.dot.val() + self.act16.val() * self.weight16.val();
                }
                self.dot_bits.next = unsigned_cast::<32>(self.dot.val());
                self.dots.next = self.dots.val()
                    | (bit_cast::<672, 21>(self.dot_bits.val().get_bits::<21>(0))
                        << ((p * 8 + o) * 21).to_bits::<10>());
            }
        }

        // A one-entry pipeline stage.
        self.operands.ready.next = !self.full.q.val() | self.sums.ready.val();
        self.take.next = self.operands.valid.val() & self.operands.ready.val();
        if self.full.q.val() & self.sums.ready.val() {
            self.full.d.next = false;
        }
        if self.take.val() {
            self.stage.d.next.sums = self.dots.val();
            self.stage.d.next.acc_address = self.operands.data.val().acc_address;
            self.stage.d.next.first = self.operands.data.val().first;
            self.stage.d.next.slice_end = self.operands.data.val().slice_end;
            self.stage.d.next.byte = self.operands.data.val().byte;
            self.stage.d.next.max = self.operands.data.val().max;
            self.stage.d.next.low = self.operands.data.val().low;
            self.full.d.next = true;
        }
        self.sums.data.next = self.stage.q.val();
        self.sums.valid.next = self.full.q.val();
    }
}
