//! Which streams an IFM block job queues, per core (TRM 4.7.5): the job
//! that starts a spatial OFM block (the block's first IFM block, at OFM
//! depth 0) starts each of its cores' weight streams again, unless the
//! operation is a pool (no weight stream); the first job of every OFM block
//! queues its cores' scale/bias records when the operation scales per
//! channel. A job's cores are core 0, and core 1 where the block has
//! channels for it (parallel mode).
//!
//! The datapath's job starts and the [`super::Lookahead`]'s first reads of
//! the next operation both ask this block, so the rule is stated once.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct JobStreams {
    /// The job is its OFM block's first IFM block; the OFM block is at
    /// depth 0; core 1 has channels in it.
    pub first: Signal<In, Bit>,
    pub depth_start: Signal<In, Bit>,
    pub paired: Signal<In, Bit>,
    /// The operation is a pool; it reads scale/bias records per channel.
    pub pool: Signal<In, Bit>,
    pub per_channel: Signal<In, Bit>,
    /// Bit k: the job queues core k's weight stream; its scale records.
    pub weights: Signal<Out, Bits<2>>,
    pub scales: Signal<Out, Bits<2>>,
    cores: Signal<Local, Bits<2>>,
}

impl Logic for JobStreams {
    #[hdl_gen]
    fn update(&mut self) {
        self.cores.next = 1.into();
        if self.paired.val() {
            self.cores.next = 3.into();
        }
        self.weights.next = 0.into();
        if self.first.val() & self.depth_start.val() & !self.pool.val() {
            self.weights.next = self.cores.val();
        }
        self.scales.next = 0.into();
        if self.first.val() & self.per_channel.val() {
            self.scales.next = self.cores.val();
        }
    }
}
