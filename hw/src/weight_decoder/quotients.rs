//! The value pipeline's first stage for one chunk: the quotients its head
//! completes (TRM 4.7.3.2, 4.7.4), as far as they depend on this chunk
//! alone, and its remainder fields. The quotient in progress from earlier
//! chunks is added in the next stage.
//!
//! Weights: `wunary0` position i adds c = 0, 1 or (with its `wunary1` bit)
//! 2 to the running quotient, and a weight ends there unless c = 2 without
//! `wtrunc`. With P0(i) the set `wunary0` bits up to i and W1(n) the set
//! bits among the first n of `wunary1`, the sum of c up to i is
//! P0(i) + W1(P0(i)); the n-th completed weight's quotient is that sum at
//! its end minus the sum at the (n-1)-th end. Zero runs: the n-th zero bit
//! of `zunary` ends run n, whose quotient is the ones since the zero before.
//! Every count is its own adder tree and every list entry a selection among
//! the 12 positions, so nothing chains position after position.

use super::ones::Ones12;
use super::parser::CHUNK_BITS;
use rust_hdl::prelude::*;

/// Positions of a chunk's unary fields (TRM 4.7.4).
const POSITIONS: usize = 12;

#[derive(LogicBlock, Default)]
pub struct ChunkQuotients {
    /// The chunk's bits and what the parser decided about it.
    pub bits: Signal<In, Bits<CHUNK_BITS>>,
    pub gr_en: Signal<In, Bit>,
    pub z_en: Signal<In, Bit>,
    pub wtrunc: Signal<In, Bit>,
    pub zunary_12: Signal<In, Bit>,
    /// Weights completed (at most the slice's remaining ones).
    pub k: Signal<In, Bits<4>>,
    pub wrem_at: Signal<In, Bits<6>>,
    pub zrem_at: Signal<In, Bits<8>>,
    /// Quotient of completed weight n, 5 bits each; weight 0's without the
    /// quotient carried in from earlier chunks.
    pub quotients: Signal<Out, Bits<{ POSITIONS * 5 }>>,
    /// The sum of c over the chunk, and after its k-th completed weight.
    pub total: Signal<Out, Bits<5>>,
    pub tail: Signal<Out, Bits<5>>,
    /// Zero runs: ones before the first zero bit; run n (n >= 1) in bits
    /// 4n+3..4n; ones after the last zero bit; all ones; a zero bit at all.
    pub z_first: Signal<Out, Bits<4>>,
    pub z_runs: Signal<Out, Bits<{ POSITIONS * 4 }>>,
    pub z_tail: Signal<Out, Bits<4>>,
    pub z_ones: Signal<Out, Bits<4>>,
    pub has_zero: Signal<Out, Bit>,
    /// The remainder fields: weights' from `wrem_at`, zero runs' from `zrem_at`.
    pub wrem_field: Signal<Out, Bits<108>>,
    pub zrem_field: Signal<Out, Bits<36>>,
    set_to: [Ones12; POSITIONS],
    wu1_first: [Ones12; POSITIONS],
    ends_before: [Ones12; POSITIONS],
    ones_before: [Ones12; POSITIONS],
    zeros_before: [Ones12; POSITIONS],
    zu_ones: Ones12,
    all_ones: Signal<Local, Bits<12>>,
    wu0: Signal<Local, Bits<12>>,
    zu: Signal<Local, Bits<12>>,
    wu1: Signal<Local, Bits<12>>,
    zero_bits: Signal<Local, Bits<12>>,
    // W1(n), n = 0..12, 4 bits each.
    w1_sums: Signal<Local, Bits<52>>,
    w1: Signal<Local, Bits<4>>,
    p0: Signal<Local, Bits<4>>,
    wu1_at: Signal<Local, Bits<4>>,
    c_sum: Signal<Local, Bits<5>>,
    // Bit b of the sum of c at position i in bit 12b + i.
    c_planes: Signal<Local, Bits<60>>,
    ends: Signal<Local, Bits<12>>,
    counted: Signal<Local, Bits<12>>,
    last_select: Signal<Local, Bits<12>>,
    select: Signal<Local, Bits<12>>,
    sums_at_ends: Signal<Local, Bits<60>>,
    sum_at_end: Signal<Local, Bits<5>>,
    previous: Signal<Local, Bits<5>>,
    last_end_sum: Signal<Local, Bits<5>>,
    // Ones before position i, bit b in bit 12b + i; and per zero.
    o_planes: Signal<Local, Bits<48>>,
    ones_at_zeros: Signal<Local, Bits<48>>,
    ones_at_zero: Signal<Local, Bits<4>>,
    ones_before_prev: Signal<Local, Bits<4>>,
    last_zero: Signal<Local, Bits<12>>,
    ones_at_last: Signal<Local, Bits<4>>,
}

impl Logic for ChunkQuotients {
    #[hdl_gen]
    fn update(&mut self) {
        self.all_ones.next = 0xFFF.into();
        self.wrem_field.next = self.bits.val().get_bits::<108>(self.wrem_at.val().index());
        self.zrem_field.next = self.bits.val().get_bits::<36>(self.zrem_at.val().index());

        // Field positions, as in the parser's ChunkHead.
        self.wu0.next = 0.into();
        self.zu.next = self.bits.val().get_bits::<12>(0);
        self.wu1.next = self.bits.val().get_bits::<12>(12);
        if self.gr_en.val() {
            self.wu0.next = self.bits.val().get_bits::<12>(0);
            self.zu.next = self.bits.val().get_bits::<12>(12);
            if self.z_en.val() {
                self.wu1.next = self.bits.val().get_bits::<12>(24);
                if !self.zunary_12.val() {
                    self.wu1.next = self.bits.val().get_bits::<12>(20);
                }
            }
        }

        // Weights: W1(n) for every n, then per position the sum of c and
        // whether a weight ends there.
        self.w1_sums.next = 0.into();
        for n in 0..POSITIONS {
            self.wu1_first[n].bits.next =
                self.wu1.val() & !(self.all_ones.val() << (n + 1).to_bits::<4>());
            self.w1.next = self.wu1_first[n].count.val();
            self.w1_sums.next = self.w1_sums.val()
                | (bit_cast::<52, 4>(self.w1.val()) << ((n + 1) * 4).to_bits::<6>());
        }
        self.c_planes.next = 0.into();
        self.ends.next = 0.into();
        for i in 0..POSITIONS {
            self.set_to[i].bits.next =
                self.wu0.val() & !(self.all_ones.val() << (i + 1).to_bits::<4>());
            self.p0.next = self.set_to[i].count.val();
            self.c_sum.next = bit_cast::<5, 4>(self.p0.val())
                + bit_cast::<5, 4>(
                    self.w1_sums
                        .val()
                        .get_bits::<4>((bit_cast::<6, 4>(self.p0.val()) << 2).index()),
                );
            for b in 0..5 {
                self.c_planes.next = self
                    .c_planes
                    .val()
                    .replace_bit(12 * b + i, self.c_sum.val().get_bit(b));
            }
            // The wunary1 bit of a set wunary0 bit: the p0-th.
            self.wu1_at.next = 0.into();
            if self.p0.val() != 0 {
                self.wu1_at.next = self.p0.val() - 1;
            }
            if !self.wu0.val().get_bit(i)
                | self.wtrunc.val()
                | !self.wu1.val().get_bit(self.wu1_at.val().index())
            {
                self.ends.next = self.ends.val().replace_bit(i, true);
            }
        }
        self.total.next = self.c_sum.val();

        // The n-th completed weight ends where a counted end has n ends before it.
        self.counted.next = 0.into();
        self.last_select.next = 0.into();
        for i in 0..POSITIONS {
            self.ends_before[i].bits.next =
                self.ends.val() & !(self.all_ones.val() << i.to_bits::<4>());
            if self.ends.val().get_bit(i)
                & self.gr_en.val()
                & (self.ends_before[i].count.val() < self.k.val())
            {
                self.counted.next = self.counted.val().replace_bit(i, true);
                if self.ends_before[i].count.val() + 1 == self.k.val() {
                    self.last_select.next = self.last_select.val().replace_bit(i, true);
                }
            }
        }
        self.sums_at_ends.next = 0.into();
        self.last_end_sum.next = 0.into();
        for n in 0..POSITIONS {
            self.select.next = 0.into();
            for i in 0..POSITIONS {
                if self.counted.val().get_bit(i)
                    & (self.ends_before[i].count.val() == n.to_bits::<4>())
                {
                    self.select.next = self.select.val().replace_bit(i, true);
                }
            }
            self.sum_at_end.next = 0.into();
            for b in 0..5 {
                self.sum_at_end.next = self.sum_at_end.val().replace_bit(
                    b,
                    (self.select.val() & self.c_planes.val().get_bits::<12>(12 * b)).any(),
                );
            }
            self.sums_at_ends.next = self.sums_at_ends.val()
                | (bit_cast::<60, 5>(self.sum_at_end.val()) << (n * 5).to_bits::<6>());
        }
        for b in 0..5 {
            self.last_end_sum.next = self.last_end_sum.val().replace_bit(
                b,
                (self.last_select.val() & self.c_planes.val().get_bits::<12>(12 * b)).any(),
            );
        }
        self.quotients.next = bit_cast::<60, 5>(self.sums_at_ends.val().get_bits::<5>(0));
        for n in 1..POSITIONS {
            self.sum_at_end.next = self.sums_at_ends.val().get_bits::<5>(n * 5);
            self.previous.next = self.sums_at_ends.val().get_bits::<5>(n * 5 - 5);
            self.quotients.next = self.quotients.val()
                | (bit_cast::<60, 5>(self.sum_at_end.val() - self.previous.val())
                    << (n * 5).to_bits::<6>());
        }
        self.tail.next = self.total.val() - self.last_end_sum.val();

        // Zero runs: ones before each zero bit, selected per zero.
        self.zero_bits.next = !self.zu.val();
        if !self.zunary_12.val() {
            self.zero_bits.next = !self.zu.val() & 0xFF;
        }
        self.zu_ones.bits.next = self.zu.val();
        if !self.zunary_12.val() {
            self.zu_ones.bits.next = self.zu.val() & 0xFF;
        }
        self.z_ones.next = self.zu_ones.count.val();
        self.has_zero.next = self.zero_bits.val().any();
        self.o_planes.next = 0.into();
        self.last_zero.next = 0.into();
        for i in 0..POSITIONS {
            self.ones_before[i].bits.next =
                self.zu.val() & !(self.all_ones.val() << i.to_bits::<4>());
            self.zeros_before[i].bits.next =
                self.zero_bits.val() & !(self.all_ones.val() << i.to_bits::<4>());
            for b in 0..4 {
                self.o_planes.next = self
                    .o_planes
                    .val()
                    .replace_bit(12 * b + i, self.ones_before[i].count.val().get_bit(b));
            }
            if self.zero_bits.val().get_bit(i)
                & !(self.zero_bits.val() & (self.all_ones.val() << (i + 1).to_bits::<4>())).any()
            {
                self.last_zero.next = self.last_zero.val().replace_bit(i, true);
            }
        }
        self.ones_at_zeros.next = 0.into();
        for n in 0..POSITIONS {
            self.select.next = 0.into();
            for i in 0..POSITIONS {
                if self.zero_bits.val().get_bit(i)
                    & (self.zeros_before[i].count.val() == n.to_bits::<4>())
                {
                    self.select.next = self.select.val().replace_bit(i, true);
                }
            }
            self.ones_at_zero.next = 0.into();
            for b in 0..4 {
                self.ones_at_zero.next = self.ones_at_zero.val().replace_bit(
                    b,
                    (self.select.val() & self.o_planes.val().get_bits::<12>(12 * b)).any(),
                );
            }
            self.ones_at_zeros.next = self.ones_at_zeros.val()
                | (bit_cast::<48, 4>(self.ones_at_zero.val()) << (n * 4).to_bits::<6>());
        }
        self.z_first.next = self.ones_at_zeros.val().get_bits::<4>(0);
        self.z_runs.next = 0.into();
        for n in 1..POSITIONS {
            self.ones_at_zero.next = self.ones_at_zeros.val().get_bits::<4>(n * 4);
            self.ones_before_prev.next = self.ones_at_zeros.val().get_bits::<4>(n * 4 - 4);
            self.z_runs.next = self.z_runs.val()
                | (bit_cast::<48, 4>(self.ones_at_zero.val() - self.ones_before_prev.val())
                    << (n * 4).to_bits::<6>());
        }
        self.ones_at_last.next = 0.into();
        for b in 0..4 {
            self.ones_at_last.next = self.ones_at_last.val().replace_bit(
                b,
                (self.last_zero.val() & self.o_planes.val().get_bits::<12>(12 * b)).any(),
            );
        }
        self.z_tail.next = self.z_ones.val() - self.ones_at_last.val();
    }
}
