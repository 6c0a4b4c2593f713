//! The NPU as a device behind a C ABI (`include/npu.h`, generated from this
//! file by `make verilog`): the RTL (Verilator) or the golden model, its
//! registers over APB with PPROT, the host's buffers mapped at AXI
//! addresses, clocking, the IRQ, resets and the Q-channels, for a driver, a
//! virtual platform or a firmware test that did not come with this project.
//!
//! Every function returns an `NPU_*` code; on any but `NPU_OK` the calling
//! thread's `npu_last_error()` says why. No call aborts the host process:
//! a bad handle or null pointer is an error, and a failure inside the
//! simulation (a broken bus rule the harness checks) marks the device
//! failed, after which it only answers `NPU_ERR_FAILED`, and may be
//! destroyed.
//!
//! Threads: devices are independent, and several may live in one process.
//! Calls on one device are serialised (a lock per device); a call made on a
//! device from its own IRQ callback answers `NPU_ERR_BUSY`. A device may be
//! used from any thread, but not destroyed while another call on it runs.

// The entry points take C's pointers: each checks what can be checked (NULL,
// a live handle, lengths) and documents the rest as the caller's promise, as
// a C function does, rather than being `unsafe` to call from Rust.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use npu_arch::config::NpuConfig;
use npu_arch::regs::REGION_COUNT;
use npu_model::address_space::{AddressSpace, MapError};
use npu_model::check::{check_stream, CheckOptions, Policy};
use npu_model::device::{Device, DeviceError, GoldenDevice, QChannel, QState};
use npu_tb::axi::{AxiPort, CompleterConfig, SystemConfig};
use npu_tb::npu::{NpuTb, Waveform};
use npu_tb::verilator::TraceWindow;
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::ptr::NonNull;
use std::sync::{Mutex, Once, TryLockError};

/// The call succeeded.
pub const NPU_OK: i32 = 0;
/// A pointer argument was NULL.
pub const NPU_ERR_NULL: i32 = 1;
/// The handle is not a live device (never created, or destroyed).
pub const NPU_ERR_HANDLE: i32 = 2;
/// An argument is out of its range (a configuration name, a length, a
/// channel, a register offset that is not a word in the 4 KB register space).
pub const NPU_ERR_ARGUMENT: i32 = 3;
/// A memory window overlaps another, leaves the 40-bit address space, is
/// not mapped, or a copy does not lie inside one window.
pub const NPU_ERR_MEMORY: i32 = 4;
/// The backend cannot be made: the RTL was not built, or Verilator is missing.
pub const NPU_ERR_BACKEND: i32 = 5;
/// The golden model met a stream whose result the NPU does not define.
pub const NPU_ERR_MODEL: i32 = 6;
/// The simulation failed (a bus or protocol rule broken, an internal
/// error): the device is failed from now on.
pub const NPU_ERR_SIMULATION: i32 = 7;
/// The device failed earlier; only `npu_device_destroy` is left.
pub const NPU_ERR_FAILED: i32 = 8;
/// The device is in a call already (from its own IRQ callback).
pub const NPU_ERR_BUSY: i32 = 9;

/// `npu_check_stream` refused the stream: `npu_last_error()` says where
/// and why.
pub const NPU_ERR_REFUSED: i32 = 10;

/// `npu_check_stream`'s policies: what the NPU runs inside its regions, or
/// also what a shared NPU's kernel refuses (NPU_OP_IRQ, an NPU_OP_STOP that
/// is not the last word, a stream without one).
pub const NPU_POLICY_NPU: u32 = 0;
pub const NPU_POLICY_KERNEL: u32 = 1;

/// The golden model, answering every register as the RTL does.
pub const NPU_BACKEND_GOLDEN: u32 = 0;
/// The RTL through Verilator.
pub const NPU_BACKEND_RTL: u32 = 1;

/// The clock Q-channel (CLKQREQn ...) and the power Q-channel (PWRQREQn ...).
pub const NPU_Q_CLOCK: u32 = 0;
pub const NPU_Q_POWER: u32 = 1;

/// Q-channel interface states (AMBA LPI): Q_RUN, Q_REQUEST, Q_STOPPED,
/// Q_EXIT, Q_DENIED, Q_CONTINUE.
pub const NPU_Q_RUN: u32 = 0;
pub const NPU_Q_REQUEST: u32 = 1;
pub const NPU_Q_STOPPED: u32 = 2;
pub const NPU_Q_EXIT: u32 = 3;
pub const NPU_Q_DENIED: u32 = 4;
pub const NPU_Q_CONTINUE: u32 = 5;

/// The memory behind one AXI port, for the RTL backend.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct NpuPortMemory {
    /// Cycles from an accepted read address to its data, and from a
    /// burst's last write beat to its response.
    pub read_latency: u64,
    pub write_latency: u64,
    /// Data bytes a cycle, reads and writes together: 0 for the port's 16.
    pub bytes_per_cycle: f64,
    /// Transactions the memory holds at once: 0 for no limit.
    pub max_reads: u32,
    pub max_writes: u32,
}

/// What `npu_device_create` makes; `npu_device_config_init` fills the
/// defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NpuDeviceConfig {
    /// "u65-256" or "u65-512".
    pub configuration: *const c_char,
    /// `NPU_BACKEND_GOLDEN` or `NPU_BACKEND_RTL`.
    pub backend: u32,
    /// One of Vela's system configurations behind both ports
    /// ("Ethos_U65_Client_Server", ...), or NULL for `ports`.
    pub memory_preset: *const c_char,
    /// M0's and M1's memory when `memory_preset` is NULL (zeros: an ideal
    /// memory).
    pub ports: [NpuPortMemory; 2],
    /// RTL: a waveform of the run to write, or NULL: an FST when the name
    /// ends `.fst`, else a VCD; the cycles dumped are `vcd_start` to
    /// `vcd_end` (0 and 0: every cycle), in either format.
    pub vcd_path: *const c_char,
    pub vcd_start: u64,
    pub vcd_end: u64,
}

/// An IRQ edge: the new level (1 high, 0 low), and the `user` pointer given
/// with the callback.
pub type NpuIrqCallback = Option<extern "C" fn(user: *mut c_void, level: i32)>;

/// One device: opaque to C.
pub struct NpuDevice {
    state: Mutex<State>,
}

enum Backend {
    Golden(Box<GoldenDevice>),
    Rtl(Box<NpuTb>),
}

// SAFETY: a device is used by one thread at a time (its lock), and neither
// backend is tied to the thread that made it: the Verilated model keeps
// its own context, and the host's buffers are the host's promise
// (`npu_map`).
unsafe impl Send for Backend {}

impl Backend {
    fn device(&mut self) -> &mut dyn Device {
        match self {
            Backend::Golden(d) => d.as_mut(),
            Backend::Rtl(tb) => tb.as_mut(),
        }
    }

    /// The RTL's memory answers DECERR outside the mapped windows.
    fn follow_windows(&mut self) {
        if let Backend::Rtl(tb) = self {
            tb.answer_only_windows();
        }
    }
}

struct State {
    backend: Backend,
    callback: NpuIrqCallback,
    user: *mut c_void,
    /// The IRQ level the callback was last told of.
    irq: bool,
    failed: Option<String>,
}

// SAFETY: `user` is the host's pointer, handed back to its callback only.
unsafe impl Send for State {}

/// Why a call failed: an `NPU_*` code and its message.
struct Failure(i32, String);

impl From<MapError> for Failure {
    fn from(e: MapError) -> Self {
        Failure(NPU_ERR_MEMORY, e.to_string())
    }
}

impl From<DeviceError> for Failure {
    fn from(e: DeviceError) -> Self {
        match e {
            DeviceError::Model(_) => Failure(NPU_ERR_MODEL, e.to_string()),
            DeviceError::Simulation(_) => Failure(NPU_ERR_SIMULATION, e.to_string()),
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
    /// Calls in progress on this thread (a callback's calls nest): a panic
    /// inside one is caught and becomes its error, not printed.
    static IN_CALL: Cell<u32> = const { Cell::new(0) };
}

/// Live devices, by address: a handle not in it is refused.
static LIVE: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// The panic hook stays quiet for panics inside a call (they become the
/// call's error) and leaves every other panic to the host's hook.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_CALL.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Runs `f` as a call: its failure or panic becomes the code and the
/// thread's last error.
fn call(f: impl FnOnce() -> Result<(), Failure>) -> i32 {
    install_panic_hook();
    IN_CALL.with(|c| c.set(c.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(f));
    IN_CALL.with(|c| c.set(c.get() - 1));
    match result {
        Ok(Ok(())) => NPU_OK,
        Ok(Err(Failure(code, message))) => {
            set_last_error(&message);
            code
        }
        Err(payload) => {
            set_last_error(&format!("internal error: {}", panic_message(&*payload)));
            NPU_ERR_SIMULATION
        }
    }
}

/// The device behind `handle`, locked, for `f`; a failure inside marks it
/// failed.
fn with_device(handle: *mut NpuDevice, f: impl FnOnce(&mut State) -> Result<(), Failure>) -> i32 {
    call(|| {
        if handle.is_null() {
            return Err(Failure(NPU_ERR_NULL, "the device handle is NULL".into()));
        }
        if !LIVE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&(handle as usize))
        {
            return Err(Failure(
                NPU_ERR_HANDLE,
                format!("{handle:p} is not a live device (never created, or destroyed)"),
            ));
        }
        // SAFETY: the handle is live: `npu_device_create` made it and
        // `npu_device_destroy` has not freed it.
        let device = unsafe { &*handle };
        let mut state = match device.state.try_lock() {
            Ok(s) => s,
            Err(TryLockError::WouldBlock) => {
                // Another thread's call: wait for it; our own (a callback)
                // would never end.
                if IN_CALLBACK.with(Cell::get) {
                    return Err(Failure(
                        NPU_ERR_BUSY,
                        "the device is in a call already: an IRQ callback may not call its device"
                            .into(),
                    ));
                }
                device.state.lock().unwrap_or_else(|e| e.into_inner())
            }
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
        };
        if let Some(why) = &state.failed {
            return Err(Failure(
                NPU_ERR_FAILED,
                format!("the device failed earlier: {why}"),
            ));
        }
        let result = catch_unwind(AssertUnwindSafe(|| f(&mut state)));
        match result {
            Ok(Err(Failure(NPU_ERR_SIMULATION, message))) => {
                state.failed = Some(message.clone());
                Err(Failure(NPU_ERR_SIMULATION, message))
            }
            Ok(r) => r,
            Err(payload) => {
                let message = format!("the simulation failed: {}", panic_message(&*payload));
                state.failed = Some(message.clone());
                Err(Failure(NPU_ERR_SIMULATION, message))
            }
        }
    })
}

thread_local! {
    /// Inside an IRQ callback.
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

fn out<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: a non-null out pointer is the caller's promise of a `T`.
    unsafe { ptr.as_mut() }.ok_or_else(|| Failure(NPU_ERR_NULL, format!("{what} is NULL")))
}

fn text(ptr: *const c_char, what: &str) -> Result<Option<String>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: a non-null string is the caller's promise of a C string.
    let s = unsafe { CStr::from_ptr(ptr) };
    s.to_str()
        .map(|s| Some(s.to_string()))
        .map_err(|_| Failure(NPU_ERR_ARGUMENT, format!("{what} is not UTF-8")))
}

/// The register offset as an APB address: a word inside the 4 KB space.
fn register(offset: u32) -> Result<u16, Failure> {
    if offset >= 0x1000 || !offset.is_multiple_of(4) {
        return Err(Failure(
            NPU_ERR_ARGUMENT,
            format!("register offset {offset:#x} is not a word offset below 0x1000"),
        ));
    }
    Ok(offset as u16)
}

fn q_channel(channel: u32) -> Result<QChannel, Failure> {
    match channel {
        NPU_Q_CLOCK => Ok(QChannel::Clock),
        NPU_Q_POWER => Ok(QChannel::Power),
        _ => Err(Failure(
            NPU_ERR_ARGUMENT,
            format!("Q-channel {channel}: NPU_Q_CLOCK (0) or NPU_Q_POWER (1)"),
        )),
    }
}

impl State {
    /// Tells the callback of an IRQ edge, if there is one.
    fn irq_edge(&mut self) {
        let level = self.backend.device().irq();
        if level != self.irq {
            self.irq = level;
            if let Some(callback) = self.callback {
                IN_CALLBACK.with(|c| c.set(true));
                callback(self.user, i32::from(level));
                IN_CALLBACK.with(|c| c.set(false));
            }
        }
    }

    /// Runs `cycles` cycles, or until the IRQ rises with `until_irq`; the
    /// cycles run. With a callback the cycles run one by one, so each edge
    /// is told as it happens.
    fn run(&mut self, cycles: u64, until_irq: bool) -> Result<u64, Failure> {
        if self.callback.is_none() && !until_irq {
            self.backend.device().run(cycles)?;
            self.irq_edge();
            return Ok(cycles);
        }
        let mut ran = 0;
        while ran < cycles && !(until_irq && self.backend.device().irq()) {
            self.backend.device().run(1)?;
            ran += 1;
            self.irq_edge();
        }
        Ok(ran)
    }
}

fn port_memory(p: &NpuPortMemory) -> Result<CompleterConfig, Failure> {
    let bytes = p.bytes_per_cycle;
    if !(0.0..=16.0).contains(&bytes) || bytes.is_nan() {
        return Err(Failure(
            NPU_ERR_ARGUMENT,
            format!("bytes_per_cycle {bytes}: 0 (the port's 16) to 16"),
        ));
    }
    let limit = |n: u32| (n > 0).then_some(n as usize);
    Ok(CompleterConfig {
        read_latency: p.read_latency,
        write_latency: p.write_latency,
        bytes_per_cycle: (bytes > 0.0).then_some(bytes),
        max_reads: limit(p.max_reads),
        max_writes: limit(p.max_writes),
        ..CompleterConfig::ideal()
    })
}

/// Fills `config` with the defaults: u65-256, the golden model, ideal
/// memory, no waveform.
#[no_mangle]
pub extern "C" fn npu_device_config_init(config: *mut NpuDeviceConfig) -> i32 {
    call(|| {
        *out(config, "config")? = NpuDeviceConfig {
            configuration: c"u65-256".as_ptr(),
            backend: NPU_BACKEND_GOLDEN,
            memory_preset: std::ptr::null(),
            ports: [NpuPortMemory::default(); 2],
            vcd_path: std::ptr::null(),
            vcd_start: 0,
            vcd_end: 0,
        };
        Ok(())
    })
}

/// Makes a device as `config` asks, after a hard reset with PORPL = PORSL
/// = 0; `*device` is its handle. Its memory is empty: every AXI access
/// answers DECERR until windows are mapped (`npu_map`, `npu_alloc`).
#[no_mangle]
pub extern "C" fn npu_device_create(
    config: *const NpuDeviceConfig,
    device: *mut *mut NpuDevice,
) -> i32 {
    call(|| {
        let handle = out(device, "device")?;
        *handle = std::ptr::null_mut();
        // SAFETY: a non-null config is the caller's promise.
        let config = unsafe { config.as_ref() }
            .ok_or_else(|| Failure(NPU_ERR_NULL, "config is NULL".into()))?;
        let name = text(config.configuration, "configuration")?
            .ok_or_else(|| Failure(NPU_ERR_NULL, "configuration is NULL".into()))?;
        let npu =
            NpuConfig::by_name(&name).map_err(|e| Failure(NPU_ERR_ARGUMENT, e.to_string()))?;
        let backend = match config.backend {
            NPU_BACKEND_GOLDEN => Backend::Golden(Box::new(GoldenDevice::new(npu))),
            NPU_BACKEND_RTL => {
                let memories = match text(config.memory_preset, "memory_preset")? {
                    Some(name) => {
                        let system = SystemConfig::by_name(&name)
                            .map_err(|e| Failure(NPU_ERR_ARGUMENT, e))?;
                        [system.completer(0, false), system.completer(1, false)]
                    }
                    None => [
                        port_memory(&config.ports[0])?,
                        port_memory(&config.ports[1])?,
                    ],
                };
                let window = if (config.vcd_start, config.vcd_end) == (0, 0) {
                    TraceWindow::ALL
                } else {
                    TraceWindow {
                        start: config.vcd_start,
                        end: config.vcd_end,
                    }
                };
                let waveform = text(config.vcd_path, "vcd_path")?
                    .map(|path| Waveform::new(PathBuf::from(path), window));
                let mut tb = NpuTb::with_waveform(&npu.name, waveform)
                    .map_err(|e| Failure(NPU_ERR_BACKEND, format!("the RTL backend: {e:#}")))?;
                for (port, memory) in AxiPort::ALL.into_iter().zip(memories) {
                    tb.set_axi_config(port, memory);
                }
                let mut backend = Backend::Rtl(Box::new(tb));
                backend.follow_windows();
                backend
            }
            other => {
                return Err(Failure(
                    NPU_ERR_ARGUMENT,
                    format!("backend {other}: NPU_BACKEND_GOLDEN (0) or NPU_BACKEND_RTL (1)"),
                ))
            }
        };
        let made = Box::into_raw(Box::new(NpuDevice {
            state: Mutex::new(State {
                backend,
                callback: None,
                user: std::ptr::null_mut(),
                irq: false,
                failed: None,
            }),
        }));
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(made as usize);
        *handle = made;
        Ok(())
    })
}

/// Frees the device (a waveform it writes is closed). NULL or a handle that is
/// not live does nothing.
#[no_mangle]
pub extern "C" fn npu_device_destroy(device: *mut NpuDevice) {
    call(|| {
        let live = LIVE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(device as usize));
        if live {
            // SAFETY: the handle was live, so made by `Box::into_raw`, and it
            // is no longer in `LIVE`, so no later call reaches it.
            drop(unsafe { Box::from_raw(device) });
        }
        Ok(())
    });
}

/// One APB read of the register at byte `offset` with `pprot` (bit 0
/// privileged, bit 1 non-secure, TRM 4.1): `*data` the read data (0 when
/// PPROT does not permit it), `*slverr` 1 when the access answered PSLVERR
/// (no register there).
#[no_mangle]
pub extern "C" fn npu_apb_read(
    device: *mut NpuDevice,
    offset: u32,
    pprot: u8,
    data: *mut u32,
    slverr: *mut i32,
) -> i32 {
    with_device(device, |state| {
        let (data, slverr) = (out(data, "data")?, out(slverr, "slverr")?);
        let r = state.backend.device().read(register(offset)?, pprot);
        (*data, *slverr) = (r.rdata, i32::from(r.slverr));
        state.irq_edge();
        Ok(())
    })
}

/// One APB write; `*slverr` as for `npu_apb_read` (`slverr` may be NULL).
/// A write that starts the golden model runs its stream before it returns.
#[no_mangle]
pub extern "C" fn npu_apb_write(
    device: *mut NpuDevice,
    offset: u32,
    value: u32,
    pprot: u8,
    slverr: *mut i32,
) -> i32 {
    with_device(device, |state| {
        let r = state
            .backend
            .device()
            .write(register(offset)?, value, pprot)?;
        if !slverr.is_null() {
            *out(slverr, "slverr")? = i32::from(r.slverr);
        }
        state.irq_edge();
        Ok(())
    })
}

/// Maps `size` bytes of the host's memory at `host` at AXI address
/// `address`: the NPU reads and writes them in place, without copies. The
/// buffer must stay valid until it is unmapped or the device destroyed,
/// and not be touched by the host while the device runs.
#[no_mangle]
pub extern "C" fn npu_map(
    device: *mut NpuDevice,
    address: u64,
    host: *mut c_void,
    size: usize,
) -> i32 {
    with_device(device, |state| {
        let ptr = NonNull::new(host.cast::<u8>())
            .ok_or_else(|| Failure(NPU_ERR_NULL, "host is NULL".into()))?;
        // SAFETY: the caller promises the buffer, as this function's doc says.
        unsafe {
            state
                .backend
                .device()
                .memory_mut()
                .map_host(address, ptr, size)?
        };
        state.backend.follow_windows();
        Ok(())
    })
}

/// Maps `size` bytes of zeros the device owns at `address`.
#[no_mangle]
pub extern "C" fn npu_alloc(device: *mut NpuDevice, address: u64, size: usize) -> i32 {
    with_device(device, |state| {
        state
            .backend
            .device()
            .memory_mut()
            .map_owned(address, size)?;
        state.backend.follow_windows();
        Ok(())
    })
}

/// Removes the window that starts at `address`.
#[no_mangle]
pub extern "C" fn npu_unmap(device: *mut NpuDevice, address: u64) -> i32 {
    with_device(device, |state| {
        state.backend.device().memory_mut().unmap(address)?;
        state.backend.follow_windows();
        Ok(())
    })
}

fn memory(state: &mut State) -> &mut AddressSpace {
    state.backend.device().memory_mut()
}

/// Copies `size` bytes from `data` to AXI address `address`, inside one window.
#[no_mangle]
pub extern "C" fn npu_memory_write(
    device: *mut NpuDevice,
    address: u64,
    data: *const c_void,
    size: usize,
) -> i32 {
    with_device(device, |state| {
        if data.is_null() {
            return Err(Failure(NPU_ERR_NULL, "data is NULL".into()));
        }
        // SAFETY: the caller promises `size` readable bytes at `data`.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) };
        Ok(memory(state).copy_in(address, bytes)?)
    })
}

/// Copies `size` bytes at AXI address `address`, inside one window, to `data`.
#[no_mangle]
pub extern "C" fn npu_memory_read(
    device: *mut NpuDevice,
    address: u64,
    data: *mut c_void,
    size: usize,
) -> i32 {
    with_device(device, |state| {
        if data.is_null() {
            return Err(Failure(NPU_ERR_NULL, "data is NULL".into()));
        }
        // SAFETY: the caller promises `size` writable bytes at `data`.
        let bytes = unsafe { std::slice::from_raw_parts_mut(data.cast::<u8>(), size) };
        Ok(memory(state).copy_out(address, bytes)?)
    })
}

/// Runs `cycles` CLK cycles.
#[no_mangle]
pub extern "C" fn npu_run(device: *mut NpuDevice, cycles: u64) -> i32 {
    with_device(device, |state| state.run(cycles, false).map(|_| ()))
}

/// Runs until the IRQ is high or `budget` cycles have run; `*cycles_run`
/// (may be NULL) is how many ran. The IRQ's level says which ended it.
#[no_mangle]
pub extern "C" fn npu_run_until_irq(
    device: *mut NpuDevice,
    budget: u64,
    cycles_run: *mut u64,
) -> i32 {
    with_device(device, |state| {
        let ran = state.run(budget, true)?;
        if !cycles_run.is_null() {
            *out(cycles_run, "cycles_run")? = ran;
        }
        Ok(())
    })
}

/// `*level` is the IRQ output: 1 high, 0 low.
#[no_mangle]
pub extern "C" fn npu_irq(device: *mut NpuDevice, level: *mut i32) -> i32 {
    with_device(device, |state| {
        *out(level, "level")? = i32::from(state.backend.device().irq());
        Ok(())
    })
}

/// Calls `callback(user, level)` at every edge of the IRQ output, from
/// within the call that ran the device across it; NULL removes it. The
/// callback may not call its own device.
#[no_mangle]
pub extern "C" fn npu_set_irq_callback(
    device: *mut NpuDevice,
    callback: NpuIrqCallback,
    user: *mut c_void,
) -> i32 {
    with_device(device, |state| {
        state.callback = callback;
        state.user = user;
        state.irq = state.backend.device().irq();
        Ok(())
    })
}

/// nRESET with the power-on levels `porpl` (1: privileged) and `porsl`
/// (1: non-secure), TRM 4.2.10. The memory windows stay.
#[no_mangle]
pub extern "C" fn npu_hard_reset(device: *mut NpuDevice, porpl: i32, porsl: i32) -> i32 {
    with_device(device, |state| {
        state.backend.device().hard_reset(porpl != 0, porsl != 0)?;
        state.irq_edge();
        Ok(())
    })
}

/// Drives QREQn of `channel` (`NPU_Q_CLOCK`, `NPU_Q_POWER`) as a clock or
/// power controller: `request` 1 asks for quiescence (QREQn low), 0
/// withdraws it. The NPU answers over the next cycles (`npu_q_state`).
#[no_mangle]
pub extern "C" fn npu_q_request(device: *mut NpuDevice, channel: u32, request: i32) -> i32 {
    with_device(device, |state| {
        Ok(state
            .backend
            .device()
            .set_q_request(q_channel(channel)?, request != 0)?)
    })
}

/// `*q_state` is the channel's interface state, `NPU_Q_RUN` ... `NPU_Q_CONTINUE`.
#[no_mangle]
pub extern "C" fn npu_q_state(device: *mut NpuDevice, channel: u32, q_state: *mut u32) -> i32 {
    with_device(device, |state| {
        let s = state.backend.device().q_state(q_channel(channel)?);
        *out(q_state, "q_state")? = match s {
            QState::Run => NPU_Q_RUN,
            QState::Request => NPU_Q_REQUEST,
            QState::Stopped => NPU_Q_STOPPED,
            QState::Exit => NPU_Q_EXIT,
            QState::Denied => NPU_Q_DENIED,
            QState::Continue => NPU_Q_CONTINUE,
        };
        Ok(())
    })
}

/// `*cycle` is the CLK cycles run since the device was made.
#[no_mangle]
pub extern "C" fn npu_cycle(device: *mut NpuDevice, cycle: *mut u64) -> i32 {
    with_device(device, |state| {
        *out(cycle, "cycle")? = state.backend.device().cycle();
        Ok(())
    })
}

/// Checks a command stream before it runs (docs/stream-checker.md): the
/// bytes each kernel operation and DMA may read and write in each region,
/// against `region_sizes` (8 entries, one per base-pointer region; 0 for
/// a region the stream may not touch), on `configuration` ("u65-256",
/// "u65-512"). Returns
/// `NPU_OK` when it passes and `NPU_ERR_REFUSED` when it does not, with
/// `*refused_at` (may be NULL) the refused command's byte offset and
/// `npu_last_error()` the reason. With `json` not NULL, the result (every
/// operation's ranges, or the refusal) is written there as JSON,
/// NUL-terminated, when `json_capacity` bytes hold it; `*json_size` (may be
/// NULL) is the bytes it needs, NUL included.
#[no_mangle]
pub extern "C" fn npu_check_stream(
    stream: *const c_void,
    stream_size: usize,
    configuration: *const c_char,
    region_sizes: *const u64,
    policy: u32,
    refused_at: *mut u64,
    json: *mut c_char,
    json_capacity: usize,
    json_size: *mut usize,
) -> i32 {
    call(|| {
        if stream.is_null() || region_sizes.is_null() {
            return Err(Failure(
                NPU_ERR_NULL,
                "stream or region_sizes is NULL".into(),
            ));
        }
        let name = text(configuration, "configuration")?
            .ok_or_else(|| Failure(NPU_ERR_NULL, "configuration is NULL".into()))?;
        let config =
            NpuConfig::by_name(&name).map_err(|e| Failure(NPU_ERR_ARGUMENT, e.to_string()))?;
        let policy = match policy {
            NPU_POLICY_NPU => Policy::Npu,
            NPU_POLICY_KERNEL => Policy::Kernel,
            other => {
                return Err(Failure(
                    NPU_ERR_ARGUMENT,
                    format!(
                        "policy {other} is neither NPU_POLICY_NPU (0) nor NPU_POLICY_KERNEL (1)"
                    ),
                ))
            }
        };
        // SAFETY: the caller promises `stream_size` bytes at `stream` and
        // REGION_COUNT sizes at `region_sizes`.
        let bytes = unsafe { std::slice::from_raw_parts(stream.cast::<u8>(), stream_size) };
        let sizes = unsafe { std::slice::from_raw_parts(region_sizes, REGION_COUNT) };
        let options = CheckOptions {
            config,
            region_sizes: sizes
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(k, &n)| (k, n))
                .collect(),
            policy,
        };
        let result = check_stream(bytes, &options);
        let text = match &result {
            Ok(check) => serde_json::to_string(check),
            Err(refusal) => serde_json::to_string(refusal),
        }
        .map_err(|e| Failure(NPU_ERR_ARGUMENT, format!("the result as JSON: {e}")))?;
        if !json_size.is_null() {
            *out(json_size, "json_size")? = text.len() + 1;
        }
        if !json.is_null() && json_capacity > text.len() {
            // SAFETY: the caller promises `json_capacity` writable bytes.
            let buffer =
                unsafe { std::slice::from_raw_parts_mut(json.cast::<u8>(), json_capacity) };
            buffer[..text.len()].copy_from_slice(text.as_bytes());
            buffer[text.len()] = 0;
        }
        match result {
            Ok(_) => Ok(()),
            Err(refusal) => {
                if !refused_at.is_null() {
                    *out(refused_at, "refused_at")? = refusal.offset as u64;
                }
                Err(Failure(NPU_ERR_REFUSED, refusal.to_string()))
            }
        }
    })
}

/// Why the calling thread's last call failed (a NUL-terminated string, ""
/// when none did), valid until its next failing call.
#[no_mangle]
pub extern "C" fn npu_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}
