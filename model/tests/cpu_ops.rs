//! The operators the host runs in place of the CPU
//! (`npu_model::tflite::host`), each a one-operator model run through the
//! network runner and compared byte for byte with TensorFlow Lite Micro's
//! interpreter (`tests/fixtures/cpu_ops/<family>/<case>/`, made by
//! `scripts/vela/cpu_fixtures.py`; `reference.txt` names the interpreter).
//! Every operator the host lists must have a case in every element type it
//! takes.

use npu_arch::config::NpuConfig;
use npu_model::job::GoldenBackend;
use npu_model::tflite::{host, VelaModel};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo and nextest"))
        .join("tests/fixtures/cpu_ops")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The numbered files `stem<i>.bin` of a case, in order.
fn numbered(dir: &Path, stem: &str) -> Vec<Vec<u8>> {
    (0..)
        .map(|i| dir.join(format!("{stem}{i}.bin")))
        .take_while(|p| p.exists())
        .map(|p| read(&p))
        .collect()
}

/// Every case folder, sorted.
fn cases() -> Vec<PathBuf> {
    let mut cases = Vec::new();
    for family in std::fs::read_dir(fixtures()).expect("fixtures/cpu_ops exists") {
        let family = family.expect("entry").path();
        for case in std::fs::read_dir(&family).expect("a family folder") {
            cases.push(case.expect("entry").path());
        }
    }
    cases.sort();
    cases
}

fn case_name(dir: &Path) -> String {
    let family = dir.parent().and_then(Path::file_name).unwrap_or_default();
    let case = dir.file_name().unwrap_or_default();
    format!("{}/{}", family.to_string_lossy(), case.to_string_lossy())
}

/// Runs the model in `dir` on the host.
fn run(model: &VelaModel, inputs: &[Vec<u8>]) -> anyhow::Result<Vec<Vec<u8>>> {
    assert_eq!(model.npu_operators().count(), 0);
    let run = model.run(
        NpuConfig::u65_256(),
        inputs,
        &mut GoldenBackend::default(),
        &mut |_, _| {},
    )?;
    Ok(run.outputs)
}

#[test]
fn every_host_operator_matches_tflite_micro() {
    let mut covered = BTreeSet::new();
    let mut failures = Vec::new();
    let cases = cases();
    for dir in &cases {
        let name = case_name(dir);
        let model =
            VelaModel::load(&dir.join("model.tflite")).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        for op in model.cpu_operators() {
            let support = host::supported()
                .find(|s| s.name == op.name)
                .expect("a host operator is supported");
            covered.insert((op.name.clone(), op.input_elements[support.key_input]));
        }
        let got = match run(&model, &numbered(dir, "input")) {
            Ok(got) => got,
            Err(e) => {
                failures.push(format!("{name}: {e:#}"));
                continue;
            }
        };
        let want = numbered(dir, "expected");
        assert_eq!(got.len(), want.len(), "{name}: outputs");
        for (i, (got, want)) in got.iter().zip(&want).enumerate() {
            assert_eq!(got.len(), want.len(), "{name}: output {i} length");
            let differing: Vec<usize> = (0..got.len()).filter(|&b| got[b] != want[b]).collect();
            if let Some(&first) = differing.first() {
                failures.push(format!(
                    "{name}: output {i}: {} of {} bytes differ from the reference, the first at \
                     byte {first} ({:#04x}, expected {:#04x})",
                    differing.len(),
                    got.len(),
                    got[first],
                    want[first]
                ));
            }
        }
        let reference = std::fs::read_to_string(dir.join("reference.txt")).unwrap_or_default();
        println!("ok {name} ({})", reference.trim());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let missing: Vec<String> = host::supported()
        .flat_map(|s| s.types.iter().map(move |&t| (s.name.to_string(), Some(t))))
        .filter(|pair| !covered.contains(pair))
        .map(|(name, t)| format!("{name} {}", t.expect("a type")))
        .collect();
    assert!(
        missing.is_empty(),
        "operators and types without a case: {}",
        missing.join(", ")
    );
    println!("{} cases, {} operator types", cases.len(), covered.len());
}

/// An input of the wrong size is named, not read past.
#[test]
fn wrong_input_size_is_named() {
    let dir = fixtures().join("quantize/dequantize_int8_f32");
    let model = VelaModel::load(&dir.join("model.tflite")).expect("loads");
    let err = run(&model, &[vec![0; 3]]).expect_err("short input");
    assert!(
        format!("{err:#}").contains("256 bytes, but 3 were given"),
        "{err:#}"
    );
}
