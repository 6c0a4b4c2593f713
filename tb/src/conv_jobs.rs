//! Random convolution jobs: valid NPU_OP_CONV and NPU_OP_DEPTHWISE
//! operations as complete jobs (command stream, IFM, weight stream,
//! scale/bias stream and OFM regions), for the random datapath suite and the
//! convolution benchmark; and pools (NPU_OP_POOL max, average, REDUCE_SUM
//! with int32 IFMs too: [`ConvSpec::random_pool`], [`random_pool_job`]) the
//! same way, without a
//! weight stream and with scale records only where the output unit scales
//! (TRM 4.8.2 tables 4-122 and 4-125).
//!
//! A [`ConvSpec`] holds every knob: kind, IFM and OFM types, sizes, kernel,
//! strides, dilation, padding, upscaling, weight order, kernel
//! decomposition, NHWC/NHCWB16 layouts and tiles, accumulator format,
//! per-channel or global scale, rounding, clip range and bounds, OFM block
//! and IFM buffer size. [`ConvSpec::random`] draws one from a seed,
//! [`ConvSpec::build`] makes the job with random data; [`random_job`] does
//! both. Every generated job passes `Job::check` and runs to NPU_OP_STOP on
//! the golden model (`tb/tests/conv_jobs.rs` checks that and the OFM against
//! a direct convolution); [`rtl_agrees`] runs one on the golden model and
//! the RTL and compares them, [`rtl_agrees_under`] with the RTL behind a
//! [`MemorySystem`], such as a random one ([`MemorySystem::random`]).
//!
//! # What the command stream promises the RTL (TRM 4.9)
//!
//! - OFM blocks: height a multiple of 2 up to 32, width a multiple of 2 up
//!   to 64, depth a multiple of 8 up to 128; a depth that is not a multiple
//!   of 16 is at least the OFM depth (TRM 4.9, table 4-133).
//! - Accumulators: an OFM block needs `ceil(h / 2) * ceil(w / 2) * ceil(d /
//!   8)` words of the accumulator buffer (one word per 2x2x8 microblock),
//!   at most [`AB_HALF_WORDS`], half the buffer (ACC0/ACC1). On a one-row
//!   OFM its blocks are one row of 1x4x8 microblocks, `ceil(w / 4) *
//!   ceil(d / 8)` words: never more.
//! - Shared-buffer layout of the IFM blocks: IB0 = [2 KB, 2 KB + H KB) and
//!   IB1 the next H KB, H = (IFM_IB_END - 2) / 2, IFM_IB_END even and at
//!   most 46 (the LUT keeps the last 2 KB of the 48 KB per core). One IFM
//!   block fits in H KB: rows times columns times bytes per position. Rows
//!   and columns are those of TRM table 4-134 (one OFM block through one
//!   sub-kernel of at most 8x8, 4x4 with decomposition, upscaled sources
//!   halved, aligned to 2), one more with upscaling (an odd first upscaled
//!   row starts a source row early), and never fewer than the traversal's
//!   own IFM blocks (`npu_model::schedule`). A position holds
//!   `ALIGN(channels * element bytes, 8)` (TRM table 4-135); channels are
//!   ALIGN(min(32, IFM depth), 8) depth-first int8, ALIGN(min(16, IFM
//!   depth), 8) part-kernel-first int8, ALIGN(min(16, IFM depth), 4) int16,
//!   ALIGN(min(8, IFM depth), 2) int32 (REDUCE_SUM), the OFM block depth for
//!   depthwise. A stream's IFM_IB_END need only hold the traversal's own
//!   IFM blocks. 60 % of the random specs take the OFM block, IFM_IB_END,
//!   AB_START and weight order Vela chooses ([`crate::vela_blocks`]); the
//!   others the smallest IFM_IB_END that fits or larger, with
//!   NPU_SET_AB_START following it.
//! - Feature maps: bases 16-byte aligned; NHWC strides multiples of the
//!   element size, NHCWB16 STRIDE_Y/STRIDE_C multiples of 16; tiles only
//!   with NHCWB16 (TRM 3.1.1). The OFM region starts with random bytes: only
//!   OFM elements may change.
//! - One core (u65-256), or parallel mode on u65-512 ([`ConvSpec::parallel`],
//!   TRM 4.7.5.1): OFM block depth a multiple of 16 or at least the OFM
//!   depth (as Vela chooses them), a
//!   weight stream per core (`weights::order::split_parallel`, WEIGHT and
//!   WEIGHT1) and a scale/bias stream per core (SCALE and SCALE1, core k's
//!   records of channels k, k + 2, ...); IFM_IB_END and AB_START as above,
//!   in each core's 48 KB.
//! - An activation function in a quarter of the jobs with an 8- or 16-bit
//!   OFM (`random_activation`): tanh, sigmoid or a LUT the OFM type allows
//!   (any of LUT slots 0-7 at 8 bits, slot 0 at 16), a LUT's table in the
//!   last 2 KB of the shared buffer.

use crate::axi::{describe_ports, random_aclken_pattern, CompleterConfig};
use crate::driver::AxiSettings;
use crate::rtl_backend::RtlBackend;
use crate::vela_blocks::{find_block_config, BlockKind, BlockQuery, Resampling};
use npu_arch::command::{
    AccFormat, ActivationClipRange, ActivationFunction, CmdKind, KernelDecomposition, Layout,
    OfmScaleMode, Opcode, PoolingMode, RoundMode, UpscaleMode, WeightOrder as WeightOrderBit,
};
use npu_arch::config::NpuConfig;
use npu_arch::limits::{BLOCKDEP_MAX, STRIDE_MAX};
use npu_model::cmdstream::{bytes_to_words, decode, encode, Command};
use npu_model::compare::difference;
use npu_model::footprint::largest_safe_blockdep;
use npu_model::job::{block_footprints, Backend, BackendRun, GoldenBackend, Job};
use npu_model::job_folder::save_job;
use npu_model::ops::ScaleRecord;
use npu_model::schedule::{ConvShape, AB_HALF_WORDS};
use npu_model::tensor::{DType, FeatureMap};
use npu_model::weights::order::{self, Traversal, WeightOrder, U65_UBLOCK_DEPTH};
use npu_model::weights::{self, EncodeOptions, IndexCoding, PaletteChoice, ZeroRuns};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::path::Path;

/// Base-pointer regions a job may use.
const REGIONS: usize = 8;
/// The shared buffer below IB0 (TRM 4.9.1: OB0/OB1), KB.
const IB_START_KB: usize = 2;
/// The largest IFM_IB_END: the LUT keeps the last 2 KB of 48 KB.
pub const MAX_IB_END_KB: usize = 46;

/// Convolution, depthwise convolution, or pooling (NPU_OP_POOL, TRM 4.6.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvKind {
    Conv,
    Depthwise,
    Pool(PoolingMode),
}

/// Where tiles split a feature map (TRM 4.6.5 NPU_SET_*_WIDTH0_M1,
/// HEIGHT0_M1, HEIGHT1_M1): tiles 0/2 are the first `width0` columns,
/// tile 0 their first `height0` rows, tile 1 the first `height1` rows of
/// the other columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiles {
    pub width0: usize,
    pub height0: usize,
    pub height1: usize,
}

/// Every parameter of one convolution job.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvSpec {
    pub kind: ConvKind,
    /// int8, uint8 or int16.
    pub ifm_type: DType,
    /// int8, uint8, int16 or int32.
    pub ofm_type: DType,
    /// OFM height, width, depth.
    pub ofm: [usize; 3],
    /// IFM depth of a convolution (a depthwise one reads the OFM depth).
    pub ifm_depth: usize,
    /// Kernel height and width before dilation.
    pub kernel: [usize; 2],
    /// Stride y and x, 1-3.
    pub stride: [usize; 2],
    /// Dilation y and x, 1-2.
    pub dilation: [usize; 2],
    /// Padding top, left, bottom, right.
    pub pad: [usize; 4],
    pub upscale: UpscaleMode,
    /// Convolutions only; depthwise uses its own order.
    pub weight_order: WeightOrderBit,
    pub decomposition: KernelDecomposition,
    pub ifm_layout: Layout,
    pub ofm_layout: Layout,
    /// Tiles of the source IFM and of the OFM (NHCWB16 only); `None` is one tile.
    pub ifm_tiles: Option<Tiles>,
    pub ofm_tiles: Option<Tiles>,
    /// Strides with unused bytes between elements, rows and channel blocks.
    pub padded_strides: bool,
    pub acc: AccFormat,
    pub scale_mode: OfmScaleMode,
    pub round: RoundMode,
    /// OFM block height, width, depth; `None` is the largest that fits.
    pub block: Option<[usize; 3]>,
    /// NPU_SET_IFM_IB_END in KB; `None` is the smallest that fits.
    pub ib_end: Option<usize>,
    /// NPU_SET_AB_START in KB; `None` is IFM_IB_END. (The RTL keeps its
    /// accumulators apart: TRM 4.9.1 only asks that IB_END <= AB_START.)
    pub ab_start: Option<usize>,
    /// The clip range names the OFM type instead of "OFM precision".
    pub force_clip: bool,
    /// ACTIVATION_MIN/MAX in the OFM type; `None` is the type's range.
    pub clamp: Option<(i64, i64)>,
    pub ifm_zero_point: i64,
    pub ofm_zero_point: i64,
    /// Regions of the IFM, the OFM, the weight stream and the scale stream.
    pub regions: [usize; 4],
    /// The weight encoder's options; `None` draws them (dense or palette,
    /// zero runs, slice lengths) when the job is built.
    pub weight_encoding: Option<EncodeOptions>,
    /// NPU_SET_PARALLEL_MODE 1 on u65-512 (TRM 4.7.5.1); else u65-256.
    pub parallel: bool,
    /// NPU_SET_ACTIVATION's function: none, tanh, sigmoid or LUT n (random
    /// contents, loaded into each core's last 2 KB of the shared buffer by
    /// user DMAs before the operation).
    pub activation: ActivationFunction,
}

/// A built job and the parameters it was made from.
#[derive(Clone, Debug)]
pub struct ConvJob {
    /// The spec with the block and IFM_IB_END resolved.
    pub spec: ConvSpec,
    pub job: Job,
    /// The command stream.
    pub commands: Vec<Command>,
    /// Source IFM values (before upscaling), height x width x channels.
    pub ifm: Vec<i64>,
    pub ifm_shape: [usize; 3],
    /// Where the IFM and OFM are (strides, tile bases, types, zero points).
    pub ifm_map: FeatureMap,
    pub ofm_map: FeatureMap,
    /// OHWI weights (I = 1 for depthwise), zero point removed.
    pub weights: Vec<i16>,
    /// One record per OFM channel (global scale: the same, bias 0).
    pub scales: Vec<ScaleRecord>,
    /// ACTIVATION_MIN/MAX as programmed.
    pub activation_min: u16,
    pub activation_max: u16,
    /// Each core's LUT area (the last 2 KB of its shared buffer) as the
    /// operation's DMAs load it; empty without a LUT.
    pub luts: Vec<Vec<u8>>,
}

impl ConvJob {
    /// MACs of the operation, as the golden model counts them.
    pub fn macs(&self) -> u64 {
        let [oh, ow, oc] = self.spec.ofm;
        let [kh, kw] = self.spec.kernel;
        (oh * ow * oc * kh * kw * self.spec.weights_per_tap()) as u64
    }

    /// The job with the kernel operation left out: the same settings and
    /// memory, to time what is not the operation.
    pub fn without_kernel_op(&self) -> Job {
        without_kernel_ops(&self.job, &self.commands)
    }
}

/// `job`, whose stream is `commands`, with its kernel operations left out.
pub fn without_kernel_ops(job: &Job, commands: &[Command]) -> Job {
    let commands: Vec<Command> = commands
        .iter()
        .filter(|c| !c.op.is_kernel_op())
        .copied()
        .collect();
    Job {
        command_stream: encode(&commands),
        ..job.clone()
    }
}

fn dilated(k: usize, d: usize) -> usize {
    (k - 1) * d + 1
}

impl ConvSpec {
    /// A convolution of `kind` with the given OFM (height, width, depth),
    /// IFM depth and kernel (height, width): stride 1, no dilation, padding
    /// or upscaling, depth-first, NHWC, int32 accumulators, per-channel TFL
    /// scaling, the largest OFM block and smallest IFM buffer that fit,
    /// weights encoded with the encoder's automatic choices (its defaults).
    pub fn new(
        kind: ConvKind,
        ifm_type: DType,
        ofm: [usize; 3],
        ifm_depth: usize,
        kernel: [usize; 2],
    ) -> ConvSpec {
        ConvSpec {
            kind,
            ifm_type,
            ofm_type: ifm_type,
            ofm,
            ifm_depth: if kind == ConvKind::Depthwise {
                ofm[2]
            } else {
                ifm_depth
            },
            kernel,
            stride: [1, 1],
            dilation: [1, 1],
            pad: [0; 4],
            upscale: UpscaleMode::None,
            weight_order: WeightOrderBit::DepthFirst,
            decomposition: KernelDecomposition::D8x8,
            ifm_layout: Layout::Nhwc,
            ofm_layout: Layout::Nhwc,
            ifm_tiles: None,
            ofm_tiles: None,
            padded_strides: false,
            acc: AccFormat::Int32,
            scale_mode: OfmScaleMode::PerChannel,
            round: RoundMode::Tfl,
            block: None,
            ib_end: None,
            ab_start: None,
            force_clip: false,
            clamp: None,
            ifm_zero_point: 0,
            ofm_zero_point: 0,
            regions: [1, 1, 0, 0],
            weight_encoding: Some(EncodeOptions::default()),
            parallel: false,
            activation: ActivationFunction::None,
        }
    }

    /// A random valid operation in parallel mode on u65-512 (the knobs of
    /// [`ConvSpec::random`]).
    pub fn random_parallel(rng: &mut StdRng) -> ConvSpec {
        let mut spec = ConvSpec::random(rng);
        spec.parallel = true;
        spec.draw_blocks(rng);
        spec
    }

    /// The OFM block, IFM_IB_END and AB_START: 60 % of the time as Vela
    /// chooses them for the operation ([`ConvSpec::take_vela_block`]: large
    /// blocks filling the shared buffer, as real command streams have
    /// them); else a random block within the limits 60 % of the time (or
    /// the largest that fits), and now and then a larger IFM_IB_END than
    /// the block needs.
    fn draw_blocks(&mut self, rng: &mut StdRng) {
        self.block = None;
        self.ib_end = None;
        self.ab_start = None;
        if rng.gen_bool(0.6) && self.take_vela_block() {
            return;
        }
        if rng.gen_bool(0.6) {
            self.block = Some(self.random_block(rng));
        }
        let least = self.least_ib_end(self.resolved_block());
        if least <= MAX_IB_END_KB && rng.gen_bool(0.3) {
            self.ib_end = Some(rng.gen_range(least / 2..=MAX_IB_END_KB / 2) * 2);
        }
    }

    /// The spec with OFM shape `ofm` and type `ofm_type`, and what depends
    /// on them drawn again (padding, zero point, clip, activation, tiles,
    /// blocks); it may break a rule ([`ConvSpec::check`] says).
    pub(crate) fn with_ofm(
        mut self,
        ofm: [usize; 3],
        ofm_type: DType,
        rng: &mut StdRng,
    ) -> ConvSpec {
        self.ofm = ofm;
        self.ofm_type = ofm_type;
        let dilated = self.dilated_kernel();
        trim_padding(&mut self.pad, ofm, self.stride, dilated);
        let t = ofm_type;
        self.ofm_zero_point = if t.bits == 32 {
            0
        } else {
            self.ofm_zero_point.clamp(t.min(), t.max())
        };
        self.clamp = self
            .clamp
            .filter(|_| t.bits < 32)
            .map(|(lo, hi)| (lo.clamp(t.min(), t.max()), hi.clamp(t.min(), t.max())));
        self.force_clip &= t.bits < 32;
        if self.activation != ActivationFunction::None {
            self.activation = random_activation(rng, t);
        }
        if self.ofm_tiles.is_some() {
            self.ofm_tiles = Some(random_tiles(rng, ofm[0], ofm[1]));
        }
        if self.ifm_tiles.is_some() {
            let [h, w, _] = self.ifm_shape();
            self.ifm_tiles = Some(random_tiles(rng, h, w));
        }
        self.draw_blocks(rng);
        self
    }

    /// A random valid spec: OFM up to 12x12x40 (40x40x40 a fifth of the
    /// time), IFM depth up to 48,
    /// kernels up to 8x8, every knob drawn.
    pub fn random(rng: &mut StdRng) -> ConvSpec {
        let kind = either(rng, 0.7, ConvKind::Conv, ConvKind::Depthwise);
        let ifm_type = [DType::I8, DType::I8, DType::U8, DType::I16][rng.gen_range(0..4)];
        let ofm_type = [DType::I8, DType::U8, DType::I16, DType::I32][rng.gen_range(0..4)];
        // One-row OFMs (CONV1D, 1x4 microblocks) 15 % of the time; a fifth
        // of the rest up to 40x40, whose blocks (Vela's, ConvSpec::
        // draw_blocks) fill the shared buffer.
        let side = if rng.gen_bool(0.2) { 40 } else { 12 };
        let ofm = [
            if rng.gen_bool(0.15) {
                1
            } else {
                rng.gen_range(2..=side)
            },
            rng.gen_range(1..=side),
            rng.gen_range(1..=40),
        ];
        let small_kernel = |rng: &mut StdRng| {
            if rng.gen_bool(0.5) {
                [1, 3][rng.gen_range(0..2)]
            } else {
                rng.gen_range(1..=8)
            }
        };
        let kernel = [small_kernel(rng), small_kernel(rng)];
        let upscale = match rng.gen_range(0..20) {
            0..=2 => UpscaleMode::Nearest,
            3..=4 => UpscaleMode::Zeros,
            _ => UpscaleMode::None,
        };
        // TRM 4.8.2: a 2x2 upscale uses a 1x1 stride.
        let stride = if upscale == UpscaleMode::None {
            [(); 2].map(|_| rng.gen_range(1..=STRIDE_MAX as usize))
        } else {
            [1, 1]
        };
        let dilation = [
            1 + usize::from(rng.gen_bool(0.2)),
            1 + usize::from(rng.gen_bool(0.2)),
        ];
        let (dkh, dkw) = (
            dilated(kernel[0], dilation[0]),
            dilated(kernel[1], dilation[1]),
        );
        let mut pad = if rng.gen_bool(0.6) {
            [
                rng.gen_range(0..dkh),
                rng.gen_range(0..dkw),
                rng.gen_range(0..dkh),
                rng.gen_range(0..dkw),
            ]
        } else {
            [0; 4]
        };
        trim_padding(&mut pad, ofm, stride, [dkh, dkw]);
        let layout = |rng: &mut StdRng| either(rng, 0.5, Layout::Nhwc, Layout::Nhcwb16);
        let mut spec = ConvSpec {
            ofm_type,
            stride,
            dilation,
            pad,
            upscale,
            weight_order: if kind == ConvKind::Conv && rng.gen_bool(0.5) {
                WeightOrderBit::PartKernelFirst
            } else {
                WeightOrderBit::DepthFirst
            },
            decomposition: either(
                rng,
                0.3,
                KernelDecomposition::D4x4,
                KernelDecomposition::D8x8,
            ),
            ifm_layout: layout(rng),
            ofm_layout: layout(rng),
            padded_strides: rng.gen_bool(0.3),
            acc: either(rng, 0.5, AccFormat::Int32, AccFormat::Int40),
            scale_mode: either(rng, 0.8, OfmScaleMode::PerChannel, OfmScaleMode::Global),
            round: match rng.gen_range(0..10) {
                0..=6 => RoundMode::Tfl,
                7..=8 => RoundMode::Natural,
                _ => RoundMode::Truncate,
            },
            regions: [
                rng.gen_range(0..REGIONS),
                rng.gen_range(0..REGIONS),
                rng.gen_range(0..REGIONS),
                rng.gen_range(0..REGIONS),
            ],
            weight_encoding: None,
            ..ConvSpec::new(kind, ifm_type, ofm, rng.gen_range(1..=48), kernel)
        };
        let [sh, sw, _] = spec.ifm_shape();
        if spec.ifm_layout == Layout::Nhcwb16 && rng.gen_bool(0.5) {
            spec.ifm_tiles = Some(random_tiles(rng, sh, sw));
        }
        if spec.ofm_layout == Layout::Nhcwb16 && rng.gen_bool(0.5) {
            spec.ofm_tiles = Some(random_tiles(rng, ofm[0], ofm[1]));
        }
        spec.ifm_zero_point = match (ifm_type.bits, rng.gen_range(0..5)) {
            (16, 0) => rng.gen_range(-100..=100),
            (16, _) => 0,
            (_, 0) => 0,
            _ => rng.gen_range(ifm_type.min()..=ifm_type.max()),
        };
        spec.ofm_zero_point = match ofm_type.bits {
            32 => 0,
            16 => rng.gen_range(-1000..=1000),
            _ => {
                let middle = (ofm_type.min() + ofm_type.max()) / 2;
                rng.gen_range(middle - 64..=middle + 64)
            }
        };
        if ofm_type.bits < 32 {
            spec.force_clip = rng.gen_bool(0.2);
            if rng.gen_bool(0.3) {
                let lo = rng.gen_range(ofm_type.min()..=ofm_type.max());
                let hi = rng.gen_range(lo..=ofm_type.max());
                spec.clamp = Some((lo, hi));
            }
        }
        if rng.gen_bool(0.25) {
            spec.activation = random_activation(rng, ofm_type);
        }
        spec.draw_blocks(rng);
        spec
    }

    /// The operation as Vela's block search sees it ([`crate::vela_blocks`]).
    pub fn vela_query(&self) -> BlockQuery {
        BlockQuery {
            cores: if self.parallel { 2 } else { 1 },
            kind: match self.kind {
                ConvKind::Conv => BlockKind::Convolution,
                ConvKind::Depthwise => BlockKind::Depthwise,
                ConvKind::Pool(PoolingMode::ReduceSum) => BlockKind::ReduceSum,
                ConvKind::Pool(_) => BlockKind::Pooling,
            },
            ofm: self.ofm,
            ifm: self.ifm_shape(),
            ifm2: None,
            scalar: false,
            ifm_bits: self.ifm_type.bits as usize,
            kernel: self.kernel,
            stride: self.stride,
            dilation: self.dilation,
            lut: self.activation.bits() >= 16,
            scaled: self.scales(),
            resampling: match self.upscale {
                UpscaleMode::None => Resampling::None,
                UpscaleMode::Nearest => Resampling::Nearest,
                UpscaleMode::Zeros => Resampling::Transpose,
            },
        }
    }

    /// Takes the OFM block, IFM_IB_END and AB_START Vela chooses, and keeps
    /// the weight order (a benchmark's row names its own); false, and the
    /// spec as it was, where Vela finds none.
    pub fn take_vela_layout(&mut self) -> bool {
        self.take_vela(false)
    }

    /// Takes the OFM block, IFM_IB_END, AB_START and a convolution's weight
    /// order as Vela chooses them (its block search,
    /// [`crate::vela_blocks::find_block_config`]); false, and the spec as
    /// it was, where Vela finds none.
    pub fn take_vela_block(&mut self) -> bool {
        self.take_vela(true)
    }

    fn take_vela(&mut self, weight_order: bool) -> bool {
        let Some(config) = find_block_config(&self.vela_query()) else {
            return false;
        };
        self.block = Some(config.ofm_block);
        self.ib_end = Some(config.ib_end);
        self.ab_start = Some(config.ab_start);
        if weight_order && self.kind == ConvKind::Conv {
            self.weight_order = if config.part_kernel {
                WeightOrderBit::PartKernelFirst
            } else {
                WeightOrderBit::DepthFirst
            };
        }
        true
    }

    /// IFM channels the operation reads.
    pub fn ifm_channels(&self) -> usize {
        match self.kind {
            ConvKind::Conv | ConvKind::Pool(PoolingMode::ReduceSum) => self.ifm_depth,
            ConvKind::Depthwise | ConvKind::Pool(_) => self.ofm[2],
        }
    }

    /// Weights per kernel tap and OFM channel: the IFM depth, 1 for
    /// depthwise (for pools: the IFM values each OFM value takes per tap).
    pub fn weights_per_tap(&self) -> usize {
        match self.kind {
            ConvKind::Conv | ConvKind::Pool(PoolingMode::ReduceSum) => self.ifm_depth,
            ConvKind::Depthwise | ConvKind::Pool(_) => 1,
        }
    }

    /// A pool: no weight stream.
    pub fn pool(&self) -> Option<PoolingMode> {
        match self.kind {
            ConvKind::Pool(mode) => Some(mode),
            _ => None,
        }
    }

    /// The output unit scales (TRM 4.8.2 table 4-122: not for max pools
    /// and padded average pools), so per-channel scaling reads records.
    pub fn scales(&self) -> bool {
        match self.kind {
            ConvKind::Pool(PoolingMode::Max) => false,
            ConvKind::Pool(PoolingMode::Average) => self.pad == [0; 4],
            _ => true,
        }
    }

    /// Dilated kernel height and width.
    pub fn dilated_kernel(&self) -> [usize; 2] {
        [
            dilated(self.kernel[0], self.dilation[0]),
            dilated(self.kernel[1], self.dilation[1]),
        ]
    }

    /// Height and width of the upscaled IFM the kernel windows read (the
    /// golden model's `ifm_extent`); 0 when the padding covers it.
    pub fn upscaled_extent(&self) -> [usize; 2] {
        let [dkh, dkw] = self.dilated_kernel();
        let h = (self.ofm[0] - 1) * self.stride[0] + dkh;
        let w = (self.ofm[1] - 1) * self.stride[1] + dkw;
        [
            h.saturating_sub(self.pad[0] + self.pad[2]),
            w.saturating_sub(self.pad[1] + self.pad[3]),
        ]
    }

    fn upscale_factor(&self) -> usize {
        if self.upscale == UpscaleMode::None {
            1
        } else {
            2
        }
    }

    /// The source IFM in memory: height, width, channels.
    pub fn ifm_shape(&self) -> [usize; 3] {
        let [h, w] = self.upscaled_extent();
        let up = self.upscale_factor();
        [h.div_ceil(up), w.div_ceil(up), self.ifm_channels()]
    }

    fn traversal(&self) -> Traversal {
        match (self.kind, self.weight_order) {
            (ConvKind::Pool(PoolingMode::ReduceSum), _) => Traversal::DepthFirst,
            (ConvKind::Depthwise | ConvKind::Pool(_), _) => Traversal::DepthWise,
            (_, WeightOrderBit::DepthFirst) => Traversal::DepthFirst,
            (_, WeightOrderBit::PartKernelFirst) => Traversal::PartKernelFirst,
        }
    }

    fn split(&self) -> usize {
        match self.decomposition {
            KernelDecomposition::D8x8 => 8,
            KernelDecomposition::D4x4 => 4,
        }
    }

    /// The traversal of this operation with OFM block `block`.
    pub fn conv_shape(&self, block: [usize; 3]) -> ConvShape {
        let [ifm_height, ifm_width] = self.upscaled_extent();
        ConvShape {
            ofm_height: self.ofm[0],
            ofm_width: self.ofm[1],
            ofm_depth: self.ofm[2],
            ifm_depth: self.ifm_channels(),
            ifm_height,
            ifm_width,
            kernel_height: self.kernel[0],
            kernel_width: self.kernel[1],
            stride_x: self.stride[1],
            stride_y: self.stride[0],
            dilation_x: self.dilation[1],
            dilation_y: self.dilation[0],
            pad_top: self.pad[0],
            pad_left: self.pad[1],
            upscale: self.upscale,
            traversal: self.traversal(),
            decomposition: self.decomposition,
            ifm_bits: self.ifm_type.bits,
            block_height: block[0],
            block_width: block[1],
            block_depth: block[2],
            parallel: self.parallel,
            pool: self.pool().is_some(),
        }
    }

    /// Bytes of one position of an IFM block in the shared buffer (TRM
    /// tables 4-134 and 4-135: ALIGN(IFM_MEMBLK_DEPTH x bytes, 8)).
    fn position_bytes(&self, block_depth: usize) -> usize {
        let channels = match (self.traversal(), self.ifm_type.bits) {
            (Traversal::DepthWise, _) => block_depth,
            (_, 32) => self.ifm_depth.min(8).next_multiple_of(2),
            (_, 16) => self.ifm_depth.min(16).next_multiple_of(4),
            (Traversal::DepthFirst, _) => self.ifm_depth.min(32).next_multiple_of(8),
            _ => self.ifm_depth.min(16).next_multiple_of(8),
        };
        (channels * self.ifm_type.bytes()).next_multiple_of(8)
    }

    /// Source rows (or columns) one OFM block of `block` rows reads through
    /// one sub-kernel (TRM table 4-134, plus one for upscaling).
    fn ib_side(&self, block: usize, axis: usize) -> usize {
        let up = self.upscale_factor();
        let [dkh, dkw] = self.dilated_kernel();
        let dk = [dkh, dkw][axis];
        let sub = (block - 1) * self.stride[axis] + self.split().min(dk);
        let whole = self.ifm_shape()[axis];
        (sub.div_ceil(up) + up - 1).min(whole).next_multiple_of(2)
    }

    /// The TRM-style size of an IFM block of OFM block `block`, bytes.
    fn ib_bound(&self, block: [usize; 3]) -> usize {
        self.ib_side(block[0], 0) * self.ib_side(block[1], 1) * self.position_bytes(block[2])
    }

    /// The largest IFM block the traversal fetches with OFM block `block`.
    fn ib_actual(&self, block: [usize; 3]) -> usize {
        self.conv_shape(block)
            .block_ops()
            .iter()
            .map(|op| op.rect.height * op.rect.width * op.rect.position_bytes(self.ifm_type.bits))
            .max()
            .unwrap_or(0)
    }

    /// The smallest IFM_IB_END (even, KB) whose IB0/IB1 hold the IFM blocks
    /// of OFM block `block`.
    pub fn least_ib_end(&self, block: [usize; 3]) -> usize {
        let bytes = self.ib_bound(block).max(self.ib_actual(block));
        IB_START_KB + 2 * bytes.div_ceil(1024).max(1)
    }

    /// The OFM block limits of TRM 4.9 and the accumulator buffer.
    fn block_ok(&self, [h, w, d]: [usize; 3]) -> bool {
        let shape_ok = (2..=32).contains(&h)
            && h % 2 == 0
            && (2..=64).contains(&w)
            && w % 2 == 0
            && (8..=128).contains(&d)
            && d % 8 == 0
            && (d % 16 == 0 || self.ofm[2] <= d);
        shape_ok
            && h.div_ceil(2) * w.div_ceil(2) * d.div_ceil(8) <= AB_HALF_WORDS
            && self.ib_bound([h, w, d]) <= (MAX_IB_END_KB - IB_START_KB) / 2 * 1024
    }

    /// The OFM block: the given one, or the largest (by volume, then the
    /// deepest) that fits and is no larger than the OFM needs.
    pub fn resolved_block(&self) -> [usize; 3] {
        if let Some(b) = self.block {
            return b;
        }
        let max_h = self.ofm[0].next_multiple_of(2).min(32);
        let max_w = self.ofm[1].next_multiple_of(2).min(64);
        let max_d = self.ofm[2].next_multiple_of(self.depth_step()).min(128);
        let mut best = [2, 2, self.depth_step()];
        for d in (8..=max_d).step_by(8) {
            for h in (2..=max_h).step_by(2) {
                for w in (2..=max_w).step_by(2) {
                    let volume = |[h, w, d]: [usize; 3]| (h * w * d, d);
                    if self.block_ok([h, w, d]) && volume([h, w, d]) > volume(best) {
                        best = [h, w, d];
                    }
                }
            }
        }
        best
    }

    /// A random OFM block within the limits, at most a little beyond the OFM.
    fn random_block(&self, rng: &mut StdRng) -> [usize; 3] {
        for _ in 0..20 {
            let block = [
                2 * rng.gen_range(1..=(self.ofm[0].div_ceil(2) + 1).min(16)),
                2 * rng.gen_range(1..=(self.ofm[1].div_ceil(2) + 1).min(32)),
                self.depth_step()
                    * rng.gen_range(
                        1..=(self.ofm[2].div_ceil(self.depth_step()) + 1)
                            .min(128 / self.depth_step()),
                    ),
            ];
            if self.block_ok(block) {
                return block;
            }
        }
        [2, 2, self.depth_step() * self.ofm[2].div_ceil(8).min(2)]
    }

    /// OFM block depths are multiples of this: 16 in parallel mode (TRM
    /// table 4-133, MIN_BLOCK_DEPTH), else 8.
    fn depth_step(&self) -> usize {
        if self.parallel {
            16
        } else {
            U65_UBLOCK_DEPTH
        }
    }
    /// Whether the spec makes a valid job: what the generator itself can
    /// lay out ([`ConvSpec::check_layout`]), then TRM 4.8.2's operation rules
    /// as the golden model judges them ([`Job::check_rules`]: one rule set,
    /// not a copy of it here). Builds the job with data from a fixed seed.
    pub fn check(&self) -> Result<(), String> {
        self.build(&mut StdRng::seed_from_u64(0)).map(|_| ())
    }

    /// What the generator and the RTL's shared-buffer layout need of a spec,
    /// beyond the TRM's operation rules: positive sizes, an IFM window the
    /// padding leaves, dilation the kernel-stride command's bit holds, tiles
    /// on NHCWB16 feature maps, OFM blocks and IFM buffers that fit (TRM 4.9,
    /// the module doc), regions that exist; pools without dilation, depth first.
    pub fn check_layout(&self) -> Result<(), String> {
        let [oh, ow, oc] = self.ofm;
        let [kh, kw] = self.kernel;
        if oh * ow * oc * kh * kw * self.ifm_channels() == 0 {
            return Err("sizes must be positive".into());
        }
        if self.dilation.iter().any(|d| !(1..=2).contains(d)) {
            return Err(format!(
                "dilation {:?} (1 or 2: one bit of NPU_SET_KERNEL_STRIDE)",
                self.dilation
            ));
        }
        if self.upscaled_extent().contains(&0) {
            return Err("the padding covers the whole IFM window".into());
        }
        if self.pool().is_some()
            && (self.dilation != [1, 1] || self.weight_order != WeightOrderBit::DepthFirst)
        {
            return Err("pools: no dilation, depth-first".into());
        }
        let [sh, sw, _] = self.ifm_shape();
        for (tiles, layout, (h, w), what) in [
            (self.ifm_tiles, self.ifm_layout, (sh, sw), "IFM"),
            (self.ofm_tiles, self.ofm_layout, (oh, ow), "OFM"),
        ] {
            if let Some(t) = tiles {
                if layout != Layout::Nhcwb16 {
                    return Err(format!("{what} tiles need NHCWB16 (TRM 3.1.1)"));
                }
                let ok = (1..=w).contains(&t.width0)
                    && (1..=h).contains(&t.height0)
                    && (1..=h).contains(&t.height1);
                if !ok {
                    return Err(format!("{what} tiles {t:?} outside {h}x{w}"));
                }
            }
        }
        let block = self.resolved_block();
        if !self.block_ok(block) {
            return Err(format!(
                "OFM block {block:?}: TRM 4.9 limits, at most {AB_HALF_WORDS} accumulator words"
            ));
        }
        // The IB must hold the traversal's own IFM blocks; a stream may
        // give less than the generator's TRM-style bound (Vela sizes by
        // its own, without the bound's upscaling row).
        let ib_end = self.ib_end.unwrap_or_else(|| self.least_ib_end(block));
        let needed = IB_START_KB + 2 * self.ib_actual(block).div_ceil(1024).max(1);
        if !ib_end.is_multiple_of(2) || ib_end > MAX_IB_END_KB || ib_end < needed {
            return Err(format!(
                "IFM_IB_END {ib_end}: even, at most {MAX_IB_END_KB}, at least {needed}"
            ));
        }
        if self
            .ab_start
            .is_some_and(|kb| kb < ib_end || kb > MAX_IB_END_KB)
        {
            return Err(format!(
                "AB_START {:?}: from IFM_IB_END {ib_end} to {MAX_IB_END_KB} (TRM table 4-138)",
                self.ab_start
            ));
        }
        if self.regions.iter().any(|&r| r >= REGIONS) {
            return Err(format!("regions {:?}", self.regions));
        }
        Ok(())
    }

    /// A random valid pool ([`ConvSpec::random`]'s knobs, then the pooling
    /// rules): max, average (zero points 0, as Vela gives them) or
    /// REDUCE_SUM, int8/uint8/int16, and a third of REDUCE_SUMs int32 (an
    /// int8 softmax's sum of exponentials); a quarter in parallel mode on
    /// u65-512.
    pub fn random_pool(rng: &mut StdRng) -> ConvSpec {
        let mode = [
            PoolingMode::Max,
            PoolingMode::Average,
            PoolingMode::ReduceSum,
        ][rng.gen_range(0..3)];
        let mut spec = ConvSpec::random(rng);
        spec.kind = ConvKind::Pool(mode);
        spec.dilation = [1, 1];
        trim_padding(&mut spec.pad, spec.ofm, spec.stride, spec.kernel);
        spec.weight_order = WeightOrderBit::DepthFirst;
        spec.weight_encoding = Some(EncodeOptions::default());
        let padded_average = mode == PoolingMode::Average && spec.pad != [0; 4];
        match mode {
            PoolingMode::Max | PoolingMode::Average => {
                if mode == PoolingMode::Max || padded_average || spec.ofm_type.bits == 32 {
                    spec.ofm_type = spec.ifm_type;
                }
                if mode == PoolingMode::Max || padded_average {
                    spec.acc = AccFormat::Int32;
                }
                if mode == PoolingMode::Max && spec.upscale == UpscaleMode::Zeros {
                    spec.upscale = UpscaleMode::Nearest;
                }
                if padded_average {
                    spec.pad = [
                        spec.pad[0].min(3),
                        spec.pad[1].min(3),
                        spec.pad[2].min(4),
                        spec.pad[3].min(4),
                    ];
                }
                let t = spec.ofm_type;
                spec.ofm_zero_point = if mode == PoolingMode::Max && rng.gen_bool(0.5) {
                    spec.ifm_zero_point.clamp(t.min(), t.max())
                } else {
                    rng.gen_range(t.min().max(-1000)..=t.max().min(1000))
                };
                if mode == PoolingMode::Average {
                    spec.ifm_zero_point = 0;
                    spec.ofm_zero_point = 0;
                }
            }
            PoolingMode::ReduceSum => {
                if rng.gen_bool(1.0 / 3.0) {
                    spec.ifm_type = DType::I32;
                    spec.ifm_zero_point = 0;
                }
                spec.ofm[2] = 1;
                spec.ofm_type = DType::I32;
                spec.ofm_zero_point = 0;
                spec.pad = [0; 4];
                spec.upscale = UpscaleMode::None;
                spec.force_clip = false;
                spec.clamp = None;
            }
        }
        if let Some((lo, hi)) = spec.clamp {
            let t = spec.ofm_type;
            spec.clamp =
                (t.bits < 32).then(|| (lo.clamp(t.min(), t.max()), hi.clamp(t.min(), t.max())));
        }
        if spec.ofm_type.bits == 32 {
            spec.force_clip = false;
        }
        // The OFM type may have changed: an activation function it allows.
        if spec.activation != ActivationFunction::None {
            spec.activation = random_activation(rng, spec.ofm_type);
        }
        // The IFM's shape may have changed with the dilation and padding.
        if spec.ifm_tiles.is_some() {
            let [sh, sw, _] = spec.ifm_shape();
            spec.ifm_tiles = Some(random_tiles(rng, sh, sw));
        }
        // Parallel mode on u65-512 a quarter of the time (TRM 4.7.5.1).
        spec.parallel = rng.gen_bool(0.25);
        spec.draw_blocks(rng);
        spec
    }

    /// The job with random data from `rng`.
    pub fn build(&self, rng: &mut StdRng) -> Result<ConvJob, String> {
        self.check_layout()?;
        let block = self.resolved_block();
        let spec = ConvSpec {
            block: Some(block),
            ib_end: Some(self.ib_end.unwrap_or_else(|| self.least_ib_end(block))),
            ..self.clone()
        };
        let ifm_shape = spec.ifm_shape();
        let ifm = random_ifm(rng, &spec, ifm_shape);
        let oc = spec.ofm[2];
        let [kh, kw] = spec.kernel;
        let weights = match spec.pool() {
            Some(_) => Vec::new(),
            None => random_weights(rng, oc * kh * kw * spec.weights_per_tap()),
        };
        let scales = random_scales(rng, &spec, &ifm, &weights);
        let weight_order = WeightOrder {
            ofm_depth: oc,
            ifm_depth: spec.weights_per_tap(),
            kernel_height: kh,
            kernel_width: kw,
            ofm_block_depth: block[2],
            traversal: spec.traversal(),
            ifm_bits: spec.ifm_type.bits,
            dilation_x2: spec.dilation[1] == 2,
            dilation_y2: spec.dilation[0] == 2,
            decomposition: spec.decomposition,
            ofm_ublock_depth: U65_UBLOCK_DEPTH,
            ifm_ublock_depth: U65_UBLOCK_DEPTH,
        };
        // A stream per core (TRM 4.7.5.1): core k's channels k, k + 2, ...
        let cores = if spec.parallel { 2 } else { 1 };
        let parts = match spec.pool() {
            Some(_) => Vec::new(),
            None => {
                order::split_parallel(&weights, &weight_order, cores).map_err(|e| e.to_string())?
            }
        };
        let options = match &self.weight_encoding {
            Some(options) => options.clone(),
            None => encode_options(rng),
        };
        let mut encoded = Vec::new();
        for (part, part_order) in &parts {
            let stream = order::to_stream(part, part_order).map_err(|e| e.to_string())?;
            encoded.push(weights::encode(&stream, &options).map_err(|e| e.to_string())?);
        }

        let mut memory = Memory::default();
        let ifm_map = memory.place(rng, spec.ifm_placement());
        for y in 0..ifm_shape[0] {
            for x in 0..ifm_shape[1] {
                for c in 0..ifm_shape[2] {
                    let v = ifm[(y * ifm_shape[1] + x) * ifm_shape[2] + c];
                    memory.store(&ifm_map, y, x, c, v);
                }
            }
        }
        let ofm_map = memory.place(rng, spec.ofm_placement());
        let weight_streams: Vec<(u64, usize)> = encoded
            .iter()
            .map(|bytes| (memory.alloc(rng, spec.regions[2], bytes), bytes.len()))
            .collect();
        let scale_streams: Option<Vec<(u64, usize)>> = match spec.scale_mode {
            OfmScaleMode::PerChannel if spec.scales() => Some(
                (0..cores)
                    .map(|core| {
                        let bytes: Vec<u8> = scales
                            .iter()
                            .skip(core)
                            .step_by(cores)
                            .flat_map(|r| r.to_bytes())
                            .collect();
                        (memory.alloc(rng, spec.regions[3], &bytes), bytes.len())
                    })
                    .collect(),
            ),
            _ => None,
        };
        let config = if spec.parallel {
            NpuConfig::u65_512()
        } else {
            NpuConfig::u65_256()
        };
        let luts: Vec<Vec<u8>> = if spec.activation.bits() >= 16 {
            (0..config.cores)
                .map(|_| (0..LUT_BYTES).map(|_| rng.gen()).collect())
                .collect()
        } else {
            Vec::new()
        };
        let lut_area = config.shram_kib as u64 * 1024 / u64::from(config.cores) - LUT_BYTES as u64;
        let mut commands: Vec<Command> = luts
            .iter()
            .enumerate()
            .flat_map(|(core, lut)| {
                let source = memory.alloc(rng, spec.regions[2], lut);
                lut_dma(spec.regions[2], source, 1 << core, lut_area)
            })
            .collect();
        if !luts.is_empty() {
            commands.push(cmd(Opcode::NpuOpDmaWait, &[("k", 0)]));
        }
        let (activation_min, activation_max) = spec.activation_bounds();
        commands.extend(self::commands(
            &spec,
            &ifm_map,
            &ofm_map,
            &weight_streams,
            scale_streams.as_deref(),
            scales[0],
            (activation_min, activation_max),
        ));
        let job = Job::in_memory(config, encode(&commands), memory.regions, &spec.describe());
        job.check_rules()?;
        Ok(ConvJob {
            spec,
            job,
            commands,
            ifm,
            ifm_shape,
            ifm_map,
            ofm_map,
            weights,
            scales,
            activation_min,
            activation_max,
            luts,
        })
    }

    /// ACTIVATION_MIN/MAX as raw 16-bit fields.
    fn activation_bounds(&self) -> (u16, u16) {
        let t = self.ofm_type;
        match (self.clamp, t.bits) {
            (Some((lo, hi)), _) => (lo as u16, hi as u16),
            (None, 32) => (i16::MIN as u16, i16::MAX as u16),
            (None, _) => (t.min() as u16, t.max() as u16),
        }
    }

    /// One line naming the operation and its knobs.
    pub fn describe(&self) -> String {
        let [oh, ow, oc] = self.ofm;
        let [sh, sw, c] = self.ifm_shape();
        format!(
            "{:?} {}->{} IFM {sh}x{sw}x{c} OFM {oh}x{ow}x{oc} kernel {}x{} stride {}x{} dilation {}x{} \
             pad {:?} upscale {:?} {:?} {:?} {:?}/{:?} tiles {}/{} {:?} {:?} {:?} block {:?} IB_END {:?}{}",
            self.kind,
            self.ifm_type,
            self.ofm_type,
            self.kernel[0],
            self.kernel[1],
            self.stride[0],
            self.stride[1],
            self.dilation[0],
            self.dilation[1],
            self.pad,
            self.upscale,
            self.weight_order,
            self.decomposition,
            self.ifm_layout,
            self.ofm_layout,
            self.ifm_tiles.is_some(),
            self.ofm_tiles.is_some(),
            self.acc,
            self.scale_mode,
            self.round,
            self.block,
            self.ib_end,
            if self.parallel {
                " parallel (u65-512)"
            } else {
                ""
            },
        )
    }
}

/// Less padding until it leaves at least one IFM row and column.
fn trim_padding(pad: &mut [usize; 4], ofm: [usize; 3], stride: [usize; 2], dilated: [usize; 2]) {
    while (ofm[0] - 1) * stride[0] + dilated[0] <= pad[0] + pad[2] {
        pad[if pad[0] > 0 { 0 } else { 2 }] -= 1;
    }
    while (ofm[1] - 1) * stride[1] + dilated[1] <= pad[1] + pad[3] {
        pad[if pad[1] > 0 { 1 } else { 3 }] -= 1;
    }
}

/// `yes` with probability `p`, else `no`.
fn either<T>(rng: &mut StdRng, p: f64, yes: T, no: T) -> T {
    if rng.gen_bool(p) {
        yes
    } else {
        no
    }
}

pub(crate) fn random_tiles(rng: &mut StdRng, h: usize, w: usize) -> Tiles {
    Tiles {
        width0: rng.gen_range(1..=w),
        height0: rng.gen_range(1..=h),
        height1: rng.gen_range(1..=h),
    }
}

/// Source IFM values: 8-bit over the whole type, 16- and 32-bit over a
/// random power-of-two range (so accumulators of every size occur, and
/// 32-bit sums that wrap).
fn random_ifm(rng: &mut StdRng, spec: &ConvSpec, [h, w, c]: [usize; 3]) -> Vec<i64> {
    let t = spec.ifm_type;
    let (lo, hi) = if t.bits > 8 {
        let amplitude = 1i64 << rng.gen_range(4..t.bits);
        (-amplitude, amplitude - 1)
    } else {
        (t.min(), t.max())
    };
    (0..h * w * c).map(|_| rng.gen_range(lo..=hi)).collect()
}

/// OHWI weights: mostly int8-sized, sometimes the full 9 bits or tiny, with
/// a random share of zeros.
fn random_weights(rng: &mut StdRng, n: usize) -> Vec<i16> {
    let max = [127, 127, 127, 255, 7][rng.gen_range(0..5)];
    let zeros = rng.gen_range(0.0..0.6);
    (0..n)
        .map(|_| {
            if rng.gen_bool(zeros) {
                0
            } else {
                rng.gen_range(-max..=max)
            }
        })
        .collect()
}

/// Mostly the encoder's best choices, sometimes a fixed coding.
fn encode_options(rng: &mut StdRng) -> EncodeOptions {
    EncodeOptions {
        zero_runs: match rng.gen_range(0..3) {
            0 => ZeroRuns::Auto,
            1 => ZeroRuns::Off,
            _ => ZeroRuns::AutoZdiv,
        },
        index: either(rng, 0.2, IndexCoding::Uncompressed, IndexCoding::Auto),
        palette: either(rng, 0.2, PaletteChoice::Direct, PaletteChoice::Auto),
        max_slice_len: if rng.gen_bool(0.2) {
            rng.gen_range(1..=64)
        } else {
            EncodeOptions::default().max_slice_len
        },
        newpal_every_slice: rng.gen_bool(0.1),
    }
}

/// Scales that put the typical accumulator at a sixth of the OFM type's
/// range (so outputs spread and few saturate) and biases of the size of an
/// accumulator. The typical accumulator is `sqrt(taps * E[w^2] * E[x^2])`.
fn random_scales(
    rng: &mut StdRng,
    spec: &ConvSpec,
    ifm: &[i64],
    weights: &[i16],
) -> Vec<ScaleRecord> {
    let mean_square = |v: &mut dyn Iterator<Item = f64>| {
        let (sum, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x * x, n + 1));
        (sum / n.max(1) as f64).max(1.0)
    };
    let x2 = mean_square(&mut ifm.iter().map(|&v| (v - spec.ifm_zero_point) as f64));
    let w2 = mean_square(&mut weights.iter().map(|&w| w as f64));
    let taps = (spec.kernel[0] * spec.kernel[1] * spec.weights_per_tap()) as f64;
    let typical = (taps * w2 * x2).sqrt();
    let target = match spec.ofm_type.bits {
        32 => 1e6,
        t => 2f64.powi(t as i32) / 6.0,
    };
    let record = |rng: &mut StdRng, bias: i64| {
        let multiplier = target / typical * rng.gen_range(0.5..2.0);
        let (scale, shift) = quantized_multiplier(multiplier);
        ScaleRecord { bias, scale, shift }
    };
    match spec.scale_mode {
        OfmScaleMode::Global => vec![record(rng, 0); spec.ofm[2]],
        OfmScaleMode::PerChannel => (0..spec.ofm[2])
            .map(|_| {
                let bias = rng.gen_range(-typical..=typical) as i64;
                record(rng, bias)
            })
            .collect(),
    }
}

/// `m` as `scale * 2^-shift`, TFLite's quantized multiplier: scale in
/// [2^30, 2^31), shift 0-63.
pub(crate) fn quantized_multiplier(m: f64) -> (u32, u32) {
    let exponent = m.log2().floor() as i32 + 1;
    let shift = (31 - exponent).clamp(0, 63) as u32;
    let scale = (m * 2f64.powi(shift as i32)).round();
    (scale.clamp(1.0, (u32::MAX >> 1) as f64) as u32, shift)
}

/// Where and how a feature map is laid out in memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FmPlacement {
    pub region: usize,
    pub shape: [usize; 3],
    pub dtype: DType,
    pub layout: Layout,
    pub tiles: Option<Tiles>,
    pub zero_point: i64,
    /// Strides with unused bytes between elements, rows and channel blocks.
    pub padded_strides: bool,
}

impl ConvSpec {
    fn ifm_placement(&self) -> FmPlacement {
        FmPlacement {
            region: self.regions[0],
            shape: self.ifm_shape(),
            dtype: self.ifm_type,
            layout: self.ifm_layout,
            tiles: self.ifm_tiles,
            zero_point: self.ifm_zero_point,
            padded_strides: self.padded_strides,
        }
    }

    fn ofm_placement(&self) -> FmPlacement {
        FmPlacement {
            region: self.regions[1],
            shape: self.ofm,
            dtype: self.ofm_type,
            layout: self.ofm_layout,
            tiles: self.ofm_tiles,
            zero_point: self.ofm_zero_point,
            padded_strides: self.padded_strides,
        }
    }
}

/// The regions being laid out: buffers one after another, 16-byte aligned,
/// with random bytes in between.
#[derive(Default)]
pub(crate) struct Memory {
    pub regions: BTreeMap<usize, Vec<u8>>,
}

impl Memory {
    /// Appends `bytes` to `region` after a random gap; returns its offset.
    pub(crate) fn alloc(&mut self, rng: &mut StdRng, region: usize, bytes: &[u8]) -> u64 {
        let r = self.regions.entry(region).or_default();
        let gap = 16 * rng.gen_range(0..=2);
        let base = r.len().next_multiple_of(16) + gap;
        r.extend((r.len()..base).map(|_| rng.gen::<u8>()));
        r.extend_from_slice(bytes);
        let end = r.len().next_multiple_of(16);
        r.extend((r.len()..end).map(|_| rng.gen::<u8>()));
        base as u64
    }

    /// Lays out a feature map: strides, then each tile's rows as a buffer
    /// of random bytes. Returns the feature map the registers describe.
    pub(crate) fn place(&mut self, rng: &mut StdRng, fm: FmPlacement) -> FeatureMap {
        let FmPlacement {
            region,
            shape: [h, w, c],
            dtype,
            layout,
            tiles,
            zero_point,
            padded_strides,
        } = fm;
        let t = tiles.unwrap_or(Tiles {
            width0: w,
            height0: h,
            height1: h,
        });
        let e = dtype.bytes();
        let extra = |rng: &mut StdRng, unit: usize, most: usize| {
            if padded_strides {
                unit * rng.gen_range(0..=most)
            } else {
                0
            }
        };
        let widest = t.width0.max(w - t.width0);
        let (stride_x, stride_y, stride_c) = match layout {
            Layout::Nhwc => {
                let x = c * e + extra(rng, e, 3);
                (x, widest * x + extra(rng, e, 9), e)
            }
            Layout::Nhcwb16 => {
                let sc = widest * 16 * e + extra(rng, 16, 2);
                (16 * e, c.div_ceil(16) * sc + extra(rng, 16, 2), sc)
            }
        };
        // Tile k's rows: 0 and 2 split the first width0 columns at height0,
        // 1 and 3 the others at height1.
        let rows = [
            t.height0,
            if t.width0 < w { t.height1 } else { 0 },
            h - t.height0,
            if t.width0 < w { h - t.height1 } else { 0 },
        ];
        let mut base = [0u64; 4];
        for (k, &n) in rows.iter().enumerate() {
            if n > 0 {
                let bytes: Vec<u8> = (0..n * stride_y).map(|_| rng.gen()).collect();
                base[k] = self.alloc(rng, region, &bytes);
            } else {
                base[k] = base[0];
            }
        }
        FeatureMap {
            region,
            base,
            stride_x: stride_x as i64,
            stride_y: stride_y as i64,
            stride_c: stride_c as i64,
            width0: t.width0,
            height0: t.height0,
            height1: t.height1,
            dtype,
            layout,
            zero_point,
        }
    }

    pub(crate) fn store(&mut self, fm: &FeatureMap, y: usize, x: usize, c: usize, v: i64) {
        let at = fm.offset(y, x, c) as usize;
        let region = self.regions.get_mut(&fm.region).expect("placed region");
        fm.dtype.store(v, &mut region[at..]);
    }
}

/// A command with the given fields of its value space (`npu_arch::command`).
pub(crate) fn cmd(op: Opcode, fields: &[(&str, u64)]) -> Command {
    let value = fields
        .iter()
        .fold(0, |v, &(name, x)| op.field(name).set(v, x));
    cmd_value(op, value)
}

/// Command `op` with the value of all its fields.
fn cmd_value(op: Opcode, value: u64) -> Command {
    match op.kind() {
        CmdKind::Cmd0 => Command::cmd0(op, value as u16),
        CmdKind::Cmd1 => Command::cmd1(op, (value >> 32) as u16, value as u32),
    }
}

/// Precision fields: signedness, 8/16/32 bits, layout.
pub(crate) fn precision(t: DType, layout: Layout) -> [(&'static str, u64); 3] {
    [
        ("activation_type", u64::from(t.signed)),
        ("activation_precision", u64::from(t.precision().bits())),
        ("activation_format", u64::from(layout.bits())),
    ]
}

/// The feature-map commands of the IFM and the OFM, in [`fm_commands`]'s order.
pub(crate) const IFM_FM_COMMANDS: [Opcode; 11] = [
    Opcode::NpuSetIfmRegion,
    Opcode::NpuSetIfmBase0,
    Opcode::NpuSetIfmBase1,
    Opcode::NpuSetIfmBase2,
    Opcode::NpuSetIfmBase3,
    Opcode::NpuSetIfmStrideX,
    Opcode::NpuSetIfmStrideY,
    Opcode::NpuSetIfmStrideC,
    Opcode::NpuSetIfmWidth0M1,
    Opcode::NpuSetIfmHeight0M1,
    Opcode::NpuSetIfmHeight1M1,
];
pub(crate) const OFM_FM_COMMANDS: [Opcode; 11] = [
    Opcode::NpuSetOfmRegion,
    Opcode::NpuSetOfmBase0,
    Opcode::NpuSetOfmBase1,
    Opcode::NpuSetOfmBase2,
    Opcode::NpuSetOfmBase3,
    Opcode::NpuSetOfmStrideX,
    Opcode::NpuSetOfmStrideY,
    Opcode::NpuSetOfmStrideC,
    Opcode::NpuSetOfmWidth0M1,
    Opcode::NpuSetOfmHeight0M1,
    Opcode::NpuSetOfmHeight1M1,
];

/// The feature-map settings of the IFM or OFM.
pub(crate) fn fm_commands(fm: &FeatureMap, ops: [Opcode; 11]) -> Vec<Command> {
    let [region, b0, b1, b2, b3, sx, sy, sc, w0, h0, h1] = ops;
    vec![
        cmd(region, &[("region", fm.region as u64)]),
        cmd(b0, &[("addr", fm.base[0])]),
        cmd(b1, &[("addr", fm.base[1])]),
        cmd(b2, &[("addr", fm.base[2])]),
        cmd(b3, &[("addr", fm.base[3])]),
        cmd(sx, &[("stride", fm.stride_x as u64)]),
        cmd(sy, &[("stride", fm.stride_y as u64)]),
        cmd(sc, &[("stride", fm.stride_c as u64)]),
        cmd(w0, &[("width_m1", fm.width0 as u64 - 1)]),
        cmd(h0, &[("height_m1", fm.height0 as u64 - 1)]),
        cmd(h1, &[("height_m1", fm.height1 as u64 - 1)]),
    ]
}

/// Every NPU_SET_* the operation reads, then the operation and NPU_OP_STOP.
fn commands(
    spec: &ConvSpec,
    ifm: &FeatureMap,
    ofm: &FeatureMap,
    weight_streams: &[(u64, usize)],
    scale_streams: Option<&[(u64, usize)]>,
    global_scale: ScaleRecord,
    (activation_min, activation_max): (u16, u16),
) -> Vec<Command> {
    use Opcode as O;
    let block = spec.block.expect("resolved block");
    let ib_end = spec.ib_end.expect("resolved IFM_IB_END") as u64;
    let [oh, ow, oc] = spec.ofm;
    let [dkh, dkw] = spec.dilated_kernel();
    let [sy, sx] = spec.stride.map(|s| s as u64 - 1);
    let mut out = fm_commands(ifm, IFM_FM_COMMANDS);
    out.extend([
        cmd(
            O::NpuSetIfmPrecision,
            &precision(spec.ifm_type, spec.ifm_layout),
        ),
        cmd(
            O::NpuSetIfmZeroPoint,
            &[("zero_point", spec.ifm_zero_point as u16 as u64)],
        ),
        cmd(
            O::NpuSetIfmDepthM1,
            &[("depth_m1", spec.ifm_channels() as u64 - 1)],
        ),
        cmd(O::NpuSetIfmPadTop, &[("pad", spec.pad[0] as u64)]),
        cmd(O::NpuSetIfmPadLeft, &[("pad", spec.pad[1] as u64)]),
        cmd(O::NpuSetIfmPadBottom, &[("pad", spec.pad[2] as u64)]),
        cmd(O::NpuSetIfmPadRight, &[("pad", spec.pad[3] as u64)]),
        cmd(
            O::NpuSetIfmUpscale,
            &[("mode", u64::from(spec.upscale.bits()))],
        ),
        cmd(O::NpuSetIfmIbEnd, &[("ib_end_kb", ib_end)]),
    ]);
    out.extend(fm_commands(ofm, OFM_FM_COMMANDS));
    let [signed, bits, layout] = precision(spec.ofm_type, spec.ofm_layout);
    out.extend([
        cmd(
            O::NpuSetOfmPrecision,
            &[
                signed,
                bits,
                layout,
                ("scale_mode", u64::from(spec.scale_mode.bits())),
                ("round_mode", u64::from(spec.round.bits())),
            ],
        ),
        cmd(
            O::NpuSetOfmZeroPoint,
            &[("zero_point", spec.ofm_zero_point as u16 as u64)],
        ),
        cmd(O::NpuSetOfmHeightM1, &[("height_m1", oh as u64 - 1)]),
        cmd(O::NpuSetOfmWidthM1, &[("width_m1", ow as u64 - 1)]),
        cmd(O::NpuSetOfmDepthM1, &[("depth_m1", oc as u64 - 1)]),
        cmd(
            O::NpuSetOfmBlkHeightM1,
            &[("height_m1", block[0] as u64 - 1)],
        ),
        cmd(O::NpuSetOfmBlkWidthM1, &[("width_m1", block[1] as u64 - 1)]),
        cmd(O::NpuSetOfmBlkDepthM1, &[("depth_m1", block[2] as u64 - 1)]),
        cmd(O::NpuSetKernelHeightM1, &[("height_m1", dkh as u64 - 1)]),
        cmd(O::NpuSetKernelWidthM1, &[("width_m1", dkw as u64 - 1)]),
        // TRM 4.6.4 NPU_SET_KERNEL_STRIDE: stride - 1 split into lsb and msb.
        cmd(
            O::NpuSetKernelStride,
            &[
                ("stride_x_lsb", sx & 1),
                ("stride_y_lsb", sy & 1),
                ("stride_x_msb", sx >> 1),
                ("stride_y_msb", sy >> 1),
                ("weight_order", u64::from(spec.weight_order.bits())),
                ("dilation_x", spec.dilation[1] as u64 - 1),
                ("dilation_y", spec.dilation[0] as u64 - 1),
                ("decomposition", u64::from(spec.decomposition.bits())),
            ],
        ),
        cmd(
            O::NpuSetParallelMode,
            &[("parallel_mode", u64::from(spec.parallel))],
        ),
        cmd(
            O::NpuSetAccFormat,
            &[("acc_format", u64::from(spec.acc.bits()))],
        ),
        cmd(
            O::NpuSetActivation,
            &[
                ("activation_function", spec.activation.bits().into()),
                ("activation_clip_range", u64::from(clip_range(spec).bits())),
            ],
        ),
        cmd(
            O::NpuSetActivationMin,
            &[("clip_min", activation_min.into())],
        ),
        cmd(
            O::NpuSetActivationMax,
            &[("clip_max", activation_max.into())],
        ),
        cmd(O::NpuSetWeightRegion, &[("region", spec.regions[2] as u64)]),
    ]);
    let weight_commands = [
        (O::NpuSetWeightBase, O::NpuSetWeightLength),
        (O::NpuSetWeight1Base, O::NpuSetWeight1Length),
    ];
    for (&(base, length), (base_op, length_op)) in weight_streams.iter().zip(weight_commands) {
        out.push(cmd(base_op, &[("addr", base)]));
        out.push(cmd(length_op, &[("length", length as u64)]));
    }
    let scale_commands = [
        (O::NpuSetScaleBase, O::NpuSetScaleLength),
        (O::NpuSetScale1Base, O::NpuSetScale1Length),
    ];
    match scale_streams {
        Some(streams) => {
            out.push(cmd(
                O::NpuSetScaleRegion,
                &[("region", spec.regions[3] as u64)],
            ));
            for (&(base, length), (base_op, length_op)) in streams.iter().zip(scale_commands) {
                out.push(cmd(base_op, &[("addr", base)]));
                out.push(cmd(length_op, &[("length", length as u64)]));
            }
        }
        None => out.push(cmd(
            O::NpuSetOfmScale,
            &[
                ("scale", global_scale.scale.into()),
                ("shift", global_scale.shift.into()),
            ],
        )),
    }
    // TRM 4.9.1: the accumulators follow the IFM buffers, as Vela places them.
    let ab_start = spec.ab_start.map_or(ib_end, |kb| kb as u64);
    out.push(cmd(O::NpuSetAbStart, &[("ab_start_kb", ab_start)]));
    out.push(cmd(O::NpuSetBlockdep, &[("blockdep", 0)]));
    out.push(match spec.kind {
        ConvKind::Conv => cmd(O::NpuOpConv, &[]),
        ConvKind::Depthwise => cmd(O::NpuOpDepthwise, &[]),
        ConvKind::Pool(mode) => cmd(O::NpuOpPool, &[("pooling_mode", u64::from(mode.bits()))]),
    });
    out.push(cmd(O::NpuOpStop, &[("mask", 1)]));
    out
}

/// A user DMA of the 2 KB at `source` of `region` to byte `lut_area` of the
/// shared buffer of each core in `cores` (TRM 3.3.3, 4.6.4
/// NPU_SET_DMA0_DST_REGION: internal, a core mask), as Vela loads a LUT.
pub fn lut_dma(region: usize, source: u64, cores: u64, lut_area: u64) -> Vec<Command> {
    use Opcode as O;
    vec![
        cmd(O::NpuSetDma0SrcRegion, &[("region", region as u64)]),
        cmd(
            O::NpuSetDma0DstRegion,
            &[("region", cores), ("region_mode", 1)],
        ),
        cmd(O::NpuSetDma0Src, &[("addr", source)]),
        cmd(O::NpuSetDma0Dst, &[("addr", lut_area)]),
        cmd(O::NpuSetDma0Len, &[("addr", LUT_BYTES as u64)]),
        cmd(O::NpuOpDmaStart, &[]),
    ]
}

/// NPU_SET_ACTIVATION bits 12-15: the OFM precision, or the OFM type named.
fn clip_range(spec: &ConvSpec) -> ActivationClipRange {
    match (spec.force_clip, spec.ofm_type) {
        (true, DType::U8) => ActivationClipRange::ForceUint8,
        (true, DType::I8) => ActivationClipRange::ForceInt8,
        (true, DType::I16) => ActivationClipRange::ForceInt16,
        _ => ActivationClipRange::OfmPrecision,
    }
}

/// An activation function the golden model allows with an OFM of type
/// `ofm` (TRM 4.8.2; a 16-bit LUT fills the 2 KB, so it is slot 0): tanh,
/// sigmoid or a LUT for 8- and 16-bit OFMs, none for 32-bit ones (a LUT
/// would need a clip range that forces an 8-bit type).
pub(crate) fn random_activation(rng: &mut StdRng, ofm: DType) -> ActivationFunction {
    let lut = match ofm.bits {
        8 => rng.gen_range(16..24),
        16 => 16,
        _ => return ActivationFunction::None,
    };
    let code = [3, 4, lut][rng.gen_range(0..3)];
    ActivationFunction::from_bits(code).expect("an activation function")
}

/// The last 2 KB of a core's shared buffer, where LUTs live (TRM 4.9.1).
pub const LUT_BYTES: usize = 2048;

/// Job `index` of a run with `seed`: its own generator, so one job of a run
/// is re-made from the run's seed and its index.
pub fn random_job(seed: u64, index: u64) -> ConvJob {
    let mut rng = StdRng::seed_from_u64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let spec = ConvSpec::random(&mut rng);
    spec.build(&mut rng)
        .unwrap_or_else(|e| panic!("the generator made an invalid spec ({e}): {spec:?}"))
}

/// As [`random_job`], a pool ([`ConvSpec::random_pool`]).
pub fn random_pool_job(seed: u64, index: u64) -> ConvJob {
    let mut rng =
        StdRng::seed_from_u64(seed ^ 0x706f_6f6c ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let spec = ConvSpec::random_pool(&mut rng);
    spec.build(&mut rng)
        .unwrap_or_else(|e| panic!("the generator made an invalid spec ({e}): {spec:?}"))
}

/// As [`random_job`], a convolution in parallel mode on u65-512
/// ([`ConvSpec::random_parallel`]).
pub fn random_parallel_job(seed: u64, index: u64) -> ConvJob {
    let mut rng =
        StdRng::seed_from_u64(seed ^ 0x7061_7261 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let spec = ConvSpec::random_parallel(&mut rng);
    spec.build(&mut rng)
        .unwrap_or_else(|e| panic!("the generator made an invalid spec ({e}): {spec:?}"))
}

/// Random operations run back to back in one command stream.
pub struct ConvChain {
    pub parts: Vec<ConvJob>,
    pub job: Job,
}

impl ConvChain {
    /// Each part's description, in stream order.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self.parts.iter().map(|p| p.spec.describe()).collect();
        format!("a chain of {}: {}", parts.len(), parts.join(", then "))
    }
}

/// Job `index` of a run with `seed`: two to four random operations
/// (convolutions, depthwise convolutions and pools; all on u65-256, or all
/// in parallel mode on u65-512) in one command stream ([`chain`]), each with
/// its own IFM, weights and scales and a random NPU_SET_BLOCKDEP (0 to 3),
/// so the next operation's weight and scale reads, and its first IFM block
/// read where the block dependency allows, go ahead while the one before it
/// finishes (TRM 4.6.1, 4.9).
pub fn random_chain(seed: u64, index: u64) -> ConvChain {
    let mut rng =
        StdRng::seed_from_u64(seed ^ 0x6368_6169 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let parallel = rng.gen_bool(0.3);
    let count = rng.gen_range(2..=4);
    let parts: Vec<ConvSpec> = (0..count)
        .map(|_| random_part(&mut rng, parallel))
        .collect();
    // The parts share no data, so any block dependency is safe.
    let blockdeps: Vec<u16> = (0..count)
        .map(|_| rng.gen_range(0..=BLOCKDEP_MAX as u16))
        .collect();
    chain(&parts, &blockdeps, &mut rng)
}

/// Job `index` of a run with `seed`: two random operations (as
/// [`random_chain`] draws them), the second reading the first's OFM as its
/// IFM, with NPU_SET_BLOCKDEP the largest that is safe for their blocks
/// ([`largest_safe_blockdep`]) or 0, half the time each (TRM 4.9).
pub fn random_dependent_chain(seed: u64, index: u64) -> ConvChain {
    let mut rng =
        StdRng::seed_from_u64(seed ^ 0x6465_7065 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let parallel = rng.gen_bool(0.3);
    let (first, second) = loop {
        let second = random_part(&mut rng, parallel);
        let first =
            random_part(&mut rng, parallel).with_ofm(second.ifm_shape(), second.ifm_type, &mut rng);
        if first.check().is_ok() {
            break (first, second);
        }
    };
    let built = chain(&[first, second], &[0, 0], &mut rng);
    let ofm = built.parts[0].ofm_map.clone();
    let mut commands = decode(&built.job.command_stream).expect("the chain's own stream");
    let second_start = commands
        .iter()
        .position(|c| c.op.is_kernel_op())
        .expect("the first operation")
        + 1;
    point_fm(&mut commands[second_start..], &ofm, FmRole::Ifm);
    let job = |commands: &[Command], what: &str| {
        Job::in_memory(
            built.job.config.clone(),
            encode(commands),
            built.job.regions.clone(),
            what,
        )
    };
    let (blockdep, safe) = draw_blockdep(&job(&commands, ""), &mut rng);
    set_blockdep(&mut commands[second_start..], blockdep);
    let what = format!(
        "{}, the second reading the first's OFM with BLOCKDEP {blockdep} (largest safe {safe})",
        built.describe()
    );
    ConvChain {
        job: job(&commands, &what),
        parts: built.parts,
    }
}

/// One operation's commands without the NPU_OP_STOP that ends them.
pub(crate) fn body(commands: &[Command]) -> Vec<Command> {
    let (stop, body) = commands.split_last().expect("a command stream");
    assert_eq!(
        stop.op,
        Opcode::NpuOpStop,
        "an operation's stream ends with NPU_OP_STOP"
    );
    body.to_vec()
}

/// Before an operation's commands `next` that load its LUT with user DMAs,
/// NPU_OP_KERNEL_WAIT 0: the kernel operations before it finish first, as
/// Vela orders a DMA into a shared-buffer area an earlier operation reads.
pub(crate) fn wait_for_lut_loads(commands: &mut Vec<Command>, next: &[Command]) {
    if next.iter().any(|c| c.op == Opcode::NpuOpDmaStart) {
        commands.push(Command::cmd0(Opcode::NpuOpKernelWait, 0));
    }
}

/// Adds `from`'s regions to `into`; each part of a job has its own.
pub(crate) fn merge_regions(into: &mut BTreeMap<usize, Vec<u8>>, from: &BTreeMap<usize, Vec<u8>>) {
    for (&region, bytes) in from {
        let clash = into.insert(region, bytes.clone());
        assert!(clash.is_none(), "region {region} belongs to one part");
    }
}

/// NPU_SET_BLOCKDEP for the last kernel operation of `job` (TRM 4.9): the
/// largest safe for its blocks and the operation's before it
/// ([`largest_safe_blockdep`]), or 0, half the time each. Returns the one
/// drawn and the largest safe.
pub(crate) fn draw_blockdep(job: &Job, rng: &mut StdRng) -> (u16, usize) {
    let footprints = block_footprints(job).expect("the generator's own regions");
    let [.., (_, before), (_, last)] = &footprints[..] else {
        panic!("two kernel operations or more, not {}", footprints.len());
    };
    let safe = largest_safe_blockdep(before, last);
    let drawn = if rng.gen_bool(0.5) { safe } else { 0 };
    (drawn as u16, safe)
}

/// Sets NPU_SET_BLOCKDEP among `commands` (one operation's) to `k`.
pub(crate) fn set_blockdep(commands: &mut [Command], k: u16) {
    for c in commands {
        if c.op == Opcode::NpuSetBlockdep {
            *c = Command::cmd0(Opcode::NpuSetBlockdep, k);
        }
    }
}

/// Which feature map of an operation [`point_fm`] moves.
pub(crate) enum FmRole {
    Ifm,
    Ofm,
}

/// Points the IFM or OFM settings among `commands` (one operation's) at
/// `map`: its region, bases, strides, tiles and layout (the element type is
/// the caller's to match), so the operation reads or writes another
/// operation's feature map.
pub(crate) fn point_fm(commands: &mut [Command], map: &FeatureMap, role: FmRole) {
    let (ops, precision) = match role {
        FmRole::Ifm => (IFM_FM_COMMANDS, Opcode::NpuSetIfmPrecision),
        FmRole::Ofm => (OFM_FM_COMMANDS, Opcode::NpuSetOfmPrecision),
    };
    let settings = fm_commands(map, ops);
    for c in commands {
        if let Some(i) = ops.iter().position(|&op| op == c.op) {
            *c = settings[i];
        } else if c.op == precision {
            let format = u64::from(map.layout.bits());
            *c = cmd_value(c.op, c.op.field("activation_format").set(c.value(), format));
        }
    }
}

/// One operation of a random chain: a pool a third of the time, in
/// parallel mode on u65-512 or on u65-256 as `parallel` says.
pub(crate) fn random_part(rng: &mut StdRng, parallel: bool) -> ConvSpec {
    loop {
        let spec = match rng.gen_range(0..3) {
            0 => ConvSpec::random_pool(rng),
            _ if parallel => ConvSpec::random_parallel(rng),
            _ => ConvSpec::random(rng),
        };
        if spec.parallel == parallel {
            return spec;
        }
    }
}

/// `parts` built with `rng` and run back to back, part k with
/// NPU_SET_BLOCKDEP `blockdeps[k]` and the regions r with r mod n = k of the
/// n parts (so no part's data moves and none reads another's). A part that
/// loads its LUT with user DMAs waits for the kernel operations before it
/// first (NPU_OP_KERNEL_WAIT 0), as Vela orders a DMA into a shared-buffer
/// area an earlier operation reads.
pub fn chain(parts: &[ConvSpec], blockdeps: &[u16], rng: &mut StdRng) -> ConvChain {
    let count = parts.len();
    let parts: Vec<ConvJob> = parts
        .iter()
        .enumerate()
        .map(|(part, spec)| {
            let own: Vec<usize> = (0..REGIONS).filter(|r| r % count == part).collect();
            let spec = ConvSpec {
                regions: spec.regions.map(|r| own[r % own.len()]),
                ..spec.clone()
            };
            spec.build(rng)
                .unwrap_or_else(|e| panic!("the generator made an invalid spec ({e}): {spec:?}"))
        })
        .collect();
    let mut commands = Vec::new();
    let mut regions = BTreeMap::new();
    for (k, part) in parts.iter().enumerate() {
        let mut body = body(&part.commands);
        set_blockdep(&mut body, blockdeps[k]);
        if k > 0 {
            wait_for_lut_loads(&mut commands, &body);
        }
        commands.extend(body);
        merge_regions(&mut regions, &part.job.regions);
    }
    let stop = parts.last().and_then(|p| p.commands.last());
    commands.push(*stop.expect("a part"));
    let job = Job::in_memory(
        parts[0].job.config.clone(),
        encode(&commands),
        regions,
        &format!("{count} operations back to back"),
    );
    ConvChain { parts, job }
}

/// Runs `job` on the golden model, which must run it to NPU_OP_STOP.
pub fn golden_run(job: &Job) -> Result<BackendRun, String> {
    job.check()
        .map_err(|e| format!("the runner refuses the job: {e}"))?;
    let run = GoldenBackend::default()
        .run(job, &mut |_, _| {})
        .map_err(|e| format!("golden model: {e:#}"))?;
    if !run.completed() {
        return Err(format!(
            "the golden model did not reach NPU_OP_STOP: STATUS {}{}",
            npu_model::job::describe_status(run.status),
            run.fault
                .as_ref()
                .map_or(String::new(), |f| format!(" ({f})"))
        ));
    }
    Ok(run)
}

/// Runs `job` on the golden model and the RTL; `Err` says what differs
/// (STATUS, QREAD, IRQ, a region's byte or the shared buffer).
pub fn rtl_agrees(job: &Job) -> Result<(), String> {
    rtl_agrees_on(job, &mut RtlBackend::default())
}

/// As [`rtl_agrees`], with the RTL behind `memory`.
pub fn rtl_agrees_under(job: &Job, memory: &MemorySystem) -> Result<(), String> {
    rtl_agrees_on(job, &mut memory.backend())
}

fn rtl_agrees_on(job: &Job, rtl: &mut RtlBackend) -> Result<(), String> {
    let golden = golden_run(job)?;
    let run = rtl
        .run(job, &mut |_, _| {})
        .map_err(|e| format!("RTL: {e:#}"))?;
    difference(&golden, &run).map_or(Ok(()), Err)
}

/// What the RTL's AXI managers see: the settings the driver programs
/// (REGIONCFG, QCONFIG, AXI_LIMIT0-3, which put each channel on a port and
/// bound its bursts and outstanding transactions) and the memory behind M0
/// and M1 (latency, back-pressure, reordering, bandwidth, ACLKEN).
#[derive(Clone, Debug)]
pub struct MemorySystem {
    pub settings: AxiSettings,
    pub axi_configs: [CompleterConfig; 2],
    pub aclken_patterns: [Vec<bool>; 2],
    /// Seed of the completers' own randomness.
    pub axi_seed: u64,
}

impl MemorySystem {
    /// Random settings ([`AxiSettings::random`]) and, per port, random
    /// latency, back-pressure and response delays with reordering, at times
    /// a bandwidth or outstanding-transaction limit, and an ACLKEN pattern.
    pub fn random(rng: &mut StdRng) -> MemorySystem {
        let settings = AxiSettings::random(rng);
        let port = |rng: &mut StdRng| {
            let mut port = CompleterConfig {
                reorder: true,
                max_reads: rng.gen_bool(0.25).then(|| rng.gen_range(1..=8)),
                max_writes: rng.gen_bool(0.25).then(|| rng.gen_range(1..=8)),
                bytes_per_cycle: rng.gen_bool(0.25).then(|| rng.gen_range(2.0..=16.0)),
                ..CompleterConfig::random(rng)
            };
            // A memory that holds n transactions has at most 128n cycles of
            // latency (half a byte a cycle with 64-byte bursts): one that
            // holds one behind 1000 cycles would make a run millions of
            // cycles long and test nothing more.
            let bound = |limit: Option<usize>, latency: u64| {
                limit.map_or(latency, |n| latency.min(128 * n as u64))
            };
            port.read_latency = bound(port.max_reads, port.read_latency);
            port.write_latency = bound(port.max_writes, port.write_latency);
            port
        };
        let axi_configs = [port(rng), port(rng)];
        MemorySystem {
            settings,
            axi_configs,
            aclken_patterns: [random_aclken_pattern(rng), random_aclken_pattern(rng)],
            axi_seed: rng.gen(),
        }
    }

    /// The random memory system of job `index` of a run with `seed`, drawn
    /// apart from the job itself ([`random_job`]).
    pub fn for_job(seed: u64, index: u64) -> MemorySystem {
        let salt = 0x6d65_6d6f_7279_0000;
        MemorySystem::random(&mut StdRng::seed_from_u64(
            seed ^ salt ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        ))
    }

    /// Each port's latency, limits and bandwidth, in one line.
    pub fn describe(&self) -> String {
        describe_ports(&self.axi_configs)
    }

    /// An RTL backend behind this memory system.
    pub fn backend(&self) -> RtlBackend {
        RtlBackend {
            settings: self.settings.clone(),
            axi_configs: self.axi_configs.clone(),
            aclken_patterns: self.aclken_patterns.clone(),
            axi_seed: Some(self.axi_seed),
            ..RtlBackend::default()
        }
    }
}

/// Writes `job` as a job folder (`npu-sim run DIR --model rtl --vcd F`
/// re-runs it), every region an output.
pub fn save(job: &Job, dir: &Path) -> anyhow::Result<()> {
    save_job(
        dir,
        &job.config,
        &bytes_to_words(&job.command_stream)?,
        &job.regions,
        job.spec
            .description
            .as_deref()
            .unwrap_or("a random convolution job"),
    )
}
