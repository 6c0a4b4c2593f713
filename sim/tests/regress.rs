//! Regressions split over machines, at a small count so the commands that
//! CI matrices and Slurm arrays call cannot rot: `npu-sim fuzz --shard`
//! and `npu-sim sweep --shard` write JSON summaries and JUnit XML, and
//! `npu-sim merge` folds the shards into exactly the unsharded run, failing
//! on a failed case or a missing shard.

use npu_sim::regress::Summary;
use npu_tb::seed::seed;
use quick_junit::Report;
use std::path::{Path, PathBuf};
use std::process::Command;

fn npu_sim(args: &[&str]) -> (bool, String) {
    let out = Command::new(npu_sim::npu_sim_exe!())
        .args(args)
        .current_dir(npu_tb::verilator::workspace_root())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npu-regress-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

#[test]
fn fuzz_shards_merge_into_the_unsharded_run() {
    let seed = seed().to_string();
    let dir = scratch("fuzz");
    let fuzz = |shard: &str, summary: &str| {
        let (ok, out) = npu_sim(&[
            "fuzz",
            "--count",
            "6",
            "--seed",
            &seed,
            "-q",
            "--shard",
            shard,
            "--summary",
            &path(&dir, summary),
            "--save",
            &path(&dir, "found"),
        ]);
        assert!(ok, "fuzz --shard {shard}: {out}");
    };
    fuzz("1/1", "whole.json");
    fuzz("1/2", "one.json");
    fuzz("2/2", "two.json");
    let (ok, out) = npu_sim(&[
        "merge",
        &path(&dir, "two.json"),
        &path(&dir, "one.json"),
        "--summary",
        &path(&dir, "merged.json"),
        "--junit",
        &path(&dir, "merged.xml"),
    ]);
    assert!(ok, "{out}");
    assert!(out.contains("6 cases of 6, 6 passed"), "{out}");
    let whole = Summary::read(&dir.join("whole.json")).unwrap();
    let merged = Summary::read(&dir.join("merged.json")).unwrap();
    let outcomes = |s: &Summary| -> Vec<(String, bool, String)> {
        s.results
            .iter()
            .map(|r| (r.name.clone(), r.passed, r.detail.clone()))
            .collect()
    };
    assert_eq!(outcomes(&merged), outcomes(&whole), "seed {seed}");
    let junit = std::fs::read_to_string(dir.join("merged.xml")).unwrap();
    let report = Report::deserialize_from_str(&junit).unwrap();
    assert_eq!(report.tests, 6, "{junit}");

    let (ok, out) = npu_sim(&["merge", &path(&dir, "one.json")]);
    assert!(!ok && out.contains("shards missing: 2/2"), "{out}");
    let (ok, out) = npu_sim(&["merge", &path(&dir, "one.json"), &path(&dir, "whole.json")]);
    assert!(!ok && out.contains("does not split the run"), "{out}");
}

#[test]
fn sweep_shards_run_every_network_behind_every_memory_and_report_a_mismatch() {
    // Two networks' folders, the second with one output byte changed.
    let dir = scratch("sweep");
    let networks = dir.join("networks");
    let fixtures = npu_tb::verilator::workspace_root().join("model/tests/fixtures/networks");
    for (name, corrupt) in [("two_inputs_two_outputs", false), ("residual_add", true)] {
        let to = networks.join(name);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(fixtures.join(name)).unwrap() {
            let file = entry.unwrap().path();
            std::fs::copy(&file, to.join(file.file_name().unwrap())).unwrap();
        }
        if corrupt {
            let expected = to.join("expected.bin");
            let mut bytes = std::fs::read(&expected).unwrap();
            bytes[0] ^= 1;
            std::fs::write(&expected, bytes).unwrap();
        }
    }
    let memories = "Ethos_U65_Client_Server,Ethos_U55_Deep_Embedded";
    let networks = networks.to_string_lossy().into_owned();
    let mut summaries = Vec::new();
    for shard in ["1/2", "2/2"] {
        let summary = path(&dir, &format!("sweep-{}.json", &shard[..1]));
        let (ok, out) = npu_sim(&[
            "sweep",
            "--networks",
            &networks,
            "--memories",
            memories,
            "--shard",
            shard,
            "--summary",
            &summary,
        ]);
        assert!(
            !ok,
            "shard {shard}: a corrupt expected output fails it: {out}"
        );
        assert!(out.contains("FAILED: MISMATCH"), "{out}");
        summaries.push(summary);
    }
    let (ok, out) = npu_sim(&[
        "merge",
        &summaries[0],
        &summaries[1],
        "--summary",
        &path(&dir, "merged.json"),
    ]);
    assert!(!ok, "{out}");
    assert!(out.contains("8 cases of 8, 4 passed, 4 failed"), "{out}");
    let merged = Summary::read(&dir.join("merged.json")).unwrap();
    for result in &merged.results {
        assert_eq!(
            result.passed,
            result.name.starts_with("two_inputs_two_outputs"),
            "{result:?}"
        );
        assert!(result.cycles.unwrap_or(0) > 0, "{result:?}");
    }
    // Two configurations behind two memories per network, each once.
    let names: std::collections::BTreeSet<&str> =
        merged.results.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names.len(), 8, "{names:?}");
}

/// A scratch checkout holding the regression scripts, with stand-ins for
/// cargo and npu-sim (`sim/tests/regress_stubs`) whose outcomes the
/// `STUB_*` variables choose: each failure a real run can have, without the
/// hour a real one takes.
struct Scripts {
    root: PathBuf,
    stubs: PathBuf,
}

impl Scripts {
    fn new(test: &str) -> Scripts {
        let root = scratch(&format!("scripts-{test}"));
        let _ = std::fs::remove_dir_all(&root);
        let workspace = npu_tb::verilator::workspace_root();
        let to = root.join("scripts/regress");
        std::fs::create_dir_all(&to).unwrap();
        for name in ["build.sh", "shard.sh", "merge.sh"] {
            std::fs::copy(workspace.join("scripts/regress").join(name), to.join(name)).unwrap();
        }
        Scripts {
            root,
            stubs: workspace.join("sim/tests/regress_stubs"),
        }
    }

    /// Runs `script` with `args` and `env`: its success and what it printed.
    fn run(&self, script: &str, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
        let path = format!(
            "{}:{}",
            self.stubs.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Command::new("bash")
            .arg(self.root.join("scripts/regress").join(script))
            .args(args)
            .env("PATH", path)
            .env("REAL_NPU_SIM", npu_sim::npu_sim_exe!())
            .envs(env.iter().copied())
            .current_dir(&self.root)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    }

    /// A whole run of `n` shards, `env` for every step, whatever the build
    /// did (the merge judges it): each shard's success, and the merge's.
    fn regression(&self, n: u32, env: &[(&str, &str)]) -> (Vec<bool>, (bool, String)) {
        self.run("build.sh", &[], env);
        let shards = (1..=n)
            .map(|k| {
                self.run("shard.sh", &[&k.to_string(), &n.to_string()], env)
                    .0
            })
            .collect();
        (shards, self.run("merge.sh", &[&n.to_string()], env))
    }

    fn results(&self, name: &str) -> PathBuf {
        self.root.join("build/regress/results").join(name)
    }
}

#[test]
fn a_regression_whose_parts_all_pass_merges_into_a_pass() {
    let scripts = Scripts::new("pass");
    let (shards, (ok, out)) = scripts.regression(2, &[("REGRESS_RUN", "run-a")]);
    assert_eq!(shards, [true, true], "{out}");
    assert!(ok, "{out}");
    assert!(out.contains("run run-a passed"), "{out}");
    assert!(out.contains("junit: 2 reports, 2 tests, 0 failed"), "{out}");
    for merged in ["fuzz.json", "fuzz.xml", "sweep.json", "sweep.xml"] {
        assert!(scripts.results(merged).is_file(), "{merged}: {out}");
    }
}

#[test]
fn every_failure_of_a_part_fails_the_merge_and_names_it() {
    for (env, shard_passes, named) in [
        (
            ("STUB_FAILING_TESTS", "2"),
            [true, false],
            "stub::test_of_shard_2 failed",
        ),
        (
            ("STUB_FAILING_FUZZ", "1"),
            [false, true],
            "shard 1/2: fuzz failed",
        ),
        (
            ("STUB_FAILING_SWEEP", "2"),
            [true, false],
            "shard 2/2: sweep failed",
        ),
        (
            ("STUB_NO_JUNIT", "1"),
            [false, true],
            "shard 1/2: tests failed: nextest wrote no JUnit report",
        ),
    ] {
        let scripts = Scripts::new(env.0);
        let (shards, (ok, out)) = scripts.regression(2, &[env]);
        assert_eq!(shards, shard_passes, "{env:?}: {out}");
        assert!(!ok, "{env:?}: the merge passed: {out}");
        assert!(
            out.contains(named),
            "{env:?}: {named:?} missing from: {out}"
        );
        assert!(out.contains("FAILED ("), "{env:?}: no verdict: {out}");
    }
    // A shard without a JUnit report still ran its fuzz and sweep parts.
    let scripts = Scripts::new("no-junit-parts");
    scripts.regression(2, &[("STUB_NO_JUNIT", "1 2")]);
    assert!(scripts.results("fuzz-1.json").is_file());
    assert!(scripts.results("sweep-2.json").is_file());
}

#[test]
fn a_failed_build_fails_every_shard_and_the_merge_at_once() {
    let scripts = Scripts::new("build");
    let (shards, (ok, out)) = scripts.regression(2, &[("STUB_BUILD_FAILS", "1")]);
    assert_eq!(shards, [false, false], "{out}");
    assert!(!ok, "{out}");
    assert!(out.contains("build of run"), "{out}");
    assert!(out.contains("failed: cargo nextest archive"), "{out}");
    let status = std::fs::read_to_string(scripts.results("shard-1.status")).unwrap();
    assert!(status.contains("build failed: nothing ran"), "{status}");
}

/// A rerun starts clean: the results and merged reports of an earlier run
/// that passed never pass for a run whose shard never ran (killed at its
/// time limit) or whose results come from another run.
#[test]
fn stale_or_missing_shard_results_fail_the_merge() {
    let scripts = Scripts::new("stale");
    let (_, (ok, out)) = scripts.regression(2, &[("REGRESS_RUN", "run-a")]);
    assert!(ok, "{out}");
    let old_status = std::fs::read(scripts.results("shard-2.status")).unwrap();

    // Run b: the build and shard 1 run, shard 2 never does.
    let env = [("REGRESS_RUN", "run-b")];
    assert!(scripts.run("build.sh", &[], &env).0);
    assert!(
        !scripts.results("shard-2.status").exists(),
        "build.sh clears the results"
    );
    assert!(scripts.run("shard.sh", &["1", "2"], &env).0);
    let (ok, out) = scripts.run("merge.sh", &["2"], &env);
    assert!(!ok, "{out}");
    assert!(out.contains("shard 2/2: no"), "{out}");
    assert!(out.contains("never ran, or did not finish"), "{out}");
    assert!(out.contains("fuzz: no summary"), "{out}");
    for merged in ["fuzz.json", "fuzz.xml", "sweep.json", "sweep.xml"] {
        assert!(
            !scripts.results(merged).exists(),
            "{merged} of run a survived: {out}"
        );
    }

    // Shard 2's files of run a, copied back in: of another run.
    std::fs::write(scripts.results("shard-2.status"), old_status).unwrap();
    let (ok, out) = scripts.run("merge.sh", &["2"], &env);
    assert!(!ok, "{out}");
    assert!(
        out.contains("is of run run-a, not of this run run-b"),
        "{out}"
    );

    // No build at all.
    let bare = Scripts::new("bare");
    let (ok, out) = bare.run("merge.sh", &["1"], &[]);
    assert!(!ok && out.contains("build.sh never ran"), "{out}");
    let (ok, out) = bare.run("shard.sh", &["1", "1"], &[]);
    assert!(
        !ok && out.contains("run scripts/regress/build.sh first"),
        "{out}"
    );
}
