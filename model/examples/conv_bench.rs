//! Benchmark: the golden model's multiply-accumulates per second on a large
//! int8 convolution (not a test; prints a rate).
//!
//! `cargo run --release -p npu-model --example conv_bench`

use npu_arch::command::{KernelDecomposition, Opcode};
use npu_arch::config::NpuConfig;
use npu_model::cmdstream::Command;
use npu_model::npu::Npu;
use npu_model::ops::ScaleRecord;
use npu_model::weights::order::{self, Traversal, WeightOrder, U65_UBLOCK_DEPTH};
use npu_model::{cmdstream, weights};
use std::time::Instant;

fn main() {
    let (h, w, cin, cout, k) = (56usize, 56usize, 64usize, 64usize, 3usize);
    let o = WeightOrder {
        ofm_depth: cout,
        ifm_depth: cin,
        kernel_height: k,
        kernel_width: k,
        ofm_block_depth: 16,
        traversal: Traversal::DepthFirst,
        ifm_bits: 8,
        dilation_x2: false,
        dilation_y2: false,
        decomposition: KernelDecomposition::D8x8,
        ofm_ublock_depth: U65_UBLOCK_DEPTH,
        ifm_ublock_depth: U65_UBLOCK_DEPTH,
    };
    // Deterministic pseudo-random weights and activations.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let ohwi: Vec<i16> = (0..o.tensor_len())
        .map(|_| (next() % 255) as i16 - 127)
        .collect();
    let stream = order::to_stream(&ohwi, &o).expect("order");
    let mut region0 = weights::encode(&stream, &weights::EncodeOptions::default()).expect("encode");
    let wlen = region0.len();
    for _ in 0..cout {
        let r = ScaleRecord {
            bias: 100,
            scale: 1 << 30,
            shift: 40,
        };
        region0.extend(r.to_bytes());
    }
    let ifm_bytes = h * w * cin;
    let mut region1: Vec<u8> = (0..ifm_bytes).map(|_| next() as u8).collect();
    region1.resize(ifm_bytes + h * w * cout, 0);

    use Opcode::*;
    let c0 = Command::cmd0;
    let c1 = |op, v: u64| Command::from_value(op, v);
    let cmds = vec![
        c0(NpuSetIfmRegion, 1),
        c1(NpuSetIfmBase0, 0),
        c1(NpuSetIfmStrideX, cin as u64),
        c1(NpuSetIfmStrideY, (w * cin) as u64),
        c1(NpuSetIfmStrideC, 1),
        c0(NpuSetIfmPrecision, 1),
        c0(NpuSetIfmWidth0M1, (w - 1) as u16),
        c0(NpuSetIfmHeight0M1, (h - 1) as u16),
        c0(NpuSetIfmHeight1M1, (h - 1) as u16),
        c0(NpuSetIfmDepthM1, (cin - 1) as u16),
        c0(NpuSetOfmRegion, 1),
        c1(NpuSetOfmBase0, ifm_bytes as u64),
        c1(NpuSetOfmStrideX, cout as u64),
        c1(NpuSetOfmStrideY, (w * cout) as u64),
        c1(NpuSetOfmStrideC, 1),
        c0(NpuSetOfmPrecision, 1),
        c0(NpuSetOfmWidth0M1, (w - 1) as u16),
        c0(NpuSetOfmHeight0M1, (h - 1) as u16),
        c0(NpuSetOfmHeight1M1, (h - 1) as u16),
        c0(NpuSetOfmWidthM1, (w - 1) as u16),
        c0(NpuSetOfmHeightM1, (h - 1) as u16),
        c0(NpuSetOfmDepthM1, (cout - 1) as u16),
        c0(NpuSetKernelWidthM1, (k - 1) as u16),
        c0(NpuSetKernelHeightM1, (k - 1) as u16),
        c0(NpuSetIfmPadTop, 1),
        c0(NpuSetIfmPadLeft, 1),
        c0(NpuSetIfmPadBottom, 1),
        c0(NpuSetIfmPadRight, 1),
        c0(NpuSetActivationMin, (-128i16) as u16),
        c0(NpuSetActivationMax, 127),
        c0(NpuSetOfmBlkDepthM1, 15),
        c0(NpuSetWeightRegion, 0),
        c1(NpuSetWeightBase, 0),
        c1(NpuSetWeightLength, wlen as u64),
        c0(NpuSetScaleRegion, 0),
        c1(NpuSetScaleBase, wlen as u64),
        c1(NpuSetScaleLength, (cout * 10) as u64),
        c0(NpuOpConv, 0),
        c0(NpuOpStop, 0),
    ];
    let bytes = cmdstream::encode(&cmds);
    let mut best = f64::MAX;
    let mut macs = 0;
    for _ in 0..3 {
        let mut npu = Npu::new(NpuConfig::u65_256());
        npu.state
            .memory
            .set_region(0, region0.clone())
            .expect("region 0");
        npu.state
            .memory
            .set_region(1, region1.clone())
            .expect("region 1");
        let t = Instant::now();
        let stats = npu.run(&bytes).expect("run");
        best = best.min(t.elapsed().as_secs_f64());
        macs = stats.macs;
    }
    println!(
        "CONV2D int8 {h}x{w}x{cin} -> {h}x{w}x{cout}, {k}x{k} kernel: {macs} MACs in {:.3} s (best of 3)",
        best
    );
    println!(
        "golden model: {:.1} M MAC/s on one core (target >= 100)",
        macs as f64 / best / 1e6
    );
}
