//! One core of the MAC datapath (TRM 3.3.6, 4.7.5.1; u65-512 has two): its
//! weight streams (read by the DMA, decoded, regrouped into MAC weight
//! groups), its MAC unit with its accumulators, and its scale/bias records
//! gathered into per-slice sets. Core 0 reads NPU_SET_WEIGHT_* and
//! NPU_SET_SCALE_*, core 1 NPU_SET_WEIGHT1_* and NPU_SET_SCALE1_*.
//!
//! # Ports
//!
//! - `streams` ([`CoreStreams`]): `start_weights`, a traversal job that
//!   starts this core's weight stream (a spatial OFM block's first) is
//!   taken. The stream is read ahead; the decoder starts it once the
//!   previous one's last group is used and nothing of it is left, so a
//!   stream's surplus never reaches the next block's beats.
//!   `start_scales`: an OFM block reads its channels' 10-byte records,
//!   gathered per 8-channel slice.
//! - `beats` ([`CoreBeats`]): its MAC beats, and the weight groups they
//!   multiply with.
//! - `fault`: the stream is malformed (the decoder rejects it, it does not
//!   hold whole MAC groups, or it has fewer or more groups than the beats
//!   use: the golden model's count check); the datapath stops the operation.
//! - `clear`, `clearing`: the MAC unit's ([`MacUnit`]).
//! - `words` ([`CoreOutput`]): its accumulator words read out, each
//!   position's output-unit beat with its slice's scale set.

use crate::dma::StreamRead;
use crate::mac_unit::{AccRead, MacUnit, OperandBeat};
use crate::op_state::WeightsView;
use crate::output_unit::{AccumulatorBeat, ScaleRecordBeat, ScaleRecords, ScaleSets};
use crate::stream::{LaneBeat, StreamIn, StreamOut};
use crate::weight_decoder::{WeightDecoder, WeightGroup, WeightGroups};
use crate::widgets::{Fifo, ResetReg};
use rust_hdl::prelude::*;

/// Where the current weight stream is.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum WeightStream {
    /// Not started (none queued, or waiting for the decoder).
    Idle,
    /// Being decoded; its groups are used by the beats.
    Decoding,
    /// Its last group is used: whatever the decoder still gives is surplus.
    Draining,
}

/// A core's side of its stream starts (the stream starts' is
/// [`CoreStreamsPort`]): `start_weights` (a pulse, with `weights_room`)
/// queues a weight stream; `start_scales` (with `scales_room`) the scale/bias
/// records of an OFM block's channels `scale_channel..+scale_depth` (local
/// to the core). `next_weights`, `next_scales`: the last weight stream
/// queued, and the last scale records, are the next operation's (read
/// ahead, `Lookahead`): the decoder does not start that stream yet, and
/// `idle` leaves them out.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "CoreStreamsPort"]
pub struct CoreStreams {
    pub start_weights: Signal<In, Bit>,
    pub weights_room: Signal<Out, Bit>,
    pub start_scales: Signal<In, Bit>,
    pub scale_channel: Signal<In, Bits<16>>,
    pub scale_depth: Signal<In, Bits<16>>,
    pub scales_room: Signal<Out, Bit>,
    pub next_weights: Signal<In, Bit>,
    pub next_scales: Signal<In, Bit>,
}

/// The stream starts' side of a core's ([`CoreStreams`]).
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "CoreStreams"]
pub struct CoreStreamsPort {
    pub start_weights: Signal<Out, Bit>,
    pub weights_room: Signal<In, Bit>,
    pub start_scales: Signal<Out, Bit>,
    pub scale_channel: Signal<Out, Bits<16>>,
    pub scale_depth: Signal<Out, Bits<16>>,
    pub scales_room: Signal<In, Bit>,
    pub next_weights: Signal<Out, Bit>,
    pub next_scales: Signal<Out, Bit>,
}

/// A core's side of the MAC beats (the beat join's is [`CoreBeatsPort`]):
/// `operands` a MAC beat, which multiplies the core's weight group when
/// `multiply_group` (else the weights it carries: a pool's unit weights, a
/// skip beat's zeros); depthwise in parallel mode (`interleaved`) core 1
/// multiplies the odd elements of the IFM unit's lines (`odd_acts`), core 0
/// the even ones (the beat's `acts`). `group_ready`: the weight group the
/// next beat multiplies with is there; `group_taken` (the beat ending the
/// group is taken) moves on; `stream_used` (with it) says the group was the
/// stream's last; `group_wanted`: a beat of this core is waiting.
/// `slice_done`: the MAC unit finished a slice.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "CoreBeatsPort"]
pub struct CoreBeats {
    pub operands: StreamIn<OperandBeat>,
    pub multiply_group: Signal<In, Bit>,
    pub interleaved: Signal<In, Bit>,
    pub odd_acts: Signal<In, Bits<288>>,
    pub group_ready: Signal<Out, Bit>,
    pub group_taken: Signal<In, Bit>,
    pub stream_used: Signal<In, Bit>,
    pub group_wanted: Signal<In, Bit>,
    pub slice_done: Signal<Out, Bit>,
}

/// The beat join's side of a core's MAC beats ([`CoreBeats`]).
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "CoreBeats"]
pub struct CoreBeatsPort {
    pub operands: StreamOut<OperandBeat>,
    pub multiply_group: Signal<Out, Bit>,
    pub interleaved: Signal<Out, Bit>,
    pub odd_acts: Signal<Out, Bits<288>>,
    pub group_ready: Signal<In, Bit>,
    pub group_taken: Signal<Out, Bit>,
    pub stream_used: Signal<Out, Bit>,
    pub group_wanted: Signal<Out, Bit>,
    pub slice_done: Signal<In, Bit>,
}

/// A core's side of the readout (the output stage's is
/// [`CoreOutputPort`]): `readout` reads an accumulator word of the MAC unit;
/// the word read out is offered (`results_valid`; `results_taken` moves
/// on), and with it the scale set of its slice (`sets_valid`; `sets_taken`
/// moves on); `beat` is the output unit's beat of position `position` of
/// the word, its first `channels` lanes with the set's records and the
/// core's LUT, `count` the position's window count.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "CoreOutputPort"]
pub struct CoreOutput {
    pub readout: StreamIn<AccRead>,
    pub results_valid: Signal<Out, Bit>,
    pub results_taken: Signal<In, Bit>,
    pub sets_valid: Signal<Out, Bit>,
    pub sets_taken: Signal<In, Bit>,
    pub position: Signal<In, Bits<2>>,
    pub channels: Signal<In, Bits<4>>,
    pub count: Signal<In, Bits<7>>,
    pub beat: Signal<Out, AccumulatorBeat>,
}

/// The output stage's side of a core's readout ([`CoreOutput`]).
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "CoreOutput"]
pub struct CoreOutputPort {
    pub readout: StreamOut<AccRead>,
    pub results_valid: Signal<In, Bit>,
    pub results_taken: Signal<Out, Bit>,
    pub sets_valid: Signal<In, Bit>,
    pub sets_taken: Signal<Out, Bit>,
    pub position: Signal<Out, Bits<2>>,
    pub channels: Signal<Out, Bits<4>>,
    pub count: Signal<Out, Bits<7>>,
    pub beat: Signal<In, AccumulatorBeat>,
}

#[derive(LogicBlock)]
pub struct Core {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub view: Signal<In, WeightsView>,
    pub depthwise: Signal<In, Bit>,
    /// The operation stopped: start no further stream.
    pub halt: Signal<In, Bit>,
    pub weight_reads: StreamOut<StreamRead>,
    pub weight_beats: StreamIn<LaneBeat>,
    pub fault: Signal<Out, Bit>,
    pub scale_reads: StreamOut<StreamRead>,
    pub scale_beats: StreamIn<LaneBeat>,
    pub clear: Signal<In, Bit>,
    pub clearing: Signal<Out, Bit>,
    /// The streams it queues.
    pub streams: CoreStreams,
    /// Its MAC beats from the beat join.
    pub beats: CoreBeats,
    /// Its accumulator words to the output stage.
    pub words: CoreOutput,
    /// Nothing of a weight or scale stream is left in the core.
    pub idle: Signal<Out, Bit>,
    /// The decoder takes a stream word or delivers a weight group (the
    /// PMU's WD_ACTIVE).
    pub decoding: Signal<Out, Bit>,

    /// Core 1: its streams are WEIGHT1 and SCALE1.
    second: Constant<Bit>,
    weight_streams: Fifo<StreamRead, 1, 2>,
    /// Lengths of the streams the DMA reads, for the decoder's starts.
    weight_lengths: Fifo<Bits<32>, 1, 2>,
    weight_decoder: WeightDecoder,
    weight_groups: WeightGroups,
    scale_streams: Fifo<StreamRead, 1, 2>,
    /// The OFM block depth of each scale stream, for its slices' sets.
    scale_depths: Fifo<Bits<16>, 1, 2>,
    scale_records: ScaleRecords,
    scale_sets: ScaleSets,
    mac: MacUnit,
    weight_stream: ResetReg<WeightStream>,
    /// Cycles (up to 3) the decoder has been idle since it last worked.
    decoder_quiet: ResetReg<Bits<2>>,
    scale_base: Signal<Local, Bits<48>>,
    decoder_settled: Signal<Local, Bit>,
    too_few_weights: Signal<Local, Bit>,
    too_many_weights: Signal<Local, Bit>,
    accumulators: Signal<Local, Bits<1280>>,
    lane_mask: Signal<Local, Bits<9>>,
    /// Weight streams queued (read or not), and the current operation's.
    streams_queued: Signal<Local, Bits<3>>,
    current_streams: Signal<Local, Bits<3>>,
    current_scales: Signal<Local, Bits<3>>,
}

impl Core {
    /// Core `index` (0 or 1).
    pub fn new(index: usize) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            view: Default::default(),
            depthwise: Default::default(),
            halt: Default::default(),
            weight_reads: Default::default(),
            weight_beats: Default::default(),
            fault: Default::default(),
            scale_reads: Default::default(),
            scale_beats: Default::default(),
            clear: Default::default(),
            clearing: Default::default(),
            streams: Default::default(),
            beats: Default::default(),
            words: Default::default(),
            idle: Default::default(),
            decoding: Default::default(),
            second: Constant::new(index == 1),
            weight_streams: Default::default(),
            weight_lengths: Default::default(),
            weight_decoder: Default::default(),
            weight_groups: Default::default(),
            scale_streams: Default::default(),
            scale_depths: Default::default(),
            scale_records: Default::default(),
            scale_sets: Default::default(),
            mac: Default::default(),
            weight_stream: Default::default(),
            decoder_quiet: Default::default(),
            scale_base: Default::default(),
            decoder_settled: Default::default(),
            too_few_weights: Default::default(),
            too_many_weights: Default::default(),
            accumulators: Default::default(),
            lane_mask: Default::default(),
            streams_queued: Default::default(),
            current_streams: Default::default(),
            current_scales: Default::default(),
        }
    }
}

impl Logic for Core {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, weight_stream, decoder_quiet);
        self.weight_stream.rst_n.next = self.rst_n.val();
        self.decoder_quiet.rst_n.next = self.rst_n.val();
        self.weight_streams.clock.next = self.clock.val();
        self.weight_streams.rst_n.next = self.rst_n.val();
        self.weight_lengths.clock.next = self.clock.val();
        self.weight_lengths.rst_n.next = self.rst_n.val();
        self.weight_decoder.clock.next = self.clock.val();
        self.weight_decoder.rst_n.next = self.rst_n.val();
        self.weight_groups.clock.next = self.clock.val();
        self.weight_groups.rst_n.next = self.rst_n.val();
        self.scale_streams.clock.next = self.clock.val();
        self.scale_streams.rst_n.next = self.rst_n.val();
        self.scale_depths.clock.next = self.clock.val();
        self.scale_depths.rst_n.next = self.rst_n.val();
        self.scale_records.clock.next = self.clock.val();
        self.scale_records.rst_n.next = self.rst_n.val();
        self.scale_sets.clock.next = self.clock.val();
        self.scale_sets.rst_n.next = self.rst_n.val();
        self.mac.clock.next = self.clock.val();
        self.mac.rst_n.next = self.rst_n.val();

        // ---- Weight streams: one per spatial block, read ahead ----
        self.streams.weights_room.next = self.weight_streams.tail.ready.val();
        self.weight_streams.tail.valid.next = self.streams.start_weights.val();
        self.weight_streams.tail.data.next.region = self.view.val().weight_region;
        self.weight_streams.tail.data.next.offset = bit_cast::<40, 48>(self.view.val().weight_base);
        self.weight_streams.tail.data.next.length = self.view.val().weight_length;
        if self.second.val() {
            self.weight_streams.tail.data.next.offset =
                bit_cast::<40, 48>(self.view.val().weight1_base);
            self.weight_streams.tail.data.next.length = self.view.val().weight1_length;
        }
        self.weight_reads.valid.next =
            self.weight_streams.head.valid.val() & self.weight_lengths.tail.ready.val();
        self.weight_reads.data.next = self.weight_streams.head.data.val();
        self.weight_streams.head.ready.next =
            self.weight_reads.ready.val() & self.weight_lengths.tail.ready.val();
        self.weight_lengths.tail.valid.next =
            self.weight_streams.head.valid.val() & self.weight_reads.ready.val();
        self.weight_lengths.tail.data.next = self.weight_streams.head.data.val().length;
        // One stream in the decoder and the groups at a time, so the
        // surplus of a stream is never used by the next block's beats; the
        // next operation's only once it is the current one.
        self.streams_queued.next = bit_cast::<3, 2>(self.weight_streams.count.val())
            + bit_cast::<3, 2>(self.weight_lengths.count.val());
        self.current_streams.next = self.streams_queued.val();
        if self.streams.next_weights.val() {
            self.current_streams.next = self.streams_queued.val() - 1;
        }
        self.weight_decoder.start.next = self.weight_lengths.head.valid.val()
            & (self.current_streams.val() != 0)
            & !self.weight_decoder.busy.val()
            & (self.weight_stream.q.val() == WeightStream::Idle)
            & !self.halt.val();
        self.weight_decoder.length.next = self.weight_lengths.head.data.val();
        self.weight_lengths.head.ready.next = self.weight_decoder.start.val();
        if self.weight_decoder.start.val() | self.weight_decoder.busy.val() {
            self.decoder_quiet.d.next = 0.into();
        } else if self.decoder_quiet.q.val() != 3 {
            self.decoder_quiet.d.next = self.decoder_quiet.q.val() + 1;
        }
        // Its last group has reached the groups' buffer.
        self.decoder_settled.next = self.decoder_quiet.q.val() == 3;
        self.weight_decoder.words.valid.next = self.weight_beats.valid.val();
        self.weight_decoder.words.data.next = self.weight_beats.data.val().data;
        self.weight_beats.ready.next = self.weight_decoder.words.ready.val();
        self.weight_groups.depthwise.next = self.depthwise.val();
        StreamOut::<WeightGroup>::join(
            &mut self.weight_decoder.weights,
            &mut self.weight_groups.weights,
        );
        self.beats.group_ready.next = self.weight_groups.groups.valid.val()
            & (self.weight_stream.q.val() == WeightStream::Decoding);
        self.weight_groups.groups.ready.next = self.beats.group_taken.val();

        // ---- The stream's state, and faults (golden: OpError::Weights) ----
        // Every group is decoded, none is left, and a beat still needs one.
        self.too_few_weights.next = (self.weight_stream.q.val() == WeightStream::Decoding)
            & self.decoder_settled.val()
            & !self.weight_groups.groups.valid.val()
            & self.beats.group_wanted.val();
        self.too_many_weights.next = (self.weight_stream.q.val() == WeightStream::Draining)
            & (self.weight_groups.groups.valid.val()
                | (self.decoder_settled.val() & !self.weight_groups.empty.val()));
        match self.weight_stream.q.val() {
            WeightStream::Idle => {
                if self.weight_decoder.start.val() {
                    self.weight_stream.d.next = WeightStream::Decoding;
                }
            }
            WeightStream::Decoding => {
                if self.beats.stream_used.val() {
                    self.weight_stream.d.next = WeightStream::Draining;
                }
            }
            WeightStream::Draining => {
                if self.decoder_settled.val() & !self.too_many_weights.val() {
                    self.weight_stream.d.next = WeightStream::Idle;
                }
            }
        }
        self.fault.next = self.weight_decoder.error.val()
            | self.weight_groups.ragged.val()
            | self.too_few_weights.val()
            | self.too_many_weights.val();
        self.decoding.next = self.weight_decoder.busy.val()
            & ((self.weight_decoder.words.valid.val() & self.weight_decoder.words.ready.val())
                | (self.weight_decoder.weights.valid.val()
                    & self.weight_groups.weights.ready.val()));

        // ---- Scale/bias: the block's channels, 10 bytes each ----
        self.streams.scales_room.next =
            self.scale_streams.tail.ready.val() & self.scale_depths.tail.ready.val();
        self.scale_streams.tail.valid.next = self.streams.start_scales.val();
        self.scale_streams.tail.data.next.region = self.view.val().scale_region;
        self.scale_base.next = self.view.val().scale_base;
        if self.second.val() {
            self.scale_base.next = self.view.val().scale1_base;
        }
        self.scale_streams.tail.data.next.offset = bit_cast::<40, 48>(self.scale_base.val())
            + (bit_cast::<40, 16>(self.streams.scale_channel.val()) << 3)
            + (bit_cast::<40, 16>(self.streams.scale_channel.val()) << 1);
        self.scale_streams.tail.data.next.length =
            (bit_cast::<32, 16>(self.streams.scale_depth.val()) << 3)
                + (bit_cast::<32, 16>(self.streams.scale_depth.val()) << 1);
        StreamOut::<StreamRead>::link(&mut self.scale_reads, &mut self.scale_streams.head);
        self.scale_depths.tail.valid.next = self.streams.start_scales.val();
        self.scale_depths.tail.data.next = self.streams.scale_depth.val();
        StreamIn::<LaneBeat>::link(&mut self.scale_beats, &mut self.scale_records.bytes);
        StreamOut::<ScaleRecordBeat>::join(
            &mut self.scale_records.records,
            &mut self.scale_sets.records,
        );
        StreamOut::<Bits<16>>::join(&mut self.scale_depths.head, &mut self.scale_sets.depths);
        self.words.sets_valid.next = self.scale_sets.sets.valid.val();
        self.scale_sets.sets.ready.next = self.words.sets_taken.val();

        // ---- The MAC unit ----
        self.mac.operands.valid.next = self.beats.operands.valid.val();
        self.mac.operands.data.next = self.beats.operands.data.val();
        if self.beats.multiply_group.val() {
            self.mac.operands.data.next.weights = self.weight_groups.groups.data.val().weights;
        }
        if self.second.val() & self.beats.interleaved.val() {
            self.mac.operands.data.next.acts = self.beats.odd_acts.val();
        }
        self.beats.operands.ready.next = self.mac.operands.ready.val();
        self.beats.slice_done.next = self.mac.slice_done.val();
        StreamIn::<AccRead>::link(&mut self.words.readout, &mut self.mac.readout);
        self.words.results_valid.next = self.mac.results.valid.val();
        self.mac.results.ready.next = self.words.results_taken.val();
        self.mac.clear.next = self.clear.val();
        self.clearing.next = self.mac.clearing.val();

        // ---- The output unit's beat of one position of the word ----
        self.accumulators.next = self.mac.results.data.val().values;
        // Position p's 8 accumulators are bits 320p..320p+320 (MAC unit layout).
        self.words.beat.next.values = self.accumulators.val().get_bits::<320>(0);
        if self.words.position.val() == 1 {
            self.words.beat.next.values = self.accumulators.val().get_bits::<320>(320);
        }
        if self.words.position.val() == 2 {
            self.words.beat.next.values = self.accumulators.val().get_bits::<320>(640);
        }
        if self.words.position.val() == 3 {
            self.words.beat.next.values = self.accumulators.val().get_bits::<320>(960);
        }
        self.words.beat.next.biases = self.scale_sets.sets.data.val().biases;
        self.words.beat.next.scales = self.scale_sets.sets.data.val().scales;
        self.words.beat.next.shifts = self.scale_sets.sets.data.val().shifts;
        self.lane_mask.next = (bits::<9>(1) << bit_cast::<9, 4>(self.words.channels.val())) - 1;
        self.words.beat.next.lanes = self.lane_mask.val().get_bits::<8>(0);
        // Core k's words use core k's LUT (golden `core_of`).
        self.words.beat.next.core = self.second.val();
        self.words.beat.next.count = self.words.count.val();
        self.words.beat.next.second = 0.into();

        // The next operation's scale records may have left `scale_depths`
        // already (their set is being gathered): then none is the current one's.
        self.current_scales.next = bit_cast::<3, 2>(self.scale_depths.count.val());
        if self.streams.next_scales.val() & (self.scale_depths.count.val() != 0) {
            self.current_scales.next = self.current_scales.val() - 1;
        }
        self.idle.next = (self.current_streams.val() == 0)
            & (self.weight_stream.q.val() == WeightStream::Idle)
            & (self.current_scales.val() == 0);
    }
}
