//! The elementwise operand reader: the output unit's reads of the IFM and
//! IFM2 buffers for NPU_OP_ELEMENTWISE (TRM 4.8.2; the MAC array is idle, TRM
//! table 4-79's AO event). Per filled block it walks positions in raster order
//! and channels 8 lanes a cycle (4 at 32 bits; up to 16 split between both
//! cores' output units with `paired`), IFM2 with its broadcast dimensions of
//! extent 1 or as a scalar, operands less their zero points as
//! `npu_model::ops::load_fm` wraps them.
//!
//! Ports: `settings` ([`OperandSettings`]) and the two buffers' places, held
//! while the operation's jobs are offered; `jobs` ([`IfmBlockJob`]s whose
//! blocks are in the shared buffer, taken with their last read); `released`
//! (a job's buffers may be refilled); `busy`; `operands` ([`OperandPair`]s,
//! one per group, in order); `shram_read_*` (IFM and IFM2 read ports with
//! [`SramBank`](crate::shram::SramBank) timing). One group a cycle after a
//! cycle of set-up; reads are issued only while the output queue has room.

use super::IfmBuffers;
use crate::datapath::{IfmBlockJob, OperandPair, OperandSettings};

use crate::output_unit::{AccumulatorBeat, LANES};
use crate::shram::UNIT_ADDRESS_BITS;
use crate::stream::{StreamIn, StreamOut};
use crate::widgets::{Fifo, ResetReg};
use rust_hdl::prelude::*;

/// Lanes of an operand group: a line of 8-bit elements, an output unit's
/// lanes for each of two cores.
pub const OPERAND_LANES: usize = 16;
const _: () = assert!(OPERAND_LANES == 2 * LANES);

/// A read in flight: what its data becomes.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OperandRead {
    pub lanes: Bits<OPERAND_LANES>,
    pub y: Bits<16>,
    pub x: Bits<16>,
    pub c: Bits<16>,
    pub block_end: Bit,
}

#[derive(LogicBlock, Default)]
pub struct OperandReader {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub settings: Signal<In, OperandSettings>,
    /// Where the IFM and IFM2 blocks are (as the fetches put them).
    pub ifm_buffers: Signal<In, IfmBuffers>,
    pub ifm2_buffers: Signal<In, IfmBuffers>,
    pub jobs: StreamIn<IfmBlockJob>,
    pub released: Signal<Out, Bit>,
    /// A job is being read or its operands are not all taken.
    pub busy: Signal<Out, Bit>,
    pub operands: StreamOut<OperandPair>,
    pub shram_read_enable: Signal<Out, Bits<2>>,
    pub shram_read_address: Signal<Out, Bits<{ 2 * UNIT_ADDRESS_BITS }>>,
    pub shram_read_data: Signal<In, Bits<256>>,
    ifm: LineOperands,
    ifm2: LineOperands,
    queue: Fifo<OperandPair, 2, 3>,
    running: ResetReg<Bit>,
    row: ResetReg<Bits<16>>,
    column: ResetReg<Bits<16>>,
    channel: ResetReg<Bits<16>>,
    /// Byte addresses: the current position's and group's, in each buffer.
    position: ResetReg<Bits<16>>,
    group: ResetReg<Bits<16>>,
    position2: ResetReg<Bits<16>>,
    group2: ResetReg<Bits<16>>,
    /// IFM2's block start (a broadcast row starts again there).
    start2: ResetReg<Bits<16>>,
    read: ResetReg<OperandRead>,
    reading: ResetReg<Bit>,
    last_read: ResetReg<Bit>,
    s: Signal<Local, OperandSettings>,
    job: Signal<Local, IfmBlockJob>,
    start: Signal<Local, Bits<16>>,
    start_2: Signal<Local, Bits<16>>,
    group_lanes: Signal<Local, Bits<16>>,
    group_bytes: Signal<Local, Bits<16>>,
    block_bytes: Signal<Local, Bits<16>>,
    block_bytes2: Signal<Local, Bits<16>>,
    position_bytes: Signal<Local, Bits<16>>,
    position_bytes2: Signal<Local, Bits<16>>,
    channels_left: Signal<Local, Bits<16>>,
    /// The group's first OFM channel.
    group_channel: Signal<Local, Bits<16>>,
    lane_count: Signal<Local, Bits<16>>,
    lane_mask: Signal<Local, Bits<17>>,
    last_group: Signal<Local, Bit>,
    last_column: Signal<Local, Bit>,
    last_row: Signal<Local, Bit>,
    next_position: Signal<Local, Bits<16>>,
    next_position2: Signal<Local, Bits<16>>,
    issue: Signal<Local, Bit>,
    /// Words in the queue and the read whose data comes this cycle.
    queued: Signal<Local, Bits<4>>,
    broadcast: Signal<Local, Bits<32>>,
    second: Signal<Local, Bits<{ OPERAND_LANES * 32 }>>,
}

/// 16 bytes' elements as lanes of 32-bit operands: lane i's element of
/// `element_shift`, sign-extended when `signed`, less the zero point
/// (extended alike), wrapped to 32 bits.
#[derive(LogicBlock, Default)]
pub struct LineOperands {
    pub line: Signal<In, Bits<128>>,
    pub element_shift: Signal<In, Bits<2>>,
    pub sign_extend: Signal<In, Bit>,
    pub zero_point: Signal<In, Bits<16>>,
    pub operands: Signal<Out, Bits<{ OPERAND_LANES * 32 }>>,
    lane_byte: Signal<Local, Bits<8>>,
    half_word: Signal<Local, Bits<16>>,
    element: Signal<Local, Bits<32>>,
    offset: Signal<Local, Bits<32>>,
    /// (A 32-bit local: Verilog would widen a difference inside the
    /// packing to the whole word.)
    difference: Signal<Local, Bits<32>>,
}

impl Logic for LineOperands {
    #[hdl_gen]
    fn update(&mut self) {
        self.offset.next = bit_cast::<32, 16>(self.zero_point.val());
        if self.sign_extend.val() & self.zero_point.val().get_bit(15) {
            self.offset.next = self.offset.val() - bits::<32>(0x1_0000);
        }
        self.operands.next = 0.into();
        self.element.next = 0.into();
        self.difference.next = 0.into();
        self.lane_byte.next = 0.into();
        self.half_word.next = 0.into();
        for i in 0..OPERAND_LANES {
            self.lane_byte.next = self.line.val().get_bits::<8>(8 * i);
            self.element.next = bit_cast::<32, 8>(self.lane_byte.val());
            if self.sign_extend.val() & self.line.val().get_bit(8 * i + 7) {
                self.element.next = self.element.val() - bits::<32>(0x100);
            }
            self.difference.next = self.element.val() - self.offset.val();
            self.operands.next = self.operands.val()
                | (bit_cast::<{ OPERAND_LANES * 32 }, 32>(self.difference.val())
                    << (32 * i).to_bits::<9>());
        }
        if self.element_shift.val() != 0 {
            self.operands.next = 0.into();
        }
        for i in 0..8 {
            if self.element_shift.val() == 1 {
                self.half_word.next = self.line.val().get_bits::<16>(16 * i);
                self.element.next = bit_cast::<32, 16>(self.half_word.val());
                if self.sign_extend.val() & self.line.val().get_bit(16 * i + 15) {
                    self.element.next = self.element.val() - bits::<32>(0x1_0000);
                }
                self.difference.next = self.element.val() - self.offset.val();
                self.operands.next = self.operands.val()
                    | (bit_cast::<{ OPERAND_LANES * 32 }, 32>(self.difference.val())
                        << (32 * i).to_bits::<9>());
            }
        }
        for i in 0..4 {
            if self.element_shift.val() == 2 {
                self.difference.next = self.line.val().get_bits::<32>(32 * i) - self.offset.val();
                self.operands.next = self.operands.val()
                    | (bit_cast::<{ OPERAND_LANES * 32 }, 32>(self.difference.val())
                        << (32 * i).to_bits::<9>());
            }
        }
    }
}

impl Logic for OperandReader {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, running, row, column, channel, position, group, position2, group2, start2,
            read, reading, last_read
        );
        self.running.rst_n.next = self.rst_n.val();
        self.row.rst_n.next = self.rst_n.val();
        self.column.rst_n.next = self.rst_n.val();
        self.channel.rst_n.next = self.rst_n.val();
        self.position.rst_n.next = self.rst_n.val();
        self.group.rst_n.next = self.rst_n.val();
        self.position2.rst_n.next = self.rst_n.val();
        self.group2.rst_n.next = self.rst_n.val();
        self.start2.rst_n.next = self.rst_n.val();
        self.read.rst_n.next = self.rst_n.val();
        self.reading.rst_n.next = self.rst_n.val();
        self.last_read.rst_n.next = self.rst_n.val();
        self.queue.clock.next = self.clock.val();
        self.queue.rst_n.next = self.rst_n.val();

        self.s.next = self.settings.val();
        self.job.next = self.jobs.data.val();

        // The block's layout in each buffer (`IfmFetch`'s).
        self.start.next = self.ifm_buffers.val().start;
        self.start_2.next = self.ifm2_buffers.val().start;
        if self.job.val().ib_half {
            self.start.next = self.ifm_buffers.val().start + self.ifm_buffers.val().half;
            self.start_2.next = self.ifm2_buffers.val().start + self.ifm2_buffers.val().half;
        }
        self.block_bytes.next =
            self.job.val().channels << bit_cast::<16, 2>(self.s.val().element_shift);
        self.block_bytes2.next = self.block_bytes.val();
        if self.s.val().broadcast_c {
            self.block_bytes2.next = bits::<16>(1) << bit_cast::<16, 2>(self.s.val().element_shift);
        }
        self.group_lanes.next = 8.into();
        self.group_bytes.next = 16.into();
        self.position_bytes.next = (self.block_bytes.val() + 7) & 0xfff8;
        self.position_bytes2.next = (self.block_bytes2.val() + 7) & 0xfff8;
        if self.s.val().element_shift == 0 {
            self.group_bytes.next = 8.into();
        }
        if self.s.val().element_shift == 2 {
            self.group_lanes.next = 4.into();
        }
        // Paired 8-bit groups are 16 lanes, not past the OFM's 16 channels
        // (an NHCWB16 brick takes one write).
        self.group_channel.next = self.job.val().ofm_z + self.channel.q.val();
        if self.s.val().paired & (self.s.val().element_shift == 0) {
            self.group_lanes.next = 16.into();
            self.group_bytes.next = 16.into();
            if self.group_channel.val().get_bit(3) {
                self.group_lanes.next = 8.into();
                self.group_bytes.next = 8.into();
            }
        }

        // The group being read.
        self.channels_left.next = self.job.val().channels - self.channel.q.val();
        self.last_group.next = self.channels_left.val() <= self.group_lanes.val();
        self.lane_count.next = self.group_lanes.val();
        if self.channels_left.val() < self.group_lanes.val() {
            self.lane_count.next = self.channels_left.val();
        }
        self.lane_mask.next = (bits::<17>(1) << bit_cast::<17, 16>(self.lane_count.val())) - 1;
        self.last_column.next = (self.column.q.val() + 1) == self.job.val().width;
        self.last_row.next = (self.row.q.val() + 1) == self.job.val().height;

        // A read only when the queue will have room for its data.
        self.queued.next = bit_cast::<4, 3>(self.queue.count.val());
        if self.reading.q.val() {
            self.queued.next = bit_cast::<4, 3>(self.queue.count.val()) + 1;
        }
        self.issue.next = self.running.q.val() & (self.queued.val() < 4);
        self.shram_read_enable.next = 0.into();
        if self.issue.val() {
            self.shram_read_enable.next = 1.into();
            if !self.s.val().unary & !self.s.val().scalar {
                self.shram_read_enable.next = 3.into();
            }
        }
        self.shram_read_address.next = bit_cast::<26, 13>(self.group.q.val().get_bits::<13>(3))
            | (bit_cast::<26, 13>(self.group2.q.val().get_bits::<13>(3)) << 13);
        self.reading.d.next = self.issue.val();
        self.last_read.d.next =
            self.issue.val() & self.last_group.val() & self.last_column.val() & self.last_row.val();
        self.released.next = self.last_read.q.val();
        if self.issue.val() {
            self.read.d.next.lanes = self.lane_mask.val().get_bits::<OPERAND_LANES>(0);
            self.read.d.next.y = self.job.val().ofm_y + self.row.q.val();
            self.read.d.next.x = self.job.val().ofm_x + self.column.q.val();
            self.read.d.next.c = self.group_channel.val();
            self.read.d.next.block_end =
                self.last_group.val() & self.last_column.val() & self.last_row.val();
        }

        // The walk: groups, then positions, then rows. IFM2 stays on its
        // position along a broadcast row, and its row starts again for
        // every row of a broadcast height.
        self.next_position.next = self.position.q.val() + self.position_bytes.val();
        self.next_position2.next = self.position2.q.val() + self.position_bytes2.val();
        if self.s.val().broadcast_w {
            self.next_position2.next = self.position2.q.val();
        }
        if self.last_column.val() {
            self.next_position2.next = self.position2.q.val() + self.position_bytes2.val();
            if self.s.val().broadcast_h {
                self.next_position2.next = self.start2.q.val();
            }
        }
        self.jobs.ready.next = false;
        if !self.running.q.val() & self.jobs.valid.val() {
            self.running.d.next = true;
            self.row.d.next = 0.into();
            self.column.d.next = 0.into();
            self.channel.d.next = 0.into();
            self.position.d.next = self.start.val();
            self.group.d.next = self.start.val();
            self.position2.d.next = self.start_2.val();
            self.group2.d.next = self.start_2.val();
            self.start2.d.next = self.start_2.val();
        }
        if self.issue.val() {
            if !self.last_group.val() {
                self.channel.d.next = self.channel.q.val() + self.group_lanes.val();
                self.group.d.next = self.group.q.val() + self.group_bytes.val();
                if !self.s.val().broadcast_c {
                    self.group2.d.next = self.group2.q.val() + self.group_bytes.val();
                }
            } else {
                self.channel.d.next = 0.into();
                self.position.d.next = self.next_position.val();
                self.group.d.next = self.next_position.val();
                self.position2.d.next = self.next_position2.val();
                self.group2.d.next = self.next_position2.val();
                if self.last_column.val() {
                    self.column.d.next = 0.into();
                    self.row.d.next = self.row.q.val() + 1;
                    if self.last_row.val() {
                        self.running.d.next = false;
                        self.jobs.ready.next = true;
                    }
                } else {
                    self.column.d.next = self.column.q.val() + 1;
                }
            }
        }

        // The data: lanes, zero points, broadcast, scalar, order.
        self.ifm.line.next = self.shram_read_data.val().get_bits::<128>(0);
        self.ifm.zero_point.next = self.s.val().ifm_zero_point;
        self.ifm2.line.next = self.shram_read_data.val().get_bits::<128>(128);
        self.ifm2.zero_point.next = self.s.val().ifm2_zero_point;
        self.ifm.element_shift.next = self.s.val().element_shift;
        self.ifm2.element_shift.next = self.s.val().element_shift;
        self.ifm.sign_extend.next = self.s.val().signed;
        self.ifm2.sign_extend.next = self.s.val().signed;
        self.second.next = self.ifm2.operands.val();
        self.broadcast.next = self.ifm2.operands.val().get_bits::<32>(0);
        if self.s.val().scalar {
            self.broadcast.next = self.s.val().scalar_value;
        }
        if self.s.val().scalar | self.s.val().broadcast_c {
            self.second.next = 0.into();
            for i in 0..OPERAND_LANES {
                self.second.next = self.second.val()
                    | (bit_cast::<{ OPERAND_LANES * 32 }, 32>(self.broadcast.val())
                        << (32 * i).to_bits::<9>());
            }
        }
        self.queue.tail.valid.next = self.reading.q.val();
        self.queue.tail.data.next.a = self.ifm.operands.val();
        self.queue.tail.data.next.b = self.second.val();
        if self.s.val().reversed & !self.s.val().unary {
            self.queue.tail.data.next.a = self.second.val();
            self.queue.tail.data.next.b = self.ifm.operands.val();
        }
        self.queue.tail.data.next.lanes = self.read.q.val().lanes;
        self.queue.tail.data.next.y = self.read.q.val().y;
        self.queue.tail.data.next.x = self.read.q.val().x;
        self.queue.tail.data.next.c = self.read.q.val().c;
        self.queue.tail.data.next.block_end = self.read.q.val().block_end;
        StreamOut::<OperandPair>::link(&mut self.operands, &mut self.queue.head);
        self.busy.next =
            self.running.q.val() | self.reading.q.val() | (self.queue.count.val() != 0);
    }
}

/// A core's output-unit beat of an operand group: lanes 0-7 (core 0), or
/// with `paired` core k's lanes 2i + k (OFM channels c + 2i + k of the
/// group's first channel c, as a paired OFM write stores them). Operand A
/// goes in the low 32 bits of each 40-bit lane; no scale records.
#[derive(LogicBlock)]
pub struct UnitOperands {
    pub group: Signal<In, OperandPair>,
    pub paired: Signal<In, Bit>,
    pub beat: Signal<Out, AccumulatorBeat>,
    /// Core 1's.
    odd: Constant<Bit>,
    /// The group's fields (locals: a bit range of a struct field cannot
    /// be selected in the generated Verilog).
    operands_a: Signal<Local, Bits<{ OPERAND_LANES * 32 }>>,
    operands_b: Signal<Local, Bits<{ OPERAND_LANES * 32 }>>,
    group_lanes: Signal<Local, Bits<OPERAND_LANES>>,
    a_lane: Signal<Local, Bits<32>>,
    b_lane: Signal<Local, Bits<32>>,
    lane_on: Signal<Local, Bits<1>>,
    values: Signal<Local, Bits<{ LANES * 40 }>>,
    seconds: Signal<Local, Bits<{ LANES * 32 }>>,
    lanes: Signal<Local, Bits<LANES>>,
}

impl UnitOperands {
    pub fn new(core: usize) -> Self {
        Self {
            group: Default::default(),
            paired: Default::default(),
            beat: Default::default(),
            odd: Constant::new(core == 1),
            operands_a: Default::default(),
            operands_b: Default::default(),
            group_lanes: Default::default(),
            a_lane: Default::default(),
            b_lane: Default::default(),
            lane_on: Default::default(),
            values: Default::default(),
            seconds: Default::default(),
            lanes: Default::default(),
        }
    }
}

impl Logic for UnitOperands {
    #[hdl_gen]
    fn update(&mut self) {
        self.operands_a.next = self.group.val().a;
        self.operands_b.next = self.group.val().b;
        self.group_lanes.next = self.group.val().lanes;
        self.values.next = 0.into();
        self.seconds.next = 0.into();
        self.lanes.next = 0.into();
        for i in 0..LANES {
            self.a_lane.next = self.operands_a.val().get_bits::<32>(32 * i);
            self.b_lane.next = self.operands_b.val().get_bits::<32>(32 * i);
            self.lane_on.next = self.group_lanes.val().get_bits::<1>(i);
            if self.paired.val() {
                self.a_lane.next = self.operands_a.val().get_bits::<32>(64 * i);
                self.b_lane.next = self.operands_b.val().get_bits::<32>(64 * i);
                self.lane_on.next = self.group_lanes.val().get_bits::<1>(2 * i);
                if self.odd.val() {
                    self.a_lane.next = self.operands_a.val().get_bits::<32>(64 * i + 32);
                    self.b_lane.next = self.operands_b.val().get_bits::<32>(64 * i + 32);
                    self.lane_on.next = self.group_lanes.val().get_bits::<1>(2 * i + 1);
                }
            }
            self.values.next = self.values.val()
                | (bit_cast::<{ LANES * 40 }, 32>(self.a_lane.val()) << (40 * i).to_bits::<9>());
            self.seconds.next = self.seconds.val()
                | (bit_cast::<{ LANES * 32 }, 32>(self.b_lane.val()) << (32 * i).to_bits::<9>());
            self.lanes.next =
                self.lanes.val() | (bit_cast::<LANES, 1>(self.lane_on.val()) << i.to_bits::<4>());
        }
        self.beat.next.values = self.values.val();
        self.beat.next.second = self.seconds.val();
        self.beat.next.lanes = self.lanes.val();
        self.beat.next.biases = 0.into();
        self.beat.next.scales = 0.into();
        self.beat.next.shifts = 0.into();
        self.beat.next.count = 0.into();
        self.beat.next.core = self.odd.val();
    }
}
