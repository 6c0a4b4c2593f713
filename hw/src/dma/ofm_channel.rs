//! The OFM channel (TRM 3.3.3): writes the output unit's bytes to memory as
//! bursts, on the AXI port of the OFM region's counter (REGIONCFG).
//!
//! A two-deep queue makes the datapath's ready a register's. Each [`OfmWrite`]
//! is cut into the 16-byte lines it touches, one a cycle, with byte strobes;
//! the newest line stays open for writes to the same address. A burst ends at
//! AXI_LIMITn.max_beats' boundary (never across 4 KB), at an address gap, a
//! change of counter, or `writes_done`. A line holding an OFM block's last byte
//! closes at once, and as each burst's response comes (in order, one AXI ID)
//! `blocks_written` counts the blocks written, for NPU_SET_BLOCKDEP (TRM 4.9).
//! Closed lines wait in a [`RamFifo`] and a burst's AW goes only with all its
//! data there, so W follows AW without gaps, as many bursts outstanding as
//! AXI_LIMITn allows.

use super::region::RegionSelect;
use super::requests::OfmWrite;
use super::writes::WriteClient;
use crate::stream::{StreamIn, WriteBeat};
use crate::widgets::{Fifo, RamFifo, ResetReg};
use rust_hdl::prelude::*;

/// A burst whose beats are all buffered: its first line's address, its
/// beats minus one, and the outstanding counter and AWCACHE of its region.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OfmBurst {
    pub address: Bits<40>,
    pub beats_m1: Bits<4>,
    pub counter: Bits<2>,
    pub cache: Bits<4>,
    /// OFM block ends in the burst (each in a line of its own).
    pub block_ends: Bits<5>,
}

#[derive(LogicBlock, Default)]
pub struct OfmChannel {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub regioncfg: Signal<In, Bits<16>>,
    /// BASEP0-15 and AXI_LIMIT0-3, register k in bits 32k..32k + 32.
    pub basep: Signal<In, Bits<512>>,
    pub axi_limit: Signal<In, Bits<128>>,
    /// Issue nothing more (a bus error or a soft reset); issued bursts complete.
    pub halt: Signal<In, Bit>,
    pub writes: StreamIn<OfmWrite>,
    /// The datapath has no more writes for the operation: send the open line.
    pub writes_done: Signal<In, Bit>,
    /// The writes, through the DMA's write router: the AW and W channels
    /// on the port of `counter` (the bursts' in flight, or with none the
    /// next one's) with that port's ACLKEN, their AWCACHE; `waiting`: a
    /// burst could issue but for the address register, still busy with the
    /// last one (the write router keeps the port's AW channel for it), as
    /// of the last cycle with ACLKEN high.
    pub client: WriteClient,
    /// Writes remain to be issued or answered.
    pub busy: Signal<Out, Bit>,
    /// OFM blocks whose last write was answered this cycle.
    pub blocks_written: Signal<Out, Bits<5>>,
    /// The writes taken, two deep: the datapath's ready is the queue's
    /// count, not this channel's region lookup and line cut.
    queue: Fifo<OfmWrite, 1, 2>,
    /// A write is queued or offered.
    pending: Signal<Local, Bit>,
    region_lookup: RegionSelect,
    address: Signal<Local, Bits<40>>,
    lane: Signal<Local, Bits<4>>,
    /// The write's bytes and strobes placed at their lanes, three lines.
    window: Signal<Local, Bits<384>>,
    strobes: Signal<Local, Bits<48>>,
    count_mask: Signal<Local, Bits<48>>,
    /// The line of the head write taken this cycle.
    line_address: Signal<Local, Bits<40>>,
    line_data: Signal<Local, Bits<128>>,
    line_strobe: Signal<Local, Bits<16>>,
    last_line: Signal<Local, Bit>,
    /// The line's strobes as a bit mask.
    line_mask: Signal<Local, Bits<128>>,
    /// Both buffers can take a line and a burst.
    room: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    merge: Signal<Local, Bit>,
    /// The line taken follows the open one in the same burst.
    continues: Signal<Local, Bit>,
    /// The open line goes into the buffer, and closes its burst.
    close_line: Signal<Local, Bit>,
    close_burst: Signal<Local, Bit>,
    flush: Signal<Local, Bit>,
    /// The line after the open one, and whether it is a `max_beats` boundary.
    next_line: Signal<Local, Bits<40>>,
    boundary: Signal<Local, Bit>,
    /// The line of the head write being taken.
    line: ResetReg<Bits<2>>,
    open_valid: ResetReg<Bit>,
    open_address: ResetReg<Bits<40>>,
    open_data: ResetReg<Bits<128>>,
    open_strobe: ResetReg<Bits<16>>,
    open_counter: ResetReg<Bits<2>>,
    open_cache: ResetReg<Bits<4>>,
    open_max_beats: ResetReg<Bits<2>>,
    /// The open line holds an OFM block's last byte.
    open_block_end: ResetReg<Bit>,
    line_block_end: Signal<Local, Bit>,
    /// The open line's burst: its first address and lines buffered before
    /// the open one.
    burst_address: ResetReg<Bits<40>>,
    burst_lines: ResetReg<Bits<4>>,
    /// Block ends of the lines closed into the open line's burst, and with
    /// the line closing now.
    burst_block_ends: ResetReg<Bits<5>>,
    closing_block_ends: Signal<Local, Bits<5>>,
    /// The block ends of each issued burst, until its response (AXI_LIMIT
    /// allows 32 outstanding).
    answers: Fifo<Bits<5>, 5, 6>,
    buffer: RamFifo<WriteBeat, 5, 6>,
    bursts: Fifo<OfmBurst, 3, 4>,
    issue: Signal<Local, Bit>,
    same_counter: Signal<Local, Bit>,
    held_counter: ResetReg<Bits<2>>,
    aw_cache: ResetReg<Bits<4>>,
    aw_valid: ResetReg<Bit>,
    aw_address: ResetReg<Bits<40>>,
    aw_len: ResetReg<Bits<8>>,
    w_valid: ResetReg<Bit>,
    w_beat: ResetReg<WriteBeat>,
    outstanding: ResetReg<Bits<7>>,
    waiting_q: ResetReg<Bit>,
}

impl OfmChannel {
    pub fn new() -> Self {
        Self {
            basep: Default::default(),
            axi_limit: Default::default(),
            ..Default::default()
        }
    }
}

impl Logic for OfmChannel {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            line,
            open_valid,
            open_address,
            open_data,
            open_strobe,
            open_counter,
            open_cache,
            open_max_beats,
            open_block_end,
            burst_address,
            burst_lines,
            burst_block_ends,
            held_counter,
            aw_cache,
            aw_valid,
            aw_address,
            aw_len,
            w_valid,
            w_beat,
            outstanding,
            waiting_q
        );
        self.line.rst_n.next = self.rst_n.val();
        self.open_valid.rst_n.next = self.rst_n.val();
        self.open_address.rst_n.next = self.rst_n.val();
        self.open_data.rst_n.next = self.rst_n.val();
        self.open_strobe.rst_n.next = self.rst_n.val();
        self.open_counter.rst_n.next = self.rst_n.val();
        self.open_cache.rst_n.next = self.rst_n.val();
        self.open_max_beats.rst_n.next = self.rst_n.val();
        self.open_block_end.rst_n.next = self.rst_n.val();
        self.burst_block_ends.rst_n.next = self.rst_n.val();
        self.answers.clock.next = self.clock.val();
        self.answers.rst_n.next = self.rst_n.val();
        self.burst_address.rst_n.next = self.rst_n.val();
        self.burst_lines.rst_n.next = self.rst_n.val();
        self.held_counter.rst_n.next = self.rst_n.val();
        self.aw_cache.rst_n.next = self.rst_n.val();
        self.aw_valid.rst_n.next = self.rst_n.val();
        self.aw_address.rst_n.next = self.rst_n.val();
        self.aw_len.rst_n.next = self.rst_n.val();
        self.w_valid.rst_n.next = self.rst_n.val();
        self.w_beat.rst_n.next = self.rst_n.val();
        self.outstanding.rst_n.next = self.rst_n.val();
        self.waiting_q.rst_n.next = self.rst_n.val();
        self.buffer.clock.next = self.clock.val();
        self.buffer.rst_n.next = self.rst_n.val();
        self.bursts.clock.next = self.clock.val();
        self.bursts.rst_n.next = self.rst_n.val();
        self.queue.clock.next = self.clock.val();
        self.queue.rst_n.next = self.rst_n.val();
        StreamIn::<OfmWrite>::link(&mut self.writes, &mut self.queue.tail);
        self.pending.next = self.queue.head.valid.val() | self.writes.valid.val();
        self.region_lookup.region.next = self.queue.head.data.val().region;
        self.region_lookup.regioncfg.next = self.regioncfg.val();
        self.region_lookup.basep.next = self.basep.val();
        self.region_lookup.axi_limit.next = self.axi_limit.val();

        // ---- Lines: the head write's bytes at their byte lanes; line i of
        // the window is the i-th 16-byte line from the write's first address ----
        self.address.next = self.region_lookup.base.val() + self.queue.head.data.val().offset;
        self.lane.next = self.address.val().get_bits::<4>(0);
        self.count_mask.next =
            ((bits::<48>(1) << bit_cast::<48, 6>(self.queue.head.data.val().count)) - 1)
                & bit_cast::<48, 32>(self.queue.head.data.val().mask);
        self.window.next = 0.into();
        self.strobes.next = 0.into();
        for l in 0..16 {
            if self.lane.val() == l {
                self.window.next = bit_cast::<384, 256>(self.queue.head.data.val().data) << (8 * l);
                self.strobes.next = self.count_mask.val() << l;
            }
        }
        self.line_data.next = self.window.val().get_bits::<128>(0);
        self.line_strobe.next = self.strobes.val().get_bits::<16>(0);
        if self.line.q.val() == 1 {
            self.line_data.next = self.window.val().get_bits::<128>(128);
            self.line_strobe.next = self.strobes.val().get_bits::<16>(16);
        }
        if self.line.q.val() == 2 {
            self.line_data.next = self.window.val().get_bits::<128>(256);
            self.line_strobe.next = self.strobes.val().get_bits::<16>(32);
        }
        self.last_line.next = true;
        if (self.line.q.val() == 0) & (self.strobes.val().get_bits::<16>(16) != 0) {
            self.last_line.next = false;
        }
        if (self.line.q.val() == 1) & (self.strobes.val().get_bits::<16>(32) != 0) {
            self.last_line.next = false;
        }
        self.line_address.next =
            ((self.address.val() >> 4) << 4) + (bit_cast::<40, 2>(self.line.q.val()) << 4);
        self.line_mask.next = 0.into();
        for k in 0..16 {
            if (self.line_strobe.val() & (bits::<16>(1) << k)) != 0 {
                self.line_mask.next = self.line_mask.val() | (bits::<128>(0xff) << (8 * k));
            }
        }

        // ---- The open line: merge, continue its burst, or close it ----
        // The line after the open one starts a new burst at a max_beats
        // boundary (64, 128 or 256 bytes; the reserved 3 acts as 64).
        self.next_line.next = self.open_address.q.val() + 16;
        self.boundary.next = self.next_line.val().get_bits::<2>(4) == 0;
        if self.open_max_beats.q.val() == 1 {
            self.boundary.next = self.next_line.val().get_bits::<3>(4) == 0;
        }
        if self.open_max_beats.q.val() == 2 {
            self.boundary.next = self.next_line.val().get_bits::<4>(4) == 0;
        }
        self.room.next = self.buffer.tail.ready.val() & self.bursts.tail.ready.val();
        self.take.next = self.queue.head.valid.val() & self.room.val() & !self.halt.val();
        self.queue.head.ready.next = self.take.val() & self.last_line.val();
        self.line_block_end.next = self.queue.head.data.val().block_end & self.last_line.val();
        self.merge.next = self.open_valid.q.val()
            & !self.open_block_end.q.val()
            & (self.line_address.val() == self.open_address.q.val())
            & (self.region_lookup.counter.val() == self.open_counter.q.val());
        self.continues.next = (self.line_address.val() == self.next_line.val())
            & (self.region_lookup.counter.val() == self.open_counter.q.val())
            & (self.region_lookup.awcache.val() == self.open_cache.q.val())
            & !self.boundary.val();
        self.flush.next = self.open_valid.q.val()
            & !self.pending.val()
            & (self.writes_done.val() | self.open_block_end.q.val())
            & self.room.val();
        self.close_line.next =
            (self.take.val() & self.open_valid.q.val() & !self.merge.val()) | self.flush.val();
        self.close_burst.next = self.close_line.val() & (self.flush.val() | !self.continues.val());

        self.buffer.tail.valid.next = self.close_line.val();
        self.buffer.tail.data.next.data = self.open_data.q.val();
        self.buffer.tail.data.next.strobe = self.open_strobe.q.val();
        self.buffer.tail.data.next.last = self.close_burst.val();
        self.bursts.tail.valid.next = self.close_burst.val();
        self.bursts.tail.data.next.address = self.burst_address.q.val();
        self.bursts.tail.data.next.beats_m1 = self.burst_lines.q.val();
        self.bursts.tail.data.next.counter = self.open_counter.q.val();
        self.bursts.tail.data.next.cache = self.open_cache.q.val();
        self.closing_block_ends.next = self.burst_block_ends.q.val();
        if self.open_block_end.q.val() {
            self.closing_block_ends.next = self.burst_block_ends.q.val() + 1;
        }
        self.bursts.tail.data.next.block_ends = self.closing_block_ends.val();
        if self.close_line.val() {
            self.burst_lines.d.next = self.burst_lines.q.val() + 1;
            self.burst_block_ends.d.next = self.closing_block_ends.val();
        }
        if self.close_burst.val() {
            self.burst_lines.d.next = 0.into();
            self.burst_block_ends.d.next = 0.into();
        }
        if self.flush.val() {
            self.open_valid.d.next = false;
            self.open_block_end.d.next = false;
        }
        if self.take.val() {
            self.line.d.next = self.line.q.val() + 1;
            if self.last_line.val() {
                self.line.d.next = 0.into();
            }
            self.open_block_end.d.next = self.line_block_end.val();
            if self.merge.val() {
                self.open_data.d.next = (self.open_data.q.val() & !self.line_mask.val())
                    | (self.line_data.val() & self.line_mask.val());
                self.open_strobe.d.next = self.open_strobe.q.val() | self.line_strobe.val();
            } else {
                self.open_valid.d.next = true;
                self.open_address.d.next = self.line_address.val();
                self.open_data.d.next = self.line_data.val();
                self.open_strobe.d.next = self.line_strobe.val();
                self.open_counter.d.next = self.region_lookup.counter.val();
                self.open_cache.d.next = self.region_lookup.awcache.val();
                self.open_max_beats.d.next = self.region_lookup.max_beats.val();
                if !self.open_valid.q.val() | self.close_burst.val() {
                    self.burst_address.d.next = self.line_address.val();
                }
            }
        }

        // ---- AW: a buffered burst, on an enabled cycle of its port; every
        // outstanding burst counts on one counter (so is on one port), so a
        // burst to another counter waits until they are answered ----
        self.client.counter.next = self.bursts.head.data.val().counter;
        if self.outstanding.q.val() != 0 {
            self.client.counter.next = self.held_counter.q.val();
        }
        self.client.awcache.next = self.aw_cache.q.val();
        self.same_counter.next = (self.outstanding.q.val() == 0)
            | (self.bursts.head.data.val().counter == self.held_counter.q.val());
        self.issue.next = self.client.aclken.val()
            & self.bursts.head.valid.val()
            & (!self.aw_valid.q.val() | self.client.awready.val())
            & self.same_counter.val()
            & self.client.may_issue.val()
            & self.answers.tail.ready.val()
            & !self.halt.val();
        self.client.limit_stall.next =
            self.bursts.head.valid.val() & !self.client.may_issue.val() & !self.halt.val();
        self.bursts.head.ready.next = self.issue.val();
        self.answers.tail.valid.next = self.issue.val();
        self.answers.tail.data.next = self.bursts.head.data.val().block_ends;
        self.answers.head.ready.next = self.client.b_valid.val();
        self.blocks_written.next = 0.into();
        if self.client.b_valid.val() {
            self.blocks_written.next = self.answers.head.data.val();
        }
        if self.client.aclken.val() & self.client.awready.val() {
            self.aw_valid.d.next = false;
        }
        if self.issue.val() {
            self.aw_valid.d.next = true;
            self.aw_address.d.next = self.bursts.head.data.val().address;
            self.aw_len.d.next = bit_cast::<8, 4>(self.bursts.head.data.val().beats_m1);
            self.aw_cache.d.next = self.bursts.head.data.val().cache;
            self.held_counter.d.next = self.bursts.head.data.val().counter;
        }
        // Registered on enabled cycles: the router's choice of AW client
        // must not change while ACLKEN is low.
        if self.client.aclken.val() {
            self.waiting_q.d.next = self.bursts.head.valid.val()
                & self.same_counter.val()
                & self.client.may_issue.val()
                & !self.halt.val();
        }
        self.client.waiting.next = self.waiting_q.q.val();
        self.client.burst_issued.next = self.issue.val();
        if self.issue.val() & !self.client.b_valid.val() {
            self.outstanding.d.next = self.outstanding.q.val() + 1;
        }
        if !self.issue.val() & self.client.b_valid.val() {
            self.outstanding.d.next = self.outstanding.q.val() - 1;
        }

        // ---- W: the buffered beats in order (the router lets them out
        // only behind their burst's address) ----
        self.buffer.head.ready.next = false;
        if self.client.aclken.val() & self.client.wready.val() {
            self.w_valid.d.next = false;
        }
        if self.client.aclken.val() & (!self.w_valid.q.val() | self.client.wready.val()) {
            self.buffer.head.ready.next = self.buffer.head.valid.val();
            if self.buffer.head.valid.val() {
                self.w_valid.d.next = true;
                self.w_beat.d.next = self.buffer.head.data.val();
            }
        }
        self.client.awvalid.next = self.aw_valid.q.val();
        self.client.awaddr.next = self.aw_address.q.val();
        self.client.awlen.next = self.aw_len.q.val();
        self.client.wvalid.next = self.w_valid.q.val();
        self.client.wdata.next = self.w_beat.q.val().data;
        self.client.wstrb.next = self.w_beat.q.val().strobe;
        self.client.wlast.next = self.w_beat.q.val().last;
        self.busy.next = self.pending.val()
            | self.open_valid.q.val()
            | (self.buffer.count.val() != 0)
            | self.bursts.head.valid.val()
            | self.aw_valid.q.val()
            | self.w_valid.q.val()
            | (self.outstanding.q.val() != 0);
    }
}
