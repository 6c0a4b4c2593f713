//! A 16-bit by 40-bit multiplier for addresses: rust-hdl multiplies only
//! 16 by 16 bits, so the product is built from three such partial products.

use rust_hdl::prelude::*;

/// `product` = `a` * `b` modulo 2^40, combinational.
#[derive(LogicBlock, Default)]
pub struct Multiply16x40 {
    pub a: Signal<In, Bits<16>>,
    pub b: Signal<In, Bits<40>>,
    pub product: Signal<Out, Bits<40>>,
    /// `b` in 16-bit limbs, the top one 8 bits wide.
    b_0: Signal<Local, Bits<16>>,
    b_1: Signal<Local, Bits<16>>,
    b_2: Signal<Local, Bits<16>>,
    p_0: Signal<Local, Bits<32>>,
    p_1: Signal<Local, Bits<32>>,
    p_2: Signal<Local, Bits<32>>,
}

impl Logic for Multiply16x40 {
    #[hdl_gen]
    fn update(&mut self) {
        self.b_0.next = self.b.val().get_bits::<16>(0);
        self.b_1.next = self.b.val().get_bits::<16>(16);
        self.b_2.next = bit_cast::<16, 8>(self.b.val().get_bits::<8>(32));
        self.p_0.next = self.a.val() * self.b_0.val();
        self.p_1.next = self.a.val() * self.b_1.val();
        self.p_2.next = self.a.val() * self.b_2.val();
        self.product.next = bit_cast::<40, 32>(self.p_0.val())
            + (bit_cast::<40, 32>(self.p_1.val()) << 16)
            + (bit_cast::<40, 32>(self.p_2.val()) << 32);
    }
}
