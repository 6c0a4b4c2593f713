//! The AXI events of one port (TRM table 4-79: 0x80-0x8F for M0,
//! 0x180-0x18F for M1), with the bandwidth events filtered by channel
//! (TRM 4.5.12).

use crate::dma::AxiEventsIn;
use rust_hdl::prelude::*;

/// `occurred` bit i is the port's i-th event of TRM table 4-79, in the
/// table's order: rd_trans_accepted, rd_data_beat_received,
/// rd_tran_req_stalled, wr_trans_accepted, wr_data_beat_written,
/// wr_tran_req_stalled, wr_data_beat_stalled, enabled_cycles, rd_stall_limit,
/// wr_stall_limit. With `filter` (PMCAXI_CHAN.BW_CH_SEL_EN) the first seven,
/// the bandwidth events, count only traffic of `channel` (CH_SEL).
#[derive(LogicBlock, Default)]
pub struct PortEvents {
    pub events: AxiEventsIn,
    pub filter: Signal<In, Bit>,
    pub channel: Signal<In, Bits<4>>,
    pub occurred: Signal<Out, Bits<10>>,
    ar_pass: Signal<Local, Bit>,
    r_pass: Signal<Local, Bit>,
    aw_pass: Signal<Local, Bit>,
    w_pass: Signal<Local, Bit>,
}

impl Logic for PortEvents {
    #[hdl_gen]
    fn update(&mut self) {
        self.ar_pass.next =
            !self.filter.val() | (self.events.reads.val().ar_channel == self.channel.val());
        self.r_pass.next =
            !self.filter.val() | (self.events.reads.val().r_channel == self.channel.val());
        self.aw_pass.next =
            !self.filter.val() | (self.events.writes.val().aw_channel == self.channel.val());
        self.w_pass.next =
            !self.filter.val() | (self.events.writes.val().w_channel == self.channel.val());
        self.occurred.next = 0.into();
        self.occurred.next = self
            .occurred
            .val()
            .replace_bit(0, self.events.reads.val().ar_accepted & self.ar_pass.val())
            .replace_bit(1, self.events.reads.val().r_beat & self.r_pass.val())
            .replace_bit(2, self.events.reads.val().ar_stalled & self.ar_pass.val())
            .replace_bit(3, self.events.writes.val().aw_accepted & self.aw_pass.val())
            .replace_bit(4, self.events.writes.val().w_beat & self.w_pass.val())
            .replace_bit(5, self.events.writes.val().aw_stalled & self.aw_pass.val())
            .replace_bit(6, self.events.writes.val().w_stalled & self.w_pass.val())
            .replace_bit(7, self.events.enabled.val())
            .replace_bit(8, self.events.reads.val().limit_stall)
            .replace_bit(9, self.events.writes.val().limit_stall);
    }
}
