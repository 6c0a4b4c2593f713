//! The stream checker's speed (issue 57's target: a whole Vela network's
//! stream checked in under 10 ms): every bundled network and every real
//! one in `../shared/real-networks`, each checked with the kernel policy,
//! the best of five runs printed with its ratio to the target.

use npu_model::check::Policy;
use npu_model::tflite::VelaModel;
use std::path::{Path, PathBuf};
use std::time::Instant;

const TARGET_MS: f64 = 10.0;
const RUNS: usize = 5;

fn models() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut models: Vec<PathBuf> = std::fs::read_dir(root.join("tests/fixtures/networks"))
        .expect("the bundled networks")
        .filter_map(Result::ok)
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten())
        .filter_map(Result::ok)
        .map(|f| f.path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("model_vela") && name.ends_with(".tflite")
        })
        .collect();
    let real = root.join("../../shared/real-networks");
    match std::fs::read_dir(&real) {
        Ok(dirs) => models.extend(
            dirs.filter_map(Result::ok)
                .map(|d| d.path().join("model_vela.tflite"))
                .filter(|p| p.is_file()),
        ),
        Err(_) => println!("skipped the real networks: none at {}", real.display()),
    }
    models.sort();
    models
}

fn main() {
    println!("stream checker, kernel policy, best of {RUNS} (target {TARGET_MS} ms):");
    println!(
        "  {:<60} {:>6} {:>9} {:>6}",
        "network", "ops", "ms", "ratio"
    );
    let mut worst: f64 = 0.0;
    for path in models() {
        let model = VelaModel::load(&path).expect("a Vela network");
        let config = model.config().expect("its configuration");
        let mut best = f64::INFINITY;
        let mut ops = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            let checks = model.check(&config, Policy::Kernel).expect("passes");
            best = best.min(start.elapsed().as_secs_f64() * 1e3);
            ops = checks.iter().map(|c| c.operations.len()).sum();
        }
        worst = worst.max(best);
        let name = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap_or(&path);
        println!(
            "  {:<60} {ops:>6} {best:>9.3} {:>6.2}",
            name.display(),
            best / TARGET_MS
        );
    }
    println!(
        "  slowest: {worst:.3} ms, {:.2}x the target",
        worst / TARGET_MS
    );
}
