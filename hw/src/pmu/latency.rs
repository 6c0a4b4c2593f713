//! AXI latency measurement (TRM table 4-79 events 0xA0-0xA6, 4.5.12).
//!
//! The traffic measured is one channel (PMCAXI_CHAN.CH_SEL) on one
//! outstanding counter (AXI_CNT_SEL, which also names the port). A read's
//! latency runs from its AR handshake to the handshake of its last R beat, a
//! write's from its AW handshake to its B handshake, in CLK cycles.
//!
//! One transaction is timed at a time: when none is being timed, the next
//! one of the selected traffic to start is, and the others that start while
//! it runs are not. When it completes, `axi_latency_any` counts it, and each
//! `axi_latency_N` whose N it reached. A channel uses one AXI ID, so its
//! transactions complete in order: the timed one is the one that completes
//! after those outstanding when it started.
//!
//! A write of PMCAXI_CHAN forgets what was being followed; transactions of
//! the new selection already in flight may then be timed short. Change it
//! while the traffic it selects is idle.

use super::traffic::SelectedTraffic;
use crate::dma::AxiEventsIn;
use crate::widgets::ResetReg;
use npu_arch::pmu::LATENCY_THRESHOLDS;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct LatencyMonitor {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub m0_events: AxiEventsIn,
    pub m1_events: AxiEventsIn,
    /// PMCAXI_CHAN.CH_SEL and AXI_CNT_SEL: the traffic measured.
    pub channel: Signal<In, Bits<4>>,
    pub counter: Signal<In, Bits<2>>,
    /// PMCAXI_CHAN was written.
    pub restart: Signal<In, Bit>,
    /// For one cycle when a timed transaction completes: bit 0
    /// `axi_latency_any`, bit i `axi_latency_N` for the i-th threshold reached.
    pub occurred: Signal<Out, Bits<7>>,
    thresholds: Vec<Constant<Bits<11>>>,
    m0_traffic: SelectedTraffic,
    m1_traffic: SelectedTraffic,
    starts: Signal<Local, Bit>,
    ends: Signal<Local, Bit>,
    done: Signal<Local, Bit>,
    /// Transactions of the selected traffic under way (at most 64 reads).
    outstanding: ResetReg<Bits<7>>,
    timing: ResetReg<Bit>,
    /// Transactions that complete before the timed one.
    ahead: ResetReg<Bits<7>>,
    /// Cycles since the timed one started, held at 1024.
    age: ResetReg<Bits<11>>,
}

impl Default for LatencyMonitor {
    fn default() -> Self {
        assert!(
            LATENCY_THRESHOLDS.iter().all(|&t| t < 2048)
                && LATENCY_THRESHOLDS.last() == Some(&1024),
            "the age register holds 0-1024"
        );
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            m0_events: Default::default(),
            m1_events: Default::default(),
            channel: Default::default(),
            counter: Default::default(),
            restart: Default::default(),
            occurred: Default::default(),
            thresholds: LATENCY_THRESHOLDS
                .iter()
                .map(|&t| Constant::new(u64::from(t).into()))
                .collect(),
            m0_traffic: Default::default(),
            m1_traffic: Default::default(),
            starts: Default::default(),
            ends: Default::default(),
            done: Default::default(),
            outstanding: Default::default(),
            timing: Default::default(),
            ahead: Default::default(),
            age: Default::default(),
        }
    }
}

impl Logic for LatencyMonitor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, outstanding, timing, ahead, age);
        self.outstanding.rst_n.next = self.rst_n.val();
        self.timing.rst_n.next = self.rst_n.val();
        self.ahead.rst_n.next = self.rst_n.val();
        self.age.rst_n.next = self.rst_n.val();

        // Counters 2 and 3 are on M1, so each port's events only match its
        // own counters.
        AxiEventsIn::link(&mut self.m0_events, &mut self.m0_traffic.events);
        AxiEventsIn::link(&mut self.m1_events, &mut self.m1_traffic.events);
        self.m0_traffic.channel.next = self.channel.val();
        self.m0_traffic.counter.next = self.counter.val();
        self.m1_traffic.channel.next = self.channel.val();
        self.m1_traffic.counter.next = self.counter.val();
        self.starts.next = self.m0_traffic.starts.val() | self.m1_traffic.starts.val();
        self.ends.next = self.m0_traffic.ends.val() | self.m1_traffic.ends.val();

        // Held at 0: after a restart, transactions started before it may end.
        if self.starts.val() & !self.ends.val() {
            self.outstanding.d.next = self.outstanding.q.val() + 1;
        }
        if !self.starts.val() & self.ends.val() & (self.outstanding.q.val() != 0) {
            self.outstanding.d.next = self.outstanding.q.val() - 1;
        }

        self.done.next = self.timing.q.val() & self.ends.val() & (self.ahead.q.val() == 0);
        if self.timing.q.val() {
            if !self.age.q.val().get_bit(10) {
                self.age.d.next = self.age.q.val() + 1;
            }
            if self.ends.val() {
                if self.ahead.q.val() == 0 {
                    self.timing.d.next = false;
                } else {
                    self.ahead.d.next = self.ahead.q.val() - 1;
                }
            }
        } else if self.starts.val() {
            self.timing.d.next = true;
            self.age.d.next = 1.into();
            self.ahead.d.next = self.outstanding.q.val();
            if self.ends.val() & (self.outstanding.q.val() != 0) {
                self.ahead.d.next = self.outstanding.q.val() - 1;
            }
        }
        if self.restart.val() {
            self.timing.d.next = false;
            self.outstanding.d.next = 0.into();
        }

        // At the completing edge `age` is the latency in cycles.
        self.occurred.next = 0.into();
        if self.done.val() {
            self.occurred.next = 1.into();
            for i in 0..6 {
                if self.age.q.val() >= self.thresholds[i].val() {
                    self.occurred.next = self.occurred.val().replace_bit(i + 1, true);
                }
            }
        }
    }
}
