//! The scale/bias stream cut into records (`hw/src/output_unit/
//! scale_records.rs`, block `scale_records`) on its own bench: random
//! stream bytes (every bias, scale and shift byte, the two unused bits of
//! the shift byte included) in beats with random lane windows and garbage
//! outside them, random back-pressure on both sides; every record compared
//! with `npu_model::ops::ScaleRecord::parse` of its 10 bytes. Then the
//! throughput: full 16-byte beats give one record a cycle.

use npu_hw::output_unit::ScaleRecordBeat;
use npu_hw::stream::LaneBeat;
use npu_model::ops::ScaleRecord;
use npu_tb::block::{field, words, BlockTb};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::{Bits, Synth};

const RECORD_BYTES: usize = 10;

/// `bytes` as lane beats: each beat a random window of lanes (or, with
/// `full`, all 16), the other lanes random.
fn beats(bytes: &[u8], full: bool, rng: &mut StdRng) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let first = if full { 0 } else { rng.gen_range(0..16) };
        let room = 16 - first;
        let n = if full {
            16
        } else if rng.gen_bool(0.3) {
            room
        } else {
            rng.gen_range(1..=room)
        }
        .min(bytes.len() - at);
        let mut lanes: [u8; 16] = rng.gen();
        lanes[first..first + n].copy_from_slice(&bytes[at..at + n]);
        at += n;
        let mut beat = LaneBeat {
            data: Bits::<128>::default(),
            first_lane: Bits::<4>::from(first as u64),
            last_lane: Bits::<4>::from((first + n - 1) as u64),
        };
        for (i, &b) in lanes.iter().enumerate() {
            beat.data.set_bits::<8>(8 * i, u64::from(b).into());
        }
        out.push(words::<{ <LaneBeat as Synth>::BITS }>(beat.into()));
    }
    out
}

fn record(beat: &[u32]) -> ScaleRecord {
    let r = ScaleRecordBeat::default();
    let bias = field(beat, r.get_my_offset_bias(), 40) as i64;
    ScaleRecord {
        bias: (bias << 24) >> 24,
        scale: field(beat, r.get_my_offset_scale(), 32) as u32,
        shift: field(beat, r.get_my_offset_shift(), 6) as u32,
    }
}

fn bench(seed: u64) -> BlockTb {
    let mut tb = BlockTb::new("scale_records", seed).unwrap_or_else(|e| panic!("{e:#}"));
    let rst_n = tb.model.port("rst_n");
    tb.source("bytes", 1.0);
    tb.sink("records", 1.0);
    tb.model.set(rst_n, 0);
    tb.model.tick();
    tb.model.set(rst_n, 1);
    tb.model.tick();
    tb
}

/// Runs `bytes` through in beats; returns the records and the cycles taken.
fn run(tb: &mut BlockTb, bytes: &[u8], full: bool, rng: &mut StdRng) -> (Vec<ScaleRecord>, u64) {
    let expected = bytes.len() / RECORD_BYTES;
    let start = tb.model.cycle();
    tb.sources[0].queue.extend(beats(bytes, full, rng));
    for _ in 0..100 + 100 * expected {
        if tb.sinks[0].beats.len() >= expected {
            break;
        }
        tb.tick();
    }
    let cycles = tb.model.cycle() - start;
    let records: Vec<ScaleRecord> = tb.sinks[0].beats.drain(..).map(|b| record(&b)).collect();
    if records.len() != expected || !tb.sources[0].queue.is_empty() {
        tb.fail(&format!(
            "{} records came out of {expected}, {} beats not taken",
            records.len(),
            tb.sources[0].queue.len()
        ));
    }
    (records, cycles)
}

#[test]
fn records_match_scale_record_parse() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = bench(rng.gen());
    let mut checked = 0;
    for round in 0..200 {
        let (valid, ready) = if rng.gen_bool(0.2) {
            (1.0, 1.0)
        } else {
            (rng.gen_range(0.1..=1.0), rng.gen_range(0.1..=1.0))
        };
        tb.sources[0].rate = valid;
        tb.sinks[0].rate = ready;
        let bytes: Vec<u8> = (0..RECORD_BYTES * rng.gen_range(1..40))
            .map(|_| rng.gen())
            .collect();
        let (got, _) = run(&mut tb, &bytes, rng.gen_bool(0.2), &mut rng);
        for (n, (got, chunk)) in got.iter().zip(bytes.chunks(RECORD_BYTES)).enumerate() {
            let want = ScaleRecord::parse(chunk.try_into().unwrap());
            if *got != want {
                tb.fail(&format!(
                    "round {round}, record {n} of bytes {chunk:02x?}: got {got:?}, want {want:?}"
                ));
            }
        }
        checked += got.len();
    }
    println!("{checked} records checked");
}

#[test]
fn full_beats_give_a_record_every_cycle() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = bench(rng.gen());
    let records = 480;
    let bytes: Vec<u8> = (0..RECORD_BYTES * records).map(|_| rng.gen()).collect();
    let (got, cycles) = run(&mut tb, &bytes, true, &mut rng);
    let want: Vec<ScaleRecord> = bytes
        .chunks(RECORD_BYTES)
        .map(|c| ScaleRecord::parse(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, want);
    println!("{records} records in {cycles} cycles");
    // The first record waits for the first beat to land.
    assert!(
        cycles <= records as u64 + 2,
        "{records} records took {cycles} cycles"
    );
}
