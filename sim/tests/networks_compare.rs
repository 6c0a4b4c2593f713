//! `npu-sim compare` on every bundled network, compiled by Vela for both
//! configurations (`model_vela.tflite` for the one it was made for,
//! `model_vela_<config>.tflite` for the other: `scripts/vela/other_config.py`):
//! the golden model and the RTL agree on memory, STATUS, QREAD, IRQ and the
//! shared buffer after the whole network. Issue 30's network ran bit-exact
//! for u65-256 and wrong for u65-512, so every network runs on both. Each
//! run is behind its own random memory system (`--random-memory`: latency
//! 0-1000 cycles, back-pressure, reordering, outstanding and bandwidth
//! limits), drawn from the printed seed; `mobilenet_v2_sized` (3.4 MB of
//! traffic, 17.7 million cycles behind a 1000-cycle memory that holds 8
//! transactions) behind one of Vela's memory systems instead, drawn from
//! the same seed, with or without its outstanding limits.

use npu_model::tflite::VelaModel;
use npu_sim::networks::bundled_networks;
use npu_tb::axi::SYSTEM_CONFIGS;
use std::collections::BTreeSet;
use std::process::Command;

/// The memory a network runs behind: a random one drawn from `seed`, or
/// for the large network one of Vela's systems.
fn memory_flags(network: &str, seed: u64) -> Vec<String> {
    if network != "mobilenet_v2_sized" {
        return vec!["--random-memory".into(), seed.to_string()];
    }
    let system = &SYSTEM_CONFIGS[seed as usize % SYSTEM_CONFIGS.len()];
    let mut flags = vec!["--memory".into(), system.name.to_string()];
    if seed & 0x100_0000 != 0 {
        flags.push("--memory-limits".into());
    }
    flags
}

#[test]
fn every_bundled_network_agrees_on_both_configurations() {
    let seed = npu_tb::seed::seed();
    let networks = bundled_networks().unwrap();
    assert!(networks.len() >= 6, "bundled networks: {networks:?}");
    for (n, network) in networks.into_iter().enumerate() {
        let mut configs = BTreeSet::new();
        for (m, model) in network.models.iter().enumerate() {
            let memory_seed = seed ^ ((n as u64) << 8 | m as u64);
            let config = VelaModel::load(model).unwrap().config().unwrap();
            configs.insert(config.name.clone());
            let out = Command::new(npu_sim::npu_sim_exe!())
                .arg("compare")
                .arg(model)
                .args(
                    network
                        .inputs
                        .iter()
                        .flat_map(|p| ["--input".as_ref(), p.as_os_str()]),
                )
                .arg("-q")
                .args(memory_flags(&network.name, memory_seed))
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && text.contains("agree"),
                "{} ({}, seed {memory_seed}): {text}",
                model.display(),
                config.name
            );
        }
        assert_eq!(
            configs,
            BTreeSet::from(["u65-256".to_string(), "u65-512".to_string()]),
            "{}: compiled for both configurations",
            network.name
        );
    }
}
