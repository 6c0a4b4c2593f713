//! `npu-sim asm`, `disasm` and `compare` at their edges: empty input is an error as
//! `run` makes it one, a bad token is named briefly, any stream, words
//! that are no command included, round-trips through a listing, and a
//! Vela-compiled network lists its command stream.

use std::path::{Path, PathBuf};
use std::process::Command;

fn npu_sim(args: &[&Path]) -> (bool, String) {
    let out = Command::new(npu_sim::npu_sim_exe!())
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("npu-sim-cli-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn asm_and_disasm_refuse_empty_input() {
    for (name, text) in [("empty.lst", ""), ("comments.lst", "# nothing\n; here\n")] {
        let file = temp(name, text.as_bytes());
        let (ok, out) = npu_sim(&[Path::new("asm"), &file]);
        assert!(!ok, "{out}");
        assert!(out.contains("no commands"), "{out}");
        assert!(
            !file.with_extension("bin").exists(),
            "an empty stream was written"
        );
    }
    let (ok, out) = npu_sim(&[Path::new("disasm"), &temp("empty.bin", b"")]);
    assert!(!ok, "{out}");
    assert!(out.contains("is empty"), "{out}");
}

#[test]
fn asm_names_a_huge_bad_token_briefly() {
    let text = format!("NPU_OP_STOP {}\n", "9".repeat(4 << 20));
    let (ok, out) = npu_sim(&[Path::new("asm"), &temp("huge.lst", text.as_bytes())]);
    assert!(!ok);
    assert!(out.len() < 400, "{} bytes of error", out.len());
    assert!(
        out.contains("line 1") && out.contains("4194304 bytes"),
        "{out}"
    );
}

#[test]
fn a_stream_with_words_that_are_no_command_round_trips() {
    // NPU_OP_STOP, a reserved format, a reserved opcode, a cmd1 cut off.
    let words: [u32; 4] = [0x0000_0000, 0x0000_2c00, 0x0000_0004, 0x0000_4030];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let (ok, listing) = npu_sim(&[Path::new("disasm"), &temp("words.bin", &bytes)]);
    assert!(ok, "{listing}");
    assert_eq!(listing.matches(".word").count(), 3, "{listing}");
    let lst = temp("words.lst", listing.as_bytes());
    let (ok, out) = npu_sim(&[Path::new("asm"), &lst]);
    assert!(ok, "{out}");
    assert_eq!(std::fs::read(lst.with_extension("bin")).unwrap(), bytes);
}

#[test]
fn disasm_lists_a_vela_network_and_names_a_corrupt_one() {
    let network = fixtures().join("networks/demo/model_vela.tflite");
    let (ok, listing) = npu_sim(&[Path::new("disasm"), &network]);
    assert!(ok, "{listing}");
    assert!(listing.contains("# COP1 COMMAND_STREAM"), "{listing}");
    assert!(
        listing.contains("NPU_OP_CONV") && listing.contains("NPU_OP_STOP"),
        "{listing}"
    );
    assert!(!listing.contains(".word"), "{listing}");
    let corrupt = temp("corrupt.tflite", b"\x10\0\0\0TFL3 cut off");
    let (ok, out) = npu_sim(&[Path::new("disasm"), &corrupt]);
    assert!(!ok, "{out}");
    assert!(out.contains("corrupt or truncated TFLite file"), "{out}");
}

fn fixtures() -> PathBuf {
    npu_tb::verilator::workspace_root().join("model/tests/fixtures")
}

#[test]
fn compare_runs_the_rtl_beside_the_golden_model() {
    let job = fixtures().join("jobs/conv_3x3_u8");
    let (ok, out) = npu_sim(&[Path::new("compare"), Path::new("-q"), &job]);
    assert!(ok, "{out}");
    assert!(out.contains("agree"), "{out}");
}

#[test]
fn compare_names_wrong_arguments() {
    let job = fixtures().join("jobs/conv_3x3_u8");
    let (ok, out) = npu_sim(&[
        Path::new("compare"),
        &job,
        Path::new("--input"),
        Path::new("x.bin"),
    ]);
    assert!(!ok && out.contains("--input is for a network"), "{out}");
    let network = fixtures().join("networks/demo/model_vela.tflite");
    let (ok, out) = npu_sim(&[Path::new("compare"), &network]);
    assert!(!ok && out.contains("give its inputs with --input"), "{out}");
}

#[test]
fn check_gives_a_network_s_ranges_and_refuses_what_reaches_outside() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../model/tests/fixtures/networks/residual_add/model_vela.tflite");
    let check = |extra: &[&str]| {
        let mut args: Vec<&Path> = vec![Path::new("check"), &model];
        args.extend(extra.iter().map(Path::new));
        npu_sim(&args)
    };
    let (ok, out) = check(&[]);
    assert!(ok, "{out}");
    assert!(
        out.contains("0x023c NPU_OP_ELEMENTWISE ADD") && out.contains("PASSED"),
        "{out}"
    );
    // Region 1 (the arena) cut to 0x800 bytes: the ADD's OFM is outside.
    let (ok, out) = check(&["--region-size", "1=0x800"]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("REFUSED: command at byte 0x23c") && out.contains("byte 0x800"),
        "{out}"
    );
    let (ok, json) = check(&["--json"]);
    assert!(ok, "{json}");
    let parsed: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let ops = parsed[0]["passed"]["operations"]
        .as_array()
        .expect("operations");
    assert_eq!(ops.len(), 4, "{json}");
    assert_eq!(ops[3]["accesses"][2]["role"], "ofm", "{json}");
    // Bad arguments name the problem.
    let (ok, out) = check(&["--region-size", "9=16"]);
    assert!(!ok && out.contains("a region is 0-7"), "{out}");
    let (ok, out) = npu_sim(&[Path::new("check"), Path::new("/nonexistent.bin")]);
    assert!(!ok && out.contains("reading /nonexistent.bin"), "{out}");
}

#[test]
fn check_with_the_kernel_policy_refuses_an_irq() {
    // NPU_OP_IRQ, NPU_OP_STOP.
    let words: [u32; 2] = [0x0000_0001, 0xffff_0000];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let stream = temp("irq.bin", &bytes);
    let (ok, out) = npu_sim(&[Path::new("check"), &stream]);
    assert!(ok, "{out}");
    let (ok, out) = npu_sim(&[
        Path::new("check"),
        &stream,
        Path::new("--policy"),
        Path::new("kernel"),
    ]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("the kernel policy refuses NPU_OP_IRQ"),
        "{out}"
    );
}
