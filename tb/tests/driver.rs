//! The driver against the RTL: the registers it programs (the U65 driver's
//! defaults and per-inference overrides), the AXI monitor limits it sets,
//! its checks of an inference, and its timeout error on an NPU that never
//! raises its IRQ.

use npu_spec::regs::{self, Register};
use npu_tb::axi::{AxiPort, OutstandingLimits};
use npu_tb::driver::{invoke, invoke_async, wait, AxiLimit, AxiSettings, DriverError, Inference};
use npu_tb::npu::NpuTb;

fn reg(tb: &mut NpuTb, r: &Register) -> u32 {
    tb.read(r.address, 0b001).rdata
}

#[test]
fn programs_the_u65_defaults_starts_and_times_out_naming_status_and_qread() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let inference = Inference {
        max_cycles: 500,
        ..Inference::new(
            0x12_3456_7890,
            0x2C,
            vec![0x10_0000_0000, 0xFF_FFFF_FFF0, 0x40],
        )
    };
    let running = invoke_async(&mut tb, &inference).unwrap();
    let expected = [
        (regs::QBASE0, 0x3456_7890),
        (regs::QBASE1, 0x12),
        (regs::QSIZE, 0x2C),
        // ethosu_config_u65.h: NPU_QCONFIG 2, NPU_REGIONCFG_0 3, _1 2, _2.._7 1.
        (regs::QCONFIG, 2),
        (regs::REGIONCFG, 0x555B),
        // 64 reads, 32 writes, memtype 0, 64-byte burst split.
        (regs::AXI_LIMIT0, 0x1F3F_0000),
        (regs::AXI_LIMIT1, 0x1F3F_0000),
        (regs::AXI_LIMIT2, 0x1F3F_0000),
        (regs::AXI_LIMIT3, 0x1F3F_0000),
        (regs::BASEP0, 0),
        (regs::BASEP1, 0x10),
        (regs::BASEP2, 0xFFFF_FFF0),
        (regs::BASEP3, 0xFF),
        (regs::BASEP4, 0x40),
        (regs::BASEP5, 0),
        // Secure and unprivileged.
        (regs::RESET, 0),
        // Running, with the clock and power Q-channels off.
        (regs::CMD, 1),
    ];
    for (r, value) in expected {
        assert_eq!(reg(&mut tb, &r), value, "{}", r.name);
    }
    for port in AxiPort::ALL {
        assert_eq!(
            tb.axi_limits(port),
            OutstandingLimits {
                reads: 128,
                writes: 64
            }
        );
    }

    let err = wait(&mut tb, running).unwrap_err();
    let DriverError::Timeout { cycles, state } = &err else {
        panic!("not a timeout: {err}");
    };
    assert_eq!(*cycles, 500);
    assert_eq!(state.qsize, 0x2C);
    let message = err.to_string();
    for word in [
        "no IRQ within 500 cycles",
        "STATUS",
        "state=",
        "QREAD",
        "QSIZE 0x2c",
    ] {
        assert!(message.contains(word), "{word} missing from: {message}");
    }
}

#[test]
fn inference_overrides_regioncfg_axi_limits_and_qconfig() {
    let mut tb = NpuTb::new("u65-512").unwrap();
    let limit = |reads, writes, max_beats, memtype| AxiLimit {
        max_beats,
        memtype,
        max_outstanding_reads: reads,
        max_outstanding_writes: writes,
    };
    let inference = Inference {
        axi: AxiSettings {
            regioncfg: [0, 1, 2, 3, 3, 2, 1, 0],
            axi_limits: [
                limit(1, 1, 2, 11),
                limit(64, 32, 1, 3),
                limit(3, 5, 0, 2),
                limit(4, 7, 2, 0),
            ],
            qconfig: 1,
        },
        max_cycles: 10,
        ..Inference::new(0x100, 4, vec![0x200; 8])
    };
    let err = invoke(&mut tb, &inference).unwrap_err();
    assert!(matches!(err, DriverError::Timeout { .. }), "{err}");
    let expected = [
        (regs::QCONFIG, 1),
        (regs::REGIONCFG, 0b00_01_10_11_11_10_01_00),
        (regs::AXI_LIMIT0, 0x0000_00B2),
        (regs::AXI_LIMIT1, 0x1F3F_0031),
        (regs::AXI_LIMIT2, 0x0402_0020),
        (regs::AXI_LIMIT3, 0x0603_0002),
        (regs::BASEP14, 0x200),
    ];
    for (r, value) in expected {
        assert_eq!(reg(&mut tb, &r), value, "{}", r.name);
    }
    assert_eq!(
        tb.axi_limits(AxiPort::M0),
        OutstandingLimits {
            reads: 65,
            writes: 33
        }
    );
    assert_eq!(
        tb.axi_limits(AxiPort::M1),
        OutstandingLimits {
            reads: 7,
            writes: 12
        }
    );
}

#[test]
fn invalid_inferences_are_refused_before_touching_the_npu() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let base = Inference::new(0x1000, 16, vec![0x2000]);
    let cases = [
        (
            Inference {
                command_stream: 0x1008,
                ..base.clone()
            },
            "command stream address 0x1008",
        ),
        (
            Inference {
                command_stream_size: 6,
                ..base.clone()
            },
            "multiple of 4",
        ),
        (
            Inference {
                base_addresses: vec![0x2000, 0x100_0000_0000],
                ..base.clone()
            },
            "region 1 base address 0x10000000000 is not a 16-byte aligned 40-bit address",
        ),
        (
            Inference {
                base_addresses: vec![0; 9],
                ..base.clone()
            },
            "9 base addresses",
        ),
        (
            Inference {
                axi: AxiSettings {
                    regioncfg: [0, 0, 4, 0, 0, 0, 0, 0],
                    ..AxiSettings::default()
                },
                ..base.clone()
            },
            "REGIONCFG.region2 = 4",
        ),
        (
            Inference {
                axi: AxiSettings {
                    axi_limits: [
                        AxiLimit::U65_DEFAULT,
                        AxiLimit {
                            max_outstanding_reads: 0,
                            ..AxiLimit::U65_DEFAULT
                        },
                        AxiLimit::U65_DEFAULT,
                        AxiLimit::U65_DEFAULT,
                    ],
                    ..AxiSettings::default()
                },
                ..base.clone()
            },
            "AXI_LIMIT1",
        ),
    ];
    let transfers = tb.apb_transfers();
    for (inference, wanted) in cases {
        let err = invoke(&mut tb, &inference).unwrap_err();
        assert!(
            matches!(err, DriverError::Invalid(_)) && err.to_string().contains(wanted),
            "{wanted}: {err}"
        );
    }
    assert_eq!(tb.apb_transfers(), transfers, "the NPU was touched");
}
