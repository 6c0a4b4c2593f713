//! Malformed weight streams on the RTL datapath (TRM 4.7; issue 12): the
//! operation stops with STATUS.cmd_parse_error, IRQ raised and QREAD at the
//! kernel operation, as the golden model stops (`OpError::Weights`), and the
//! NPU never hangs. Cases: a length that is not a multiple of 16, a stream
//! cut short, streams re-encoded with fewer weights, a part MAC group or
//! more weights than the operation uses, and random byte flips (seed
//! printed), on a convolution and a depthwise convolution with several
//! spatial and depth blocks.
//!
//! The golden model checks the whole stream before it computes; the RTL
//! finds a fault as it decodes, so OFM blocks finished before the fault may
//! be written. Every byte must therefore match the golden model except OFM
//! element bytes, which may also hold the well-formed job's result (cuts and
//! additions at the stream's end leave the earlier weights intact), or
//! anything after random flips (earlier weights may decode differently). A
//! flipped stream the golden model accepts must match it exactly.

use npu_arch::command::Opcode;
use npu_arch::regs::STATUS;
use npu_model::cmdstream::{encode, Command};
use npu_model::compare::difference;
use npu_model::job::{Backend, BackendRun, GoldenBackend, Job};
use npu_model::tensor::DType;
use npu_model::weights::{self, EncodeOptions};
use npu_tb::conv_jobs::{golden_run, ConvJob, ConvKind, ConvSpec};
use npu_tb::rtl_backend::RtlBackend;
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;

/// The operations: 2x2 spatial blocks, two depth blocks.
fn operations(rng: &mut StdRng) -> Vec<ConvJob> {
    let conv = ConvSpec {
        block: Some([4, 4, 16]),
        ..ConvSpec::new(ConvKind::Conv, DType::I8, [8, 8, 24], 16, [3, 3])
    };
    let depthwise = ConvSpec {
        block: Some([4, 4, 16]),
        ..ConvSpec::new(ConvKind::Depthwise, DType::I8, [8, 8, 24], 24, [3, 3])
    };
    [conv, depthwise]
        .iter()
        .map(|spec| spec.build(rng).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// The operation's weight stream: region, base, bytes.
fn weight_stream(cj: &ConvJob) -> (usize, usize, Vec<u8>) {
    let value = |op: Opcode| {
        let c = cj
            .commands
            .iter()
            .find(|c| c.op == op)
            .expect("weight command");
        c.payload.expect("cmd1") as usize
    };
    let region = cj
        .commands
        .iter()
        .find(|c| c.op == Opcode::NpuSetWeightRegion)
        .expect("weight region")
        .param as usize;
    let (base, length) = (
        value(Opcode::NpuSetWeightBase),
        value(Opcode::NpuSetWeightLength),
    );
    (
        region,
        base,
        cj.job.regions[&region][base..base + length].to_vec(),
    )
}

/// The job with `bytes` as its weight stream (at the end of the weight
/// region when `bytes` is given) and `length` as NPU_SET_WEIGHT_LENGTH.
fn with_weights(cj: &ConvJob, bytes: Option<&[u8]>, length: usize) -> Job {
    let (region, mut base, _) = weight_stream(cj);
    let mut job = cj.job.clone();
    if let Some(bytes) = bytes {
        let memory = job.regions.get_mut(&region).expect("weight region");
        memory.resize(memory.len().next_multiple_of(16), 0);
        base = memory.len();
        memory.extend_from_slice(bytes);
    }
    let commands: Vec<Command> = cj
        .commands
        .iter()
        .map(|c| match c.op {
            Opcode::NpuSetWeightBase => Command::cmd1(c.op, 0, base as u32),
            Opcode::NpuSetWeightLength => Command::cmd1(c.op, 0, length as u32),
            _ => *c,
        })
        .collect();
    job.command_stream = encode(&commands);
    job
}

/// The stream's decoded weights (stream order, padding included) with
/// `count` weights cut (negative) or random ones added, re-encoded.
fn reencoded(cj: &ConvJob, count: i64, rng: &mut StdRng) -> Vec<u8> {
    let mut decoded = weights::decode(&weight_stream(cj).2).expect("a well-formed stream");
    if count < 0 {
        decoded.truncate(decoded.len() - count.unsigned_abs() as usize);
    } else {
        decoded.extend((0..count).map(|_| rng.gen_range(-255..=255)));
    }
    weights::encode(&decoded, &EncodeOptions::default()).expect("encodable weights")
}

/// Byte offsets of the OFM's elements in its region.
fn ofm_bytes(cj: &ConvJob) -> BTreeSet<usize> {
    let [h, w, c] = cj.spec.ofm;
    let size = cj.ofm_map.dtype.bytes();
    let mut out = BTreeSet::new();
    for y in 0..h {
        for x in 0..w {
            for z in 0..c {
                let at = cj.ofm_map.offset(y, x, z) as usize;
                out.extend(at..at + size);
            }
        }
    }
    out
}

/// What an OFM element byte may hold besides the golden model's.
enum OfmAllowance {
    /// The well-formed job's result.
    WellFormed,
    /// Anything.
    Any,
}

/// Runs `job` on both models: they must agree on STATUS, QREAD, IRQ and
/// every byte but OFM element bytes within `allowance`. Returns whether the
/// golden model refused the stream.
fn check(
    cj: &ConvJob,
    job: &Job,
    well_formed: &BackendRun,
    allowance: OfmAllowance,
    what: &str,
) -> bool {
    let golden = GoldenBackend::default()
        .run(job, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{what}: golden model: {e:#}"));
    let mut rtl = RtlBackend::default()
        .run(job, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{what}: RTL: {e:#}"));
    if golden.completed() {
        // The stream is still well-formed (a flip the format allows).
        if let Some(diff) = difference(&golden, &rtl) {
            panic!("{what}: the golden model accepts the stream; {diff}");
        }
        return false;
    }
    assert_eq!(
        STATUS.field("cmd_parse_error").get(golden.status),
        1,
        "{what}: the golden model stops otherwise: {:?}",
        golden.fault
    );
    let region = cj.ofm_map.region;
    for at in ofm_bytes(cj) {
        let (g, r) = (golden.regions[&region][at], rtl.regions[&region][at]);
        let allowed = match allowance {
            OfmAllowance::WellFormed => r == well_formed.regions[&region][at],
            OfmAllowance::Any => true,
        };
        if r != g && allowed {
            rtl.regions.get_mut(&region).expect("OFM region")[at] = g;
        }
    }
    if let Some(diff) = difference(&golden, &rtl) {
        panic!(
            "{what}: golden stops with {:?}; {diff}",
            golden.fault.as_deref().unwrap_or("?")
        );
    }
    true
}

#[test]
fn malformed_weight_streams_stop_the_operation_as_the_golden_model_does() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    for cj in operations(&mut rng) {
        let kind = format!("{:?}", cj.spec.kind);
        let well_formed = golden_run(&cj.job).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let (_, _, stream) = weight_stream(&cj);
        let cases: Vec<(String, Job, OfmAllowance)> = vec![
            (
                "WEIGHT_LENGTH not a multiple of 16".into(),
                with_weights(&cj, None, stream.len() - 1),
                OfmAllowance::WellFormed,
            ),
            (
                // Half of it (a whole number of 16-byte words): a cut of
                // one word can drop only the stream's padding.
                "the stream cut to half its length".into(),
                with_weights(&cj, None, stream.len() / 32 * 16),
                OfmAllowance::WellFormed,
            ),
            (
                "one MAC group fewer".into(),
                {
                    let bytes = reencoded(&cj, -64, &mut rng);
                    with_weights(&cj, Some(&bytes), bytes.len())
                },
                OfmAllowance::WellFormed,
            ),
            (
                "a part MAC group at the end".into(),
                {
                    let bytes = reencoded(&cj, -5, &mut rng);
                    with_weights(&cj, Some(&bytes), bytes.len())
                },
                OfmAllowance::WellFormed,
            ),
            (
                "one MAC group more".into(),
                {
                    let bytes = reencoded(&cj, 64, &mut rng);
                    with_weights(&cj, Some(&bytes), bytes.len())
                },
                OfmAllowance::WellFormed,
            ),
        ];
        for (what, job, allowance) in cases {
            let what = format!("{kind}, {what}");
            assert!(
                check(&cj, &job, &well_formed, allowance, &what),
                "{what}: the golden model accepts the stream"
            );
        }
        let mut refused_flips = 0;
        for flip in 0..6 {
            let mut bytes = stream.clone();
            let flips = rng.gen_range(1..=3);
            for _ in 0..flips {
                let at = rng.gen_range(0..bytes.len());
                bytes[at] ^= rng.gen_range(1..=255u8);
            }
            let job = with_weights(&cj, Some(&bytes), bytes.len());
            let what = format!("{kind}, {flips} random byte flips (case {flip}, seed {seed})");
            if check(&cj, &job, &well_formed, OfmAllowance::Any, &what) {
                refused_flips += 1;
            }
        }
        println!("{kind}: {refused_flips} of 6 flipped streams refused");
    }
}
