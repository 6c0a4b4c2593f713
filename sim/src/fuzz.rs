//! `npu-sim fuzz`: the differential fuzzer (`npu_tb::fuzz`) as a
//! regression: the cases of a seed that are a shard's, each disagreement
//! shrunk and saved as a job folder, the results as a regression summary.

use crate::regress::{CaseResult, Shard, Summary};
use anyhow::Result;
use npu_tb::fuzz::{judge, shrink, Case, Generator, Verdict};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A disagreement, shrunk.
#[derive(Clone, Debug)]
pub struct Finding {
    pub index: u64,
    pub verdict: String,
    pub case: Case,
    pub saved: Option<PathBuf>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "case {} ({}): {}",
            self.index, self.case.config.name, self.verdict
        )?;
        for (k, bytes) in &self.case.regions {
            writeln!(f, "  region {k}: {} bytes", bytes.len())?;
        }
        if let Some(dir) = &self.saved {
            writeln!(f, "  saved as {} (npu-sim run it)", dir.display())?;
        }
        write!(f, "{}", self.case.listing())
    }
}

/// Totals of a run of the fuzzer.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Agreed, by how the runs ended.
    pub agreed: BTreeMap<&'static str, u64>,
    /// Refused before running, by kind of reason.
    pub refused: BTreeMap<&'static str, u64>,
    /// Kernel operations run by both models in the cases that agreed.
    pub kernel_ops: u64,
    /// The cases that agreed by the stream checker's verdict: passed, or
    /// the rule it refused them for.
    pub checker: BTreeMap<&'static str, u64>,
    /// Bytes the bounds watcher saw the RTL touch, every one inside the
    /// checker's ranges.
    pub watched_bytes: u64,
    pub findings: Vec<Finding>,
    /// Every case run, in order.
    pub results: Vec<CaseResult>,
}

impl Tally {
    /// The run as a regression summary (`npu-sim fuzz --summary/--junit`).
    pub fn summary(&self, seed: u64, count: u64, shard: Shard, run_id: Option<&str>) -> Summary {
        Summary {
            suite: "fuzz".into(),
            run: format!("seed {seed}, {count} streams"),
            shard,
            suite_cases: count,
            results: self.results.clone(),
            run_id: run_id.map(str::to_string),
        }
    }
}

/// Runs the cases of `seed` numbered below `count` that are `shard`'s; each
/// disagreement is shrunk and, with `save_to`, saved as a job folder
/// `save_to/<seed>-<index>`. `progress` gets the cases run so far.
pub fn run(
    seed: u64,
    count: u64,
    shard: Shard,
    save_to: Option<&Path>,
    progress: &mut dyn FnMut(u64, &Tally),
) -> Result<Tally> {
    let mut tally = Tally::default();
    for index in (0..count).filter(|&i| shard.includes(i)) {
        let started = Instant::now();
        let case = Generator::case(seed, index);
        let (passed, detail) = match judge(&case) {
            Verdict::Agree(a) => {
                *tally.agreed.entry(a.how).or_default() += 1;
                tally.kernel_ops += a.kernel_ops as u64;
                let checker = a
                    .refused_by_checker
                    .map_or("passed", |kind| kind.describe());
                *tally.checker.entry(checker).or_default() += 1;
                tally.watched_bytes += a.watched_bytes;
                (true, format!("agreed, stopped by {}", a.how))
            }
            Verdict::Refused(why) => {
                *tally.refused.entry(why).or_default() += 1;
                (true, format!("refused before running for {why}"))
            }
            Verdict::Disagree(_) => {
                let small = shrink(&case);
                let verdict = match judge(&small) {
                    Verdict::Disagree(v) => v,
                    other => format!("{other:?}"),
                };
                let saved = match save_to {
                    Some(dir) => {
                        let dir = dir.join(format!("{seed}-{index}"));
                        small.save(&dir)?;
                        Some(dir)
                    }
                    None => None,
                };
                let finding = Finding {
                    index,
                    verdict,
                    case: small,
                    saved,
                };
                let detail = finding.to_string();
                tally.findings.push(finding);
                (false, detail)
            }
        };
        tally.results.push(CaseResult {
            case: index,
            name: format!("seed {seed} case {index}"),
            passed,
            detail,
            seconds: started.elapsed().as_secs_f64(),
            cycles: None,
        });
        progress(tally.results.len() as u64, &tally);
    }
    Ok(tally)
}
