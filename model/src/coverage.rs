//! Functional coverage of the programmers' model, collected as the golden
//! model runs: as each kernel operation, user DMA and end of a run is
//! dispatched, the value classes of its decoded settings (precisions and
//! formats, rounding, activation, kernel, stride, dilation, padding, tiles,
//! broadcast, BLOCKDEP, DMA shapes, STATUS outcome) are counted per
//! configuration. [`POINTS`] defines the classes once, as data: each
//! point's bins and how to classify; each bin of each built-in
//! configuration is a bin of the report. [`collect`] records what runs on
//! this thread; [`Coverage::report`] lists every bin with its hits and the
//! holes, less the [`WAIVERS`].

use crate::ops::{elementwise_types_allowed, ElementwiseInputs, KernelKind, Op, OutStage};
use crate::state::NpuState;
use crate::tensor::{DType, FeatureMap};
use npu_arch::command::{
    broadcast, AccFormat, ActivationClipRange, ActivationFunction, DmaStrideMode, ElementwiseMode,
    IfmRoundMode, IfmScaleMode, KernelDecomposition, Layout, OfmScaleMode, Opcode, ParallelMode,
    PoolingMode, RoundMode, UpscaleMode, WeightOrder,
};
use npu_arch::config::NpuConfig;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A kernel operation as it is dispatched, its rules passed.
pub(crate) struct Kernel<'a> {
    op: &'a Op,
    npu: &'a NpuState,
    /// An elementwise operation's second operand and input scaling.
    inputs: Option<ElementwiseInputs>,
}

/// A user DMA as it is dispatched, its descriptor checked (TRM 4.6.4
/// NPU_OP_DMA_START).
pub(crate) struct Dma {
    pub src: DmaStrideMode,
    pub dst: DmaStrideMode,
    /// The core mask of a destination in the shared buffer.
    pub core_mask: Option<usize>,
    pub rows: u64,
    pub len: u64,
}

/// How a run ended (TRM 4.2.2 STATUS).
#[derive(Clone, Copy)]
pub(crate) enum End {
    Stop,
    /// The end of the stream, without NPU_OP_STOP.
    Drained,
    ParseError,
    BusError,
}

enum Classify {
    Kernel(fn(&Kernel) -> Vec<String>),
    Dma(fn(&Dma) -> Vec<String>),
    End(fn(End) -> Vec<String>),
}

/// A coverage point: a setting (or a cross of settings) and its classes.
pub struct Point {
    pub name: &'static str,
    bins: fn() -> Vec<String>,
    classify: Classify,
}

impl Point {
    /// The classes of this point, in report order.
    pub fn bins(&self) -> Vec<String> {
        (self.bins)()
    }
}

/// A bin the collection is not expected to hit, and why.
pub struct Waiver {
    pub point: &'static str,
    pub bin: &'static str,
    /// `None`: every configuration.
    pub config: Option<&'static str>,
    pub reason: &'static str,
}

/// The bins no run can hit.
pub const WAIVERS: &[Waiver] = &[
    Waiver {
        point: "parallel_mode",
        bin: "DualCoreDepth",
        config: Some("u65-256"),
        reason: "TRM 4.7.5.1: parallel mode is only available for the 512 configuration \
                 (refused with cmd_parse_error)",
    },
    Waiver {
        point: "outcome",
        bin: "bus error",
        config: None,
        reason: "the golden model's bus errors are accesses outside a region, which the job \
                 runner refuses before running (Job::check); the RTL's bus errors are tested \
                 with injected AXI errors (tb/tests/datapath_errors.rs)",
    },
];

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn debug_names<T: fmt::Debug>(all: &[T]) -> Vec<String> {
    all.iter().map(|v| format!("{v:?}")).collect()
}

fn one(v: impl fmt::Display) -> Vec<String> {
    vec![v.to_string()]
}

fn debug(v: impl fmt::Debug) -> Vec<String> {
    vec![format!("{v:?}")]
}

/// The element types of TRM 4.8.2's tables.
const TYPES: [DType; 4] = [DType::U8, DType::I8, DType::I16, DType::I32];

fn type_names() -> Vec<String> {
    TYPES.iter().map(|t| t.to_string()).collect()
}

fn pair(i: DType, o: DType) -> String {
    format!("{i}->{o}")
}

fn operation(kind: KernelKind) -> String {
    match kind {
        KernelKind::Conv => "CONV".into(),
        KernelKind::Depthwise => "DEPTHWISE".into(),
        KernelKind::Pool(m) => format!("POOL {m:?}"),
        KernelKind::Elementwise(m) => format!("ELEMENTWISE {m:?}"),
    }
}

fn operations() -> Vec<String> {
    let mut kinds = vec![KernelKind::Conv, KernelKind::Depthwise];
    kinds.extend(PoolingMode::ALL.iter().map(|&m| KernelKind::Pool(m)));
    kinds.extend(
        ElementwiseMode::ALL
            .iter()
            .map(|&m| KernelKind::Elementwise(m)),
    );
    kinds.into_iter().map(operation).collect()
}

/// The number of tiles (TRM 4.6.5 NPU_SET_*_BASE0-3) a `h` x `w` extent of
/// `map` touches.
fn tiles(map: &FeatureMap, h: usize, w: usize) -> usize {
    let right = w > map.width0;
    1 + right as usize + (h > map.height0) as usize + (right && h > map.height1) as usize
}

fn tile_bins() -> Vec<String> {
    names(&["1", "2", "3", "4"])
}

/// `n` in the first of `ranges` (upper bounds, inclusive) that holds it.
fn range_bin(n: usize, ranges: &[(usize, &'static str)], above: &'static str) -> Vec<String> {
    one(ranges
        .iter()
        .find(|(max, _)| n <= *max)
        .map_or(above, |r| r.1))
}

fn range_names(ranges: &[(usize, &'static str)], above: &'static str) -> Vec<String> {
    ranges
        .iter()
        .map(|r| r.1.to_string())
        .chain(one(above))
        .collect()
}

const CONV_KERNELS: &[(usize, &str)] = &[(1, "1"), (3, "2-3"), (8, "4-8")];
const POOL_KERNELS: &[(usize, &str)] = &[(1, "1"), (3, "2-3"), (8, "4-8"), (64, "9-64")];
const DEPTHS: &[(usize, &str)] = &[(1, "1"), (8, "2-8"), (16, "9-16"), (64, "17-64")];

impl Kernel<'_> {
    fn window(&self) -> bool {
        !matches!(self.op.kind, KernelKind::Elementwise(_))
    }
    fn conv_like(&self) -> bool {
        matches!(self.op.kind, KernelKind::Conv | KernelKind::Depthwise)
    }
    fn pool(&self) -> bool {
        matches!(self.op.kind, KernelKind::Pool(_))
    }
    fn mode(&self) -> Option<ElementwiseMode> {
        match self.op.kind {
            KernelKind::Elementwise(m) => Some(m),
            _ => None,
        }
    }
    fn binary(&self) -> bool {
        self.mode().is_some_and(|m| !m.unary())
    }
    fn add_sub(&self) -> bool {
        matches!(
            self.mode(),
            Some(ElementwiseMode::Add | ElementwiseMode::Sub)
        )
    }
    fn when(&self, hit: bool, bins: impl FnOnce() -> Vec<String>) -> Vec<String> {
        if hit {
            bins()
        } else {
            Vec::new()
        }
    }
    /// The OFM is scaled with OFM_PRECISION's rounding (TRM 4.8.2 tables
    /// 4-120 to 4-125: no scaling for max pools, padded average pools, MIN,
    /// MAX, CLZ and SHL).
    fn scaled(&self) -> bool {
        use ElementwiseMode as E;
        match self.op.kind {
            KernelKind::Pool(PoolingMode::Max) => false,
            KernelKind::Pool(PoolingMode::Average) => !self.op.has_padding(),
            KernelKind::Elementwise(E::Min | E::Max | E::Clz | E::Shl) => false,
            _ => true,
        }
    }
    /// The operation may read per-channel scales (TRM 4.8.2 tables 4-120,
    /// 4-122, 4-125).
    fn channel_scaled(&self) -> bool {
        self.conv_like()
            || match self.op.kind {
                KernelKind::Pool(PoolingMode::Average) => !self.op.has_padding(),
                KernelKind::Pool(PoolingMode::ReduceSum) => true,
                _ => false,
            }
    }
    /// The IFM extent read, before upscaling.
    fn ifm_extent(&self) -> (usize, usize) {
        if !self.window() {
            return (self.op.oh, self.op.ow);
        }
        let (h, w) = self.op.ifm_extent().unwrap_or((1, 1));
        match self.op.upscale {
            UpscaleMode::None => (h, w),
            _ => (h.div_ceil(2), w.div_ceil(2)),
        }
    }
    fn broadcast(&self) -> u16 {
        self.npu.reg(Opcode::NpuSetIfm2Broadcast) as u16
    }
}

/// Every coverage point.
pub const POINTS: &[Point] = &[
    Point {
        name: "operation",
        bins: operations,
        classify: Classify::Kernel(|k| one(operation(k.op.kind))),
    },
    Point {
        name: "ifm_type",
        bins: type_names,
        classify: Classify::Kernel(|k| one(k.op.ifm.dtype)),
    },
    Point {
        name: "ifm_format",
        bins: || debug_names(Layout::ALL),
        classify: Classify::Kernel(|k| debug(k.op.ifm.layout)),
    },
    Point {
        name: "ifm2_type",
        bins: type_names,
        classify: Classify::Kernel(|k| {
            let map = k.inputs.as_ref().and_then(|i| i.ifm2_map.as_ref());
            map.map(|m| m.dtype.to_string()).into_iter().collect()
        }),
    },
    Point {
        name: "ifm2_format",
        bins: || debug_names(Layout::ALL),
        classify: Classify::Kernel(|k| {
            let map = k.inputs.as_ref().and_then(|i| i.ifm2_map.as_ref());
            map.map(|m| format!("{:?}", m.layout)).into_iter().collect()
        }),
    },
    Point {
        name: "ofm_type",
        bins: type_names,
        classify: Classify::Kernel(|k| one(k.op.ofm.dtype)),
    },
    Point {
        name: "ofm_format",
        bins: || debug_names(Layout::ALL),
        classify: Classify::Kernel(|k| debug(k.op.ofm.layout)),
    },
    Point {
        // TRM 4.8.2 tables 4-120, 4-121: {int8, uint8, int16} -> any.
        name: "conv_types",
        bins: || {
            let ifm = [DType::U8, DType::I8, DType::I16];
            ifm.iter()
                .flat_map(|&i| TYPES.iter().map(move |&o| pair(i, o)))
                .collect()
        },
        classify: Classify::Kernel(|k| {
            k.when(k.conv_like(), || one(pair(k.op.ifm.dtype, k.op.ofm.dtype)))
        }),
    },
    Point {
        // TRM 4.8.2 tables 4-122 and 4-125.
        name: "pool_types",
        bins: || {
            let small = [DType::U8, DType::I8, DType::I16];
            let mut bins: Vec<String> = small
                .iter()
                .map(|&t| format!("Max {}", pair(t, t)))
                .collect();
            for i in small {
                bins.extend(small.iter().map(|&o| format!("Average {}", pair(i, o))));
            }
            bins.extend(
                TYPES
                    .iter()
                    .map(|&i| format!("ReduceSum {}", pair(i, DType::I32))),
            );
            bins
        },
        classify: Classify::Kernel(|k| match k.op.kind {
            KernelKind::Pool(m) => one(format!("{m:?} {}", pair(k.op.ifm.dtype, k.op.ofm.dtype))),
            _ => Vec::new(),
        }),
    },
    Point {
        // TRM 4.8.2 table 4-124.
        name: "elementwise_types",
        bins: || {
            let mut bins = Vec::new();
            for &m in ElementwiseMode::ALL {
                for i in TYPES {
                    for o in TYPES {
                        if elementwise_types_allowed(m, i, o) {
                            bins.push(format!("{m:?} {}", pair(i, o)));
                        }
                    }
                }
            }
            bins
        },
        classify: Classify::Kernel(|k| match k.mode() {
            Some(m) => one(format!("{m:?} {}", pair(k.op.ifm.dtype, k.op.ofm.dtype))),
            None => Vec::new(),
        }),
    },
    Point {
        name: "round_mode",
        bins: || debug_names(RoundMode::ALL),
        classify: Classify::Kernel(|k| k.when(k.scaled(), || debug(k.op.round))),
    },
    Point {
        name: "ofm_scale_mode",
        bins: || debug_names(OfmScaleMode::ALL),
        classify: Classify::Kernel(|k| k.when(k.channel_scaled(), || debug(k.op.ofm_scale_mode))),
    },
    Point {
        // TRM 4.6.4 NPU_SET_ACTIVATION, 3.3.7.3.
        name: "activation",
        bins: || {
            names(&[
                "None",
                "Tanh",
                "Sigmoid",
                "LUT 8-bit",
                "LUT int32",
                "LUT 16-bit",
            ])
        },
        classify: Classify::Kernel(|k| {
            one(match k.op.activation {
                ActivationFunction::None => "None",
                ActivationFunction::Tanh => "Tanh",
                ActivationFunction::Sigmoid => "Sigmoid",
                _ if k.op.lut_dtype().bits == 16 => "LUT 16-bit",
                _ if k.op.ofm.dtype.bits == 32 => "LUT int32",
                _ => "LUT 8-bit",
            })
        }),
    },
    Point {
        name: "lut_slot",
        bins: || (0..8).map(|s| s.to_string()).collect(),
        classify: Classify::Kernel(|k| {
            k.op.lut_slot().map(|s| s.to_string()).into_iter().collect()
        }),
    },
    Point {
        name: "clip_range",
        bins: || debug_names(ActivationClipRange::ALL),
        classify: Classify::Kernel(|k| debug(k.op.clip)),
    },
    Point {
        // NPU_SET_ACTIVATION_MIN/MAX against the clip type's range.
        name: "activation_clamp",
        bins: || names(&["none (int32)", "full range", "min", "max", "min and max"]),
        classify: Classify::Kernel(|k| {
            let op = k.op;
            let stage = OutStage::linear(
                op.ofm.dtype,
                op.ofm.zero_point,
                op.clip_dtype(),
                op.act_min,
                op.act_max,
            );
            one(match stage.clamp {
                None => "none (int32)",
                Some((lo, hi)) => match (lo > stage.clip.min(), hi < stage.clip.max()) {
                    (false, false) => "full range",
                    (true, false) => "min",
                    (false, true) => "max",
                    (true, true) => "min and max",
                },
            })
        }),
    },
    Point {
        // TRM 4.8.2: s5.10 is refused (lib.rs), so it never dispatches.
        name: "accumulator",
        bins: || debug_names(&[AccFormat::Int32, AccFormat::Int40]),
        classify: Classify::Kernel(|k| k.when(k.window(), || debug(k.op.acc))),
    },
    Point {
        name: "conv_kernel",
        bins: || range_names(CONV_KERNELS, ">8"),
        classify: Classify::Kernel(|k| {
            let size = k.op.kernel_w().max(k.op.kernel_h());
            k.when(k.conv_like(), || range_bin(size, CONV_KERNELS, ">8"))
        }),
    },
    Point {
        // TRM 4.8.2 table 4-122: pool kernels up to 256x256.
        name: "pool_kernel",
        bins: || range_names(POOL_KERNELS, ">64"),
        classify: Classify::Kernel(|k| {
            let size = k.op.kernel_w().max(k.op.kernel_h());
            k.when(k.pool(), || range_bin(size, POOL_KERNELS, ">64"))
        }),
    },
    Point {
        name: "stride_x",
        bins: || names(&["1", "2", "3"]),
        classify: Classify::Kernel(|k| k.when(k.window(), || one(k.op.stride_x))),
    },
    Point {
        name: "stride_y",
        bins: || names(&["1", "2", "3"]),
        classify: Classify::Kernel(|k| k.when(k.window(), || one(k.op.stride_y))),
    },
    Point {
        name: "dilation",
        bins: || names(&["1x1", "2x1", "1x2", "2x2"]),
        classify: Classify::Kernel(|k| {
            k.when(k.window(), || one(format!("{}x{}", k.op.dil_x, k.op.dil_y)))
        }),
    },
    Point {
        // "beyond the kernel": a side's padding at least the dilated
        // kernel, so some windows read only padding.
        name: "padding",
        bins: || {
            names(&[
                "none",
                "top",
                "left",
                "bottom",
                "right",
                "beyond the kernel",
            ])
        },
        classify: Classify::Kernel(|k| {
            let op = k.op;
            let sides = [
                (op.pad_top, op.dkh, "top"),
                (op.pad_left, op.dkw, "left"),
                (op.pad_bottom, op.dkh, "bottom"),
                (op.pad_right, op.dkw, "right"),
            ];
            let mut bins = names(
                &sides
                    .iter()
                    .filter(|s| s.0 > 0)
                    .map(|s| s.2)
                    .collect::<Vec<_>>(),
            );
            if bins.is_empty() {
                bins.push("none".into());
            }
            if sides.iter().any(|&(pad, kernel, _)| pad >= kernel) {
                bins.push("beyond the kernel".into());
            }
            k.when(k.window(), || bins)
        }),
    },
    Point {
        name: "upscale",
        bins: || debug_names(UpscaleMode::ALL),
        classify: Classify::Kernel(|k| k.when(k.window(), || debug(k.op.upscale))),
    },
    Point {
        name: "ifm_tiles",
        bins: tile_bins,
        classify: Classify::Kernel(|k| {
            let (h, w) = k.ifm_extent();
            one(tiles(&k.op.ifm, h, w))
        }),
    },
    Point {
        name: "ifm2_tiles",
        bins: tile_bins,
        classify: Classify::Kernel(|k| {
            let map = k.inputs.as_ref().and_then(|i| i.ifm2_map.as_ref());
            let bc = k.broadcast();
            let h = if bc & broadcast::H != 0 { 1 } else { k.op.oh };
            let w = if bc & broadcast::W != 0 { 1 } else { k.op.ow };
            map.map(|m| tiles(m, h, w).to_string())
                .into_iter()
                .collect()
        }),
    },
    Point {
        name: "ofm_tiles",
        bins: tile_bins,
        classify: Classify::Kernel(|k| one(tiles(&k.op.ofm, k.op.oh, k.op.ow))),
    },
    Point {
        name: "ofm_depth",
        bins: || range_names(DEPTHS, ">64"),
        classify: Classify::Kernel(|k| range_bin(k.op.oc, DEPTHS, ">64")),
    },
    Point {
        // TRM 4.6.4 NPU_SET_IFM2_BROADCAST, 4.8.2 table 4-124.
        name: "ifm2_broadcast",
        bins: || names(&["none", "H", "W", "C", "several", "scalar"]),
        classify: Classify::Kernel(|k| {
            let bc = k.broadcast();
            let dims = bc & (broadcast::H | broadcast::W | broadcast::C);
            let bin = match dims {
                _ if bc & broadcast::SCALAR != 0 => "scalar",
                0 => "none",
                broadcast::H => "H",
                broadcast::W => "W",
                broadcast::C => "C",
                _ => "several",
            };
            k.when(k.binary(), || one(bin))
        }),
    },
    Point {
        name: "operand_order",
        bins: || names(&["IFM first", "IFM2 first"]),
        classify: Classify::Kernel(|k| {
            let reversed = k.broadcast() & broadcast::REVERSE_OPERANDS != 0;
            k.when(k.binary(), || {
                one(if reversed { "IFM2 first" } else { "IFM first" })
            })
        }),
    },
    Point {
        name: "ifm_scale_mode",
        bins: || debug_names(IfmScaleMode::ALL),
        classify: Classify::Kernel(|k| match &k.inputs {
            Some(i) if k.add_sub() => debug(i.scale_mode),
            _ => Vec::new(),
        }),
    },
    Point {
        // IFM_PRECISION[15:14]: the rounding of a 32-bit input scale.
        name: "ifm_round_mode",
        bins: || debug_names(IfmRoundMode::ALL),
        classify: Classify::Kernel(|k| match &k.inputs {
            Some(i) if k.add_sub() && i.scale_mode != IfmScaleMode::Opa16Opb16 => {
                debug(match i.input_round {
                    RoundMode::Natural => IfmRoundMode::Natural,
                    _ => IfmRoundMode::DoubleRounding,
                })
            }
            _ => Vec::new(),
        }),
    },
    Point {
        name: "blockdep",
        bins: || (0..4).map(|s| s.to_string()).collect(),
        classify: Classify::Kernel(|k| one(k.npu.field(Opcode::NpuSetBlockdep, "blockdep"))),
    },
    Point {
        // Elementwise operations ignore it.
        name: "parallel_mode",
        bins: || debug_names(ParallelMode::ALL),
        classify: Classify::Kernel(|k| {
            let mode = if k.op.parallel {
                ParallelMode::DualCoreDepth
            } else {
                ParallelMode::Single
            };
            k.when(k.window(), || debug(mode))
        }),
    },
    Point {
        name: "weight_order",
        bins: || debug_names(WeightOrder::ALL),
        classify: Classify::Kernel(|k| {
            k.when(k.op.kind == KernelKind::Conv, || debug(k.op.weight_order))
        }),
    },
    Point {
        name: "decomposition",
        bins: || debug_names(KernelDecomposition::ALL),
        classify: Classify::Kernel(|k| k.when(k.conv_like(), || debug(k.op.decomposition))),
    },
    Point {
        name: "ifm_zero_point",
        bins: || names(&["0", "other"]),
        classify: Classify::Kernel(|k| {
            one(if k.op.ifm.zero_point == 0 {
                "0"
            } else {
                "other"
            })
        }),
    },
    Point {
        name: "ofm_zero_point",
        bins: || names(&["0", "other"]),
        classify: Classify::Kernel(|k| {
            one(if k.op.ofm.zero_point == 0 {
                "0"
            } else {
                "other"
            })
        }),
    },
    Point {
        name: "dma_source",
        bins: || debug_names(DmaStrideMode::ALL),
        classify: Classify::Dma(|d| debug(d.src)),
    },
    Point {
        name: "dma_destination",
        bins: || {
            ["external", "internal"]
                .iter()
                .flat_map(|side| {
                    DmaStrideMode::ALL
                        .iter()
                        .map(move |m| format!("{side} {m:?}"))
                })
                .collect()
        },
        classify: Classify::Dma(|d| {
            let side = if d.core_mask.is_some() {
                "internal"
            } else {
                "external"
            };
            one(format!("{side} {:?}", d.dst))
        }),
    },
    Point {
        name: "dma_core_mask",
        bins: || names(&["1", "2", "3"]),
        classify: Classify::Dma(|d| d.core_mask.map(|m| m.to_string()).into_iter().collect()),
    },
    Point {
        name: "dma_size",
        bins: || names(&["empty", "one row", "rows"]),
        classify: Classify::Dma(|d| {
            one(match (d.len * d.rows, d.rows) {
                (0, _) => "empty",
                (_, 1) => "one row",
                _ => "rows",
            })
        }),
    },
    Point {
        name: "outcome",
        bins: || names(&["NPU_OP_STOP", "end of stream", "parse error", "bus error"]),
        classify: Classify::End(|e| {
            one(match e {
                End::Stop => "NPU_OP_STOP",
                End::Drained => "end of stream",
                End::ParseError => "parse error",
                End::BusError => "bus error",
            })
        }),
    },
];

/// Hit counts by configuration, point and bin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    hits: BTreeMap<(String, &'static str, String), u64>,
}

thread_local! {
    static ACTIVE: RefCell<Option<Coverage>> = const { RefCell::new(None) };
}

/// Runs `f` with coverage collected from every golden model it runs on
/// this thread; nested collections count in the outer one too.
pub fn collect<R>(f: impl FnOnce() -> R) -> (R, Coverage) {
    let outer = ACTIVE.with(|a| a.replace(Some(Coverage::default())));
    let result = f();
    let mine = ACTIVE.with(|a| a.replace(outer)).unwrap_or_default();
    ACTIVE.with(|a| {
        if let Some(outer) = a.borrow_mut().as_mut() {
            outer.merge(&mine);
        }
    });
    (result, mine)
}

/// Runs `f` without collecting (a job's check before its run).
pub(crate) fn without<R>(f: impl FnOnce() -> R) -> R {
    let outer = ACTIVE.with(|a| a.take());
    let result = f();
    ACTIVE.with(|a| *a.borrow_mut() = outer);
    result
}

fn enabled() -> bool {
    ACTIVE.with(|a| a.borrow().is_some())
}

fn record(config: &NpuConfig, hits: impl Fn(&Classify) -> Vec<String>) {
    ACTIVE.with(|a| {
        if let Some(coverage) = a.borrow_mut().as_mut() {
            for point in POINTS {
                for bin in hits(&point.classify) {
                    *coverage
                        .hits
                        .entry((config.name.clone(), point.name, bin))
                        .or_default() += 1;
                }
            }
        }
    });
}

/// A kernel operation dispatched with its rules passed.
pub(crate) fn kernel(op: &Op, npu: &NpuState) {
    if !enabled() {
        return;
    }
    let inputs = match op.kind {
        KernelKind::Elementwise(m) => op.elementwise_inputs(npu, m).ok(),
        _ => None,
    };
    let k = Kernel { op, npu, inputs };
    record(&npu.config, |c| match c {
        Classify::Kernel(f) => f(&k),
        _ => Vec::new(),
    });
}

/// A user DMA dispatched with its descriptor checked.
pub(crate) fn dma(config: &NpuConfig, d: &Dma) {
    record(config, |c| match c {
        Classify::Dma(f) => f(d),
        _ => Vec::new(),
    });
}

/// The end of a run.
pub(crate) fn end(config: &NpuConfig, e: End) {
    record(config, |c| match c {
        Classify::End(f) => f(e),
        _ => Vec::new(),
    });
}

/// One bin of the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bin {
    pub point: &'static str,
    pub bin: String,
    pub config: String,
    pub hits: u64,
    /// Not a class of its point: a value the list misses.
    pub unlisted: bool,
    pub waiver: Option<&'static str>,
}

impl Bin {
    /// A listed bin no run hit and no waiver covers.
    pub fn is_hole(&self) -> bool {
        self.hits == 0 && !self.unlisted && self.waiver.is_none()
    }
}

/// Every bin of every point and configuration, with its hits.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub bins: Vec<Bin>,
}

impl Coverage {
    /// Adds `other`'s hits to these.
    pub fn merge(&mut self, other: &Coverage) {
        for (key, n) in &other.hits {
            *self.hits.entry(key.clone()).or_default() += n;
        }
    }

    /// Every bin of [`POINTS`] on each built-in configuration, then any
    /// value classified outside its point's list.
    pub fn report(&self) -> Report {
        let configs: Vec<String> = NpuConfig::builtin().into_iter().map(|c| c.name).collect();
        let mut bins = Vec::new();
        let mut listed = BTreeSet::new();
        for point in POINTS {
            for bin in point.bins() {
                for config in &configs {
                    let key = (config.clone(), point.name, bin.clone());
                    let waiver = WAIVERS.iter().find(|w| {
                        w.point == point.name
                            && w.bin == bin
                            && w.config.is_none_or(|c| c == config)
                    });
                    bins.push(Bin {
                        point: point.name,
                        bin: bin.clone(),
                        config: config.clone(),
                        hits: self.hits.get(&key).copied().unwrap_or(0),
                        unlisted: false,
                        waiver: waiver.map(|w| w.reason),
                    });
                    listed.insert(key);
                }
            }
        }
        for ((config, point, bin), &hits) in &self.hits {
            if !listed.contains(&(config.clone(), point, bin.clone())) {
                bins.push(Bin {
                    point,
                    bin: bin.clone(),
                    config: config.clone(),
                    hits,
                    unlisted: true,
                    waiver: None,
                });
            }
        }
        Report { bins }
    }
}

impl Report {
    pub fn holes(&self) -> impl Iterator<Item = &Bin> {
        self.bins.iter().filter(|b| b.is_hole())
    }
    /// Listed bins, and those hit.
    pub fn totals(&self) -> (usize, usize) {
        let listed = self.bins.iter().filter(|b| !b.unlisted);
        let hit = listed.clone().filter(|b| b.hits > 0).count();
        (listed.count(), hit)
    }
}

/// The table: a row per point and bin, a column per configuration; then
/// the totals, the holes and the waived bins.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let configs: Vec<String> = NpuConfig::builtin().into_iter().map(|c| c.name).collect();
        let mut rows: Vec<(&str, &str, bool)> = Vec::new();
        let mut counts: BTreeMap<(&str, &str, &str), u64> = BTreeMap::new();
        for b in &self.bins {
            if !rows.iter().any(|r| r.0 == b.point && r.1 == b.bin) {
                rows.push((b.point, &b.bin, b.unlisted));
            }
            counts.insert((b.point, &b.bin, &b.config), b.hits);
        }
        write!(f, "{:<20} {:<28}", "point", "bin")?;
        for c in &configs {
            write!(f, " {c:>9}")?;
        }
        writeln!(f)?;
        for (point, bin, unlisted) in rows {
            let label = if unlisted {
                format!("{bin} (unlisted)")
            } else {
                bin.to_string()
            };
            write!(f, "{point:<20} {label:<28}")?;
            for c in &configs {
                let n = counts.get(&(point, bin, c)).copied().unwrap_or(0);
                write!(f, " {n:>9}")?;
            }
            writeln!(f)?;
        }
        let (listed, hit) = self.totals();
        let waived: Vec<&Bin> = self
            .bins
            .iter()
            .filter(|b| b.hits == 0 && b.waiver.is_some())
            .collect();
        let holes: Vec<&Bin> = self.holes().collect();
        writeln!(
            f,
            "{listed} bins, {hit} hit, {} waived, {} holes",
            waived.len(),
            holes.len()
        )?;
        for b in holes {
            writeln!(f, "hole: {} {} on {}", b.point, b.bin, b.config)?;
        }
        for b in waived {
            writeln!(
                f,
                "waived: {} {} on {}: {}",
                b.point,
                b.bin,
                b.config,
                b.waiver.unwrap_or_default()
            )?;
        }
        Ok(())
    }
}
