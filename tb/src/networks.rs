//! The bundled Vela-compiled networks (`model/tests/fixtures/networks`):
//! each folder's source `model.tflite`, Vela's output for the
//! configuration it was made for (`model_vela.tflite`) and for the other
//! one (`model_vela_<config>.tflite`, `scripts/vela/other_config.py`), and
//! its input files.

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
}

/// The folder of the bundled networks.
pub fn networks_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/tests/fixtures/networks")
}

/// Every bundled network, by name.
pub fn bundled_networks() -> std::io::Result<Vec<BundledNetwork>> {
    let mut networks = Vec::new();
    for entry in std::fs::read_dir(networks_dir())? {
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
        let single = dir.join("input.bin");
        let inputs = if single.exists() {
            vec![single]
        } else {
            (0..)
                .map(|k| dir.join(format!("input{k}.bin")))
                .take_while(|p| p.exists())
                .collect()
        };
        networks.push(BundledNetwork {
            name: dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            dir,
            models,
            inputs,
        });
    }
    networks.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(networks)
}
