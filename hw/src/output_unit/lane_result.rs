//! A lane's result in the activation stage (TRM 3.3.7.3), from what its
//! table or LUT read gave ([`LaneRead`]), bit for bit as
//! `npu_model::fixed::tanh_fixed`, `sigmoid_fixed` and
//! `npu_model::ops::OutStage::lookup`: tanh and sigmoid round the
//! interpolated table value to nearest (tanh(-x) = -tanh(x) exactly,
//! sigmoid(-x) = 1 - sigmoid(x) with ties down) at 15 fraction bits for a
//! 16-bit activation type, else 7 (tanh) or 8 (sigmoid); a 16-bit LUT adds
//! its base to slope * fraction rounded at 7 fraction bits; an 8-bit LUT's
//! entry is its word (a 32-bit OFM) or its byte, sign-extended for a signed
//! index type. Combinational.

use super::BeatControl;
use rust_hdl::prelude::*;

/// A lane between its table or LUT read and its result.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct LaneRead {
    pub lane: Bits<3>,
    pub last: Bit,
    pub negative: Bit,
    pub fraction: Bits<9>,
    /// tanh/sigmoid: the table's value interpolated at the fraction.
    pub interpolated: Bits<26>,
    /// The LUT's word and byte at the entry, and the 16-bit LUT's slope
    /// times the fraction.
    pub word: Bits<32>,
    pub slope_product: Bits<32>,
    pub entry_byte: Bits<8>,
}

#[derive(LogicBlock, Default)]
pub struct LaneResult {
    pub read: Signal<In, LaneRead>,
    /// The lane's beat (its activation function and types).
    pub control: Signal<In, BeatControl>,
    pub result: Signal<Out, Bits<34>>,
    held: Signal<Local, BeatControl>,
    lane_read: Signal<Local, LaneRead>,
    /// The LUT's word and byte, copied out of `lane_read`: yosys cannot
    /// select bits of a struct field's part-select.
    lut_word: Signal<Local, Bits<32>>,
    lut_byte: Signal<Local, Bits<8>>,
    magnitude: Signal<Local, Bits<26>>,
    rounded: Signal<Local, Bits<26>>,
    slope_sum: Signal<Local, Bits<32>>,
}

impl Logic for LaneResult {
    #[hdl_gen]
    fn update(&mut self) {
        self.held.next = self.control.val();
        self.lane_read.next = self.read.val();
        self.lut_word.next = self.lane_read.val().word;
        self.lut_byte.next = self.lane_read.val().entry_byte;
        self.magnitude.next = self.lane_read.val().interpolated;
        if self.held.val().sigmoid & self.lane_read.val().negative {
            self.magnitude.next = bits::<26>(0x200_0000) - self.lane_read.val().interpolated;
        }
        if self.held.val().sigmoid {
            if self.held.val().wide {
                self.rounded.next = (self.magnitude.val() + 0x200) >> 10;
            } else {
                self.rounded.next = (self.magnitude.val() + 0x1_0000) >> 17;
            }
            if self.lane_read.val().negative {
                if self.held.val().wide {
                    self.rounded.next = (self.magnitude.val() + 0x1ff) >> 10;
                } else {
                    self.rounded.next = (self.magnitude.val() + 0xffff) >> 17;
                }
            }
        } else if self.held.val().wide {
            self.rounded.next = (self.magnitude.val() + 0x80) >> 8;
        } else {
            self.rounded.next = (self.magnitude.val() + 0x8000) >> 16;
        }
        self.result.next = bit_cast::<34, 26>(self.rounded.val());
        if self.held.val().tanh & self.lane_read.val().negative {
            self.result.next = !bit_cast::<34, 26>(self.rounded.val()) + 1;
        }
        self.slope_sum.next = self.lane_read.val().slope_product + 64;
        if self.held.val().lookup {
            if self.held.val().wide {
                // base + ((slope * fraction + 64) >> 7), arithmetic.
                self.result.next = bit_cast::<34, 25>(self.slope_sum.val().get_bits::<25>(7));
                if self.slope_sum.val().get_bit(31) {
                    self.result.next = self.result.val() | 0x3_fe00_0000_u64;
                }
                if self.lut_word.val().get_bit(15) {
                    self.result.next = self.result.val()
                        + (bit_cast::<34, 16>(self.lut_word.val().get_bits::<16>(0))
                            | 0x3_ffff_0000_u64);
                } else {
                    self.result.next = self.result.val()
                        + bit_cast::<34, 16>(self.lut_word.val().get_bits::<16>(0));
                }
            } else if self.held.val().lut_words {
                self.result.next = bit_cast::<34, 32>(self.lut_word.val());
                if self.lut_word.val().get_bit(31) {
                    self.result.next = self.result.val() | 0x3_0000_0000_u64;
                }
            } else {
                self.result.next = bit_cast::<34, 8>(self.lut_byte.val());
                if self.held.val().index_signed & self.lut_byte.val().get_bit(7) {
                    self.result.next = self.result.val() | 0x3_ffff_ff00_u64;
                }
            }
        }
    }
}
