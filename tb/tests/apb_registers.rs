//! Register file through the APB4 completer: reset values, read/write
//! behaviour of every register, LOCK, undefined addresses and partial writes,
//! all against the scoreboard derived from the register map.

use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, Behaviour, REGISTERS};
use npu_tb::apb::ApbRequest;
use npu_tb::npu::NpuTb;
use npu_tb::register_model::{quiet_write, RegisterModel};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// PPROT of a secure privileged access: permitted whatever PROT is (TRM 4.1).
const SECURE_PRIVILEGED: u8 = 0b001;

/// Issues `request` and checks the response against the scoreboard.
fn check(tb: &mut NpuTb, model: &mut RegisterModel, request: ApbRequest) {
    let want = model.access(request.addr, request.write, request.pprot, request.pstrb);
    let got = tb.apb(request);
    if (got.rdata, got.slverr) != (want.rdata, want.slverr) {
        tb.fail(&format!(
            "{request:x?}: got rdata {:#010x} slverr {}, want rdata {:#010x} slverr {}",
            got.rdata, got.slverr, want.rdata, want.slverr
        ));
    }
}

#[test]
fn every_register_reads_its_reset_value() {
    for config in NpuConfig::builtin() {
        for (porpl, porsl) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut tb = NpuTb::new(&config.name).unwrap();
            tb.hard_reset(porpl, porsl);
            let model = RegisterModel::after_reset(&config, porpl, porsl);
            for r in REGISTERS {
                let got = tb.read(r.address, SECURE_PRIVILEGED);
                let want = model.read_value(r);
                assert_eq!(
                    (got.rdata, got.slverr),
                    (want, false),
                    "{} {} after reset with PORPL={porpl} PORSL={porsl}",
                    config.name,
                    r.name
                );
            }
        }
    }
}

#[test]
fn reset_values_match_the_trm_tables() {
    // Independent of the register map: values printed in TRM 4.2.1, 4.2.3, 4.2.11, 4.4, 4.5.1.
    for (config, config_word) in [("u65-256", 0x1000_3008), ("u65-512", 0x1000_6009)] {
        let mut tb = NpuTb::new(config).unwrap();
        for (addr, want) in [
            (0x000, 0x1006_6001),
            (0x008, 0x0000_000C),
            (0x028, config_word),
            (0x180, 0x0000_2000),
            (0xFD0, 0x04),
            (0xFE0, 0x80),
            (0xFE4, 0xB5),
            (0xFE8, 0x0B),
            (0xFF0, 0x0D),
            (0xFF4, 0xF0),
            (0xFF8, 0x05),
            (0xFFC, 0xB1),
        ] {
            assert_eq!(
                tb.read(addr, SECURE_PRIVILEGED).rdata,
                want,
                "{config} address {addr:#x}"
            );
        }
    }
}

#[test]
fn every_register_reads_back_what_its_fields_keep() {
    let config = NpuConfig::u65_256();
    let mut tb = NpuTb::new(&config.name).unwrap();
    let mut model = RegisterModel::after_reset(&config, false, false);
    for r in REGISTERS {
        for pattern in [
            0xFFFF_FFFF,
            0xA5A5_5A5A,
            0x5A5A_A5A5,
            0x0000_0000,
            0x0000_0001,
        ] {
            if let Some(value) = quiet_write(r.address, pattern) {
                check(
                    &mut tb,
                    &mut model,
                    ApbRequest::write(r.address, value, SECURE_PRIVILEGED),
                );
            }
            check(
                &mut tb,
                &mut model,
                ApbRequest::read(r.address, SECURE_PRIVILEGED),
            );
        }
    }
}

#[test]
fn read_only_registers_ignore_writes() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    for r in REGISTERS.iter().filter(|r| r.is_read_only()) {
        let before = tb.read(r.address, SECURE_PRIVILEGED).rdata;
        let w = tb.write(r.address, !before, SECURE_PRIVILEGED);
        assert!(
            !w.slverr,
            "{}: a write to a read-only register is ignored, not an error",
            r.name
        );
        assert_eq!(
            tb.read(r.address, SECURE_PRIVILEGED).rdata,
            before,
            "{}",
            r.name
        );
    }
}

#[test]
fn storage_registers_keep_every_defined_bit_and_no_reserved_bit() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    for r in REGISTERS
        .iter()
        .filter(|r| r.behaviour == Behaviour::Storage)
    {
        tb.write(r.address, 0xFFFF_FFFF, SECURE_PRIVILEGED);
        assert_eq!(
            tb.read(r.address, SECURE_PRIVILEGED).rdata,
            r.defined_mask(),
            "{}",
            r.name
        );
        tb.write(r.address, 0, SECURE_PRIVILEGED);
        assert_eq!(tb.read(r.address, SECURE_PRIVILEGED).rdata, 0, "{}", r.name);
    }
}

#[test]
fn lock_takes_a_write_only_when_the_old_or_new_value_is_zero() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let lock = regs::LOCK.address;
    tb.write(lock, 0x1234, SECURE_PRIVILEGED);
    assert_eq!(
        tb.read(lock, SECURE_PRIVILEGED).rdata,
        0x1234,
        "claim a free lock"
    );
    tb.write(lock, 0x5678, SECURE_PRIVILEGED);
    assert_eq!(
        tb.read(lock, SECURE_PRIVILEGED).rdata,
        0x1234,
        "a second claimer is refused"
    );
    tb.write(lock, 0, SECURE_PRIVILEGED);
    assert_eq!(tb.read(lock, SECURE_PRIVILEGED).rdata, 0, "release");
    tb.write(lock, 0x5678, SECURE_PRIVILEGED);
    assert_eq!(
        tb.read(lock, SECURE_PRIVILEGED).rdata,
        0x5678,
        "claim after release"
    );
}

#[test]
fn pmu_set_and_clear_registers_share_their_state() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    for (set, clear) in [
        (regs::PMCNTENSET, regs::PMCNTENCLR),
        (regs::PMOVSSET, regs::PMOVSCLR),
        (regs::PMINTSET, regs::PMINTCLR),
    ] {
        tb.write(set.address, 0xFFFF_FFFF, SECURE_PRIVILEGED);
        assert_eq!(
            tb.read(clear.address, SECURE_PRIVILEGED).rdata,
            0x8000_000F,
            "{}",
            set.name
        );
        tb.write(clear.address, 0x8000_0005, SECURE_PRIVILEGED);
        assert_eq!(
            tb.read(set.address, SECURE_PRIVILEGED).rdata,
            0x0000_000A,
            "{}",
            clear.name
        );
        tb.write(set.address, 0x0000_0001, SECURE_PRIVILEGED);
        assert_eq!(
            tb.read(clear.address, SECURE_PRIVILEGED).rdata,
            0x0000_000B,
            "{}",
            set.name
        );
    }
}

#[test]
fn pmcr_action_bits_read_zero_and_event_count_is_fixed() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    tb.write(regs::PMCR.address, 0xFFFF_FFFF, SECURE_PRIVILEGED);
    // mask_en and cnt_en kept, num_event_cnt = 4, reset bits read 0 (TRM 4.5.1).
    assert_eq!(
        tb.read(regs::PMCR.address, SECURE_PRIVILEGED).rdata,
        0x2000 | 0b1001
    );
}

#[test]
fn undefined_addresses_answer_slverr_and_change_nothing() {
    let config = NpuConfig::u65_256();
    let mut tb = NpuTb::new(&config.name).unwrap();
    let mut model = RegisterModel::after_reset(&config, false, false);
    let undefined: Vec<u16> = (0..0x1000)
        .step_by(4)
        .filter(|a| regs::at(*a).is_none())
        .collect();
    assert!(undefined.len() > 900);
    for &addr in &undefined {
        check(
            &mut tb,
            &mut model,
            ApbRequest::write(addr, 0xFFFF_FFFF, SECURE_PRIVILEGED),
        );
        check(
            &mut tb,
            &mut model,
            ApbRequest::read(addr, SECURE_PRIVILEGED),
        );
    }
    // Unaligned addresses are undefined too.
    for addr in [0x011, 0x012, 0x013] {
        check(
            &mut tb,
            &mut model,
            ApbRequest::write(addr, 0x1111_1111, SECURE_PRIVILEGED),
        );
        check(
            &mut tb,
            &mut model,
            ApbRequest::read(addr, SECURE_PRIVILEGED),
        );
    }
    for r in REGISTERS {
        check(
            &mut tb,
            &mut model,
            ApbRequest::read(r.address, SECURE_PRIVILEGED),
        );
    }
}

#[test]
fn partial_writes_answer_slverr_and_change_nothing() {
    let config = NpuConfig::u65_256();
    let mut tb = NpuTb::new(&config.name).unwrap();
    let mut model = RegisterModel::after_reset(&config, false, false);
    let qbase0 = regs::QBASE0.address;
    check(
        &mut tb,
        &mut model,
        ApbRequest::write(qbase0, 0x1234_5678, SECURE_PRIVILEGED),
    );
    for pstrb in 0..0xF {
        let partial = ApbRequest {
            pstrb,
            ..ApbRequest::write(qbase0, 0xFFFF_FFFF, SECURE_PRIVILEGED)
        };
        check(&mut tb, &mut model, partial);
        check(
            &mut tb,
            &mut model,
            ApbRequest::read(qbase0, SECURE_PRIVILEGED),
        );
    }
}

#[test]
fn random_accesses_match_the_scoreboard() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let config = NpuConfig::u65_256();
    let mut tb = NpuTb::new(&config.name).unwrap();
    let (porpl, porsl) = (rng.gen(), rng.gen());
    tb.hard_reset(porpl, porsl);
    let mut model = RegisterModel::after_reset(&config, porpl, porsl);
    for _ in 0..3000 {
        let addr = if rng.gen_bool(0.9) {
            REGISTERS[rng.gen_range(0..REGISTERS.len())].address
        } else {
            rng.gen_range(0..0x400) * 4
        };
        let pprot = rng.gen_range(0..8);
        let data = if rng.gen_bool(0.2) { 0 } else { rng.gen() };
        let request = match quiet_write(addr, data) {
            None => ApbRequest::read(addr, pprot),
            Some(_) if rng.gen_bool(0.5) => ApbRequest::read(addr, pprot),
            Some(data) => {
                let pstrb = if rng.gen_bool(0.9) {
                    0xF
                } else {
                    rng.gen_range(0..16)
                };
                ApbRequest {
                    pstrb,
                    ..ApbRequest::write(addr, data, pprot)
                }
            }
        };
        check(&mut tb, &mut model, request);
    }
}
