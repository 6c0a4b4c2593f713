//! The commands and options that need the RTL (the `rtl` feature): the RTL
//! backend's options, `compare`, `fuzz`, `sweep` and `coverage`.

use crate::read_file;
use anyhow::{bail, ensure, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use npu_arch::config::NpuConfig;
use npu_model::compare::first_divergence;
use npu_model::job::{GoldenBackend, Job};
use npu_model::tflite::VelaModel;
use npu_sim::networks::networks_in;
use npu_sim::regress::Shard;
use npu_sim::sweep;
use npu_sim::{coverage, fuzz};
use npu_tb::axi::{describe_ports, CompleterConfig, SystemConfig};
use npu_tb::conv_jobs::MemorySystem;
use npu_tb::driver::DEFAULT_MAX_CYCLES;
use npu_tb::npu::Waveform;
use npu_tb::rtl_backend::RtlBackend;
use npu_tb::verilator::TraceWindow;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::path::PathBuf;

/// The RTL backend's options (`npu-sim run` and `tflite`).
#[derive(Args)]
pub struct RtlArgs {
    /// Write a waveform of the run (RTL only; default: the file NPU_VCD or
    /// NPU_FST names): a VCD, or an FST when the name ends .fst.
    /// A network's later ethos-u operators write NAME.1.vcd, NAME.2.vcd, ...
    #[arg(long, group = "waveform")]
    vcd: Option<PathBuf>,
    /// Write an FST waveform of the run (RTL only), GTKWave's compressed
    /// format, whatever the name ends with but .vcd.
    #[arg(long, group = "waveform")]
    fst: Option<PathBuf>,
    /// Dump only CLK cycles START:END into the waveform (a VCD of every cycle is large).
    #[arg(long, visible_alias = "fst-window", value_name = "START:END", requires = "waveform", value_parser = parse_window)]
    vcd_window: Option<TraceWindow>,
    /// Write the run's timeline as a Chrome trace (RTL only; Perfetto's UI or
    /// chrome://tracing opens it): a track per kernel operation, DMA and DMA
    /// channel, each AXI port's bytes per 1,000 cycles; timestamps are cycles.
    /// A network's later ethos-u operators write F.1.json, F.2.json, ...
    #[arg(long, value_name = "F.json")]
    timeline: Option<PathBuf>,
    /// CLK cycles to wait for the NPU to stop (RTL only).
    #[arg(long, default_value_t = DEFAULT_MAX_CYCLES)]
    max_cycles: u64,
    /// The memory behind the AXI ports (RTL only): one of Vela's system
    /// configurations (`vela.ini`: Ethos_U65_Client_Server, its default for
    /// the U65, Ethos_U65_High_End, Ethos_U65_Mid_End, Ethos_U65_Embedded,
    /// Ethos_U55_High_End_Embedded, Ethos_U55_Deep_Embedded), each port
    /// with its memory's latency and bandwidth as Vela's estimate models
    /// them; default a zero-latency memory. The --mem-* flags override one
    /// value of it.
    #[arg(long, value_name = "NAME", value_parser = parse_system)]
    memory: Option<&'static SystemConfig>,
    /// With --memory: the memories' outstanding limits too (`max_reads`,
    /// `max_writes`), as Arm's timing adapters add them.
    #[arg(long, requires = "memory")]
    memory_limits: bool,
    /// Cycles from an accepted AR to its first data beat, and from a
    /// burst's last write beat to its response (RTL only; default 0, or
    /// the --memory's). `CYCLES` sets both ports, `m0=CYCLES` or
    /// `m1=CYCLES` one; repeat the flag to give each port its own.
    #[arg(long, value_name = "[PORT=]CYCLES", value_parser = parse_latency)]
    mem_latency: Vec<PortSetting<u64>>,
    /// Transactions of each direction a port's memory holds at once (RTL
    /// only; default unlimited); `N`, `m0=N` or `m1=N` as for --mem-latency.
    #[arg(long, value_name = "[PORT=]N", value_parser = parse_outstanding)]
    mem_outstanding: Vec<PortSetting<usize>>,
    /// Data bytes per cycle a port moves, reads and writes together (RTL
    /// only; default 16, a beat every cycle); `BYTES`, `m0=BYTES` or
    /// `m1=BYTES` as for --mem-latency.
    #[arg(long, value_name = "[PORT=]BYTES", value_parser = parse_bandwidth)]
    mem_bandwidth: Vec<PortSetting<f64>>,
}

impl RtlArgs {
    /// Refuses the RTL options on the golden model, which has no timing.
    pub fn refuse_on_golden(&self) -> Result<()> {
        if self.vcd.is_some() || self.fst.is_some() {
            bail!("--vcd and --fst need --model rtl: the golden model has no waveforms");
        }
        if self.timeline.is_some() {
            bail!("--timeline needs --model rtl: the golden model has no timing");
        }
        if !self.mem_latency.is_empty()
            || !self.mem_outstanding.is_empty()
            || !self.mem_bandwidth.is_empty()
            || self.memory.is_some()
        {
            bail!("--memory and --mem-* need --model rtl: the golden model has no timing");
        }
        Ok(())
    }

    /// The RTL backend these options ask for; with it, the hint a failed
    /// run prints (how to get a waveform of an RTL run that had none).
    pub fn backend(&self) -> Result<(RtlBackend, &'static str)> {
        let window = self.vcd_window.unwrap_or(TraceWindow::ALL);
        let waveform = match (&self.vcd, &self.fst) {
            (Some(path), _) => Some(Waveform::new(path.clone(), window)),
            (None, Some(path)) => Some(Waveform::fst(path.clone(), window)?),
            (None, None) => Waveform::from_env()?,
        };
        let hint = if waveform.is_none() {
            " (add --vcd FILE or --fst FILE for a waveform)"
        } else {
            ""
        };
        let latency = per_port(&self.mem_latency);
        let outstanding = per_port(&self.mem_outstanding);
        let bandwidth = per_port(&self.mem_bandwidth);
        let memory = |port: usize| {
            let preset = self.memory.map_or_else(CompleterConfig::ideal, |system| {
                system.completer(port, self.memory_limits)
            });
            CompleterConfig {
                read_latency: latency[port].unwrap_or(preset.read_latency),
                write_latency: latency[port].unwrap_or(preset.write_latency),
                max_reads: outstanding[port].or(preset.max_reads),
                max_writes: outstanding[port].or(preset.max_writes),
                bytes_per_cycle: bandwidth[port].or(preset.bytes_per_cycle),
                ..preset
            }
        };
        let axi_configs = [memory(0), memory(1)];
        if let Some(system) = self.memory {
            println!("memory: {}", system.describe());
        }
        if !(latency == [None; 2] && outstanding == [None; 2] && bandwidth == [None; 2]) {
            println!("memory as run: {}", describe_ports(&axi_configs));
        }
        let backend = RtlBackend {
            waveform,
            max_cycles: self.max_cycles,
            settings: self
                .memory
                .map_or_else(Default::default, SystemConfig::axi_settings),
            axi_configs,
            layers: true,
            timeline: self.timeline.clone(),
            ..RtlBackend::default()
        };
        Ok((backend, hint))
    }
}

/// A memory setting for one AXI port (`m0=VALUE`, `m1=VALUE`) or both (`VALUE`).
#[derive(Clone, Copy, Debug)]
struct PortSetting<T> {
    /// The port (0 or 1); `None` for both.
    port: Option<usize>,
    value: T,
}

impl<T> PortSetting<T> {
    fn parse(text: &str, value: impl Fn(&str) -> Result<T, String>) -> Result<Self, String> {
        let (port, text) = match text.split_once('=') {
            None => (None, text),
            Some((name, rest)) => match name.trim().to_ascii_lowercase().as_str() {
                "m0" => (Some(0), rest),
                "m1" => (Some(1), rest),
                _ => {
                    return Err(format!(
                        "{name:?} is no AXI port: give m0=VALUE, m1=VALUE or VALUE for both"
                    ))
                }
            },
        };
        Ok(Self {
            port,
            value: value(text.trim())?,
        })
    }
}

/// The value each port gets from `settings`, a later setting overriding an
/// earlier one.
fn per_port<T: Copy>(settings: &[PortSetting<T>]) -> [Option<T>; 2] {
    let mut ports = [None; 2];
    for setting in settings {
        for (port, value) in ports.iter_mut().enumerate() {
            if setting.port.is_none_or(|p| p == port) {
                *value = Some(setting.value);
            }
        }
    }
    ports
}

fn parse_latency(text: &str) -> Result<PortSetting<u64>, String> {
    PortSetting::parse(text, |v| {
        v.parse()
            .map_err(|_| format!("{v:?} is not a number of cycles"))
    })
}

fn parse_outstanding(text: &str) -> Result<PortSetting<usize>, String> {
    PortSetting::parse(text, |v| match v.parse() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "{v:?}: a memory holds a whole number of transactions, at least 1"
        )),
    })
}

fn parse_bandwidth(text: &str) -> Result<PortSetting<f64>, String> {
    PortSetting::parse(text, |v| {
        let b: f64 = v
            .parse()
            .map_err(|_| format!("{v:?} is not a number of bytes per cycle"))?;
        if b > 0.0 && b <= 16.0 {
            Ok(b)
        } else {
            Err(format!(
                "{b} bytes per cycle: a 128-bit port moves more than 0 and at most 16"
            ))
        }
    })
}

/// `npu-sim compare`.
#[derive(Args)]
pub struct CompareArgs {
    /// A job folder, or a Vela-compiled network (MODEL_vela.tflite).
    target: PathBuf,
    /// Raw bytes of a network input; repeat in the network's input order.
    #[arg(long = "input", value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// Configuration (u65-256 or u65-512); default: the job's or network's own.
    #[arg(long)]
    config: Option<String>,
    /// CLK cycles to wait for the NPU to stop in each RTL run.
    #[arg(long, default_value_t = DEFAULT_MAX_CYCLES)]
    max_cycles: u64,
    /// Run the RTL behind the random memory system drawn from SEED (as the
    /// random suites draw them: AXI settings, latency 0-1000 cycles,
    /// back-pressure, reordered responses, outstanding and bandwidth
    /// limits, ACLKEN patterns); default a zero-latency memory.
    #[arg(long, value_name = "SEED", conflicts_with = "memory")]
    random_memory: Option<u64>,
    /// Run the RTL behind one of Vela's memory systems (as for `run
    /// --memory`).
    #[arg(long, value_name = "NAME", value_parser = parse_system)]
    memory: Option<&'static SystemConfig>,
    /// With --memory: the memories' outstanding limits too.
    #[arg(long, requires = "memory")]
    memory_limits: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

fn parse_system(text: &str) -> Result<&'static SystemConfig, String> {
    SystemConfig::by_name(text)
}

fn parse_window(text: &str) -> Result<TraceWindow, String> {
    TraceWindow::parse(text)
}

/// How a regression (fuzz, sweep) is split and where its results go.
#[derive(Args, Debug)]
struct RegressOutputs {
    /// Run shard K of N (1-based): the cases numbered K-1 modulo N.
    #[arg(long, value_name = "K/N", default_value = "1/1")]
    shard: Shard,
    /// Write the results as a JSON summary (for npu-sim merge).
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// Write the results as JUnit XML.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// The regression run the results belong to, kept in the summary
    /// (`npu-sim merge --run-id` takes no shard of another run).
    #[arg(long, value_name = "ID")]
    run_id: Option<String>,
}

/// Run random command streams on the golden model and the RTL and compare
/// them; shrink and print every disagreement.
#[derive(Args)]
pub struct FuzzArgs {
    /// Streams to run.
    #[arg(long, default_value_t = 10_000)]
    count: u64,
    /// Seed of the run (default: NPU_SEED, else a fresh one; printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Folder for the job folders of disagreements (npu-sim run re-runs them).
    #[arg(long, default_value = "build/fuzz")]
    save: PathBuf,
    #[command(flatten)]
    outputs: RegressOutputs,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// The golden model's functional coverage of the programmers' model over
/// the bundled jobs and networks, the random job generators and fuzz cases.
#[derive(Args)]
pub struct CoverageArgs {
    /// Fuzz cases to run (on the golden model only).
    #[arg(long, default_value_t = 20_000)]
    fuzz: u64,
    /// Jobs of each random job generator.
    #[arg(long, default_value_t = 150)]
    jobs: u64,
    /// Seed of the generators and the fuzzer (default: NPU_SEED, else a
    /// fresh one; printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Write every bin with its hits as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// Run networks on the RTL behind memory systems: every Vela output
/// (`model_vela*.tflite`, one per configuration) of every network folder
/// behind every memory asked, each compared with the folder's expected
/// outputs; a table row per run.
#[derive(Args)]
pub struct SweepArgs {
    /// Folder of network folders (as model/tests/fixtures/networks).
    #[arg(long, default_value = "model/tests/fixtures/networks")]
    networks: PathBuf,
    /// Only these networks (comma-separated folder names).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Vela system configurations to run behind, comma-separated, or `all`.
    #[arg(long, default_value = "all")]
    memories: String,
    #[command(flatten)]
    outputs: RegressOutputs,
}

/// The jobs `npu-sim compare` runs, each with a label: a job folder as it
/// is; a network's `ethos-u` operators, each laid out as `npu-sim tflite`
/// lays it out (the golden model runs the network to give each its inputs;
/// the host runs the operators Vela left on the CPU).
fn compare_jobs(args: &CompareArgs) -> Result<Vec<(String, Job)>> {
    let label = args.target.display().to_string();
    if args.target.is_dir() {
        ensure!(
            args.inputs.is_empty(),
            "--input is for a network; the job folder {} holds its own inputs",
            args.target.display()
        );
        let job = Job::load(&args.target, args.config.as_deref())
            .with_context(|| format!("loading job {}", args.target.display()))?;
        return Ok(vec![(label, job)]);
    }
    let vela = VelaModel::load(&args.target)?;
    let config = match args.config.as_deref() {
        Some(name) => NpuConfig::by_name(name).map_err(|_| {
            anyhow::anyhow!("{name}: unknown configuration (known: u65-256, u65-512)")
        })?,
        None => vela.config()?,
    };
    ensure!(
        !args.inputs.is_empty(),
        "{} is a network: give its inputs with --input FILE (in the network's input order)",
        args.target.display()
    );
    let inputs = args
        .inputs
        .iter()
        .map(|p| read_file(p))
        .collect::<Result<Vec<_>>>()?;
    let run = vela
        .run(
            config,
            &inputs,
            &mut GoldenBackend::default(),
            &mut |_, _| {},
        )
        .context("running the network on the golden model to lay out each ethos-u operator")?;
    let several = run.npu_runs.len() > 1;
    Ok(vela
        .npu_operators()
        .zip(run.npu_runs)
        .map(|(op, npu)| {
            let label = if several {
                format!("{label} operator {}", op.index)
            } else {
                label.clone()
            };
            (label, npu.job)
        })
        .collect())
}

/// `npu-sim compare`: true when the two models agree.
pub fn run_compare(args: &CompareArgs) -> Result<bool> {
    let jobs = compare_jobs(args)?;
    let mut golden = GoldenBackend::default();
    let memory = args
        .random_memory
        .map(|seed| MemorySystem::random(&mut StdRng::seed_from_u64(seed)));
    if let Some(memory) = &memory {
        println!("memory: {}", memory.describe());
    }
    let mut rtl = memory.map_or_else(RtlBackend::default, |m| m.backend());
    rtl.max_cycles = args.max_cycles;
    if let Some(system) = args.memory {
        println!("memory: {}", system.describe());
        rtl.axi_configs = [0, 1].map(|port| system.completer(port, args.memory_limits));
        rtl.settings.regioncfg = system.memory_mode.regioncfg();
    }
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(1)
    };
    for (label, job) in &jobs {
        let found = first_divergence(job, &mut golden, &mut rtl, &mut |run, most| {
            bar.set_length(most as u64);
            bar.set_position(run as u64);
        });
        match found.with_context(|| format!("comparing {label}"))? {
            None => println!(
                "{label}: the golden model and the RTL agree (memory, STATUS, QREAD, IRQ, shared buffer)"
            ),
            Some(divergence) => {
                bar.finish_and_clear();
                println!("{label}: {divergence}");
                return Ok(false);
            }
        }
    }
    bar.finish_and_clear();
    Ok(true)
}

/// `npu-sim fuzz`: true when every stream agreed.
pub fn run_fuzz(args: FuzzArgs) -> Result<bool> {
    let FuzzArgs {
        count,
        seed,
        save,
        outputs,
        quiet,
    } = args;
    let seed = match seed {
        Some(s) => s,
        None => npu_tb::seed::seed(),
    };
    let shard = outputs.shard;
    let cases = (0..count).filter(|&i| shard.includes(i)).count() as u64;
    println!(
        "fuzz: {count} streams, seed {seed}, shard {shard}: {cases} streams \
         (re-run with --seed {seed} --count {count} --shard {shard})"
    );
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(cases)
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} streams {msg}")
            .context("progress template")?
            .progress_chars("=> "),
    );
    let started = std::time::Instant::now();
    let tally = fuzz::run(seed, count, shard, Some(&save), &mut |done, t| {
        bar.set_position(done);
        bar.set_message(format!("{} disagreements", t.findings.len()));
    })?;
    bar.finish_and_clear();
    for f in &tally.findings {
        println!("DISAGREEMENT {f}");
    }
    println!(
        "fuzz: {cases} streams in {:.0} s: {} agreed, {} refused before running \
         (on both models alike), {} disagreements",
        started.elapsed().as_secs_f64(),
        tally.agreed.values().sum::<u64>(),
        tally.refused.values().sum::<u64>(),
        tally.findings.len()
    );
    for (how, n) in &tally.agreed {
        println!("fuzz: {n} agreed, stopped by {how}");
    }
    println!(
        "fuzz: {} kernel operations ran on both models in the streams that agreed",
        tally.kernel_ops
    );
    for (why, n) in &tally.refused {
        println!("fuzz: {n} refused for {why}");
    }
    for (verdict, n) in &tally.checker {
        println!("fuzz: stream checker: {n} of the streams that agreed: {verdict}");
    }
    println!(
        "fuzz: the bounds watcher saw {} bytes of RTL traffic, none outside the checker's ranges",
        tally.watched_bytes
    );
    tally
        .summary(seed, count, shard, outputs.run_id.as_deref())
        .write(outputs.summary.as_deref(), outputs.junit.as_deref())?;
    Ok(tally.findings.is_empty())
}

/// `npu-sim coverage`: true when no bin is a hole.
pub fn run_coverage(args: CoverageArgs) -> Result<bool> {
    let CoverageArgs {
        fuzz,
        jobs,
        seed,
        json,
    } = args;
    let seed = match seed {
        Some(s) => s,
        None => npu_tb::seed::seed(),
    };
    println!("coverage: seed {seed} (re-run with --seed {seed} --jobs {jobs} --fuzz {fuzz})");
    let collection = coverage::run(seed, jobs, fuzz)?;
    for (what, n) in &collection.runs {
        println!("coverage: {n} {what}");
    }
    println!(
        "coverage: {} fuzz cases refused before running, as the fuzzer's judge does",
        collection.fuzz_refused
    );
    let report = collection.all().report();
    print!("{report}");
    let holes = report.holes().count();
    println!(
        "coverage: {} holes without the fuzz cases, {holes} with them",
        collection.bundled.report().holes().count()
    );
    if let Some(path) = json {
        let value = serde_json::json!({
            "seed": seed,
            "jobs": jobs,
            "fuzz": fuzz,
            "runs": collection.runs,
            "bins": report.bins,
        });
        std::fs::write(&path, serde_json::to_string_pretty(&value)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(holes == 0)
}

/// `npu-sim sweep`: true when every run passed.
pub fn run_sweep(args: SweepArgs) -> Result<bool> {
    let SweepArgs {
        networks,
        only,
        memories,
        outputs,
    } = args;
    let mut folders = networks_in(&networks)
        .with_context(|| format!("reading the network folders in {}", networks.display()))?;
    for name in &only {
        ensure!(
            folders.iter().any(|n| &n.name == name),
            "--only {name}: no such network folder in {}",
            networks.display()
        );
    }
    if !only.is_empty() {
        folders.retain(|n| only.contains(&n.name));
    }
    ensure!(
        !folders.is_empty(),
        "no network folders in {}",
        networks.display()
    );
    let memories = sweep::memories(&memories)?;
    let items = sweep::items(&folders, &memories)?;
    let names: Vec<&str> = folders.iter().map(|n| n.name.as_str()).collect();
    let systems: Vec<&str> = memories.iter().map(|m| m.name).collect();
    let description = format!("networks {} behind {}", names.join(","), systems.join(","));
    let shard = outputs.shard;
    println!(
        "sweep: {} runs ({} networks' models x {} memory systems), shard {shard}",
        items.len(),
        names.len(),
        systems.len()
    );
    println!(
        "  {:<24} {:<8} {:<28} {:>10} {:>8}  result",
        "network", "config", "memory", "cycles", "seconds"
    );
    let summary = sweep::run(
        &items,
        description,
        shard,
        outputs.run_id.as_deref(),
        &mut |r| {
            let item = &items[r.case as usize];
            println!(
                "  {:<24} {:<8} {:<28} {:>10} {:>8.1}  {}",
                item.network,
                item.config,
                item.memory.name,
                r.cycles.map_or("-".into(), |c| c.to_string()),
                r.seconds,
                if r.passed {
                    "ok".into()
                } else {
                    format!("FAILED: {}", r.detail)
                }
            );
        },
    );
    println!("sweep: {}", summary.totals());
    summary.write(outputs.summary.as_deref(), outputs.junit.as_deref())?;
    Ok(summary.passed())
}
