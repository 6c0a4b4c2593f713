//! Regressions spread over machines: a suite's cases split into shards
//! (`npu-sim fuzz --shard K/N`, `npu-sim sweep --shard K/N`), each shard's
//! results written as a JSON summary and as JUnit XML, and the shards'
//! summaries folded into one report (`npu-sim merge`). No scheduler: the
//! shards are independent processes for whatever engine runs them (a CI
//! matrix, a Slurm array; docs/verification.md, "Regressions on many
//! machines").
//!
//! Case `i` of a suite belongs to shard `K` of `N` when `i mod N = K - 1`,
//! so the shards of one seed run disjoint cases that together are exactly
//! the unsharded run's.

use anyhow::{bail, ensure, Context, Result};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

/// Shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The whole suite: shard 1 of 1.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Whether case `case` is this shard's.
    pub fn includes(&self, case: u64) -> bool {
        case % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl FromStr for Shard {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<Self> {
        let (k, n) = text
            .split_once('/')
            .with_context(|| format!("shard {text:?}: expected K/N, e.g. 2/8"))?;
        let index: u32 = k
            .trim()
            .parse()
            .with_context(|| format!("shard {text:?}: K is not a number"))?;
        let count: u32 = n
            .trim()
            .parse()
            .with_context(|| format!("shard {text:?}: N is not a number"))?;
        ensure!(
            count >= 1 && (1..=count).contains(&index),
            "shard {text:?}: K must be 1 to N and N at least 1"
        );
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One case's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case's number in its suite (the merge orders by it).
    pub case: u64,
    pub name: String,
    pub passed: bool,
    /// How it passed, or what failed.
    pub detail: String,
    pub seconds: f64,
    /// NPU cycles of the run, where it ran to the end on the RTL.
    pub cycles: Option<u64>,
}

/// A shard's results (or, merged, the whole suite's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// `fuzz` or `sweep`.
    pub suite: String,
    /// What the suite was asked to run (the fuzzer's seed and count, the
    /// sweep's networks and memories): shards merge only when it is equal.
    pub run: String,
    pub shard: Shard,
    /// Cases in the whole suite, every shard's.
    pub suite_cases: u64,
    pub results: Vec<CaseResult>,
    /// The regression run the shard belongs to (`--run-id`): a merge asked
    /// for one run takes no shard of another.
    #[serde(default)]
    pub run_id: Option<String>,
}

impl Summary {
    pub fn failures(&self) -> impl Iterator<Item = &CaseResult> {
        self.results.iter().filter(|r| !r.passed)
    }

    /// Every case passed.
    pub fn passed(&self) -> bool {
        self.results.iter().all(|r| r.passed)
    }

    /// The summary as JUnit XML: one test suite, a test case per case.
    pub fn junit(&self) -> Result<String> {
        let mut suite = TestSuite::new(format!("npu-sim {} {}", self.suite, self.run));
        suite.add_property(("shard", self.shard.to_string().as_str()));
        for result in &self.results {
            let status = if result.passed {
                TestCaseStatus::success()
            } else {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(result.detail.as_str());
                status
            };
            let mut case = TestCase::new(result.name.as_str(), status);
            case.set_classname(format!("npu-sim.{}", self.suite));
            case.set_time(Duration::from_secs_f64(result.seconds));
            if result.passed {
                case.set_system_out(result.detail.as_str());
            }
            suite.add_test_case(case);
        }
        let mut report = Report::new(format!("npu-sim {}", self.suite));
        report.add_test_suite(suite);
        report.to_string().context("writing JUnit XML")
    }

    /// Writes the JSON summary and the JUnit XML where asked.
    pub fn write(&self, json: Option<&Path>, junit: Option<&Path>) -> Result<()> {
        if let Some(path) = json {
            let text = serde_json::to_string_pretty(self)?;
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        }
        if let Some(path) = junit {
            std::fs::write(path, self.junit()?)
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }

    pub fn read(path: &Path) -> Result<Summary> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{}: not an npu-sim summary", path.display()))
    }

    /// Totals, one line.
    pub fn totals(&self) -> String {
        let failed = self.failures().count();
        format!(
            "{} {} shard {}: {} cases of {}, {} passed, {} failed",
            self.suite,
            self.run,
            self.shard,
            self.results.len(),
            self.suite_cases,
            self.results.len() - failed,
            failed
        )
    }
}

/// Folds the shards' summaries of one run into the whole run's: every
/// shard 1..N exactly once, all of the same suite and run (of regression
/// run `run_id`, where given), and together every case of the suite.
pub fn merge(shards: Vec<Summary>, run_id: Option<&str>) -> Result<Summary> {
    let first = shards.first().context("no summaries to merge")?;
    if let Some(id) = run_id {
        for summary in &shards {
            ensure!(
                summary.run_id.as_deref() == Some(id),
                "shard {} of {} is of regression run {}, not of run {id}: results of another run",
                summary.shard,
                summary.suite,
                summary.run_id.as_deref().unwrap_or("(none)")
            );
        }
    }
    let (suite, run, suite_cases, count) = (
        first.suite.clone(),
        first.run.clone(),
        first.suite_cases,
        first.shard.count,
    );
    let mut seen = vec![false; count as usize];
    let mut results = Vec::new();
    for summary in shards {
        ensure!(
            summary.suite == suite && summary.run == run,
            "shard {} is of `{} {}`, the first of `{suite} {run}`: summaries of different runs",
            summary.shard,
            summary.suite,
            summary.run
        );
        ensure!(
            summary.shard.count == count && summary.suite_cases == suite_cases,
            "shard {} does not split the run as the first ({} shards of {suite_cases} cases)",
            summary.shard,
            count
        );
        let slot = &mut seen[summary.shard.index as usize - 1];
        ensure!(!*slot, "shard {} is given twice", summary.shard);
        *slot = true;
        results.extend(summary.results);
    }
    let missing: Vec<String> = (1..=count)
        .filter(|k| !seen[*k as usize - 1])
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        bail!("shards missing: {}", missing.join(", "));
    }
    results.sort_by_key(|r| r.case);
    ensure!(
        results.len() as u64 == suite_cases,
        "the shards hold {} cases, the run has {suite_cases}",
        results.len()
    );
    Ok(Summary {
        suite,
        run,
        shard: Shard::WHOLE,
        suite_cases,
        results,
        run_id: run_id.map(str::to_string),
    })
}

/// What test-runner JUnit reports (cargo-nextest's) hold: tests, the ones
/// that failed or errored (with their messages), and reports that could
/// not be read.
#[derive(Debug, Default)]
pub struct TestReports {
    pub tests: usize,
    pub failed: Vec<String>,
    pub unreadable: Vec<String>,
}

impl TestReports {
    /// Reads every report; one that is missing or not JUnit XML counts as
    /// unreadable, not as passed.
    pub fn read(paths: &[impl AsRef<Path>]) -> TestReports {
        let mut reports = TestReports::default();
        for path in paths {
            let path = path.as_ref();
            let report = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))
                .and_then(|text| {
                    Report::deserialize_from_str(&text)
                        .with_context(|| format!("{}: not JUnit XML", path.display()))
                });
            let report = match report {
                Ok(r) => r,
                Err(e) => {
                    reports.unreadable.push(format!("{e:#}"));
                    continue;
                }
            };
            for suite in &report.test_suites {
                for case in &suite.test_cases {
                    reports.tests += 1;
                    if let TestCaseStatus::NonSuccess { kind, message, .. } = &case.status {
                        let kind = match kind {
                            NonSuccessKind::Failure => "failed",
                            NonSuccessKind::Error => "errored",
                        };
                        let message = message.as_ref().map_or("", |m| m.as_str());
                        reports.failed.push(format!(
                            "{}: {} {} {kind}: {message}",
                            path.display(),
                            case.classname.as_ref().map_or("", |c| c.as_str()),
                            case.name.as_str(),
                        ));
                    }
                }
            }
        }
        reports
    }

    pub fn passed(&self) -> bool {
        self.failed.is_empty() && self.unreadable.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(shard: Shard, cases: &[u64]) -> Summary {
        Summary {
            suite: "fuzz".into(),
            run: "seed 7, 5 streams".into(),
            shard,
            suite_cases: 5,
            run_id: Some("run 1".into()),
            results: cases
                .iter()
                .map(|&case| CaseResult {
                    case,
                    name: format!("case {case}"),
                    passed: case != 3,
                    detail: "detail <&>".into(),
                    seconds: 0.5,
                    cycles: Some(100),
                })
                .collect(),
        }
    }

    #[test]
    fn shards_split_the_cases_disjointly_and_completely() {
        let shards: Vec<Shard> = (1..=3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for case in 0..20u64 {
            assert_eq!(shards.iter().filter(|s| s.includes(case)).count(), 1);
        }
        for bad in ["0/3", "4/3", "1/0", "2", "a/b", "1/x"] {
            let err = bad.parse::<Shard>().unwrap_err().to_string();
            assert!(err.contains(bad), "{bad}: {err}");
        }
    }

    #[test]
    fn merge_folds_every_shard_once_and_refuses_gaps_and_mixtures() {
        let one = summary("1/2".parse().unwrap(), &[0, 2, 4]);
        let two = summary("2/2".parse().unwrap(), &[1, 3]);
        let merged = merge(vec![two.clone(), one.clone()], Some("run 1")).unwrap();
        assert_eq!(merged.shard, Shard::WHOLE);
        assert_eq!(
            merged.results.iter().map(|r| r.case).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4]
        );
        assert_eq!(merged.failures().count(), 1);
        let err = merge(vec![one.clone()], None).unwrap_err().to_string();
        assert!(err.contains("missing: 2/2"), "{err}");
        let err = merge(vec![one.clone(), one.clone()], None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("twice"), "{err}");
        let mut other = two.clone();
        other.run = "seed 8, 5 streams".into();
        let err = merge(vec![one.clone(), other], None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("different runs"), "{err}");
        let mut stale = two;
        stale.run_id = Some("run 0".into());
        let err = merge(vec![one.clone(), stale.clone()], Some("run 1"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("of regression run run 0, not of run run 1"),
            "{err}"
        );
        assert!(merge(vec![one, stale], None).is_ok(), "no run asked: any");
    }

    #[test]
    fn junit_holds_every_case_with_its_failure() {
        let xml = summary(Shard::WHOLE, &[0, 1, 2, 3, 4]).junit().unwrap();
        let report = Report::deserialize_from_str(&xml).unwrap();
        let suite = &report.test_suites[0];
        assert_eq!(suite.test_cases.len(), 5);
        assert_eq!(suite.failures, 1);
        assert!(xml.contains("detail &lt;&amp;&gt;"), "{xml}");
    }
}
