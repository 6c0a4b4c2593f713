//! The bundled Vela-compiled networks (`model/tests/fixtures/networks`):
//! each folder's source `model.tflite`, Vela's output for the
//! configuration it was made for (`model_vela.tflite`) and for the other
//! one (`model_vela_<config>.tflite`, `scripts/vela/other_config.py`), and
//! its input and expected output files.

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
