//! Pairs each weight with the zero run after it and expands them into groups
//! of `LANES` weights in the double-buffered output register (TRM 3.3.5).
//!
//! Entry i of a queue holds item i of the slice sequence: a weight (or, for a
//! slice's leading zero run, no weight) and the zero run that follows it
//! (TRM 4.7.3.3). Weights and zero runs arrive separately, the balance rule
//! keeping either at most 20 entries ahead of the other; an entry is
//! expanded once it has both.
//!
//! Every lane of the expanded stream has a position, counted modulo 2^40
//! from the first stream (a zero run is under 2^31 lanes, so the entries
//! held span far less than 2^39). A zero run arrives as the position where
//! its entry ends, so the expander needs no running sum: each cycle it
//! compares the first 16 entries' ends with its cursor (the group's first
//! lane `base` plus `fill` lanes), takes the entries that end within the
//! lanes it can fill (the group and, when the offered group is free, the
//! next), and places each value at its start, the end of the entry before.
//! The queues are compacting: the head is always entry 0. Placing the
//! values in the group's lanes is a block of its own ([`LanePlacement`]).

use super::pipeline::Pushes;
use super::placement::LanePlacement;
use super::values::ITEMS;
use super::LANES;
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// Entries buffered: one side may run 20 ahead, a cycle pushes up to 25
/// and the expander looks at 16.
pub const SLOTS: usize = 64;
/// Entries the expander considers a cycle.
const WINDOW: usize = 16;
/// Bits of a lane position.
const POSITION: usize = 40;

// `update` writes LANES (16), two groups (32), SLOTS (64) and the field
// widths as literals: yosys does not flatten the hierarchy, so a constant
// from another block would not be propagated.
const _: () = assert!(LANES == 16 && SLOTS == 64 && WINDOW == 16 && ITEMS == 12);

#[derive(LogicBlock, Default)]
pub struct PairBuffer {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Items of this cycle, `push_a`'s first.
    pub push_a: Signal<In, Pushes>,
    pub push_b: Signal<In, Pushes>,
    /// Free entries for each kind (this cycle's expansion not counted).
    pub w_free: Signal<Out, Bits<7>>,
    pub z_free: Signal<Out, Bits<7>>,
    /// Nothing more will be pushed: flush the last partial group and drop
    /// entries that will never be paired (after an error).
    pub finished: Signal<In, Bit>,
    /// Nothing buffered and no group waiting to be taken.
    pub empty: Signal<Out, Bit>,
    /// The output group: `out_count` weights, lane i in bits 9i+8..9i.
    pub out_weights: Signal<Out, Bits<{ LANES * 9 }>>,
    pub out_count: Signal<Out, Bits<5>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    /// Entry i: its weight in bits 10i+8..10i, bit 10i+9 set if it has one;
    /// the position its zero run ends at in bits 40i+39..40i.
    values: ResetReg<Bits<{ SLOTS * 10 }>>,
    ends: ResetReg<Bits<{ SLOTS * POSITION }>>,
    w_count: ResetReg<Bits<7>>,
    z_count: ResetReg<Bits<7>>,
    /// Where entry 0 starts, and where the last entry pushed ends.
    head_start: ResetReg<Bits<POSITION>>,
    tail: ResetReg<Bits<POSITION>>,
    /// The group being filled: its first lane's position, its lanes below
    /// `fill` (the rest 0), and the group offered.
    base: ResetReg<Bits<POSITION>>,
    group: ResetReg<Bits<{ LANES * 9 }>>,
    fill: ResetReg<Bits<5>>,
    out_group: ResetReg<Bits<{ LANES * 9 }>>,
    out_n: ResetReg<Bits<5>>,
    out_full: ResetReg<Bit>,
    taken_low: super::ones::Ones12,
    placement: LanePlacement,
    paired: Signal<Local, Bits<7>>,
    out_free: Signal<Local, Bit>,
    limit: Signal<Local, Bits<6>>,
    // Entry ends and starts relative to `base`: 6 bits each, saturated at
    // 63, and whether they lie before it.
    relative: Signal<Local, Bits<POSITION>>,
    end_at: Signal<Local, Bits<6>>,
    ends_at: Signal<Local, Bits<{ WINDOW * 6 }>>,
    behind: Signal<Local, Bits<WINDOW>>,
    start_at: Signal<Local, Bits<6>>,
    start_behind: Signal<Local, Bit>,
    starts_at: Signal<Local, Bits<{ WINDOW * 6 }>>,
    starts_behind: Signal<Local, Bits<WINDOW>>,
    paired_mask: Signal<Local, Bits<WINDOW>>,
    complete: Signal<Local, Bits<WINDOW>>,
    last_complete: Signal<Local, Bits<WINDOW>>,
    last_pair: Signal<Local, Bits<WINDOW>>,
    taken: Signal<Local, Bits<5>>,
    known: Signal<Local, Bits<6>>,
    pos: Signal<Local, Bits<6>>,
    plane: Signal<Local, Bits<WINDOW>>,
    push_a_weights: Signal<Local, Bits<{ ITEMS * 9 }>>,
    push_b_weights: Signal<Local, Bits<{ ITEMS * 9 }>>,
    push_a_offsets: Signal<Local, Bits<{ ITEMS * 11 }>>,
    push_b_offsets: Signal<Local, Bits<{ ITEMS * 11 }>>,
    lanes: Signal<Local, Bits<{ 2 * LANES * 9 }>>,
    removed_end: Signal<Local, Bits<POSITION>>,
    // Pushes placed after the entries held, then the queue shifted by the
    // entries taken (constant shifts selected bit by bit of the count).
    items_a: Signal<Local, Bits<{ SLOTS * 10 }>>,
    items_b: Signal<Local, Bits<{ SLOTS * 10 }>>,
    item_ends_a: Signal<Local, Bits<{ SLOTS * POSITION }>>,
    item_ends_b: Signal<Local, Bits<{ SLOTS * POSITION }>>,
    start_a: Signal<Local, Bits<POSITION>>,
    start_b: Signal<Local, Bits<POSITION>>,
    w_after_a: Signal<Local, Bits<7>>,
    z_after_a: Signal<Local, Bits<7>>,
    value_flag: Signal<Local, Bits<10>>,
    weight: Signal<Local, Bits<9>>,
    item: Signal<Local, Bits<10>>,
    offset: Signal<Local, Bits<11>>,
    item_end: Signal<Local, Bits<POSITION>>,
    n_a: Signal<Local, Bits<4>>,
    items_ab: Signal<Local, Bits<{ SLOTS * 10 }>>,
    item_ends_ab: Signal<Local, Bits<{ SLOTS * POSITION }>>,
    values_in: Signal<Local, Bits<{ SLOTS * 10 }>>,
    ends_in: Signal<Local, Bits<{ SLOTS * POSITION }>>,
    values_out: Signal<Local, Bits<{ SLOTS * 10 }>>,
    ends_out: Signal<Local, Bits<{ SLOTS * POSITION }>>,
    drop_unpaired: Signal<Local, Bit>,
}

impl Logic for PairBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, values, ends, w_count, z_count, head_start, tail, base, group, fill,
            out_group, out_n, out_full
        );
        self.values.rst_n.next = self.rst_n.val();
        self.ends.rst_n.next = self.rst_n.val();
        self.w_count.rst_n.next = self.rst_n.val();
        self.z_count.rst_n.next = self.rst_n.val();
        self.head_start.rst_n.next = self.rst_n.val();
        self.tail.rst_n.next = self.rst_n.val();
        self.base.rst_n.next = self.rst_n.val();
        self.group.rst_n.next = self.rst_n.val();
        self.fill.rst_n.next = self.rst_n.val();
        self.out_group.rst_n.next = self.rst_n.val();
        self.out_n.rst_n.next = self.rst_n.val();
        self.out_full.rst_n.next = self.rst_n.val();

        self.w_free.next = 64 - self.w_count.q.val();
        self.z_free.next = 64 - self.z_count.q.val();
        self.paired.next = self.w_count.q.val();
        if self.z_count.q.val() < self.w_count.q.val() {
            self.paired.next = self.z_count.q.val();
        }
        self.out_free.next = !self.out_full.q.val() | self.out_ready.val();
        self.limit.next = 16.into();
        if self.out_free.val() {
            self.limit.next = 32.into();
        }

        // Ends relative to the group's first lane; an entry is complete when
        // it ends within the lanes this cycle can fill.
        self.ends_at.next = 0.into();
        self.behind.next = 0.into();
        self.paired_mask.next = 0.into();
        self.complete.next = 0.into();
        for i in 0..WINDOW {
            self.relative.next = self.ends.q.val().get_bits::<POSITION>(i * 40) - self.base.q.val();
            self.end_at.next = self.relative.val().get_bits::<6>(0);
            if self.relative.val().get_bits::<33>(6).any() {
                self.end_at.next = 63.into();
            }
            if self.relative.val().get_bit(39) {
                self.end_at.next = 0.into();
                self.behind.next = self.behind.val().replace_bit(i, true);
            }
            self.ends_at.next = self.ends_at.val()
                | (bit_cast::<96, 6>(self.end_at.val()) << (i * 6).to_bits::<7>());
            self.paired_mask.next = self
                .paired_mask
                .val()
                .replace_bit(i, i.to_bits::<7>() < self.paired.val());
            self.complete.next = self.complete.val().replace_bit(
                i,
                (i.to_bits::<7>() < self.paired.val()) & (self.end_at.val() <= self.limit.val()),
            );
        }
        // Starts: entry 0's is held, the others' are the ends before them.
        self.relative.next = self.head_start.q.val() - self.base.q.val();
        self.start_at.next = self.relative.val().get_bits::<6>(0);
        if self.relative.val().get_bits::<33>(6).any() {
            self.start_at.next = 63.into();
        }
        self.start_behind.next = self.relative.val().get_bit(39);
        if self.start_behind.val() {
            self.start_at.next = 0.into();
        }
        self.starts_at.next = (self.ends_at.val() << 6) | bit_cast::<96, 6>(self.start_at.val());
        self.starts_behind.next = (self.behind.val() << 1).replace_bit(0, self.start_behind.val());

        // Entries taken: complete ones form a prefix, so count them.
        self.taken_low.bits.next = self.complete.val().get_bits::<12>(0);
        self.taken.next = ((bit_cast::<5, 4>(self.taken_low.count.val())
            + bit_cast::<5, 1>(self.complete.val().get_bits::<1>(12)))
            + bit_cast::<5, 1>(self.complete.val().get_bits::<1>(13)))
            + (bit_cast::<5, 1>(self.complete.val().get_bits::<1>(14))
                + bit_cast::<5, 1>(self.complete.val().get_bits::<1>(15)));
        // Lanes known: up to the last paired entry's end, at most the limit.
        self.last_pair.next = self.paired_mask.val() & !(self.paired_mask.val() >> 1);
        self.known.next = 0.into();
        for b in 0..6 {
            self.plane.next = 0.into();
            for i in 0..WINDOW {
                self.plane.next = self
                    .plane
                    .val()
                    .replace_bit(i, self.ends_at.val().get_bit(i * 6 + b));
            }
            self.known.next = self
                .known
                .val()
                .replace_bit(b, (self.plane.val() & self.last_pair.val()).any());
        }
        self.pos.next = bit_cast::<6, 5>(self.fill.q.val());
        if self.paired.val() != 0 {
            self.pos.next = self.known.val();
            if self.limit.val() < self.known.val() {
                self.pos.next = self.limit.val();
            }
        }

        // Each lane: the group's weight below `fill`, a value starting
        // there, or 0 (a zero run).
        self.placement.paired.next = self.paired_mask.val();
        self.placement.values.next = self.values.q.val().get_bits::<160>(0);
        self.placement.starts_at.next = self.starts_at.val();
        self.placement.starts_behind.next = self.starts_behind.val();
        self.placement.fill.next = self.fill.q.val();
        self.placement.pos.next = self.pos.val();
        self.placement.group.next = self.group.q.val();
        self.lanes.next = self.placement.lanes.val();

        // The last entry taken ends where entry 0 will start.
        self.last_complete.next = self.complete.val() & !(self.complete.val() >> 1);
        self.removed_end.next = 0.into();
        for b in 0..40 {
            self.plane.next = 0.into();
            for i in 0..WINDOW {
                self.plane.next = self
                    .plane
                    .val()
                    .replace_bit(i, self.ends.q.val().get_bit(i * 40 + b));
            }
            self.removed_end.next = self
                .removed_end
                .val()
                .replace_bit(b, (self.plane.val() & self.last_complete.val()).any());
        }
        if self.taken.val() != 0 {
            self.head_start.d.next = self.removed_end.val();
        }

        // This cycle's items after the entries held.
        self.push_a_weights.next = self.push_a.val().weights;
        self.push_b_weights.next = self.push_b.val().weights;
        self.push_a_offsets.next = self.push_a.val().offsets;
        self.push_b_offsets.next = self.push_b.val().offsets;
        self.value_flag.next = 0.into();
        if self.push_a.val().value {
            self.value_flag.next = 512.into();
        }
        self.start_a.next = self.tail.q.val() + bit_cast::<POSITION, 34>(self.push_a.val().base);
        self.start_b.next = self.tail.q.val() + bit_cast::<POSITION, 34>(self.push_b.val().base);
        self.items_a.next = 0.into();
        self.items_b.next = 0.into();
        self.item_ends_a.next = 0.into();
        self.item_ends_b.next = 0.into();
        for j in 0..ITEMS {
            self.weight.next = self.push_a_weights.val().get_bits::<9>(j * 9);
            self.item.next = bit_cast::<10, 9>(self.weight.val()) | self.value_flag.val();
            if j.to_bits::<4>() < self.push_a.val().n_w {
                self.items_a.next = self.items_a.val()
                    | (bit_cast::<640, 10>(self.item.val()) << (j * 10).to_bits::<10>());
            }
            self.weight.next = self.push_b_weights.val().get_bits::<9>(j * 9);
            self.item.next = bit_cast::<10, 9>(self.weight.val()) | 512;
            if j.to_bits::<4>() < self.push_b.val().n_w {
                self.items_b.next = self.items_b.val()
                    | (bit_cast::<640, 10>(self.item.val()) << (j * 10).to_bits::<10>());
            }
            self.offset.next = self.push_a_offsets.val().get_bits::<11>(j * 11);
            self.item_end.next = self.start_a.val() + bit_cast::<POSITION, 11>(self.offset.val());
            if j.to_bits::<4>() < self.push_a.val().n_z {
                self.item_ends_a.next = self.item_ends_a.val()
                    | (bit_cast::<2560, POSITION>(self.item_end.val()) << (j * 40).to_bits::<12>());
            }
            self.offset.next = self.push_b_offsets.val().get_bits::<11>(j * 11);
            self.item_end.next = self.start_b.val() + bit_cast::<POSITION, 11>(self.offset.val());
            if j.to_bits::<4>() < self.push_b.val().n_z {
                self.item_ends_b.next = self.item_ends_b.val()
                    | (bit_cast::<2560, POSITION>(self.item_end.val()) << (j * 40).to_bits::<12>());
            }
        }
        self.w_after_a.next = self.w_count.q.val() + bit_cast::<7, 4>(self.push_a.val().n_w);
        self.z_after_a.next = self.z_count.q.val() + bit_cast::<7, 4>(self.push_a.val().n_z);
        // b's items after a's, then all after the entries held; each shift
        // is a few constant shifts chosen by the bits of a count.
        self.n_a.next = self.push_a.val().n_w;
        self.items_ab.next = self.items_b.val();
        for s in 0..4 {
            if self.n_a.val().get_bit(s) {
                self.items_ab.next = self.items_ab.val() << (10_usize << s).to_bits::<10>();
            }
        }
        self.items_ab.next = self.items_ab.val() | self.items_a.val();
        self.n_a.next = self.push_a.val().n_z;
        self.item_ends_ab.next = self.item_ends_b.val();
        for s in 0..4 {
            if self.n_a.val().get_bit(s) {
                self.item_ends_ab.next = self.item_ends_ab.val() << (40_usize << s).to_bits::<12>();
            }
        }
        self.item_ends_ab.next = self.item_ends_ab.val() | self.item_ends_a.val();
        self.values_in.next = self.values.q.val()
            | (self.items_ab.val()
                << ((bit_cast::<10, 7>(self.w_count.q.val()) << 3)
                    + (bit_cast::<10, 7>(self.w_count.q.val()) << 1)));
        self.ends_in.next = self.ends.q.val()
            | (self.item_ends_ab.val()
                << ((bit_cast::<12, 7>(self.z_count.q.val()) << 5)
                    + (bit_cast::<12, 7>(self.z_count.q.val()) << 3)));
        // Entries taken leave: shifts by 1, 2, 4, 8 and 16 entries.
        self.values_out.next = self.values_in.val();
        self.ends_out.next = self.ends_in.val();
        for s in 0..5 {
            if self.taken.val().get_bit(s) {
                self.values_out.next = self.values_out.val() >> (10_usize << s).to_bits::<10>();
                self.ends_out.next = self.ends_out.val() >> (40_usize << s).to_bits::<12>();
            }
        }
        self.values.d.next = self.values_out.val();
        self.ends.d.next = self.ends_out.val();
        self.w_count.d.next = (self.w_after_a.val() + bit_cast::<7, 4>(self.push_b.val().n_w))
            - bit_cast::<7, 5>(self.taken.val());
        self.z_count.d.next = (self.z_after_a.val() + bit_cast::<7, 4>(self.push_b.val().n_z))
            - bit_cast::<7, 5>(self.taken.val());
        if self.push_b.val().n_z != 0 {
            self.tail.d.next =
                self.start_b.val() + bit_cast::<POSITION, 11>(self.push_b.val().last_offset);
        } else if self.push_a.val().n_z != 0 {
            self.tail.d.next =
                self.start_a.val() + bit_cast::<POSITION, 11>(self.push_a.val().last_offset);
        }

        // After the last push, entries without a partner are dropped and the
        // last partial group goes out as it is.
        self.drop_unpaired.next = self.finished.val() & (self.paired.val() == 0);
        // (A run can be pushed without its weight when a fault stops the
        // weights' pushes: the cursor moves past it too.)
        if self.drop_unpaired.val() {
            self.values.d.next = 0.into();
            self.ends.d.next = 0.into();
            self.w_count.d.next = 0.into();
            self.z_count.d.next = 0.into();
            self.head_start.d.next = self.tail.q.val();
            if self.fill.q.val() == 0 {
                self.base.d.next = self.tail.q.val();
            }
        }
        self.group.d.next = bit_cast::<{ LANES * 9 }, { 2 * LANES * 9 }>(self.lanes.val());
        self.fill.d.next = bit_cast::<5, 6>(self.pos.val());
        if self.out_full.q.val() & self.out_ready.val() {
            self.out_full.d.next = false;
        }
        if self.out_free.val() {
            if self.pos.val() >= 16 {
                self.out_group.d.next =
                    bit_cast::<{ LANES * 9 }, { 2 * LANES * 9 }>(self.lanes.val());
                self.out_n.d.next = 16.into();
                self.out_full.d.next = true;
                self.group.d.next =
                    bit_cast::<{ LANES * 9 }, { 2 * LANES * 9 }>(self.lanes.val() >> 144);
                self.fill.d.next = bit_cast::<5, 6>(self.pos.val() - 16);
                self.base.d.next = self.base.q.val() + 16;
            } else if self.drop_unpaired.val() & (self.pos.val() != 0) {
                self.out_group.d.next =
                    bit_cast::<{ LANES * 9 }, { 2 * LANES * 9 }>(self.lanes.val());
                self.out_n.d.next = bit_cast::<5, 6>(self.pos.val());
                self.out_full.d.next = true;
                self.group.d.next = 0.into();
                self.fill.d.next = 0.into();
                self.base.d.next = self.tail.q.val();
            }
        }
        self.empty.next = (self.w_count.q.val() == 0)
            & (self.z_count.q.val() == 0)
            & (self.fill.q.val() == 0)
            & !self.out_full.q.val();
        self.out_weights.next = self.out_group.q.val();
        self.out_count.next = self.out_n.q.val();
        self.out_valid.next = self.out_full.q.val();
    }
}
