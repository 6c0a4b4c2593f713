//! The weight decoder's groups regrouped for the MAC unit
//! (`hw/src/weight_decoder/mac_groups.rs`, block `weight_groups`) on its
//! own bench: random weight streams, convolution (64 weights a MAC group)
//! and depthwise (8), back to back with `depthwise` switching as soon as a
//! stream's last group is taken, lanes past a group's `count` filled with
//! garbage, random back-pressure on both sides; every MAC group compared
//! weight for weight with the stream cut into 64s or 8s. Then the
//! throughput: 16 weights a cycle in for convolution, one MAC group a cycle
//! out for depthwise. Last, `empty` and `ragged`: a stream that does not
//! hold whole MAC groups is flagged, and weights left behind show.

use npu_hw::weight_decoder::{WeightGroup, LANES, MAC_WEIGHTS};
use npu_tb::block::{field, words, BlockTb};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::{Bits, Synth};

/// One weight stream of an operation.
struct Stream {
    depthwise: bool,
    weights: Vec<i64>,
}

impl Stream {
    fn random(rng: &mut StdRng, max_groups: usize) -> Self {
        let depthwise = rng.gen_bool(0.5);
        let per_group = if depthwise { 8 } else { MAC_WEIGHTS };
        let groups = rng.gen_range(1..=max_groups);
        let weights = (0..groups * per_group)
            .map(|_| match rng.gen_range(0..8) {
                0 => 255,
                1 => -255,
                2 => 0,
                _ => rng.gen_range(-255..=255),
            })
            .collect();
        Stream { depthwise, weights }
    }

    /// The decoder's groups: 16 weights each, the last possibly fewer, the
    /// lanes past `count` holding garbage.
    fn input_groups(&self, rng: &mut StdRng) -> Vec<Vec<u32>> {
        self.weights
            .chunks(LANES)
            .map(|chunk| {
                let mut group = WeightGroup::default();
                for lane in 0..LANES {
                    let w = chunk.get(lane).copied().unwrap_or(rng.gen_range(-256..256));
                    group
                        .weights
                        .set_bits::<9>(9 * lane, (w as u64 & 0x1ff).into());
                }
                group.count = Bits::<5>::from(chunk.len() as u64);
                words::<{ <WeightGroup as Synth>::BITS }>(group.into())
            })
            .collect()
    }

    /// The MAC groups: 64 consecutive weights, or 8 and zeros.
    fn mac_groups(&self) -> Vec<Vec<i64>> {
        let per_group = if self.depthwise { 8 } else { MAC_WEIGHTS };
        self.weights
            .chunks(per_group)
            .map(|chunk| {
                let mut group = chunk.to_vec();
                group.resize(MAC_WEIGHTS, 0);
                group
            })
            .collect()
    }
}

fn mac_group(beat: &[u32]) -> Vec<i64> {
    (0..MAC_WEIGHTS)
        .map(|i| {
            let w = field(beat, 9 * i, 9) as i64;
            if w >= 256 {
                w - 512
            } else {
                w
            }
        })
        .collect()
}

struct Bench {
    tb: BlockTb,
    depthwise: npu_tb::verilator::PortId,
    empty: npu_tb::verilator::PortId,
    ragged: npu_tb::verilator::PortId,
    /// `ragged` was high in a cycle since the bench was made.
    ragged_seen: bool,
}

impl Bench {
    fn new(seed: u64) -> Self {
        let mut tb = BlockTb::new("weight_groups", seed).unwrap_or_else(|e| panic!("{e:#}"));
        let rst_n = tb.model.port("rst_n");
        let depthwise = tb.model.port("depthwise");
        let empty = tb.model.port("empty");
        let ragged = tb.model.port("ragged");
        tb.source("weights", 1.0);
        tb.sink("groups", 1.0);
        tb.model.set(rst_n, 0);
        tb.model.tick();
        tb.model.set(rst_n, 1);
        tb.model.tick();
        Bench {
            tb,
            depthwise,
            empty,
            ragged,
            ragged_seen: false,
        }
    }

    fn tick(&mut self) {
        self.ragged_seen |= self.tb.model.get(self.ragged) == 1;
        self.tb.tick();
    }

    /// Feeds the streams one after the other, then waits for every MAC
    /// group; returns the groups taken and the cycles it took.
    fn run(&mut self, streams: &[Stream], rng: &mut StdRng) -> (Vec<Vec<i64>>, u64) {
        let expected: usize = streams.iter().map(|s| s.mac_groups().len()).sum();
        let start = self.tb.model.cycle();
        for stream in streams {
            self.tb
                .model
                .set(self.depthwise, u64::from(stream.depthwise));
            let groups = stream.input_groups(rng);
            let limit = 100 + 100 * groups.len();
            self.tb.sources[0].queue.extend(groups);
            for _ in 0..limit {
                if self.tb.sources[0].queue.is_empty() {
                    break;
                }
                self.tick();
            }
            if !self.tb.sources[0].queue.is_empty() {
                self.tb.fail("the weight groups stall");
            }
        }
        for _ in 0..100 + 100 * expected {
            if self.tb.sinks[0].beats.len() >= expected {
                break;
            }
            self.tick();
        }
        let cycles = self.tb.model.cycle() - start;
        let taken: Vec<Vec<i64>> = self.tb.sinks[0]
            .beats
            .drain(..)
            .map(|b| mac_group(&b))
            .collect();
        if taken.len() != expected {
            self.tb.fail(&format!(
                "{} MAC groups came out, the streams hold {expected}",
                taken.len()
            ));
        }
        (taken, cycles)
    }
}

#[test]
fn mac_groups_are_the_stream_cut_in_64s_or_8s() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut bench = Bench::new(rng.gen());
    let mut groups_checked = 0;
    for round in 0..60 {
        // Both sides stall 0-90 % of the time, sometimes not at all.
        let (valid, ready) = if rng.gen_bool(0.2) {
            (1.0, 1.0)
        } else {
            (rng.gen_range(0.1..=1.0), rng.gen_range(0.1..=1.0))
        };
        bench.tb.sources[0].rate = valid;
        bench.tb.sinks[0].rate = ready;
        let streams: Vec<Stream> = (0..rng.gen_range(1..6))
            .map(|_| Stream::random(&mut rng, 12))
            .collect();
        let (taken, _) = bench.run(&streams, &mut rng);
        let want = streams.iter().flat_map(|s| s.mac_groups());
        for (n, (got, want)) in taken.iter().zip(want).enumerate() {
            if *got != want {
                let modes: Vec<bool> = streams.iter().map(|s| s.depthwise).collect();
                bench.tb.fail(&format!(
                    "round {round} (streams depthwise: {modes:?}), MAC group {n}: got {got:?}, \
                     want {want:?}"
                ));
            }
        }
        groups_checked += taken.len();
        if bench.tb.model.get(bench.empty) != 1 {
            bench.tb.fail(&format!(
                "round {round}: every group is taken, yet not `empty`"
            ));
        }
    }
    if bench.ragged_seen {
        bench.tb.fail("`ragged` rose on well-formed streams");
    }
    println!("{groups_checked} MAC groups checked");
}

#[test]
fn convolution_takes_16_weights_and_depthwise_gives_a_group_every_cycle() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut bench = Bench::new(rng.gen());
    for depthwise in [false, true] {
        let per_group = if depthwise { 8 } else { MAC_WEIGHTS };
        let stream = Stream {
            depthwise,
            weights: (0..200 * per_group)
                .map(|_| rng.gen_range(-255..=255))
                .collect(),
        };
        let (taken, cycles) = bench.run(std::slice::from_ref(&stream), &mut rng);
        assert_eq!(taken, stream.mac_groups(), "depthwise {depthwise}");
        // Input groups for convolution, output groups for depthwise, and
        // the latency of the buffer.
        let bound = if depthwise { 200 } else { 800 } + 3;
        println!("depthwise {depthwise}: 200 MAC groups in {cycles} cycles");
        assert!(
            cycles <= bound,
            "depthwise {depthwise}: {cycles} cycles, at most {bound} expected"
        );
    }
}

#[test]
fn a_stream_of_part_groups_is_ragged_and_leaves_weights_behind() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    // Convolution: 64 + 24 weights, the last input group of 8; depthwise: a
    // last input group of 5.
    for (depthwise, len) in [(false, 88), (true, 16 * 3 + 5)] {
        let mut bench = Bench::new(rng.gen());
        let stream = Stream {
            depthwise,
            weights: (0..len).map(|_| rng.gen_range(-255..=255)).collect(),
        };
        bench.tb.model.set(bench.depthwise, u64::from(depthwise));
        bench.tb.sources[0]
            .queue
            .extend(stream.input_groups(&mut rng));
        for _ in 0..200 {
            bench.tick();
        }
        assert!(
            bench.ragged_seen,
            "depthwise {depthwise}: `ragged` never rose"
        );
        if !depthwise {
            // One MAC group out, the other 24 weights still held.
            assert_eq!(bench.tb.sinks[0].beats.len(), 1);
            assert_eq!(bench.tb.model.get(bench.empty), 0, "24 weights are held");
        }
    }
}
