//! The scale/bias stream cut into records: the bytes the DMA scale/bias
//! channel reads from NPU_SET_SCALE_BASE (TRM 3.3.3, 4.7.6) in, one
//! 10-byte record per OFM channel out, bit for bit as the golden model's
//! `npu_model::ops::ScaleRecord::parse`: bias in bytes 0-4 (40-bit two's
//! complement), scale in bytes 5-8, shift in bits 5:0 of byte 9.
//!
//! # Ports
//!
//! - `bytes` (a [`StreamIn`] of [`LaneBeat`]s): lanes `first_lane..=
//!   last_lane` of each beat are the next stream bytes, in order. A stream
//!   holds a whole number of records (its bytes left over would start the
//!   next stream's first record). `ready` depends on the bytes held and
//!   on `records.ready` (a record leaving frees room), never on `valid` or
//!   on the beat.
//! - `records` (a [`StreamOut`] of [`ScaleRecordBeat`]s): offered straight
//!   from the byte buffer as soon as it holds 10 bytes.
//!
//! # Throughput
//!
//! A 32-byte buffer: a beat is taken whenever 16 bytes are free after the
//! record leaving in the same cycle, so full beats (16 bytes) sustain one
//! record a cycle; the input is then back-pressured three cycles in eight.

use crate::stream::{LaneBeat, StreamIn, StreamOut};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// One channel's scale record (the fields of `npu_model::ops::ScaleRecord`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ScaleRecordBeat {
    /// 40-bit two's complement.
    pub bias: Bits<40>,
    pub scale: Bits<32>,
    pub shift: Bits<6>,
}

#[derive(LogicBlock, Default)]
pub struct ScaleRecords {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Scale/bias stream bytes from the DMA scale/bias channel.
    pub bytes: StreamIn<LaneBeat>,
    /// Records toward the output unit, one per OFM channel.
    pub records: StreamOut<ScaleRecordBeat>,
    /// Stream bytes held, the oldest in bits 7:0; the bytes at and above
    /// `level` are zero.
    buffer: ResetReg<Bits<256>>,
    /// Bytes held, 0 to 32.
    level: ResetReg<Bits<6>>,
    record_out: Signal<Local, Bit>,
    /// Buffer and level once the record leaving this cycle is gone.
    remaining: Signal<Local, Bits<256>>,
    remaining_level: Signal<Local, Bits<6>>,
    beat_in: Signal<Local, Bit>,
    first_lane: Signal<Local, Bits<4>>,
    last_lane: Signal<Local, Bits<4>>,
    /// Lanes above `last_lane`; those and the lanes below `first_lane`.
    lanes_above: Signal<Local, Bits<4>>,
    lanes_dropped: Signal<Local, Bits<4>>,
    /// The beat's stream bytes moved down to byte 0, zeros above.
    beat_bytes: Signal<Local, Bits<128>>,
    beat_count: Signal<Local, Bits<6>>,
}

impl Logic for ScaleRecords {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, buffer, level);
        self.buffer.rst_n.next = self.rst_n.val();
        self.level.rst_n.next = self.rst_n.val();

        self.records.valid.next = self.level.q.val() >= 10;
        self.records.data.next.bias = self.buffer.q.val().get_bits::<40>(0);
        self.records.data.next.scale = self.buffer.q.val().get_bits::<32>(40);
        self.records.data.next.shift = self.buffer.q.val().get_bits::<6>(72);
        self.record_out.next = self.records.valid.val() & self.records.ready.val();
        self.remaining.next = self.buffer.q.val();
        self.remaining_level.next = self.level.q.val();
        if self.record_out.val() {
            self.remaining.next = self.buffer.q.val() >> 80;
            self.remaining_level.next = self.level.q.val() - 10;
        }

        // Shifted up past the last lane, then down to the first: the
        // bytes outside first_lane..=last_lane fall off.
        self.first_lane.next = self.bytes.data.val().first_lane;
        self.last_lane.next = self.bytes.data.val().last_lane;
        // (4-bit locals: Verilog would widen `~last_lane` inside a wider
        // expression before inverting it.)
        self.lanes_above.next = !self.last_lane.val();
        self.lanes_dropped.next = self.lanes_above.val() + self.first_lane.val();
        self.beat_bytes.next = (self.bytes.data.val().data
            << (bit_cast::<8, 4>(self.lanes_above.val()) << 3))
            >> (bit_cast::<8, 4>(self.lanes_dropped.val()) << 3);
        self.beat_count.next =
            bit_cast::<6, 4>(self.last_lane.val()) - bit_cast::<6, 4>(self.first_lane.val()) + 1;
        self.bytes.ready.next = self.remaining_level.val() <= 16;
        self.beat_in.next = self.bytes.valid.val() & self.bytes.ready.val();

        self.buffer.d.next = self.remaining.val();
        self.level.d.next = self.remaining_level.val();
        if self.beat_in.val() {
            self.buffer.d.next = self.remaining.val()
                | (bit_cast::<256, 128>(self.beat_bytes.val())
                    << (bit_cast::<9, 6>(self.remaining_level.val()) << 3));
            self.level.d.next = self.remaining_level.val() + self.beat_count.val();
        }
    }
}
