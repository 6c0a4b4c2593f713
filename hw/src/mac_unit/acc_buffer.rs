//! The accumulator buffer (AB): 2^ACC_ADDRESS_BITS words of one
//! microblock's 32 accumulators x 40 bits (1280 bits), one write port and two
//! read ports, each read registered (one cycle from address to data; a read
//! and a write of the same word at one edge read the old word).
//!
//! - `rmw_read_*`: the read of the adder array's read-modify-write.
//! - `readout_read_*`: the readout toward the output unit. `readout_read_data`
//!   keeps its word while `readout_read_enable` is low, so it doubles as the
//!   `results` stream's holding register.
//!
//! TRM 4.9.1 places ACC0/ACC1 in the shared buffer (from NPU_SET_AB_START).
//! This is a documented departure, for now: the adder array reads and writes
//! a microblock's 32 accumulators every cycle, 1280 bits each way, while a
//! shared-buffer bank moves 128 bits a cycle through one read and one write
//! port shared with the DMA and the IFM unit. The accumulators are therefore a
//! macro of their own, sized for two OFM blocks of 256 microblocks (4
//! positions, 2x2 or 1x4, x 8 channels each). Like a RAM macro it has no reset: the MAC
//! unit's `clear` writes zeros to every word after a reset (TRM 3.3.4.1),
//! [`ACC_CLEAR_WAYS`] words a cycle (two macros, word w in macro w mod 2).
//!
//! In the emitted Verilog it is a behavioural RAM, black-boxed by the
//! synthesis script as a RAM macro would be (like the shared buffer's banks),
//! and public to Verilator so a testbench reads it behind the ports
//! (`npu_tb::shram::acc_buffer_contents`).

use super::{ACCUMULATORS, ACC_ADDRESS_BITS, ACC_BITS};
use crate::shram::clear_group_statement;
use rust_hdl::prelude::*;

const WORD_BITS: usize = ACCUMULATORS * ACC_BITS;

/// Words the clear writes a cycle.
pub const ACC_CLEAR_WAYS: usize = 2;

#[derive(LogicBlock)]
pub struct AccBuffer {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<ACC_ADDRESS_BITS>>,
    pub write_data: Signal<In, Bits<WORD_BITS>>,
    /// With `write_enable`: zero the [`ACC_CLEAR_WAYS`] words of
    /// `write_address`'s group instead of writing `write_data`.
    pub write_clear: Signal<In, Bit>,
    pub rmw_read_enable: Signal<In, Bit>,
    pub rmw_read_address: Signal<In, Bits<ACC_ADDRESS_BITS>>,
    /// The word at `rmw_read_address`, one cycle after `rmw_read_enable`.
    pub rmw_read_data: Signal<Out, Bits<WORD_BITS>>,
    pub readout_read_enable: Signal<In, Bit>,
    pub readout_read_address: Signal<In, Bits<ACC_ADDRESS_BITS>>,
    /// The word at `readout_read_address`, one cycle after
    /// `readout_read_enable`, held until the next read.
    pub readout_read_data: Signal<Out, Bits<WORD_BITS>>,
    _words: Vec<Bits<WORD_BITS>>,
}

impl Default for AccBuffer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_clear: Default::default(),
            rmw_read_enable: Default::default(),
            rmw_read_address: Default::default(),
            rmw_read_data: Default::default(),
            readout_read_enable: Default::default(),
            readout_read_address: Default::default(),
            readout_read_data: Default::default(),
            _words: vec![Bits::default(); 1 << ACC_ADDRESS_BITS],
        }
    }
}

impl Logic for AccBuffer {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.rmw_read_enable.val() {
                self.rmw_read_data.next = self._words[self.rmw_read_address.val().index()];
            }
            if self.readout_read_enable.val() {
                self.readout_read_data.next = self._words[self.readout_read_address.val().index()];
            }
            let address = self.write_address.val().index();
            if self.write_enable.val() && self.write_clear.val() {
                let group = address / ACC_CLEAR_WAYS * ACC_CLEAR_WAYS;
                for word in &mut self._words[group..group + ACC_CLEAR_WAYS] {
                    *word = Bits::default();
                }
            } else if self.write_enable.val() {
                self._words[address] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.rmw_read_data.connect();
        self.readout_read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{msb}:0] words [0:{last}] /*verilator public_flat_rw*/;
integer way;
always @(posedge clock) begin
   if (write_enable & write_clear)
      {clear}
   else if (write_enable) words[write_address] <= write_data;
   if (rmw_read_enable) rmw_read_data <= words[rmw_read_address];
   if (readout_read_enable) readout_read_data <= words[readout_read_address];
end",
            msb = WORD_BITS - 1,
            last = self._words.len() - 1,
            clear = clear_group_statement(
                "words",
                "write_address",
                ACC_ADDRESS_BITS,
                ACC_CLEAR_WAYS,
                WORD_BITS
            ),
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "acc_buffer".into(),
            clock: "clock".into(),
            inputs: vec![
                "write_enable".into(),
                "write_address".into(),
                "write_data".into(),
                "write_clear".into(),
                "rmw_read_enable".into(),
                "rmw_read_address".into(),
                "readout_read_enable".into(),
                "readout_read_address".into(),
            ],
            outputs: vec!["rmw_read_data".into(), "readout_read_data".into()],
        }]
    }
}
