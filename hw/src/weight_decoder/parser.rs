//! The stream parser: `zdiv` 7 padding, slice headers, palettes and the chunk
//! sequence of each slice (TRM 4.7.2 - 4.7.4). Each cycle it reads a slice
//! header, a whole palette, up to 32 bytes of padding, or two chunks: the
//! second chunk decoder starts where the first ends and its result is taken
//! when it fits in the window and the pair buffer and is free of faults
//! (a fault is then reported by the first decoder in the next cycle).

use super::chunk::{ChunkDecoder, CHUNK_VIEW_BITS};
use super::{ErrorCode, ITEM_SLOTS, PALETTE_ENTRIES, VIEW_BITS};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

// A whole palette (at most 32 9-bit entries) fits in the parser's view.
const _: () = assert!(PALETTE_ENTRIES * 9 <= VIEW_BITS);

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
    pub fill: Signal<In, Bits<9>>,
    pub exhausted: Signal<In, Bit>,
    /// Bits consumed this cycle.
    pub used: Signal<Out, Bits<9>>,
    /// Items for the pair buffer, in two groups (one per chunk decoder):
    /// `push_*_w` weights (`push_a_value` low for the value-less entry that
    /// carries a slice's leading zero run) and `push_*_z` zero runs, group a
    /// first; and the room the buffer has for each kind.
    pub push_a_w: Signal<Out, Bits<4>>,
    pub push_a_value: Signal<Out, Bit>,
    pub push_a_weights: Signal<Out, Bits<{ ITEM_SLOTS * 9 }>>,
    pub push_a_z: Signal<Out, Bits<4>>,
    pub push_a_runs: Signal<Out, Bits<{ ITEM_SLOTS * 32 }>>,
    pub push_b_w: Signal<Out, Bits<4>>,
    pub push_b_weights: Signal<Out, Bits<{ ITEM_SLOTS * 9 }>>,
    pub push_b_z: Signal<Out, Bits<4>>,
    pub push_b_runs: Signal<Out, Bits<{ ITEM_SLOTS * 32 }>>,
    pub w_room: Signal<In, Bits<7>>,
    pub z_room: Signal<In, Bits<7>>,
    /// No stream is being parsed.
    pub idle: Signal<Out, Bit>,
    /// The first error met in the stream, 0 if none (see [`ErrorCode`]).
    pub error_code: Signal<Out, ErrorCode>,
    chunk_a: ChunkDecoder,
    chunk_b: ChunkDecoder,
    phase: ResetReg<Phase>,
    error: ResetReg<ErrorCode>,
    pos8: ResetReg<Bits<3>>,
    // Slice parameters (TRM 4.7.2).
    alternating: ResetReg<Bit>,
    zdiv: ResetReg<Bits<2>>,
    wdiv: ResetReg<Bits<3>>,
    wtrunc: ResetReg<Bit>,
    w_cnt: ResetReg<Bits<16>>,
    z_cnt: ResetReg<Bits<16>>,
    // Palette state, kept across slices without newpal.
    have_palette: ResetReg<Bit>,
    palette: ResetReg<Bits<{ PALETTE_ENTRIES * 9 }>>,
    palette_size: ResetReg<Bits<6>>,
    palette_bits: ResetReg<Bits<4>>,
    dirofs: ResetReg<Bits<5>>,
    // Chunk state between chunks (see ChunkDecoder).
    wq_i: ResetReg<Bits<16>>,
    zq_i: ResetReg<Bits<16>>,
    wq: ResetReg<Bits<5>>,
    zq: ResetReg<Bits<28>>,
    pend_w: ResetReg<Bits<4>>,
    pend_wq: ResetReg<Bits<60>>,
    pend_z: ResetReg<Bits<4>>,
    pend_zq0: ResetReg<Bits<28>>,
    pend_zq: ResetReg<Bits<48>>,
    // Header fields.
    zdiv_field: Signal<Local, Bits<3>>,
    wdiv_field: Signal<Local, Bits<3>>,
    newpal: Signal<Local, Bit>,
    palsize_field: Signal<Local, Bits<5>>,
    header_alternating: Signal<Local, Bit>,
    // zdiv 7 padding: ones to the byte boundary, and whole 0xff bytes.
    pad: Signal<Local, Bits<3>>,
    pad_ok: Signal<Local, Bit>,
    ff_bytes: Signal<Local, Bits<6>>,
    ff_run: Signal<Local, Bit>,
    // Palette entries.
    unc_bits: Signal<Local, Bits<4>>,
    pal_off: Signal<Local, Bits<9>>,
    raw: Signal<Local, Bits<9>>,
    entries: Signal<Local, Bits<{ PALETTE_ENTRIES * 9 }>>,
    // The second chunk: its length after the first, whether it is taken.
    len_ab: Signal<Local, Bits<9>>,
    take_b: Signal<Local, Bit>,
    fail_code: Signal<Local, ErrorCode>,
}

impl Logic for Parser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            phase,
            error,
            pos8,
            alternating,
            zdiv,
            wdiv,
            wtrunc,
            w_cnt,
            z_cnt,
            have_palette,
            palette,
            palette_size,
            palette_bits,
            dirofs,
            wq_i,
            zq_i,
            wq,
            zq,
            pend_w,
            pend_wq,
            pend_z,
            pend_zq0,
            pend_zq
        );
        self.phase.rst_n.next = self.rst_n.val();
        self.error.rst_n.next = self.rst_n.val();
        self.pos8.rst_n.next = self.rst_n.val();
        self.alternating.rst_n.next = self.rst_n.val();
        self.zdiv.rst_n.next = self.rst_n.val();
        self.wdiv.rst_n.next = self.rst_n.val();
        self.wtrunc.rst_n.next = self.rst_n.val();
        self.w_cnt.rst_n.next = self.rst_n.val();
        self.z_cnt.rst_n.next = self.rst_n.val();
        self.have_palette.rst_n.next = self.rst_n.val();
        self.palette.rst_n.next = self.rst_n.val();
        self.palette_size.rst_n.next = self.rst_n.val();
        self.palette_bits.rst_n.next = self.rst_n.val();
        self.dirofs.rst_n.next = self.rst_n.val();
        self.wq_i.rst_n.next = self.rst_n.val();
        self.zq_i.rst_n.next = self.rst_n.val();
        self.wq.rst_n.next = self.rst_n.val();
        self.zq.rst_n.next = self.rst_n.val();
        self.pend_w.rst_n.next = self.rst_n.val();
        self.pend_wq.rst_n.next = self.rst_n.val();
        self.pend_z.rst_n.next = self.rst_n.val();
        self.pend_zq0.rst_n.next = self.rst_n.val();
        self.pend_zq.rst_n.next = self.rst_n.val();

        self.idle.next = self.phase.q.val() == Phase::Idle;
        self.error_code.next = self.error.q.val();

        // TRM 4.7.3.2.2: uncompressed_bits = ceil(log2(palette_size)), or
        // palette_bits in direct mode.
        self.unc_bits.next = self.palette_bits.q.val();
        if self.palette_size.q.val() != 0 {
            self.unc_bits.next = 5.into();
            if self.palette_size.q.val() <= 16 {
                self.unc_bits.next = 4.into();
            }
            if self.palette_size.q.val() <= 8 {
                self.unc_bits.next = 3.into();
            }
            if self.palette_size.q.val() <= 4 {
                self.unc_bits.next = 2.into();
            }
            if self.palette_size.q.val() <= 2 {
                self.unc_bits.next = 1.into();
            }
        }

        // The chunk decoders see the slice parameters; the first the window
        // and the chunk state, the second what follows the first chunk.
        self.chunk_a.bits.next = bit_cast::<CHUNK_VIEW_BITS, VIEW_BITS>(self.view.val());
        self.chunk_b.bits.next = self
            .view
            .val()
            .get_bits::<CHUNK_VIEW_BITS>(self.chunk_a.len.val().index());
        self.chunk_a.alternating.next = self.alternating.q.val();
        self.chunk_a.zdiv.next = self.zdiv.q.val();
        self.chunk_a.wdiv.next = self.wdiv.q.val();
        self.chunk_a.wtrunc.next = self.wtrunc.q.val();
        self.chunk_a.uncompressed.next = self.wdiv.q.val() == 7;
        self.chunk_a.wremain_bits.next = bit_cast::<4, 3>(self.wdiv.q.val());
        if self.wdiv.q.val() == 7 {
            self.chunk_a.wremain_bits.next = self.unc_bits.val();
        }
        self.chunk_a.per_chunk_12.next = self.unc_bits.val() <= 5;
        self.chunk_a.zunary_12.next = self.zdiv.q.val() < 3;
        self.chunk_a.w_cnt.next = self.w_cnt.q.val();
        self.chunk_a.z_cnt.next = self.z_cnt.q.val();
        self.chunk_a.palette.next = self.palette.q.val();
        self.chunk_a.palette_size.next = self.palette_size.q.val();
        self.chunk_a.dirofs.next = self.dirofs.q.val();
        self.chunk_b.alternating.next = self.alternating.q.val();
        self.chunk_b.zdiv.next = self.zdiv.q.val();
        self.chunk_b.wdiv.next = self.wdiv.q.val();
        self.chunk_b.wtrunc.next = self.wtrunc.q.val();
        self.chunk_b.uncompressed.next = self.wdiv.q.val() == 7;
        self.chunk_b.wremain_bits.next = bit_cast::<4, 3>(self.wdiv.q.val());
        if self.wdiv.q.val() == 7 {
            self.chunk_b.wremain_bits.next = self.unc_bits.val();
        }
        self.chunk_b.per_chunk_12.next = self.unc_bits.val() <= 5;
        self.chunk_b.zunary_12.next = self.zdiv.q.val() < 3;
        self.chunk_b.w_cnt.next = self.w_cnt.q.val();
        self.chunk_b.z_cnt.next = self.z_cnt.q.val();
        self.chunk_b.palette.next = self.palette.q.val();
        self.chunk_b.palette_size.next = self.palette_size.q.val();
        self.chunk_b.dirofs.next = self.dirofs.q.val();
        self.chunk_a.wq_i.next = self.wq_i.q.val();
        self.chunk_a.zq_i.next = self.zq_i.q.val();
        self.chunk_a.wq.next = self.wq.q.val();
        self.chunk_a.zq.next = self.zq.q.val();
        self.chunk_a.pend_w.next = self.pend_w.q.val();
        self.chunk_a.pend_wq.next = self.pend_wq.q.val();
        self.chunk_a.pend_z.next = self.pend_z.q.val();
        self.chunk_a.pend_zq0.next = self.pend_zq0.q.val();
        self.chunk_a.pend_zq.next = self.pend_zq.q.val();
        self.chunk_b.wq_i.next = self.chunk_a.next_wq_i.val();
        self.chunk_b.zq_i.next = self.chunk_a.next_zq_i.val();
        self.chunk_b.wq.next = self.chunk_a.next_wq.val();
        self.chunk_b.zq.next = self.chunk_a.next_zq.val();
        self.chunk_b.pend_w.next = self.chunk_a.next_pend_w.val();
        self.chunk_b.pend_wq.next = self.chunk_a.next_pend_wq.val();
        self.chunk_b.pend_z.next = self.chunk_a.next_pend_z.val();
        self.chunk_b.pend_zq0.next = self.chunk_a.next_pend_zq0.val();
        self.chunk_b.pend_zq.next = self.chunk_a.next_pend_zq.val();

        // Header fields (TRM 4.7.2).
        self.zdiv_field.next = self.view.val().get_bits::<3>(0);
        self.wdiv_field.next = self.view.val().get_bits::<3>(18);
        self.newpal.next = self.view.val().get_bit(22);
        self.palsize_field.next = self.view.val().get_bits::<5>(28);
        self.header_alternating.next = self.zdiv_field.val() < 4;

        // zdiv 7: ones up to the byte boundary (TRM 4.7.2), at byte
        // boundaries whole 0xff bytes, up to 32 of them at once.
        self.pad.next = 5 - self.pos8.q.val();
        self.pad_ok.next = true;
        for i in 0..7 {
            if (i.to_bits::<3>() < self.pad.val()) & !self.view.val().get_bit(i + 3) {
                self.pad_ok.next = false;
            }
        }
        self.ff_bytes.next = 0.into();
        self.ff_run.next = self.pos8.q.val() == 0;
        for b in 0..32 {
            if self.ff_run.val()
                & (self.view.val().get_bits::<8>(b * 8) == 0xFF)
                & (self.fill.val() >= ((b + 1) * 8).to_bits::<9>())
            {
                self.ff_bytes.next = self.ff_bytes.val() + 1;
            } else {
                self.ff_run.next = false;
            }
        }

        // Palette entries: all in one cycle, palette_bits (2-9) each; the
        // entries past palette_size are never read.
        self.pal_off.next = 0.into();
        for e in 0..PALETTE_ENTRIES {
            if e.to_bits::<6>() < self.palette_size.q.val() {
                self.pal_off.next =
                    self.pal_off.val() + bit_cast::<9, 4>(self.palette_bits.q.val());
            }
        }
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

        self.used.next = 0.into();
        self.push_a_w.next = 0.into();
        self.push_a_value.next = true;
        self.push_a_weights.next = self.chunk_a.weights.val();
        self.push_a_z.next = 0.into();
        self.push_a_runs.next = self.chunk_a.zero_runs.val();
        self.push_b_w.next = 0.into();
        self.push_b_weights.next = self.chunk_b.weights.val();
        self.push_b_z.next = 0.into();
        self.push_b_runs.next = self.chunk_b.zero_runs.val();
        self.len_ab.next =
            bit_cast::<9, 8>(self.chunk_a.len.val()) + bit_cast::<9, 8>(self.chunk_b.len.val());
        self.take_b.next = false;
        self.fail_code.next = ErrorCode::None;

        match self.phase.q.val() {
            Phase::Idle => {
                if self.start.val() {
                    self.error.d.next = ErrorCode::None;
                    self.have_palette.d.next = false;
                    self.phase.d.next = Phase::Header;
                    if self.bad_length.val() {
                        self.fail_code.next = ErrorCode::NotWordAligned;
                    }
                }
            }
            Phase::Header => {
                if self.fill.val() == 0 {
                    if self.exhausted.val() {
                        self.phase.d.next = Phase::Idle;
                    }
                } else if self.fill.val() < 3 {
                    if self.exhausted.val() {
                        self.fail_code.next = ErrorCode::UnexpectedEnd;
                    }
                } else if self.zdiv_field.val() == 7 {
                    if self.fill.val() < bit_cast::<9, 3>(self.pad.val()) + 3 {
                        if self.exhausted.val() {
                            self.fail_code.next = ErrorCode::UnexpectedEnd;
                        }
                    } else if !self.pad_ok.val() {
                        self.fail_code.next = ErrorCode::BadByteAlign;
                    } else if self.pos8.q.val() == 0 {
                        self.used.next = bit_cast::<9, 6>(self.ff_bytes.val()) << 3;
                    } else {
                        self.used.next = bit_cast::<9, 3>(self.pad.val()) + 3;
                    }
                } else if (self.zdiv_field.val() == 4) | (self.zdiv_field.val() == 5) {
                    self.fail_code.next = ErrorCode::BadZdiv;
                } else if self.fill.val() < 21 {
                    if self.exhausted.val() {
                        self.fail_code.next = ErrorCode::UnexpectedEnd;
                    }
                } else if self.wdiv_field.val() == 6 {
                    self.fail_code.next = ErrorCode::BadWdiv;
                } else if (self.fill.val() < 23) | (self.newpal.val() & (self.fill.val() < 36)) {
                    if self.exhausted.val() {
                        self.fail_code.next = ErrorCode::UnexpectedEnd;
                    }
                } else if !self.newpal.val() & !self.have_palette.q.val() {
                    self.fail_code.next = ErrorCode::FirstSliceWithoutPalette;
                } else if !self.newpal.val()
                    & (self.header_alternating.val() != self.alternating.q.val())
                {
                    self.fail_code.next = ErrorCode::ModeChangeWithoutNewpal;
                } else if !(self.header_alternating.val() & self.newpal.val())
                    | (self.w_room.val() != 0)
                {
                    // A slice header: latch it and start its chunks.
                    self.used.next = 23.into();
                    self.alternating.d.next = self.header_alternating.val();
                    self.zdiv.d.next = bit_cast::<2, 3>(self.zdiv_field.val());
                    self.wdiv.d.next = self.wdiv_field.val();
                    self.wtrunc.d.next = self.view.val().get_bit(21);
                    self.w_cnt.d.next = bit_cast::<16, 15>(self.view.val().get_bits::<15>(3)) + 1;
                    self.z_cnt.d.next = 0.into();
                    if self.header_alternating.val() {
                        self.z_cnt.d.next = bit_cast::<16, 15>(self.view.val().get_bits::<15>(3))
                            + 1
                            + self.newpal.val();
                    }
                    self.wq_i.d.next = 0.into();
                    self.zq_i.d.next = 0.into();
                    self.wq.d.next = 0.into();
                    self.zq.d.next = 0.into();
                    self.pend_w.d.next = 0.into();
                    self.pend_z.d.next = 0.into();
                    self.phase.d.next = Phase::Chunk;
                    if self.newpal.val() {
                        self.used.next = 36.into();
                        self.have_palette.d.next = true;
                        self.dirofs.d.next = self.view.val().get_bits::<5>(23);
                        self.palette_bits.d.next =
                            bit_cast::<4, 3>(self.view.val().get_bits::<3>(33)) + 2;
                        self.palette_size.d.next = 0.into();
                        if self.palsize_field.val() != 0 {
                            self.palette_size.d.next =
                                bit_cast::<6, 5>(self.palsize_field.val()) + 1;
                            self.phase.d.next = Phase::Palette;
                        }
                        // The leading zero run goes with a value-less entry (TRM 4.7.3.3).
                        if self.header_alternating.val() {
                            self.push_a_w.next = 1.into();
                            self.push_a_value.next = false;
                        }
                    }
                }
            }
            Phase::Palette => {
                if self.fill.val() < self.pal_off.val() {
                    if self.exhausted.val() {
                        self.fail_code.next = ErrorCode::UnexpectedEnd;
                    }
                } else {
                    // Entries past palette_size are never read.
                    self.used.next = self.pal_off.val();
                    self.palette.d.next = self.entries.val();
                    self.phase.d.next = Phase::Chunk;
                }
            }
            Phase::Chunk => {
                if self.fill.val() < bit_cast::<9, 8>(self.chunk_a.head_len.val()) {
                    if self.exhausted.val() {
                        self.fail_code.next = ErrorCode::UnexpectedEnd;
                    }
                } else if self.chunk_a.quotient_error.val() {
                    self.fail_code.next = ErrorCode::QuotientOverLimit;
                } else if self.fill.val() < bit_cast::<9, 8>(self.chunk_a.len.val()) {
                    if self.exhausted.val() {
                        self.fail_code.next = ErrorCode::UnexpectedEnd;
                    }
                } else if self.chunk_a.index_error.val() {
                    self.fail_code.next = ErrorCode::IndexOutOfRange;
                } else if self.chunk_a.value_error.val() {
                    self.fail_code.next = ErrorCode::ValueOutOfRange;
                } else if self.chunk_a.zero_run_error.val() {
                    self.fail_code.next = ErrorCode::ZeroRunTooLong;
                } else if (bit_cast::<7, 4>(self.chunk_a.n_w.val()) <= self.w_room.val())
                    & (bit_cast::<7, 4>(self.chunk_a.n_z.val()) <= self.z_room.val())
                {
                    self.used.next = bit_cast::<9, 8>(self.chunk_a.len.val());
                    self.push_a_w.next = self.chunk_a.n_w.val();
                    self.push_a_z.next = self.chunk_a.n_z.val();
                    self.wq_i.d.next = self.chunk_a.next_wq_i.val();
                    self.zq_i.d.next = self.chunk_a.next_zq_i.val();
                    self.wq.d.next = self.chunk_a.next_wq.val();
                    self.zq.d.next = self.chunk_a.next_zq.val();
                    self.pend_w.d.next = self.chunk_a.next_pend_w.val();
                    self.pend_wq.d.next = self.chunk_a.next_pend_wq.val();
                    self.pend_z.d.next = self.chunk_a.next_pend_z.val();
                    self.pend_zq0.d.next = self.chunk_a.next_pend_zq0.val();
                    self.pend_zq.d.next = self.chunk_a.next_pend_zq.val();
                    if self.chunk_a.last.val() {
                        self.phase.d.next = Phase::Header;
                    }
                    self.take_b.next = !self.chunk_a.last.val()
                        & (self.fill.val() >= self.len_ab.val())
                        & !self.chunk_b.quotient_error.val()
                        & !self.chunk_b.index_error.val()
                        & !self.chunk_b.value_error.val()
                        & !self.chunk_b.zero_run_error.val()
                        & (bit_cast::<7, 4>(self.chunk_a.n_w.val())
                            + bit_cast::<7, 4>(self.chunk_b.n_w.val())
                            <= self.w_room.val())
                        & (bit_cast::<7, 4>(self.chunk_a.n_z.val())
                            + bit_cast::<7, 4>(self.chunk_b.n_z.val())
                            <= self.z_room.val());
                    if self.take_b.val() {
                        self.used.next = self.len_ab.val();
                        self.push_b_w.next = self.chunk_b.n_w.val();
                        self.push_b_z.next = self.chunk_b.n_z.val();
                        self.wq_i.d.next = self.chunk_b.next_wq_i.val();
                        self.zq_i.d.next = self.chunk_b.next_zq_i.val();
                        self.wq.d.next = self.chunk_b.next_wq.val();
                        self.zq.d.next = self.chunk_b.next_zq.val();
                        self.pend_w.d.next = self.chunk_b.next_pend_w.val();
                        self.pend_wq.d.next = self.chunk_b.next_pend_wq.val();
                        self.pend_z.d.next = self.chunk_b.next_pend_z.val();
                        self.pend_zq0.d.next = self.chunk_b.next_pend_zq0.val();
                        self.pend_zq.d.next = self.chunk_b.next_pend_zq.val();
                        if self.chunk_b.last.val() {
                            self.phase.d.next = Phase::Header;
                        }
                    }
                }
            }
            Phase::Fail => {
                // Discard the rest of the stream, never more than its length.
                self.used.next = self.fill.val();
                if self.exhausted.val() & (self.fill.val() == 0) {
                    self.phase.d.next = Phase::Idle;
                }
            }
        }
        if self.fail_code.val() != ErrorCode::None {
            self.error.d.next = self.fail_code.val();
            self.phase.d.next = Phase::Fail;
            self.used.next = 0.into();
            self.push_a_w.next = 0.into();
            self.push_a_z.next = 0.into();
            self.push_b_w.next = 0.into();
            self.push_b_z.next = 0.into();
        }
        self.pos8.d.next = self.pos8.q.val() + bit_cast::<3, 9>(self.used.val());
        if self.start.val() {
            self.pos8.d.next = 0.into();
        }
    }
}
