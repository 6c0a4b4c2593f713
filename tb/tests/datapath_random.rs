//! The datapath on random convolutions (`npu_tb::conv_jobs`), each behind a
//! random memory system of its own (`MemorySystem::random`: REGIONCFG,
//! QCONFIG and AXI_LIMIT0-3, so channels on both ports with every burst
//! split and outstanding limit; per port random latency, back-pressure,
//! reordering, at times a bandwidth or outstanding limit, and ACLKEN): each
//! job runs on the RTL and on the golden model, which must agree on how the
//! run ends (STATUS, QREAD, IRQ), every region's bytes and the shared
//! buffer. `CONV_JOBS` sets the number of jobs (default 150). A failing job is
//! saved as a job folder, with the command that gives its waveform.

use npu_tb::conv_jobs::{random_job, rtl_agrees_under, save, MemorySystem};
use npu_tb::seed::seed;
use std::path::Path;

/// Jobs per run unless `CONV_JOBS` says otherwise.
const DEFAULT_JOBS: u64 = 150;

#[test]
fn random_convolutions_agree_with_the_golden_model() {
    let seed = seed();
    let count = std::env::var("CONV_JOBS").map_or(DEFAULT_JOBS, |s| {
        s.parse()
            .unwrap_or_else(|_| panic!("CONV_JOBS={s} is not a number"))
    });
    for index in 0..count {
        let cj = random_job(seed, index);
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
}
