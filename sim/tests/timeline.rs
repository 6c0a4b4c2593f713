//! `npu-sim tflite --model rtl --timeline F.json`: the demo network behind
//! Vela's default U65 memory written as a Chrome trace whose spans agree
//! with the per-layer report: one span per kernel operation and DMA with
//! the report's Op Cycles, channel spans inside the run, and each port's
//! bytes per window adding up to the report's totals.

use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

#[test]
fn the_timeline_of_a_network_agrees_with_its_per_layer_report() {
    let net = npu_tb::verilator::workspace_root().join("model/tests/fixtures/networks/demo");
    let dir = std::env::temp_dir().join(format!("npu-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (trace, report) = (dir.join("trace.json"), dir.join("layers.json"));
    let out = Command::new(npu_sim::npu_sim_exe!())
        .arg("tflite")
        .arg(net.join("model_vela.tflite"))
        .arg("--input")
        .arg(net.join("input.bin"))
        .arg("--output")
        .arg(dir.join("out.bin"))
        .arg("--expected")
        .arg(net.join("expected.bin"))
        .args([
            "--model",
            "rtl",
            "--memory",
            "Ethos_U65_Client_Server",
            "-q",
        ])
        .arg("--timeline")
        .arg(&trace)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");

    let trace: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let tracks: BTreeMap<u64, String> = events
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .map(|e| {
            let name = e["args"]["name"].as_str().unwrap().to_string();
            (e["tid"].as_u64().unwrap(), name)
        })
        .collect();
    let spans = |track: &str| -> Vec<&Value> {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && tracks[&e["tid"].as_u64().unwrap()] == track)
            .collect()
    };

    // Every row of the report is a span of its track with its cycles.
    let rows = report["layers"].as_array().unwrap();
    let (mut kernels, mut dmas) = (spans("kernel operations"), spans("DMA (NPU_OP_DMA_START)"));
    for row in rows {
        let track = if row["kind"] == "NPU_OP_DMA_START" {
            &mut dmas
        } else {
            &mut kernels
        };
        let span = track.remove(0);
        let name = format!(
            "{} {:#x}",
            row["kind"].as_str().unwrap(),
            row["offset"].as_u64().unwrap()
        );
        assert_eq!(span["name"], name.as_str(), "{row}");
        assert_eq!(span["dur"], row["cycles"], "{name}");
    }
    assert!(kernels.is_empty() && dmas.is_empty(), "spans without a row");

    // The channels moved data within the run, and IFM reads happened.
    let run_cycles = report["totals"]["cycles"].as_u64().unwrap();
    let ifm = spans("IFM reads");
    assert!(!ifm.is_empty());
    for name in tracks
        .values()
        .filter(|n| n.ends_with("reads") || n.ends_with("writes"))
    {
        for span in spans(name) {
            let end = span["ts"].as_u64().unwrap() + span["dur"].as_u64().unwrap();
            assert!(
                end <= run_cycles + npu_tb::timeline::RESOLUTION,
                "{name}: {span} past the run"
            );
        }
    }

    // The windows' bytes add up to each port's totals in the report.
    for (port, name) in ["M0", "M1"].iter().enumerate() {
        let counter = format!("{name} bytes per 1000 cycles");
        let (read, written) = events
            .iter()
            .filter(|e| e["ph"] == "C" && e["name"] == counter.as_str())
            .fold((0, 0), |(r, w), e| {
                (
                    r + e["args"]["read"].as_u64().unwrap(),
                    w + e["args"]["written"].as_u64().unwrap(),
                )
            });
        let total = &report["totals"]["ports"][port];
        assert!(
            read <= total["read"].as_u64().unwrap()
                && written <= total["written"].as_u64().unwrap(),
            "{name}: windows {read}/{written}, run {total}"
        );
        assert!(read > 0, "{name}: no bytes read in any window");
    }
}
