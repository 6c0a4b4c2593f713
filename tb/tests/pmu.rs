//! The PMU (TRM 4.5) through the APB and AXI ports: its registers, the cycle
//! and event counters with their enables and reset bits, overflow flags and
//! the PMU interrupt (STATUS.pmu_irq_raised, IRQ, CMD.clear_irq),
//! NPU_OP_PMU_MASK, the AXI events, which must equal what the AXI memory
//! models served in the same window, and the datapath events of
//! convolutions, which must equal the beats their schedule fixes.
//!
//! Counting windows are exact: two APB writes take the same number of
//! cycles, so the cycles between their starts are the edges between the
//! ones at which they act.

use npu_arch::command::Opcode;
use npu_arch::config::NpuConfig;
use npu_arch::pmu::{self, Event, Unit};
use npu_arch::regs::{self, Register, PMU_EVENT_COUNTERS};
use npu_model::cmdstream::{encode, Command};
use npu_model::tensor::DType;
use npu_tb::axi::{AxiPort, CompleterConfig, Counters};
use npu_tb::conv_jobs::{golden_run, random_job, ConvJob, ConvKind, ConvSpec};
use npu_tb::driver::{self, AxiLimit, AxiSettings, Inference, InvokeResult};
use npu_tb::npu::NpuTb;
use npu_tb::rtl_backend::{region_base, COMMAND_STREAM_BASE};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;

/// Secure privileged APB accesses, permitted whatever PROT is (TRM 4.1).
const HOST: u8 = 0b001;

fn write(tb: &mut NpuTb, r: &Register, value: u32) {
    let response = tb.write(r.address, value, HOST);
    assert!(!response.slverr, "write of {}", r.name);
}

fn read(tb: &mut NpuTb, r: &Register) -> u32 {
    let response = tb.read(r.address, HOST);
    assert!(!response.slverr, "read of {}", r.name);
    response.rdata
}

fn pmcr(fields: &[&str]) -> u32 {
    fields.iter().fold(0, |v, f| v | regs::PMCR.field(f).mask())
}

/// The bit of counter `k` (`None`: the cycle counter) in a set/clear pair.
fn bit(r: &Register, counter: Option<usize>) -> u32 {
    let field = r
        .fields
        .iter()
        .find(|f| match counter {
            None => f.name.starts_with("CYCLE_CNT"),
            Some(k) => f.name.starts_with(&format!("EVENT_CNT_{k}")),
        })
        .expect("a field per counter");
    field.mask()
}

fn pmu_irq_raised(tb: &mut NpuTb) -> bool {
    regs::STATUS
        .field("pmu_irq_raised")
        .get(read(tb, &regs::STATUS))
        != 0
}

fn cycle_count(tb: &mut NpuTb) -> u64 {
    u64::from(read(tb, &regs::PMCCNTR_LO)) | (u64::from(read(tb, &regs::PMCCNTR_HI)) << 32)
}

fn event_counts(tb: &mut NpuTb) -> [u32; PMU_EVENT_COUNTERS] {
    regs::PMU_EVCNTR.map(|r| read(tb, &r))
}

/// What a PMU configuration counts.
#[derive(Clone, Copy, Debug)]
struct Setup {
    events: [u16; PMU_EVENT_COUNTERS],
    /// PMCR fields besides cnt_en (mask_en).
    pmcr: u32,
    axi_channel: u32,
}

impl Setup {
    fn events(events: [&Event; PMU_EVENT_COUNTERS]) -> Self {
        Self {
            events: events.map(|e| e.code),
            pmcr: 0,
            axi_channel: 0,
        }
    }
}

/// Sets the counters up from zero with every counter enabled, no flags and
/// no interrupts, and starts counting.
fn start_counting(tb: &mut NpuTb, setup: &Setup) {
    let all = regs::PMCNTENSET.stored_mask();
    for (r, &code) in regs::PMU_EVTYPER.iter().zip(&setup.events) {
        write(tb, r, u32::from(code));
    }
    write(tb, &regs::PMCAXI_CHAN, setup.axi_channel);
    write(tb, &regs::PMOVSCLR, all);
    write(tb, &regs::PMINTCLR, all);
    write(tb, &regs::PMCNTENSET, all);
    write(
        tb,
        &regs::PMCR,
        setup.pmcr | pmcr(&["cnt_en", "event_cnt_rst", "cycle_cnt_rst"]),
    );
}

fn stop_counting(tb: &mut NpuTb) {
    write(tb, &regs::PMCR, 0);
}

/// A bench whose NPU clock is forced on (CMD.clock_q_enable = 0), so the
/// PMU counts every cycle: TRM 4.5 says the PMU counts the clock after the
/// main clock gate, which otherwise stops while the NPU is idle.
fn ungated_bench() -> NpuTb {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let cmd = regs::CMD.field("power_q_enable").set(0, 1);
    write(&mut tb, &regs::CMD, cmd);
    tb
}

// ---- Registers ----

#[test]
fn pmu_registers_hold_what_is_written_while_nothing_counts() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = NpuTb::new("u65-256").unwrap();
    // TRM 4.5.1: four counters, reset 0x2000.
    assert_eq!(
        regs::PMCR
            .field("num_event_cnt")
            .get(read(&mut tb, &regs::PMCR)),
        PMU_EVENT_COUNTERS as u32
    );
    for _ in 0..20 {
        let low: u32 = rng.gen();
        let high: u32 = rng.gen();
        write(&mut tb, &regs::PMCCNTR_LO, low);
        write(&mut tb, &regs::PMCCNTR_HI, high);
        assert_eq!(read(&mut tb, &regs::PMCCNTR_LO), low);
        assert_eq!(read(&mut tb, &regs::PMCCNTR_HI), high & 0xFFFF, "48 bits");
        for k in 0..PMU_EVENT_COUNTERS {
            let (count, event_type): (u32, u32) = (rng.gen(), rng.gen());
            write(&mut tb, &regs::PMU_EVCNTR[k], count);
            write(&mut tb, &regs::PMU_EVTYPER[k], event_type);
            assert_eq!(read(&mut tb, &regs::PMU_EVCNTR[k]), count);
            assert_eq!(
                read(&mut tb, &regs::PMU_EVTYPER[k]),
                event_type & 0x3FF,
                "EV_TYPE is 10 bits"
            );
        }
        let chan: u32 = rng.gen();
        write(&mut tb, &regs::PMCAXI_CHAN, chan);
        assert_eq!(read(&mut tb, &regs::PMCAXI_CHAN), chan & 0x70F);
        // mask_en and cnt_en stay 0: nothing counts while the values are checked.
        let stored = rng.gen::<u32>() & !pmcr(&["cnt_en"]);
        write(&mut tb, &regs::PMCR, stored);
        assert_eq!(
            read(&mut tb, &regs::PMCR),
            0x2000 | (stored & pmcr(&["mask_en"]))
        );
    }
}

// ---- Counting ----

#[test]
fn cycle_counter_counts_every_cycle_between_enable_and_disable() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = ungated_bench();
    write(&mut tb, &regs::PMCNTENSET, bit(&regs::PMCNTENSET, None));
    for _ in 0..5 {
        let wait = rng.gen_range(0..400);
        let start = tb.model.cycle();
        write(
            &mut tb,
            &regs::PMCR,
            pmcr(&["cnt_en", "cycle_cnt_rst", "event_cnt_rst"]),
        );
        tb.cycles(wait);
        let stop = tb.model.cycle();
        stop_counting(&mut tb);
        let count = cycle_count(&mut tb);
        assert_eq!(count, stop - start, "waited {wait}");
        tb.cycles(50);
        assert_eq!(cycle_count(&mut tb), count, "stopped");
    }

    // PMCNTENCLR stops the cycle counter while PMCR.cnt_en is set.
    let start = tb.model.cycle();
    write(&mut tb, &regs::PMCR, pmcr(&["cnt_en", "cycle_cnt_rst"]));
    tb.cycles(77);
    let stop = tb.model.cycle();
    write(&mut tb, &regs::PMCNTENCLR, bit(&regs::PMCNTENCLR, None));
    tb.cycles(100);
    assert_eq!(cycle_count(&mut tb), stop - start);
}

#[test]
fn event_counters_count_their_event_when_enabled() {
    let mut tb = ungated_bench();
    let events = [&pmu::CYCLE, &pmu::NPU_IDLE, &pmu::NPU_RUNNING, &pmu::CYCLE];
    start_counting(&mut tb, &Setup::events(events));
    // Counter 3 stops when PMCNTENCLR clears its enable bit.
    tb.cycles(20);
    let disabled = tb.model.cycle();
    write(&mut tb, &regs::PMCNTENCLR, bit(&regs::PMCNTENCLR, Some(3)));
    tb.cycles(300);
    let stop = tb.model.cycle();
    stop_counting(&mut tb);
    let counts = event_counts(&mut tb);
    let cycles = cycle_count(&mut tb);
    assert_eq!(u64::from(counts[0]), cycles, "cycle event and PMCCNTR");
    assert_eq!(counts[1], counts[0], "the NPU is idle throughout");
    assert_eq!(counts[2], 0, "the NPU never runs");
    assert_eq!(
        u64::from(counts[3]),
        cycles - (stop - disabled),
        "counter 3 stops when PMCNTENCLR clears it"
    );
    assert_eq!(read(&mut tb, &regs::PMCNTENSET), 0x8000_0007);
}

#[test]
fn reset_bits_restart_their_counters_and_counting_goes_on() {
    let mut tb = ungated_bench();
    start_counting(&mut tb, &Setup::events([&pmu::CYCLE; 4]));
    tb.cycles(100);
    let event_reset = tb.model.cycle();
    write(&mut tb, &regs::PMCR, pmcr(&["cnt_en", "event_cnt_rst"]));
    tb.cycles(60);
    let cycle_reset = tb.model.cycle();
    write(&mut tb, &regs::PMCR, pmcr(&["cnt_en", "cycle_cnt_rst"]));
    tb.cycles(30);
    let stop = tb.model.cycle();
    stop_counting(&mut tb);
    assert_eq!(cycle_count(&mut tb), stop - cycle_reset);
    for count in event_counts(&mut tb) {
        assert_eq!(u64::from(count), stop - event_reset);
    }
    // The reset bits read 0 (TRM 4.5.1).
    assert_eq!(read(&mut tb, &regs::PMCR), 0x2000);
}

#[test]
fn the_cycle_counter_counts_only_ungated_cycles() {
    // CMD resets with clock_q_enable set: the idle NPU's clock is gated.
    let mut tb = NpuTb::new("u65-256").unwrap();
    write(&mut tb, &regs::PMCNTENSET, bit(&regs::PMCNTENSET, None));
    write(&mut tb, &regs::PMCR, pmcr(&["cnt_en", "cycle_cnt_rst"]));
    tb.cycles(500);
    let gated = cycle_count(&mut tb);
    assert!(
        gated < 20,
        "only the APB transfers' cycles count while idle, not {gated}"
    );
    // Forcing the clock (TRM 4.5: CMD bit 2 low) counts every cycle.
    write(&mut tb, &regs::CMD, 0);
    let start = cycle_count(&mut tb);
    tb.cycles(500);
    assert!(cycle_count(&mut tb) - start >= 500);
}

// ---- Overflow and the PMU interrupt ----

#[test]
fn event_counter_wrap_sets_its_flag_and_an_enabled_flag_raises_the_irq() {
    let mut tb = ungated_bench();
    for irq_counter in [None, Some(0), Some(1), Some(2), Some(3)] {
        start_counting(&mut tb, &Setup::events([&pmu::CYCLE; 4]));
        stop_counting(&mut tb);
        // Counter k is 4k + 10 counts from wrapping.
        for k in 0..PMU_EVENT_COUNTERS {
            write(
                &mut tb,
                &regs::PMU_EVCNTR[k],
                0u32.wrapping_sub(4 * k as u32 + 10),
            );
        }
        if let Some(k) = irq_counter {
            write(&mut tb, &regs::PMINTSET, bit(&regs::PMINTSET, Some(k)));
        }
        assert_eq!(tb.get("IRQ"), 0);
        let start = tb.model.cycle();
        write(&mut tb, &regs::PMCR, pmcr(&["cnt_en"]));
        tb.cycles(40);
        let stop = tb.model.cycle();
        stop_counting(&mut tb);
        let window = (stop - start) as u32;
        for (k, count) in event_counts(&mut tb).into_iter().enumerate() {
            assert_eq!(count, window - (4 * k as u32 + 10), "counter {k} wrapped");
        }
        assert_eq!(read(&mut tb, &regs::PMOVSSET), 0xF, "every counter wrapped");
        let raised = irq_counter.is_some();
        assert_eq!(pmu_irq_raised(&mut tb), raised, "{irq_counter:?}");
        assert_eq!(tb.get("IRQ"), u64::from(raised), "{irq_counter:?}");
        assert_eq!(
            regs::STATUS
                .field("irq_raised")
                .get(read(&mut tb, &regs::STATUS)),
            0,
            "the PMU interrupt is STATUS bit 6 only"
        );
        // CMD.clear_irq lowers the interrupt; the flags stay.
        write(&mut tb, &regs::CMD, regs::CMD.field("clear_irq").mask());
        assert!(!pmu_irq_raised(&mut tb));
        assert_eq!(tb.get("IRQ"), 0);
        assert_eq!(read(&mut tb, &regs::PMOVSCLR), 0xF);
        write(&mut tb, &regs::PMOVSCLR, 0x5);
        assert_eq!(read(&mut tb, &regs::PMOVSSET), 0xA);
    }
}

#[test]
fn cycle_counter_carries_into_its_high_word_and_wraps_at_48_bits() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let cycle_bit = bit(&regs::PMCNTENSET, None);
    write(&mut tb, &regs::PMCNTENSET, cycle_bit);
    for (high, low, wraps) in [
        (0x1234, 0xFFFF_FFF0u32, false),
        (0xFFFF, 0xFFFF_FFF0u32, true),
    ] {
        write(&mut tb, &regs::PMOVSCLR, u32::MAX);
        write(&mut tb, &regs::PMINTSET, cycle_bit);
        write(&mut tb, &regs::CMD, regs::CMD.field("clear_irq").mask());
        write(&mut tb, &regs::PMCCNTR_LO, low);
        write(&mut tb, &regs::PMCCNTR_HI, high);
        let start = tb.model.cycle();
        write(&mut tb, &regs::PMCR, pmcr(&["cnt_en"]));
        tb.cycles(30);
        let stop = tb.model.cycle();
        stop_counting(&mut tb);
        let want = ((u64::from(high) << 32) + u64::from(low) + (stop - start)) & ((1 << 48) - 1);
        assert_eq!(cycle_count(&mut tb), want);
        let overflowed = read(&mut tb, &regs::PMOVSSET) == bit(&regs::PMOVSSET, None);
        assert_eq!(
            overflowed, wraps,
            "PMOVSSET.CYCLE_CNT_OVF from {high:#x}:{low:#x}"
        );
        assert_eq!(pmu_irq_raised(&mut tb), wraps);
        assert_eq!(tb.get("IRQ"), u64::from(wraps));
    }
}

#[test]
fn software_flags_and_enables_raise_the_irq_as_wraps_do() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let clear_irq = regs::CMD.field("clear_irq").mask();
    // A flag set through PMOVSSET with its interrupt enabled raises it ...
    write(&mut tb, &regs::PMINTSET, bit(&regs::PMINTSET, Some(1)));
    write(&mut tb, &regs::PMOVSSET, bit(&regs::PMOVSSET, Some(0)));
    assert!(
        !pmu_irq_raised(&mut tb),
        "counter 0's interrupt is disabled"
    );
    write(&mut tb, &regs::PMOVSSET, bit(&regs::PMOVSSET, Some(1)));
    assert!(pmu_irq_raised(&mut tb));
    assert_eq!(tb.get("IRQ"), 1);
    write(&mut tb, &regs::CMD, clear_irq);
    assert!(!pmu_irq_raised(&mut tb));
    // ... again when set again, ...
    write(&mut tb, &regs::PMOVSSET, bit(&regs::PMOVSSET, Some(1)));
    assert!(pmu_irq_raised(&mut tb));
    write(&mut tb, &regs::CMD, clear_irq);
    // ... and so does enabling the interrupt of a set flag.
    write(&mut tb, &regs::PMINTSET, bit(&regs::PMINTSET, Some(0)));
    assert!(pmu_irq_raised(&mut tb));
    write(&mut tb, &regs::CMD, clear_irq);
    write(&mut tb, &regs::PMINTCLR, u32::MAX);
    write(&mut tb, &regs::PMOVSSET, u32::MAX);
    assert!(!pmu_irq_raised(&mut tb), "every interrupt disabled");
    assert_eq!(tb.get("IRQ"), 0);
}

// ---- Counting a command stream ----

/// One NPU_OP_DMA_START of `len` bytes from region 0 to region 1 (1D).
fn dma(src_offset: u32, dst_offset: u32, len: u32) -> Vec<Command> {
    vec![
        Command::cmd0(Opcode::NpuSetDma0SrcRegion, 0),
        Command::cmd0(Opcode::NpuSetDma0DstRegion, 1),
        Command::cmd1(Opcode::NpuSetDma0Src, 0, src_offset),
        Command::cmd1(Opcode::NpuSetDma0Dst, 0, dst_offset),
        Command::cmd1(Opcode::NpuSetDma0Len, 0, len),
        Command::cmd0(Opcode::NpuOpDmaStart, 0),
    ]
}

/// The source region's bytes.
const SOURCE_BYTES: usize = 8192;

/// What a run counted.
struct Run {
    counts: [u32; PMU_EVENT_COUNTERS],
    cycles: u64,
    /// What the completers of M0 and M1 served while the PMU counted, and
    /// their clock edges (ACLKEN high).
    axi: [Counters; 2],
    enabled_cycles: [u64; 2],
    result: InvokeResult,
}

/// Runs `commands` (NPU_OP_STOP is added) through the driver, the PMU set
/// up as `setup` in its begin hook; stops counting once no AXI transaction
/// is left. Region 0 holds random bytes, region 1 receives them.
fn run(tb: &mut NpuTb, commands: &[Command], axi: AxiSettings, setup: &Setup) -> Run {
    let mut stream = commands.to_vec();
    stream.push(Command::cmd0(Opcode::NpuOpStop, 0));
    let stream = encode(&stream);
    let source: Vec<u8> = (0..SOURCE_BYTES).map(|i| (i * 7 + 3) as u8).collect();
    tb.memory_mut().write(COMMAND_STREAM_BASE, &stream);
    tb.memory_mut().write(region_base(0), &source);
    let inference = Inference {
        axi,
        ..Inference::new(
            COMMAND_STREAM_BASE,
            stream.len() as u32,
            vec![region_base(0), region_base(1)],
        )
    };
    run_inference(tb, &inference, setup)
}

/// Runs `inference` (its command stream and regions already in memory),
/// counting as `setup` from the driver's begin hook until no AXI
/// transaction is left.
fn run_inference(tb: &mut NpuTb, inference: &Inference, setup: &Setup) -> Run {
    let mut before = None;
    let running = driver::invoke_async_with(tb, inference, &mut |tb| {
        start_counting(tb, setup);
        before = Some(AxiPort::ALL.map(|p| (tb.axi_counters(p), tb.axi_enabled_cycles(p))));
    })
    .unwrap_or_else(|e| panic!("start: {e}"));
    let result = driver::wait(tb, running).unwrap_or_else(|e| panic!("run: {e}"));
    while !tb.axi_idle() {
        tb.tick();
    }
    stop_counting(tb);
    // Taken before the APB reads below, which take cycles of their own.
    let before = before.expect("the begin hook ran");
    let axi = AxiPort::ALL.map(|p| tb.axi_counters(p).since(&before[p.index()].0));
    let enabled_cycles = AxiPort::ALL.map(|p| tb.axi_enabled_cycles(p) - before[p.index()].1);
    Run {
        counts: event_counts(tb),
        cycles: cycle_count(tb),
        axi,
        enabled_cycles,
        result,
    }
}

/// AXI settings with the command stream on counter `qconfig`, region 0 on
/// `source` and region 1 on `destination`.
fn settings(qconfig: u32, source: u32, destination: u32) -> AxiSettings {
    let mut axi = AxiSettings {
        qconfig,
        ..AxiSettings::default()
    };
    axi.regioncfg[0] = source;
    axi.regioncfg[1] = destination;
    axi
}

#[test]
fn npu_idle_and_running_events_split_the_cycles_of_a_run() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let setup = Setup::events([
        &pmu::NPU_IDLE,
        &pmu::NPU_RUNNING,
        &pmu::CYCLE,
        &pmu::NO_EVENT,
    ]);
    let run = run(&mut tb, &dma(0, 0, 1000), settings(0, 1, 1), &setup);
    let [idle, running, cycle, none] = run.counts.map(u64::from);
    assert_eq!(cycle, run.cycles);
    assert_eq!(idle + running, cycle);
    assert_eq!(
        running, run.result.cycles,
        "running from the CMD write to the IRQ"
    );
    assert_eq!(none, 0, "no_event");
}

/// The completer's count an AXI event must equal, if it has one.
fn served(e: &Event, run: &Run) -> Option<u64> {
    let index = match e.unit {
        Unit::Axi0 => 0,
        Unit::Axi1 => 1,
        _ => return None,
    };
    let port = &run.axi[index];
    let name = e.name.split_once('_').map(|(_, n)| n)?;
    Some(match name {
        "rd_trans_accepted" => port.read_transactions,
        "rd_data_beat_received" => port.read_beats,
        "rd_tran_req_stalled" => port.read_address_stalls,
        "wr_trans_accepted" => port.write_transactions,
        "wr_data_beat_written" => port.write_beats,
        "wr_tran_req_stalled" => port.write_address_stalls,
        "wr_data_beat_stalled" => port.write_data_stalls,
        "enabled_cycles" => run.enabled_cycles[index],
        _ => return None,
    })
}

#[test]
fn axi_events_equal_what_the_memory_models_served_on_each_port() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let checked: Vec<&Event> = pmu::EVENTS
        .iter()
        .filter(|e| matches!(e.unit, Unit::Axi0 | Unit::Axi1) && !e.name.ends_with("stall_limit"))
        .collect();
    assert_eq!(
        checked.len(),
        16,
        "8 events per port have a completer counter"
    );
    for config in NpuConfig::builtin() {
        let mut tb = NpuTb::new(&config.name).unwrap();
        for _ in 0..3 {
            for group in checked.chunks(PMU_EVENT_COUNTERS) {
                for port in AxiPort::ALL {
                    tb.set_axi_config(port, CompleterConfig::random(&mut rng));
                    let aclken = [vec![true], vec![true, false], vec![true, true, false]];
                    tb.set_aclken_pattern(port, &aclken[rng.gen_range(0..3)]);
                }
                // The source and the destination on the port the events
                // watch (counters 0, 1 on M0, 2, 3 on M1); the stream anywhere.
                let port = u32::from(group[0].unit == Unit::Axi1);
                let axi = settings(
                    rng.gen_range(0..4),
                    2 * port + rng.gen_range(0..2),
                    2 * port + rng.gen_range(0..2),
                );
                let mut commands = vec![];
                for _ in 0..rng.gen_range(1..4) {
                    let len = rng.gen_range(1..2000);
                    commands.extend(dma(rng.gen_range(0..64), rng.gen_range(0..4096), len));
                }
                let setup = Setup::events(std::array::from_fn(|k| group[k]));
                let run = run(&mut tb, &commands, axi.clone(), &setup);
                for (e, &count) in group.iter().zip(&run.counts) {
                    assert_eq!(
                        Some(u64::from(count)),
                        served(e, &run),
                        "{} {} (seed {seed}, {axi:?})",
                        config.name,
                        e.name
                    );
                }
                assert!(run.axi[port as usize].read_transactions > 0);
                assert!(
                    run.axi[port as usize].write_transactions > 0,
                    "writes on the destination's port"
                );
            }
        }
    }
}

#[test]
fn limit_stall_events_count_bursts_held_back_by_axi_limit() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let slow = CompleterConfig {
        read_latency: 30,
        write_latency: 30,
        ..CompleterConfig::ideal()
    };
    tb.set_axi_config(AxiPort::M0, slow.clone());
    let setup = Setup::events([
        &pmu::AXI0_RD_STALL_LIMIT,
        &pmu::AXI0_WR_STALL_LIMIT,
        &pmu::AXI1_RD_STALL_LIMIT,
        &pmu::AXI1_WR_STALL_LIMIT,
    ]);
    // The stream on M1 (counter 2); source and destination on M0 counters 0 and 1.
    let mut axi = settings(2, 0, 1);
    let transfer = dma(0, 0, 4096);
    let free = run(&mut tb, &transfer, axi.clone(), &setup);
    assert_eq!(
        free.counts, [0; 4],
        "64 reads and 32 writes are never all outstanding"
    );
    axi.axi_limits[0] = AxiLimit {
        max_outstanding_reads: 1,
        ..AxiLimit::U65_DEFAULT
    };
    axi.axi_limits[1] = AxiLimit {
        max_outstanding_writes: 1,
        ..AxiLimit::U65_DEFAULT
    };
    let limited = run(&mut tb, &transfer, axi, &setup);
    let [read_stalls, write_stalls, m1_read, m1_write] = limited.counts.map(u64::from);
    // 64 bursts of 64 bytes, each waiting ~30 cycles for the one before.
    assert!(
        read_stalls > 64 * 20 && read_stalls < limited.cycles,
        "{read_stalls}"
    );
    assert!(
        write_stalls > 0 && write_stalls < limited.cycles,
        "{write_stalls}"
    );
    assert_eq!((m1_read, m1_write), (0, 0), "M1 carries only the stream");
}

/// PMCAXI_CHAN with `channel` (CH_SEL), `counter` (AXI_CNT_SEL) and the bandwidth filter.
fn axi_channel(channel: u32, counter: u32, filter: bool) -> u32 {
    let r = &regs::PMCAXI_CHAN;
    let v = r.field("CH_SEL").set(0, channel);
    let v = r.field("AXI_CNT_SEL").set(v, counter);
    r.field("BW_CH_SEL_EN").set(v, u32::from(filter))
}

#[test]
fn bandwidth_filter_counts_the_selected_channel_only() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = NpuTb::new("u65-256").unwrap();
    // Stream, source and destination all on M0. The stream is longer than
    // the command buffer, so its fetches interleave with the user DMA's reads.
    let axi = settings(0, 1, 0);
    let padding = (0..80).map(|k| Command::cmd0(Opcode::NpuSetDma0Size0, k));
    let commands: Vec<Command> = dma(3, 0, 3000)
        .into_iter()
        .chain(padding)
        .chain(dma(0, 4096, 700))
        .collect();
    // With NPU_OP_STOP; fetched from a 4 KB-aligned QBASE in bursts split at
    // 64-byte boundaries (AXI_LIMIT0.max_beats 0).
    let stream = encode(&commands).len() as u64 + 4;
    let (command_bursts, command_beats) = (stream.div_ceil(64), stream.div_ceil(16));
    let events = [
        &pmu::AXI0_RD_TRANS_ACCEPTED,
        &pmu::AXI0_RD_DATA_BEAT_RECEIVED,
        &pmu::AXI0_WR_DATA_BEAT_WRITTEN,
        &pmu::AXI0_ENABLED_CYCLES,
    ];
    // CH_SEL: 0 command, 4 mem2mem read, 9 mem2mem write, 1 IFM (TRM 4.5.12).
    for (channel, filter) in [(0, false), (0, true), (4, true), (9, true), (1, true)] {
        tb.set_axi_config(AxiPort::M0, CompleterConfig::random(&mut rng));
        let setup = Setup {
            axi_channel: axi_channel(channel, 0, filter),
            ..Setup::events(events)
        };
        let run = run(&mut tb, &commands, axi.clone(), &setup);
        let m0 = &run.axi[0];
        let [reads, beats, writes, enabled] = run.counts.map(u64::from);
        assert_eq!(enabled, run.enabled_cycles[0], "not a bandwidth event");
        let want = match (channel, filter) {
            (_, false) => [m0.read_transactions, m0.read_beats, m0.write_beats],
            (0, true) => [command_bursts, command_beats, 0],
            (4, true) => [
                m0.read_transactions - command_bursts,
                m0.read_beats - command_beats,
                0,
            ],
            (9, true) => [0, 0, m0.write_beats],
            _ => [0, 0, 0],
        };
        assert_eq!(
            [reads, beats, writes],
            want,
            "CH_SEL {channel}, BW_CH_SEL_EN {filter} (seed {seed})"
        );
    }
}

fn latency_events(thresholds: [&'static Event; 3]) -> [&'static Event; 4] {
    [
        &pmu::AXI_LATENCY_ANY,
        thresholds[0],
        thresholds[1],
        thresholds[2],
    ]
}

#[test]
fn latency_events_bucket_the_selected_transactions() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    // Stream on M1; source on M0 counter 0, destination on M0 counter 1,
    // each with one transaction outstanding: every transaction is timed.
    let mut axi = settings(2, 0, 1);
    axi.axi_limits[0].max_outstanding_reads = 1;
    axi.axi_limits[1].max_outstanding_writes = 1;
    let commands = dma(0, 0, 512);
    // Reads of 64-byte bursts take latency + 4 beats + a cycle or two;
    // writes take the latency after their last beat.
    for (latency, thresholds, within) in [
        (
            40,
            [
                &pmu::AXI_LATENCY_32,
                &pmu::AXI_LATENCY_64,
                &pmu::AXI_LATENCY_128,
            ],
            [true, false, false],
        ),
        (
            100,
            [
                &pmu::AXI_LATENCY_64,
                &pmu::AXI_LATENCY_128,
                &pmu::AXI_LATENCY_256,
            ],
            [true, false, false],
        ),
        (
            300,
            [
                &pmu::AXI_LATENCY_128,
                &pmu::AXI_LATENCY_256,
                &pmu::AXI_LATENCY_512,
            ],
            [true, true, false],
        ),
        (
            1030,
            [
                &pmu::AXI_LATENCY_256,
                &pmu::AXI_LATENCY_512,
                &pmu::AXI_LATENCY_1024,
            ],
            [true, true, true],
        ),
    ] {
        tb.set_axi_config(
            AxiPort::M0,
            CompleterConfig {
                read_latency: latency,
                write_latency: latency,
                ..CompleterConfig::ideal()
            },
        );
        for (channel, counter, write) in [(4, 0, false), (9, 1, true)] {
            let setup = Setup {
                axi_channel: axi_channel(channel, counter, false),
                ..Setup::events(latency_events(thresholds))
            };
            let run = run(&mut tb, &commands, axi.clone(), &setup);
            let transactions = if write {
                run.axi[0].write_transactions
            } else {
                run.axi[0].read_transactions
            };
            let [any, a, b, c] = run.counts.map(u64::from);
            assert_eq!(any, transactions, "latency {latency}, channel {channel}");
            let want = within.map(|w| if w { any } else { 0 });
            assert_eq!(
                [a, b, c],
                want,
                "latency {latency}, channel {channel}: {:?}",
                thresholds.map(|e| e.name)
            );
        }
    }

    // Traffic the selection does not name is not timed: IFM reads, and
    // mem2mem reads on another counter.
    for chan in [axi_channel(1, 0, false), axi_channel(4, 1, false)] {
        let setup = Setup {
            axi_channel: chan,
            ..Setup::events(latency_events([
                &pmu::AXI_LATENCY_32,
                &pmu::AXI_LATENCY_64,
                &pmu::AXI_LATENCY_128,
            ]))
        };
        let run = run(&mut tb, &commands, axi.clone(), &setup);
        assert_eq!(run.counts, [0; 4], "PMCAXI_CHAN {chan:#x}");
    }

    // With many transactions outstanding one at a time is timed.
    axi.axi_limits[0].max_outstanding_reads = 64;
    tb.set_axi_config(
        AxiPort::M0,
        CompleterConfig {
            read_latency: 40,
            ..CompleterConfig::ideal()
        },
    );
    let setup = Setup {
        axi_channel: axi_channel(4, 0, false),
        ..Setup::events(latency_events([
            &pmu::AXI_LATENCY_32,
            &pmu::AXI_LATENCY_64,
            &pmu::AXI_LATENCY_1024,
        ]))
    };
    let run = run(&mut tb, &dma(0, 0, 4096), axi, &setup);
    let [any, at_32, at_64, at_1024] = run.counts.map(u64::from);
    assert!(any > 0 && any < run.axi[0].read_transactions, "{any}");
    assert_eq!(at_32, any, "every read waits the latency");
    assert!(at_64 <= at_32 && at_1024 == 0);
}

// ---- NPU_OP_PMU_MASK ----

#[test]
fn pmu_mask_gates_counting_when_mask_en_is_set() {
    // 256 and 512 aligned bytes: 16 and 32 write beats.
    let first = dma(0, 0, 256);
    let second = dma(256, 256, 512);
    let masked = [
        vec![Command::cmd0(Opcode::NpuOpPmuMask, 1)],
        first.clone(),
        vec![
            Command::cmd0(Opcode::NpuOpDmaWait, 0),
            Command::cmd0(Opcode::NpuOpPmuMask, 0),
        ],
        second.clone(),
        vec![Command::cmd0(Opcode::NpuOpDmaWait, 0)],
    ]
    .concat();
    let unmasked = [first, second].concat();
    let events = [
        &pmu::AXI0_WR_DATA_BEAT_WRITTEN,
        &pmu::CYCLE,
        &pmu::NPU_RUNNING,
        &pmu::AXI0_WR_TRANS_ACCEPTED,
    ];
    let mask_en = pmcr(&["mask_en"]);
    let axi = settings(0, 0, 1);
    let count = |commands: &[Command], pmcr: u32| {
        // A fresh NPU: NPU_OP_PMU_MASK's state lasts until reset.
        let mut tb = NpuTb::new("u65-256").unwrap();
        let setup = Setup {
            pmcr,
            ..Setup::events(events)
        };
        run(&mut tb, commands, axi.clone(), &setup)
    };

    let all = count(&masked, 0);
    assert_eq!(
        all.counts[0], 48,
        "without mask_en NPU_OP_PMU_MASK changes nothing"
    );
    assert_eq!(u64::from(all.counts[0]), all.axi[0].write_beats);
    assert_eq!(u64::from(all.counts[1]), all.cycles);

    let window = count(&masked, mask_en);
    assert_eq!(window.counts[0], 16, "only the first transfer's beats");
    assert!(
        window.counts[1] > 0 && u64::from(window.counts[1]) < all.cycles / 2,
        "{window:?}",
        window = window.counts
    );
    assert_eq!(
        u64::from(window.counts[1]),
        window.cycles,
        "the cycle counter is masked too"
    );
    assert_eq!(
        window.counts[2], window.counts[1],
        "counted only while running"
    );

    let never = count(&unmasked, mask_en);
    assert_eq!(
        (never.counts, never.cycles),
        ([0; 4], 0),
        "with mask_en nothing counts before NPU_OP_PMU_MASK 1"
    );
}

// ---- Events without a source ----

/// no_event, the ECC events and the second core's datapath events (core 0's
/// events count both cores' work in parallel mode).
#[test]
fn events_without_a_source_count_nothing() {
    let mut tb = NpuTb::new("u65-512").unwrap();
    let mut silent: Vec<u16> = pmu::EVENTS
        .iter()
        .filter(|e| matches!(e.unit, Unit::None | Unit::Ecc) || e.core == 1)
        .map(|e| e.code)
        .collect();
    // Values the table does not define.
    silent.extend([0x001, 0x081, 0x0A7, 0x111, 0x3FF]);
    assert!(silent.iter().all(|&c| c < 1 << pmu::EVENT_TYPE_BITS));
    for group in silent.chunks(PMU_EVENT_COUNTERS) {
        let mut events = [0; PMU_EVENT_COUNTERS];
        events[..group.len()].copy_from_slice(group);
        let setup = Setup {
            events,
            pmcr: 0,
            axi_channel: 0,
        };
        let run = run(&mut tb, &dma(0, 0, 600), settings(2, 0, 3), &setup);
        assert!(run.cycles > 0);
        assert_eq!(run.counts, [0; 4], "{group:#x?}");
    }
}

#[test]
fn run_end_irq_and_pmu_irq_share_the_irq_line() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    // Counter 0 wraps during the run, its interrupt enabled.
    let mut begin = |tb: &mut NpuTb| {
        start_counting(tb, &Setup::events([&pmu::CYCLE; 4]));
        write(tb, &regs::PMU_EVCNTR0, u32::MAX - 50);
        write(tb, &regs::PMINTSET, bit(&regs::PMINTSET, Some(0)));
    };
    let stream = encode(&[dma(0, 0, 2000), vec![Command::cmd0(Opcode::NpuOpStop, 0)]].concat());
    tb.memory_mut().write(COMMAND_STREAM_BASE, &stream);
    let inference = Inference::new(
        COMMAND_STREAM_BASE,
        stream.len() as u32,
        vec![region_base(0), region_base(1)],
    );
    let _running = driver::invoke_async_with(&mut tb, &inference, &mut begin).unwrap();
    // The PMU interrupt comes first; the driver would take it for the end.
    while tb.get("IRQ") == 0 {
        tb.tick();
    }
    let status = read(&mut tb, &regs::STATUS);
    assert_eq!(regs::STATUS.field("pmu_irq_raised").get(status), 1);
    assert_eq!(regs::STATUS.field("irq_raised").get(status), 0);
    assert_eq!(regs::STATUS.field("state").get(status), 1, "still running");
    write(&mut tb, &regs::CMD, regs::CMD.field("clear_irq").mask());
    assert_eq!(tb.get("IRQ"), 0);
    while tb.get("IRQ") == 0 {
        tb.tick();
    }
    let status = read(&mut tb, &regs::STATUS);
    assert_eq!(regs::STATUS.field("irq_raised").get(status), 1);
    assert_eq!(regs::STATUS.field("pmu_irq_raised").get(status), 0);
    write(&mut tb, &regs::CMD, regs::CMD.field("clear_irq").mask());
    assert_eq!(tb.get("IRQ"), 0);
    assert_eq!(read(&mut tb, &regs::PMOVSSET), 1, "counter 0 wrapped");
}

// ---- Datapath events (MAC, output unit, weight decoder) ----

/// What the schedule (`npu_model::schedule`) fixes about a convolution's
/// datapath activity.
struct Activity {
    /// MAC beats that reach the MAC unit: every beat but those of a weight
    /// group of padding, of which only a block's last beat goes.
    mac_beats: u64,
    /// Output-unit beats: one per OFM position of each 8-channel group.
    ao_beats: u64,
    /// Words the weight decoder takes: ceil(NPU_SET_WEIGHT_LENGTH / 16) per
    /// spatial OFM block, each of which reads the whole stream.
    words: u64,
    /// Groups it delivers: full groups of 16 weights, the last of each
    /// stream partial.
    groups: u64,
}

fn activity(cj: &ConvJob) -> Activity {
    let shape = cj
        .spec
        .conv_shape(cj.spec.block.expect("a built job's block"));
    let mac_beats = shape
        .beats(0)
        .iter()
        .filter(|b| !b.skip || b.slice_end)
        .count() as u64;
    let ao_beats = shape
        .readouts(0)
        .iter()
        .map(|r| u64::from(r.positions.count_ones()))
        .sum();
    let mut stream_weights: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    for op in shape.block_ops() {
        *stream_weights.entry((op.ofm.y, op.ofm.x)).or_default() +=
            op.groups.iter().map(|g| g.weights as u64).sum::<u64>();
    }
    let length = cj
        .commands
        .iter()
        .find(|c| c.op == Opcode::NpuSetWeightLength)
        .and_then(|c| c.payload)
        .expect("NPU_SET_WEIGHT_LENGTH");
    Activity {
        mac_beats,
        ao_beats,
        words: stream_weights.len() as u64 * u64::from(length).div_ceil(16),
        groups: stream_weights.values().map(|w| w.div_ceil(16)).sum(),
    }
}

/// Runs a convolution job on a fresh bench whose memory behind M0 and M1
/// is `memory` (its random choices from `seed`), counting as `setup`; the
/// OFM must be the golden model's.
fn run_conv(cj: &ConvJob, memory: &[CompleterConfig; 2], seed: u64, setup: &Setup) -> Run {
    let job = &cj.job;
    let mut tb = NpuTb::new(&job.config.name).unwrap();
    tb.set_axi_seed(seed);
    for port in AxiPort::ALL {
        tb.set_axi_config(port, memory[port.index()].clone());
    }
    for (&k, bytes) in &job.regions {
        tb.memory_mut().write(region_base(k), bytes);
    }
    tb.memory_mut()
        .write(COMMAND_STREAM_BASE, &job.command_stream);
    let regions = job.regions.keys().max().map_or(0, |&k| k + 1);
    let inference = Inference::new(
        COMMAND_STREAM_BASE,
        job.command_stream.len() as u32,
        (0..regions).map(region_base).collect(),
    );
    let run = run_inference(&mut tb, &inference, setup);
    let golden = golden_run(job).unwrap_or_else(|e| panic!("{e}"));
    for (&k, bytes) in &golden.regions {
        assert!(
            tb.memory().read_vec(region_base(k), bytes.len()) == *bytes,
            "region {k} differs from the golden model's: {}",
            cj.spec.describe()
        );
    }
    run
}

/// Convolutions of both IFM precisions: fixed ones (a depth with padding
/// weight groups, a depthwise, a 16-bit one) and random ones of each.
fn conv_jobs_of_both_precisions(seed: u64) -> Vec<ConvJob> {
    let mut rng = StdRng::seed_from_u64(seed);
    let fixed = [
        ConvSpec::new(ConvKind::Conv, DType::I8, [6, 6, 24], 20, [3, 3]),
        ConvSpec::new(ConvKind::Depthwise, DType::U8, [5, 7, 16], 16, [3, 3]),
        ConvSpec::new(ConvKind::Conv, DType::I16, [4, 6, 16], 12, [2, 2]),
    ];
    let mut jobs: Vec<ConvJob> = fixed
        .iter()
        .map(|s| s.build(&mut rng).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    for bits in [8, 16] {
        jobs.extend(
            (0..)
                .map(|index| random_job(seed, index))
                .filter(|cj| cj.spec.ifm_type.bits == bits)
                .take(3),
        );
    }
    jobs
}

#[test]
fn datapath_events_count_the_beats_of_the_schedule() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    for cj in conv_jobs_of_both_precisions(seed) {
        let want = activity(&cj);
        // Stalls anywhere (a slow memory) must not change the beat counts.
        let memory = [(); 2].map(|_| CompleterConfig::random(&mut rng));
        let what = format!("seed {seed}: {}", cj.spec.describe());
        let wide = cj.spec.ifm_type.bits == 16;
        let split = |count: u64| if wide { [0, count] } else { [count, 0] };

        let mac = run_conv(
            &cj,
            &memory,
            seed,
            &Setup::events([
                &pmu::MAC_ACTIVE,
                &pmu::MAC_ACTIVE_8BIT,
                &pmu::MAC_ACTIVE_16BIT,
                &pmu::AO_ACTIVE,
            ]),
        );
        let [mac_any, mac_8, mac_16, ao_any] = mac.counts.map(u64::from);
        assert_eq!(mac_any, want.mac_beats, "MAC beats, {what}");
        assert_eq!([mac_8, mac_16], split(want.mac_beats), "MAC 8/16, {what}");
        assert_eq!(ao_any, want.ao_beats, "output-unit beats, {what}");

        let ao = run_conv(
            &cj,
            &memory,
            seed,
            &Setup::events([
                &pmu::AO_ACTIVE_8BIT,
                &pmu::AO_ACTIVE_16BIT,
                &pmu::WD_ACTIVE,
                &pmu::NO_EVENT,
            ]),
        );
        let [ao_8, ao_16, wd, _] = ao.counts.map(u64::from);
        assert_eq!([ao_8, ao_16], split(want.ao_beats), "AO 8/16, {what}");
        // A cycle takes at most one word and delivers at most one group.
        assert!(
            wd >= want.words.max(want.groups) && wd <= want.words + want.groups,
            "wd_active {wd}: {} words, {} groups, {what}",
            want.words,
            want.groups
        );
        assert!(wd <= ao.cycles, "wd_active {wd} of {} cycles", ao.cycles);
    }
}

#[test]
fn second_core_datapath_events_stay_zero_on_one_core() {
    let mut rng = StdRng::seed_from_u64(0);
    let cj = ConvSpec::new(ConvKind::Conv, DType::I8, [4, 4, 16], 16, [2, 2])
        .build(&mut rng)
        .unwrap();
    let run = run_conv(
        &cj,
        &[CompleterConfig::ideal(), CompleterConfig::ideal()],
        0,
        &Setup::events([
            &pmu::MAC_ACTIVE_CORE1,
            &pmu::AO_ACTIVE_CORE1,
            &pmu::WD_ACTIVE_CORE1,
            &pmu::MAC_ACTIVE,
        ]),
    );
    assert_eq!(run.counts[..3], [0; 3], "core 1 events on u65-256");
    assert_eq!(u64::from(run.counts[3]), activity(&cj).mac_beats);
}
