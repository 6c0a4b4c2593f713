//! `npu-sim tflite` on the golden model (no Verilator): the bundled
//! Vela-compiled networks run bit-exact, the per-layer report is written,
//! and every refusal is an error that names the problem, never a panic.

use std::path::{Path, PathBuf};
use std::process::Command;

fn network(name: &str) -> PathBuf {
    npu_tb::verilator::workspace_root()
        .join("model/tests/fixtures/networks")
        .join(name)
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npu-sim-tflite-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run `npu-sim tflite NET/MODEL --input NET/input.bin ARGS -q`.
fn npu_sim(net: &str, model: &str, args: &[&str]) -> (bool, String) {
    let input = network(net).join("input.bin");
    let mut all = vec!["--input", input.to_str().unwrap()];
    all.extend(args);
    npu_sim_inputs(net, model, &all)
}

/// Run `npu-sim tflite NET/MODEL ARGS -q`.
fn npu_sim_inputs(net: &str, model: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new(npu_sim::npu_sim_exe!())
        .arg("tflite")
        .arg(network(net).join(model))
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
    // The golden model has no timing: no cycles, rates or AXI bytes.
    for field in ["cycles", "util_mac", "ports"] {
        assert!(layers.iter().all(|l| l[field].is_null()), "{field}");
        assert!(json["totals"][field].is_null(), "{field}");
    }
    assert!(!text.contains("(command stream)"), "{text}");
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
            "model_vela.tflite",
            vec!["--output", out, "--input", wrong.to_str().unwrap()],
            &["the network has 1 inputs but 2 were given"],
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

/// `--input`, `--output` and `--expected` repeat in the network's order.
#[test]
fn repeated_flags_map_in_network_order() {
    let dir = scratch("repeat");
    let net = network("two_inputs_two_outputs");
    let file = |d: &Path, f: &str| d.join(f).to_str().unwrap().to_string();
    let args = [
        "--input".into(),
        file(&net, "input0.bin"),
        "--input".into(),
        file(&net, "input1.bin"),
        "--output".into(),
        file(&dir, "sum.bin"),
        "--output".into(),
        file(&dir, "conv.bin"),
        "--expected".into(),
        file(&net, "expected0.bin"),
        "--expected".into(),
        file(&net, "expected1.bin"),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, text) = npu_sim_inputs("two_inputs_two_outputs", "model_vela.tflite", &args);
    assert!(ok, "{text}");
    assert_eq!(text.matches("matches").count(), 2, "{text}");
    assert_eq!(
        std::fs::read(dir.join("conv.bin")).unwrap(),
        std::fs::read(net.join("expected1.bin")).unwrap()
    );
    let (ok, text) = npu_sim_inputs("two_inputs_two_outputs", "model_vela.tflite", &args[2..]);
    assert!(!ok && text.contains("2 inputs but 1 were given"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--vela-csv` prints Vela's per-layer Op Cycles beside each kernel
/// operation, matched in stream order (the demo: 7 kernel operations, 7 NPU
/// rows with cycles; its fused ReLU and LUT rows left out), with Vela's sum
/// (its network estimate); with another network's CSV the counts differ
/// and only the sums are compared; a file that is not Vela's CSV is a clear
/// error.
#[test]
fn vela_s_per_layer_estimate_is_printed_beside_the_kernel_operations() {
    let dir = scratch("vela-csv");
    let out = dir.join("out.bin");
    let csv = network("demo").join("vela_per_layer_u65_256.csv");
    let (ok, text) = npu_sim(
        "demo",
        "model_vela.tflite",
        &[
            "--output",
            out.to_str().unwrap(),
            "--vela-csv",
            csv.to_str().unwrap(),
        ],
    );
    assert!(ok, "{text}");
    let beside: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("beside Vela's per-layer estimate"))
        .collect();
    let vela_ops: Vec<&str> = beside
        .iter()
        .filter_map(|l| l.split(" Vela ").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect();
    assert_eq!(
        vela_ops,
        [
            "Conv2D",
            "DepthwiseConv2D",
            "Conv2D",
            "Add",
            "MaxPool",
            "AvgPool",
            "FullyConnected",
            "13433"
        ],
        "{text}"
    );
    assert!(beside[1].contains("NPU_OP_CONV"), "{text}");

    let (ok, text) = npu_sim(
        "residual_add",
        "model_vela.tflite",
        &[
            "--output",
            out.to_str().unwrap(),
            "--vela-csv",
            csv.to_str().unwrap(),
        ],
    );
    assert!(ok && text.contains("compared in total only"), "{text}");

    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "Name,Op Cycles\nt1,12\n").unwrap();
    let out = dir.join("refused.bin");
    let (ok, text) = npu_sim(
        "demo",
        "model_vela.tflite",
        &[
            "--output",
            out.to_str().unwrap(),
            "--vela-csv",
            bad.to_str().unwrap(),
        ],
    );
    assert!(
        !ok && text.contains("not a Vela per-layer CSV: no column \"Original Operator\""),
        "{text}"
    );
    assert!(!out.exists(), "nothing written after a refusal");
    std::fs::remove_dir_all(&dir).unwrap();
}
