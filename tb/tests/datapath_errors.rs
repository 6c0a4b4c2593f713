//! Bus errors on the datapath's channels (TRM 4.2.2 STATUS.bus_status,
//! faulting_channel, faulting_interface): a SLVERR or DECERR on the IFM,
//! weight or scale/bias read or the OFM write, on either port (REGIONCFG),
//! under random latency, back-pressure and reordering, in the middle of a
//! convolution whose IFM, OFM, weight stream and scale stream each have a
//! region of their own; and on the IFM2 read of an elementwise ADD (the IFM
//! channel's, faulting channel 1: TRM table A-10 gives IFM2 no IDs of its
//! own). The NPU stops with IRQ and the channel and port in
//! STATUS, completes every outstanding transaction (the protocol monitors
//! stay on), issues nothing more even on a new start, and leaves each byte
//! at its initial value or the golden model's. After a soft reset the same
//! bench runs the job again, fault-free, bit-exact with the golden model.

use npu_arch::command::{ElementwiseMode, Opcode};
use npu_arch::regs::FaultingChannel;
use npu_model::compare::difference;
use npu_model::job::{Backend, Job};
use npu_model::tensor::{DType, FeatureMap};
use npu_tb::axi::{AxiPort, CompleterConfig, ErrorRange, Resp};
use npu_tb::conv_jobs::{golden_run, ConvJob, ConvKind, ConvSpec};
use npu_tb::driver::AxiSettings;
use npu_tb::elementwise_jobs::ElementwiseSpec;
use npu_tb::register_model::soft_reset_and_check;
use npu_tb::rtl_backend::{
    assert_bus_error_status, assert_initial_or_result, assert_stopped_on_bus_error, region_base,
    RtlBackend,
};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::ops::Range;

/// The datapath's AXI channels.
#[derive(Clone, Copy, Debug)]
enum Channel {
    Ifm,
    Ifm2,
    Weights,
    ScaleBias,
    Ofm,
}

impl Channel {
    const ALL: [Channel; 5] = [
        Channel::Ifm,
        Channel::Ifm2,
        Channel::Weights,
        Channel::ScaleBias,
        Channel::Ofm,
    ];

    fn code(self) -> FaultingChannel {
        match self {
            Channel::Ifm | Channel::Ifm2 => FaultingChannel::IfmRead,
            Channel::Weights => FaultingChannel::WeightRead,
            Channel::ScaleBias => FaultingChannel::ScaleBiasRead,
            Channel::Ofm => FaultingChannel::OfmWrite,
        }
    }
}

/// An 8x8x32 convolution of a 10x10x32 int8 IFM with a 3x3 kernel in OFM
/// blocks of 4x4x16, so each channel moves bytes block after block, and
/// every IFM, weight, scale and OFM byte is read or written (no padding,
/// stride 1). IFM, OFM, weights and scales are in regions 1-4.
fn conv_job(rng: &mut StdRng) -> ConvJob {
    let mut spec = ConvSpec::new(ConvKind::Conv, DType::I8, [8, 8, 32], 32, [3, 3]);
    spec.block = Some([4, 4, 16]);
    spec.regions = [1, 2, 3, 4];
    spec.build(rng).expect("a valid convolution")
}

/// The argument of the command with `op`, by field name.
fn setting(cj: &ConvJob, op: Opcode, field: &str) -> u64 {
    let c = cj
        .commands
        .iter()
        .find(|c| c.op == op)
        .unwrap_or_else(|| panic!("{} in the stream", op.name()));
    op.field(field).get(c.value()) as u64
}

/// A job, the region of the channel's buffer and its bytes there.
struct Target {
    job: Job,
    region: usize,
    bytes: Range<u64>,
}

/// The bytes of a feature map's first tile.
fn rows(fm: &FeatureMap, h: usize) -> Range<u64> {
    fm.base[0]..fm.base[0] + h as u64 * fm.stride_y as u64
}

/// The job whose channel fails: the convolution, or for IFM2 an 8x8x32
/// int8 ADD in blocks of 4x4x16, IFM, IFM2 and OFM in regions 1-3.
fn target(channel: Channel, rng: &mut StdRng) -> Target {
    if let Channel::Ifm2 = channel {
        let mut spec = ElementwiseSpec::new(ElementwiseMode::Add, DType::I8, DType::I8, [8, 8, 32]);
        spec.block = [4, 4, 16];
        spec.fit_buffers();
        let built = spec.build(rng);
        return Target {
            bytes: rows(&built.ifm2, 8),
            job: built.job,
            region: 2,
        };
    }
    let cj = conv_job(rng);
    let (index, bytes) = match channel {
        Channel::Ifm => (0, rows(&cj.ifm_map, cj.ifm_shape[0])),
        Channel::Ofm => (1, rows(&cj.ofm_map, cj.spec.ofm[0])),
        Channel::Weights => {
            let base = setting(&cj, Opcode::NpuSetWeightBase, "addr");
            (
                2,
                base..base + setting(&cj, Opcode::NpuSetWeightLength, "length"),
            )
        }
        _ => {
            let base = setting(&cj, Opcode::NpuSetScaleBase, "addr");
            (
                3,
                base..base + setting(&cj, Opcode::NpuSetScaleLength, "length"),
            )
        }
    };
    Target {
        region: cj.spec.regions[index],
        job: cj.job,
        bytes,
    }
}

/// From a random 16-byte boundary a quarter to three quarters into the
/// target's bytes to their end, as addresses.
fn error_range(target: &Target, rng: &mut StdRng) -> Range<u64> {
    let len = target.bytes.end - target.bytes.start;
    let from = rng.gen_range(len / 4..=3 * len / 4) & !15;
    let base = region_base(target.region);
    base + target.bytes.start + from..base + target.bytes.end
}

fn inject(channel: Channel, port: AxiPort, resp: Resp, rng: &mut StdRng) {
    let target = target(channel, rng);
    let golden = golden_run(&target.job).expect("the golden model runs the job");
    let region = target.region;
    // The counter of the channel's region puts its reads or writes on `port`
    // (REGIONCFG: counters 0, 1 on M0, 2, 3 on M1).
    let mut settings = AxiSettings::random(rng);
    settings.regioncfg[region] = 2 * port.index() as u32 + rng.gen_range(0..2);
    let latency = CompleterConfig {
        reorder: true,
        ..CompleterConfig::random(rng)
    };
    let mut configs = [latency.clone(), latency.clone()];
    configs[port.index()].errors = vec![ErrorRange {
        range: error_range(&target, rng),
        resp,
    }];
    let mut rtl = RtlBackend {
        settings,
        axi_configs: configs,
        axi_seed: Some(rng.gen()),
        max_cycles: 1_000_000,
        ..RtlBackend::default()
    };
    let what = format!(
        "{channel:?} error ({resp:?}) on {port}, {:?}, {:?}",
        rtl.settings,
        rtl.axi_configs[port.index()]
    );

    // The run ends with the NPU's STATUS, not a harness error; the driver
    // read it with IRQ high, then cleared the IRQ.
    let run = rtl
        .run(&target.job, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{what}: {e:#}"));
    assert!(run.irq, "{what}: IRQ high as the NPU stops");
    assert_bus_error_status(run.status, channel.code(), port, &what);
    let mut tb = rtl.last.take().unwrap();
    assert_stopped_on_bus_error(&mut tb, channel.code(), port, &what);
    assert_initial_or_result(&target.job, &golden, &tb, &what);

    // The soft reset recovers the datapath: the job again, without the
    // error, on the same bench.
    soft_reset_and_check(&mut tb, &what);
    rtl.axi_configs = [latency.clone(), latency];
    let again = rtl
        .run_on(tb, &target.job, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{what}, the run after the reset: {e:#}"));
    if let Some(d) = difference(&golden, &again) {
        panic!("{what}, the run after the reset: {d}");
    }
}

#[test]
fn bus_errors_on_every_datapath_channel_stop_the_npu_and_a_soft_reset_recovers() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    for channel in Channel::ALL {
        for port in AxiPort::ALL {
            for resp in [Resp::SlvErr, Resp::DecErr] {
                inject(channel, port, resp, &mut rng);
            }
        }
    }
}
