//! The code-coverage mechanism of `make coverage` on one small block: a
//! coverage build, its data written when the model is dropped, and the
//! report's tables mapping the block's modules to their Rust structs.

use npu_tb::block::BlockTb;
use npu_tb::coverage_report::{Kind, Report};
use npu_tb::verilator::build::workspace_root;
use npu_tb::verilator::coverage::{coverage_dir, COVERAGE_ENV};
use std::process::Command;

const TEST: &str = "code_coverage::a_block_s_coverage_run_reports_its_modules";

/// Run in a process of its own with `NPU_COVERAGE` set (the variable is
/// read once per process): drives the scale-record block, then reports.
#[test]
fn a_block_s_coverage_run_reports_its_modules() {
    if coverage_dir().is_some() {
        let mut tb = BlockTb::new("scale_records", 1).unwrap();
        let beat_words = tb.model.width(tb.model.port("bytes_data")).div_ceil(32);
        tb.reset();
        let source = tb.source("bytes", 0.7);
        // Always ready: the beats are not records the block is meant for.
        tb.sink("records", 1.0);
        tb.sources[source].queue = (0..40u32)
            .map(|i| {
                (0..beat_words as u32)
                    .map(|w| i.wrapping_mul(0x9e37_79b9) ^ w)
                    .collect()
            })
            .collect();
        for _ in 0..200 {
            tb.tick();
        }
        return;
    }
    let dir = std::env::temp_dir().join(format!("npu-coverage-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST, "--quiet"])
        .env(COVERAGE_ENV, &dir)
        .status()
        .unwrap();
    assert!(status.success(), "the coverage run failed");

    let report = Report::new(&dir, &workspace_root(), &[]).unwrap();
    let core = report
        .rows
        .iter()
        .find(|r| r.module == "scale_records_core")
        .expect("the block's core module in the report");
    assert_eq!(core.origin.name(), "ScaleRecords");
    assert!(core
        .origin
        .update_location(&workspace_root())
        .starts_with("hw/src/output_unit/scale_records.rs:"));
    for kind in Kind::ALL {
        let tally = core.tallies.get(&kind).copied().unwrap_or_default();
        assert!(
            tally.covered > 0 && tally.covered <= tally.total,
            "{kind:?}: {tally:?}"
        );
    }
    assert!(report.rows.iter().any(|r| r.module == "scale_records"));
    assert!(report.summary().contains("| `ScaleRecords` |"));
    let _ = std::fs::remove_dir_all(&dir);
}
