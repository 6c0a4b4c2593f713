//! The user DMA on the RTL (TRM 4.6.4-4.6.5 NPU_OP_DMA_START, NPU_SET_DMA0_*):
//! random transfers (lengths, alignments, 1D/2D/3D sides, regions on either
//! port, the shared buffer as destination) under random AXI settings,
//! latency, back-pressure, reordering, ACLKEN and security levels, compared
//! byte for byte with the golden model: every region, each core's shared
//! buffer, STATUS and IRQ; every transaction's ID, AxCACHE and AxPROT; and
//! the per-layer report's DMA rows (cycles, AXI bytes per port), queued
//! DMAs among them.

use npu_arch::command::{DmaRegionMode, DmaStrideMode, Opcode};
use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, counter_port};
use npu_model::cmdstream::{encode, Command};
use npu_model::job::{Backend, BackendRun, GoldenBackend, Job};
use npu_model::npu::Npu;
use npu_tb::axi::{random_aclken_pattern, AxiPort, CompleterConfig};
use npu_tb::driver::AxiSettings;
use npu_tb::rtl_backend::RtlBackend;
use npu_tb::seed::seed;
use npu_tb::shram::shram_contents;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;

/// One NPU_OP_DMA_START and the NPU_SET_DMA0_* values before it.
#[derive(Clone, Debug)]
struct Transfer {
    src_region: usize,
    src_offset: u32,
    src_mode: DmaStrideMode,
    /// A region, or for the shared buffer a core mask.
    dst_region: usize,
    dst_internal: bool,
    dst_offset: u32,
    dst_mode: DmaStrideMode,
    len: u32,
    size0: u16,
    size1: u16,
    skip0: u32,
    skip1: u32,
}

fn dims(mode: DmaStrideMode) -> u32 {
    match mode {
        DmaStrideMode::D1 => 1,
        DmaStrideMode::D2 => 2,
        DmaStrideMode::D3 => 3,
    }
}

impl Transfer {
    fn dims(&self) -> u32 {
        dims(self.src_mode).max(dims(self.dst_mode))
    }

    /// Rows and planes of the transfer (TRM 4.6.5: SIZE0 and SIZE1 count
    /// only with 2D and 3D).
    fn rows_planes(&self) -> (u64, u64) {
        let d = self.dims();
        let rows = if d >= 2 { u64::from(self.size0) } else { 1 };
        let planes = if d >= 3 { u64::from(self.size1) } else { 1 };
        (rows, planes)
    }

    /// Bytes from the side's offset to just past its last byte.
    fn extent(&self, mode: DmaStrideMode) -> u64 {
        let (rows, planes) = self.rows_planes();
        let (len, skip0, skip1) = (
            u64::from(self.len),
            u64::from(self.skip0),
            u64::from(self.skip1),
        );
        match dims(mode) {
            1 => len * rows * planes,
            2 => (len + skip0) * rows * planes,
            _ => (planes - 1) * (len * rows + skip1) + (rows - 1) * (len + skip0) + len,
        }
    }

    fn commands(&self) -> Vec<Command> {
        let region_value = |region: usize, internal: bool, mode: DmaStrideMode| {
            let mode_bit = if internal {
                DmaRegionMode::Internal
            } else {
                DmaRegionMode::External
            } as u16;
            region as u16 | (mode_bit << 8) | ((mode as u16) << 9)
        };
        vec![
            Command::cmd0(
                Opcode::NpuSetDma0SrcRegion,
                region_value(self.src_region, false, self.src_mode),
            ),
            Command::cmd0(
                Opcode::NpuSetDma0DstRegion,
                region_value(self.dst_region, self.dst_internal, self.dst_mode),
            ),
            Command::cmd1(Opcode::NpuSetDma0Src, 0, self.src_offset),
            Command::cmd1(Opcode::NpuSetDma0Dst, 0, self.dst_offset),
            Command::cmd1(Opcode::NpuSetDma0Len, 0, self.len),
            Command::cmd0(Opcode::NpuSetDma0Size0, self.size0),
            Command::cmd0(Opcode::NpuSetDma0Size1, self.size1),
            Command::cmd1(Opcode::NpuSetDma0Skip0, 0, self.skip0),
            Command::cmd1(Opcode::NpuSetDma0Skip1, 0, self.skip1),
            Command::cmd0(Opcode::NpuOpDmaStart, 0),
        ]
    }
}

fn random_mode(rng: &mut StdRng) -> DmaStrideMode {
    [DmaStrideMode::D1, DmaStrideMode::D2, DmaStrideMode::D3][rng.gen_range(0..3)]
}

/// A transfer between two of `regions` (or into the shared buffer), with
/// region sizes grown to hold it.
fn random_transfer(
    rng: &mut StdRng,
    config: &NpuConfig,
    regions: usize,
    sizes: &mut [u64],
) -> Transfer {
    let long = rng.gen_bool(0.15);
    let src_region = rng.gen_range(0..regions);
    let dst_internal = rng.gen_bool(0.2);
    let dst_region = if dst_internal {
        rng.gen_range(1..1 << config.cores)
    } else {
        (src_region + rng.gen_range(1..regions)) % regions
    };
    let mut t = Transfer {
        src_region,
        src_offset: rng.gen_range(0..64),
        src_mode: random_mode(rng),
        dst_region,
        dst_internal,
        dst_offset: rng.gen_range(0..64),
        dst_mode: random_mode(rng),
        len: if long {
            rng.gen_range(500..3000)
        } else {
            rng.gen_range(1..300)
        },
        size0: rng.gen_range(1..5),
        size1: rng.gen_range(1..4),
        skip0: rng.gen_range(0..48),
        skip1: rng.gen_range(0..80),
    };
    if rng.gen_bool(0.3) {
        // Whole beats at aligned addresses: the aligner passes lanes straight on.
        t.len = t.len.div_ceil(16) * 16;
        t.src_offset &= !15;
        t.dst_offset &= !15;
        t.skip0 &= !15;
        t.skip1 &= !15;
    }
    let src_end = u64::from(t.src_offset) + t.extent(t.src_mode);
    sizes[src_region] = sizes[src_region].max(src_end);
    if dst_internal {
        let shram_core = u64::from(config.shram_kib) * 1024 / u64::from(config.cores);
        let span = t.extent(t.dst_mode);
        t.dst_offset = rng.gen_range(0..=shram_core.saturating_sub(span)) as u32;
    } else {
        let dst_end = u64::from(t.dst_offset) + t.extent(t.dst_mode);
        sizes[dst_region] = sizes[dst_region].max(dst_end);
    }
    t
}

/// A stream of 1-4 transfers, some followed by NPU_OP_DMA_WAIT, ending in
/// NPU_OP_STOP; regions filled with random bytes.
fn random_job(rng: &mut StdRng, config: &NpuConfig) -> (Job, Vec<Transfer>) {
    let regions = rng.gen_range(2..5);
    let mut sizes = vec![16u64; regions];
    let transfers: Vec<Transfer> = (0..rng.gen_range(1..5))
        .map(|_| random_transfer(rng, config, regions, &mut sizes))
        .collect();
    let mut commands = vec![];
    for t in &transfers {
        commands.extend(t.commands());
        if rng.gen_bool(0.3) {
            commands.push(Command::cmd0(Opcode::NpuOpDmaWait, rng.gen_range(0..2)));
        }
    }
    commands.push(Command::cmd0(Opcode::NpuOpStop, rng.gen()));
    let regions: BTreeMap<usize, Vec<u8>> = sizes
        .iter()
        .enumerate()
        .map(|(k, &size)| {
            let size = size + rng.gen_range(0..64);
            (k, (0..size).map(|_| rng.gen()).collect())
        })
        .collect();
    let job = Job::in_memory(
        config.clone(),
        encode(&commands),
        regions,
        "random user DMA",
    );
    (job, transfers)
}

/// STATUS without irq_raised, which the driver clears after the IRQ.
fn status_without_irq(status: u32) -> u32 {
    status & !regs::STATUS.field("irq_raised").mask()
}

/// Every AR and AW carried the ID of its channel, the AxCACHE of its
/// region's AXI_LIMITn.memtype (TRM table 4-31) and PROT as AxPROT.
fn check_attributes(rtl: &RtlBackend, config: &NpuConfig, transfers: &[Transfer], what: &str) {
    let settings = &rtl.settings;
    let memtype = |counter: u32| settings.axi_limits[counter as usize].memtype;
    let read_cache = |counter: u32| regs::memtype_cache(memtype(counter)).0 as u8;
    let write_cache = |counter: u32| regs::memtype_cache(memtype(counter)).1 as u8;
    // AxPROT: bit 0 privileged, bit 1 non-secure, bit 2 data (0).
    let prot = u8::from(rtl.privileged) | (u8::from(!rtl.secure) << 1);
    let command_id = *config.read_ids.command.start();
    let mem2mem_id = *config.read_ids.mem2mem.start();
    let mut reads = vec![(command_id, read_cache(settings.qconfig))];
    let mut writes = vec![];
    for t in transfers {
        reads.push((mem2mem_id, read_cache(settings.regioncfg[t.src_region])));
        if !t.dst_internal {
            let counter = settings.regioncfg[t.dst_region];
            writes.push((counter_port(counter) as usize, write_cache(counter)));
        }
    }
    let tb = rtl.last.as_ref().unwrap();
    for port in AxiPort::ALL {
        for a in tb.axi_attributes(port) {
            assert_eq!(a.prot, prot, "{what}: AxPROT of {a:?} on {port}");
            if a.write {
                assert!(
                    writes.contains(&(port.index(), a.cache)),
                    "{what}: write {a:?} on {port}; expected (port, AWCACHE) one of {writes:?}"
                );
            } else {
                assert!(
                    reads.contains(&(a.id, a.cache)),
                    "{what}: read {a:?} on {port}; expected (ARID, ARCACHE) one of {reads:?}"
                );
            }
        }
    }
}

/// Runs `job` on the golden model and the RTL and compares every region,
/// the shared buffers, STATUS and IRQ; returns the RTL's run.
fn check_against_golden(job: &Job, rtl: &mut RtlBackend, what: &str) -> BackendRun {
    let mut golden = GoldenBackend::default();
    let expected = golden
        .run(job, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{what}: the golden model refused the job: {e:#}"));
    let golden_npu: &Npu = golden.last.as_ref().unwrap();
    assert!(expected.irq, "{what}: the stream raises IRQ");
    let actual = rtl
        .run(job, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{what}: RTL run failed: {e:#}"));
    for (k, bytes) in &expected.regions {
        let got = &actual.regions[k];
        if let Some(i) = (0..bytes.len()).find(|&i| bytes[i] != got[i]) {
            panic!(
                "{what}: region {k} differs first at byte {i:#x}: golden {:#04x}, RTL {:#04x}",
                bytes[i], got[i]
            );
        }
    }
    assert_eq!(
        status_without_irq(actual.status),
        status_without_irq(expected.status),
        "{what}: STATUS (golden {:#x}, RTL {:#x} after the driver cleared the IRQ)",
        expected.status,
        actual.status
    );
    let tb = rtl.last.as_ref().unwrap();
    assert_eq!(tb.get("IRQ"), 0, "{what}: IRQ low after CMD.clear_irq");
    for (core, (got, want)) in shram_contents(tb)
        .iter()
        .zip(&golden_npu.state.shram)
        .enumerate()
    {
        if let Some(i) = (0..want.len()).find(|&i| want[i] != got[i]) {
            panic!(
                "{what}: core {core}'s shared buffer differs first at byte {i:#x}: golden {:#04x}, RTL {:#04x}",
                want[i], got[i]
            );
        }
    }
    actual
}

/// The per-layer report of `run`: a row for each of `transfers`, timed,
/// one at a time within the run's cycles; every byte the AXI completers
/// served in one row or in the command stream's; a DMA's writes exactly its
/// destination's bytes on the port of its region's counter (none into the
/// shared buffer), its reads at
/// least its source's (whole beats).
fn check_report(run: &BackendRun, rtl: &RtlBackend, transfers: &[Transfer], what: &str) {
    let measured = run.measured.expect("the run's measures");
    assert_eq!(run.layers.len(), transfers.len(), "{what}: rows");
    let mut sums = measured.command_stream;
    let mut dma_cycles = 0;
    for (layer, t) in run.layers.iter().zip(transfers) {
        let cycles = layer
            .cycles
            .unwrap_or_else(|| panic!("{what}: {layer:?} has no cycles"));
        assert!(cycles > 0, "{what}: {layer:?}");
        dma_cycles += cycles;
        let ports = layer.ports.expect("port bytes");
        for (sum, port) in sums.iter_mut().zip(ports) {
            sum.read += port.read;
            sum.written += port.written;
        }
        let written = if t.dst_internal {
            0
        } else {
            layer.bytes_written
        };
        assert_eq!(
            ports[0].written + ports[1].written,
            written,
            "{what}: {layer:?}"
        );
        if !t.dst_internal {
            // On the port of the destination region's counter (REGIONCFG).
            let port = counter_port(rtl.settings.regioncfg[t.dst_region]) as usize;
            assert_eq!(ports[1 - port].written, 0, "{what}: writes on M{port}");
        }
        assert!(
            ports[0].read + ports[1].read >= layer.bytes_read,
            "{what}: {layer:?}"
        );
    }
    assert!(dma_cycles <= measured.cycles, "{what}: DMAs overlap");
    let tb = rtl.last.as_ref().unwrap();
    for port in AxiPort::ALL {
        let counters = tb.axi_counters(port);
        let sum = sums[port.index()];
        assert_eq!(
            (sum.read, sum.written),
            (counters.bytes_read, counters.bytes_written),
            "{what}: {port} bytes of the rows and the command stream against the completer's"
        );
    }
}

fn random_jobs(config: &NpuConfig, jobs: usize) {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    for n in 0..jobs {
        let (job, transfers) = random_job(&mut rng, config);
        let mut rtl = RtlBackend {
            settings: AxiSettings::random(&mut rng),
            axi_configs: [
                CompleterConfig::random(&mut rng),
                CompleterConfig::random(&mut rng),
            ],
            aclken_patterns: [
                random_aclken_pattern(&mut rng),
                random_aclken_pattern(&mut rng),
            ],
            axi_seed: Some(rng.gen()),
            secure: rng.gen(),
            privileged: rng.gen(),
            layers: true,
            ..RtlBackend::default()
        };
        let what = format!(
            "{} job {n} of seed {seed} ({transfers:?}, {:?}, {:?}, ACLKEN {:?}, secure {} privileged {})",
            config.name, rtl.settings, rtl.axi_configs, rtl.aclken_patterns, rtl.secure, rtl.privileged
        );
        let run = check_against_golden(&job, &mut rtl, &what);
        check_attributes(&rtl, config, &transfers, &what);
        check_report(&run, &rtl, &transfers, &what);
    }
}

#[test]
fn random_transfers_match_the_golden_model_u65_256() {
    random_jobs(&NpuConfig::u65_256(), 150);
}

#[test]
fn random_transfers_match_the_golden_model_u65_512() {
    random_jobs(&NpuConfig::u65_512(), 150);
}
