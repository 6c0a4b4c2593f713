//! The MAC unit's dot products and adder array (`hw/src/mac_unit`, TRM
//! 3.3.6) on its own bench: runs of random operand beats (conv and
//! depthwise, 8-bit activations of the int8 and uint8 ranges, 16-bit
//! activations split into a low and a high beat, full 9-bit weights and
//! extremes) under random back-pressure, every accumulator compared with a
//! reference that accumulates the whole values in i64 and wraps them as
//! the golden model does (`npu_model::ops::wrap_accumulator`); then the
//! throughput: one beat a cycle with every beat `last`.

use npu_hw::mac_unit::{
    OperandBeat, ACCUMULATORS, ACC_BITS, IFM_CHANNELS, OFM_CHANNELS, OPERAND_BITS, POSITIONS,
};
use npu_model::ops::wrap_accumulator;
use npu_spec::command::AccFormat;
use npu_tb::block::BlockTb;
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

/// Activations of one step: (position, IFM channel), the IFM value minus
/// its zero point.
type Acts = [[i64; IFM_CHANNELS]; POSITIONS];
/// Weights of one step: (OFM channel, IFM channel); a depthwise step uses
/// entry (c, 0) for channel c and the rest must be ignored.
type Weights = [[i64; IFM_CHANNELS]; OFM_CHANNELS];

/// A run from a `first` beat to a `last` beat.
struct Run {
    depthwise: bool,
    /// 16-bit activations: each step is a low and a high beat.
    wide: bool,
    steps: Vec<(Acts, Weights)>,
}

impl Run {
    /// The accumulators, whole: (position, OFM channel).
    fn reference(&self) -> Vec<i64> {
        let mut acc = vec![0i64; ACCUMULATORS];
        for (acts, weights) in &self.steps {
            for p in 0..POSITIONS {
                for o in 0..OFM_CHANNELS {
                    acc[p * OFM_CHANNELS + o] += if self.depthwise {
                        acts[p][o] * weights[o][0]
                    } else {
                        (0..IFM_CHANNELS).map(|k| acts[p][k] * weights[o][k]).sum()
                    };
                }
            }
        }
        acc
    }

    /// Its operand beats: a 16-bit activation v as `v & 0xff`, then
    /// `v >> 8` flagged `high`.
    fn beats(&self) -> Vec<Beat> {
        let mut beats = Vec::new();
        for (acts, weights) in &self.steps {
            // The whole value, or the 16-bit value's low or high part.
            let halves: &[Option<bool>] = if self.wide {
                &[Some(false), Some(true)]
            } else {
                &[None]
            };
            for &half in halves {
                let part = |v: i64| match half {
                    None => v,
                    Some(false) => v & 0xff,
                    Some(true) => v >> 8,
                };
                let mut a = *acts;
                a.iter_mut().flatten().for_each(|v| *v = part(*v));
                beats.push(Beat {
                    acts: a,
                    weights: *weights,
                    first: beats.is_empty(),
                    last: false,
                    depthwise: self.depthwise,
                    high: half == Some(true),
                });
            }
        }
        beats.last_mut().expect("a run has a step").last = true;
        beats
    }
}

struct Beat {
    acts: Acts,
    weights: Weights,
    first: bool,
    last: bool,
    depthwise: bool,
    high: bool,
}

/// Where each field of an [`OperandBeat`] starts on the `operands_data` port.
struct Layout {
    acts: usize,
    weights: usize,
    first: usize,
    last: usize,
    depthwise: usize,
    high: usize,
    words: usize,
}

impl Layout {
    fn new(bits: usize) -> Self {
        let b = OperandBeat::default();
        Self {
            acts: b.get_my_offset_acts(),
            weights: b.get_my_offset_weights(),
            first: b.get_my_offset_first(),
            last: b.get_my_offset_last(),
            depthwise: b.get_my_offset_depthwise(),
            high: b.get_my_offset_high(),
            words: bits.div_ceil(32),
        }
    }

    fn pack(&self, beat: &Beat, rng: &mut StdRng) -> Vec<u32> {
        let mut words = vec![0u32; self.words];
        let mut put = |at: usize, width: usize, value: i64| {
            for b in 0..width {
                if (value >> b) & 1 != 0 {
                    words[(at + b) / 32] |= 1 << ((at + b) % 32);
                }
            }
        };
        for (p, row) in beat.acts.iter().enumerate() {
            for (k, &a) in row.iter().enumerate() {
                assert!((-256..256).contains(&a), "activation {a} is not 9-bit");
                put(self.acts + 9 * (8 * p + k), OPERAND_BITS, a);
            }
        }
        for (o, row) in beat.weights.iter().enumerate() {
            for (k, &w) in row.iter().enumerate() {
                match (beat.depthwise, k) {
                    (false, _) => put(self.weights + 9 * (8 * o + k), OPERAND_BITS, w),
                    // Channel o's weight in lane o.
                    (true, 0) => put(self.weights + 9 * o, OPERAND_BITS, w),
                    (true, _) => {}
                }
            }
        }
        if beat.depthwise {
            // Lanes 8.. of a depthwise beat are ignored: fill them.
            for lane in OFM_CHANNELS..OFM_CHANNELS * IFM_CHANNELS {
                let junk = rng.gen_range(-256..256);
                put(self.weights + 9 * lane, OPERAND_BITS, junk);
            }
        }
        for (at, flag) in [
            (self.first, beat.first),
            (self.last, beat.last),
            (self.depthwise, beat.depthwise),
            (self.high, beat.high),
        ] {
            put(at, 1, i64::from(flag));
        }
        words
    }
}

/// Accumulator i of a result, sign-extended.
fn accumulator(words: &[u32], i: usize) -> i64 {
    let raw = (0..ACC_BITS).fold(0i64, |acc, b| {
        let at = ACC_BITS * i + b;
        acc | i64::from((words[at / 32] >> (at % 32)) & 1) << b
    });
    (raw << (64 - ACC_BITS)) >> (64 - ACC_BITS)
}

/// Value distributions of a run's activations.
#[derive(Clone, Copy, Debug)]
enum ActKind {
    /// int8 minus an int8 zero point: -255..=255.
    Int8,
    /// uint8 minus a uint8 zero point: -255..=255.
    Uint8,
    /// Any 9-bit value.
    Full,
    /// The ends of the 9-bit range and small values.
    Extreme,
    /// int16 minus an int16 zero point (16-bit runs): -65535..=65535.
    Int16,
    /// The ends of the 17-bit range a high beat can carry (16-bit runs).
    Extreme16,
}

#[derive(Clone, Copy, Debug)]
enum WeightKind {
    Full,
    /// The weight decoder's range, -255..=255, mostly zeros.
    Sparse,
    Extreme,
}

fn act(kind: ActKind, zero_point: i64, rng: &mut StdRng) -> i64 {
    match kind {
        ActKind::Int8 => rng.gen_range(-128..=127) - zero_point,
        ActKind::Uint8 => rng.gen_range(0..=255) - zero_point,
        ActKind::Full => rng.gen_range(-256..=255),
        ActKind::Extreme => *[-256, -255, 255, 0, 1, -1].choose(rng).unwrap(),
        ActKind::Int16 => rng.gen_range(-32768..=32767) - zero_point,
        ActKind::Extreme16 => *[-65536, -65535, 65535, 255, 256, -1].choose(rng).unwrap(),
    }
}

fn weight(kind: WeightKind, rng: &mut StdRng) -> i64 {
    match kind {
        WeightKind::Full => rng.gen_range(-256..=255),
        WeightKind::Sparse if rng.gen_bool(0.7) => 0,
        WeightKind::Sparse => rng.gen_range(-255..=255),
        WeightKind::Extreme => *[-256, -255, 255].choose(rng).unwrap(),
    }
}

fn random_run(rng: &mut StdRng) -> Run {
    let depthwise = rng.gen_bool(0.3);
    let wide = rng.gen_bool(0.3);
    let kinds: &[ActKind] = if wide {
        &[ActKind::Int16, ActKind::Extreme16]
    } else {
        &[
            ActKind::Int8,
            ActKind::Uint8,
            ActKind::Full,
            ActKind::Extreme,
        ]
    };
    let kind = *kinds.choose(rng).unwrap();
    let zero_point = match kind {
        ActKind::Int8 => rng.gen_range(-128..=127),
        ActKind::Uint8 => rng.gen_range(0..=255),
        ActKind::Int16 => rng.gen_range(-32768..=32767),
        _ => 0,
    };
    let weights = *[WeightKind::Full, WeightKind::Sparse, WeightKind::Extreme]
        .choose(rng)
        .unwrap();
    let steps = match rng.gen_range(0..10) {
        0 => rng.gen_range(17..=200),
        _ => rng.gen_range(1..=16),
    };
    let steps = (0..steps)
        .map(|_| {
            let acts: Acts =
                std::array::from_fn(|_| std::array::from_fn(|_| act(kind, zero_point, rng)));
            let w: Weights = std::array::from_fn(|_| std::array::from_fn(|_| weight(weights, rng)));
            (acts, w)
        })
        .collect();
    Run {
        depthwise,
        wide,
        steps,
    }
}

/// A 16-bit conv run of extremes long enough to wrap 40 bits.
fn wrapping_run() -> Run {
    let step = (
        [[-65536; IFM_CHANNELS]; POSITIONS],
        [[-256; IFM_CHANNELS]; OFM_CHANNELS],
    );
    // Each step adds 2^16 * 2^8 * 8 = 2^27.
    let steps = (1usize << (ACC_BITS - 27)) + 100;
    Run {
        depthwise: false,
        wide: true,
        steps: vec![step; steps],
    }
}

struct Bench {
    tb: BlockTb,
    layout: Layout,
    rng: StdRng,
    /// Cycles simulated and the wall time spent in them.
    cycles: u64,
    ticking: Duration,
}

impl Bench {
    fn new(seed: u64) -> Self {
        let mut tb = BlockTb::new("mac_unit", seed).unwrap_or_else(|e| panic!("{e:#}"));
        tb.source("operands", 1.0);
        tb.sink("results", 1.0);
        let data = tb.model.port("operands_data");
        let layout = Layout::new(tb.model.width(data));
        let rst_n = tb.model.port("rst_n");
        tb.model.set(rst_n, 0);
        tb.model.tick();
        tb.model.set(rst_n, 1);
        tb.model.tick();
        Self {
            tb,
            layout,
            rng: StdRng::seed_from_u64(seed ^ 0x6d61_6375),
            cycles: 0,
            ticking: Duration::ZERO,
        }
    }

    /// Feeds `runs` with the given rates, checks every result, and returns
    /// the cycles taken.
    fn check(&mut self, runs: &[Run], in_rate: f64, out_rate: f64) -> u64 {
        self.tb.sources[0].rate = in_rate;
        self.tb.sinks[0].rate = out_rate;
        self.tb.sinks[0].beats.clear();
        let mut beats = 0;
        for run in runs {
            for beat in run.beats() {
                let words = self.layout.pack(&beat, &mut self.rng);
                self.tb.sources[0].queue.push_back(words);
                beats += 1;
            }
        }
        let limit = 10 + (beats as f64 / in_rate.min(out_rate) * 4.0) as u64;
        let mut cycles = 0;
        let start = Instant::now();
        while self.tb.sinks[0].beats.len() < runs.len() {
            self.tb.tick();
            cycles += 1;
            if cycles > limit {
                let got = self.tb.sinks[0].beats.len();
                self.tb.fail(&format!(
                    "{got} of {} results after {cycles} cycles",
                    runs.len()
                ));
            }
        }
        // Nothing more comes out.
        for _ in 0..4 {
            self.tb.tick();
        }
        cycles += 4;
        self.cycles += cycles;
        self.ticking += start.elapsed();
        let results = std::mem::take(&mut self.tb.sinks[0].beats);
        if results.len() != runs.len() {
            self.tb.fail(&format!(
                "{} results for {} runs",
                results.len(),
                runs.len()
            ));
        }
        for (r, (run, result)) in runs.iter().zip(&results).enumerate() {
            for (i, &whole) in run.reference().iter().enumerate() {
                let got = accumulator(result, i);
                let (p, o) = (i / OFM_CHANNELS, i % OFM_CHANNELS);
                for format in [AccFormat::Int40, AccFormat::Int32] {
                    let want = wrap_accumulator(whole, format);
                    if wrap_accumulator(got, format) != want {
                        self.tb.fail(&format!(
                            "run {r} ({} steps, depthwise {}, 16-bit {}): accumulator \
                             (position {p}, channel {o}) is {got}, {format:?} wants {want}",
                            run.steps.len(),
                            run.depthwise,
                            run.wide
                        ));
                    }
                }
            }
        }
        cycles
    }
}

#[test]
fn accumulators_match_the_reference() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut bench = Bench::new(seed);

    // Random runs under random back-pressure on both streams.
    for _ in 0..60 {
        let runs: Vec<Run> = (0..rng.gen_range(5..40))
            .map(|_| random_run(&mut rng))
            .collect();
        let (in_rate, out_rate) = (rng.gen_range(0.3..=1.0), rng.gen_range(0.1..=1.0));
        bench.check(&runs, in_rate, out_rate);
    }
    // 40-bit wrap, and 32-bit wrap seen through the int32 format.
    bench.check(&[wrapping_run()], 1.0, 1.0);

    // Throughput: one beat a cycle while the output is always ready, with
    // two cycles of latency: back-to-back `last` beats (one-step runs), then
    // runs of every length.
    let short: Vec<Run> = (0..2000)
        .map(|_| {
            let mut run = random_run(&mut rng);
            run.steps.truncate(1);
            run
        })
        .collect();
    let longer: Vec<Run> = (0..300).map(|_| random_run(&mut rng)).collect();
    for runs in [short, longer] {
        let beats: u64 = runs.iter().map(|r| r.beats().len() as u64).sum();
        let cycles = bench.check(&runs, 1.0, 1.0);
        // `check` ticks 4 more cycles after the last result.
        assert!(
            cycles <= beats + 2 + 4,
            "{beats} beats took {cycles} cycles"
        );
    }

    let seconds = bench.ticking.as_secs_f64();
    println!(
        "{} cycles in {seconds:.2} s: {:.0} cycles/s (the bench's stream models included)",
        bench.cycles,
        bench.cycles as f64 / seconds
    );
}
