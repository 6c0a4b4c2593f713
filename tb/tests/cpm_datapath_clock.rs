//! The datapath's clock gate in the clock and power module: the datapath's
//! clock ticks while it has an operation (and a few cycles after), stops
//! while it is idle, and DFTCGEN holds it open. Read from a waveform of a
//! small convolution run, which must still agree with the golden model.

use npu_model::compare::difference;
use npu_model::tensor::DType;
use npu_tb::conv_jobs::{golden_run, ConvKind, ConvSpec};
use npu_tb::npu::{NpuTb, Waveform};
use npu_tb::rtl_backend::RtlBackend;
use npu_tb::seed::seed;
use npu_tb::verilator::TraceWindow;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;

/// Idle cycles traced after the run.
const IDLE_AFTER: u64 = 40;

/// Rising edges of the core clock and of the datapath's clock per traced
/// cycle, from the VCD at `path` (timestamps are two per cycle).
fn rising_edges(path: &std::path::Path) -> (Vec<u64>, Vec<u64>) {
    let mut parser = vcd::Parser::new(BufReader::new(File::open(path).unwrap()));
    let header = parser.parse_header().unwrap();
    let find = |suffix: &[&str]| -> vcd::IdCode {
        header
            .find_var(suffix)
            .unwrap_or_else(|| panic!("no {suffix:?} in the waveform"))
            .code
    };
    let core = find(&["npu_u65_256", "npu_u65_256", "core", "cpm", "core_clock"]);
    let datapath = find(&[
        "npu_u65_256",
        "npu_u65_256",
        "core",
        "cpm",
        "datapath_clock",
    ]);
    let mut edges: HashMap<vcd::IdCode, Vec<u64>> = HashMap::new();
    let mut time = 0;
    for command in parser {
        match command.unwrap() {
            vcd::Command::Timestamp(t) => time = t,
            vcd::Command::ChangeScalar(code, vcd::Value::V1) => {
                edges.entry(code).or_default().push(time / 2)
            }
            _ => {}
        }
    }
    (
        edges.remove(&core).unwrap_or_default(),
        edges.remove(&datapath).unwrap_or_default(),
    )
}

/// Runs a small convolution on a bench traced from its first cycle, with
/// DFTCGEN as given from the end of the bench's reset on; returns the
/// rising edges of the core and datapath clocks from then on and the
/// cycle the trace ends.
fn traced_run(dftcgen: bool) -> (Vec<u64>, Vec<u64>, u64) {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let spec = ConvSpec::new(ConvKind::Conv, DType::I8, [4, 4, 16], 16, [3, 3]);
    let cj = spec.build(&mut rng).expect("a valid convolution");
    let golden = golden_run(&cj.job).expect("the golden model runs the job");
    let path = std::env::temp_dir().join(format!(
        "npu-datapath-clock-{}-{dftcgen}.vcd",
        std::process::id()
    ));
    let waveform = Waveform::new(path.clone(), TraceWindow::ALL);
    let mut tb = NpuTb::with_waveform("u65-256", Some(waveform)).unwrap();
    tb.set("DFTCGEN", u64::from(dftcgen));
    let start = tb.model.cycle();
    let mut rtl = RtlBackend::default();
    let run = rtl
        .run_on(tb, &cj.job, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("seed {seed}: {e:#}"));
    if let Some(d) = difference(&golden, &run) {
        panic!("seed {seed}: {d}");
    }
    let mut tb = rtl.last.take().expect("the bench of the run");
    tb.cycles(IDLE_AFTER);
    let end = tb.model.cycle();
    drop(tb);
    let (core, datapath) = rising_edges(&path);
    std::fs::remove_file(&path).unwrap();
    let from_start = |edges: Vec<u64>| edges.into_iter().filter(|&t| t >= start).collect();
    (from_start(core), from_start(datapath), end)
}

#[test]
fn the_datapath_clock_ticks_only_while_the_datapath_has_work() {
    let (core, datapath, end) = traced_run(false);
    assert!(!datapath.is_empty(), "the datapath's clock never ticked");
    // The accumulator clear of the driver's soft reset and the convolution
    // clock both; the register programming and the idle cycles only the core.
    assert!(
        datapath.len() < core.len(),
        "the datapath's clock ticked {} times in {} core cycles",
        datapath.len(),
        core.len()
    );
    // Every datapath edge is a core edge, and none is in the idle cycles
    // after the run.
    let core_edges: std::collections::HashSet<_> = core.iter().collect();
    assert!(datapath.iter().all(|t| core_edges.contains(t)));
    let last = *datapath.last().unwrap();
    assert!(
        last + IDLE_AFTER / 2 < end,
        "the datapath's clock ticked at cycle {last}, the run ended by {}",
        end - IDLE_AFTER
    );
}

#[test]
fn dftcgen_holds_the_datapath_clock_gate_open() {
    let (core, datapath, _) = traced_run(true);
    let first_difference = core.iter().zip(&datapath).position(|(c, d)| c != d);
    assert!(
        core.len() == datapath.len() && first_difference.is_none(),
        "{} core and {} datapath clock edges, first differing at edge {first_difference:?}",
        core.len(),
        datapath.len()
    );
}
