//! The convolution block traversal (`hw/src/datapath/traversal`,
//! TRM 4.9) on its own bench: random convolutions (both weight orders,
//! depthwise, 8- and 16-bit IFMs, int32 REDUCE_SUM, kernels up to 9x9 with both
//! decompositions, strides, dilation, padding, upscaling, partial blocks,
//! a quarter of them one-row OFMs with 1x4 microblocks, some in parallel
//! mode, TRM 4.7.5.1, with each core's channels and weight stream);
//! every IFM block job, MAC beat and readout compared field by field with
//! `npu_model::schedule`, whose traversal is checked against a direct
//! convolution. The IFM fetch and the MAC unit are played by the bench:
//! jobs come back on `filled` after a random delay, `slice_done` follows
//! a slice's last beat after a random delay (no slice may be read out
//! before), and every stream sees random back-pressure.

use npu_arch::command::{KernelDecomposition, UpscaleMode};
use npu_hw::datapath::{IfmBlockJob, MacBeat, Readout, TraversalShape};
use npu_model::schedule::{self, ConvShape};
use npu_model::weights::order::Traversal;
use npu_tb::block::{field, words, BlockTb};
use npu_tb::seed::seed;
use npu_tb::verilator::PortId;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::{Bits, Synth};
use std::collections::VecDeque;

fn hardware_shape(s: &ConvShape) -> TraversalShape {
    let b = |v: usize| Bits::<16>::from(v as u64);
    TraversalShape {
        ofm_height: b(s.ofm_height),
        ofm_width: b(s.ofm_width),
        ofm_depth: b(s.ofm_depth),
        ifm_depth: b(s.ifm_depth),
        ifm_height: b(s.ifm_height),
        ifm_width: b(s.ifm_width),
        kernel_height: b(s.kernel_height),
        kernel_width: b(s.kernel_width),
        stride_x: (s.stride_x as u64).into(),
        stride_y: (s.stride_y as u64).into(),
        dilation_x: (s.dilation_x as u64).into(),
        dilation_y: (s.dilation_y as u64).into(),
        pad_top: b(s.pad_top),
        pad_left: b(s.pad_left),
        upscale: s.upscale != UpscaleMode::None,
        depthwise: s.traversal == Traversal::DepthWise,
        part_kernel_first: s.traversal == Traversal::PartKernelFirst,
        decomposition_4x4: s.decomposition == KernelDecomposition::D4x4,
        wide: s.ifm_bits == 16,
        int32: s.ifm_bits == 32,
        one_row: s.microblock() == (1, 4),
        block_height: b(s.block_height),
        block_width: b(s.block_width),
        block_depth: b(s.block_depth),
        parallel: s.parallel,
        pool: s.pool,
    }
}

/// A job as the bench sees it: the fields `npu_model::schedule` also has.
#[derive(Debug, PartialEq)]
struct Job {
    ofm: [u64; 6],
    last_depth: bool,
    /// Core 1's depth beside core 0's, and whether it is core 1's last
    /// block in depth (when it has one).
    paired: (u64, bool),
    rect: [u64; 6],
    sub: [u64; 4],
    first: bool,
    last: bool,
}

fn job_from_words(w: &[u32]) -> (Job, bool) {
    let j = IfmBlockJob::default();
    let f = |at: usize| field(w, at, 16);
    let bit = |at: usize| field(w, at, 1) == 1;
    let job = Job {
        ofm: [
            f(j.get_my_offset_ofm_y()),
            f(j.get_my_offset_ofm_x()),
            f(j.get_my_offset_ofm_z()),
            f(j.get_my_offset_ofm_height()),
            f(j.get_my_offset_ofm_width()),
            f(j.get_my_offset_ofm_depth()),
        ],
        last_depth: bit(j.get_my_offset_last_depth()),
        paired: (
            f(j.get_my_offset_paired_depth()),
            f(j.get_my_offset_paired_depth()) > 0 && bit(j.get_my_offset_paired_last_depth()),
        ),
        rect: [
            f(j.get_my_offset_y0()),
            f(j.get_my_offset_x0()),
            f(j.get_my_offset_height()),
            f(j.get_my_offset_width()),
            f(j.get_my_offset_channel0()),
            f(j.get_my_offset_channels()),
        ],
        sub: [
            f(j.get_my_offset_sub_y()),
            f(j.get_my_offset_sub_x()),
            f(j.get_my_offset_sub_height()),
            f(j.get_my_offset_sub_width()),
        ],
        first: bit(j.get_my_offset_first()),
        last: bit(j.get_my_offset_last()),
    };
    (job, bit(j.get_my_offset_ib_half()))
}

fn expected_job(shape: &ConvShape, op: &schedule::IfmBlockOp) -> Job {
    let u = |v: usize| v as u64;
    Job {
        ofm: [
            op.ofm.y,
            op.ofm.x,
            op.ofm.z,
            op.ofm.height,
            op.ofm.width,
            op.ofm.depth,
        ]
        .map(u),
        last_depth: op.ofm.z + op.ofm.depth == shape.core_depth(0),
        paired: (
            op.ofm.paired_depth as u64,
            op.ofm.paired_depth > 0 && op.ofm.z + op.ofm.paired_depth == shape.core_depth(1),
        ),
        rect: [
            op.rect.y0,
            op.rect.x0,
            op.rect.height,
            op.rect.width,
            op.rect.channel0,
            op.rect.channels,
        ]
        .map(u),
        sub: [
            op.sub_kernel.y,
            op.sub_kernel.x,
            op.sub_kernel.height,
            op.sub_kernel.width,
        ]
        .map(u),
        first: op.first,
        last: op.last,
    }
}

fn beat_from_words(w: &[u32]) -> schedule::Beat {
    let b = MacBeat::default();
    let f = |at: usize| field(w, at, 16) as usize;
    let bit = |at: usize| field(w, at, 1) == 1;
    schedule::Beat {
        oy: f(b.get_my_offset_oy()),
        ox: f(b.get_my_offset_ox()),
        ky: f(b.get_my_offset_ky()),
        kx: f(b.get_my_offset_kx()),
        ifm_channel: f(b.get_my_offset_ifm_channel()),
        acc_address: field(w, b.get_my_offset_acc_address(), 9) as usize,
        first: bit(b.get_my_offset_first()),
        byte: field(w, b.get_my_offset_byte(), 2) as usize,
        paired: bit(b.get_my_offset_paired()),
        paired_block_end: bit(b.get_my_offset_paired_block_end()),
        skip: bit(b.get_my_offset_skip()),
        group_end: bit(b.get_my_offset_group_end()),
        job_end: bit(b.get_my_offset_job_end()),
        slice_end: bit(b.get_my_offset_slice_end()),
        block_end: bit(b.get_my_offset_block_end()),
    }
}

fn readout_from_words(w: &[u32]) -> schedule::Readout {
    let r = Readout::default();
    let f = |at: usize| field(w, at, 16) as usize;
    schedule::Readout {
        acc_address: field(w, r.get_my_offset_acc_address(), 9) as usize,
        oy: f(r.get_my_offset_oy()),
        ox: f(r.get_my_offset_ox()),
        oz: f(r.get_my_offset_oz()),
        positions: field(w, r.get_my_offset_positions(), 4) as u8,
        channels: field(w, r.get_my_offset_channels(), 4) as usize,
        paired_channels: field(w, r.get_my_offset_paired_channels(), 4) as usize,
        group_end: field(w, r.get_my_offset_group_end(), 1) == 1,
        block_end: field(w, r.get_my_offset_block_end(), 1) == 1,
    }
}

/// The traversal out of reset, its ports and streams bound.
struct Bench {
    tb: BlockTb,
    start: PortId,
    /// `shape` and `walk_shape`: one operation at a time here.
    shape_port: [PortId; 2],
    slice_done: PortId,
    ib_read: PortId,
    busy: PortId,
    filled: usize,
    jobs: usize,
    beats: usize,
    readouts: usize,
}

impl Bench {
    /// `rates`: how often `filled` offers and `ifm_blocks`, `beats` and
    /// `readouts` take.
    fn new(seed: u64, rates: [f64; 4]) -> Bench {
        let mut tb = BlockTb::new("traversal", seed).unwrap_or_else(|e| panic!("{e:#}"));
        let rst_n = tb.model.port("rst_n");
        let mut bench = Bench {
            start: tb.model.port("start"),
            shape_port: [tb.model.port("shape"), tb.model.port("walk_shape")],
            slice_done: tb.model.port("slice_done"),
            ib_read: tb.model.port("ib_read"),
            busy: tb.model.port("busy"),
            filled: tb.source("filled", rates[0]),
            jobs: tb.sink("ifm_blocks", rates[1]),
            beats: tb.sink("beats", rates[2]),
            readouts: tb.sink("readouts", rates[3]),
            tb,
        };
        bench.tb.model.set(rst_n, 0);
        bench.tb.model.tick();
        bench.tb.model.set(rst_n, 1);
        bench.tb.model.tick();
        bench
    }
}

#[test]
fn every_job_beat_and_readout_matches_the_schedule() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let Bench {
        mut tb,
        start,
        shape_port,
        slice_done,
        ib_read,
        busy,
        filled,
        jobs,
        beats,
        readouts,
    } = Bench::new(rng.gen(), [0.7, 0.6, 0.9, 0.8]);

    let (mut total_beats, mut total_cycles, mut one_row, mut parallel, mut pools) = (0, 0, 0, 0, 0);
    let mut int32_pools = 0;
    // Accumulator halves and IFM buffers alternate across operations too.
    let (mut ab_half, mut expected_half) = (0, false);
    for case in 0..60 {
        let mut shape = ConvShape::random_parallel(&mut rng);
        // Pools: depthwise-shaped max/average pools (unpadded kernels) and
        // REDUCE_SUM (depth-first, one OFM channel; int32 IFMs a third of
        // the time, 4-channel groups of four beats).
        if rng.gen_bool(0.25) {
            shape.pool = true;
            if shape.traversal != Traversal::DepthWise {
                shape.traversal = Traversal::DepthFirst;
                shape.ofm_depth = 1;
                shape.parallel = false;
                if rng.gen_bool(1.0 / 3.0) {
                    shape.ifm_bits = 32;
                    int32_pools += 1;
                }
            }
            pools += 1;
        }
        one_row += usize::from(shape.microblock() == (1, 4));
        parallel += usize::from(shape.parallel);
        let what = format!("case {case} (seed {seed}): {shape:?}");
        let ops = shape.block_ops();
        let want_beats = shape.beats(ab_half);
        let want_readouts = shape.readouts(ab_half);
        ab_half = (ab_half + shape.ofm_blocks().len()) % 2;
        for port in shape_port {
            tb.model.set_wide(
                port,
                &words::<{ <TraversalShape as Synth>::BITS }>(hardware_shape(&shape).into()),
            );
        }
        tb.model.set(start, 1);
        tb.tick();
        tb.model.set(start, 0);

        // Jobs the bench is "fetching": returned after a random delay.
        let mut fetching: VecDeque<(u64, Vec<u32>)> = VecDeque::new();
        let mut done_pulses: VecDeque<u64> = VecDeque::new();
        // The IFM unit's reads of each job's last beat: one pulse a cycle.
        let mut read_pulses: VecDeque<u64> = VecDeque::new();
        let (mut n_jobs, mut n_beats, mut n_readouts) = (0, 0, 0);
        // Slices whose slice_done pulse was given, and slices read out.
        let (mut slices_done, mut slices_read) = (0, 0);
        let mut cycles = 0u64;
        loop {
            cycles += 1;
            if cycles > 2_000_000 {
                tb.fail(&format!("no progress: {what}"));
            }
            for w in std::mem::take(&mut tb.sinks[jobs].beats) {
                let (job, half) = job_from_words(&w);
                let Some(op) = ops.get(n_jobs) else {
                    tb.fail(&format!("a job beyond the {} of {what}", ops.len()));
                };
                assert_eq!(job, expected_job(&shape, op), "job {n_jobs} of {what}");
                assert_eq!(half, expected_half, "IB half of job {n_jobs} of {what}");
                expected_half = !expected_half;
                n_jobs += 1;
                fetching.push_back((cycles + rng.gen_range(0..40), w));
            }
            while fetching.front().is_some_and(|(at, _)| *at <= cycles) {
                let (_, w) = fetching.pop_front().expect("a job");
                tb.sources[filled].queue.push_back(w);
            }
            for w in std::mem::take(&mut tb.sinks[beats].beats) {
                let got = beat_from_words(&w);
                let Some(want) = want_beats.get(n_beats) else {
                    tb.fail(&format!("a beat beyond the {} of {what}", want_beats.len()));
                };
                assert_eq!(&got, want, "beat {n_beats} of {what}");
                if got.slice_end {
                    let after = done_pulses.back().map_or(0, |&at| at + 1);
                    done_pulses.push_back(after.max(cycles + rng.gen_range(1..30)));
                }
                if got.job_end {
                    let after = read_pulses.back().map_or(0, |&at| at + 1);
                    read_pulses.push_back(after.max(cycles + rng.gen_range(0..12)));
                }
                n_beats += 1;
            }
            for w in std::mem::take(&mut tb.sinks[readouts].beats) {
                let got = readout_from_words(&w);
                let Some(want) = want_readouts.get(n_readouts) else {
                    tb.fail(&format!(
                        "a readout beyond the {} of {what}",
                        want_readouts.len()
                    ));
                };
                assert_eq!(&got, want, "readout {n_readouts} of {what}");
                assert!(
                    slices_read < slices_done,
                    "readout {n_readouts} of {what} before its slice's slice_done"
                );
                if got.group_end {
                    slices_read += 1;
                }
                n_readouts += 1;
            }
            let pulse = done_pulses.front().is_some_and(|&at| at <= cycles);
            if pulse {
                done_pulses.pop_front();
                slices_done += 1;
            }
            tb.model.set(slice_done, u64::from(pulse));
            let read = read_pulses.front().is_some_and(|&at| at <= cycles);
            if read {
                read_pulses.pop_front();
            }
            tb.model.set(ib_read, u64::from(read));
            let idle = tb.model.get(busy) == 0;
            if idle
                && fetching.is_empty()
                && tb.sources[filled].queue.is_empty()
                && read_pulses.is_empty()
            {
                break;
            }
            tb.tick();
        }
        assert_eq!(n_jobs, ops.len(), "jobs of {what}");
        assert_eq!(n_beats, want_beats.len(), "beats of {what}");
        assert_eq!(n_readouts, want_readouts.len(), "readouts of {what}");
        total_beats += n_beats;
        total_cycles += cycles;
    }
    println!(
        "{total_beats} beats in {total_cycles} cycles under back-pressure, {one_row} of 60 \
         operations one-row (1x4 microblocks), {parallel} in parallel mode, {pools} pools \
         ({int32_pools} int32 REDUCE_SUM)"
    );
    assert!(
        (3..=30).contains(&pools),
        "pools (seed {seed}): {pools} of 60"
    );
    assert!(
        (2..=30).contains(&parallel),
        "parallel mode (seed {seed}): {parallel} of 60"
    );
    assert!(
        (3..=57).contains(&one_row),
        "both microblock shapes (seed {seed}): {one_row} of 60 one-row"
    );
}

/// Runs `shape` with every stream always ready and the IFM fetch and the
/// MAC unit answering at once: the cycles the traversal takes.
fn cycles_at_full_rate(shape: &ConvShape) -> u64 {
    let Bench {
        mut tb,
        start,
        shape_port,
        slice_done,
        ib_read,
        busy,
        filled,
        jobs,
        beats,
        readouts,
    } = Bench::new(1, [1.0; 4]);
    for port in shape_port {
        tb.model.set_wide(
            port,
            &words::<{ <TraversalShape as Synth>::BITS }>(hardware_shape(shape).into()),
        );
    }
    tb.model.set(start, 1);
    tb.tick();
    tb.model.set(start, 0);
    let mut cycles = 0u64;
    while tb.model.get(busy) != 0 {
        for w in std::mem::take(&mut tb.sinks[jobs].beats) {
            tb.sources[filled].queue.push_back(w);
        }
        let taken: Vec<_> = tb.sinks[beats]
            .beats
            .drain(..)
            .map(|w| beat_from_words(&w))
            .collect();
        tb.sinks[readouts].beats.clear();
        tb.model
            .set(slice_done, u64::from(taken.iter().any(|b| b.slice_end)));
        tb.model
            .set(ib_read, u64::from(taken.iter().any(|b| b.job_end)));
        tb.tick();
        cycles += 1;
        assert!(cycles < 100_000, "the traversal does not finish");
    }
    cycles
}

#[test]
fn beats_flow_one_a_cycle() {
    // A 3x3 convolution, 64 -> 32 channels, 8x8 OFM in 4x4x16 blocks.
    let conv2d = ConvShape {
        ofm_height: 8,
        ofm_width: 8,
        ofm_depth: 32,
        ifm_depth: 64,
        ifm_height: 8,
        ifm_width: 8,
        kernel_height: 3,
        kernel_width: 3,
        stride_x: 1,
        stride_y: 1,
        dilation_x: 1,
        dilation_y: 1,
        pad_top: 1,
        pad_left: 1,
        upscale: UpscaleMode::None,
        traversal: Traversal::DepthFirst,
        decomposition: KernelDecomposition::D8x8,
        ifm_bits: 8,
        block_height: 4,
        block_width: 4,
        block_depth: 16,
        parallel: false,
        pool: false,
    };
    // Its CONV1D counterpart: a 1x3 kernel over a 1x64 OFM in 2x16x16
    // blocks (Vela's block heights are even), 1x4 microblocks.
    let conv1d = ConvShape {
        ofm_height: 1,
        ofm_width: 64,
        ifm_height: 1,
        ifm_width: 64,
        kernel_height: 1,
        pad_top: 0,
        block_height: 2,
        block_width: 16,
        ..conv2d.clone()
    };
    // Four microblocks per 1x16 block: a weight group's beats use every
    // position lane.
    assert!(conv1d
        .ofm_blocks()
        .iter()
        .all(|b| b.microblock_count(conv1d.microblock()) == 4));
    for shape in [conv2d, conv1d] {
        let cycles = cycles_at_full_rate(&shape);
        let expected = shape.beats(0).len() as u64;
        println!("{expected} beats in {cycles} cycles: {shape:?}");
        // Beats flow at one a cycle: only the start of each IFM block (a
        // fetch round trip through the bench) and the last readouts add
        // cycles.
        assert!(
            cycles < expected + expected / 10,
            "{expected} beats took {cycles} cycles: {shape:?}"
        );
    }
}
