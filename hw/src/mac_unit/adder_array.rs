//! The adder array (TRM 3.3.6.3): adds each beat's dot products into the
//! 32 accumulators and, after a `last` beat, moves them to the result
//! register that the `results` stream offers, so the next run accumulates
//! while the result waits (a double buffer).

use super::dot_products::DotBeat;
use super::Accumulators;
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct AdderArray {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Dot products from the dot-product units; a `last` beat waits while
    /// the result register holds a result not taken.
    pub sums: StreamIn<DotBeat>,
    /// The accumulators after each `last` beat.
    pub results: StreamOut<Accumulators>,
    acc: ResetReg<Bits<{ super::ACCUMULATORS * super::ACC_BITS }>>,
    result: ResetReg<Bits<{ super::ACCUMULATORS * super::ACC_BITS }>>,
    result_full: ResetReg<Bit>,
    /// The beat's dot products: a part-select of a struct field cannot be
    /// part-selected again in the Verilog rust-hdl writes.
    dots: Signal<Local, Bits<{ super::ACCUMULATORS * super::DOT_BITS }>>,
    dot: Signal<Local, Bits<21>>,
    wide: Signal<Local, Signed<40>>,
    addend: Signal<Local, Bits<40>>,
    base: Signal<Local, Bits<40>>,
    sum: Signal<Local, Bits<40>>,
    next: Signal<Local, Bits<{ super::ACCUMULATORS * super::ACC_BITS }>>,
    result_free: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
}

impl Logic for AdderArray {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc, result, result_full);
        self.acc.rst_n.next = self.rst_n.val();
        self.result.rst_n.next = self.rst_n.val();
        self.result_full.rst_n.next = self.rst_n.val();

        self.dots.next = self.sums.data.val().sums;
        self.next.next = 0.into();
        for i in 0..32 {
            // The dot product sign-extended to 40 bits, times 2^8 for the
            // high part of a 16-bit activation; accumulators wrap mod 2^40.
            self.dot.next = self.dots.val().get_bits::<21>(i * 21);
            self.wide.next = signed_bit_cast::<40, 21>(signed_cast::<21>(self.dot.val()));
            self.addend.next = unsigned_cast::<40>(self.wide.val());
            if self.sums.data.val().high {
                self.addend.next = self.addend.val() << 8;
            }
            self.base.next = self.acc.q.val().get_bits::<40>(i * 40);
            if self.sums.data.val().first {
                self.base.next = 0.into();
            }
            self.sum.next = self.base.val() + self.addend.val();
            self.next.next = self.next.val()
                | (bit_cast::<1280, 40>(self.sum.val()) << (i * 40).to_bits::<11>());
        }

        self.result_free.next = !self.result_full.q.val() | self.results.ready.val();
        self.sums.ready.next = !self.sums.data.val().last | self.result_free.val();
        self.take.next = self.sums.valid.val() & self.sums.ready.val();
        if self.result_full.q.val() & self.results.ready.val() {
            self.result_full.d.next = false;
        }
        if self.take.val() {
            self.acc.d.next = self.next.val();
            if self.sums.data.val().last {
                self.result.d.next = self.next.val();
                self.result_full.d.next = true;
            }
        }
        self.results.data.next.values = self.result.q.val();
        self.results.valid.next = self.result_full.q.val();
    }
}
