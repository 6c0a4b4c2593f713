//! The datapath end to end: every Vela-made fixture job whose kernel
//! operations the RTL runs (NPU_OP_CONV, NPU_OP_DEPTHWISE, which include
//! fully connected layers, NPU_OP_POOL: max, average, REDUCE_SUM, and the
//! resizes and standalone activations Vela builds from them, and
//! NPU_OP_ELEMENTWISE; with any activation function: clamp, tanh, sigmoid
//! or LUT) runs on the RTL and on the
//! golden model, and the two agree on memory, the shared buffer outside
//! the operations' working buffers, STATUS, QREAD and IRQ. The fixtures'
//! expected outputs are the TFLite interpreter's, so the RTL is checked
//! against them transitively (`model/tests` holds the golden model to them).
//! A few of them run again behind random memory systems (latency,
//! back-pressure, reordering, channels on both ports, burst limits).

use npu_model::cmdstream::decode;
use npu_model::compare::difference;
use npu_model::job::{Backend, GoldenBackend, Job};
use npu_tb::conv_jobs::{rtl_agrees_under, MemorySystem};
use npu_tb::rtl_backend::RtlBackend;
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::path::PathBuf;

/// Fixtures that run behind random memory systems: NHCWB16 tiles, depthwise,
/// 16-bit activations, kernel decomposition, part-kernel-first.
const UNDER_RANDOM_MEMORY: [&str; 5] = [
    "conv_3x3_i8_tiles",
    "dw_3x3_i8_nhcwb16",
    "conv_1x1_i16_df",
    "conv_5x5_i8_split4",
    "conv_3x3_i8_pkf",
];

/// Fixtures with an activation function that must run.
const ACTIVATION: [&str; 7] = [
    "conv_tanh_i8",
    "conv_logistic_i16",
    "tanh_i16",
    "sigmoid_i16",
    "tanh_u8_native_512",
    "exp_i8",
    "hard_swish_i8",
];

/// Pools that must run (TRM 4.8.2 table 4-122, 4-125), among them the int8
/// softmaxes, whose int32 REDUCE_SUM sums the exponentials.
const POOL: [&str; 10] = [
    "maxpool_2x2_i16",
    "maxpool_3x3_i8_512",
    "avgpool_3x3_same_i8",
    "avgpool_5x5_same_i8_512",
    "reduce_sum_i16_512",
    "reduce_sum_u8_nhcwb16",
    "resize_bilinear_i8",
    "softmax_i8",
    "softmax_i8_c40_512",
    "softmax_u8_beta07",
];

/// Elementwise fixtures that must run (TRM 4.8.2 table 4-124): every mode,
/// broadcast, scalar, reversed operands (`sub_i8_bcast_first`), tiles,
/// u65-512, and the 16-bit softmax's CLZ/SHL/SHR/MUL/ADD/SUB chain.
const ELEMENTWISE: [&str; 16] = [
    "add_i8",
    "add_i16_512",
    "add_i8_bcast_c",
    "add_i8_scalar",
    "add_i8_nhcwb16_tiles",
    "sub_i8_bcast_first",
    "sub_u8_bcast_hw",
    "mul_i8_512",
    "mul_u8_scalar",
    "min_i16",
    "max_i8_bcast_c",
    "abs_i8",
    "lrelu_i16_512",
    "softmax_i16",
    "chain_tanh_sigmoid_i8",
    "chain_conv_pool_add_i8",
];

/// The u65-512 fixtures in parallel mode (TRM 4.7.5.1) that must run: 16-bit
/// depthwise and pools among them (a core's 8 channels are two lines).
const PARALLEL_MODE: [&str; 15] = [
    "chain_dw_conv_u8_512",
    "conv_1x1_i8_512_df",
    "conv_3x3_i16_512",
    "conv_3x3_i8_512",
    "conv_3x3_i8_large_512",
    "conv_3x3_s2_u8_512",
    "conv_5x5_i8_512_split4",
    "tconv_4x4_same_i8_512",
    "dw_3x3_i8_512",
    "dw_3x3_u8_512",
    "dw_5x5_dil2_i16_512_split4",
    "resize_bilinear_i16",
    "resize_nn_i16_512",
    "softmax_i16_c33_512",
    "tanh_i16_s0003",
];

fn fixtures() -> PathBuf {
    npu_tb::verilator::workspace_root().join("model/tests/fixtures/jobs")
}

/// Whether `job`'s stream has a kernel operation (the DMA-only fixtures run
/// in `dma.rs` and the demo).
fn has_kernel_operation(job: &Job, name: &str) -> bool {
    let commands = decode(&job.command_stream).unwrap_or_else(|e| panic!("{name}: stream: {e}"));
    commands.iter().any(|c| c.op.is_kernel_op())
}

#[test]
fn every_convolution_fixture_runs_bit_exact_on_the_rtl() {
    let mut dirs: Vec<_> = std::fs::read_dir(fixtures())
        .expect("fixture jobs")
        .map(|e| e.expect("dir entry").path())
        .collect();
    dirs.sort();
    let (mut ran, mut skipped, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let job = Job::load(&dir, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        if !has_kernel_operation(&job, &name) {
            skipped.push(name);
            continue;
        }
        job.check().unwrap_or_else(|e| panic!("{name}: {e}"));
        let golden = GoldenBackend::default()
            .run(&job, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{name} on the golden model: {e:#}"));
        let rtl = RtlBackend::default()
            .run(&job, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{name} on the RTL: {e:#}"));
        if let Some(d) = difference(&golden, &rtl) {
            failed.push(format!("{name}: {d}"));
            continue;
        }
        println!(
            "{name}: bit-exact, {} MACs in {} cycles",
            golden.macs,
            rtl.cycles.unwrap_or(0)
        );
        ran.push(name);
    }
    println!(
        "ran {} jobs; without a kernel operation: {}",
        ran.len(),
        skipped.join(", ")
    );
    assert!(
        failed.is_empty(),
        "the RTL disagrees with the golden model on {} jobs:\n{}",
        failed.len(),
        failed.join("\n")
    );
    assert!(!ran.is_empty(), "no fixture job ran on the RTL");
    for name in PARALLEL_MODE {
        assert!(
            ran.iter().any(|r| r == name),
            "{name} (parallel mode) did not run"
        );
    }
    for name in ACTIVATION {
        assert!(
            ran.iter().any(|r| r == name),
            "{name} (activation function) did not run"
        );
    }
    for name in POOL {
        assert!(ran.iter().any(|r| r == name), "{name} (pool) did not run");
    }
    for name in ELEMENTWISE {
        assert!(
            ran.iter().any(|r| r == name),
            "{name} (elementwise) did not run"
        );
    }
}

#[test]
fn some_convolution_fixtures_run_bit_exact_behind_random_memory_systems() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    for name in UNDER_RANDOM_MEMORY {
        let job = Job::load(&fixtures().join(name), None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(has_kernel_operation(&job, name), "{name}");
        for _ in 0..2 {
            let memory = MemorySystem::random(&mut rng);
            if let Err(e) = rtl_agrees_under(&job, &memory) {
                panic!("{name} behind {memory:?} (seed {seed}): {e}");
            }
        }
    }
}
