//! The IFM channel (TRM 3.3.3): the 3D copies ([`ShramFill`]s) that put the
//! IFM (and IFM2) blocks into the shared buffer of every core.
//!
//! A copy's bursts are issued as soon as the last burst of the copy before
//! it is (the read channel keeps up to 512 beats in flight), and its
//! destination waits in `destinations` until the copies before it are
//! written: the copies of a block, and those of the next block, share one
//! round trip to memory instead of paying one each. Copies complete in
//! order; `filled` pulses once the last copy of a block (`block_end`) is in
//! the shared buffer. A copy with no bytes takes its place in the order
//! and reads nothing.
//!
//! The next block's copies go ahead of this block's filling only once every
//! weight and scale/bias burst asked for is issued (`streams_issued`): the
//! memory answers in order, and on a fast memory the next block's IFM reads
//! otherwise came back before this block's weights, which the MAC array
//! waits for (the conv bench's single operations lost 1-3 points of the
//! TRM's rate). Behind a slow memory the weight bursts are out early, and
//! the next block's fetch hides most of a round trip.

use super::aligner::Aligner;
use super::read_channel::ReadChannel;
use super::reads::ReadClient;
use super::region::RegionSelect;
use super::requests::ShramFill;
use super::walker::TransferWalker;
use crate::shram::LINE_ADDRESS_BITS;
use crate::stream::{LaneBeat, StreamIn, StreamOut};
use crate::widgets::{RamFifo, ResetReg};
use rust_hdl::prelude::*;

/// Where a copy's bytes land, from its [`ShramFill`].
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct CopyDestination {
    pub start: Bits<16>,
    pub len: Bits<16>,
    pub rows: Bits<16>,
    pub planes: Bits<16>,
    pub row_skip: Bits<16>,
    pub plane_skip: Bits<16>,
    pub block_end: Bit,
    /// The copy has bytes (rows, planes and length all non-zero).
    pub has_bytes: Bit,
}

#[derive(LogicBlock, Default)]
pub struct IfmChannel {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub regioncfg: Signal<In, Bits<16>>,
    /// BASEP0-15 and AXI_LIMIT0-3, register k in bits 32k..32k + 32.
    pub basep: Signal<In, Bits<512>>,
    pub axi_limit: Signal<In, Bits<128>>,
    /// Take no copy and request no burst (a bus error or a soft reset).
    pub halt: Signal<In, Bit>,
    /// Every burst of the weight and scale/bias streams asked for so far is
    /// issued: the next block's copies may go ahead of nothing they need.
    pub streams_issued: Signal<In, Bit>,
    pub fills: StreamIn<ShramFill>,
    /// The last copy of an IFM block has reached the shared buffer.
    pub filled: Signal<Out, Bit>,
    pub reads: ReadClient,
    /// The shared buffer takes a write this cycle (its port is shared).
    pub shram_ready: Signal<In, Bit>,
    pub shram_write: Signal<Out, Bit>,
    pub shram_line: Signal<Out, Bits<LINE_ADDRESS_BITS>>,
    pub shram_data: Signal<Out, Bits<128>>,
    pub shram_strobe: Signal<Out, Bits<16>>,
    /// A copy is queued, being read or being written.
    pub busy: Signal<Out, Bit>,
    region_lookup: RegionSelect,
    read: ReadChannel<9, 10>,
    aligner: Aligner,
    destinations: RamFifo<CopyDestination, 4, 5>,
    fill: TransferWalker,
    /// The copy being written ends its block.
    fill_block_end: ResetReg<Bit>,
    block_filled: ResetReg<Bit>,
    /// Blocks whose last copy is taken and not yet in the shared buffer
    /// (at most the 16 destinations queued).
    blocks_pending: ResetReg<Bits<5>>,
    /// A block's last copy is taken this cycle.
    block_taken: Signal<Local, Bit>,
    has_bytes: Signal<Local, Bit>,
    /// A copy's bytes: its rows' length times their count.
    run_len: Signal<Local, Bits<32>>,
    destination: Signal<Local, CopyDestination>,
    /// The aligner's beat goes into the shared buffer.
    beat_out: Signal<Local, Bit>,
    /// The fill walker's copy is written with this beat.
    fill_last: Signal<Local, Bit>,
    take_destination: Signal<Local, Bit>,
}

impl Logic for IfmChannel {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fill_block_end, block_filled, blocks_pending);
        self.fill_block_end.rst_n.next = self.rst_n.val();
        self.blocks_pending.rst_n.next = self.rst_n.val();
        self.block_filled.rst_n.next = self.rst_n.val();
        self.read.clock.next = self.clock.val();
        self.read.rst_n.next = self.rst_n.val();
        self.aligner.clock.next = self.clock.val();
        self.aligner.rst_n.next = self.rst_n.val();
        self.destinations.clock.next = self.clock.val();
        self.destinations.rst_n.next = self.rst_n.val();
        self.fill.clock.next = self.clock.val();
        self.fill.rst_n.next = self.rst_n.val();

        // ---- Source: the copy's rows in its region ----
        self.region_lookup.region.next = self.fills.data.val().region;
        self.region_lookup.regioncfg.next = self.regioncfg.val();
        self.region_lookup.basep.next = self.basep.val();
        self.region_lookup.axi_limit.next = self.axi_limit.val();
        self.read.shape.base.next = self.region_lookup.base.val() + self.fills.data.val().source;
        self.read.shape.len.next = bit_cast::<32, 16>(self.fills.data.val().len);
        self.read.shape.rows.next = self.fills.data.val().rows;
        // Rows that follow each other in memory (an NHWC block of every
        // channel: a shallow IFM's positions of a few bytes) are read as one
        // run in long bursts, not a burst per position; the aligner still
        // spreads them to their destination rows.
        self.run_len.next = self.fills.data.val().len * self.fills.data.val().rows;
        if self.fills.data.val().source_skip == 0 {
            self.read.shape.len.next = self.run_len.val();
            self.read.shape.rows.next = 1.into();
        }
        self.read.shape.planes.next = self.fills.data.val().planes;
        self.read.shape.row_skip.next = self.fills.data.val().source_skip;
        self.read.shape.plane_skip.next = self.fills.data.val().source_plane_skip;
        self.read.shape.three_d.next = true;
        self.read.shape.max_beats.next = self.region_lookup.max_beats.val();
        self.read.counter.next = self.region_lookup.counter.val();
        self.read.cache.next = self.region_lookup.arcache.val();
        self.read.halt.next = self.halt.val();
        self.read.cancel.next = false;
        ReadClient::link(&mut self.reads, &mut self.read.reads);

        self.has_bytes.next = (self.fills.data.val().rows != 0)
            & (self.fills.data.val().planes != 0)
            & (self.fills.data.val().len != 0);
        self.fills.ready.next = self.read.may_start.val()
            & self.destinations.tail.ready.val()
            & ((self.blocks_pending.q.val() == 0) | self.streams_issued.val())
            & !self.halt.val();
        self.block_taken.next =
            self.fills.valid.val() & self.fills.ready.val() & self.fills.data.val().block_end;
        if self.block_taken.val() & !self.block_filled.q.val() {
            self.blocks_pending.d.next = self.blocks_pending.q.val() + 1;
        }
        if !self.block_taken.val() & self.block_filled.q.val() {
            self.blocks_pending.d.next = self.blocks_pending.q.val() - 1;
        }
        self.read.start.next =
            self.fills.valid.val() & self.fills.ready.val() & self.has_bytes.val();
        self.destinations.tail.valid.next = self.fills.valid.val() & self.fills.ready.val();
        self.destinations.tail.data.next.start = self.fills.data.val().destination;
        self.destinations.tail.data.next.len = self.fills.data.val().len;
        self.destinations.tail.data.next.rows = self.fills.data.val().rows;
        self.destinations.tail.data.next.planes = self.fills.data.val().planes;
        self.destinations.tail.data.next.row_skip = self.fills.data.val().destination_skip;
        self.destinations.tail.data.next.plane_skip = self.fills.data.val().destination_plane_skip;
        self.destinations.tail.data.next.block_end = self.fills.data.val().block_end;
        self.destinations.tail.data.next.has_bytes = self.has_bytes.val();

        // ---- Destination: the copies in order, one beat a cycle ----
        StreamOut::<LaneBeat>::join(&mut self.read.out, &mut self.aligner.source);
        self.aligner.wanted.next = self.fill.valid.val();
        self.aligner.first_lane.next = self.fill.beat_first_lane.val();
        self.aligner.last_lane.next = self.fill.beat_last_lane.val();
        self.aligner.out.ready.next = self.shram_ready.val();
        self.beat_out.next = self.aligner.out.valid.val() & self.aligner.out.ready.val();
        self.fill.next_beat.next = self.beat_out.val();
        self.fill.next_burst.next = false;
        self.fill.cancel.next = false;
        self.fill_last.next = self.beat_out.val() & self.fill.beat_last.val();

        // The next copy's walk starts with the last beat of this one; a copy
        // without bytes waits until every copy before it is written, so at
        // most one block completes a cycle.
        self.destination.next = self.destinations.head.data.val();
        self.take_destination.next = self.destinations.head.valid.val()
            & (!self.fill.busy.val() | (self.fill_last.val() & self.destination.val().has_bytes));
        self.destinations.head.ready.next = self.take_destination.val();
        self.fill.start.next = self.take_destination.val() & self.destination.val().has_bytes;
        self.fill.shape.base.next = bit_cast::<40, 16>(self.destination.val().start);
        self.fill.shape.len.next = bit_cast::<32, 16>(self.destination.val().len);
        self.fill.shape.rows.next = self.destination.val().rows;
        self.fill.shape.planes.next = self.destination.val().planes;
        self.fill.shape.row_skip.next = bit_cast::<40, 16>(self.destination.val().row_skip);
        self.fill.shape.plane_skip.next = bit_cast::<40, 16>(self.destination.val().plane_skip);
        self.fill.shape.three_d.next = true;
        self.fill.shape.max_beats.next = 0.into();
        if self.take_destination.val() {
            self.fill_block_end.d.next = self.destination.val().block_end;
        }
        // Registered: the block's last write is in the buffer when it shows.
        self.block_filled.d.next = (self.fill_last.val() & self.fill_block_end.q.val())
            | (self.take_destination.val()
                & !self.destination.val().has_bytes
                & self.destination.val().block_end);
        self.filled.next = self.block_filled.q.val();

        self.shram_write.next = self.beat_out.val();
        self.shram_line.next = self.fill.beat_line.val().get_bits::<LINE_ADDRESS_BITS>(0);
        self.shram_data.next = self.aligner.out.data.val().data;
        self.shram_strobe.next = self.aligner.out.data.val().strobe;

        self.busy.next = self.read.busy.val()
            | (self.destinations.count.val() != 0)
            | self.fill.busy.val()
            | self.block_filled.q.val();
    }
}
