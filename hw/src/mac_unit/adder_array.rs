//! The adder array (TRM 3.3.6.3): adds each beat's dot products to the 32
//! accumulators of its accumulator-buffer word and writes the sums back, one
//! beat a cycle.
//!
//! The word was read at the edge that registered the beat's dot products;
//! the sums go to the AB's write port in the cycle the beat is here. The
//! sums of the previous cycle's beat are kept in a forwarding register: they
//! were written at the edge this beat's word was read, so when both beats
//! name the same word the AB returned the word before that write and the
//! forwarding register has the current one.
//!
//! In `max` mode (max pooling) each accumulator becomes the larger of itself
//! and the beat's value (the value itself for a `first` beat): the dot
//! product, or for the high beat (`byte` 1) of a 16-bit activation 2^8 times it plus
//! the low beat's dot product, held in `low_bytes` from the `low` beat
//! (which writes the word back unchanged). The sum path is as before; the
//! comparison runs beside it and a multiplexer picks the result.

use super::dot_products::DotBeat;
use super::{ACCUMULATORS, ACC_ADDRESS_BITS, ACC_BITS};
use crate::stream::StreamIn;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct AdderArray {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Dot products from the dot-product units: always ready, one beat a
    /// cycle (the AB read for a beat is issued a cycle ahead, assuming it).
    pub sums: StreamIn<DotBeat>,
    /// The beat's AB word, read at the edge that registered the beat.
    pub stored: Signal<In, Bits<{ ACCUMULATORS * ACC_BITS }>>,
    /// The AB write of the beat's sums.
    pub write_enable: Signal<Out, Bit>,
    pub write_address: Signal<Out, Bits<ACC_ADDRESS_BITS>>,
    pub write_data: Signal<Out, Bits<{ ACCUMULATORS * ACC_BITS }>>,
    /// High for the cycle after a `slice_end` beat's write.
    pub slice_done: Signal<Out, Bit>,
    /// The previous cycle's write: its sums, word and whether there was one.
    forward: ResetReg<Bits<{ ACCUMULATORS * ACC_BITS }>>,
    forward_address: ResetReg<Bits<ACC_ADDRESS_BITS>>,
    forward_valid: ResetReg<Bit>,
    done: ResetReg<Bit>,
    /// The low bytes of a 16-bit max-pool beat, lane i in bits 8i+7..8i.
    low_bytes: ResetReg<Bits<256>>,
    /// The held low beat was `first`: so is the comparison of its high beat.
    low_first: ResetReg<Bit>,
    /// The beat's fields: a part-select of a struct field cannot be
    /// part-selected again in the Verilog rust-hdl writes.
    dots: Signal<Local, Bits<{ ACCUMULATORS * super::DOT_BITS }>>,
    address: Signal<Local, Bits<ACC_ADDRESS_BITS>>,
    /// The word's accumulators before this beat.
    current: Signal<Local, Bits<{ ACCUMULATORS * ACC_BITS }>>,
    dot: Signal<Local, Bits<21>>,
    /// The beat's activation byte, and whether it is a 16-bit activation's
    /// high part (max pools).
    act_byte: Signal<Local, Bits<2>>,
    high: Signal<Local, Bit>,
    wide: Signal<Local, Signed<40>>,
    addend: Signal<Local, Bits<40>>,
    sum: Signal<Local, Bits<40>>,
    /// The value an accumulator adds to: the word's, 0 for a `first` beat.
    stored_value: Signal<Local, Bits<40>>,
    value: Signal<Local, Bits<40>>,
    lows: Signal<Local, Bits<256>>,
    held: Signal<Local, Bits<256>>,
    low_byte: Signal<Local, Bits<8>>,
    max_first: Signal<Local, Bit>,
    sums_word: Signal<Local, Bits<{ ACCUMULATORS * ACC_BITS }>>,
}

impl Logic for AdderArray {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            forward,
            forward_address,
            forward_valid,
            done,
            low_bytes,
            low_first
        );
        self.low_first.rst_n.next = self.rst_n.val();
        self.low_bytes.rst_n.next = self.rst_n.val();
        self.forward.rst_n.next = self.rst_n.val();
        self.forward_address.rst_n.next = self.rst_n.val();
        self.forward_valid.rst_n.next = self.rst_n.val();
        self.done.rst_n.next = self.rst_n.val();

        self.sums.ready.next = true;
        self.dots.next = self.sums.data.val().sums;
        self.address.next = self.sums.data.val().acc_address;

        self.current.next = self.stored.val();
        if self.forward_valid.q.val() & (self.forward_address.q.val() == self.address.val()) {
            self.current.next = self.forward.q.val();
        }

        self.sums_word.next = 0.into();
        self.lows.next = 0.into();
        self.act_byte.next = self.sums.data.val().byte;
        self.high.next = self.act_byte.val() == 1;
        self.max_first.next =
            self.sums.data.val().first | (self.high.val() & self.low_first.q.val());
        for i in 0..32 {
            // The dot product sign-extended to 40 bits, times 2^(8 byte)
            // for the upper parts of 16- and 32-bit activations;
            // accumulators wrap mod 2^40.
            self.dot.next = self.dots.val().get_bits::<21>(i * 21);
            self.wide.next = signed_bit_cast::<40, 21>(signed_cast::<21>(self.dot.val()));
            self.addend.next = unsigned_cast::<40>(self.wide.val());
            match self.act_byte.val().index() {
                1 => self.addend.next = self.addend.val() << 8,
                2 => self.addend.next = self.addend.val() << 16,
                3 => self.addend.next = self.addend.val() << 24,
                _ => {}
            }
            self.stored_value.next = self.current.val().get_bits::<40>(i * 40);
            if self.sums.data.val().first {
                self.stored_value.next = 0.into();
            }
            self.sum.next = self.stored_value.val() + self.addend.val();
            // Max pooling: the value against the accumulator (signed).
            self.held.next = self.low_bytes.q.val();
            self.low_byte.next = self.held.val().get_bits::<8>(i * 8);
            self.value.next = self.addend.val();
            if self.high.val() {
                self.value.next = self.addend.val() | bit_cast::<40, 8>(self.low_byte.val());
            }
            self.lows.next = self.lows.val()
                | (bit_cast::<256, 8>(self.dot.val().get_bits::<8>(0)) << (i * 8).to_bits::<8>());
            if self.sums.data.val().max {
                self.sum.next = self.value.val();
                if !self.max_first.val()
                    & ((self.stored_value.val() ^ 0x80_0000_0000_u64)
                        > (self.value.val() ^ 0x80_0000_0000_u64))
                {
                    self.sum.next = self.stored_value.val();
                }
                if self.sums.data.val().low {
                    self.sum.next = self.stored_value.val();
                }
            }
            self.sums_word.next = self.sums_word.val()
                | (bit_cast::<1280, 40>(self.sum.val()) << (i * 40).to_bits::<11>());
        }

        self.write_enable.next = self.sums.valid.val();
        self.write_address.next = self.address.val();
        self.write_data.next = self.sums_word.val();
        self.forward.d.next = self.sums_word.val();
        self.forward_address.d.next = self.address.val();
        self.forward_valid.d.next = self.sums.valid.val();
        self.done.d.next = self.sums.valid.val() & self.sums.data.val().slice_end;
        if self.sums.valid.val() & self.sums.data.val().low {
            self.low_bytes.d.next = self.lows.val();
            self.low_first.d.next = self.sums.data.val().first;
        }
        self.slice_done.next = self.done.q.val();
    }
}
