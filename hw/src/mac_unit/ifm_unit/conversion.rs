//! The IFM unit's stage 2 (TRM 3.3.6.1): a beat's shared-buffer lines
//! become its 9-bit activations, the IFM zero point taken off, padding
//! and inserted zeros applied (the arithmetic is the unit's module doc's).
//! Combinational: the unit registers what goes in and what comes out.

use crate::shram::READ_PORTS;
use rust_hdl::prelude::*;

const _: () = assert!(READ_PORTS == 4);

/// How a beat's lines become activations.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Conversion {
    pub wide: Bit,
    pub int32: Bit,
    pub interleaved: Bit,
    pub signed: Bit,
    pub byte: Bits<2>,
    pub zero_point: Bits<16>,
    pub pad_minimum: Bit,
}

/// One beat's conversion: the lines each position's read port gave (bank
/// 0's, and the pair ports' 16 bytes after them) to both cores' lanes.
#[derive(LogicBlock, Default)]
pub struct ActConversion {
    /// Position p's 16 bytes in bits 128p..128p + 128.
    pub lines: Signal<In, Bits<512>>,
    pub pair_lines: Signal<In, Bits<512>>,
    /// Bit p: position p read IFM data (not padding or an inserted zero).
    pub present: Signal<In, Bits<4>>,
    pub conversion: Signal<In, Conversion>,
    /// Both cores' lanes: odd elements of interleaved groups from bit 288.
    pub converted: Signal<Out, Bits<576>>,
    act_byte: Signal<Local, Bits<2>>,
    zero_point16: Signal<Local, Bits<16>>,
    zero_point: Signal<Local, Bits<17>>,
    /// A position's 16 bytes, the pair port's 16 after them, and both.
    line: Signal<Local, Bits<128>>,
    pair_line: Signal<Local, Bits<128>>,
    both_lines: Signal<Local, Bits<256>>,
    value_8: Signal<Local, Bits<8>>,
    value_16: Signal<Local, Bits<16>>,
    value_32: Signal<Local, Bits<32>>,
    byte_32: Signal<Local, Bits<8>>,
    value: Signal<Local, Bits<17>>,
    difference: Signal<Local, Bits<17>>,
    act: Signal<Local, Bits<9>>,
}

impl Logic for ActConversion {
    #[hdl_gen]
    fn update(&mut self) {
        // The value (sign- or
        // zero-extended to 17 bits) minus the zero point, its 9 bits or
        // the low byte or upper part of a 16-bit difference.
        self.act_byte.next = self.conversion.val().byte;
        self.zero_point16.next = self.conversion.val().zero_point;
        self.zero_point.next = bit_cast::<17, 16>(self.zero_point16.val());
        if self.conversion.val().signed & self.zero_point16.val().get_bit(15) {
            self.zero_point.next = self.zero_point.val() | bits::<17>(0x10000);
        }
        self.converted.next = 0.into();
        for p in 0..4 {
            self.line.next = self.lines.val().get_bits::<128>(128 * p);
            self.pair_line.next = self.pair_lines.val().get_bits::<128>(128 * p);
            self.both_lines.next = bit_cast::<256, 128>(self.line.val())
                | (bit_cast::<256, 128>(self.pair_line.val()) << 128);
            // Lanes 8-15: the odd elements of an interleaved group.
            for k in 0..16 {
                self.value_8.next = self.line.val().get_bits::<8>(8 * (k & 7));
                if self.conversion.val().interleaved {
                    self.value_8.next = self.line.val().get_bits::<8>(16 * (k & 7) + 8 * (k >> 3));
                }
                self.value_16.next = self.line.val().get_bits::<16>(16 * (k & 7));
                if self.conversion.val().interleaved {
                    self.value_16.next = self
                        .both_lines
                        .val()
                        .get_bits::<16>(32 * (k & 7) + 16 * (k >> 3));
                }
                if self.conversion.val().wide {
                    self.value.next = bit_cast::<17, 16>(self.value_16.val());
                    if self.conversion.val().signed & self.value_16.val().get_bit(15) {
                        self.value.next = self.value.val() | bits::<17>(0x10000);
                    }
                } else {
                    self.value.next = bit_cast::<17, 8>(self.value_8.val());
                    if self.conversion.val().signed & self.value_8.val().get_bit(7) {
                        self.value.next = self.value.val() | bits::<17>(0x1ff00);
                    }
                }
                // Max-pool padding: the type's minimum (int8 -128, int16
                // -32768, unsigned 0), as 17-bit two's complement.
                if !self.present.val().get_bit(p) & self.conversion.val().pad_minimum {
                    self.value.next = 0.into();
                    if self.conversion.val().signed {
                        self.value.next = 0x1_ff80.into();
                        if self.conversion.val().wide {
                            self.value.next = 0x1_8000.into();
                        }
                    }
                }
                self.difference.next = self.value.val() - self.zero_point.val();
                self.act.next = self.difference.val().get_bits::<9>(0);
                if self.conversion.val().wide {
                    self.act.next = bit_cast::<9, 8>(self.difference.val().get_bits::<8>(0));
                    if self.act_byte.val() == 1 {
                        self.act.next = self.difference.val().get_bits::<9>(8);
                    }
                }
                // 32 bits: lane k's byte of channel k % 4, the top one signed.
                self.value_32.next = self.line.val().get_bits::<32>(32 * (k & 3));
                self.byte_32.next = self.value_32.val().get_bits::<8>(0);
                match self.act_byte.val().index() {
                    1 => self.byte_32.next = self.value_32.val().get_bits::<8>(8),
                    2 => self.byte_32.next = self.value_32.val().get_bits::<8>(16),
                    3 => self.byte_32.next = self.value_32.val().get_bits::<8>(24),
                    _ => {}
                }
                if self.conversion.val().int32 {
                    self.act.next = bit_cast::<9, 8>(self.byte_32.val());
                    if (self.act_byte.val() == 3) & self.byte_32.val().get_bit(7) {
                        self.act.next = self.act.val() | bits::<9>(0x100);
                    }
                }
                if !self.present.val().get_bit(p) & !self.conversion.val().pad_minimum {
                    self.act.next = 0.into();
                }
                self.converted.next = self.converted.val()
                    | (bit_cast::<576, 9>(self.act.val())
                        << ((p * 8 + (k & 7) + 32 * (k >> 3)) * 9).to_bits::<10>());
            }
        }
    }
}
