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
