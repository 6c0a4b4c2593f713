//! The elementwise job generator (`npu_tb::elementwise_jobs`): random jobs
//! pass the runner's check and run to NPU_OP_STOP on the golden model (so
//! every drawn mode, type pair, broadcast, scalar and scale mode is one the
//! TRM allows, table 4-124), every mode occurs with IFM2 broadcast, scalar
//! and reversed operands.

use npu_tb::conv_jobs::golden_run;
use npu_tb::elementwise_jobs::{random_elementwise_job, Ifm2};
use npu_tb::seed::seed;
use std::collections::BTreeSet;

const JOBS: u64 = 400;

#[test]
fn random_elementwise_jobs_run_on_the_golden_model_and_cover_every_mode() {
    let seed = seed();
    let (mut modes, mut forms) = (BTreeSet::new(), BTreeSet::new());
    for index in 0..JOBS {
        let (spec, job) = random_elementwise_job(seed, index);
        golden_run(&job)
            .unwrap_or_else(|e| panic!("seed {seed} job {index} ({}): {e}", spec.describe()));
        modes.insert(format!("{:?}", spec.mode));
        forms.insert(match spec.ifm2 {
            Ifm2::Tensor { broadcast } if broadcast.contains(&true) => "broadcast",
            Ifm2::Tensor { .. } => "tensor",
            Ifm2::Scalar(_) => "scalar",
            Ifm2::None => "unary",
        });
        if spec.reversed {
            forms.insert("reversed");
        }
    }
    assert_eq!(modes.len(), 10, "seed {seed}: modes {modes:?}");
    assert_eq!(forms.len(), 5, "seed {seed}: IFM2 forms {forms:?}");
}
