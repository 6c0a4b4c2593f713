//! Convolution and pooling throughput on the RTL against TRM 4.8.3 tables
//! 4-126 and 4-127 (u65-256) and 4-128 and 4-129 (u65-512, parallel mode): one
//! shape per row meeting the row's conditions, with the OFM block, IFM_IB_END
//! and AB_START Vela 5.2.0 chooses (`npu_tb::vela_blocks`). Per row: MACs,
//! the job's and the operation's cycles, MACs per cycle against the table,
//! the busiest AXI channel, and the steady state from a run with four times
//! the OFM positions. Then activation functions against table 4-130, and each
//! u65-256 8-bit row beside a user DMA (Vela's weight prefetch). The RTL's
//! results are compared with the golden model's; a row the RTL stops on says
//! so. `cargo bench --bench conv -- 4-126 beside` runs some of the tables;
//! every column: `docs/performance.md`.

use npu_arch::command::{ActivationFunction, Opcode, PoolingMode, WeightOrder};
use npu_model::cmdstream::{encode, Command};
use npu_model::compare::{difference, outcome};
use npu_model::job::{Backend, BackendRun, Job};
use npu_model::tensor::DType;
use npu_tb::bench_filter::wanted;
use npu_tb::conv_jobs::{golden_run, ConvKind, ConvSpec};
use npu_tb::rtl_backend::RtlBackend;
use rand::rngs::StdRng;
use rand::SeedableRng;

/// One row of table 4-126 or 4-127.
struct Row {
    name: String,
    /// The OFM block set to Vela's choice.
    spec: ConvSpec,
    /// MACs per cycle; `None` for weight-bound rows ("WB").
    table: Option<f64>,
}

/// The rows of one table: `bits`-bit activations on `cores` cores (u65-256
/// or u65-512 in parallel mode), table figures for CONV and depthwise, the
/// IFM depth of a depth-first row.
fn table(bits: u32, cores: usize) -> Vec<Row> {
    let t = if bits == 8 { DType::I8 } else { DType::I16 };
    let per_core = cores as f64;
    let (conv, depthwise) = if bits == 8 {
        (256.0 * per_core, 32.0 * per_core)
    } else {
        (128.0 * per_core, 16.0 * per_core)
    };
    // Kernel-first rows: kh*kw = 4k for 8 bits, 2k for 16 bits.
    let kernel_first = |ofm, kernel| ConvSpec {
        weight_order: WeightOrder::PartKernelFirst,
        ..ConvSpec::new(ConvKind::Conv, t, ofm, 16, kernel)
    };
    let row = |name: &str, spec: ConvSpec, table| Row {
        name: name.into(),
        spec: vela_layout(ConvSpec {
            parallel: cores == 2,
            ..spec
        }),
        table,
    };
    let conv1d_kf = if bits == 8 { 4 } else { 2 };
    vec![
        row(
            "CONV2D depth-first 3x3, OFM 16x16x64, IFM depth 64",
            ConvSpec::new(ConvKind::Conv, t, [16, 16, 64], 64, [3, 3]),
            Some(conv),
        ),
        row(
            "CONV2D kernel-first 2x2, OFM 16x16x64, IFM depth 16",
            kernel_first([16, 16, 64], [2, 2]),
            Some(conv),
        ),
        row(
            "CONV1D depth-first 1x3, OFM 1x64x64, IFM depth 64",
            ConvSpec::new(ConvKind::Conv, t, [1, 64, 64], 64, [1, 3]),
            Some(conv),
        ),
        row(
            &format!("CONV1D kernel-first 1x{conv1d_kf}, OFM 1x64x64, IFM depth 16"),
            kernel_first([1, 64, 64], [1, conv1d_kf]),
            Some(conv),
        ),
        row(
            "Fully connected, OFM 1x1x128, IFM depth 256",
            ConvSpec::new(ConvKind::Conv, t, [1, 1, 128], 256, [1, 1]),
            None,
        ),
        row(
            "DepthwiseConv2D 4x4, OFM 16x16x64",
            ConvSpec::new(ConvKind::Depthwise, t, [16, 16, 64], 64, [4, 4]),
            Some(depthwise),
        ),
        row(
            "DepthwiseConv1D 1x4, OFM 1x64x64",
            ConvSpec::new(ConvKind::Depthwise, t, [1, 64, 64], 64, [1, 4]),
            Some(depthwise),
        ),
        // Pools against the depthwise rate: no row of their own in the
        // tables, the same walk without weights (ops: kernel elements per
        // OFM value).
        row(
            "MaxPool 4x4 (vs depthwise), OFM 16x16x64",
            ConvSpec::new(
                ConvKind::Pool(PoolingMode::Max),
                t,
                [16, 16, 64],
                64,
                [4, 4],
            ),
            Some(depthwise),
        ),
        row(
            "AvgPool 3x3 (vs depthwise), OFM 16x16x64",
            ConvSpec::new(
                ConvKind::Pool(PoolingMode::Average),
                t,
                [16, 16, 64],
                64,
                [3, 3],
            ),
            Some(depthwise),
        ),
    ]
}

/// Cycles of `job` on the RTL and the wall time they took.
fn rtl_cycles(job: &Job) -> Result<(BackendRun, f64), String> {
    RtlBackend::default()
        .timed_run(job)
        .map_err(|e| format!("{e:#}").lines().next().unwrap_or("").to_string())
}

/// The AXI channels that move a beat a cycle at most: each port's reads and
/// M0's writes (M1 carries none), named as `RtlBackend` counts them.
const AXI_CHANNELS: [(&str, &str); 3] = [
    ("M0 reads", "axi_m0_read_beats"),
    ("M1 reads", "axi_m1_read_beats"),
    ("M0 writes", "axi_m0_write_beats"),
];

/// What one operation took on the RTL: the job's run minus that of the
/// same stream without the kernel operation.
#[derive(Clone, Copy)]
struct Measured {
    macs: u64,
    cycles: u64,
    /// Beats of each of `AXI_CHANNELS`.
    beats: [u64; 3],
}

impl Measured {
    /// The channel with the most beats and the share of the cycles it is
    /// busy.
    fn busiest(&self) -> String {
        let (i, beats) = (0..3)
            .map(|i| (i, self.beats[i]))
            .max_by_key(|&(_, b)| b)
            .expect("three channels");
        format!(
            "busiest AXI channel {} ({beats} beats, {:.0} % of the cycles)",
            AXI_CHANNELS[i].0,
            100.0 * beats as f64 / self.cycles as f64
        )
    }

    /// The larger run's extra MACs, cycles and beats over `self`'s.
    fn extra(&self, larger: &Measured) -> Measured {
        Measured {
            macs: larger.macs - self.macs,
            cycles: larger.cycles.saturating_sub(self.cycles).max(1),
            beats: std::array::from_fn(|i| larger.beats[i].saturating_sub(self.beats[i])),
        }
    }
}

/// The row's measurement as a line, with its numbers when the RTL ran it.
fn measure(row: &Row) -> (String, Option<Measured>) {
    let cj = match row.spec.build(&mut StdRng::seed_from_u64(1)) {
        Ok(cj) => cj,
        Err(e) => return (format!("the shape is invalid: {e}"), None),
    };
    let golden = match golden_run(&cj.job) {
        Ok(run) => run,
        Err(e) => return (format!("the golden model does not run it: {e}"), None),
    };
    let block = cj.spec.block.expect("resolved");
    let shape = format!(
        "block {}x{}x{}, IFM_IB_END {}",
        block[0],
        block[1],
        block[2],
        cj.spec.ib_end.expect("resolved")
    );
    let (run, seconds) = match rtl_cycles(&cj.job) {
        Ok(r) => r,
        Err(e) => return (format!("{shape}: not run on the RTL: {e}"), None),
    };
    if !run.completed() {
        return (
            format!(
                "{shape}: the RTL stopped on {} at QREAD {:#x}",
                outcome(&run),
                run.qread
            ),
            None,
        );
    }
    let cycles = run.cycles.unwrap_or(0);
    let without = rtl_cycles(&cj.without_kernel_op()).ok().map(|(r, _)| r);
    let counter = |r: &BackendRun, name: &str| r.counters.get(name).copied().unwrap_or(0);
    let measured = Measured {
        // A pool's are the kernel elements per OFM value, as Vela counts them.
        macs: golden.macs,
        cycles: cycles
            .saturating_sub(without.as_ref().and_then(|r| r.cycles).unwrap_or(0))
            .max(1),
        beats: AXI_CHANNELS.map(|(_, name)| {
            counter(&run, name).saturating_sub(without.as_ref().map_or(0, |r| counter(r, name)))
        }),
    };
    let op_cycles = measured.cycles;
    let macs = measured.macs;
    let rate = macs as f64 / op_cycles as f64;
    let [oh, ow, oc] = cj.spec.ofm;
    let values = (oh * ow * oc) as f64 / op_cycles as f64;
    let versus = match row.table {
        _ if cj.spec.activation != ActivationFunction::None => {
            let table = if cj.spec.parallel { 2.0 } else { 1.0 };
            format!(
                "{values:.2} OFM values/cycle, table 4-130: {table}, ratio {:.2}",
                values / table
            )
        }
        Some(t) => format!("table {t:>4.0}, ratio {:.2}", rate / t),
        None => "table WB".into(),
    };
    let mac_beats = cj
        .spec
        .conv_shape(block)
        .beats(0)
        .iter()
        .filter(|b| !b.skip || b.slice_end)
        .count();
    let agree = match difference(&golden, &run) {
        None => "agrees with the golden model".to_string(),
        Some(d) => format!("DIFFERS from the golden model: {d}"),
    };
    let line = format!(
        "{shape}: {} MACs, job {cycles} cycles, operation {op_cycles} cycles, {rate:.1} MACs/cycle, {versus}; \
         MAC beats in {:.0} % of the operation's cycles; {}; {:.0} simulated cycles/s; {agree}",
        macs,
        100.0 * mac_beats as f64 / op_cycles as f64,
        measured.busiest(),
        cycles as f64 / seconds
    );
    (line, Some(measured))
}

/// The row with four times the OFM positions.
fn larger(row: &Row) -> Row {
    let mut spec = row.spec.clone();
    let [h, w, d] = spec.ofm;
    spec.ofm = if h == 1 {
        [1, 4 * w, d]
    } else {
        [2 * h, 2 * w, d]
    };
    let [h, w, d] = spec.ofm;
    Row {
        name: format!("  the same with OFM {h}x{w}x{d}"),
        spec,
        table: row.table,
    }
}

/// 1x1 convolutions of 8-bit activations with an activation function, on
/// `cores` cores (u65-512 in parallel mode: 2 a cycle in table 4-130).
/// `spec` with the OFM block, IFM_IB_END and AB_START Vela chooses for it.
fn vela_layout(mut spec: ConvSpec) -> ConvSpec {
    assert!(
        spec.take_vela_layout(),
        "Vela finds no block for {}",
        spec.describe()
    );
    spec
}

fn activation_rows(cores: usize) -> Vec<Row> {
    [
        ("tanh", ActivationFunction::Tanh),
        ("sigmoid", ActivationFunction::Sigmoid),
        ("LUT 0", ActivationFunction::Lut0),
    ]
    .into_iter()
    .map(|(name, activation)| Row {
        name: format!("CONV2D 1x1 + {name}, OFM 16x16x64, IFM depth 16"),
        spec: vela_layout(ConvSpec {
            activation,
            parallel: cores == 2,
            ..ConvSpec::new(ConvKind::Conv, DType::I8, [16, 16, 64], 16, [1, 1])
        }),
        table: Some(256.0 * cores as f64),
    })
    .collect()
}

fn main() {
    for (bits, name, cores) in [
        (8, "Table 4-126", 1),
        (16, "Table 4-127", 1),
        (8, "Table 4-128", 2),
        (16, "Table 4-129", 2),
    ] {
        if !wanted(name) {
            continue;
        }
        let config = if cores == 2 {
            "u65-512, parallel mode"
        } else {
            "u65-256"
        };
        println!("{name}: convolution performance, {bits}-bit activations, {config}");
        for row in table(bits, cores) {
            let (line, small) = measure(&row);
            println!("  {}: {line}", row.name);
            let Some(table) = row.table else { continue };
            let larger = larger(&row);
            let (line, large) = measure(&larger);
            println!("  {}: {line}", larger.name);
            if let (Some(small), Some(large)) = (small, large) {
                let steady = small.extra(&large);
                let rate = steady.macs as f64 / steady.cycles as f64;
                println!(
                    "    steady state (the larger OFM's extra {} MACs in its extra {} cycles): \
                     {rate:.1} MACs/cycle, ratio {:.2}; {}",
                    steady.macs,
                    steady.cycles,
                    rate / table,
                    steady.busiest()
                );
            }
        }
    }
    if wanted("Table 4-130") {
        for (cores, config) in [(1, "u65-256"), (2, "u65-512, parallel mode")] {
            println!(
                "Table 4-130: LUT, tanh and sigmoid after a convolution, 8-bit activations, {config}"
            );
            for row in activation_rows(cores) {
                println!("  {}: {}", row.name, measure(&row).0);
            }
        }
    }
    if wanted("beside a user DMA") {
        println!(
            "Operations beside a user DMA (Vela's weight prefetch: {PREFETCH_BYTES} bytes from M1 \
             to M0, started right after the operation), u65-256, 8-bit activations"
        );
        for row in table(8, 1).into_iter().filter(|r| r.table.is_some()) {
            println!("  {}: {}", row.name, beside_a_dma(&row));
        }
    }
}

/// The user DMA of [`beside_a_dma`].
const PREFETCH_BYTES: usize = 65536;

/// The row's operation cycles alone and with a user DMA of
/// [`PREFETCH_BYTES`] issued right after it (from region 0, read on M1,
/// into region 2, written on M0 with the OFM: the driver's REGIONCFG), both
/// from the per-layer report: the operation shares the AXI ports with the
/// DMA and should keep its pace.
fn beside_a_dma(row: &Row) -> String {
    let cj = match row.spec.build(&mut StdRng::seed_from_u64(1)) {
        Ok(cj) => cj,
        Err(e) => return format!("the shape is invalid: {e}"),
    };
    let mut commands = cj.commands.clone();
    let stop = commands.pop().expect("a command stream");
    let offset = |cmds: &[Command]| encode(cmds).len();
    let kernel_offset = offset(&commands) - 4;
    let mut regions = cj.job.regions.clone();
    regions
        .entry(0)
        .or_default()
        .extend(vec![0x5a; PREFETCH_BYTES]);
    let source = regions[&0].len() - PREFETCH_BYTES;
    regions.insert(2, vec![0; PREFETCH_BYTES]);
    commands.extend([
        Command::cmd0(Opcode::NpuSetDma0SrcRegion, 0),
        Command::cmd1(Opcode::NpuSetDma0Src, 0, source as u32),
        Command::cmd0(Opcode::NpuSetDma0DstRegion, 2),
        Command::cmd1(Opcode::NpuSetDma0Dst, 0, 0),
        Command::cmd1(Opcode::NpuSetDma0Len, 0, PREFETCH_BYTES as u32),
    ]);
    let dma_offset = offset(&commands);
    commands.extend([Command::cmd0(Opcode::NpuOpDmaStart, 0), stop]);
    let with_dma = Job::in_memory(
        cj.job.config.clone(),
        encode(&commands),
        regions,
        "an operation beside a user DMA",
    );
    let cycles = |job: &Job, offset: usize| -> Result<u64, String> {
        let run = RtlBackend {
            layers: true,
            ..RtlBackend::default()
        }
        .run(job, &mut |_, _| {})
        .map_err(|e| format!("{e:#}"))?;
        run.layers
            .iter()
            .find(|l| l.offset == offset)
            .and_then(|l| l.cycles)
            .ok_or_else(|| format!("no cycles for the command at {offset:#x}"))
    };
    match (
        cycles(&cj.job, kernel_offset),
        cycles(&with_dma, kernel_offset),
        cycles(&with_dma, dma_offset),
    ) {
        (Ok(alone), Ok(beside), Ok(dma)) => format!(
            "operation {alone} cycles alone, {beside} beside the DMA (ratio {:.2}); \
             the DMA {dma} cycles ({:.1} bytes/cycle)",
            alone as f64 / beside as f64,
            PREFETCH_BYTES as f64 / dma as f64
        ),
        (a, b, c) => format!(
            "not measured: {}",
            [a, b, c]
                .into_iter()
                .filter_map(Result::err)
                .collect::<Vec<_>>()
                .join("; ")
        ),
    }
}
