//! `npu-sim`: run jobs and Vela-compiled TFLite networks on the golden model
//! or the RTL, and disassemble or assemble command streams.

mod check;
#[cfg(feature = "rtl")]
mod rtl;

use anyhow::{bail, ensure, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use npu_arch::config::NpuConfig;
use npu_model::cmdstream;
use npu_model::job::{compare, run_job, Backend, BackendRun, GoldenBackend, Job};
use npu_model::payload::{is_driver_payload, DriverAction, DriverPayload};
use npu_model::tflite::{self, VelaModel};
use npu_model::{report, tflite::describe_config};
use npu_sim::regress::{self, Summary, TestReports};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "npu-sim",
    version,
    about = "Run Ethos-U65 command streams on the golden model or the RTL",
    long_about = "Run Ethos-U65 command streams on the golden model or the RTL.\n\n\
        A job is a folder with job.json, the command stream and one memory image per \
        base-pointer region (see JOBS.md). `run` writes JOB_DIR/out/<name>.bin for every \
        output, compares with the expected bytes and exits non-zero on any mismatch or error."
)]
#[cfg_attr(
    not(feature = "rtl"),
    command(
        after_help = "This npu-sim was built without the RTL (cargo's `rtl` feature, on by \
        default): it runs the golden model only, and has no compare, fuzz or sweep."
    )
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Model {
    /// The golden functional model (plain Rust, untimed).
    Golden,
    /// The Verilator-built RTL.
    #[cfg(feature = "rtl")]
    Rtl,
}

#[derive(Subcommand)]
enum Command {
    /// Run a job folder.
    Run {
        /// Folder holding job.json.
        job_dir: PathBuf,
        #[command(flatten)]
        backend: BackendArgs,
        /// Configuration (u65-256 or u65-512); default: the job's own.
        #[arg(long)]
        config: Option<String>,
        /// Write the per-layer report: JSON if FILE ends in .json, CSV otherwise.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Run a Vela-compiled TFLite network (one `ethos-u` operator), laid out as
    /// the Ethos-U driver does: base pointer 0 = read-only tensor, 1 = arena
    /// holding inputs and outputs, 2 = fast scratch.
    Tflite(TfliteArgs),
    /// Run a job folder or a Vela-compiled network on the golden model and the
    /// RTL side by side; when they differ, report the first kernel operation
    /// whose output differs: its command-stream offset, kind and first
    /// differing OFM element with both values.
    #[cfg(feature = "rtl")]
    Compare(rtl::CompareArgs),
    /// Print a command stream (raw little-endian words, a COP1 driver payload, or a
    /// Vela-compiled `.tflite` network's payload) as a listing; words that are no
    /// command print as `.word` lines.
    Disasm {
        /// Stream file.
        file: PathBuf,
    },
    /// Check a command stream before it runs: the byte ranges each kernel
    /// operation and DMA may read and write in each region, their union, and
    /// a verdict against the regions' sizes; refuse (exit non-zero) a stream
    /// that reaches outside them, uses registers it never set, or that the
    /// NPU would refuse, naming the command and the first byte outside.
    Check(check::CheckArgs),
    /// Run random command streams on the golden model and the RTL and compare
    /// them; shrink and print every disagreement.
    #[cfg(feature = "rtl")]
    Fuzz(rtl::FuzzArgs),
    /// Functional coverage of the programmers' model on the golden model:
    /// every class of every setting, per configuration, over the bundled
    /// jobs and networks, the random job generators and fuzz cases; the
    /// table, the holes, the seed.
    #[cfg(feature = "rtl")]
    Coverage(rtl::CoverageArgs),
    /// Run networks on the RTL behind memory systems: every Vela output
    /// (`model_vela*.tflite`, one per configuration) of every network folder
    /// behind every memory asked, each compared with the folder's expected
    /// outputs; a table row per run.
    #[cfg(feature = "rtl")]
    Sweep(rtl::SweepArgs),
    /// Fold the JSON summaries of a fuzz or sweep run's shards into one
    /// report: totals and every failure; exit non-zero on any failure or when
    /// a shard is missing, given twice or of another run.
    Merge {
        /// The shards' `--summary` files.
        #[arg(required = true)]
        summaries: Vec<PathBuf>,
        /// Take only shards of this regression run (their `--run-id`).
        #[arg(long, value_name = "ID")]
        run_id: Option<String>,
        /// Write the merged summary as JSON.
        #[arg(long, value_name = "FILE")]
        summary: Option<PathBuf>,
        /// Write the merged results as JUnit XML.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
    },
    /// Check test-runner JUnit reports (cargo-nextest's): print the tests
    /// that failed or errored; exit non-zero on any of them or on a report
    /// that is missing or unreadable.
    Junit {
        /// The reports.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
    },
    /// Assemble a listing (as printed by `disasm` or the TRM examples, `.word` lines
    /// included) into a raw stream.
    Asm {
        /// Listing file.
        file: PathBuf,
        /// Output file; default: FILE with extension .bin.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

/// Which backend runs, and its RTL options.
#[derive(Args)]
struct BackendArgs {
    /// Which implementation runs.
    #[arg(long, value_enum, default_value = "golden")]
    model: Model,
    #[cfg(feature = "rtl")]
    #[command(flatten)]
    rtl: rtl::RtlArgs,
}

/// `npu-sim tflite`.
#[derive(Args)]
struct TfliteArgs {
    /// The Vela-compiled model (MODEL_vela.tflite).
    #[arg(value_name = "MODEL_vela.tflite")]
    network: PathBuf,
    /// Raw bytes of a network input; repeat in the network's input order.
    #[arg(long = "input", value_name = "FILE", required = true)]
    inputs: Vec<PathBuf>,
    /// Where to write a network output; repeat in the network's output order.
    #[arg(long = "output", value_name = "FILE", required = true)]
    outputs: Vec<PathBuf>,
    /// Expected bytes of an output, in output order: exit non-zero on a mismatch.
    #[arg(long = "expected", value_name = "FILE")]
    expected: Vec<PathBuf>,
    #[command(flatten)]
    backend: BackendArgs,
    /// Configuration (u65-256 or u65-512); default: the one Vela compiled for.
    #[arg(long)]
    config: Option<String>,
    /// Write the per-layer report: JSON if FILE ends in .json, CSV otherwise.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Vela's per-layer CSV (`vela --verbose-performance` writes
    /// MODEL_per-layer.csv): print its Op Cycles beside each kernel
    /// operation's, matched in stream order.
    #[arg(long, value_name = "FILE")]
    vela_csv: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// The backend `args` names; with it, the hint a failed run prints (how to
/// get a waveform of an RTL run that had none).
fn make_backend(args: &BackendArgs) -> Result<(Box<dyn Backend>, &'static str)> {
    Ok(match args.model {
        Model::Golden => {
            #[cfg(feature = "rtl")]
            args.rtl.refuse_on_golden()?;
            (Box::new(GoldenBackend::default()), "")
        }
        #[cfg(feature = "rtl")]
        Model::Rtl => {
            let (backend, hint) = args.rtl.backend()?;
            (Box::new(backend), hint)
        }
    })
}

/// A progress bar over `total` command-stream bytes (hidden when `quiet`).
fn progress_bar(quiet: bool, total: usize) -> Result<ProgressBar> {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total as u64)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {bytes}/{total_bytes} of stream",
        )
        .context("progress template")?
        .progress_chars("=> "),
    );
    Ok(bar)
}

/// ` (QUANTIZE, GATHER, ...)`: the operators the host runs, if any.
fn host_operators(vela: &VelaModel) -> String {
    let names: Vec<&str> = vela.cpu_operators().map(|op| op.name.as_str()).collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(" ({})", names.join(", "))
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {}", path.display()))
}

/// `npu-sim tflite`: true when the run completed and every expected output matched.
fn run_tflite(args: &TfliteArgs, backend: &mut dyn Backend, waveform_hint: &str) -> Result<bool> {
    let TfliteArgs {
        network,
        inputs,
        outputs,
        expected,
        config,
        report: report_file,
        vela_csv,
        quiet,
        ..
    } = args;
    let vela_layers = match vela_csv {
        Some(path) => Some(
            report::read_vela_layers(&String::from_utf8_lossy(&read_file(path)?))
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
        ),
        None => None,
    };
    let vela = VelaModel::load(network)?;
    let config = match config.as_deref() {
        Some(name) => NpuConfig::by_name(name).map_err(|_| {
            anyhow::anyhow!("{name}: unknown configuration (known: u65-256, u65-512)")
        })?,
        // A model without ethos-u operators runs wholly on the host.
        None if vela.config_word().is_none() => NpuConfig::u65_256(),
        None => vela.config()?,
    };
    let names: Vec<&str> = vela.outputs.iter().map(|t| t.name.as_str()).collect();
    ensure!(
        outputs.len() == names.len(),
        "the network has {} outputs ({}) but {} --output files were given",
        names.len(),
        names.join(", "),
        outputs.len()
    );
    ensure!(
        expected.is_empty() || expected.len() == names.len(),
        "the network has {} outputs ({}) but {} --expected files were given",
        names.len(),
        names.join(", "),
        expected.len()
    );
    let input_bytes = inputs
        .iter()
        .map(|p| read_file(p))
        .collect::<Result<Vec<_>>>()?;
    let streams: Vec<usize> = vela
        .npu_operators()
        .map(|op| op.payload.command_stream().len() * 4)
        .collect();
    println!(
        "{}: {}, {} ethos-u operators ({} bytes of command stream), {} on the host{}, running on {}",
        network.display(),
        vela.config_word()
            .map_or_else(
                || "no ethos-u operator: every operator runs on the host".into(),
                |w| format!("compiled for {}", describe_config(w))
            ),
        streams.len(),
        streams.iter().sum::<usize>(),
        vela.cpu_operators().count(),
        host_operators(&vela),
        config.name
    );
    let bar = progress_bar(*quiet, streams.iter().sum())?;
    let result = vela.run(config.clone(), &input_bytes, backend, &mut |done, _| {
        bar.set_position(done as u64)
    });
    bar.finish_and_clear();
    let net = result.with_context(|| {
        format!(
            "running {} on the {} backend{waveform_hint}",
            network.display(),
            backend.name()
        )
    })?;
    print_report(&net.run, &config, report_file.as_deref())?;
    if let Some(layers) = &vela_layers {
        print!("{}", report::beside_vela(&net.run.report(&config), layers));
    }
    if let Some(c) = net.run.cycles {
        println!("cycles {c}");
    }
    let mut passed = true;
    for (i, (bytes, tensor)) in net.outputs.iter().zip(&vela.outputs).enumerate() {
        std::fs::write(&outputs[i], bytes)
            .with_context(|| format!("writing {}", outputs[i].display()))?;
        println!(
            "output {} ({} {:?}, {} bytes) -> {}",
            tensor.name,
            tensor.dtype,
            tensor.shape,
            bytes.len(),
            outputs[i].display()
        );
        if let Some(path) = expected.get(i) {
            match compare(&tensor.name, &read_file(path)?, bytes) {
                Some(m) => {
                    println!("MISMATCH {m}");
                    passed = false;
                }
                None => println!("output {} matches {}", tensor.name, path.display()),
            }
        }
    }
    Ok(passed)
}

/// Prints the per-layer table of `run` on `config` and writes it to
/// `file`, if given.
fn print_report(run: &BackendRun, config: &NpuConfig, file: Option<&Path>) -> Result<()> {
    let report = run.report(config);
    print!("{}", report::table(&report));
    if let Some(path) = file {
        report::write(path, &report)
            .with_context(|| format!("writing the report {}", path.display()))?;
        println!("report written to {}", path.display());
    }
    Ok(())
}

fn run(cli: Cli) -> Result<bool> {
    match cli.command {
        Command::Run {
            job_dir,
            backend: backend_args,
            config,
            report: report_file,
            quiet,
        } => {
            let (mut backend, waveform_hint) = make_backend(&backend_args)?;
            let job = Job::load(&job_dir, config.as_deref())
                .with_context(|| format!("loading job {}", job_dir.display()))?;
            if let Some(d) = &job.spec.description {
                println!("{}: {d}", job_dir.display());
            }
            let bar = progress_bar(quiet, job.command_stream.len())?;
            let report = run_job(&job, backend.as_mut(), &mut |done, _| {
                bar.set_position(done as u64)
            });
            bar.finish_and_clear();
            let report = report.with_context(|| {
                format!(
                    "running {} on the {} backend{waveform_hint}",
                    job_dir.display(),
                    backend.name()
                )
            })?;
            print_report(&report.run, &job.config, report_file.as_deref())?;
            print!("{}", report.summary());
            Ok(report.passed())
        }
        Command::Tflite(args) => {
            let (mut backend, waveform_hint) = make_backend(&args.backend)?;
            run_tflite(&args, backend.as_mut(), waveform_hint)
        }
        #[cfg(feature = "rtl")]
        Command::Compare(args) => rtl::run_compare(&args),
        #[cfg(feature = "rtl")]
        Command::Fuzz(args) => rtl::run_fuzz(args),
        #[cfg(feature = "rtl")]
        Command::Coverage(args) => rtl::run_coverage(args),
        #[cfg(feature = "rtl")]
        Command::Sweep(args) => rtl::run_sweep(args),
        Command::Check(args) => check::run(&args),
        Command::Disasm { file } => {
            let bytes =
                std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            if bytes.is_empty() {
                bail!(
                    "{} is empty: a command stream has at least one command",
                    file.display()
                );
            }
            if tflite::is_tflite(&bytes) {
                let model = VelaModel::parse(&bytes)
                    .with_context(|| format!("reading the network {}", file.display()))?;
                for step in &model.steps {
                    match step {
                        tflite::Step::Npu(op) => {
                            println!(
                                "# {}: operator {}, an ethos-u operator's driver payload",
                                file.display(),
                                op.index
                            );
                            print_payload(&op.payload);
                        }
                        tflite::Step::Cpu(op) => println!(
                            "# {}: operator {}, {} (left on the CPU: the host runs it)",
                            file.display(),
                            op.index,
                            op.name
                        ),
                    }
                }
            } else if is_driver_payload(&bytes) {
                let p = DriverPayload::parse(&bytes).context("parsing COP1 driver payload")?;
                print_payload(&p);
            } else {
                let words = cmdstream::bytes_to_words(&bytes)
                    .with_context(|| format!("decoding {}", file.display()))?;
                print!("{}", cmdstream::disassemble_words(&words));
            }
            Ok(true)
        }
        Command::Merge {
            summaries,
            run_id,
            summary,
            junit,
        } => {
            let shards = summaries
                .iter()
                .map(|p| Summary::read(p))
                .collect::<Result<Vec<_>>>()?;
            let merged = regress::merge(shards, run_id.as_deref())?;
            for failure in merged.failures() {
                println!("FAILED {}: {}", failure.name, failure.detail);
            }
            println!("merged {} shards: {}", summaries.len(), merged.totals());
            merged.write(summary.as_deref(), junit.as_deref())?;
            Ok(merged.passed())
        }
        Command::Junit { reports } => {
            let found = TestReports::read(&reports);
            for problem in found.unreadable.iter().chain(&found.failed) {
                println!("FAILED {problem}");
            }
            println!(
                "junit: {} reports, {} tests, {} failed or errored, {} unreadable",
                reports.len(),
                found.tests,
                found.failed.len(),
                found.unreadable.len()
            );
            Ok(found.passed())
        }
        Command::Asm { file, output } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let words = cmdstream::assemble_words(&text)
                .with_context(|| format!("assembling {}", file.display()))?;
            let out = output.unwrap_or_else(|| file.with_extension("bin"));
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&out, bytes).with_context(|| format!("writing {}", out.display()))?;
            println!("{} words -> {}", words.len(), out.display());
            Ok(true)
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Lists a driver payload's actions, each command stream disassembled.
fn print_payload(payload: &DriverPayload) {
    for a in &payload.actions {
        match a {
            DriverAction::OptimizerConfig { data, config, id } => println!(
                "# COP1 OPTIMIZER_CONFIG data {data:#06x} config {config:#010x} id {id:#010x}"
            ),
            DriverAction::CommandStream(w) => {
                println!("# COP1 COMMAND_STREAM {} words", w.len());
                print!("{}", cmdstream::disassemble_words(w));
            }
            DriverAction::ReadApbReg { data } => println!("# COP1 READ_APB_REG {data:#06x}"),
            DriverAction::DumpShram => println!("# COP1 DUMP_SHRAM"),
            DriverAction::Nop => println!("# COP1 NOP"),
        }
    }
}
