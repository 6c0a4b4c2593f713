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
//! in parallel mode are on u65-512; default 150). A failing job is saved as
//! a job folder, with the command that gives its waveform and the one that
//! reruns it alone behind its own memory (`NPU_SEED`, `NPU_JOB` the job's
//! index). A quarter of the
//! convolution jobs have an activation function (tanh, sigmoid, or a LUT of
//! random contents that user DMAs load into each core's last 2 KB of the
//! shared buffer first). One more job loads a LUT, uses it, reloads it with
//! other contents and uses it again (issue 13). `ELEMENTWISE_JOBS` sets the
//! number of elementwise operations (`npu_tb::elementwise_jobs`: every mode
//! and type pair, IFM2 broadcast in any dimension, scalar or reversed, the
//! ADD/SUB input scales, activation functions; default 150). `CHAIN_JOBS`
//! sets the number of chains (`npu_tb::conv_jobs::random_chain`: two to
//! four of those operations back to back in one command stream, so the next
//! operation's weights and scales are read while the one before finishes;
//! default 30); `DEPENDENT_JOBS` the number of pairs whose second operation
//! reads the first's OFM (`random_dependent_chain`: the largest safe
//! NPU_SET_BLOCKDEP or 0; default 20), `TWO_PRODUCER_JOBS` the number of
//! elementwise operations reading the OFMs of the two before them
//! (`random_elementwise_of_two`; default 12). Every RTL run has the harness's
//! BLOCKDEP checker (`npu_tb::blockdep`) on its AXI traffic.

use npu_arch::command::{ActivationFunction, Opcode, PoolingMode};
use npu_arch::shared_buffer::LUT_BYTES;
use npu_model::cmdstream::{encode, Command};
use npu_model::job::Job;
use npu_model::tensor::DType;
use npu_tb::conv_jobs::{
    lut_dma, random_chain, random_dependent_chain, random_job, random_parallel_job,
    random_pool_job, rtl_agrees_under, save, ConvJob, ConvKind, ConvSpec, MemorySystem,
};
use npu_tb::elementwise_jobs::{random_elementwise_job, random_elementwise_of_two};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::path::Path;

/// Jobs per run unless `CONV_JOBS` or `CONV_PARALLEL_JOBS` says otherwise.
const DEFAULT_JOBS: u64 = 150;
const DEFAULT_PARALLEL_JOBS: u64 = 20;
const DEFAULT_POOL_JOBS: u64 = 150;
const DEFAULT_ELEMENTWISE_JOBS: u64 = 150;
const DEFAULT_CHAIN_JOBS: u64 = 30;
const DEFAULT_DEPENDENT_JOBS: u64 = 20;
const DEFAULT_TWO_PRODUCER_JOBS: u64 = 12;

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

/// Vela's weight prefetch: job `index` of `seed`, a random pool or
/// convolution and a user DMA to external memory issued right after it,
/// without a wait, copying a random source into a buffer after the OFM in
/// its region or, unless `ofm_region` says, into a region of its own.
fn a_dma_after_a_kernel_operation(seed: u64, index: u64, ofm_region: bool) -> (Job, String) {
    let cj = if index.is_multiple_of(2) {
        random_pool_job(seed, index)
    } else {
        random_job(seed, index)
    };
    let mut rng = StdRng::seed_from_u64(seed ^ index);
    let mut commands = cj.commands.clone();
    let stop = commands.pop().expect("a command stream");
    let mut regions = cj.job.regions.clone();
    let free = (0..8)
        .find(|r| !cj.spec.regions.contains(r))
        .expect("a region the operation does not use");
    let len = rng.gen_range(1..=4096usize);
    let source: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let at = rng.gen_range(0..64) * 16;
    let mut buffer = vec![0u8; at];
    buffer.extend_from_slice(&source);
    regions.insert(free, buffer);
    // The destination: after the OFM's region's bytes, or a new region.
    let target = if ofm_region || rng.gen_bool(0.5) {
        cj.spec.regions[1]
    } else {
        free
    };
    let bytes = regions.get_mut(&target).expect("the target region");
    let destination = bytes.len().next_multiple_of(16) as u64 + 16 * rng.gen_range(0..4);
    bytes.resize(destination as usize + len + 64, 0);
    commands.extend([
        Command::cmd0(Opcode::NpuSetDma0SrcRegion, free as u16),
        Command::cmd1(Opcode::NpuSetDma0Src, 0, at as u32),
        Command::cmd0(Opcode::NpuSetDma0DstRegion, target as u16),
        Command::cmd1(Opcode::NpuSetDma0Dst, 0, destination as u32),
        Command::cmd1(Opcode::NpuSetDma0Len, 0, len as u32),
        Command::cmd0(Opcode::NpuOpDmaStart, 0),
        stop,
    ]);
    let job = Job::in_memory(
        cj.job.config.clone(),
        encode(&commands),
        regions,
        "a user DMA after a kernel operation",
    );
    let what = format!(
        "seed {seed}, job {index} ({}) and a {len}-byte DMA",
        cj.spec.describe()
    );
    (job, what)
}

/// Vela's weight prefetch while random pools and convolutions run. Memory
/// must end as the golden model's, which runs the operation and then the
/// copy.
#[test]
fn a_user_dma_after_a_kernel_operation_agrees_with_the_golden_model() {
    let seed = seed();
    for index in 0..12 {
        let (job, what) = a_dma_after_a_kernel_operation(seed, index, false);
        let memory = MemorySystem::for_job(seed, index);
        if let Err(e) = rtl_agrees_under(&job, &memory) {
            panic!("{what} behind {memory:?}: {e}");
        }
    }
}

/// The OFM's writes and the DMA's on one outstanding counter that allows
/// one write (TRM 4.2.14): when both channels have a burst as the last
/// answer comes, only one takes the free slot. The AXI monitor holds the
/// port to the limits of the counters in use, so a second write in flight
/// fails the run.
#[test]
fn the_ofm_and_a_user_dma_share_one_counters_single_write_slot() {
    let seed = seed();
    for index in 0..8 {
        let (job, what) = a_dma_after_a_kernel_operation(seed, index, true);
        let mut memory = MemorySystem::for_job(seed, index);
        let counter = (index % 4) as u32;
        memory.settings.regioncfg = [counter; 8];
        memory.settings.qconfig = counter;
        memory.settings.axi_limits[counter as usize].max_outstanding_writes = 1;
        if let Err(e) = rtl_agrees_under(&job, &memory) {
            panic!("{what}, every region on counter {counter} behind {memory:?}: {e}");
        }
    }
}

/// Issue 13's LUT test: a user DMA loads a LUT, a convolution uses it; after
/// NPU_OP_KERNEL_WAIT another DMA loads other contents and a second
/// convolution, the same but for its OFM's address, uses them. Both OFMs
/// must agree with the golden model, so a stale copy of the LUT fails.
#[test]
fn a_lut_reloaded_between_two_convolutions_is_read_afresh() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let activation = ActivationFunction::from_bits(rng.gen_range(16..24)).unwrap();
    let spec = ConvSpec {
        activation,
        ..ConvSpec::new(ConvKind::Conv, DType::I8, [4, 6, 24], 16, [3, 3])
    };
    let cj = spec
        .build(&mut rng)
        .unwrap_or_else(|e| panic!("spec refused: {e}"));
    let mut commands = cj.commands.clone();
    let stop = commands.pop().expect("a command stream");
    assert_eq!(stop.op, Opcode::NpuOpStop);
    let mut regions = cj.job.regions.clone();
    let append = |regions: &mut BTreeMap<usize, Vec<u8>>, region: usize, bytes: &[u8]| {
        let r = regions.entry(region).or_default();
        let base = r.len().next_multiple_of(16);
        r.resize(base, 0);
        r.extend_from_slice(bytes);
        base as u64
    };
    let lut: Vec<u8> = (0..LUT_BYTES).map(|_| rng.gen()).collect();
    assert_ne!(lut, cj.luts[0], "new LUT contents");
    let source = append(&mut regions, spec.regions[2], &lut);
    // The second OFM: as many bytes as the first's, after everything else.
    let ofm_base = commands
        .iter()
        .find(|c| c.op == Opcode::NpuSetOfmBase0)
        .map(|c| c.value() & 0xffff_ffff_ffff)
        .expect("OFM base");
    let ofm_region = spec.regions[1];
    let ofm_bytes: Vec<u8> = (ofm_base as usize..regions[&ofm_region].len())
        .map(|_| rng.gen())
        .collect();
    let second_ofm = append(&mut regions, ofm_region, &ofm_bytes);
    let lut_area = (48 * 1024 - LUT_BYTES) as u64;
    commands.push(Command::cmd0(Opcode::NpuOpKernelWait, 0));
    commands.extend(lut_dma(spec.regions[2], source, 1, lut_area));
    commands.push(Command::cmd0(Opcode::NpuOpDmaWait, 0));
    commands.push(Command::cmd1(
        Opcode::NpuSetOfmBase0,
        (second_ofm >> 32) as u16,
        second_ofm as u32,
    ));
    commands.push(Command::cmd0(Opcode::NpuOpConv, 0));
    commands.push(stop);
    let job = Job::in_memory(
        cj.job.config.clone(),
        encode(&commands),
        regions,
        "LUT loaded, used, reloaded and used again",
    );
    let memory = MemorySystem::for_job(seed, 0);
    if let Err(e) = rtl_agrees_under(&job, &memory) {
        panic!("seed {seed}, {activation:?} behind {memory:?}: {e}");
    }
}

#[test]
fn random_pools_agree_with_the_golden_model() {
    agree(job_count("POOL_JOBS", DEFAULT_POOL_JOBS), random_pool_job);
}

#[test]
fn random_elementwise_operations_agree_with_the_golden_model() {
    agree_on(
        job_count("ELEMENTWISE_JOBS", DEFAULT_ELEMENTWISE_JOBS),
        |seed, index| {
            let (spec, job) = random_elementwise_job(seed, index);
            let kind = format!("{:?} {}", spec.mode, job.config.name);
            (job, kind, spec.describe())
        },
    );
}

#[test]
fn random_chains_of_operations_agree_with_the_golden_model() {
    agree_on(
        job_count("CHAIN_JOBS", DEFAULT_CHAIN_JOBS),
        |seed, index| {
            let chain = random_chain(seed, index);
            let kind = format!("{} of {}", chain.job.config.name, chain.parts.len());
            let description = chain.describe();
            (chain.job, kind, description)
        },
    );
}

/// Two operations, the second reading the first's OFM, with the largest
/// NPU_SET_BLOCKDEP safe for their blocks or 0 (TRM 4.9): the harness's
/// BLOCKDEP checker watches each run's IFM reads, and the results must be
/// the golden model's.
#[test]
fn random_dependent_operations_agree_with_the_golden_model() {
    agree_on(
        job_count("DEPENDENT_JOBS", DEFAULT_DEPENDENT_JOBS),
        |seed, index| {
            let chain = random_dependent_chain(seed, index);
            let kind = format!("{} dependent pair", chain.job.config.name);
            let description = chain.job.spec.description.clone().unwrap_or_default();
            (chain.job, kind, description)
        },
    );
}

/// An elementwise operation reading the OFMs of the two operations before
/// it as IFM and IFM2, with the largest NPU_SET_BLOCKDEP safe against the
/// second or 0 (TRM 4.9), behind random memory systems, under the BLOCKDEP
/// checker.
#[test]
fn elementwise_operations_reading_two_earlier_ofms_agree_with_the_golden_model() {
    agree_on(
        job_count("TWO_PRODUCER_JOBS", DEFAULT_TWO_PRODUCER_JOBS),
        |seed, index| {
            let (job, description) = random_elementwise_of_two(seed, index);
            (job, "two producers".into(), description)
        },
    );
}

/// Pool kernels beyond the 8x8 of convolutions (TRM 4.8.2 table 4-122:
/// kernel_y up to 256, kernel_x * kernel_y up to 65536): a max pool 3 x 80
/// and an average pool 70 x 2, behind a random memory system.
#[test]
fn pools_with_kernels_beyond_64_agree_with_the_golden_model() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    for (mode, kernel) in [(PoolingMode::Max, [3, 80]), (PoolingMode::Average, [70, 2])] {
        let spec = ConvSpec::new(ConvKind::Pool(mode), DType::I8, [2, 4, 16], 16, kernel);
        let cj = spec
            .build(&mut rng)
            .unwrap_or_else(|e| panic!("{mode:?} {kernel:?} refused: {e}"));
        let memory = MemorySystem::for_job(seed, 0);
        if let Err(e) = rtl_agrees_under(&cj.job, &memory) {
            panic!("seed {seed}, {mode:?} pool {kernel:?} behind {memory:?}: {e}");
        }
    }
}

/// Runs `count` jobs `make(seed, index)` on the RTL and the golden model.
fn agree(count: u64, make: fn(u64, u64) -> ConvJob) {
    agree_on(count, |seed, index| {
        let cj = make(seed, index);
        let kind = format!(
            "{:?} {} {}",
            cj.spec.kind, cj.spec.ifm_type, cj.job.config.name
        );
        (cj.job, kind, cj.spec.describe())
    });
}

/// Runs `count` jobs `make(seed, index)` (a job, its kind and its
/// description) on the RTL and the golden model.
fn agree_on(count: u64, make: impl Fn(u64, u64) -> (Job, String, String)) {
    let seed = seed();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let only = std::env::var("NPU_JOB").ok().map(|s| {
        s.parse::<u64>()
            .unwrap_or_else(|_| panic!("NPU_JOB={s} is not a job index"))
    });
    let indices = only.map_or(0..count, |index| index..index + 1);
    let count = indices.end - indices.start;
    for index in indices {
        let (job, kind, description) = make(seed, index);
        *kinds.entry(kind).or_default() += 1;
        let memory = MemorySystem::for_job(seed, index);
        if let Err(e) = rtl_agrees_under(&job, &memory) {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("job-{seed}-{index}"));
            let saved = match save(&job, &dir) {
                Ok(()) => format!(
                    "saved as {0}; its waveform (with an ideal memory): npu-sim run {0} --model rtl --vcd job.vcd",
                    dir.display()
                ),
                Err(e) => format!("not saved: {e:#}"),
            };
            let test = std::thread::current().name().unwrap_or("").to_string();
            panic!(
                "job {index} of seed {seed} ({description}) behind {memory:?}: {e}\n{saved}\n\
                 this job alone, behind the same memory: \
                 NPU_SEED={seed} NPU_JOB={index} cargo test -p npu-tb --test datapath {test}"
            );
        }
    }
    println!("{count} jobs agree: {kinds:?}");
}
