//! `npu-sim compare` on every bundled network, compiled by Vela for both
//! configurations (`model_vela.tflite` for the one it was made for,
//! `model_vela_<config>.tflite` for the other: `scripts/vela/other_config.py`):
//! the golden model and the RTL agree on memory, STATUS, QREAD, IRQ and the
//! shared buffer after the whole network. Issue 30's network ran bit-exact
//! for u65-256 and wrong for u65-512, so every network runs on both.

use npu_model::tflite::VelaModel;
use npu_tb::networks::bundled_networks;
use std::collections::BTreeSet;
use std::process::Command;

#[test]
fn every_bundled_network_agrees_on_both_configurations() {
    let networks = bundled_networks().unwrap();
    assert!(networks.len() >= 6, "bundled networks: {networks:?}");
    for network in networks {
        let mut configs = BTreeSet::new();
        for model in &network.models {
            let config = VelaModel::load(model).unwrap().config().unwrap();
            configs.insert(config.name.clone());
            let out = Command::new(env!("CARGO_BIN_EXE_npu-sim"))
                .arg("compare")
                .arg(model)
                .args(
                    network
                        .inputs
                        .iter()
                        .flat_map(|p| ["--input".as_ref(), p.as_os_str()]),
                )
                .arg("-q")
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && text.contains("agree"),
                "{} ({}): {text}",
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
