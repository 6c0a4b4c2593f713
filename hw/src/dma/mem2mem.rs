//! The mem2mem channel (TRM 3.3.3): the user DMA of NPU_OP_DMA_START. Reads
//! the source rows, re-aligns the bytes, and writes them to the destination
//! rows in memory (through the AXI port of its counter) or in the shared buffer.

use super::aligner::Aligner;
use super::read_channel::ReadChannel;
use super::reads::ReadClient;
use super::walker::{TransferShape, TransferWalker};
use super::write_channel::WriteChannel;
use super::writes::WriteClient;
use crate::shram::LINE_ADDRESS_BITS;
use crate::stream::{LaneBeat, StreamOut};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// `N` is log2 of the read buffer's depth in beats (`ReadChannel`), `C` =
/// `N + 1`: it bounds the beats in flight, so it sets the memory latency a
/// transfer streams through at a beat a cycle.
#[derive(LogicBlock, Default)]
pub struct Mem2Mem<const N: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Begin a transfer (only while `busy` is low).
    pub start: Signal<In, Bit>,
    pub source: TransferShape,
    pub destination: TransferShape,
    /// The destination is the shared buffer of the cores in `cores`
    /// (`destination.base` is then a byte offset in it).
    pub internal: Signal<In, Bit>,
    pub cores: Signal<In, Bits<2>>,
    /// A bus error: issue nothing more.
    pub halt: Signal<In, Bit>,
    /// The source's outstanding counter and ARCACHE, taken at `start`;
    /// the destination's and its AWCACHE, held from `start`.
    pub read_counter: Signal<In, Bits<2>>,
    pub read_cache: Signal<In, Bits<4>>,
    pub write_counter: Signal<In, Bits<2>>,
    pub write_cache: Signal<In, Bits<4>>,
    /// The source reads, through the DMA's read router.
    pub reads: ReadClient,
    /// The destination writes in memory, through the DMA's write router.
    pub client: WriteClient,
    /// The shared buffer takes a write this cycle (its port is shared).
    pub shram_ready: Signal<In, Bit>,
    pub shram_write: Signal<Out, Bit>,
    pub shram_cores: Signal<Out, Bits<2>>,
    pub shram_line: Signal<Out, Bits<LINE_ADDRESS_BITS>>,
    pub shram_data: Signal<Out, Bits<128>>,
    pub shram_strobe: Signal<Out, Bits<16>>,
    /// The transfer completes this cycle: every byte is written (for memory,
    /// every write response has arrived).
    pub done: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    read: ReadChannel<N, C>,
    aligner: Aligner,
    fill: TransferWalker,
    write: WriteChannel<5, 6>,
    /// The aligner's beat leaves for its destination.
    beat_out: Signal<Local, Bit>,
    running: ResetReg<Bit>,
    to_shram: ResetReg<Bit>,
    shram_cores_q: ResetReg<Bits<2>>,
    write_counter_q: ResetReg<Bits<2>>,
    write_cache_q: ResetReg<Bits<4>>,
}

impl<const N: usize, const C: usize> Logic for Mem2Mem<N, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            running,
            to_shram,
            shram_cores_q,
            write_counter_q,
            write_cache_q
        );
        self.running.rst_n.next = self.rst_n.val();
        self.write_counter_q.rst_n.next = self.rst_n.val();
        self.write_cache_q.rst_n.next = self.rst_n.val();
        self.to_shram.rst_n.next = self.rst_n.val();
        self.shram_cores_q.rst_n.next = self.rst_n.val();
        self.read.clock.next = self.clock.val();
        self.read.rst_n.next = self.rst_n.val();
        self.aligner.clock.next = self.clock.val();
        self.aligner.rst_n.next = self.rst_n.val();
        self.fill.clock.next = self.clock.val();
        self.fill.rst_n.next = self.rst_n.val();
        self.write.clock.next = self.clock.val();
        self.write.rst_n.next = self.rst_n.val();

        TransferShape::link(&mut self.source, &mut self.read.shape);
        TransferShape::link(&mut self.destination, &mut self.fill.shape);
        TransferShape::link(&mut self.destination, &mut self.write.shape);
        self.read.start.next = self.start.val();
        self.fill.start.next = self.start.val();
        self.write.start.next = self.start.val() & !self.internal.val();
        if self.start.val() {
            self.running.d.next = true;
            self.to_shram.d.next = self.internal.val();
            self.shram_cores_q.d.next = self.cores.val();
            self.write_counter_q.d.next = self.write_counter.val();
            self.write_cache_q.d.next = self.write_cache.val();
        }

        // Source.
        self.read.halt.next = self.halt.val();
        self.read.cancel.next = false;
        self.read.counter.next = self.read_counter.val();
        self.read.cache.next = self.read_cache.val();
        ReadClient::link(&mut self.reads, &mut self.read.reads);

        // Source beats to destination beats.
        StreamOut::<LaneBeat>::join(&mut self.read.out, &mut self.aligner.source);
        self.aligner.wanted.next = self.fill.valid.val();
        self.aligner.first_lane.next = self.fill.beat_first_lane.val();
        self.aligner.last_lane.next = self.fill.beat_last_lane.val();
        self.aligner.out.ready.next = (self.to_shram.q.val() & self.shram_ready.val())
            | (!self.to_shram.q.val() & self.write.beats.ready.val());
        self.beat_out.next = self.aligner.out.valid.val() & self.aligner.out.ready.val();
        self.fill.next_beat.next = self.beat_out.val();
        self.fill.next_burst.next = false;
        self.fill.cancel.next = false;

        // Destination: memory through the port of its counter ...
        self.write.aclken.next = self.client.aclken.val();
        self.write.halt.next = self.halt.val();
        self.write.may_issue.next = self.client.may_issue.val();
        self.write.beats.valid.next = self.aligner.out.valid.val() & !self.to_shram.q.val();
        self.write.beats.data.next.data = self.aligner.out.data.val().data;
        self.write.beats.data.next.strobe = self.aligner.out.data.val().strobe;
        self.write.beats.data.next.last = self.fill.beat_last_of_burst.val();
        self.client.awvalid.next = self.write.awvalid.val();
        self.client.awaddr.next = self.write.awaddr.val();
        self.client.awlen.next = self.write.awlen.val();
        self.client.awcache.next = self.write_cache_q.q.val();
        self.write.awready.next = self.client.awready.val();
        self.client.wvalid.next = self.write.wvalid.val();
        self.client.wdata.next = self.write.wdata.val();
        self.client.wstrb.next = self.write.wstrb.val();
        self.client.wlast.next = self.write.wlast.val();
        self.write.wready.next = self.client.wready.val();
        self.client.waiting.next = self.write.awvalid.val();
        self.client.counter.next = self.write_counter_q.q.val();
        self.write.b_valid.next = self.client.b_valid.val();
        self.client.burst_issued.next = self.write.burst_issued.val();
        self.client.limit_stall.next = self.write.limit_stall.val();

        // ... or the shared buffer.
        self.shram_write.next = self.beat_out.val() & self.to_shram.q.val();
        self.shram_cores.next = self.shram_cores_q.q.val();
        self.shram_line.next = self.fill.beat_line.val().get_bits::<LINE_ADDRESS_BITS>(0);
        self.shram_data.next = self.aligner.out.data.val().data;
        self.shram_strobe.next = self.aligner.out.data.val().strobe;

        self.done.next = self.running.q.val()
            & !self.read.busy.val()
            & !self.fill.busy.val()
            & !self.write.busy.val();
        if self.done.val() {
            self.running.d.next = false;
        }
        self.busy.next = self.running.q.val();
    }
}
