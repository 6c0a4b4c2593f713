//! A chunk's head (TRM 4.7.4): `wunary0`, `zunary` and `wunary1`, the part
//! of a chunk whose length depends on its bits. From it alone the parser
//! learns where the chunk's remainders begin and how many weights and zero
//! runs the chunk completes, which is all the next chunk's position needs;
//! the quotient values are left to the value pipeline.
//!
//! A weight ends at every `wunary0` position but those whose `wunary1` bit
//! is 1 (unless `wtrunc`), and `wunary1` has one bit per set `wunary0` bit
//! (as Vela writes it), so a chunk with p set `wunary0` bits completes
//! 12 - (ones among the first p `wunary1` bits) weights, or 12 with `wtrunc`.

use super::ones::Ones12;
use rust_hdl::prelude::*;

/// Bits of a chunk's head: 12 `wunary0`, at most 12 `zunary`, at most 12 `wunary1`.
pub const HEAD_BITS: usize = 36;

/// A chunk's head whatever its enables: one [`HeadCore`] per pair of enables
/// a chunk may have (weights, zero runs, both), the enables choosing among
/// their results only at the end.
#[derive(LogicBlock, Default)]
pub struct ChunkHead {
    /// The chunk's first bits.
    pub bits: Signal<In, Bits<HEAD_BITS>>,
    /// Weights and zero runs enabled by the balance rule (TRM 4.7.4).
    pub w_en: Signal<In, Bit>,
    pub z_en: Signal<In, Bit>,
    /// Slice parameters: `wdiv` 7, `wtrunc`, 12 (else 8) `zunary` bits,
    /// 12 (else 8) uncompressed indices per chunk.
    pub uncompressed: Signal<In, Bit>,
    pub wtrunc: Signal<In, Bit>,
    pub zunary_12: Signal<In, Bit>,
    pub per_chunk_12: Signal<In, Bit>,
    /// Weights and zero runs the slice still codes (saturated: at least 12 exact).
    pub w_left: Signal<In, Bits<5>>,
    pub z_left: Signal<In, Bits<5>>,
    /// As [`HeadCore`]'s, of the enabled core; all 0 and `last` with neither enabled.
    pub gr_en: Signal<Out, Bit>,
    pub head_len: Signal<Out, Bits<6>>,
    pub wu0_count: Signal<Out, Bits<4>>,
    pub fixed_len: Signal<Out, Bits<5>>,
    pub k: Signal<Out, Bits<4>>,
    pub m: Signal<Out, Bits<4>>,
    pub k_all: Signal<Out, Bits<4>>,
    pub m_all: Signal<Out, Bits<4>>,
    pub last: Signal<Out, Bit>,
    cores: [HeadCore; 3],
}

impl Logic for ChunkHead {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..3 {
            self.cores[i].bits.next = self.bits.val();
            self.cores[i].uncompressed.next = self.uncompressed.val();
            self.cores[i].wtrunc.next = self.wtrunc.val();
            self.cores[i].zunary_12.next = self.zunary_12.val();
            self.cores[i].per_chunk_12.next = self.per_chunk_12.val();
            self.cores[i].w_left.next = self.w_left.val();
            self.cores[i].z_left.next = self.z_left.val();
        }
        self.cores[0].w_en.next = true;
        self.cores[0].z_en.next = false;
        self.cores[1].w_en.next = false;
        self.cores[1].z_en.next = true;
        self.cores[2].w_en.next = true;
        self.cores[2].z_en.next = true;

        self.gr_en.next = false;
        self.head_len.next = 0.into();
        self.wu0_count.next = 0.into();
        self.fixed_len.next = 0.into();
        self.k.next = 0.into();
        self.m.next = 0.into();
        self.k_all.next = 0.into();
        self.m_all.next = 0.into();
        self.last.next = !self.w_en.val() & !self.z_en.val();
        if self.w_en.val() & !self.z_en.val() {
            self.gr_en.next = self.cores[0].gr_en.val();
            self.head_len.next = self.cores[0].head_len.val();
            self.wu0_count.next = self.cores[0].wu0_count.val();
            self.fixed_len.next = self.cores[0].fixed_len.val();
            self.k.next = self.cores[0].k.val();
            self.k_all.next = self.cores[0].k_all.val();
        }
        if !self.w_en.val() & self.z_en.val() {
            self.head_len.next = self.cores[1].head_len.val();
            self.fixed_len.next = self.cores[1].fixed_len.val();
            self.m.next = self.cores[1].m.val();
            self.m_all.next = self.cores[1].m_all.val();
        }
        if self.w_en.val() & self.z_en.val() {
            self.gr_en.next = self.cores[2].gr_en.val();
            self.head_len.next = self.cores[2].head_len.val();
            self.wu0_count.next = self.cores[2].wu0_count.val();
            self.fixed_len.next = self.cores[2].fixed_len.val();
            self.k.next = self.cores[2].k.val();
            self.m.next = self.cores[2].m.val();
            self.k_all.next = self.cores[2].k_all.val();
            self.m_all.next = self.cores[2].m_all.val();
        }
    }
}

/// A chunk's head for enables fixed by its instance, so that its counts
/// never wait for them.
#[derive(LogicBlock, Default)]
pub struct HeadCore {
    /// The chunk's first bits.
    pub bits: Signal<In, Bits<HEAD_BITS>>,
    /// Weights and zero runs enabled by the balance rule (TRM 4.7.4).
    pub w_en: Signal<In, Bit>,
    pub z_en: Signal<In, Bit>,
    /// Slice parameters: `wdiv` 7, `wtrunc`, 12 (else 8) `zunary` bits,
    /// 12 (else 8) uncompressed indices per chunk.
    pub uncompressed: Signal<In, Bit>,
    pub wtrunc: Signal<In, Bit>,
    pub zunary_12: Signal<In, Bit>,
    pub per_chunk_12: Signal<In, Bit>,
    /// Weights and zero runs the slice still codes (saturated: at least 12 exact).
    pub w_left: Signal<In, Bits<5>>,
    pub z_left: Signal<In, Bits<5>>,
    /// `wunary0` is present (Golomb-Rice weights enabled).
    pub gr_en: Signal<Out, Bit>,
    /// Bits up to the end of `wunary1`: where the weight remainders begin;
    /// the ones of `wunary0` (its bits up to `wunary1`) and the rest, the
    /// length the enables alone fix.
    pub head_len: Signal<Out, Bits<6>>,
    pub wu0_count: Signal<Out, Bits<4>>,
    pub fixed_len: Signal<Out, Bits<5>>,
    /// Weights and zero runs the chunk completes.
    pub k: Signal<Out, Bits<4>>,
    pub m: Signal<Out, Bits<4>>,
    /// The same before capping at `w_left`/`z_left`: equal to `k`/`m`
    /// wherever the slice does not end in the chunk.
    pub k_all: Signal<Out, Bits<4>>,
    pub m_all: Signal<Out, Bits<4>>,
    /// Neither enabled: the chunk only carries remainders and ends the slice.
    pub last: Signal<Out, Bit>,
    wu0_ones: Ones12,
    zu_zeros: Ones12,
    wu1_first: [Ones12; 12],
    zu: Signal<Local, Bits<12>>,
    wu1: Signal<Local, Bits<12>>,
    all_ones: Signal<Local, Bits<12>>,
    count: Signal<Local, Bits<4>>,
    prefix_ones: Signal<Local, Bits<52>>,
    wu1_taken: Signal<Local, Bits<4>>,
    twelve_minus: Signal<Local, Bits<52>>,
    ends: Signal<Local, Bits<4>>,
    per_chunk: Signal<Local, Bits<4>>,
    zeros: Signal<Local, Bits<4>>,
}

impl Logic for HeadCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.gr_en.next = self.w_en.val() & !self.uncompressed.val();
        self.last.next = !self.w_en.val() & !self.z_en.val();

        // Field positions: wunary0, then zunary, then wunary1.
        self.wu0_ones.bits.next = 0.into();
        self.zu.next = self.bits.val().get_bits::<12>(0);
        self.wu1.next = self.bits.val().get_bits::<12>(12);
        if self.gr_en.val() {
            self.wu0_ones.bits.next = self.bits.val().get_bits::<12>(0);
            self.zu.next = self.bits.val().get_bits::<12>(12);
            if self.z_en.val() {
                self.wu1.next = self.bits.val().get_bits::<12>(24);
                if !self.zunary_12.val() {
                    self.wu1.next = self.bits.val().get_bits::<12>(20);
                }
            }
        }
        // Zero bits of zunary end zero runs; an 8-bit zunary's upper 4 count as ones.
        self.zu_zeros.bits.next = !self.zu.val();
        if !self.zunary_12.val() {
            self.zu_zeros.bits.next = !self.zu.val() & 0xFF;
        }
        // The wunary1 bits that belong to this chunk, one per set wunary0 bit:
        // the ones among every prefix of wunary1 side by side, the p-th chosen.
        self.all_ones.next = 0xFFF.into();
        self.prefix_ones.next = 0.into();
        for n in 0..12 {
            self.wu1_first[n].bits.next =
                self.wu1.val() & !(self.all_ones.val() << (n + 1).to_bits::<4>());
            self.count.next = self.wu1_first[n].count.val();
            self.prefix_ones.next = self.prefix_ones.val()
                | (bit_cast::<52, 4>(self.count.val()) << ((n + 1) * 4).to_bits::<6>());
        }
        self.wu1_taken.next = self
            .prefix_ones
            .val()
            .get_bits::<4>((bit_cast::<6, 4>(self.wu0_ones.count.val()) << 2).index());

        self.fixed_len.next = 0.into();
        if self.gr_en.val() {
            self.fixed_len.next = 12.into();
        }
        if self.z_en.val() {
            if self.zunary_12.val() {
                self.fixed_len.next = self.fixed_len.val() + 12;
            } else {
                self.fixed_len.next = self.fixed_len.val() + 8;
            }
        }
        self.wu0_count.next = self.wu0_ones.count.val();
        self.head_len.next =
            bit_cast::<6, 5>(self.fixed_len.val()) + bit_cast::<6, 4>(self.wu0_count.val());

        // Weights completed: at most those the slice still codes.
        self.twelve_minus.next = 0x0123456789ABC_u64.into();
        self.ends.next = 12.into();
        if !self.wtrunc.val() {
            // 12 - taken from a table: a subtraction is twice as deep.
            self.ends.next = self
                .twelve_minus
                .val()
                .get_bits::<4>((bit_cast::<6, 4>(self.wu1_taken.val()) << 2).index());
        }
        self.per_chunk.next = 8.into();
        if self.per_chunk_12.val() {
            self.per_chunk.next = 12.into();
        }
        if !self.gr_en.val() {
            self.ends.next = self.per_chunk.val();
        }
        self.k_all.next = 0.into();
        if self.w_en.val() {
            self.k_all.next = self.ends.val();
        }
        self.k.next = 0.into();
        if self.w_en.val() {
            self.k.next = self.ends.val();
            if self.w_left.val() < bit_cast::<5, 4>(self.ends.val()) {
                self.k.next = bit_cast::<4, 5>(self.w_left.val());
            }
        }
        // Zero runs completed: runs past the slice's count are Vela's padding.
        self.zeros.next = self.zu_zeros.count.val();
        self.m_all.next = 0.into();
        if self.z_en.val() {
            self.m_all.next = self.zeros.val();
        }
        self.m.next = 0.into();
        if self.z_en.val() {
            self.m.next = self.zeros.val();
            if self.z_left.val() < bit_cast::<5, 4>(self.zeros.val()) {
                self.m.next = bit_cast::<4, 5>(self.z_left.val());
            }
        }
    }
}
