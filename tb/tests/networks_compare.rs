//! `npu-sim compare` on every bundled network, compiled by Vela for both
//! configurations (`model_vela.tflite` for the one it was made for,
//! `model_vela_<config>.tflite` for the other: `scripts/vela/other_config.py`):
//! the golden model and the RTL agree on memory, STATUS, QREAD, IRQ and the
//! shared buffer after the whole network. Issue 30's network ran bit-exact
//! for u65-256 and wrong for u65-512, so every network runs on both.

use npu_model::tflite::VelaModel;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn networks() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/tests/fixtures/networks")
}

/// The network's input files, in input order (`input.bin`, or
/// `input0.bin`, `input1.bin`, ...).
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let single = dir.join("input.bin");
    if single.exists() {
        return vec![single];
    }
    (0..)
        .map(|k| dir.join(format!("input{k}.bin")))
        .take_while(|p| p.exists())
        .collect()
}

#[test]
fn every_bundled_network_agrees_on_both_configurations() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(networks())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 6, "bundled networks: {dirs:?}");
    for dir in dirs {
        let mut models: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy();
                name.starts_with("model_vela") && name.ends_with(".tflite")
            })
            .collect();
        models.sort();
        let mut configs = BTreeSet::new();
        for model in &models {
            let config = VelaModel::load(model).unwrap().config().unwrap();
            configs.insert(config.name.clone());
            let out = Command::new(env!("CARGO_BIN_EXE_npu-sim"))
                .arg("compare")
                .arg(model)
                .args(
                    inputs(&dir)
                        .iter()
                        .flat_map(|p| ["--input".as_ref(), p.as_os_str()]),
                )
                .arg("-q")
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && text.contains("agree"),
                "{} ({}): {text}",
                model.display(),
                config.name
            );
        }
        assert_eq!(
            configs,
            BTreeSet::from(["u65-256".to_string(), "u65-512".to_string()]),
            "{}: compiled for both configurations",
            dir.display()
        );
    }
}
