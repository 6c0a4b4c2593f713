//! `npu-sim check`: the bytes a command stream may touch, and its verdict
//! (`npu_model::check`).

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use npu_arch::config::NpuConfig;
use npu_model::check::{self, signed_hex, CheckOptions, Policy, Refusal, StreamCheck};
use npu_model::payload::{is_driver_payload, DriverPayload};
use npu_model::tflite::{self, VelaModel};
use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;

#[derive(Args)]
pub struct CheckArgs {
    /// A command stream (raw little-endian words), a COP1 driver payload or
    /// a Vela-compiled `.tflite` network (each `ethos-u` operator's stream,
    /// with the regions the driver gives it).
    file: PathBuf,
    /// A region's size, e.g. `1=0x40000` (repeatable); for a network these
    /// replace the sizes its tensors give.
    #[arg(long = "region-size", value_name = "R=BYTES", value_parser = region_size)]
    region_sizes: Vec<(usize, u64)>,
    /// Configuration (u65-256 or u65-512); default: the network's, else
    /// u65-256.
    #[arg(long)]
    config: Option<String>,
    /// `npu`: what the NPU would run inside its regions; `kernel`: also
    /// refuse NPU_OP_IRQ, an NPU_OP_STOP that is not the last word and a
    /// stream without one (a shared NPU's kernel driver).
    #[arg(long, value_enum, default_value = "npu")]
    policy: PolicyArg,
    /// Print the ranges as JSON, for tools.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum PolicyArg {
    Npu,
    Kernel,
}

fn region_size(s: &str) -> Result<(usize, u64), String> {
    let (r, n) = s
        .split_once('=')
        .ok_or_else(|| format!("{s}: expected R=BYTES, e.g. 1=0x40000"))?;
    let region: usize = r
        .parse()
        .ok()
        .filter(|&r| r < 8)
        .ok_or_else(|| format!("{r}: a region is 0-7"))?;
    let bytes = match n.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => n.parse(),
    }
    .map_err(|e| format!("{n}: not a byte count ({e})"))?;
    Ok((region, bytes))
}

/// One stream's result, as JSON prints it.
#[derive(Serialize)]
struct StreamResult {
    /// The `ethos-u` operator's index in the network, if any.
    operator: Option<usize>,
    region_sizes: BTreeMap<usize, u64>,
    #[serde(flatten)]
    outcome: Outcome,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    Passed(StreamCheck),
    Refused(Refusal),
}

/// Runs the check; true when every stream passes.
pub fn run(args: &CheckArgs) -> Result<bool> {
    let bytes =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    if bytes.is_empty() {
        bail!(
            "{} is empty: a command stream has at least one command",
            args.file.display()
        );
    }
    let named = match args.config.as_deref() {
        Some(name) => Some(NpuConfig::by_name(name).map_err(|_| {
            anyhow::anyhow!("{name}: unknown configuration (known: u65-256, u65-512)")
        })?),
        None => None,
    };
    let policy = match args.policy {
        PolicyArg::Npu => Policy::Npu,
        PolicyArg::Kernel => Policy::Kernel,
    };
    let overrides: BTreeMap<usize, u64> = args.region_sizes.iter().copied().collect();
    // Each stream: its operator's index in a network, its bytes, its regions.
    type Stream = (Option<usize>, Vec<u8>, BTreeMap<usize, u64>);
    let mut streams: Vec<Stream> = Vec::new();
    let config;
    if tflite::is_tflite(&bytes) {
        let model = VelaModel::parse(&bytes)
            .with_context(|| format!("reading the network {}", args.file.display()))?;
        config = match named {
            Some(c) => c,
            None => model.config()?,
        };
        for op in model.npu_operators() {
            let mut sizes = model.region_sizes(op);
            sizes.extend(&overrides);
            streams.push((Some(op.index), op.stream_bytes(), sizes));
        }
    } else {
        config = named.unwrap_or_else(NpuConfig::u65_256);
        let stream = if is_driver_payload(&bytes) {
            let payload =
                DriverPayload::parse(&bytes).context("parsing the COP1 driver payload")?;
            payload
                .command_stream()
                .into_iter()
                .flat_map(u32::to_le_bytes)
                .collect()
        } else {
            bytes
        };
        streams.push((None, stream, overrides));
    }
    let results: Vec<StreamResult> = streams
        .into_iter()
        .map(|(operator, stream, region_sizes)| {
            let options = CheckOptions {
                config: config.clone(),
                region_sizes: region_sizes.clone(),
                policy,
            };
            StreamResult {
                operator,
                outcome: match check::check_stream(&stream, &options) {
                    Ok(c) => Outcome::Passed(c),
                    Err(r) => Outcome::Refused(r),
                },
                region_sizes,
            }
        })
        .collect();
    let passed = results
        .iter()
        .all(|r| matches!(r.outcome, Outcome::Passed(_)));
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        println!("{}: {}", args.file.display(), config.name);
        for r in &results {
            print_text(r);
        }
    }
    Ok(passed)
}

fn print_text(r: &StreamResult) {
    if let Some(op) = r.operator {
        println!("operator {op} (ethos-u):");
    }
    let sizes: Vec<String> = r
        .region_sizes
        .iter()
        .map(|(k, n)| format!("region {k} {n} bytes"))
        .collect();
    println!(
        "  regions given: {}",
        if sizes.is_empty() {
            "none".into()
        } else {
            sizes.join(", ")
        }
    );
    match &r.outcome {
        Outcome::Refused(refusal) => println!("  REFUSED: {refusal}"),
        Outcome::Passed(c) => {
            for op in &c.operations {
                println!("  {:#06x} {}", op.offset, op.operation);
                for a in &op.accesses {
                    println!(
                        "    {:<16} {:<6} region {} {}",
                        a.role.to_string(),
                        if a.write { "writes" } else { "reads" },
                        a.region,
                        ranges(&a.bytes)
                    );
                }
            }
            for u in &c.regions {
                println!(
                    "  region {} ({} bytes): reads {}; writes {}",
                    u.region,
                    u.size,
                    ranges(&u.read),
                    ranges(&u.written)
                );
            }
            println!("  PASSED: every access lies inside its region");
        }
    }
}

/// `[0x0, 0x40) [0x80, 0xc0) ... (n ranges, b bytes)`: the first ranges
/// and the totals.
fn ranges(rs: &[Range<i64>]) -> String {
    if rs.is_empty() {
        return "nothing".into();
    }
    const SHOWN: usize = 3;
    let bytes: i64 = rs.iter().map(|r| r.end - r.start).sum();
    let range = |r: &Range<i64>| format!("[{}, {})", signed_hex(r.start), signed_hex(r.end));
    let mut out: Vec<String> = rs.iter().take(SHOWN).map(range).collect();
    if rs.len() > SHOWN {
        out.push(format!("... {}", range(&rs[rs.len() - 1])));
    }
    format!("{} ({} ranges, {bytes} bytes)", out.join(" "), rs.len())
}
