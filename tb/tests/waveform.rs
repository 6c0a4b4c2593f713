//! Waveforms, VCD and FST: a window of cycles with the design hierarchy in
//! it, a job's whole run or a window of it, the format a name asks for, and
//! paths that cannot be written.

use npu_arch::regs;
use npu_model::job::{run_job, Job};
use npu_tb::fst;
use npu_tb::npu::{NpuTb, Waveform};
use npu_tb::rtl_backend::RtlBackend;
use npu_tb::verilator::build::workspace_root;
use npu_tb::verilator::{TraceWindow, WaveFormat};
use std::collections::HashSet;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

fn scopes_and_vars(items: &[vcd::ScopeItem], path: &str, out: &mut HashSet<String>) {
    for item in items {
        match item {
            vcd::ScopeItem::Scope(s) => {
                let p = format!("{path}/{}", s.identifier);
                out.insert(p.clone());
                scopes_and_vars(&s.items, &p, out);
            }
            vcd::ScopeItem::Var(v) => {
                out.insert(format!("{path}/{}", v.reference));
            }
            _ => {}
        }
    }
}

/// Writes a waveform of 20 register writes and reads in a window after the
/// reset, and returns the window.
fn apb_traffic(path: &Path, format: WaveFormat) -> TraceWindow {
    // A window after the reset, which takes as many cycles on the untraced build.
    let start = NpuTb::with_waveform("u65-256", None).unwrap().model.cycle() + 2;
    let window = TraceWindow {
        start,
        end: start + 20,
    };
    let waveform = Waveform {
        path: path.to_path_buf(),
        window,
        format,
    };
    let mut tb = NpuTb::with_waveform("u65-256", Some(waveform)).unwrap();
    assert_eq!(tb.model.cycle() + 2, start);
    for _ in 0..20 {
        tb.write(regs::QBASE0.address, 0xCAFE_F00D, 0b001);
        tb.read(regs::QBASE0.address, 0b001);
    }
    window
}

/// The APB ports at the top and the register file inside.
fn assert_apb_and_register_file(names: &HashSet<String>) {
    for wanted in ["PSEL", "PENABLE", "PREADY", "PRDATA", "PADDR"] {
        assert!(
            names
                .iter()
                .any(|n| n.ends_with(&format!("npu_u65_256/{wanted}"))),
            "{wanted} missing"
        );
    }
    assert!(
        names
            .iter()
            .any(|n| n.contains("/core/regs/") || n.ends_with("regs$rdata")),
        "the register file is not in the hierarchy: {:?}",
        names
            .iter()
            .filter(|n| n.contains("regs"))
            .take(5)
            .collect::<Vec<_>>()
    );
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("npu-waveform-{}-{name}", std::process::id()))
}

#[test]
fn vcd_holds_the_apb_signals_and_the_register_file_in_the_window() {
    let path = temp_path("apb.vcd");
    let window = apb_traffic(&path, WaveFormat::Vcd);

    let mut parser = vcd::Parser::new(BufReader::new(File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    let mut names = HashSet::new();
    scopes_and_vars(&header.items, "", &mut names);
    assert_apb_and_register_file(&names);
    let mut times = vec![];
    for command in parser {
        if let vcd::Command::Timestamp(t) = command.unwrap() {
            times.push(t);
        }
    }
    assert!(!times.is_empty());
    assert!(
        times
            .iter()
            .all(|t| (2 * window.start..2 * window.end).contains(t)),
        "{times:?}"
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn fst_holds_the_apb_signals_and_the_register_file_in_the_window() {
    let path = temp_path("apb.fst");
    let window = apb_traffic(&path, WaveFormat::Fst);

    let file = fst::read(&path).unwrap();
    assert_apb_and_register_file(&file.names.iter().cloned().collect());
    // Both edges of every cycle of the window: times 2 * cycle and 2 * cycle + 1.
    assert_eq!(
        (file.start_time, file.end_time),
        (2 * window.start, 2 * window.end - 1)
    );
    assert!(file.value_blocks > 0 && file.vars > 100, "{file:?}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_job_s_fst_spans_its_run_or_its_window() {
    let job = Job::load(
        &workspace_root().join("model/tests/fixtures/jobs/dma_256"),
        None,
    )
    .unwrap();
    let run = |waveform: Waveform| {
        let mut backend = RtlBackend {
            waveform: Some(waveform.clone()),
            ..RtlBackend::default()
        };
        let report = run_job(&job, &mut backend, &mut |_, _| {}).unwrap();
        assert!(report.passed(), "{}", report.summary());
        // Dropping the bench closes the file.
        let cycles = backend.last.take().unwrap().model.cycle();
        let file = fst::read(&waveform.path).unwrap();
        std::fs::remove_file(&waveform.path).unwrap();
        (cycles, file)
    };

    // By the name's extension: every cycle from the reset on.
    let (cycles, file) = run(Waveform::new(temp_path("job.fst"), TraceWindow::ALL));
    assert_eq!((file.start_time, file.end_time), (0, 2 * cycles - 1));
    for wanted in ["CLK", "nRESET", "ARVALIDM1", "WDATAM1", "IRQ"] {
        let name = format!("npu_u65_256/{wanted}");
        assert!(file.names.contains(&name), "{name} missing");
    }
    assert!(
        file.names.iter().any(|n| n.contains("npu_u65_256/core/")),
        "no hierarchy below the top"
    );

    // Asked for as FST whatever the name, in a window of the run.
    let window = TraceWindow {
        start: 100,
        end: 300,
    };
    assert!(cycles > window.end, "{cycles} cycles");
    let (_, file) = run(Waveform::fst(temp_path("job-window.wave"), window).unwrap());
    assert_eq!((file.start_time, file.end_time), (200, 599));
}

#[test]
fn waveforms_that_cannot_be_written_or_name_the_other_format_are_refused() {
    assert_eq!(WaveFormat::of_path(Path::new("a/b.fst")), WaveFormat::Fst);
    assert_eq!(WaveFormat::of_path(Path::new("b.FST")), WaveFormat::Fst);
    for vcd in ["b.vcd", "b", "b.fst.txt", "fst"] {
        assert_eq!(
            WaveFormat::of_path(Path::new(vcd)),
            WaveFormat::Vcd,
            "{vcd}"
        );
    }
    let error = Waveform::fst("out.vcd".into(), TraceWindow::ALL).unwrap_err();
    assert!(
        error.to_string().contains("names a VCD, not an FST"),
        "{error}"
    );

    for name in ["w.fst", "w.vcd"] {
        let path = Path::new("/nonexistent-npu-dir").join(name);
        let waveform = Waveform::new(path.clone(), TraceWindow::ALL);
        let error = NpuTb::with_waveform("u65-256", Some(waveform))
            .err()
            .expect("an unwritable path is refused");
        let text = format!("{error:#}");
        let format = WaveFormat::of_path(&path);
        assert!(
            text.contains(&format!(
                "cannot write the {format} file {}",
                path.display()
            )) && text.contains("No such file"),
            "{text}"
        );
    }
}

#[test]
fn trace_windows_parse() {
    assert_eq!(
        TraceWindow::parse("10:20").unwrap(),
        TraceWindow { start: 10, end: 20 }
    );
    assert_eq!(
        TraceWindow::parse(":5").unwrap(),
        TraceWindow { start: 0, end: 5 }
    );
    assert_eq!(TraceWindow::parse("7:").unwrap().end, u64::MAX);
    assert!(TraceWindow::parse("5:5").is_err());
    assert!(TraceWindow::parse("x:9").unwrap_err().contains("'x'"));
    assert!(TraceWindow::parse("12").is_err());
}
