//! The hardwired table of the tanh/sigmoid unit (TRM 3.3.7.3: "a hardwired
//! table combined with bilinear interpolation. The same table is used for
//! both functions"): a ROM with one registered read port that gives entry
//! i of `npu_arch::tables::SIGMOID_TABLE` and its step to entry i + 1, what
//! one interpolation needs, in one read.

use npu_arch::tables::SIGMOID_TABLE;
use rust_hdl::prelude::*;

/// Entries that start an interpolation step (0-254; the last entry only
/// ends one).
const STEPS: usize = SIGMOID_TABLE.len() - 1;

/// `entry` and `step` take entry `index` of the table and
/// `SIGMOID_TABLE[index + 1] - SIGMOID_TABLE[index]` on a rising `clock`
/// edge with `enable` high (index 255 reads as 0); both clear on reset.
#[derive(LogicBlock, Default)]
pub struct SigmoidTable {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub index: Signal<In, Bits<8>>,
    /// Unsigned 0.16 fixed point.
    pub entry: Signal<Out, Bits<16>>,
    /// The step to the next entry (at most 683).
    pub step: Signal<Out, Bits<10>>,
}

fn entry_and_step(index: usize) -> (u64, u64) {
    if index < STEPS {
        let (lo, hi) = (SIGMOID_TABLE[index], SIGMOID_TABLE[index + 1]);
        (u64::from(lo), u64::from(hi - lo))
    } else {
        (0, 0)
    }
}

impl Logic for SigmoidTable {
    fn update(&mut self) {
        if !self.rst_n.val() {
            self.entry.next = 0.into();
            self.step.next = 0.into();
        } else if self.clock.pos_edge() && self.enable.val() {
            let (entry, step) = entry_and_step(self.index.val().index());
            self.entry.next = entry.into();
            self.step.next = step.into();
        }
    }

    fn connect(&mut self) {
        self.entry.connect();
        self.step.connect();
    }

    fn hdl(&self) -> Verilog {
        let cases = (0..STEPS)
            .map(|i| {
                let (entry, step) = entry_and_step(i);
                format!("         8'd{i}: begin entry <= 16'd{entry}; step <= 10'd{step}; end\n")
            })
            .collect::<String>();
        Verilog::Custom(format!(
            "\
always @(posedge clock or negedge rst_n) begin
   if (!rst_n) begin
      entry <= 16'd0;
      step <= 10'd0;
   end else if (enable) begin
      case (index)
{cases}         default: begin entry <= 16'd0; step <= 10'd0; end
      endcase
   end
end"
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "sigmoid_table".into(),
            clock: "clock".into(),
            inputs: vec!["enable".into(), "index".into()],
            outputs: vec!["entry".into(), "step".into()],
        }]
    }
}
