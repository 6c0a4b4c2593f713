//! The C API's cost: register accesses a second through it on the golden
//! model (target: 1 million or more) and on the RTL beside the harness's own
//! (`NpuTb::read`, target: no slower), and a network's job run through it
//! on the RTL beside `npu-sim`'s path (`RtlBackend`), in simulated cycles a
//! second (target: within 5 %).

use npu::*;
use npu_arch::regs;
use npu_model::job::{region_base, Job, COMMAND_STREAM_BASE};
use npu_model::tflite::VelaModel;
use npu_tb::npu::NpuTb;
use npu_tb::rtl_backend::RtlBackend;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::Instant;

fn device(backend: u32) -> *mut NpuDevice {
    let mut config = std::mem::MaybeUninit::<NpuDeviceConfig>::uninit();
    assert_eq!(npu_device_config_init(config.as_mut_ptr()), NPU_OK);
    // SAFETY: initialised above.
    let mut config = unsafe { config.assume_init() };
    config.backend = backend;
    let mut device = null_mut();
    assert_eq!(npu_device_create(&config, &mut device), NPU_OK);
    device
}

/// Reads of STATUS a second through the API.
fn api_reads(device: *mut NpuDevice, seconds: f64) -> f64 {
    let (mut data, mut slverr, mut n) = (0, 0, 0u64);
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds {
        for _ in 0..1000 {
            npu_apb_read(
                device,
                regs::STATUS.address.into(),
                1,
                &mut data,
                &mut slverr,
            );
        }
        n += 1000;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn write(device: *mut NpuDevice, r: &regs::Register, value: u32) {
    assert_eq!(
        npu_apb_write(device, r.address.into(), value, 1, null_mut()),
        NPU_OK
    );
}

/// `job` on the RTL through the API as the core driver programs it: its
/// cycles and the wall time of the run (the device made before the clock).
fn api_run(job: &Job) -> (u64, f64) {
    let device = device(NPU_BACKEND_RTL);
    let mut buffers: Vec<Vec<u8>> = job.regions.values().cloned().collect();
    buffers.push(job.command_stream.clone());
    let bases = job
        .regions
        .keys()
        .map(|&k| region_base(k))
        .chain([COMMAND_STREAM_BASE]);
    for (base, buffer) in bases.zip(&mut buffers) {
        let host = buffer.as_mut_ptr().cast::<c_void>();
        assert_eq!(npu_map(device, base, host, buffer.len()), NPU_OK);
    }
    let start = Instant::now();
    write(device, &regs::RESET, 1);
    let in_reset = regs::STATUS.field("reset_status").mask();
    let (mut status, mut slverr) = (in_reset, 0);
    while status & in_reset != 0 {
        npu_apb_read(
            device,
            regs::STATUS.address.into(),
            1,
            &mut status,
            &mut slverr,
        );
    }
    for r in [
        regs::AXI_LIMIT0,
        regs::AXI_LIMIT1,
        regs::AXI_LIMIT2,
        regs::AXI_LIMIT3,
    ] {
        write(device, &r, 0x1F3F_0000);
    }
    write(device, &regs::QBASE0, COMMAND_STREAM_BASE as u32);
    write(device, &regs::QBASE1, (COMMAND_STREAM_BASE >> 32) as u32);
    write(device, &regs::QSIZE, job.command_stream.len() as u32);
    write(device, &regs::QCONFIG, 2);
    for &k in job.regions.keys() {
        write(device, &regs::BASEP[2 * k], region_base(k) as u32);
        write(
            device,
            &regs::BASEP[2 * k + 1],
            (region_base(k) >> 32) as u32,
        );
    }
    write(device, &regs::REGIONCFG, 0x555B);
    let (mut before, mut after) = (0, 0);
    npu_cycle(device, &mut before);
    write(device, &regs::CMD, 1);
    assert_eq!(npu_run_until_irq(device, 100_000_000, null_mut()), NPU_OK);
    npu_cycle(device, &mut after);
    let seconds = start.elapsed().as_secs_f64();
    npu_device_destroy(device);
    (after - before, seconds)
}

fn main() {
    let golden = device(NPU_BACKEND_GOLDEN);
    let rate = api_reads(golden, 1.0);
    println!(
        "register reads through the C API, golden model: {:.2} million a second (target >= 1, ratio {:.2})",
        rate / 1e6,
        rate / 1e6
    );
    npu_device_destroy(golden);

    let rtl = device(NPU_BACKEND_RTL);
    let through_api = api_reads(rtl, 2.0);
    npu_device_destroy(rtl);
    let mut tb = NpuTb::new("u65-256").unwrap();
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed().as_secs_f64() < 2.0 {
        for _ in 0..100 {
            tb.read(regs::STATUS.address, 1);
        }
        n += 100;
    }
    let harness = n as f64 / start.elapsed().as_secs_f64();
    println!(
        "register reads on the RTL: {through_api:.0} a second through the C API, {harness:.0} through the harness (ratio {:.2}, target >= 0.95)",
        through_api / harness
    );

    let dir =
        npu_tb::verilator::workspace_root().join("model/tests/fixtures/networks/mobilenet_v1_vww");
    let vela = VelaModel::load(&dir.join("model_vela.tflite")).unwrap();
    let config = vela.config().unwrap();
    let input = std::fs::read(dir.join("input.bin")).unwrap();
    let job = vela.job(config, &[input]).unwrap();
    let (api_cycles, api_seconds) = api_run(&job);
    let (run, backend_seconds) = RtlBackend::default().timed_run(&job).unwrap();
    let backend_cycles = run.cycles.unwrap();
    let (api_rate, backend_rate) = (
        api_cycles as f64 / api_seconds,
        backend_cycles as f64 / backend_seconds,
    );
    println!(
        "mobilenet_v1_vww's job on the RTL: {api_cycles} cycles in {api_seconds:.2} s through the C API \
         ({api_rate:.0} cycles/s), {backend_cycles} in {backend_seconds:.2} s through npu-sim's RtlBackend \
         ({backend_rate:.0} cycles/s): ratio {:.3} (target >= 0.95)",
        api_rate / backend_rate
    );
}
