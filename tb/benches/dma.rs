//! User-DMA throughput on the RTL: bytes per cycle of a long copy whose
//! source is on M0 or M1 (the destination is written on M0, TRM 3.3.3),
//! against the 16 bytes per cycle of a 128-bit port, with zero-latency
//! memory that never stalls (target: at least 90 %). Each burst-split
//! alignment (AXI_LIMITn.max_beats) is measured.
//!
//! Then a 64 KB copy from M1 to M0 behind Vela's `Ethos_U65_Client_Server`
//! memories (M1 a DRAM: 500 cycles of read latency, 12 bytes a cycle),
//! against the bound the bus allows: min(port bytes a cycle, outstanding
//! reads x burst bytes / latency), 8.2 bytes a cycle with the driver's
//! AXI_LIMIT defaults (64-byte bursts, 64 reads) and the port's 12 with
//! 256-byte bursts (issue 31's target: 90 % of it).

use npu_arch::command::Opcode;
use npu_arch::config::NpuConfig;
use npu_model::cmdstream::{encode, Command};
use npu_model::job::{Backend, Job};
use npu_tb::axi::SystemConfig;
use npu_tb::driver::{AxiLimit, AxiSettings};
use npu_tb::rtl_backend::RtlBackend;
use std::collections::BTreeMap;

const BYTES: u32 = 256 * 1024;
/// Bytes a 128-bit port moves per cycle.
const PORT_BYTES_PER_CYCLE: f64 = 16.0;

/// A copy of `bytes` from region 0 to region 1.
fn copy_job(bytes: u32) -> Job {
    let commands = [
        Command::cmd0(Opcode::NpuSetDma0SrcRegion, 0),
        Command::cmd0(Opcode::NpuSetDma0DstRegion, 1),
        Command::cmd1(Opcode::NpuSetDma0Src, 0, 0),
        Command::cmd1(Opcode::NpuSetDma0Dst, 0, 0),
        Command::cmd1(Opcode::NpuSetDma0Len, 0, bytes),
        Command::cmd0(Opcode::NpuOpDmaStart, 0),
        Command::cmd0(Opcode::NpuOpStop, 1),
    ];
    Job::in_memory(
        NpuConfig::u65_256(),
        encode(&commands),
        BTreeMap::from([
            (0, (0..bytes).map(|i| i as u8).collect()),
            (1, vec![0; bytes as usize]),
        ]),
        "a long copy",
    )
}

/// The driver's AXI_LIMIT defaults with burst split `max_beats` on every
/// counter, the source region 0 on outstanding counter `source_counter`
/// and the destination region 1 on counter 0 (M0).
fn copy_settings(max_beats: u32, source_counter: u32) -> (AxiLimit, AxiSettings) {
    let limit = AxiLimit {
        max_beats,
        ..AxiLimit::U65_DEFAULT
    };
    let mut settings = AxiSettings {
        axi_limits: [limit; 4],
        ..AxiSettings::default()
    };
    settings.regioncfg[0] = source_counter;
    settings.regioncfg[1] = 0;
    (limit, settings)
}

fn main() {
    let job = copy_job(BYTES);
    println!("user DMA, {} KB copy, zero-latency memory:", BYTES / 1024);
    println!(
        "  {:<10} {:>10} {:>10} {:>14}",
        "source", "burst", "cycles", "bytes/cycle"
    );
    for (source, counter) in [("M0", 0), ("M1", 2)] {
        for max_beats in 0..3 {
            let (limit, settings) = copy_settings(max_beats, counter);
            let mut rtl = RtlBackend {
                settings,
                ..RtlBackend::default()
            };
            let run = rtl.run(&job, &mut |_, _| {}).expect("the copy runs");
            assert_eq!(run.regions[&1], job.regions[&0], "the copy is exact");
            let cycles = run.cycles.expect("the RTL counts cycles");
            let rate = f64::from(BYTES) / cycles as f64;
            println!(
                "  {:<10} {:>8} B {:>10} {:>8.2} = {:>5.1} % of {PORT_BYTES_PER_CYCLE}",
                source,
                limit.burst_split(),
                cycles,
                rate,
                100.0 * rate / PORT_BYTES_PER_CYCLE
            );
        }
    }
    behind_dram();
}

/// The 64 KB copy from M1 (region 0 on counter 2, the driver's default) to
/// M0 behind `Ethos_U65_Client_Server`, per burst split: its bytes over its
/// cycles (the command fetch from M1 and the first round trip included),
/// and the steady state, the 64 KB more of a 128 KB copy over its extra
/// cycles, beside the bound.
fn behind_dram() {
    const COPY: u32 = 64 * 1024;
    let system = SystemConfig::by_name("Ethos_U65_Client_Server").expect("a Vela system");
    println!(
        "user DMA, {} KB copy M1 -> M0, {}:",
        COPY / 1024,
        system.describe()
    );
    println!(
        "  {:>8} {:>10} {:>12} {:>12} {:>8} {:>7}",
        "burst", "cycles", "bytes/cycle", "steady state", "bound", "ratio"
    );
    let dram = system.ports[1];
    for max_beats in [0, 2] {
        let (limit, settings) = copy_settings(max_beats, 2);
        let cycles = |bytes: u32| {
            let job = copy_job(bytes);
            let mut rtl = RtlBackend {
                settings: settings.clone(),
                axi_configs: [system.completer(0, false), system.completer(1, false)],
                ..RtlBackend::default()
            };
            let run = rtl.run(&job, &mut |_, _| {}).expect("the copy runs");
            assert_eq!(run.regions[&1], job.regions[&0], "the copy is exact");
            run.cycles.expect("the RTL counts cycles")
        };
        let (one, two) = (cycles(COPY), cycles(2 * COPY));
        let rate = f64::from(COPY) / one as f64;
        let steady = f64::from(COPY) / (two - one) as f64;
        let burst = limit.burst_split() as f64;
        let bound = (16.0 * dram.clock_scale)
            .min(f64::from(limit.max_outstanding_reads) * burst / dram.read_latency as f64);
        println!(
            "  {:>6} B {:>10} {:>12.2} {:>12.2} {:>8.2} {:>7.2}",
            limit.burst_split(),
            one,
            rate,
            steady,
            bound,
            steady / bound
        );
    }
}
