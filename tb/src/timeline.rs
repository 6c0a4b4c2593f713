//! A picture of a run on the RTL (`npu-sim run/tflite --timeline F.json`):
//! the Chrome trace-event format that Perfetto (ui.perfetto.dev) and
//! chrome://tracing open.
//!
//! Tracks of one process, "NPU": the kernel operations and the DMAs as
//! the per-layer probe timed them ([`crate::layer_probe`]), and one track
//! per channel of the DMA (command, IFM, weight and scale/bias reads, OFM
//! writes, the user DMA's reads and writes) with a span wherever it moves
//! data: a channel's beats at most [`RESOLUTION`] cycles apart make one
//! span. Counters: each AXI port's bytes read and written per
//! [`WINDOW`] cycles. Timestamps are CLK cycles from the run's start (the
//! driver's set-up before it is left out), shown by the viewers as
//! microseconds.

use crate::axi::BytesById;
use npu_arch::config::NpuConfig;
use npu_hw::dma::{MEM2MEM_WRITE_ID, OFM_WRITE_ID};
use serde_json::{json, Value};
use std::ops::RangeInclusive;

/// Cycles between looks at the channels' byte counts.
pub const RESOLUTION: u64 = 16;
/// Cycles of one sample of the ports' byte counters.
pub const WINDOW: u64 = 1000;

/// The DMA channels, as AXI IDs tell them apart (TRM tables ).
const CHANNELS: [&str; 7] = [
    "command reads",
    "IFM reads",
    "weight reads",
    "scale/bias reads",
    "OFM writes",
    "user DMA reads",
    "user DMA writes",
];

/// Spans of one track: `(start, end)` cycles.
type Spans = Vec<(u64, u64)>;

/// Records channel activity and port traffic while a run goes on.
pub struct Timeline {
    /// The read and write IDs of the channels: (ID, index of [`CHANNELS`]).
    read_ids: Vec<(usize, usize)>,
    write_ids: Vec<(usize, usize)>,
    /// Each channel's bytes at the last look, and its open span.
    bytes: [u64; CHANNELS.len()],
    open: [Option<(u64, u64)>; CHANNELS.len()],
    spans: [Spans; CHANNELS.len()],
    /// Port bytes (M0 read, M0 written, M1 read, M1 written) at the last
    /// window's end, and per window.
    window_start: [u64; 4],
    windows: Vec<(u64, [u64; 4])>,
}

impl Timeline {
    pub fn new(config: &NpuConfig) -> Self {
        let mut read_ids = Vec::new();
        let mut mark = |ids: &RangeInclusive<u8>, channel: usize| {
            read_ids.extend(ids.clone().map(|id| (usize::from(id), channel)));
        };
        let ids = &config.read_ids;
        mark(&ids.command, 0);
        mark(&ids.ifm, 1);
        ids.weight.iter().for_each(|r| mark(r, 2));
        ids.scale.iter().for_each(|r| mark(r, 3));
        mark(&ids.mem2mem, 5);
        let write_ids = vec![
            (usize::from(OFM_WRITE_ID), 4),
            (usize::from(MEM2MEM_WRITE_ID), 6),
        ];
        Self {
            read_ids,
            write_ids,
            bytes: [0; CHANNELS.len()],
            open: [None; CHANNELS.len()],
            spans: Default::default(),
            window_start: [0; 4],
            windows: Vec::new(),
        }
    }

    /// Takes the ports' byte counts (by ID, both ports) at `cycle` of the
    /// run (0 at its start: what moved before does not count).
    pub fn sample(&mut self, cycle: u64, by_id: [&BytesById; 2]) {
        if cycle == 0 {
            self.bytes = self.channel_bytes(by_id);
            self.window_start = port_totals(by_id);
            return;
        }
        if cycle.is_multiple_of(RESOLUTION) {
            let now = self.channel_bytes(by_id);
            for (c, open) in self.open.iter_mut().enumerate() {
                if now[c] != self.bytes[c] {
                    let start = open.map_or(cycle - RESOLUTION.min(cycle), |(start, _)| start);
                    *open = Some((start, cycle));
                } else if let Some(span) = open.take() {
                    self.spans[c].push(span);
                }
            }
            self.bytes = now;
        }
        if cycle.is_multiple_of(WINDOW) {
            let totals = port_totals(by_id);
            let moved = std::array::from_fn(|i| totals[i] - self.window_start[i]);
            self.windows.push((cycle, moved));
            self.window_start = totals;
        }
    }

    /// Each channel's bytes so far.
    fn channel_bytes(&self, by_id: [&BytesById; 2]) -> [u64; CHANNELS.len()] {
        let mut bytes = [0u64; CHANNELS.len()];
        for port in by_id {
            for &(id, c) in &self.read_ids {
                bytes[c] += port.read[id];
            }
            for &(id, c) in &self.write_ids {
                bytes[c] += port.written[id];
            }
        }
        bytes
    }

    /// The trace: `operations` and `dmas` are (name, start, end) spans in
    /// cycles of the run.
    pub fn trace(&self, operations: &[(String, u64, u64)], dmas: &[(String, u64, u64)]) -> Value {
        let mut events = vec![json!({
            "ph": "M", "pid": 1, "name": "process_name", "args": {"name": "NPU"}
        })];
        let mut track = |tid: usize, name: &str, spans: Vec<(String, u64, u64)>| {
            events.push(json!({
                "ph": "M", "pid": 1, "tid": tid, "name": "thread_name", "args": {"name": name}
            }));
            events.push(json!({
                "ph": "M", "pid": 1, "tid": tid, "name": "thread_sort_index",
                "args": {"sort_index": tid}
            }));
            for (label, start, end) in spans {
                events.push(json!({
                    "ph": "X", "pid": 1, "tid": tid, "name": label, "ts": start,
                    "dur": end.saturating_sub(start), "args": {"cycles": end.saturating_sub(start)}
                }));
            }
        };
        track(1, "kernel operations", operations.to_vec());
        track(2, "DMA (NPU_OP_DMA_START)", dmas.to_vec());
        for (c, name) in CHANNELS.iter().enumerate() {
            let spans = self.spans[c]
                .iter()
                .chain(&self.open[c])
                .map(|&(start, end)| (name.to_string(), start, end))
                .collect();
            track(3 + c, name, spans);
        }
        for &(cycle, [m0_read, m0_written, m1_read, m1_written]) in &self.windows {
            let ts = cycle.saturating_sub(WINDOW);
            events.push(json!({
                "ph": "C", "pid": 1, "name": format!("M0 bytes per {WINDOW} cycles"), "ts": ts,
                "args": {"read": m0_read, "written": m0_written}
            }));
            events.push(json!({
                "ph": "C", "pid": 1, "name": format!("M1 bytes per {WINDOW} cycles"), "ts": ts,
                "args": {"read": m1_read, "written": m1_written}
            }));
        }
        json!({ "traceEvents": events, "displayTimeUnit": "ns" })
    }
}

/// M0 read, M0 written, M1 read, M1 written bytes so far.
fn port_totals(by_id: [&BytesById; 2]) -> [u64; 4] {
    let sum = |v: &[u64; 256]| v.iter().sum::<u64>();
    [
        sum(&by_id[0].read),
        sum(&by_id[0].written),
        sum(&by_id[1].read),
        sum(&by_id[1].written),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beats_close_together_make_one_span_and_windows_count_bytes() {
        let config = NpuConfig::by_name("u65-256").unwrap();
        let mut timeline = Timeline::new(&config);
        let mut m0 = BytesById::default();
        let m1 = BytesById::default();
        let ifm = usize::from(*config.read_ids.ifm.start());
        for cycle in 0..=3000u64 {
            // IFM reads in cycles 100-400 and 2000-2100, an OFM write at 500.
            if (100..=400).contains(&cycle) || (2000..=2100).contains(&cycle) {
                m0.read[ifm] += 16;
            }
            if cycle == 500 {
                m0.written[usize::from(OFM_WRITE_ID)] += 16;
            }
            timeline.sample(cycle, [&m0, &m1]);
        }
        assert_eq!(timeline.spans[1], [(96, 400), (1984, 2112)]);
        assert_eq!(timeline.spans[4], [(496, 512)]);
        assert_eq!(timeline.windows.len(), 3);
        assert_eq!(timeline.windows[0].1, [301 * 16, 16, 0, 0]);
        let trace = timeline.trace(&[("NPU_OP_CONV 0x24".into(), 50, 600)], &[]);
        let events = trace["traceEvents"].as_array().unwrap();
        assert!(events
            .iter()
            .any(|e| e["name"] == "NPU_OP_CONV 0x24" && e["dur"] == 550));
        assert_eq!(events.iter().filter(|e| e["ph"] == "C").count(), 6);
    }
}
