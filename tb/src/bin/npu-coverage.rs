//! `npu-coverage DATA --waivers FILE --out DIR`: the RTL code coverage
//! report from the data of coverage builds (`NPU_COVERAGE=DATA`): per-module
//! and per-struct tables and the points not reached, into DIR. Fails on a
//! waiver that takes no point or a point some run reached.

use anyhow::{bail, Context, Result};
use npu_tb::coverage_report::{read_waivers, Report};
use npu_tb::verilator::build::workspace_root;
use std::path::PathBuf;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut data, mut waivers, mut out) = (None, None, None);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--waivers" => waivers = Some(PathBuf::from(value()?)),
            "--out" => out = Some(PathBuf::from(value()?)),
            _ if data.is_none() && !arg.starts_with('-') => data = Some(PathBuf::from(arg)),
            _ => bail!("usage: npu-coverage DATA [--waivers FILE] [--out DIR]"),
        }
    }
    let data = data.context("usage: npu-coverage DATA [--waivers FILE] [--out DIR]")?;
    let waivers = match waivers {
        Some(path) => read_waivers(&path)?,
        None => vec![],
    };
    let report = Report::new(&data, &workspace_root(), &waivers)?;
    if let Some(out) = out {
        report.write(&out)?;
    }
    print!("{}", report.summary());
    for stale in &report.stale {
        eprintln!("{stale}");
    }
    if !report.stale.is_empty() {
        bail!("{} stale waivers", report.stale.len());
    }
    Ok(())
}
