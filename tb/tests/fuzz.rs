//! The differential fuzzer's own parts (`npu_tb::fuzz`): comparison,
//! shrinking, saved cases. CI's share of random streams runs in the
//! runner's tests (`sim/tests/fuzz.rs`).

use npu_model::cmdstream::{assemble_words, bytes_to_words};
use npu_model::compare::difference;
use npu_model::job::{BackendRun, Job};
use npu_tb::fuzz::{shrink_while, Generator, Item};

fn run_with(status: u32, region: Vec<u8>) -> BackendRun {
    BackendRun {
        status,
        regions: [(0, region)].into(),
        shram: vec![vec![0; 16]],
        ..BackendRun::default()
    }
}

#[test]
fn every_difference_is_reported() {
    let a = run_with(0, vec![1, 2, 3]);
    assert_eq!(difference(&a, &a.clone()), None);
    let status = difference(&a, &run_with(2, vec![1, 2, 3])).unwrap();
    assert!(status.contains("irq_raised=1"), "{status}");
    let byte = difference(&a, &run_with(0, vec![1, 9, 3])).unwrap();
    assert!(
        byte.contains("region 0 byte 0x1: golden 0x02, rtl 0x09"),
        "{byte}"
    );
    let mut qread = a.clone();
    qread.qread = 8;
    assert!(difference(&a, &qread).unwrap().contains("QREAD 0x8"));
    let mut irq = a.clone();
    irq.irq = true;
    assert!(difference(&a, &irq).unwrap().contains("IRQ 1"));
    let mut shram = a.clone();
    shram.shram[0][5] = 1;
    let text = difference(&a, &shram).unwrap();
    assert!(text.contains("shared buffer of core 0 byte 0x5"), "{text}");
}

#[test]
fn shrinking_keeps_only_what_the_failure_needs() {
    let case = (0..)
        .map(|i| Generator::case(7, i))
        .find(|c| c.items.len() >= 8)
        .unwrap();
    let culprit: Item = case.items[case.items.len() / 2].clone();
    let small = shrink_while(&case, &mut |c| c.items.contains(&culprit));
    assert_eq!(small.items, vec![culprit]);
}

#[test]
fn shrinking_never_empties_the_stream() {
    for i in 0..20 {
        let case = Generator::case(13, i);
        // A failure every stream has, even an empty one (once the shrinker
        // tried one, and kept it: an empty stream is no job).
        let small = shrink_while(&case, &mut |_| true);
        assert_eq!(small.items.len(), 1, "case {i}: {:?}", small.items);
    }
}

#[test]
fn a_saved_case_loads_as_a_job_and_its_listing_assembles_to_its_stream() {
    let case = (0..)
        .map(|i| Generator::case(11, i))
        .find(|c| c.listing().contains(".word"))
        .expect("a case with a word that is no command");
    let dir = std::env::temp_dir().join(format!("npu-fuzz-saved-{}", std::process::id()));
    case.save(&dir).unwrap();
    let job = Job::load(&dir, None).unwrap();
    assert_eq!(job.command_stream, case.job().command_stream);
    assert_eq!(job.regions, case.regions);
    let listing = std::fs::read_to_string(dir.join("cmd.lst")).unwrap();
    assert_eq!(
        assemble_words(&listing).unwrap(),
        bytes_to_words(&job.command_stream).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A user DMA into the shared buffer while a kernel operation may still
/// use it is UNPREDICTABLE (TRM 4.6.3), and the runner refuses it. The
/// campaign of seed 57057 met it in case 50036 (saved, shrunk, in
/// `fixtures/fuzz_57057_50036`): a random DMA whose destination stayed the
/// internal one of the operation's LUT DMA, and the RTL's result differed.
/// (The generator now keeps its DMAs out of the shared buffer there too.)
#[test]
fn a_user_dma_into_the_shared_buffer_beside_an_operation_is_refused() {
    use npu_model::job::JobError;
    use npu_model::npu::ModelError;
    use npu_model::state::OpError;
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz_57057_50036");
    let job = Job::load(&dir, None).unwrap();
    match job.check() {
        Err(JobError::Refused(ModelError::Command {
            error: OpError::Unpredictable { rule, detail },
            ..
        })) => {
            assert_eq!(rule, "TRM 4.6.3");
            assert!(detail.contains("kernel operation at 0x178"), "{detail}");
        }
        other => panic!("not refused as UNPREDICTABLE: {other:?}"),
    }
}
