//! `npu-sim tflite` on the golden model (no Verilator): the bundled
//! Vela-compiled networks run bit-exact, the per-layer report is written,
//! and every refusal is an error that names the problem, never a panic.

use std::path::{Path, PathBuf};
use std::process::Command;

fn network(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../model/tests/fixtures/networks")
        .join(name)
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npu-sim-tflite-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run `npu-sim tflite NET/model_vela.tflite --input NET/input.bin ARGS -q`.
fn npu_sim(net: &str, model: &str, args: &[&str]) -> (bool, String) {
    let dir = network(net);
    let out = Command::new(env!("CARGO_BIN_EXE_npu-sim"))
        .arg("tflite")
        .arg(dir.join(model))
        .arg("--input")
        .arg(dir.join("input.bin"))
        .args(args)
        .arg("-q")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(!text.contains("panicked"), "{text}");
    (out.status.success(), text)
}

#[test]
fn the_demo_runs_bit_exact_and_writes_its_report() {
    let dir = scratch("demo");
    let (out, report) = (dir.join("out.bin"), dir.join("layers.json"));
    let expected = network("demo").join("expected.bin");
    let (ok, text) = npu_sim(
        "demo",
        "model_vela.tflite",
        &[
            "--output",
            out.to_str().unwrap(),
            "--expected",
            expected.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
    );
    assert!(ok, "{text}");
    for word in [
        "u65-256",
        "MAC Count",
        "NPU_OP_DEPTHWISE",
        "TOTAL",
        "matches",
    ] {
        assert!(text.contains(word), "{word} missing from: {text}");
    }
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&expected).unwrap()
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let layers = json["layers"].as_array().unwrap();
    let macs: u64 = layers.iter().map(|l| l["macs"].as_u64().unwrap()).sum();
    assert!(macs > 0);
    assert_eq!(json["totals"]["macs"].as_u64(), Some(macs));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn refusals_name_the_problem() {
    let dir = scratch("refusals");
    let out = dir.join("out.bin");
    let out = out.to_str().unwrap();
    let wrong = network("residual_add").join("expected.bin");
    let cases: [(&str, &str, Vec<&str>, &[&str]); 4] = [
        (
            "demo",
            "model.tflite",
            vec!["--output", out],
            &["left on the CPU", "CONV_2D", "FULLY_CONNECTED"],
        ),
        (
            "conv_dw_u65_512",
            "model_vela.tflite",
            vec!["--output", out, "--config", "u65-256"],
            &["configuration mismatch", "u65-512", "u65-256"],
        ),
        (
            "demo",
            "model_vela.tflite",
            vec!["--output", out, "--output", out],
            &["1 outputs", "2 --output files"],
        ),
        (
            "demo",
            "model_vela.tflite",
            vec!["--output", out, "--expected", wrong.to_str().unwrap()],
            &["MISMATCH"],
        ),
    ];
    for (net, model, args, words) in cases {
        let (ok, text) = npu_sim(net, model, &args);
        assert!(!ok, "{net} {model} {args:?} succeeded: {text}");
        for word in words {
            assert!(text.contains(word), "{word} missing from: {text}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
