//! The weight decoder on its own bench (`npu_tb::block::BlockTb`): its
//! standalone Verilog (`verilog-out/weight_decoder.v`) with its `words` and
//! `weights` streams under random back-pressure, checked against the golden
//! decoder (`npu_model::weights`).
//!
//! Shared by the weight-decoder tests and benchmark; each uses part of it.
#![allow(dead_code)]

use npu_hw::weight_decoder::{ErrorCode, LANES};
use npu_model::weights::{decode, SliceDecoder};
use npu_tb::block::BlockTb;
use npu_tb::verilator::PortId;
use rand::rngs::StdRng;
use rand::Rng;

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

/// The decoder's control ports; its streams are the bench's source
/// `words` and sink `weights`.
struct Ports {
    rst_n: PortId,
    start: PortId,
    length: PortId,
    busy: PortId,
    error: PortId,
    error_code: PortId,
}

pub struct WeightDecoderTb {
    pub tb: BlockTb,
    ports: Ports,
}

/// Words offered past a stream's length, to catch a read past it.
const POISON_WORDS: usize = 4;

impl WeightDecoderTb {
    /// Builds the committed Verilog of the block and resets it.
    pub fn new() -> Self {
        let mut tb = BlockTb::new("weight_decoder", 0).unwrap_or_else(|e| panic!("{e:#}"));
        let p = |n: &str| tb.model.port(n);
        let ports = Ports {
            rst_n: p("rst_n"),
            start: p("start"),
            length: p("length"),
            busy: p("busy"),
            error: p("error"),
            error_code: p("error_code"),
        };
        tb.source("words", 1.0);
        tb.sink("weights", 1.0);
        let mut wd = Self { tb, ports };
        wd.reset();
        wd
    }

    /// Pulses `rst_n` low with every input idle.
    pub fn reset(&mut self) {
        let p = &self.ports;
        let model = &mut self.tb.model;
        for id in [p.start, p.length] {
            model.set(id, 0);
        }
        model.set(p.rst_n, 0);
        model.tick();
        model.set(p.rst_n, 1);
        model.tick();
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
        let (start, len, busy, error, error_code) = (
            self.ports.start,
            self.ports.length,
            self.ports.busy,
            self.ports.error,
            self.ports.error_code,
        );
        let allowed = (length as usize).div_ceil(16);
        let word = |i: usize| -> Vec<u32> {
            let mut w = vec![0x5a5a_5a5a; 4];
            for (j, lane) in w.iter_mut().enumerate() {
                let at = 16 * i + 4 * j;
                if i < allowed && at + 4 <= stream.len() {
                    *lane = u32::from_le_bytes(stream[at..at + 4].try_into().unwrap());
                }
            }
            w
        };
        let tb = &mut self.tb;
        tb.reseed(rng.gen());
        tb.sources[0].rate = pressure.in_valid;
        tb.sources[0].taken = 0;
        tb.sources[0].queue = (0..allowed + POISON_WORDS).map(word).collect();
        tb.sinks[0].rate = pressure.out_ready;
        tb.sinks[0].beats.clear();
        if tb.model.get(busy) != 0 {
            tb.fail("busy before start");
        }
        tb.model.set(start, 1);
        tb.model.set(len, u64::from(length));
        let mut run = Run {
            weights: Vec::new(),
            words: 0,
            cycles: 0,
            error_code: 0,
        };
        loop {
            tb.tick();
            tb.model.set(start, 0);
            run.cycles += 1;
            run.words = tb.sources[0].taken;
            if run.words > allowed {
                tb.fail(&format!(
                    "took word {} of a {length}-byte stream: read past WEIGHT_LENGTH",
                    run.words
                ));
            }
            if tb.model.get(busy) == 0 {
                break;
            }
            if run.cycles > max_cycles {
                let out = tb.sinks[0].beats.len();
                tb.fail(&format!(
                    "still busy after {max_cycles} cycles: {} of {allowed} words taken, {out} groups out",
                    run.words
                ));
            }
        }
        tb.sources[0].queue.clear();
        let groups = std::mem::take(&mut tb.sinks[0].beats);
        for (g, group) in groups.iter().enumerate() {
            let count = (0..5).fold(0u64, |acc, b| {
                acc | u64::from(bit(group, COUNT_AT + b)) << b
            });
            if count == 0 || count > LANES as u64 {
                tb.fail(&format!("group of {count} weights"));
            }
            if count < LANES as u64 && g + 1 != groups.len() {
                tb.fail("a partial group was followed by another group");
            }
            run.weights
                .extend((0..count as usize).map(|i| lane(group, i)));
        }
        run.error_code = tb.model.get(error_code);
        if (tb.model.get(error) != 0) != (run.error_code != ErrorCode::None as u64) {
            tb.fail("error and error_code disagree");
        }
        if run.words != allowed {
            tb.fail(&format!(
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

    /// Fails the running test (the bench prints the waveform hint).
    pub fn fail(&mut self, message: &str) -> ! {
        self.tb.fail(message)
    }
}

/// Bit `at` of a beat's words.
fn bit(words: &[u32], at: usize) -> u32 {
    (words[at / 32] >> (at % 32)) & 1
}

/// Where a `WeightGroup`'s `count` starts: after its weights.
const COUNT_AT: usize = 9 * LANES;

/// Lane `i` of a group (9-bit two's complement at bit 9i).
fn lane(words: &[u32], i: usize) -> i16 {
    let bits = (0..9).fold(0u16, |acc, b| acc | (bit(words, 9 * i + b) as u16) << b);
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
