//! User-DMA throughput on the RTL: bytes per cycle of a long copy whose
//! source is on M0 or M1 (the destination is written on M0, TRM 3.3.3),
//! against the 16 bytes per cycle of a 128-bit port, with zero-latency
//! memory that never stalls (target: at least 90 %). Each burst-split
//! alignment (AXI_LIMITn.max_beats) is measured.

use npu_model::cmdstream::{encode, Command};
use npu_model::job::{Backend, Job};
use npu_spec::command::Opcode;
use npu_spec::config::NpuConfig;
use npu_tb::driver::{AxiLimit, AxiSettings};
use npu_tb::rtl_backend::RtlBackend;
use std::collections::BTreeMap;

const BYTES: u32 = 256 * 1024;
/// Bytes a 128-bit port moves per cycle.
const PORT_BYTES_PER_CYCLE: f64 = 16.0;

fn copy_job() -> Job {
    let commands = [
        Command::cmd0(Opcode::NpuSetDma0SrcRegion, 0),
        Command::cmd0(Opcode::NpuSetDma0DstRegion, 1),
        Command::cmd1(Opcode::NpuSetDma0Src, 0, 0),
        Command::cmd1(Opcode::NpuSetDma0Dst, 0, 0),
        Command::cmd1(Opcode::NpuSetDma0Len, 0, BYTES),
        Command::cmd0(Opcode::NpuOpDmaStart, 0),
        Command::cmd0(Opcode::NpuOpStop, 1),
    ];
    Job::in_memory(
        NpuConfig::u65_256(),
        encode(&commands),
        BTreeMap::from([
            (0, (0..BYTES).map(|i| i as u8).collect()),
            (1, vec![0; BYTES as usize]),
        ]),
        "a long copy",
    )
}

fn main() {
    let job = copy_job();
    println!("user DMA, {} KB copy, zero-latency memory:", BYTES / 1024);
    println!(
        "  {:<10} {:>10} {:>10} {:>14}",
        "source", "burst", "cycles", "bytes/cycle"
    );
    for (source, counter) in [("M0", 0), ("M1", 2)] {
        for max_beats in 0..3 {
            let limit = AxiLimit {
                max_beats,
                ..AxiLimit::U65_DEFAULT
            };
            let mut settings = AxiSettings {
                axi_limits: [limit; 4],
                ..AxiSettings::default()
            };
            settings.regioncfg[0] = counter;
            settings.regioncfg[1] = 0;
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
}
