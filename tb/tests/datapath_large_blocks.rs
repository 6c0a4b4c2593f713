//! IFM blocks as large as the shared buffer's IB allows (TRM 4.9.1 table
//! 4-135: IB0 and IB1 each hold IFM_BLOCK_HEIGHT x IFM_BLOCK_WIDTH x
//! ALIGN(IFM_MEMBLK_DEPTH x bytes, 8) bytes, no more), where Vela puts them.
//!
//! Issue 30: a real MobileNet compiled by Vela for u65-512 ran its second
//! operation, a parallel-mode 3x3 depthwise with a 26x16x8 OFM block and
//! IFM_IB_END 10, wrong on the RTL: its 28x18 IFM block of 8 channels is
//! 4032 bytes at the TRM's 8 bytes a position, and the RTL laid it out at 16
//! (a whole line a position), so IB0 ran into IB1. The operation is rebuilt
//! here from that stream's settings, with random IFM, weights and scales,
//! and run with the RTL and the golden model on both a plain and a random
//! memory system.

use npu_arch::command::Layout;
use npu_model::tensor::DType;
use npu_tb::conv_jobs::{rtl_agrees, rtl_agrees_under, save, ConvKind, ConvSpec, MemorySystem};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::path::Path;

/// The issue's operation: NPU_SET_PARALLEL_MODE 1, a 48x48x8 int8 NHCWB16
/// IFM and OFM (zero points -128), a 3x3 depthwise kernel with padding 1,
/// OFM block 26x16x8, IFM_IB_END 10.
fn issue_30_spec() -> ConvSpec {
    ConvSpec {
        pad: [1; 4],
        ifm_layout: Layout::Nhcwb16,
        ofm_layout: Layout::Nhcwb16,
        block: Some([26, 16, 8]),
        ib_end: Some(10),
        ifm_zero_point: -128,
        ofm_zero_point: -128,
        regions: [2, 2, 2, 2],
        parallel: true,
        ..ConvSpec::new(ConvKind::Depthwise, DType::I8, [48, 48, 8], 8, [3, 3])
    }
}

/// Builds `spec` from `seed` and runs it on the golden model and the RTL,
/// behind `memory` or ideal memory; a disagreement is saved as a job folder.
fn run(spec: &ConvSpec, seed: u64, memory: Option<&MemorySystem>, name: &str) {
    let job = spec
        .build(&mut StdRng::seed_from_u64(seed))
        .unwrap_or_else(|e| panic!("{name}: the job cannot be built: {e}"));
    let agreed = match memory {
        Some(memory) => rtl_agrees_under(&job.job, memory),
        None => rtl_agrees(&job.job),
    };
    if let Err(e) = agreed {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        let saved = save(&job.job, &dir).map_or_else(
            |e| format!("(not saved: {e})"),
            |()| format!("saved in {}", dir.display()),
        );
        panic!("{name} (seed {seed}): {e}\n{saved}");
    }
}

#[test]
fn the_issue_30_depthwise_runs_bit_exact_on_u65_512() {
    let seed = seed();
    let spec = issue_30_spec();
    run(&spec, seed, None, "issue_30");
    run(
        &spec,
        seed,
        Some(&MemorySystem::for_job(seed, 0)),
        "issue_30_random_memory",
    );
}
