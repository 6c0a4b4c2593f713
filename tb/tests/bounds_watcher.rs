//! The harness's bounds watcher (`npu_tb::bounds`): it fails a read beat
//! that touches no byte the stream checker allows and a strobed byte no
//! operation may write, naming the nearest allowed range's operation; it
//! passes accesses inside; and on the RTL it catches a convolution whose
//! OFM writes the checker was told not to allow.

use npu_model::access::{Access, OperationAccess, Role};
use npu_model::check::{check_stream, CheckOptions, Policy, StreamCheck};
use npu_model::job::region_base;
use npu_model::tensor::DType;
use npu_tb::axi::AxiSignals;
use npu_tb::bounds::BoundsWatcher;
use npu_tb::conv_jobs::{chain, ConvKind, ConvSpec};
use npu_tb::npu::NpuTb;
use npu_tb::rtl_backend::RtlBackend;
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::SeedableRng;

fn address(region: usize, offset: i64) -> u64 {
    ((region as u64) << 32).wrapping_add(offset as u64)
}

/// A convolution at 0x40 reading region 1 [0, 40) and writing region 2
/// [16, 48); the stream's own words at 0x1000..0x1040.
fn watcher() -> BoundsWatcher {
    let check = StreamCheck {
        operations: vec![OperationAccess {
            offset: 0x40,
            operation: "NPU_OP_CONV".into(),
            accesses: vec![
                Access::read(Role::Ifm, 1, std::iter::once(0..40).collect()),
                Access::write(Role::Ofm, 2, std::iter::once(16..48).collect()),
            ],
        }],
        regions: Vec::new(),
    };
    BoundsWatcher::new(&check, &address, 0x1000..0x1040)
}

fn read(w: &mut BoundsWatcher, addr: u64, beats: u8) -> Result<(), String> {
    let s = AxiSignals {
        arvalid: true,
        arready: true,
        araddr: addr,
        arlen: beats - 1,
        arsize: 4,
        ..AxiSignals::default()
    };
    w.edge(0, &s, 7)
}

fn write(w: &mut BoundsWatcher, addr: u64, strobe: u16) -> Result<(), String> {
    w.edge(1, &AxiSignals::one_beat_write(0, addr, strobe), 9)
}

#[test]
fn accesses_outside_the_checkers_ranges_fail_naming_the_nearest_operation() {
    let mut w = watcher();
    // Three beats from byte 0: the third (32..48) touches 32..40.
    assert_eq!(read(&mut w, address(1, 0), 3), Ok(()));
    assert_eq!(read(&mut w, 0x1000, 4), Ok(()));
    // A fourth beat, 48..64, touches nothing allowed.
    let e = read(&mut w, address(1, 0), 4).expect_err("beat 48..64");
    assert!(
        e.contains("M0 reads") && e.contains("NPU_OP_CONV at 0x40 (IFM)"),
        "{e}"
    );
    // Strobes 16..32 of the beat at 16 are inside; byte 15 is not.
    assert_eq!(write(&mut w, address(2, 16), 0xffff), Ok(()));
    let e = write(&mut w, address(2, 0), 0x8000).expect_err("byte 15");
    assert!(
        e.contains("M1 writes") && e.contains(&format!("byte {:#x}", address(2, 15))),
        "{e}"
    );
    assert!(e.contains("NPU_OP_CONV at 0x40 (OFM)"), "{e}");
    // Reading what may only be written is outside too.
    assert!(read(&mut w, address(2, 16), 1).is_err());
}

#[test]
fn slack_counts_the_allowed_bytes_no_access_touched() {
    let mut w = watcher();
    read(&mut w, address(1, 0), 1).unwrap();
    write(&mut w, address(2, 16), 0x00ff).unwrap();
    let slack = w.slack();
    let conv_read = slack[&("NPU_OP_CONV IFM".to_string(), false)];
    assert_eq!((conv_read.allowed, conv_read.untouched), (40, 24));
    let conv_write = slack[&("NPU_OP_CONV OFM".to_string(), true)];
    assert_eq!((conv_write.allowed, conv_write.untouched), (32, 24));
}

/// A convolution on the RTL, its checker told that its OFM writes are
/// allowed everywhere but their first byte: the watcher fails the write.
#[test]
fn the_watcher_fails_the_rtls_write_the_checker_does_not_allow() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let spec = ConvSpec {
        block: Some([4, 4, 16]),
        ..ConvSpec::new(ConvKind::Conv, DType::I8, [4, 4, 16], 16, [1, 1])
    };
    let job = chain(&[spec], &[0], &mut rng).job;
    let options = CheckOptions {
        config: job.config.clone(),
        region_sizes: job
            .regions
            .iter()
            .map(|(&k, b)| (k, b.len() as u64))
            .collect(),
        policy: Policy::Npu,
    };
    let mut check = check_stream(&job.command_stream, &options).expect("the job passes");
    let ofm = check.operations[0]
        .accesses
        .iter_mut()
        .find(|a| a.role == Role::Ofm)
        .expect("an OFM");
    ofm.bytes[0].start += 1;
    let stream = npu_model::job::COMMAND_STREAM_BASE
        ..npu_model::job::COMMAND_STREAM_BASE + job.command_stream.len() as u64;
    let mut rtl = RtlBackend {
        check_bounds: false,
        ..RtlBackend::default()
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut tb = NpuTb::new(&job.config.name).unwrap();
        let address = |r: usize, o: i64| region_base(r).wrapping_add(o as u64);
        tb.watch_bounds(BoundsWatcher::new(&check, &address, stream));
        rtl.run_on(tb, &job, &mut |_, _| {})
    }));
    let message = match run {
        Ok(r) => panic!("seed {seed}: the run passed: {:?}", r.map(|r| r.status)),
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_default(),
    };
    assert!(
        message.contains("bounds watcher") && message.contains("NPU_OP_CONV"),
        "seed {seed}: {message}"
    );
}
