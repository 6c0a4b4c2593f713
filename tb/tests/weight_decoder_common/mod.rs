//! The weight decoder on its own bench: its standalone Verilog
//! (`verilog-out/weight_decoder.v`, from `npu-gen --block weight_decoder`)
//! driven through its ports, with random valid/ready back-pressure on both
//! streams, checked against the golden decoder (`npu_model::weights`).
//!
//! Shared by the weight-decoder tests and benchmark; each uses part of it.
#![allow(dead_code)]

use npu_hw::weight_decoder::{ErrorCode, LANES};
use npu_model::weights::{decode, SliceDecoder};
use npu_tb::npu::{Waveform, VCD_ENV, VCD_WINDOW_ENV};
use npu_tb::verilator::build::workspace_root;
use npu_tb::verilator::{DesignFiles, Model, PortId};
use rand::rngs::StdRng;
use rand::Rng;
use std::path::PathBuf;

/// Back-pressure for one run: the probability that a word is offered and
/// that a group is taken in a cycle.
#[derive(Clone, Copy, Debug)]
pub struct Pressure {
    pub in_valid: f64,
    pub out_ready: f64,
}

impl Pressure {
    pub const NONE: Self = Self {
        in_valid: 1.0,
        out_ready: 1.0,
    };

    /// Each side stalls with a probability drawn from 0-75 %.
    pub fn random(rng: &mut StdRng) -> Self {
        Self {
            in_valid: rng.gen_range(0.25..=1.0),
            out_ready: rng.gen_range(0.25..=1.0),
        }
    }
}

/// What the decoder did with one stream.
#[derive(Debug)]
pub struct Run {
    /// Weights delivered, in order.
    pub weights: Vec<i16>,
    /// Words taken from the input.
    pub words: usize,
    /// Cycles from `start` until `busy` fell.
    pub cycles: u64,
    pub error_code: u64,
}

struct Ports {
    rst_n: PortId,
    start: PortId,
    length: PortId,
    busy: PortId,
    error: PortId,
    error_code: PortId,
    in_data: PortId,
    in_valid: PortId,
    in_ready: PortId,
    out_weights: PortId,
    out_count: PortId,
    out_valid: PortId,
    out_ready: PortId,
}

pub struct WeightDecoderTb {
    pub model: Model,
    ports: Ports,
    vcd: Option<PathBuf>,
}

impl WeightDecoderTb {
    /// Builds the committed Verilog of the block and resets it.
    pub fn new() -> Self {
        let dir = workspace_root().join("verilog-out");
        let design = DesignFiles::load(&dir, "weight_decoder")
            .unwrap_or_else(|e| panic!("{e}; run `make verilog`"));
        let waveform = Waveform::from_env().unwrap_or_else(|e| panic!("{e}"));
        let model = match &waveform {
            Some(w) => Model::with_vcd(&design, "clock", &w.path, w.window),
            None => Model::new(&design, "clock"),
        }
        .unwrap_or_else(|e| panic!("{e}"));
        let p = |n: &str| model.port(n);
        let ports = Ports {
            rst_n: p("rst_n"),
            start: p("start"),
            length: p("length"),
            busy: p("busy"),
            error: p("error"),
            error_code: p("error_code"),
            in_data: p("in_data"),
            in_valid: p("in_valid"),
            in_ready: p("in_ready"),
            out_weights: p("out_weights"),
            out_count: p("out_count"),
            out_valid: p("out_valid"),
            out_ready: p("out_ready"),
        };
        let vcd = waveform.map(|w| w.path);
        let mut tb = Self { model, ports, vcd };
        tb.reset();
        tb
    }

    /// Pulses `rst_n` low with every input idle.
    pub fn reset(&mut self) {
        let p = &self.ports;
        for id in [p.start, p.length, p.in_valid, p.out_ready] {
            self.model.set(id, 0);
        }
        self.model.set_wide(p.in_data, &[0; 4]);
        self.model.set(p.rst_n, 0);
        self.model.tick();
        self.model.set(p.rst_n, 1);
        self.model.tick();
    }

    /// Decodes `stream` declared `length` bytes long. Words past the length
    /// are offered too (filled with 0x5a): taking one is reported as a
    /// failure, as is running longer than `max_cycles` or breaking the
    /// valid/ready rules.
    pub fn run(
        &mut self,
        stream: &[u8],
        length: u32,
        pressure: Pressure,
        rng: &mut StdRng,
        max_cycles: u64,
    ) -> Run {
        let p = &self.ports;
        let (start, len, busy, error, error_code) =
            (p.start, p.length, p.busy, p.error, p.error_code);
        let (in_data, in_valid, in_ready) = (p.in_data, p.in_valid, p.in_ready);
        let (out_weights, out_count, out_valid, out_ready) =
            (p.out_weights, p.out_count, p.out_valid, p.out_ready);
        let allowed = (length as usize).div_ceil(16);
        let word = |i: usize| -> [u32; 4] {
            let mut w = [0x5a5a_5a5a; 4];
            for (j, lane) in w.iter_mut().enumerate() {
                let at = 16 * i + 4 * j;
                if i < allowed && at + 4 <= stream.len() {
                    *lane = u32::from_le_bytes(stream[at..at + 4].try_into().unwrap());
                }
            }
            w
        };
        if self.model.get(busy) != 0 {
            self.fail("busy before start");
        }
        self.model.set(start, 1);
        self.model.set(len, u64::from(length));
        let mut run = Run {
            weights: Vec::new(),
            words: 0,
            cycles: 0,
            error_code: 0,
        };
        let mut offered = false;
        let mut held: Option<(Vec<u32>, u64)> = None;
        let mut last_group = false;
        loop {
            // Offer a word (the same until taken) and maybe take a group.
            offered = offered || rng.gen_bool(pressure.in_valid);
            self.model.set(in_valid, u64::from(offered));
            self.model.set_wide(in_data, &word(run.words));
            let ready = rng.gen_bool(pressure.out_ready);
            self.model.set(out_ready, u64::from(ready));
            self.model.eval();
            let took_word = offered && self.model.get(in_ready) != 0;
            let group = self.model.get(out_valid) != 0;
            let lanes = self.model.get_wide(out_weights);
            let count = self.model.get(out_count);
            if let Some(h) = &held {
                if !group || *h != (lanes.clone(), count) {
                    self.fail("the output group changed or vanished before it was taken");
                }
            }
            held = (group && !ready).then(|| (lanes.clone(), count));
            if group && ready {
                if last_group {
                    self.fail("a partial group was followed by another group");
                }
                if count == 0 || count > LANES as u64 {
                    self.fail(&format!("group of {count} weights"));
                }
                last_group = count < LANES as u64;
                run.weights
                    .extend((0..count as usize).map(|i| lane(&lanes, i)));
            }
            self.model.tick();
            self.model.set(start, 0);
            run.cycles += 1;
            if took_word {
                run.words += 1;
                offered = false;
                if run.words > allowed {
                    self.fail(&format!(
                        "took word {} of a {length}-byte stream: read past WEIGHT_LENGTH",
                        run.words
                    ));
                }
            }
            if self.model.get(busy) == 0 {
                break;
            }
            if run.cycles > max_cycles {
                self.fail(&format!(
                    "still busy after {max_cycles} cycles: {} of {allowed} words taken, {} weights out",
                    run.words,
                    run.weights.len()
                ));
            }
        }
        self.model.set(in_valid, 0);
        self.model.set(out_ready, 0);
        run.error_code = self.model.get(error_code);
        if (self.model.get(error) != 0) != (run.error_code != ErrorCode::None as u64) {
            self.fail("error and error_code disagree");
        }
        if run.words != allowed {
            self.fail(&format!(
                "took {} words of a {length}-byte stream ({allowed} words)",
                run.words
            ));
        }
        run
    }

    /// Decodes a whole stream and checks the result against the golden
    /// decoder: the same weights for a valid stream; for a malformed one an
    /// error, and the weights of the slices before the broken one first.
    /// `context` names the case in a failure.
    pub fn check(
        &mut self,
        stream: &[u8],
        length: u32,
        pressure: Pressure,
        rng: &mut StdRng,
        context: &str,
    ) -> Run {
        let golden = decode(&stream[..(length as usize).min(stream.len())]);
        let expected_len = golden.as_ref().map_or(0, Vec::len);
        // Generous: a broken stream may code up to 8 zeros a bit before its fault.
        let max_cycles = (200
            + 40 * stream.len() as u64 / 16
            + 2 * expected_len as u64
            + 4 * stream.len() as u64)
            * 8;
        let run = self.run(stream, length, pressure, rng, max_cycles);
        match golden {
            Ok(weights) => {
                if run.error_code != ErrorCode::None as u64 {
                    self.fail(&format!(
                        "{context}: valid stream rejected with error code {}",
                        run.error_code
                    ));
                }
                if let Some(i) = (0..weights.len().max(run.weights.len()))
                    .find(|&i| weights.get(i) != run.weights.get(i))
                {
                    self.fail(&format!(
                        "{context}: weight {i} is {:?}, the golden decoder says {:?} ({} vs {} weights)",
                        run.weights.get(i),
                        weights.get(i),
                        run.weights.len(),
                        weights.len()
                    ));
                }
            }
            Err(e) => {
                if run.error_code == ErrorCode::None as u64 {
                    self.fail(&format!("{context}: malformed stream ({e}) accepted"));
                }
                let good = good_prefix(&stream[..(length as usize).min(stream.len())]);
                if !run.weights.starts_with(&good) {
                    self.fail(&format!(
                        "{context}: the weights before the broken slice differ ({e})"
                    ));
                }
            }
        }
        run
    }

    /// Fails the running test, leaving the waveform hint to `Drop`.
    pub fn fail(&mut self, message: &str) -> ! {
        self.model.flush_trace();
        panic!("cycle {}: {message}", self.model.cycle());
    }

    fn waveform_hint(&self) -> String {
        match &self.vcd {
            Some(path) => format!("waveform: {}", path.display()),
            None => {
                let test = std::thread::current().name().unwrap_or("TEST").to_string();
                let binary = std::env::current_exe()
                    .ok()
                    .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                    .map(|s| s.rsplit_once('-').map_or(s.clone(), |(n, _)| n.to_string()))
                    .unwrap_or_else(|| "TESTS".into());
                format!(
                    "for a waveform: {VCD_ENV}=/tmp/wd.vcd NPU_SEED=<seed above> cargo test -p npu-tb \
                     --test {binary} -- --exact {test} (limit it with {VCD_WINDOW_ENV}=START:END cycles)"
                )
            }
        }
    }
}

impl Drop for WeightDecoderTb {
    fn drop(&mut self) {
        self.model.flush_trace();
        if std::thread::panicking() {
            eprintln!("{}", self.waveform_hint());
        }
    }
}

/// Lane `i` of the output port (9-bit two's complement at bit 9i).
fn lane(words: &[u32], i: usize) -> i16 {
    let bits = (0..9).fold(0u16, |acc, b| {
        let at = 9 * i + b;
        acc | ((((words[at / 32] >> (at % 32)) & 1) as u16) << b)
    });
    ((bits << 7) as i16) >> 7
}

/// Weights of the slices the golden decoder accepts before its first error.
pub fn good_prefix(stream: &[u8]) -> Vec<i16> {
    match SliceDecoder::new(stream) {
        Ok(slices) => slices
            .map_while(Result::ok)
            .flat_map(|s| s.weights)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// An LSB-first bit writer for hand-made streams (TRM 4.7.1).
#[derive(Default)]
pub struct Writer {
    bytes: Vec<u8>,
    /// Bits written so far.
    pub pos: usize,
}

impl Writer {
    pub fn put(&mut self, len: u32, value: u32) -> &mut Self {
        for i in 0..len {
            if self.pos.is_multiple_of(8) {
                self.bytes.push(0);
            }
            self.bytes[self.pos / 8] |= (((value >> i) & 1) as u8) << (self.pos % 8);
            self.pos += 1;
        }
        self
    }

    /// A slice header with `newpal` and an empty palette (direct mode), TRM 4.7.2.
    pub fn direct_slice(
        &mut self,
        zdiv: u32,
        weights: u32,
        wdiv: u32,
        dirofs: u32,
        palbits: u32,
    ) -> &mut Self {
        self.put(3, zdiv)
            .put(15, weights - 1)
            .put(3, wdiv)
            .put(1, 0)
            .put(1, 1)
            .put(5, dirofs)
            .put(5, 0)
            .put(3, palbits - 2)
    }

    /// `zdiv` 7 and ones to the next 128-bit boundary, as Vela ends a stream.
    pub fn finish(&mut self) -> Vec<u8> {
        self.put(3, 7);
        while !self.pos.is_multiple_of(128) {
            self.put(1, 1);
        }
        std::mem::take(&mut self.bytes)
    }
}

/// Sets `len` bits at bit offset `at` of `stream` to `value`.
pub fn patch(stream: &mut [u8], at: usize, len: usize, value: u32) {
    for i in 0..len {
        let (byte, bit) = ((at + i) / 8, (at + i) % 8);
        stream[byte] = (stream[byte] & !(1 << bit)) | ((((value >> i) & 1) as u8) << bit);
    }
}
