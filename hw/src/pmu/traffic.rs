//! The transactions of the traffic the latency monitor measures that start
//! and end on one AXI port in a cycle (TRM 4.5.12): a read starts with its
//! AR handshake and ends with its last R beat, a write starts with its AW
//! handshake and ends with its B handshake. Combinational.

use crate::dma::AxiEventsIn;
use rust_hdl::prelude::*;

/// Transactions of channel `channel` on counter `counter` starting and
/// ending on the port of `events`. Channel codes 8 and up are write traffic.
#[derive(LogicBlock, Default)]
pub struct SelectedTraffic {
    pub events: AxiEventsIn,
    /// PMCAXI_CHAN.CH_SEL and AXI_CNT_SEL.
    pub channel: Signal<In, Bits<4>>,
    pub counter: Signal<In, Bits<2>>,
    pub starts: Signal<Out, Bit>,
    pub ends: Signal<Out, Bit>,
}

impl Logic for SelectedTraffic {
    #[hdl_gen]
    fn update(&mut self) {
        self.starts.next = self.events.reads.val().ar_accepted
            & (self.events.reads.val().ar_channel == self.channel.val())
            & (self.events.reads.val().ar_counter == self.counter.val());
        self.ends.next = self.events.reads.val().r_beat
            & self.events.reads.val().r_last
            & (self.events.reads.val().r_channel == self.channel.val())
            & (self.events.reads.val().r_counter == self.counter.val());
        if self.channel.val().get_bit(3) {
            self.starts.next = self.events.writes.val().aw_accepted
                & (self.events.writes.val().aw_channel == self.channel.val())
                & (self.events.writes.val().aw_counter == self.counter.val());
            self.ends.next = self.events.writes.val().b_response
                & (self.events.writes.val().b_channel == self.channel.val())
                & (self.events.writes.val().b_counter == self.counter.val());
        }
    }
}
