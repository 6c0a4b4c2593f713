//! `npu-sim run --model rtl` as a user runs it: a job on the RTL with a
//! waveform (VCD or FST, by flag, name or environment), a run that never stops, the memory-system knobs and Vela's
//! memory systems.

use npu_tb::fst;
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

fn npu_sim(args: &[&str], dir: &Path) -> (bool, String) {
    npu_sim_with_env(args, dir, &[])
}

/// As [`npu_sim`] with environment variables set (and `NPU_VCD`, `NPU_FST`
/// cleared unless set here).
fn npu_sim_with_env(args: &[&str], dir: &Path, env: &[(&str, &Path)]) -> (bool, String) {
    let out = Command::new(npu_sim::npu_sim_exe!())
        .arg("run")
        .arg(dir)
        .args(args)
        .env_remove("NPU_VCD")
        .env_remove("NPU_FST")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn npu_sim_runs_a_job_on_the_rtl_with_a_waveform_and_reports_a_run_that_never_stops() {
    let dir = job_copy("dma_256", "npu-sim-rtl");
    let vcd = dir.join("run.vcd");
    let (ok, text) = npu_sim(
        &[
            "--model",
            "rtl",
            "--vcd",
            vcd.to_str().unwrap(),
            "--vcd-window",
            "0:300",
            "-q",
        ],
        &dir,
    );
    assert!(ok, "{text}");
    for word in ["backend rtl", "cycles ", "axi_m1_bytes_written 256", "PASS"] {
        assert!(text.contains(word), "{word} missing from: {text}");
    }
    // The per-layer table: the DMA's row with its cycles and its 256 bytes
    // read and written on M1 (regions 0 and 1 are on counters 3 and 2), the
    // stream's 48 bytes on M1.
    let row = |name: &str| -> Vec<&str> {
        let line = text.lines().find(|l| l.contains(name));
        line.unwrap_or_else(|| panic!("no {name} row in: {text}"))
            .split_whitespace()
            .collect()
    };
    let dma = row("NPU_OP_DMA_START");
    let [cycles, floor] = [5, 6].map(|i| dma[i].parse::<u64>().unwrap());
    assert!(cycles > 0, "Op Cycles: {dma:?}");
    // The floor: 256 bytes each way at 16 a cycle, behind an ideal memory.
    assert!(floor >= 16 && floor <= cycles, "Floor: {dma:?}");
    assert_eq!(dma[8..], ["0", "0", "256", "256"], "{dma:?}");
    assert_eq!(row("(command stream)")[2..], ["0", "0", "48", "0"]);
    assert_eq!(
        std::fs::read(dir.join("out/dst.bin")).unwrap(),
        std::fs::read(dir.join("dst.expected.bin")).unwrap()
    );
    let waveform = std::fs::read_to_string(&vcd).unwrap();
    assert!(
        waveform.contains("$scope module npu_u65_256"),
        "no hierarchy"
    );
    assert!(waveform.contains("ARVALIDM0"), "no AXI signals");

    std::fs::remove_dir_all(dir.join("out")).unwrap();
    let (ok, text) = npu_sim(&["--model", "rtl", "--max-cycles", "5", "-q"], &dir);
    assert!(!ok, "{text}");
    for word in [
        "error:",
        "rtl backend (add --vcd FILE or --fst FILE for a waveform)",
        "did not stop within 5 cycles",
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
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The CLI's memory-system knobs: a slower memory makes the same job take
/// longer and still pass; a setting for one port leaves the other alone; the
/// golden model, which has no timing, refuses them.
#[test]
fn npu_sim_writes_an_fst_by_flag_name_or_environment_and_refuses_bad_waveform_paths() {
    let dir = job_copy("dma_256", "npu-sim-fst");
    let rtl = ["--model", "rtl", "-q"];
    let fst = |path: &Path| {
        let file = fst::read(path).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            file.names.contains(&"npu_u65_256/ARVALIDM0".to_string()),
            "no AXI signals in {}",
            path.display()
        );
        file
    };

    // --fst whatever the name, in a window; --vcd of a name ending .fst; NPU_FST.
    let explicit = dir.join("run.wave");
    let window = [
        &rtl[..],
        &[
            "--fst",
            explicit.to_str().unwrap(),
            "--fst-window",
            "10:300",
        ],
    ];
    let (ok, text) = npu_sim(&window.concat(), &dir);
    assert!(ok, "{text}");
    let file = fst(&explicit);
    assert_eq!(file.start_time, 20);
    assert!(file.end_time <= 599, "{file:?}");
    let by_name = dir.join("by-name.fst");
    let (ok, text) = npu_sim(
        &[&rtl[..], &["--vcd", by_name.to_str().unwrap()]].concat(),
        &dir,
    );
    assert!(ok, "{text}");
    fst(&by_name);
    let from_env = dir.join("env.fst");
    let (ok, text) = npu_sim_with_env(&rtl, &dir, &[("NPU_FST", &from_env)]);
    assert!(ok, "{text}");
    assert_eq!(fst(&from_env).start_time, 0);

    let unwritable = Path::new("/nonexistent-npu-dir/run.fst");
    // Arguments, environment, what the error says.
    type Refusal<'a> = (Vec<&'a str>, &'a [(&'a str, &'a Path)], &'a str);
    let refusals: [Refusal; 5] = [
        (
            vec!["--fst", "run.vcd"],
            &[],
            "run.vcd names a VCD, not an FST",
        ),
        (
            vec!["--vcd", "a.vcd", "--fst", "b.fst"],
            &[],
            "cannot be used with",
        ),
        (
            vec!["--fst", unwritable.to_str().unwrap()],
            &[],
            "cannot write the FST file /nonexistent-npu-dir/run.fst: No such file",
        ),
        (
            vec![],
            &[("NPU_FST", Path::new("env.vcd"))],
            "env.vcd names a VCD",
        ),
        (
            vec![],
            &[("NPU_FST", &from_env), ("NPU_VCD", &from_env)],
            "set NPU_VCD or NPU_FST, not both",
        ),
    ];
    for (args, env, wanted) in refusals {
        let (ok, text) = npu_sim_with_env(&[&rtl[..], &args].concat(), &dir, env);
        assert!(!ok, "{args:?} {env:?}: {text}");
        assert!(
            text.contains(wanted),
            "{args:?} {env:?}: {wanted} missing from: {text}"
        );
        assert!(!text.contains("panicked"), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn npu_sim_sweeps_the_memory_behind_the_ports() {
    let dir = job_copy("dma_4000_512", "npu-sim-memory");
    let run = |args: &[&str]| -> Counters {
        let (ok, text) = npu_sim(&[&["--model", "rtl", "-q"], args].concat(), &dir);
        assert!(ok, "{args:?}: {text}");
        Counters(text)
    };
    let ideal = run(&[]).get("cycles");
    let slow = run(&["--mem-latency", "30", "--mem-outstanding", "2"]).get("cycles");
    let narrow = run(&["--mem-bandwidth", "4"]).get("cycles");
    // The job copies 4000 bytes, reading and writing them on M1 (regions 0
    // and 1 are on counters 3 and 2): at 4 bytes per cycle, reads and
    // writes together, that is at least 2000 cycles.
    assert!(
        slow > 2 * ideal,
        "latency 30, 2 outstanding: {slow} vs {ideal} cycles"
    );
    assert!(
        narrow >= 2000 - 256 / 4,
        "4 bytes per cycle: {narrow} cycles"
    );
    // One outstanding transaction at latency 30 stalls the addresses of the
    // port it is set for, and only there: M0 carries nothing of this job.
    let slow_m1 = run(&["--mem-latency", "m1=30", "--mem-outstanding", "m1=1"]);
    assert!(slow_m1.get("axi_m1_read_address_stalls") > 0);
    assert!(slow_m1.get("axi_m1_write_address_stalls") > 0);
    assert!(slow_m1.get("cycles") > 2 * ideal);
    let slow_m0 = run(&["--mem-latency", "m0=30", "--mem-outstanding", "M0=1"]);
    assert_eq!(
        slow_m0.get("cycles"),
        ideal,
        "M0 carries nothing of this job"
    );

    let (ok, text) = npu_sim(&["--mem-latency", "5"], &dir);
    assert!(!ok && text.contains("--mem-* need --model rtl"), "{text}");
    for (args, message) in [
        (["--mem-bandwidth", "20"], "at most 16"),
        (["--mem-bandwidth", "m1=0"], "more than 0"),
        (["--mem-latency", "m2=3"], "\"m2\" is no AXI port"),
        (["--mem-outstanding", "0"], "at least 1"),
    ] {
        let (ok, text) = npu_sim(&[&["--model", "rtl"], &args[..]].concat(), &dir);
        assert!(!ok && text.contains(message), "{args:?}: {text}");
        assert!(!text.contains("panicked"), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `npu-sim --memory NAME` puts one of Vela's system configurations behind
/// the ports: Ethos_U65_Client_Server's DRAM on M1 (500 cycles of read
/// latency, 12 bytes a cycle) slows the job's M1 reads by its latency and
/// bandwidth; a --mem-* flag overrides one value of it; --memory-limits adds
/// its outstanding limits; an unknown name and --memory without the RTL are
/// clear errors.
#[test]
fn npu_sim_runs_behind_vela_s_memory_systems() {
    let dir = job_copy("dma_4000_512", "npu-sim-systems");
    let run = |args: &[&str]| -> u64 {
        let (ok, text) = npu_sim(&[&["--model", "rtl", "-q"], args].concat(), &dir);
        assert!(ok, "{args:?}: {text}");
        Counters(text).get("cycles")
    };
    let ideal = run(&[]);
    let preset = run(&["--memory", "Ethos_U65_Client_Server"]);
    let (_, text) = npu_sim(
        &["--model", "rtl", "-q", "--memory", "Ethos_U65_High_End"],
        &dir,
    );
    assert!(
        text.contains("memory: Ethos_U65_High_End: AXI0 Sram")
            && text.contains("AXI1 Dram (500/250"),
        "the run names its memory: {text}"
    );
    let m1_fast = run(&[
        "--memory",
        "Ethos_U65_Client_Server",
        "--mem-latency",
        "m1=0",
        "--mem-bandwidth",
        "m1=16",
    ]);
    let limited = run(&["--memory", "Ethos_U65_Client_Server", "--memory-limits"]);
    // 4000 bytes from M1 at 12 bytes a cycle behind 500 cycles of latency.
    assert!(preset >= ideal + 500, "{preset} vs {ideal} cycles");
    assert!(preset >= 4000 / 12, "{preset} cycles");
    assert!(
        m1_fast + 400 < preset,
        "M1 overridden: {m1_fast} vs {preset}"
    );
    assert!(limited >= preset, "with limits {limited} vs {preset}");
    for (args, message) in [
        (
            &["--model", "rtl", "--memory", "Ethos_U65_Big"][..],
            "not one of Vela's system configurations",
        ),
        (&["--model", "rtl", "--memory-limits"][..], "--memory"),
        (
            &["--memory", "Ethos_U65_Client_Server"][..],
            "need --model rtl",
        ),
    ] {
        let (ok, text) = npu_sim(args, &dir);
        assert!(!ok && text.contains(message), "{args:?}: {text}");
        assert!(!text.contains("panicked"), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `NAME VALUE` lines `npu-sim run --model rtl` prints.
struct Counters(String);

impl Counters {
    fn get(&self, name: &str) -> u64 {
        self.0
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in: {}", self.0))
    }
}
