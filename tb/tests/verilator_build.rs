//! The simulation build of the NPU: its generated Verilator configuration
//! takes effect (Verilator ignores a name it does not know, silently).

use npu_tb::verilator::build::workspace_root;
use npu_tb::verilator::{build, DesignFiles, Trace};
use std::fs;

#[test]
fn every_combinational_block_is_read_and_every_isolation_splits_a_block() {
    let design = DesignFiles::load(&workspace_root().join("verilog-out"), "npu_u65_256")
        .expect("make verilog first");
    let lib = build(&design, Trace::Off).unwrap_or_else(|e| panic!("{e}"));
    let dir = lib.parent().unwrap();

    let config = fs::read_to_string(dir.join("isolate.vlt")).unwrap();
    assert!(
        !config.contains("not read"),
        "blocks the generator could not read:\n{config}"
    );
    let isolated = config
        .lines()
        .filter(|l| l.starts_with("isolate_assignments"))
        .count();
    assert!(isolated > 1000, "only {isolated} variables isolated");

    // Each isolated variable of each module instance moves into a block of its own.
    let stats = fs::read_to_string(dir.join("obj/Vnpu_u65_256__stats.txt")).unwrap();
    let splits: usize = stats
        .lines()
        .find(|l| l.contains("isolate_assignments blocks"))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no isolate_assignments count in the stats:\n{stats}"));
    assert!(
        splits >= isolated,
        "{splits} blocks split for {isolated} isolated variables"
    );
}
