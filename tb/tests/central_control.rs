//! The central control on the RTL (TRM 4.2.2-4.2.9, 4.6): STOP and IRQ,
//! parse errors, the end of a stream without STOP, CMD's clear bits, QREAD,
//! and restarts, with STATUS compared against the golden model where the
//! golden model defines it.

use npu_arch::command::{encode_word, CmdKind, ElementwiseMode, Opcode, PoolingMode};
use npu_arch::config::NpuConfig;
use npu_arch::regs;
use npu_model::cmdstream::{decode, encode, encode_words, Command};
use npu_model::compare::difference;
use npu_model::job::{Backend, GoldenBackend};
use npu_model::npu::Npu;
use npu_model::tensor::DType;
use npu_tb::conv_jobs::{chain, ConvKind, ConvSpec};
use npu_tb::driver::{self, DriverError, Inference, InvokeResult, NpuState};
use npu_tb::npu::NpuTb;
use npu_tb::rtl_backend::{region_base, RtlBackend, COMMAND_STREAM_BASE};
use rand::rngs::StdRng;
use rand::SeedableRng;

use npu_model::driver::HOST_PPROT;

fn bench() -> NpuTb {
    NpuTb::new("u65-256").unwrap()
}

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Places `stream` in memory and runs it through the driver.
fn run(tb: &mut NpuTb, stream: &[u8]) -> Result<InvokeResult, DriverError> {
    tb.memory_mut().write(COMMAND_STREAM_BASE, stream);
    let inference = Inference {
        max_cycles: 20_000,
        ..Inference::new(
            COMMAND_STREAM_BASE,
            stream.len() as u32,
            vec![region_base(0), region_base(1)],
        )
    };
    driver::invoke(tb, &inference)
}

/// STATUS as the golden model leaves it after `stream`.
fn golden_status(stream: &[u8]) -> u32 {
    let mut npu = Npu::new(NpuConfig::u65_256());
    let _ = npu.run(stream);
    npu.status.register()
}

fn field(status: u32, name: &str) -> u32 {
    regs::STATUS.field(name).get(status)
}

/// STATUS without irq_raised, which the driver clears once it sees the IRQ.
fn cleared(status: u32) -> u32 {
    status & !regs::STATUS.field("irq_raised").mask()
}

fn read(tb: &mut NpuTb, register: &regs::Register) -> u32 {
    tb.read(register.address, HOST_PPROT).rdata
}

fn fault(result: Result<InvokeResult, DriverError>) -> NpuState {
    match result {
        Err(DriverError::Fault { state, .. }) => state,
        other => panic!("expected the NPU to stop on an error, got {other:?}"),
    }
}

#[test]
fn irq_keeps_running_stop_stops_and_both_set_the_irq_history() {
    let stream = encode(&[
        Command::cmd0(Opcode::NpuOpIrq, 0x0005),
        Command::cmd0(Opcode::NpuSetIfmPadTop, 3),
        Command::cmd0(Opcode::NpuOpKernelWait, 0),
        Command::cmd0(Opcode::NpuOpPmuMask, 1),
        Command::cmd0(Opcode::NpuOpStop, 0x0100),
    ]);
    // TRM 4.6.4: commands after NPU_OP_STOP are not started; a reserved
    // opcode there would be a parse error if they were.
    let mut with_tail = stream.clone();
    with_tail.extend(encode_word(CmdKind::Cmd0, 0x007, 0).to_le_bytes());
    let mut tb = bench();
    let result = run(&mut tb, &with_tail).unwrap();
    assert_eq!(result.irqs, 1, "NPU_OP_IRQ raised one IRQ before the STOP");
    assert_eq!(
        cleared(result.state.status),
        cleared(golden_status(&stream)),
        "{}",
        result.state
    );
    assert_eq!(field(result.state.status, "irq_history_mask"), 0x0105);
    assert_eq!(
        result.state.qread as usize,
        stream.len(),
        "QREAD is past the STOP"
    );
    assert_eq!(tb.get("IRQ"), 0, "CMD.clear_irq lowers IRQ");
}

/// Each stream is a valid command, then the faulty one at byte 4.
fn parse_error_at_4(faulty: &[u32], golden_agrees: bool) {
    let mut words = encode_words(&[Command::cmd0(Opcode::NpuSetIfmPadLeft, 1)]);
    words.extend_from_slice(faulty);
    let stream = words_to_bytes(&words);
    let mut tb = bench();
    let state = fault(run(&mut tb, &stream));
    assert_eq!(field(state.status, "cmd_parse_error"), 1, "{state}");
    assert_eq!(field(state.status, "state"), 0, "{state}");
    assert_eq!(state.qread, 4, "QREAD stays at the faulty command: {state}");
    if golden_agrees {
        assert_eq!(cleared(state.status), cleared(golden_status(&stream)));
    }
    // Errors are cleared only by reset (TRM 4.2.2): a new start is ignored.
    let reads = tb.axi_counters(npu_tb::axi::AxiPort::M1).read_transactions;
    tb.write(regs::CMD.address, 1, HOST_PPROT);
    tb.cycles(50);
    let status = read(&mut tb, &regs::STATUS);
    assert_eq!(field(status, "state"), 0);
    assert_eq!(
        tb.axi_counters(npu_tb::axi::AxiPort::M1).read_transactions,
        reads,
        "no command fetch after an error"
    );
}

#[test]
fn a_reserved_cmd0_opcode_is_a_parse_error() {
    parse_error_at_4(&[encode_word(CmdKind::Cmd0, 0x007, 0)], true);
}

#[test]
fn a_reserved_cmd1_opcode_is_a_parse_error() {
    parse_error_at_4(&[encode_word(CmdKind::Cmd1, 0x07f, 0), 0], true);
}

#[test]
fn format_bits_other_than_cmd0_and_cmd1_are_a_parse_error() {
    // TRM table 4-107: bits 15:10 are 000000 (cmd0) or 010000 (cmd1).
    parse_error_at_4(&[0x0000_0400], true);
}

#[test]
fn a_cmd1_cut_off_by_the_end_of_the_stream_is_a_parse_error() {
    let word = encode_words(&[Command::cmd1(Opcode::NpuSetDma0Src, 0, 0)])[0];
    parse_error_at_4(&[word], true);
}

#[test]
fn a_dma_command_for_a_channel_other_than_0_is_a_parse_error() {
    // TRM 4.6.4: one user channel; the parameter is 16 * channel (+ k).
    parse_error_at_4(
        &[encode_word(CmdKind::Cmd0, Opcode::NpuOpDmaStart.code(), 16)],
        false,
    );
    parse_error_at_4(
        &[encode_word(CmdKind::Cmd0, Opcode::NpuOpDmaWait.code(), 16)],
        false,
    );
}

/// Kernel operations the TRM does not define stop the stream visibly:
/// pooling modes beyond 2 (TRM 4.6.4: 0 max, 1 average, 2 REDUCE_SUM),
/// elementwise modes beyond 9 (SHL), and elementwise types table 4-124
/// does not list (here CLZ and SHR of the reset state's uint8 IFM).
#[test]
fn unknown_pooling_and_elementwise_modes_and_types_are_refused() {
    for (op, param) in [
        (Opcode::NpuOpPool, 3),
        (Opcode::NpuOpElementwise, 10),
        (Opcode::NpuOpElementwise, ElementwiseMode::Clz.bits() as u16),
        (Opcode::NpuOpElementwise, ElementwiseMode::Shr.bits() as u16),
    ] {
        parse_error_at_4(&[encode_word(CmdKind::Cmd0, op.code(), param)], false);
    }
}

/// An int32 IFM is for REDUCE_SUM and elementwise operations only (TRM
/// 4.8.2 tables 4-120, 4-122, 4-124, 4-125), and its zero point must be 0
/// (TRM 4.6.4 NPU_SET_IFM_ZERO_POINT): a convolution, depthwise or
/// max/average pool with one, or a REDUCE_SUM with a zero point, stops the
/// stream with cmd_parse_error, QREAD at the operation, as the golden model
/// refuses it.
#[test]
fn int32_ifms_outside_reduce_sum_and_elementwise_are_refused() {
    let precision = Opcode::NpuSetIfmPrecision;
    let value = [("activation_type", 1), ("activation_precision", 2)]
        .iter()
        .fold(0, |v, &(name, x)| precision.field(name).set(v, x));
    let reduce_sum = PoolingMode::ReduceSum.bits() as u16;
    for (op, param, zero_point) in [
        (Opcode::NpuOpConv, 0, 0),
        (Opcode::NpuOpDepthwise, 0, 0),
        (Opcode::NpuOpPool, PoolingMode::Max.bits() as u16, 0),
        (Opcode::NpuOpPool, PoolingMode::Average.bits() as u16, 0),
        (Opcode::NpuOpPool, reduce_sum, 3),
    ] {
        let stream = encode(&[
            Command::cmd0(precision, value as u16),
            Command::cmd0(Opcode::NpuSetIfmZeroPoint, zero_point),
            Command::cmd0(op, param),
            Command::cmd0(Opcode::NpuOpStop, 0),
        ]);
        let what = format!("{op:?} {param}, zero point {zero_point}");
        let mut tb = NpuTb::new("u65-256").unwrap();
        let state = fault(run(&mut tb, &stream));
        assert_eq!(field(state.status, "cmd_parse_error"), 1, "{what}: {state}");
        assert_eq!(
            state.qread, 8,
            "{what}: QREAD stays at the operation: {state}"
        );
        assert_eq!(
            cleared(state.status),
            cleared(golden_status(&stream)),
            "{what}: STATUS against the golden model"
        );
    }
}

/// NPU_SET_PARALLEL_MODE 1 is for the two cores of u65-512 only (TRM
/// 4.7.5.1): on u65-256 a convolution with it stops the stream visibly, as
/// the golden model refuses it.
#[test]
fn parallel_mode_is_refused_on_one_core() {
    let stream = encode(&[
        Command::cmd0(Opcode::NpuSetParallelMode, 1),
        Command::cmd0(Opcode::NpuOpConv, 0),
        Command::cmd0(Opcode::NpuOpStop, 0),
    ]);
    let mut tb = bench();
    let state = fault(run(&mut tb, &stream));
    assert_eq!(field(state.status, "cmd_parse_error"), 1, "{state}");
    assert_eq!(field(state.status, "state"), 0, "{state}");
    assert_eq!(state.qread, 4, "QREAD stays at the operation: {state}");
}

#[test]
fn a_qsize_that_is_not_a_multiple_of_4_is_a_parse_error_before_any_fetch() {
    let mut tb = bench();
    tb.write(regs::QBASE0.address, 0x1000, HOST_PPROT);
    tb.write(regs::QSIZE.address, 6, HOST_PPROT);
    tb.write(regs::CMD.address, 1, HOST_PPROT);
    tb.cycles(20);
    let status = read(&mut tb, &regs::STATUS);
    assert_eq!(field(status, "cmd_parse_error"), 1);
    assert_eq!(field(status, "irq_raised"), 1);
    assert_eq!(field(status, "state"), 0);
    assert_eq!(tb.get("IRQ"), 1);
    for port in npu_tb::axi::AxiPort::ALL {
        assert_eq!(tb.axi_counters(port).read_transactions, 0);
    }
}

#[test]
fn a_stream_without_stop_ends_with_cmd_end_reached_and_no_irq() {
    let stream = encode(&[
        Command::cmd0(Opcode::NpuSetIfmPadTop, 1),
        Command::cmd1(Opcode::NpuSetIfmBase0, 0, 0x40),
    ]);
    let mut tb = bench();
    tb.memory_mut().write(COMMAND_STREAM_BASE, &stream);
    let inference = Inference::new(COMMAND_STREAM_BASE, stream.len() as u32, vec![]);
    let _started = driver::invoke_async(&mut tb, &inference).unwrap();
    let mut status = read(&mut tb, &regs::STATUS);
    for _ in 0..200 {
        if field(status, "state") == 0 {
            break;
        }
        status = read(&mut tb, &regs::STATUS);
    }
    assert_eq!(status, golden_status(&stream), "STATUS {status:#x}");
    assert_eq!(field(status, "cmd_end_reached"), 1);
    assert_eq!(tb.get("IRQ"), 0, "the end of a stream raises no IRQ");
    assert_eq!(read(&mut tb, &regs::QREAD) as usize, stream.len());

    // TRM 4.2.2: writing QBASE or QSIZE while stopped clears it.
    for register in [regs::QSIZE, regs::QBASE0, regs::QBASE1] {
        let _started = driver::invoke_async(&mut tb, &inference).unwrap();
        tb.cycles(200);
        let status = read(&mut tb, &regs::STATUS);
        assert_eq!(field(status, "cmd_end_reached"), 1, "{}", register.name);
        let value = read(&mut tb, &register);
        tb.write(register.address, value, HOST_PPROT);
        let status = read(&mut tb, &regs::STATUS);
        assert_eq!(field(status, "cmd_end_reached"), 0, "{}", register.name);
    }
}

#[test]
fn cmd_clears_irq_history_bits_one_by_one() {
    let stream = encode(&[
        Command::cmd0(Opcode::NpuOpIrq, 0xF0F0),
        Command::cmd0(Opcode::NpuOpStop, 0x000F),
    ]);
    let mut tb = bench();
    let result = run(&mut tb, &stream).unwrap();
    assert_eq!(field(result.state.status, "irq_history_mask"), 0xF0FF);
    let clear = regs::CMD.field("clear_irq_history").set(0, 0x00F1);
    tb.write(regs::CMD.address, clear, HOST_PPROT);
    let status = read(&mut tb, &regs::STATUS);
    assert_eq!(field(status, "irq_history_mask"), 0xF00E);
    assert_eq!(field(status, "irq_raised"), 0);
}

#[test]
fn every_run_starts_at_qbase_and_a_second_stream_runs_after_a_stop() {
    let mut tb = bench();
    for (n, mask) in [(0u32, 0x0001u32), (1, 0x0002)] {
        let stream = encode(&[
            Command::cmd0(Opcode::NpuSetDma0SrcRegion, 0),
            Command::cmd0(Opcode::NpuSetDma0DstRegion, 1),
            Command::cmd1(Opcode::NpuSetDma0Src, 0, 16 * n),
            Command::cmd1(Opcode::NpuSetDma0Dst, 0, 16 * n),
            Command::cmd1(Opcode::NpuSetDma0Len, 0, 16),
            Command::cmd0(Opcode::NpuOpDmaStart, 0),
            Command::cmd0(Opcode::NpuOpStop, mask as u16),
        ]);
        let data: Vec<u8> = (0..16).map(|i| (i + 16 * n) as u8 ^ 0x5a).collect();
        tb.memory_mut()
            .write(region_base(0) + 16 * u64::from(n), &data);
        let result = run(&mut tb, &stream).unwrap();
        assert_eq!(result.state.qread as usize, stream.len());
        // The driver soft-resets the NPU before each run: only this run's mask.
        assert_eq!(field(result.state.status, "irq_history_mask"), mask);
        assert_eq!(
            tb.memory().read_vec(region_base(1) + 16 * u64::from(n), 16),
            data,
            "run {n}"
        );
    }
}

#[test]
fn a_stream_without_stop_stops_only_once_its_operations_are_complete() {
    // The fuzzer's case (seed 2911, stream 277): a convolution was the
    // stream's last command, and the NPU stopped with cmd_end_reached while
    // it still ran, so the host read an OFM half written. The same stream
    // with NPU_OP_STOP shows when the operation is complete: the NPU
    // without it may not be seen stopped sooner (the driver reads STATUS
    // at once on an IRQ, every 1,024 cycles without one).
    let seed = npu_tb::seed::seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let spec = ConvSpec::new(ConvKind::Conv, DType::I8, [8, 8, 32], 64, [3, 3]);
    let with_stop = chain(&[spec], &[0], &mut rng).job;
    let commands = decode(&with_stop.command_stream).expect("the chain's stream decodes");
    assert_eq!(
        commands.last().map(|c| c.op),
        Some(Opcode::NpuOpStop),
        "seed {seed}: the stream's last command"
    );
    let mut without_stop = with_stop.clone();
    without_stop.command_stream = encode(&commands[..commands.len() - 1]);

    let mut rtl = RtlBackend::default();
    let stopped = rtl.run(&with_stop, &mut |_, _| {}).unwrap().cycles.unwrap();
    let run = rtl.run(&without_stop, &mut |_, _| {}).unwrap();
    let golden = GoldenBackend::default()
        .run(&without_stop, &mut |_, _| {})
        .unwrap();
    if let Some(d) = difference(&golden, &run) {
        panic!("seed {seed}: the RTL differs from the golden model: {d}");
    }
    assert_eq!(field(run.status, "cmd_end_reached"), 1, "seed {seed}");
    let seen = run.cycles.unwrap();
    assert!(
        seen + 64 >= stopped,
        "seed {seed}: seen stopped at {seen} cycles without NPU_OP_STOP, at {stopped} with it"
    );
}
