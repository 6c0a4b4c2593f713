//! Two convolutions back to back behind a memory of fixed latency L: the
//! second one's first IFM block read goes out before the first one's
//! writes are answered only when its NPU_SET_BLOCKDEP allows it (TRM 4.9:
//! read 0 waits for all but the last k OFM block writes). The first
//! operation has one OFM block, or four: then k = 1 lets read 0 go once
//! three are answered, while the fourth is computed and written.
//!
//! The run's timeline (`RtlBackend::timeline`, as `npu-sim run --timeline`) gives the operations' ends
//! and the IFM channel's beats. A read issued at or after the first
//! operation's end has its first beat L cycles later or more; one issued
//! before it, its first beat earlier than that (the memory answers at once
//! after its latency). So with k = 0 the second operation's first IFM beat
//! must come at least L cycles after the first operation's end, and with
//! k >= 1 sooner: the overlap happens, and only where the rule lets it.
//! (The timeline's channel spans start at the look before their first
//! beat, `timeline::RESOLUTION` cycles apart; the checks allow for it. The
//! harness's BLOCKDEP checker, which every RTL run keeps, checks each read
//! to the cycle.)

use npu_model::compare::difference;
use npu_model::job::Backend;
use npu_model::tensor::DType;
use npu_tb::axi::CompleterConfig;
use npu_tb::conv_jobs::{chain, golden_run, ConvKind, ConvSpec};
use npu_tb::rtl_backend::RtlBackend;
use npu_tb::seed::seed;
use npu_tb::timeline::RESOLUTION;
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde_json::Value;
use std::collections::BTreeMap;

const LATENCY: u64 = 300;

#[test]
fn the_next_operations_first_ifm_read_overlaps_the_writes_only_as_blockdep_allows() {
    let seed = seed();
    let dir = std::env::temp_dir().join(format!("npu-overlap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [(1, 0), (1, 1), (1, 3), (4, 0), (4, 1)];
    for (first_blocks, blockdep) in cases {
        let mut rng = StdRng::seed_from_u64(seed);
        let spec = |ofm: [usize; 3], depth| ConvSpec {
            block: Some([4, 4, 16]),
            ..ConvSpec::new(ConvKind::Conv, DType::I8, ofm, depth, [1, 1])
        };
        // Four blocks long enough to compute that the last one's write
        // comes well after the third one's.
        let (first, depth) = if first_blocks == 1 {
            ([4, 4, 16], 16)
        } else {
            ([8, 8, 16], 128)
        };
        let parts = [spec(first, depth), spec([4, 4, 16], 8)];
        let job = chain(&parts, &[0, blockdep], &mut rng).job;
        let trace = dir.join(format!("blocks{first_blocks}_blockdep{blockdep}.json"));
        let memory = CompleterConfig {
            read_latency: LATENCY,
            write_latency: LATENCY,
            ..CompleterConfig::ideal()
        };
        let mut rtl = RtlBackend {
            axi_configs: [memory.clone(), memory],
            layers: true,
            timeline: Some(trace.clone()),
            ..RtlBackend::default()
        };
        let run = rtl
            .run(&job, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{first_blocks} blocks, BLOCKDEP {blockdep}: {e:#}"));
        let golden = golden_run(&job).unwrap_or_else(|e| panic!("golden model: {e}"));
        if let Some(d) = difference(&golden, &run) {
            panic!("{first_blocks} blocks, BLOCKDEP {blockdep}: the RTL differs from the golden model: {d}");
        }

        let trace: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap())
            .unwrap_or_else(|e| panic!("{e}"));
        let events = trace["traceEvents"].as_array().unwrap();
        let tracks: BTreeMap<u64, &str> = events
            .iter()
            .filter(|e| e["name"] == "thread_name")
            .map(|e| {
                (
                    e["tid"].as_u64().unwrap(),
                    e["args"]["name"].as_str().unwrap(),
                )
            })
            .collect();
        let spans = |track: &str| -> Vec<(u64, u64)> {
            let mut spans: Vec<(u64, u64)> = events
                .iter()
                .filter(|e| e["ph"] == "X" && tracks[&e["tid"].as_u64().unwrap()] == track)
                .map(|e| (e["ts"].as_u64().unwrap(), e["dur"].as_u64().unwrap()))
                .collect();
            spans.sort();
            spans
        };
        let kernels = spans("kernel operations");
        let ifm = spans("IFM reads");
        assert_eq!(kernels.len(), 2, "BLOCKDEP {blockdep}: {kernels:?}");
        let first_end = kernels[0].0 + kernels[0].1;
        // The first operation's IFM blocks (16 beats in a row each), then
        // the second's, hundreds of cycles after the last: its first beat
        // starts the last span.
        assert!(ifm.len() >= 2, "BLOCKDEP {blockdep}: IFM beats {ifm:?}");
        let second_read = ifm[ifm.len() - 1].0;
        let what = format!(
            "seed {seed}, {first_blocks} OFM blocks first, BLOCKDEP {blockdep}: operations {kernels:?}, IFM beats {ifm:?} \
             (cycles), the second operation's first at {second_read}"
        );
        // A channel's span starts at the look before its first beat (they
        // are `RESOLUTION` cycles apart): the beat is in (second_read,
        // second_read + RESOLUTION].
        if blockdep == 0 {
            assert!(second_read + RESOLUTION >= first_end + LATENCY, "{what}");
        } else {
            assert!(second_read + RESOLUTION < first_end + LATENCY, "{what}");
        }
    }
}
