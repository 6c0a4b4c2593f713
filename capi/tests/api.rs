//! The C ABI at its edges, called as C calls it: every bad call answers a
//! code and a message naming the problem, and the device goes on.

use npu::*;
use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};

fn last_error() -> String {
    // SAFETY: the library's NUL-terminated string of this thread.
    unsafe { CStr::from_ptr(npu_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// `code` is `expected` and the thread's last error mentions `word`.
fn refused(code: i32, expected: i32, word: &str) {
    assert_eq!(code, expected, "{}", last_error());
    assert!(
        last_error().contains(word),
        "{word:?} missing from {:?}",
        last_error()
    );
}

/// The defaults of `npu_device_config_init`.
fn default_config() -> NpuDeviceConfig {
    let mut config = std::mem::MaybeUninit::<NpuDeviceConfig>::uninit();
    assert_eq!(npu_device_config_init(config.as_mut_ptr()), NPU_OK);
    // SAFETY: initialised by npu_device_config_init.
    unsafe { config.assume_init() }
}

fn create(config: &NpuDeviceConfig) -> *mut NpuDevice {
    let mut device = null_mut();
    assert_eq!(
        npu_device_create(config, &mut device),
        NPU_OK,
        "{}",
        last_error()
    );
    device
}

fn golden(configuration: &CStr) -> *mut NpuDevice {
    create(&NpuDeviceConfig {
        configuration: configuration.as_ptr(),
        ..default_config()
    })
}

#[test]
fn bad_calls_answer_a_code_and_a_message() {
    let device = golden(c"u65-512");
    let (mut data, mut slverr) = (0u32, 0i32);

    // Null pointers and handles that are not live devices.
    refused(
        npu_apb_read(null_mut(), 0, 1, &mut data, &mut slverr),
        NPU_ERR_NULL,
        "NULL",
    );
    refused(
        npu_apb_read(device, 0, 1, null_mut(), &mut slverr),
        NPU_ERR_NULL,
        "data is NULL",
    );
    let stranger = 0x1000 as *mut NpuDevice;
    refused(npu_run(stranger, 1), NPU_ERR_HANDLE, "not a live device");
    refused(
        npu_device_create(null(), &mut null_mut()),
        NPU_ERR_NULL,
        "config is NULL",
    );

    // Register offsets outside the 4 KB space or not word-aligned; a
    // register that does not exist answers PSLVERR, as the APB completer.
    refused(
        npu_apb_read(device, 0x1000, 1, &mut data, &mut slverr),
        NPU_ERR_ARGUMENT,
        "0x1000",
    );
    refused(
        npu_apb_write(device, 0x6, 0, 1, null_mut()),
        NPU_ERR_ARGUMENT,
        "word offset",
    );
    assert_eq!(
        npu_apb_read(device, 0x7fc, 1, &mut data, &mut slverr),
        NPU_OK
    );
    assert_eq!((data, slverr), (0, 1), "no register at 0x7fc");
    assert_eq!(
        npu_apb_read(device, 0x028, 1, &mut data, &mut slverr),
        NPU_OK
    );
    assert_eq!((data, slverr), (0x1000_6009, 0), "CONFIG of u65-512");

    // Memory: overlaps, zero sizes, copies outside a window.
    let mut buffer = vec![0u8; 256];
    let host = buffer.as_mut_ptr().cast::<c_void>();
    assert_eq!(npu_map(device, 0x1000, host, 256), NPU_OK);
    refused(
        npu_map(device, 0x1080, host, 256),
        NPU_ERR_MEMORY,
        "overlaps",
    );
    refused(npu_alloc(device, 0x4000, 0), NPU_ERR_MEMORY, "0 bytes");
    refused(npu_alloc(device, 1 << 40, 16), NPU_ERR_MEMORY, "40-bit");
    refused(
        npu_map(device, 0x8000, null_mut(), 16),
        NPU_ERR_NULL,
        "host is NULL",
    );
    let bytes = [1u8, 2, 3, 4];
    refused(
        npu_memory_write(device, 0x10fe, bytes.as_ptr().cast(), 4),
        NPU_ERR_MEMORY,
        "not inside one window",
    );
    assert_eq!(
        npu_memory_write(device, 0x10fc, bytes.as_ptr().cast(), 4),
        NPU_OK
    );
    assert_eq!(buffer[252..], bytes, "the host's own bytes");
    refused(
        npu_unmap(device, 0x1004),
        NPU_ERR_MEMORY,
        "no window starts at 0x1004",
    );
    assert_eq!(npu_unmap(device, 0x1000), NPU_OK);

    // Channels, backends and configurations that do not exist.
    let mut state = 0u32;
    refused(
        npu_q_state(device, 7, &mut state),
        NPU_ERR_ARGUMENT,
        "Q-channel 7",
    );
    let mut config = default_config();
    config.configuration = c"u65-1024".as_ptr();
    refused(
        npu_device_create(&config, &mut null_mut()),
        NPU_ERR_ARGUMENT,
        "u65-1024",
    );
    config.configuration = c"u65-256".as_ptr();
    config.backend = 9;
    refused(
        npu_device_create(&config, &mut null_mut()),
        NPU_ERR_ARGUMENT,
        "backend 9",
    );
    config.backend = NPU_BACKEND_RTL;
    config.memory_preset = c"Ethos_U99".as_ptr();
    refused(
        npu_device_create(&config, &mut null_mut()),
        NPU_ERR_ARGUMENT,
        "Ethos_U99",
    );

    // The device still answers; destroyed, it is a dead handle.
    assert_eq!(npu_apb_read(device, 0, 1, &mut data, &mut slverr), NPU_OK);
    npu_device_destroy(device);
    refused(npu_run(device, 1), NPU_ERR_HANDLE, "not a live device");
    npu_device_destroy(device);
    npu_device_destroy(null_mut());
}

extern "C" fn count_edges(user: *mut c_void, level: i32) {
    // SAFETY: the test's own counters, handed as `user`.
    let edges = unsafe { &mut *user.cast::<[u32; 2]>() };
    edges[level as usize] += 1;
}

/// An RTL device writes an FST when its waveform's name ends `.fst`, of the
/// window asked, closed by `npu_device_destroy`; a path it cannot write is
/// refused at `npu_device_create` with the reason.
#[test]
fn an_rtl_device_writes_an_fst_of_its_window_and_refuses_an_unwritable_path() {
    let path = std::env::temp_dir().join(format!("npu-capi-{}.fst", std::process::id()));
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    let device = create(&NpuDeviceConfig {
        backend: NPU_BACKEND_RTL,
        vcd_path: name.as_ptr(),
        vcd_start: 10,
        vcd_end: 60,
        ..default_config()
    });
    assert_eq!(npu_run(device, 100), NPU_OK);
    let mut cycle = 0;
    assert_eq!(npu_cycle(device, &mut cycle), NPU_OK);
    assert!(cycle > 60, "{cycle}");
    npu_device_destroy(device);
    let file = npu_tb::fst::read(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((file.start_time, file.end_time), (20, 119));
    assert!(file.names.contains(&"npu_u65_256/PSEL".to_string()));
    std::fs::remove_file(&path).unwrap();

    let mut device = null_mut();
    let config = NpuDeviceConfig {
        backend: NPU_BACKEND_RTL,
        vcd_path: c"/nonexistent-npu-dir/w.fst".as_ptr(),
        ..default_config()
    };
    refused(
        npu_device_create(&config, &mut device),
        NPU_ERR_BACKEND,
        "cannot write the FST file /nonexistent-npu-dir/w.fst: No such file",
    );
    assert!(device.is_null());
}

/// A device with `backend`, `stream` in a host buffer at 0x1000, started
/// through CMD.
fn started(backend: u32, stream: &mut [u32], edges: &mut [u32; 2]) -> *mut NpuDevice {
    let device = create(&NpuDeviceConfig {
        backend,
        ..default_config()
    });
    let bytes = 4 * stream.len();
    assert_eq!(
        npu_map(device, 0x1000, stream.as_mut_ptr().cast(), bytes),
        NPU_OK
    );
    let user = (edges as *mut [u32; 2]).cast::<c_void>();
    assert_eq!(
        npu_set_irq_callback(device, Some(count_edges), user),
        NPU_OK
    );
    for (offset, value) in [
        (0x010, 0x1000),
        (0x014, 0),
        (0x020, bytes as u32),
        (0x008, 1),
    ] {
        assert_eq!(npu_apb_write(device, offset, value, 1, null_mut()), NPU_OK);
    }
    device
}

/// Both backends through the API: the IRQ's edges reach the callback (up at
/// NPU_OP_IRQ, down at CMD.clear_irq, up at NPU_OP_STOP), a Q-channel
/// request is denied while the IRQ is raised and CMD.clock_q_enable is
/// clear, and a hard reset brings every register back.
#[test]
fn a_device_tells_its_irq_edges_and_answers_q_channel_requests() {
    for backend in [NPU_BACKEND_GOLDEN, NPU_BACKEND_RTL] {
        // NPU_OP_IRQ 1, 300 NPU_SET_IFM_PAD_TOP 0 (the RTL's host clears
        // the IRQ meanwhile), NPU_OP_STOP 2.
        let mut stream = vec![0x0001_0001u32];
        stream.extend([0x0000_0100; 300]);
        stream.push(0x0002_0000);
        let mut edges = [0u32; 2];
        let device = started(backend, &mut stream, &mut edges);
        let mut ran = 0;
        assert_eq!(npu_run_until_irq(device, 10_000, &mut ran), NPU_OK);
        let mut level = 0;
        npu_irq(device, &mut level);
        assert_eq!(
            (level, edges),
            (1, [0, 1]),
            "backend {backend}: the IRQ of NPU_OP_IRQ"
        );
        // CMD.clear_irq with both Q-channel enables kept off.
        assert_eq!(npu_apb_write(device, 0x008, 2, 1, null_mut()), NPU_OK);
        assert_eq!(npu_run_until_irq(device, 10_000, &mut ran), NPU_OK);
        npu_run(device, 100);
        let (mut status, mut slverr) = (0u32, 0);
        npu_apb_read(device, 0x004, 1, &mut status, &mut slverr);
        assert_eq!(edges, [1, 2], "backend {backend}: cleared, then the STOP's");
        assert_eq!(status, 0x0003_0022, "backend {backend}: STATUS");

        let mut state = 0;
        assert_eq!(npu_q_request(device, NPU_Q_CLOCK, 1), NPU_OK);
        npu_run(device, 20);
        npu_q_state(device, NPU_Q_CLOCK, &mut state);
        assert_eq!(state, NPU_Q_DENIED, "backend {backend}: denied");
        assert_eq!(npu_q_request(device, NPU_Q_CLOCK, 0), NPU_OK);
        npu_run(device, 20);
        npu_q_state(device, NPU_Q_CLOCK, &mut state);
        assert!(
            [NPU_Q_RUN, NPU_Q_CONTINUE].contains(&state),
            "backend {backend}: withdrawn"
        );

        assert_eq!(npu_hard_reset(device, 1, 0), NPU_OK);
        let mut prot = 0;
        npu_apb_read(device, 0x024, 1, &mut prot, &mut slverr);
        npu_apb_read(device, 0x004, 1, &mut status, &mut slverr);
        assert_eq!(
            (prot, status),
            (1, 0),
            "backend {backend}: PROT from PORPL, STATUS reset"
        );
        assert_eq!(edges, [2, 2], "backend {backend}: the reset's falling edge");
        npu_device_destroy(device);
    }
}

/// Devices are independent, in one thread or several.
#[test]
fn several_devices_live_side_by_side() {
    let threads: Vec<_> = [c"u65-256", c"u65-512"]
        .into_iter()
        .map(|name| {
            std::thread::spawn(move || {
                let device = golden(name);
                let (mut config, mut slverr) = (0u32, 0);
                for _ in 0..1000 {
                    assert_eq!(
                        npu_apb_read(device, 0x028, 1, &mut config, &mut slverr),
                        NPU_OK
                    );
                }
                npu_device_destroy(device);
                config
            })
        })
        .collect();
    let configs: Vec<u32> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(configs, [0x1000_3008, 0x1000_6009]);
}

/// `npu_check_stream` on the residual_add network's stream: it passes with
/// the driver's region sizes and gives its ranges as JSON, a region too
/// small is refused at the command, and bad calls answer a code.
#[test]
fn the_stream_checker_answers_through_the_c_api() {
    use npu_model::tflite::VelaModel;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../model/tests/fixtures/networks/residual_add/model_vela.tflite");
    let model = VelaModel::load(&path).unwrap();
    let op = model.npu_operators().next().unwrap();
    let stream = op.stream_bytes();
    let mut sizes = [0u64; 8];
    for (k, n) in model.region_sizes(op) {
        sizes[k] = n;
    }
    let config = c"u65-256";
    let check = |sizes: &[u64; 8], policy: u32, json: &mut Vec<u8>, at: &mut u64| {
        let mut needed = 0usize;
        let code = npu_check_stream(
            stream.as_ptr().cast::<c_void>(),
            stream.len(),
            config.as_ptr(),
            sizes.as_ptr(),
            policy,
            at,
            json.as_mut_ptr().cast(),
            json.len(),
            &mut needed,
        );
        (code, needed)
    };
    // A buffer too small gets nothing but the size it needs.
    let (mut at, mut small) = (0, vec![0u8; 4]);
    let (code, needed) = check(&sizes, NPU_POLICY_KERNEL, &mut small, &mut at);
    assert_eq!(code, NPU_OK, "{}", last_error());
    assert_eq!(small, [0; 4]);
    let mut json = vec![0u8; needed];
    check(&sizes, NPU_POLICY_KERNEL, &mut json, &mut at);
    let text = CStr::from_bytes_with_nul(&json).unwrap().to_str().unwrap();
    let parsed: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(parsed["operations"].as_array().unwrap().len(), 4, "{text}");
    // The arena cut to 0x800 bytes: the ADD at 0x23c writes past it.
    let mut cut = sizes;
    cut[1] = 0x800;
    let (code, _) = check(&cut, NPU_POLICY_NPU, &mut json, &mut at);
    refused(code, NPU_ERR_REFUSED, "byte 0x800");
    assert_eq!(at, 0x23c);
    let (code, _) = check(&sizes, 7, &mut json, &mut at);
    refused(code, NPU_ERR_ARGUMENT, "policy 7");
    let code = npu_check_stream(
        null(),
        0,
        config.as_ptr(),
        sizes.as_ptr(),
        NPU_POLICY_NPU,
        null_mut(),
        null_mut(),
        0,
        null_mut(),
    );
    refused(code, NPU_ERR_NULL, "stream");
}
