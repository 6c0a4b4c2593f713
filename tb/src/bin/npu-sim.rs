//! `npu-sim`: run jobs on the golden model or the RTL, and disassemble or
//! assemble command streams.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use npu_model::cmdstream;
use npu_model::job::{run_job, Backend, GoldenBackend, Job};
use npu_model::payload::{is_driver_payload, DriverAction, DriverPayload};
use npu_tb::driver::DEFAULT_MAX_CYCLES;
use npu_tb::fuzz;
use npu_tb::npu::Waveform;
use npu_tb::rtl_backend::RtlBackend;
use npu_tb::verilator::TraceWindow;
use std::path::PathBuf;
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
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Model {
    /// The golden functional model (plain Rust, untimed).
    Golden,
    /// The Verilator-built RTL.
    Rtl,
}

#[derive(Subcommand)]
enum Command {
    /// Run a job folder.
    Run {
        /// Folder holding job.json.
        job_dir: PathBuf,
        /// Which implementation runs the job.
        #[arg(long, value_enum, default_value = "golden")]
        model: Model,
        /// Configuration (u65-256 or u65-512); default: the job's own.
        #[arg(long)]
        config: Option<String>,
        /// Write a VCD waveform of the run (RTL only; default: the file NPU_VCD names).
        #[arg(long)]
        vcd: Option<PathBuf>,
        /// Dump only CLK cycles START:END into the VCD (a VCD of every cycle is large).
        #[arg(long, value_name = "START:END", requires = "vcd", value_parser = parse_window)]
        vcd_window: Option<TraceWindow>,
        /// CLK cycles to wait for the NPU to stop (RTL only).
        #[arg(long, default_value_t = DEFAULT_MAX_CYCLES)]
        max_cycles: u64,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Print a command stream (raw little-endian words or a COP1 driver payload) as a
    /// listing; words that are no command print as `.word` lines.
    Disasm {
        /// Stream file.
        file: PathBuf,
    },
    /// Run random command streams on the golden model and the RTL and compare
    /// them; shrink and print every disagreement.
    Fuzz {
        /// Streams to run.
        #[arg(long, default_value_t = 10_000)]
        count: u64,
        /// Seed of the run (default: NPU_SEED, else a fresh one; printed).
        #[arg(long)]
        seed: Option<u64>,
        /// Folder for the job folders of disagreements (npu-sim run re-runs them).
        #[arg(long, default_value = "build/fuzz")]
        save: PathBuf,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
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

fn parse_window(text: &str) -> Result<TraceWindow, String> {
    TraceWindow::parse(text)
}

fn run(cli: Cli) -> Result<bool> {
    match cli.command {
        Command::Run {
            job_dir,
            model,
            config,
            vcd,
            vcd_window,
            max_cycles,
            quiet,
        } => {
            // A failed RTL run without a waveform says how to get one.
            let mut waveform_hint = "";
            let mut backend: Box<dyn Backend> = match model {
                Model::Golden => {
                    if vcd.is_some() {
                        bail!("--vcd needs --model rtl: the golden model has no waveforms");
                    }
                    Box::new(GoldenBackend::default())
                }
                Model::Rtl => {
                    let waveform = match vcd {
                        Some(path) => Some(Waveform {
                            path,
                            window: vcd_window.unwrap_or(TraceWindow::ALL),
                        }),
                        None => Waveform::from_env()?,
                    };
                    if waveform.is_none() {
                        waveform_hint = " (add --vcd FILE for a waveform)";
                    }
                    Box::new(RtlBackend {
                        waveform,
                        max_cycles,
                        ..RtlBackend::default()
                    })
                }
            };
            let job = Job::load(&job_dir, config.as_deref())
                .with_context(|| format!("loading job {}", job_dir.display()))?;
            if let Some(d) = &job.spec.description {
                println!("{}: {d}", job_dir.display());
            }
            let bar = if quiet {
                ProgressBar::hidden()
            } else {
                ProgressBar::new(job.command_stream.len() as u64)
            };
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {bytes}/{total_bytes} of stream",
                )
                .context("progress template")?
                .progress_chars("=> "),
            );
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
            print!("{}", report.summary());
            Ok(report.passed())
        }
        Command::Disasm { file } => {
            let bytes =
                std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            if bytes.is_empty() {
                bail!(
                    "{} is empty: a command stream has at least one command",
                    file.display()
                );
            }
            if is_driver_payload(&bytes) {
                let p = DriverPayload::parse(&bytes).context("parsing COP1 driver payload")?;
                for a in &p.actions {
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
            } else {
                let words = cmdstream::bytes_to_words(&bytes)
                    .with_context(|| format!("decoding {}", file.display()))?;
                print!("{}", cmdstream::disassemble_words(&words));
            }
            Ok(true)
        }
        Command::Fuzz {
            count,
            seed,
            save,
            quiet,
        } => {
            let seed = match seed {
                Some(s) => s,
                None => npu_tb::seed::seed(),
            };
            println!("fuzz: {count} streams, seed {seed} (re-run with --seed {seed})");
            let bar = if quiet {
                ProgressBar::hidden()
            } else {
                ProgressBar::new(count)
            };
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} streams {msg}",
                )
                .context("progress template")?
                .progress_chars("=> "),
            );
            let started = std::time::Instant::now();
            let tally = fuzz::run(seed, count, Some(&save), &mut |done, t| {
                bar.set_position(done);
                bar.set_message(format!("{} disagreements", t.findings.len()));
            })?;
            bar.finish_and_clear();
            for f in &tally.findings {
                println!("DISAGREEMENT {f}");
            }
            println!(
                "fuzz: {count} streams in {:.0} s: {} agreed, {} refused before running \
                 (on both models alike), {} disagreements",
                started.elapsed().as_secs_f64(),
                tally.agreed.values().sum::<u64>(),
                tally.refused.values().sum::<u64>(),
                tally.findings.len()
            );
            for (how, n) in &tally.agreed {
                println!("fuzz: {n} agreed, stopped by {how}");
            }
            for (why, n) in &tally.refused {
                println!("fuzz: {n} refused for {why}");
            }
            Ok(tally.findings.is_empty())
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
