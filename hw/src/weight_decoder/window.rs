//! The bit window: the next unread bits of the weight stream, refilled from
//! 128-bit words of the DMA weight channel.

use super::VIEW_BITS;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// Bits held: a 128-bit word fits beside the most the parser reads at once
/// (two chunks of up to 144 bits, a 288-bit palette, 32 padding bytes), so
/// the parser is never starved by a window too full to take the next word.
pub const WINDOW_BITS: usize = 448;
// The window takes a word when at most 320 bits remain after this cycle's
// consumption (the literal in `update`).
const _: () = assert!(WINDOW_BITS - 128 == 320);

#[derive(LogicBlock, Default)]
pub struct BitWindow {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Begins a stream of `words` 128-bit words.
    pub start: Signal<In, Bit>,
    pub words: Signal<In, Bits<29>>,
    /// Words of the stream; bit 0 is the first stream bit (TRM 4.7.1).
    pub in_data: Signal<In, Bits<128>>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    /// The next stream bits, bit 0 first; `fill` of them are valid, the rest 0.
    pub view: Signal<Out, Bits<VIEW_BITS>>,
    pub fill: Signal<Out, Bits<9>>,
    /// Every word of the stream has been taken.
    pub exhausted: Signal<Out, Bit>,
    /// Bits the parser consumes this cycle, at most `fill`.
    pub used: Signal<In, Bits<9>>,
    bits: ResetReg<Bits<WINDOW_BITS>>,
    count: ResetReg<Bits<9>>,
    left: ResetReg<Bits<29>>,
    rest: Signal<Local, Bits<9>>,
    kept: Signal<Local, Bits<WINDOW_BITS>>,
    word: Signal<Local, Bits<WINDOW_BITS>>,
    room: Signal<Local, Bit>,
}

impl Logic for BitWindow {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bits, count, left);
        self.bits.rst_n.next = self.rst_n.val();
        self.count.rst_n.next = self.rst_n.val();
        self.left.rst_n.next = self.rst_n.val();

        self.view.next = self.bits.q.val().get_bits::<VIEW_BITS>(0);
        self.fill.next = self.count.q.val();
        self.exhausted.next = self.left.q.val() == 0;

        self.rest.next = self.count.q.val() - self.used.val();
        self.room.next = (self.left.q.val() != 0) & (self.rest.val() <= 320);
        self.in_ready.next = self.room.val();
        self.kept.next = self.bits.q.val() >> self.used.val();
        self.word.next = bit_cast::<WINDOW_BITS, 128>(self.in_data.val()) << self.rest.val();
        self.bits.d.next = self.kept.val();
        self.count.d.next = self.rest.val();
        if self.room.val() & self.in_valid.val() {
            self.bits.d.next = self.kept.val() | self.word.val();
            self.count.d.next = self.rest.val() + 128;
            self.left.d.next = self.left.q.val() - 1;
        }
        if self.start.val() {
            self.left.d.next = self.words.val();
        }
    }
}
