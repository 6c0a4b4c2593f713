//! Re-aligns a byte stream from source beats to destination beats.
//!
//! Source and destination of a DMA transfer start at unrelated byte lanes,
//! and rows may sit at any alignment, so bytes move between lanes. The
//! aligner keeps up to 32 bytes in order: each cycle it can append the
//! valid bytes of one source beat and emit one destination beat, so a long
//! copy runs at 16 bytes per cycle.

use crate::stream::{LaneBeat, StreamIn, StreamOut, StrobedBeat};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Aligner {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Source beats: their lanes `first_lane..=last_lane` are the next
    /// bytes of the stream.
    pub source: StreamIn<LaneBeat>,
    /// The destination beat to fill next, if `wanted`: its lanes.
    pub wanted: Signal<In, Bit>,
    pub first_lane: Signal<In, Bits<4>>,
    pub last_lane: Signal<In, Bits<4>>,
    /// That beat, offered once enough bytes are in.
    pub out: StreamOut<StrobedBeat>,
    out_fire: Signal<Local, Bit>,
    in_bytes: Signal<Local, Bits<6>>,
    out_bytes: Signal<Local, Bits<6>>,
    taken: Signal<Local, Bits<6>>,
    remaining: Signal<Local, Bits<6>>,
    in_fire: Signal<Local, Bit>,
    compact: Signal<Local, Bits<128>>,
    appended: Signal<Local, Bits<256>>,
    shifted_out: Signal<Local, Bits<256>>,
    all_ones: Constant<Bits<128>>,
    /// Stream bytes in order from byte 0; bytes at `count` and above are 0.
    bytes: ResetReg<Bits<256>>,
    count: ResetReg<Bits<6>>,
}

impl Default for Aligner {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            source: Default::default(),
            wanted: Default::default(),
            first_lane: Default::default(),
            last_lane: Default::default(),
            out: Default::default(),
            out_fire: Default::default(),
            in_bytes: Default::default(),
            out_bytes: Default::default(),
            taken: Default::default(),
            remaining: Default::default(),
            in_fire: Default::default(),
            compact: Default::default(),
            appended: Default::default(),
            shifted_out: Default::default(),
            all_ones: Constant::new(Bits::<128>::mask()),
            bytes: Default::default(),
            count: Default::default(),
        }
    }
}

impl Logic for Aligner {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bytes, count);
        self.bytes.rst_n.next = self.rst_n.val();
        self.count.rst_n.next = self.rst_n.val();

        self.in_bytes.next = bit_cast::<6, 4>(self.source.data.val().last_lane)
            - bit_cast::<6, 4>(self.source.data.val().first_lane)
            + 1;
        self.out_bytes.next =
            bit_cast::<6, 4>(self.last_lane.val()) - bit_cast::<6, 4>(self.first_lane.val()) + 1;
        self.out.valid.next = self.wanted.val() & (self.count.q.val() >= self.out_bytes.val());
        self.out_fire.next = self.out.valid.val() & self.out.ready.val();
        self.taken.next = 0.into();
        if self.out_fire.val() {
            self.taken.next = self.out_bytes.val();
        }
        self.remaining.next = self.count.q.val() - self.taken.val();
        self.source.ready.next = self.remaining.val() <= 16;
        self.in_fire.next = self.source.valid.val() & self.source.ready.val();

        // The source bytes moved down to lane 0, the lanes above them cleared.
        self.compact.next = (self.source.data.val().data
            >> (bit_cast::<8, 4>(self.source.data.val().first_lane) << 3))
            & !(self.all_ones.val() << (bit_cast::<8, 6>(self.in_bytes.val()) << 3));
        self.appended.next = bit_cast::<256, 128>(self.compact.val())
            << (bit_cast::<9, 6>(self.remaining.val()) << 3);
        self.shifted_out.next = self.bytes.q.val() >> (bit_cast::<9, 6>(self.taken.val()) << 3);

        self.out.data.next.data = bit_cast::<128, 256>(
            self.bytes.q.val() << (bit_cast::<9, 4>(self.first_lane.val()) << 3),
        );
        self.out.data.next.strobe = (bits::<16>(0xffff) << self.first_lane.val())
            & (bits::<16>(0xffff) >> (bits::<4>(15) - self.last_lane.val()));

        self.bytes.d.next = self.shifted_out.val();
        self.count.d.next = self.remaining.val();
        if self.in_fire.val() {
            self.bytes.d.next = self.shifted_out.val() | self.appended.val();
            self.count.d.next = self.remaining.val() + self.in_bytes.val();
        }
    }
}
