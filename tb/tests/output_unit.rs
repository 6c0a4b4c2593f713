//! The output unit block (TRM 3.3.7, convolution part) against the golden
//! model, lane by lane: random accumulators and scale records (extremes
//! included) under random operations (every rounding mode, OFM type,
//! accumulator format, clip range, per-channel and global scale, zero
//! points, ACTIVATION_MIN/MAX, activation functions: none, tanh, sigmoid and
//! LUTs of random contents in both cores' LUT areas), with random
//! back-pressure on both streams and the operation changing while the
//! previous one's beats are in flight (a LUT is written once the beats
//! before it are out). Each result is
//! `OutStage::with_activation(..).finish(scale_accumulator(..), core)`, the
//! functions the golden model's convolution uses; operations with an
//! activation function often scale by exactly 1, so that their scaled
//! values hit the table's ends, the LUT index bounds, zero and saturation.
//! Three operations in five are pools as the golden model's `run_pool`
//! finishes them: max pools (no scaling, the accumulator as it is), padded
//! average pools (no scaling, the sum of `count` 16-bit differences divided
//! by `count`, 1..=64, with `fixed::divide_round_away`; TRM 4.8.2 table
//! 4-122), and scaled pools with an int32 OFM, which shift only
//! (`fixed::shift_only`, TRM 4.6.5).
//!
//! Elementwise operations (NPU_OP_ELEMENTWISE, TRM 4.8.2 table 4-124):
//! every mode on every IFM/OFM type pair the golden model's
//! `validate_elementwise` allows, every IFM scale and rounding mode (ADD/SUB
//! input scaling where `run_elementwise` allows it), random and extreme
//! operands (type bounds minus any zero point, int32 bounds, shift amounts
//! out of range), scales and shifts (0, 31 and above), every OFM rounding
//! mode, activation functions and LUTs, with back-pressure, each lane
//! against `ElementwiseArithmetic::apply` then `OutStage::finish`; and beats
//! of every mode taken one a cycle (8 lanes), or WIDE_LANES lanes a cycle
//! on the wide path, when nothing stalls.

use npu_arch::command::{
    AccFormat, ActivationClipRange, ActivationFunction, ActivationPrecision, ElementwiseMode,
    IfmRoundMode, IfmScaleMode, OfmScaleMode, Opcode, RoundMode,
};
use npu_hw::output_unit::{
    AccumulatorBeat, OutputSettings, ResultBeat, LANES, LATENCY, SETTLE_CYCLES, WIDE_LANES,
    WIDE_LATENCY,
};
use npu_hw::shram::{LutWrite, LUT_LINES};
use npu_model::fixed::{divide_round_away, shift_only};
use npu_model::ops::{
    add_input_shift, scale_accumulator, wrap_accumulator, ElementwiseArithmetic, OutStage,
    OutputScale, ScaleRecord,
};
use npu_model::tensor::DType;
use npu_tb::block::{field, words, BlockTb};
use npu_tb::seed::seed;
use npu_tb::verilator::PortId;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::{Bits, Synth};
use std::collections::{HashMap, VecDeque};

/// One operation: the NPU_SET_* values the output unit reads.
#[derive(Clone, Debug)]
struct Operation {
    values: HashMap<Opcode, u64>,
    pool: Pool,
}

/// The pools whose output unit does not scale (TRM 4.8.2 table 4-122).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pool {
    /// Convolution, REDUCE_SUM, unpadded average pool: scaled.
    Scaled,
    /// Max pool: the accumulator as it is.
    Max,
    /// Padded average pool: the accumulator divided by the window count.
    PaddedAverage,
    /// REDUCE_SUM or unpadded average pool with an int32 OFM: the shift
    /// alone (`fixed::shift_only`).
    ShiftOnly,
}

impl Operation {
    fn value(&self, op: Opcode) -> u64 {
        self.values.get(&op).copied().unwrap_or(0)
    }
    fn get(&self, op: Opcode, name: &str) -> u64 {
        op.field(name).get(self.value(op)) as u64
    }
    fn set(&mut self, op: Opcode, name: &str, v: u64) {
        let old = self.value(op);
        self.values.insert(op, op.field(name).set(old, v));
    }

    fn random(rng: &mut StdRng) -> Self {
        let pool = [
            Pool::Scaled,
            Pool::Scaled,
            Pool::Max,
            Pool::PaddedAverage,
            Pool::ShiftOnly,
        ][rng.gen_range(0..5)];
        let mut o = Operation {
            values: HashMap::new(),
            pool,
        };
        let p = Opcode::NpuSetOfmPrecision;
        let (signed, precision) = [
            (0, ActivationPrecision::Bits8),
            (1, ActivationPrecision::Bits8),
            (0, ActivationPrecision::Bits16),
            (1, ActivationPrecision::Bits16),
            (1, ActivationPrecision::Bits32),
        ][match pool {
            Pool::Scaled => rng.gen_range(0..5),
            Pool::ShiftOnly => 4,
            _ => rng.gen_range(0..4),
        }];
        o.set(p, "activation_type", signed);
        o.set(p, "activation_precision", precision.bits().into());
        let round = RoundMode::ALL[rng.gen_range(0..RoundMode::ALL.len())];
        o.set(p, "round_mode", round.bits().into());
        let global = rng.gen_bool(0.3);
        o.set(p, "scale_mode", u64::from(global));
        o.set(Opcode::NpuSetOfmScale, "scale", random_scale(rng).into());
        o.set(Opcode::NpuSetOfmScale, "shift", rng.gen_range(0..64));
        // TRM 4.8.2 table 4-122: int40 only for unpadded average pools.
        let acc = match pool {
            Pool::Scaled | Pool::ShiftOnly => {
                [AccFormat::Int32, AccFormat::Int40][rng.gen_range(0..2)]
            }
            _ => AccFormat::Int32,
        };
        o.set(Opcode::NpuSetAccFormat, "acc_format", acc.bits().into());
        let zp: u64 = match rng.gen_range(0..3) {
            0 => 0,
            1 => rng.gen_range(0..256),
            _ => rng.gen_range(0..65536),
        };
        o.set(Opcode::NpuSetOfmZeroPoint, "zero_point", zp);
        o.random_activation(rng);
        o
    }

    /// A random clip range, ACTIVATION_MIN/MAX and, half the time, an
    /// activation function the OFM type allows; with one, half the time a
    /// scale of exactly 1 (2^30 / 2^30), so that the function's input
    /// reaches its edges.
    fn random_activation(&mut self, rng: &mut StdRng) {
        let p = Opcode::NpuSetOfmPrecision;
        let clip = ActivationClipRange::ALL[rng.gen_range(0..ActivationClipRange::ALL.len())];
        self.set(
            Opcode::NpuSetActivation,
            "activation_clip_range",
            clip.bits().into(),
        );
        // ACTIVATION_MIN/MAX: the type's full range (as Vela writes them
        // without a fused ReLU), a narrower range, or anything.
        let ofm = self.ofm();
        let (lo, hi) = match rng.gen_range(0..3) {
            0 => (ofm.min().max(-32768), ofm.max().min(65535)),
            1 => {
                let a = rng.gen_range(ofm.min().max(-32768)..=ofm.max().min(65535));
                let b = rng.gen_range(ofm.min().max(-32768)..=ofm.max().min(65535));
                (a.min(b), a.max(b))
            }
            _ => (rng.gen_range(-32768..65536), rng.gen_range(-32768..65536)),
        };
        self.set(Opcode::NpuSetActivationMin, "clip_min", lo as u64 & 0xffff);
        self.set(Opcode::NpuSetActivationMax, "clip_max", hi as u64 & 0xffff);
        if rng.gen_bool(0.5) {
            let function = random_function(rng);
            self.set(
                Opcode::NpuSetActivation,
                "activation_function",
                function.bits().into(),
            );
            if !self.function_allowed() {
                self.set(Opcode::NpuSetActivation, "activation_function", 0);
            } else if rng.gen_bool(0.5) {
                // Scaled = accumulator (+ bias): 2^30 / 2^30, no rounding.
                self.set(p, "scale_mode", 1);
                self.set(Opcode::NpuSetOfmScale, "scale", 1 << 30);
                self.set(Opcode::NpuSetOfmScale, "shift", 30);
            }
        }
    }

    fn function(&self) -> ActivationFunction {
        ActivationFunction::from_bits(
            self.get(Opcode::NpuSetActivation, "activation_function") as u32
        )
        .unwrap()
    }

    fn clip(&self) -> Option<DType> {
        let clip = ActivationClipRange::from_bits(
            self.get(Opcode::NpuSetActivation, "activation_clip_range") as u32,
        )
        .unwrap();
        match clip {
            ActivationClipRange::OfmPrecision => None,
            ActivationClipRange::ForceUint8 => Some(DType::U8),
            ActivationClipRange::ForceInt8 => Some(DType::I8),
            ActivationClipRange::ForceInt16 => Some(DType::I16),
        }
    }

    /// The golden model's rules for the activation function (`Op::validate`,
    /// TRM 4.8.2), and LUT indices inside the 2 KB area.
    fn function_allowed(&self) -> bool {
        let (ofm, clip) = (self.ofm(), self.clip());
        let lut_type = clip.unwrap_or(ofm);
        match self.function().bits() {
            0 => true,
            3 | 4 => {
                [DType::U8, DType::I8, DType::I16].contains(&lut_type)
                    && clip.is_none_or(|c| c == ofm)
            }
            f => {
                let slot = f - 16;
                match lut_type {
                    DType::U8 | DType::I8 => ofm.bits < 32 || (clip.is_some() && slot <= 4),
                    DType::I16 => slot == 0,
                    _ => false,
                }
            }
        }
    }

    /// Whether the operation reads the LUT.
    fn lookup(&self) -> bool {
        self.function().bits() >= 16
    }

    /// The OFM type, decoded as the golden model's `ops::dtype` does.
    fn ofm(&self) -> DType {
        let p = Opcode::NpuSetOfmPrecision;
        DType {
            signed: self.get(p, "activation_type") == 1,
            bits: 8 << self.get(p, "activation_precision"),
        }
    }
    fn round(&self) -> RoundMode {
        RoundMode::from_bits(self.get(Opcode::NpuSetOfmPrecision, "round_mode") as u32).unwrap()
    }
    fn acc(&self) -> AccFormat {
        AccFormat::from_bits(self.get(Opcode::NpuSetAccFormat, "acc_format") as u32).unwrap()
    }
    fn global(&self) -> Option<ScaleRecord> {
        let mode = self.get(Opcode::NpuSetOfmPrecision, "scale_mode") as u32;
        (OfmScaleMode::from_bits(mode) == Some(OfmScaleMode::Global)).then(|| ScaleRecord {
            bias: 0,
            scale: self.get(Opcode::NpuSetOfmScale, "scale") as u32,
            shift: self.get(Opcode::NpuSetOfmScale, "shift") as u32,
        })
    }
    /// The golden model's stage, with `luts` (each core's LUT area) for a LUT.
    fn stage(&self, luts: &[Vec<u8>]) -> OutStage {
        let ofm = self.ofm();
        OutStage::with_activation(
            ofm,
            ofm.param16(self.get(Opcode::NpuSetOfmZeroPoint, "zero_point") as u16),
            self.clip(),
            self.get(Opcode::NpuSetActivationMin, "clip_min") as u16,
            self.get(Opcode::NpuSetActivationMax, "clip_max") as u16,
            self.function(),
            if self.lookup() {
                luts.to_vec()
            } else {
                Vec::new()
            },
        )
    }

    /// The golden model's OFM value of one channel of `core`'s pass
    /// (`run_pool` for the pools that do not scale).
    fn expected(&self, stage: &OutStage, lane: &Lane, core: usize, count: i64) -> i64 {
        let r = self.global().unwrap_or(lane.record);
        let scaled = match self.pool {
            Pool::Scaled => scale_accumulator(lane.acc, &r, self.acc(), self.round()),
            Pool::Max => lane.acc,
            Pool::PaddedAverage => divide_round_away(lane.acc, count),
            Pool::ShiftOnly => shift_only(
                wrap_accumulator(lane.acc + r.bias, self.acc()),
                r.shift,
                self.round(),
            ),
        };
        stage.finish(scaled, core)
    }

    fn settings(&self) -> OutputSettings {
        OutputSettings {
            unscaled: matches!(self.pool, Pool::Max | Pool::PaddedAverage),
            divide: self.pool == Pool::PaddedAverage,
            shift_only: self.pool == Pool::ShiftOnly,
            ..settings_of_commands(|code| self.value(code))
        }
    }
}

/// The output unit's settings of the NPU_SET_* values `value(opcode)`
/// returns (each in its command's value space), read through the spec's
/// field table: what the datapath's operation decoder hands the output unit
/// (`hw/src/datapath/decode.rs`).
fn settings_of_commands(value: impl Fn(Opcode) -> u64) -> OutputSettings {
    let get = |op: Opcode, name: &str, width: usize| -> u64 {
        let f = op.field(name);
        assert_eq!(
            usize::from(f.width),
            width,
            "{} {name}: OutputSettings declares {width} bits",
            op.name()
        );
        f.get(value(op)) as u64
    };
    let precision = Opcode::NpuSetOfmPrecision;
    let scale = Opcode::NpuSetOfmScale;
    OutputSettings {
        round_mode: get(precision, "round_mode", 2).into(),
        ofm_signed: get(precision, "activation_type", 1) == 1,
        ofm_precision: get(precision, "activation_precision", 2).into(),
        global_scale: get(precision, "scale_mode", 1) == 1,
        scale: get(scale, "scale", 32).into(),
        shift: get(scale, "shift", 6).into(),
        zero_point: get(Opcode::NpuSetOfmZeroPoint, "zero_point", 16).into(),
        acc_format: get(Opcode::NpuSetAccFormat, "acc_format", 2).into(),
        function: get(Opcode::NpuSetActivation, "activation_function", 12).into(),
        clip_range: get(Opcode::NpuSetActivation, "activation_clip_range", 4).into(),
        activation_min: get(Opcode::NpuSetActivationMin, "clip_min", 16).into(),
        activation_max: get(Opcode::NpuSetActivationMax, "clip_max", 16).into(),
        unscaled: false,
        divide: false,
        shift_only: false,
        elementwise: false,
        elementwise_mode: 0.into(),
        ifm_precision: get(Opcode::NpuSetIfmPrecision, "activation_precision", 2).into(),
        ifm_scale_mode: get(Opcode::NpuSetIfmPrecision, "scale_mode", 2).into(),
        ifm_round_mode: get(Opcode::NpuSetIfmPrecision, "round_mode", 2).into(),
        opa_scale: get(Opcode::NpuSetOpaScale, "scale", 32).into(),
        opa_shift: get(Opcode::NpuSetOpaScale, "shift", 6).into(),
        opb_scale: get(Opcode::NpuSetOpbScale, "scale", 16).into(),
    }
}

/// Scales with the edges of the arithmetic: 0, all ones, bit 31 set, the
/// thresholds of the saturated TFL rounding (2^30, 2^31, 3 * 2^30), and any.
fn random_scale(rng: &mut StdRng) -> u32 {
    match rng.gen_range(0..10) {
        0 => 0,
        1 => u32::MAX,
        2 => (1u32 << 31)
            .wrapping_add(rng.gen_range(0..3))
            .wrapping_sub(1),
        3 => (1u32 << 30)
            .wrapping_add(rng.gen_range(0..3))
            .wrapping_sub(1),
        4 => (3u32 << 30)
            .wrapping_add(rng.gen_range(0..3))
            .wrapping_sub(1),
        5 => rng.gen_range(1 << 30..1 << 31),
        6 => rng.gen::<u32>() | 1 << 31,
        7 => rng.gen_range(0..1 << 16),
        _ => rng.gen(),
    }
}

fn random_function(rng: &mut StdRng) -> ActivationFunction {
    match rng.gen_range(0..3) {
        0 => ActivationFunction::Tanh,
        1 => ActivationFunction::Sigmoid,
        _ => ActivationFunction::from_bits(rng.gen_range(16..24)).unwrap(),
    }
}

/// Inputs of an activation function scaled by 1: zero, the ends of the
/// table for tanh (|x| / 256) and sigmoid (|x| / 512), 8- and 16-bit LUT
/// indices and beyond, the 34-bit saturation.
fn random_edge(rng: &mut StdRng) -> i64 {
    let sign = if rng.gen_bool(0.5) { -1 } else { 1 };
    let near = |v: i64, rng: &mut StdRng| sign * (v + rng.gen_range(-3..=3));
    match rng.gen_range(0..8) {
        0 => near(0, rng),
        1 => near(254 << 8, rng),
        2 => near(255 << 8, rng),
        3 => near(255 << 9, rng),
        4 => sign * rng.gen_range(0..1 << 17),
        5 => rng.gen_range(-300..300),
        6 => rng.gen_range(-40_000..70_000),
        _ => sign * ((1i64 << 39) - rng.gen_range(1..4)),
    }
}

/// 40-bit two's complement values: the extremes, the int32 edges, small,
/// and any.
fn random_40(rng: &mut StdRng) -> i64 {
    let max = (1i64 << 39) - 1;
    match rng.gen_range(0..12) {
        0 => max,
        1 => -max - 1,
        2 => rng.gen_range(-2..=2),
        3 => i32::MAX as i64 + rng.gen_range(-2..=2),
        4 => i32::MIN as i64 + rng.gen_range(-2..=2),
        5 => rng.gen_range(-100_000..100_000),
        6 => rng.gen_range(-(1i64 << 24)..1 << 24),
        7 => rng.gen_range(i32::MIN as i64..=i32::MAX as i64),
        _ => rng.gen_range(-max - 1..=max),
    }
}

struct Lane {
    acc: i64,
    record: ScaleRecord,
    on: bool,
}

/// A pool's accumulator: a 16-bit IFM value minus its zero point (max),
/// or `count` of them summed (average).
fn random_pool_acc(pool: Pool, count: i64, rng: &mut StdRng) -> i64 {
    let one = |rng: &mut StdRng| match rng.gen_range(0..4) {
        0 => *[-65535, 65535, 0, -1, 1].choose(rng).unwrap(),
        1 => rng.gen_range(-255..=255),
        _ => rng.gen_range(-65535..=65535),
    };
    match pool {
        Pool::PaddedAverage if rng.gen_bool(0.2) => {
            count * *[-65535, 65535, -255, 255].choose(rng).unwrap()
        }
        Pool::PaddedAverage => (0..count).map(|_| one(rng)).sum(),
        _ => one(rng),
    }
}

fn random_beat(pool: Pool, count: i64, rng: &mut StdRng, edges: bool) -> Vec<Lane> {
    let partial = rng.gen_bool(0.2);
    (0..LANES)
        .map(|_| Lane {
            acc: match pool {
                Pool::Scaled | Pool::ShiftOnly if edges && rng.gen_bool(0.8) => random_edge(rng),
                Pool::Scaled | Pool::ShiftOnly => random_40(rng),
                _ => random_pool_acc(pool, count, rng),
            },
            record: ScaleRecord {
                bias: random_40(rng),
                scale: random_scale(rng),
                shift: rng.gen_range(0..64),
            },
            on: !partial || rng.gen_bool(0.5),
        })
        .collect()
}

fn pack(lanes: &[Lane], core: usize, count: i64) -> Vec<u32> {
    let mut beat = AccumulatorBeat {
        core: core == 1,
        count: (count as u64).into(),
        ..Default::default()
    };
    let mask40 = (1u64 << 40) - 1;
    for (i, l) in lanes.iter().enumerate() {
        beat.values
            .set_bits::<40>(40 * i, (l.acc as u64 & mask40).into());
        beat.biases
            .set_bits::<40>(40 * i, (l.record.bias as u64 & mask40).into());
        beat.scales
            .set_bits::<32>(32 * i, u64::from(l.record.scale).into());
        beat.shifts
            .set_bits::<6>(6 * i, u64::from(l.record.shift).into());
        if l.on {
            beat.lanes = beat.lanes | Bits::<LANES>::from(1u64 << i);
        }
    }
    words::<{ <AccumulatorBeat as Synth>::BITS }>(beat.into())
}

#[test]
fn every_lane_matches_the_golden_model() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = BlockTb::new("output_unit", rng.gen()).unwrap_or_else(|e| panic!("{e:#}"));
    let rst_n = tb.model.port("rst_n");
    let settings_port = tb.model.port("settings");
    let lut_port = tb.model.port("lut_write");
    let source = tb.source("accumulators", 1.0);
    let sink = tb.sink("results", 1.0);
    tb.model.set(rst_n, 0);
    tb.model.tick();
    tb.model.set(rst_n, 1);
    tb.model.tick();

    let mut checker = Checker::default();
    // Both cores' LUT areas as the unit holds them (zero after reset).
    let mut luts = vec![vec![0u8; LUT_LINES * 16]; 2];
    let operations = 5000;
    let mut functions: std::collections::BTreeMap<String, usize> = Default::default();
    for n in 0..operations {
        let op = Operation::random(&mut rng);
        let name = match op.function().bits() {
            f if f >= 16 => "LUT".to_string(),
            _ => format!("{:?}", op.function()),
        };
        *functions.entry(name).or_default() += 1;
        if op.lookup() && rng.gen_bool(0.7) {
            // New contents once the beats before have their results.
            checker.wait_for_results(&mut tb, sink);
            write_luts(&mut tb, lut_port, &mut luts, &mut rng);
        }
        let stage = op.stage(&luts);
        let edges = op.function() != ActivationFunction::None
            && op.get(Opcode::NpuSetOfmScale, "scale") == 1 << 30;
        set_settings(&mut tb, settings_port, op.settings());
        random_rates(&mut tb, source, sink, &mut rng);
        for _ in 0..rng.gen_range(1..12) {
            let count = rng.gen_range(1..=64);
            let lanes = random_beat(op.pool, count, &mut rng, edges);
            let core = rng.gen_range(0..2);
            let want = lanes
                .iter()
                .map(|l| l.on.then(|| op.expected(&stage, l, core, count)))
                .collect();
            let what = format!(
                "operation {n} {op:?}, count {count}, lanes {:?}",
                lanes
                    .iter()
                    .map(|l| (l.acc, l.record, l.on))
                    .collect::<Vec<_>>()
            );
            tb.sources[source]
                .queue
                .push_back(pack(&lanes, core, count));
            checker.expected.push_back((want, what));
        }
        // The next operation's settings go on as soon as this one's beats
        // are taken; its results may still be in the pipeline.
        checker.offer_all(&mut tb, source, sink);
    }
    checker.last_results(&mut tb, sink);
    let c = &checker;
    println!(
        "{} beats, {} lanes checked over {operations} operations ({functions:?})",
        c.checked, c.lanes_checked
    );
}

/// Writes random contents to random lines of each core's LUT area (some
/// lines to both at once), through `lut_write` as the shared buffer does.
fn write_luts(tb: &mut BlockTb, port: PortId, luts: &mut [Vec<u8>], rng: &mut StdRng) {
    let mut lines: Vec<usize> = (0..LUT_LINES).collect();
    lines.retain(|_| rng.gen_bool(0.6));
    for line in lines {
        let cores: u64 = rng.gen_range(1..4);
        let mut data = Bits::<128>::default();
        let mut strobe = 0u64;
        for byte in 0..16 {
            let b: u8 = rng.gen();
            data.set_bits::<8>(8 * byte, u64::from(b).into());
            if rng.gen_bool(0.9) {
                strobe |= 1 << byte;
                for (core, lut) in luts.iter_mut().enumerate() {
                    if cores >> core & 1 == 1 {
                        lut[line * 16 + byte] = b;
                    }
                }
            }
        }
        let write = LutWrite {
            cores: cores.into(),
            line: (line as u64).into(),
            data,
            strobe: strobe.into(),
            clear: false,
        };
        tb.model
            .set_wide(port, &words::<{ <LutWrite as Synth>::BITS }>(write.into()));
        tb.tick();
    }
    tb.model.set_wide(
        port,
        &words::<{ <LutWrite as Synth>::BITS }>(LutWrite::default().into()),
    );
}

/// The results still to come and what has been checked.
#[derive(Default)]
struct Checker {
    /// Expected beats, in order, each with what it was made of for a report.
    expected: VecDeque<(Vec<Option<i64>>, String)>,
    checked: usize,
    lanes_checked: usize,
}

impl Checker {
    /// Runs until every expected beat has its result.
    fn wait_for_results(&mut self, tb: &mut BlockTb, sink: usize) {
        let mut cycles = 0;
        while !self.expected.is_empty() {
            tb.tick();
            self.drain(tb, sink);
            cycles += 1;
            if cycles > 10_000 {
                tb.fail("the results stall");
            }
        }
    }

    /// Runs until the source's beats are all taken, checking results.
    fn offer_all(&mut self, tb: &mut BlockTb, source: usize, sink: usize) {
        let mut cycles = 0;
        while !tb.sources[source].queue.is_empty() {
            tb.tick();
            cycles += 1;
            if cycles > 20_000 {
                tb.fail("the input stream stalls");
            }
        }
        self.drain(tb, sink);
    }

    /// The last results, with the sink always ready: all must come.
    fn last_results(&mut self, tb: &mut BlockTb, sink: usize) {
        tb.sinks[sink].rate = 1.0;
        for _ in 0..LATENCY + WIDE_LATENCY + 8 * 12 + 2 {
            tb.tick();
        }
        self.drain(tb, sink);
        assert!(
            self.expected.is_empty(),
            "{} results never came",
            self.expected.len()
        );
    }

    /// Checks the beats the sink took against the expected ones.
    fn drain(&mut self, tb: &mut BlockTb, sink: usize) {
        let result = ResultBeat::default();
        let (values_at, lanes_at) = (result.get_my_offset_values(), result.get_my_offset_lanes());
        let beats: Vec<Vec<u32>> = tb.sinks[sink].beats.drain(..).collect();
        for beat in beats {
            let Some((want, what)) = self.expected.pop_front() else {
                tb.fail("a result beat that no accumulator beat asked for");
            };
            for (i, w) in want.iter().enumerate() {
                let on = field(&beat, lanes_at + i, 1) == 1;
                let got = field(&beat, values_at + 32 * i, 32) as u32 as i32 as i64;
                if on != w.is_some() || got != w.unwrap_or(0) {
                    tb.fail(&format!(
                        "beat {}, lane {i}: got {got} (lane on: {on}), the golden model gives \
                         {w:?}; {what}",
                        self.checked
                    ));
                }
                self.lanes_checked += usize::from(on);
            }
            self.checked += 1;
        }
    }
}

// ------------------------------------------------------------ elementwise

/// The integer types of table 4-124.
const TYPES: [DType; 5] = [DType::U8, DType::I8, DType::U16, DType::I16, DType::I32];

/// An elementwise operation (NPU_OP_ELEMENTWISE, TRM 4.8.2 table 4-124):
/// the NPU_SET_* values the output unit reads, the mode and the IFM type.
struct ElementwiseOp {
    op: Operation,
    mode: ElementwiseMode,
    ifm: DType,
}

impl ElementwiseOp {
    /// The golden model's `validate_elementwise`.
    fn allowed(mode: ElementwiseMode, ifm: DType, ofm: DType) -> bool {
        use ElementwiseMode as E;
        match mode {
            E::Mul | E::Add | E::Sub => true,
            E::Min | E::Max | E::Lrelu | E::Abs => ifm == ofm && ifm.bits <= 16,
            E::Shr => ifm == DType::I32 && (ofm.bits == 8 || ofm == DType::I16 || ofm.bits == 32),
            E::Clz | E::Shl => ifm == DType::I32 && ofm == DType::I32,
        }
    }

    /// A random operation of `mode` (any mode when `None`), with an
    /// activation function half the time.
    fn random(mode: Option<ElementwiseMode>, rng: &mut StdRng) -> Self {
        let mode = mode
            .unwrap_or_else(|| ElementwiseMode::ALL[rng.gen_range(0..ElementwiseMode::ALL.len())]);
        let (ifm, ofm) = loop {
            let ifm = TYPES[rng.gen_range(0..TYPES.len())];
            let ofm = TYPES[rng.gen_range(0..TYPES.len())];
            if Self::allowed(mode, ifm, ofm) {
                break (ifm, ofm);
            }
        };
        let mut op = Operation {
            values: HashMap::new(),
            pool: Pool::Scaled,
        };
        let precision = |t: DType| u64::from(t.bits.trailing_zeros() - 3);
        let p = Opcode::NpuSetOfmPrecision;
        op.set(p, "activation_type", u64::from(ofm.signed));
        op.set(p, "activation_precision", precision(ofm));
        let round = RoundMode::ALL[rng.gen_range(0..RoundMode::ALL.len())];
        op.set(p, "round_mode", round.bits().into());
        op.set(Opcode::NpuSetOfmScale, "scale", random_scale(rng).into());
        op.set(Opcode::NpuSetOfmScale, "shift", random_shift(rng));
        let i = Opcode::NpuSetIfmPrecision;
        op.set(i, "activation_type", u64::from(ifm.signed));
        op.set(i, "activation_precision", precision(ifm));
        // ADD/SUB input scaling only when neither type is 32-bit
        // (`run_elementwise`); other modes ignore it.
        let wide = ifm.bits == 32 || ofm.bits == 32;
        let scale_mode = match mode {
            ElementwiseMode::Add | ElementwiseMode::Sub if wide => IfmScaleMode::Opa16Opb16,
            _ => IfmScaleMode::ALL[rng.gen_range(0..IfmScaleMode::ALL.len())],
        };
        op.set(i, "scale_mode", scale_mode.bits().into());
        let input_round = IfmRoundMode::ALL[rng.gen_range(0..IfmRoundMode::ALL.len())];
        op.set(i, "round_mode", input_round.bits().into());
        op.set(Opcode::NpuSetOpaScale, "scale", random_scale(rng).into());
        op.set(Opcode::NpuSetOpaScale, "shift", random_shift(rng));
        let opb = match rng.gen_range(0..4) {
            0 => *[0, 1, 0xffff].choose(rng).unwrap(),
            _ => rng.gen_range(0..1 << 16),
        };
        op.set(Opcode::NpuSetOpbScale, "scale", opb);
        // TRM 4.6.4 NPU_SET_OFM_ZERO_POINT: 0 for CLZ.
        let zp: u64 = match rng.gen_range(0..3) {
            _ if mode == ElementwiseMode::Clz => 0,
            0 => 0,
            1 => rng.gen_range(0..256),
            _ => rng.gen_range(0..65536),
        };
        op.set(Opcode::NpuSetOfmZeroPoint, "zero_point", zp);
        op.random_activation(rng);
        ElementwiseOp { op, mode, ifm }
    }

    /// Whether its beats take the wide path, WIDE_LANES lanes a cycle:
    /// MUL/ADD/SUB of 32-bit operands, ADD/SUB with a 32-bit input scale.
    fn wide(&self) -> bool {
        use ElementwiseMode as E;
        let scale_mode = self.op.get(Opcode::NpuSetIfmPrecision, "scale_mode");
        match self.mode {
            E::Mul => self.ifm.bits == 32,
            E::Add | E::Sub => self.ifm.bits == 32 || scale_mode != 0,
            _ => false,
        }
    }

    fn settings(&self) -> OutputSettings {
        OutputSettings {
            elementwise: true,
            elementwise_mode: u64::from(self.mode.bits()).into(),
            shift_only: self.op.ofm().bits == 32,
            ..settings_of_commands(|code| self.op.value(code))
        }
    }

    /// The golden model's arithmetic, its fields filled as `run_elementwise`
    /// fills them.
    fn arithmetic(&self) -> ElementwiseArithmetic {
        let o = &self.op;
        let i = Opcode::NpuSetIfmPrecision;
        ElementwiseArithmetic {
            mode: self.mode,
            scale_mode: IfmScaleMode::from_bits(o.get(i, "scale_mode") as u32).unwrap(),
            input_round: match IfmRoundMode::from_bits(o.get(i, "round_mode") as u32).unwrap() {
                IfmRoundMode::DoubleRounding => RoundMode::Tfl,
                IfmRoundMode::Natural => RoundMode::Natural,
            },
            input_shift: add_input_shift(self.ifm),
            opa_scale: o.get(Opcode::NpuSetOpaScale, "scale") as u32,
            opa_shift: o.get(Opcode::NpuSetOpaScale, "shift") as u32,
            opb_scale: o.get(Opcode::NpuSetOpbScale, "scale") as i64,
            output: OutputScale {
                record: ScaleRecord {
                    bias: 0,
                    scale: o.get(Opcode::NpuSetOfmScale, "scale") as u32,
                    shift: o.get(Opcode::NpuSetOfmScale, "shift") as u32,
                },
                round: o.round(),
                shift_only: o.ofm().bits == 32,
            },
        }
    }

    /// A random operand of the IFM type, its zero point subtracted (IFM2's
    /// scalar is any 16-bit parameter), or for SHR/SHL an amount.
    fn operand(&self, second: bool, rng: &mut StdRng) -> i64 {
        use ElementwiseMode as E;
        let t = self.ifm;
        if second && matches!(self.mode, E::Shr | E::Shl) && rng.gen_bool(0.7) {
            return rng.gen_range(-3..70);
        }
        if t.bits == 32 {
            return match rng.gen_range(0..6) {
                0 => *[i32::MIN, i32::MAX, 0, -1, 1].choose(rng).unwrap() as i64,
                1 => (1i64 << rng.gen_range(0..31)) * [-1, 1][rng.gen_range(0..2)],
                2 => rng.gen_range(-300..300),
                _ => rng.gen::<i32>() as i64,
            };
        }
        let value = match rng.gen_range(0..5) {
            0 => *[t.min(), t.max()].choose(rng).unwrap(),
            1 => t.param16(rng.gen()),
            _ => rng.gen_range(t.min()..=t.max()),
        };
        let zero_point = match rng.gen_range(0..4) {
            0 => 0,
            1 => rng.gen_range(t.min()..=t.max()),
            2 => t.param16(*[0x8000, 0x7fff, 0xffff].choose(rng).unwrap()),
            _ => t.param16(rng.gen()),
        };
        value - zero_point
    }
}

/// OFM and OPA shifts: 0, the TFL rounding's edges at 31 and above, any.
fn random_shift(rng: &mut StdRng) -> u64 {
    match rng.gen_range(0..4) {
        0 => 0,
        1 => rng.gen_range(30..34),
        2 => rng.gen_range(34..64),
        _ => rng.gen_range(0..64),
    }
}

/// An elementwise beat: lane i's operands `a` (in `values`) and `b` (in
/// `second`), `None` for a lane off.
fn pack_operands(lanes: &[Option<(i64, i64)>], core: usize) -> Vec<u32> {
    let mut beat = AccumulatorBeat {
        core: core == 1,
        ..Default::default()
    };
    for (i, lane) in lanes.iter().enumerate() {
        if let Some((a, b)) = lane {
            beat.values
                .set_bits::<40>(40 * i, (*a as u64 & ((1 << 40) - 1)).into());
            beat.second
                .set_bits::<32>(32 * i, u64::from(*b as u32).into());
            beat.lanes = beat.lanes | Bits::<LANES>::from(1u64 << i);
        }
    }
    words::<{ <AccumulatorBeat as Synth>::BITS }>(beat.into())
}

/// Queues `beats` random beats of `e` and what the golden model gives for
/// them (`ElementwiseArithmetic::apply`, then `OutStage::finish`); returns
/// the cycles the unit takes them in when they are offered every cycle (a
/// wide beat: a cycle per WIDE_LANES lanes up to its last lane on).
fn queue_elementwise(
    tb: &mut BlockTb,
    source: usize,
    checker: &mut Checker,
    e: &ElementwiseOp,
    luts: &[Vec<u8>],
    beats: usize,
    rng: &mut StdRng,
) -> usize {
    let stage = e.op.stage(luts);
    let arithmetic = e.arithmetic();
    let mut cycles = 0;
    for _ in 0..beats {
        let partial = rng.gen_bool(0.2);
        let lanes: Vec<Option<(i64, i64)>> = (0..LANES)
            .map(|_| {
                (!partial || rng.gen_bool(0.5))
                    .then(|| (e.operand(false, rng), e.operand(true, rng)))
            })
            .collect();
        let core = rng.gen_range(0..2);
        cycles += match lanes.iter().rposition(Option::is_some) {
            Some(last) if e.wide() => last / WIDE_LANES + 1,
            _ => 1,
        };
        let want = lanes
            .iter()
            .map(|l| l.map(|(a, b)| stage.finish(arithmetic.apply(a, b), core)))
            .collect();
        let what = format!("{:?} {:?} {arithmetic:?}, lanes {lanes:?}", e.mode, e.op);
        tb.sources[source]
            .queue
            .push_back(pack_operands(&lanes, core));
        checker.expected.push_back((want, what));
    }
    cycles
}

/// The bench of the elementwise tests, reset.
fn elementwise_bench(seed: u64) -> (BlockTb, PortId, PortId, usize, usize) {
    let mut tb = BlockTb::new("output_unit", seed).unwrap_or_else(|e| panic!("{e:#}"));
    let settings = tb.model.port("settings");
    let lut_port = tb.model.port("lut_write");
    let source = tb.source("accumulators", 1.0);
    let sink = tb.sink("results", 1.0);
    tb.reset();
    (tb, settings, lut_port, source, sink)
}

/// Both streams stall 0-75 % of the time, sometimes not at all.
fn random_rates(tb: &mut BlockTb, source: usize, sink: usize, rng: &mut StdRng) {
    let (valid, ready) = if rng.gen_bool(0.2) {
        (1.0, 1.0)
    } else {
        (rng.gen_range(0.25..=1.0), rng.gen_range(0.25..=1.0))
    };
    tb.sources[source].rate = valid;
    tb.sinks[sink].rate = ready;
}

fn set_settings(tb: &mut BlockTb, port: PortId, settings: OutputSettings) {
    tb.model.set_wide(
        port,
        &words::<{ <OutputSettings as Synth>::BITS }>(settings.into()),
    );
}

/// Every elementwise mode on every type pair table 4-124 allows, random
/// and extreme operands, scales, shifts and rounding modes, activation
/// functions and LUTs, with random back-pressure; each lane against
/// `ElementwiseArithmetic::apply` and `OutStage::finish`.
#[test]
fn elementwise_lanes_match_the_golden_model() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut tb, settings_port, lut_port, source, sink) = elementwise_bench(rng.gen());
    let mut checker = Checker::default();
    let mut luts = vec![vec![0u8; LUT_LINES * 16]; 2];
    let operations = 3000;
    let mut modes: std::collections::BTreeMap<String, usize> = Default::default();
    for _ in 0..operations {
        let e = ElementwiseOp::random(None, &mut rng);
        let path = if e.wide() { " wide" } else { "" };
        *modes.entry(format!("{:?}{path}", e.mode)).or_default() += 1;
        if e.op.lookup() && rng.gen_bool(0.5) {
            checker.wait_for_results(&mut tb, sink);
            write_luts(&mut tb, lut_port, &mut luts, &mut rng);
        }
        set_settings(&mut tb, settings_port, e.settings());
        random_rates(&mut tb, source, sink, &mut rng);
        let beats = rng.gen_range(1..8);
        queue_elementwise(&mut tb, source, &mut checker, &e, &luts, beats, &mut rng);
        checker.offer_all(&mut tb, source, sink);
    }
    checker.last_results(&mut tb, sink);
    println!(
        "{} beats, {} lanes checked over {operations} operations ({modes:?})",
        checker.checked, checker.lanes_checked
    );
}

/// Without an activation function and with both streams always ready,
/// elementwise beats of every mode go in one a cycle (8 lanes a cycle),
/// or WIDE_LANES lanes a cycle on the wide path, and their results are the
/// golden model's.
#[test]
fn elementwise_beats_flow_at_their_rate() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut tb, settings_port, _, source, sink) = elementwise_bench(rng.gen());
    let luts = vec![vec![0u8; LUT_LINES * 16]; 2];
    let beats = 200;
    for &mode in ElementwiseMode::ALL {
        let mut e = ElementwiseOp::random(Some(mode), &mut rng);
        e.op.set(Opcode::NpuSetActivation, "activation_function", 0);
        set_settings(&mut tb, settings_port, e.settings());
        // The new settings' control is decoded before a beat is taken.
        for _ in 0..SETTLE_CYCLES {
            tb.tick();
        }
        let mut checker = Checker::default();
        let cycles = queue_elementwise(&mut tb, source, &mut checker, &e, &luts, beats, &mut rng);
        let taken = tb.sources[source].taken;
        for _ in 0..cycles {
            tb.tick();
        }
        assert_eq!(
            tb.sources[source].taken - taken,
            beats,
            "{mode:?} (wide path: {}): {beats} beats offered for {cycles} cycles",
            e.wide()
        );
        let latency = LATENCY + if e.wide() { WIDE_LATENCY } else { 0 };
        for _ in 0..latency {
            tb.tick();
        }
        checker.drain(&mut tb, sink);
        assert_eq!(checker.checked, beats, "{mode:?}: results");
    }
}
