//! The simulation build of the NPU: its generated Verilator configuration
//! takes effect (Verilator ignores a name it does not know, silently).

use npu_arch::config::NpuConfig;
use npu_tb::npu::npu_design;
use npu_tb::verilator::{build, Trace};
use std::fs;

#[test]
fn every_combinational_block_is_read_and_every_isolation_splits_a_block() {
    let design = npu_design(&NpuConfig::u65_256()).expect("make verilog first");
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

/// A module left whole (on a loop that splitting leaves) is evaluated on
/// every cycle of each clock domain its block reads, so a loop in the
/// datapath's top level re-evaluates the whole datapath on every cycle of
/// the always-clocked domains even while the datapath's clock is gated
/// (the APB workload of `make bench` ran at a third of its speed). Only the
/// IFM unit's conversion stage and the weight decoder's parser, which reuse
/// temporaries in their loops, are left whole.
#[test]
fn only_the_ifm_unit_and_the_weight_decoder_are_left_whole() {
    let design = npu_design(&NpuConfig::u65_256()).expect("make verilog first");
    let lib = build(&design, Trace::Off).unwrap_or_else(|e| panic!("{e}"));
    let config = fs::read_to_string(lib.parent().unwrap().join("isolate.vlt")).unwrap();
    let whole: Vec<&str> = config
        .lines()
        .filter(|l| l.ends_with("left whole"))
        .filter_map(|l| l.strip_prefix("// ")?.split(':').next())
        .collect();
    let unexpected: Vec<&&str> = whole
        .iter()
        .filter(|m| !(m.ends_with("$ifm_unit") || m.contains("$weight_decoder")))
        .collect();
    assert!(
        unexpected.is_empty(),
        "modules left whole besides the IFM unit and the weight decoder: {unexpected:?}"
    );
}
