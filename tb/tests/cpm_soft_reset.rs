//! Soft reset (TRM 3.3.4.1, 4.2.4, appendix C): a RESET write drains the
//! DMA, resets the NPU, clears the shared buffer, then applies the new PROT;
//! meanwhile only STATUS.reset_status reads non-zero and writes are ignored.

use npu_arch::command::Opcode;
use npu_arch::regs::{self, REGISTERS};
use npu_arch::shared_buffer::LUT_BYTES;
use npu_model::cmdstream::{encode, Command};
use npu_tb::axi::{AxiPort, CompleterConfig};
use npu_tb::driver::{self, Inference};
use npu_tb::npu::NpuTb;
use npu_tb::register_model::assert_soft_reset_done;
use npu_tb::rtl_backend::{region_base, COMMAND_STREAM_BASE};
use npu_tb::seed::seed;
use npu_tb::shram::{lut_copy_contents, shram_contents};

const SECURE_PRIVILEGED: u8 = 0b001;

fn status(tb: &mut NpuTb) -> u32 {
    tb.read(regs::STATUS.address, SECURE_PRIVILEGED).rdata
}

fn reset_status(tb: &mut NpuTb) -> u32 {
    regs::STATUS.field("reset_status").get(status(tb))
}

fn prot(tb: &mut NpuTb) -> u32 {
    tb.read(regs::PROT.address, SECURE_PRIVILEGED).rdata
}

/// Bytes of each core's shared buffer, and of its LUT area at its end (TRM 4.9.1).
const SHRAM_BYTES: u32 = 48 * 1024;

/// A 64 KB copy from region 0 to region 1, and 4 KB copies into the start
/// and 2 KB into the LUT area of each core's shared buffer, ending in
/// NPU_OP_STOP.
fn traffic() -> Vec<u8> {
    let copy = |dst: u16, at: u32, len: u32| {
        [
            Command::cmd0(Opcode::NpuSetDma0SrcRegion, 0),
            Command::cmd0(Opcode::NpuSetDma0DstRegion, dst),
            Command::cmd1(Opcode::NpuSetDma0Src, 0, 0),
            Command::cmd1(Opcode::NpuSetDma0Dst, 0, at),
            Command::cmd1(Opcode::NpuSetDma0Len, 0, len),
            Command::cmd0(Opcode::NpuOpDmaStart, 0),
        ]
    };
    let mut commands = vec![];
    // Destination region bit 8: the shared buffer of cores 0 and 1.
    commands.extend(copy(0x100 | 3, 0, 4096));
    commands.extend(copy(
        0x100 | 3,
        SHRAM_BYTES - LUT_BYTES as u32,
        LUT_BYTES as u32,
    ));
    commands.extend(copy(1, 0, 65536));
    commands.push(Command::cmd0(Opcode::NpuOpStop, 1));
    encode(&commands)
}

fn start_traffic(tb: &mut NpuTb) -> driver::Running {
    let stream = traffic();
    let data: Vec<u8> = (0..65536u32).map(|i| (i * 31 + 7) as u8).collect();
    tb.memory_mut().write(region_base(0), &data);
    tb.memory_mut().write(COMMAND_STREAM_BASE, &stream);
    let inference = Inference::new(
        COMMAND_STREAM_BASE,
        stream.len() as u32,
        vec![region_base(0), region_base(1)],
    );
    driver::invoke_async(tb, &inference).unwrap()
}

#[test]
fn a_soft_reset_during_dma_traffic_drains_resets_and_clears_the_shared_buffer() {
    for config in ["u65-256", "u65-512"] {
        let mut tb = NpuTb::new(config).unwrap();
        let latency = CompleterConfig {
            read_latency: 20,
            write_latency: 20,
            ready_probability: 0.7,
            response_probability: 0.7,
            reorder: true,
            errors: vec![],
            address_map: None,
            max_reads: None,
            max_writes: None,
            bytes_per_cycle: None,
        };
        tb.set_axi_seed(seed());
        for port in AxiPort::ALL {
            tb.set_axi_config(port, latency.clone());
        }
        let _running = start_traffic(&mut tb);
        // Until the shared-buffer copy is done and the long copy is under way
        // (region 1 is on M1, `AxiSettings::default`).
        let mut cycles = 0;
        while tb.axi_counters(AxiPort::M1).bytes_written < 4096 {
            tb.tick();
            cycles += 1;
            assert!(cycles < 100_000, "{config}: the copy did not start");
        }
        assert!(
            shram_contents(&tb)
                .iter()
                .all(|bank| bank[..4096].iter().any(|&b| b != 0)),
            "{config}: the shared buffers hold the copied bytes"
        );
        assert!(
            lut_copy_contents(&tb)
                .iter()
                .all(|lut| lut.iter().any(|&b| b != 0)),
            "{config}: the LUT copies hold the bytes copied into the LUT areas"
        );
        assert!(!tb.axi_idle(), "{config}: transactions in flight");
        tb.write(regs::QBASE0.address, 0x1234, SECURE_PRIVILEGED);
        tb.write(regs::RESET.address, 0, SECURE_PRIVILEGED);

        // While it runs: STATUS shows only reset_status, every other register
        // reads 0, writes are ignored.
        assert_eq!(status(&mut tb), regs::STATUS.field("reset_status").mask());
        for r in REGISTERS
            .iter()
            .filter(|r| r.address != regs::STATUS.address)
        {
            assert_eq!(
                tb.read(r.address, SECURE_PRIVILEGED).rdata,
                0,
                "{config}: {} during the reset",
                r.name
            );
        }
        tb.write(regs::QSIZE.address, 0x40, SECURE_PRIVILEGED);

        // Every transaction completed (the monitors saw no violation), every
        // register is at its reset value, the shared and accumulator
        // buffers are zero.
        assert_soft_reset_done(&mut tb, config);
        let quiet = AxiPort::ALL.map(|p| tb.axi_counters(p));
        tb.cycles(200);
        assert_eq!(AxiPort::ALL.map(|p| tb.axi_counters(p)), quiet);
        assert_eq!(tb.get("IRQ"), 0);
    }
}

/// Arm's core driver soft-resets before every inference and polls
/// reset_status: the reset (the RAM clears in parallel: each shared-buffer
/// bank and LUT copy 8 macros wide, the accumulators 2) takes at most 512
/// cycles on an idle NPU, on both configurations.
#[test]
fn a_soft_reset_of_an_idle_npu_takes_at_most_512_cycles() {
    for config in ["u65-256", "u65-512"] {
        let mut tb = NpuTb::new(config).unwrap();
        let start = tb.model.cycle();
        tb.write(regs::RESET.address, 0, SECURE_PRIVILEGED);
        while reset_status(&mut tb) != 0 {
            assert!(
                tb.model.cycle() - start < 100_000,
                "{config}: the reset hangs"
            );
        }
        let cycles = tb.model.cycle() - start;
        println!("{config}: soft reset in {cycles} cycles");
        assert!(
            cycles <= 512,
            "{config}: the soft reset took {cycles} cycles"
        );
        assert_soft_reset_done(&mut tb, config);
    }
}

/// TRM 3.3.4.1: after a soft reset active_CSL = pending_CSL if PPROT[1] is 0,
/// else 1; active_CPL = pending_CPL if PPROT[0] is 1, else 0. TRM 4.1: the
/// write is permitted iff PPROT[0] >= CPL and PPROT[1] <= CNS; otherwise it
/// does nothing.
#[test]
fn every_prot_transition_rule() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    for (porpl, porsl) in [(false, false), (true, false), (false, true), (true, true)] {
        for pprot in 0..4u8 {
            for pending in 0..4u32 {
                tb.hard_reset(porpl, porsl);
                let (cpl, cns) = (u8::from(porpl), u8::from(porsl));
                let before = prot(&mut tb);
                assert_eq!(before, u32::from(cpl) | (u32::from(cns) << 1));
                let permitted = (pprot & 1) >= cpl && (pprot >> 1) <= cns;
                tb.write(regs::QBASE0.address, 0x40, SECURE_PRIVILEGED);
                tb.write(regs::RESET.address, pending, pprot);
                let case =
                    format!("PROT {before:#b}, RESET {pending:#b} written with PPROT {pprot:#b}");
                if permitted {
                    assert_eq!(reset_status(&mut tb), 1, "{case}: a reset starts");
                    tb.wait_for_reset();
                    let csl = if pprot & 2 == 0 { pending >> 1 } else { 1 };
                    let cpl = if pprot & 1 == 1 { pending & 1 } else { 0 };
                    assert_eq!(prot(&mut tb), cpl | (csl << 1), "{case}");
                    assert_eq!(
                        tb.read(regs::QBASE0.address, SECURE_PRIVILEGED).rdata,
                        0,
                        "{case}: registers reset"
                    );
                } else {
                    tb.cycles(20);
                    assert_eq!(reset_status(&mut tb), 0, "{case}: no reset");
                    assert_eq!(prot(&mut tb), before, "{case}");
                    assert_eq!(
                        tb.read(regs::QBASE0.address, SECURE_PRIVILEGED).rdata,
                        0x40,
                        "{case}: registers kept"
                    );
                }
            }
        }
    }
}

/// TRM appendix C boot flow: nRESET, CMD (power_q_enable 0, clock_q_enable
/// 1), a soft reset polled through reset_status, CMD again; then the NPU runs.
#[test]
fn boot_flow_then_a_run() {
    let mut tb = NpuTb::new("u65-512").unwrap();
    tb.hard_reset(false, false);
    let cmd = regs::CMD.field("clock_q_enable").set(0, 1);
    tb.write(regs::CMD.address, cmd, SECURE_PRIVILEGED);
    tb.write(regs::RESET.address, 0, SECURE_PRIVILEGED);
    let mut polls = 0;
    while reset_status(&mut tb) == 1 {
        polls += 1;
        assert!(polls < 10_000, "the soft reset never ends");
    }
    assert!(polls > 0, "the soft reset takes some cycles");
    tb.write(regs::CMD.address, cmd, SECURE_PRIVILEGED);
    assert_eq!(tb.read(regs::CMD.address, SECURE_PRIVILEGED).rdata, cmd);
    let running = start_traffic(&mut tb);
    let result = driver::wait(&mut tb, running).unwrap();
    assert!(!result.state.running());
    assert_eq!(
        tb.memory().read_vec(region_base(1), 65536),
        tb.memory().read_vec(region_base(0), 65536)
    );
}
