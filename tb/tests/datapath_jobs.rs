//! The convolution datapath end to end: every Vela-made fixture job whose
//! kernel operations the RTL runs (NPU_OP_CONV and NPU_OP_DEPTHWISE, which
//! include fully connected layers, with no activation function beyond the
//! clamp; the configurations whose datapath exists) runs on the RTL and on
//! the golden model, and the two agree on memory, the shared buffer outside
//! the operations' working buffers, STATUS, QREAD and IRQ. The fixtures'
//! expected outputs are the TFLite interpreter's, so the RTL is checked
//! against them transitively (`model/tests` holds the golden model to them).

use npu_model::cmdstream::decode;
use npu_model::job::{Backend, GoldenBackend, Job};
use npu_spec::command::Opcode;
use npu_tb::fuzz::compare;
use npu_tb::rtl_backend::RtlBackend;
use std::path::Path;

/// Why the RTL cannot run `job` yet, or `None`.
fn not_yet(job: &Job) -> Option<String> {
    if job.config.cores != 1 {
        return Some(format!("{}: two cores", job.config.name));
    }
    let commands = match decode(&job.command_stream) {
        Ok(c) => c,
        Err(e) => return Some(format!("stream does not decode: {e}")),
    };
    let mut kernels = 0;
    for c in &commands {
        match c.op {
            Opcode::NpuOpConv | Opcode::NpuOpDepthwise => kernels += 1,
            Opcode::NpuOpPool | Opcode::NpuOpElementwise => {
                return Some(format!("{} (issue 13)", c.op.name()))
            }
            Opcode::NpuSetActivation
                if Opcode::NpuSetActivation
                    .field("activation_function")
                    .get(u64::from(c.param))
                    != 0 =>
            {
                return Some("an activation function (issue 13)".into())
            }
            _ => {}
        }
    }
    (kernels == 0).then(|| "no kernel operation".into())
}

#[test]
fn every_convolution_fixture_runs_bit_exact_on_the_rtl() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/tests/fixtures/jobs");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("fixture jobs")
        .map(|e| e.expect("dir entry").path())
        .collect();
    dirs.sort();
    let (mut ran, mut skipped, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let job = Job::load(&dir, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Some(why) = not_yet(&job) {
            skipped.push(format!("{name} ({why})"));
            continue;
        }
        job.check().unwrap_or_else(|e| panic!("{name}: {e}"));
        let golden = GoldenBackend::default()
            .run(&job, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{name} on the golden model: {e:#}"));
        let rtl = RtlBackend::default()
            .run(&job, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{name} on the RTL: {e:#}"));
        if let Some(d) = compare(&golden, &rtl) {
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
        "ran {} jobs; not yet on the RTL: {}",
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
}
