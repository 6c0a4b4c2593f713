//! The performance monitoring unit (TRM 4.5): a 48-bit cycle counter, four
//! 32-bit event counters, overflow flags and the PMU interrupt.
//!
//! Invariants: PMCR.cnt_en is the main switch; with PMCR.mask_en counting also
//! needs the last NPU_OP_PMU_MASK's enable (`stream_enable`, 0 after reset). A
//! counter write or reset replaces that cycle's count. A wrap sets the
//! counter's PMOVSSET flag; an enabled flag raises `irq`, which only
//! CMD.clear_irq lowers (a raise in the same cycle wins). Events (TRM table
//! 4-79) come from the run state, each AXI port's [`AxiEventsIn`] and the
//! datapath's [`DatapathEvents`] ([`sourced_events`]); core 0's MAC, AO and WD
//! events count both cores' work, and the ECC and second core's events count
//! nothing. PMCAXI_CHAN filters the AXI events by channel ([`PortEvents`]) and
//! picks the traffic whose latency is measured ([`LatencyMonitor`]). Every
//! register address and field comes from `npu_arch::regs`.

mod bandwidth;
mod counter;
mod latency;
mod traffic;

pub use bandwidth::PortEvents;
pub use counter::EventCounter;
pub use latency::LatencyMonitor;
pub use traffic::SelectedTraffic;

use crate::apb::RegisterTarget;
use crate::arch_constants::{address, word};
use crate::datapath::DatapathEvents;
use crate::dma::AxiEventsIn;
use crate::widgets::ResetReg;
use npu_arch::pmu::{self, Event, Unit};
use npu_arch::regs::{self, Page, Register, PMU_EVENT_COUNTERS};
use rust_hdl::prelude::*;

/// Bits of the event vector the counters select from.
pub const EVENT_BITS: usize = 37;

/// The events the RTL counts, in the bit order of the event vector: the
/// NPU's (cycle, npu_idle, npu_running), M0's and M1's in [`PortEvents`]
/// order (TRM table order), the latency events (any, then >= 32 to >=
/// 1024), then the first core's datapath events from [`DatapathEvents`]
/// (MAC, output unit: any, 8-bit, 16-bit; weight decoder).
pub fn sourced_events() -> Vec<&'static Event> {
    [
        Unit::Npu,
        Unit::Axi0,
        Unit::Axi1,
        Unit::AxiLatency,
        Unit::Mac,
        Unit::OutputUnit,
        Unit::WeightDecoder,
    ]
    .into_iter()
    .flat_map(pmu::of_unit)
    .filter(|e| e.core == 0)
    .collect()
}

/// The single field of the set/clear registers for counter `k` (`None`: the cycle counter).
fn pair_field_mask(register: &Register, counter: Option<usize>) -> u32 {
    register
        .fields
        .iter()
        .find(|f| match counter {
            None => f.name.starts_with("CYCLE_CNT"),
            Some(k) => f.name.starts_with(&format!("EVENT_CNT_{k}")),
        })
        .unwrap_or_else(|| panic!("{} has no field for counter {counter:?}", register.name))
        .mask()
}

#[derive(LogicBlock)]
pub struct Pmu {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// APB register access to the PMU page (TRM 4.5), through the register
    /// file; `defined` when the address is a PMU register.
    pub bus: RegisterTarget,
    /// STATUS.state: the NPU is running.
    pub running: Signal<In, Bit>,
    /// The enable bit of the last NPU_OP_PMU_MASK.
    pub stream_enable: Signal<In, Bit>,
    /// CMD written with clear_irq set.
    pub clear_irq: Signal<In, Bit>,
    /// STATUS.pmu_irq_raised.
    pub irq: Signal<Out, Bit>,
    /// AXI activity of M0 and M1, from the DMA.
    pub m0: AxiEventsIn,
    pub m1: AxiEventsIn,
    /// The datapath's activity: MAC unit, output unit, weight decoder.
    pub datapath: Signal<In, DatapathEvents>,

    counters: Vec<EventCounter>,
    port0: PortEvents,
    port1: PortEvents,
    latency: LatencyMonitor,

    // Register addresses and fields (TRM 4.5).
    pmcr_address: Constant<Bits<12>>,
    enable_set_address: Constant<Bits<12>>,
    enable_clear_address: Constant<Bits<12>>,
    overflow_set_address: Constant<Bits<12>>,
    overflow_clear_address: Constant<Bits<12>>,
    interrupt_set_address: Constant<Bits<12>>,
    interrupt_clear_address: Constant<Bits<12>>,
    cycles_low_address: Constant<Bits<12>>,
    cycles_high_address: Constant<Bits<12>>,
    axi_channel_address: Constant<Bits<12>>,
    cnt_en: Constant<Bits<32>>,
    mask_en: Constant<Bits<32>>,
    event_cnt_rst: Constant<Bits<32>>,
    cycle_cnt_rst: Constant<Bits<32>>,
    pmcr_stored: Constant<Bits<32>>,
    pmcr_fixed: Constant<Bits<32>>,
    /// The bits of the set/clear pairs: the cycle counter's, and counter k's.
    pair_bits: Constant<Bits<32>>,
    cycle_bit: Constant<Bits<32>>,
    counter_bit: Vec<Constant<Bits<32>>>,
    axi_channel_stored: Constant<Bits<32>>,
    bw_ch_sel_en: Constant<Bits<32>>,
    ch_sel_at: Constant<Bits<5>>,
    axi_cnt_sel_at: Constant<Bits<5>>,

    counting: Signal<Local, Bit>,
    pmcr_write: Signal<Local, Bit>,
    event_reset: Signal<Local, Bit>,
    cycle_reset: Signal<Local, Bit>,
    overflow_set: Signal<Local, Bits<32>>,
    overflow_clear: Signal<Local, Bits<32>>,
    cycles_next: Signal<Local, Bits<48>>,
    cycle_wrap: Signal<Local, Bit>,
    wraps: Signal<Local, Bits<32>>,
    raise: Signal<Local, Bit>,
    axi_channel_write: Signal<Local, Bit>,
    ch_sel: Signal<Local, Bits<4>>,
    bw_filter: Signal<Local, Bit>,
    npu_events: Signal<Local, Bits<3>>,
    datapath_events: Signal<Local, Bits<7>>,
    events: Signal<Local, Bits<EVENT_BITS>>,

    /// PMCR's stored fields (cnt_en, mask_en).
    pmcr: ResetReg<Bits<32>>,
    /// PMCNTENSET/CLR, PMOVSSET/CLR, PMINTSET/CLR state, in their layout.
    enables: ResetReg<Bits<32>>,
    overflows: ResetReg<Bits<32>>,
    interrupts: ResetReg<Bits<32>>,
    cycles: ResetReg<Bits<48>>,
    axi_channel: ResetReg<Bits<32>>,
    irq_raised: ResetReg<Bit>,
}

impl Default for Pmu {
    fn default() -> Self {
        let sourced = sourced_events();
        assert_eq!(sourced.len(), EVENT_BITS, "event vector width");
        let datapath_names: Vec<&str> = sourced[EVENT_BITS - 7..].iter().map(|e| e.name).collect();
        assert_eq!(
            datapath_names,
            [
                "mac_active",
                "mac_active_8bit",
                "mac_active_16bit",
                "ao_active",
                "ao_active_8bit",
                "ao_active_16bit",
                "wd_active"
            ],
            "the datapath events' bit order in `update`"
        );
        let handled = [
            &regs::PMCR,
            &regs::PMCNTENSET,
            &regs::PMCNTENCLR,
            &regs::PMOVSSET,
            &regs::PMOVSCLR,
            &regs::PMINTSET,
            &regs::PMINTCLR,
            &regs::PMCCNTR_LO,
            &regs::PMCCNTR_HI,
            &regs::PMCAXI_CHAN,
        ];
        for r in regs::REGISTERS.iter().filter(|r| r.page == Page::Pmu) {
            assert!(
                handled.contains(&r)
                    || regs::PMU_EVCNTR.contains(r)
                    || regs::PMU_EVTYPER.contains(r),
                "the PMU does not implement {}",
                r.name
            );
        }
        // The three pairs share one layout: bit 31 the cycle counter, bits k the event counters.
        for pair in [&regs::PMCNTENSET, &regs::PMOVSSET, &regs::PMINTSET] {
            assert_eq!(pair.stored_mask(), regs::PMCNTENSET.stored_mask());
            assert_eq!(
                pair_field_mask(pair, None),
                pair_field_mask(&regs::PMCNTENSET, None)
            );
            for k in 0..PMU_EVENT_COUNTERS {
                assert_eq!(
                    pair_field_mask(pair, Some(k)),
                    pair_field_mask(&regs::PMCNTENSET, Some(k))
                );
            }
        }
        let field = |r: &Register, name: &str| word(r.field(name).mask());
        let chan = &regs::PMCAXI_CHAN;
        assert_eq!(chan.field("CH_SEL").width, 4);
        assert_eq!(chan.field("AXI_CNT_SEL").width, 2);
        assert_eq!(regs::PMCCNTR_LO.stored_mask(), u32::MAX);
        assert_eq!(regs::PMCCNTR_HI.stored_mask(), 0xFFFF);
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            bus: Default::default(),
            running: Default::default(),
            stream_enable: Default::default(),
            clear_irq: Default::default(),
            irq: Default::default(),
            m0: Default::default(),
            m1: Default::default(),
            datapath: Default::default(),
            counters: (0..PMU_EVENT_COUNTERS)
                .map(|k| EventCounter::new(&regs::PMU_EVCNTR[k], &regs::PMU_EVTYPER[k]))
                .collect(),
            port0: Default::default(),
            port1: Default::default(),
            latency: Default::default(),
            pmcr_address: address(&regs::PMCR),
            enable_set_address: address(&regs::PMCNTENSET),
            enable_clear_address: address(&regs::PMCNTENCLR),
            overflow_set_address: address(&regs::PMOVSSET),
            overflow_clear_address: address(&regs::PMOVSCLR),
            interrupt_set_address: address(&regs::PMINTSET),
            interrupt_clear_address: address(&regs::PMINTCLR),
            cycles_low_address: address(&regs::PMCCNTR_LO),
            cycles_high_address: address(&regs::PMCCNTR_HI),
            axi_channel_address: address(chan),
            cnt_en: field(&regs::PMCR, "cnt_en"),
            mask_en: field(&regs::PMCR, "mask_en"),
            event_cnt_rst: field(&regs::PMCR, "event_cnt_rst"),
            cycle_cnt_rst: field(&regs::PMCR, "cycle_cnt_rst"),
            pmcr_stored: word(regs::PMCR.stored_mask()),
            pmcr_fixed: word(regs::PMCR.fixed_bits(0)),
            pair_bits: word(regs::PMCNTENSET.stored_mask()),
            cycle_bit: word(pair_field_mask(&regs::PMCNTENSET, None)),
            counter_bit: (0..PMU_EVENT_COUNTERS)
                .map(|k| word(pair_field_mask(&regs::PMCNTENSET, Some(k))))
                .collect(),
            axi_channel_stored: word(chan.stored_mask()),
            bw_ch_sel_en: field(chan, "BW_CH_SEL_EN"),
            ch_sel_at: Constant::new(u64::from(chan.field("CH_SEL").lsb).into()),
            axi_cnt_sel_at: Constant::new(u64::from(chan.field("AXI_CNT_SEL").lsb).into()),
            counting: Default::default(),
            pmcr_write: Default::default(),
            event_reset: Default::default(),
            cycle_reset: Default::default(),
            overflow_set: Default::default(),
            overflow_clear: Default::default(),
            cycles_next: Default::default(),
            cycle_wrap: Default::default(),
            wraps: Default::default(),
            raise: Default::default(),
            axi_channel_write: Default::default(),
            ch_sel: Default::default(),
            bw_filter: Default::default(),
            npu_events: Default::default(),
            datapath_events: Default::default(),
            events: Default::default(),
            pmcr: Default::default(),
            enables: Default::default(),
            overflows: Default::default(),
            interrupts: Default::default(),
            cycles: Default::default(),
            axi_channel: Default::default(),
            irq_raised: Default::default(),
        }
    }
}

impl Logic for Pmu {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            pmcr,
            enables,
            overflows,
            interrupts,
            cycles,
            axi_channel,
            irq_raised
        );
        self.pmcr.rst_n.next = self.rst_n.val();
        self.enables.rst_n.next = self.rst_n.val();
        self.overflows.rst_n.next = self.rst_n.val();
        self.interrupts.rst_n.next = self.rst_n.val();
        self.cycles.rst_n.next = self.rst_n.val();
        self.axi_channel.rst_n.next = self.rst_n.val();
        self.irq_raised.rst_n.next = self.rst_n.val();
        self.latency.clock.next = self.clock.val();
        self.latency.rst_n.next = self.rst_n.val();

        // ---- PMCR and NPU_OP_PMU_MASK (TRM 4.5.1) ----
        self.counting.next = ((self.pmcr.q.val() & self.cnt_en.val()) != 0)
            & (((self.pmcr.q.val() & self.mask_en.val()) == 0) | self.stream_enable.val());
        self.pmcr_write.next =
            self.bus.write.val() & (self.bus.addr.val() == self.pmcr_address.val());
        if self.pmcr_write.val() {
            self.pmcr.d.next = self.bus.wdata.val() & self.pmcr_stored.val();
        }
        self.event_reset.next =
            self.pmcr_write.val() & ((self.bus.wdata.val() & self.event_cnt_rst.val()) != 0);
        self.cycle_reset.next =
            self.pmcr_write.val() & ((self.bus.wdata.val() & self.cycle_cnt_rst.val()) != 0);

        // ---- PMCAXI_CHAN (TRM 4.5.12) ----
        self.axi_channel_write.next =
            self.bus.write.val() & (self.bus.addr.val() == self.axi_channel_address.val());
        if self.axi_channel_write.val() {
            self.axi_channel.d.next = self.bus.wdata.val() & self.axi_channel_stored.val();
        }
        self.bw_filter.next = (self.axi_channel.q.val() & self.bw_ch_sel_en.val()) != 0;
        self.ch_sel.next = bit_cast::<4, 32>(self.axi_channel.q.val() >> self.ch_sel_at.val());

        // ---- Events (TRM table 4-79), bit order `sourced_events` ----
        AxiEventsIn::link(&mut self.m0, &mut self.port0.events);
        AxiEventsIn::link(&mut self.m1, &mut self.port1.events);
        AxiEventsIn::link(&mut self.m0, &mut self.latency.m0_events);
        AxiEventsIn::link(&mut self.m1, &mut self.latency.m1_events);
        self.port0.filter.next = self.bw_filter.val();
        self.port0.channel.next = self.ch_sel.val();
        self.port1.filter.next = self.bw_filter.val();
        self.port1.channel.next = self.ch_sel.val();
        self.latency.channel.next = self.ch_sel.val();
        self.latency.counter.next =
            bit_cast::<2, 32>(self.axi_channel.q.val() >> self.axi_cnt_sel_at.val());
        self.latency.restart.next = self.axi_channel_write.val();
        // cycle, npu_idle, npu_running.
        self.npu_events.next = 1.into();
        self.npu_events.next = self
            .npu_events
            .val()
            .replace_bit(1, !self.running.val())
            .replace_bit(2, self.running.val());
        // MAC and AO activity, any and split by IFM precision; WD activity.
        self.datapath_events.next = 0.into();
        self.datapath_events.next = self
            .datapath_events
            .val()
            .replace_bit(0, self.datapath.val().mac_active)
            .replace_bit(
                1,
                self.datapath.val().mac_active & !self.datapath.val().wide,
            )
            .replace_bit(2, self.datapath.val().mac_active & self.datapath.val().wide)
            .replace_bit(3, self.datapath.val().ao_active)
            .replace_bit(4, self.datapath.val().ao_active & !self.datapath.val().wide)
            .replace_bit(5, self.datapath.val().ao_active & self.datapath.val().wide)
            .replace_bit(6, self.datapath.val().wd_active);
        self.events.next = bit_cast::<EVENT_BITS, 3>(self.npu_events.val())
            | (bit_cast::<EVENT_BITS, 10>(self.port0.occurred.val()) << 3)
            | (bit_cast::<EVENT_BITS, 10>(self.port1.occurred.val()) << 13)
            | (bit_cast::<EVENT_BITS, 7>(self.latency.occurred.val()) << 23)
            | (bit_cast::<EVENT_BITS, 7>(self.datapath_events.val()) << 30);

        // ---- Event counters (TRM 4.5.4, 4.5.5) ----
        self.wraps.next = 0.into();
        for k in 0..self.counters.len() {
            self.counters[k].clock.next = self.clock.val();
            self.counters[k].rst_n.next = self.rst_n.val();
            self.counters[k].addr.next = self.bus.addr.val();
            self.counters[k].write.next = self.bus.write.val();
            self.counters[k].wdata.next = self.bus.wdata.val();
            self.counters[k].reset.next = self.event_reset.val();
            self.counters[k].enable.next =
                self.counting.val() & ((self.enables.q.val() & self.counter_bit[k].val()) != 0);
            self.counters[k].events.next = self.events.val();
            if self.counters[k].overflow.val() {
                self.wraps.next = self.wraps.val() | self.counter_bit[k].val();
            }
        }

        // ---- Cycle counter (TRM 4.5.10, 4.5.11) ----
        self.cycles_next.next = self.cycles.q.val() + 1;
        self.cycle_wrap.next = false;
        if self.counting.val() & ((self.enables.q.val() & self.cycle_bit.val()) != 0) {
            self.cycles.d.next = self.cycles_next.val();
            self.cycle_wrap.next = self.cycles_next.val() == 0;
        }
        if self.cycle_reset.val() {
            self.cycles.d.next = 0.into();
            self.cycle_wrap.next = false;
        }
        if self.bus.write.val() & (self.bus.addr.val() == self.cycles_low_address.val()) {
            self.cycles.d.next = (bit_cast::<48, 16>(self.cycles.q.val().get_bits::<16>(32)) << 32)
                | bit_cast::<48, 32>(self.bus.wdata.val());
            self.cycle_wrap.next = false;
        }
        if self.bus.write.val() & (self.bus.addr.val() == self.cycles_high_address.val()) {
            self.cycles.d.next = (bit_cast::<48, 16>(self.bus.wdata.val().get_bits::<16>(0)) << 32)
                | bit_cast::<48, 32>(self.cycles.q.val().get_bits::<32>(0));
            self.cycle_wrap.next = false;
        }
        if self.cycle_wrap.val() {
            self.wraps.next = self.wraps.val() | self.cycle_bit.val();
        }

        // ---- Set/clear pairs (TRM 4.5.2, 4.5.3, 4.5.6-4.5.9) ----
        if self.bus.write.val() & (self.bus.addr.val() == self.enable_set_address.val()) {
            self.enables.d.next =
                self.enables.q.val() | (self.bus.wdata.val() & self.pair_bits.val());
        }
        if self.bus.write.val() & (self.bus.addr.val() == self.enable_clear_address.val()) {
            self.enables.d.next =
                self.enables.q.val() & !(self.bus.wdata.val() & self.pair_bits.val());
        }
        if self.bus.write.val() & (self.bus.addr.val() == self.interrupt_set_address.val()) {
            self.interrupts.d.next =
                self.interrupts.q.val() | (self.bus.wdata.val() & self.pair_bits.val());
        }
        if self.bus.write.val() & (self.bus.addr.val() == self.interrupt_clear_address.val()) {
            self.interrupts.d.next =
                self.interrupts.q.val() & !(self.bus.wdata.val() & self.pair_bits.val());
        }
        self.overflow_set.next = 0.into();
        if self.bus.write.val() & (self.bus.addr.val() == self.overflow_set_address.val()) {
            self.overflow_set.next = self.bus.wdata.val() & self.pair_bits.val();
        }
        self.overflow_clear.next = 0.into();
        if self.bus.write.val() & (self.bus.addr.val() == self.overflow_clear_address.val()) {
            self.overflow_clear.next = self.bus.wdata.val() & self.pair_bits.val();
        }
        // A wrap in the cycle of a clear still sets its flag.
        self.overflows.d.next = ((self.overflows.q.val() | self.overflow_set.val())
            & !self.overflow_clear.val())
            | self.wraps.val();

        // ---- STATUS.pmu_irq_raised ----
        self.raise.next = (((self.wraps.val() | self.overflow_set.val())
            & self.interrupts.d.val())
            != 0)
            | ((self.overflows.d.val() & self.interrupts.d.val() & !self.interrupts.q.val()) != 0);
        if self.clear_irq.val() {
            self.irq_raised.d.next = false;
        }
        if self.raise.val() {
            self.irq_raised.d.next = true;
        }
        self.irq.next = self.irq_raised.q.val();

        // ---- Reads ----
        self.bus.defined.next = false;
        self.bus.rdata.next = 0.into();
        for k in 0..self.counters.len() {
            if self.counters[k].hit.val() {
                self.bus.defined.next = true;
                self.bus.rdata.next = self.counters[k].q.val();
            }
        }
        if self.bus.addr.val() == self.pmcr_address.val() {
            self.bus.defined.next = true;
            self.bus.rdata.next = self.pmcr.q.val() | self.pmcr_fixed.val();
        }
        if (self.bus.addr.val() == self.enable_set_address.val())
            | (self.bus.addr.val() == self.enable_clear_address.val())
        {
            self.bus.defined.next = true;
            self.bus.rdata.next = self.enables.q.val();
        }
        if (self.bus.addr.val() == self.overflow_set_address.val())
            | (self.bus.addr.val() == self.overflow_clear_address.val())
        {
            self.bus.defined.next = true;
            self.bus.rdata.next = self.overflows.q.val();
        }
        if (self.bus.addr.val() == self.interrupt_set_address.val())
            | (self.bus.addr.val() == self.interrupt_clear_address.val())
        {
            self.bus.defined.next = true;
            self.bus.rdata.next = self.interrupts.q.val();
        }
        if self.bus.addr.val() == self.cycles_low_address.val() {
            self.bus.defined.next = true;
            self.bus.rdata.next = bit_cast::<32, 48>(self.cycles.q.val());
        }
        if self.bus.addr.val() == self.cycles_high_address.val() {
            self.bus.defined.next = true;
            self.bus.rdata.next = bit_cast::<32, 16>(self.cycles.q.val().get_bits::<16>(32));
        }
        if self.bus.addr.val() == self.axi_channel_address.val() {
            self.bus.defined.next = true;
            self.bus.rdata.next = self.axi_channel.q.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_vector_follows_the_trm_table() {
        let codes: Vec<u16> = sourced_events().iter().map(|e| e.code).collect();
        let axi0 = [0x80, 0x82, 0x83, 0x84, 0x87, 0x88, 0x89, 0x8C, 0x8E, 0x8F];
        let mut want = vec![pmu::CYCLE.code, pmu::NPU_IDLE.code, pmu::NPU_RUNNING.code];
        want.extend(axi0);
        want.extend(axi0.map(|c| c + 0x100));
        want.extend(0xA0..=0xA6);
        want.extend([0x30, 0x31, 0x32, 0x40, 0x41, 0x42, 0x50]);
        assert_eq!(codes, want, "the bit order PortEvents and Pmu build");
    }
}
