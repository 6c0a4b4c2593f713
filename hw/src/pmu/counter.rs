//! One event counter: PMU_EVTYPERn selects the event, PMU_EVCNTRn counts it
//! (TRM 4.5.4, 4.5.5).

use super::{sourced_events, EVENT_BITS};
use crate::arch_constants::address;
use crate::widgets::ResetReg;
use npu_arch::regs::Register;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct EventCounter {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// APB register access, as the register file sees it.
    pub addr: Signal<In, Bits<12>>,
    pub write: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    /// `addr` is this counter's PMU_EVCNTRn or PMU_EVTYPERn; its read value.
    pub hit: Signal<Out, Bit>,
    pub q: Signal<Out, Bits<32>>,
    /// PMCR.event_cnt_rst written with 1: the count restarts from 0.
    pub reset: Signal<In, Bit>,
    /// PMCR.cnt_en, the PMCNTENSET bit and NPU_OP_PMU_MASK allow counting.
    pub enable: Signal<In, Bit>,
    /// The events of this cycle, bit i for `sourced_events()[i]`.
    pub events: Signal<In, Bits<EVENT_BITS>>,
    /// The count wrapped from 0xFFFFFFFF to 0 this cycle.
    pub overflow: Signal<Out, Bit>,
    count_address: Constant<Bits<12>>,
    type_address: Constant<Bits<12>>,
    type_mask: Constant<Bits<32>>,
    /// EV_TYPE of `events` bit i.
    codes: Vec<Constant<Bits<10>>>,
    selected: Signal<Local, Bit>,
    incremented: Signal<Local, Bits<32>>,
    event_type: ResetReg<Bits<10>>,
    count: ResetReg<Bits<32>>,
}

impl EventCounter {
    pub fn new(count: &Register, event_type: &Register) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            addr: Default::default(),
            write: Default::default(),
            wdata: Default::default(),
            hit: Default::default(),
            q: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            events: Default::default(),
            overflow: Default::default(),
            count_address: address(count),
            type_address: address(event_type),
            type_mask: Constant::new(u64::from(event_type.stored_mask()).into()),
            codes: sourced_events()
                .iter()
                .map(|e| Constant::new(u64::from(e.code).into()))
                .collect(),
            selected: Default::default(),
            incremented: Default::default(),
            event_type: Default::default(),
            count: Default::default(),
        }
    }
}

impl Logic for EventCounter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, event_type, count);
        self.event_type.rst_n.next = self.rst_n.val();
        self.count.rst_n.next = self.rst_n.val();

        // Event types without a source (and no_event) select nothing.
        self.selected.next = false;
        for i in 0..self.codes.len() {
            if self.event_type.q.val() == self.codes[i].val() {
                self.selected.next = self.events.val().get_bit(i);
            }
        }

        // A write or reset replaces the count of the cycle it happens in.
        self.incremented.next = self.count.q.val() + 1;
        self.overflow.next = false;
        if self.enable.val() & self.selected.val() {
            self.count.d.next = self.incremented.val();
            self.overflow.next = self.incremented.val() == 0;
        }
        if self.reset.val() {
            self.count.d.next = 0.into();
            self.overflow.next = false;
        }
        if self.write.val() & (self.addr.val() == self.count_address.val()) {
            self.count.d.next = self.wdata.val();
            self.overflow.next = false;
        }
        if self.write.val() & (self.addr.val() == self.type_address.val()) {
            self.event_type.d.next = bit_cast::<10, 32>(self.wdata.val() & self.type_mask.val());
        }

        self.hit.next = false;
        self.q.next = 0.into();
        if self.addr.val() == self.count_address.val() {
            self.hit.next = true;
            self.q.next = self.count.q.val();
        }
        if self.addr.val() == self.type_address.val() {
            self.hit.next = true;
            self.q.next = bit_cast::<32, 10>(self.event_type.q.val());
        }
    }
}
