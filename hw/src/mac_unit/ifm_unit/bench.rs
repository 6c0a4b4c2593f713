//! The IFM unit on a bench of its own: an [`IfmUnit`] reading a 48 KB
//! shared buffer through four read ports, the buffer loaded line by line
//! through a stream, so a block-level test can put an IFM block in it and
//! then stream requests.

use super::{IfmActs, IfmRequest, IfmSettings, IfmUnit};
use crate::shram::{SramBank, LINE_ADDRESS_BITS};
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

/// One core's shared buffer with four read ports: four copies of the
/// one-read-one-write bank, each written with every line (how a macro flow
/// adds read ports).
#[derive(LogicBlock)]
pub struct ReadPortCopies {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write: Signal<In, LineWrite>,
    pub read_enable: Signal<In, Bits<4>>,
    pub read_address: Vec<Signal<In, Bits<LINE_ADDRESS_BITS>>>,
    pub read_data: Vec<Signal<Out, Bits<128>>>,
    banks: Vec<SramBank>,
}

impl ReadPortCopies {
    pub fn new(bytes: usize) -> Self {
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write: Default::default(),
            read_enable: Default::default(),
            read_address: (0..4).map(|_| Default::default()).collect(),
            read_data: (0..4).map(|_| Default::default()).collect(),
            banks: (0..4).map(|_| SramBank::new(bytes)).collect(),
        }
    }
}

impl Logic for ReadPortCopies {
    #[hdl_gen]
    fn update(&mut self) {
        for port in 0..4 {
            self.banks[port].clock.next = self.clock.val();
            self.banks[port].write_enable.next = self.write_enable.val();
            self.banks[port].write_address.next = self.write.val().line;
            self.banks[port].write_data.next = self.write.val().data;
            self.banks[port].write_strobe.next = bits::<16>(0xffff);
            self.banks[port].read_enable.next = self.read_enable.val().get_bit(port);
            self.banks[port].read_address.next = self.read_address[port].val();
            self.read_data[port].next = self.banks[port].read_data.val();
        }
    }
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
    shram: ReadPortCopies,
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
            shram: ReadPortCopies::new(BENCH_SHRAM_BYTES),
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
        self.shram.clock.next = self.clock.val();
        self.writes.ready.next = true;
        self.shram.write_enable.next = self.writes.valid.val();
        self.shram.write.next = self.writes.data.val();
        self.shram.read_enable.next = self.unit.shram_read_enable.val();
        for port in 0..4 {
            self.shram.read_address[port].next = self.unit.shram_read_address[port].val();
            self.unit.shram_read_data[port].next = self.shram.read_data[port].val();
        }
    }
}
