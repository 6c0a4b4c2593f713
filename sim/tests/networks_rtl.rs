//! Bundled Vela-compiled networks on the RTL (`npu-sim tflite --model
//! rtl`): each output equals TFLite Micro's expected bytes, and
//! the demo's per-layer report accounts for every operation, cycle and AXI
//! byte (`the_demo_network_runs_bit_exact_on_the_rtl`). The
//! demo network starts a user DMA (the next layer's weights) with three
//! kernel operations ahead of it, of which the oldest reads what the DMA
//! writes: central control holds the DMA until two are left, as Vela
//! expects (`npu_arch::command::DMA_KERNELS_AHEAD`). `tanh_softmax` has an
//! int8 softmax (its exponentials summed by an int32 REDUCE_SUM);
//! `mobilenet_v2_sized` has MobileNetV2's feature-map sizes and its final
//! 7x7x1280 MEAN (about 350,000 NPU cycles). `float_io`, `channel_gather`,
//! `cpu_parts` and `transpose_conv_cpu` have operators Vela left on the CPU,
//! which the host runs between the `ethos-u` operators' runs. The real
//! third-party networks of `../shared/real-networks`' core tier run too
//! (`the_real_networks_run_bit_exact_on_the_rtl`).

use npu_model::job::GoldenBackend;
use npu_model::state::OpRecord;
use npu_model::tflite::VelaModel;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn network(name: &str) -> PathBuf {
    npu_tb::verilator::workspace_root()
        .join("model/tests/fixtures/networks")
        .join(name)
}

/// Runs bundled network `name` on the RTL with its `inputs` and `expected`
/// files ([`runs_bit_exact_in`]).
fn runs_bit_exact(name: &str, inputs: &[&str], expected: &[&str]) -> (String, Vec<OpRecord>) {
    let dir = network(name);
    let files = |names: &[&str]| names.iter().map(|f| dir.join(f)).collect::<Vec<_>>();
    runs_bit_exact_in(
        name,
        &dir.join("model_vela.tflite"),
        &files(inputs),
        &files(expected),
    )
}

/// Runs `model` on the RTL with `inputs`, its outputs compared with
/// `expected`, and checks its per-layer report ([`check_report`]); returns
/// what it printed and the golden model's records.
fn runs_bit_exact_in(
    name: &str,
    model: &Path,
    inputs: &[PathBuf],
    expected: &[PathBuf],
) -> (String, Vec<OpRecord>) {
    let out_dir = std::env::temp_dir().join(format!("networks-rtl-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let report = out_dir.join("layers.json");
    let mut command = Command::new(npu_sim::npu_sim_exe!());
    command
        .arg("tflite")
        .arg(model)
        .args(["--model", "rtl", "-q", "--report"])
        .arg(&report);
    for input in inputs {
        command.arg("--input").arg(input);
    }
    for (k, file) in expected.iter().enumerate() {
        command
            .arg("--output")
            .arg(out_dir.join(format!("out{k}.bin")))
            .arg("--expected")
            .arg(file);
    }
    let out = command.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name} on the RTL: {text}");
    assert!(!text.contains("MISMATCH"), "{name} on the RTL: {text}");
    let json = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    std::fs::remove_dir_all(&out_dir).unwrap();
    let (golden, peak) = golden_layers(model, inputs);
    check_report(&json, &golden, peak);
    (text, golden)
}

/// The golden model's per-layer records of `model` with its `inputs`, and
/// the peak MACs per cycle of its configuration.
fn golden_layers(model: &Path, inputs: &[PathBuf]) -> (Vec<OpRecord>, u32) {
    let model = VelaModel::load(model).unwrap();
    let inputs: Vec<Vec<u8>> = inputs.iter().map(|i| std::fs::read(i).unwrap()).collect();
    let config = model.config().unwrap();
    let peak = config.macs_per_cycle;
    let run = model
        .run(
            config,
            &inputs,
            &mut GoldenBackend::default(),
            &mut |_, _| {},
        )
        .unwrap();
    (run.run.layers, peak)
}

fn number(v: &Value, what: &str) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("{what}: {v} is not a count"))
}

/// Read and written bytes of port `port` (0: M0, 1: M1) in `ports`.
fn port_bytes(ports: &Value, port: usize, what: &str) -> [u64; 2] {
    ["read", "written"].map(|k| number(&ports[port][k], what))
}

/// The report of a run on the RTL against the golden model's `golden`
/// records, on a configuration of `peak` MACs a cycle: a row for every kernel operation and
/// DMA in order; cycles within the run's; at most two kernel operations at
/// a time (one's writes answered beside the next), DMAs one at a time;
/// every AXI byte in one row or in the command stream's; each kernel
/// operation's OFM writes and each DMA's source reads in its own row; MACs
/// and rates consistent.
fn check_report(report: &Value, golden: &[OpRecord], peak: u32) {
    let layers = report["layers"].as_array().expect("layers");
    let totals = &report["totals"];
    let run_cycles = number(&totals["cycles"], "the run's cycles");
    assert_eq!(layers.len(), golden.len(), "rows");
    let mut sums = [[0u64; 2]; 2];
    let (mut kernel_cycles, mut dma_cycles) = (0, 0);
    for (layer, g) in layers.iter().zip(golden) {
        let what = format!("{} at {:#x}", g.kind, g.offset);
        if g.on_cpu {
            // The host's operator: a row with its name and nothing measured.
            assert_eq!(layer["kind"].as_str(), Some(g.kind.as_str()), "row order");
            assert_eq!(layer["on_cpu"].as_bool(), Some(true), "{what}");
            for field in ["cycles", "ports"] {
                assert!(layer[field].is_null(), "{what}: {field}");
            }
            continue;
        }
        assert_eq!(
            (
                number(&layer["offset"], &what) as usize,
                layer["kind"].as_str()
            ),
            (g.offset, Some(g.kind.as_str())),
            "row order"
        );
        let macs = number(&layer["macs"], &what);
        assert_eq!(macs, g.macs, "{what}: MAC Count");
        let cycles = number(&layer["cycles"], &what);
        assert!(
            cycles > 0 && cycles <= run_cycles,
            "{what}: {cycles} cycles of {run_cycles}"
        );
        let [m0, m1] = [0, 1].map(|p| port_bytes(&layer["ports"], p, &what));
        for (sum, port) in sums.iter_mut().zip([m0, m1]) {
            sum[0] += port[0];
            sum[1] += port[1];
        }
        if g.kind == "NPU_OP_DMA_START" {
            dma_cycles += cycles;
            // The source reads of the DMA (region bytes, whole beats here).
            assert_eq!(m0[0] + m1[0], g.bytes_read, "{what}: bytes read");
            continue;
        }
        kernel_cycles += cycles;
        // Every OFM write (on the port of its region's counter, by strobe)
        // within the operation's cycles.
        assert_eq!(m0[1] + m1[1], g.bytes_written, "{what}: OFM bytes written");
        if macs == 0 {
            assert!(
                layer["util_mac"].is_null(),
                "{what}: no MACs, no utilisation"
            );
            continue;
        }
        let per_cycle = layer["macs_per_cycle"].as_f64().expect("MACs per cycle");
        let util = layer["util_mac"].as_f64().expect("Util% (MAC)");
        assert!(
            (per_cycle - macs as f64 / cycles as f64).abs() < 1e-9,
            "{what}"
        );
        assert!(
            (util - 100.0 * per_cycle / f64::from(peak)).abs() < 1e-9,
            "{what}"
        );
    }
    assert!(
        kernel_cycles <= 2 * run_cycles,
        "more than two kernel operations overlap"
    );
    assert!(dma_cycles <= run_cycles, "DMAs overlap");
    for (port, rows) in sums.iter().enumerate() {
        let command = port_bytes(&totals["command_stream"], port, "command stream");
        let all = port_bytes(&totals["ports"], port, "the AXI counters");
        assert_eq!(
            [rows[0] + command[0], rows[1] + command[1]],
            all,
            "M{port}: rows {rows:?} and command stream {command:?} against the AXI counters"
        );
    }
}

#[test]
fn the_demo_network_runs_bit_exact_on_the_rtl() {
    let (text, golden) = runs_bit_exact("demo", &["input.bin"], &["expected.bin"]);
    assert!(golden.iter().any(|g| g.kind == "NPU_OP_CONV" && g.macs > 0));
    assert!(golden.iter().any(|g| g.kind == "NPU_OP_DMA_START"));
    for word in [
        "Op Cycles",
        "Util% (MAC)",
        "M1 Read",
        "(command stream)",
        "TOTAL",
    ] {
        assert!(text.contains(word), "{word} missing from: {text}");
    }
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

#[test]
fn a_float_network_with_quantize_and_dequantize_on_the_host_runs_bit_exact_on_the_rtl() {
    let (text, golden) = runs_bit_exact("float_io", &["input.bin"], &["expected.bin"]);
    let host: Vec<&str> = golden
        .iter()
        .filter(|g| g.on_cpu)
        .map(|g| g.kind.as_str())
        .collect();
    assert_eq!(host, ["QUANTIZE", "DEQUANTIZE"]);
    for row in ["QUANTIZE (CPU)", "DEQUANTIZE (CPU)", "2 on the host"] {
        assert!(text.contains(row), "{row} missing from: {text}");
    }
}

#[test]
fn a_gather_between_two_ethos_u_operators_runs_bit_exact_on_the_rtl() {
    let (text, golden) = runs_bit_exact("channel_gather", &["input.bin"], &["expected.bin"]);
    assert!(text.contains("2 ethos-u operators"), "{text}");
    // Rows in the model's order: each ethos-u operator's convolution, the host's GATHER between.
    let kinds: Vec<&str> = golden.iter().map(|g| g.kind.as_str()).collect();
    assert_eq!(kinds, ["NPU_OP_CONV", "GATHER", "NPU_OP_CONV"]);
}

/// Host and NPU parts interleaved: two inputs, three outputs, a tensor the
/// NPU writes that the host's MEAN and the NPU's pooling both read, and a
/// float32 head wholly on the host.
#[test]
fn host_and_npu_parts_in_any_order_run_bit_exact_on_the_rtl() {
    let (text, golden) = runs_bit_exact(
        "cpu_parts",
        &["input0.bin", "input1.bin"],
        &["expected0.bin", "expected1.bin", "expected2.bin"],
    );
    let host: Vec<&str> = golden
        .iter()
        .filter(|g| g.on_cpu)
        .map(|g| g.kind.as_str())
        .collect();
    assert_eq!(host, ["FULLY_CONNECTED", "SOFTMAX", "MEAN"]);
    for row in ["MEAN (CPU)", "SOFTMAX (CPU)", "3 on the host"] {
        assert!(text.contains(row), "{row} missing from: {text}");
    }
}

/// A TRANSPOSE_CONV whose output shape is a network input runs on the host
/// between two ethos-u operators.
#[test]
fn a_transpose_conv_on_the_host_runs_bit_exact_on_the_rtl() {
    let (text, golden) = runs_bit_exact(
        "transpose_conv_cpu",
        &["input0.bin", "input1.bin"],
        &["expected.bin"],
    );
    assert!(text.contains("2 ethos-u operators"), "{text}");
    let kinds: Vec<&str> = golden.iter().map(|g| g.kind.as_str()).collect();
    assert_eq!(kinds, ["NPU_OP_CONV", "TRANSPOSE_CONV", "NPU_OP_CONV"]);
}

#[test]
fn an_int16_lstm_network_runs_bit_exact_on_the_rtl() {
    let (_, golden) = runs_bit_exact("lstm_int16", &["input.bin"], &["expected.bin"]);
    // Vela unrolls the ten steps into gates: fully connected layers, elementwise MUL/ADD and LUT activations.
    let count = |kind: &str| golden.iter().filter(|g| g.kind == kind).count();
    assert!(
        count("NPU_OP_CONV") >= 80,
        "{} fully connected",
        count("NPU_OP_CONV")
    );
    assert!(count("NPU_OP_ELEMENTWISE MUL") >= 30);
}

/// Every real network of the core tier (`../shared/real-networks`, skipped
/// with a message where absent) bit-exact with TensorFlow Lite Micro on the
/// RTL, with its per-layer report checked; the stress tier runs in the
/// networks bench.
#[test]
fn the_real_networks_run_bit_exact_on_the_rtl() {
    let Some(networks) = npu_sim::networks::real_networks().unwrap() else {
        println!(
            "skipped: no real networks at {}",
            npu_sim::networks::real_networks_dir().display()
        );
        return;
    };
    let core: Vec<_> = networks.iter().filter(|n| n.tier == "core").collect();
    assert!(!core.is_empty(), "no network of the core tier");
    for real in core {
        let n = &real.network;
        let (text, _) = runs_bit_exact_in(&n.name, &n.models[0], &n.inputs, &n.expected);
        let cycles = text
            .lines()
            .find(|l| l.starts_with("cycles "))
            .unwrap_or("");
        println!("ok {}: {cycles}", n.name);
    }
}
