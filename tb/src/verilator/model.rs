//! A loaded Verilated model and its ports.

use super::build::{storage_bytes, BuildError, DesignFiles, ManifestPort, Trace, WaveFormat};
use libloading::Library;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

type NewFn = unsafe extern "C" fn() -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type EvalFn = unsafe extern "C" fn(*mut c_void);
type PortFn = unsafe extern "C" fn(*mut c_void, c_int) -> *mut c_void;
type TraceOpenFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;
type TraceDumpFn = unsafe extern "C" fn(*mut c_void, u64);
type TraceFlushFn = unsafe extern "C" fn(*mut c_void);
type CoverageCountersFn = unsafe extern "C" fn(*mut c_void, *mut c_int) -> *mut u32;
type CoverageWriteFn = unsafe extern "C" fn(*mut c_void, *const c_char);
type PublicVarFn = unsafe extern "C" fn(
    *mut c_void,
    c_int,
    *mut *const c_char,
    *mut *const c_char,
    *mut *mut c_void,
    *mut c_int,
    *mut c_int,
    *mut c_int,
    *mut c_int,
) -> c_int;

/// Entry points of one loaded library, shared by every model built from it.
struct Api {
    _lib: Library,
    new: NewFn,
    free: FreeFn,
    eval: EvalFn,
    port: PortFn,
    public_var: PublicVarFn,
    /// In a library built with [`Trace::On`].
    trace: Option<TraceApi>,
    /// In a coverage build ([`super::coverage`]).
    coverage: Option<CoverageApi>,
    path: std::path::PathBuf,
}

struct CoverageApi {
    counters: CoverageCountersFn,
    write: CoverageWriteFn,
}

struct TraceApi {
    open: TraceOpenFn,
    dump: TraceDumpFn,
    flush: TraceFlushFn,
}

fn load_api(path: &Path, trace: Trace, coverage: bool) -> Result<Arc<Api>, String> {
    static LOADED: OnceLock<Mutex<HashMap<std::path::PathBuf, Arc<Api>>>> = OnceLock::new();
    let mut loaded = LOADED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(api) = loaded.get(path) {
        return Ok(api.clone());
    }
    let err = |e: libloading::Error| format!("loading {}: {e}", path.display());
    // SAFETY: the library is one this harness built from its own shim; the
    // symbols below have exactly the signatures that shim defines.
    let api = unsafe {
        let lib = Library::new(path).map_err(err)?;
        Api {
            new: *lib.get::<NewFn>(b"npu_sim_new").map_err(err)?,
            free: *lib.get::<FreeFn>(b"npu_sim_free").map_err(err)?,
            eval: *lib.get::<EvalFn>(b"npu_sim_eval").map_err(err)?,
            port: *lib.get::<PortFn>(b"npu_sim_port").map_err(err)?,
            public_var: *lib.get::<PublicVarFn>(b"npu_sim_public_var").map_err(err)?,
            trace: match trace {
                Trace::Off => None,
                Trace::On(_) => Some(TraceApi {
                    open: *lib.get::<TraceOpenFn>(b"npu_sim_trace_open").map_err(err)?,
                    dump: *lib.get::<TraceDumpFn>(b"npu_sim_trace_dump").map_err(err)?,
                    flush: *lib
                        .get::<TraceFlushFn>(b"npu_sim_trace_flush")
                        .map_err(err)?,
                }),
            },
            coverage: match coverage {
                false => None,
                true => Some(CoverageApi {
                    counters: *lib
                        .get::<CoverageCountersFn>(b"npu_sim_coverage_counters")
                        .map_err(err)?,
                    write: *lib
                        .get::<CoverageWriteFn>(b"npu_sim_coverage_write")
                        .map_err(err)?,
                }),
            },
            path: path.to_path_buf(),
            _lib: lib,
        }
    };
    let api = Arc::new(api);
    loaded.insert(path.to_path_buf(), api.clone());
    Ok(api)
}

/// Writes a coverage library's summed counts: a model of it made for the
/// purpose takes them (saturated to its 32-bit counters) and Verilator's
/// writer, in the shim, writes them.
fn coverage_writer(api: Arc<Api>) -> super::coverage::Writer {
    Box::new(move |counts, path| {
        let (Some(coverage), Ok(c_path)) = (
            &api.coverage,
            CString::new(path.as_os_str().as_encoded_bytes()),
        ) else {
            return;
        };
        // SAFETY: the model is made, filled, written and freed here; its
        // counters are its own until `free`, the path outlives the call.
        unsafe {
            let sim = (api.new)();
            let mut count = 0;
            let data = (coverage.counters)(sim, &mut count);
            let counters = std::slice::from_raw_parts_mut(data, count as usize);
            for (c, &sum) in counters.iter_mut().zip(counts) {
                *c = u32::try_from(sum).unwrap_or(u32::MAX);
            }
            (coverage.write)(sim, c_path.as_ptr());
            (api.free)(sim);
        }
    })
}

/// Index of a port in its model, resolved once by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortId(usize);

struct Port {
    ptr: *mut u8,
    width: usize,
    bytes: usize,
}

/// Cycles of a run to dump into the waveform: `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceWindow {
    pub start: u64,
    pub end: u64,
}

impl TraceWindow {
    pub const ALL: Self = Self {
        start: 0,
        end: u64::MAX,
    };

    /// Parses `START:END`, `START:` or `:END` (cycles).
    pub fn parse(text: &str) -> Result<Self, String> {
        let (a, b) = text
            .split_once(':')
            .ok_or_else(|| format!("trace window '{text}' is not START:END"))?;
        let num = |s: &str, default: u64| {
            if s.is_empty() {
                Ok(default)
            } else {
                s.parse::<u64>()
                    .map_err(|_| format!("trace window '{text}': '{s}' is not a cycle number"))
            }
        };
        let window = Self {
            start: num(a, 0)?,
            end: num(b, u64::MAX)?,
        };
        if window.start >= window.end {
            return Err(format!("trace window '{text}' is empty"));
        }
        Ok(window)
    }
}

/// One instance of a Verilated design.
pub struct Model {
    api: Arc<Api>,
    sim: *mut c_void,
    ports: Vec<Port>,
    names: HashMap<String, PortId>,
    clock: PortId,
    cycle: u64,
    trace: Option<TraceWindow>,
}

// SAFETY: a model is used by one thread at a time; Verilator models with
// their own VerilatedContext may live on any thread.
unsafe impl Send for Model {}

impl Model {
    /// Builds (or reuses) the library for `design`, without tracing, and
    /// instantiates it. `clock` names the clock port that [`Model::tick`] toggles.
    pub fn new(design: &DesignFiles, clock: &str) -> Result<Self, BuildError> {
        Self::instantiate(design, clock, Trace::Off)
    }

    /// As [`Model::new`] from the library built with tracing in `format`,
    /// writing a waveform of the cycles in `window` to `path`.
    pub fn with_trace(
        design: &DesignFiles,
        clock: &str,
        path: &Path,
        window: TraceWindow,
        format: WaveFormat,
    ) -> Result<Self, BuildError> {
        let failed = |source| BuildError::Waveform {
            format,
            path: path.to_path_buf(),
            source,
        };
        // Verilator's writers say only whether the file opened (the FST
        // writer not even that): creating it here first names the reason.
        std::fs::File::create(path).map_err(failed)?;
        let mut model = Self::instantiate(design, clock, Trace::On(format))?;
        let trace = model
            .api
            .trace
            .as_ref()
            .expect("a library built with Trace::On");
        let c_path = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|e| failed(std::io::Error::new(std::io::ErrorKind::InvalidInput, e)))?;
        // SAFETY: sim is live; the path outlives the call.
        if unsafe { (trace.open)(model.sim, c_path.as_ptr()) } != 0 {
            return Err(failed(std::io::Error::other("the writer did not open it")));
        }
        model.trace = Some(window);
        Ok(model)
    }

    fn instantiate(design: &DesignFiles, clock: &str, trace: Trace) -> Result<Self, BuildError> {
        let lib = super::build(design, trace)?;
        let coverage = super::coverage::coverage_build(trace != Trace::Off);
        let api = load_api(&lib, trace, coverage).map_err(|tail| BuildError::Step {
            step: "loading the Verilated library".into(),
            log: lib.clone(),
            tail,
        })?;
        // SAFETY: `new` returns a fresh model owned by this struct until `free`.
        let sim = unsafe { (api.new)() };
        if coverage {
            super::coverage::opened(&lib, || coverage_writer(api.clone()));
        }
        let ports = design
            .ports
            .iter()
            .enumerate()
            .map(|(i, p): (usize, &ManifestPort)| {
                // SAFETY: index i is a case of the shim's switch, built from the same manifest.
                let ptr = unsafe { (api.port)(sim, i as c_int) } as *mut u8;
                assert!(!ptr.is_null(), "the shim has no port {i} ({})", p.name);
                Port {
                    ptr,
                    width: p.width,
                    bytes: storage_bytes(p.width),
                }
            })
            .collect();
        let names: HashMap<String, PortId> = design
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), PortId(i)))
            .collect();
        let clock = *names.get(clock).ok_or_else(|| BuildError::Step {
            step: "finding the clock port".into(),
            log: design.verilog.clone(),
            tail: format!("{} has no port {clock}", design.module),
        })?;
        Ok(Self {
            api,
            sim,
            ports,
            names,
            clock,
            cycle: 0,
            trace: None,
        })
    }

    /// The port called `name`.
    ///
    /// # Panics
    /// When the design has no such port: the testbench and design disagree.
    pub fn port(&self, name: &str) -> PortId {
        *self
            .names
            .get(name)
            .unwrap_or_else(|| panic!("the design has no port named {name}"))
    }

    pub fn width(&self, id: PortId) -> usize {
        self.ports[id.0].width
    }

    /// Sets a port of up to 64 bits.
    #[inline]
    pub fn set(&mut self, id: PortId, value: u64) {
        let p = &self.ports[id.0];
        debug_assert!(p.width <= 64, "use set_wide for the {}-bit port", p.width);
        debug_assert!(
            p.width == 64 || value >> p.width == 0,
            "value {value:#x} overflows a {}-bit port",
            p.width
        );
        // SAFETY: ptr points at the model's storage for this port, `bytes` long.
        unsafe {
            match p.bytes {
                1 => *p.ptr = value as u8,
                2 => *(p.ptr as *mut u16) = value as u16,
                4 => *(p.ptr as *mut u32) = value as u32,
                _ => *(p.ptr as *mut u64) = value,
            }
        }
    }

    /// Reads a port of up to 64 bits.
    #[inline]
    pub fn get(&self, id: PortId) -> u64 {
        let p = &self.ports[id.0];
        debug_assert!(p.width <= 64, "use get_wide for the {}-bit port", p.width);
        // SAFETY: as in `set`.
        unsafe { load(p.ptr, p.bytes) }
    }

    /// Sets a port of any width from 32-bit words, word 0 = bits 31:0.
    pub fn set_wide(&mut self, id: PortId, words: &[u32]) {
        let p = &self.ports[id.0];
        let n = p.width.div_ceil(32);
        assert_eq!(words.len(), n, "the {}-bit port takes {n} words", p.width);
        if p.width <= 64 {
            let v = words
                .iter()
                .rev()
                .fold(0u64, |acc, &w| (acc << 32) | u64::from(w));
            self.set(id, v);
        } else {
            // SAFETY: a wide port is an array of n 32-bit words.
            unsafe { std::ptr::copy_nonoverlapping(words.as_ptr(), p.ptr as *mut u32, n) }
        }
    }

    /// Reads a port of any width as 32-bit words, word 0 = bits 31:0.
    pub fn get_wide(&self, id: PortId) -> Vec<u32> {
        let p = &self.ports[id.0];
        let n = p.width.div_ceil(32);
        if p.width <= 64 {
            let v = self.get(id);
            (0..n).map(|i| (v >> (32 * i)) as u32).collect()
        } else {
            let mut words = vec![0u32; n];
            // SAFETY: as in `set_wide`.
            unsafe { std::ptr::copy_nonoverlapping(p.ptr as *const u32, words.as_mut_ptr(), n) }
            words
        }
    }

    /// Evaluates the model after inputs changed without a clock edge.
    pub fn eval(&mut self) {
        // SAFETY: sim is a live model.
        unsafe { (self.api.eval)(self.sim) }
    }

    /// One clock cycle: the clock falls (inputs set before this call settle),
    /// then rises (registers take them). Outputs read afterwards show the
    /// state after the rising edge.
    #[inline]
    pub fn tick(&mut self) {
        self.fall();
        self.rise();
    }

    /// The first half of [`Model::tick`]: the clock falls and the inputs set
    /// before this call settle; outputs read now are those the next rising
    /// edge sees.
    #[inline]
    pub fn fall(&mut self) {
        self.set(self.clock, 0);
        self.eval();
        self.dump(2 * self.cycle);
    }

    /// The second half of [`Model::tick`]: the clock rises.
    #[inline]
    pub fn rise(&mut self) {
        self.set(self.clock, 1);
        self.eval();
        self.dump(2 * self.cycle + 1);
        self.cycle += 1;
    }

    #[inline]
    fn dump(&mut self, time: u64) {
        if let (Some(w), Some(trace)) = (self.trace, &self.api.trace) {
            if (w.start..w.end).contains(&self.cycle) {
                // SAFETY: sim is a live model with an open trace.
                unsafe { (trace.dump)(self.sim, time) }
            }
        }
    }

    /// Cycles run so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Writes buffered waveform data to the file.
    pub fn flush_trace(&mut self) {
        if let Some(trace) = &self.api.trace {
            // SAFETY: sim is live.
            unsafe { (trace.flush)(self.sim) }
        }
    }

    /// Every public variable of the model: RAMs marked
    /// `/*verilator public_flat_rw*/`, signals the build's configuration
    /// makes `public_flat_rd`.
    fn public_vars(&self) -> Vec<PublicVar> {
        let mut vars = vec![];
        for index in 0.. {
            let (mut scope, mut name) = (std::ptr::null(), std::ptr::null());
            let mut data = std::ptr::null_mut();
            let (mut width, mut unpacked_dims, mut elements, mut element_bytes) = (0, 0, 0, 0);
            // SAFETY: sim is live; the shim fills the outputs when it returns 1.
            let found = unsafe {
                (self.api.public_var)(
                    self.sim,
                    index,
                    &mut scope,
                    &mut name,
                    &mut data,
                    &mut width,
                    &mut unpacked_dims,
                    &mut elements,
                    &mut element_bytes,
                )
            };
            if found == 0 {
                break;
            }
            // SAFETY: Verilator's scope and variable names are NUL-terminated and static.
            let text =
                |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
            vars.push(PublicVar {
                scope: text(scope),
                name: text(name),
                data: data as *const u8,
                width: width as usize,
                unpacked_dims: unpacked_dims as usize,
                elements: elements as usize,
                element_bytes: element_bytes as usize,
            });
        }
        vars
    }

    /// Every public unpacked array of the model (RAMs marked
    /// `/*verilator public_flat_rw*/`), for reading them behind the ports.
    pub fn public_arrays(&self) -> Vec<PublicArray> {
        self.public_vars()
            .into_iter()
            .filter(|v| v.unpacked_dims == 1)
            .map(|v| PublicArray {
                scope: v.scope,
                name: v.name,
                data: v.data,
                elements: v.elements,
                element_bytes: v.element_bytes,
            })
            .collect()
    }

    /// The public signal (no unpacked dimensions) called `name` (as in the
    /// Verilog, `$` included) in the scope whose name ends with
    /// `scope_suffix` (e.g. `.core`), for reading it behind the ports.
    pub fn public_signal(&self, scope_suffix: &str, name: &str) -> Option<PublicSignal> {
        self.public_vars()
            .into_iter()
            .find(|v| v.unpacked_dims == 0 && v.name == name && v.scope.ends_with(scope_suffix))
            .map(|v| PublicSignal {
                data: v.data,
                width: v.width,
                bytes: v.element_bytes,
            })
    }

    /// The value of `signal`, of up to 64 bits, as the model holds it now.
    ///
    /// # Panics
    /// In debug builds, when `signal` is wider than 64 bits.
    #[inline]
    pub fn read_signal(&self, signal: &PublicSignal) -> u64 {
        debug_assert!(signal.width <= 64, "a {}-bit signal", signal.width);
        // SAFETY: the signal's storage lives in this model, `bytes` long.
        unsafe { load(signal.data, signal.bytes) }
    }

    /// Bits `at..at + width` (at most 64) of `signal`, of any width
    /// (Verilator keeps wide values as 32-bit words, least significant first).
    ///
    /// # Panics
    /// When the bits are not all inside the signal.
    pub fn read_signal_bits(&self, signal: &PublicSignal, at: usize, width: usize) -> u64 {
        assert!(
            width <= 64 && at + width <= signal.width,
            "bits {at}..{} of a {}-bit signal",
            at + width,
            signal.width
        );
        if signal.width <= 64 {
            let mask = u64::MAX.checked_shr((64 - width) as u32).unwrap_or(0);
            return (self.read_signal(signal) >> at) & mask;
        }
        // SAFETY: a wide signal is an array of 32-bit words covering its width.
        let words = unsafe {
            std::slice::from_raw_parts(signal.data as *const u32, signal.width.div_ceil(32))
        };
        crate::block::field(words, at, width)
    }

    /// Element `index` of `array` as little-endian bytes (Verilator keeps
    /// wide values as 32-bit words, least significant first).
    ///
    /// # Panics
    /// When `index` is out of range or `array` belongs to another model.
    pub fn array_element(&self, array: &PublicArray, index: usize) -> Vec<u8> {
        assert!(
            index < array.elements,
            "{}[{index}] is out of range",
            array.name
        );
        // SAFETY: the array lives in this model's storage, `elements` entries of
        // `element_bytes` bytes each.
        unsafe {
            std::slice::from_raw_parts(
                array.data.add(index * array.element_bytes),
                array.element_bytes,
            )
        }
        .to_vec()
    }
}

/// Reads a value of `bytes` (1, 2, 4 or 8) bytes at `ptr`.
///
/// # Safety
/// `ptr` points at `bytes` readable bytes, aligned for their type.
#[inline]
unsafe fn load(ptr: *const u8, bytes: usize) -> u64 {
    match bytes {
        1 => u64::from(*ptr),
        2 => u64::from(*(ptr as *const u16)),
        4 => u64::from(*(ptr as *const u32)),
        _ => *(ptr as *const u64),
    }
}

/// A public variable inside a model, as the shim lists it.
struct PublicVar {
    scope: String,
    name: String,
    data: *const u8,
    width: usize,
    unpacked_dims: usize,
    elements: usize,
    element_bytes: usize,
}

/// A public signal inside a model (see [`Model::public_signal`]): read it
/// with [`Model::read_signal`] of that model only.
#[derive(Clone, Copy, Debug)]
pub struct PublicSignal {
    data: *const u8,
    /// Bits.
    pub width: usize,
    /// Bytes of its storage.
    bytes: usize,
}

/// A public array inside a model (see [`Model::public_arrays`]).
#[derive(Clone, Debug)]
pub struct PublicArray {
    /// Verilator's scope, e.g. `TOP.npu_u65_256.core.shram...`.
    pub scope: String,
    pub name: String,
    data: *const u8,
    pub elements: usize,
    pub element_bytes: usize,
}

impl Drop for Model {
    fn drop(&mut self) {
        if let Some(coverage) = &self.api.coverage {
            let mut count = 0;
            // SAFETY: sim is live; its counters stay until `free`.
            let counters = unsafe {
                let data = (coverage.counters)(self.sim, &mut count);
                std::slice::from_raw_parts(data, count as usize)
            };
            super::coverage::closing(&self.api.path, counters);
        }
        // SAFETY: sim was made by `new` and is freed once; this closes any waveform.
        unsafe { (self.api.free)(self.sim) }
    }
}
