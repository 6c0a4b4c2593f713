//! Runs every job folder under `tests/fixtures/jobs/` (made from Vela
//! command streams and an independent TFLite-semantics reference by
//! `scripts/vela/`) on the golden model and fails on any mismatch.

use npu_model::job::{run_job, GoldenBackend, Job};
use std::path::Path;

#[test]
fn every_fixture_job_matches() {
    let root =
        Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo and nextest"))
            .join("tests/fixtures/jobs");
    let mut dirs: Vec<_> = match std::fs::read_dir(&root) {
        Ok(rd) => rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("job.json").is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    dirs.sort();
    if dirs.is_empty() {
        println!(
            "\n!!!!!!!! NO FIXTURE JOBS in {} -- nothing was checked !!!!!!!!\n",
            root.display()
        );
        return;
    }
    // Run copies, so out/ is not written into the fixture folders.
    let scratch =
        std::env::temp_dir().join(format!("npu-model-fixture-jobs-{}", std::process::id()));
    let mut failures = Vec::new();
    for src in &dirs {
        let name = src
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let dir = scratch.join(&name);
        std::fs::create_dir_all(&dir).expect("create scratch folder");
        for entry in std::fs::read_dir(src)
            .expect("read fixture folder")
            .filter_map(Result::ok)
        {
            if entry.path().is_file() {
                std::fs::copy(entry.path(), dir.join(entry.file_name()))
                    .expect("copy fixture file");
            }
        }
        let result = Job::load(&dir, None)
            .map_err(anyhow::Error::from)
            .and_then(|job| run_job(&job, &mut GoldenBackend::default(), &mut |_, _| {}));
        match result {
            Ok(r) if r.passed() && r.compared > 0 => println!("ok   {name}"),
            Ok(r) if r.compared == 0 => {
                failures.push(format!("{name}: no expected output to compare"))
            }
            Ok(r) => failures.push(format!("{name}:\n{}", r.summary())),
            Err(e) => failures.push(format!("{name}: {e:#}")),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "{} of {} fixture jobs passed",
        dirs.len() - failures.len(),
        dirs.len()
    );
    assert!(
        failures.is_empty(),
        "{} fixture jobs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
