//! The per-layer report of a run: one row per kernel operation and DMA of the
//! command stream, an operator left on the CPU marked `(CPU)`, then totals.
//! Column names follow Vela's `--verbose-performance` CSV where the meaning is
//! the same (`MAC Count`, `Op Cycles`, `Util% (MAC)`). Every backend fills the
//! shapes, MACs and region bytes; a timed backend (the RTL) adds the cycles,
//! each AXI port's bytes and the operation's `Floor` (`crate::floor`). A cell a
//! backend has no value for is empty. What each column and the totals mean:
//! `docs/per-layer-report.md`.

use crate::state::{OpRecord, PortBytes, Shape};
use serde::Serialize;

/// The report's columns.
pub const COLUMNS: [&str; 19] = [
    "Offset",
    "Operation",
    "IFM",
    "IFM2",
    "OFM",
    "Kernel",
    "Elements",
    "MAC Count",
    "Bytes Read",
    "Bytes Written",
    "Op Cycles",
    "Floor",
    "Cycles/Floor",
    "MACs/Cycle",
    "Util% (MAC)",
    "M0 Read",
    "M0 Written",
    "M1 Read",
    "M1 Written",
];

/// Columns before this one hold text (left-aligned in the table).
const FIRST_NUMBER_COLUMN: usize = 6;

type Row = [String; COLUMNS.len()];

/// What a timed backend measured over a whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RunMeasures {
    /// NPU clock cycles from the start of the run to its stop.
    pub cycles: u64,
    /// Every byte each AXI port (M0, M1) moved in the run.
    pub ports: [PortBytes; 2],
    /// The command-stream reads among them.
    pub command_stream: [PortBytes; 2],
    /// Beside them, the command fetches' floor
    /// ([`crate::floor::Floors::command_fetch`]); 0 where none was worked out.
    pub command_fetch_floor: u64,
}

impl RunMeasures {
    /// This run's measures followed by `next`'s.
    pub fn then(&self, next: &RunMeasures) -> RunMeasures {
        let add = |a: [PortBytes; 2], b: [PortBytes; 2]| {
            std::array::from_fn(|i| PortBytes {
                read: a[i].read + b[i].read,
                written: a[i].written + b[i].written,
            })
        };
        RunMeasures {
            cycles: self.cycles + next.cycles,
            ports: add(self.ports, next.ports),
            command_stream: add(self.command_stream, next.command_stream),
            command_fetch_floor: self.command_fetch_floor + next.command_fetch_floor,
        }
    }
}

/// A run's report: its rows, what a timed backend measured over the whole
/// run, and the peak the utilisation is taken against.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    pub layers: &'a [OpRecord],
    pub measured: Option<&'a RunMeasures>,
    /// The configuration's peak MACs per cycle (`NpuConfig::macs_per_cycle`).
    pub peak_macs_per_cycle: u32,
}

/// MACs per cycle and Util% (MAC) of `macs` in `cycles`; none without
/// cycles or without MACs.
pub fn rates(macs: u64, cycles: Option<u64>, peak_macs_per_cycle: u32) -> Option<(f64, f64)> {
    let cycles = cycles.filter(|&c| c > 0 && macs > 0)?;
    let per_cycle = macs as f64 / cycles as f64;
    Some((
        per_cycle,
        100.0 * per_cycle / f64::from(peak_macs_per_cycle),
    ))
}

/// The totals row.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    pub operations: usize,
    pub macs: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// The whole run's cycles (a timed backend).
    pub cycles: Option<u64>,
    pub macs_per_cycle: Option<f64>,
    pub util_mac: Option<f64>,
    /// Every byte each port moved (a timed backend).
    pub ports: Option<[PortBytes; 2]>,
    /// The command-stream reads among them.
    pub command_stream: Option<[PortBytes; 2]>,
    /// The kernel operations' floors, the DMAs' forced waits (a DMA's
    /// transfer may run beside a kernel operation) and the command
    /// fetches', summed ([`floor_total`]).
    pub floor: Option<u64>,
}

pub fn totals(report: &Report) -> Totals {
    let layers = report.layers;
    let macs = layers.iter().map(|l| l.macs).sum();
    let cycles = report.measured.map(|m| m.cycles);
    let rates = rates(macs, cycles, report.peak_macs_per_cycle);
    Totals {
        operations: layers.len(),
        macs,
        bytes_read: layers.iter().map(|l| l.bytes_read).sum(),
        bytes_written: layers.iter().map(|l| l.bytes_written).sum(),
        cycles,
        macs_per_cycle: rates.map(|r| r.0),
        util_mac: rates.map(|r| r.1),
        ports: report.measured.map(|m| m.ports),
        command_stream: report.measured.map(|m| m.command_stream),
        floor: floor_total(report),
    }
}

/// The run's floor: each kernel operation's, of each DMA only the latency
/// it forces (its transfer overlaps the kernel operations), and the command
/// fetches'; none if no row has one.
pub fn floor_total(report: &Report) -> Option<u64> {
    let command_fetch = report.measured.map_or(0, |m| m.command_fetch_floor);
    report
        .layers
        .iter()
        .filter_map(|l| {
            let f = l.floor?;
            Some(if l.rate_facts.is_some() {
                f.cycles
            } else {
                f.latency
            })
        })
        .reduce(|a, b| a + b)
        .map(|rows| rows + command_fetch)
}

fn shape(s: &Option<Shape>) -> String {
    s.map(|[h, w, c]| format!("{h}x{w}x{c}"))
        .unwrap_or_default()
}

fn optional<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// The rate cells: MACs/Cycle and Util% (MAC), two decimals.
fn rate_cells(rates: Option<(f64, f64)>) -> [String; 2] {
    rates.map_or_else(Default::default, |(per_cycle, util)| {
        [format!("{per_cycle:.2}"), format!("{util:.2}")]
    })
}

/// The port cells: M0 Read, M0 Written, M1 Read, M1 Written.
fn port_cells(ports: Option<[PortBytes; 2]>) -> [String; 4] {
    ports.map_or_else(Default::default, |[m0, m1]| {
        [m0.read, m0.written, m1.read, m1.written].map(|b| b.to_string())
    })
}

/// Op Cycles, Floor and Cycles/Floor.
fn timed_cells(cycles: Option<u64>, floor: Option<u64>) -> [String; 3] {
    let ratio = cycles
        .zip(floor.filter(|&f| f > 0))
        .map(|(c, f)| format!("{:.2}", c as f64 / f as f64));
    [optional(cycles), optional(floor), ratio.unwrap_or_default()]
}

/// A row from its parts: the six text cells, the four untimed numbers,
/// Op Cycles with its floor, the rates and the port bytes.
fn row(
    text: [String; 6],
    untimed: [String; 4],
    timed: [String; 3],
    rates: [String; 2],
    ports: [String; 4],
) -> Row {
    let mut cells = text
        .into_iter()
        .chain(untimed)
        .chain(timed)
        .chain(rates)
        .chain(ports);
    std::array::from_fn(|_| cells.next().expect("one cell per column"))
}

fn cells(l: &OpRecord, peak_macs_per_cycle: u32) -> Row {
    if l.on_cpu {
        return host_cells(l);
    }
    row(
        [
            format!("{:#x}", l.offset),
            l.kind.clone(),
            shape(&l.ifm),
            shape(&l.ifm2),
            shape(&l.ofm),
            l.kernel
                .map(|[h, w]| format!("{h}x{w}"))
                .unwrap_or_default(),
        ],
        [
            optional(l.ofm.map(|[h, w, c]| h * w * c)),
            l.macs.to_string(),
            l.bytes_read.to_string(),
            l.bytes_written.to_string(),
        ],
        timed_cells(l.cycles, l.floor.map(|f| f.cycles)),
        rate_cells(rates(l.macs, l.cycles, peak_macs_per_cycle)),
        port_cells(l.ports),
    )
}

/// The row of an operator the host ran: its name, shapes and elements, and
/// no place in a command stream, MACs, region bytes or timing.
fn host_cells(l: &OpRecord) -> Row {
    let mut cells: Row = Default::default();
    cells[1] = format!("{} (CPU)", l.kind);
    if let Some(host) = &l.host {
        let dims = |s: Option<&Vec<usize>>| {
            s.map(|s| s.iter().map(usize::to_string).collect::<Vec<_>>().join("x"))
                .unwrap_or_default()
        };
        cells[2] = dims(host.inputs.first());
        cells[3] = dims(host.inputs.get(1));
        cells[4] = dims(host.outputs.first());
        cells[FIRST_NUMBER_COLUMN] = host.elements.to_string();
    }
    cells
}

/// The row of the command-stream reads, which no operation makes.
/// The command stream's row: its reads and its fetch's floor.
fn command_stream_cells(m: &RunMeasures) -> Row {
    let floor = (m.command_fetch_floor > 0).then_some(m.command_fetch_floor);
    row(
        [
            String::new(),
            "(command stream)".into(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ],
        Default::default(),
        [String::new(), optional(floor), String::new()],
        Default::default(),
        port_cells(Some(m.command_stream)),
    )
}

fn total_cells(t: &Totals) -> Row {
    let rates = t.macs_per_cycle.zip(t.util_mac);
    row(
        [
            String::new(),
            format!("TOTAL ({} operations)", t.operations),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ],
        [
            String::new(),
            t.macs.to_string(),
            t.bytes_read.to_string(),
            t.bytes_written.to_string(),
        ],
        timed_cells(t.cycles, t.floor),
        rate_cells(rates),
        port_cells(t.ports),
    )
}

fn rows(report: &Report) -> Vec<Row> {
    let mut rows: Vec<Row> = vec![COLUMNS.map(String::from)];
    rows.extend(
        report
            .layers
            .iter()
            .map(|l| cells(l, report.peak_macs_per_cycle)),
    );
    if let Some(m) = report.measured {
        rows.push(command_stream_cells(m));
    }
    rows.push(total_cells(&totals(report)));
    rows
}

/// An aligned text table with a totals row.
pub fn table(report: &Report) -> String {
    let rows = rows(report);
    let widths: Vec<usize> = (0..COLUMNS.len())
        .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, &w))| {
                if i < FIRST_NUMBER_COLUMN {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        out += line.join("  ").trim_end();
        out += "\n";
    }
    out
}

/// CSV with a header row and a totals row (no cell holds a comma or quote).
pub fn csv(report: &Report) -> String {
    rows(report).iter().map(|r| r.join(",") + "\n").collect()
}

/// JSON: `{"layers": [...], "totals": {...}}`; each layer is its
/// [`OpRecord`] with `macs_per_cycle` and `util_mac` (null without cycles or
/// MACs).
pub fn json(report: &Report) -> String {
    #[derive(Serialize)]
    struct Layer<'a> {
        #[serde(flatten)]
        record: &'a OpRecord,
        macs_per_cycle: Option<f64>,
        util_mac: Option<f64>,
    }
    #[derive(Serialize)]
    struct Json<'a> {
        layers: Vec<Layer<'a>>,
        totals: Totals,
    }
    let layers = report
        .layers
        .iter()
        .map(|record| {
            let rates = rates(record.macs, record.cycles, report.peak_macs_per_cycle);
            Layer {
                record,
                macs_per_cycle: rates.map(|r| r.0),
                util_mac: rates.map(|r| r.1),
            }
        })
        .collect();
    let json = Json {
        layers,
        totals: totals(report),
    };
    serde_json::to_string_pretty(&json).expect("a report serialises")
}

/// Write the report to `path`: JSON when it ends in `.json`, CSV otherwise.
pub fn write(path: &std::path::Path, report: &Report) -> std::io::Result<()> {
    let text = if path.extension().is_some_and(|e| e == "json") {
        json(report)
    } else {
        csv(report)
    };
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::floor::{Floor, RateClass, RateFacts};

    const PEAK: u32 = 256;

    fn layer(kind: &str, macs: u64, cycles: Option<u64>) -> OpRecord {
        OpRecord {
            offset: 0x40,
            kind: kind.into(),
            ifm: Some([4, 4, 8]),
            ofm: Some([2, 2, 16]),
            kernel: Some([3, 3]),
            macs,
            bytes_read: 128,
            bytes_written: 64,
            cycles,
            ..OpRecord::default()
        }
    }

    fn ports(m0: (u64, u64), m1: (u64, u64)) -> [PortBytes; 2] {
        [m0, m1].map(|(read, written)| PortBytes { read, written })
    }

    fn untimed(layers: &[OpRecord]) -> Report<'_> {
        Report {
            layers,
            measured: None,
            peak_macs_per_cycle: PEAK,
        }
    }

    /// A timed run: a convolution, then a DMA beside the next one.
    fn timed() -> (Vec<OpRecord>, RunMeasures) {
        let conv = OpRecord {
            ports: Some(ports((96, 64), (144, 0))),
            floor: Some(Floor {
                cycles: 24,
                compute: 18,
                transfer: 10,
                latency: 6,
            }),
            rate_facts: Some(RateFacts {
                class: RateClass::Conv,
                ifm_bits: 8,
                ofm_bits: 8,
                advanced: false,
                lookup: false,
                blockdep: 0,
            }),
            ..layer("NPU_OP_CONV", 4608, Some(36))
        };
        let dma = OpRecord {
            offset: 0x48,
            ofm: None,
            ifm: None,
            kernel: None,
            ports: Some(ports((0, 32), (32, 0))),
            floor: Some(Floor {
                cycles: 14,
                compute: 0,
                transfer: 4,
                latency: 10,
            }),
            ..layer("NPU_OP_DMA_START", 0, Some(20))
        };
        let measured = RunMeasures {
            cycles: 50,
            ports: ports((96, 96), (224, 0)),
            command_stream: ports((0, 0), (48, 0)),
            command_fetch_floor: 6,
        };
        (vec![conv, dma], measured)
    }

    /// Untimed: sums of MACs and bytes, no cycles; with cycles of the
    /// rows only, still none (they overlap: only the run's count).
    #[test]
    fn totals_sum_macs_and_bytes_and_take_the_runs_cycles() {
        let layers = [
            layer("NPU_OP_CONV", 4608, Some(100)),
            layer("NPU_OP_CONV", 1, Some(7)),
        ];
        let t = totals(&untimed(&layers));
        assert_eq!((t.operations, t.macs, t.cycles), (2, 4609, None));
        assert_eq!((t.bytes_read, t.bytes_written), (256, 128));
        assert_eq!((t.ports, t.macs_per_cycle), (None, None));

        let (layers, measured) = timed();
        let report = Report {
            measured: Some(&measured),
            ..untimed(&layers)
        };
        let t = totals(&report);
        assert_eq!(t.cycles, Some(50));
        assert_eq!(t.ports, Some(measured.ports));
        assert_eq!(t.command_stream, Some(measured.command_stream));
        assert_eq!(t.macs_per_cycle, Some(4608.0 / 50.0));
        assert_eq!(t.util_mac, Some(100.0 * 4608.0 / (50.0 * 256.0)));
    }

    /// Util% (MAC) = MAC Count / (Op Cycles x peak) x 100; none without
    /// cycles or MACs.
    #[test]
    fn rates_against_the_peak() {
        assert_eq!(rates(4608, Some(36), 256), Some((128.0, 50.0)));
        assert_eq!(rates(4608, Some(36), 512), Some((128.0, 25.0)));
        assert_eq!(rates(4608, None, 256), None);
        assert_eq!(rates(0, Some(20), 256), None);
        assert_eq!(rates(4608, Some(0), 256), None);
    }

    #[test]
    fn untimed_csv_json_and_table_leave_the_timed_cells_empty() {
        let layers = [layer("NPU_OP_CONV", 4608, None)];
        let report = untimed(&layers);
        assert_eq!(
            csv(&report),
            "Offset,Operation,IFM,IFM2,OFM,Kernel,Elements,MAC Count,Bytes Read,Bytes Written,\
             Op Cycles,Floor,Cycles/Floor,MACs/Cycle,Util% (MAC),M0 Read,M0 Written,M1 Read,\
             M1 Written\n\
             0x40,NPU_OP_CONV,4x4x8,,2x2x16,3x3,64,4608,128,64,,,,,,,,,\n\
             ,TOTAL (1 operations),,,,,,4608,128,64,,,,,,,,,\n"
        );
        let v: serde_json::Value = serde_json::from_str(&json(&report)).expect("JSON");
        assert_eq!(v["layers"][0]["macs"], 4608);
        assert!(v["layers"][0]["cycles"].is_null());
        assert!(v["layers"][0]["util_mac"].is_null());
        assert!(v["layers"][0]["ports"].is_null());
        assert_eq!(v["totals"]["bytes_read"], 128);
        assert!(v["totals"]["cycles"].is_null());
        let table = table(&report);
        let first: Vec<&str> = table
            .lines()
            .nth(1)
            .expect("a row")
            .split_whitespace()
            .collect();
        assert_eq!(
            first,
            [
                "0x40",
                "NPU_OP_CONV",
                "4x4x8",
                "2x2x16",
                "3x3",
                "64",
                "4608",
                "128",
                "64"
            ]
        );
    }

    #[test]
    fn timed_csv_json_and_table_have_cycles_rates_and_port_bytes() {
        let (layers, measured) = timed();
        let report = Report {
            measured: Some(&measured),
            ..untimed(&layers)
        };
        let csv = csv(&report);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[1..],
            [
                "0x40,NPU_OP_CONV,4x4x8,,2x2x16,3x3,64,4608,128,64,36,24,1.50,128.00,50.00,96,64,144,0",
                "0x48,NPU_OP_DMA_START,,,,,,0,128,64,20,14,1.43,,,0,32,32,0",
                ",(command stream),,,,,,,,,,6,,,,0,0,48,0",
                // The floor: the convolution's, the DMA's forced waits and the
                // command fetch's.
                ",TOTAL (2 operations),,,,,,4608,256,128,50,40,1.25,92.16,36.00,96,96,224,0",
            ]
        );
        let v: serde_json::Value = serde_json::from_str(&json(&report)).expect("JSON");
        let conv = &v["layers"][0];
        assert_eq!(conv["cycles"], 36);
        assert_eq!(conv["macs_per_cycle"], 128.0);
        assert_eq!(conv["util_mac"], 50.0);
        assert_eq!(conv["ports"][1]["read"], 144);
        assert!(v["layers"][1]["util_mac"].is_null());
        assert_eq!(v["layers"][1]["ports"][0]["written"], 32);
        assert_eq!(v["totals"]["cycles"], 50);
        assert_eq!(v["totals"]["floor"], 34 + 6);
        assert_eq!(v["layers"][0]["floor"]["compute"], 18);
        assert_eq!(v["totals"]["ports"][1]["read"], 224);
        assert_eq!(v["totals"]["command_stream"][1]["read"], 48);
        let table = table(&report);
        let words = |n: usize| -> Vec<String> {
            let line = table.lines().nth(n).expect("a row");
            line.split_whitespace().map(String::from).collect()
        };
        let header = table.lines().next().expect("header");
        let at: Vec<usize> = COLUMNS
            .iter()
            .map(|c| header.find(c).expect("every column"))
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{header}");
        assert_eq!(
            words(1)[5..],
            [
                "64", "4608", "128", "64", "36", "24", "1.50", "128.00", "50.00", "96", "64",
                "144", "0"
            ]
        );
        assert_eq!(words(3), ["(command", "stream)", "6", "0", "0", "48", "0"]);
        // Numbers are right-aligned under their headers.
        let util = table.lines().nth(1).expect("a row");
        assert_eq!(
            header.find("Util% (MAC)").map(|i| i + "Util% (MAC)".len()),
            util.find("50.00").map(|i| i + "50.00".len())
        );
    }
}

/// One NPU row of Vela's per-layer performance CSV (`vela
/// --verbose-performance` writes `<model>_per-layer.csv`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VelaLayer {
    /// `Original Operator` and `NNG Operator` (the TFLite operator and
    /// what Vela lowered it to), and the output tensor's `Name`.
    pub operator: String,
    pub lowered: String,
    pub name: String,
    pub op_cycles: u64,
}

/// Vela's NPU operations with cycles, in order, from its per-layer CSV:
/// CPU rows (`Target` CPU) and the rows of activations fused into the
/// operation before them (`Op Cycles` 0) are left out. An error names a
/// missing column or a malformed row.
pub fn read_vela_layers(text: &str) -> Result<Vec<VelaLayer>, String> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| format!("not a Vela per-layer CSV: {e}"))?
        .clone();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("not a Vela per-layer CSV: no column \"{name}\""))
    };
    let [operator, lowered, target, cycles, name] = [
        column("Original Operator")?,
        column("NNG Operator")?,
        column("Target")?,
        column("Op Cycles")?,
        column("Name")?,
    ];
    let mut layers = Vec::new();
    for (row, record) in reader.records().enumerate() {
        let record = record.map_err(|e| format!("Vela per-layer CSV row {}: {e}", row + 1))?;
        let field = |i: usize| record.get(i).unwrap_or_default().to_string();
        let op_cycles: f64 = field(cycles).parse().map_err(|_| {
            format!(
                "Vela per-layer CSV row {}: Op Cycles \"{}\" is not a number",
                row + 1,
                field(cycles)
            )
        })?;
        if field(target) == "NPU" && op_cycles > 0.0 {
            layers.push(VelaLayer {
                operator: field(operator),
                lowered: field(lowered),
                name: field(name),
                op_cycles: op_cycles.round() as u64,
            });
        }
    }
    Ok(layers)
}

/// The report's kernel operations beside Vela's rows (`vela`, from
/// [`read_vela_layers`]), matched in stream order, with each one's cycles,
/// Vela's and their ratio, the floor and its ratio where the backend gives
/// one, and the sums; when the two counts differ (Vela
/// lowered an operator into several NPU operations it lists as one row)
/// only the sums are compared, and the table says so.
pub fn beside_vela(report: &Report, vela: &[VelaLayer]) -> String {
    let kernels: Vec<&OpRecord> = report
        .layers
        .iter()
        .filter(|l| !l.on_cpu && !l.kind.starts_with("NPU_OP_DMA"))
        .collect();
    let ratio = |ours: Option<u64>, theirs: u64| match ours {
        Some(c) if theirs > 0 => format!("{:.2}", c as f64 / theirs as f64),
        _ => String::new(),
    };
    let vela_total: u64 = vela.iter().map(|v| v.op_cycles).sum();
    let ours_total: Option<u64> = kernels.iter().map(|k| k.cycles).sum();
    let floor_total: Option<u64> = kernels.iter().map(|k| k.floor.map(|f| f.cycles)).sum();
    let floor = |floor: Option<u64>, cycles: Option<u64>| match floor {
        Some(f) => format!("  floor {f:>10}  ratio {}", ratio(cycles, f)),
        None => String::new(),
    };
    let mut out = String::from("beside Vela's per-layer estimate:\n");
    if kernels.len() == vela.len() {
        for (k, v) in kernels.iter().zip(vela) {
            out += &format!(
                "  {:#06x} {:<28} {:>10}  Vela {:<24} {:>10}  ratio {}{}\n",
                k.offset,
                k.kind,
                k.cycles.map_or(String::new(), |c| c.to_string()),
                format!("{} ({})", v.lowered, v.name),
                v.op_cycles,
                ratio(k.cycles, v.op_cycles),
                floor(k.floor.map(|f| f.cycles), k.cycles)
            );
        }
    } else {
        out += &format!(
            "  the stream has {} kernel operations and Vela lists {} NPU operations with cycles: \
             compared in total only\n",
            kernels.len(),
            vela.len()
        );
    }
    out += &format!(
        "  kernel operations {:>10}  Vela {:>10}  ratio {}{}\n",
        ours_total.map_or(String::new(), |c| c.to_string()),
        vela_total,
        ratio(ours_total, vela_total),
        floor(floor_total, ours_total)
    );
    out
}
