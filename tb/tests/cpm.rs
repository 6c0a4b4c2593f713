//! Clock and power module: hard-reset synchronisation and MBIST override,
//! PROT from the power-on levels, Q-channels that deny while CMD does not
//! enable them, and AXI managers that stay idle until a run. Soft reset and
//! Q-channel acceptance are in `cpm_soft_reset.rs` and `cpm_q_channels.rs`.

use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, REGISTERS};
use npu_tb::npu::NpuTb;
use npu_tb::register_model::{assert_reset_values, quiet_write};

const SECURE_PRIVILEGED: u8 = 0b001;

fn dirty_every_register(tb: &mut NpuTb) {
    for r in REGISTERS {
        if let Some(value) = quiet_write(r.address, 0xFFFF_FFFF) {
            tb.write(r.address, value, SECURE_PRIVILEGED);
        }
    }
    assert_ne!(tb.read(regs::QBASE0.address, SECURE_PRIVILEGED).rdata, 0);
}

#[test]
fn nreset_clears_every_register_asynchronously() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    dirty_every_register(&mut tb);
    // Asserted between clock edges: the registers clear without a clock.
    tb.set("nRESET", 0);
    tb.model.eval();
    tb.set("nRESET", 1);
    tb.model.eval();
    tb.cycles(3);
    assert_reset_values(&mut tb, false, false, "after the reset");
}

#[test]
fn reset_release_is_synchronised() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    tb.write(regs::QSIZE.address, 0x100, SECURE_PRIVILEGED);
    tb.set("nRESET", 0);
    tb.cycles(2);
    tb.set("nRESET", 1);
    // Two synchroniser stages: the completer is still in reset for the next edge.
    tb.model.tick();
    tb.set("PSEL", 1);
    tb.set("PADDR", u64::from(regs::ID.address));
    tb.model.tick();
    assert_eq!(
        tb.get("PREADY"),
        0,
        "setup phase sampled while still in reset"
    );
    tb.set("PSEL", 0);
    tb.cycles(2);
    assert_reset_values(&mut tb, false, false, "after the reset");
}

#[test]
fn mbist_reset_overrides_nreset_while_mbistreq_is_high() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    dirty_every_register(&mut tb);
    tb.set("MBISTREQ", 1);
    tb.set("nMBISTRESET", 0);
    tb.cycles(3);
    tb.set("nMBISTRESET", 1);
    tb.cycles(3);
    tb.set("MBISTREQ", 0);
    tb.cycles(1);
    assert_reset_values(&mut tb, false, false, "after the reset");
}

#[test]
fn prot_follows_the_power_on_levels_of_each_hard_reset() {
    let mut tb = NpuTb::new("u65-512").unwrap();
    for (porpl, porsl) in [(true, true), (false, true), (true, false), (false, false)] {
        tb.hard_reset(porpl, porsl);
        let want = u32::from(porpl) | (u32::from(porsl) << 1);
        assert_eq!(tb.read(regs::PROT.address, SECURE_PRIVILEGED).rdata, want);
        // Later changes of the straps do not change PROT.
        tb.set("PORPL", u64::from(!porpl));
        tb.set("PORSL", u64::from(!porsl));
        tb.cycles(3);
        assert_eq!(tb.read(regs::PROT.address, SECURE_PRIVILEGED).rdata, want);
    }
}

/// With CMD's enable bit for the channel cleared (TRM 4.2.3), every request is denied.
fn q_channel_denies_requests(prefix: &str) {
    let mut tb = NpuTb::new("u65-256").unwrap();
    tb.write(regs::CMD.address, 0, SECURE_PRIVILEGED);
    let (req, accept, deny) = (
        format!("{prefix}QREQn"),
        format!("{prefix}QACCEPTn"),
        format!("{prefix}QDENY"),
    );
    for _ in 0..10 {
        tb.tick();
        assert_eq!(
            (tb.get(&accept), tb.get(&deny)),
            (1, 0),
            "Q_RUN while not asked"
        );
    }
    tb.set(&req, 0);
    let mut waited = 0;
    while tb.get(&deny) == 0 {
        assert_eq!(
            tb.get(&accept),
            1,
            "{prefix}: CMD does not allow quiescence"
        );
        tb.tick();
        waited += 1;
        assert!(waited < 8, "{prefix}: no answer to a request");
    }
    for _ in 0..10 {
        tb.tick();
        assert_eq!(
            (tb.get(&accept), tb.get(&deny)),
            (1, 1),
            "Q_DENIED held while requested"
        );
    }
    tb.set(&req, 1);
    let mut waited = 0;
    while tb.get(&deny) == 1 {
        tb.tick();
        waited += 1;
        assert!(
            waited < 8,
            "{prefix}: QDENY held after the request was withdrawn"
        );
    }
    assert_eq!(tb.get(&accept), 1);
}

#[test]
fn clock_q_channel_denies_requests_cmd_does_not_allow() {
    q_channel_denies_requests("CLK");
}

#[test]
fn power_q_channel_denies_requests_cmd_does_not_allow() {
    q_channel_denies_requests("PWR");
}

#[test]
fn qactive_follows_pwakeup() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    for wake in [1, 0, 1, 0] {
        tb.set("PWAKEUP", wake);
        tb.model.eval();
        assert_eq!(tb.get("CLKQACTIVE"), wake);
        assert_eq!(tb.get("PWRQACTIVE"), wake);
        tb.cycles(2);
    }
}

/// Register writes alone start no AXI traffic and raise no IRQ.
#[test]
fn axi_managers_stay_idle_until_started() {
    let config = NpuConfig::u65_256();
    let mut tb = NpuTb::new(&config.name).unwrap();
    let outputs: Vec<String> = ["AWVALID", "WVALID", "ARVALID", "AWAKEUP"]
        .iter()
        .flat_map(|s| [format!("{s}M0"), format!("{s}M1")])
        .collect();
    for r in REGISTERS {
        let Some(value) = quiet_write(r.address, 0xFFFF_FFFF) else {
            continue;
        };
        tb.write(r.address, value, SECURE_PRIVILEGED);
        for name in &outputs {
            assert_eq!(tb.get(name), 0, "{name} after writing {}", r.name);
        }
    }
    assert_eq!(tb.get("IRQ"), 0);
}
