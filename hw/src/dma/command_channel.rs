//! The command stream's read channel (TRM 3.3.3): QSIZE bytes from QBASE
//! for central control, on the outstanding counter QCONFIG selects (TRM
//! 4.2.8), whose AXI_LIMITn gives the bursts' length limit and ARCACHE
//! (TRM 4.2.14, table 4-31). A one-dimensional transfer.

use super::region::CounterLimits;
use super::{ReadChannel, ReadClient};
use crate::stream::{LaneBeat, StreamOut};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CommandChannel {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Fetch `size` bytes from `base`.
    pub start: Signal<In, Bit>,
    pub base: Signal<In, Bits<40>>,
    pub size: Signal<In, Bits<32>>,
    /// QCONFIG bits 1:0 and AXI_LIMIT0-3 (register k in bits 32k..32k + 32).
    pub qconfig: Signal<In, Bits<2>>,
    pub axi_limit: Signal<In, Bits<128>>,
    /// Request no more bursts (a bus error, a soft reset).
    pub halt: Signal<In, Bit>,
    /// Stop fetching and drop what is in flight (the stream stopped).
    pub cancel: Signal<In, Bit>,
    pub beats: StreamOut<LaneBeat>,
    pub busy: Signal<Out, Bit>,
    /// Bursts to the DMA's read router.
    pub reads: ReadClient,
    /// A 1 KB read buffer: a few bytes an operation.
    read: ReadChannel<6, 7>,
    limits: CounterLimits,
}

impl Logic for CommandChannel {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, read);
        self.read.rst_n.next = self.rst_n.val();
        self.limits.counter.next = self.qconfig.val();
        self.limits.axi_limit.next = self.axi_limit.val();
        self.read.counter.next = self.qconfig.val();
        self.read.cache.next = self.limits.arcache.val();
        self.read.start.next = self.start.val();
        self.read.shape.base.next = self.base.val();
        self.read.shape.len.next = self.size.val();
        self.read.shape.rows.next = 1.into();
        self.read.shape.planes.next = 1.into();
        self.read.shape.row_skip.next = 0.into();
        self.read.shape.plane_skip.next = 0.into();
        self.read.shape.three_d.next = false;
        self.read.shape.max_beats.next = self.limits.max_beats.val();
        self.read.halt.next = self.halt.val();
        self.read.cancel.next = self.cancel.val();
        StreamOut::<LaneBeat>::link(&mut self.beats, &mut self.read.out);
        ReadClient::link(&mut self.reads, &mut self.read.reads);
        self.busy.next = self.read.busy.val();
    }
}
