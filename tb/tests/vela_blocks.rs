//! `npu_tb::vela_blocks` is Vela's block search: on every operation of the
//! reference table (`tb/tests/fixtures/vela_block_configs.json`, written by
//! `scripts/vela/block_configs.py` from Vela 5.2.0 itself: every kind,
//! width, kernel, stride, dilation and resampling, both configurations) it
//! gives Vela's OFM block, IFM block, IFM_IB_END, IFM2_IB_START, AB_START,
//! accumulator width and weight order.

use npu_tb::vela_blocks::{find_block_config, BlockConfig, BlockQuery};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    query: BlockQuery,
    vela: Option<BlockConfig>,
}

#[derive(Deserialize)]
struct Table {
    cases: Vec<Case>,
}

#[test]
fn the_block_search_gives_vela_s_answer_on_every_reference_operation() {
    let path =
        npu_tb::verilator::workspace_root().join("tb/tests/fixtures/vela_block_configs.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let table: Table =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        table.cases.len() >= 1000,
        "the table has {} cases",
        table.cases.len()
    );
    let wrong: Vec<String> = table
        .cases
        .iter()
        .filter_map(|case| {
            let ours = find_block_config(&case.query);
            (ours != case.vela)
                .then(|| format!("{:?}\n  Vela {:?}\n  ours {ours:?}", case.query, case.vela))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} operations differ from Vela, the first:\n{}",
        wrong.len(),
        table.cases.len(),
        wrong[..wrong.len().min(3)].join("\n")
    );
}
