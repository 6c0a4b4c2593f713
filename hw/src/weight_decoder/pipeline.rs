//! The value pipeline: the parser's chunk records become weights and zero
//! runs for the pair buffer in four registered stages (received, head
//! quotients [`ChunkQuotients`], finished quotients and [`RunLengths`], pushes
//! of [`ChunkValues`]), two records side by side. A record moves on when the
//! next stage is free or moving; the last pushes when the pair buffer has
//! `room`. A fault stops every later push and is held in `error_code` until
//! the next stream starts.
//!
//! Why `update` is one function: the chunk decoder is one state machine of
//! four stage-full bits. Every stage's move depends on all the stages after
//! it, and the faults must be put in stream order across all four. What each
//! stage computes is a block already; what stays here is the registers, the
//! moves and the fault order.

use super::parser::{ChunkRecord, CHUNK_BITS};
use super::quotients::ChunkQuotients;
use super::values::{ChunkValues, RunLengths, ITEMS};
use super::{ErrorCode, PALETTE_ENTRIES};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// Stage 2: what a chunk's head completes, and its remainder fields.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct HeadQuotients {
    pub quotients: Bits<{ ITEMS * 5 }>,
    pub total: Bits<5>,
    pub tail: Bits<5>,
    pub z_first: Bits<4>,
    pub z_runs: Bits<{ ITEMS * 4 }>,
    pub z_tail: Bits<4>,
    pub z_ones: Bits<4>,
    pub has_zero: Bit,
    pub wrem_field: Bits<108>,
    pub zrem_field: Bits<36>,
}

/// Stage 3: the quotients of the items a chunk finishes (completed by the
/// chunk before, carries added), its runs' lengths, its quotient faults.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Finishing {
    pub quotients: Bits<{ ITEMS * 5 }>,
    pub first_quotient: Bits<28>,
    pub first_remainder: Bits<3>,
    pub offsets: Bits<{ ITEMS * 11 }>,
    pub wrem_field: Bits<108>,
    pub quotient_error: Bit,
    pub zero_run_error: Bit,
}

/// Stage 4: one record's items for the pair buffer. Weights: `weights`
/// (`value` low for the value-less leading entry). Zero runs: run j's end
/// lies `base` + `offsets` j past the end of everything pushed before.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Pushes {
    pub valid: Bit,
    pub n_w: Bits<4>,
    pub value: Bit,
    pub weights: Bits<{ ITEMS * 9 }>,
    pub n_z: Bits<4>,
    pub base: Bits<34>,
    pub offsets: Bits<{ ITEMS * 11 }>,
    pub last_offset: Bits<11>,
    pub fault: ErrorCode,
}

#[derive(LogicBlock, Default)]
pub struct ValuePipeline {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// A stream starts: its faults are new.
    pub start: Signal<In, Bit>,
    /// From the parser; `accept` says they are taken this cycle.
    pub record_a: Signal<In, ChunkRecord>,
    pub record_b: Signal<In, ChunkRecord>,
    pub bits_a: Signal<In, Bits<CHUNK_BITS>>,
    pub bits_b: Signal<In, Bits<CHUNK_BITS>>,
    pub accept: Signal<Out, Bit>,
    /// The parser's palette banks.
    pub palette_0: Signal<In, Bits<{ PALETTE_ENTRIES * 9 }>>,
    pub palette_1: Signal<In, Bits<{ PALETTE_ENTRIES * 9 }>>,
    pub palette_size_0: Signal<In, Bits<6>>,
    pub palette_size_1: Signal<In, Bits<6>>,
    pub direct_offset_0: Signal<In, Bits<11>>,
    pub direct_offset_1: Signal<In, Bits<11>>,
    /// Records of bank 0 / 1 not yet past the palette look-up.
    pub bank_busy: Signal<Out, Bits<2>>,
    /// The pair buffer's free entries for weights and zero runs.
    pub w_free: Signal<In, Bits<7>>,
    pub z_free: Signal<In, Bits<7>>,
    /// Items pushed this cycle (`push_a`, then `push_b`; counts 0 if none).
    pub push_a: Signal<Out, Pushes>,
    pub push_b: Signal<Out, Pushes>,
    /// The first fault of the stream.
    pub error_code: Signal<Out, ErrorCode>,
    /// No record in any stage.
    pub empty: Signal<Out, Bit>,
    quotients_a: ChunkQuotients,
    quotients_b: ChunkQuotients,
    carry_a: ChunkCarry,
    carry_b: ChunkCarry,
    runs_a: RunLengths,
    runs_b: RunLengths,
    values_a: ChunkValues,
    values_b: ChunkValues,
    // Stage registers.
    received_a: ResetReg<ChunkRecord>,
    received_b: ResetReg<ChunkRecord>,
    received_bits_a: ResetReg<Bits<CHUNK_BITS>>,
    received_bits_b: ResetReg<Bits<CHUNK_BITS>>,
    headed_a: ResetReg<ChunkRecord>,
    headed_b: ResetReg<ChunkRecord>,
    head_a: ResetReg<HeadQuotients>,
    head_b: ResetReg<HeadQuotients>,
    finishing_a: ResetReg<ChunkRecord>,
    finishing_b: ResetReg<ChunkRecord>,
    finish_a: ResetReg<Finishing>,
    finish_b: ResetReg<Finishing>,
    pushes_a: ResetReg<Pushes>,
    pushes_b: ResetReg<Pushes>,
    // Carried from chunk to chunk (stage 3): the quotients in progress, and
    // the last chunk's completed weight quotients, first zero-run quotient
    // and other zero-run quotients.
    weight_quotient: ResetReg<Bits<6>>,
    run_quotient: ResetReg<Bits<28>>,
    last_quotients: ResetReg<Bits<{ ITEMS * 5 }>>,
    last_first_run: ResetReg<Bits<28>>,
    last_runs: ResetReg<Bits<{ ITEMS * 4 }>>,
    error: ResetReg<ErrorCode>,
    // Stage moves.
    move_1: Signal<Local, Bit>,
    move_2: Signal<Local, Bit>,
    move_3: Signal<Local, Bit>,
    move_4: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    // Stage 3 carries, a then b.
    chunk_a: Signal<Local, Bit>,
    chunk_b: Signal<Local, Bit>,
    wq_in_a: Signal<Local, Bits<6>>,
    zq_in_a: Signal<Local, Bits<29>>,
    // Stage 4: runs finished, first runs' lengths, faults.
    n_z_a: Signal<Local, Bits<4>>,
    n_z_b: Signal<Local, Bits<4>>,
    scaled_a: Signal<Local, Bits<34>>,
    scaled_b: Signal<Local, Bits<34>>,
    small_a: Signal<Local, Bits<13>>,
    small_b: Signal<Local, Bits<13>>,
    last_offset_a: Signal<Local, Bits<11>>,
    last_offset_b: Signal<Local, Bits<11>>,
    offsets_a: Signal<Local, Bits<{ ITEMS * 11 }>>,
    offsets_b: Signal<Local, Bits<{ ITEMS * 11 }>>,
    pushing_a: Signal<Local, Bit>,
    pushing_b: Signal<Local, Bit>,
    fault_a: Signal<Local, ErrorCode>,
    fault_b: Signal<Local, ErrorCode>,
    busy_records: Signal<Local, Bits<6>>,
    busy_banks: Signal<Local, Bits<6>>,
}

impl Logic for ValuePipeline {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            received_a,
            received_b,
            received_bits_a,
            received_bits_b,
            headed_a,
            headed_b,
            head_a,
            head_b,
            finishing_a,
            finishing_b,
            finish_a,
            finish_b,
            pushes_a,
            pushes_b,
            weight_quotient,
            run_quotient,
            last_quotients,
            last_first_run,
            last_runs,
            error
        );
        self.received_a.rst_n.next = self.rst_n.val();
        self.received_b.rst_n.next = self.rst_n.val();
        self.received_bits_a.rst_n.next = self.rst_n.val();
        self.received_bits_b.rst_n.next = self.rst_n.val();
        self.headed_a.rst_n.next = self.rst_n.val();
        self.headed_b.rst_n.next = self.rst_n.val();
        self.head_a.rst_n.next = self.rst_n.val();
        self.head_b.rst_n.next = self.rst_n.val();
        self.finishing_a.rst_n.next = self.rst_n.val();
        self.finishing_b.rst_n.next = self.rst_n.val();
        self.finish_a.rst_n.next = self.rst_n.val();
        self.finish_b.rst_n.next = self.rst_n.val();
        self.pushes_a.rst_n.next = self.rst_n.val();
        self.pushes_b.rst_n.next = self.rst_n.val();
        self.weight_quotient.rst_n.next = self.rst_n.val();
        self.run_quotient.rst_n.next = self.rst_n.val();
        self.last_quotients.rst_n.next = self.rst_n.val();
        self.last_first_run.rst_n.next = self.rst_n.val();
        self.last_runs.rst_n.next = self.rst_n.val();
        self.error.rst_n.next = self.rst_n.val();

        // A stage moves when the next one is free or moving; the last when
        // the pair buffer has room for the items it pushes (a faulty record
        // and everything after the stream's first fault push none).
        self.pushing_a.next = self.pushes_a.q.val().valid
            & (self.error.q.val() == ErrorCode::None)
            & (self.pushes_a.q.val().fault == ErrorCode::None);
        self.pushing_b.next = self.pushing_a.val()
            & self.pushes_b.q.val().valid
            & (self.pushes_b.q.val().fault == ErrorCode::None);
        self.push_a.next = self.pushes_a.q.val();
        self.push_b.next = self.pushes_b.q.val();
        if !self.pushing_a.val() {
            self.push_a.next.n_w = 0.into();
            self.push_a.next.n_z = 0.into();
        }
        if !self.pushing_b.val() {
            self.push_b.next.n_w = 0.into();
            self.push_b.next.n_z = 0.into();
        }
        self.room.next = (bit_cast::<7, 4>(self.push_a.val().n_w)
            + bit_cast::<7, 4>(self.push_b.val().n_w)
            <= self.w_free.val())
            & (bit_cast::<7, 4>(self.push_a.val().n_z) + bit_cast::<7, 4>(self.push_b.val().n_z)
                <= self.z_free.val());
        self.move_4.next = !self.pushes_a.q.val().valid | self.room.val();
        self.move_3.next = !self.finishing_a.q.val().valid | self.move_4.val();
        self.move_2.next = !self.headed_a.q.val().valid | self.move_3.val();
        self.move_1.next = !self.received_a.q.val().valid | self.move_2.val();
        self.accept.next = self.move_1.val();
        self.empty.next = !self.received_a.q.val().valid
            & !self.headed_a.q.val().valid
            & !self.finishing_a.q.val().valid
            & !self.pushes_a.q.val().valid;

        // The palette banks records ahead of the look-up use.
        self.busy_records.next = 0.into();
        self.busy_records.next = self
            .busy_records
            .val()
            .replace_bit(0, self.received_a.q.val().valid);
        self.busy_records.next = self
            .busy_records
            .val()
            .replace_bit(1, self.received_b.q.val().valid);
        self.busy_records.next = self
            .busy_records
            .val()
            .replace_bit(2, self.headed_a.q.val().valid);
        self.busy_records.next = self
            .busy_records
            .val()
            .replace_bit(3, self.headed_b.q.val().valid);
        self.busy_records.next = self
            .busy_records
            .val()
            .replace_bit(4, self.finishing_a.q.val().valid);
        self.busy_records.next = self
            .busy_records
            .val()
            .replace_bit(5, self.finishing_b.q.val().valid);
        self.busy_banks.next = 0.into();
        self.busy_banks.next = self
            .busy_banks
            .val()
            .replace_bit(0, self.received_a.q.val().bank);
        self.busy_banks.next = self
            .busy_banks
            .val()
            .replace_bit(1, self.received_b.q.val().bank);
        self.busy_banks.next = self
            .busy_banks
            .val()
            .replace_bit(2, self.headed_a.q.val().bank);
        self.busy_banks.next = self
            .busy_banks
            .val()
            .replace_bit(3, self.headed_b.q.val().bank);
        self.busy_banks.next = self
            .busy_banks
            .val()
            .replace_bit(4, self.finishing_a.q.val().bank);
        self.busy_banks.next = self
            .busy_banks
            .val()
            .replace_bit(5, self.finishing_b.q.val().bank);
        self.bank_busy.next = 0.into();
        self.bank_busy.next = self
            .bank_busy
            .val()
            .replace_bit(0, (self.busy_records.val() & !self.busy_banks.val()).any());
        self.bank_busy.next = self
            .bank_busy
            .val()
            .replace_bit(1, (self.busy_records.val() & self.busy_banks.val()).any());

        // Stage 1: received.
        if self.move_1.val() {
            self.received_a.d.next = self.record_a.val();
            self.received_b.d.next = self.record_b.val();
            self.received_bits_a.d.next = self.bits_a.val();
            self.received_bits_b.d.next = self.bits_b.val();
        }

        // Stage 2: head quotients.
        self.quotients_a.bits.next = self.received_bits_a.q.val();
        self.quotients_a.gr_en.next = self.received_a.q.val().gr_en;
        self.quotients_a.z_en.next = self.received_a.q.val().z_en;
        self.quotients_a.wtrunc.next = self.received_a.q.val().wtrunc;
        self.quotients_a.zunary_12.next = self.received_a.q.val().zunary_12;
        self.quotients_a.k.next = self.received_a.q.val().k;
        self.quotients_a.wrem_at.next = self.received_a.q.val().wrem_at;
        self.quotients_a.zrem_at.next = self.received_a.q.val().zrem_at;
        self.quotients_b.bits.next = self.received_bits_b.q.val();
        self.quotients_b.gr_en.next = self.received_b.q.val().gr_en;
        self.quotients_b.z_en.next = self.received_b.q.val().z_en;
        self.quotients_b.wtrunc.next = self.received_b.q.val().wtrunc;
        self.quotients_b.zunary_12.next = self.received_b.q.val().zunary_12;
        self.quotients_b.k.next = self.received_b.q.val().k;
        self.quotients_b.wrem_at.next = self.received_b.q.val().wrem_at;
        self.quotients_b.zrem_at.next = self.received_b.q.val().zrem_at;
        if self.move_2.val() {
            self.headed_a.d.next = self.received_a.q.val();
            self.headed_b.d.next = self.received_b.q.val();
            self.head_a.d.next.quotients = self.quotients_a.quotients.val();
            self.head_a.d.next.total = self.quotients_a.total.val();
            self.head_a.d.next.tail = self.quotients_a.tail.val();
            self.head_a.d.next.z_first = self.quotients_a.z_first.val();
            self.head_a.d.next.z_runs = self.quotients_a.z_runs.val();
            self.head_a.d.next.z_tail = self.quotients_a.z_tail.val();
            self.head_a.d.next.z_ones = self.quotients_a.z_ones.val();
            self.head_a.d.next.has_zero = self.quotients_a.has_zero.val();
            self.head_a.d.next.wrem_field = self.quotients_a.wrem_field.val();
            self.head_a.d.next.zrem_field = self.quotients_a.zrem_field.val();
            self.head_b.d.next.quotients = self.quotients_b.quotients.val();
            self.head_b.d.next.total = self.quotients_b.total.val();
            self.head_b.d.next.tail = self.quotients_b.tail.val();
            self.head_b.d.next.z_first = self.quotients_b.z_first.val();
            self.head_b.d.next.z_runs = self.quotients_b.z_runs.val();
            self.head_b.d.next.z_tail = self.quotients_b.z_tail.val();
            self.head_b.d.next.z_ones = self.quotients_b.z_ones.val();
            self.head_b.d.next.has_zero = self.quotients_b.has_zero.val();
            self.head_b.d.next.wrem_field = self.quotients_b.wrem_field.val();
            self.head_b.d.next.zrem_field = self.quotients_b.zrem_field.val();
        }

        // Stage 3: carries, a then b. Only chunks carry (not a slice's
        // leading entry or a parser fault).
        self.chunk_a.next = self.headed_a.q.val().valid
            & !self.headed_a.q.val().lead_entry
            & (self.headed_a.q.val().fault == ErrorCode::None);
        self.chunk_b.next = self.headed_b.q.val().valid;
        self.wq_in_a.next = self.weight_quotient.q.val();
        self.zq_in_a.next = bit_cast::<29, 28>(self.run_quotient.q.val());
        if self.headed_a.q.val().first {
            self.wq_in_a.next = 0.into();
            self.zq_in_a.next = 0.into();
        }
        self.carry_a.weight_quotient.next = self.wq_in_a.val();
        self.carry_a.run_quotient.next = self.zq_in_a.val();
        self.carry_a.gr_en.next = self.headed_a.q.val().gr_en;
        self.carry_a.z_en.next = self.headed_a.q.val().z_en;
        self.carry_a.completes.next = self.headed_a.q.val().k != 0;
        self.carry_a.head.next = self.head_a.q.val();
        self.carry_b.weight_quotient.next = self.carry_a.weight_quotient_out.val();
        self.carry_b.run_quotient.next = self.carry_a.run_quotient_out.val();
        self.carry_b.gr_en.next = self.headed_b.q.val().gr_en;
        self.carry_b.z_en.next = self.headed_b.q.val().z_en;
        self.carry_b.completes.next = self.headed_b.q.val().k != 0;
        self.carry_b.head.next = self.head_b.q.val();
        // Each chunk finishes the items the chunk before completed.
        self.runs_a.zrem_field.next = self.head_a.q.val().zrem_field;
        self.runs_a.zdiv.next = self.headed_a.q.val().zdiv;
        self.runs_a.alternating.next = self.headed_a.q.val().alternating;
        self.runs_a.quotients.next = self.last_runs.q.val();
        self.runs_b.zrem_field.next = self.head_b.q.val().zrem_field;
        self.runs_b.zdiv.next = self.headed_b.q.val().zdiv;
        self.runs_b.alternating.next = self.headed_b.q.val().alternating;
        self.runs_b.quotients.next = self.head_a.q.val().z_runs;
        if self.move_3.val() {
            self.finishing_a.d.next = self.headed_a.q.val();
            self.finishing_b.d.next = self.headed_b.q.val();
            self.finish_a.d.next.quotients = self.last_quotients.q.val();
            self.finish_a.d.next.first_quotient = self.last_first_run.q.val();
            self.finish_a.d.next.first_remainder = self.runs_a.first_remainder.val();
            self.finish_a.d.next.offsets = self.runs_a.offsets.val();
            self.finish_a.d.next.wrem_field = self.head_a.q.val().wrem_field;
            self.finish_a.d.next.quotient_error =
                self.chunk_a.val() & self.carry_a.quotient_error.val();
            self.finish_a.d.next.zero_run_error =
                self.chunk_a.val() & self.carry_a.zero_run_error.val();
            self.finish_b.d.next.quotients = self.carry_a.completed.val();
            self.finish_b.d.next.first_quotient = bit_cast::<28, 29>(self.carry_a.first_run.val());
            self.finish_b.d.next.first_remainder = self.runs_b.first_remainder.val();
            self.finish_b.d.next.offsets = self.runs_b.offsets.val();
            self.finish_b.d.next.wrem_field = self.head_b.q.val().wrem_field;
            self.finish_b.d.next.quotient_error =
                self.chunk_b.val() & self.carry_b.quotient_error.val();
            self.finish_b.d.next.zero_run_error =
                self.chunk_b.val() & self.carry_b.zero_run_error.val();
            if self.chunk_b.val() {
                self.weight_quotient.d.next = self.carry_b.weight_quotient_out.val();
                self.run_quotient.d.next = bit_cast::<28, 29>(self.carry_b.run_quotient_out.val());
                self.last_quotients.d.next = self.carry_b.completed.val();
                self.last_first_run.d.next = bit_cast::<28, 29>(self.carry_b.first_run.val());
                self.last_runs.d.next = self.head_b.q.val().z_runs;
            } else if self.chunk_a.val() {
                self.weight_quotient.d.next = self.carry_a.weight_quotient_out.val();
                self.run_quotient.d.next = bit_cast::<28, 29>(self.carry_a.run_quotient_out.val());
                self.last_quotients.d.next = self.carry_a.completed.val();
                self.last_first_run.d.next = bit_cast::<28, 29>(self.carry_a.first_run.val());
                self.last_runs.d.next = self.head_a.q.val().z_runs;
            }
        }

        // Stage 4: weights, run lengths, faults.
        self.values_a.wrem_field.next = self.finish_a.q.val().wrem_field;
        self.values_a.wrem_bits.next = self.finishing_a.q.val().wrem_bits;
        self.values_a.wshift.next = self.finishing_a.q.val().wshift;
        self.values_a.count.next = self.finishing_a.q.val().pend_w;
        if self.finishing_a.q.val().lead_entry {
            self.values_a.count.next = 0.into();
        }
        self.values_a.quotients.next = self.finish_a.q.val().quotients;
        self.values_a.palette.next = self.palette_0.val();
        self.values_a.palette_size.next = self.palette_size_0.val();
        self.values_a.direct_offset.next = self.direct_offset_0.val();
        if self.finishing_a.q.val().bank {
            self.values_a.palette.next = self.palette_1.val();
            self.values_a.palette_size.next = self.palette_size_1.val();
            self.values_a.direct_offset.next = self.direct_offset_1.val();
        }
        self.values_b.wrem_field.next = self.finish_b.q.val().wrem_field;
        self.values_b.wrem_bits.next = self.finishing_b.q.val().wrem_bits;
        self.values_b.wshift.next = self.finishing_b.q.val().wshift;
        self.values_b.count.next = self.finishing_b.q.val().pend_w;
        if self.finishing_b.q.val().lead_entry {
            self.values_b.count.next = 0.into();
        }
        self.values_b.quotients.next = self.finish_b.q.val().quotients;
        self.values_b.palette.next = self.palette_0.val();
        self.values_b.palette_size.next = self.palette_size_0.val();
        self.values_b.direct_offset.next = self.direct_offset_0.val();
        if self.finishing_b.q.val().bank {
            self.values_b.palette.next = self.palette_1.val();
            self.values_b.palette_size.next = self.palette_size_1.val();
            self.values_b.direct_offset.next = self.direct_offset_1.val();
        }
        // Runs finished: one per weight outside alternating mode.
        self.n_z_a.next = self.finishing_a.q.val().pend_w;
        if self.finishing_a.q.val().alternating {
            self.n_z_a.next = self.finishing_a.q.val().pend_z;
        }
        self.n_z_b.next = self.finishing_b.q.val().pend_w;
        if self.finishing_b.q.val().alternating {
            self.n_z_b.next = self.finishing_b.q.val().pend_z;
        }
        // The first run's length: quotient << zdiv (the long part), and
        // remainder and weight (short); then b's base after all of a's runs.
        self.scaled_a.next = 0.into();
        self.small_a.next = 0.into();
        if self.n_z_a.val() != 0 {
            if !self.finishing_a.q.val().lead_run {
                self.small_a.next = 1.into();
            }
            if self.finishing_a.q.val().alternating {
                self.scaled_a.next = bit_cast::<34, 28>(self.finish_a.q.val().first_quotient)
                    << self.finishing_a.q.val().zdiv;
                self.small_a.next =
                    self.small_a.val() + bit_cast::<13, 3>(self.finish_a.q.val().first_remainder);
            }
        }
        self.scaled_b.next = 0.into();
        self.small_b.next = 0.into();
        if self.n_z_b.val() != 0 {
            if !self.finishing_b.q.val().lead_run {
                self.small_b.next = 1.into();
            }
            if self.finishing_b.q.val().alternating {
                self.scaled_b.next = bit_cast::<34, 28>(self.finish_b.q.val().first_quotient)
                    << self.finishing_b.q.val().zdiv;
                self.small_b.next =
                    self.small_b.val() + bit_cast::<13, 3>(self.finish_b.q.val().first_remainder);
            }
        }
        self.offsets_a.next = self.finish_a.q.val().offsets;
        self.offsets_b.next = self.finish_b.q.val().offsets;
        self.last_offset_a.next = 0.into();
        self.last_offset_b.next = 0.into();
        for j in 1..ITEMS {
            if self.n_z_a.val() == (j + 1).to_bits::<4>() {
                self.last_offset_a.next = self.offsets_a.val().get_bits::<11>(j * 11);
            }
            if self.n_z_b.val() == (j + 1).to_bits::<4>() {
                self.last_offset_b.next = self.offsets_b.val().get_bits::<11>(j * 11);
            }
        }
        // Faults in TRM order: the parser's; a quotient over 31 (before an
        // end of stream inside the remainders); an index or value out of
        // range; a zero run too long.
        self.fault_a.next = self.finishing_a.q.val().fault;
        if self.finishing_a.q.val().fault == ErrorCode::None {
            if self.finish_a.q.val().quotient_error {
                self.fault_a.next = ErrorCode::QuotientOverLimit;
            } else if self.finishing_a.q.val().truncated {
                self.fault_a.next = ErrorCode::UnexpectedEnd;
            } else if self.values_a.index_error.val() {
                self.fault_a.next = ErrorCode::IndexOutOfRange;
            } else if self.values_a.value_error.val() {
                self.fault_a.next = ErrorCode::ValueOutOfRange;
            } else if self.finish_a.q.val().zero_run_error {
                self.fault_a.next = ErrorCode::ZeroRunTooLong;
            }
        }
        self.fault_b.next = ErrorCode::None;
        if self.finish_b.q.val().quotient_error {
            self.fault_b.next = ErrorCode::QuotientOverLimit;
        } else if self.values_b.index_error.val() {
            self.fault_b.next = ErrorCode::IndexOutOfRange;
        } else if self.values_b.value_error.val() {
            self.fault_b.next = ErrorCode::ValueOutOfRange;
        } else if self.finish_b.q.val().zero_run_error {
            self.fault_b.next = ErrorCode::ZeroRunTooLong;
        }
        if self.move_4.val() {
            self.pushes_a.d.next.valid = self.finishing_a.q.val().valid;
            self.pushes_a.d.next.n_w = self.finishing_a.q.val().pend_w;
            self.pushes_a.d.next.value = true;
            self.pushes_a.d.next.n_z = self.n_z_a.val();
            if self.finishing_a.q.val().lead_entry {
                self.pushes_a.d.next.n_w = 1.into();
                self.pushes_a.d.next.value = false;
                self.pushes_a.d.next.n_z = 0.into();
            }
            self.pushes_a.d.next.weights = self.values_a.weights.val();
            self.pushes_a.d.next.base =
                self.scaled_a.val() + bit_cast::<34, 13>(self.small_a.val());
            self.pushes_a.d.next.offsets = self.finish_a.q.val().offsets;
            self.pushes_a.d.next.last_offset = self.last_offset_a.val();
            self.pushes_a.d.next.fault = self.fault_a.val();
            self.pushes_b.d.next.valid = self.finishing_b.q.val().valid;
            self.pushes_b.d.next.n_w = self.finishing_b.q.val().pend_w;
            self.pushes_b.d.next.value = true;
            self.pushes_b.d.next.n_z = self.n_z_b.val();
            self.pushes_b.d.next.weights = self.values_b.weights.val();
            self.pushes_b.d.next.base = (self.scaled_a.val() + self.scaled_b.val())
                + bit_cast::<34, 13>(
                    (self.small_a.val() + bit_cast::<13, 11>(self.last_offset_a.val()))
                        + self.small_b.val(),
                );
            self.pushes_b.d.next.offsets = self.finish_b.q.val().offsets;
            self.pushes_b.d.next.last_offset = self.last_offset_b.val();
            self.pushes_b.d.next.fault = self.fault_b.val();
        }

        // Pushes leave when all of them fit.
        if !self.room.val() {
            self.push_a.next.n_w = 0.into();
            self.push_a.next.n_z = 0.into();
            self.push_b.next.n_w = 0.into();
            self.push_b.next.n_z = 0.into();
        }
        if self.pushes_a.q.val().valid & self.room.val() & (self.error.q.val() == ErrorCode::None) {
            if self.pushes_a.q.val().fault != ErrorCode::None {
                self.error.d.next = self.pushes_a.q.val().fault;
            } else if self.pushes_b.q.val().valid & (self.pushes_b.q.val().fault != ErrorCode::None)
            {
                self.error.d.next = self.pushes_b.q.val().fault;
            }
        }
        if self.start.val() {
            self.error.d.next = ErrorCode::None;
        }
        self.error_code.next = self.error.q.val();
    }
}

/// Stage 3 for one chunk: the quotients in progress from earlier chunks go
/// to its first completed weight and first ending zero run (or, with none,
/// grow by its whole sums); a quotient over 31 or a run of 2^28 quotient
/// units is a fault.
#[derive(LogicBlock, Default)]
pub struct ChunkCarry {
    /// In progress before the chunk.
    pub weight_quotient: Signal<In, Bits<6>>,
    pub run_quotient: Signal<In, Bits<29>>,
    /// Golomb-Rice weights and zero runs enabled; at least one weight completed.
    pub gr_en: Signal<In, Bit>,
    pub z_en: Signal<In, Bit>,
    pub completes: Signal<In, Bit>,
    pub head: Signal<In, HeadQuotients>,
    /// In progress after the chunk.
    pub weight_quotient_out: Signal<Out, Bits<6>>,
    pub run_quotient_out: Signal<Out, Bits<29>>,
    /// The completed weights' quotients, and the first ending run's.
    pub completed: Signal<Out, Bits<{ ITEMS * 5 }>>,
    pub first_run: Signal<Out, Bits<29>>,
    pub quotient_error: Signal<Out, Bit>,
    pub zero_run_error: Signal<Out, Bit>,
    quotients: Signal<Local, Bits<{ ITEMS * 5 }>>,
    first_weight: Signal<Local, Bits<6>>,
    weight_sum: Signal<Local, Bits<6>>,
    run_sum: Signal<Local, Bits<29>>,
}

impl Logic for ChunkCarry {
    #[hdl_gen]
    fn update(&mut self) {
        // Weights: the first completed one takes the quotient in progress;
        // with none completed, the chunk's whole sum adds to it.
        self.quotients.next = self.head.val().quotients;
        self.first_weight.next =
            self.weight_quotient.val() + bit_cast::<6, 5>(self.quotients.val().get_bits::<5>(0));
        self.weight_sum.next = self.weight_quotient.val() + bit_cast::<6, 5>(self.head.val().total);
        self.weight_quotient_out.next = self.weight_quotient.val();
        self.quotient_error.next = false;
        self.completed.next = self.quotients.val();
        if self.gr_en.val() {
            if self.completes.val() {
                self.weight_quotient_out.next = bit_cast::<6, 5>(self.head.val().tail);
                self.quotient_error.next = self.first_weight.val() > 31;
                self.completed.next = ((self.quotients.val() >> 5) << 5)
                    | bit_cast::<60, 6>(self.first_weight.val() & 31);
            } else {
                self.weight_quotient_out.next = self.weight_sum.val();
                self.quotient_error.next = self.weight_sum.val() > 31;
            }
        }
        // Zero runs: the first ending one takes the run in progress.
        self.first_run.next = self.run_quotient.val() + bit_cast::<29, 4>(self.head.val().z_first);
        self.run_sum.next = self.run_quotient.val() + bit_cast::<29, 4>(self.head.val().z_ones);
        self.run_quotient_out.next = self.run_quotient.val();
        self.zero_run_error.next = false;
        if self.z_en.val() {
            if self.head.val().has_zero {
                self.run_quotient_out.next = bit_cast::<29, 4>(self.head.val().z_tail);
                self.zero_run_error.next = self.first_run.val().get_bit(28);
            } else {
                self.run_quotient_out.next = self.run_sum.val();
                self.zero_run_error.next = self.run_sum.val().get_bit(28);
            }
        }
    }
}
