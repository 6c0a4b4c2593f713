//! The golden model and the RTL agree on streams the TRM leaves open: one
//! regression per kind of disagreement the differential fuzzer has found
//! (`npu-sim fuzz`). Each runs a listing on both models and compares how the
//! run ended, STATUS, QREAD, IRQ and the memory.

use npu_arch::command::Opcode;
use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, faulting_channel};
use npu_model::cmdstream::{assemble, encode, Command};
use npu_model::compare::difference;
use npu_model::job::{run_job, Backend, BackendRun, GoldenBackend, Job, JobError};
use npu_model::tensor::DType;
use npu_tb::conv_jobs::{ConvKind, ConvSpec};
use npu_tb::rtl_backend::RtlBackend;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::collections::BTreeMap;

/// A job of `listing` over regions of the given sizes, each byte its offset.
fn job(listing: &str, regions: &[(usize, usize)]) -> Job {
    let regions: BTreeMap<usize, Vec<u8>> = regions
        .iter()
        .map(|&(k, size)| (k, (0..size).map(|i| (i * 7 + k) as u8).collect()))
        .collect();
    let stream = encode(&assemble(listing).expect("listing assembles"));
    Job::in_memory(NpuConfig::u65_256(), stream, regions, listing)
}

/// Runs `job` on both models without the runner's check.
fn both(job: &Job) -> (BackendRun, BackendRun) {
    let golden = GoldenBackend::default()
        .run(job, &mut |_, _| {})
        .expect("golden run");
    let rtl = RtlBackend::default()
        .run(job, &mut |_, _| {})
        .expect("RTL run");
    (golden, rtl)
}

/// Runs `job` on both models, which must agree; returns the golden run.
fn agree(job: &Job) -> BackendRun {
    job.check().expect("the runner accepts the stream");
    let (golden, rtl) = both(job);
    if let Some(d) = difference(&golden, &rtl) {
        panic!("{}: {d}", job.spec.description.as_deref().unwrap_or(""));
    }
    golden
}

fn field(run: &BackendRun, name: &str) -> u32 {
    regs::STATUS.field(name).get(run.status)
}

/// `job` is refused before it runs, on either model, naming `why`.
fn refused(job: &Job, why: &str) {
    let e = job.check().expect_err("refused");
    assert!(matches!(e, JobError::Refused(_)), "{e}");
    assert!(e.to_string().contains(why), "{why} missing from: {e}");
    let mut golden = GoldenBackend::default();
    let mut rtl = RtlBackend::default();
    for backend in [&mut golden as &mut dyn Backend, &mut rtl] {
        let e = run_job(job, backend, &mut |_, _| {}).expect_err("refused");
        assert!(e.to_string().contains("refused before running"), "{e}");
    }
}

const COPY_512_IN_REGION_0: &str = "NPU_SET_DMA0_SRC_REGION 0\n\
     NPU_SET_DMA0_DST_REGION 0\n\
     NPU_SET_DMA0_SRC 0 0\n\
     NPU_SET_DMA0_DST 0 256\n\
     NPU_SET_DMA0_LEN 0 512\n\
     NPU_OP_DMA_START 0\n\
     NPU_OP_STOP 0";

#[test]
fn overlapping_source_and_destination_are_refused_on_both_models() {
    refused(
        &job(COPY_512_IN_REGION_0, &[(0, 1024)]),
        "source and destination overlap in region 0 at bytes [0x100, 0x200)",
    );
}

/// User DMAs run one after another, each written before the next reads,
/// so a chain needs no NPU_OP_DMA_WAIT between its links.
#[test]
fn a_dma_reads_what_the_one_before_wrote() {
    let chain = "NPU_SET_DMA0_SRC_REGION 0\nNPU_SET_DMA0_DST_REGION 1\n\
                 NPU_SET_DMA0_LEN 0 64\nNPU_OP_DMA_START 0\n\
                 NPU_SET_DMA0_SRC_REGION 1\nNPU_SET_DMA0_DST_REGION 2\n\
                 NPU_OP_DMA_START 0\nNPU_OP_STOP 0";
    let run = agree(&job(chain, &[(0, 64), (1, 64), (2, 64)]));
    assert_eq!(run.regions[&2], run.regions[&0], "copied twice");
}

#[test]
fn a_stream_without_stop_ends_at_once_with_cmd_end_reached_on_both_models() {
    let run = agree(&job("NPU_SET_IFM_PAD_TOP 0", &[]));
    assert_eq!(field(&run, "cmd_end_reached"), 1);
    assert_eq!((run.qread, run.irq, run.completed()), (4, false, false));
    let rtl = RtlBackend::default()
        .run(&job("NPU_SET_IFM_PAD_TOP 0", &[]), &mut |_, _| {})
        .unwrap();
    let cycles = rtl.cycles.unwrap();
    assert!(
        cycles < 2000,
        "the driver saw the stop after {cycles} cycles"
    );
}

/// TRM 4.2.2 STATUS.cmd_end_reached: NPU_OP_STOP ends the command stream,
/// wherever it stands (the commands after it are not started, TRM 4.6.4),
/// so it sets the bit, as Arm's core driver requires of every inference;
/// QREAD is past the STOP, the run completes. (Until 2026-12-02 both models
/// set it only when the stream ran out.)
#[test]
fn npu_op_stop_sets_cmd_end_reached_wherever_it_stands_on_both_models() {
    for (listing, qread) in [
        (
            "NPU_SET_IFM_PAD_TOP 0
NPU_OP_STOP 65535",
            8,
        ),
        (
            "NPU_OP_STOP 1
NPU_SET_IFM_PAD_TOP 1
NPU_OP_IRQ 2",
            4,
        ),
    ] {
        let run = agree(&job(listing, &[]));
        assert_eq!(
            (
                field(&run, "cmd_end_reached"),
                field(&run, "state"),
                run.qread,
                run.irq,
                run.completed()
            ),
            (1, 0, qread, true, true),
            "{listing}: STATUS {:#x}",
            run.status
        );
    }
}

#[test]
fn an_irq_without_stop_does_not_complete_and_both_report_irq_raised() {
    let run = agree(&job("NPU_OP_IRQ 1", &[]));
    assert_eq!(
        (
            field(&run, "irq_raised"),
            field(&run, "cmd_end_reached"),
            field(&run, "irq_history_mask")
        ),
        (1, 1, 1)
    );
    assert!(run.irq && !run.completed());
}

/// Fuzzer case 7 of seed 2026: the NPU stopped at the end of the stream
/// (or on a refused command after it) with a kernel operation queued or
/// running, and the main clock gate froze it there; the golden model had run
/// it. Dispatched kernel operations complete after a stop, as user DMAs do.
#[test]
fn a_kernel_operation_before_the_end_of_the_stream_or_a_refused_command_completes() {
    let spec = ConvSpec::new(ConvKind::Conv, DType::I8, [6, 6, 16], 16, [3, 3]);
    let cj = spec
        .build(&mut StdRng::seed_from_u64(7))
        .expect("a valid convolution");
    let mut commands = cj.commands.clone();
    assert_eq!(commands.pop().map(|c| c.op), Some(Opcode::NpuOpStop));
    for (ending, tail) in [
        ("the end of the stream", vec![]),
        (
            "a refused command",
            vec![Command::cmd0(Opcode::NpuOpKernelWait, 4)],
        ),
    ] {
        let mut stream = commands.clone();
        stream.extend(tail);
        let job = Job::in_memory(
            cj.job.config.clone(),
            encode(&stream),
            cj.job.regions.clone(),
            ending,
        );
        let run = agree(&job);
        assert!(!run.completed(), "{ending}");
        assert_eq!(run.ops.values().sum::<usize>(), 1, "{ending}");
        let ofm = &run.regions[&cj.spec.regions[1]];
        let original = &cj.job.regions[&cj.spec.regions[1]];
        assert_ne!(ofm, original, "{ending}: the OFM was not written");
    }
}

#[test]
fn values_outside_the_trm_ranges_are_parse_errors_on_both_models() {
    let dma = |src: u32, dst: u32| {
        format!(
            "NPU_SET_DMA0_SRC_REGION {src}\nNPU_SET_DMA0_DST_REGION {dst}\n\
             NPU_SET_DMA0_LEN 0 16\nNPU_OP_DMA_START 0"
        )
    };
    let cases = [
        ("a reserved bit", "NPU_SET_IFM_REGION 8".to_string()),
        (
            "a reserved cmd1 bit",
            "NPU_SET_SCALE_LENGTH 0 0x100000".into(),
        ),
        ("DMA_WAIT k 2", "NPU_OP_DMA_WAIT 2".into()),
        ("DMA_WAIT channel 1", "NPU_OP_DMA_WAIT 16".into()),
        ("KERNEL_WAIT 4", "NPU_OP_KERNEL_WAIT 4".into()),
        ("PMU_MASK 2", "NPU_OP_PMU_MASK 2".into()),
        ("DMA_START 13", "NPU_OP_DMA_START 13".into()),
        ("DMA_START channel 1", "NPU_OP_DMA_START 16".into()),
        ("source region 8", dma(8, 1)),
        ("destination region 8", dma(0, 8)),
        ("an internal source", dma(0x100, 1)),
        ("source stride mode 3", dma(0x600, 1)),
        ("destination stride mode 3", dma(0, 0x601)),
        ("core mask 0", dma(0, 0x100)),
        ("core mask 4", dma(0, 0x104)),
    ];
    for (what, listing) in cases {
        let stream = format!("NPU_SET_IFM_PAD_TOP 1\n{listing}\nNPU_OP_STOP 0");
        let job = job(&stream, &[(0, 64), (1, 64)]);
        let run = agree(&job);
        assert_eq!(field(&run, "cmd_parse_error"), 1, "{what}");
        // The last command before NPU_OP_STOP.
        let cmds = assemble(&stream).unwrap();
        let refused_at = cmds[cmds.len() - 2].offset as u32;
        assert_eq!((run.qread, run.irq), (refused_at, true), "{what}");
    }
}

#[test]
fn a_shared_buffer_destination_past_its_end_is_refused() {
    refused(
        &job(
            "NPU_SET_DMA0_SRC_REGION 0\nNPU_SET_DMA0_DST_REGION 0x101\n\
             NPU_SET_DMA0_DST 0 49136\nNPU_SET_DMA0_LEN 0 32\n\
             NPU_OP_DMA_START 0\nNPU_OP_STOP 0",
            &[(0, 64)],
        ),
        "outside core 0's 49152 bytes",
    );
}

/// A DMA of `len` bytes from region 0 offset `src` to region 1 offset `dst`.
fn copy(src: u32, dst: u32, len: u32) -> String {
    format!(
        "NPU_SET_DMA0_SRC_REGION 0\nNPU_SET_DMA0_DST_REGION 1\n\
         NPU_SET_DMA0_SRC 0 {src}\nNPU_SET_DMA0_DST 0 {dst}\n\
         NPU_SET_DMA0_LEN 0 {len}\nNPU_OP_DMA_START 0\nNPU_OP_STOP 0"
    )
}

/// Outside the job's memory: refused by the runner; run anyway, the RTL's
/// memory answers DECERR and the NPU reports the bus error the golden model
/// does. Bytes the faulting DMA would write (region 1) are unspecified:
/// bursts before the error may have landed.
#[test]
fn accesses_outside_the_regions_are_bus_errors_on_both_models() {
    // Regions 0 and 1 are read and written through M1 (REGIONCFG 3 and 2),
    // region 5 through M0 (1).
    let cases = [
        (
            "read past region 0",
            copy(960, 0, 128),
            faulting_channel::MEM2MEM_READ,
            1,
        ),
        (
            "write past region 1",
            copy(0, 960, 128),
            faulting_channel::MEM2MEM_WRITE,
            1,
        ),
        (
            "read of an undefined region",
            copy(0, 0, 64).replace("SRC_REGION 0", "SRC_REGION 5"),
            faulting_channel::MEM2MEM_READ,
            0,
        ),
        (
            "LEN 0xffffffff",
            copy(0, 0, 0xffff_ffff),
            faulting_channel::MEM2MEM_READ,
            1,
        ),
    ];
    for (what, listing, channel, interface) in cases {
        let job = job(&listing, &[(0, 1024), (1, 1024)]);
        assert!(
            matches!(job.check(), Err(JobError::Refused(_))),
            "{what}: the runner refuses it"
        );
        let (golden, rtl) = both(&job);
        assert_eq!(
            (golden.status, golden.qread, golden.irq),
            (rtl.status, rtl.qread, rtl.irq),
            "{what}: golden {:#x}, rtl {:#x}",
            golden.status,
            rtl.status
        );
        assert_eq!(field(&rtl, "bus_status"), 1, "{what}");
        assert_eq!(
            (
                field(&rtl, "faulting_channel"),
                field(&rtl, "faulting_interface")
            ),
            (channel, interface),
            "{what}"
        );
        assert_eq!(golden.regions[&0], rtl.regions[&0], "{what}: region 0");
    }
}

/// Whether `job`'s stream holds an NPU_OP_KERNEL_WAIT.
fn waits_for_kernels(job: &Job) -> bool {
    npu_model::cmdstream::decode(&job.command_stream)
        .unwrap()
        .iter()
        .any(|c| c.op == Opcode::NpuOpKernelWait)
}

/// A consumer whose NPU_SET_BLOCKDEP lets its IFM block reads pass the
/// producer's OFM block writes they read (more than the footprints' largest
/// safe) is UNPREDICTABLE (TRM 4.9, 4.6.3): refused on both models. With an
/// NPU_OP_KERNEL_WAIT 0 between the two the same BLOCKDEP is harmless, and
/// both models agree.
#[test]
fn a_blockdep_that_lets_a_read_pass_the_write_it_needs_is_refused_on_both_models() {
    let seed = npu_tb::seed::seed();
    let chain = (0..)
        .map(|index| npu_tb::conv_jobs::random_dependent_chain(seed, index))
        .find(|c| {
            let what = c.job.spec.description.as_deref().unwrap_or("");
            // A chain whose second operation loads its LUT waits for the
            // first to finish: no BLOCKDEP can harm it.
            !what.ends_with("(largest safe 3)") && !waits_for_kernels(&c.job)
        })
        .expect("a pair with a dependency");
    let mut commands = npu_model::cmdstream::decode(&chain.job.command_stream).unwrap();
    let second = commands.iter().position(|c| c.op.is_kernel_op()).unwrap() + 1;
    for c in &mut commands[second..] {
        if c.op == Opcode::NpuSetBlockdep {
            *c = Command::cmd0(Opcode::NpuSetBlockdep, 3);
        }
    }
    let with = |commands: &[Command]| Job {
        command_stream: encode(commands),
        ..chain.job.clone()
    };
    refused(&with(&commands), "NPU_SET_BLOCKDEP");
    commands.insert(second, Command::cmd0(Opcode::NpuOpKernelWait, 0));
    agree(&with(&commands));
}
