//! The testplans (`tb/tests/areas/<area>.rs`, the runner's
//! `sim/tests/areas/runner.rs`, the C API's `capi/tests/areas/device.rs`):
//! each area's table names every test of its
//! blocks' modules, and nothing else, so a plan cannot fall behind its
//! tests.

use std::collections::BTreeSet;

/// `#[test]` function names in a test file.
fn test_names(source: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut pending = false;
    for line in source.lines().map(str::trim) {
        if line == "#[test]" {
            pending = true;
        } else if pending {
            if let Some(rest) = line.strip_prefix("fn ") {
                names.insert(rest.split('(').next().unwrap_or_default().to_string());
                pending = false;
            }
        }
    }
    names
}

#[test]
fn every_area_testplan_names_exactly_its_tests() {
    let root = npu_tb::verilator::workspace_root();
    let mut areas = 0;
    let area_files = ["tb/tests", "sim/tests", "capi/tests"].map(|dir| {
        let dir = root.join(dir);
        let files = std::fs::read_dir(dir.join("areas")).unwrap();
        files.map(move |entry| (dir.clone(), entry.unwrap().path()))
    });
    for (tests, path) in area_files.into_iter().flatten() {
        let source = std::fs::read_to_string(&path).unwrap();
        // Each block's module: `#[path = "../<file>"]` then `mod <block>;`.
        let mut declared = BTreeSet::new();
        let lines: Vec<&str> = source.lines().collect();
        for pair in lines.windows(2) {
            let file = pair[0]
                .strip_prefix("#[path = \"../")
                .and_then(|l| l.strip_suffix("\"]"));
            let module = pair[1]
                .strip_prefix("mod ")
                .and_then(|l| l.strip_suffix(';'));
            if let (Some(file), Some(module)) = (file, module) {
                let text = std::fs::read_to_string(tests.join(file)).unwrap();
                declared.extend(
                    test_names(&text)
                        .into_iter()
                        .map(|t| format!("{module}::{t}")),
                );
            }
        }
        let planned: BTreeSet<String> = source
            .lines()
            .filter(|l| l.starts_with("//! |"))
            .flat_map(|l| l.split('`').skip(1).step_by(2).map(str::to_string))
            .collect();
        assert!(!declared.is_empty(), "{}: no tests", path.display());
        assert_eq!(
            planned,
            declared,
            "{}: the testplan and the tests differ",
            path.display()
        );
        areas += 1;
    }
    assert!(areas >= 12, "{areas} areas");
}
