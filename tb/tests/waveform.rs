//! VCD dumping: a window of cycles with the design hierarchy in it.

use npu_arch::regs;
use npu_tb::npu::{NpuTb, Waveform};
use npu_tb::verilator::TraceWindow;
use std::collections::HashSet;
use std::fs::File;
use std::io::BufReader;

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

#[test]
fn vcd_holds_the_apb_signals_and_the_register_file_in_the_window() {
    let path = std::env::temp_dir().join(format!("npu-waveform-test-{}.vcd", std::process::id()));
    // A window after the reset, which takes as many cycles on the untraced build.
    let start = NpuTb::with_waveform("u65-256", None).unwrap().model.cycle() + 2;
    let window = TraceWindow {
        start,
        end: start + 20,
    };
    let waveform = Waveform {
        path: path.clone(),
        window,
    };
    let mut tb = NpuTb::with_waveform("u65-256", Some(waveform)).unwrap();
    assert_eq!(tb.model.cycle() + 2, start);
    for _ in 0..20 {
        tb.write(regs::QBASE0.address, 0xCAFE_F00D, 0b001);
        tb.read(regs::QBASE0.address, 0b001);
    }
    drop(tb);

    let mut parser = vcd::Parser::new(BufReader::new(File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    let mut names = HashSet::new();
    scopes_and_vars(&header.items, "", &mut names);
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
