//! Differential fuzzing: random command streams run on the golden model and
//! the RTL, which must agree on how the run ends (completed, refused before
//! running, or stopped on an error), STATUS, QREAD, IRQ, every region's bytes
//! and the shared buffer.
//!
//! A stream is a list of [`Item`]s: every command of the spec's table with
//! random and boundary values, user DMAs of every shape into memory or the
//! shared buffer, waits, IRQs, PMU masks, and faults (reserved bits,
//! parameters out of range, reserved opcodes and formats, garbage words, a
//! cmd1 cut off by the end, a missing NPU_OP_STOP). A disagreement is shrunk
//! to a minimal stream by removing items, printed as a listing `npu-sim asm`
//! accepts, and saved as a job folder `npu-sim run` re-runs.
//!
//! A quarter of the cases also hold one or two kernel operations, each an
//! item: a random convolution, pool or elementwise operation of
//! `conv_jobs`/`elementwise_jobs` (its NPU_SET_* commands, its LUT's user
//! DMAs behind an NPU_OP_KERNEL_WAIT 0, its NPU_OP_*), its feature maps and
//! streams in two regions of its own (4 and 5, 6 and 7); half the time the
//! second reads the first's OFM (`consumer_of`: its IFM settings pointed at
//! it, a random NPU_SET_BLOCKDEP, which both models refuse where it lets a
//! read pass the write it needs, TRM 4.9). The random items
//! around it keep to regions 0-3 and to memory (a user DMA beside an
//! operation that touches its buffers or the shared buffer is UNPREDICTABLE,
//! TRM 4.6.3), but their NPU_SET_* values, waits, IRQs and faults mix with
//! it freely: an operation queued behind a DMA, a setting the item leaves
//! alone, a fault before or after it. The fuzzer aims at the classes the
//! other suites miss (`npu-sim coverage` measures them): its elementwise
//! operations draw the mode and types uniformly over the pairs TRM 4.8.2
//! allows, on the case's configuration, and a tenth of its pools have a
//! kernel beyond 64.

use crate::axi::CompleterConfig;
use crate::conv_jobs::{point_fm, set_blockdep, ConvKind, ConvSpec, FmRole};
use crate::elementwise_jobs::ElementwiseSpec;
use crate::rtl_backend::{job_check_options, RtlBackend};
use anyhow::Result;
use npu_arch::command::{
    encode_word, CmdKind, DmaRegionMode, DmaStrideMode, ElementwiseMode, Opcode, PoolingMode,
    COMMANDS, FORMAT_CMD0, FORMAT_CMD1, FORMAT_MASK, FORMAT_SHIFT, OPCODE_MASK,
};
use npu_arch::config::NpuConfig;
use npu_arch::limits::BLOCKDEP_MAX;
use npu_arch::regs::REGION_COUNT;
use npu_model::check::{check_stream, RefusalKind};
use npu_model::cmdstream::{disassemble_words, Command};
use npu_model::compare::{difference, outcome, summary};
use npu_model::job::{Backend, BackendRun, GoldenBackend, Job, JobError};
use npu_model::job_folder::save_job;
use npu_model::npu::ModelError;
use npu_model::ops::elementwise_types_allowed;
use npu_model::state::OpError;
use npu_model::tensor::{DType, FeatureMap};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// One element of a generated stream: the unit the shrinker removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub words: Vec<u32>,
}

/// A generated job: configuration, stream and regions.
#[derive(Clone, Debug)]
pub struct Case {
    pub config: NpuConfig,
    pub items: Vec<Item>,
    pub regions: BTreeMap<usize, Vec<u8>>,
    /// The memory behind the RTL's ports: ideal or random timing.
    pub axi: [CompleterConfig; 2],
    pub axi_seed: u64,
}

impl Case {
    pub fn words(&self) -> Vec<u32> {
        self.items.iter().flat_map(|i| i.words.clone()).collect()
    }

    pub fn job(&self) -> Job {
        let bytes = self.words().iter().flat_map(|w| w.to_le_bytes()).collect();
        Job::in_memory(
            self.config.clone(),
            bytes,
            self.regions.clone(),
            "differential fuzzing case",
        )
    }

    /// The stream as a listing (`npu-sim asm` input).
    pub fn listing(&self) -> String {
        disassemble_words(&self.words())
    }

    /// Writes the case as a job folder: `job.json`, `cmd.bin`, `cmd.lst` and
    /// one image per region, every region an output.
    pub fn save(&self, dir: &Path) -> Result<()> {
        save_job(
            dir,
            &self.config,
            &self.words(),
            &self.regions,
            "a golden model / RTL disagreement found by npu-sim fuzz",
        )
    }
}

/// Bits of `value` set to `v` in the field `name` of `op`.
fn with_field(op: Opcode, name: &str, value: u64, v: u64) -> u64 {
    op.field(name).set(value, v)
}

/// A command's words for a value of its value space (see `npu_arch::command`).
fn command(op: Opcode, value: u64) -> Item {
    let word = |param: u64| encode_word(op.kind(), op.code(), param as u16);
    Item {
        words: match op.kind() {
            CmdKind::Cmd0 => vec![word(value)],
            CmdKind::Cmd1 => vec![word(value >> 32), value as u32],
        },
    }
}

/// Width of a command's value space.
fn value_bits(op: Opcode) -> u32 {
    match op.kind() {
        CmdKind::Cmd0 => 16,
        CmdKind::Cmd1 => 48,
    }
}

/// The share of cases with kernel operations.
const KERNEL_CASES: f64 = 0.25;
/// The first of the kernel operations' regions (two each, up to two
/// operations); the random items keep below it in such a case.
const KERNEL_REGIONS_START: usize = 4;

/// Makes random cases. Each case draws from its own seed, so one case of a
/// run is re-made from the run's seed and its index.
pub struct Generator {
    rng: StdRng,
    config: NpuConfig,
    regions: BTreeMap<usize, Vec<u8>>,
    /// The DMA values the stream has set so far.
    state: BTreeMap<Opcode, u64>,
    /// This stream has faults injected (two in five do); the others are
    /// well-formed, so they run to their end.
    faulty: bool,
    /// Kernel operations still to place (cases with them: one or two).
    kernels_left: usize,
    /// Regions of kernel operations made so far.
    kernels_made: usize,
    /// The last kernel operation's OFM, for the next one to read.
    last_ofm: Option<Ofm>,
    /// The random items' regions are below this: the kernel operations'
    /// are above it.
    random_regions: usize,
}

impl Generator {
    /// The probability of a fault that a faulty stream has with probability `p`.
    fn fault(&self, p: f64) -> f64 {
        if self.faulty {
            p
        } else {
            0.0
        }
    }
}

impl Generator {
    pub fn case(seed: u64, index: u64) -> Case {
        let mut rng = StdRng::seed_from_u64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let config = if rng.gen_bool(0.5) {
            NpuConfig::u65_256()
        } else {
            NpuConfig::u65_512()
        };
        let kernels_left = if rng.gen_bool(KERNEL_CASES) {
            rng.gen_range(1..=2)
        } else {
            0
        };
        let random_regions = if kernels_left > 0 {
            KERNEL_REGIONS_START
        } else {
            REGION_COUNT
        };
        let mut regions = BTreeMap::new();
        for _ in 0..rng.gen_range(1..=4) {
            let size = if rng.gen_bool(0.7) {
                rng.gen_range(1..=64) * 16
            } else {
                rng.gen_range(1..=3000)
            };
            let bytes = (0..size).map(|_| rng.gen()).collect();
            regions.insert(rng.gen_range(0..random_regions), bytes);
        }
        let timed = rng.gen_bool(0.5);
        let mut axi = || {
            if timed {
                CompleterConfig::random(&mut rng)
            } else {
                CompleterConfig::ideal()
            }
        };
        let axi = [axi(), axi()];
        let axi_seed = rng.gen();
        let faulty = rng.gen_bool(0.4);
        let mut g = Generator {
            rng,
            config,
            regions,
            state: BTreeMap::new(),
            faulty,
            kernels_left,
            kernels_made: 0,
            last_ofm: None,
            random_regions,
        };
        let items = g.stream();
        Case {
            config: g.config,
            items,
            regions: g.regions,
            axi,
            axi_seed,
        }
    }

    fn stream(&mut self) -> Vec<Item> {
        let mut items = Vec::new();
        for _ in 0..self.rng.gen_range(0..24) {
            let roll = self.rng.gen_range(0..100);
            match roll {
                _ if self.kernels_left > 0 && self.rng.gen_bool(0.15) => {
                    items.push(self.kernel_operation())
                }
                0..=34 => items.extend(self.dma()),
                35..=44 => items.push(self.op_with_range(Opcode::NpuOpDmaWait, 1)),
                45..=49 => items.push(self.op_with_range(Opcode::NpuOpKernelWait, 3)),
                50..=53 => items.push(self.op_with_range(Opcode::NpuOpPmuMask, 1)),
                54..=57 => items.push(command(Opcode::NpuOpIrq, self.rng.gen::<u16>().into())),
                58..=96 => items.push(self.setting()),
                _ if self.faulty => items.push(self.garbage()),
                _ => items.push(self.setting()),
            }
        }
        while self.kernels_left > 0 {
            let at = self.rng.gen_range(0..=items.len());
            let item = self.kernel_operation();
            items.insert(at, item);
        }
        let cut_off = self.fault(0.05);
        match self.rng.gen_range(0..100) {
            _ if self.rng.gen_bool(cut_off) => {
                // A cmd1 whose payload the stream does not hold.
                let op = self.pick_setting(CmdKind::Cmd1);
                items.push(Item {
                    words: vec![encode_word(CmdKind::Cmd1, op.code(), self.rng.gen())],
                });
            }
            0..=89 => {
                items.push(command(Opcode::NpuOpStop, self.rng.gen::<u16>().into()));
                if self.rng.gen_bool(0.2) {
                    // Never decoded: the NPU stops first.
                    items.push(self.garbage());
                }
            }
            // No NPU_OP_STOP (and at least one word: an empty stream is no job).
            _ => {
                if items.is_empty() {
                    items.push(self.setting());
                }
            }
        }
        items
    }

    /// An NPU_OP_* whose parameter is 0..=max, or now and then beyond.
    fn op_with_range(&mut self, op: Opcode, max: u16) -> Item {
        let param = if !self.rng.gen_bool(self.fault(0.1)) {
            self.rng.gen_range(0..=max)
        } else {
            self.rng.gen_range(max + 1..=u16::MAX)
        };
        command(op, param.into())
    }

    /// A random NPU_SET_* of `kind`; the DMA's only in a faulty stream (a
    /// random length or offset mostly runs outside the regions).
    fn pick_setting(&mut self, kind: CmdKind) -> Opcode {
        loop {
            let c = &COMMANDS[self.rng.gen_range(0..COMMANDS.len())];
            let dma = c.name.starts_with("NPU_SET_DMA0_");
            if c.kind == kind && c.name.starts_with("NPU_SET_") && (self.faulty || !dma) {
                return c.op;
            }
        }
    }

    /// Any NPU_SET_* with a random, boundary or malformed value.
    fn setting(&mut self) -> Item {
        let kind = if self.rng.gen_bool(0.5) {
            CmdKind::Cmd0
        } else {
            CmdKind::Cmd1
        };
        let op = self.pick_setting(kind);
        let mask = op.field_mask();
        let all = (1u64 << value_bits(op)) - 1;
        let reserved = self.rng.gen_bool(self.fault(0.1));
        let value = match self.rng.gen_range(0..10) {
            // A reserved bit, where the command has one.
            _ if reserved && mask != all => {
                let reserved = all & !mask;
                let bit = loop {
                    let b = self.rng.gen_range(0..value_bits(op));
                    if reserved >> b & 1 == 1 {
                        break b;
                    }
                };
                (self.rng.gen::<u64>() & mask) | 1 << bit
            }
            0 => 0,
            1 => mask,
            _ => self.rng.gen::<u64>() & mask,
        };
        command(op, value)
    }

    /// A word that is no valid command: a reserved format, a reserved opcode,
    /// or random bits.
    fn garbage(&mut self) -> Item {
        let word = loop {
            let w: u32 = match self.rng.gen_range(0..3) {
                0 => {
                    (self.rng.gen::<u32>() & !(FORMAT_MASK << FORMAT_SHIFT))
                        | (self.rng.gen_range(0..=FORMAT_MASK) << FORMAT_SHIFT)
                }
                1 => {
                    let kind = [FORMAT_CMD0, FORMAT_CMD1][self.rng.gen_range(0..2)];
                    (self.rng.gen::<u32>() & !(FORMAT_MASK << FORMAT_SHIFT) & !OPCODE_MASK)
                        | (kind << FORMAT_SHIFT)
                        | self.rng.gen_range(0..=OPCODE_MASK)
                }
                _ => self.rng.gen(),
            };
            let (format, code, _) = npu_arch::command::split_word(w);
            let kind = CmdKind::from_format(format);
            if kind.is_none_or(|k| Opcode::from_code(k, code).is_none()) {
                break w;
            }
        };
        Item { words: vec![word] }
    }

    /// A region index: mostly one the job defines, sometimes not.
    fn region(&mut self) -> usize {
        if !self.rng.gen_bool(self.fault(0.05)) {
            let keys: Vec<usize> = self
                .regions
                .keys()
                .copied()
                .filter(|&k| k < self.random_regions)
                .collect();
            keys[self.rng.gen_range(0..keys.len())]
        } else {
            self.rng.gen_range(0..self.random_regions)
        }
    }

    /// A random kernel operation (see the module docs) as one item, its
    /// data in two regions of its own.
    fn kernel_operation(&mut self) -> Item {
        let base = KERNEL_REGIONS_START + 2 * self.kernels_made;
        self.kernels_made += 1;
        self.kernels_left -= 1;
        let two_cores = self.config.cores == 2;
        let mut rng = StdRng::seed_from_u64(self.rng.gen());
        // Half the time the second operation reads the first's OFM.
        let consumer = match self.last_ofm.take() {
            Some(producer) if rng.gen_bool(0.5) => consumer_of(&producer, base, &mut rng),
            _ => None,
        };
        let (commands, regions, ofm): MadeKernel = match consumer {
            Some(made) => made,
            None => loop {
                let kind = rng.gen_range(0..4);
                if kind == 3 {
                    // Its LUTs and parallel mode are for the case's configuration.
                    let (mode, ifm_type, ofm_type) = elementwise_class(&mut rng);
                    let spec = ElementwiseSpec {
                        regions: [base, base, base + 1],
                        ..ElementwiseSpec::random_of(
                            &mut rng,
                            mode,
                            ifm_type,
                            ofm_type,
                            Some(two_cores),
                        )
                    };
                    let built = spec.build(&mut rng);
                    let ofm = (built.ofm, spec.ofm, spec.ofm_type);
                    break (built.commands, built.job.regions, ofm);
                }
                let spec = match kind {
                    0 if two_cores => ConvSpec::random_parallel(&mut rng),
                    0 | 1 => ConvSpec::random(&mut rng),
                    _ if rng.gen_bool(0.1) => long_kernel_pool(&mut rng),
                    _ => ConvSpec::random_pool(&mut rng),
                };
                let spec = ConvSpec {
                    regions: [base, base, base + 1, base + 1],
                    ..spec
                };
                if let Ok(built) = spec.build(&mut rng) {
                    let ofm = (built.ofm_map, built.spec.ofm, built.spec.ofm_type);
                    break (built.commands, built.job.regions, ofm);
                }
            },
        };
        self.last_ofm = Some(ofm);
        self.regions.extend(regions);
        // The random items' view of the registers no longer holds for what
        // the operation set (its LUT's DMA descriptor among them).
        for c in &commands {
            self.state.remove(&c.op);
        }
        let mut commands = commands;
        if commands.last().map(|c| c.op) == Some(Opcode::NpuOpStop) {
            commands.pop();
        }
        // A LUT's user DMAs must not write the shared buffer under an
        // operation still running.
        if commands.iter().any(|c| c.op == Opcode::NpuOpDmaStart) {
            commands.insert(0, Command::cmd0(Opcode::NpuOpKernelWait, 0));
        }
        Item {
            words: npu_model::cmdstream::encode_words(&commands),
        }
    }

    /// A user DMA: its NPU_SET_DMA0_* values and NPU_OP_DMA_START, sized to
    /// fit its regions. Mostly in range and well-formed; now and then not.
    fn dma(&mut self) -> Vec<Item> {
        let bad_stride = self.fault(0.03);
        let stride = |rng: &mut StdRng| {
            if !rng.gen_bool(bad_stride) {
                rng.gen_range(0..3)
            } else {
                3
            }
        };
        let (src_stride, dst_stride) = (stride(&mut self.rng), stride(&mut self.rng));
        // Not into the shared buffer beside kernel operations, whose
        // working buffers and LUTs are there.
        let internal = self.kernels_made + self.kernels_left == 0 && self.rng.gen_bool(0.2);
        let src_region = self.region();
        // Mostly another region: in one region the two sides often overlap,
        // which the runner refuses (TRM 4.6.3).
        let mut dst_region = self.region();
        for _ in 0..3 {
            if dst_region != src_region {
                break;
            }
            dst_region = self.region();
        }
        let shram = self.config.shram_kib as usize * 1024 / self.config.cores.max(1) as usize;
        let src_size = self.regions.get(&src_region).map_or(0, Vec::len) as u64;
        let dst_size = if internal {
            shram
        } else {
            self.regions.get(&dst_region).map_or(0, Vec::len)
        } as u64;
        let (out_of_range, bad_mask) = (self.fault(0.03), self.fault(0.1));
        let (internal_src, bad_start) = (self.fault(0.03), self.fault(0.03));
        let rng = &mut self.rng;
        let ndim = |m: u64| {
            DmaStrideMode::from_bits(m as u32).map_or(1, |m| match m {
                DmaStrideMode::D1 => 1,
                DmaStrideMode::D2 => 2,
                DmaStrideMode::D3 => 3,
            })
        };
        let dims = ndim(src_stride).max(ndim(dst_stride));
        // Shapes drawn until both sides fit their regions (a few tries).
        let mut shape = [0u64; 5];
        let mut spans = (0, 0);
        for _ in 0..8 {
            let len = rng.gen_range(0..=200u64);
            let size0 = if dims >= 2 {
                rng.gen_range(0..=4u64)
            } else {
                1
            };
            let size1 = if dims >= 3 {
                rng.gen_range(0..=3u64)
            } else {
                1
            };
            let (skip0, skip1) = (rng.gen_range(0..=48u64), rng.gen_range(0..=64u64));
            // The bytes one side spans: the end of its last row.
            let span = |m: u64| {
                if len * size0 * size1 == 0 {
                    return 0;
                }
                let (row, plane) = match ndim(m) {
                    1 => (len, len * size0),
                    2 => (len + skip0, (len + skip0) * size0),
                    _ => (len + skip0, len * size0 + skip1),
                };
                (size1 - 1) * plane + (size0 - 1) * row + len
            };
            shape = [len, size0, size1, skip0, skip1];
            spans = (span(src_stride), span(dst_stride));
            if spans.0 <= src_size && spans.1 <= dst_size {
                break;
            }
        }
        let [len, size0, size1, skip0, skip1] = shape;
        let offset = |rng: &mut StdRng, size: u64, span: u64| {
            if !rng.gen_bool(out_of_range) {
                rng.gen_range(0..=size.saturating_sub(span))
            } else {
                rng.gen_range(0..=size + 64)
            }
        };
        let src = offset(rng, src_size, spans.0);
        // In the source's region, a few draws for a destination clear of
        // the source's span (overlapping sides are refused, TRM 4.6.3).
        let same_region = !internal && dst_region == src_region;
        let mut dst = offset(rng, dst_size, spans.1);
        for _ in 0..8 {
            if !same_region || dst + spans.1 <= src || src + spans.0 <= dst {
                break;
            }
            dst = offset(rng, dst_size, spans.1);
        }
        let dst_value = if internal {
            match rng.gen_range(0..2) {
                _ if !rng.gen_bool(bad_mask) => rng.gen_range(1..=3),
                0 => 0,
                _ => rng.gen_range(4..256),
            }
        } else {
            dst_region as u64
        };
        let src_region_value = {
            let op = Opcode::NpuSetDma0SrcRegion;
            let v = with_field(op, "region", 0, src_region as u64);
            let v = with_field(op, "region_mode", v, u64::from(rng.gen_bool(internal_src)));
            with_field(op, "stride_mode", v, src_stride)
        };
        let dst_region_value = {
            let op = Opcode::NpuSetDma0DstRegion;
            let v = with_field(op, "region", 0, dst_value);
            let mode = if internal {
                DmaRegionMode::Internal
            } else {
                DmaRegionMode::External
            };
            let v = with_field(op, "region_mode", v, mode.bits().into());
            with_field(op, "stride_mode", v, dst_stride)
        };
        let settings = [
            (Opcode::NpuSetDma0SrcRegion, src_region_value),
            (Opcode::NpuSetDma0DstRegion, dst_region_value),
            (Opcode::NpuSetDma0Src, src),
            (Opcode::NpuSetDma0Dst, dst),
            (Opcode::NpuSetDma0Len, len),
            (Opcode::NpuSetDma0Size0, size0),
            (Opcode::NpuSetDma0Size1, size1),
            (Opcode::NpuSetDma0Skip0, skip0),
            (Opcode::NpuSetDma0Skip1, skip1),
        ];
        let mut items = Vec::new();
        for (op, value) in settings {
            // As Vela, skip a value the stream already set; now and then
            // skip a changed one too, so a stale value a random item set is
            // used (never a kernel operation's: its LUT DMA writes the
            // shared buffer, UNPREDICTABLE beside the operation).
            let stale = self.rng.gen_bool(0.03) && self.state.contains_key(&op);
            if self.state.get(&op) != Some(&value) && !stale {
                self.state.insert(op, value);
                items.push(command(op, value));
            }
        }
        let rng = &mut self.rng;
        let start = if !rng.gen_bool(bad_start) {
            0
        } else {
            rng.gen_range(1..=u16::MAX)
        };
        items.push(command(Opcode::NpuOpDmaStart, start.into()));
        // As Vela does before anything reads what the DMA writes.
        if rng.gen_bool(0.6) {
            items.push(command(Opcode::NpuOpDmaWait, 0));
        }
        items
    }
}

/// An elementwise mode with its IFM and OFM types, drawn uniformly over
/// the pairs TRM 4.8.2 table 4-124 allows, so that each pair is as likely
/// on each configuration (the datapath suite draws the mode first, and
/// u65-512 a fifth of the time; `npu-sim coverage` measures the pairs).
fn elementwise_class(rng: &mut StdRng) -> (ElementwiseMode, DType, DType) {
    let types = [DType::U8, DType::I8, DType::I16, DType::I32];
    let classes: Vec<_> = ElementwiseMode::ALL
        .iter()
        .flat_map(|&m| types.iter().flat_map(move |&i| types.map(|o| (m, i, o))))
        .filter(|&(m, i, o)| elementwise_types_allowed(m, i, o))
        .collect();
    classes[rng.gen_range(0..classes.len())]
}

/// A max or average pool whose kernel is beyond 64 on one axis (TRM 4.8.2
/// table 4-122: up to 256), which the random pools never draw.
fn long_kernel_pool(rng: &mut StdRng) -> ConvSpec {
    let mode = [PoolingMode::Max, PoolingMode::Average][rng.gen_range(0..2)];
    let (long, short) = (rng.gen_range(65..=100), rng.gen_range(1..=3));
    let kernel = if rng.gen_bool(0.5) {
        [long, short]
    } else {
        [short, long]
    };
    let dtype = [DType::U8, DType::I8, DType::I16][rng.gen_range(0..3)];
    let depth = rng.gen_range(1..=16);
    let ofm = [rng.gen_range(1..=2), rng.gen_range(1..=4), depth];
    ConvSpec::new(ConvKind::Pool(mode), dtype, ofm, depth, kernel)
}

/// How a case ended on the two models.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Both ran it and agree.
    Agree(Agreement),
    /// The job runner refused it before running (on both models alike), for
    /// this kind of reason.
    Refused(&'static str),
    Disagree(String),
}

/// A case both models ran alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreement {
    /// How the runs ended (see [`outcome`]).
    pub how: &'static str,
    pub kernel_ops: usize,
    /// The stream checker's verdict on the stream: `None` where it passes,
    /// else the rule it breaks (the bounds watcher then held the RTL to
    /// the operations before the refused command).
    pub refused_by_checker: Option<RefusalKind>,
    /// Bytes the RTL read and wrote, every one inside the checker's ranges.
    pub watched_bytes: u64,
}

/// Runs a case on both models and compares; the RTL runs under the bounds
/// watcher.
pub fn judge(case: &Case) -> Verdict {
    let job = case.job();
    if let Err(JobError::Refused(ModelError::Command { error, .. })) = job.check() {
        return Verdict::Refused(match error {
            OpError::OutOfRange { .. } => "an access outside the job's regions",
            OpError::ShramOutOfRange { .. } => "a write past the shared buffer",
            _ => "UNPREDICTABLE (TRM 4.6.3)",
        });
    }
    let golden = run_caught(&mut GoldenBackend::default(), &job);
    let mut rtl = RtlBackend {
        axi_configs: case.axi.clone(),
        axi_seed: Some(case.axi_seed),
        ..RtlBackend::default()
    };
    let rtl_run = run_caught(&mut rtl, &job);
    match (golden, rtl_run) {
        (Ok(g), Ok(r)) => match difference(&g, &r) {
            Some(d) => Verdict::Disagree(d),
            None => Verdict::Agree(Agreement {
                how: outcome(&g),
                kernel_ops: g.ops.values().sum(),
                refused_by_checker: check_stream(&job.command_stream, &job_check_options(&job))
                    .err()
                    .map(|r| r.kind),
                watched_bytes: rtl.bounds.as_ref().map_or(0, |b| b.touched()),
            }),
        },
        (g, r) => Verdict::Disagree(format!(
            "golden: {}; rtl: {}",
            g.map_or_else(|e| e, |r| summary(&r)),
            r.map_or_else(|e| e, |r| summary(&r))
        )),
    }
}

fn run_caught(backend: &mut dyn Backend, job: &Job) -> Result<BackendRun, String> {
    let name = backend.name().to_string();
    match catch_unwind(AssertUnwindSafe(|| backend.run(job, &mut |_, _| {}))) {
        Ok(Ok(run)) => Ok(run),
        Ok(Err(e)) => Err(format!("error: {e:#}")),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("{name} panicked: {message}"))
        }
    }
}

/// Removes items while the case still disagrees.
pub fn shrink(case: &Case) -> Case {
    shrink_while(case, &mut |c| matches!(judge(c), Verdict::Disagree(_)))
}

/// Removes items while `fails` holds (delta debugging: chunks of halving
/// size, then single items); at least one item stays.
pub fn shrink_while(case: &Case, fails: &mut dyn FnMut(&Case) -> bool) -> Case {
    let mut best = case.clone();
    let mut chunk = best.items.len().div_ceil(2).max(1);
    loop {
        let mut removed = false;
        let mut at = 0;
        while at < best.items.len() && best.items.len() > 1 {
            let mut candidate = best.clone();
            // Never every item: an empty stream is no job.
            let end = (at + chunk).min(at + candidate.items.len() - 1);
            candidate.items.drain(at..end.min(candidate.items.len()));
            if fails(&candidate) {
                best = candidate;
                removed = true;
            } else {
                at += chunk;
            }
        }
        if chunk == 1 && !removed {
            return best;
        }
        chunk = (chunk / 2).max(1);
    }
}

/// A feature map an operation wrote: where it is, its shape and type.
type Ofm = (FeatureMap, [usize; 3], DType);

/// A kernel operation made for a stream: its commands, its regions and its
/// OFM.
type MadeKernel = (Vec<Command>, BTreeMap<usize, Vec<u8>>, Ofm);

/// A convolution, depthwise convolution or max or average pool (1x1, or
/// 3x3 with one element of padding, so its IFM is the shape of its OFM)
/// reading `producer` as its IFM, with a random NPU_SET_BLOCKDEP: one that
/// lets a read pass the write it needs makes the stream UNPREDICTABLE, which
/// both models refuse (TRM 4.9); its data in regions `base` and `base + 1`.
/// None for an int32 OFM, or a shape the generator cannot lay out.
fn consumer_of((map, [h, w, c], dtype): &Ofm, base: usize, rng: &mut StdRng) -> Option<MadeKernel> {
    if dtype.bits == 32 {
        return None;
    }
    let kind = [
        ConvKind::Conv,
        ConvKind::Depthwise,
        ConvKind::Pool(PoolingMode::Max),
        ConvKind::Pool(PoolingMode::Average),
    ][rng.gen_range(0..4)];
    let k = if rng.gen_bool(0.5) { 1 } else { 3 };
    let depth = if kind == ConvKind::Conv {
        rng.gen_range(1..=32)
    } else {
        *c
    };
    let spec = ConvSpec {
        pad: [k / 2; 4],
        regions: [base, base, base + 1, base + 1],
        ..ConvSpec::new(kind, *dtype, [*h, *w, depth], *c, [k, k])
    };
    let built = spec.build(rng).ok()?;
    let mut commands = built.commands;
    point_fm(&mut commands, map, FmRole::Ifm);
    set_blockdep(&mut commands, rng.gen_range(0..=BLOCKDEP_MAX as u16));
    let ofm = (built.ofm_map, built.spec.ofm, built.spec.ofm_type);
    Some((commands, built.job.regions, ofm))
}
