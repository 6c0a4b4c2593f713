//! Running a job on the golden model and the RTL, behind a memory system,
//! and saving it as a job folder.

use crate::axi::{describe_ports, random_aclken_pattern, CompleterConfig};
use crate::driver::{AxiLimit, AxiSettings};
use crate::rtl_backend::RtlBackend;
use npu_model::cmdstream::bytes_to_words;
use npu_model::compare::difference;
use npu_model::job::{Backend, BackendRun, GoldenBackend, Job};
use npu_model::job_folder::save_job;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::Path;

/// Runs `job` on the golden model, which must run it to NPU_OP_STOP.
pub fn golden_run(job: &Job) -> Result<BackendRun, String> {
    job.check()
        .map_err(|e| format!("the runner refuses the job: {e}"))?;
    let run = GoldenBackend::default()
        .run(job, &mut |_, _| {})
        .map_err(|e| format!("golden model: {e:#}"))?;
    if !run.completed() {
        return Err(format!(
            "the golden model did not reach NPU_OP_STOP: STATUS {}{}",
            npu_arch::regs::describe_status(run.status),
            run.fault
                .as_ref()
                .map_or(String::new(), |f| format!(" ({f})"))
        ));
    }
    Ok(run)
}

/// Runs `job` on the golden model and the RTL; `Err` says what differs
/// (STATUS, QREAD, IRQ, a region's byte or the shared buffer).
pub fn rtl_agrees(job: &Job) -> Result<(), String> {
    rtl_agrees_on(job, &mut RtlBackend::default())
}

/// As [`rtl_agrees`], with the RTL behind `memory`.
pub fn rtl_agrees_under(job: &Job, memory: &MemorySystem) -> Result<(), String> {
    rtl_agrees_on(job, &mut memory.backend())
}

fn rtl_agrees_on(job: &Job, rtl: &mut RtlBackend) -> Result<(), String> {
    let golden = golden_run(job)?;
    let run = rtl
        .run(job, &mut |_, _| {})
        .map_err(|e| format!("RTL: {e:#}"))?;
    difference(&golden, &run).map_or(Ok(()), Err)
}

/// What the RTL's AXI managers see: the settings the driver programs
/// (REGIONCFG, QCONFIG, AXI_LIMIT0-3, which put each channel on a port and
/// bound its bursts and outstanding transactions) and the memory behind M0
/// and M1 (latency, back-pressure, reordering, bandwidth, ACLKEN).
#[derive(Clone, Debug)]
pub struct MemorySystem {
    pub settings: AxiSettings,
    pub axi_configs: [CompleterConfig; 2],
    pub aclken_patterns: [Vec<bool>; 2],
    /// Seed of the completers' own randomness.
    pub axi_seed: u64,
}

impl MemorySystem {
    /// Random settings ([`AxiSettings::random`]) and, per port, random
    /// latency, back-pressure and response delays with reordering, at times
    /// a bandwidth or outstanding-transaction limit, and an ACLKEN pattern.
    pub fn random(rng: &mut StdRng) -> MemorySystem {
        let settings = AxiSettings::random(rng);
        // The fewest transactions the NPU keeps in flight on port `m`: the
        // least AXI_LIMIT count of its two counters (TRM 4.2.13: counters 0
        // and 1 are M0's, 2 and 3 M1's).
        let npu_outstanding = |m: usize, count: fn(&AxiLimit) -> u32| {
            let limits = &settings.axi_limits;
            count(&limits[2 * m]).min(count(&limits[2 * m + 1])) as usize
        };
        let port = |rng: &mut StdRng, m: usize| {
            let mut port = CompleterConfig {
                reorder: true,
                max_reads: rng.gen_bool(0.25).then(|| rng.gen_range(1..=8)),
                max_writes: rng.gen_bool(0.25).then(|| rng.gen_range(1..=8)),
                bytes_per_cycle: rng.gen_bool(0.25).then(|| rng.gen_range(2.0..=16.0)),
                ..CompleterConfig::random(rng)
            };
            // A port that holds n transactions (in the memory or by the
            // NPU's AXI_LIMIT) has at most 128n cycles of latency (half a
            // byte a cycle with 64-byte bursts): one that holds one behind
            // 1000 cycles would make a run tens of millions of cycles long
            // and test nothing more.
            let bound = |memory: Option<usize>, npu: usize, latency: u64| {
                let held = memory.map_or(npu, |n| n.min(npu));
                latency.min(128 * held as u64)
            };
            let reads = npu_outstanding(m, |l| l.max_outstanding_reads);
            let writes = npu_outstanding(m, |l| l.max_outstanding_writes);
            port.read_latency = bound(port.max_reads, reads, port.read_latency);
            port.write_latency = bound(port.max_writes, writes, port.write_latency);
            port
        };
        let axi_configs = [port(rng, 0), port(rng, 1)];
        MemorySystem {
            settings,
            axi_configs,
            aclken_patterns: [random_aclken_pattern(rng), random_aclken_pattern(rng)],
            axi_seed: rng.gen(),
        }
    }

    /// The random memory system of job `index` of a run with `seed`, drawn
    /// apart from the job itself ([`random_job`](super::random_job)).
    pub fn for_job(seed: u64, index: u64) -> MemorySystem {
        let salt = 0x6d65_6d6f_7279_0000;
        MemorySystem::random(&mut StdRng::seed_from_u64(
            seed ^ salt ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        ))
    }

    /// Each port's latency, limits and bandwidth, in one line.
    pub fn describe(&self) -> String {
        describe_ports(&self.axi_configs)
    }

    /// An RTL backend behind this memory system.
    pub fn backend(&self) -> RtlBackend {
        RtlBackend {
            settings: self.settings.clone(),
            axi_configs: self.axi_configs.clone(),
            aclken_patterns: self.aclken_patterns.clone(),
            axi_seed: Some(self.axi_seed),
            ..RtlBackend::default()
        }
    }
}

/// Writes `job` as a job folder (`npu-sim run DIR --model rtl --vcd F`
/// re-runs it), every region an output.
pub fn save(job: &Job, dir: &Path) -> anyhow::Result<()> {
    save_job(
        dir,
        &job.config,
        &bytes_to_words(&job.command_stream)?,
        &job.regions,
        job.spec
            .description
            .as_deref()
            .unwrap_or("a random convolution job"),
    )
}
