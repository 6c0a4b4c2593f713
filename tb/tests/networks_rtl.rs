//! Bundled Vela-compiled networks on the RTL (`npu-sim tflite --model
//! rtl`): each output equals the TFLite interpreter's expected bytes. The
//! demo network starts a user DMA (the next layer's weights) with three
//! kernel operations ahead of it, of which the oldest reads what the DMA
//! writes: central control holds the DMA until two are left, as Vela
//! expects (`npu_spec::command::DMA_KERNELS_AHEAD`). `tanh_softmax` has an
//! int8 softmax (its exponentials summed by an int32 REDUCE_SUM);
//! `mobilenet_v2_sized` has MobileNetV2's feature-map sizes and its final
//! 7x7x1280 MEAN (about 350,000 NPU cycles).

use std::path::{Path, PathBuf};
use std::process::Command;

fn network(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../model/tests/fixtures/networks")
        .join(name)
}

/// Runs `name` on the RTL with its `inputs` and `expected` files.
fn runs_bit_exact(name: &str, inputs: &[&str], expected: &[&str]) {
    let dir = network(name);
    let out_dir = std::env::temp_dir().join(format!("networks-rtl-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_npu-sim"));
    command
        .arg("tflite")
        .arg(dir.join("model_vela.tflite"))
        .args(["--model", "rtl", "-q"]);
    for input in inputs {
        command.arg("--input").arg(dir.join(input));
    }
    for (k, file) in expected.iter().enumerate() {
        command
            .arg("--output")
            .arg(out_dir.join(format!("out{k}.bin")))
            .arg("--expected")
            .arg(dir.join(file));
    }
    let out = command.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name} on the RTL: {text}");
    assert!(!text.contains("MISMATCH"), "{name} on the RTL: {text}");
    std::fs::remove_dir_all(&out_dir).unwrap();
}

#[test]
fn the_demo_network_runs_bit_exact_on_the_rtl() {
    runs_bit_exact("demo", &["input.bin"], &["expected.bin"]);
}

#[test]
fn a_residual_add_network_runs_bit_exact_on_the_rtl() {
    runs_bit_exact("residual_add", &["input.bin"], &["expected.bin"]);
}

#[test]
fn a_two_input_two_output_network_runs_bit_exact_on_the_rtl() {
    runs_bit_exact(
        "two_inputs_two_outputs",
        &["input0.bin", "input1.bin"],
        &["expected0.bin", "expected1.bin"],
    );
}

#[test]
fn a_tanh_and_softmax_network_runs_bit_exact_on_the_rtl() {
    runs_bit_exact("tanh_softmax", &["input.bin"], &["expected.bin"]);
}

#[test]
fn a_mobilenet_v2_sized_network_runs_bit_exact_on_the_rtl() {
    runs_bit_exact("mobilenet_v2_sized", &["input.bin"], &["expected.bin"]);
}

#[test]
fn a_u65_512_network_runs_bit_exact_on_the_rtl() {
    runs_bit_exact("conv_dw_u65_512", &["input.bin"], &["expected.bin"]);
}
