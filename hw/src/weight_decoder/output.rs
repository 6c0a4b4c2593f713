//! Pairs each weight with the zero run after it and expands them into groups
//! of `LANES` weights in the double-buffered output register (TRM 3.3.5).
//!
//! Entry i of a queue holds item i of the slice sequence: a weight (or, for a
//! slice's leading zero run, no weight) and the zero run that follows it
//! (TRM 4.7.3.3). Weights and zero runs arrive separately, up to 24 of each a
//! cycle in two groups, the balance rule keeping either at most 20 entries
//! ahead of the other; an entry is expanded once it has both. The queue is
//! compacting: its head is always entry 0, so the expander reads fixed
//! positions, and each cycle appends at the two counts and shifts out the
//! entries expanded.

use super::{ITEM_SLOTS, LANES};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// Entries buffered: the 20 one side may run ahead plus a chunk's 12, so the
/// first chunk of a cycle always finds room once the head entry is paired.
pub const SLOTS: usize = 32;
// The room computed in `update` (a literal).
const _: () = assert!(SLOTS == 32);
/// Lanes a cycle can fill: the group being filled and the next.
const LANE_SPACE: usize = 2 * LANES;

// `update` writes LANES (16), two groups (32) and a group's bits (144) as
// literals: yosys does not flatten the hierarchy, so a constant from another
// block would not be propagated.
const _: () = assert!(LANES == 16);

#[derive(LogicBlock, Default)]
pub struct PairBuffer {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// From the parser, two groups appended in order, a then b:
    /// `push_*_w` weights (value-less when `push_a_value` is low) and
    /// `push_*_z` zero runs; zero runs past `push_*_z` are 0.
    pub push_a_w: Signal<In, Bits<4>>,
    pub push_a_value: Signal<In, Bit>,
    pub push_a_weights: Signal<In, Bits<{ ITEM_SLOTS * 9 }>>,
    pub push_a_z: Signal<In, Bits<4>>,
    pub push_a_runs: Signal<In, Bits<{ ITEM_SLOTS * 32 }>>,
    pub push_b_w: Signal<In, Bits<4>>,
    pub push_b_weights: Signal<In, Bits<{ ITEM_SLOTS * 9 }>>,
    pub push_b_z: Signal<In, Bits<4>>,
    pub push_b_runs: Signal<In, Bits<{ ITEM_SLOTS * 32 }>>,
    /// Free entries for each kind.
    pub w_room: Signal<Out, Bits<7>>,
    pub z_room: Signal<Out, Bits<7>>,
    /// The parser will push nothing more: flush the last partial group and
    /// drop entries that will never be paired (after an error).
    pub finished: Signal<In, Bit>,
    /// Nothing buffered and no group waiting to be taken.
    pub empty: Signal<Out, Bit>,
    /// The output group: `out_count` weights, lane i in bits 9i+8..9i.
    pub out_weights: Signal<Out, Bits<{ LANES * 9 }>>,
    pub out_count: Signal<Out, Bits<5>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    /// Entry i: its weight in bits 10i+8..10i, bit 10i+9 set if it has one;
    /// its zero run in bits 32i+31..32i of `runs`. Unused entries are 0.
    values: ResetReg<Bits<{ SLOTS * 10 }>>,
    runs: ResetReg<Bits<{ SLOTS * 32 }>>,
    w_count: ResetReg<Bits<7>>,
    z_count: ResetReg<Bits<7>>,
    /// Progress into entry 0: its value and this many of its zeros are out.
    head_value_done: ResetReg<Bit>,
    head_zeros: ResetReg<Bits<32>>,
    /// The group being filled (lanes below `fill`, the rest 0) and the group offered.
    group: ResetReg<Bits<{ LANES * 9 }>>,
    fill: ResetReg<Bits<5>>,
    out_group: ResetReg<Bits<{ LANES * 9 }>>,
    out_n: ResetReg<Bits<5>>,
    out_full: ResetReg<Bit>,
    weight: Signal<Local, Bits<9>>,
    item: Signal<Local, Bits<10>>,
    items_a: Signal<Local, Bits<{ ITEM_SLOTS * 10 }>>,
    items_b: Signal<Local, Bits<{ ITEM_SLOTS * 10 }>>,
    w_after_a: Signal<Local, Bits<7>>,
    z_after_a: Signal<Local, Bits<7>>,
    runs_a: Signal<Local, Bits<{ ITEM_SLOTS * 32 }>>,
    runs_b: Signal<Local, Bits<{ ITEM_SLOTS * 32 }>>,
    w_kept: Signal<Local, Bits<7>>,
    z_kept: Signal<Local, Bits<7>>,
    paired: Signal<Local, Bits<7>>,
    out_free: Signal<Local, Bit>,
    limit: Signal<Local, Bits<8>>,
    pos: Signal<Local, Bits<8>>,
    taken: Signal<Local, Bits<7>>,
    stop: Signal<Local, Bit>,
    entry_value: Signal<Local, Bit>,
    entry_zeros: Signal<Local, Bits<32>>,
    entry_len: Signal<Local, Bits<8>>,
    emitted: Signal<Local, Bits<8>>,
    next_value_done: Signal<Local, Bit>,
    next_zeros: Signal<Local, Bits<32>>,
    // Where each entry's value goes this cycle.
    starts: Signal<Local, Bits<{ LANES * 6 }>>,
    placed: Signal<Local, Bits<LANES>>,
    base: Signal<Local, Bits<{ 2 * LANES * 9 }>>,
    lane: Signal<Local, Bits<9>>,
    lanes: Signal<Local, Bits<{ 2 * LANES * 9 }>>,
    drop_unpaired: Signal<Local, Bit>,
}

impl Logic for PairBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            values,
            runs,
            w_count,
            z_count,
            head_value_done,
            head_zeros,
            group,
            fill,
            out_group,
            out_n,
            out_full
        );
        self.values.rst_n.next = self.rst_n.val();
        self.runs.rst_n.next = self.rst_n.val();
        self.w_count.rst_n.next = self.rst_n.val();
        self.z_count.rst_n.next = self.rst_n.val();
        self.head_value_done.rst_n.next = self.rst_n.val();
        self.head_zeros.rst_n.next = self.rst_n.val();
        self.group.rst_n.next = self.rst_n.val();
        self.fill.rst_n.next = self.rst_n.val();
        self.out_group.rst_n.next = self.rst_n.val();
        self.out_n.rst_n.next = self.rst_n.val();
        self.out_full.rst_n.next = self.rst_n.val();

        self.paired.next = self.w_count.q.val();
        if self.z_count.q.val() < self.w_count.q.val() {
            self.paired.next = self.z_count.q.val();
        }

        // The items of this cycle as entries.
        self.items_a.next = 0.into();
        self.items_b.next = 0.into();
        self.weight.next = 0.into();
        for j in 0..ITEM_SLOTS {
            self.item.next = 0.into();
            if j.to_bits::<4>() < self.push_a_w.val() {
                self.weight.next = self.push_a_weights.val().get_bits::<9>(j * 9);
                self.item.next = bit_cast::<10, 9>(self.weight.val());
                if self.push_a_value.val() {
                    self.item.next = self.item.val() | 512;
                }
            }
            self.items_a.next = self.items_a.val()
                | (bit_cast::<{ ITEM_SLOTS * 10 }, 10>(self.item.val()) << (j * 10).to_bits::<8>());
            self.item.next = 0.into();
            if j.to_bits::<4>() < self.push_b_w.val() {
                self.weight.next = self.push_b_weights.val().get_bits::<9>(j * 9);
                self.item.next = bit_cast::<10, 9>(self.weight.val()) | 512;
            }
            self.items_b.next = self.items_b.val()
                | (bit_cast::<{ ITEM_SLOTS * 10 }, 10>(self.item.val()) << (j * 10).to_bits::<8>());
        }
        // Expansion: paired entries from the head, each a value (if any) and
        // its zeros, placed after the `fill` lanes already in the group; up
        // to two groups when the offered group is taken this cycle.
        self.out_free.next = !self.out_full.q.val() | self.out_ready.val();
        self.limit.next = 16.into();
        if self.out_free.val() {
            self.limit.next = 32.into();
        }
        self.pos.next = bit_cast::<8, 5>(self.fill.q.val());
        self.taken.next = 0.into();
        self.stop.next = false;
        self.next_value_done.next = self.head_value_done.q.val();
        self.next_zeros.next = self.head_zeros.q.val();
        self.emitted.next = 0.into();
        self.starts.next = 0.into();
        self.placed.next = 0.into();
        for p in 0..LANES {
            self.entry_value.next = self.values.q.val().get_bit(p * 10 + 9);
            self.entry_zeros.next = self.runs.q.val().get_bits::<32>(p * 32);
            if p == 0 {
                self.entry_value.next = self.entry_value.val() & !self.head_value_done.q.val();
                self.entry_zeros.next = self.entry_zeros.val() - self.head_zeros.q.val();
            }
            self.entry_len.next = 33.into();
            if self.entry_zeros.val() <= 32 {
                self.entry_len.next =
                    bit_cast::<8, 32>(self.entry_zeros.val()) + self.entry_value.val();
            }
            if !self.stop.val() & (p.to_bits::<7>() < self.paired.val()) {
                if self.entry_value.val() & (self.pos.val() < self.limit.val()) {
                    self.placed.next = self.placed.val().replace_bit(p, true);
                    self.starts.next = self.starts.val()
                        | (bit_cast::<{ LANES * 6 }, 8>(self.pos.val()) << (p * 6).to_bits::<8>());
                }
                if self.pos.val() + self.entry_len.val() <= self.limit.val() {
                    self.pos.next = self.pos.val() + self.entry_len.val();
                    self.taken.next = self.taken.val() + 1;
                    self.next_value_done.next = false;
                    self.next_zeros.next = 0.into();
                } else {
                    self.stop.next = true;
                    if self.pos.val() < self.limit.val() {
                        self.emitted.next = self.limit.val() - self.pos.val();
                        if self.entry_value.val() {
                            self.emitted.next = self.emitted.val() - 1;
                        }
                        self.next_value_done.next = true;
                        self.next_zeros.next = bit_cast::<32, 8>(self.emitted.val());
                        if p == 0 {
                            self.next_zeros.next = self.next_zeros.val() + self.head_zeros.q.val();
                        }
                        self.pos.next = self.limit.val();
                    }
                }
            } else {
                self.stop.next = true;
            }
        }
        // Each lane: the group's old weight, a value placed there, or 0.
        self.base.next = bit_cast::<{ 2 * LANES * 9 }, { LANES * 9 }>(self.group.q.val());
        self.lanes.next = 0.into();
        for l in 0..LANE_SPACE {
            self.lane.next = self.base.val().get_bits::<9>(l * 9);
            for p in 0..LANES {
                if self.placed.val().get_bit(p)
                    & (self.starts.val().get_bits::<6>(p * 6) == l.to_bits::<6>())
                {
                    self.lane.next = self.values.q.val().get_bits::<9>(p * 10);
                }
            }
            self.lanes.next = self.lanes.val()
                | (bit_cast::<{ 2 * LANES * 9 }, 9>(self.lane.val()) << (l * 9).to_bits::<9>());
        }
        self.head_value_done.d.next = self.next_value_done.val();
        self.head_zeros.d.next = self.next_zeros.val();

        // The entries expanded leave the queue; the items of this cycle join
        // it, so the room counts the entries leaving.
        self.w_kept.next = self.w_count.q.val() - self.taken.val();
        self.z_kept.next = self.z_count.q.val() - self.taken.val();
        self.w_room.next = 32 - self.w_kept.val();
        self.z_room.next = 32 - self.z_kept.val();
        self.w_after_a.next = self.w_kept.val() + bit_cast::<7, 4>(self.push_a_w.val());
        self.z_after_a.next = self.z_kept.val() + bit_cast::<7, 4>(self.push_a_z.val());
        self.values.d.next = (self.values.q.val()
            >> ((bit_cast::<10, 7>(self.taken.val()) << 3)
                + (bit_cast::<10, 7>(self.taken.val()) << 1)))
            | (bit_cast::<{ SLOTS * 10 }, { ITEM_SLOTS * 10 }>(self.items_a.val())
                << ((bit_cast::<10, 7>(self.w_kept.val()) << 3)
                    + (bit_cast::<10, 7>(self.w_kept.val()) << 1)))
            | (bit_cast::<{ SLOTS * 10 }, { ITEM_SLOTS * 10 }>(self.items_b.val())
                << ((bit_cast::<10, 7>(self.w_after_a.val()) << 3)
                    + (bit_cast::<10, 7>(self.w_after_a.val()) << 1)));
        self.runs_a.next = 0.into();
        if self.push_a_z.val() != 0 {
            self.runs_a.next = self.push_a_runs.val();
        }
        self.runs_b.next = 0.into();
        if self.push_b_z.val() != 0 {
            self.runs_b.next = self.push_b_runs.val();
        }
        self.runs.d.next = (self.runs.q.val() >> (bit_cast::<12, 7>(self.taken.val()) << 5))
            | (bit_cast::<{ SLOTS * 32 }, { ITEM_SLOTS * 32 }>(self.runs_a.val())
                << (bit_cast::<12, 7>(self.z_kept.val()) << 5))
            | (bit_cast::<{ SLOTS * 32 }, { ITEM_SLOTS * 32 }>(self.runs_b.val())
                << (bit_cast::<12, 7>(self.z_after_a.val()) << 5));
        self.w_count.d.next = self.w_after_a.val() + bit_cast::<7, 4>(self.push_b_w.val());
        self.z_count.d.next = self.z_after_a.val() + bit_cast::<7, 4>(self.push_b_z.val());

        // After the last push, entries without a partner are dropped and the
        // last partial group goes out as it is.
        self.drop_unpaired.next = self.finished.val() & (self.paired.val() == 0);
        if self.drop_unpaired.val() {
            self.values.d.next = 0.into();
            self.runs.d.next = 0.into();
            self.w_count.d.next = 0.into();
            self.z_count.d.next = 0.into();
        }
        self.group.d.next = bit_cast::<{ LANES * 9 }, { 2 * LANES * 9 }>(self.lanes.val());
        self.fill.d.next = bit_cast::<5, 8>(self.pos.val());
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
                self.fill.d.next = bit_cast::<5, 8>(self.pos.val() - 16);
            } else if self.drop_unpaired.val() & (self.pos.val() != 0) {
                self.out_group.d.next =
                    bit_cast::<{ LANES * 9 }, { 2 * LANES * 9 }>(self.lanes.val());
                self.out_n.d.next = bit_cast::<5, 8>(self.pos.val());
                self.out_full.d.next = true;
                self.group.d.next = 0.into();
                self.fill.d.next = 0.into();
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
