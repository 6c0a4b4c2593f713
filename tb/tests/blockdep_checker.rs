//! The harness's BLOCKDEP checker (`npu_tb::blockdep`, TRM 4.9): it fails
//! an IFM read the rule forbids and passes one it allows, on made-up
//! traffic, and it catches the RTL's own early read when told a smaller
//! BLOCKDEP than the stream's.

use npu_model::footprint::{BlockFootprints, Span};
use npu_model::job::block_footprints;
use npu_model::tensor::DType;
use npu_tb::axi::{AxiSignals, CompleterConfig};
use npu_tb::blockdep::BlockdepChecker;
use npu_tb::conv_jobs::{chain, ConvKind, ConvSpec};
use npu_tb::npu::NpuTb;
use npu_tb::rtl_backend::{blockdep_checker, RtlBackend};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::ops::Range;

const IFM_ID: u8 = 4;
const OFM_ID: u8 = 0;

fn span(region: usize, bytes: Range<u64>) -> Span {
    Span { region, bytes }
}

/// A writes region 1 in two OFM blocks of 16 bytes; B reads them as its
/// IFM blocks 0 and 1 with NPU_SET_BLOCKDEP `k`.
fn checker(k: usize) -> BlockdepChecker {
    let a = BlockFootprints {
        blockdep: 0,
        ifm_reads: vec![vec![span(0, 0..16)]],
        ofm_writes: vec![vec![span(1, 0..16)], vec![span(1, 16..32)]],
    };
    let b = BlockFootprints {
        blockdep: k,
        ifm_reads: vec![vec![span(1, 0..16)], vec![span(1, 16..32)]],
        ofm_writes: vec![vec![span(2, 0..32)]],
    };
    let address =
        |s: &Span| (s.region as u64) << 32 | s.bytes.start..(s.region as u64) << 32 | s.bytes.end;
    BlockdepChecker::new(&[(0x10, a), (0x20, b)], &address, IFM_ID..=IFM_ID, OFM_ID)
}

fn read(c: &mut BlockdepChecker, address: u64) -> Result<(), String> {
    let s = AxiSignals {
        arvalid: true,
        arready: true,
        arid: IFM_ID,
        araddr: address,
        arsize: 4,
        ..AxiSignals::default()
    };
    c.edge(0, &s, 0)
}

/// A one-beat OFM write of `address` with `strobe`, answered.
fn write(c: &mut BlockdepChecker, address: u64, strobe: u16) {
    let beat = AxiSignals::one_beat_write(OFM_ID, address, strobe);
    let response = AxiSignals {
        bvalid: true,
        bready: true,
        bid: OFM_ID,
        ..AxiSignals::default()
    };
    c.edge(0, &beat, 0).unwrap();
    c.edge(0, &response, 0).unwrap();
}

const A_OFM: u64 = 1 << 32;

#[test]
fn a_read_the_rule_forbids_fails_and_one_it_allows_passes() {
    // A reads its own IFM: no operation before it.
    assert_eq!(read(&mut checker(0), 0), Ok(()));

    // BLOCKDEP 0: B's read 0 waits for both of A's blocks.
    let mut c = checker(0);
    read(&mut c, 0).unwrap();
    write(&mut c, A_OFM, 0xffff);
    let early = read(&mut c, A_OFM).expect_err("read 0 with an OFM block of A unwritten");
    assert!(
        early.contains("BLOCKDEP 0") && early.contains("1 of the 2"),
        "{early}"
    );
    write(&mut c, A_OFM + 16, 0xffff);
    assert_eq!(read(&mut c, A_OFM), Ok(()));
    assert_eq!(read(&mut c, A_OFM + 16), Ok(()));

    // BLOCKDEP 1: read 0 may pass A's last block, read 1 may not.
    let mut c = checker(1);
    read(&mut c, 0).unwrap();
    let none = read(&mut c, A_OFM).expect_err("two blocks unwritten, k = 1");
    assert!(none.contains("none of its block reads"), "{none}");
    let mut c = checker(1);
    read(&mut c, 0).unwrap();
    write(&mut c, A_OFM, 0xffff);
    assert_eq!(read(&mut c, A_OFM), Ok(()));
    let late = read(&mut c, A_OFM + 16).expect_err("read 1 with A's last block unwritten");
    assert!(
        late.contains("IFM block 1") && late.contains("up to 0"),
        "{late}"
    );
}

#[test]
fn a_block_counts_as_written_only_when_strobes_covered_all_of_it() {
    let mut c = checker(1);
    read(&mut c, 0).unwrap();
    // Half of block 0's bytes, twice: it is still not written.
    write(&mut c, A_OFM, 0x00ff);
    write(&mut c, A_OFM, 0x00ff);
    assert!(read(&mut c, A_OFM).is_err());
    write(&mut c, A_OFM, 0xff00);
    assert_eq!(read(&mut c, A_OFM), Ok(()));
}

/// Two independent convolutions with NPU_SET_BLOCKDEP 3 behind a 300-cycle
/// memory: the RTL fetches the second one's first IFM block while the
/// first one's writes are in flight (`datapath_overlap`). Told the second
/// one's BLOCKDEP is 0, the checker must fail that read.
#[test]
fn the_checker_fails_the_rtls_early_read_when_told_a_smaller_blockdep() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let spec = |ofm, depth| ConvSpec {
        block: Some(ofm),
        ..ConvSpec::new(ConvKind::Conv, DType::I8, ofm, depth, [1, 1])
    };
    let parts = [spec([4, 4, 16], 16), spec([4, 4, 16], 8)];
    let job = chain(&parts, &[0, 3], &mut rng).job;
    let mut footprints = block_footprints(&job).unwrap();
    assert_eq!(footprints[1].1.blockdep, 3);
    footprints[1].1.blockdep = 0;
    let slow = CompleterConfig {
        read_latency: 300,
        write_latency: 300,
        ..CompleterConfig::ideal()
    };
    let mut rtl = RtlBackend {
        axi_configs: [slow.clone(), slow],
        check_blockdep: false,
        ..RtlBackend::default()
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut tb = NpuTb::new(&job.config.name).unwrap();
        tb.watch_blockdep(blockdep_checker(&job, &footprints));
        rtl.run_on(tb, &job, &mut |_, _| {})
    }));
    let message = match run {
        Ok(r) => panic!(
            "seed {seed}: the run passed the checker: {:?}",
            r.map(|r| r.status)
        ),
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_default(),
    };
    assert!(
        message.contains("BLOCKDEP checker") && message.contains("(BLOCKDEP 0)"),
        "seed {seed}: {message}"
    );
}
