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
//! `scripts/vela/estimates.py`) and their ratio. Issue 31's target: every
//! network at or under 1.0x Vela's estimate, 0.8x the goal.
//!
//! `cargo bench -p npu-sim --bench networks -- NAME...` runs only the
//! networks whose names contain an argument.
//!
//! For a network with operators Vela left on the CPU, `host` is the share
//! of the run's wall time the host's kernels took (issue 56's target: under
//! 1 %).

use npu_model::tflite::VelaModel;
use npu_sim::networks::bundled_networks;
use npu_tb::axi::SystemConfig;
use npu_tb::bench_filter::wanted;
use npu_tb::rtl_backend::RtlBackend;

fn main() {
    let system = SystemConfig::by_name("Ethos_U65_Client_Server").expect("a Vela system");
    println!("networks behind {}:", system.describe());
    println!(
        "  {:<24} {:<8} {:>10} {:>10} {:>6} {:>8}",
        "network", "config", "RTL", "Vela", "ratio", "host"
    );
    let networks = bundled_networks().expect("the bundled networks");
    for network in networks.into_iter().filter(|n| wanted(&n.name)) {
        let estimate: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(network.dir.join("vela_estimate.json")).unwrap(),
        )
        .unwrap();
        let inputs = network.read_inputs().expect("the network's inputs");
        for model in &network.models {
            let vela = VelaModel::load(model).unwrap();
            let config = vela.config().unwrap();
            let mut rtl = RtlBackend {
                settings: system.axi_settings(),
                axi_configs: [system.completer(0, false), system.completer(1, false)],
                ..RtlBackend::default()
            };
            let name = &network.name;
            let start = std::time::Instant::now();
            let (cycles, host) = match vela.run(config.clone(), &inputs, &mut rtl, &mut |_, _| {}) {
                Ok(net) => (
                    net.run.cycles.expect("the RTL counts cycles"),
                    net.host_time.as_secs_f64() / start.elapsed().as_secs_f64(),
                ),
                Err(e) => {
                    println!("  {name:<24} {:<8} fails: {e:#}", config.name);
                    continue;
                }
            };
            let vela_cycles = estimate["cycles_total"][&config.name]
                .as_u64()
                .expect("Vela's estimate for the configuration");
            let host = if vela.cpu_operators().next().is_some() {
                format!("{:.3}%", 100.0 * host)
            } else {
                String::new()
            };
            println!(
                "  {name:<24} {:<8} {cycles:>10} {vela_cycles:>10} {:>6.2} {host:>8}",
                config.name,
                cycles as f64 / vela_cycles as f64
            );
        }
    }
}
