//! The golden model and the RTL as register-level devices answer alike:
//! random sequences of register writes (any PPROT), reads, soft resets and
//! runs of Vela's streams, the same on both, compare every read and the
//! memory after every run.

use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, REGISTERS};
use npu_model::device::{Device, GoldenDevice};
use npu_model::job::{region_base, Job, COMMAND_STREAM_BASE};
use npu_tb::npu::NpuTb;
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Secure and privileged: permitted whatever PROT holds (TRM 4.1).
const HOST: u8 = 0b001;

/// A few of Vela's streams to run, each with its regions.
fn jobs(config: &str) -> Vec<Job> {
    let dir = npu_tb::verilator::workspace_root().join("model/tests/fixtures/jobs");
    let names: &[&str] = match config {
        "u65-256" => &[
            "dma_256",
            "add_i8",
            "conv_1x1_i8",
            "exp_i8",
            "maxpool_2x2_s2_i8",
        ],
        _ => &[
            "dma_4000_512",
            "add_i8_512",
            "conv_3x3_i8_512",
            "dw_3x3_u8_512",
        ],
    };
    names
        .iter()
        .map(|n| Job::load(&dir.join(n), None).unwrap())
        .collect()
}

/// Runs the RTL until it has stopped and its reset (if any) is over, then a
/// little longer for writes to drain: reads then see what the golden device
/// shows at once. The STATUS polls are the RTL's own.
fn settle(rtl: &mut NpuTb) {
    let busy = regs::STATUS.field("state").mask() | regs::STATUS.field("reset_status").mask();
    for _ in 0..100_000 {
        if rtl.read(regs::STATUS.address, HOST).rdata & busy == 0 && rtl.axi_idle() {
            rtl.cycles(64);
            return;
        }
        rtl.cycles(16);
    }
    panic!("the RTL never settles");
}

/// A random value for a write to `r`: with the start and counting bits
/// that make the NPU or the PMU run cleared (runs are their own step, and
/// the golden model counts no PMU events).
fn write_value(r: &regs::Register, rng: &mut StdRng) -> u32 {
    let v = match rng.gen_range(0..3) {
        0 => 0,
        1 => r.stored_mask() & rng.gen::<u32>(),
        _ => rng.gen(),
    };
    if r.address == regs::CMD.address {
        v & !regs::CMD.field("transition_to_running_state").mask()
    } else if r.address == regs::PMCR.address {
        v & !regs::PMCR.field("cnt_en").mask()
    } else {
        v
    }
}

/// Registers whose reads are compared: all but the PMU's counters, which
/// count cycles and events on the RTL only.
fn compared(r: &regs::Register) -> bool {
    !matches!(r.behaviour, regs::Behaviour::Counter)
}

fn sequence(config: &str, rng: &mut StdRng, what: &str) {
    let npu = NpuConfig::by_name(config).unwrap();
    let mut golden = GoldenDevice::new(npu);
    let mut rtl = NpuTb::new(config).unwrap();
    let jobs = jobs(config);
    // Both hold every job's regions and stream, in windows of their own.
    for device in [&mut golden as &mut dyn Device, &mut rtl] {
        for (n, job) in jobs.iter().enumerate() {
            let at = (n as u64) << 28;
            for (&k, bytes) in &job.regions {
                device
                    .memory_mut()
                    .map_bytes(region_base(k) + at, bytes.clone())
                    .unwrap();
            }
            let stream = job.command_stream.clone();
            device
                .memory_mut()
                .map_bytes(COMMAND_STREAM_BASE + at, stream)
                .unwrap();
        }
    }
    rtl.answer_only_windows();
    let registers: Vec<&regs::Register> = REGISTERS.iter().collect();
    for step in 0..60 {
        let at = format!("{what}, step {step}");
        match rng.gen_range(0..10) {
            0..=3 => {
                let r = registers[rng.gen_range(0..registers.len())];
                if r.address == regs::RESET.address {
                    continue;
                }
                let (value, pprot) = (write_value(r, rng), rng.gen_range(0..4));
                let g = golden.write(r.address, value, pprot).unwrap();
                let t = Device::write(&mut rtl, r.address, value, pprot).unwrap();
                assert_eq!(
                    g, t,
                    "{at}: write {value:#x} to {} with PPROT {pprot}",
                    r.name
                );
            }
            4..=6 => {
                settle(&mut rtl);
                let r = registers[rng.gen_range(0..registers.len())];
                if !compared(r) {
                    continue;
                }
                let pprot = rng.gen_range(0..4);
                let (g, t) = (
                    golden.read(r.address, pprot),
                    Device::read(&mut rtl, r.address, pprot),
                );
                assert_eq!(
                    g, t,
                    "{at}: read of {} with PPROT {pprot} (golden / RTL)",
                    r.name
                );
                assert_eq!(golden.irq(), Device::irq(&rtl), "{at}: IRQ");
            }
            7 => {
                let (pending, pprot) = (rng.gen_range(0..4), rng.gen_range(0..4));
                golden.write(regs::RESET.address, pending, pprot).unwrap();
                Device::write(&mut rtl, regs::RESET.address, pending, pprot).unwrap();
                settle(&mut rtl);
            }
            _ => {
                let n = rng.gen_range(0..jobs.len());
                let job = &jobs[n];
                let at_base = (n as u64) << 28;
                for device in [&mut golden as &mut dyn Device, &mut rtl] {
                    let stream = COMMAND_STREAM_BASE + at_base;
                    let mut w = |r: &regs::Register, v: u32| {
                        device.write(r.address, v, HOST).unwrap();
                    };
                    w(&regs::QBASE0, stream as u32);
                    w(&regs::QBASE1, (stream >> 32) as u32);
                    w(&regs::QSIZE, job.command_stream.len() as u32);
                    for &k in job.regions.keys() {
                        let base = region_base(k) + at_base;
                        w(&regs::BASEP[2 * k], base as u32);
                        w(&regs::BASEP[2 * k + 1], (base >> 32) as u32);
                    }
                    let start = regs::CMD.field("transition_to_running_state").mask();
                    w(&regs::CMD, start);
                }
                settle(&mut rtl);
                golden.run(1).unwrap();
                for (&k, bytes) in &job.regions {
                    let base = region_base(k) + at_base;
                    assert_eq!(
                        golden.memory().read_vec(base, bytes.len()),
                        Device::memory(&rtl).read_vec(base, bytes.len()),
                        "{at}: region {k} after {}",
                        job.spec.description.as_deref().unwrap_or("")
                    );
                }
            }
        }
    }
}

#[test]
fn random_register_sequences_read_the_same_on_both_backends() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    for config in ["u65-256", "u65-512"] {
        for n in 0..3 {
            sequence(
                config,
                &mut rng,
                &format!("{config} sequence {n} of seed {seed}"),
            );
        }
    }
}
