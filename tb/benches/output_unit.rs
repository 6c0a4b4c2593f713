//! The output unit's elementwise throughput (NPU_OP_ELEMENTWISE) against
//! TRM 4.8.3 tables 4-130 to 4-132 for u65-256: per mode class, beats of
//! random operands (8 lanes, 4 for a 32-bit IFM as the operand reader
//! sends them) offered every cycle and the results always taken,
//! elementwise operations (lanes) per cycle from the first beat taken to
//! the last result. The operation's results are checked
//! against the golden model by `tb/tests/output_unit.rs`; this bench only
//! counts cycles.

use npu_arch::command::{ActivationPrecision, ElementwiseMode, IfmScaleMode};
use npu_hw::output_unit::{AccumulatorBeat, OutputSettings, LANES};
use npu_tb::block::{words, BlockTb};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::Synth;

/// Beats per mode class.
const BEATS: usize = 2000;

/// A mode class of the tables: its mode, IFM and OFM precision, the IFM
/// scale mode, and the table's operations per cycle on u65-256.
struct Class {
    name: &'static str,
    mode: ElementwiseMode,
    ifm: ActivationPrecision,
    ofm: ActivationPrecision,
    scale_mode: IfmScaleMode,
    table: f64,
}

fn classes() -> Vec<Class> {
    use ActivationPrecision::{Bits32, Bits8};
    use ElementwiseMode as E;
    let class = |name, mode, ifm, ofm, table| Class {
        name,
        mode,
        ifm,
        ofm,
        scale_mode: IfmScaleMode::Opa16Opb16,
        table,
    };
    vec![
        class("LReLU 8-bit", E::Lrelu, Bits8, Bits8, 4.0),
        class("ABS 8-bit", E::Abs, Bits8, Bits8, 4.0),
        class("MIN/MAX 8-bit", E::Max, Bits8, Bits8, 4.0),
        class("MUL 8-bit", E::Mul, Bits8, Bits8, 2.67),
        class("simple ADD/SUB 8-bit", E::Add, Bits8, Bits8, 2.0),
        Class {
            scale_mode: IfmScaleMode::Opa32,
            ..class("advanced ADD/SUB 8-bit", E::Add, Bits8, Bits8, 1.33)
        },
        class("8->32-bit MUL/ADD", E::Mul, Bits8, Bits32, 2.0),
        class("CLZ 32-bit", E::Clz, Bits32, Bits32, 1.6),
        class("SHL 32-bit", E::Shl, Bits32, Bits32, 0.89),
        class("SHR 32-bit", E::Shr, Bits32, Bits8, 0.89),
        class("MUL 32-bit", E::Mul, Bits32, Bits32, 0.89),
        class("ADD 32-bit", E::Add, Bits32, Bits32, 0.89),
    ]
}

/// A beat of random operands: 8 lanes of 8-bit ones, or 4 of 32-bit ones.
fn beat(ifm: ActivationPrecision, rng: &mut StdRng) -> (Vec<u32>, usize) {
    let lanes = match ifm {
        ActivationPrecision::Bits32 => 4,
        _ => LANES,
    };
    let mut beat = AccumulatorBeat {
        lanes: ((1u64 << lanes) - 1).into(),
        ..Default::default()
    };
    for i in 0..lanes {
        let (a, b): (i64, i64) = match ifm {
            ActivationPrecision::Bits32 => (rng.gen::<i32>().into(), rng.gen_range(0..40)),
            _ => (rng.gen_range(-255..=255), rng.gen_range(-255..=255)),
        };
        beat.values
            .set_bits::<40>(40 * i, (a as u64 & ((1 << 40) - 1)).into());
        beat.second
            .set_bits::<32>(32 * i, u64::from(b as u32).into());
    }
    (
        words::<{ <AccumulatorBeat as Synth>::BITS }>(beat.into()),
        lanes,
    )
}

fn main() {
    let mut rng = StdRng::seed_from_u64(1);
    let mut tb = BlockTb::new("output_unit", 1).unwrap_or_else(|e| panic!("{e:#}"));
    let settings = tb.model.port("settings");
    let source = tb.source("accumulators", 1.0);
    let sink = tb.sink("results", 1.0);
    tb.reset();
    println!(
        "{:<24} {:>8} {:>8} {:>10} {:>10} {:>6}",
        "elementwise mode class", "ops", "cycles", "ops/cycle", "TRM 256", "ratio"
    );
    for class in classes() {
        let s = OutputSettings {
            elementwise: true,
            elementwise_mode: u64::from(class.mode.bits()).into(),
            ifm_precision: u64::from(class.ifm.bits()).into(),
            ifm_scale_mode: u64::from(class.scale_mode.bits()).into(),
            opa_scale: (1u64 << 30).into(),
            ofm_precision: u64::from(class.ofm.bits()).into(),
            ofm_signed: true,
            shift_only: class.ofm == ActivationPrecision::Bits32,
            scale: (1u64 << 30).into(),
            shift: 30.into(),
            ..Default::default()
        };
        tb.model.set_wide(
            settings,
            &words::<{ <OutputSettings as Synth>::BITS }>(s.into()),
        );
        let mut ops = 0;
        for _ in 0..BEATS {
            let (b, lanes) = beat(class.ifm, &mut rng);
            tb.sources[source].queue.push_back(b);
            ops += lanes;
        }
        tb.sinks[sink].beats.clear();
        let start = tb.model.cycle();
        while tb.sinks[sink].beats.len() < BEATS {
            tb.tick();
        }
        let cycles = tb.model.cycle() - start;
        let rate = ops as f64 / cycles as f64;
        println!(
            "{:<24} {:>8} {:>8} {:>10.2} {:>10.2} {:>6.2}",
            class.name,
            ops,
            cycles,
            rate,
            class.table,
            rate / class.table
        );
    }
}
