//! The datapath on random convolutions (`npu_tb::conv_jobs`), each behind a
//! random memory system of its own (`MemorySystem::random`: REGIONCFG,
//! QCONFIG and AXI_LIMIT0-3, so channels on both ports with every burst
//! split and outstanding limit; per port random latency, back-pressure,
//! reordering, at times a bandwidth or outstanding limit, and ACLKEN): each
//! job runs on the RTL and on the golden model, which must agree on how the
//! run ends (STATUS, QREAD, IRQ), every region's bytes and the shared
//! buffer. `CONV_JOBS` sets the number of jobs (default 150),
//! `CONV_PARALLEL_JOBS` the number of operations in parallel mode on
//! u65-512 (default 20, TRM 4.7.5.1) and `POOL_JOBS` the number of pools
//! (NPU_OP_POOL max, average and REDUCE_SUM; a quarter of those the RTL runs
//! in parallel mode are on u65-512; default 150). A failing job is saved as a job
//! folder, with the command that gives its waveform.

use npu_tb::conv_jobs::{
    random_job, random_parallel_job, random_pool_job, rtl_agrees_under, save, ConvJob, MemorySystem,
};
use npu_tb::seed::seed;
use std::collections::BTreeMap;
use std::path::Path;

/// Jobs per run unless `CONV_JOBS` or `CONV_PARALLEL_JOBS` says otherwise.
const DEFAULT_JOBS: u64 = 150;
const DEFAULT_PARALLEL_JOBS: u64 = 20;
const DEFAULT_POOL_JOBS: u64 = 150;

fn job_count(variable: &str, default: u64) -> u64 {
    std::env::var(variable).map_or(default, |s| {
        s.parse()
            .unwrap_or_else(|_| panic!("{variable}={s} is not a number"))
    })
}

#[test]
fn random_convolutions_agree_with_the_golden_model() {
    agree(job_count("CONV_JOBS", DEFAULT_JOBS), random_job);
}

#[test]
fn random_parallel_convolutions_agree_with_the_golden_model() {
    agree(
        job_count("CONV_PARALLEL_JOBS", DEFAULT_PARALLEL_JOBS),
        random_parallel_job,
    );
}

#[test]
fn random_pools_agree_with_the_golden_model() {
    agree(job_count("POOL_JOBS", DEFAULT_POOL_JOBS), random_pool_job);
}

/// Runs `count` jobs `make(seed, index)` on the RTL and the golden model.
fn agree(count: u64, make: fn(u64, u64) -> ConvJob) {
    let seed = seed();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for index in 0..count {
        let cj = make(seed, index);
        *kinds
            .entry(format!("{:?} {}", cj.spec.kind, cj.job.config.name))
            .or_default() += 1;
        let memory = MemorySystem::for_job(seed, index);
        if let Err(e) = rtl_agrees_under(&cj.job, &memory) {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("conv-{seed}-{index}"));
            let saved = match save(&cj.job, &dir) {
                Ok(()) => format!(
                    "saved as {0}; its waveform (with an ideal memory): npu-sim run {0} --model rtl --vcd conv.vcd",
                    dir.display()
                ),
                Err(e) => format!("not saved: {e:#}"),
            };
            panic!(
                "job {index} of seed {seed} ({}) behind {memory:?}: {e}\n{saved}",
                cj.spec.describe()
            );
        }
    }
    println!("{count} jobs agree: {kinds:?}");
}
