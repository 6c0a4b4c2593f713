//! The OFM channel (TRM 3.3.3): writes the output unit's bytes to memory
//! through AXI M0. Each [`OfmWrite`] (up to 32 contiguous bytes) becomes one
//! single-beat burst per 16-byte line it touches, with byte strobes (its
//! count and its byte mask: a line the mask leaves empty at the write's end
//! is not written); an
//! address and its data are offered together, so lines go out at one a
//! cycle while the port accepts them, with as many writes outstanding as
//! the region's AXI_LIMITn allows.

use super::region::RegionSelect;
use super::requests::OfmWrite;
use crate::stream::StreamIn;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct OfmChannel {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// ACLKENM0: AXI outputs change only on enabled cycles.
    pub aclken: Signal<In, Bit>,
    pub regioncfg: Signal<In, Bits<16>>,
    pub basep: Vec<Signal<In, Bits<32>>>,
    pub axi_limit: Vec<Signal<In, Bits<32>>>,
    /// Issue nothing more (a bus error or a soft reset); issued lines complete.
    pub halt: Signal<In, Bit>,
    pub writes: StreamIn<OfmWrite>,
    /// The outstanding counter of the write to issue, and whether it has
    /// room; the counter of the writes issued (their responses count down
    /// on it) and their AWCACHE.
    pub issue_counter: Signal<Out, Bits<2>>,
    pub may_issue: Signal<In, Bit>,
    pub response_counter: Signal<Out, Bits<2>>,
    pub cache: Signal<Out, Bits<4>>,
    pub awvalid: Signal<Out, Bit>,
    pub awaddr: Signal<Out, Bits<40>>,
    pub awready: Signal<In, Bit>,
    pub wvalid: Signal<Out, Bit>,
    pub wdata: Signal<Out, Bits<128>>,
    pub wstrb: Signal<Out, Bits<16>>,
    pub wready: Signal<In, Bit>,
    /// A write response of this channel was accepted.
    pub b_valid: Signal<In, Bit>,
    /// A line could issue but for the address and data registers, still
    /// busy with the last line (the write router keeps M0's AW channel for
    /// it): as of the last cycle with ACLKEN high.
    pub waiting: Signal<Out, Bit>,
    /// A line was issued this cycle (for the outstanding counters).
    pub burst_issued: Signal<Out, Bit>,
    /// A line is ready but `may_issue` holds it back (for the PMU).
    pub limit_stall: Signal<Out, Bit>,
    /// Writes remain to be issued or answered.
    pub busy: Signal<Out, Bit>,
    region_lookup: RegionSelect,
    address: Signal<Local, Bits<40>>,
    lane: Signal<Local, Bits<4>>,
    /// The write's bytes and strobes placed at their lanes, three lines.
    window: Signal<Local, Bits<384>>,
    strobes: Signal<Local, Bits<48>>,
    count_mask: Signal<Local, Bits<48>>,
    line_data: Signal<Local, Bits<128>>,
    line_strobe: Signal<Local, Bits<16>>,
    last_line: Signal<Local, Bit>,
    aw_free: Signal<Local, Bit>,
    w_free: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    same_counter: Signal<Local, Bit>,
    held_counter: ResetReg<Bits<2>>,
    aw_cache: ResetReg<Bits<4>>,
    /// The line of the write at `writes`' head being issued.
    line: ResetReg<Bits<2>>,
    aw_valid: ResetReg<Bit>,
    aw_address: ResetReg<Bits<40>>,
    w_valid: ResetReg<Bit>,
    w_data: ResetReg<Bits<128>>,
    w_strobe: ResetReg<Bits<16>>,
    outstanding: ResetReg<Bits<7>>,
    waiting_q: ResetReg<Bit>,
}

impl OfmChannel {
    pub fn new() -> Self {
        Self {
            basep: (0..16).map(|_| Default::default()).collect(),
            axi_limit: (0..4).map(|_| Default::default()).collect(),
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
            aw_valid,
            aw_address,
            w_valid,
            w_data,
            w_strobe,
            outstanding,
            held_counter,
            aw_cache,
            waiting_q
        );
        self.waiting_q.rst_n.next = self.rst_n.val();
        self.held_counter.rst_n.next = self.rst_n.val();
        self.aw_cache.rst_n.next = self.rst_n.val();
        self.line.rst_n.next = self.rst_n.val();
        self.aw_valid.rst_n.next = self.rst_n.val();
        self.aw_address.rst_n.next = self.rst_n.val();
        self.w_valid.rst_n.next = self.rst_n.val();
        self.w_data.rst_n.next = self.rst_n.val();
        self.w_strobe.rst_n.next = self.rst_n.val();
        self.outstanding.rst_n.next = self.rst_n.val();
        self.region_lookup.region.next = self.writes.data.val().region;
        self.region_lookup.regioncfg.next = self.regioncfg.val();
        for k in 0..16 {
            self.region_lookup.basep[k].next = self.basep[k].val();
        }
        for c in 0..4 {
            self.region_lookup.axi_limit[c].next = self.axi_limit[c].val();
        }
        // Every outstanding write counts on one counter: a write to another
        // counter waits until they are answered.
        self.issue_counter.next = self.region_lookup.counter.val();
        self.response_counter.next = self.held_counter.q.val();
        self.cache.next = self.aw_cache.q.val();
        self.same_counter.next = (self.outstanding.q.val() == 0)
            | (self.region_lookup.counter.val() == self.held_counter.q.val());

        // The write's bytes at their byte lanes: line i of the window is
        // the i-th 16-byte line from the write's first address.
        self.address.next = self.region_lookup.base.val() + self.writes.data.val().offset;
        self.lane.next = self.address.val().get_bits::<4>(0);
        self.count_mask.next = ((bits::<48>(1) << bit_cast::<48, 6>(self.writes.data.val().count))
            - 1)
            & bit_cast::<48, 32>(self.writes.data.val().mask);
        self.window.next = 0.into();
        self.strobes.next = 0.into();
        for l in 0..16 {
            if self.lane.val() == l {
                self.window.next = bit_cast::<384, 256>(self.writes.data.val().data) << (8 * l);
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

        // The address and data registers: loaded together on an enabled
        // cycle when both are free or leaving.
        self.aw_free.next = !self.aw_valid.q.val() | self.awready.val();
        self.w_free.next = !self.w_valid.q.val() | self.wready.val();
        self.issue.next = self.aclken.val()
            & self.writes.valid.val()
            & self.aw_free.val()
            & self.w_free.val()
            & self.same_counter.val()
            & self.may_issue.val()
            & !self.halt.val();
        self.limit_stall.next = self.writes.valid.val() & !self.may_issue.val() & !self.halt.val();
        if self.aclken.val() & self.awready.val() {
            self.aw_valid.d.next = false;
        }
        if self.aclken.val() & self.wready.val() {
            self.w_valid.d.next = false;
        }
        self.writes.ready.next = self.issue.val() & self.last_line.val();
        if self.issue.val() {
            self.aw_valid.d.next = true;
            self.aw_cache.d.next = self.region_lookup.awcache.val();
            self.held_counter.d.next = self.region_lookup.counter.val();
            self.aw_address.d.next =
                ((self.address.val() >> 4) << 4) + (bit_cast::<40, 2>(self.line.q.val()) << 4);
            self.w_valid.d.next = true;
            self.w_data.d.next = self.line_data.val();
            self.w_strobe.d.next = self.line_strobe.val();
            self.line.d.next = self.line.q.val() + 1;
            if self.last_line.val() {
                self.line.d.next = 0.into();
            }
        }
        // Registered on enabled cycles: the router's choice of AW client
        // must not change while ACLKEN is low.
        if self.aclken.val() {
            self.waiting_q.d.next = self.writes.valid.val()
                & self.same_counter.val()
                & self.may_issue.val()
                & !self.halt.val();
        }
        self.waiting.next = self.waiting_q.q.val();
        self.burst_issued.next = self.issue.val();
        if self.issue.val() & !self.b_valid.val() {
            self.outstanding.d.next = self.outstanding.q.val() + 1;
        }
        if !self.issue.val() & self.b_valid.val() {
            self.outstanding.d.next = self.outstanding.q.val() - 1;
        }
        self.awvalid.next = self.aw_valid.q.val();
        self.awaddr.next = self.aw_address.q.val();
        self.wvalid.next = self.w_valid.q.val();
        self.wdata.next = self.w_data.q.val();
        self.wstrb.next = self.w_strobe.q.val();
        self.busy.next = self.writes.valid.val()
            | self.aw_valid.q.val()
            | self.w_valid.q.val()
            | (self.outstanding.q.val() != 0);
    }
}
