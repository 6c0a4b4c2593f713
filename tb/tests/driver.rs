//! The driver against the RTL: the registers it programs (the U65 driver's
//! defaults and per-inference overrides) and the AXI monitor limits it sets,
//! a run to NPU_OP_STOP past an NPU_OP_IRQ, the errors it reports (faults
//! and timeouts name STATUS fields and QREAD), and its checks of an inference.

use npu_arch::regs::{self, Register};
use npu_model::cmdstream::{assemble, encode};
use npu_tb::axi::{AxiLimits, AxiPort, CompleterConfig, ErrorRange, Resp};
use npu_tb::driver::{invoke, invoke_async, wait, AxiLimit, AxiSettings, DriverError, Inference};
use npu_tb::npu::NpuTb;

fn reg(tb: &mut NpuTb, r: &Register) -> u32 {
    tb.read(r.address, 0b001).rdata
}

fn status_field(status: u32, name: &str) -> u32 {
    regs::STATUS.field(name).get(status)
}

/// Puts an assembled listing at `address`; returns its size.
fn place_stream(tb: &mut NpuTb, address: u64, listing: &str) -> u32 {
    let stream = encode(&assemble(listing).unwrap());
    tb.memory_mut().write(address, &stream);
    stream.len() as u32
}

#[test]
fn programs_the_u65_defaults_and_runs_to_the_stop() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let size = place_stream(&mut tb, 0x12_3456_7890, "NPU_OP_STOP 0xABCD");
    let inference = Inference::new(
        0x12_3456_7890,
        size,
        vec![0x10_0000_0000, 0xFF_FFFF_FFF0, 0x40],
    );
    let running = invoke_async(&mut tb, &inference).unwrap();
    let expected = [
        (regs::QBASE0, 0x3456_7890),
        (regs::QBASE1, 0x12),
        (regs::QSIZE, 4),
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
        // Started, with the clock and power Q-channels off.
        (regs::CMD, 1),
    ];
    for (r, value) in expected {
        assert_eq!(reg(&mut tb, &r), value, "{}", r.name);
    }
    // M0 carries counter 1 (regions 2-7), M1 counters 2 and 3.
    for (port, counters) in [(AxiPort::M0, 1), (AxiPort::M1, 2)] {
        assert_eq!(
            tb.axi_limits(port),
            AxiLimits {
                reads: 64 * counters,
                writes: 32 * counters,
                read_split: 64,
                write_split: 64,
            }
        );
    }

    let result = wait(&mut tb, running).unwrap();
    let status = result.state.status;
    assert_eq!(status_field(status, "state"), 0, "{}", result.state);
    assert_eq!(status_field(status, "irq_raised"), 1, "as the NPU stopped");
    assert_eq!(status_field(status, "irq_history_mask"), 0xABCD);
    assert_eq!((result.state.qread, result.irqs), (4, 0));
    assert!(result.cycles > 0);
    // The driver releases the Q-channels afterwards.
    assert_eq!(reg(&mut tb, &regs::CMD), 0xC);
    assert_eq!(tb.get("IRQ"), 0);
}

#[test]
fn an_irq_while_running_is_waited_past() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let size = place_stream(
        &mut tb,
        0x1000,
        "NPU_OP_IRQ 1\n\
         NPU_SET_DMA0_SRC_REGION 0\n\
         NPU_SET_DMA0_DST_REGION 1\n\
         NPU_SET_DMA0_LEN 0 8192\n\
         NPU_OP_DMA_START 0\n\
         NPU_OP_DMA_WAIT 0\n\
         NPU_OP_STOP 2",
    );
    let result = invoke(
        &mut tb,
        &Inference::new(0x1000, size, vec![0x10_0000, 0x20_0000]),
    )
    .unwrap();
    assert_eq!(result.irqs, 1, "{}", result.state);
    assert_eq!(status_field(result.state.status, "irq_history_mask"), 3);
    assert_eq!(result.state.qread, size);
}

#[test]
fn a_stream_the_npu_cannot_fetch_times_out_naming_status_and_qread() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    // QCONFIG 2: the command stream is read on M1, which never answers in time.
    tb.set_axi_config(
        AxiPort::M1,
        CompleterConfig {
            read_latency: 1_000_000,
            ..CompleterConfig::ideal()
        },
    );
    let size = place_stream(&mut tb, 0x1000, "NPU_OP_STOP 0");
    let inference = Inference {
        max_cycles: 500,
        ..Inference::new(0x1000, size, vec![])
    };
    let err = invoke(&mut tb, &inference).unwrap_err();
    let DriverError::Timeout { cycles, state } = &err else {
        panic!("not a timeout: {err}");
    };
    assert_eq!(*cycles, 500);
    assert!(state.running());
    let message = err.to_string();
    for word in [
        "did not stop within 500 cycles",
        "STATUS 0x00000001 (state=1)",
        "QREAD 0x0 of QSIZE 0x4",
    ] {
        assert!(message.contains(word), "{word} missing from: {message}");
    }
}

#[test]
fn faults_name_the_status_fields() {
    // A reserved opcode: STATUS.cmd_parse_error, QREAD at the command.
    let mut tb = NpuTb::new("u65-256").unwrap();
    let size = place_stream(&mut tb, 0x1000, "NPU_SET_DMA0_LEN 0 16");
    tb.memory_mut()
        .write(0x1000 + u64::from(size), &0x3FFu32.to_le_bytes());
    let err = invoke(&mut tb, &Inference::new(0x1000, size + 4, vec![])).unwrap_err();
    let DriverError::Fault { state, .. } = &err else {
        panic!("not a fault: {err}");
    };
    assert_eq!(status_field(state.status, "cmd_parse_error"), 1, "{err}");
    assert_eq!(state.qread, size);
    assert!(err.to_string().contains("cmd_parse_error=1"), "{err}");

    // A bus error fetching the stream: STATUS.bus_status, the command channel, M1.
    let mut tb = NpuTb::new("u65-256").unwrap();
    tb.set_axi_config(
        AxiPort::M1,
        CompleterConfig {
            errors: vec![ErrorRange {
                range: 0x1000..0x1010,
                resp: Resp::SlvErr,
            }],
            ..CompleterConfig::ideal()
        },
    );
    let size = place_stream(&mut tb, 0x1000, "NPU_OP_STOP 0");
    let err = invoke(&mut tb, &Inference::new(0x1000, size, vec![])).unwrap_err();
    let DriverError::Fault { state, .. } = &err else {
        panic!("not a fault: {err}");
    };
    let fields = ["bus_status", "faulting_channel", "faulting_interface"]
        .map(|f| status_field(state.status, f));
    assert_eq!(
        fields,
        [1, regs::FaultingChannel::CommandRead as u32, 1],
        "{err}"
    );
    assert!(err.to_string().contains("bus_status=1"), "{err}");
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
                limit(4, 7, 1, 0),
            ],
            qconfig: 1,
        },
        ..Inference::new(0x100, 4, vec![0x200; 8])
    };
    // The memory holds zeros: NPU_OP_STOP 0 at once.
    invoke(&mut tb, &inference).unwrap();
    let expected = [
        (regs::QCONFIG, 1),
        (regs::REGIONCFG, 0b00_01_10_11_11_10_01_00),
        (regs::AXI_LIMIT0, 0x0000_00B2),
        (regs::AXI_LIMIT1, 0x1F3F_0031),
        (regs::AXI_LIMIT2, 0x0402_0020),
        (regs::AXI_LIMIT3, 0x0603_0001),
        (regs::BASEP14, 0x200),
    ];
    for (r, value) in expected {
        assert_eq!(reg(&mut tb, &r), value, "{}", r.name);
    }
    // Reads and writes: the port's two counters.
    assert_eq!(
        tb.axi_limits(AxiPort::M0),
        AxiLimits {
            reads: 65,
            writes: 33,
            read_split: 256,
            write_split: 256,
        }
    );
    assert_eq!(
        tb.axi_limits(AxiPort::M1),
        AxiLimits {
            reads: 7,
            writes: 12,
            read_split: 128,
            write_split: 128,
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
