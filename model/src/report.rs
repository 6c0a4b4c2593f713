//! The per-layer report of a run: one row per kernel operation and DMA of
//! the command stream, then totals. Column names follow Vela's
//! `--verbose-performance` per-layer CSV where the meaning is the same
//! (`MAC Count`, `Op Cycles`).

use crate::npu::{OpRecord, Shape};
use serde::Serialize;

/// The report's columns.
pub const COLUMNS: [&str; 10] = [
    "Offset",
    "Operation",
    "IFM",
    "IFM2",
    "OFM",
    "Kernel",
    "MAC Count",
    "Bytes Read",
    "Bytes Written",
    "Op Cycles",
];

/// Sums over every row; cycles only when every row has them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub operations: usize,
    pub macs: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub cycles: Option<u64>,
}

pub fn totals(layers: &[OpRecord]) -> Totals {
    Totals {
        operations: layers.len(),
        macs: layers.iter().map(|l| l.macs).sum(),
        bytes_read: layers.iter().map(|l| l.bytes_read).sum(),
        bytes_written: layers.iter().map(|l| l.bytes_written).sum(),
        cycles: layers.iter().map(|l| l.cycles).sum(),
    }
}

fn shape(s: &Option<Shape>) -> String {
    s.map(|[h, w, c]| format!("{h}x{w}x{c}"))
        .unwrap_or_default()
}

fn cells(l: &OpRecord) -> [String; 10] {
    [
        format!("{:#x}", l.offset),
        l.kind.clone(),
        shape(&l.ifm),
        shape(&l.ifm2),
        shape(&l.ofm),
        l.kernel
            .map(|[h, w]| format!("{h}x{w}"))
            .unwrap_or_default(),
        l.macs.to_string(),
        l.bytes_read.to_string(),
        l.bytes_written.to_string(),
        l.cycles.map(|c| c.to_string()).unwrap_or_default(),
    ]
}

fn total_cells(t: &Totals) -> [String; 10] {
    [
        String::new(),
        format!("TOTAL ({} operations)", t.operations),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        t.macs.to_string(),
        t.bytes_read.to_string(),
        t.bytes_written.to_string(),
        t.cycles.map(|c| c.to_string()).unwrap_or_default(),
    ]
}

fn rows(layers: &[OpRecord]) -> Vec<[String; 10]> {
    let mut rows: Vec<[String; 10]> = vec![COLUMNS.map(String::from)];
    rows.extend(layers.iter().map(cells));
    rows.push(total_cells(&totals(layers)));
    rows
}

/// An aligned text table with a totals row.
pub fn table(layers: &[OpRecord]) -> String {
    let rows = rows(layers);
    let widths: Vec<usize> = (0..COLUMNS.len())
        .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            // Text columns left-aligned, numbers right-aligned.
            .map(|(i, (c, &w))| {
                if i < 6 {
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
pub fn csv(layers: &[OpRecord]) -> String {
    rows(layers).iter().map(|r| r.join(",") + "\n").collect()
}

/// JSON: `{"layers": [...], "totals": {...}}`.
pub fn json(layers: &[OpRecord]) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        layers: &'a [OpRecord],
        totals: Totals,
    }
    let report = Report {
        layers,
        totals: totals(layers),
    };
    serde_json::to_string_pretty(&report).expect("a report serialises")
}

/// Write the report to `path`: JSON when it ends in `.json`, CSV otherwise.
pub fn write(path: &std::path::Path, layers: &[OpRecord]) -> std::io::Result<()> {
    let text = if path.extension().is_some_and(|e| e == "json") {
        json(layers)
    } else {
        csv(layers)
    };
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kind: &str, macs: u64, cycles: Option<u64>) -> OpRecord {
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

    /// Cycles total only when every row has them (a timed backend).
    #[test]
    fn totals_sum_every_row() {
        let timed = [
            row("NPU_OP_CONV", 4608, Some(100)),
            row("NPU_OP_CONV", 1, Some(7)),
        ];
        let t = totals(&timed);
        assert_eq!((t.operations, t.macs, t.cycles), (2, 4609, Some(107)));
        assert_eq!((t.bytes_read, t.bytes_written), (256, 128));
        let untimed = [
            row("NPU_OP_CONV", 4608, Some(100)),
            row("NPU_OP_DMA_START", 0, None),
        ];
        assert_eq!(totals(&untimed).cycles, None);
    }

    #[test]
    fn csv_and_json_rows() {
        let rows = [row("NPU_OP_CONV", 4608, None)];
        assert_eq!(
            csv(&rows),
            "Offset,Operation,IFM,IFM2,OFM,Kernel,MAC Count,Bytes Read,Bytes Written,Op Cycles\n\
             0x40,NPU_OP_CONV,4x4x8,,2x2x16,3x3,4608,128,64,\n\
             ,TOTAL (1 operations),,,,,4608,128,64,\n"
        );
        let v: serde_json::Value = serde_json::from_str(&json(&rows)).expect("JSON");
        assert_eq!(v["layers"][0]["macs"], 4608);
        assert_eq!(v["totals"]["bytes_read"], 128);
        assert!(v["totals"]["cycles"].is_null());
        let table = table(&rows);
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
                "4608",
                "128",
                "64"
            ]
        );
    }
}
