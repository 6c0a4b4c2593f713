//! The stream starts: which weight streams and scale/bias records each core
//! queues, and when (TRM 4.7.5). A taken IFM block job queues what
//! [`JobStreams`] says (a spatial OFM block's weight streams, an OFM block's
//! records at its channels), except what the [`Lookahead`] queued already
//! for it; the lookahead queues the next operation's first ones while the
//! current operation finishes.
//!
//! # Ports
//!
//! - `job`, `job_taken`: the traversal's IFM block job, taken this cycle;
//!   `room`: every core has room for what a job may queue (the job waits
//!   for it).
//! - `front_next`, `shape`, `per_channel`, `taken`: the front end is on the
//!   next operation, that operation's settings, and it is taken (the
//!   lookahead's inputs).
//! - `cores`: each core's stream starts ([`CoreStreamsPort`]).
//! - `lookahead_done`: the next operation's first reads are queued;
//!   `reading_ahead`: a core's last queued stream or records are the next
//!   operation's.

use super::core::CoreStreamsPort;
use crate::datapath::{IfmBlockJob, TraversalShape};

use super::{JobStreams, Lookahead};
use crate::widgets::per_core;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct StreamStarts {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub job: Signal<In, IfmBlockJob>,
    pub job_taken: Signal<In, Bit>,
    pub room: Signal<Out, Bit>,
    pub front_next: Signal<In, Bit>,
    pub shape: Signal<In, TraversalShape>,
    pub per_channel: Signal<In, Bit>,
    pub taken: Signal<In, Bit>,
    pub cores: Vec<CoreStreamsPort>,
    pub lookahead_done: Signal<Out, Bit>,
    pub reading_ahead: Signal<Out, Bit>,

    job_streams: JobStreams,
    lookahead: Lookahead,
    paired_job: Signal<Local, Bit>,
    /// Bit k: the job taken starts core k's weight stream, or its scale
    /// records (unless the lookahead queued them already).
    job_weights: Signal<Local, Bits<2>>,
    job_scales: Signal<Local, Bits<2>>,
    weights_rooms: Signal<Local, Bits<2>>,
    scales_rooms: Signal<Local, Bits<2>>,
    /// The lookahead queues its reads this cycle.
    looking_ahead: Signal<Local, Bit>,
}

impl StreamStarts {
    /// The stream starts of `cores` cores (1 or 2).
    pub fn new(cores: usize) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            job: Default::default(),
            job_taken: Default::default(),
            room: Default::default(),
            front_next: Default::default(),
            shape: Default::default(),
            per_channel: Default::default(),
            taken: Default::default(),
            cores: per_core(cores),
            lookahead_done: Default::default(),
            reading_ahead: Default::default(),
            job_streams: Default::default(),
            lookahead: Default::default(),
            paired_job: Default::default(),
            job_weights: Default::default(),
            job_scales: Default::default(),
            weights_rooms: Default::default(),
            scales_rooms: Default::default(),
            looking_ahead: Default::default(),
        }
    }
}

impl Logic for StreamStarts {
    #[hdl_gen]
    fn update(&mut self) {
        self.lookahead.clock.next = self.clock.val();
        self.lookahead.rst_n.next = self.rst_n.val();

        // The next operation's first weight streams and scale records.
        self.lookahead.front_next.next = self.front_next.val();
        self.lookahead.shape.next = self.shape.val();
        self.lookahead.per_channel.next = self.per_channel.val();
        self.lookahead.taken.next = self.taken.val();
        self.weights_rooms.next = 3.into();
        self.scales_rooms.next = 3.into();
        self.room.next = true;
        for k in 0..self.cores.len() {
            self.weights_rooms.next = self
                .weights_rooms
                .val()
                .replace_bit(k, self.cores[k].weights_room.val());
            self.scales_rooms.next = self
                .scales_rooms
                .val()
                .replace_bit(k, self.cores[k].scales_room.val());
            self.room.next = self.room.val()
                & self.cores[k].weights_room.val()
                & self.cores[k].scales_room.val();
        }
        self.lookahead.weights_room.next = self.weights_rooms.val();
        self.lookahead.scales_room.next = self.scales_rooms.val();
        self.looking_ahead.next =
            (self.lookahead.start_weights.val() | self.lookahead.start_scales.val()) != 0;
        self.lookahead_done.next = self.lookahead.done.val();
        self.reading_ahead.next =
            (self.lookahead.held.val() | self.lookahead.held_scales.val()) != 0;

        // What the job taken queues.
        self.paired_job.next = self.job.val().paired_depth != 0;
        self.job_streams.first.next = self.job.val().first;
        self.job_streams.depth_start.next = self.job.val().ofm_z == 0;
        self.job_streams.paired.next = self.paired_job.val();
        self.job_streams.pool.next = self.shape.val().pool;
        self.job_streams.per_channel.next = self.per_channel.val();
        self.job_weights.next = 0.into();
        self.job_scales.next = 0.into();
        if self.job_taken.val() {
            self.job_weights.next = self.job_streams.weights.val();
            self.job_scales.next = self.job_streams.scales.val();
        }
        for k in 0..self.cores.len() {
            self.cores[k].next_weights.next = self.lookahead.held.val().get_bit(k);
            self.cores[k].next_scales.next = self.lookahead.held_scales.val().get_bit(k);
            self.cores[k].start_weights.next = (self.job_weights.val().get_bit(k)
                & !self.lookahead.weights_ahead.val().get_bit(k))
                | self.lookahead.start_weights.val().get_bit(k);
            self.cores[k].start_scales.next = (self.job_scales.val().get_bit(k)
                & !self.lookahead.scales_ahead.val().get_bit(k))
                | self.lookahead.start_scales.val().get_bit(k);
            self.cores[k].scale_channel.next = self.job.val().ofm_z;
            self.cores[k].scale_depth.next = self.job.val().ofm_depth;
            if self.looking_ahead.val() {
                self.cores[k].scale_channel.next = 0.into();
                self.cores[k].scale_depth.next = self.lookahead.scale_depth.val();
            }
        }
        // Core 1 beside core 0: its own depth.
        for k in 1..self.cores.len() {
            if self.paired_job.val() {
                self.cores[k].scale_depth.next = self.job.val().paired_depth;
            }
            if self.looking_ahead.val() {
                self.cores[k].scale_depth.next = self.lookahead.paired_scale_depth.val();
            }
        }
        self.lookahead.weights_used.next = self.job_weights.val();
        self.lookahead.scales_used.next = self.job_scales.val();
    }
}
