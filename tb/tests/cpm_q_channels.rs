//! Clock and power Q-channels (TRM 3.3.4.2-3.3.4.3, A.3, appendix C) driven
//! by controller models, with the LPI handshake checked on every edge by
//! the bench: acceptance when idle and enabled, denial while busy, the main
//! clock gate, DFTCGEN, and the power-down flow.

use npu_arch::command::Opcode;
use npu_arch::regs;
use npu_model::cmdstream::{encode, Command};
use npu_tb::apb::ApbRequest;
use npu_tb::axi::{AxiPort, CompleterConfig};
use npu_tb::driver::{self, Inference};
use npu_tb::npu::NpuTb;
use npu_tb::q_channel::{QChannel, QState};
use npu_tb::rtl_backend::{region_base, COMMAND_STREAM_BASE};

const SECURE_PRIVILEGED: u8 = 0b001;

fn cmd(clock_q_enable: bool, power_q_enable: bool) -> u32 {
    let c = regs::CMD
        .field("clock_q_enable")
        .set(0, u32::from(clock_q_enable));
    regs::CMD
        .field("power_q_enable")
        .set(c, u32::from(power_q_enable))
}

/// Starts an APB read of ID and keeps it in its access phase for `cycles`
/// cycles, returning whether PREADY stayed low throughout (so the read is
/// still pending).
fn apb_read_waits(tb: &mut NpuTb, cycles: u64) -> bool {
    let request = ApbRequest::read(regs::ID.address, SECURE_PRIVILEGED);
    let apb = tb.apb;
    apb.drive(&mut tb.model, Some(&request), false);
    tb.tick();
    apb.drive(&mut tb.model, Some(&request), true);
    let mut waited = true;
    for _ in 0..cycles {
        tb.model.eval();
        waited &= tb.get("PREADY") == 0;
        tb.tick();
    }
    waited
}

/// Finishes the read `apb_read_waits` started and returns its data.
fn finish_apb_read(tb: &mut NpuTb) -> u32 {
    for _ in 0..32 {
        tb.model.eval();
        if tb.get("PREADY") == 1 {
            let data = tb.get("PRDATA") as u32;
            tb.tick();
            let apb = tb.apb;
            apb.drive(&mut tb.model, None, false);
            return data;
        }
        tb.tick();
    }
    panic!("the APB read never completed");
}

#[test]
fn an_idle_npu_accepts_both_requests_and_the_clock_gate_stops_the_apb_completer() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let id = tb.read(regs::ID.address, SECURE_PRIVILEGED).rdata;
    // CMD resets to 0x0000000C: both Q-channels enabled (TRM 4.2.3).
    assert_eq!(
        tb.read(regs::CMD.address, SECURE_PRIVILEGED).rdata,
        cmd(true, true)
    );
    assert_eq!(tb.get("CLKQACTIVE"), 0);
    assert_eq!(tb.q_request(QChannel::Clock), QState::Stopped);
    assert_eq!(tb.q_request(QChannel::Power), QState::Stopped);

    // The gated clock holds the APB completer: the read waits (fewer cycles
    // than the APB monitor's hang limit)...
    assert!(
        apb_read_waits(&mut tb, 6),
        "an access completed with the clock gated"
    );
    // ...until the controllers let the NPU run again (LPI Q_EXIT).
    tb.set_q_request(QChannel::Power, false);
    tb.set_q_request(QChannel::Clock, false);
    assert_eq!(finish_apb_read(&mut tb), id);
    for channel in QChannel::ALL {
        tb.q_release(channel);
        assert_eq!(tb.q_state(channel), QState::Run);
    }
    assert_eq!(tb.read(regs::ID.address, SECURE_PRIVILEGED).rdata, id);
}

#[test]
fn dftcgen_holds_the_clock_gate_open() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    tb.set("DFTCGEN", 1);
    assert_eq!(tb.q_request(QChannel::Clock), QState::Stopped);
    // With the gate open the completer answers with no wait state.
    let read = tb.read(regs::ID.address, SECURE_PRIVILEGED);
    assert_eq!(
        (read.rdata, read.wait_states),
        (regs::ID.reset_value(0, false, false), 0)
    );
    tb.q_release(QChannel::Clock);
}

#[test]
fn pwakeup_raises_qactive_and_prevents_acceptance() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    tb.set("PWAKEUP", 1);
    tb.tick();
    for channel in QChannel::ALL {
        assert_eq!(tb.get(&format!("{}QACTIVE", channel.prefix())), 1);
        assert_eq!(tb.q_request(channel), QState::Denied, "{channel}");
        tb.q_release(channel);
    }
}

/// A long DMA with slow memory: while it runs both channels deny and QACTIVE is high.
#[test]
fn a_running_npu_denies_and_a_stopped_one_with_a_pending_irq_denies_too() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let slow = CompleterConfig {
        read_latency: 30,
        ..CompleterConfig::ideal()
    };
    for port in AxiPort::ALL {
        tb.set_axi_config(port, slow.clone());
    }
    let stream = encode(&[
        Command::cmd0(Opcode::NpuSetDma0SrcRegion, 0),
        Command::cmd0(Opcode::NpuSetDma0DstRegion, 1),
        Command::cmd1(Opcode::NpuSetDma0Len, 0, 32768),
        Command::cmd0(Opcode::NpuOpDmaStart, 0),
        Command::cmd0(Opcode::NpuOpStop, 1),
    ]);
    tb.memory_mut().write(COMMAND_STREAM_BASE, &stream);
    let inference = Inference::new(
        COMMAND_STREAM_BASE,
        stream.len() as u32,
        vec![region_base(0), region_base(1)],
    );
    // The driver turns both enables off while it runs (its power request);
    // enable them again so only the NPU's activity can refuse.
    let _running = driver::invoke_async(&mut tb, &inference).unwrap();
    tb.write(regs::CMD.address, cmd(true, true), SECURE_PRIVILEGED);
    tb.cycles(100);
    for channel in QChannel::ALL {
        assert_eq!(tb.get(&format!("{}QACTIVE", channel.prefix())), 1);
        assert_eq!(
            tb.q_request(channel),
            QState::Denied,
            "{channel} while running"
        );
        tb.q_release(channel);
    }

    // Stopped with IRQ raised: still denied ("all interrupts must be cleared
    // for power down to occur", TRM appendix C).
    while tb.get("IRQ") == 0 {
        tb.tick();
    }
    let status = tb.read(regs::STATUS.address, SECURE_PRIVILEGED).rdata;
    assert_eq!(regs::STATUS.field("state").get(status), 0);
    assert_eq!(tb.q_request(QChannel::Power), QState::Denied);
    tb.q_release(QChannel::Power);

    // TRM appendix C power-down flow: acknowledge the IRQ, then CMD with
    // power_q_enable set; the power controller's request is accepted.
    let clear = regs::CMD.field("clear_irq").set(cmd(false, true), 1);
    tb.write(regs::CMD.address, clear, SECURE_PRIVILEGED);
    tb.cycles(4);
    assert_eq!(tb.get("IRQ"), 0);
    assert_eq!(tb.get("PWRQACTIVE"), 0);
    assert_eq!(tb.q_request(QChannel::Power), QState::Stopped);
    assert_eq!(
        tb.q_request(QChannel::Clock),
        QState::Denied,
        "clock_q_enable is 0"
    );
    tb.q_release(QChannel::Clock);
    tb.q_release(QChannel::Power);
    assert_eq!(
        tb.memory().read_vec(region_base(1), 32768),
        tb.memory().read_vec(region_base(0), 32768)
    );
}
