//! The per-layer report's measurements on the RTL: when each kernel
//! operation and DMA starts and ends, and the AXI bytes each one moves.
//!
//! The NPU has no ports for this (its ports are the Ethos-U65's), so the
//! probe reads internal signals from outside, as a cocotb testbench would:
//! the simulation build makes them readable (`public_flat_rd` lines from
//! [`readable_signals`]) and [`Model::public_signal`] finds their storage; the
//! Verilog does not change. It samples them every CLK cycle just before the
//! rising edge ([`NpuTb::watch_layers`](crate::npu::NpuTb::watch_layers)):
//! kernel operations by the datapath's `operations` handshake, `busy` and
//! `draining`; DMAs by the descriptor queue; bytes by AXI ID (TRM tables A-10
//! and A-11), each byte counted once while rows overlap. The rules in full:
//! `docs/per-layer-report.md`.

use crate::axi::{AxiCompleter, BytesById};
use crate::timeline::Timeline;
use crate::verilator::{Model, PublicSignal};
use anyhow::{anyhow, bail, ensure, Result};
use npu_arch::command::Opcode;
use npu_arch::config::NpuConfig;
use npu_hw::dma::{MEM2MEM_WRITE_ID, OFM_WRITE_ID};
use npu_hw::op_state::KernelOperation;
use npu_model::report::RunMeasures;
use npu_model::state::{OpRecord, PortBytes};
use std::ops::RangeInclusive;

/// The signals the probe reads: the module's name after the top module's,
/// the scope's name after the top's, and the variable.
const SIGNALS: [(&str, &str, &str); 10] = [
    ("_core", ".core", "datapath$operations$valid"),
    ("_core", ".core", "datapath$operations$ready"),
    ("_core", ".core", "datapath$operations$data"),
    ("_core", ".core", "datapath$busy"),
    ("_core", ".core", "datapath$draining"),
    ("_core", ".core", "dma$descriptors$valid"),
    ("_core", ".core", "dma$descriptors$ready"),
    ("_core", ".core", "dma$descriptors_active"),
    ("_core", ".core", "control$running_state"),
    ("_core$control", ".core.control", "offset$q"),
];

/// The modules and variables the bench reads in the design whose top
/// module is `top`, the probe's and the AXI limits the monitors follow
/// ([`AXI_LIMIT_SIGNALS`], [`COUNTER_SIGNALS`]): what the simulation build
/// makes readable.
pub fn readable_signals(top: &str) -> Vec<(String, &'static str)> {
    SIGNALS
        .iter()
        .chain(&AXI_LIMIT_SIGNALS)
        .chain(&COUNTER_SIGNALS)
        .map(|&(module, _, var)| (format!("{top}{module}"), var))
        .collect()
}

/// AXI_LIMIT0-3 as the register file holds them: the bench's AXI monitors
/// check what the NPU was programmed with (`NpuTb`), whoever programmed it.
pub const AXI_LIMIT_SIGNALS: [(&str, &str, &str); 4] = [
    ("_core", ".core", "regs$axi_limit$0"),
    ("_core", ".core", "regs$axi_limit$1"),
    ("_core", ".core", "regs$axi_limit$2"),
    ("_core", ".core", "regs$axi_limit$3"),
];

/// REGIONCFG and QCONFIG as the register file holds them: the counters the
/// monitors add the limits of.
pub const COUNTER_SIGNALS: [(&str, &str, &str); 2] = [
    ("_core", ".core", "regs$regioncfg"),
    ("_core", ".core", "regs$qconfig"),
];

/// Whose an AXI transaction is, by its ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Channel {
    Command,
    Kernel,
    Dma,
    Unused,
}

/// One kernel operation or DMA as the RTL ran it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of its command in the stream.
    pub offset: usize,
    /// CLK cycles (the model's count) of the edges at which it started and
    /// ended; none yet for a DMA waiting behind another.
    pub start: Option<u64>,
    pub end: Option<u64>,
    /// Bytes each port (M0, M1) moved for it, once it ended.
    pub ports: [PortBytes; 2],
    /// Its channels' bytes when it started (a DMA's).
    ports_at_start: [PortBytes; 2],
}

impl Span {
    /// Op Cycles, once it ended.
    pub fn cycles(&self) -> Option<u64> {
        Some(self.end? - self.start?)
    }
}

/// The probe's signals.
#[derive(Clone, Copy, Debug)]
struct Signals {
    kernel_valid: PublicSignal,
    kernel_ready: PublicSignal,
    kernel_operation: PublicSignal,
    kernel_busy: PublicSignal,
    kernel_draining: PublicSignal,
    dma_valid: PublicSignal,
    dma_ready: PublicSignal,
    dma_queued: PublicSignal,
    running: PublicSignal,
    command_offset: PublicSignal,
}

/// Watches kernel operations, DMAs and the run (see the module doc).
pub struct LayerProbe {
    signals: Signals,
    /// Bit of `KernelOperation::offset` in the operation's payload.
    offset_bit: usize,
    read_channels: [Channel; 256],
    write_channels: [Channel; 256],
    /// Kernel operations and DMAs in the order they entered, with the index
    /// of the first DMA not ended.
    pub kernels: Vec<Span>,
    pub dmas: Vec<Span>,
    dma_head: usize,
    /// The kernel operation the datapath runs, and the one before it whose
    /// writes drain.
    kernel_running: Option<usize>,
    kernel_draining: Option<usize>,
    /// The kernel channels' bytes (OFM writes as answered) at the last edge.
    kernel_bytes: [PortBytes; 2],
    /// The DMA queue's count and handshake at the last edge.
    dma_queued: u64,
    dma_taken: bool,
    /// Edges at which the run started and stopped.
    pub run_start: Option<u64>,
    pub run_stop: Option<u64>,
    /// The channels' activity and the ports' traffic, when asked
    /// ([`LayerProbe::record_timeline`]).
    pub timeline: Option<Timeline>,
}

impl LayerProbe {
    /// A probe of `model`, an NPU of `config` built with the probe's
    /// signals readable.
    pub fn new(model: &Model, config: &NpuConfig) -> Result<Self> {
        let find = |var: &str| {
            let (_, scope, _) = SIGNALS
                .iter()
                .find(|s| s.2 == var)
                .expect("a signal of the table");
            model.public_signal(scope, var).ok_or_else(|| {
                anyhow!(
                    "the simulation library of {} cannot read {var} (scope *{scope}): \
                     is it built with readable.vlt (tb/src/verilator/build.rs)?",
                    config.name
                )
            })
        };
        let signals = Signals {
            kernel_valid: find("datapath$operations$valid")?,
            kernel_ready: find("datapath$operations$ready")?,
            kernel_operation: find("datapath$operations$data")?,
            kernel_busy: find("datapath$busy")?,
            kernel_draining: find("datapath$draining")?,
            dma_valid: find("dma$descriptors$valid")?,
            dma_ready: find("dma$descriptors$ready")?,
            dma_queued: find("dma$descriptors_active")?,
            running: find("control$running_state")?,
            command_offset: find("offset$q")?,
        };
        let offset_bit = KernelOperation::default().get_my_offset_offset();
        ensure!(
            signals.kernel_operation.width == <KernelOperation as rust_hdl::prelude::Synth>::BITS,
            "datapath$operations$data has {} bits, a KernelOperation {}",
            signals.kernel_operation.width,
            <KernelOperation as rust_hdl::prelude::Synth>::BITS
        );
        let ids = &config.read_ids;
        let mut read_channels = [Channel::Unused; 256];
        let mut mark = |range: &RangeInclusive<u8>, channel| {
            for id in range.clone() {
                read_channels[usize::from(id)] = channel;
            }
        };
        mark(&ids.command, Channel::Command);
        mark(&ids.ifm, Channel::Kernel);
        for range in ids.weight.iter().chain(&ids.scale) {
            mark(range, Channel::Kernel);
        }
        mark(&ids.mem2mem, Channel::Dma);
        let mut write_channels = [Channel::Unused; 256];
        write_channels[usize::from(OFM_WRITE_ID)] = Channel::Kernel;
        write_channels[usize::from(MEM2MEM_WRITE_ID)] = Channel::Dma;
        Ok(Self {
            offset_bit,
            read_channels,
            write_channels,
            kernels: vec![],
            dmas: vec![],
            dma_head: 0,
            kernel_running: None,
            kernel_draining: None,
            kernel_bytes: [PortBytes::default(); 2],
            dma_queued: model.read_signal(&signals.dma_queued),
            dma_taken: false,
            run_start: None,
            run_stop: None,
            timeline: None,
            signals,
        })
    }

    /// Also records a [`Timeline`] of the run.
    pub fn record_timeline(&mut self, config: &NpuConfig) {
        self.timeline = Some(Timeline::new(config));
    }

    /// The run's trace (see [`Timeline::trace`]), the spans named from
    /// `records`, the golden model's records of the job (kind and offset).
    pub fn trace(&self, records: &[OpRecord]) -> Option<serde_json::Value> {
        let name = |span: &Span| {
            let kind = records
                .iter()
                .find(|r| r.offset == span.offset)
                .map_or("operation", |r| r.kind.as_str());
            let start = self.run_start?;
            Some((
                format!("{kind} {:#x}", span.offset),
                span.start? - start,
                span.end? - start,
            ))
        };
        let operations: Vec<_> = self.kernels.iter().filter_map(name).collect();
        let dmas: Vec<_> = self.dmas.iter().filter_map(name).collect();
        Some(self.timeline.as_ref()?.trace(&operations, &dmas))
    }

    /// Bytes of `channel`'s IDs so far, per port.
    fn bytes(&self, by_id: [&BytesById; 2], channel: Channel) -> [PortBytes; 2] {
        self.bytes_of(by_id, channel, |b| &b.written)
    }

    /// The same, with the written bytes counted as their write responses
    /// come.
    fn answered_bytes(&self, by_id: [&BytesById; 2], channel: Channel) -> [PortBytes; 2] {
        self.bytes_of(by_id, channel, |b| &b.answered)
    }

    fn bytes_of(
        &self,
        by_id: [&BytesById; 2],
        channel: Channel,
        written: impl Fn(&BytesById) -> &[u64; 256],
    ) -> [PortBytes; 2] {
        by_id.map(|b| {
            let mut bytes = PortBytes::default();
            for id in 0..256 {
                if self.read_channels[id] == channel {
                    bytes.read += b.read[id];
                }
                if self.write_channels[id] == channel {
                    bytes.written += written(b)[id];
                }
            }
            bytes
        })
    }

    /// The kernel channels' bytes since the last edge: reads to the
    /// operation running (or, before the next is taken, the last one),
    /// answered writes to the oldest not ended (they answer in order).
    fn share_kernel_bytes(&mut self, by_id: [&BytesById; 2]) {
        let now = self.answered_bytes(by_id, Channel::Kernel);
        let last = self.kernels.len().checked_sub(1);
        let reader = self.kernel_running.or(self.kernel_draining).or(last);
        let writer = self.kernel_draining.or(self.kernel_running).or(last);
        for (port, (now, last)) in now.iter().zip(&self.kernel_bytes).enumerate() {
            if let Some(k) = reader {
                self.kernels[k].ports[port].read += now.read - last.read;
            }
            if let Some(k) = writer {
                self.kernels[k].ports[port].written += now.written - last.written;
            }
        }
        self.kernel_bytes = now;
    }

    /// Takes the values of one edge, read after the clock fell; `by_id` are
    /// the completers' byte counts up to the edge before.
    pub fn sample(&mut self, model: &Model, by_id: [&BytesById; 2]) {
        let cycle = model.cycle();
        let s = self.signals;
        let read = |signal: &PublicSignal| model.read_signal(signal) != 0;
        if read(&s.running) {
            self.run_start.get_or_insert(cycle);
        } else if self.run_start.is_some() && self.run_stop.is_none() {
            self.run_stop = Some(cycle);
        }
        if let (Some(timeline), Some(start)) = (&mut self.timeline, self.run_start) {
            timeline.sample(cycle - start, by_id);
        }

        self.share_kernel_bytes(by_id);
        let draining = read(&s.kernel_draining);
        if let Some(index) = self.kernel_draining.filter(|_| !draining) {
            self.kernel_draining = None;
            self.kernels[index].end = Some(cycle);
        }
        if let Some(index) = self.kernel_running.filter(|_| !read(&s.kernel_busy)) {
            self.kernel_running = None;
            if draining {
                self.kernel_draining = Some(index);
            } else {
                self.kernels[index].end = Some(cycle);
            }
        }
        if read(&s.kernel_valid) && read(&s.kernel_ready) {
            self.kernel_running = Some(self.kernels.len());
            let offset = model.read_signal_bits(&s.kernel_operation, self.offset_bit, 32);
            self.kernels.push(Span {
                offset: offset as usize,
                start: Some(cycle),
                ..Span::default()
            });
        }

        let queued = model.read_signal(&s.dma_queued);
        let retired = (self.dma_queued + u64::from(self.dma_taken)).saturating_sub(queued);
        for _ in 0..retired {
            self.dma_ended(cycle, by_id);
        }
        self.dma_queued = queued;
        self.dma_taken = read(&s.dma_valid) && read(&s.dma_ready);
        if self.dma_taken {
            // NPU_OP_DMA_START is one word: central control's offset is past it.
            let offset = model.read_signal(&s.command_offset).wrapping_sub(4);
            self.dmas.push(Span {
                offset: offset as usize,
                ..Span::default()
            });
            if self.dma_head == self.dmas.len() - 1 {
                self.dma_started(cycle, by_id);
            }
        }
    }

    /// The head DMA ends (if one runs: a soft reset also empties the queue)
    /// and the next one queued starts.
    fn dma_ended(&mut self, cycle: u64, by_id: [&BytesById; 2]) {
        if self.dma_head == self.dmas.len() {
            return;
        }
        let now = self.bytes(by_id, Channel::Dma);
        end(&mut self.dmas[self.dma_head], cycle, now);
        self.dma_head += 1;
        if self.dma_head < self.dmas.len() {
            self.dma_started(cycle, by_id);
        }
    }

    fn dma_started(&mut self, cycle: u64, by_id: [&BytesById; 2]) {
        let at_start = self.bytes(by_id, Channel::Dma);
        let span = &mut self.dmas[self.dma_head];
        span.start = Some(cycle);
        span.ports_at_start = at_start;
    }

    /// Adds the RTL's cycles and port bytes to `records`, the golden
    /// model's records of the same job in stream order (see [`fill`]).
    pub fn fill(&self, records: &mut [OpRecord], completed: bool) -> Result<()> {
        fill(records, &self.kernels, &self.dmas, completed)
    }

    /// The whole run's cycles and bytes, after it: `completers` served it
    /// from its start; `cycle` is the last edge sampled, for a run that did
    /// not stop.
    pub fn measures(&self, completers: [&AxiCompleter; 2], cycle: u64) -> RunMeasures {
        let start = self.run_start.unwrap_or(cycle);
        RunMeasures {
            cycles: self.run_stop.unwrap_or(cycle) - start,
            ports: completers.map(|c| PortBytes {
                read: c.counters.bytes_read,
                written: c.counters.bytes_written,
            }),
            command_stream: self
                .bytes(completers.map(|c| c.bytes_by_id.as_ref()), Channel::Command),
            command_fetch_floor: 0,
        }
    }
}

/// Adds the cycles and port bytes of `kernels` and `dmas`, as the RTL ran
/// them, to `records`, the golden model's records of the same job in stream
/// order: the n-th kernel operation (DMA) of the RTL is the n-th of the
/// records, at the same offset, or this fails. A run that did not complete
/// (an error) may have started an operation the golden model refused, or
/// not reached one it ran: records then pair as far as both go.
pub fn fill(
    records: &mut [OpRecord],
    kernels: &[Span],
    dmas: &[Span],
    completed: bool,
) -> Result<()> {
    let dma = Opcode::NpuOpDmaStart.name();
    let (mut kernels, mut dmas) = (kernels.iter(), dmas.iter());
    for record in records.iter_mut() {
        let (spans, what) = if record.kind == dma {
            (&mut dmas, "DMA")
        } else {
            (&mut kernels, "kernel operation")
        };
        let Some(span) = spans.next() else {
            ensure!(
                !completed,
                "per-layer report: the golden model ran the {what} at command-stream offset \
                 {:#x}, the RTL did not",
                record.offset
            );
            continue;
        };
        ensure!(
            span.offset == record.offset,
            "per-layer report: the RTL's next {what} is at command-stream offset {:#x}, \
             the golden model's ({}) at {:#x}",
            span.offset,
            record.kind,
            record.offset
        );
        record.cycles = span.cycles();
        record.ports = record.cycles.map(|_| span.ports);
    }
    if completed {
        for (left, what) in [(kernels.next(), "kernel operation"), (dmas.next(), "DMA")] {
            if let Some(span) = left {
                bail!(
                    "per-layer report: the RTL ran a {what} at command-stream offset {:#x} \
                     that the golden model did not",
                    span.offset
                );
            }
        }
    }
    Ok(())
}

/// `span` ends at `cycle`, when its channels have moved `now` bytes.
fn end(span: &mut Span, cycle: u64, now: [PortBytes; 2]) {
    span.end = Some(cycle);
    let start = span.ports_at_start;
    span.ports = std::array::from_fn(|i| PortBytes {
        read: now[i].read - start[i].read,
        written: now[i].written - start[i].written,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(offset: usize, kind: &str) -> OpRecord {
        OpRecord {
            offset,
            kind: kind.into(),
            ..OpRecord::default()
        }
    }

    fn span(offset: usize, start: u64, end: Option<u64>, m0_read: u64) -> Span {
        Span {
            offset,
            start: Some(start),
            end,
            ports: [
                PortBytes {
                    read: m0_read,
                    written: 0,
                },
                PortBytes::default(),
            ],
            ..Span::default()
        }
    }

    fn records() -> Vec<OpRecord> {
        vec![
            record(0x24, "NPU_OP_CONV"),
            record(0x28, "NPU_OP_DMA_START"),
            record(0x40, "NPU_OP_POOL MAX"),
        ]
    }

    #[test]
    fn kernel_operations_and_dmas_pair_in_order() {
        let mut r = records();
        let kernels = [
            span(0x24, 10, Some(110), 64),
            span(0x40, 110, Some(150), 32),
        ];
        let dmas = [span(0x28, 12, Some(40), 16)];
        fill(&mut r, &kernels, &dmas, true).expect("they pair");
        let got: Vec<_> = r
            .iter()
            .map(|r| (r.cycles, r.ports.map(|p| p[0].read)))
            .collect();
        assert_eq!(
            got,
            [
                (Some(100), Some(64)),
                (Some(28), Some(16)),
                (Some(40), Some(32))
            ]
        );
    }

    #[test]
    fn a_disagreement_is_an_error_that_names_the_offsets() {
        let dmas = [span(0x28, 12, Some(40), 16)];
        let wrong = [span(0x24, 10, Some(110), 0), span(0x44, 110, Some(150), 0)];
        let e = fill(&mut records(), &wrong, &dmas, true).unwrap_err();
        assert!(
            e.to_string().contains("0x44") && e.to_string().contains("0x40"),
            "{e}"
        );
        let short = [span(0x24, 10, Some(110), 0)];
        let e = fill(&mut records(), &short, &dmas, true).unwrap_err();
        assert!(e.to_string().contains("the RTL did not"), "{e}");
        let long = [
            span(0x24, 10, Some(110), 0),
            span(0x40, 110, Some(150), 0),
            span(0x60, 150, Some(160), 0),
        ];
        let e = fill(&mut records(), &long, &dmas, true).unwrap_err();
        assert!(e.to_string().contains("0x60"), "{e}");
    }

    /// A run that stopped on an error pairs what both ran; an operation
    /// still running has no cycles.
    #[test]
    fn an_incomplete_run_pairs_as_far_as_both_go() {
        let mut r = records();
        let kernels = [span(0x24, 10, None, 0)];
        fill(&mut r, &kernels, &[], false).expect("an incomplete run");
        assert!(r.iter().all(|r| r.cycles.is_none() && r.ports.is_none()));
    }
}
