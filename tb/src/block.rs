//! Any block of `npu_hw::blocks` on a bench of its own: its committed
//! Verilog (`verilog-out/NAME.v`) through Verilator, its valid/ready streams
//! driven by [`Source`]s and drained by [`Sink`]s bound by port-name prefix
//! (`words` binds `words_valid`, `words_data`, `words_ready`), with random
//! back-pressure and the stream rules checked on every edge, and the
//! waveform and re-run hints of [`crate::npu::NpuTb`].

use crate::npu::Waveform;
use crate::verilator::build::workspace_root;
use crate::verilator::{DesignFiles, Model, PortId};
use anyhow::{Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// `b` as the 32-bit words a wide port takes, bit 0 first.
pub fn words<const N: usize>(b: rust_hdl::prelude::Bits<N>) -> Vec<u32> {
    let mut w = vec![0u32; N.div_ceil(32)];
    for bit in 0..N {
        if b.get_bit(bit) {
            w[bit / 32] |= 1 << (bit % 32);
        }
    }
    w
}

/// Bits `at..at + width` (at most 64) of a wide port's words.
pub fn field(words: &[u32], at: usize, width: usize) -> u64 {
    (0..width).fold(0, |v, b| {
        let bit = at + b;
        v | (u64::from(words[bit / 32] >> (bit % 32) & 1) << b)
    })
}

/// A stream's three ports.
struct StreamPorts {
    name: String,
    valid: PortId,
    data: PortId,
    ready: PortId,
}

impl StreamPorts {
    fn bind(model: &Model, prefix: &str) -> Self {
        Self {
            name: prefix.to_string(),
            valid: model.port(&format!("{prefix}_valid")),
            data: model.port(&format!("{prefix}_data")),
            ready: model.port(&format!("{prefix}_ready")),
        }
    }
}

/// Beats offered to a block's input stream, in order, each `valid` with
/// probability `rate` in a cycle once offered it stays until taken.
pub struct Source {
    ports: StreamPorts,
    pub rate: f64,
    pub queue: VecDeque<Vec<u32>>,
    /// Beats the block took.
    pub taken: usize,
    offered: bool,
}

/// A block's output stream, `ready` with probability `rate` in a cycle.
pub struct Sink {
    ports: StreamPorts,
    pub rate: f64,
    /// Beats taken, in order.
    pub beats: Vec<Vec<u32>>,
    /// The beat offered and not taken last cycle: it must stay.
    held: Option<Vec<u32>>,
}

/// A block on its bench.
pub struct BlockTb {
    pub model: Model,
    pub name: String,
    pub sources: Vec<Source>,
    pub sinks: Vec<Sink>,
    rng: StdRng,
    waveform: Option<Waveform>,
}

impl BlockTb {
    /// Builds block `name` (from `npu_hw::blocks`) clocked by `clock`, with
    /// the waveform `NPU_VCD` asks for; `seed` drives the back-pressure.
    pub fn new(name: &str, seed: u64) -> Result<Self> {
        npu_hw::blocks::block(name).map_err(anyhow::Error::msg)?;
        let dir = workspace_root().join("verilog-out");
        let design = DesignFiles::load(&dir, name)
            .with_context(|| format!("block {name}: run `make verilog`"))?;
        // A traced build only when a waveform is asked for: tracing slows
        // simulation.
        let waveform = Waveform::from_env()?;
        let model = match &waveform {
            Some(w) => Model::with_trace(&design, "clock", &w.path, w.window, w.format)?,
            None => Model::new(&design, "clock")?,
        };
        Ok(Self {
            model,
            name: name.to_string(),
            sources: Vec::new(),
            sinks: Vec::new(),
            rng: StdRng::seed_from_u64(seed),
            waveform,
        })
    }

    /// Resets the block: `rst_n` low for one clock edge, then high for one.
    pub fn reset(&mut self) {
        let rst_n = self.model.port("rst_n");
        self.model.set(rst_n, 0);
        self.model.tick();
        self.model.set(rst_n, 1);
        self.model.tick();
    }

    /// Draws the back-pressure from `seed` from now on.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = StdRng::seed_from_u64(seed);
    }

    /// Binds the input stream `prefix`; returns its index in `sources`.
    pub fn source(&mut self, prefix: &str, rate: f64) -> usize {
        let ports = StreamPorts::bind(&self.model, prefix);
        self.model.set(ports.valid, 0);
        self.sources.push(Source {
            ports,
            rate,
            queue: VecDeque::new(),
            taken: 0,
            offered: false,
        });
        self.sources.len() - 1
    }

    /// Binds the output stream `prefix`; returns its index in `sinks`.
    pub fn sink(&mut self, prefix: &str, rate: f64) -> usize {
        let ports = StreamPorts::bind(&self.model, prefix);
        self.model.set(ports.ready, 0);
        self.sinks.push(Sink {
            ports,
            rate,
            beats: Vec::new(),
            held: None,
        });
        self.sinks.len() - 1
    }

    /// One clock cycle: offers and takes beats, checks that an output beat
    /// offered and not taken stays the same, and moves the beats that moved.
    pub fn tick(&mut self) {
        for s in &mut self.sources {
            s.offered = !s.queue.is_empty() && (s.offered || self.rng.gen_bool(s.rate));
            self.model.set(s.ports.valid, u64::from(s.offered));
            if let Some(beat) = s.queue.front().filter(|_| s.offered) {
                self.model.set_wide(s.ports.data, beat);
            }
        }
        let readies: Vec<bool> = self
            .sinks
            .iter()
            .map(|k| self.rng.gen_bool(k.rate))
            .collect();
        for (k, &ready) in self.sinks.iter().zip(&readies) {
            self.model.set(k.ports.ready, u64::from(ready));
        }
        self.model.eval();
        let mut broken = None;
        for (k, &ready) in self.sinks.iter_mut().zip(&readies) {
            let valid = self.model.get(k.ports.valid) != 0;
            let beat = self.model.get_wide(k.ports.data);
            if k.held.as_ref().is_some_and(|h| !valid || *h != beat) {
                broken = Some(format!(
                    "stream {}: a beat offered and not taken changed or vanished",
                    k.ports.name
                ));
            }
            k.held = (valid && !ready).then(|| beat.clone());
            if valid && ready {
                k.beats.push(beat);
            }
        }
        for s in &mut self.sources {
            if s.offered && self.model.get(s.ports.ready) != 0 {
                s.queue.pop_front();
                s.taken += 1;
                s.offered = false;
            }
        }
        self.model.tick();
        if let Some(message) = broken {
            self.fail(&message);
        }
    }

    /// Fails the running test; the waveform hint follows on drop.
    pub fn fail(&mut self, message: &str) -> ! {
        self.model.flush_trace();
        panic!("{} cycle {}: {message}", self.name, self.model.cycle());
    }

    fn waveform_hint(&self) -> String {
        match &self.waveform {
            Some(w) => format!("waveform: {}", w.path.display()),
            None => format!(
                "for a waveform: {}=/tmp/{}.vcd with NPU_SEED=<seed above>, re-run the test \
                 (limit it with {}=START:END cycles)",
                crate::npu::VCD_ENV,
                self.name,
                crate::npu::VCD_WINDOW_ENV
            ),
        }
    }
}

impl Drop for BlockTb {
    fn drop(&mut self) {
        self.model.flush_trace();
        if std::thread::panicking() {
            eprintln!("{}", self.waveform_hint());
        }
    }
}
