//! When the datapath's front end (the block walk, the IFM fetch, the weight
//! and scale starts) moves on to the next kernel operation, ahead of the
//! current one's end (TRM 4.6.1: kernel operations are non-blocking).
//!
//! - `front_next`: once the current operation has offered its last IFM
//!   block job (and has not stopped), the front end takes its settings from
//!   the kernel queue's next operation, until that is taken. Its first
//!   weight stream and scale records are then queued ([`super::Lookahead`]).
//! - `early_start`: the next operation's block walk starts before it is
//!   taken, and its first job may go to the IFM fetch (`jobs_allowed`),
//!   when (TRM 4.9) IFM block read 0 need not wait for any OFM block write
//!   of the current operation: NPU_SET_BLOCKDEP k is at least the current
//!   operation's OFM blocks, as every write but the last max(k - n, 0) must
//!   be complete before read n. Its IFM buffer must be free: every IFM
//!   buffer of the current operation released, or only its last job's
//!   (the walk alternates IB0 and IB1) and the next operation's buffer does
//!   not overlap it (neither reads IFM2, whose buffers would need the same
//!   care). Its later jobs wait until it is taken, when every write of the
//!   current one is answered, so BLOCKDEP is always met.
//! - `fetched_ahead`: the next operation's first job is the head of the
//!   fetched jobs, not to be walked before it is taken; `fetched_current`
//!   counts the current operation's jobs there.

use super::IfmBuffers;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct FrontEnd {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The current operation runs; it was taken in the last cycle; it
    /// stopped on a fault.
    pub active: Signal<In, Bit>,
    pub starting: Signal<In, Bit>,
    pub faulted: Signal<In, Bit>,
    /// The kernel queue offers the next operation; it is taken this cycle.
    pub next_valid: Signal<In, Bit>,
    pub taken: Signal<In, Bit>,
    /// The traversal: jobs remain to be offered; IFM buffers held and the
    /// one the next job takes.
    pub offering: Signal<In, Bit>,
    pub halves_held: Signal<In, Bits<2>>,
    pub next_half: Signal<In, Bit>,
    /// The current operation's IFM buffers and whether it reads IFM2; the
    /// next one's, and its NPU_SET_BLOCKDEP.
    pub current_buffers: Signal<In, IfmBuffers>,
    pub current_reads_ifm2: Signal<In, Bit>,
    pub next_buffers: Signal<In, IfmBuffers>,
    pub next_reads_ifm2: Signal<In, Bit>,
    pub next_blockdep: Signal<In, Bits<2>>,
    /// The next operation's first weight and scale reads are queued.
    pub lookahead_done: Signal<In, Bit>,
    /// A job goes to the IFM fetch this cycle, the first of its OFM block.
    pub job_taken: Signal<In, Bit>,
    pub job_first: Signal<In, Bit>,
    pub fetched_count: Signal<In, Bits<2>>,
    pub front_next: Signal<Out, Bit>,
    pub early_start: Signal<Out, Bit>,
    /// The next operation's block walk started before it was taken (until
    /// the cycle after it is taken).
    pub walk_early: Signal<Out, Bit>,
    pub jobs_allowed: Signal<Out, Bit>,
    pub fetched_ahead: Signal<Out, Bit>,
    pub fetched_current: Signal<Out, Bits<2>>,

    next: ResetReg<Bit>,
    early: ResetReg<Bit>,
    early_job: ResetReg<Bit>,
    /// OFM blocks of the current operation offered so far (up to 7).
    ofm_blocks: ResetReg<Bits<3>>,
    /// The next operation's first job is among the fetched ones.
    ahead_fetched: ResetReg<Bit>,
    held_start: Signal<Local, Bits<16>>,
    held_end: Signal<Local, Bits<16>>,
    next_start: Signal<Local, Bits<16>>,
    next_end: Signal<Local, Bits<16>>,
    ib_room: Signal<Local, Bit>,
    block_counted: Signal<Local, Bit>,
}

impl Logic for FrontEnd {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            next,
            early,
            early_job,
            ofm_blocks,
            ahead_fetched
        );
        self.next.rst_n.next = self.rst_n.val();
        self.early.rst_n.next = self.rst_n.val();
        self.early_job.rst_n.next = self.rst_n.val();
        self.ofm_blocks.rst_n.next = self.rst_n.val();
        self.ahead_fetched.rst_n.next = self.rst_n.val();

        if self.active.val()
            & !self.starting.val()
            & !self.offering.val()
            & !self.faulted.val()
            & self.next_valid.val()
        {
            self.next.d.next = true;
        }
        if self.taken.val() {
            self.next.d.next = false;
        }
        self.front_next.next = self.next.q.val();

        // The IFM buffer the current operation holds, and the next one's
        // first (bytes of the shared buffer, end exclusive).
        self.held_start.next = self.current_buffers.val().start;
        if !self.next_half.val() {
            self.held_start.next =
                self.current_buffers.val().start + self.current_buffers.val().half;
        }
        self.held_end.next = self.held_start.val() + self.current_buffers.val().half;
        self.next_start.next = self.next_buffers.val().start;
        if self.next_half.val() {
            self.next_start.next = self.next_buffers.val().start + self.next_buffers.val().half;
        }
        self.next_end.next = self.next_start.val() + self.next_buffers.val().half;
        self.ib_room.next = (self.halves_held.val() == 0)
            | ((self.halves_held.val() == 1)
                & !self.current_reads_ifm2.val()
                & !self.next_reads_ifm2.val()
                & ((self.held_end.val() <= self.next_start.val())
                    | (self.next_end.val() <= self.held_start.val())));
        self.early_start.next = self.next.q.val()
            & !self.early.q.val()
            & self.lookahead_done.val()
            & !self.offering.val()
            & self.ib_room.val()
            & (bit_cast::<3, 2>(self.next_blockdep.val()) >= self.ofm_blocks.q.val());
        if self.early_start.val() {
            self.early.d.next = true;
            self.early_job.d.next = true;
        }
        if self.starting.val() {
            self.early.d.next = false;
        }
        self.walk_early.next = self.early.q.val();
        self.jobs_allowed.next = !self.next.q.val() | self.early_job.q.val();
        if self.job_taken.val() {
            self.early_job.d.next = false;
        }

        // The next operation's first job waits among the fetched ones
        // behind the current one's last, if that is still there.
        if self.job_taken.val() & self.next.q.val() {
            self.ahead_fetched.d.next = true;
        }
        if self.taken.val() {
            self.ahead_fetched.d.next = false;
        }
        self.fetched_ahead.next = self.ahead_fetched.q.val() & (self.fetched_count.val() == 1);
        self.fetched_current.next = self.fetched_count.val();
        if self.ahead_fetched.q.val() {
            self.fetched_current.next = self.fetched_count.val() - 1;
        }

        // The current operation's OFM blocks, for the next one's BLOCKDEP;
        // on taking the next one, its first if that was fetched ahead.
        self.block_counted.next = self.job_taken.val() & self.job_first.val();
        if self.block_counted.val() & !self.next.q.val() & (self.ofm_blocks.q.val() != 7) {
            self.ofm_blocks.d.next = self.ofm_blocks.q.val() + 1;
        }
        if self.taken.val() {
            self.ofm_blocks.d.next = 0.into();
            if (self.early.q.val() & !self.early_job.q.val()) | self.block_counted.val() {
                self.ofm_blocks.d.next = 1.into();
            }
        }
    }
}
