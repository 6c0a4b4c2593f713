//! The block fetch: each IFM block job's copies into the shared buffer through
//! the DMA's IFM channel (TRM 3.3.3), then for an elementwise operation with
//! IFM2 in memory its IFM2 block's (TRM table 4-137), from two [`IfmFetch`]es.
//! Both work out their set-up as soon as a job is offered; only the copies
//! wait, for NPU_SET_BLOCKDEP (`allowed`, TRM 4.9) and IFM2's for the IFM's
//! last, so a read that waits for the operation before goes out a few cycles
//! after the write response that allows it.
//!
//! Ports: `jobs` (held until taken with the last copy); `fills` to the IFM
//! channel; `allowed` (stays high until the job is taken, [`super::FrontEnd`]);
//! the offered operation's `ifm_view`, `ifm_buffers`, `ifm2_view`,
//! `ifm2_buffers`, `operand_settings` and `reads_ifm2`.

use super::ifm_fetch::IfmFetch;
use crate::datapath::{IfmBlockJob, IfmBuffers, OperandSettings};

use crate::dma::ShramFill;
use crate::op_state::IfmView;
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct BlockFetch {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub jobs: StreamIn<IfmBlockJob>,
    pub allowed: Signal<In, Bit>,
    pub fills: StreamOut<ShramFill>,
    pub ifm_view: Signal<In, IfmView>,
    pub ifm_buffers: Signal<In, IfmBuffers>,
    pub ifm2_view: Signal<In, IfmView>,
    pub ifm2_buffers: Signal<In, IfmBuffers>,
    pub operand_settings: Signal<In, OperandSettings>,
    pub reads_ifm2: Signal<In, Bit>,

    ifm_fetch: IfmFetch,
    ifm2_fetch: IfmFetch,
    /// The IFM fetch has put the current job's IFM copies out: IFM2's are next.
    fetching_ifm2: ResetReg<Bit>,
    ifm2_job: Signal<Local, IfmBlockJob>,
    ifm_job_fetched: Signal<Local, Bit>,
}

impl Logic for BlockFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fetching_ifm2);
        self.fetching_ifm2.rst_n.next = self.rst_n.val();
        clock!(self, clock, ifm_fetch, ifm2_fetch);
        self.ifm_fetch.rst_n.next = self.rst_n.val();
        self.ifm2_fetch.rst_n.next = self.rst_n.val();

        self.ifm_fetch.jobs.valid.next = self.jobs.valid.val() & !self.fetching_ifm2.q.val();
        self.ifm2_fetch.jobs.valid.next = self.jobs.valid.val() & self.reads_ifm2.val();
        self.ifm_job_fetched.next =
            self.ifm_fetch.jobs.valid.val() & self.ifm_fetch.jobs.ready.val();
        if self.ifm_job_fetched.val() & self.reads_ifm2.val() {
            self.fetching_ifm2.d.next = true;
        }
        self.jobs.ready.next = (self.ifm_fetch.jobs.ready.val()
            & !self.reads_ifm2.val()
            & !self.fetching_ifm2.q.val())
            | (self.ifm2_fetch.jobs.ready.val() & self.fetching_ifm2.q.val());
        if self.jobs.valid.val() & self.jobs.ready.val() {
            self.fetching_ifm2.d.next = false;
        }
        self.ifm_fetch.jobs.data.next = self.jobs.data.val();
        self.ifm_fetch.view.next = self.ifm_view.val();
        self.ifm_fetch.buffers.next = self.ifm_buffers.val();
        // IFM2's block: the IFM block with its broadcast dimensions 1.
        self.ifm2_job.next = self.jobs.data.val();
        if self.operand_settings.val().broadcast_h {
            self.ifm2_job.next.y0 = 0.into();
            self.ifm2_job.next.height = 1.into();
        }
        if self.operand_settings.val().broadcast_w {
            self.ifm2_job.next.x0 = 0.into();
            self.ifm2_job.next.width = 1.into();
        }
        if self.operand_settings.val().broadcast_c {
            self.ifm2_job.next.channel0 = 0.into();
            self.ifm2_job.next.channels = 1.into();
        }
        self.ifm2_fetch.jobs.data.next = self.ifm2_job.val();
        self.ifm2_fetch.view.next = self.ifm2_view.val();
        self.ifm2_fetch.buffers.next = self.ifm2_buffers.val();

        // The copies, once allowed, IFM2's after the IFM's.
        self.fills.valid.next = self.ifm_fetch.fills.valid.val() & self.allowed.val();
        self.fills.data.next = self.ifm_fetch.fills.data.val();
        if self.reads_ifm2.val() {
            self.fills.data.next.block_end = false;
        }
        self.ifm_fetch.fills.ready.next =
            self.fills.ready.val() & self.allowed.val() & !self.fetching_ifm2.q.val();
        self.ifm2_fetch.fills.ready.next =
            self.fills.ready.val() & self.allowed.val() & self.fetching_ifm2.q.val();
        if self.fetching_ifm2.q.val() {
            self.fills.valid.next = self.ifm2_fetch.fills.valid.val() & self.allowed.val();
            self.fills.data.next = self.ifm2_fetch.fills.data.val();
        }
    }
}
