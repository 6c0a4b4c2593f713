//! The MAC unit (`hw/src/mac_unit`, TRM 3.3.6) on its own bench: OFM blocks
//! of random operand beats accumulated into accumulator-buffer words, then
//! read out and compared, every accumulator, with a reference that keeps the
//! whole sums in i64 and wraps them as the golden model does
//! (`npu_model::ops::wrap_accumulator`, int40 and int32).
//!
//! Blocks are conv, depthwise or max pooling (NPU_OP_POOL mode 0:
//! depthwise with unit weights, each word the maximum of its values; a
//! 16-bit value's low beat held for its high beat), with 8-bit activations (int8, uint8, full
//! 9-bit and extremes), 16-bit ones (a low and a high beat on the same
//! word, back to back) or 32-bit ones (an int32
//! REDUCE_SUM's four byte beats), full, sparse or extreme weights. Their beats either
//! sweep a set of words once per weight group, as the weight-stationary
//! traversal does (one-word sets included: every beat on the word of the
//! beat before), or hit the set's words in random order with repeats and
//! `first` beats restarting a word in the middle of the block. Blocks
//! alternate between the two halves of the AB; each is read out as soon as
//! its `slice_done` pulse is seen, while the next block accumulates, under
//! random rates on `operands`, `readout` and `results`. Each pulse must
//! come exactly [`LATENCY`] cycles after its `slice_end` beat was taken,
//! and `operands_ready` must be high in every cycle but those of a clear
//! (every word written, then cleared while a block waits: all read 0 but
//! the block's, the clear one cycle a word). Then the throughput:
//! N beats accumulated in N + LATENCY cycles whatever their addresses, and
//! one readout result a cycle; and a one-word block long enough to wrap
//! 40 bits.

use npu_arch::command::AccFormat;
use npu_hw::mac_unit::{
    AccRead, OperandBeat, ACCUMULATORS, ACC_ADDRESS_BITS, ACC_BITS, ACC_CLEAR_WAYS, IFM_CHANNELS,
    LATENCY, OFM_CHANNELS, OPERAND_BITS, POSITIONS,
};
use npu_model::ops::wrap_accumulator;
use npu_tb::block::BlockTb;
use npu_tb::seed::seed;
use npu_tb::verilator::PortId;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// Activations of one step: (position, IFM channel), the IFM value minus
/// its zero point.
type Acts = [[i64; IFM_CHANNELS]; POSITIONS];
/// Weights of one step: (OFM channel, IFM channel); a depthwise step uses
/// entry (c, 0) for channel c and the rest must be ignored.
type Weights = [[i64; IFM_CHANNELS]; OFM_CHANNELS];
/// The 32 accumulators of a word, whole: (position, OFM channel).
type Word = [i64; ACCUMULATORS];

/// Words of one half of the AB.
const HALF: usize = 1 << (ACC_ADDRESS_BITS - 1);

/// One step of a block: one beat per byte of its activations.
#[derive(Clone)]
struct Step {
    address: usize,
    acts: Acts,
    weights: Weights,
    /// The word starts from 0.
    first: bool,
}

/// An OFM block's beats, ending with `slice_end`.
#[derive(Clone)]
struct Block {
    depthwise: bool,
    /// Max pooling: each word keeps the largest value (depthwise, unit
    /// weights, as the datapath's pools use it).
    max: bool,
    /// Bytes of an activation: 1, or 2 (a low and a high beat a step), or
    /// 4 (a beat per byte).
    activation_bytes: usize,
    steps: Vec<Step>,
}

impl Block {
    /// What a step adds to its word.
    fn contribution(&self, step: &Step) -> Word {
        std::array::from_fn(|i| {
            let (p, o) = (i / OFM_CHANNELS, i % OFM_CHANNELS);
            if self.depthwise {
                step.acts[p][o] * step.weights[o][0]
            } else {
                (0..IFM_CHANNELS)
                    .map(|k| step.acts[p][k] * step.weights[o][k])
                    .sum()
            }
        })
    }

    /// Applies the block to the reference words.
    fn apply(&self, words: &mut HashMap<usize, Word>) {
        for step in &self.steps {
            let add = self.contribution(step);
            let word = words.entry(step.address).or_insert([0; ACCUMULATORS]);
            for (acc, a) in word.iter_mut().zip(add) {
                *acc = match (step.first, self.max) {
                    (true, _) => a,
                    (false, true) => (*acc).max(a),
                    (false, false) => *acc + a,
                };
            }
        }
    }

    /// The words it writes, in order of their last write.
    fn addresses(&self) -> Vec<usize> {
        let mut seen = Vec::new();
        for step in self.steps.iter().rev() {
            if !seen.contains(&step.address) {
                seen.push(step.address);
            }
        }
        seen.reverse();
        seen
    }

    /// Its operand beats: an 8-bit activation v whole; a 16-bit one as
    /// `v & 0xff`, then `v >> 8` as `byte` 1; a 32-bit one as
    /// `(v >> 8b) & 0xff` for bytes b 0-2, then `v >> 24` as `byte` 3.
    fn beats(&self) -> Vec<Beat> {
        let mut beats = Vec::new();
        for step in &self.steps {
            for byte in 0..self.activation_bytes {
                let top = byte + 1 == self.activation_bytes;
                let part = |v: i64| match (self.activation_bytes, top) {
                    (1, _) => v,
                    (_, false) => (v >> (8 * byte)) & 0xff,
                    (_, true) => v >> (8 * byte),
                };
                let mut acts = step.acts;
                acts.iter_mut().flatten().for_each(|v| *v = part(*v));
                beats.push(Beat {
                    acts,
                    weights: step.weights,
                    address: step.address,
                    first: step.first && byte == 0,
                    slice_end: false,
                    depthwise: self.depthwise,
                    byte,
                    max: self.max,
                    low: self.activation_bytes == 2 && byte == 0,
                });
            }
        }
        beats.last_mut().expect("a block has a step").slice_end = true;
        beats
    }
}

struct Beat {
    acts: Acts,
    weights: Weights,
    address: usize,
    first: bool,
    slice_end: bool,
    depthwise: bool,
    byte: usize,
    max: bool,
    low: bool,
}

/// Sets bits `at..at + width` of `words` to the low bits of `value`.
fn put(words: &mut [u32], at: usize, width: usize, value: i64) {
    for b in 0..width {
        if (value >> b) & 1 != 0 {
            words[(at + b) / 32] |= 1 << ((at + b) % 32);
        }
    }
}

/// Where each field of an [`OperandBeat`] starts on the `operands_data` port.
struct Layout {
    acts: usize,
    weights: usize,
    address: usize,
    first: usize,
    slice_end: usize,
    depthwise: usize,
    byte: usize,
    max: usize,
    low: usize,
    words: usize,
}

impl Layout {
    fn new(bits: usize) -> Self {
        let b = OperandBeat::default();
        Self {
            acts: b.get_my_offset_acts(),
            weights: b.get_my_offset_weights(),
            address: b.get_my_offset_acc_address(),
            first: b.get_my_offset_first(),
            slice_end: b.get_my_offset_slice_end(),
            depthwise: b.get_my_offset_depthwise(),
            byte: b.get_my_offset_byte(),
            max: b.get_my_offset_max(),
            low: b.get_my_offset_low(),
            words: bits.div_ceil(32),
        }
    }

    fn pack(&self, beat: &Beat, rng: &mut StdRng) -> Vec<u32> {
        let mut words = vec![0u32; self.words];
        for (p, row) in beat.acts.iter().enumerate() {
            for (k, &a) in row.iter().enumerate() {
                assert!((-256..256).contains(&a), "activation {a} is not 9-bit");
                put(&mut words, self.acts + 9 * (8 * p + k), OPERAND_BITS, a);
            }
        }
        for (o, row) in beat.weights.iter().enumerate() {
            for (k, &w) in row.iter().enumerate() {
                match (beat.depthwise, k) {
                    (false, _) => put(&mut words, self.weights + 9 * (8 * o + k), OPERAND_BITS, w),
                    // Channel o's weight in lane o.
                    (true, 0) => put(&mut words, self.weights + 9 * o, OPERAND_BITS, w),
                    (true, _) => {}
                }
            }
        }
        if beat.depthwise {
            // Lanes 8.. of a depthwise beat are ignored: fill them.
            for lane in OFM_CHANNELS..OFM_CHANNELS * IFM_CHANNELS {
                let junk = rng.gen_range(-256..256);
                put(&mut words, self.weights + 9 * lane, OPERAND_BITS, junk);
            }
        }
        put(
            &mut words,
            self.address,
            ACC_ADDRESS_BITS,
            beat.address as i64,
        );
        for (at, flag) in [
            (self.first, beat.first),
            (self.slice_end, beat.slice_end),
            (self.depthwise, beat.depthwise),
            (self.max, beat.max),
            (self.low, beat.low),
        ] {
            put(&mut words, at, 1, i64::from(flag));
        }
        put(&mut words, self.byte, 2, beat.byte as i64);
        words
    }
}

/// A readout request for word `address`.
fn read_request(address: usize) -> Vec<u32> {
    let mut words = vec![0u32; ACC_ADDRESS_BITS.div_ceil(32)];
    let at = AccRead::default().get_my_offset_address();
    put(&mut words, at, ACC_ADDRESS_BITS, address as i64);
    words
}

/// Accumulator i of a result, sign-extended.
fn accumulator(words: &[u32], i: usize) -> i64 {
    let raw = (0..ACC_BITS).fold(0i64, |acc, b| {
        let at = ACC_BITS * i + b;
        acc | i64::from((words[at / 32] >> (at % 32)) & 1) << b
    });
    (raw << (64 - ACC_BITS)) >> (64 - ACC_BITS)
}

/// Value distributions of a block's activations.
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
    /// int16 minus an int16 zero point (16-bit blocks): -65535..=65535.
    Int16,
    /// The ends of the 17-bit range a high beat can carry (16-bit blocks).
    Extreme16,
    /// int32 (32-bit blocks; the zero point is 0).
    Int32,
    /// The ends of the int32 range and values around byte boundaries.
    Extreme32,
}

#[derive(Clone, Copy, Debug)]
enum WeightKind {
    Full,
    /// The weight decoder's range, -255..=255, mostly zeros.
    Sparse,
    Extreme,
    /// All 1: a pool's unit weights.
    Unit,
}

fn act(kind: ActKind, zero_point: i64, rng: &mut StdRng) -> i64 {
    match kind {
        ActKind::Int8 => rng.gen_range(-128..=127) - zero_point,
        ActKind::Uint8 => rng.gen_range(0..=255) - zero_point,
        ActKind::Full => rng.gen_range(-256..=255),
        ActKind::Extreme => *[-256, -255, 255, 0, 1, -1].choose(rng).unwrap(),
        ActKind::Int16 => rng.gen_range(-32768..=32767) - zero_point,
        ActKind::Extreme16 => *[-65536, -65535, 65535, 255, 256, -1].choose(rng).unwrap(),
        ActKind::Int32 => rng.gen_range(i64::from(i32::MIN)..=i64::from(i32::MAX)),
        ActKind::Extreme32 => *[
            i64::from(i32::MIN),
            i64::from(i32::MAX),
            -1,
            0xff_ffff,
            0x100_0000,
            -0x100_0000,
            0xffff,
        ]
        .choose(rng)
        .unwrap(),
    }
}

fn acts(kind: ActKind, zero_point: i64, rng: &mut StdRng) -> Acts {
    std::array::from_fn(|_| std::array::from_fn(|_| act(kind, zero_point, rng)))
}

fn weights(kind: WeightKind, rng: &mut StdRng) -> Weights {
    std::array::from_fn(|_| std::array::from_fn(|_| weight(kind, rng)))
}

fn weight(kind: WeightKind, rng: &mut StdRng) -> i64 {
    match kind {
        WeightKind::Full => rng.gen_range(-256..=255),
        WeightKind::Sparse if rng.gen_bool(0.7) => 0,
        WeightKind::Sparse => rng.gen_range(-255..=255),
        WeightKind::Extreme => *[-256, -255, 255].choose(rng).unwrap(),
        WeightKind::Unit => 1,
    }
}

/// A random block on words of AB half `half`.
fn random_block(half: usize, rng: &mut StdRng) -> Block {
    let max = rng.gen_bool(0.2);
    let depthwise = max || rng.gen_bool(0.3);
    // 32-bit activations only in sums (REDUCE_SUM).
    let activation_bytes = match rng.gen_range(0..10) {
        0..=2 => 2,
        3 if !max => 4,
        _ => 1,
    };
    let kinds: &[ActKind] = match activation_bytes {
        2 => &[ActKind::Int16, ActKind::Extreme16],
        4 => &[ActKind::Int32, ActKind::Extreme32],
        _ => &[
            ActKind::Int8,
            ActKind::Uint8,
            ActKind::Full,
            ActKind::Extreme,
        ],
    };
    let kind = *kinds.choose(rng).unwrap();
    let zero_point = match kind {
        ActKind::Int8 => rng.gen_range(-128..=127),
        ActKind::Uint8 => rng.gen_range(0..=255),
        ActKind::Int16 => rng.gen_range(-32768..=32767),
        _ => 0,
    };
    let weight_kind = if max {
        WeightKind::Unit
    } else {
        *[WeightKind::Full, WeightKind::Sparse, WeightKind::Extreme]
            .choose(rng)
            .unwrap()
    };
    let word_count = match rng.gen_range(0..10) {
        0..=2 => 1,
        3..=7 => rng.gen_range(2..=8),
        8 => rng.gen_range(9..=64),
        _ => HALF,
    };
    let mut addresses: Vec<usize> = (half * HALF..(half + 1) * HALF).collect();
    addresses.shuffle(rng);
    addresses.truncate(word_count);
    let mut steps = Vec::new();
    if rng.gen_bool(0.6) {
        // The traversal's sweep: each weight group over every word.
        let groups = match word_count {
            1 => rng.gen_range(1..=24),
            2..=8 => rng.gen_range(1..=6),
            _ => rng.gen_range(1..=2),
        };
        for group in 0..groups {
            let weights = weights(weight_kind, rng);
            for &address in &addresses {
                steps.push(Step {
                    address,
                    acts: acts(kind, zero_point, rng),
                    weights,
                    first: group == 0,
                });
            }
        }
    } else {
        // Any order: repeats, and words restarted in the middle.
        let len = rng.gen_range(1..=3 * word_count.min(40));
        let mut started = Vec::new();
        for _ in 0..len {
            let address = match steps.last() {
                Some(Step { address, .. }) if rng.gen_bool(0.3) => *address,
                _ => *addresses.choose(rng).unwrap(),
            };
            let first = !started.contains(&address) || rng.gen_bool(0.1);
            started.push(address);
            steps.push(Step {
                address,
                acts: acts(kind, zero_point, rng),
                weights: weights(weight_kind, rng),
                first,
            });
        }
    }
    Block {
        depthwise,
        max,
        activation_bytes,
        steps,
    }
}

/// A 16-bit conv block of extremes on one word, long enough to wrap 40 bits.
fn wrapping_block(address: usize) -> Block {
    // Each step adds 2^16 * 2^8 * 8 = 2^27.
    let steps = (1usize << (ACC_BITS - 27)) + 100;
    Block {
        depthwise: false,
        max: false,
        activation_bytes: 2,
        steps: (0..steps)
            .map(|s| Step {
                address,
                acts: [[-65536; IFM_CHANNELS]; POSITIONS],
                weights: [[-256; IFM_CHANNELS]; OFM_CHANNELS],
                first: s == 0,
            })
            .collect(),
    }
}

/// A block that writes every word of AB half `half` with random values.
fn filling_block(half: usize, rng: &mut StdRng) -> Block {
    Block {
        depthwise: false,
        max: false,
        activation_bytes: 1,
        steps: (half * HALF..(half + 1) * HALF)
            .map(|address| Step {
                address,
                acts: acts(ActKind::Full, 0, rng),
                weights: weights(WeightKind::Full, rng),
                first: true,
            })
            .collect(),
    }
}

/// A readout in flight: the word asked for and what it must hold.
struct Expected {
    address: usize,
    word: Word,
    block: usize,
}

struct Bench {
    tb: BlockTb,
    layout: Layout,
    rng: StdRng,
    operands_ready: PortId,
    slice_done: PortId,
    clear: PortId,
    clearing: PortId,
    /// The reference AB.
    words: HashMap<usize, Word>,
    /// Operand beats queued so far, and the beat index of each queued
    /// block's `slice_end` beat.
    beats_queued: usize,
    slice_ends: VecDeque<usize>,
    /// Cycles in which the `slice_end` beats of the blocks queued were
    /// taken, whose `slice_done` pulses have not been seen.
    ends_taken: VecDeque<u64>,
    pulses: usize,
    expected: VecDeque<Expected>,
    /// Cycles simulated and the wall time spent in them.
    cycles: u64,
    ticking: Duration,
}

const OPERANDS: usize = 0;
const READOUT: usize = 1;
const RESULTS: usize = 0;

impl Bench {
    fn new(seed: u64) -> Self {
        let mut tb = BlockTb::new("mac_unit", seed).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(tb.source("operands", 1.0), OPERANDS);
        assert_eq!(tb.source("readout", 1.0), READOUT);
        assert_eq!(tb.sink("results", 1.0), RESULTS);
        let data = tb.model.port("operands_data");
        let layout = Layout::new(tb.model.width(data));
        let rst_n = tb.model.port("rst_n");
        tb.model.set(rst_n, 0);
        tb.model.tick();
        tb.model.set(rst_n, 1);
        tb.model.tick();
        Self {
            operands_ready: tb.model.port("operands_ready"),
            slice_done: tb.model.port("slice_done"),
            clear: tb.model.port("clear"),
            clearing: tb.model.port("clearing"),
            tb,
            layout,
            rng: StdRng::seed_from_u64(seed ^ 0x6d61_6375),
            words: HashMap::new(),
            beats_queued: 0,
            slice_ends: VecDeque::new(),
            ends_taken: VecDeque::new(),
            pulses: 0,
            expected: VecDeque::new(),
            cycles: 0,
            ticking: Duration::ZERO,
        }
    }

    fn set_rates(&mut self, operands: f64, readout: f64, results: f64) {
        self.tb.sources[OPERANDS].rate = operands;
        self.tb.sources[READOUT].rate = readout;
        self.tb.sinks[RESULTS].rate = results;
    }

    /// Queues a block's beats and applies it to the reference.
    fn queue_block(&mut self, block: &Block) {
        for beat in block.beats() {
            let words = self.layout.pack(&beat, &mut self.rng);
            self.tb.sources[OPERANDS].queue.push_back(words);
            self.beats_queued += 1;
        }
        self.slice_ends.push_back(self.beats_queued - 1);
        block.apply(&mut self.words);
    }

    /// Queues readouts of `addresses`, tagged with block `block`.
    fn queue_readouts(&mut self, addresses: &[usize], block: usize) {
        for &address in addresses {
            self.tb.sources[READOUT]
                .queue
                .push_back(read_request(address));
            self.expected.push_back(Expected {
                address,
                word: self.words[&address],
                block,
            });
        }
    }

    /// One cycle: checks `operands_ready`, times the `slice_done` pulses
    /// and checks the results taken. Returns whether a pulse was seen.
    fn tick(&mut self) -> bool {
        let cycle = self.tb.model.cycle();
        let taken = self.tb.sources[OPERANDS].taken;
        let start = Instant::now();
        self.tb.tick();
        self.ticking += start.elapsed();
        self.cycles += 1;
        if self.tb.sources[OPERANDS].taken > taken && self.slice_ends.front() == Some(&taken) {
            self.slice_ends.pop_front();
            self.ends_taken.push_back(cycle);
        }
        if self.tb.model.get(self.operands_ready) == self.tb.model.get(self.clearing) {
            self.tb
                .fail("operands_ready is not high exactly when the AB is not clearing");
        }
        // The outputs now show the cycle after `cycle`.
        let pulse = self.tb.model.get(self.slice_done) == 1;
        if pulse {
            match self.ends_taken.pop_front() {
                Some(end) if end + LATENCY as u64 == cycle + 1 => self.pulses += 1,
                Some(end) => self.tb.fail(&format!(
                    "slice_done {} cycles after its slice_end beat was taken, not {LATENCY}",
                    cycle + 1 - end
                )),
                None => self.tb.fail("slice_done with no slice_end beat taken"),
            }
        }
        if let Some(&end) = self.ends_taken.front() {
            if cycle + 1 > end + LATENCY as u64 {
                self.tb.fail(&format!(
                    "no slice_done {LATENCY} cycles after the slice_end beat taken in cycle {end}"
                ));
            }
        }
        for result in std::mem::take(&mut self.tb.sinks[RESULTS].beats) {
            let Some(want) = self.expected.pop_front() else {
                self.tb.fail("a result no readout asked for");
            };
            for (i, &whole) in want.word.iter().enumerate() {
                let got = accumulator(&result, i);
                let (p, o) = (i / OFM_CHANNELS, i % OFM_CHANNELS);
                for format in [AccFormat::Int40, AccFormat::Int32] {
                    let wrapped = wrap_accumulator(whole, format);
                    if wrap_accumulator(got, format) != wrapped {
                        self.tb.fail(&format!(
                            "block {}, word {}: accumulator (position {p}, channel {o}) is \
                             {got}, {format:?} wants {wrapped}",
                            want.block, want.address
                        ));
                    }
                }
            }
        }
        pulse
    }

    /// Clears the AB (no beat in flight) and queues `block` while it
    /// clears; checks that the clear takes a cycle for each ACC_CLEAR_WAYS
    /// words.
    fn clear_then(&mut self, block: &Block) {
        self.tb.model.set(self.clear, 1);
        self.tick();
        self.tb.model.set(self.clear, 0);
        for address in 0..1 << ACC_ADDRESS_BITS {
            self.words.insert(address, [0; ACCUMULATORS]);
        }
        self.queue_block(block);
        let taken = self.tb.sources[OPERANDS].taken;
        let mut cycles = 0;
        while self.tb.model.get(self.clearing) == 1 {
            if self.tb.sources[OPERANDS].taken > taken {
                self.tb.fail("an operand beat taken while clearing");
            }
            self.tick();
            cycles += 1;
        }
        if cycles != (1 << ACC_ADDRESS_BITS) / ACC_CLEAR_WAYS {
            self.tb.fail(&format!("clearing for {cycles} cycles"));
        }
    }

    /// Runs until every beat and readout queued has gone through, at most
    /// `limit` cycles; returns the cycles taken.
    fn drain(&mut self, limit: u64) -> u64 {
        let mut cycles = 0;
        while !(self.tb.sources[OPERANDS].queue.is_empty()
            && self.tb.sources[READOUT].queue.is_empty()
            && self.ends_taken.is_empty()
            && self.expected.is_empty())
        {
            self.tick();
            cycles += 1;
            if cycles > limit {
                self.tb.fail(&format!("not drained after {cycles} cycles"));
            }
        }
        cycles
    }

    /// Runs `blocks` alternating AB halves, each read out (all its words,
    /// the last written first or in random order, some twice) as soon as
    /// its `slice_done` pulse is seen; a block is queued once the block
    /// before the last in its half has been read out.
    fn run_blocks(&mut self, blocks: &[Block]) {
        let mut queued = 0;
        let mut done = 0;
        let mut waiting = 0;
        loop {
            // Blocks whose readouts have all come back.
            let read = self.expected.front().map_or(done, |e| e.block);
            while queued < blocks.len() && queued < read + 2 {
                self.queue_block(&blocks[queued]);
                queued += 1;
            }
            if done == blocks.len() && self.expected.is_empty() {
                break;
            }
            if self.tick() {
                let mut addresses = blocks[done].addresses();
                let last = addresses.len() - 1;
                if self.rng.gen_bool(0.5) {
                    addresses[..last].shuffle(&mut self.rng);
                    addresses.rotate_right(1);
                } else {
                    addresses.shuffle(&mut self.rng);
                }
                if self.rng.gen_bool(0.2) {
                    let again = *addresses.choose(&mut self.rng).unwrap();
                    addresses.push(again);
                }
                self.queue_readouts(&addresses, done);
                done += 1;
                waiting = 0;
            }
            waiting += 1;
            if waiting > 100_000 {
                self.tb.fail(&format!("block {done} never done"));
            }
        }
    }
}

#[test]
fn accumulators_match_the_reference() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut bench = Bench::new(seed);

    // Every word written, then the AB cleared while a block waits: every
    // word reads 0 but the block's.
    bench.run_blocks(&[filling_block(0, &mut rng), filling_block(1, &mut rng)]);
    let block = random_block(1, &mut rng);
    bench.clear_then(&block);
    bench.drain(10 * block.beats().len() as u64);
    let mut addresses: Vec<usize> = (0..1 << ACC_ADDRESS_BITS).collect();
    addresses.shuffle(&mut rng);
    bench.queue_readouts(&addresses, 0);
    bench.drain(4 * addresses.len() as u64);
    let mut block_count = 3;
    for _ in 0..60 {
        let blocks: Vec<Block> = (0..rng.gen_range(5..40))
            .map(|b| random_block(b % 2, &mut rng))
            .collect();
        block_count += blocks.len();
        bench.set_rates(
            rng.gen_range(0.3..=1.0),
            rng.gen_range(0.2..=1.0),
            rng.gen_range(0.1..=1.0),
        );
        bench.run_blocks(&blocks);
    }
    assert_eq!(bench.pulses, block_count, "one slice_done pulse per block");

    // 40-bit wrap, and 32-bit wrap seen through the int32 format.
    bench.set_rates(1.0, 1.0, 1.0);
    bench.run_blocks(&[wrapping_block(HALF - 1)]);

    // Throughput: blocks of every shape back to back, one beat a cycle
    // (any address sequence), done LATENCY cycles after the last beat; then
    // every word read out at one a cycle.
    let blocks: Vec<Block> = (0..400)
        .map(|_| random_block(rng.gen_range(0..2), &mut rng))
        .collect();
    let pulses = bench.pulses;
    let beats: usize = blocks.iter().map(|b| b.beats().len()).sum();
    for block in &blocks {
        bench.queue_block(block);
    }
    // Beat i is taken in cycle i; the outputs now show cycle `cycles`, the
    // last block's pulse: beats + LATENCY cycles counting that one.
    let cycles = bench.drain(2 * beats as u64) + 1;
    assert_eq!(
        cycles,
        (beats + LATENCY) as u64,
        "{beats} beats took {cycles} cycles"
    );
    assert_eq!(bench.pulses - pulses, blocks.len());
    let mut addresses: Vec<usize> = bench.words.keys().copied().collect();
    addresses.shuffle(&mut rng);
    bench.queue_readouts(&addresses, blocks.len());
    let cycles = bench.drain(2 * addresses.len() as u64);
    // The request is taken in the first cycle, its result in the next.
    assert_eq!(
        cycles,
        addresses.len() as u64 + 1,
        "{} readouts took {cycles} cycles",
        addresses.len()
    );

    let seconds = bench.ticking.as_secs_f64();
    println!(
        "{} cycles in {seconds:.2} s: {:.0} cycles/s (the bench's stream models included); \
         {} slice_done pulses",
        bench.cycles,
        bench.cycles as f64 / seconds,
        bench.pulses
    );
}
