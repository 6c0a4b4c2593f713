//! A read channel for a byte stream of the datapath (TRM 3.3.3: the weight
//! and scale/bias channels): each [`StreamRead`] is read in order, through
//! the region's port and limits, and delivered as lane beats; the next
//! stream's bursts are issued while this one's data arrives.
//!
//! A stream reads ahead of its consumer at most the beats its counter's
//! AXI_LIMITn lets be in flight (its outstanding reads of its burst size),
//! though its buffer may hold more: bursts read further ahead could not be
//! in flight, only waiting in the buffer, and on a memory that answers a
//! port's reads in order they would hold up the IFM blocks the MAC array
//! waits for (the conv bench's u65-512 CONV1D depth-first 1x3, 0.83 of TRM
//! table 4-128 with the whole 8 KB read ahead, 0.87 so). With 128-byte or
//! 256-byte bursts the buffer's 8 KB are in flight behind a DRAM.

use super::read_channel::ReadChannel;
use super::reads::ReadClient;
use super::region::{CounterLimits, RegionSelect};
use super::requests::StreamRead;
use crate::stream::{LaneBeat, StreamIn, StreamOut};
use rust_hdl::prelude::*;

/// `N` is log2 of the read buffer's depth in beats (`C` = `N` + 1): what
/// may be in flight, so what hides the memory's latency.
#[derive(LogicBlock, Default)]
pub struct StreamReader<const N: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub regioncfg: Signal<In, Bits<16>>,
    /// BASEP0-15 and AXI_LIMIT0-3, register k in bits 32k..32k + 32 (one
    /// port each, so a block with a reader per core feeds them in one loop).
    pub basep: Signal<In, Bits<512>>,
    pub axi_limit: Signal<In, Bits<128>>,
    /// Request no more bursts (a bus error or a soft reset).
    pub halt: Signal<In, Bit>,
    pub requests: StreamIn<StreamRead>,
    pub reads: ReadClient,
    pub out: StreamOut<LaneBeat>,
    /// A stream is being read or delivered.
    pub busy: Signal<Out, Bit>,
    /// Every burst of the streams taken is issued (their data may still
    /// be on its way).
    pub issued: Signal<Out, Bit>,
    region_lookup: RegionSelect,
    channel: ReadChannel<N, C>,
    /// The AXI_LIMITn of the transfer being read (the channel's counter).
    reading_limits: CounterLimits,
    /// The channel has read as far ahead as its counter can have in flight.
    read_ahead: Signal<Local, Bit>,
}

impl<const N: usize, const C: usize> Logic for StreamReader<N, C> {
    #[hdl_gen]
    fn update(&mut self) {
        self.channel.clock.next = self.clock.val();
        self.channel.rst_n.next = self.rst_n.val();
        self.region_lookup.region.next = self.requests.data.val().region;
        self.region_lookup.regioncfg.next = self.regioncfg.val();
        self.region_lookup.basep.next = self.basep.val();
        self.region_lookup.axi_limit.next = self.axi_limit.val();
        self.channel.shape.base.next =
            self.region_lookup.base.val() + self.requests.data.val().offset;
        self.channel.shape.len.next = self.requests.data.val().length;
        self.channel.shape.rows.next = 1.into();
        self.channel.shape.planes.next = 1.into();
        self.channel.shape.row_skip.next = 0.into();
        self.channel.shape.plane_skip.next = 0.into();
        self.channel.shape.three_d.next = false;
        self.channel.shape.max_beats.next = self.region_lookup.max_beats.val();
        self.channel.counter.next = self.region_lookup.counter.val();
        self.channel.cache.next = self.region_lookup.arcache.val();
        self.reading_limits.counter.next = self.reads.counter.val();
        self.reading_limits.axi_limit.next = self.axi_limit.val();
        self.read_ahead.next = bit_cast::<13, C>(self.channel.reserved_beats.val())
            + (bits::<13>(4) << self.reading_limits.max_beats.val())
            > self.reading_limits.read_beats_in_flight.val();
        self.channel.halt.next = self.halt.val() | self.read_ahead.val();
        self.channel.cancel.next = false;
        // A stream's reads follow the last burst of the one before; an
        // empty one is taken and reads nothing.
        self.requests.ready.next = self.channel.may_start.val() & !self.halt.val();
        self.channel.start.next = self.requests.valid.val()
            & self.requests.ready.val()
            & (self.requests.data.val().length != 0);
        ReadClient::link(&mut self.reads, &mut self.channel.reads);
        StreamOut::<LaneBeat>::link(&mut self.out, &mut self.channel.out);
        self.busy.next = self.channel.busy.val();
        self.issued.next = !self.channel.issuing.val();
    }
}
