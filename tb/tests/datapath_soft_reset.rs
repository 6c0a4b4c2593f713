//! A soft reset in the middle of a convolution (TRM 3.3.4.1): the RESET
//! write comes at a random cycle (seeded, printed; then the next with an
//! AXI transaction in flight) while the datapath runs behind a random
//! memory system and the shared and accumulator buffers hold its data.
//! Every outstanding AXI transaction completes (the protocol monitors stay
//! on), every register reads its reset value, the shared buffer and the
//! accumulator buffer are cleared, and the same bench then runs the job
//! again bit-exact with the golden model.

use npu_arch::regs;
use npu_model::compare::difference;
use npu_model::job::Backend;
use npu_model::tensor::DType;
use npu_tb::conv_jobs::{golden_run, ConvKind, ConvSpec, MemorySystem};
use npu_tb::driver;
use npu_tb::register_model::soft_reset_and_check;
use npu_tb::seed::seed;
use npu_tb::shram::{acc_buffer_contents, shram_contents};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use npu_model::driver::HOST_PPROT;
/// Resets, each at its own cycle of a run.
const ROUNDS: usize = 4;

#[test]
fn a_soft_reset_during_a_convolution_drains_and_clears_and_the_job_runs_again() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    // 16x16x64 from 18x18x48 with a 3x3 kernel: 4.0 M MACs in several OFM
    // blocks; the IFM, OFM, weights and scales in regions of their own.
    let mut spec = ConvSpec::new(ConvKind::Conv, DType::I8, [16, 16, 64], 48, [3, 3]);
    spec.regions = [1, 2, 3, 4];
    let cj = spec.build(&mut rng).expect("a valid convolution");
    let golden = golden_run(&cj.job).expect("the golden model runs the job");
    let memory = MemorySystem::random(&mut rng);
    let mut rtl = memory.backend();
    let what = format!("seed {seed}, behind {memory:?}");

    // A whole run: it agrees, and gives the cycles a run takes.
    let run = rtl
        .run(&cj.job, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{what}: {e:#}"));
    if let Some(d) = difference(&golden, &run) {
        panic!("{what}: {d}");
    }
    let cycles = run.cycles.expect("the RTL counts cycles");
    let mut tb = rtl.last.take().expect("the bench of the run");
    for round in 0..ROUNDS {
        let at = rng.gen_range(cycles / 20..cycles * 19 / 20);
        let when = format!("RESET {at} cycles into a run of {cycles}");
        println!("round {round}: {when}");
        let what = format!("{what}, {when}");
        let inference = rtl
            .prepare(&mut tb, &cj.job)
            .unwrap_or_else(|e| panic!("{what}: {e:#}"));
        let _running =
            driver::invoke_async(&mut tb, &inference).unwrap_or_else(|e| panic!("{what}: {e}"));
        tb.cycles(at);
        // The reset must find accumulators to clear: a slow memory system
        // may not have let the first beats run yet.
        let mut waited = 0;
        while acc_buffer_contents(&tb)[0].iter().all(|&b| b == 0) {
            tb.cycles(32);
            waited += 32;
            assert!(waited < cycles, "{what}: no accumulator written");
        }
        let mut waited = 0;
        while tb.axi_idle() {
            tb.tick();
            waited += 1;
            assert!(
                waited < cycles,
                "{what}: no AXI transaction after the start"
            );
        }
        assert!(
            shram_contents(&tb)[0].iter().any(|&b| b != 0),
            "{what}: the shared buffer holds data"
        );
        assert!(
            acc_buffer_contents(&tb)[0].iter().any(|&b| b != 0),
            "{what}: the accumulator buffer holds data"
        );
        let status = tb.read(regs::STATUS.address, HOST_PPROT).rdata;
        assert_eq!(
            regs::STATUS.field("state").get(status),
            1,
            "{what}: the NPU runs (STATUS {status:#x})"
        );
        soft_reset_and_check(&mut tb, &what);
        let run = rtl
            .run_on(tb, &cj.job, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{what}, the run after the reset: {e:#}"));
        if let Some(d) = difference(&golden, &run) {
            panic!("{what}, the run after the reset: {d}");
        }
        tb = rtl.last.take().expect("the bench of the run");
    }
}
