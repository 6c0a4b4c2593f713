//! The output unit's copy of one core's LUT area, the last 2 KB of its
//! shared buffer (TRM 4.9.1): written with every shared-buffer write that
//! lands there (`crate::shram::Shram`'s `lut_write`), read by the
//! activation stage, so the LUT costs the IFM unit's read ports nothing.
//!
//! In the emitted Verilog it is a behavioural RAM, black-boxed by the
//! synthesis script as a RAM macro would be (as `crate::shram::SramBank`),
//! public to Verilator so a testbench can check that a reset clears it.

use crate::shram::LUT_LINES;
use crate::shram::{clear_group_statement, merge_line, strobe_mask_wire, CLEAR_WAYS, LINE_BYTES};
use rust_hdl::prelude::*;

/// One write port with byte strobes, one registered read port.
#[derive(LogicBlock)]
pub struct LutRam {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_line: Signal<In, Bits<7>>,
    pub write_data: Signal<In, Bits<128>>,
    pub write_strobe: Signal<In, Bits<LINE_BYTES>>,
    /// With `write_enable`: zero the [`CLEAR_WAYS`] lines of `write_line`'s
    /// group instead (the copy is organised as the shared buffer's banks).
    pub write_clear: Signal<In, Bit>,
    /// `read_data` takes line `read_line` one cycle after `read_enable`.
    pub read_enable: Signal<In, Bit>,
    pub read_line: Signal<In, Bits<7>>,
    pub read_data: Signal<Out, Bits<128>>,
    _lines: Vec<Bits<128>>,
}

impl Default for LutRam {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_line: Default::default(),
            write_data: Default::default(),
            write_strobe: Default::default(),
            write_clear: Default::default(),
            read_enable: Default::default(),
            read_line: Default::default(),
            read_data: Default::default(),
            _lines: vec![Bits::default(); LUT_LINES],
        }
    }
}

impl Logic for LutRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.read_enable.val() {
                self.read_data.next = self._lines[self.read_line.val().index()];
            }
            if self.write_enable.val() && self.write_clear.val() {
                let group = self.write_line.val().index() / CLEAR_WAYS * CLEAR_WAYS;
                for line in &mut self._lines[group..group + CLEAR_WAYS] {
                    *line = Bits::default();
                }
            } else if self.write_enable.val() {
                let line = self.write_line.val().index();
                self._lines[line] = merge_line(
                    self._lines[line],
                    self.write_data.val(),
                    self.write_strobe.val(),
                );
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [127:0] lines [0:{last}] /*verilator public_flat_rw*/;
{strobe_mask}
integer way;
always @(posedge clock) begin
   if (write_enable & write_clear)
      {clear}
   else if (write_enable)
      lines[write_line] <= (lines[write_line] & ~strobe_mask) | (write_data & strobe_mask);
   if (read_enable) read_data <= lines[read_line];
end",
            last = LUT_LINES - 1,
            strobe_mask = strobe_mask_wire(),
            clear = clear_group_statement("lines", "write_line", 7, CLEAR_WAYS, 128),
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "lut_ram".into(),
            clock: "clock".into(),
            inputs: vec![
                "write_enable".into(),
                "write_line".into(),
                "write_data".into(),
                "write_strobe".into(),
                "write_clear".into(),
                "read_enable".into(),
                "read_line".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}
