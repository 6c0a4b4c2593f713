//! The bit window: the next unread bits of the weight stream, refilled from
//! 128-bit words of the DMA weight channel.

use super::VIEW_BITS;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// Bits held. The window takes a word while it holds at most 448 bits,
/// judged before this cycle's consumption so that the word's place does not
/// wait for it; so the parser finds the 320 bits it reads two chunks from
/// whenever the stream keeps up.
pub const WINDOW_BITS: usize = 576;
// The literal 448 in `update`.
const _: () = assert!(WINDOW_BITS - 128 == 448);

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
    pub fill: Signal<Out, Bits<10>>,
    /// Every word of the stream has been taken.
    pub exhausted: Signal<Out, Bit>,
    /// Bits the parser consumes this cycle, at most `fill`: `used`, then
    /// `used_b` (its second chunk, known last, taken off last).
    pub used: Signal<In, Bits<9>>,
    pub used_b: Signal<In, Bits<8>>,
    bits: ResetReg<Bits<WINDOW_BITS>>,
    // Bits held are `count` - `lag`: chunk b's length, known last in its
    // cycle, is taken off the count the cycle after.
    count: ResetReg<Bits<10>>,
    lag: ResetReg<Bits<8>>,
    held: Signal<Local, Bits<10>>,
    left: ResetReg<Bits<29>>,
    word: Signal<Local, Bits<WINDOW_BITS>>,
    merged: Signal<Local, Bits<WINDOW_BITS>>,
    count_in: Signal<Local, Bits<10>>,
    room: Signal<Local, Bit>,
}

impl Logic for BitWindow {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bits, count, lag, left);
        self.bits.rst_n.next = self.rst_n.val();
        self.count.rst_n.next = self.rst_n.val();
        self.lag.rst_n.next = self.rst_n.val();
        self.left.rst_n.next = self.rst_n.val();

        self.view.next = self.bits.q.val().get_bits::<VIEW_BITS>(0);
        self.held.next = self.count.q.val() - bit_cast::<10, 8>(self.lag.q.val());
        self.fill.next = self.held.val();
        self.exhausted.next = self.left.q.val() == 0;

        self.room.next = (self.left.q.val() != 0) & (self.held.val() <= 448);
        self.in_ready.next = self.room.val();
        self.word.next = bit_cast::<WINDOW_BITS, 128>(self.in_data.val()) << self.held.val();
        self.merged.next = self.bits.q.val();
        self.count_in.next = self.held.val();
        if self.room.val() & self.in_valid.val() {
            self.merged.next = self.bits.q.val() | self.word.val();
            self.count_in.next = self.held.val() + 128;
            self.left.d.next = self.left.q.val() - 1;
        }
        self.bits.d.next = (self.merged.val() >> self.used.val()) >> self.used_b.val();
        self.count.d.next = self.count_in.val() - bit_cast::<10, 9>(self.used.val());
        self.lag.d.next = self.used_b.val();
        if self.start.val() {
            self.left.d.next = self.words.val();
        }
    }
}
