//! Whole networks on the RTL behind the memory Vela assumes, beside Vela's
//! own estimate: every bundled network (`model/tests/fixtures/networks`),
//! compiled by Vela 5.2.0 for u65-256 and u65-512, runs on the RTL behind
//! `Ethos_U65_Client_Server` (Vela's U65 default: AXI0 an SRAM with 32
//! cycles of latency, AXI1 a DRAM with 500 cycles of read and 250 of write
//! latency at 12 bytes a cycle; latency and bandwidth as Vela's estimate
//! models them) with the Ethos-U driver's REGIONCFG and AXI_LIMITs (regions
//! 0 and 1 on AXI1, the fast scratch on AXI0: Vela's Dedicated_Sram mode),
//! and its NPU cycles are printed beside Vela's `cycles_total` for the same
//! configuration and memory (`vela_estimate.json`, written by
//! `scripts/vela/estimates.py`) and their ratio; then the same under what
//! Linux's accel/ethosu programs (256-byte bursts on the DRAM's counter,
//! `AxiSettings::linux_accel_ethosu`). Issue 31's target: every network at
//! or under 1.0x Vela's estimate, 0.8x the goal.
//!
//! Then the real third-party networks of `../shared/real-networks` (skipped
//! with a message where absent), each under the configuration it was
//! compiled for, beside its `net.json`'s `cycles_total`. Every run's outputs
//! must be TensorFlow Lite Micro's.
//!
//! `cargo bench -p npu-sim --bench networks -- NAME...` runs only the
//! networks whose names contain an argument.
//!
//! `floor` is the network's floor under the core driver's settings (the
//! per-layer report's total, `npu_model::report::floor_total`; issue 58's
//! target: RTL at most 1.10x it),
//! `wall` the Linux run's wall time, `MMAC/s` the multiply-accumulates it
//! simulated a second.
//!
//! For a network with operators Vela left on the CPU, `host` is the share
//! of the run's wall time the host's kernels took (issue 56's target: under
//! 1 %).

use npu_model::driver::AxiSettings;
use npu_model::report::floor_total;
use npu_model::tflite::{NetworkRun, VelaModel};
use npu_sim::networks::{bundled_networks, real_networks, real_networks_dir, BundledNetwork};
use npu_tb::axi::SystemConfig;
use npu_tb::bench_filter::wanted;
use npu_tb::rtl_backend::RtlBackend;
use std::path::Path;

fn main() {
    let system = SystemConfig::by_name("Ethos_U65_Client_Server").expect("a Vela system");
    println!("networks behind {}:", system.describe());
    println!(
        "  {:<42} {:<8} {:>8} {:>8} {:>8} {:>5} {:>5} {:>9} {:>5} {:>7} {:>7} {:>7}",
        "network",
        "config",
        "Vela",
        "floor",
        "RTL",
        "/Vela",
        "/floor",
        "RTL Linux",
        "/Vela",
        "wall",
        "MMAC/s",
        "host"
    );
    for network in bundled_networks().expect("the bundled networks") {
        let estimate: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(network.dir.join("vela_estimate.json")).unwrap(),
        )
        .unwrap();
        for model in &network.models {
            bench(system, &network, model, &|config| {
                estimate["cycles_total"][config]
                    .as_u64()
                    .expect("Vela's estimate for the configuration")
            });
        }
    }
    match real_networks().expect("the real networks' descriptions") {
        None => println!(
            "skipped the real networks: none at {}",
            real_networks_dir().display()
        ),
        Some(networks) => {
            for real in networks {
                bench(system, &real.network, &real.network.models[0], &|_| {
                    real.vela_cycles
                });
            }
        }
    }
}

/// Runs `model` of `network` (if the filter wants it) under the core
/// driver's and Linux's settings and prints its row; `vela_cycles` gives
/// Vela's estimate for a configuration.
fn bench(
    system: &SystemConfig,
    network: &BundledNetwork,
    model: &Path,
    vela_cycles: &dyn Fn(&str) -> u64,
) {
    let name = &network.name;
    if !wanted(name) {
        return;
    }
    let inputs = network.read_inputs().expect("the network's inputs");
    let expected: Vec<Vec<u8>> = network
        .expected
        .iter()
        .map(|f| std::fs::read(f).expect("the network's expected outputs"))
        .collect();
    let vela = VelaModel::load(model).unwrap();
    let config = vela.config().unwrap();
    let run = |settings: AxiSettings, layers: bool| {
        let mut rtl = RtlBackend {
            settings,
            axi_configs: [system.completer(0, false), system.completer(1, false)],
            layers,
            ..RtlBackend::default()
        };
        let start = std::time::Instant::now();
        let net = vela.run(config.clone(), &inputs, &mut rtl, &mut |_, _| {})?;
        anyhow::ensure!(
            net.outputs == expected,
            "the outputs are not TensorFlow Lite Micro's"
        );
        anyhow::Ok((net, start.elapsed().as_secs_f64()))
    };
    // The core driver's run with the per-layer report (floors, MACs);
    // Linux's without it, timed.
    let runs = run(system.axi_settings(), true)
        .and_then(|core| run(AxiSettings::linux_accel_ethosu(), false).map(|linux| (core, linux)));
    let ((core, _), (linux, wall)) = match runs {
        Ok(runs) => runs,
        Err(e) => {
            println!("  {name:<42} {:<8} fails: {e:#}", config.name);
            return;
        }
    };
    let vela_cycles = vela_cycles(&config.name);
    let cycles = |net: &NetworkRun| net.run.cycles.expect("the RTL counts cycles");
    let floor = floor_total(&core.run.report(&config)).expect("the per-layer report's floors");
    let host = if vela.cpu_operators().next().is_some() {
        format!("{:.3}%", 100.0 * linux.host_time.as_secs_f64() / wall)
    } else {
        String::new()
    };
    let ratio = |a: u64, b: u64| a as f64 / b as f64;
    println!(
        "  {name:<42} {:<8} {vela_cycles:>8} {floor:>8} {:>8} {:>5.2} {:>5.2} {:>9} {:>5.2} {wall:>6.1}s {:>7.1} {host:>7}",
        config.name,
        cycles(&core),
        ratio(cycles(&core), vela_cycles),
        ratio(cycles(&core), floor),
        cycles(&linux),
        ratio(cycles(&linux), vela_cycles),
        core.run.macs as f64 / wall / 1e6
    );
}
