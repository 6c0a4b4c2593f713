//! The pair buffer's lane placement (combinational): the group's 32 lanes
//! this cycle, each the group's weight below `fill`, the weight of an entry
//! that starts there, or 0 (a zero run). Its own block so that the pair
//! buffer's update reads as the expander's steps; the logic is the same.

use super::LANES;
use rust_hdl::prelude::*;

/// Entries the expander considers a cycle (the pair buffer's `WINDOW`).
const WINDOW: usize = 16;
const _: () = assert!(LANES == 16);

#[derive(LogicBlock, Default)]
pub struct LanePlacement {
    /// Entries that have both their weight and zero run.
    pub paired: Signal<In, Bits<WINDOW>>,
    /// Entry i's weight in bits 10i+8..10i, bit 10i+9 set if it has one.
    pub values: Signal<In, Bits<{ WINDOW * 10 }>>,
    /// Entry i's start relative to the group's first lane (6 bits each),
    /// and whether it lies before it.
    pub starts_at: Signal<In, Bits<{ WINDOW * 6 }>>,
    pub starts_behind: Signal<In, Bits<WINDOW>>,
    /// The group's lanes filled so far, and the lanes known this cycle.
    pub fill: Signal<In, Bits<5>>,
    pub pos: Signal<In, Bits<6>>,
    pub group: Signal<In, Bits<{ LANES * 9 }>>,
    /// The group's lanes and the next group's, lane i in bits 9i+8..9i.
    pub lanes: Signal<Out, Bits<{ 2 * LANES * 9 }>>,
    placed: Signal<Local, Bits<WINDOW>>,
    value_planes: Signal<Local, Bits<{ 9 * WINDOW }>>,
    old_lanes: Signal<Local, Bits<{ 2 * LANES * 9 }>>,
    weight: Signal<Local, Bits<9>>,
    hits: Signal<Local, Bits<WINDOW>>,
    lane: Signal<Local, Bits<9>>,
}

impl Logic for LanePlacement {
    #[hdl_gen]
    fn update(&mut self) {
        self.placed.next = 0.into();
        for i in 0..WINDOW {
            self.placed.next = self.placed.val().replace_bit(
                i,
                self.paired.val().get_bit(i)
                    & self.values.val().get_bit(i * 10 + 9)
                    & !self.starts_behind.val().get_bit(i)
                    & (self.starts_at.val().get_bits::<6>(i * 6)
                        >= bit_cast::<6, 5>(self.fill.val()))
                    & (self.starts_at.val().get_bits::<6>(i * 6) < self.pos.val()),
            );
        }
        self.value_planes.next = 0.into();
        for b in 0..9 {
            for i in 0..WINDOW {
                self.value_planes.next = self
                    .value_planes
                    .val()
                    .replace_bit(b * 16 + i, self.values.val().get_bit(i * 10 + b));
            }
        }
        self.old_lanes.next = 0.into();
        for l in 0..16 {
            self.weight.next = self.group.val().get_bits::<9>(l * 9);
            if l.to_bits::<5>() < self.fill.val() {
                self.old_lanes.next = self.old_lanes.val()
                    | (bit_cast::<{ 2 * LANES * 9 }, 9>(self.weight.val())
                        << (l * 9).to_bits::<9>());
            }
        }
        self.lanes.next = 0.into();
        for l in 0..32 {
            self.hits.next = 0.into();
            for i in 0..WINDOW {
                self.hits.next = self.hits.val().replace_bit(
                    i,
                    self.placed.val().get_bit(i)
                        & (self.starts_at.val().get_bits::<6>(i * 6) == l.to_bits::<6>()),
                );
            }
            self.lane.next = self.old_lanes.val().get_bits::<9>(l * 9);
            for b in 0..9 {
                if (self.value_planes.val().get_bits::<16>(b * 16) & self.hits.val()).any() {
                    self.lane.next = self.lane.val().replace_bit(b, true);
                }
            }
            self.lanes.next = self.lanes.val()
                | (bit_cast::<{ 2 * LANES * 9 }, 9>(self.lane.val()) << (l * 9).to_bits::<9>());
        }
    }
}
