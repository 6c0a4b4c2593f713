//! The values a chunk finishes: the weights and zero runs completed by the
//! chunk before, whose remainders this chunk holds (TRM 4.7.3, 4.7.4).
//!
//! [`RunLengths`] (second stage) gives each finished zero run but the first
//! its length in weights, with its weight, and their running sums: those
//! runs' quotients are at most 11, so the sums are short. [`ChunkValues`]
//! (third stage) gives the weights (index = quotient << `wdiv` + remainder,
//! looked up in the palette or direct, TRM 4.7.3.1); the first run, whose
//! quotient may have grown over many chunks, is the pipeline's.

use super::PALETTE_ENTRIES;
use rust_hdl::prelude::*;

/// Items a chunk finishes at most (TRM 4.7.4: 12 unary positions).
pub const ITEMS: usize = 12;

#[derive(LogicBlock, Default)]
pub struct RunLengths {
    /// The zero-run remainder field and `zdiv`; runs only in alternating mode.
    pub zrem_field: Signal<In, Bits<36>>,
    pub zdiv: Signal<In, Bits<2>>,
    pub alternating: Signal<In, Bit>,
    /// Quotients of runs 1.. of the chunk before (4 bits each, entry 0 unused).
    pub quotients: Signal<In, Bits<{ ITEMS * 4 }>>,
    /// Run 0's remainder.
    pub first_remainder: Signal<Out, Bits<3>>,
    /// Entry j (j >= 1): runs 1..=j with a weight each, summed (11 bits
    /// each, entry 0 is 0).
    pub offsets: Signal<Out, Bits<{ ITEMS * 11 }>>,
    remainders: Signal<Local, Bits<36>>,
    // Lengths of runs 1..11 with their weights (7 bits each, entry 0 unused)
    // and the running sums, level by level (Kogge-Stone).
    lengths: Signal<Local, Bits<{ ITEMS * 11 }>>,
    level_1: Signal<Local, Bits<{ ITEMS * 11 }>>,
    level_2: Signal<Local, Bits<{ ITEMS * 11 }>>,
    level_3: Signal<Local, Bits<{ ITEMS * 11 }>>,
    quotient: Signal<Local, Bits<11>>,
    remainder: Signal<Local, Bits<11>>,
    length: Signal<Local, Bits<11>>,
    earlier: Signal<Local, Bits<11>>,
    own: Signal<Local, Bits<11>>,
    quotient_4: Signal<Local, Bits<4>>,
    remainder_3: Signal<Local, Bits<3>>,
    rem_1: Signal<Local, Bits<1>>,
    rem_2: Signal<Local, Bits<2>>,
    rem_3: Signal<Local, Bits<3>>,
}

impl Logic for RunLengths {
    #[hdl_gen]
    fn update(&mut self) {
        // Remainder j at 3 bits apart, masked to its zdiv bits.
        self.remainders.next = 0.into();
        match self.zdiv.val().index() {
            1 => {
                for j in 0..ITEMS {
                    self.rem_1.next = self.zrem_field.val().get_bits::<1>(j);
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<36, 1>(self.rem_1.val()) << (j * 3).to_bits::<6>());
                }
            }
            2 => {
                for j in 0..ITEMS {
                    self.rem_2.next = self.zrem_field.val().get_bits::<2>(j * 2);
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<36, 2>(self.rem_2.val()) << (j * 3).to_bits::<6>());
                }
            }
            3 => {
                for j in 0..ITEMS {
                    self.rem_3.next = self.zrem_field.val().get_bits::<3>(j * 3);
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<36, 3>(self.rem_3.val()) << (j * 3).to_bits::<6>());
                }
            }
            _ => {}
        }
        self.first_remainder.next = self.remainders.val().get_bits::<3>(0);
        self.lengths.next = 0.into();
        for j in 1..ITEMS {
            self.quotient_4.next = self.quotients.val().get_bits::<4>(j * 4);
            self.remainder_3.next = self.remainders.val().get_bits::<3>(j * 3);
            self.quotient.next = bit_cast::<11, 4>(self.quotient_4.val());
            self.remainder.next = bit_cast::<11, 3>(self.remainder_3.val());
            // Outside alternating mode every run is empty: a weight each.
            self.length.next = 1.into();
            if self.alternating.val() {
                self.length.next =
                    ((self.quotient.val() << self.zdiv.val()) + self.remainder.val()) + 1;
            }
            self.lengths.next = self.lengths.val()
                | (bit_cast::<{ ITEMS * 11 }, 11>(self.length.val()) << (j * 11).to_bits::<8>());
        }
        // Running sums over entries 1..11 in four levels (entry 0 is 0).
        self.level_1.next = 0.into();
        self.level_2.next = 0.into();
        self.level_3.next = 0.into();
        self.offsets.next = 0.into();
        for j in 0..1 {
            self.own.next = self.lengths.val().get_bits::<11>(j * 11);
            self.level_1.next = self.level_1.val()
                | (bit_cast::<{ ITEMS * 11 }, 11>(self.own.val()) << (j * 11).to_bits::<8>());
        }
        for j in 1..ITEMS {
            self.own.next = self.lengths.val().get_bits::<11>(j * 11);
            self.earlier.next = self.lengths.val().get_bits::<11>(j * 11 - 11);
            self.level_1.next = self.level_1.val()
                | (bit_cast::<{ ITEMS * 11 }, 11>(self.own.val() + self.earlier.val())
                    << (j * 11).to_bits::<8>());
        }
        for j in 0..2 {
            self.own.next = self.level_1.val().get_bits::<11>(j * 11);
            self.level_2.next = self.level_2.val()
                | (bit_cast::<{ ITEMS * 11 }, 11>(self.own.val()) << (j * 11).to_bits::<8>());
        }
        for j in 2..ITEMS {
            self.own.next = self.level_1.val().get_bits::<11>(j * 11);
            self.earlier.next = self.level_1.val().get_bits::<11>(j * 11 - 22);
            self.level_2.next = self.level_2.val()
                | (bit_cast::<{ ITEMS * 11 }, 11>(self.own.val() + self.earlier.val())
                    << (j * 11).to_bits::<8>());
        }
        for j in 0..4 {
            self.own.next = self.level_2.val().get_bits::<11>(j * 11);
            self.level_3.next = self.level_3.val()
                | (bit_cast::<{ ITEMS * 11 }, 11>(self.own.val()) << (j * 11).to_bits::<8>());
        }
        for j in 4..ITEMS {
            self.own.next = self.level_2.val().get_bits::<11>(j * 11);
            self.earlier.next = self.level_2.val().get_bits::<11>(j * 11 - 44);
            self.level_3.next = self.level_3.val()
                | (bit_cast::<{ ITEMS * 11 }, 11>(self.own.val() + self.earlier.val())
                    << (j * 11).to_bits::<8>());
        }
        for j in 0..8 {
            self.own.next = self.level_3.val().get_bits::<11>(j * 11);
            self.offsets.next = self.offsets.val()
                | (bit_cast::<{ ITEMS * 11 }, 11>(self.own.val()) << (j * 11).to_bits::<8>());
        }
        for j in 8..ITEMS {
            self.own.next = self.level_3.val().get_bits::<11>(j * 11);
            self.earlier.next = self.level_3.val().get_bits::<11>(j * 11 - 88);
            self.offsets.next = self.offsets.val()
                | (bit_cast::<{ ITEMS * 11 }, 11>(self.own.val() + self.earlier.val())
                    << (j * 11).to_bits::<8>());
        }
    }
}

#[derive(LogicBlock, Default)]
pub struct ChunkValues {
    /// The weight remainder field, its width (`wremain` bits) and the index
    /// shift (`wdiv`, 0 uncompressed).
    pub wrem_field: Signal<In, Bits<108>>,
    pub wrem_bits: Signal<In, Bits<4>>,
    pub wshift: Signal<In, Bits<3>>,
    /// Weights finished here and their quotients (5 bits each).
    pub count: Signal<In, Bits<4>>,
    pub quotients: Signal<In, Bits<{ ITEMS * 5 }>>,
    /// The palette of the chunk's slice (sign-magnitude codes, 9 bits each),
    /// its size, and `dirofs` - size (11-bit two's complement).
    pub palette: Signal<In, Bits<{ PALETTE_ENTRIES * 9 }>>,
    pub palette_size: Signal<In, Bits<6>>,
    pub direct_offset: Signal<In, Bits<11>>,
    /// The finished weights, two's complement, 9 bits each (0 past `count`).
    pub weights: Signal<Out, Bits<{ ITEMS * 9 }>>,
    /// An index over 511 (TRM 4.7.3.1), a direct value over 255 in magnitude.
    pub index_error: Signal<Out, Bit>,
    pub value_error: Signal<Out, Bit>,
    remainders: Signal<Local, Bits<108>>,
    field: Signal<Local, Bits<9>>,
    quotient_5: Signal<Local, Bits<5>>,
    quotient: Signal<Local, Bits<10>>,
    index: Signal<Local, Bits<10>>,
    entries: Signal<Local, Bits<{ PALETTE_ENTRIES * 9 }>>,
    code: Signal<Local, Bits<11>>,
    magnitude: Signal<Local, Bits<9>>,
    value: Signal<Local, Bits<9>>,
    index_errors: Signal<Local, Bits<12>>,
    value_errors: Signal<Local, Bits<12>>,
}

impl Logic for ChunkValues {
    #[hdl_gen]
    fn update(&mut self) {
        // Remainder j at 9 bits apart, masked to its width.
        self.remainders.next = 0.into();
        match self.wrem_bits.val().index() {
            1 => {
                for j in 0..ITEMS {
                    self.field.next = self.wrem_field.val().get_bits::<9>(j) & 1;
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<108, 9>(self.field.val()) << (j * 9).to_bits::<7>());
                }
            }
            2 => {
                for j in 0..ITEMS {
                    self.field.next = self.wrem_field.val().get_bits::<9>(j * 2) & 3;
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<108, 9>(self.field.val()) << (j * 9).to_bits::<7>());
                }
            }
            3 => {
                for j in 0..ITEMS {
                    self.field.next = self.wrem_field.val().get_bits::<9>(j * 3) & 7;
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<108, 9>(self.field.val()) << (j * 9).to_bits::<7>());
                }
            }
            4 => {
                for j in 0..ITEMS {
                    self.field.next = self.wrem_field.val().get_bits::<9>(j * 4) & 15;
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<108, 9>(self.field.val()) << (j * 9).to_bits::<7>());
                }
            }
            5 => {
                for j in 0..ITEMS {
                    self.field.next = self.wrem_field.val().get_bits::<9>(j * 5) & 31;
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<108, 9>(self.field.val()) << (j * 9).to_bits::<7>());
                }
            }
            6 => {
                for j in 0..ITEMS {
                    self.field.next = self.wrem_field.val().get_bits::<9>(j * 6) & 63;
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<108, 9>(self.field.val()) << (j * 9).to_bits::<7>());
                }
            }
            7 => {
                for j in 0..ITEMS {
                    self.field.next = self.wrem_field.val().get_bits::<9>(j * 7) & 127;
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<108, 9>(self.field.val()) << (j * 9).to_bits::<7>());
                }
            }
            8 => {
                for j in 0..ITEMS {
                    self.field.next = self.wrem_field.val().get_bits::<9>(j * 8) & 255;
                    self.remainders.next = self.remainders.val()
                        | (bit_cast::<108, 9>(self.field.val()) << (j * 9).to_bits::<7>());
                }
            }
            9 => {
                self.remainders.next = self.wrem_field.val();
            }
            _ => {}
        }
        self.weights.next = 0.into();
        self.index_errors.next = 0.into();
        self.value_errors.next = 0.into();
        for j in 0..ITEMS {
            self.quotient_5.next = self.quotients.val().get_bits::<5>(j * 5);
            self.field.next = self.remainders.val().get_bits::<9>(j * 9);
            self.quotient.next = bit_cast::<10, 5>(self.quotient_5.val());
            self.index.next =
                (self.quotient.val() << self.wshift.val()) + bit_cast::<10, 9>(self.field.val());
            // Palette mode below palette_size, direct mode above (TRM 4.7.3.1);
            // entry i at 9i: a shift by 8i, then by i.
            self.entries.next = (self.palette.val()
                >> (bit_cast::<9, 5>(self.index.val().get_bits::<5>(0)) << 3))
                >> bit_cast::<9, 5>(self.index.val().get_bits::<5>(0));
            self.code.next = bit_cast::<11, 10>(self.index.val()) + self.direct_offset.val();
            if self.index.val() < bit_cast::<10, 6>(self.palette_size.val()) {
                self.code.next = bit_cast::<11, 9>(self.entries.val().get_bits::<9>(0));
            }
            self.magnitude.next = self.code.val().get_bits::<9>(1);
            self.value.next = self.magnitude.val();
            if self.code.val().get_bit(0) {
                self.value.next = 0 - self.magnitude.val();
            }
            if j.to_bits::<4>() < self.count.val() {
                self.weights.next = self.weights.val()
                    | (bit_cast::<{ ITEMS * 9 }, 9>(self.value.val()) << (j * 9).to_bits::<7>());
                self.index_errors.next = self
                    .index_errors
                    .val()
                    .replace_bit(j, self.index.val().get_bit(9));
                self.value_errors.next = self
                    .value_errors
                    .val()
                    .replace_bit(j, self.code.val().get_bits::<2>(9) != 0);
            }
        }
        self.index_error.next = self.index_errors.val().any();
        self.value_error.next = self.value_errors.val().any();
    }
}
