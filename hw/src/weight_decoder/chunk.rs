//! One chunk of a slice (TRM 4.7.4), decoded in one cycle without state of its
//! own: the parser holds the state between chunks and feeds it back.
//!
//! A chunk is `wunary0` (12 bits), `zunary` (12 or 8 bits), `wunary1` (one
//! bit per set `wunary0` bit, as Vela writes it), then the remainders of the
//! quotients completed in the *previous* chunk: `wremain` per weight and
//! `zremain` per zero run. So this chunk completes quotients (kept as pending
//! state) and finishes the previous chunk's weights and zero runs (output).

use super::{ITEM_SLOTS, PALETTE_ENTRIES};
use rust_hdl::prelude::*;

/// Unary positions of a chunk (`wunary0`, and `zunary` at most), so also the
/// most weights or zero runs it completes (TRM 4.7.4).
const POSITIONS: usize = 12;
/// Golomb-Rice divisor exponents: `wdiv` 0-5 (TRM table 4-112) and `zdiv` 0-3.
const WDIV_VALUES: usize = 6;
const ZDIV_VALUES: usize = 4;

/// Bits of the stream a chunk may span: 12 + 12 + 12 unary bits, 72
/// remainder bits (8 uncompressed 9-bit indices), 36 zero-run remainder bits;
/// the weight remainders are read as 108 bits (12 at 9 apart).
pub const CHUNK_VIEW_BITS: usize = 160;

#[derive(LogicBlock, Default)]
pub struct ChunkDecoder {
    /// Stream bits from the chunk's first bit (TRM 4.7.1 order).
    pub bits: Signal<In, Bits<CHUNK_VIEW_BITS>>,
    /// Slice parameters (TRM 4.7.2): `zdiv` < 4 (alternating mode), `zdiv`
    /// and `wdiv` as coded, `wdiv` == 7, the `wremain` width, whether
    /// uncompressed chunks hold 12 (else 8) indices and `zunary` is 12 (else 8) bits.
    pub alternating: Signal<In, Bit>,
    pub zdiv: Signal<In, Bits<2>>,
    pub wdiv: Signal<In, Bits<3>>,
    pub wtrunc: Signal<In, Bit>,
    pub uncompressed: Signal<In, Bit>,
    pub wremain_bits: Signal<In, Bits<4>>,
    pub per_chunk_12: Signal<In, Bit>,
    pub zunary_12: Signal<In, Bit>,
    /// Weights and zero runs the slice codes (`w_cnt`, `z_cnt` of TRM 4.7.4).
    pub w_cnt: Signal<In, Bits<16>>,
    pub z_cnt: Signal<In, Bits<16>>,
    /// Palette as sign-magnitude codes, entry i in bits 9i+8..9i, its size,
    /// and the direct-mode offset (TRM 4.7.3.1).
    pub palette: Signal<In, Bits<{ PALETTE_ENTRIES * 9 }>>,
    pub palette_size: Signal<In, Bits<6>>,
    pub dirofs: Signal<In, Bits<5>>,
    /// State before the chunk: quotients completed so far (`wq_i`, `zq_i`),
    /// the quotients in progress (`wq`, `zq`), and the quotients completed by
    /// the previous chunk whose remainders this chunk holds. A chunk completes
    /// at most one zero run that began in an earlier chunk, its first; the
    /// others are at most 11 and kept in 4 bits each (entry 0 unused).
    pub wq_i: Signal<In, Bits<16>>,
    pub zq_i: Signal<In, Bits<16>>,
    pub wq: Signal<In, Bits<5>>,
    pub zq: Signal<In, Bits<28>>,
    pub pend_w: Signal<In, Bits<4>>,
    pub pend_wq: Signal<In, Bits<60>>,
    pub pend_z: Signal<In, Bits<4>>,
    pub pend_zq0: Signal<In, Bits<28>>,
    pub pend_zq: Signal<In, Bits<48>>,
    /// State after the chunk.
    pub next_wq_i: Signal<Out, Bits<16>>,
    pub next_zq_i: Signal<Out, Bits<16>>,
    pub next_wq: Signal<Out, Bits<5>>,
    pub next_zq: Signal<Out, Bits<28>>,
    pub next_pend_w: Signal<Out, Bits<4>>,
    pub next_pend_wq: Signal<Out, Bits<60>>,
    pub next_pend_z: Signal<Out, Bits<4>>,
    pub next_pend_zq0: Signal<Out, Bits<28>>,
    pub next_pend_zq: Signal<Out, Bits<48>>,
    /// Neither weights nor zero runs are enabled: this chunk only carries
    /// remainders and ends the slice.
    pub last: Signal<Out, Bit>,
    /// Bits up to the end of `wunary1` (needed to judge the quotients) and
    /// the whole chunk's length.
    pub head_len: Signal<Out, Bits<8>>,
    pub len: Signal<Out, Bits<8>>,
    /// A weight quotient over 31 (TRM 4.7.3.2.1), an index over 511 or a
    /// value magnitude over 255 (TRM 4.7.3.1), a zero run too long to count.
    pub quotient_error: Signal<Out, Bit>,
    pub index_error: Signal<Out, Bit>,
    pub value_error: Signal<Out, Bit>,
    pub zero_run_error: Signal<Out, Bit>,
    /// The previous chunk's weights, finished: two's complement, weight j in
    /// bits 9j+8..9j, `n_w` of them.
    pub n_w: Signal<Out, Bits<4>>,
    pub weights: Signal<Out, Bits<{ ITEM_SLOTS * 9 }>>,
    /// The zero runs following them, run j in bits 32j+31..32j, `n_z` of
    /// them; outside alternating mode one zero-length run per weight.
    pub n_z: Signal<Out, Bits<4>>,
    pub zero_runs: Signal<Out, Bits<{ ITEM_SLOTS * 32 }>>,
    w_en: Signal<Local, Bit>,
    z_en: Signal<Local, Bit>,
    gr_en: Signal<Local, Bit>,
    w_left: Signal<Local, Bits<16>>,
    z_left: Signal<Local, Bits<16>>,
    wu0: Signal<Local, Bits<12>>,
    zu: Signal<Local, Bits<12>>,
    wu1: Signal<Local, Bits<12>>,
    off_wrem: Signal<Local, Bits<8>>,
    off_zrem: Signal<Local, Bits<8>>,
    // Weight quotients: position in wunary1, weights completed, the running
    // quotient; per position whether one ends there, its quotient and number;
    // the quotient list.
    j: Signal<Local, Bits<4>>,
    k: Signal<Local, Bits<4>>,
    c: Signal<Local, Bits<2>>,
    run: Signal<Local, Bits<6>>,
    ends: Signal<Local, Bits<12>>,
    end_runs: Signal<Local, Bits<60>>,
    end_numbers: Signal<Local, Bits<48>>,
    q: Signal<Local, Bits<5>>,
    qs: Signal<Local, Bits<60>>,
    // Zero-run quotients: ones since the last 0 bit, no 0 bit yet, runs
    // completed, the long first run, the others as for weights.
    ones: Signal<Local, Bits<4>>,
    zfirst: Signal<Local, Bit>,
    m: Signal<Local, Bits<4>>,
    zsum: Signal<Local, Bits<29>>,
    zq0: Signal<Local, Bits<28>>,
    zends: Signal<Local, Bits<12>>,
    zend_runs: Signal<Local, Bits<48>>,
    zend_numbers: Signal<Local, Bits<48>>,
    zq_n: Signal<Local, Bits<4>>,
    zqs: Signal<Local, Bits<48>>,
    // Remainders and the values they finish.
    wshift: Signal<Local, Bits<3>>,
    rw: Signal<Local, Bits<108>>,
    rem: Signal<Local, Bits<9>>,
    wrems: Signal<Local, Bits<108>>,
    rw_off: Signal<Local, Bits<7>>,
    rz: Signal<Local, Bits<36>>,
    zrem: Signal<Local, Bits<3>>,
    zrems: Signal<Local, Bits<36>>,
    rz_off: Signal<Local, Bits<6>>,
    pq: Signal<Local, Bits<5>>,
    pal_entry: Signal<Local, Bits<9>>,
    index: Signal<Local, Bits<10>>,
    code: Signal<Local, Bits<11>>,
    magnitude: Signal<Local, Bits<9>>,
    value: Signal<Local, Bits<9>>,
    zrun: Signal<Local, Bits<32>>,
    pzq: Signal<Local, Bits<4>>,
    zrun_q: Signal<Local, Bits<28>>,
}

impl Logic for ChunkDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        // TRM 4.7.4: the balance rule enables weights and zero runs.
        self.w_left.next = self.w_cnt.val() - self.wq_i.val();
        self.z_left.next = self.z_cnt.val() - self.zq_i.val();
        self.w_en.next = (self.wq_i.val() < self.w_cnt.val())
            & (!self.alternating.val()
                | (bit_cast::<17, 16>(self.wq_i.val()) < bit_cast::<17, 16>(self.zq_i.val()) + 8));
        self.z_en.next = self.alternating.val()
            & (self.wq_i.val() >= self.zq_i.val())
            & (self.zq_i.val() < self.z_cnt.val());
        self.gr_en.next = self.w_en.val() & !self.uncompressed.val();
        self.last.next = !self.w_en.val() & !self.z_en.val();

        // Field positions: wunary0, zunary, wunary1, wremain, zremain.
        self.wu0.next = 0.into();
        self.zu.next = 0.into();
        self.wu1.next = 0.into();
        self.off_wrem.next = 0.into();
        if self.gr_en.val() {
            self.wu0.next = self.bits.val().get_bits::<12>(0);
            self.wu1.next = self.bits.val().get_bits::<12>(12);
            self.off_wrem.next = 12.into();
        }
        if self.z_en.val() {
            self.zu.next = self.bits.val().get_bits::<12>(0);
            if self.gr_en.val() {
                self.zu.next = self.bits.val().get_bits::<12>(12);
                self.wu1.next = self.bits.val().get_bits::<12>(24);
            }
            self.off_wrem.next = self.off_wrem.val() + 12;
            if !self.zunary_12.val() {
                self.zu.next = self.zu.val() & 0xFF;
                self.off_wrem.next = self.off_wrem.val() - 4;
                if self.gr_en.val() {
                    self.wu1.next = self.bits.val().get_bits::<12>(20);
                }
            }
        }
        for i in 0..POSITIONS {
            self.off_wrem.next = self.off_wrem.val() + self.wu0.val().get_bit(i);
        }
        self.head_len.next = self.off_wrem.val();

        // Weight quotients: each wunary0 position adds 0, 1 or (with its
        // wunary1 bit) 2; a weight ends on 0 or 1, or on 2 when truncated.
        // Each position where one ends records the quotient and its number.
        self.j.next = 0.into();
        self.k.next = 0.into();
        self.run.next = bit_cast::<6, 5>(self.wq.val());
        self.ends.next = 0.into();
        self.end_runs.next = 0.into();
        self.end_numbers.next = 0.into();
        self.quotient_error.next = false;
        for i in 0..POSITIONS {
            self.c.next = 0.into();
            if self.wu0.val().get_bit(i) {
                self.c.next = 1.into();
                for b in 0..POSITIONS {
                    if (self.j.val() == b.to_bits::<4>()) & self.wu1.val().get_bit(b) {
                        self.c.next = 2.into();
                    }
                }
                self.j.next = self.j.val() + 1;
            }
            if self.gr_en.val() & (bit_cast::<16, 4>(self.k.val()) < self.w_left.val()) {
                self.run.next = self.run.val() + bit_cast::<6, 2>(self.c.val());
                if self.run.val() > 31 {
                    self.quotient_error.next = true;
                }
                if (self.c.val() < 2) | self.wtrunc.val() {
                    self.ends.next = self.ends.val().replace_bit(i, true);
                    self.end_runs.next = self.end_runs.val()
                        | (bit_cast::<60, 6>(self.run.val() & 31) << (i * 5).to_bits::<6>());
                    self.end_numbers.next = self.end_numbers.val()
                        | (bit_cast::<48, 4>(self.k.val()) << (i * 4).to_bits::<6>());
                    self.k.next = self.k.val() + 1;
                    self.run.next = 0.into();
                }
            }
        }
        // Quotient n is the one recorded with number n.
        self.qs.next = 0.into();
        for n in 0..POSITIONS {
            self.q.next = 0.into();
            for i in 0..POSITIONS {
                if self.ends.val().get_bit(i)
                    & (self.end_numbers.val().get_bits::<4>(i * 4) == n.to_bits::<4>())
                {
                    self.q.next = self.end_runs.val().get_bits::<5>(i * 5);
                }
            }
            self.qs.next =
                self.qs.val() | (bit_cast::<60, 5>(self.q.val()) << (n * 5).to_bits::<6>());
        }
        // Uncompressed chunks complete up to 12 or 8 indices, quotient 0.
        if self.w_en.val() & self.uncompressed.val() {
            self.k.next = 8.into();
            if self.per_chunk_12.val() {
                self.k.next = 12.into();
            }
            if self.w_left.val() < bit_cast::<16, 4>(self.k.val()) {
                self.k.next = bit_cast::<4, 16>(self.w_left.val());
            }
        }
        self.next_wq_i.next = self.wq_i.val() + bit_cast::<16, 4>(self.k.val());
        self.next_wq.next = bit_cast::<5, 6>(self.run.val());
        self.next_pend_w.next = self.k.val();
        self.next_pend_wq.next = self.qs.val();

        // Zero-run quotients: a 1 bit adds one, a 0 bit ends the run. Runs
        // past z_cnt are Vela's padding and are dropped. The first run to end
        // may have begun in an earlier chunk; the others are recorded, as
        // weight quotients are, at the position where they end.
        self.ones.next = 0.into();
        self.zfirst.next = true;
        self.m.next = 0.into();
        self.zq0.next = 0.into();
        self.zsum.next = 0.into();
        self.zends.next = 0.into();
        self.zend_runs.next = 0.into();
        self.zend_numbers.next = 0.into();
        for i in 0..POSITIONS {
            if self.z_en.val() & ((i < 8) | self.zunary_12.val()) {
                if self.zu.val().get_bit(i) {
                    self.ones.next = self.ones.val() + 1;
                } else {
                    if bit_cast::<16, 4>(self.m.val()) < self.z_left.val() {
                        if self.zfirst.val() {
                            self.zsum.next = bit_cast::<29, 28>(self.zq.val())
                                + bit_cast::<29, 4>(self.ones.val());
                            self.zq0.next = bit_cast::<28, 29>(self.zsum.val());
                        } else {
                            self.zends.next = self.zends.val().replace_bit(i, true);
                            self.zend_runs.next = self.zend_runs.val()
                                | (bit_cast::<48, 4>(self.ones.val()) << (i * 4).to_bits::<6>());
                            self.zend_numbers.next = self.zend_numbers.val()
                                | (bit_cast::<48, 4>(self.m.val()) << (i * 4).to_bits::<6>());
                        }
                        self.m.next = self.m.val() + 1;
                    }
                    self.ones.next = 0.into();
                    self.zfirst.next = false;
                }
            }
        }
        self.zqs.next = 0.into();
        for n in 1..POSITIONS {
            self.zq_n.next = 0.into();
            for i in 0..POSITIONS {
                if self.zends.val().get_bit(i)
                    & (self.zend_numbers.val().get_bits::<4>(i * 4) == n.to_bits::<4>())
                {
                    self.zq_n.next = self.zend_runs.val().get_bits::<4>(i * 4);
                }
            }
            self.zqs.next =
                self.zqs.val() | (bit_cast::<48, 4>(self.zq_n.val()) << (n * 4).to_bits::<6>());
        }
        self.next_zq.next = bit_cast::<28, 4>(self.ones.val());
        if self.zfirst.val() {
            self.zsum.next = bit_cast::<29, 28>(self.zq.val()) + bit_cast::<29, 4>(self.ones.val());
            self.next_zq.next = bit_cast::<28, 29>(self.zsum.val());
        }
        self.zero_run_error.next = self.zsum.val().get_bit(28);
        self.next_zq_i.next = self.zq_i.val() + bit_cast::<16, 4>(self.m.val());
        self.next_pend_z.next = self.m.val();
        self.next_pend_zq0.next = self.zq0.val();
        self.next_pend_zq.next = self.zqs.val();

        // Remainders of the previous chunk's weights (TRM 4.7.3.2) and the
        // values their indices select (TRM 4.7.3.1).
        // Each remainder at a fixed offset for its width (12 at most, 9 bits
        // or 8 at most with 9 bits).
        self.wshift.next = self.wdiv.val();
        if self.uncompressed.val() {
            self.wshift.next = 0.into();
        }
        self.rw.next = self.bits.val().get_bits::<108>(self.off_wrem.val().index());
        self.wrems.next = 0.into();
        self.rem.next = 0.into();
        match self.wremain_bits.val().index() {
            1 => {
                for j in 0..POSITIONS {
                    self.rem.next = self.rw.val().get_bits::<9>(j) & 1;
                    self.wrems.next = self.wrems.val()
                        | (bit_cast::<108, 9>(self.rem.val()) << (j * 9).to_bits::<7>());
                }
            }
            2 => {
                for j in 0..POSITIONS {
                    self.rem.next = self.rw.val().get_bits::<9>(j * 2) & 3;
                    self.wrems.next = self.wrems.val()
                        | (bit_cast::<108, 9>(self.rem.val()) << (j * 9).to_bits::<7>());
                }
            }
            3 => {
                for j in 0..POSITIONS {
                    self.rem.next = self.rw.val().get_bits::<9>(j * 3) & 7;
                    self.wrems.next = self.wrems.val()
                        | (bit_cast::<108, 9>(self.rem.val()) << (j * 9).to_bits::<7>());
                }
            }
            4 => {
                for j in 0..POSITIONS {
                    self.rem.next = self.rw.val().get_bits::<9>(j * 4) & 15;
                    self.wrems.next = self.wrems.val()
                        | (bit_cast::<108, 9>(self.rem.val()) << (j * 9).to_bits::<7>());
                }
            }
            5 => {
                for j in 0..POSITIONS {
                    self.rem.next = self.rw.val().get_bits::<9>(j * 5) & 31;
                    self.wrems.next = self.wrems.val()
                        | (bit_cast::<108, 9>(self.rem.val()) << (j * 9).to_bits::<7>());
                }
            }
            6 => {
                for j in 0..POSITIONS {
                    self.rem.next = self.rw.val().get_bits::<9>(j * 6) & 63;
                    self.wrems.next = self.wrems.val()
                        | (bit_cast::<108, 9>(self.rem.val()) << (j * 9).to_bits::<7>());
                }
            }
            7 => {
                for j in 0..POSITIONS {
                    self.rem.next = self.rw.val().get_bits::<9>(j * 7) & 127;
                    self.wrems.next = self.wrems.val()
                        | (bit_cast::<108, 9>(self.rem.val()) << (j * 9).to_bits::<7>());
                }
            }
            8 => {
                for j in 0..POSITIONS {
                    self.rem.next = self.rw.val().get_bits::<9>(j * 8) & 255;
                    self.wrems.next = self.wrems.val()
                        | (bit_cast::<108, 9>(self.rem.val()) << (j * 9).to_bits::<7>());
                }
            }
            9 => {
                for j in 0..POSITIONS {
                    self.rem.next = self.rw.val().get_bits::<9>(j * 9) & 511;
                    self.wrems.next = self.wrems.val()
                        | (bit_cast::<108, 9>(self.rem.val()) << (j * 9).to_bits::<7>());
                }
            }
            _ => {}
        }
        self.rw_off.next = 0.into();
        self.weights.next = 0.into();
        self.index_error.next = false;
        self.value_error.next = false;
        for j in 0..POSITIONS {
            self.pq.next = self.pend_wq.val().get_bits::<5>(j * 5);
            self.rem.next = self.wrems.val().get_bits::<9>(j * 9);
            self.index.next = bit_cast::<10, 9>(self.rem.val());
            for d in 0..WDIV_VALUES {
                if self.wshift.val() == d.to_bits::<3>() {
                    self.index.next = (bit_cast::<10, 5>(self.pq.val()) << d.to_bits::<3>())
                        + bit_cast::<10, 9>(self.rem.val());
                }
            }
            self.pal_entry.next = 0.into();
            if self.index.val() < bit_cast::<10, 6>(self.palette_size.val()) {
                self.code.next = 0.into();
                for e in 0..PALETTE_ENTRIES {
                    if self.index.val() == e.to_bits::<10>() {
                        self.pal_entry.next = self.palette.val().get_bits::<9>(e * 9);
                        self.code.next = bit_cast::<11, 9>(self.pal_entry.val());
                    }
                }
            } else {
                self.code.next = bit_cast::<11, 10>(self.index.val())
                    - bit_cast::<11, 6>(self.palette_size.val())
                    + bit_cast::<11, 5>(self.dirofs.val());
            }
            self.magnitude.next = bit_cast::<9, 11>(self.code.val() >> 1);
            self.value.next = self.magnitude.val();
            if self.code.val().get_bit(0) {
                self.value.next = 0 - self.magnitude.val();
            }
            if j.to_bits::<4>() >= self.pend_w.val() {
                self.value.next = 0.into();
            }
            self.weights.next = self.weights.val()
                | (bit_cast::<{ ITEM_SLOTS * 9 }, 9>(self.value.val()) << (j * 9).to_bits::<8>());
            if j.to_bits::<4>() < self.pend_w.val() {
                self.rw_off.next = self.rw_off.val() + bit_cast::<7, 4>(self.wremain_bits.val());
                if self.index.val() > 511 {
                    self.index_error.next = true;
                }
                if self.code.val() > 511 {
                    self.value_error.next = true;
                }
            }
        }
        self.off_zrem.next = self.off_wrem.val() + bit_cast::<8, 7>(self.rw_off.val());
        self.n_w.next = self.pend_w.val();

        // Remainders of the previous chunk's zero runs (TRM 4.7.3.3).
        self.rz.next = self.bits.val().get_bits::<36>(self.off_zrem.val().index());
        self.zrems.next = 0.into();
        self.zrem.next = 0.into();
        match self.zdiv.val().index() {
            1 => {
                for j in 0..POSITIONS {
                    self.zrem.next = self.rz.val().get_bits::<3>(j) & 1;
                    self.zrems.next = self.zrems.val()
                        | (bit_cast::<36, 3>(self.zrem.val()) << (j * 3).to_bits::<6>());
                }
            }
            2 => {
                for j in 0..POSITIONS {
                    self.zrem.next = self.rz.val().get_bits::<3>(j * 2) & 3;
                    self.zrems.next = self.zrems.val()
                        | (bit_cast::<36, 3>(self.zrem.val()) << (j * 3).to_bits::<6>());
                }
            }
            3 => {
                for j in 0..POSITIONS {
                    self.zrem.next = self.rz.val().get_bits::<3>(j * 3) & 7;
                    self.zrems.next = self.zrems.val()
                        | (bit_cast::<36, 3>(self.zrem.val()) << (j * 3).to_bits::<6>());
                }
            }
            _ => {}
        }
        self.rz_off.next = 0.into();
        self.zero_runs.next = 0.into();
        for j in 0..POSITIONS {
            self.pzq.next = self.pend_zq.val().get_bits::<4>(j * 4);
            self.zrun_q.next = bit_cast::<28, 4>(self.pzq.val());
            if j == 0 {
                self.zrun_q.next = self.pend_zq0.val();
            }
            self.zrem.next = self.zrems.val().get_bits::<3>(j * 3);
            self.zrun.next = 0.into();
            for d in 0..ZDIV_VALUES {
                if self.zdiv.val() == d.to_bits::<2>() {
                    self.zrun.next = (bit_cast::<32, 28>(self.zrun_q.val()) << d.to_bits::<2>())
                        + bit_cast::<32, 3>(self.zrem.val());
                }
            }
            if j.to_bits::<4>() < self.pend_z.val() {
                self.rz_off.next = self.rz_off.val() + bit_cast::<6, 2>(self.zdiv.val());
            } else {
                self.zrun.next = 0.into();
            }
            self.zero_runs.next = self.zero_runs.val()
                | (bit_cast::<{ ITEM_SLOTS * 32 }, 32>(self.zrun.val()) << (j * 32).to_bits::<9>());
        }
        self.len.next = self.off_zrem.val() + bit_cast::<8, 6>(self.rz_off.val());
        self.n_z.next = self.pend_z.val();
        if !self.alternating.val() {
            self.n_z.next = self.pend_w.val();
        }
    }
}
