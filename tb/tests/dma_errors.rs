//! Bus errors (TRM 4.2.2 STATUS.bus_status, faulting_channel,
//! faulting_interface): a SLVERR or DECERR on the command, mem2mem read or
//! mem2mem write channel, on either port, under random latency and
//! back-pressure. The NPU stops with IRQ, issues nothing more, completes
//! every outstanding transaction (the protocol monitors stay on), writes no
//! byte the golden model would not, and ignores a new start.

use npu_arch::command::Opcode;
use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, FaultingChannel};
use npu_model::cmdstream::{encode, Command};
use npu_model::job::{Backend, GoldenBackend, Job};
use npu_tb::axi::{AxiPort, CompleterConfig, ErrorRange, Resp};
use npu_tb::driver::AxiSettings;
use npu_tb::rtl_backend::{
    assert_initial_or_result, assert_stopped_on_bus_error, region_base, RtlBackend,
    COMMAND_STREAM_BASE,
};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::ops::Range;

/// Bytes each of the 8 transfers of the stream copies.
const CHUNK: u32 = 1024;
const TRANSFERS: u32 = 8;

/// Where the error is injected.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// The command stream, from its 128th byte on.
    Command,
    /// The source region, in the third transfer's bytes.
    Source,
    /// The destination region, in the third transfer's bytes.
    Destination,
}

/// Eight 1 KB copies from region 0 to region 1, padded with settings so the
/// stream spans several bursts.
fn job() -> Job {
    let mut commands = vec![];
    for n in 0..TRANSFERS {
        commands.extend([
            Command::cmd0(Opcode::NpuSetDma0SrcRegion, 0),
            Command::cmd0(Opcode::NpuSetDma0DstRegion, 1),
            Command::cmd1(Opcode::NpuSetDma0Src, 0, n * CHUNK),
            Command::cmd1(Opcode::NpuSetDma0Dst, 0, n * CHUNK + 3),
            Command::cmd1(Opcode::NpuSetDma0Len, 0, CHUNK),
            Command::cmd0(Opcode::NpuOpDmaStart, 0),
        ]);
    }
    commands.push(Command::cmd0(Opcode::NpuOpStop, 1));
    let size = (TRANSFERS * CHUNK + 64) as usize;
    Job::in_memory(
        NpuConfig::u65_256(),
        encode(&commands),
        BTreeMap::from([
            (0, (0..size).map(|i| (i * 7 + 1) as u8).collect()),
            (1, (0..size).map(|i| (i * 13 + 5) as u8).collect()),
        ]),
        "eight 1 KB copies",
    )
}

fn error_range(target: Target) -> Range<u64> {
    let third = u64::from(2 * CHUNK)..u64::from(3 * CHUNK);
    match target {
        Target::Command => COMMAND_STREAM_BASE + 128..COMMAND_STREAM_BASE + 4096,
        Target::Source => region_base(0) + third.start + 100..region_base(0) + third.end,
        Target::Destination => region_base(1) + third.start + 100..region_base(1) + third.end,
    }
}

fn inject(target: Target, port: AxiPort, resp: Resp, rng: &mut StdRng) {
    let golden_run = {
        let mut golden = GoldenBackend::default();
        golden.run(&job(), &mut |_, _| {}).unwrap()
    };
    // The counter of the channel's region puts it on `port` (REGIONCFG and
    // QCONFIG: counters 0, 1 on M0, 2, 3 on M1), reads and writes alike.
    let counter = 2 * port.index() as u32 + rng.gen_range(0..2);
    let mut settings = AxiSettings {
        regioncfg: [rng.gen_range(0..4); 8],
        qconfig: rng.gen_range(0..4),
        ..AxiSettings::default()
    };
    match target {
        Target::Command => settings.qconfig = counter,
        Target::Source => settings.regioncfg[0] = counter,
        Target::Destination => settings.regioncfg[1] = counter,
    }
    let mut axi = CompleterConfig {
        read_latency: rng.gen_range(0..16),
        write_latency: rng.gen_range(0..16),
        ready_probability: rng.gen_range(0.4..=1.0),
        response_probability: rng.gen_range(0.4..=1.0),
        reorder: true,
        errors: vec![],
        address_map: None,
        max_reads: None,
        max_writes: None,
        bytes_per_cycle: None,
    };
    let mut configs = [axi.clone(), axi.clone()];
    axi.errors = vec![ErrorRange {
        range: error_range(target),
        resp,
    }];
    configs[port.index()] = axi;
    let mut rtl = RtlBackend {
        settings,
        axi_configs: configs,
        axi_seed: Some(rng.gen()),
        max_cycles: 200_000,
        ..RtlBackend::default()
    };
    let what = format!("{target:?} error ({resp:?}) on {port}");
    // The run ends with the NPU's STATUS, not a harness error.
    let run = rtl
        .run(&job(), &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{what}: {e:#}"));
    assert!(!run.completed(), "{what}: the run must fail");
    assert_eq!(
        regs::STATUS.field("bus_status").get(run.status),
        1,
        "{what}: STATUS {:#x}",
        run.status
    );

    let tb = rtl.last.as_mut().unwrap();
    let channel = match target {
        Target::Command => FaultingChannel::CommandRead,
        Target::Source => FaultingChannel::Mem2MemRead,
        Target::Destination => FaultingChannel::Mem2MemWrite,
    };
    // Every issued transaction completes; nothing new starts, not even on
    // a new CMD write.
    assert_stopped_on_bus_error(tb, channel, port, &what);

    // Each byte is its initial value or the golden model's.
    assert_initial_or_result(&job(), &golden_run, tb, &what);
}

#[test]
fn bus_errors_on_every_channel_and_port_stop_the_npu_cleanly() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    for target in [Target::Command, Target::Source, Target::Destination] {
        for port in AxiPort::ALL {
            for resp in [Resp::SlvErr, Resp::DecErr] {
                inject(target, port, resp, &mut rng);
            }
        }
    }
}
