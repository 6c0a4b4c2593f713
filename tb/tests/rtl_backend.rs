//! Jobs on the RTL: a DMA job runs bit-exact with the golden model and its
//! expected bytes, placed at base addresses of its own; Vela's DMA jobs pass
//! under back-pressure and ACLKEN at half rate; the backend programs
//! its AXI settings; a run that does not finish is a clear error (as
//! `npu-sim run --model rtl` reports it: `sim/tests/npu_sim_rtl.rs`).

use npu_arch::regs;
use npu_model::job::{run_job, GoldenBackend, Job};
use npu_tb::axi::{AxiPort, CompleterConfig};
use npu_tb::driver::{AxiLimit, AxiSettings};
use npu_tb::rtl_backend::{region_base, RtlBackend, COMMAND_STREAM_BASE};
use npu_tb::seed::seed;
use npu_tb::verilator::build::workspace_root;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    workspace_root()
        .join("model/tests/fixtures/jobs")
        .join(name)
}

#[test]
fn a_dma_job_runs_bit_exact_at_base_addresses_of_its_own() {
    let job = Job::load(&fixture("dma_256"), None).unwrap();
    let mut backend = RtlBackend::default();
    let report = run_job(&job, &mut backend, &mut |_, _| {}).unwrap();
    assert!(report.passed(), "{}", report.summary());
    let golden = run_job(&job, &mut GoldenBackend::default(), &mut |_, _| {}).unwrap();
    assert_eq!(report.run.regions, golden.run.regions);
    // ethosu_config_u65.h: the stream (44 bytes, three whole beats) and
    // region 0 are read on M1, and region 1 is written there too.
    let counters = &report.run.counters;
    assert_eq!(counters["axi_m1_bytes_read"], 256 + 48);
    assert_eq!(counters["axi_m1_bytes_written"], 256);
    assert_eq!(counters["axi_m0_bytes_written"], 0);
    assert!(report.summary().contains("axi_m1_bytes_written 256"));
    assert!(report.run.cycles.unwrap() > 0);

    let tb = backend.last.as_mut().unwrap();
    for (&k, bytes) in &report.run.regions {
        assert_eq!(&tb.memory().read_vec(region_base(k), bytes.len()), bytes);
        let low = tb.read(regs::BASEP[2 * k].address, 0b001).rdata;
        let high = tb.read(regs::BASEP[2 * k + 1].address, 0b001).rdata;
        assert_eq!(u64::from(high) << 32 | u64::from(low), region_base(k));
    }
    assert_eq!(
        tb.memory()
            .read_vec(COMMAND_STREAM_BASE, job.command_stream.len()),
        job.command_stream
    );
    // Past the end of region 0 is memory nothing wrote, not region 1.
    assert!(tb
        .memory()
        .read_vec(region_base(0) + 256, 256)
        .iter()
        .all(|&b| b == 0));
}

#[test]
fn vela_dma_jobs_pass_under_back_pressure_and_a_half_rate_aclken() {
    let mut rng = StdRng::seed_from_u64(seed());
    for name in ["dma_256", "dma_4000_512"] {
        let job = Job::load(&fixture(name), None).unwrap();
        let mut completer = || CompleterConfig {
            read_latency: rng.gen_range(0..30),
            write_latency: rng.gen_range(0..30),
            ready_probability: rng.gen_range(0.2..1.0),
            response_probability: rng.gen_range(0.2..1.0),
            reorder: true,
            errors: vec![],
            address_map: None,
            max_reads: None,
            max_writes: None,
            bytes_per_cycle: None,
        };
        let mut backend = RtlBackend {
            axi_configs: [completer(), completer()],
            aclken_patterns: [vec![true, false], vec![false, true]],
            axi_seed: Some(rng.gen()),
            ..RtlBackend::default()
        };
        let report = run_job(&job, &mut backend, &mut |_, _| {}).unwrap();
        assert!(report.passed(), "{name}: {}", report.summary());
    }
}

#[test]
fn a_run_that_never_stops_is_a_clear_error() {
    let job = Job::load(&fixture("dma_256"), None).unwrap();
    // The command stream is read on M1, which answers too late.
    let slow = CompleterConfig {
        read_latency: 1_000_000,
        ..CompleterConfig::ideal()
    };
    let mut backend = RtlBackend {
        max_cycles: 2_000,
        axi_configs: [CompleterConfig::ideal(), slow],
        ..RtlBackend::default()
    };
    let err = run_job(&job, &mut backend, &mut |_, _| {}).unwrap_err();
    let message = format!("{err:#}");
    for word in [
        "RTL run",
        "did not stop within 2000 cycles",
        "STATUS",
        "QREAD 0x0",
    ] {
        assert!(message.contains(word), "{word} missing from: {message}");
    }
    assert!(backend.last.is_some(), "the bench is kept after a failure");
}

#[test]
fn the_backend_programs_its_axi_settings() {
    let job = Job::load(&fixture("dma_256"), None).unwrap();
    let mut backend = RtlBackend {
        settings: AxiSettings {
            regioncfg: [1, 0, 0, 0, 0, 0, 0, 2],
            axi_limits: [AxiLimit {
                max_beats: 1,
                ..AxiLimit::U65_DEFAULT
            }; 4],
            qconfig: 3,
        },
        max_cycles: 100,
        ..RtlBackend::default()
    };
    let report = run_job(&job, &mut backend, &mut |_, _| {}).unwrap();
    assert!(report.passed(), "{}", report.summary());
    let tb = backend.last.as_mut().unwrap();
    let mut reg = |r: &regs::Register| tb.read(r.address, 0b001).rdata;
    assert_eq!(reg(&regs::REGIONCFG), 0x8001);
    assert_eq!(reg(&regs::QCONFIG), 3);
    assert_eq!(reg(&regs::AXI_LIMIT2), 0x1F3F_0001);
    assert_eq!(tb.axi_limits(AxiPort::M1).read_split, 128);
}

/// Writes go out on the port of their region's counter (REGIONCFG, TRM
/// 4.2.13), the user DMA's and the OFM's alike, and each port reaches only
/// the regions REGIONCFG puts on it (the backend's per-port address maps:
/// a write on the wrong port answers DECERR and fails the run).
#[test]
fn writes_go_out_on_the_port_regioncfg_gives_their_region() {
    // dma_256 copies region 0 to region 1; add_i8 reads and writes region 1.
    for (name, written) in [("dma_256", 256), ("add_i8", 320)] {
        let job = Job::load(&fixture(name), None).unwrap();
        let golden = run_job(&job, &mut GoldenBackend::default(), &mut |_, _| {}).unwrap();
        for counter in 0..4 {
            let mut settings = AxiSettings::default();
            settings.regioncfg[1] = counter;
            let mut backend = RtlBackend {
                settings,
                ..RtlBackend::default()
            };
            let report = run_job(&job, &mut backend, &mut |_, _| {}).unwrap();
            let what = format!("{name}, region 1 on counter {counter}");
            assert!(report.passed(), "{what}: {}", report.summary());
            assert_eq!(report.run.regions, golden.run.regions, "{what}");
            let port = regs::counter_port(counter);
            let bytes = |p: u32| report.run.counters[&format!("axi_m{p}_bytes_written")];
            assert_eq!(
                (bytes(port), bytes(1 - port)),
                (written, 0),
                "{what}: bytes written on M{port} and M{}",
                1 - port
            );
        }
    }
}
