//! The set bits of a chunk field (12 bits: `wunary0`, `zunary`, `wunary1`,
//! TRM 4.7.4), counted by a balanced adder tree: a running count would chain
//! twelve adds.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Ones12 {
    pub bits: Signal<In, Bits<12>>,
    pub count: Signal<Out, Bits<4>>,
}

impl Logic for Ones12 {
    #[hdl_gen]
    fn update(&mut self) {
        self.count.next = ((bit_cast::<4, 1>(self.bits.val().get_bits::<1>(0))
            + bit_cast::<4, 1>(self.bits.val().get_bits::<1>(1)))
            + (bit_cast::<4, 1>(self.bits.val().get_bits::<1>(2))
                + bit_cast::<4, 1>(self.bits.val().get_bits::<1>(3))))
            + ((bit_cast::<4, 1>(self.bits.val().get_bits::<1>(4))
                + bit_cast::<4, 1>(self.bits.val().get_bits::<1>(5)))
                + (bit_cast::<4, 1>(self.bits.val().get_bits::<1>(6))
                    + bit_cast::<4, 1>(self.bits.val().get_bits::<1>(7))))
            + ((bit_cast::<4, 1>(self.bits.val().get_bits::<1>(8))
                + bit_cast::<4, 1>(self.bits.val().get_bits::<1>(9)))
                + (bit_cast::<4, 1>(self.bits.val().get_bits::<1>(10))
                    + bit_cast::<4, 1>(self.bits.val().get_bits::<1>(11))));
    }
}
