//! The operators Vela leaves on the CPU that the host runs
//! (`npu_model::tflite`'s `cpu` module), each a one-operator model run
//! through the network runner and compared byte for byte with the TensorFlow
//! Lite Micro interpreter's output (`tests/fixtures/cpu_ops/`, made by
//! `scripts/vela/cpu_fixtures.py`): rounding ties, saturation, signed zeros,
//! every input code, and GATHER along each kind of axis.

use npu_arch::config::NpuConfig;
use npu_model::job::GoldenBackend;
use npu_model::tflite::VelaModel;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo and nextest"))
        .join("tests/fixtures/cpu_ops")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs the one-operator model in `dir` on the host.
fn run(dir: &Path, input: Vec<u8>) -> anyhow::Result<Vec<u8>> {
    let model = VelaModel::load(&dir.join("model.tflite"))?;
    assert_eq!(model.npu_operators().count(), 0);
    let mut run = model.run(
        NpuConfig::u65_256(),
        &[input],
        &mut GoldenBackend::default(),
        &mut |_, _| {},
    )?;
    Ok(run.outputs.remove(0))
}

#[test]
fn every_host_operator_matches_tflite_micro() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("fixtures/cpu_ops exists")
        .map(|e| e.expect("entry").path())
        .collect();
    cases.sort();
    let names: Vec<String> = cases
        .iter()
        .map(|c| c.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for kind in ["quantize", "dequantize", "gather"] {
        assert!(
            names.iter().filter(|n| n.starts_with(kind)).count() >= 3,
            "{kind} cases: {names:?}"
        );
    }
    for (dir, name) in cases.iter().zip(&names) {
        let got =
            run(dir, read(&dir.join("input.bin"))).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        let want = read(&dir.join("expected.bin"));
        assert_eq!(got.len(), want.len(), "{name}: output length");
        let differing = got.iter().zip(&want).filter(|(a, b)| a != b).count();
        assert_eq!(
            differing, 0,
            "{name}: {differing} bytes differ from TFLite Micro"
        );
        println!("ok {name}: {} bytes", got.len());
    }
}

/// An input of the wrong size is named, not read past.
#[test]
fn wrong_input_size_is_named() {
    let dir = fixtures().join("dequantize_int8_f32");
    let err = run(&dir, vec![0; 3]).expect_err("short input");
    assert!(
        format!("{err:#}").contains("256 bytes, but 3 were given"),
        "{err:#}"
    );
}
