//! Jobs (JOBS.md): a folder with `job.json`, a command stream, one memory
//! image per base-pointer region and the outputs to read back.
//!
//! [`Job::load`] validates the folder, a [`Backend`] runs it (the golden
//! model here; the RTL backend lives in the testbench crate), and
//! [`run_job`] writes `out/<name>.bin` and compares with the expected bytes.

use crate::device::{Device, GoldenDevice};
use crate::driver::{self, AxiSettings, DriverError, Inference};
use crate::footprint::BlockFootprints;
use crate::npu::{ModelError, Npu};
use crate::payload::{is_driver_payload, DriverPayload};
use crate::report::{Report, RunMeasures};
use crate::state::{OpRecord, NUM_REGIONS};
use anyhow::Context;
use npu_arch::config::NpuConfig;
use npu_arch::regs::{describe_status, STATUS};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// `job.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobSpec {
    /// Configuration name, e.g. `u65-256`.
    pub config: String,
    /// Command stream file: little-endian words, or a COP1 driver payload
    /// whose command streams are then run.
    pub command_stream: String,
    pub regions: Vec<RegionSpec>,
    pub outputs: Vec<OutputSpec>,
    #[serde(default)]
    pub description: Option<String>,
}

/// One base-pointer region's initial image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionSpec {
    pub index: usize,
    pub file: String,
    pub size: usize,
}

/// Bytes to read back after the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    pub name: String,
    pub region: usize,
    pub offset: usize,
    pub size: usize,
    #[serde(default)]
    pub expected: Option<String>,
}

/// A job that cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}: {error}")]
    Json {
        path: PathBuf,
        error: serde_json::Error,
    },
    #[error("{0}: unknown configuration (known: u65-256, u65-512)")]
    Config(String),
    #[error("job.json: {0}")]
    Invalid(String),
    /// The stream would access memory outside the job or has an
    /// UNPREDICTABLE result; see [`Job::check`].
    #[error("command stream refused before running: {0}")]
    Refused(ModelError),
}

/// A loaded, validated job.
#[derive(Debug, Clone)]
pub struct Job {
    pub dir: PathBuf,
    pub spec: JobSpec,
    pub config: NpuConfig,
    pub command_stream: Vec<u8>,
    /// Region index -> initial bytes.
    pub regions: BTreeMap<usize, Vec<u8>>,
    /// Output name -> expected bytes, where given.
    pub expected: BTreeMap<String, Vec<u8>>,
    /// The driver payload the stream came in, when it came in one (a Vela
    /// network's `ethos-u` operator, a COP1 `cmd.bin`): what Arm's core
    /// driver is handed ([`Job::driver_payload`]).
    pub payload: Option<DriverPayload>,
}

fn read(path: &Path) -> Result<Vec<u8>, JobError> {
    std::fs::read(path).map_err(|error| JobError::Io {
        path: path.to_path_buf(),
        error,
    })
}

/// A file name inside the job folder; absolute paths and `..` are refused.
fn job_file(dir: &Path, name: &str, what: &str) -> Result<PathBuf, JobError> {
    let p = Path::new(name);
    if p.is_absolute()
        || p.components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(JobError::Invalid(format!(
            "{what} file {name:?} must be a path inside the job folder"
        )));
    }
    Ok(dir.join(p))
}

impl Job {
    /// A job made in memory (tests, benchmarks): a command stream and the
    /// initial bytes of its regions, with nothing to compare.
    pub fn in_memory(
        config: NpuConfig,
        command_stream: Vec<u8>,
        regions: BTreeMap<usize, Vec<u8>>,
        description: &str,
    ) -> Job {
        Job {
            dir: std::env::temp_dir(),
            spec: JobSpec {
                config: config.name.clone(),
                command_stream: "cmd.bin".into(),
                regions: vec![],
                outputs: vec![],
                description: Some(description.into()),
            },
            config,
            command_stream,
            regions,
            expected: BTreeMap::new(),
            payload: None,
        }
    }

    /// The payload Arm's core driver runs the job from: the one the stream
    /// came in while it is still the job's stream, else one as Vela writes
    /// it (OPTIMIZER_CONFIG with the configuration's CONFIG word and the ID
    /// register, NOPs so that the stream starts 16-byte aligned,
    /// COMMAND_STREAM).
    pub fn driver_payload(&self) -> anyhow::Result<DriverPayload> {
        let words = crate::cmdstream::bytes_to_words(&self.command_stream)?;
        if let Some(p) = self
            .payload
            .as_ref()
            .filter(|p| p.command_stream() == words)
        {
            return Ok(p.clone());
        }
        let config = self.config.config_register();
        let id = npu_arch::regs::ID.reset_value(config, false, false);
        Ok(DriverPayload::aligned(config, id, words))
    }

    /// Load and validate `dir/job.json` and the files it names.
    /// `config_override` replaces the `config` field (`npu-sim --config`).
    pub fn load(dir: &Path, config_override: Option<&str>) -> Result<Job, JobError> {
        let json_path = dir.join("job.json");
        let text = read(&json_path)?;
        let spec: JobSpec = serde_json::from_slice(&text).map_err(|error| JobError::Json {
            path: json_path.clone(),
            error,
        })?;
        let config_name = config_override.unwrap_or(&spec.config);
        let config = NpuConfig::by_name(config_name)
            .map_err(|_| JobError::Config(config_name.to_string()))?;
        let mut command_stream = read(&job_file(dir, &spec.command_stream, "command_stream")?)?;
        // Accept a COP1 driver payload too: run its command streams.
        let mut payload = None;
        if is_driver_payload(&command_stream) {
            let parsed = DriverPayload::parse(&command_stream).map_err(|e| {
                JobError::Invalid(format!("command stream {}: {e}", spec.command_stream))
            })?;
            command_stream = parsed
                .command_stream()
                .into_iter()
                .flat_map(u32::to_le_bytes)
                .collect();
            payload = Some(parsed);
        }
        if command_stream.is_empty() {
            return Err(JobError::Invalid(format!(
                "command stream {} is empty",
                spec.command_stream
            )));
        }
        if !command_stream.len().is_multiple_of(4) {
            return Err(JobError::Invalid(format!(
                "command stream {} is {} bytes, not a whole number of 32-bit words",
                spec.command_stream,
                command_stream.len()
            )));
        }
        let mut regions = BTreeMap::new();
        for r in &spec.regions {
            if r.index >= NUM_REGIONS {
                return Err(JobError::Invalid(format!(
                    "region index {} is not 0-{}",
                    r.index,
                    NUM_REGIONS - 1
                )));
            }
            let bytes = read(&job_file(dir, &r.file, "region")?)?;
            if bytes.len() != r.size {
                return Err(JobError::Invalid(format!(
                    "region {} file {} is {} bytes but size says {}",
                    r.index,
                    r.file,
                    bytes.len(),
                    r.size
                )));
            }
            if regions.insert(r.index, bytes).is_some() {
                return Err(JobError::Invalid(format!(
                    "region {} is listed twice (regions would overlap)",
                    r.index
                )));
            }
        }
        let mut expected = BTreeMap::new();
        for (i, o) in spec.outputs.iter().enumerate() {
            if o.name.is_empty() || o.name.contains(['/', '\\']) || o.name.starts_with('.') {
                return Err(JobError::Invalid(format!(
                    "output name {:?} is not a plain file name",
                    o.name
                )));
            }
            let size = regions.get(&o.region).map(Vec::len).ok_or_else(|| {
                JobError::Invalid(format!(
                    "output {} reads region {}, which the job does not define",
                    o.name, o.region
                ))
            })?;
            if o.offset.checked_add(o.size).is_none_or(|end| end > size) {
                return Err(JobError::Invalid(format!(
                    "output {} [{:#x}, +{}) is outside region {} ({} bytes: region too small)",
                    o.name, o.offset, o.size, o.region, size
                )));
            }
            for p in &spec.outputs[..i] {
                if p.name == o.name {
                    return Err(JobError::Invalid(format!(
                        "output {} is listed twice",
                        o.name
                    )));
                }
                if p.region == o.region
                    && p.offset < o.offset + o.size
                    && o.offset < p.offset + p.size
                {
                    return Err(JobError::Invalid(format!(
                        "outputs {} and {} overlap in region {}",
                        p.name, o.name, o.region
                    )));
                }
            }
            if let Some(e) = &o.expected {
                let bytes = read(&job_file(dir, e, "expected")?)?;
                if bytes.len() != o.size {
                    return Err(JobError::Invalid(format!(
                        "expected file {e} of output {} is {} bytes but size says {}",
                        o.name,
                        bytes.len(),
                        o.size
                    )));
                }
                expected.insert(o.name.clone(), bytes);
            }
        }
        Ok(Job {
            dir: dir.to_path_buf(),
            spec,
            config,
            command_stream,
            regions,
            expected,
            payload,
        })
    }
}

impl Job {
    /// Refuse a stream before it runs, as the Linux accel/ethosu driver
    /// checks each stream's buffers: one that reads or writes outside the
    /// job's regions or past the shared buffer, or whose result the TRM makes
    /// UNPREDICTABLE (a DMA whose source and destination overlap, or that
    /// reads what a DMA still running writes). The walk is the golden model's
    /// own run, so it stops where the NPU would (STOP, a parse error).
    pub fn check(&self) -> Result<(), JobError> {
        let mut npu = self.golden_model().map_err(JobError::Invalid)?;
        // Each kernel operation's BLOCKDEP against its footprints (TRM 4.9).
        npu.record_footprints();
        match crate::coverage::without(|| npu.run(&self.command_stream).map(|_| ())) {
            Err(e @ ModelError::Command { .. }) if e.refused_by_runner() => {
                Err(JobError::Refused(e))
            }
            _ => Ok(()),
        }
    }

    /// Whether every kernel operation of the stream keeps the rules of TRM
    /// 4.8.2 and 4.6.4 ([`Npu::check_rules`]): an error names the command
    /// and the rule. Nothing is computed.
    pub fn check_rules(&self) -> Result<(), String> {
        self.golden_model()?
            .check_rules(&self.command_stream)
            .map_err(|e| e.to_string())
    }

    /// A golden model of the job's configuration with its regions loaded.
    fn golden_model(&self) -> Result<Npu, String> {
        let mut npu = Npu::new(self.config.clone());
        for (&i, bytes) in &self.regions {
            npu.state
                .memory
                .set_region(i, bytes.clone())
                .map_err(|e| e.to_string())?;
        }
        Ok(npu)
    }
}

/// What a backend reports after running a job.
#[derive(Debug, Clone, Default)]
pub struct BackendRun {
    /// Final bytes of every region of the job.
    pub regions: BTreeMap<usize, Vec<u8>>,
    /// Each core's shared buffer at the end.
    pub shram: Vec<Vec<u8>>,
    /// Its ranges that kernel operations used as working memory (golden
    /// model, `RunStats::shram_scratch`): not compared.
    pub shram_scratch: Vec<std::ops::Range<usize>>,
    /// STATUS (TRM 4.2.2) as the NPU stopped, before a host clears the IRQ.
    pub status: u32,
    /// QREAD (TRM 4.2.7) as the NPU stopped.
    pub qread: u32,
    /// The IRQ output as the NPU stopped.
    pub irq: bool,
    /// NPU_OP_STOP stopped the NPU, rather than the end of the stream
    /// (both set STATUS.cmd_end_reached): the command ending at QREAD is a
    /// STOP ([`crate::cmdstream::stop_ends_at`]).
    pub stop_reached: bool,
    /// Why the NPU stopped on an error, where the backend can say more than
    /// STATUS (the golden model names the command and the rule).
    pub fault: Option<String>,
    /// Operations run, by TRM name (golden model; the RTL does not count them).
    pub ops: BTreeMap<String, usize>,
    /// Clock cycles (RTL backends).
    pub cycles: Option<u64>,
    /// PMU counters by name (RTL backends).
    pub pmu: BTreeMap<String, u64>,
    /// Other counters by name, e.g. the traffic of each AXI port (RTL backends).
    pub counters: BTreeMap<String, u64>,
    /// Multiply-accumulates (golden model; an RTL run with the per-layer
    /// report, from the golden model's rows).
    pub macs: u64,
    /// Every kernel operation and DMA in stream order (golden model; a timed
    /// backend adds their cycles and AXI bytes).
    pub layers: Vec<OpRecord>,
    /// Cycles and AXI bytes of the whole run, for the report's totals (a
    /// timed backend).
    pub measured: Option<RunMeasures>,
}

impl BackendRun {
    /// This run's per-layer report, on `config`.
    pub fn report(&self, config: &NpuConfig) -> Report<'_> {
        Report {
            layers: &self.layers,
            measured: self.measured.as_ref(),
            peak_macs_per_cycle: config.macs_per_cycle,
        }
    }

    /// Add `next`, a run that followed this one on the same NPU (a
    /// network's next `ethos-u` operator): its memory, shared buffer and
    /// final state replace this run's; operations, counters, cycles, MACs
    /// and layers add up. A run without regions has run nothing yet.
    pub fn append(&mut self, next: &BackendRun) {
        let first = self.regions.is_empty();
        self.regions = next.regions.clone();
        self.shram = next.shram.clone();
        self.shram_scratch = next.shram_scratch.clone();
        self.status = next.status;
        self.qread = next.qread;
        self.irq = next.irq;
        self.fault = next.fault.clone();
        for (map, more) in [
            (&mut self.pmu, &next.pmu),
            (&mut self.counters, &next.counters),
        ] {
            for (k, v) in more {
                *map.entry(k.clone()).or_default() += v;
            }
        }
        for (k, v) in &next.ops {
            *self.ops.entry(k.clone()).or_default() += v;
        }
        self.cycles = if first {
            next.cycles
        } else {
            self.cycles.zip(next.cycles).map(|(a, b)| a + b)
        };
        self.macs += next.macs;
        self.layers.extend(next.layers.iter().cloned());
        self.measured = if first {
            next.measured
        } else {
            self.measured.zip(next.measured).map(|(a, b)| a.then(&b))
        };
    }

    /// Stopped by NPU_OP_STOP (not by the end of the stream) with
    /// STATUS.cmd_end_reached set and no error in STATUS, as Arm's Ethos-U
    /// core driver requires of an inference.
    pub fn completed(&self) -> bool {
        let field = |f: &str| STATUS.field(f).get(self.status);
        self.stop_reached
            && field("cmd_end_reached") == 1
            && ["state", "bus_status", "cmd_parse_error", "ecc_fault"]
                .iter()
                .all(|f| field(f) == 0)
    }
}

/// Something that can run a job: the golden model or the RTL.
pub trait Backend {
    /// Short name for reports, e.g. `golden`.
    fn name(&self) -> &str;
    /// Run `job`; `progress(done_bytes, total_bytes)` reports command-stream progress.
    fn run(
        &mut self,
        job: &Job,
        progress: &mut dyn FnMut(usize, usize),
    ) -> anyhow::Result<BackendRun>;
}

/// Base address of region `k` of a job in the NPU's address space. Each
/// region and the command stream have 8 GB of their own above 64 GB, so an
/// access past the end of a region never reaches another region, and the
/// high words of BASEP and QBASE matter. The odd regions (Vela's arena) and
/// the stream start 256 bytes below a 4 GB boundary, so their addresses
/// carry from bit 31 into bit 32 and set the low word's high bits; the even
/// ones sit on the boundary. 256-byte alignment keeps every burst's 4 KB
/// split where it was.
pub fn region_base(k: usize) -> u64 {
    let window = (0x10 + 2 * k as u64) << 32;
    if k % 2 == 1 {
        window + BELOW_4GB
    } else {
        window
    }
}

/// How far below a 4 GB boundary the odd regions and the stream start.
const BELOW_4GB: u64 = (1 << 32) - 256;

/// Address of a job's command stream.
pub const COMMAND_STREAM_BASE: u64 = (0x20 << 32) + BELOW_4GB;

impl Job {
    /// The invocation that runs the job with its regions at
    /// [`region_base`] and its stream at [`COMMAND_STREAM_BASE`], the
    /// driver programming `axi`.
    pub fn inference(&self, axi: AxiSettings) -> anyhow::Result<Inference> {
        let size = u32::try_from(self.command_stream.len())
            .context("the command stream is larger than QSIZE can describe")?;
        let regions = self.regions.keys().max().map_or(0, |&k| k + 1);
        Ok(Inference {
            axi,
            ..Inference::new(
                COMMAND_STREAM_BASE,
                size,
                (0..regions).map(region_base).collect(),
            )
        })
    }
}

/// The golden model as a backend: a [`GoldenDevice`] with the job's
/// regions and stream in its memory, run by the driver as the RTL is.
#[derive(Debug, Default)]
pub struct GoldenBackend {
    /// What the driver programs (REGIONCFG sets the interface a bus error
    /// reports).
    pub settings: AxiSettings,
    /// The model after the last run, for inspection.
    pub last: Option<Npu>,
}

impl Backend for GoldenBackend {
    fn name(&self) -> &str {
        "golden"
    }

    fn run(
        &mut self,
        job: &Job,
        progress: &mut dyn FnMut(usize, usize),
    ) -> anyhow::Result<BackendRun> {
        self.last = None;
        let mut device = GoldenDevice::new(job.config.clone());
        for (&k, bytes) in job.regions.iter().filter(|(_, b)| !b.is_empty()) {
            device
                .memory_mut()
                .map_bytes(region_base(k), bytes.clone())?;
        }
        if !job.command_stream.is_empty() {
            device
                .memory_mut()
                .map_bytes(COMMAND_STREAM_BASE, job.command_stream.clone())?;
        }
        let inference = job.inference(self.settings.clone())?;
        let result =
            device.run_with_progress(progress, |device| driver::invoke(device, &inference));
        let state = match result {
            Ok(r) => r.state,
            Err(DriverError::Fault { state, .. }) => state,
            Err(e) => {
                self.last = Some(device.into_npu());
                return Err(anyhow::anyhow!("golden model stopped: {e}"));
            }
        };
        let stats = device.stats();
        let run = BackendRun {
            regions: job
                .regions
                .iter()
                .map(|(&k, bytes)| (k, device.memory().read_vec(region_base(k), bytes.len())))
                .collect(),
            shram: device.npu().state.shram.clone(),
            shram_scratch: stats.shram_scratch.clone(),
            status: state.status,
            qread: state.qread,
            irq: state.irq,
            stop_reached: stats.stopped,
            fault: device.last_error().map(|e| e.to_string()),
            ops: stats.ops.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            cycles: None,
            pmu: BTreeMap::new(),
            counters: BTreeMap::new(),
            macs: stats.macs,
            layers: stats.layers.clone(),
            measured: None,
        };
        self.last = Some(device.into_npu());
        Ok(run)
    }
}

/// Each kernel operation of `job` as the golden model runs it: its command's
/// offset and its block footprints (TRM 4.9). A stream the model stops on
/// (a refused operation, a bus error, a bad weight stream) gives the
/// operations up to the stop.
pub fn block_footprints(job: &Job) -> anyhow::Result<Vec<(usize, BlockFootprints)>> {
    let mut npu = Npu::new(job.config.clone());
    npu.record_footprints();
    for (&k, bytes) in &job.regions {
        npu.state.memory.set_region(k, bytes.clone())?;
    }
    // The operations up to a stop are all the RTL runs either.
    let _stopped = npu.run(&job.command_stream);
    Ok(npu.state.stats.footprints)
}

/// One output that differs from its expected bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub name: String,
    /// First differing byte offset within the output.
    pub first_offset: usize,
    pub expected: u8,
    pub actual: u8,
    /// Number of differing bytes.
    pub differing: usize,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "output {}: {} bytes differ, first at offset {:#x} (expected {:#04x}, got {:#04x})",
            self.name, self.differing, self.first_offset, self.expected, self.actual
        )
    }
}

/// The result of [`run_job`].
#[derive(Debug, Clone)]
pub struct JobReport {
    pub backend: String,
    pub run: BackendRun,
    /// Files written to `out/`.
    pub written: Vec<PathBuf>,
    /// Outputs compared with expected bytes.
    pub compared: usize,
    pub mismatches: Vec<Mismatch>,
}

impl JobReport {
    /// Stopped cleanly and every compared output matched.
    pub fn passed(&self) -> bool {
        self.run.completed() && self.mismatches.is_empty()
    }

    /// A short multi-line summary.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let ops: Vec<String> = self
            .run
            .ops
            .iter()
            .map(|(k, v)| format!("{k} x{v}"))
            .collect();
        s += &format!("backend {}", self.backend);
        if !ops.is_empty() {
            s += &format!(
                ": {} operations ({})",
                self.run.ops.values().sum::<usize>(),
                ops.join(", ")
            );
        }
        s += "\n";
        s += &format!(
            "STATUS {}, QREAD {:#x}, IRQ {}: {}\n",
            describe_status(self.run.status),
            self.run.qread,
            u8::from(self.run.irq),
            if self.run.completed() {
                "stopped at NPU_OP_STOP"
            } else {
                "did NOT complete cleanly (no NPU_OP_STOP or error bits set)"
            }
        );
        if let Some(f) = &self.run.fault {
            s += &format!("fault: {f}\n");
        }
        if let Some(c) = self.run.cycles {
            s += &format!("cycles {c}\n");
        }
        if self.run.macs > 0 {
            s += &format!("MACs {}\n", self.run.macs);
        }
        for (k, v) in &self.run.pmu {
            s += &format!("PMU {k} {v}\n");
        }
        for (k, v) in &self.run.counters {
            s += &format!("{k} {v}\n");
        }
        for m in &self.mismatches {
            s += &format!("MISMATCH {m}\n");
        }
        s += &format!(
            "{} outputs written, {} compared, {} mismatched: {}\n",
            self.written.len(),
            self.compared,
            self.mismatches.len(),
            if self.passed() { "PASS" } else { "FAIL" }
        );
        s
    }
}

/// Compare `actual` with `expected`.
pub fn compare(name: &str, expected: &[u8], actual: &[u8]) -> Option<Mismatch> {
    let differing = expected.iter().zip(actual).filter(|(a, b)| a != b).count()
        + expected.len().abs_diff(actual.len());
    if differing == 0 {
        return None;
    }
    let first = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    Some(Mismatch {
        name: name.to_string(),
        first_offset: first,
        expected: expected.get(first).copied().unwrap_or(0),
        actual: actual.get(first).copied().unwrap_or(0),
        differing,
    })
}

/// Run a loaded job on a backend, write `out/<name>.bin` and compare.
pub fn run_job(
    job: &Job,
    backend: &mut dyn Backend,
    progress: &mut dyn FnMut(usize, usize),
) -> anyhow::Result<JobReport> {
    job.check()?;
    let run = backend.run(job, progress)?;
    let out_dir = job.dir.join("out");
    std::fs::create_dir_all(&out_dir).map_err(|e| anyhow::anyhow!("{}: {e}", out_dir.display()))?;
    let mut written = Vec::new();
    let mut mismatches = Vec::new();
    let mut compared = 0;
    for o in &job.spec.outputs {
        let region = run
            .regions
            .get(&o.region)
            .ok_or_else(|| anyhow::anyhow!("backend returned no region {}", o.region))?;
        let bytes = region.get(o.offset..o.offset + o.size).ok_or_else(|| {
            anyhow::anyhow!(
                "backend region {} is too short for output {}",
                o.region,
                o.name
            )
        })?;
        let path = out_dir.join(format!("{}.bin", o.name));
        std::fs::write(&path, bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        written.push(path);
        if let Some(exp) = job.expected.get(&o.name) {
            compared += 1;
            mismatches.extend(compare(&o.name, exp, bytes));
        }
    }
    Ok(JobReport {
        backend: backend.name().to_string(),
        run,
        written,
        compared,
        mismatches,
    })
}
