//! npu-gen: elaborates NPU configurations (and blocks on their own, for
//! block-level testbenches) and writes their Verilog, port manifests and the
//! register reference.

use anyhow::{bail, Context, Result};
use clap::Parser;
use npu_arch::config::NpuConfig;
use npu_hw::blocks::{self, BlockEntry, BLOCKS};
use std::fs;
use std::path::{Path, PathBuf};

/// Writes the Verilog of NPU configurations.
///
/// For each configuration NAME it writes OUT/npu_NAME.v (a core module
/// emitted by rust-hdl and a top module with the TRM appendix A port names)
/// and OUT/npu_NAME.ports.json (the port manifest the testbench reads).
/// Blocks emitted on their own for their benches (`--list-blocks`) go to
/// OUT/NAME.v and OUT/NAME.ports.json; `--all` emits them too.
#[derive(Parser)]
#[command(version, about, long_about)]
struct Args {
    /// Built-in configuration to emit (repeatable); see --list-configs.
    #[arg(long = "config", value_name = "NAME")]
    configs: Vec<String>,
    /// A configuration described in a JSON file, in the format --list-configs prints.
    #[arg(long, value_name = "FILE")]
    config_file: Vec<PathBuf>,
    /// Emit every built-in configuration and every block.
    #[arg(long)]
    all: bool,
    /// A block to emit on its own (repeatable); see --list-blocks.
    #[arg(long = "block", value_name = "NAME")]
    blocks: Vec<String>,
    /// Print the blocks that can be emitted on their own and exit.
    #[arg(long)]
    list_blocks: bool,
    /// Output directory for the Verilog and port manifests.
    #[arg(long, value_name = "DIR", default_value = "verilog-out")]
    out: PathBuf,
    /// Print the built-in configurations as JSON and exit.
    #[arg(long)]
    list_configs: bool,
    /// Write the register reference (Markdown) to FILE.
    #[arg(long, value_name = "FILE")]
    registers: Option<PathBuf>,
    /// Write the C headers to DIR: npu.h (the C API, from capi/src/lib.rs)
    /// and npu_regs.h (the register map and command opcodes, from arch/).
    #[arg(long, value_name = "DIR")]
    c_headers: Option<PathBuf>,
}

fn main() {
    if let Err(e) = run(Args::parse()) {
        eprintln!("npu-gen: error: {e:#}");
        std::process::exit(1);
    }
}

fn run(args: Args) -> Result<()> {
    if args.list_configs {
        println!("{}", serde_json::to_string_pretty(&NpuConfig::builtin())?);
        return Ok(());
    }
    if args.list_blocks {
        for b in BLOCKS {
            println!("{}\t{}", b.name, b.about);
        }
        return Ok(());
    }
    let mut chosen: Vec<&BlockEntry> = if args.all {
        BLOCKS.iter().collect()
    } else {
        vec![]
    };
    for name in &args.blocks {
        chosen.push(blocks::block(name).map_err(anyhow::Error::msg)?);
    }
    let mut configs = if args.all {
        NpuConfig::builtin()
    } else {
        vec![]
    };
    for name in &args.configs {
        configs.push(NpuConfig::by_name(name)?);
    }
    for file in &args.config_file {
        let text =
            fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let config: NpuConfig = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a valid configuration", file.display()))?;
        configs.push(config);
    }
    if let Some(path) = &args.registers {
        write(path, &npu_arch::reference::markdown())?;
    }
    if let Some(dir) = &args.c_headers {
        write(&dir.join("npu_regs.h"), &npu_arch::reference::c_header())?;
        write(&dir.join("npu.h"), &c_api_header()?)?;
    }
    if args.registers.is_none()
        && args.c_headers.is_none()
        && configs.is_empty()
        && chosen.is_empty()
    {
        bail!("nothing to do: give --config NAME, --config-file FILE, --all, --block NAME, --list-configs, --list-blocks, --registers FILE or --c-headers DIR");
    }
    for config in &configs {
        let design = npu_hw::emit::emit(config).map_err(anyhow::Error::msg)?;
        let verilog = args.out.join(format!("{}.v", design.module));
        let manifest = args.out.join(format!("{}.ports.json", design.module));
        write(&verilog, &design.verilog)?;
        write(&manifest, &(serde_json::to_string_pretty(&design)? + "\n"))?;
        println!(
            "{}: {} ({} ports)",
            config.name,
            verilog.display(),
            design.ports.len()
        );
    }
    for block in chosen {
        let name = block.name;
        let design = block.emit().map_err(anyhow::Error::msg)?;
        let verilog = args.out.join(format!("{}.v", design.module));
        let manifest = args.out.join(format!("{}.ports.json", design.module));
        write(&verilog, &design.verilog)?;
        write(&manifest, &(serde_json::to_string_pretty(&design)? + "\n"))?;
        println!(
            "block {name}: {} ({} ports)",
            verilog.display(),
            design.ports.len()
        );
    }
    Ok(())
}

/// The C API's header, cbindgen's reading of the capi crate.
fn c_api_header() -> Result<String> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("gen/ has a parent")?
        .join("capi");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .map_err(|e| anyhow::anyhow!("capi/cbindgen.toml: {e}"))?;
    let mut header = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .context("generating the C API header from capi/src/lib.rs")?
        .write(&mut header);
    String::from_utf8(header).context("the C API header is not UTF-8")
}

/// Writes `text` to `path` through a temporary file, so a failure leaves the old file whole.
fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
}
