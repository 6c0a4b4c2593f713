//! When the datapath's front end (the block walk, the IFM fetch, the weight
//! and scale starts) moves on to the next kernel operation, ahead of the
//! current one's end (TRM 4.6.1: kernel operations are non-blocking), and when
//! each IFM block read may start.
//!
//! Invariants: `jobs_allowed` keeps TRM 4.9's rule: IFM block read n waits
//! until the operation before has at most max(k - n, 0) OFM blocks unwritten,
//! k its NPU_SET_BLOCKDEP (for the next operation's first job, any older
//! operation must be written too); an offered job stays allowed until taken,
//! as a stream's valid. One operation drains at a time (`draining`).
//! `early_start` starts the next operation's walk once its first job would be
//! allowed and its IFM buffer is free. The signals in full: `docs/datapath.md`.

use super::IfmBuffers;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct FrontEnd {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The current operation runs; it was taken in the last cycle; it
    /// stopped on a fault; every write of it is out of the datapath and
    /// it ends this cycle.
    pub active: Signal<In, Bit>,
    pub starting: Signal<In, Bit>,
    pub faulted: Signal<In, Bit>,
    pub ending: Signal<In, Bit>,
    /// The kernel queue offers the next operation; it is taken this cycle.
    pub next_valid: Signal<In, Bit>,
    pub taken: Signal<In, Bit>,
    /// The traversal: jobs remain to be offered; IFM buffers held and the
    /// one the next job takes.
    pub offering: Signal<In, Bit>,
    pub halves_held: Signal<In, Bits<2>>,
    pub next_half: Signal<In, Bit>,
    /// The current operation's IFM buffers, whether it reads IFM2 and its
    /// NPU_SET_BLOCKDEP; the next one's.
    pub current_buffers: Signal<In, IfmBuffers>,
    pub current_blockdep: Signal<In, Bits<2>>,
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
    /// A job is offered to the IFM fetch this cycle.
    pub job_offered: Signal<In, Bit>,
    /// OFM blocks whose last write was answered this cycle.
    pub blocks_written: Signal<In, Bits<5>>,
    pub front_next: Signal<Out, Bit>,
    pub early_start: Signal<Out, Bit>,
    /// The next operation's block walk started before it was taken (until
    /// the cycle after it is taken).
    pub walk_early: Signal<Out, Bit>,
    pub jobs_allowed: Signal<Out, Bit>,
    pub fetched_ahead: Signal<Out, Bit>,
    pub fetched_current: Signal<Out, Bits<2>>,
    /// The operation before the current one (or the last one, once it
    /// ended) has OFM blocks unwritten.
    pub draining: Signal<Out, Bit>,

    next: ResetReg<Bit>,
    early: ResetReg<Bit>,
    early_job: ResetReg<Bit>,
    /// OFM blocks unwritten: of the current operation, and of the one
    /// before it.
    current_unwritten: ResetReg<Bits<16>>,
    previous_unwritten: ResetReg<Bits<16>>,
    /// Jobs of the current operation taken (up to 3: n in the rule).
    current_jobs: ResetReg<Bits<2>>,
    written_previous: Signal<Local, Bits<16>>,
    written_current: Signal<Local, Bits<16>>,
    current_left: Signal<Local, Bits<16>>,
    /// max(k - n, 0) for the current operation's next job.
    slack: Signal<Local, Bits<16>>,
    /// The next operation's first job meets the rule.
    first_allowed: Signal<Local, Bit>,
    /// The next operation's first job is among the fetched ones.
    ahead_fetched: ResetReg<Bit>,
    /// A job was offered and not yet taken.
    offered: ResetReg<Bit>,
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
            current_unwritten,
            previous_unwritten,
            current_jobs,
            ahead_fetched,
            offered
        );
        self.offered.rst_n.next = self.rst_n.val();
        self.next.rst_n.next = self.rst_n.val();
        self.early.rst_n.next = self.rst_n.val();
        self.early_job.rst_n.next = self.rst_n.val();
        self.current_unwritten.rst_n.next = self.rst_n.val();
        self.previous_unwritten.rst_n.next = self.rst_n.val();
        self.current_jobs.rst_n.next = self.rst_n.val();
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
        // The next operation's first job: the operation before it is the
        // current one while that runs.
        self.first_allowed.next = (self.previous_unwritten.q.val()
            <= bit_cast::<16, 2>(self.next_blockdep.val()))
            & !self.active.val();
        if self.active.val() {
            self.first_allowed.next = (self.current_unwritten.q.val()
                <= bit_cast::<16, 2>(self.next_blockdep.val()))
                & (self.previous_unwritten.q.val() == 0);
        }
        self.slack.next = 0.into();
        if self.current_blockdep.val() > self.current_jobs.q.val() {
            self.slack.next =
                bit_cast::<16, 2>(self.current_blockdep.val() - self.current_jobs.q.val());
        }
        self.early_start.next = self.next.q.val()
            & !self.early.q.val()
            & self.lookahead_done.val()
            & !self.offering.val()
            & self.ib_room.val()
            & self.first_allowed.val();
        if self.early_start.val() {
            self.early.d.next = true;
            self.early_job.d.next = true;
        }
        if self.starting.val() {
            self.early.d.next = false;
        }
        self.walk_early.next = self.early.q.val();
        self.jobs_allowed.next = (!self.next.q.val()
            & (self.previous_unwritten.q.val() <= self.slack.val()))
            | (self.next.q.val() & self.early_job.q.val() & self.first_allowed.val())
            | self.offered.q.val();
        self.offered.d.next = self.job_offered.val() & !self.job_taken.val();
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

        // OFM blocks unwritten: the written ones are the previous
        // operation's first.
        self.block_counted.next = self.job_taken.val() & self.job_first.val();
        self.written_previous.next = bit_cast::<16, 5>(self.blocks_written.val());
        if self.previous_unwritten.q.val() < bit_cast::<16, 5>(self.blocks_written.val()) {
            self.written_previous.next = self.previous_unwritten.q.val();
        }
        self.written_current.next =
            bit_cast::<16, 5>(self.blocks_written.val()) - self.written_previous.val();
        self.previous_unwritten.d.next =
            self.previous_unwritten.q.val() - self.written_previous.val();
        self.current_left.next = self.current_unwritten.q.val() - self.written_current.val();
        self.current_unwritten.d.next = self.current_left.val();
        if self.block_counted.val() & !self.next.q.val() {
            self.current_unwritten.d.next = self.current_left.val() + 1;
        }
        if self.job_taken.val() & !self.next.q.val() & (self.current_jobs.q.val() != 3) {
            self.current_jobs.d.next = self.current_jobs.q.val() + 1;
        }
        if self.ending.val() {
            self.previous_unwritten.d.next = self.current_left.val();
            self.current_unwritten.d.next = 0.into();
        }
        // On taking the next operation, its first job if that was fetched
        // ahead (or goes to the fetch now).
        if self.taken.val() {
            self.current_unwritten.d.next = 0.into();
            self.current_jobs.d.next = 0.into();
            if (self.early.q.val() & !self.early_job.q.val()) | self.job_taken.val() {
                self.current_jobs.d.next = 1.into();
            }
            if (self.early.q.val() & !self.early_job.q.val()) | self.block_counted.val() {
                self.current_unwritten.d.next = 1.into();
            }
        }
        self.draining.next = self.previous_unwritten.q.val() != 0;
    }
}
