//! The OFM writer (`hw/src/output_unit/ofm_writer.rs`, block `ofm_writer`)
//! on its own bench: random OFM views (tile splits, bases, strides, NHWC
//! and NHCWB16, 8-, 16- and 32-bit elements) and random results (positions
//! in every tile, channel groups of 8, lane prefixes, values in the OFM
//! type's range; a third of them `spread`, parallel mode's core 0 on the
//! even channels and core 1, with as many lanes or fewer, on the odd ones,
//! TRM 4.7.5.1) under random back-pressure; every byte the
//! writes store (within `count` and `mask`) compared, address and value,
//! with `npu_model::tensor::FeatureMap::offset` and `DType::store` of each
//! lane's channel. Then the throughput: one write a cycle.

use npu_arch::command::Layout;
use npu_hw::dma::OfmWrite;
use npu_hw::op_state::OfmView;
use npu_hw::output_unit::OfmResult;
use npu_model::tensor::{DType, FeatureMap};
use npu_tb::block::{field, words, BlockTb};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::{Bits, Synth};

struct Ofm {
    map: FeatureMap,
    height: usize,
    width: usize,
    depth: usize,
}

impl Ofm {
    fn random(rng: &mut StdRng) -> Self {
        let bits = [8, 16, 32][rng.gen_range(0..3)];
        let e = bits as usize / 8;
        let layout = if rng.gen_bool(0.5) {
            Layout::Nhwc
        } else {
            Layout::Nhcwb16
        };
        let (height, width) = (rng.gen_range(1..300), rng.gen_range(1..300));
        let depth = rng.gen_range(1..200usize).div_ceil(8) * 8;
        let big = rng.gen_bool(0.3);
        let stride = |rng: &mut StdRng, tight: usize| -> i64 {
            if big {
                rng.gen_range(1..1 << 30)
            } else {
                tight as i64 + rng.gen_range(0..4) * 16
            }
        };
        let stride_x = stride(rng, depth * e);
        let stride_c = stride(rng, 16 * e * width);
        let stride_y = match layout {
            Layout::Nhwc => stride(rng, stride_x as usize * width),
            Layout::Nhcwb16 => stride(rng, stride_c as usize * depth.div_ceil(16)),
        };
        let split = |rng: &mut StdRng, n: usize| {
            if rng.gen_bool(0.3) {
                n
            } else {
                rng.gen_range(1..=n)
            }
        };
        let map = FeatureMap {
            region: rng.gen_range(0..8),
            base: [(); 4].map(|_| rng.gen_range(0..1u64 << 38)),
            stride_x,
            stride_y,
            stride_c,
            width0: split(rng, width),
            height0: split(rng, height),
            height1: split(rng, height),
            dtype: DType {
                signed: rng.gen_bool(0.5) || bits == 32,
                bits,
            },
            layout,
            zero_point: 0,
        };
        Ofm {
            map,
            height,
            width,
            depth,
        }
    }

    fn view(&self) -> Vec<u32> {
        let m = &self.map;
        let b48 = |v: u64| Bits::<48>::from(v & ((1 << 48) - 1));
        let view = OfmView {
            precision_activation_type: m.dtype.signed,
            precision_activation_precision: Bits::<2>::from(u64::from(m.dtype.precision().bits())),
            precision_activation_format: Bits::<2>::from(u64::from(m.layout.bits())),
            width_m1: Bits::<16>::from(self.width as u64 - 1),
            height_m1: Bits::<16>::from(self.height as u64 - 1),
            depth_m1: Bits::<16>::from(self.depth as u64 - 1),
            width0_m1: Bits::<16>::from(m.width0 as u64 - 1),
            height0_m1: Bits::<16>::from(m.height0 as u64 - 1),
            height1_m1: Bits::<16>::from(m.height1 as u64 - 1),
            region: Bits::<3>::from(m.region as u64),
            base0: b48(m.base[0]),
            base1: b48(m.base[1]),
            base2: b48(m.base[2]),
            base3: b48(m.base[3]),
            stride_x: b48(m.stride_x as u64),
            stride_y: b48(m.stride_y as u64),
            stride_c: b48(m.stride_c as u64),
            ..Default::default()
        };
        words::<{ <OfmView as Synth>::BITS }>(view.into())
    }

    /// A random result (its lanes every other channel when `spread`) and
    /// the bytes it must store: (offset, value) in address order.
    fn random_result(&self, rng: &mut StdRng, spread: bool) -> Expected {
        let (y, x) = (rng.gen_range(0..self.height), rng.gen_range(0..self.width));
        let mut n = if rng.gen_bool(0.5) {
            8
        } else {
            rng.gen_range(1..=8)
        };
        // Spread: c is 16k, and both cores' lanes stay inside the OFM;
        // core 1 has no more lanes than core 0, at times none.
        let (c, step) = if spread {
            let c = rng.gen_range(0..self.depth.div_ceil(16)) * 16;
            n = n.min((self.depth - 1 - c) / 2 + 1);
            (c, 2)
        } else {
            (rng.gen_range(0..self.depth / 8) * 8, 1)
        };
        let paired = if spread && rng.gen_bool(0.8) {
            let fit = (self.depth - c) / 2;
            rng.gen_range(0..=n.min(fit))
        } else {
            0
        };
        let t = self.map.dtype;
        let mut result = OfmResult {
            y: Bits::<16>::from(y as u64),
            x: Bits::<16>::from(x as u64),
            c: Bits::<16>::from(c as u64),
            lanes: Bits::<8>::from((1u64 << n) - 1),
            paired_lanes: Bits::<8>::from((1u64 << paired) - 1),
            spread,
            ..Default::default()
        };
        let mut stored = Vec::new();
        for i in 0..8 {
            let v = match rng.gen_range(0..4) {
                0 => t.min(),
                1 => t.max(),
                _ => rng.gen_range(t.min()..=t.max()),
            };
            result
                .values
                .set_bits::<32>(32 * i, (v as u64 & 0xffff_ffff).into());
            if i < n {
                let mut bytes = vec![0u8; t.bytes()];
                t.store(v, &mut bytes);
                let offset = self.map.offset(y, x, c + step * i) as u64;
                stored.extend((0..).zip(bytes).map(|(k, b)| (offset + k, b)));
            }
            let w = rng.gen_range(t.min()..=t.max());
            result
                .paired_values
                .set_bits::<32>(32 * i, (w as u64 & 0xffff_ffff).into());
            if i < paired {
                let mut bytes = vec![0u8; t.bytes()];
                t.store(w, &mut bytes);
                let offset = self.map.offset(y, x, c + 2 * i + 1) as u64;
                stored.extend((0..).zip(bytes).map(|(k, b)| (offset + k, b)));
            }
        }
        stored.sort_unstable();
        (
            words::<{ <OfmResult as Synth>::BITS }>(result.into()),
            stored,
        )
    }
}

fn bench(seed: u64) -> (BlockTb, npu_tb::verilator::PortId) {
    let mut tb = BlockTb::new("ofm_writer", seed).unwrap_or_else(|e| panic!("{e:#}"));
    let rst_n = tb.model.port("rst_n");
    let view = tb.model.port("view");
    tb.source("results", 1.0);
    tb.sink("writes", 1.0);
    tb.model.set(rst_n, 0);
    tb.model.tick();
    tb.model.set(rst_n, 1);
    tb.model.tick();
    (tb, view)
}

/// A result's words and the bytes it must store: (offset, value).
type Expected = (Vec<u32>, Vec<(u64, u8)>);

/// The bytes a write stores (within `count` and `mask`): (offset, value).
fn stored_bytes(beat: &[u32]) -> Vec<(u64, u8)> {
    let w = OfmWrite::default();
    let offset = field(beat, w.get_my_offset_offset(), 40);
    let count = field(beat, w.get_my_offset_count(), 6) as usize;
    (0..count.min(32))
        .filter(|&i| field(beat, w.get_my_offset_mask() + i, 1) == 1)
        .map(|i| {
            let byte = field(beat, w.get_my_offset_data() + 8 * i, 8) as u8;
            ((offset + i as u64) & ((1 << 40) - 1), byte)
        })
        .collect()
}

/// Runs `results` through; checks every byte written; returns the cycles.
fn run(tb: &mut BlockTb, ofm: &Ofm, results: &[Expected], what: &str) -> u64 {
    let start = tb.model.cycle();
    tb.sources[0]
        .queue
        .extend(results.iter().map(|r| r.0.clone()));
    let want: Vec<(u64, u8)> = results
        .iter()
        .flat_map(|r| r.1.iter().map(|&(o, b)| ((o & ((1 << 40) - 1)), b)))
        .collect();
    let mut got = Vec::new();
    for _ in 0..100 + 100 * results.len() {
        for beat in std::mem::take(&mut tb.sinks[0].beats) {
            let region = field(&beat, OfmWrite::default().get_my_offset_region(), 3);
            if region != ofm.map.region as u64 {
                tb.fail(&format!("a write to region {region}; {what}"));
            }
            got.extend(stored_bytes(&beat));
        }
        if got.len() >= want.len() {
            break;
        }
        tb.tick();
    }
    let cycles = tb.model.cycle() - start;
    if let Some(n) = (0..got.len().max(want.len())).find(|&n| got.get(n) != want.get(n)) {
        tb.fail(&format!(
            "byte {n} of {}: stored {:x?}, want {:x?}; {what}",
            want.len(),
            got.get(n),
            want.get(n)
        ));
    }
    cycles
}

#[test]
fn writes_match_feature_map_offset_and_store() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut tb, view) = bench(rng.gen());
    let mut checked = 0;
    for op in 0..300 {
        let ofm = Ofm::random(&mut rng);
        tb.model.set_wide(view, &ofm.view());
        tb.sources[0].rate = rng.gen_range(0.2..=1.0);
        tb.sinks[0].rate = if rng.gen_bool(0.3) {
            1.0
        } else {
            rng.gen_range(0.2..=1.0)
        };
        let spread = rng.gen_bool(0.3);
        let results: Vec<_> = (0..rng.gen_range(1..30))
            .map(|_| ofm.random_result(&mut rng, spread))
            .collect();
        run(
            &mut tb,
            &ofm,
            &results,
            &format!("operation {op}, spread {spread}, {:?}", ofm.map),
        );
        checked += results.len();
    }
    println!("{checked} writes checked");
}

#[test]
fn one_write_a_cycle() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut tb, view) = bench(rng.gen());
    let ofm = Ofm::random(&mut rng);
    tb.model.set_wide(view, &ofm.view());
    let results: Vec<_> = (0..500)
        .map(|_| ofm.random_result(&mut rng, false))
        .collect();
    let cycles = run(&mut tb, &ofm, &results, "throughput");
    println!("500 writes in {cycles} cycles");
    assert!(cycles <= 502, "500 writes took {cycles} cycles");
}
