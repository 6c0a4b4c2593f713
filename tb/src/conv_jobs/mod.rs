//! Random convolution jobs: NPU_OP_CONV, NPU_OP_DEPTHWISE and NPU_OP_POOL
//! (max, average, REDUCE_SUM, int32 IFMs too) as complete jobs (command
//! stream, IFM, weight and scale/bias streams where the operation has them,
//! OFM regions) for the random datapath suites and the convolution bench.
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
//! Files: `spec` draws a spec, `blocks` resolves and checks its OFM block and
//! IFM buffer, `memory` builds its data into regions, `commands` writes its
//! stream, `chain` puts several in one stream, `run` runs a job on the golden
//! model and the RTL. What every generated stream promises the RTL (TRM 4.9:
//! blocks, buffers, feature maps, parallel mode, activations) is in
//! `docs/datapath.md`, "What a random operation promises the RTL".

use npu_arch::command::{
    AccFormat, ActivationFunction, KernelDecomposition, Layout, OfmScaleMode, PoolingMode,
    RoundMode, UpscaleMode, WeightOrder as WeightOrderBit,
};
use npu_model::cmdstream::{encode, Command};
use npu_model::job::Job;
use npu_model::ops::ScaleRecord;
use npu_model::tensor::{DType, FeatureMap};
use npu_model::weights::EncodeOptions;
use rand::rngs::StdRng;
use rand::SeedableRng;

mod spec;

pub use chain::{chain, random_chain, random_dependent_chain};
pub(crate) use chain::{merge_regions, random_part};
pub use commands::lut_dma;
pub(crate) use commands::{
    body, cmd, draw_blockdep, fm_commands, point_fm, precision, random_activation, set_blockdep,
    wait_for_lut_loads, FmRole, IFM_FM_COMMANDS, OFM_FM_COMMANDS,
};
pub(crate) use memory::{quantized_multiplier, FmPlacement, Memory};
pub use run::{golden_run, rtl_agrees, rtl_agrees_under, save, MemorySystem};
pub(crate) use spec::random_tiles;
mod blocks;
mod chain;
mod commands;
mod memory;
mod run;

/// Base-pointer regions a job may use.
const REGIONS: usize = 8;

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
