//! Whole networks compiled by Vela (`tests/fixtures/networks/`, made by
//! `scripts/vela/networks.py`) run through `npu_model::tflite` on the golden
//! model, bit-exact with the TensorFlow Lite Micro interpreter's output; the
//! operators Vela left on the CPU run on the host.

use npu_arch::config::NpuConfig;
use npu_model::job::GoldenBackend;
use npu_model::tflite::{self, VelaModel};
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo and nextest"))
        .join("tests/fixtures/networks")
        .join(name)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `KIND.bin`, or `KIND0.bin`, `KIND1.bin`, ... for several tensors.
fn tensor_files(dir: &Path, kind: &str) -> Vec<Vec<u8>> {
    let one = dir.join(format!("{kind}.bin"));
    if one.is_file() {
        return vec![read(&one)];
    }
    (0..)
        .map(|i| dir.join(format!("{kind}{i}.bin")))
        .take_while(|p| p.is_file())
        .map(|p| read(&p))
        .collect()
}

/// Run a network folder on the golden model with the configuration Vela
/// compiled for and check every output byte for byte.
fn run_network(name: &str) -> tflite::NetworkRun {
    run_compiled(name, "model_vela.tflite")
}

/// Run one of a network folder's Vela outputs on the golden model with the
/// configuration it was compiled for and check every output byte for byte.
fn run_compiled(name: &str, file: &str) -> tflite::NetworkRun {
    let dir = fixture(name);
    let model = VelaModel::load(&dir.join(file)).expect("a Vela model loads");
    let config = model.config().expect("a built-in configuration");
    let run = model
        .run(
            config,
            &tensor_files(&dir, "input"),
            &mut GoldenBackend::default(),
            &mut |_, _| {},
        )
        .unwrap_or_else(|e| panic!("{name}: {e:#}"));
    let expected = tensor_files(&dir, "expected");
    assert_eq!(run.outputs.len(), expected.len(), "{name}: outputs");
    for (i, (got, want)) in run.outputs.iter().zip(&expected).enumerate() {
        let differing = want.iter().zip(got).filter(|(a, b)| a != b).count();
        assert_eq!(
            (got.len(), differing),
            (want.len(), 0),
            "{name}: output {i} length and differing bytes"
        );
    }
    run
}

fn kinds(run: &tflite::NetworkRun) -> Vec<&str> {
    run.run.layers.iter().map(|l| l.kind.as_str()).collect()
}

#[test]
fn every_network_matches_the_interpreter() {
    let root = fixture("");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .expect("fixtures/networks exists")
        .filter_map(Result::ok)
        .filter(|e| e.path().join("model_vela.tflite").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 6, "networks found: {names:?}");
    for name in &names {
        let run = run_network(name);
        println!("ok {name}: {} operations", run.run.layers.len());
    }
}

/// The demo exercises convolution, depthwise, pooling, a residual ADD, a LUT
/// activation (loaded by DMA) and a fully connected layer; the report rows
/// account for every MAC and every output byte.
#[test]
fn demo_report_covers_every_operation() {
    let run = run_network("demo");
    let k = kinds(&run);
    for want in [
        "NPU_OP_CONV",
        "NPU_OP_DEPTHWISE",
        "NPU_OP_POOL MAX",
        "NPU_OP_POOL AVERAGE",
        "NPU_OP_ELEMENTWISE ADD",
        "NPU_OP_DMA_START",
    ] {
        assert!(k.contains(&want), "{want} missing from {k:?}");
    }
    let config = NpuConfig::by_name("u65-256").expect("built in");
    let report = run.run.report(&config);
    let totals = npu_model::report::totals(&report);
    assert_eq!(totals.macs, run.run.macs);
    assert!(totals.cycles.is_none(), "the golden model has no cycles");
    assert!(totals.ports.is_none(), "nor AXI ports");
    assert!(run
        .run
        .layers
        .iter()
        .all(|l| l.cycles.is_none() && l.ports.is_none()));
    let first = &run.run.layers[0];
    assert!(first.bytes_read > 0 && first.bytes_written > 0, "{first:?}");
    // Offsets are command-stream byte offsets, increasing.
    assert!(run.run.layers.windows(2).all(|w| w[0].offset < w[1].offset));
    let table = npu_model::report::table(&report);
    assert!(table.starts_with("Offset") && table.contains("MAC Count"));
    let csv = npu_model::report::csv(&report);
    assert_eq!(csv.lines().count(), run.run.layers.len() + 2);
}

/// Vela lowers MEAN over 7x7x1280 to a 7x7 DEPTHWISE over 1280 channels.
#[test]
fn mobilenet_sized_network_ends_in_a_large_depthwise() {
    let run = run_network("mobilenet_v2_sized");
    let mean = run
        .run
        .layers
        .iter()
        .find(|l| l.kind == "NPU_OP_DEPTHWISE" && l.kernel == Some([7, 7]))
        .unwrap_or_else(|| panic!("no 7x7 depthwise in {:?}", kinds(&run)));
    assert_eq!(mean.ofm, Some([1, 1, 1280]));
    assert_eq!(mean.macs, 7 * 7 * 1280);
}

/// Inputs and outputs are matched to the arena by the subgraph's order.
#[test]
fn two_inputs_and_two_outputs() {
    let run = run_network("two_inputs_two_outputs");
    assert_eq!(run.outputs.len(), 2);
    assert_eq!(run.outputs[1].len(), 8 * 8 * 12);
    // The inputs have different quantisations, so swapping them shows.
    let dir = fixture("two_inputs_two_outputs");
    let model = VelaModel::load(&dir.join("model_vela.tflite")).expect("loads");
    let mut inputs = tensor_files(&dir, "input");
    inputs.swap(0, 1);
    let swapped = model
        .run(
            NpuConfig::u65_256(),
            &inputs,
            &mut GoldenBackend::default(),
            &mut |_, _| {},
        )
        .expect("runs");
    assert_ne!(swapped.outputs[0], run.outputs[0]);
}

/// Operators Vela left on the CPU run on the host in the model's order, as
/// rows of their own, for both configurations: a float network's QUANTIZE
/// and DEQUANTIZE around one `ethos-u` operator, and a GATHER between two.
#[test]
fn cpu_operators_run_on_the_host() {
    for (name, other, cpu, npu_operators) in [
        (
            "float_io",
            "model_vela_u65_512.tflite",
            &["QUANTIZE", "DEQUANTIZE"][..],
            1,
        ),
        (
            "channel_gather",
            "model_vela_u65_256.tflite",
            &["GATHER"][..],
            2,
        ),
    ] {
        for file in ["model_vela.tflite", other] {
            let run = run_compiled(name, file);
            let rows: Vec<&str> = run
                .run
                .layers
                .iter()
                .filter(|l| l.on_cpu)
                .map(|l| l.kind.as_str())
                .collect();
            assert_eq!(rows, cpu, "{name} {file}: host rows");
            assert_eq!(run.npu_runs.len(), npu_operators, "{name} {file}");
            let npu_layers: usize = run.npu_runs.iter().map(|r| r.run.layers.len()).sum();
            assert_eq!(
                run.run.layers.len(),
                npu_layers + cpu.len(),
                "{name} {file}"
            );
            assert!(run.npu_runs.iter().all(|r| r.run.completed()));
        }
    }
    // The host rows sit where the model has them: first and last here.
    let run = run_network("float_io");
    assert_eq!(
        run.run.layers.first().map(|l| l.kind.as_str()),
        Some("QUANTIZE")
    );
    assert_eq!(
        run.run.layers.last().map(|l| l.kind.as_str()),
        Some("DEQUANTIZE")
    );
}

/// A network of several operators is run whole, not as one job.
#[test]
fn job_of_a_network_with_cpu_operators_is_refused() {
    let dir = fixture("channel_gather");
    let model = VelaModel::load(&dir.join("model_vela.tflite")).expect("loads");
    let err = model
        .job(NpuConfig::u65_512(), &[read(&dir.join("input.bin"))])
        .expect_err("three operators");
    let msg = format!("{err:#}");
    assert!(msg.contains("3 operators (1 on the host)"), "{msg}");
}

#[test]
fn u65_512_network_refuses_the_other_configuration() {
    let dir = fixture("conv_dw_u65_512");
    let model = VelaModel::load(&dir.join("model_vela.tflite")).expect("loads");
    assert_eq!(model.config().expect("config").name, "u65-512");
    let err = model
        .run(
            NpuConfig::u65_256(),
            &[read(&dir.join("input.bin"))],
            &mut GoldenBackend::default(),
            &mut |_, _| {},
        )
        .expect_err("compiled for u65-512");
    let msg = format!("{err:#}");
    assert!(
        msg.contains("configuration mismatch") && msg.contains("u65-256"),
        "{msg}"
    );
}

/// The real third-party networks of `../shared/real-networks` (skipped
/// with a message where absent).
fn real_networks() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/real-networks");
    let Ok(entries) = std::fs::read_dir(&root) else {
        println!("skipped: no real networks at {}", root.display());
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|d| d.join("model.tflite").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// A model Vela never compiled runs wholly on the host, bit-exact with
/// TensorFlow Lite Micro on the same file: every bundled network's source
/// model (`expected*.bin` is TFLite Micro on `model.tflite`) and every
/// real network's upstream model.
#[test]
fn uncompiled_models_run_wholly_on_the_host() {
    // A model's folder, its inputs and TFLite Micro's outputs.
    type Case = (PathBuf, Vec<Vec<u8>>, Vec<Vec<u8>>);
    let mut cases: Vec<Case> = Vec::new();
    for entry in std::fs::read_dir(fixture("")).expect("fixtures/networks exists") {
        let dir = entry.expect("entry").path();
        if dir.join("model.tflite").is_file() {
            let (inputs, expected) = (tensor_files(&dir, "input"), tensor_files(&dir, "expected"));
            cases.push((dir, inputs, expected));
        }
    }
    for dir in real_networks() {
        let (inputs, expected) = (
            vec![read(&dir.join("input.bin"))],
            vec![read(&dir.join("tflm_expected_output.bin"))],
        );
        cases.push((dir, inputs, expected));
    }
    cases.sort();
    assert!(cases.len() >= 14, "{} models", cases.len());
    for (dir, inputs, expected) in &cases {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        let model =
            VelaModel::load(&dir.join("model.tflite")).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert_eq!(model.npu_operators().count(), 0, "{name}");
        let start = std::time::Instant::now();
        let run = model
            .run(
                NpuConfig::u65_256(),
                inputs,
                &mut GoldenBackend::default(),
                &mut |_, _| {},
            )
            .unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert_eq!(run.outputs, *expected, "{name}: outputs");
        println!(
            "ok {name}: {} operators on the host in {:.0} ms",
            model.cpu_operators().count(),
            start.elapsed().as_secs_f64() * 1e3
        );
    }
}

#[test]
fn wrong_input_size_is_named() {
    let model = VelaModel::load(&fixture("demo").join("model_vela.tflite")).expect("loads");
    let err = model
        .job(NpuConfig::u65_256(), &[vec![0; 5]])
        .expect_err("too short");
    let msg = format!("{err:#}");
    assert!(msg.contains("3072 bytes, but 5 were given"), "{msg}");
    let err = model.job(NpuConfig::u65_256(), &[]).expect_err("no input");
    assert!(format!("{err:#}").contains("1 inputs but 0 were given"));
}

/// Truncated and corrupted files give errors, never a panic.
#[test]
fn truncated_or_corrupt_files_are_errors() {
    let bytes = read(&fixture("residual_add").join("model_vela.tflite"));
    for len in [0, 7, 8, 64, bytes.len() / 2] {
        assert!(
            VelaModel::parse(&bytes[..len]).is_err(),
            "a file cut to {len} bytes loaded"
        );
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(14);
    let mut loaded = 0;
    for _ in 0..2000 {
        let mut b = bytes.clone();
        for _ in 0..rng.gen_range(1..4) {
            let i = rng.gen_range(0..b.len());
            b[i] = rng.gen();
        }
        // Corruption in weights or padding can still load: only no panic is required.
        loaded += VelaModel::parse(&b).is_ok() as usize;
    }
    println!("{loaded} of 2000 corrupted files still loaded");
}

/// The block footprints (`npu_model::footprint`, TRM 4.9) against Vela: in
/// every bundled network compiled for either configuration, each kernel
/// operation's NPU_SET_BLOCKDEP is at most the largest the footprints call
/// safe against the operation before it, so the footprints never put a
/// read behind a write Vela knows it does not need (and the RTL's BLOCKDEP
/// checker, which uses them, can only be as strict as Vela's streams).
#[test]
fn vela_never_sets_a_blockdep_the_footprints_call_unsafe() {
    let root = fixture("");
    let mut pairs = 0;
    let mut overlapping = 0;
    let mut dependent = 0;
    let mut equal = 0;
    for entry in std::fs::read_dir(&root).expect("the networks folder") {
        let dir = entry.expect("a folder entry").path();
        for file in [
            "model_vela.tflite",
            "model_vela_u65_256.tflite",
            "model_vela_u65_512.tflite",
        ] {
            let path = dir.join(file);
            if !path.is_file() {
                continue;
            }
            let model = VelaModel::load(&path).expect("a Vela model loads");
            let config = model.config().expect("a built-in configuration");
            // Networks of one `ethos-u` operator (the others run through
            // `VelaModel::run`).
            let Ok(job) = model.job(config, &tensor_files(&dir, "input")) else {
                continue;
            };
            let footprints = npu_model::job::block_footprints(&job).expect("footprints");
            for pair in footprints.windows(2) {
                let (_, before) = &pair[0];
                let (offset, after) = &pair[1];
                let safe = npu_model::footprint::largest_safe_blockdep(before, after);
                assert!(
                    after.blockdep <= safe,
                    "{}: the operation at {offset:#x} has BLOCKDEP {} but the footprints allow {safe}",
                    path.display(),
                    after.blockdep
                );
                pairs += 1;
                overlapping += usize::from(after.blockdep > 0);
                dependent += usize::from(safe < 3);
                equal += usize::from(after.blockdep == safe);
            }
        }
    }
    println!(
        "{pairs} pairs of kernel operations: {overlapping} with BLOCKDEP above 0, {dependent} \
         where the footprints find a dependency (largest safe below 3), {equal} where Vela's \
         BLOCKDEP is the largest safe"
    );
    // The footprints find dependencies (they do not call everything safe).
    assert!(
        pairs > 100 && overlapping > 0 && dependent > pairs / 4,
        "{pairs} pairs, {overlapping} overlapping, {dependent} dependent"
    );
}
