//! The scale records grouped per slice (`hw/src/output_unit/scale_sets.rs`,
//! block `scale_sets`) on its own bench: random OFM block depths and random
//! records (every bias, scale and shift bit), random back-pressure on every
//! stream; every set compared with the block's records cut into slices of
//! 8 channels (the last one shorter), record i in lane i and zeros above.
//! Then the throughput: at full rate a record goes in every cycle but one
//! per block, whatever the sets' consumer does in between.

use npu_hw::output_unit::{ScaleRecordBeat, ScaleSet};
use npu_tb::block::{field, words, BlockTb};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::{Bits, Synth};

const DEPTHS: usize = 0;
const RECORDS: usize = 1;
const SETS: usize = 0;

/// One record: bias (40 bits), scale, shift (6 bits).
type Record = (u64, u64, u64);

fn record_beat((bias, scale, shift): Record) -> Vec<u32> {
    let beat = ScaleRecordBeat {
        bias: bias.into(),
        scale: scale.into(),
        shift: shift.into(),
    };
    words::<{ <ScaleRecordBeat as Synth>::BITS }>(beat.into())
}

/// A set as its lanes' records.
fn set_records(w: &[u32]) -> Vec<Record> {
    let s = ScaleSet::default();
    (0..8)
        .map(|i| {
            (
                field(w, s.get_my_offset_biases() + 40 * i, 40),
                field(w, s.get_my_offset_scales() + 32 * i, 32),
                field(w, s.get_my_offset_shifts() + 6 * i, 6),
            )
        })
        .collect()
}

fn bench(seed: u64) -> BlockTb {
    let mut tb = BlockTb::new("scale_sets", seed).unwrap_or_else(|e| panic!("{e:#}"));
    tb.source("depths", 1.0);
    tb.source("records", 1.0);
    tb.sink("sets", 1.0);
    tb.reset();
    tb
}

fn random_record(rng: &mut StdRng) -> Record {
    (
        rng.gen::<u64>() >> 24,
        rng.gen::<u32>().into(),
        rng.gen_range(0..64),
    )
}

/// Queues blocks of `depths` channels with random records; returns the
/// sets expected.
fn queue(tb: &mut BlockTb, depths: &[usize], rng: &mut StdRng) -> Vec<Vec<Record>> {
    let mut want = Vec::new();
    for &depth in depths {
        tb.sources[DEPTHS]
            .queue
            .push_back(words::<16>(Bits::<16>::from(depth as u64)));
        let records: Vec<Record> = (0..depth).map(|_| random_record(rng)).collect();
        for slice in records.chunks(8) {
            let mut lanes = slice.to_vec();
            lanes.resize(8, (0, 0, 0));
            want.push(lanes);
        }
        tb.sources[RECORDS]
            .queue
            .extend(records.into_iter().map(record_beat));
    }
    want
}

/// Runs until `sets` sets came out or the cycles run out; the cycles taken.
fn run(tb: &mut BlockTb, sets: usize, limit: u64) -> u64 {
    let start = tb.model.cycle();
    while tb.sinks[SETS].beats.len() < sets {
        if tb.model.cycle() - start > limit {
            tb.fail(&format!(
                "{} sets of {sets} after {limit} cycles",
                tb.sinks[SETS].beats.len()
            ));
        }
        tb.tick();
    }
    tb.model.cycle() - start
}

#[test]
fn sets_are_the_blocks_records_cut_into_slices() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = bench(rng.gen());
    let mut checked = 0;
    for round in 0..100 {
        tb.sources[DEPTHS].rate = rng.gen_range(0.1..=1.0);
        tb.sources[RECORDS].rate = rng.gen_range(0.1..=1.0);
        tb.sinks[SETS].rate = rng.gen_range(0.1..=1.0);
        let depths: Vec<usize> = (0..rng.gen_range(1..4))
            .map(|_| rng.gen_range(1..=40))
            .collect();
        let want = queue(&mut tb, &depths, &mut rng);
        run(&mut tb, want.len(), 100_000);
        for _ in 0..20 {
            tb.tick();
        }
        let got: Vec<Vec<Record>> = tb.sinks[SETS]
            .beats
            .drain(..)
            .map(|w| set_records(&w))
            .collect();
        if got != want {
            tb.fail(&format!(
                "round {round}, blocks of {depths:?} channels: got {got:x?}, want {want:x?}"
            ));
        }
        checked += got.len();
    }
    println!("{checked} sets checked");
}

#[test]
fn a_record_a_cycle_while_the_consumer_holds_a_set() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = bench(rng.gen());
    let depths = [64usize; 8];
    let want = queue(&mut tb, &depths, &mut rng);
    // The consumer holds every set 8 cycles, as the output unit does with
    // a word of 4 positions for 2 microblocks: the next set must be
    // gathered meanwhile, or the sets come every 16 cycles.
    let valid = tb.model.port("sets_valid");
    let start = tb.model.cycle();
    let mut held = 0;
    while tb.sinks[SETS].beats.len() < want.len() {
        assert!(
            tb.model.cycle() - start < 20 * want.len() as u64,
            "sets stopped"
        );
        let offered = tb.model.get(valid) == 1;
        held = if offered { held + 1 } else { 0 };
        tb.sinks[SETS].rate = if held >= 7 { 1.0 } else { 0.0 };
        let before = tb.sinks[SETS].beats.len();
        tb.tick();
        if tb.sinks[SETS].beats.len() > before {
            held = 0;
        }
    }
    let cycles = tb.model.cycle() - start;
    let got: Vec<Vec<Record>> = tb.sinks[SETS]
        .beats
        .drain(..)
        .map(|w| set_records(&w))
        .collect();
    assert_eq!(got, want);
    println!("{} sets held 8 cycles each in {cycles} cycles", want.len());
    let bound = 8 * want.len() as u64 + 2 * depths.len() as u64 + 32;
    assert!(cycles <= bound, "{cycles} cycles, more than {bound}");
}
