//! The command stream's read channel (TRM 3.3.3): QSIZE bytes from QBASE
//! for central control, on the outstanding counter QCONFIG selects (TRM
//! 4.2.8), whose AXI_LIMITn gives the bursts' length limit and ARCACHE
//! (TRM 4.2.14, table 4-31). A one-dimensional transfer.

use super::{MemtypeCache, ReadChannel, ReadClient};
use crate::arch_constants::field_lsb;
use crate::stream::{LaneBeat, StreamOut};
use npu_arch::regs;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CommandChannel {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Fetch `size` bytes from `base`.
    pub start: Signal<In, Bit>,
    pub base: Signal<In, Bits<40>>,
    pub size: Signal<In, Bits<32>>,
    /// QCONFIG bits 1:0 and AXI_LIMIT0-3.
    pub qconfig: Signal<In, Bits<2>>,
    pub axi_limit: Vec<Signal<In, Bits<32>>>,
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
    memtype_cache: MemtypeCache,
    max_beats_lsb: Constant<Bits<5>>,
    memtype_lsb: Constant<Bits<5>>,
    select: Signal<Local, Bits<4>>,
    limit: Signal<Local, Bits<32>>,
}

impl Default for CommandChannel {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            start: Default::default(),
            base: Default::default(),
            size: Default::default(),
            qconfig: Default::default(),
            axi_limit: (0..4).map(|_| Default::default()).collect(),
            halt: Default::default(),
            cancel: Default::default(),
            beats: Default::default(),
            busy: Default::default(),
            reads: Default::default(),
            read: Default::default(),
            memtype_cache: Default::default(),
            max_beats_lsb: field_lsb(&regs::AXI_LIMIT0, "max_beats"),
            memtype_lsb: field_lsb(&regs::AXI_LIMIT0, "memtype"),
            select: Default::default(),
            limit: Default::default(),
        }
    }
}

impl Logic for CommandChannel {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, read);
        self.read.rst_n.next = self.rst_n.val();
        self.select.next = bits::<4>(1) << self.qconfig.val();
        self.limit.next = 0.into();
        for c in 0..4 {
            if self.select.val().get_bit(c) {
                self.limit.next = self.axi_limit[c].val();
            }
        }
        self.read.counter.next = self.qconfig.val();
        self.memtype_cache.memtype.next =
            bit_cast::<4, 32>(self.limit.val() >> self.memtype_lsb.val());
        self.read.cache.next = self.memtype_cache.arcache.val();
        self.read.start.next = self.start.val();
        self.read.shape.base.next = self.base.val();
        self.read.shape.len.next = self.size.val();
        self.read.shape.rows.next = 1.into();
        self.read.shape.planes.next = 1.into();
        self.read.shape.row_skip.next = 0.into();
        self.read.shape.plane_skip.next = 0.into();
        self.read.shape.three_d.next = false;
        self.read.shape.max_beats.next =
            bit_cast::<2, 32>(self.limit.val() >> self.max_beats_lsb.val());
        self.read.halt.next = self.halt.val();
        self.read.cancel.next = self.cancel.val();
        StreamOut::<LaneBeat>::link(&mut self.beats, &mut self.read.out);
        ReadClient::link(&mut self.reads, &mut self.read.reads);
        self.busy.next = self.read.busy.val();
    }
}
