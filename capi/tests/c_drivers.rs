//! The deployed drivers' register sequences, in C (`tests/c`: Arm's core
//! driver and Linux's accel/ethosu, written from `../shared/DRIVERS.md`),
//! compiled against `libnpu` and run as a separate process on both
//! backends: every bundled Vela network on both configurations bit-exact
//! with TensorFlow Lite Micro, and the ways an inference goes wrong.

use npu_model::cmdstream::{assemble_words, stop_ends_at};
use npu_model::job::{run_job, Backend, BackendRun, GoldenBackend, Job};
use npu_model::tflite::VelaModel;
use npu_sim::networks::bundled_networks;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The harness, compiled once: `cc` with `-Wall -Werror` against the
/// generated headers and the cdylib cargo built beside the test.
fn harness() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let root = npu_tb::verilator::workspace_root();
        let deps = std::env::current_exe()
            .unwrap()
            .parent()
            .unwrap()
            .to_path_buf();
        let lib_dir = [deps.clone(), deps.parent().unwrap().to_path_buf()]
            .into_iter()
            .find(|d| d.join("libnpu.so").exists())
            .expect("libnpu.so beside the test binary (cargo builds the cdylib)");
        let out = root.join("build/capi");
        std::fs::create_dir_all(&out).unwrap();
        let exe = out.join(format!("harness-{}", std::process::id()));
        let c = root.join("capi/tests/c");
        let status = Command::new("cc")
            .args([
                "-std=c11",
                "-O1",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-D_POSIX_C_SOURCE=200809L",
            ])
            .arg("-I")
            .arg(root.join("capi/include"))
            .args(["harness.c", "ethosu_core.c", "linux_ethosu.c"].map(|f| c.join(f)))
            .arg("-L")
            .arg(&lib_dir)
            .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
            .args(["-lnpu", "-o"])
            .arg(&exe)
            .status()
            .expect("a C compiler (cc) on PATH");
        assert!(status.success(), "the C harness does not compile");
        exe
    })
}

/// One invocation's result, as the harness reports it.
#[derive(Clone, Debug, PartialEq)]
struct Invocation {
    rc: i32,
    status: u32,
    qread: u32,
    irq: bool,
    cycles: u64,
}

/// What a script did: its init's code, each invocation, the regions after.
struct Outcome {
    init: i32,
    invocations: Vec<Invocation>,
    regions: BTreeMap<usize, Vec<u8>>,
    stderr: String,
}

/// The drivers and backends the harness runs.
#[derive(Clone, Copy, Debug)]
enum Driver {
    Core,
    Linux,
}

/// One line of a script after its settings, or a payload to map in place
/// of the last.
#[derive(Clone, Debug)]
enum Step {
    Line(&'static str),
    Payload(Vec<u8>),
}

/// What `driver` runs `job` from: the core driver's COP1 payload, Linux's stream.
fn payload_of(driver: Driver, job: &Job) -> Vec<u8> {
    match driver {
        Driver::Core => job.driver_payload().unwrap().to_bytes(),
        Driver::Linux => job.command_stream.clone(),
    }
}

/// A script for `job`: its regions and its payload, then `steps`.
fn run_script(driver: Driver, backend: &str, job: &Job, steps: &[Step]) -> Outcome {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "npu-capi-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut script = vec![
        format!("config {}", job.config.name),
        format!("backend {backend}"),
        format!(
            "driver {}",
            match driver {
                Driver::Core => "core",
                Driver::Linux => "linux",
            }
        ),
    ];
    for (&k, bytes) in &job.regions {
        let path = dir.join(format!("region{k}.bin"));
        std::fs::write(&path, bytes).unwrap();
        script.push(format!("region {k} {}", path.display()));
    }
    let payloads = std::iter::once(Step::Payload(payload_of(driver, job)));
    for (n, step) in payloads.chain(steps.iter().cloned()).enumerate() {
        match step {
            Step::Line(line) => script.push(line.to_string()),
            Step::Payload(bytes) => {
                let path = dir.join(format!("payload{n}.bin"));
                std::fs::write(&path, bytes).unwrap();
                script.push(format!("payload {}", path.display()));
            }
        }
    }
    std::fs::write(dir.join("script"), script.join("\n") + "\n").unwrap();
    // The cdylib the harness was linked with (its run path), not another
    // copy that cargo's library path names first.
    let out = Command::new(harness())
        .env_remove("LD_LIBRARY_PATH")
        .arg(dir.join("script"))
        .arg(dir.join("result"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let result = std::fs::read_to_string(dir.join("result")).unwrap_or_default();
    assert!(
        out.status.success(),
        "the harness failed ({}): {stderr}\n{result}",
        out.status
    );
    let mut outcome = Outcome {
        init: -1,
        invocations: vec![],
        regions: BTreeMap::new(),
        stderr,
    };
    for line in result.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["init", rc] => outcome.init = rc.parse().unwrap(),
            ["invoke", rc, "status", status, "qread", qread, "irq", irq, "cycles", cycles] => {
                outcome.invocations.push(Invocation {
                    rc: rc.parse().unwrap(),
                    status: u32::from_str_radix(status.trim_start_matches("0x"), 16).unwrap(),
                    qread: qread.parse().unwrap(),
                    irq: *irq == "1",
                    cycles: cycles.parse().unwrap(),
                })
            }
            _ => {}
        }
    }
    for &k in job.regions.keys() {
        let path = dir.join(format!("region{k}.bin.out"));
        outcome.regions.insert(k, std::fs::read(path).unwrap());
    }
    if std::env::var_os("NPU_KEEP").is_none() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    outcome
}

/// A C driver on a backend as a job backend: one init and one invocation
/// per job, in a process of its own.
struct CDriver {
    driver: Driver,
    backend: &'static str,
}

impl Backend for CDriver {
    fn name(&self) -> &str {
        "C driver"
    }

    fn run(&mut self, job: &Job, _: &mut dyn FnMut(usize, usize)) -> anyhow::Result<BackendRun> {
        let steps = [Step::Line("init"), Step::Line("invoke")];
        let outcome = run_script(self.driver, self.backend, job, &steps);
        anyhow::ensure!(
            outcome.init == 0,
            "the driver's init failed: {}",
            outcome.stderr
        );
        let i = &outcome.invocations[0];
        anyhow::ensure!(i.rc == 0, "the inference failed: {}", outcome.stderr);
        Ok(BackendRun {
            regions: outcome.regions,
            status: i.status,
            qread: i.qread,
            irq: i.irq,
            stop_reached: stop_ends_at(&job.command_stream, i.qread as usize),
            cycles: Some(i.cycles),
            ..BackendRun::default()
        })
    }
}

/// Every bundled network through `driver` on both backends, both
/// configurations, bit-exact with TensorFlow Lite Micro's outputs.
fn every_network(driver: Driver) {
    for network in bundled_networks().unwrap() {
        let inputs = network.read_inputs().unwrap();
        let expected: Vec<Vec<u8>> = network
            .expected
            .iter()
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        for model in &network.models {
            let vela = VelaModel::load(model).unwrap();
            let config = vela.config().unwrap();
            for backend in ["golden", "rtl"] {
                let what = format!(
                    "{driver:?} driver, {} on {} ({backend})",
                    network.name, config.name
                );
                let mut c = CDriver { driver, backend };
                let net = vela
                    .run(config.clone(), &inputs, &mut c, &mut |_, _| {})
                    .unwrap_or_else(|e| panic!("{what}: {e:#}"));
                assert_eq!(
                    net.outputs, expected,
                    "{what}: outputs against TensorFlow Lite Micro"
                );
                for run in &net.npu_runs {
                    assert!(run.run.completed(), "{what}: STATUS {:#x}", run.run.status);
                }
            }
        }
    }
}

#[test]
fn arm_s_core_driver_runs_every_bundled_network_bit_exact_on_both_backends() {
    every_network(Driver::Core);
}

#[test]
fn linux_s_accel_ethosu_runs_every_bundled_network_bit_exact_on_both_backends() {
    every_network(Driver::Linux);
}

/// A job of `listing` over region 0 of 1 KB and region 1 of 1 KB.
fn listing_job(listing: &str) -> Job {
    let regions = BTreeMap::from([
        (0, (0..1024).map(|i| i as u8).collect()),
        (1, vec![0; 1024]),
    ]);
    let stream = assemble_words(listing)
        .unwrap()
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    Job::in_memory(
        npu_arch::config::NpuConfig::u65_256(),
        stream,
        regions,
        listing,
    )
}

const COPY: &str = "NPU_SET_DMA0_SRC_REGION 0\nNPU_SET_DMA0_DST_REGION 1\n\
     NPU_SET_DMA0_SRC 0 0\nNPU_SET_DMA0_DST 0 0\nNPU_SET_DMA0_LEN 0 512\n\
     NPU_OP_DMA_START 0\nNPU_OP_STOP 65535";

/// The same script on both backends: their outcomes.
fn both(driver: Driver, job: &Job, steps: &[Step]) -> [Outcome; 2] {
    ["golden", "rtl"].map(|backend| run_script(driver, backend, job, steps))
}

/// What an invocation reports but its cycles.
fn seen(i: &Invocation) -> (i32, u32, u32, bool) {
    (i.rc, i.status, i.qread, i.irq)
}

/// A stream the core driver must fail, then a good one on the same device:
/// the broken one fails alike on both backends (its STATUS at the IRQ, and
/// QREAD where the RTL cannot have run on), the good one then runs as on a
/// fresh device, bit-exact, with STATUS.cmd_end_reached.
#[test]
fn the_core_driver_fails_a_broken_inference_soft_resets_and_runs_the_next() {
    let good = listing_job(COPY);
    let expected = run_job(&good, &mut GoldenBackend::default(), &mut |_, _| {}).unwrap();
    assert!(expected.run.completed());
    let irq_then_copy = format!("NPU_OP_IRQ 1\n{COPY}");
    let cases = [
        // A reserved opcode: cmd_parse_error.
        (
            "a parse error",
            ".word 0x000003ff\nNPU_OP_STOP 0".to_string(),
            true,
        ),
        // A read past region 0's window: the DMA's read answers DECERR.
        (
            "a bus error",
            "NPU_SET_DMA0_SRC_REGION 0\nNPU_SET_DMA0_DST_REGION 1\nNPU_SET_DMA0_SRC 0 960\n\
             NPU_SET_DMA0_DST 0 0\nNPU_SET_DMA0_LEN 0 128\nNPU_OP_DMA_START 0\nNPU_OP_STOP 0"
                .to_string(),
            true,
        ),
        // The driver ends an inference at any IRQ before cmd_end_reached:
        // the RTL runs on meanwhile, so QREAD is its own.
        ("an NPU_OP_IRQ before the copy", irq_then_copy, false),
    ];
    for (what, listing, same_qread) in cases {
        let broken = listing_job(&listing);
        let steps = [
            Step::Line("init"),
            Step::Line("invoke"),
            Step::Payload(payload_of(Driver::Core, &good)),
            Step::Line("invoke"),
        ];
        let [golden, rtl] = both(Driver::Core, &broken, &steps);
        for o in [&golden, &rtl] {
            assert_eq!(o.init, 0, "{what}: {}", o.stderr);
            assert_eq!(o.invocations.len(), 2, "{what}");
            assert_eq!(
                o.invocations[0].rc, -1,
                "{what}: the broken stream fails: {}",
                o.stderr
            );
            assert_eq!(
                seen(&o.invocations[1]),
                (0, expected.run.status, expected.run.qread, true),
                "{what}: the next one runs: {}",
                o.stderr
            );
            assert_eq!(o.regions[&1], expected.run.regions[&1], "{what}: the copy");
        }
        let (g, r) = (&golden.invocations[0], &rtl.invocations[0]);
        assert_eq!(
            (g.status, g.irq),
            (r.status, r.irq),
            "{what}: STATUS at the IRQ"
        );
        if same_qread {
            assert_eq!(g.qread, r.qread, "{what}: QREAD at the IRQ");
        }
    }
}

/// Two good invocations in a row, in secure privileged and non-secure user
/// mode, each the same as the golden model's run through the Rust driver.
#[test]
fn the_core_driver_runs_invocation_after_invocation_in_every_mode() {
    let good = listing_job(COPY);
    let expected = run_job(&good, &mut GoldenBackend::default(), &mut |_, _| {}).unwrap();
    for levels in ["levels 1 1", "levels 0 0"] {
        let steps = [
            Step::Line(levels),
            Step::Line("init"),
            Step::Line("invoke"),
            Step::Line("invoke"),
        ];
        for o in both(Driver::Core, &good, &steps) {
            assert_eq!(o.init, 0, "{levels}: {}", o.stderr);
            for i in &o.invocations {
                assert_eq!(
                    seen(i),
                    (0, expected.run.status, expected.run.qread, true),
                    "{levels}: {}",
                    o.stderr
                );
            }
            assert_eq!(o.regions, expected.run.regions, "{levels}");
        }
    }
}

/// The core driver's IRQ wait times out while a copy runs on the RTL: its
/// error path soft-resets the running NPU, and the next invocation runs.
#[test]
fn a_soft_reset_while_an_operation_runs_leaves_the_npu_ready_for_the_next() {
    let good = listing_job(COPY);
    let expected = run_job(&good, &mut GoldenBackend::default(), &mut |_, _| {}).unwrap();
    let steps = [
        Step::Line("init"),
        Step::Line("budget 40"),
        Step::Line("invoke"),
        Step::Line("budget 50000000"),
        Step::Line("invoke"),
    ];
    let o = run_script(Driver::Core, "rtl", &good, &steps);
    assert_eq!(o.init, 0, "{}", o.stderr);
    assert_eq!(o.invocations[0].rc, -1, "the wait timed out: {}", o.stderr);
    assert!(
        o.invocations[0].status & 1 == 1,
        "still running at the timeout"
    );
    assert_eq!(
        seen(&o.invocations[1]),
        (0, expected.run.status, expected.run.qread, true),
        "{}",
        o.stderr
    );
    assert_eq!(o.regions, expected.run.regions);
}

/// Linux's driver fails a job on a parse or bus error, resets nothing
/// itself, and runs the next job after its reset.
#[test]
fn accel_ethosu_fails_a_broken_job_and_runs_the_next_after_its_reset() {
    let good = listing_job(COPY);
    let expected = run_job(&good, &mut GoldenBackend::default(), &mut |_, _| {}).unwrap();
    for (what, listing) in [
        ("a parse error", ".word 0x000003ff\nNPU_OP_STOP 0"),
        (
            "a bus error",
            "NPU_SET_DMA0_SRC_REGION 0\nNPU_SET_DMA0_DST_REGION 1\nNPU_SET_DMA0_SRC 0 960\n\
             NPU_SET_DMA0_DST 0 0\nNPU_SET_DMA0_LEN 0 128\nNPU_OP_DMA_START 0\nNPU_OP_STOP 0",
        ),
    ] {
        let broken = listing_job(listing);
        let steps = [
            Step::Line("init"),
            Step::Line("invoke"),
            Step::Payload(payload_of(Driver::Linux, &good)),
            Step::Line("init"),
            Step::Line("invoke"),
        ];
        let [golden, rtl] = both(Driver::Linux, &broken, &steps);
        for o in [&golden, &rtl] {
            assert_eq!(o.invocations[0].rc, -1, "{what}: {}", o.stderr);
            assert_eq!(o.invocations[1].rc, 0, "{what}: {}", o.stderr);
            assert_eq!(o.regions[&1], expected.run.regions[&1], "{what}");
        }
        assert_eq!(
            seen(&golden.invocations[0]),
            seen(&rtl.invocations[0]),
            "{what}"
        );
        assert_eq!(
            seen(&golden.invocations[1]),
            seen(&rtl.invocations[1]),
            "{what}"
        );
    }
}
