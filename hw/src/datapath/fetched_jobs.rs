//! The IFM block jobs given to the IFM fetch, in order, each released to
//! its walk once its last copy is in the shared buffer: to the traversal's
//! beats, or for elementwise operations to the operand reader.
//!
//! The DMA's IFM channel reports each job's last copy (`filled`) in the
//! order the jobs were given; a count of those not yet walked pairs them
//! with the queue's head. A first job fetched ahead of its operation
//! (`hold`, the front end's) waits until the operation is taken.

use crate::datapath::IfmBlockJob;
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::{Fifo, ResetReg};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct FetchedJobs {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Each job as the IFM fetch takes it (`valid` only when `ready`).
    pub jobs: StreamIn<IfmBlockJob>,
    /// A job's last copy is in the shared buffer.
    pub filled: Signal<In, Bit>,
    pub hold: Signal<In, Bit>,
    pub elementwise: Signal<In, Bit>,
    /// Filled jobs to walk in beats, or (elementwise) to read as operands.
    pub walks: StreamOut<IfmBlockJob>,
    pub reads: StreamOut<IfmBlockJob>,
    /// Jobs given and not yet walked.
    pub count: Signal<Out, Bits<2>>,
    queue: Fifo<IfmBlockJob, 1, 2>,
    /// Jobs whose last copy is in, not yet walked.
    filled_count: ResetReg<Bits<2>>,
    released: Signal<Local, Bit>,
    taken: Signal<Local, Bit>,
}

impl Logic for FetchedJobs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, filled_count);
        self.filled_count.rst_n.next = self.rst_n.val();
        clock!(self, clock, queue);
        self.queue.rst_n.next = self.rst_n.val();
        StreamIn::<IfmBlockJob>::link(&mut self.jobs, &mut self.queue.tail);
        self.count.next = self.queue.count.val();

        self.released.next =
            self.queue.head.valid.val() & (self.filled_count.q.val() != 0) & !self.hold.val();
        self.walks.valid.next = self.released.val() & !self.elementwise.val();
        self.walks.data.next = self.queue.head.data.val();
        self.reads.valid.next = self.released.val() & self.elementwise.val();
        self.reads.data.next = self.queue.head.data.val();
        self.taken.next = (self.walks.valid.val() & self.walks.ready.val())
            | (self.reads.valid.val() & self.reads.ready.val());
        self.queue.head.ready.next = self.taken.val();
        if self.filled.val() & !self.taken.val() {
            self.filled_count.d.next = self.filled_count.q.val() + 1;
        }
        if !self.filled.val() & self.taken.val() {
            self.filled_count.d.next = self.filled_count.q.val() - 1;
        }
    }
}
