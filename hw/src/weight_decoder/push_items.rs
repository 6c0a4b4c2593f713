//! A cycle's pushes as pair-buffer items ([`super::output::PairBuffer`]):
//! the value pipeline's two records' weights (flagged as values where the
//! record has them) and their zero runs' ends (lane positions after the
//! tail, the end of the last run queued), record b's after a's. The pair
//! buffer appends them after the entries it holds. Combinational.

use super::pipeline::Pushes;
use super::values::ITEMS;
use super::{POSITION, SLOTS};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct PushItems {
    /// This cycle's records, `push_a`'s first, and where the last run
    /// queued ends.
    pub push_a: Signal<In, Pushes>,
    pub push_b: Signal<In, Pushes>,
    pub tail: Signal<In, Bits<POSITION>>,
    /// Item i's weight in bits 10i+8..10i (bit 10i+9 set for a value), its
    /// run's end in bits 40i+39..40i.
    pub items: Signal<Out, Bits<{ SLOTS * 10 }>>,
    pub item_ends: Signal<Out, Bits<{ SLOTS * POSITION }>>,
    /// Where each record's runs start.
    pub start_a: Signal<Out, Bits<POSITION>>,
    pub start_b: Signal<Out, Bits<POSITION>>,
    push_a_weights: Signal<Local, Bits<{ ITEMS * 9 }>>,
    push_b_weights: Signal<Local, Bits<{ ITEMS * 9 }>>,
    push_a_offsets: Signal<Local, Bits<{ ITEMS * 11 }>>,
    push_b_offsets: Signal<Local, Bits<{ ITEMS * 11 }>>,
    items_a: Signal<Local, Bits<{ SLOTS * 10 }>>,
    items_b: Signal<Local, Bits<{ SLOTS * 10 }>>,
    item_ends_a: Signal<Local, Bits<{ SLOTS * POSITION }>>,
    item_ends_b: Signal<Local, Bits<{ SLOTS * POSITION }>>,
    value_flag: Signal<Local, Bits<10>>,
    weight: Signal<Local, Bits<9>>,
    item: Signal<Local, Bits<10>>,
    offset: Signal<Local, Bits<11>>,
    item_end: Signal<Local, Bits<POSITION>>,
    n_a: Signal<Local, Bits<4>>,
    items_ab_1: Signal<Local, Bits<{ SLOTS * 10 }>>,
    items_ab_2: Signal<Local, Bits<{ SLOTS * 10 }>>,
    items_ab_3: Signal<Local, Bits<{ SLOTS * 10 }>>,
    item_ends_ab_1: Signal<Local, Bits<{ SLOTS * POSITION }>>,
    item_ends_ab_2: Signal<Local, Bits<{ SLOTS * POSITION }>>,
    item_ends_ab_3: Signal<Local, Bits<{ SLOTS * POSITION }>>,
}

impl Logic for PushItems {
    #[hdl_gen]
    fn update(&mut self) {
        self.push_a_weights.next = self.push_a.val().weights;
        self.push_b_weights.next = self.push_b.val().weights;
        self.push_a_offsets.next = self.push_a.val().offsets;
        self.push_b_offsets.next = self.push_b.val().offsets;
        self.value_flag.next = 0.into();
        if self.push_a.val().value {
            self.value_flag.next = 512.into();
        }
        self.start_a.next = self.tail.val() + bit_cast::<POSITION, 34>(self.push_a.val().base);
        self.start_b.next = self.tail.val() + bit_cast::<POSITION, 34>(self.push_b.val().base);
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
        // b's items after a's, then all after the entries held; each shift
        // is a few constant shifts chosen by the bits of a count.
        self.n_a.next = self.push_a.val().n_w;
        self.items_ab_1.next = self.items_b.val();
        if self.n_a.val().get_bit(0) {
            self.items_ab_1.next = self.items_b.val() << 10;
        }
        self.items_ab_2.next = self.items_ab_1.val();
        if self.n_a.val().get_bit(1) {
            self.items_ab_2.next = self.items_ab_1.val() << 20;
        }
        self.items_ab_3.next = self.items_ab_2.val();
        if self.n_a.val().get_bit(2) {
            self.items_ab_3.next = self.items_ab_2.val() << 40;
        }
        self.items.next = self.items_ab_3.val();
        if self.n_a.val().get_bit(3) {
            self.items.next = self.items_ab_3.val() << 80;
        }
        self.items.next = self.items.val() | self.items_a.val();
        self.n_a.next = self.push_a.val().n_z;
        self.item_ends_ab_1.next = self.item_ends_b.val();
        if self.n_a.val().get_bit(0) {
            self.item_ends_ab_1.next = self.item_ends_b.val() << 40;
        }
        self.item_ends_ab_2.next = self.item_ends_ab_1.val();
        if self.n_a.val().get_bit(1) {
            self.item_ends_ab_2.next = self.item_ends_ab_1.val() << 80;
        }
        self.item_ends_ab_3.next = self.item_ends_ab_2.val();
        if self.n_a.val().get_bit(2) {
            self.item_ends_ab_3.next = self.item_ends_ab_2.val() << 160;
        }
        self.item_ends.next = self.item_ends_ab_3.val();
        if self.n_a.val().get_bit(3) {
            self.item_ends.next = self.item_ends_ab_3.val() << 320;
        }
        self.item_ends.next = self.item_ends.val() | self.item_ends_a.val();
    }
}
