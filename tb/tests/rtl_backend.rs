//! Jobs on the RTL: where the backend places a job in memory and what the
//! driver points the NPU at, and the clear error (from the backend and from
//! `npu-sim run --model rtl`) of a run that does not finish.

use npu_model::job::{run_job, Job};
use npu_spec::regs;
use npu_tb::rtl_backend::{region_base, RtlBackend, COMMAND_STREAM_BASE};
use npu_tb::verilator::build::workspace_root;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    workspace_root()
        .join("model/tests/fixtures/jobs")
        .join(name)
}

/// A copy of a fixture job in a fresh folder, so runs write nothing into the fixtures.
fn job_copy(name: &str, test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npu-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(fixture(name)).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    dir
}

#[test]
fn a_job_is_placed_at_its_own_bases_and_a_run_that_never_stops_is_a_clear_error() {
    let job = Job::load(&fixture("dma_256"), None).unwrap();
    let mut backend = RtlBackend {
        max_cycles: 2_000,
        ..RtlBackend::default()
    };
    let err = run_job(&job, &mut backend, &mut |_, _| {}).unwrap_err();
    let message = format!("{err:#}");
    for word in ["RTL run", "no IRQ within 2000 cycles", "STATUS", "QREAD"] {
        assert!(message.contains(word), "{word} missing from: {message}");
    }

    let tb = backend
        .last
        .as_mut()
        .expect("the bench is kept after a failure");
    for (&k, bytes) in &job.regions {
        assert_eq!(&tb.memory().read_vec(region_base(k), bytes.len()), bytes);
        let low = tb.read(regs::BASEP[2 * k].address, 0b001).rdata;
        let high = tb.read(regs::BASEP[2 * k + 1].address, 0b001).rdata;
        assert_eq!(u64::from(high) << 32 | u64::from(low), region_base(k));
    }
    assert_eq!(
        tb.memory()
            .read_vec(COMMAND_STREAM_BASE, job.command_stream.len()),
        job.command_stream
    );
    // Past the end of region 0 is memory nothing wrote, not region 1.
    assert!(tb
        .memory()
        .read_vec(region_base(0) + 256, 256)
        .iter()
        .all(|&b| b == 0));
}

fn npu_sim(args: &[&str], dir: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_npu-sim"))
        .arg("run")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn npu_sim_rtl_run_that_never_stops_exits_non_zero_with_status_qread_and_a_waveform() {
    let dir = job_copy("dma_256", "npu-sim-rtl");
    let vcd = dir.join("run.vcd");
    let (ok, text) = npu_sim(
        &[
            "--model",
            "rtl",
            "--max-cycles",
            "1000",
            "--vcd",
            vcd.to_str().unwrap(),
            "--vcd-window",
            "0:300",
            "-q",
        ],
        &dir,
    );
    assert!(!ok, "{text}");
    for word in [
        "error:",
        "rtl backend",
        "no IRQ within 1000 cycles",
        "STATUS",
        "QREAD",
    ] {
        assert!(text.contains(word), "{word} missing from: {text}");
    }
    assert!(!text.contains("panicked"), "{text}");
    assert!(
        !dir.join("out").exists(),
        "outputs written for a failed run"
    );
    let waveform = std::fs::read_to_string(&vcd).unwrap();
    assert!(
        waveform.contains("$scope module npu_u65_256"),
        "no hierarchy"
    );
    assert!(waveform.contains("ARVALIDM0"), "no AXI signals");

    let (ok, text) = npu_sim(&["--model", "rtl", "--max-cycles", "1000"], &dir);
    assert!(
        !ok && text.contains("add --vcd FILE for a waveform"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
