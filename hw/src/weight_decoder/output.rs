//! Pairs each weight with the zero run after it and expands them into groups
//! of `LANES` weights in the double-buffered output register (TRM 3.3.5).
//!
//! Slot i of a circular buffer holds entry i of the slice sequence: a weight
//! (or, for a slice's leading zero run, no weight) and the zero run that
//! follows it (TRM 4.7.3.3). Weights and zero runs arrive separately, the
//! balance rule keeping either at most 20 entries ahead of the other, and are
//! written at their own tails; an entry is expanded once it has both.

use super::{ITEM_SLOTS, LANES};
use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// Entries buffered: the 20 one side may run ahead plus a chunk's 12.
pub const SLOTS: usize = 32;

/// [`LANES`] as a signal: rust-hdl reads a Rust constant in logic only
/// through a `Constant` field, which has no `Default`.
#[derive(LogicBlock)]
struct GroupSize {
    pub value: Signal<Out, Bits<8>>,
    lanes: Constant<Bits<8>>,
}

impl Default for GroupSize {
    fn default() -> Self {
        Self {
            value: Default::default(),
            lanes: Constant::new(LANES.to_bits()),
        }
    }
}

impl Logic for GroupSize {
    #[hdl_gen]
    fn update(&mut self) {
        self.value.next = self.lanes.val();
    }
}

#[derive(LogicBlock, Default)]
pub struct PairBuffer {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// From the parser: `push_w` weights (value-less when `push_value` is
    /// low) and `push_z` zero runs, written at their tails.
    pub push_w: Signal<In, Bits<4>>,
    pub push_value: Signal<In, Bit>,
    pub push_weights: Signal<In, Bits<{ ITEM_SLOTS * 9 }>>,
    pub push_z: Signal<In, Bits<4>>,
    pub push_runs: Signal<In, Bits<{ ITEM_SLOTS * 32 }>>,
    /// Free slots at each tail.
    pub w_room: Signal<Out, Bits<6>>,
    pub z_room: Signal<Out, Bits<6>>,
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
    group_size: GroupSize,
    values: ResetReg<Bits<{ SLOTS * 9 }>>,
    has_value: ResetReg<Bits<SLOTS>>,
    runs: ResetReg<Bits<{ SLOTS * 32 }>>,
    head: ResetReg<Bits<6>>,
    w_tail: ResetReg<Bits<6>>,
    z_tail: ResetReg<Bits<6>>,
    /// Progress into the head entry: its value and this many of its zeros
    /// are already out.
    head_value_done: ResetReg<Bit>,
    head_zeros: ResetReg<Bits<32>>,
    /// The group being filled (lanes below `fill`) and the group offered.
    group: ResetReg<Bits<{ LANES * 9 }>>,
    fill: ResetReg<Bits<5>>,
    out_group: ResetReg<Bits<{ LANES * 9 }>>,
    out_n: ResetReg<Bits<5>>,
    out_full: ResetReg<Bit>,
    w_count: Signal<Local, Bits<6>>,
    z_count: Signal<Local, Bits<6>>,
    paired: Signal<Local, Bits<6>>,
    distance: Signal<Local, Bits<5>>,
    rel: Signal<Local, Bits<4>>,
    item_value: Signal<Local, Bits<9>>,
    item_run: Signal<Local, Bits<32>>,
    out_free: Signal<Local, Bit>,
    limit: Signal<Local, Bits<8>>,
    lanes: Signal<Local, Bits<{ 2 * LANES * 9 }>>,
    pos: Signal<Local, Bits<8>>,
    taken: Signal<Local, Bits<6>>,
    stop: Signal<Local, Bit>,
    slot6: Signal<Local, Bits<6>>,
    slot: Signal<Local, Bits<5>>,
    entry_value: Signal<Local, Bit>,
    entry_zeros: Signal<Local, Bits<32>>,
    entry_len: Signal<Local, Bits<8>>,
    emitted: Signal<Local, Bits<8>>,
    next_value_done: Signal<Local, Bit>,
    next_zeros: Signal<Local, Bits<32>>,
    drop_unpaired: Signal<Local, Bit>,
}

impl Logic for PairBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            values,
            has_value,
            runs,
            head,
            w_tail,
            z_tail,
            head_value_done,
            head_zeros,
            group,
            fill,
            out_group,
            out_n,
            out_full
        );
        self.values.rst_n.next = self.rst_n.val();
        self.has_value.rst_n.next = self.rst_n.val();
        self.runs.rst_n.next = self.rst_n.val();
        self.head.rst_n.next = self.rst_n.val();
        self.w_tail.rst_n.next = self.rst_n.val();
        self.z_tail.rst_n.next = self.rst_n.val();
        self.head_value_done.rst_n.next = self.rst_n.val();
        self.head_zeros.rst_n.next = self.rst_n.val();
        self.group.rst_n.next = self.rst_n.val();
        self.fill.rst_n.next = self.rst_n.val();
        self.out_group.rst_n.next = self.rst_n.val();
        self.out_n.rst_n.next = self.rst_n.val();
        self.out_full.rst_n.next = self.rst_n.val();

        self.w_count.next = self.w_tail.q.val() - self.head.q.val();
        self.z_count.next = self.z_tail.q.val() - self.head.q.val();
        self.w_room.next = 32 - self.w_count.val();
        self.z_room.next = 32 - self.z_count.val();
        self.paired.next = self.w_count.val();
        if self.z_count.val() < self.w_count.val() {
            self.paired.next = self.z_count.val();
        }

        // Pushes: each slot takes the item whose place it is.
        self.item_value.next = 0.into();
        self.item_run.next = 0.into();
        for s in 0..SLOTS {
            self.distance.next = s.to_bits::<5>() - bit_cast::<5, 6>(self.w_tail.q.val());
            self.rel.next = bit_cast::<4, 5>(self.distance.val());
            if self.distance.val() < bit_cast::<5, 4>(self.push_w.val()) {
                self.item_value.next = self
                    .push_weights
                    .val()
                    .get_bits::<9>(self.rel.val().index() * 9);
                self.values.d.next = (self.values.d.val()
                    & !(bit_cast::<{ SLOTS * 9 }, 9>(bits::<9>(0x1FF)) << (s * 9).to_bits::<9>()))
                    | (bit_cast::<{ SLOTS * 9 }, 9>(self.item_value.val())
                        << (s * 9).to_bits::<9>());
                self.has_value.d.next =
                    self.has_value.d.val().replace_bit(s, self.push_value.val());
            }
            self.distance.next = s.to_bits::<5>() - bit_cast::<5, 6>(self.z_tail.q.val());
            self.rel.next = bit_cast::<4, 5>(self.distance.val());
            if self.distance.val() < bit_cast::<5, 4>(self.push_z.val()) {
                self.item_run.next = self
                    .push_runs
                    .val()
                    .get_bits::<32>(self.rel.val().index() * 32);
                self.runs.d.next = (self.runs.d.val()
                    & !(bit_cast::<{ SLOTS * 32 }, 32>(bits::<32>(0xFFFF_FFFF_u64))
                        << (s * 32).to_bits::<11>()))
                    | (bit_cast::<{ SLOTS * 32 }, 32>(self.item_run.val())
                        << (s * 32).to_bits::<11>());
            }
        }
        self.w_tail.d.next = self.w_tail.q.val() + bit_cast::<6, 4>(self.push_w.val());
        self.z_tail.d.next = self.z_tail.q.val() + bit_cast::<6, 4>(self.push_z.val());

        // Expansion: paired entries from the head, each a value (if any) and
        // its zeros, placed after the `fill` lanes already in the group; up
        // to two groups when the offered group is taken this cycle.
        self.out_free.next = !self.out_full.q.val() | self.out_ready.val();
        self.limit.next = self.group_size.value.val();
        if self.out_free.val() {
            self.limit.next = self.group_size.value.val() << 1;
        }
        self.lanes.next = bit_cast::<{ 2 * LANES * 9 }, { LANES * 9 }>(self.group.q.val());
        self.pos.next = bit_cast::<8, 5>(self.fill.q.val());
        self.taken.next = 0.into();
        self.stop.next = false;
        self.next_value_done.next = self.head_value_done.q.val();
        self.next_zeros.next = self.head_zeros.q.val();
        self.emitted.next = 0.into();
        for p in 0..LANES {
            self.slot6.next = self.head.q.val() + p.to_bits::<6>();
            self.slot.next = bit_cast::<5, 6>(self.slot6.val());
            self.entry_value.next = self.has_value.q.val().get_bit(self.slot.val().index());
            self.entry_zeros.next = self
                .runs
                .q
                .val()
                .get_bits::<32>(self.slot.val().index() * 32);
            if p == 0 {
                self.entry_value.next = self.entry_value.val() & !self.head_value_done.q.val();
                self.entry_zeros.next = self.entry_zeros.val() - self.head_zeros.q.val();
            }
            self.entry_len.next = (self.group_size.value.val() << 1) + 1;
            if self.entry_zeros.val() <= bit_cast::<32, 8>(self.group_size.value.val() << 1) {
                self.entry_len.next =
                    bit_cast::<8, 32>(self.entry_zeros.val()) + self.entry_value.val();
            }
            if !self.stop.val() & (p.to_bits::<6>() < self.paired.val()) {
                if self.entry_value.val() & (self.pos.val() < self.limit.val()) {
                    self.lanes.next = self.lanes.val()
                        | (bit_cast::<{ 2 * LANES * 9 }, 9>(
                            self.values
                                .q
                                .val()
                                .get_bits::<9>(self.slot.val().index() * 9),
                        ) << ((self.pos.val() << 3) + self.pos.val()));
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
        self.head.d.next = self.head.q.val() + self.taken.val();
        self.head_value_done.d.next = self.next_value_done.val();
        self.head_zeros.d.next = self.next_zeros.val();

        // After the last push, entries without a partner are dropped and the
        // last partial group goes out as it is.
        self.drop_unpaired.next = self.finished.val() & (self.paired.val() == 0);
        if self.drop_unpaired.val() {
            self.w_tail.d.next = self.head.q.val();
            self.z_tail.d.next = self.head.q.val();
        }
        self.group.d.next = bit_cast::<{ LANES * 9 }, { 2 * LANES * 9 }>(self.lanes.val());
        self.fill.d.next = bit_cast::<5, 8>(self.pos.val());
        if self.out_full.q.val() & self.out_ready.val() {
            self.out_full.d.next = false;
        }
        if self.out_free.val() {
            if self.pos.val() >= self.group_size.value.val() {
                self.out_group.d.next =
                    bit_cast::<{ LANES * 9 }, { 2 * LANES * 9 }>(self.lanes.val());
                self.out_n.d.next = bit_cast::<5, 8>(self.group_size.value.val());
                self.out_full.d.next = true;
                self.group.d.next = bit_cast::<{ LANES * 9 }, { 2 * LANES * 9 }>(
                    self.lanes.val()
                        >> ((self.group_size.value.val() << 3) + self.group_size.value.val()),
                );
                self.fill.d.next = bit_cast::<5, 8>(self.pos.val() - self.group_size.value.val());
            } else if self.drop_unpaired.val() & (self.pos.val() != 0) {
                self.out_group.d.next =
                    bit_cast::<{ LANES * 9 }, { 2 * LANES * 9 }>(self.lanes.val());
                self.out_n.d.next = bit_cast::<5, 8>(self.pos.val());
                self.out_full.d.next = true;
                self.group.d.next = 0.into();
                self.fill.d.next = 0.into();
            }
        }
        self.empty.next = (self.w_count.val() == 0)
            & (self.z_count.val() == 0)
            & (self.fill.q.val() == 0)
            & !self.out_full.q.val();
        self.out_weights.next = self.out_group.q.val();
        self.out_count.next = self.out_n.q.val();
        self.out_valid.next = self.out_full.q.val();
    }
}
