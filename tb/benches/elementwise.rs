//! Elementwise throughput on the RTL against TRM 4.8.4 tables 4-130 (8-bit
//! activations), 4-131 (16-bit) and 4-132 (32-bit): per column one
//! operation on a 16x16x64 OFM (NHWC, IFM2 a full tensor, the largest
//! block up to 8x16x64 that fits: `npu_tb::elementwise_jobs`), on u65-256
//! and on u65-512 in parallel mode.
//!
//! Per row: the operation's cycles (the job's NPU cycles less those of the
//! same stream without the operation), operations (OFM elements) per
//! cycle, the table's figure and the ratio, the job's simulated cycles per
//! second (the first row's include the Verilator build); figures the TRM marks
//! memory-bound say so. The RTL's result is compared with the golden
//! model's. The LUT, tanh and sigmoid column is the convolution bench's
//! (`benches/conv.rs`): one value a cycle whatever the operation.

use npu_arch::command::{ElementwiseMode as M, IfmScaleMode};
use npu_model::compare::{difference, outcome};
use npu_model::floor::elementwise_rate;
use npu_model::job::{BackendRun, Job};
use npu_model::tensor::DType;
use npu_tb::bench_filter::wanted;
use npu_tb::conv_jobs::{golden_run, without_kernel_ops};
use npu_tb::elementwise_jobs::ElementwiseSpec;
use npu_tb::rtl_backend::RtlBackend;
use rand::rngs::StdRng;
use rand::SeedableRng;

/// A column of a table: its operation and the figures for u65-256 and
/// u65-512 (true: memory-bound), from `npu_model::floor`'s copy of the
/// tables.
struct Column {
    name: &'static str,
    spec: ElementwiseSpec,
    figures: [(f64, bool); 2],
}

const OFM: [usize; 3] = [16, 16, 64];

fn column(name: &'static str, mode: M, types: (DType, DType), advanced: bool) -> Column {
    let mut spec = ElementwiseSpec::new(mode, types.0, types.1, OFM);
    if advanced {
        spec.scale_mode = IfmScaleMode::Opa32;
        spec.opa = (1 << 30, 1);
    }
    Column {
        name,
        spec,
        figures: elementwise_rate(mode, types.0.bits, types.1.bits, advanced),
    }
}

fn tables() -> Vec<(&'static str, Vec<Column>)> {
    let small = |t: DType| -> Vec<Column> {
        [
            ("LReLU", M::Lrelu, false),
            ("ABS", M::Abs, false),
            ("MIN", M::Min, false),
            ("MAX", M::Max, false),
            ("MUL", M::Mul, false),
            ("simple ADD", M::Add, false),
            ("simple SUB", M::Sub, false),
            ("advanced ADD", M::Add, true),
            ("advanced SUB", M::Sub, true),
        ]
        .into_iter()
        .map(|(name, mode, advanced)| column(name, mode, (t, t), advanced))
        .collect()
    };
    let i32_ = DType::I32;
    let wide = [
        ("MUL 8 to 32-bit", M::Mul, DType::I8),
        ("ADD 8 to 32-bit", M::Add, DType::I8),
        ("MUL 16 to 32-bit", M::Mul, DType::I16),
        ("ADD 16 to 32-bit", M::Add, DType::I16),
        ("MUL 32-bit", M::Mul, i32_),
        ("ADD 32-bit", M::Add, i32_),
        ("CLZ", M::Clz, i32_),
        ("SHL", M::Shl, i32_),
        ("SHR", M::Shr, i32_),
    ];
    vec![
        ("Table 4-130: 8-bit activations", small(DType::I8)),
        ("Table 4-131: 16-bit activations", small(DType::I16)),
        (
            "Table 4-132: 32-bit activations",
            wide.into_iter()
                .map(|(name, mode, ifm)| column(name, mode, (ifm, i32_), false))
                .collect(),
        ),
    ]
}

/// Cycles of `job` on the RTL and the wall time they took.
fn rtl(job: &Job) -> Result<(BackendRun, f64), String> {
    RtlBackend::default()
        .timed_run(job)
        .map_err(|e| format!("{e:#}").lines().next().unwrap_or("").to_string())
}

fn measure(spec: &ElementwiseSpec, (figure, memory_bound): (f64, bool)) -> String {
    let built = spec.build(&mut StdRng::seed_from_u64(1));
    let golden = match golden_run(&built.job) {
        Ok(run) => run,
        Err(e) => return format!("the golden model does not run it: {e}"),
    };
    let (run, seconds) = match rtl(&built.job) {
        Ok((run, seconds)) if run.completed() => (run, seconds),
        Ok((run, _)) => {
            return format!(
                "the RTL stopped on {} at QREAD {:#x}",
                outcome(&run),
                run.qread
            )
        }
        Err(e) => return format!("not run on the RTL: {e}"),
    };
    let cycles = run.cycles.unwrap_or(0);
    let overhead = rtl(&without_kernel_ops(&built.job, &built.commands))
        .ok()
        .and_then(|(r, _)| r.cycles)
        .unwrap_or(0);
    let op_cycles = cycles.saturating_sub(overhead).max(1);
    let [h, w, c] = spec.ofm;
    let rate = (h * w * c) as f64 / op_cycles as f64;
    let agree = match difference(&golden, &run) {
        None => "agrees with the golden model".to_string(),
        Some(d) => format!("DIFFERS from the golden model: {d}"),
    };
    format!(
        "block {:?}: operation {op_cycles} cycles, {rate:.2} ops/cycle, table {figure}{}, ratio {:.2}; \
         {:.0} simulated cycles/s; {agree}",
        spec.block,
        if memory_bound { " (memory-bound)" } else { "" },
        rate / figure,
        cycles as f64 / seconds
    )
}

fn main() {
    for (name, columns) in tables() {
        if !wanted(name) {
            continue;
        }
        println!("{name}, OFM {}x{}x{}", OFM[0], OFM[1], OFM[2]);
        for column in columns {
            for (config, figure) in ["u65-256", "u65-512"].into_iter().zip(column.figures) {
                // Vela sets NPU_SET_PARALLEL_MODE 1 on every u65-512 operation.
                let spec = ElementwiseSpec {
                    u65_512: config == "u65-512",
                    parallel: config == "u65-512",
                    ..column.spec.clone()
                };
                println!("  {} {config}: {}", column.name, measure(&spec, figure));
            }
        }
    }
}
