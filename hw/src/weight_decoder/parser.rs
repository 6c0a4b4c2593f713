//! The stream parser: `zdiv` 7 padding, slice headers, palettes and the chunk
//! boundaries of each slice (TRM 4.7.2 - 4.7.4). Each cycle it reads a slice
//! header, a whole palette, up to 32 bytes of padding, or up to two chunks,
//! and hands each chunk's bits to the value pipeline as a [`ChunkRecord`].
//! Only what the next chunk's position depends on is decided here (each
//! chunk's [`ChunkHead`]); quotients, values and their faults come later, so
//! the loop (window, head, length, window) stays short. A fault found here
//! travels down the pipeline as a record of its own, so faults reach
//! `error_code` in stream order. Palettes live in two banks, so the pipeline
//! reads one slice's while the next slice's loads.
//!
//! Why `update` is one function: it is one state machine (`Phase`: header,
//! palette, padding, chunks) whose every register moves on the same decision,
//! what the window holds and which of them is taken this cycle. Split
//! further, each part would need the whole decision as inputs and the loop
//! would cross module ports, which the synthesis keeps as boundaries.
//!
//! The chunk loop in one cycle, and the palette banks: `docs/weight-decoder.md`.

use super::head::{ChunkHead, HEAD_BITS};
use super::ones::Ones12;
use super::{ErrorCode, PALETTE_ENTRIES, VIEW_BITS};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

// A whole palette (at most 32 9-bit entries) fits in the parser's view.
const _: () = assert!(PALETTE_ENTRIES * 9 <= VIEW_BITS);

/// Bits of the stream a chunk may span: a 36-bit head, 72 remainder bits
/// (8 uncompressed 9-bit indices), 36 zero-run remainder bits.
pub const CHUNK_BITS: usize = 160;
// Two chunks fit in the view (the literal 320 in `update`).
const _: () = assert!(2 * CHUNK_BITS == VIEW_BITS);

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum Phase {
    /// No stream: waiting for `start`.
    Idle,
    /// At a `zdiv` field: padding or a slice header next.
    Header,
    /// Reading palette entries.
    Palette,
    /// Reading the chunks of a slice.
    Chunk,
    /// After an error: discarding the rest of the stream.
    Fail,
}

/// One chunk (its bits travel beside it), or a slice's value-less leading
/// entry, or a fault, for the value pipeline.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ChunkRecord {
    pub valid: Bit,
    /// The first chunk of its slice: quotients in progress start at 0.
    pub first: Bit,
    pub gr_en: Bit,
    pub z_en: Bit,
    /// Weights and zero runs the chunk completes.
    pub k: Bits<4>,
    pub m: Bits<4>,
    /// Weights and zero runs completed by the chunk before, whose
    /// remainders this chunk holds, and where those remainders begin.
    pub pend_w: Bits<4>,
    pub pend_z: Bits<4>,
    pub wrem_at: Bits<6>,
    pub zrem_at: Bits<8>,
    /// The first pending zero run is the slice's leading run (no weight of its own).
    pub lead_run: Bit,
    /// Not a chunk: the value-less entry of a slice's leading zero run.
    pub lead_entry: Bit,
    /// The stream ends inside the chunk's remainders: a fault, reported as
    /// `QuotientOverLimit` if the head already breaks that rule.
    pub truncated: Bit,
    /// A fault found by the parser (`None` otherwise).
    pub fault: ErrorCode,
    /// Slice parameters (TRM 4.7.2): the palette bank, `zdiv` < 4, `zdiv`,
    /// the index shift (`wdiv`, 0 uncompressed), `wtrunc`, 12 `zunary`
    /// bits, the `wremain` width.
    pub bank: Bit,
    pub alternating: Bit,
    pub zdiv: Bits<2>,
    pub wshift: Bits<3>,
    pub wtrunc: Bit,
    pub zunary_12: Bit,
    pub wrem_bits: Bits<4>,
}

#[derive(LogicBlock, Default)]
pub struct Parser {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Begins a stream; `bad_length` says its length is not a whole number of words.
    pub start: Signal<In, Bit>,
    pub bad_length: Signal<In, Bit>,
    /// The bit window: the next stream bits, how many are valid, and whether
    /// the whole stream has arrived.
    pub view: Signal<In, Bits<VIEW_BITS>>,
    pub fill: Signal<In, Bits<10>>,
    pub exhausted: Signal<In, Bit>,
    /// Bits consumed this cycle: all but chunk b's, and chunk b's.
    pub used: Signal<Out, Bits<9>>,
    pub used_b: Signal<Out, Bits<8>>,
    /// The value pipeline takes records this cycle; the records sent.
    pub accept: Signal<In, Bit>,
    pub record_a: Signal<Out, ChunkRecord>,
    pub record_b: Signal<Out, ChunkRecord>,
    /// The chunks' bits from their first (TRM 4.7.1 order).
    pub bits_a: Signal<Out, Bits<CHUNK_BITS>>,
    pub bits_b: Signal<Out, Bits<CHUNK_BITS>>,
    /// The pipeline holds records of palette bank 0 / 1 not yet decoded.
    pub bank_busy: Signal<In, Bits<2>>,
    /// The pipeline met a fault: discard the rest of the stream.
    pub downstream_fault: Signal<In, Bit>,
    /// The palette banks: entries as sign-magnitude codes (entry i in bits
    /// 9i+8..9i), sizes, and `dirofs` - size (11-bit two's complement).
    pub palette_0: Signal<Out, Bits<{ PALETTE_ENTRIES * 9 }>>,
    pub palette_1: Signal<Out, Bits<{ PALETTE_ENTRIES * 9 }>>,
    pub palette_size_0: Signal<Out, Bits<6>>,
    pub palette_size_1: Signal<Out, Bits<6>>,
    pub direct_offset_0: Signal<Out, Bits<11>>,
    pub direct_offset_1: Signal<Out, Bits<11>>,
    /// No stream is being parsed.
    pub idle: Signal<Out, Bit>,
    head_a: ChunkHead,
    head_b: ChunkHead,
    phase: ResetReg<Phase>,
    pos8: ResetReg<Bits<3>>,
    // Slice parameters (TRM 4.7.2).
    alternating: ResetReg<Bit>,
    zdiv: ResetReg<Bits<2>>,
    wdiv: ResetReg<Bits<3>>,
    wtrunc: ResetReg<Bit>,
    // Palette state, kept across slices without newpal.
    have_palette: ResetReg<Bit>,
    bank: ResetReg<Bit>,
    palette_size: ResetReg<Bits<6>>,
    palette_bits: ResetReg<Bits<4>>,
    // Remainder widths: uncompressed indices, weights.
    unc_bits: ResetReg<Bits<4>>,
    wrem_bits: ResetReg<Bits<4>>,
    pal_0: ResetReg<Bits<{ PALETTE_ENTRIES * 9 }>>,
    pal_1: ResetReg<Bits<{ PALETTE_ENTRIES * 9 }>>,
    size_0: ResetReg<Bits<6>>,
    size_1: ResetReg<Bits<6>>,
    offset_0: ResetReg<Bits<11>>,
    offset_1: ResetReg<Bits<11>>,
    // Chunk state: weights and zero runs the slice still codes, quotients
    // completed of weights minus of zero runs (TRM 4.7.4 balance, 6-bit two's
    // complement), completions of the last chunk, the leading run still to
    // come, the slice's first chunk next.
    w_left: ResetReg<Bits<16>>,
    z_left: ResetReg<Bits<16>>,
    balance: ResetReg<Bits<6>>,
    pend_w: ResetReg<Bits<4>>,
    pend_z: ResetReg<Bits<4>>,
    lead_pending: ResetReg<Bit>,
    first: ResetReg<Bit>,
    // Header fields.
    zdiv_field: Signal<Local, Bits<3>>,
    wdiv_field: Signal<Local, Bits<3>>,
    newpal: Signal<Local, Bit>,
    palsize_field: Signal<Local, Bits<5>>,
    header_alternating: Signal<Local, Bit>,
    new_size: Signal<Local, Bits<6>>,
    other_bank_busy: Signal<Local, Bit>,
    // zdiv 7 padding: ones to the byte boundary, and whole 0xff bytes.
    pad: Signal<Local, Bits<3>>,
    pad_ok: Signal<Local, Bit>,
    ff_mask: Signal<Local, Bits<32>>,
    ff_run: Signal<Local, Bits<32>>,
    ff_count: [Ones12; 3],
    ff_bytes: Signal<Local, Bits<6>>,
    // Palette entries.
    next_size: Signal<Local, Bits<6>>,
    next_palette_bits: Signal<Local, Bits<4>>,
    next_wdiv: Signal<Local, Bits<3>>,
    next_unc_bits: Signal<Local, Bits<4>>,
    wrem_8: Signal<Local, Bits<8>>,
    rem_table: Signal<Local, Bits<104>>,
    pal_len: Signal<Local, Bits<9>>,
    raw: Signal<Local, Bits<9>>,
    entries: Signal<Local, Bits<{ PALETTE_ENTRIES * 9 }>>,
    // The chunks: enables, remainder lengths, lengths; b's state after a.
    uncompressed: Signal<Local, Bit>,
    zunary_12: Signal<Local, Bit>,
    w_left_sat: Signal<Local, Bits<5>>,
    z_left_sat: Signal<Local, Bits<5>>,
    rem_w_a: Signal<Local, Bits<8>>,
    rem_z_a: Signal<Local, Bits<8>>,
    len_a: Signal<Local, Bits<8>>,
    balance_b: Signal<Local, Bits<6>>,
    w_true: Signal<Local, Bits<16>>,
    z_true: Signal<Local, Bits<16>>,
    balance_true: Signal<Local, Bits<6>>,
    capped_w_a: Signal<Local, Bit>,
    capped_z_a: Signal<Local, Bit>,
    w_left_b: Signal<Local, Bits<5>>,
    z_left_b: Signal<Local, Bits<5>>,
    w_en_b: Signal<Local, Bit>,
    z_en_b: Signal<Local, Bit>,
    rem_a: Signal<Local, Bits<8>>,
    past_rem_a: Signal<Local, Bits<196>>,
    past_fixed_a: Signal<Local, Bits<172>>,
    bits_at_b: Signal<Local, Bits<CHUNK_BITS>>,
    rem_w_b: Signal<Local, Bits<8>>,
    rem_z_b: Signal<Local, Bits<8>>,
    len_b: Signal<Local, Bits<8>>,
    new_offset: Signal<Local, Bits<11>>,
    slice_weights: Signal<Local, Bits<16>>,
    // What moves this cycle.
    in_header: Signal<Local, Bit>,
    is_padding: Signal<Local, Bit>,
    padding_whole: Signal<Local, Bit>,
    is_slice: Signal<Local, Bit>,
    slice_fields: Signal<Local, Bit>,
    slice_short: Signal<Local, Bit>,
    slice_whole: Signal<Local, Bit>,
    ends_early: Signal<Local, Bit>,
    fault: Signal<Local, ErrorCode>,
    faulted: Signal<Local, Bit>,
    start_taken: Signal<Local, Bit>,
    padding_taken: Signal<Local, Bit>,
    header_taken: Signal<Local, Bit>,
    palette_taken: Signal<Local, Bit>,
    entries_taken: Signal<Local, Bit>,
    truncated: Signal<Local, Bit>,
    take_a: Signal<Local, Bit>,
    take_b: Signal<Local, Bit>,
    lead_entry: Signal<Local, Bit>,
    next_phase: Signal<Local, Phase>,
}

impl Logic for Parser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            phase,
            pos8,
            alternating,
            zdiv,
            wdiv,
            wtrunc,
            have_palette,
            bank,
            palette_size,
            palette_bits,
            unc_bits,
            wrem_bits,
            pal_0,
            pal_1,
            size_0,
            size_1,
            offset_0,
            offset_1,
            w_left,
            z_left,
            balance,
            pend_w,
            pend_z,
            lead_pending,
            first
        );
        self.phase.rst_n.next = self.rst_n.val();
        self.pos8.rst_n.next = self.rst_n.val();
        self.alternating.rst_n.next = self.rst_n.val();
        self.zdiv.rst_n.next = self.rst_n.val();
        self.wdiv.rst_n.next = self.rst_n.val();
        self.wtrunc.rst_n.next = self.rst_n.val();
        self.have_palette.rst_n.next = self.rst_n.val();
        self.bank.rst_n.next = self.rst_n.val();
        self.palette_size.rst_n.next = self.rst_n.val();
        self.palette_bits.rst_n.next = self.rst_n.val();
        self.unc_bits.rst_n.next = self.rst_n.val();
        self.wrem_bits.rst_n.next = self.rst_n.val();
        self.pal_0.rst_n.next = self.rst_n.val();
        self.pal_1.rst_n.next = self.rst_n.val();
        self.size_0.rst_n.next = self.rst_n.val();
        self.size_1.rst_n.next = self.rst_n.val();
        self.offset_0.rst_n.next = self.rst_n.val();
        self.offset_1.rst_n.next = self.rst_n.val();
        self.w_left.rst_n.next = self.rst_n.val();
        self.z_left.rst_n.next = self.rst_n.val();
        self.balance.rst_n.next = self.rst_n.val();
        self.pend_w.rst_n.next = self.rst_n.val();
        self.pend_z.rst_n.next = self.rst_n.val();
        self.lead_pending.rst_n.next = self.rst_n.val();
        self.first.rst_n.next = self.rst_n.val();

        self.idle.next = self.phase.q.val() == Phase::Idle;
        self.palette_0.next = self.pal_0.q.val();
        self.palette_1.next = self.pal_1.q.val();
        self.palette_size_0.next = self.size_0.q.val();
        self.palette_size_1.next = self.size_1.q.val();
        self.direct_offset_0.next = self.offset_0.q.val();
        self.direct_offset_1.next = self.offset_1.q.val();

        self.uncompressed.next = self.wdiv.q.val() == 7;
        self.zunary_12.next = self.zdiv.q.val() < 3;

        // Header fields (TRM 4.7.2).
        self.other_bank_busy.next = self.bank_busy.val().get_bit(1);
        if self.bank.q.val() {
            self.other_bank_busy.next = self.bank_busy.val().get_bit(0);
        }
        self.zdiv_field.next = self.view.val().get_bits::<3>(0);
        self.wdiv_field.next = self.view.val().get_bits::<3>(18);
        self.newpal.next = self.view.val().get_bit(22);
        self.palsize_field.next = self.view.val().get_bits::<5>(28);
        self.header_alternating.next = self.zdiv_field.val() < 4;
        self.new_size.next = 0.into();
        if self.palsize_field.val() != 0 {
            self.new_size.next = bit_cast::<6, 5>(self.palsize_field.val()) + 1;
        }
        self.new_offset.next = bit_cast::<11, 5>(self.view.val().get_bits::<5>(23))
            - bit_cast::<11, 6>(self.new_size.val());

        // zdiv 7: ones up to the byte boundary (TRM 4.7.2), at byte
        // boundaries whole 0xff bytes, up to 32 of them at once: the run of
        // ones at the bottom of the byte mask (cleared from its first zero
        // by adding one), counted.
        self.pad.next = 5 - self.pos8.q.val();
        self.pad_ok.next = true;
        for i in 0..7 {
            if (i.to_bits::<3>() < self.pad.val()) & !self.view.val().get_bit(i + 3) {
                self.pad_ok.next = false;
            }
        }
        // The window's bits past `fill` are 0, so a 0xff byte lies wholly in it.
        self.ff_mask.next = 0.into();
        for b in 0..32 {
            if self.view.val().get_bits::<8>(b * 8) == 0xFF {
                self.ff_mask.next = self.ff_mask.val().replace_bit(b, true);
            }
        }
        self.ff_run.next = self.ff_mask.val() & !(self.ff_mask.val() + 1);
        self.ff_count[0].bits.next = self.ff_run.val().get_bits::<12>(0);
        self.ff_count[1].bits.next = self.ff_run.val().get_bits::<12>(12);
        self.ff_count[2].bits.next = bit_cast::<12, 8>(self.ff_run.val().get_bits::<8>(24));
        self.ff_bytes.next = (bit_cast::<6, 4>(self.ff_count[0].count.val())
            + bit_cast::<6, 4>(self.ff_count[1].count.val()))
            + bit_cast::<6, 4>(self.ff_count[2].count.val());

        // Palette entries: all in one cycle, palette_bits (2-9) each; the
        // entries past palette_size are never read.
        self.pal_len.next = bit_cast::<9, 32>(
            bit_cast::<16, 6>(self.palette_size.q.val())
                * bit_cast::<16, 4>(self.palette_bits.q.val()),
        );
        self.entries.next = 0.into();
        self.raw.next = 0.into();
        match self.palette_bits.q.val().index() {
            2 => {
                for e in 0..PALETTE_ENTRIES {
                    self.raw.next = self.view.val().get_bits::<9>(e * 2) & 3;
                    self.entries.next = self.entries.val()
                        | (bit_cast::<{ PALETTE_ENTRIES * 9 }, 9>(self.raw.val())
                            << (e * 9).to_bits::<9>());
                }
            }
            3 => {
                for e in 0..PALETTE_ENTRIES {
                    self.raw.next = self.view.val().get_bits::<9>(e * 3) & 7;
                    self.entries.next = self.entries.val()
                        | (bit_cast::<{ PALETTE_ENTRIES * 9 }, 9>(self.raw.val())
                            << (e * 9).to_bits::<9>());
                }
            }
            4 => {
                for e in 0..PALETTE_ENTRIES {
                    self.raw.next = self.view.val().get_bits::<9>(e * 4) & 15;
                    self.entries.next = self.entries.val()
                        | (bit_cast::<{ PALETTE_ENTRIES * 9 }, 9>(self.raw.val())
                            << (e * 9).to_bits::<9>());
                }
            }
            5 => {
                for e in 0..PALETTE_ENTRIES {
                    self.raw.next = self.view.val().get_bits::<9>(e * 5) & 31;
                    self.entries.next = self.entries.val()
                        | (bit_cast::<{ PALETTE_ENTRIES * 9 }, 9>(self.raw.val())
                            << (e * 9).to_bits::<9>());
                }
            }
            6 => {
                for e in 0..PALETTE_ENTRIES {
                    self.raw.next = self.view.val().get_bits::<9>(e * 6) & 63;
                    self.entries.next = self.entries.val()
                        | (bit_cast::<{ PALETTE_ENTRIES * 9 }, 9>(self.raw.val())
                            << (e * 9).to_bits::<9>());
                }
            }
            7 => {
                for e in 0..PALETTE_ENTRIES {
                    self.raw.next = self.view.val().get_bits::<9>(e * 7) & 127;
                    self.entries.next = self.entries.val()
                        | (bit_cast::<{ PALETTE_ENTRIES * 9 }, 9>(self.raw.val())
                            << (e * 9).to_bits::<9>());
                }
            }
            8 => {
                for e in 0..PALETTE_ENTRIES {
                    self.raw.next = self.view.val().get_bits::<9>(e * 8) & 255;
                    self.entries.next = self.entries.val()
                        | (bit_cast::<{ PALETTE_ENTRIES * 9 }, 9>(self.raw.val())
                            << (e * 9).to_bits::<9>());
                }
            }
            9 => {
                for e in 0..PALETTE_ENTRIES {
                    self.raw.next = self.view.val().get_bits::<9>(e * 9) & 511;
                    self.entries.next = self.entries.val()
                        | (bit_cast::<{ PALETTE_ENTRIES * 9 }, 9>(self.raw.val())
                            << (e * 9).to_bits::<9>());
                }
            }
            _ => {}
        }

        // The chunk state registers hold the state before the last chunk
        // taken, whose completions are `pend_w`/`pend_z`: taking them off
        // here, from registers, keeps them out of the chunk loop.
        self.w_true.next = self.w_left.q.val() - bit_cast::<16, 4>(self.pend_w.q.val());
        self.z_true.next = self.z_left.q.val() - bit_cast::<16, 4>(self.pend_z.q.val());
        self.balance_true.next = (self.balance.q.val() + bit_cast::<6, 4>(self.pend_w.q.val()))
            - bit_cast::<6, 4>(self.pend_z.q.val());
        self.w_left_sat.next = bit_cast::<5, 16>(self.w_true.val());
        if self.w_true.val() > 31 {
            self.w_left_sat.next = 31.into();
        }
        self.z_left_sat.next = bit_cast::<5, 16>(self.z_true.val());
        if self.z_true.val() > 31 {
            self.z_left_sat.next = 31.into();
        }
        // j * wrem_bits at bits 8j+7..8j, j = 0..12: chunk b's weight
        // remainders are looked up once chunk a's completions are known, not
        // multiplied.
        self.wrem_8.next = bit_cast::<8, 4>(self.wrem_bits.q.val());
        self.rem_table.next = bit_cast::<104, 8>(self.wrem_8.val()) << 8
            | bit_cast::<104, 8>(self.wrem_8.val() << 1) << 16
            | bit_cast::<104, 8>((self.wrem_8.val() << 1) + self.wrem_8.val()) << 24
            | bit_cast::<104, 8>(self.wrem_8.val() << 2) << 32
            | bit_cast::<104, 8>((self.wrem_8.val() << 2) + self.wrem_8.val()) << 40
            | bit_cast::<104, 8>((self.wrem_8.val() << 2) + (self.wrem_8.val() << 1)) << 48
            | bit_cast::<104, 8>((self.wrem_8.val() << 3) - self.wrem_8.val()) << 56
            | bit_cast::<104, 8>(self.wrem_8.val() << 3) << 64
            | bit_cast::<104, 8>((self.wrem_8.val() << 3) + self.wrem_8.val()) << 72
            | bit_cast::<104, 8>((self.wrem_8.val() << 3) + (self.wrem_8.val() << 1)) << 80
            | bit_cast::<104, 8>(
                (self.wrem_8.val() << 3) + ((self.wrem_8.val() << 1) + self.wrem_8.val()),
            ) << 88
            | bit_cast::<104, 8>((self.wrem_8.val() << 3) + (self.wrem_8.val() << 2)) << 96;

        // Chunk a: at the window's start.
        self.head_a.bits.next = self.view.val().get_bits::<HEAD_BITS>(0);
        self.head_a.w_en.next = (self.w_left.q.val() != bit_cast::<16, 4>(self.pend_w.q.val()))
            & (!self.alternating.q.val()
                | self.balance_true.val().get_bit(5)
                | (self.balance_true.val().get_bits::<3>(3) == 0));
        self.head_a.z_en.next = self.alternating.q.val()
            & !self.balance_true.val().get_bit(5)
            & (self.z_left.q.val() != bit_cast::<16, 4>(self.pend_z.q.val()));
        self.head_a.uncompressed.next = self.uncompressed.val();
        self.head_a.wtrunc.next = self.wtrunc.q.val();
        self.head_a.zunary_12.next = self.zunary_12.val();
        self.head_a.per_chunk_12.next = self.unc_bits.q.val() <= 5;
        self.head_a.w_left.next = self.w_left_sat.val();
        self.head_a.z_left.next = self.z_left_sat.val();
        self.rem_w_a.next = bit_cast::<8, 32>(
            bit_cast::<16, 4>(self.pend_w.q.val()) * bit_cast::<16, 4>(self.wrem_bits.q.val()),
        );
        self.rem_z_a.next = bit_cast::<8, 32>(
            bit_cast::<16, 4>(self.pend_z.q.val()) * bit_cast::<16, 2>(self.zdiv.q.val()),
        );
        self.rem_a.next = self.rem_w_a.val() + self.rem_z_a.val();
        self.len_a.next = bit_cast::<8, 6>(self.head_a.head_len.val()) + self.rem_a.val();

        // Chunk b: where a ends, with the state after a. Whether chunk a meets the slice's end (its counts capped) is known
        // before its capped counts are: the balance after a is taken from
        // whichever of its three forms applies (an end met leaves that kind
        // disabled in b, so the other form decides).
        self.capped_w_a.next = bit_cast::<5, 4>(self.head_a.k_all.val()) > self.w_left_sat.val();
        self.capped_z_a.next = bit_cast::<5, 4>(self.head_a.m_all.val()) > self.z_left_sat.val();
        self.balance_b.next = (self.balance_true.val() + bit_cast::<6, 4>(self.head_a.k_all.val()))
            - bit_cast::<6, 4>(self.head_a.m_all.val());
        if self.capped_z_a.val() {
            self.balance_b.next = (self.balance_true.val()
                + bit_cast::<6, 4>(self.head_a.k_all.val()))
                - bit_cast::<6, 5>(self.z_left_sat.val());
        }
        if self.capped_w_a.val() {
            self.balance_b.next = (self.balance_true.val()
                + bit_cast::<6, 5>(self.w_left_sat.val()))
                - bit_cast::<6, 4>(self.head_a.m_all.val());
        }
        self.w_left_b.next = self.w_left_sat.val() - bit_cast::<5, 4>(self.head_a.k_all.val());
        self.z_left_b.next = self.z_left_sat.val() - bit_cast::<5, 4>(self.head_a.m_all.val());
        self.w_en_b.next = (bit_cast::<5, 4>(self.head_a.k_all.val()) < self.w_left_sat.val())
            & (!self.alternating.q.val()
                | self.balance_b.val().get_bit(5)
                | (self.balance_b.val().get_bits::<3>(3) == 0));
        self.z_en_b.next = self.alternating.q.val()
            & !self.balance_b.val().get_bit(5)
            & (bit_cast::<5, 4>(self.head_a.m_all.val()) < self.z_left_sat.val());
        // Where chunk a ends, in three shifts as its length's parts arrive:
        // the remainders (from registers), the enables' part of the head,
        // the ones of `wunary0`.
        self.past_rem_a.next = self.view.val().get_bits::<196>(self.rem_a.val().index());
        self.past_fixed_a.next = self
            .past_rem_a
            .val()
            .get_bits::<172>(self.head_a.fixed_len.val().index());
        self.bits_at_b.next = self
            .past_fixed_a
            .val()
            .get_bits::<CHUNK_BITS>(self.head_a.wu0_count.val().index());
        self.head_b.bits.next = self.bits_at_b.val().get_bits::<HEAD_BITS>(0);
        self.head_b.w_en.next = self.w_en_b.val();
        self.head_b.z_en.next = self.z_en_b.val();
        self.head_b.uncompressed.next = self.uncompressed.val();
        self.head_b.wtrunc.next = self.wtrunc.q.val();
        self.head_b.zunary_12.next = self.zunary_12.val();
        self.head_b.per_chunk_12.next = self.unc_bits.q.val() <= 5;
        self.head_b.w_left.next = self.w_left_b.val();
        self.head_b.z_left.next = self.z_left_b.val();
        self.rem_w_b.next = self
            .rem_table
            .val()
            .get_bits::<8>((bit_cast::<7, 4>(self.head_a.k.val()) << 3).index());
        self.rem_z_b.next = bit_cast::<8, 32>(
            bit_cast::<16, 4>(self.head_a.m.val()) * bit_cast::<16, 2>(self.zdiv.q.val()),
        );
        self.len_b.next = (bit_cast::<8, 6>(self.head_b.head_len.val()) + self.rem_w_b.val())
            + self.rem_z_b.val();

        // The records as chunks a and b would send them; `valid` decides.
        self.record_a.next.valid = false;
        self.bits_a.next = self.view.val().get_bits::<CHUNK_BITS>(0);
        self.record_a.next.first = self.first.q.val();
        self.record_a.next.gr_en = self.head_a.gr_en.val();
        self.record_a.next.z_en = self.head_a.z_en.val();
        self.record_a.next.k = self.head_a.k.val();
        self.record_a.next.m = self.head_a.m.val();
        self.record_a.next.pend_w = self.pend_w.q.val();
        self.record_a.next.pend_z = self.pend_z.q.val();
        self.record_a.next.wrem_at = self.head_a.head_len.val();
        self.record_a.next.zrem_at =
            bit_cast::<8, 6>(self.head_a.head_len.val()) + self.rem_w_a.val();
        self.record_a.next.lead_run = self.lead_pending.q.val() & (self.pend_z.q.val() != 0);
        self.record_a.next.lead_entry = false;
        self.record_a.next.truncated = false;
        self.record_a.next.fault = ErrorCode::None;
        self.record_a.next.bank = self.bank.q.val();
        self.record_a.next.alternating = self.alternating.q.val();
        self.record_a.next.zdiv = self.zdiv.q.val();
        self.record_a.next.wshift = self.wdiv.q.val();
        if self.uncompressed.val() {
            self.record_a.next.wshift = 0.into();
        }
        self.record_a.next.wtrunc = self.wtrunc.q.val();
        self.record_a.next.zunary_12 = self.zunary_12.val();
        self.record_a.next.wrem_bits = self.wrem_bits.q.val();

        self.record_b.next = self.record_a.val();
        self.record_b.next.valid = false;
        self.bits_b.next = self.bits_at_b.val();
        self.record_b.next.first = false;
        self.record_b.next.gr_en = self.head_b.gr_en.val();
        self.record_b.next.z_en = self.z_en_b.val();
        self.record_b.next.k = self.head_b.k.val();
        self.record_b.next.m = self.head_b.m.val();
        self.record_b.next.pend_w = self.head_a.k.val();
        self.record_b.next.pend_z = self.head_a.m.val();
        self.record_b.next.wrem_at = self.head_b.head_len.val();
        self.record_b.next.zrem_at =
            bit_cast::<8, 6>(self.head_b.head_len.val()) + self.rem_w_b.val();
        self.record_b.next.lead_run =
            self.lead_pending.q.val() & (self.pend_z.q.val() == 0) & (self.head_a.m.val() != 0);

        // The fault the stream meets here, if any, from flat conditions (at
        // most one holds): a chain of branches would be as deep as it is long.
        self.in_header.next = (self.phase.q.val() == Phase::Header) & (self.fill.val() != 0);
        self.is_padding.next =
            self.in_header.val() & (self.fill.val() >= 3) & (self.zdiv_field.val() == 7);
        self.padding_whole.next = self.fill.val() >= bit_cast::<10, 3>(self.pad.val()) + 3;
        self.is_slice.next = self.in_header.val()
            & (self.fill.val() >= 3)
            & (self.zdiv_field.val() != 7)
            & (self.zdiv_field.val() != 4)
            & (self.zdiv_field.val() != 5);
        self.slice_fields.next =
            self.is_slice.val() & (self.fill.val() >= 21) & (self.wdiv_field.val() != 6);
        self.slice_short.next =
            (self.fill.val() < 23) | (self.newpal.val() & (self.fill.val() < 36));
        self.slice_whole.next = self.slice_fields.val() & !self.slice_short.val();
        self.ends_early.next = self.exhausted.val()
            & ((self.in_header.val() & (self.fill.val() < 3))
                | (self.is_padding.val() & !self.padding_whole.val())
                | (self.is_slice.val() & (self.fill.val() < 21))
                | (self.slice_fields.val() & self.slice_short.val())
                | ((self.phase.q.val() == Phase::Palette)
                    & (self.fill.val() < bit_cast::<10, 9>(self.pal_len.val())))
                | ((self.phase.q.val() == Phase::Chunk)
                    & (self.fill.val() < bit_cast::<10, 6>(self.head_a.head_len.val()))));
        self.fault.next = ErrorCode::None;
        if (self.phase.q.val() == Phase::Idle) & self.start.val() & self.bad_length.val() {
            self.fault.next = ErrorCode::NotWordAligned;
        }
        if self.ends_early.val() {
            self.fault.next = ErrorCode::UnexpectedEnd;
        }
        if self.is_padding.val() & self.padding_whole.val() & !self.pad_ok.val() {
            self.fault.next = ErrorCode::BadByteAlign;
        }
        if self.in_header.val()
            & (self.fill.val() >= 3)
            & ((self.zdiv_field.val() == 4) | (self.zdiv_field.val() == 5))
        {
            self.fault.next = ErrorCode::BadZdiv;
        }
        if self.is_slice.val() & (self.fill.val() >= 21) & (self.wdiv_field.val() == 6) {
            self.fault.next = ErrorCode::BadWdiv;
        }
        if self.slice_whole.val() & !self.newpal.val() & !self.have_palette.q.val() {
            self.fault.next = ErrorCode::FirstSliceWithoutPalette;
        }
        if self.slice_whole.val()
            & !self.newpal.val()
            & self.have_palette.q.val()
            & (self.header_alternating.val() != self.alternating.q.val())
        {
            self.fault.next = ErrorCode::ModeChangeWithoutNewpal;
        }

        // What moves this cycle; nothing does while the pipeline is full. At
        // most one of these holds but the chunks (b only with a), and none
        // with a fault.
        self.faulted.next = self.accept.val() & (self.fault.val() != ErrorCode::None);
        self.start_taken.next =
            self.accept.val() & (self.phase.q.val() == Phase::Idle) & self.start.val();
        self.padding_taken.next = self.accept.val()
            & self.is_padding.val()
            & self.padding_whole.val()
            & self.pad_ok.val();
        self.header_taken.next = self.accept.val()
            & self.slice_whole.val()
            & (self.newpal.val() | self.have_palette.q.val())
            & (self.newpal.val() | (self.header_alternating.val() == self.alternating.q.val()))
            & (!self.newpal.val() | !self.other_bank_busy.val());
        self.palette_taken.next = self.header_taken.val() & self.newpal.val();
        self.entries_taken.next = self.accept.val()
            & (self.phase.q.val() == Phase::Palette)
            & (self.fill.val() >= bit_cast::<10, 9>(self.pal_len.val()));
        // The value pipeline judges a truncated chunk's head quotients first.
        self.truncated.next = self.accept.val()
            & (self.phase.q.val() == Phase::Chunk)
            & (self.fill.val() >= bit_cast::<10, 6>(self.head_a.head_len.val()))
            & (self.fill.val() < bit_cast::<10, 8>(self.len_a.val()))
            & self.exhausted.val();
        self.take_a.next = self.accept.val()
            & (self.phase.q.val() == Phase::Chunk)
            & (self.fill.val() >= bit_cast::<10, 8>(self.len_a.val()));
        self.take_b.next = self.take_a.val() & !self.head_a.last.val() & (self.fill.val() >= 320);
        // The leading zero run goes with a value-less entry (TRM 4.7.3.3).
        self.lead_entry.next = self.palette_taken.val() & self.header_alternating.val();

        self.record_a.next.valid =
            self.take_a.val() | self.lead_entry.val() | self.truncated.val() | self.faulted.val();
        self.record_a.next.lead_entry = self.lead_entry.val();
        self.record_a.next.truncated = self.truncated.val();
        self.record_a.next.fault = self.fault.val();
        self.record_b.next.valid = self.take_b.val();

        self.used.next = 0.into();
        if self.padding_taken.val() {
            self.used.next = bit_cast::<9, 3>(self.pad.val()) + 3;
            if self.pos8.q.val() == 0 {
                self.used.next = bit_cast::<9, 6>(self.ff_bytes.val()) << 3;
            }
        }
        if self.header_taken.val() {
            self.used.next = 23.into();
            if self.newpal.val() {
                self.used.next = 36.into();
            }
        }
        if self.entries_taken.val() {
            // Entries past palette_size are never read.
            self.used.next = self.pal_len.val();
        }
        if self.accept.val() & (self.phase.q.val() == Phase::Fail) {
            // Discard the rest of the stream, never more than its length.
            self.used.next = bit_cast::<9, 10>(self.fill.val());
            if self.fill.val() > 256 {
                self.used.next = 256.into();
            }
        }
        if self.take_a.val() {
            self.used.next = bit_cast::<9, 8>(self.len_a.val());
        }
        self.used_b.next = 0.into();
        if self.take_b.val() {
            self.used_b.next = self.len_b.val();
        }

        // A slice header: latch it and start its chunks.
        if self.start_taken.val() {
            self.have_palette.d.next = false;
        }
        if self.header_taken.val() {
            self.alternating.d.next = self.header_alternating.val();
            self.zdiv.d.next = bit_cast::<2, 3>(self.zdiv_field.val());
            self.wtrunc.d.next = self.view.val().get_bit(21);
        }
        // The other bank takes a new palette.
        if self.palette_taken.val() {
            self.have_palette.d.next = true;
            self.bank.d.next = !self.bank.q.val();
            if self.bank.q.val() {
                self.size_0.d.next = self.new_size.val();
                self.offset_0.d.next = self.new_offset.val();
            } else {
                self.size_1.d.next = self.new_size.val();
                self.offset_1.d.next = self.new_offset.val();
            }
        }
        if self.entries_taken.val() {
            if self.bank.q.val() {
                self.pal_1.d.next = self.entries.val();
            } else {
                self.pal_0.d.next = self.entries.val();
            }
        }

        // The chunk state: set by a header, advanced by chunks a and b.
        self.slice_weights.next = bit_cast::<16, 15>(self.view.val().get_bits::<15>(3)) + 1;
        if self.header_taken.val() {
            self.w_left.d.next = self.slice_weights.val();
            self.z_left.d.next = 0.into();
            if self.header_alternating.val() {
                self.z_left.d.next = self.slice_weights.val() + self.newpal.val();
            }
            self.balance.d.next = 0.into();
            self.pend_w.d.next = 0.into();
            self.pend_z.d.next = 0.into();
            self.first.d.next = true;
        }
        if self.take_a.val() {
            self.w_left.d.next = self.w_true.val();
            self.z_left.d.next = self.z_true.val();
            self.balance.d.next = self.balance_true.val();
            self.pend_w.d.next = self.head_a.k.val();
            self.pend_z.d.next = self.head_a.m.val();
            self.first.d.next = false;
        }
        if self.take_b.val() {
            self.w_left.d.next = self.w_true.val() - bit_cast::<16, 4>(self.head_a.k.val());
            self.z_left.d.next = self.z_true.val() - bit_cast::<16, 4>(self.head_a.m.val());
            self.balance.d.next = self.balance_b.val();
            self.pend_w.d.next = self.head_b.k.val();
            self.pend_z.d.next = self.head_b.m.val();
        }
        // The leading run is pending from a header with a new palette until a
        // chunk completes a zero run.
        self.lead_pending.d.next = (self.lead_pending.q.val()
            & !(self.take_a.val() & (self.pend_z.q.val() != 0))
            & !(self.take_b.val() & (self.head_a.m.val() != 0))
            & !self.header_taken.val())
            | self.lead_entry.val();
        // The remainder widths, registered (they change only with a header
        // or a palette), from the values the registers take.
        // TRM 4.7.3.2.2: uncompressed_bits = ceil(log2(palette_size)), or
        // palette_bits in direct mode.
        self.next_size.next = self.palette_size.q.val();
        self.next_palette_bits.next = self.palette_bits.q.val();
        if self.palette_taken.val() {
            self.next_size.next = self.new_size.val();
            self.next_palette_bits.next = bit_cast::<4, 3>(self.view.val().get_bits::<3>(33)) + 2;
        }
        self.next_wdiv.next = self.wdiv.q.val();
        if self.header_taken.val() {
            self.next_wdiv.next = self.wdiv_field.val();
        }
        self.next_unc_bits.next = self.next_palette_bits.val();
        if self.next_size.val() != 0 {
            self.next_unc_bits.next = 5.into();
            if self.next_size.val() <= 16 {
                self.next_unc_bits.next = 4.into();
            }
            if self.next_size.val() <= 8 {
                self.next_unc_bits.next = 3.into();
            }
            if self.next_size.val() <= 4 {
                self.next_unc_bits.next = 2.into();
            }
            if self.next_size.val() <= 2 {
                self.next_unc_bits.next = 1.into();
            }
        }
        self.unc_bits.d.next = self.next_unc_bits.val();
        self.wrem_bits.d.next = bit_cast::<4, 3>(self.next_wdiv.val());
        if self.next_wdiv.val() == 7 {
            self.wrem_bits.d.next = self.next_unc_bits.val();
        }
        self.palette_size.d.next = self.next_size.val();
        self.palette_bits.d.next = self.next_palette_bits.val();
        self.wdiv.d.next = self.next_wdiv.val();

        // The next phase from flat conditions: a chain of assignments through
        // the branches above would be as deep as they are many.
        self.next_phase.next = self.phase.q.val();
        if self.start_taken.val() {
            self.next_phase.next = Phase::Header;
        }
        if self.accept.val()
            & ((self.phase.q.val() == Phase::Header) | (self.phase.q.val() == Phase::Fail))
            & self.exhausted.val()
            & (self.fill.val() == 0)
        {
            self.next_phase.next = Phase::Idle;
        }
        if self.header_taken.val() {
            self.next_phase.next = Phase::Chunk;
            if self.newpal.val() & (self.palsize_field.val() != 0) {
                self.next_phase.next = Phase::Palette;
            }
        }
        if self.entries_taken.val() {
            self.next_phase.next = Phase::Chunk;
        }
        if (self.take_a.val() & !self.take_b.val() & self.head_a.last.val())
            | (self.take_b.val() & self.head_b.last.val())
        {
            self.next_phase.next = Phase::Header;
        }
        if self.truncated.val() | self.faulted.val() {
            self.next_phase.next = Phase::Fail;
        }
        if self.downstream_fault.val()
            & (self.phase.q.val() != Phase::Idle)
            & (self.phase.q.val() != Phase::Fail)
        {
            self.next_phase.next = Phase::Fail;
        }
        self.phase.d.next = self.next_phase.val();
        self.pos8.d.next = (self.pos8.q.val() + bit_cast::<3, 9>(self.used.val()))
            + bit_cast::<3, 8>(self.used_b.val());
        if self.start.val() {
            self.pos8.d.next = 0.into();
        }
    }
}
