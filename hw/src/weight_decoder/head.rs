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
    /// `wunary0` is present (Golomb-Rice weights enabled).
    pub gr_en: Signal<Out, Bit>,
    /// Bits up to the end of `wunary1`: where the weight remainders begin.
    pub head_len: Signal<Out, Bits<6>>,
    /// Weights and zero runs the chunk completes.
    pub k: Signal<Out, Bits<4>>,
    pub m: Signal<Out, Bits<4>>,
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
    ends: Signal<Local, Bits<4>>,
    per_chunk: Signal<Local, Bits<4>>,
    zeros: Signal<Local, Bits<4>>,
}

impl Logic for ChunkHead {
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

        self.head_len.next = 0.into();
        if self.gr_en.val() {
            self.head_len.next = bit_cast::<6, 4>(self.wu0_ones.count.val()) + 12;
        }
        if self.z_en.val() {
            if self.zunary_12.val() {
                self.head_len.next = self.head_len.val() + 12;
            } else {
                self.head_len.next = self.head_len.val() + 8;
            }
        }

        // Weights completed: at most those the slice still codes.
        self.ends.next = 12.into();
        if !self.wtrunc.val() {
            self.ends.next = 12 - self.wu1_taken.val();
        }
        self.per_chunk.next = 8.into();
        if self.per_chunk_12.val() {
            self.per_chunk.next = 12.into();
        }
        if !self.gr_en.val() {
            self.ends.next = self.per_chunk.val();
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
        self.m.next = 0.into();
        if self.z_en.val() {
            self.m.next = self.zeros.val();
            if self.z_left.val() < bit_cast::<5, 4>(self.zeros.val()) {
                self.m.next = bit_cast::<4, 5>(self.z_left.val());
            }
        }
    }
}
