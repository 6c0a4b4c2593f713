//! APB4 protocol: PCLKEN-divided and stalled buses, and the monitor itself.

use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, REGISTERS};
use npu_tb::apb::{ApbMonitor, ApbPorts, ApbRequest};
use npu_tb::npu::NpuTb;
use npu_tb::register_model::{quiet_write, RegisterModel};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const SECURE_PRIVILEGED: u8 = 0b001;

fn exercise(tb: &mut NpuTb, rng: &mut StdRng, accesses: usize) {
    let config = NpuConfig::u65_256();
    let mut model = RegisterModel::after_reset(&config, false, false);
    for _ in 0..accesses {
        let r = &REGISTERS[rng.gen_range(0..REGISTERS.len())];
        let request = match quiet_write(r.address, rng.gen()) {
            Some(value) if rng.gen_bool(0.5) => {
                ApbRequest::write(r.address, value, SECURE_PRIVILEGED)
            }
            _ => ApbRequest::read(r.address, SECURE_PRIVILEGED),
        };
        let want = model.access(request.addr, request.write, request.pprot, request.pstrb);
        let got = tb.apb(request);
        assert_eq!(
            (got.rdata, got.slverr),
            (want.rdata, want.slverr),
            "{request:x?}"
        );
    }
}

#[test]
fn apb_at_half_the_npu_clock() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    tb.set_pclken_pattern(&[false, true]);
    let start = tb.model.cycle();
    let transfers = tb.apb_transfers();
    let mut rng = StdRng::seed_from_u64(seed());
    exercise(&mut tb, &mut rng, 200);
    assert_eq!(tb.apb_transfers() - transfers, 200);
    // Zero wait states: each transfer is two PCLK cycles, four CLK cycles.
    assert_eq!(tb.model.cycle() - start, 200 * 4);
}

#[test]
fn apb_with_random_pclken_stalls() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = NpuTb::new("u65-256").unwrap();
    let pattern: Vec<bool> = (0..97).map(|i| i == 0 || rng.gen_bool(0.4)).collect();
    tb.set_pclken_pattern(&pattern);
    exercise(&mut tb, &mut rng, 300);
}

#[test]
fn no_transfer_completes_while_pclken_is_low() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let qsize = regs::QSIZE.address;
    tb.set("PCLKEN", 0);
    tb.apb.drive(
        &mut tb.model,
        Some(&ApbRequest::write(qsize, 0x40, SECURE_PRIVILEGED)),
        false,
    );
    tb.model.tick();
    tb.apb.drive(
        &mut tb.model,
        Some(&ApbRequest::write(qsize, 0x40, SECURE_PRIVILEGED)),
        true,
    );
    for _ in 0..20 {
        tb.model.tick();
        assert_eq!(
            tb.get("PREADY"),
            0,
            "PCLKEN low: the setup phase was never sampled"
        );
    }
    tb.apb.drive(&mut tb.model, None, false);
    tb.model.tick();
    tb.set("PCLKEN", 1);
    assert_eq!(
        tb.read(qsize, SECURE_PRIVILEGED).rdata,
        0,
        "a transfer PCLKEN hid did not write"
    );
}

#[test]
fn the_monitor_catches_requester_violations() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let ports = ApbPorts::new(&tb.model);
    let mut monitor = ApbMonitor::new(ports);
    let request = ApbRequest::read(regs::ID.address, SECURE_PRIVILEGED);

    ports.drive(&mut tb.model, Some(&request), true);
    tb.model.eval();
    let e = monitor.before_edge(&tb.model).unwrap_err();
    assert!(e.contains("without a setup phase"), "{e}");

    let mut monitor = ApbMonitor::new(ports);
    ports.drive(&mut tb.model, Some(&request), false);
    tb.model.eval();
    monitor.before_edge(&tb.model).unwrap();
    tb.model.tick();
    monitor.after_edge(&tb.model).unwrap();
    let moved = ApbRequest::read(regs::CONFIG.address, SECURE_PRIVILEGED);
    ports.drive(&mut tb.model, Some(&moved), true);
    tb.model.eval();
    let e = monitor.before_edge(&tb.model).unwrap_err();
    assert!(e.contains("request changed"), "{e}");

    let mut monitor = ApbMonitor::new(ports);
    let bad_strobe = ApbRequest {
        pstrb: 0x3,
        ..request
    };
    ports.drive(&mut tb.model, Some(&bad_strobe), false);
    tb.model.set(ports.pstrb, 0x3);
    tb.model.eval();
    let e = monitor.before_edge(&tb.model).unwrap_err();
    assert!(e.contains("PSTRB"), "{e}");
}
