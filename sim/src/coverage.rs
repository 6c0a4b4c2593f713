//! `npu-sim coverage`: the golden model's functional coverage
//! (`npu_model::coverage`) over what the regression runs on it: the bundled
//! job folders, every Vela output of the bundled networks, the random
//! convolution, pool and elementwise generators of `npu_tb` and fuzz cases
//! (those the job runner does not refuse, as `npu_tb::fuzz::judge`), all on
//! the golden model only.

use crate::networks::bundled_networks;
use anyhow::{Context, Result};
use npu_model::coverage::{collect, Coverage};
use npu_model::job::{Backend, GoldenBackend, Job, JobError};
use npu_model::tflite::VelaModel;
use npu_tb::conv_jobs::{
    random_chain, random_dependent_chain, random_job, random_parallel_job, random_pool_job,
};
use npu_tb::elementwise_jobs::{random_elementwise_job, random_elementwise_of_two};
use npu_tb::fuzz::Generator;
use npu_tb::verilator::workspace_root;

/// What a collection ran, by source, and what it counted.
pub struct Collection {
    /// Jobs and networks run, by source.
    pub runs: Vec<(&'static str, u64)>,
    /// Fuzz cases the job runner refused before running (not run).
    pub fuzz_refused: u64,
    /// Everything but the fuzz cases.
    pub bundled: Coverage,
    pub fuzz: Coverage,
}

impl Collection {
    pub fn all(&self) -> Coverage {
        let mut all = self.bundled.clone();
        all.merge(&self.fuzz);
        all
    }
}

/// Runs `job` on the golden model; a stop on an error is a run like any.
fn golden(job: &Job) {
    let _ = GoldenBackend::default().run(job, &mut |_, _| {});
}

/// Collects over the bundled jobs and networks, `jobs` jobs of each random
/// generator and `fuzz` fuzz cases, all of `seed`.
pub fn run(seed: u64, jobs: u64, fuzz: u64) -> Result<Collection> {
    let mut runs = Vec::new();
    let (bundled, bundled_coverage) = collect(|| -> Result<()> {
        let dir = workspace_root().join("model/tests/fixtures/jobs");
        let mut folders: Vec<_> = std::fs::read_dir(&dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .map(|e| e.map(|e| e.path()))
            .collect::<std::io::Result<_>>()?;
        folders.sort();
        for folder in &folders {
            golden(&Job::load(folder, None).with_context(|| folder.display().to_string())?);
        }
        runs.push(("job folders", folders.len() as u64));
        let mut models = 0;
        for network in bundled_networks()? {
            let inputs = network.read_inputs()?;
            for path in &network.models {
                let model = VelaModel::load(path)?;
                let config = model.config()?;
                model
                    .run(
                        config,
                        &inputs,
                        &mut GoldenBackend::default(),
                        &mut |_, _| {},
                    )
                    .with_context(|| path.display().to_string())?;
                models += 1;
            }
        }
        runs.push(("networks (Vela outputs)", models));
        for i in 0..jobs {
            golden(&random_job(seed, i).job);
            golden(&random_parallel_job(seed, i).job);
            golden(&random_pool_job(seed, i).job);
            golden(&random_elementwise_job(seed, i).1);
            golden(&random_chain(seed, i).job);
            golden(&random_dependent_chain(seed, i).job);
            golden(&random_elementwise_of_two(seed, i).0);
        }
        runs.push(("random generator jobs (7 generators)", 7 * jobs));
        Ok(())
    });
    bundled?;
    let mut refused = 0;
    let (_, fuzz_coverage) = collect(|| {
        for i in 0..fuzz {
            let job = Generator::case(seed, i).job();
            // As the fuzzer's judge: the runner refuses these before running.
            if let Err(JobError::Refused(_)) = job.check() {
                refused += 1;
                continue;
            }
            golden(&job);
        }
    });
    runs.push(("fuzz cases run", fuzz - refused));
    Ok(Collection {
        runs,
        fuzz_refused: refused,
        bundled: bundled_coverage,
        fuzz: fuzz_coverage,
    })
}
