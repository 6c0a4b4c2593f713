//! Job folders (JOBS.md): validation errors name the problem; a good job
//! runs, writes out/<name>.bin and reports mismatches with their offset.

use npu_arch::command::Opcode;
use npu_model::cmdstream::{encode, Command};
use npu_model::job::{run_job, GoldenBackend, Job};
use std::path::PathBuf;

/// A job that DMAs 16 bytes from region 0 to region 1 offset 8.
fn make_job(name: &str, json: &str, expected: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npu-model-jobs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let c1 = |op, v: u32| Command::cmd1(op, 0, v);
    let cmds = [
        Command::cmd0(Opcode::NpuSetDma0SrcRegion, 0),
        c1(Opcode::NpuSetDma0Src, 0),
        Command::cmd0(Opcode::NpuSetDma0DstRegion, 1),
        c1(Opcode::NpuSetDma0Dst, 8),
        c1(Opcode::NpuSetDma0Len, 16),
        Command::cmd0(Opcode::NpuOpDmaStart, 0),
        Command::cmd0(Opcode::NpuOpDmaWait, 0),
        Command::cmd0(Opcode::NpuOpStop, 0xffff),
    ];
    std::fs::write(dir.join("cmd.bin"), encode(&cmds)).unwrap();
    std::fs::write(dir.join("r0.bin"), (0u8..32).collect::<Vec<u8>>()).unwrap();
    std::fs::write(dir.join("r1.bin"), [0u8; 32]).unwrap();
    std::fs::write(dir.join("exp.bin"), expected).unwrap();
    std::fs::write(dir.join("job.json"), json).unwrap();
    dir
}

const GOOD: &str = r#"{
  "config": "u65-256",
  "command_stream": "cmd.bin",
  "regions": [
    {"index": 0, "file": "r0.bin", "size": 32},
    {"index": 1, "file": "r1.bin", "size": 32}
  ],
  "outputs": [
    {"name": "ofm", "region": 1, "offset": 8, "size": 16, "expected": "exp.bin"}
  ],
  "description": "DMA 16 bytes"
}"#;

#[test]
fn good_job_passes_and_writes_output() {
    let expected: Vec<u8> = (0u8..16).collect();
    let dir = make_job("good", GOOD, &expected);
    let job = Job::load(&dir, None).unwrap();
    let report = run_job(&job, &mut GoldenBackend::default(), &mut |_, _| {}).unwrap();
    assert!(report.passed(), "{}", report.summary());
    assert_eq!(std::fs::read(dir.join("out/ofm.bin")).unwrap(), expected);
    // --config override.
    assert_eq!(
        Job::load(&dir, Some("u65-512")).unwrap().config.name,
        "u65-512"
    );
}

#[test]
fn mismatch_reports_first_offset() {
    let mut expected: Vec<u8> = (0u8..16).collect();
    expected[5] = 99;
    expected[9] = 98;
    let dir = make_job("mismatch", GOOD, &expected);
    let job = Job::load(&dir, None).unwrap();
    let report = run_job(&job, &mut GoldenBackend::default(), &mut |_, _| {}).unwrap();
    assert!(!report.passed());
    assert_eq!(report.mismatches.len(), 1);
    let m = &report.mismatches[0];
    assert_eq!(
        (m.first_offset, m.expected, m.actual, m.differing),
        (5, 99, 5, 2)
    );
}

fn load_err(name: &str, json: &str) -> String {
    let dir = make_job(name, json, &[0; 16]);
    format!("{}", Job::load(&dir, None).unwrap_err())
}

#[test]
fn validation_errors_name_the_problem() {
    let e = load_err(
        "unknown",
        &GOOD.replace("\"description\"", "\"bogus\": 1, \"description\""),
    );
    assert!(e.contains("unknown field `bogus`"), "{e}");
    let e = load_err("missing", &GOOD.replace("r0.bin", "nope.bin"));
    assert!(e.contains("nope.bin"), "{e}");
    let e = load_err("size", &GOOD.replace("\"size\": 32}", "\"size\": 31}"));
    assert!(e.contains("is 32 bytes but size says 31"), "{e}");
    let e = load_err("dup", &GOOD.replace("\"index\": 1", "\"index\": 0"));
    assert!(e.contains("listed twice"), "{e}");
    let e = load_err("small", &GOOD.replace("\"offset\": 8", "\"offset\": 20"));
    assert!(e.contains("region too small"), "{e}");
    let e = load_err("config", &GOOD.replace("u65-256", "u55-128"));
    assert!(e.contains("unknown configuration"), "{e}");
    let e = load_err("escape", &GOOD.replace("\"r0.bin\"", "\"../r0.bin\""));
    assert!(e.contains("inside the job folder"), "{e}");
    let two = GOOD.replace(
        r#"{"name": "ofm", "region": 1, "offset": 8, "size": 16, "expected": "exp.bin"}"#,
        r#"{"name": "a", "region": 1, "offset": 0, "size": 16}, {"name": "b", "region": 1, "offset": 8, "size": 8}"#,
    );
    let e = load_err("overlap", &two);
    assert!(e.contains("overlap"), "{e}");
    let dir = make_job("ragged", GOOD, &[0; 16]);
    std::fs::write(dir.join("cmd.bin"), [0u8; 6]).unwrap();
    let e = Job::load(&dir, None).unwrap_err().to_string();
    assert!(
        e.contains("6 bytes, not a whole number of 32-bit words"),
        "{e}"
    );
}

#[test]
fn stream_past_region_is_an_error_not_a_panic() {
    let dir = make_job("range", GOOD, &[0; 16]);
    std::fs::write(dir.join("r0.bin"), [0u8; 8]).unwrap();
    let json = GOOD.replacen("\"size\": 32", "\"size\": 8", 1);
    std::fs::write(dir.join("job.json"), json).unwrap();
    let job = Job::load(&dir, None).unwrap();
    let e = run_job(&job, &mut GoldenBackend::default(), &mut |_, _| {}).unwrap_err();
    let msg = format!("{e:#}");
    assert!(
        msg.contains("refused before running")
            && msg.contains("NPU_OP_DMA_START")
            && msg.contains("region 0"),
        "{msg}"
    );
}
