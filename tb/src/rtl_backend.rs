//! The RTL as a job backend (JOBS.md): each region's image and the command
//! stream go into the memory behind the AXI ports at base addresses of their
//! own, the driver runs the stream, and the regions are read back. Memory
//! exists only there, and each port reaches only what REGIONCFG and QCONFIG
//! put on it (counters 0 and 1 on M0, 2 and 3 on M1, as an SoC whose M0
//! reaches only the SRAM): an access outside them answers DECERR, so the NPU
//! reports it as a bus error, and a read or write on the wrong port too.
//!
//! With `layers` set, the run also gives the per-layer report
//! (`npu_model::report`): its rows are the golden model's records of the
//! same job (kind, shapes, MACs, region bytes), and a
//! [`LayerProbe`](crate::layer_probe::LayerProbe) adds
//! each one's cycles and AXI bytes per port as the RTL ran it, and the
//! whole run's.
//!
//! With `check_blockdep` set (the default), a [`BlockdepChecker`] watches
//! the run's AXI traffic against the golden model's block footprints of the
//! same job and fails any IFM read NPU_SET_BLOCKDEP forbids (TRM 4.9).

use crate::axi::{AxiPort, CompleterConfig};
use crate::blockdep::BlockdepChecker;
use crate::bounds::{BoundsWatcher, SlackTally};
use crate::driver::DriverError;
use crate::driver::{self, AxiSettings, Inference, DEFAULT_MAX_CYCLES, HOST_PPROT};
use crate::npu::{NpuTb, Waveform};
use crate::shram::shram_contents;
use anyhow::{bail, Context, Result};
use npu_arch::regs::{self, counter_port, FaultingChannel};
use npu_hw::dma::OFM_WRITE_ID;
use npu_model::check::{accesses_before_refusal, CheckOptions, Policy, StreamCheck};
use npu_model::cmdstream::stop_ends_at;
use npu_model::floor::{floors, MemoryTiming, PortTiming};
use npu_model::footprint::{BlockFootprints, Span};
use npu_model::job::{block_footprints, Backend, BackendRun, GoldenBackend, Job};
pub use npu_model::job::{region_base, COMMAND_STREAM_BASE};
use npu_model::report::RunMeasures;
use npu_model::state::OpRecord;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;

/// The bytes at `base` an AXI burst may touch for `size` bytes of data:
/// bursts move whole 16-byte beats.
fn window(base: u64, size: usize) -> Range<u64> {
    base..base + (size as u64).next_multiple_of(16)
}

/// CLK cycles without a data beat on either port after which the work
/// still outstanding when the NPU stopped counts as hung.
const DRAIN_CYCLES: u64 = 100_000;

/// Runs the bench until the work outstanding when the NPU stopped is done.
/// A stop on an error cancels neither the kernel operations and DMA
/// descriptors already queued nor the AXI transactions already issued (a
/// command fetch ahead of a refused command): they complete, so the regions
/// are read once the NPU is quiet. CLKQACTIVE says so once the driver has
/// cleared the IRQ (TRM 3.3.4.2: high while any work is outstanding). A long
/// convolution may take far more cycles than a fixed window, so the wait
/// ends only when no beat moves for [`DRAIN_CYCLES`] (work a bus error
/// halted, which waits for a reset), or after `max_cycles`.
fn drain(tb: &mut NpuTb, max_cycles: u64) {
    let beats = |tb: &NpuTb| {
        AxiPort::ALL
            .iter()
            .map(|&p| {
                let c = tb.axi_counters(p);
                c.read_beats + c.write_beats
            })
            .sum::<u64>()
    };
    let (mut moved, mut last_move) = (beats(tb), 0);
    for cycle in 0..max_cycles {
        if (tb.axi_idle() && tb.get("CLKQACTIVE") == 0) || cycle - last_move >= DRAIN_CYCLES {
            break;
        }
        tb.tick();
        let now = beats(tb);
        if now != moved {
            (moved, last_move) = (now, cycle);
        }
    }
}

/// Runs jobs on the Verilated RTL, one fresh bench per job.
pub struct RtlBackend {
    /// A VCD of each run.
    pub waveform: Option<Waveform>,
    /// CLK cycles to wait for the NPU to stop.
    pub max_cycles: u64,
    /// What the driver programs in REGIONCFG, AXI_LIMIT0-3 and QCONFIG.
    pub settings: AxiSettings,
    /// The memory model behind M0 and M1: latency, back-pressure,
    /// reordering, error ranges.
    pub axi_configs: [CompleterConfig; 2],
    /// ACLKEN of M0 and M1 for successive CLK cycles, repeated.
    pub aclken_patterns: [Vec<bool>; 2],
    /// Seed of random `axi_configs`; `None` draws the test's seed (`npu_tb::seed`).
    pub axi_seed: Option<u64>,
    /// The security and privilege levels the driver's soft reset gives the
    /// NPU as an AXI manager (RESET.pending_CSL/CPL, TRM 4.2.4).
    pub secure: bool,
    pub privileged: bool,
    /// The bench after the last run, with its registers, memory and AXI
    /// counters, also after a failed run.
    pub last: Option<NpuTb>,
    /// Fill the per-layer report (`BackendRun::layers` and `measured`,
    /// `macs`): runs the golden model on the job too, for the rows.
    pub layers: bool,
    /// With `layers`: write each run's timeline here, as a Chrome trace
    /// ([`crate::timeline`]).
    pub timeline: Option<PathBuf>,
    /// Runs so far: the waveform and timeline of run k > 0 (a network's
    /// next `ethos-u` operator) go to `NAME.k.EXT` beside the first.
    pub runs: usize,
    /// Check every IFM read against NPU_SET_BLOCKDEP ([`BlockdepChecker`]).
    pub check_blockdep: bool,
    /// Check every AXI access against the stream checker's ranges for the
    /// job's regions ([`BoundsWatcher`]; for a stream the checker refuses,
    /// the ranges of the operations before the refused command).
    pub check_bounds: bool,
    /// The last run's bounds watcher: what the checker allowed and the run
    /// touched.
    pub bounds: Option<BoundsWatcher>,
    /// The checker's slack over every run so far ([`BoundsWatcher::slack`]).
    pub slack: SlackTally,
}

/// `path` for run `k`: itself for the first, `NAME.k.EXT` after.
pub fn path_of_run(path: &std::path::Path, k: usize) -> PathBuf {
    if k == 0 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{k}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{k}"),
    };
    path.with_file_name(name)
}

impl Default for RtlBackend {
    fn default() -> Self {
        Self {
            waveform: None,
            max_cycles: DEFAULT_MAX_CYCLES,
            settings: AxiSettings::default(),
            axi_configs: [CompleterConfig::ideal(), CompleterConfig::ideal()],
            aclken_patterns: [vec![true], vec![true]],
            axi_seed: None,
            secure: true,
            privileged: false,
            last: None,
            layers: false,
            timeline: None,
            runs: 0,
            check_blockdep: true,
            check_bounds: true,
            bounds: None,
            slack: SlackTally::default(),
        }
    }
}

impl Backend for RtlBackend {
    fn name(&self) -> &str {
        "rtl"
    }

    fn run(&mut self, job: &Job, progress: &mut dyn FnMut(usize, usize)) -> Result<BackendRun> {
        // Close the previous bench (and its VCD) before opening another.
        self.last = None;
        let waveform = self.waveform.clone().map(|w| Waveform {
            path: path_of_run(&w.path, self.runs),
            ..w
        });
        let tb = NpuTb::with_waveform(&job.config.name, waveform)?;
        let run = self.run_on(tb, job, progress);
        self.runs += 1;
        run
    }
}

impl RtlBackend {
    /// Runs `job` on a fresh bench and the wall time the run took, the
    /// bench (and the Verilator build of a configuration's first run) made
    /// before the clock starts: what a bench's simulated cycles per second
    /// divide by.
    pub fn timed_run(&mut self, job: &Job) -> Result<(BackendRun, f64)> {
        let tb = NpuTb::new(&job.config.name)?;
        let start = std::time::Instant::now();
        let run = self.run_on(tb, job, &mut |_, _| {})?;
        Ok((run, start.elapsed().as_secs_f64()))
    }

    /// Puts `job` into the memory of `tb` (its regions and command stream,
    /// over whatever an earlier run left there) and this backend's memory
    /// system behind the AXI ports; returns the invocation that runs it.
    ///
    /// # Panics
    /// When an AXI transaction is in flight.
    pub fn prepare(&self, tb: &mut NpuTb, job: &Job) -> Result<Inference> {
        if let Some(seed) = self.axi_seed {
            tb.set_axi_seed(seed);
        }
        let settings = &self.settings;
        for port in AxiPort::ALL {
            let on_port = |counter: u32| counter_port(counter) as usize == port.index();
            let mut address_map: Vec<Range<u64>> = job
                .regions
                .iter()
                .filter(|(&k, _)| settings.regioncfg.get(k).is_some_and(|&c| on_port(c)))
                .map(|(&k, bytes)| window(region_base(k), bytes.len()))
                .collect();
            if on_port(settings.qconfig) {
                address_map.push(window(COMMAND_STREAM_BASE, job.command_stream.len()));
            }
            tb.set_axi_config(
                port,
                CompleterConfig {
                    address_map: Some(address_map),
                    ..self.axi_configs[port.index()].clone()
                },
            );
            tb.set_aclken_pattern(port, &self.aclken_patterns[port.index()]);
        }
        for (&k, bytes) in &job.regions {
            tb.memory_mut().write(region_base(k), bytes);
        }
        tb.memory_mut()
            .write(COMMAND_STREAM_BASE, &job.command_stream);
        Ok(Inference {
            max_cycles: self.max_cycles,
            secure: self.secure,
            privileged: self.privileged,
            ..job.inference(self.settings.clone())?
        })
    }

    /// Runs `job` as [`Backend::run`] does, on `tb` as an earlier run, a
    /// fault or a reset left it rather than on a fresh bench: the driver
    /// starts with its soft reset as always. `tb` is kept in `last`.
    pub fn run_on(
        &mut self,
        mut tb: NpuTb,
        job: &Job,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<BackendRun> {
        self.last = None;
        let records = if self.layers {
            let golden = GoldenBackend {
                settings: self.settings.clone(),
                ..GoldenBackend::default()
            }
            .run(job, &mut |_, _| {});
            Some(golden.context("the per-layer report takes its rows from the golden model")?)
        } else {
            None
        };
        let inference = self.prepare(&mut tb, job)?;
        if self.check_blockdep {
            tb.watch_blockdep(blockdep_checker(job, &block_footprints(job)?));
        }
        self.bounds = None;
        // What the stream may touch, for the bounds watcher and the floors.
        let check = (self.check_bounds || records.is_some())
            .then(|| accesses_before_refusal(&job.command_stream, &job_check_options(job)).0);
        if let (true, Some(check)) = (self.check_bounds, &check) {
            tb.watch_bounds(bounds_watcher(job, check, &inference.base_addresses));
        }
        if records.is_some() {
            tb.watch_layers()?;
            if self.timeline.is_some() {
                tb.record_timeline();
            }
        }
        let result = driver::invoke_async(&mut tb, &inference)
            .and_then(|running| driver::wait_with_progress(&mut tb, running, progress));
        drain(&mut tb, self.max_cycles);
        self.bounds = tb.take_bounds_watcher();
        if let Some(watcher) = &self.bounds {
            self.slack.add(watcher);
        }
        let idle = tb.axi_idle();
        let quiet = tb.get("CLKQACTIVE") == 0;
        let run = self.last.insert(tb);
        // An error the NPU reports in STATUS is the run's result.
        let (state, cycles) = match result {
            Ok(r) => (r.state, r.cycles),
            Err(DriverError::Fault { cycles, state }) => (state, cycles),
            Err(e) => return Err(e).context("RTL run"),
        };
        if !idle {
            bail!("RTL run: AXI transactions still in flight after the NPU stopped ({state})");
        }
        // The regions would be read while an operation still writes them. (An
        // error may leave work that never ends, halted until a reset.)
        if !quiet && !state.has_error() {
            bail!(
                "RTL run: the NPU still has work outstanding (CLKQACTIVE high) after it stopped, \
                 with no AXI data beat for {DRAIN_CYCLES} cycles ({state})"
            );
        }
        let mut counters = BTreeMap::new();
        for port in AxiPort::ALL {
            for (name, value) in run.axi_counters(port).named() {
                counters.insert(
                    format!("axi_{}_{name}", port.to_string().to_lowercase()),
                    value,
                );
            }
        }
        let mut rtl_run = BackendRun {
            regions: job
                .regions
                .iter()
                .map(|(&k, bytes)| (k, run.memory().read_vec(region_base(k), bytes.len())))
                .collect(),
            shram: shram_contents(run),
            shram_scratch: Vec::new(),
            status: state.status,
            qread: state.qread,
            irq: state.irq,
            stop_reached: stop_ends_at(&job.command_stream, state.qread as usize),
            fault: None,
            ops: BTreeMap::new(),
            cycles: Some(cycles),
            pmu: BTreeMap::new(),
            counters,
            macs: 0,
            layers: Vec::new(),
            measured: None,
        };
        if let Some(golden) = records {
            let probe = run.take_layer_probe().expect("watch_layers attached it");
            let mut layers = golden.layers;
            probe.fill(&mut layers, rtl_run.completed())?;
            if let (Some(path), Some(trace)) = (&self.timeline, probe.trace(&layers)) {
                let path = path_of_run(path, self.runs);
                std::fs::write(&path, serde_json::to_string(&trace)?)
                    .with_context(|| format!("writing the timeline {}", path.display()))?;
            }
            let check = check.as_ref().expect("taken for the per-layer report");
            let memory = memory_timing(&self.settings, &self.axi_configs);
            let address = |region, offset| bus_address(&inference.base_addresses, region, offset);
            let inputs: Vec<_> = layers.iter().map(OpRecord::floor_input).collect();
            let floors = floors(
                &inputs,
                &check.operations,
                &memory,
                job.config.cores,
                &address,
            );
            for (layer, floor) in layers.iter_mut().zip(floors.rows) {
                layer.floor = floor;
            }
            let completers = AxiPort::ALL.map(|port| run.axi_completer(port));
            rtl_run.measured = Some(RunMeasures {
                command_fetch_floor: floors.command_fetch,
                ..probe.measures(completers, run.model.cycle())
            });
            rtl_run.macs = layers.iter().map(|l| l.macs).sum();
            rtl_run.layers = layers;
        }
        Ok(rtl_run)
    }
}

/// The memory behind the ports as the floors see it (`npu_model::floor`).
fn memory_timing(settings: &AxiSettings, axi_configs: &[CompleterConfig; 2]) -> MemoryTiming {
    let ports = axi_configs.each_ref().map(|c| PortTiming {
        read_latency: c.read_latency,
        write_latency: c.write_latency,
        bytes_per_cycle: c.bytes_per_cycle,
    });
    MemoryTiming::new(ports, settings.regioncfg, settings.qconfig)
}

/// A region's byte at its AXI address: a region the driver programs no
/// base pointer for keeps its reset value, 0.
fn bus_address(base_addresses: &[u64], region: usize, offset: i64) -> u64 {
    let base = base_addresses.get(region).copied().unwrap_or(0);
    base.wrapping_add(offset as u64)
}

/// The bounds watcher of a run of `job`: the stream checker's ranges for
/// its regions' sizes, at the AXI addresses of the driver's
/// `base_addresses`. For a stream the checker refuses, what the NPU may
/// touch before it stops (`check`, from [`accesses_before_refusal`]).
pub fn bounds_watcher(job: &Job, check: &StreamCheck, base_addresses: &[u64]) -> BoundsWatcher {
    let address = |region, offset| bus_address(base_addresses, region, offset);
    let stream = COMMAND_STREAM_BASE..COMMAND_STREAM_BASE + job.command_stream.len() as u64;
    BoundsWatcher::new(check, &address, stream)
}

/// The stream checker's options for `job`: its configuration and its
/// regions' sizes.
pub fn job_check_options(job: &Job) -> CheckOptions {
    CheckOptions {
        config: job.config.clone(),
        region_sizes: job
            .regions
            .iter()
            .map(|(&k, bytes)| (k, bytes.len() as u64))
            .collect(),
        policy: Policy::Npu,
    }
}

/// The BLOCKDEP checker of a run of `job` with its kernel operations'
/// `footprints` ([`block_footprints`]).
pub fn blockdep_checker(job: &Job, footprints: &[(usize, BlockFootprints)]) -> BlockdepChecker {
    let address =
        |s: &Span| region_base(s.region) + s.bytes.start..region_base(s.region) + s.bytes.end;
    BlockdepChecker::new(
        footprints,
        &address,
        job.config.read_ids.ifm.clone(),
        OFM_WRITE_ID,
    )
}

/// After a run that stopped early (a bus error, a reset): each byte of each
/// of `job`'s regions in the memory of `tb` is its initial value or the one
/// `result` (a complete run's) holds. `what` names the case in a failure.
pub fn assert_initial_or_result(job: &Job, result: &BackendRun, tb: &NpuTb, what: &str) {
    for (&k, initial) in &job.regions {
        let got = tb.memory().read_vec(region_base(k), initial.len());
        let end = &result.regions[&k];
        if let Some(i) = (0..initial.len()).find(|&i| got[i] != initial[i] && got[i] != end[i]) {
            panic!(
                "{what}: region {k} byte {i:#x} is {:#04x}, neither its initial {:#04x} nor the result {:#04x}",
                got[i], initial[i], end[i]
            );
        }
    }
}

/// A STATUS value after a bus error (TRM 4.2.2): bus_status, the stopped
/// state, `channel` and `interface`.
pub fn assert_bus_error_status(
    status: u32,
    channel: FaultingChannel,
    interface: AxiPort,
    what: &str,
) {
    let field = |name: &str| regs::STATUS.field(name).get(status);
    assert_eq!(
        [
            field("bus_status"),
            field("state"),
            field("faulting_channel"),
            field("faulting_interface")
        ],
        [1, 0, channel as u32, interface.index() as u32],
        "{what}: STATUS {status:#x} (bus_status, state, faulting_channel, faulting_interface)"
    );
}

/// After a run that stopped on a bus error: STATUS says so
/// ([`assert_bus_error_status`]); within 2,000 cycles every issued AXI
/// transaction has completed, and a new start (CMD) issues nothing more.
pub fn assert_stopped_on_bus_error(
    tb: &mut NpuTb,
    channel: FaultingChannel,
    interface: AxiPort,
    what: &str,
) {
    let status = tb.read(regs::STATUS.address, HOST_PPROT).rdata;
    assert_bus_error_status(status, channel, interface, what);
    tb.cycles(2_000);
    assert!(tb.axi_idle(), "{what}: transactions still outstanding");
    let counters = AxiPort::ALL.map(|p| tb.axi_counters(p));
    let start = regs::CMD.field("transition_to_running_state").set(0, 1);
    tb.write(regs::CMD.address, start, HOST_PPROT);
    tb.cycles(1_000);
    assert_eq!(
        AxiPort::ALL.map(|p| tb.axi_counters(p)),
        counters,
        "{what}: AXI traffic after the fault"
    );
    let status = tb.read(regs::STATUS.address, HOST_PPROT).rdata;
    assert_eq!(
        regs::STATUS.field("state").get(status),
        0,
        "{what}: STATUS {status:#x}"
    );
}

#[cfg(test)]
mod tests {
    use super::path_of_run;
    use std::path::Path;

    #[test]
    fn later_runs_number_their_files() {
        let trace = Path::new("out/trace.json");
        assert_eq!(path_of_run(trace, 0), trace);
        assert_eq!(path_of_run(trace, 2), Path::new("out/trace.2.json"));
        assert_eq!(path_of_run(Path::new("wave"), 1), Path::new("wave.1"));
    }
}
