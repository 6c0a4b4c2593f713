//! The bundled Vela-compiled networks (`model/tests/fixtures/networks`):
//! each folder's source `model.tflite`, Vela's output for the
//! configuration it was made for (`model_vela.tflite`) and for the other
//! one (`model_vela_<config>.tflite`, `scripts/vela/other_config.py`), and
//! its input and expected output files; and the real third-party networks
//! of `../shared/real-networks` where that folder is.

use anyhow::Context;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One bundled network.
#[derive(Clone, Debug)]
pub struct BundledNetwork {
    pub name: String,
    pub dir: PathBuf,
    /// Its Vela outputs (`model_vela*.tflite`), sorted.
    pub models: Vec<PathBuf>,
    /// Its input files in input order: `input.bin`, or `input0.bin`,
    /// `input1.bin`, ...
    pub inputs: Vec<PathBuf>,
    /// Its expected outputs in output order, named alike (`expected*.bin`).
    pub expected: Vec<PathBuf>,
}

impl BundledNetwork {
    /// Its input files' bytes, in input order.
    pub fn read_inputs(&self) -> std::io::Result<Vec<Vec<u8>>> {
        self.inputs.iter().map(std::fs::read).collect()
    }
}

/// `dir/<stem>.bin` if it exists, else `dir/<stem>0.bin`, `dir/<stem>1.bin`, ...
fn numbered_files(dir: &Path, stem: &str) -> Vec<PathBuf> {
    let single = dir.join(format!("{stem}.bin"));
    if single.exists() {
        return vec![single];
    }
    (0..)
        .map(|k| dir.join(format!("{stem}{k}.bin")))
        .take_while(|p| p.exists())
        .collect()
}

/// The folder of the bundled networks.
pub fn networks_dir() -> PathBuf {
    npu_tb::verilator::workspace_root().join("model/tests/fixtures/networks")
}

/// Every bundled network, by name.
pub fn bundled_networks() -> std::io::Result<Vec<BundledNetwork>> {
    networks_in(&networks_dir())
}

/// Every network folder in `folder` (laid out as the bundled ones), by name.
pub fn networks_in(folder: &Path) -> std::io::Result<Vec<BundledNetwork>> {
    let mut networks = Vec::new();
    for entry in std::fs::read_dir(folder)? {
        let dir = entry?.path();
        if !dir.is_dir() {
            continue;
        }
        let mut models = Vec::new();
        for file in std::fs::read_dir(&dir)? {
            let path = file?.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if name.starts_with("model_vela") && name.ends_with(".tflite") {
                models.push(path);
            }
        }
        models.sort();
        networks.push(BundledNetwork {
            inputs: numbered_files(&dir, "input"),
            expected: numbered_files(&dir, "expected"),
            name: dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            dir,
            models,
        });
    }
    networks.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(networks)
}

/// One of the real third-party networks (`../shared/real-networks`), as
/// its `net.json` describes it.
#[derive(Clone, Debug)]
pub struct RealNetwork {
    /// Its Vela output (one, for the configuration of its name), input and
    /// TensorFlow Lite Micro's output.
    pub network: BundledNetwork,
    /// `core`, or `stress` for the large and LSTM ones.
    pub tier: String,
    /// Vela's `cycles_total` for it on `Ethos_U65_Client_Server`.
    pub vela_cycles: u64,
}

#[derive(Deserialize)]
struct NetJson {
    name: String,
    tier: String,
    model_vela: String,
    inputs: Vec<TensorFile>,
    outputs: Vec<TensorFile>,
    vela: VelaSummary,
}

#[derive(Deserialize)]
struct TensorFile {
    file: String,
}

#[derive(Deserialize)]
struct VelaSummary {
    cycles_total: u64,
}

/// The folder of the real networks, beside the checkout.
pub fn real_networks_dir() -> PathBuf {
    npu_tb::verilator::workspace_root().join("../shared/real-networks")
}

/// Every real network in [`real_networks_dir`], by name; `None` where the
/// folder is absent. A folder without a `net.json` is not a network; one
/// whose `net.json` does not parse is an error naming it.
pub fn real_networks() -> anyhow::Result<Option<Vec<RealNetwork>>> {
    let root = real_networks_dir();
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Ok(None);
    };
    let mut networks = Vec::new();
    for entry in entries {
        let dir = entry?.path();
        let description = dir.join("net.json");
        if !description.is_file() {
            continue;
        }
        let net: NetJson = std::fs::read_to_string(&description)
            .map_err(anyhow::Error::from)
            .and_then(|text| Ok(serde_json::from_str(&text)?))
            .with_context(|| format!("{}", description.display()))?;
        let files = |tensors: &[TensorFile]| tensors.iter().map(|t| dir.join(&t.file)).collect();
        networks.push(RealNetwork {
            network: BundledNetwork {
                name: net.name,
                models: vec![dir.join(&net.model_vela)],
                inputs: files(&net.inputs),
                expected: files(&net.outputs),
                dir: dir.clone(),
            },
            tier: net.tier,
            vela_cycles: net.vela.cycles_total,
        });
    }
    networks.sort_by(|a, b| a.network.name.cmp(&b.network.name));
    Ok(Some(networks))
}
