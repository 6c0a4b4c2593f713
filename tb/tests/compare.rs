//! First-mismatch localisation (`npu_model::compare`, `npu-sim compare`): a
//! candidate that differs from the golden model from one kernel operation on
//! is caught at that operation, with the first differing OFM element and
//! both values; models that agree are reported as agreeing (the command
//! line's cases are in `npu_sim.rs`).

use anyhow::Result;
use npu_model::compare::first_divergence;
use npu_model::job::{Backend, BackendRun, GoldenBackend, Job};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    npu_tb::verilator::workspace_root()
        .join("model/tests/fixtures/jobs")
        .join(name)
}

/// The golden model with one byte of memory flipped in every run whose
/// stream reaches the kernel operation at `offset`: a candidate that goes
/// wrong at that operation and stays wrong.
struct WrongFrom {
    offset: usize,
    region: usize,
    byte: usize,
}

impl Backend for WrongFrom {
    fn name(&self) -> &str {
        "wrong-from"
    }

    fn run(&mut self, job: &Job, progress: &mut dyn FnMut(usize, usize)) -> Result<BackendRun> {
        let mut run = GoldenBackend::default().run(job, progress)?;
        if run.layers.iter().any(|l| l.offset == self.offset) {
            run.regions.get_mut(&self.region).unwrap()[self.byte] ^= 0x5a;
        }
        Ok(run)
    }
}

#[test]
fn the_first_wrong_kernel_operation_and_element_are_named() {
    // Softmax: 28 kernel operations (elementwise, pools, LUTs) in a chain.
    let job = Job::load(&fixture("softmax_i8"), None).unwrap();
    let whole = GoldenBackend::default().run(&job, &mut |_, _| {}).unwrap();
    let kernels: Vec<_> = whole
        .layers
        .iter()
        .filter(|l| l.ofm_layout.is_some())
        .collect();
    assert!(kernels.len() > 8, "{} kernel operations", kernels.len());
    for pick in [0, kernels.len() / 3, kernels.len() - 1] {
        let op = kernels[pick];
        let layout = op.ofm_layout.as_ref().unwrap();
        let [h, w, d] = op.ofm.unwrap();
        let (y, x, c) = (h - 1, w / 2, d - 1);
        let byte = layout.offset(y, x, c) as usize;
        let mut candidate = WrongFrom {
            offset: op.offset,
            region: layout.region,
            byte,
        };
        let found = first_divergence(
            &job,
            &mut GoldenBackend::default(),
            &mut candidate,
            &mut |_, _| {},
        )
        .unwrap()
        .expect("a difference");
        let named = found.operation.as_ref().expect("an operation");
        assert_eq!(
            (named.offset, &named.kind),
            (op.offset, &op.kind),
            "{found}"
        );
        // The element's value in the golden run of the prefix, and with the flip.
        let (element, reference, wrong) = found.element.expect("an OFM element");
        assert_eq!(element, [y, x, c], "{found}");
        let prefix_run = |flip: bool| {
            let mut bytes = whole.regions[&layout.region].clone();
            if flip {
                bytes[byte] ^= 0x5a;
            }
            layout.dtype.load(&bytes[byte..])
        };
        assert_ne!(reference, wrong, "{found}");
        if pick == kernels.len() - 1 {
            // The last operation's prefix is the whole stream.
            assert_eq!((reference, wrong), (prefix_run(false), prefix_run(true)));
        }
        assert!(found.to_string().contains(&format!("{:#x}", op.offset)));
    }
}

#[test]
fn agreeing_models_are_reported_as_agreeing() {
    let job = Job::load(&fixture("dw_3x3_i8"), None).unwrap();
    let found = first_divergence(
        &job,
        &mut GoldenBackend::default(),
        &mut GoldenBackend::default(),
        &mut |_, _| {},
    )
    .unwrap();
    assert!(found.is_none(), "{}", found.unwrap());
}
