//! `npu-sim sweep`: networks x configurations x memory systems on the RTL.
//!
//! Every Vela output of every network (`model_vela*.tflite`: one per
//! configuration it was compiled for) runs on the RTL behind every asked
//! memory system (Vela's system configurations, [`SYSTEM_CONFIGS`], as
//! Vela's estimate models them), its outputs compared byte for byte with
//! the network's expected ones. The items are numbered in that order
//! (network by name, model, memory) and split into shards as every
//! regression is ([`crate::regress`]).

use crate::networks::BundledNetwork;
use crate::regress::{CaseResult, Shard, Summary};
use anyhow::{ensure, Context, Result};
use npu_model::job::compare;
use npu_model::tflite::VelaModel;
use npu_tb::axi::{SystemConfig, SYSTEM_CONFIGS};
use npu_tb::rtl_backend::RtlBackend;
use std::path::PathBuf;
use std::time::Instant;

/// One run of the sweep.
#[derive(Clone, Debug)]
pub struct SweepItem {
    pub network: String,
    pub model: PathBuf,
    pub config: String,
    pub memory: &'static SystemConfig,
    pub inputs: Vec<PathBuf>,
    pub expected: Vec<PathBuf>,
}

impl SweepItem {
    pub fn name(&self) -> String {
        format!("{} {} {}", self.network, self.config, self.memory.name)
    }
}

/// The memory systems named (comma-separated), or all of them for `all`.
pub fn memories(names: &str) -> Result<Vec<&'static SystemConfig>> {
    if names == "all" {
        return Ok(SYSTEM_CONFIGS.iter().collect());
    }
    names
        .split(',')
        .map(|name| SystemConfig::by_name(name.trim()).map_err(anyhow::Error::msg))
        .collect()
}

/// Every network's models behind every memory, in sweep order.
pub fn items(
    networks: &[BundledNetwork],
    memories: &[&'static SystemConfig],
) -> Result<Vec<SweepItem>> {
    let mut items = Vec::new();
    for network in networks {
        ensure!(
            !network.models.is_empty(),
            "{}: no model_vela*.tflite in the folder",
            network.dir.display()
        );
        ensure!(
            !network.expected.is_empty(),
            "{}: no expected.bin (or expected0.bin, ...) in the folder",
            network.dir.display()
        );
        for model in &network.models {
            let config = VelaModel::load(model)?.config()?.name;
            for memory in memories {
                items.push(SweepItem {
                    network: network.name.clone(),
                    model: model.clone(),
                    config: config.clone(),
                    memory,
                    inputs: network.inputs.clone(),
                    expected: network.expected.clone(),
                });
            }
        }
    }
    Ok(items)
}

/// Runs one item on the RTL: passed when every output matches.
pub fn run_item(case: u64, item: &SweepItem) -> CaseResult {
    let started = Instant::now();
    let outcome = run_network(item);
    let (passed, detail, cycles) = match outcome {
        Ok((cycles, mismatches)) if mismatches.is_empty() => (
            true,
            format!("{cycles} cycles, every output matches"),
            Some(cycles),
        ),
        Ok((cycles, mismatches)) => (false, mismatches.join("; "), Some(cycles)),
        Err(e) => (false, format!("{e:#}"), None),
    };
    CaseResult {
        case,
        name: item.name(),
        passed,
        detail,
        seconds: started.elapsed().as_secs_f64(),
        cycles,
    }
}

/// The run's cycles and its outputs' mismatches.
fn run_network(item: &SweepItem) -> Result<(u64, Vec<String>)> {
    let read = |p: &PathBuf| std::fs::read(p).with_context(|| format!("reading {}", p.display()));
    let vela = VelaModel::load(&item.model)?;
    let inputs = item.inputs.iter().map(read).collect::<Result<Vec<_>>>()?;
    ensure!(
        item.expected.len() == vela.outputs.len(),
        "the network has {} outputs and {} expected files",
        vela.outputs.len(),
        item.expected.len()
    );
    let mut rtl = RtlBackend {
        settings: item.memory.axi_settings(),
        axi_configs: [
            item.memory.completer(0, false),
            item.memory.completer(1, false),
        ],
        ..RtlBackend::default()
    };
    let net = vela
        .run(vela.config()?, &inputs, &mut rtl, &mut |_, _| {})
        .with_context(|| format!("running {} on the RTL", item.model.display()))?;
    let mut mismatches = Vec::new();
    for ((bytes, tensor), path) in net.outputs.iter().zip(&vela.outputs).zip(&item.expected) {
        if let Some(m) = compare(&tensor.name, &read(path)?, bytes) {
            mismatches.push(format!("MISMATCH {m}"));
        }
    }
    Ok((net.run.cycles.unwrap_or_default(), mismatches))
}

/// Runs `shard`'s items; `progress` gets each result as it comes.
pub fn run(
    items: &[SweepItem],
    description: String,
    shard: Shard,
    run_id: Option<&str>,
    progress: &mut dyn FnMut(&CaseResult),
) -> Summary {
    let mut results = Vec::new();
    for (case, item) in items.iter().enumerate() {
        if shard.includes(case as u64) {
            let result = run_item(case as u64, item);
            progress(&result);
            results.push(result);
        }
    }
    Summary {
        suite: "sweep".into(),
        run: description,
        shard,
        suite_cases: items.len() as u64,
        results,
        run_id: run_id.map(str::to_string),
    }
}
