//! The IFM unit on a bench of its own: an [`IfmUnit`] reading a 48 KB
//! shared-buffer bank through its four read ports, and a second bank with
//! the same lines through its second bank's ports (as core 1's bank holds
//! the IFM blocks of both cores), the buffer loaded line by line through a stream,
//! so a block-level test can put an IFM block in it and then stream
//! requests.

use super::{IfmActs, IfmRequest, IfmSettings, IfmUnit};
use crate::shram::{SramBank, LINE_ADDRESS_BITS, READ_BANKS};
use crate::stream::{StreamIn, StreamOut};
use rust_hdl::prelude::*;

/// Bytes of the bench's shared buffer: one core's (u65-256).
pub const BENCH_SHRAM_BYTES: usize = 48 * 1024;

/// A whole shared-buffer line to write.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct LineWrite {
    pub line: Bits<LINE_ADDRESS_BITS>,
    pub data: Bits<128>,
}

/// The bench: `settings`, `requests` and `acts` are the [`IfmUnit`]'s;
/// `writes` loads the buffer, one line a cycle, always ready.
#[derive(LogicBlock)]
pub struct IfmUnitBench {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub settings: Signal<In, IfmSettings>,
    pub requests: StreamIn<IfmRequest>,
    pub acts: StreamOut<IfmActs>,
    pub writes: StreamIn<LineWrite>,
    unit: IfmUnit,
    /// The banks the unit reads, holding the same lines.
    banks: Vec<SramBank>,
}

impl Default for IfmUnitBench {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            settings: Default::default(),
            requests: Default::default(),
            acts: Default::default(),
            writes: Default::default(),
            unit: IfmUnit::new(BENCH_SHRAM_BYTES),
            banks: (0..READ_BANKS)
                .map(|_| SramBank::new(BENCH_SHRAM_BYTES))
                .collect(),
        }
    }
}

impl Logic for IfmUnitBench {
    #[hdl_gen]
    fn update(&mut self) {
        self.unit.clock.next = self.clock.val();
        self.unit.rst_n.next = self.rst_n.val();
        self.unit.settings.next = self.settings.val();
        StreamIn::<IfmRequest>::link(&mut self.requests, &mut self.unit.requests);
        StreamOut::<IfmActs>::link(&mut self.acts, &mut self.unit.acts);
        self.writes.ready.next = true;
        for bank in 0..self.banks.len() {
            self.banks[bank].clock.next = self.clock.val();
            self.banks[bank].write_enable.next = self.writes.valid.val();
            self.banks[bank].write_address.next = self.writes.data.val().line;
            self.banks[bank].write_data.next = self.writes.data.val().data;
            self.banks[bank].write_strobe.next = bits::<16>(0xffff);
            self.banks[bank].write_clear.next = false;
            self.banks[bank].read_enable.next = self.unit.bank_reads[bank].enable.val();
            self.banks[bank].read_address.next = self.unit.bank_reads[bank].address.val();
            self.unit.bank_reads[bank].data.next = self.banks[bank].read_data.val();
        }
    }
}
