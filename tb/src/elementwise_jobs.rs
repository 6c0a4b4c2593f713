//! Random elementwise jobs: valid NPU_OP_ELEMENTWISE operations (TRM 4.8.2
//! table 4-124) as complete jobs, for the random datapath suite and the
//! elementwise benchmark.
//!
//! An [`ElementwiseSpec`] holds the knobs: mode, IFM and OFM types, OFM
//! shape, IFM2 as a tensor (broadcast in any of height, width and depth),
//! a scalar or absent (unary modes), reversed operand order, the ADD/SUB
//! input-scale mode and rounding, the three scales, output rounding, zero
//! points, layouts and tiles, activation function and bounds, OFM block
//! and the IFM/IFM2 buffers. [`ElementwiseSpec::random`] draws one,
//! [`ElementwiseSpec::build`] makes the job with random data,
//! [`random_elementwise_job`] does both.
//!
//! # What the command stream promises the RTL (TRM 4.9.1 table 4-137)
//!
//! IFM buffers IB0/IB1 are the halves of [2 KB, IFM2_IB_START), IFM2's the
//! halves of [IFM2_IB_START, IFM_IB_END) (with no IFM2 in memory the IFM
//! has [2 KB, IFM_IB_END)); IFM_IB_END is at most 46 (the LUT keeps the
//! last 2 KB). An OFM block's IFM block fits a half: positions times
//! ALIGN(depth * element bytes, 8) (TRM table 4-135), and IFM2's block with
//! its broadcast dimensions 1. 60 % of the specs take the block and layout
//! Vela chooses ([`crate::vela_blocks`]: IFM2_IB_START after an IFM buffer
//! of the block's size, IFM_IB_END and AB_START 46).

use crate::conv_jobs::{
    body, cmd, draw_blockdep, fm_commands, lut_dma, merge_regions, point_fm, precision,
    quantized_multiplier, random_activation, random_part, random_tiles, set_blockdep,
    wait_for_lut_loads, FmPlacement, FmRole, Memory, Tiles, IFM_FM_COMMANDS, OFM_FM_COMMANDS,
};
use crate::vela_blocks::{find_block_config, BlockKind, BlockQuery, Resampling};
use npu_arch::command::{
    ActivationClipRange, ActivationFunction, ElementwiseMode, IfmRoundMode, IfmScaleMode, Layout,
    Opcode, RoundMode,
};
use npu_arch::config::NpuConfig;
use npu_arch::limits::BLOCKDEP_MAX;
use npu_arch::shared_buffer::{IB_END_MAX_KB, LUT_BYTES};
use npu_model::cmdstream::builders;
use npu_model::cmdstream::{encode, Command};
use npu_model::job::Job;
use npu_model::tensor::{DType, FeatureMap};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// IFM2: a tensor (broadcast dimensions `[h, w, c]`), a scalar, or none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ifm2 {
    Tensor { broadcast: [bool; 3] },
    Scalar(i64),
    None,
}

/// Every parameter of one elementwise job.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementwiseSpec {
    pub mode: ElementwiseMode,
    pub ifm_type: DType,
    pub ofm_type: DType,
    /// OFM (and IFM) height, width, depth.
    pub ofm: [usize; 3],
    pub ifm2: Ifm2,
    /// IFM2_BROADCAST bit 6: IFM2 is operand A.
    pub reversed: bool,
    pub scale_mode: IfmScaleMode,
    pub input_round: IfmRoundMode,
    /// NPU_SET_OPA_SCALE (scale, shift), NPU_SET_OPB_SCALE, NPU_SET_OFM_SCALE.
    pub opa: (u32, u32),
    pub opb: u16,
    pub ofm_scale: (u32, u32),
    pub round: RoundMode,
    pub zero_points: [i64; 3],
    /// Layouts of IFM, IFM2 and OFM, and the tiles of each (`None` is one).
    pub layouts: [Layout; 3],
    pub tiles: [Option<Tiles>; 3],
    pub padded_strides: bool,
    pub activation: ActivationFunction,
    /// ACTIVATION_MIN/MAX in the OFM type; `None` is the type's range.
    pub clamp: Option<(i64, i64)>,
    pub block: [usize; 3],
    /// NPU_SET_IFM2_IB_START and NPU_SET_IFM_IB_END in KB.
    pub ifm2_ib_start: usize,
    pub ib_end: usize,
    /// u65-512, and on it NPU_SET_PARALLEL_MODE 1 (as Vela sets it: each
    /// core's output unit takes every other channel, with its own LUT).
    pub u65_512: bool,
    pub parallel: bool,
    /// Regions of IFM, IFM2 and OFM.
    pub regions: [usize; 3],
}

/// A built job and where its feature maps are.
#[derive(Clone, Debug)]
pub struct ElementwiseJob {
    pub job: Job,
    pub commands: Vec<Command>,
    pub ifm: FeatureMap,
    pub ifm2: FeatureMap,
    pub ofm: FeatureMap,
}

/// TRM table 4-135: ALIGN(IFM_MEMBLK_DEPTH x bytes, 8).
fn bytes_per_position(depth: usize, t: DType) -> usize {
    (depth * t.bytes()).next_multiple_of(8)
}

impl ElementwiseSpec {
    /// `mode` on an `ofm`-shaped IFM and IFM2 tensor of `ifm_type` (none
    /// for unary modes) to `ofm_type`: no broadcast, unit scales
    /// (Opa16Opb16 1 and 1, OFM scale 1), zero points 0, NHWC, no
    /// activation function, TFL rounding, the largest block up to 8x16x64
    /// that fits, IFM, IFM2 and OFM in regions 1-3, on u65-256.
    pub fn new(mode: ElementwiseMode, ifm_type: DType, ofm_type: DType, ofm: [usize; 3]) -> Self {
        let unary = mode.unary();
        let mut spec = ElementwiseSpec {
            mode,
            ifm_type,
            ofm_type,
            ofm,
            ifm2: if unary {
                Ifm2::None
            } else {
                Ifm2::Tensor {
                    broadcast: [false; 3],
                }
            },
            reversed: false,
            scale_mode: IfmScaleMode::Opa16Opb16,
            input_round: IfmRoundMode::DoubleRounding,
            opa: (1, 0),
            opb: 1,
            ofm_scale: (1, 0),
            round: RoundMode::Tfl,
            zero_points: [0; 3],
            layouts: [Layout::Nhwc; 3],
            tiles: [None; 3],
            padded_strides: false,
            activation: ActivationFunction::None,
            clamp: None,
            block: [8, 16, 64],
            ifm2_ib_start: 0,
            ib_end: 0,
            u65_512: false,
            parallel: false,
            regions: [1, 2, 3],
        };
        spec.fit_buffers();
        spec
    }

    /// A random valid operation.
    pub fn random(rng: &mut StdRng) -> ElementwiseSpec {
        use ElementwiseMode as M;
        let mode = [
            M::Mul,
            M::Add,
            M::Sub,
            M::Min,
            M::Max,
            M::Lrelu,
            M::Abs,
            M::Clz,
            M::Shr,
            M::Shl,
        ][rng.gen_range(0..10)];
        let small = [DType::U8, DType::I8, DType::I16];
        let any = [DType::U8, DType::I8, DType::I16, DType::I32];
        let (ifm_type, ofm_type) = match mode {
            M::Mul | M::Add | M::Sub => (any[rng.gen_range(0..4)], any[rng.gen_range(0..4)]),
            M::Min | M::Max | M::Lrelu | M::Abs => {
                let t = small[rng.gen_range(0..3)];
                (t, t)
            }
            M::Shr => (DType::I32, any[rng.gen_range(0..4)]),
            M::Clz | M::Shl => (DType::I32, DType::I32),
        };
        Self::random_of(rng, mode, ifm_type, ofm_type, None)
    }

    /// A random valid `mode` operation from `ifm_type` to `ofm_type` (a
    /// pair TRM 4.8.2 table 4-124 allows), on u65-512 if `u65_512` says so,
    /// else a fifth of the time.
    pub fn random_of(
        rng: &mut StdRng,
        mode: ElementwiseMode,
        ifm_type: DType,
        ofm_type: DType,
        u65_512: Option<bool>,
    ) -> ElementwiseSpec {
        use ElementwiseMode as M;
        let unary = mode.unary();
        let wide = ifm_type.bits == 32 || ofm_type.bits == 32;
        let ofm = [
            rng.gen_range(1..=10),
            rng.gen_range(1..=10),
            rng.gen_range(1..=40),
        ];
        let zero_point = |rng: &mut StdRng, t: DType| {
            if t.bits == 32 || rng.gen_bool(0.3) {
                0
            } else {
                rng.gen_range(t.min().max(-1000)..=t.max().min(1000))
            }
        };
        let ifm2 = if unary {
            Ifm2::None
        } else if ifm_type.bits != 32 && rng.gen_bool(0.15) {
            Ifm2::Scalar(rng.gen_range(ifm_type.min()..=ifm_type.max()))
        } else {
            let mut b = [false; 3];
            if rng.gen_bool(0.5) {
                b = [rng.gen_bool(0.4), rng.gen_bool(0.4), rng.gen_bool(0.4)];
            }
            Ifm2::Tensor { broadcast: b }
        };
        // Input scaling only for ADD/SUB without a 32-bit type (table 4-124).
        let scale_mode = if matches!(mode, M::Add | M::Sub) && !wide {
            [
                IfmScaleMode::Opa16Opb16,
                IfmScaleMode::Opa32,
                IfmScaleMode::Opb32,
            ][rng.gen_range(0..3)]
        } else {
            IfmScaleMode::Opa16Opb16
        };
        let opa = match scale_mode {
            IfmScaleMode::Opa16Opb16 => (rng.gen_range(0..=0xffff), 0),
            _ => quantized_multiplier(rng.gen_range(0.05..0.99)),
        };
        let ofm_scale = if rng.gen_bool(0.2) {
            (rng.gen(), rng.gen_range(0..=63))
        } else {
            quantized_multiplier(2f64.powf(rng.gen_range(-36.0..4.0)))
        };
        let layout = |rng: &mut StdRng, t: DType| {
            if t.bits < 32 && rng.gen_bool(0.4) {
                Layout::Nhcwb16
            } else {
                Layout::Nhwc
            }
        };
        let layouts = [
            layout(rng, ifm_type),
            layout(rng, ifm_type),
            layout(rng, ofm_type),
        ];
        let ifm2_shape = Self::ifm2_shape_of(ofm, ifm2);
        let tiles = [
            (layouts[0] == Layout::Nhcwb16 && rng.gen_bool(0.3))
                .then(|| random_tiles(rng, ofm[0], ofm[1])),
            (layouts[1] == Layout::Nhcwb16 && rng.gen_bool(0.3))
                .then(|| random_tiles(rng, ifm2_shape[0], ifm2_shape[1])),
            (layouts[2] == Layout::Nhcwb16 && rng.gen_bool(0.3))
                .then(|| random_tiles(rng, ofm[0], ofm[1])),
        ];
        let activation = if ofm_type.bits < 32 && rng.gen_bool(0.2) {
            random_activation(rng, ofm_type)
        } else {
            ActivationFunction::None
        };
        let clamp = (ofm_type.bits < 32 && rng.gen_bool(0.2)).then(|| {
            let a = rng.gen_range(ofm_type.min()..=ofm_type.max());
            let b = rng.gen_range(ofm_type.min()..=ofm_type.max());
            (a.min(b), a.max(b))
        });
        let mut spec = ElementwiseSpec {
            mode,
            ifm_type,
            ofm_type,
            ofm,
            ifm2,
            reversed: rng.gen_bool(0.3),
            scale_mode,
            input_round: [IfmRoundMode::DoubleRounding, IfmRoundMode::Natural][rng.gen_range(0..2)],
            opa,
            opb: rng.gen(),
            ofm_scale,
            round: [RoundMode::Tfl, RoundMode::Truncate, RoundMode::Natural][rng.gen_range(0..3)],
            zero_points: [
                zero_point(rng, ifm_type),
                zero_point(rng, ifm_type),
                if mode == M::Clz {
                    0
                } else {
                    zero_point(rng, ofm_type)
                },
            ],
            layouts,
            tiles,
            padded_strides: rng.gen_bool(0.3),
            activation,
            clamp,
            block: [
                2 * rng.gen_range(1..=8),
                2 * rng.gen_range(1..=16),
                8 * rng.gen_range(1..=8),
            ],
            ifm2_ib_start: 0,
            ib_end: 0,
            u65_512: u65_512.unwrap_or_else(|| rng.gen_bool(0.2)),
            parallel: false,
            regions: [
                rng.gen_range(0..8),
                rng.gen_range(0..8),
                rng.gen_range(0..8),
            ],
        };
        spec.parallel = spec.u65_512 && rng.gen_bool(0.75);
        if !(rng.gen_bool(0.6) && spec.take_vela_block()) {
            spec.fit_buffers();
        }
        spec
    }

    /// Takes the OFM block and the shared-buffer layout Vela chooses
    /// ([`crate::vela_blocks::find_block_config`]); false, and the spec as
    /// it was, where Vela finds none.
    pub fn take_vela_block(&mut self) -> bool {
        let query = BlockQuery {
            cores: if self.u65_512 { 2 } else { 1 },
            kind: BlockKind::Elementwise,
            ofm: self.ofm,
            ifm: self.ofm,
            ifm2: self.ifm2_in_memory().then(|| self.ifm2_shape()),
            scalar: matches!(self.ifm2, Ifm2::Scalar(_)),
            ifm_bits: self.ifm_type.bits as usize,
            kernel: [1, 1],
            stride: [1, 1],
            dilation: [1, 1],
            lut: self.activation.bits() >= 16,
            scaled: true,
            resampling: Resampling::None,
        };
        let Some(config) = find_block_config(&query) else {
            return false;
        };
        self.block = config.ofm_block;
        self.ifm2_ib_start = config.ib_start2;
        self.ib_end = config.ib_end;
        true
    }

    fn ifm2_shape_of(ofm: [usize; 3], ifm2: Ifm2) -> [usize; 3] {
        match ifm2 {
            Ifm2::Tensor { broadcast } => [0, 1, 2].map(|d| if broadcast[d] { 1 } else { ofm[d] }),
            _ => [1, 1, 1],
        }
    }

    /// IFM2's extent (1 in broadcast dimensions).
    pub fn ifm2_shape(&self) -> [usize; 3] {
        Self::ifm2_shape_of(self.ofm, self.ifm2)
    }

    fn ifm2_in_memory(&self) -> bool {
        matches!(self.ifm2, Ifm2::Tensor { .. })
    }

    /// Shrinks the block until its IFM and IFM2 blocks fit the buffers, and
    /// places the buffers (IFM first, IFM2 after it); again after a change
    /// of the shape, block or IFM2.
    pub fn fit_buffers(&mut self) {
        loop {
            let [bh, bw, bd] = [0, 1, 2].map(|d| self.block[d].min(self.ofm[d]));
            let ifm_kb = (bh * bw * bytes_per_position(bd, self.ifm_type)).div_ceil(1024);
            let ifm2_block = match self.ifm2 {
                Ifm2::Tensor {
                    broadcast: [h, w, c],
                } => [
                    if h { 1 } else { bh },
                    if w { 1 } else { bw },
                    if c { 1 } else { bd },
                ],
                _ => [0, 0, 0],
            };
            let ifm2_kb =
                (ifm2_block[0] * ifm2_block[1] * bytes_per_position(ifm2_block[2], self.ifm_type))
                    .div_ceil(1024);
            let ifm2_start = 2 + 2 * ifm_kb;
            let ib_end = ifm2_start + 2 * ifm2_kb;
            if ib_end <= IB_END_MAX_KB {
                self.ifm2_ib_start = ifm2_start;
                self.ib_end = if self.ifm2_in_memory() {
                    ib_end
                } else {
                    IB_END_MAX_KB
                };
                return;
            }
            let [h, w, d] = &mut self.block;
            if *d > 8 {
                *d -= 8;
            } else if *w > 2 {
                *w -= 2;
            } else {
                *h -= 2;
            }
        }
    }

    /// One line naming the operation and its knobs.
    pub fn describe(&self) -> String {
        let [h, w, c] = self.ofm;
        format!(
            "{:?} {} -> {} {h}x{w}x{c}, IFM2 {:?}{}, {:?} {:?}, block {:?}, {}",
            self.mode,
            self.ifm_type,
            self.ofm_type,
            self.ifm2,
            if self.reversed { " reversed" } else { "" },
            self.scale_mode,
            self.activation,
            self.block,
            match (self.u65_512, self.parallel) {
                (false, _) => "u65-256",
                (true, false) => "u65-512",
                (true, true) => "u65-512 in parallel mode",
            },
        )
    }

    /// The job, with random IFM and IFM2 data.
    pub fn build(&self, rng: &mut StdRng) -> ElementwiseJob {
        let config = if self.u65_512 {
            NpuConfig::u65_512()
        } else {
            NpuConfig::u65_256()
        };
        let mut memory = Memory::default();
        let regions = self.regions;
        let place = |memory: &mut Memory, rng: &mut StdRng, k: usize, shape, dtype| {
            memory.place(
                rng,
                FmPlacement {
                    region: regions[k],
                    shape,
                    dtype,
                    layout: self.layouts[k],
                    tiles: self.tiles[k],
                    zero_point: self.zero_points[k],
                    padded_strides: self.padded_strides,
                },
            )
        };
        let ifm = place(&mut memory, rng, 0, self.ofm, self.ifm_type);
        fill(&mut memory, rng, &ifm, self.ofm);
        let ifm2 = place(&mut memory, rng, 1, self.ifm2_shape(), self.ifm_type);
        if self.ifm2_in_memory() {
            fill(&mut memory, rng, &ifm2, self.ifm2_shape());
        }
        let ofm = place(&mut memory, rng, 2, self.ofm, self.ofm_type);
        let mut commands = Vec::new();
        if self.activation.bits() >= 16 {
            let lut_area =
                config.shram_kib as u64 * 1024 / u64::from(config.cores) - LUT_BYTES as u64;
            for core in 0..config.cores {
                let lut: Vec<u8> = (0..LUT_BYTES).map(|_| rng.gen()).collect();
                let source = memory.alloc(rng, regions[0], &lut);
                commands.extend(lut_dma(regions[0], source, 1 << core, lut_area));
            }
            commands.push(builders::NpuOpDmaWait::default().k(0).command());
        }
        commands.extend(self.commands(&ifm, &ifm2, &ofm));
        let job = Job::in_memory(config, encode(&commands), memory.regions, &self.describe());
        ElementwiseJob {
            job,
            commands,
            ifm,
            ifm2,
            ofm,
        }
    }

    fn commands(&self, ifm: &FeatureMap, ifm2: &FeatureMap, ofm: &FeatureMap) -> Vec<Command> {
        use Opcode as O;
        let [oh, ow, oc] = self.ofm;
        let mut out = fm_commands(ifm, IFM_FM_COMMANDS);
        out.extend(fm_commands(
            ifm2,
            [
                O::NpuSetIfm2Region,
                O::NpuSetIfm2Base0,
                O::NpuSetIfm2Base1,
                O::NpuSetIfm2Base2,
                O::NpuSetIfm2Base3,
                O::NpuSetIfm2StrideX,
                O::NpuSetIfm2StrideY,
                O::NpuSetIfm2StrideC,
                O::NpuSetIfm2Width0M1,
                O::NpuSetIfm2Height0M1,
                O::NpuSetIfm2Height1M1,
            ],
        ));
        out.extend(fm_commands(ofm, OFM_FM_COMMANDS));
        let [signed, bits, layout] = precision(self.ifm_type, self.layouts[0]);
        let [_, _, layout2] = precision(self.ifm_type, self.layouts[1]);
        let [ofm_signed, ofm_bits, ofm_layout] = precision(self.ofm_type, self.layouts[2]);
        let (broadcast, scalar) = match self.ifm2 {
            Ifm2::Tensor { broadcast } => (broadcast, 0),
            Ifm2::Scalar(v) => ([false; 3], v as u16),
            Ifm2::None => ([false; 3], 0),
        };
        let broadcast_fields = [
            ("broadcast_h", u64::from(broadcast[0])),
            ("broadcast_w", u64::from(broadcast[1])),
            ("broadcast_c", u64::from(broadcast[2])),
            ("operand_order", u64::from(self.reversed)),
            (
                "broadcast_constant",
                u64::from(matches!(self.ifm2, Ifm2::Scalar(_))),
            ),
        ];
        let (lo, hi) = self.clamp.unwrap_or(match self.ofm_type.bits {
            32 => (i16::MIN as i64, i16::MAX as i64),
            _ => (self.ofm_type.min(), self.ofm_type.max()),
        });
        out.extend([
            cmd(
                O::NpuSetIfmPrecision,
                &[
                    signed,
                    bits,
                    layout,
                    ("scale_mode", u64::from(self.scale_mode.bits())),
                    ("round_mode", u64::from(self.input_round.bits())),
                ],
            ),
            builders::NpuSetIfmZeroPoint::default()
                .zero_point(self.zero_points[0] as u16 as u64)
                .command(),
            cmd(O::NpuSetIfm2Precision, &[signed, bits, layout2]),
            builders::NpuSetIfm2ZeroPoint::default()
                .zero_point(self.zero_points[1] as u16 as u64)
                .command(),
            cmd(O::NpuSetIfm2Broadcast, &broadcast_fields),
            builders::NpuSetParallelMode::default()
                .parallel_mode(u64::from(self.parallel))
                .command(),
            builders::NpuSetIfm2Scalar::default()
                .scalar(scalar.into())
                .command(),
            builders::NpuSetIfmDepthM1::default()
                .depth_m1(oc as u64 - 1)
                .command(),
            cmd(
                O::NpuSetOfmPrecision,
                &[
                    ofm_signed,
                    ofm_bits,
                    ofm_layout,
                    ("round_mode", u64::from(self.round.bits())),
                ],
            ),
            builders::NpuSetOfmZeroPoint::default()
                .zero_point(self.zero_points[2] as u16 as u64)
                .command(),
            builders::NpuSetOfmHeightM1::default()
                .height_m1(oh as u64 - 1)
                .command(),
            builders::NpuSetOfmWidthM1::default()
                .width_m1(ow as u64 - 1)
                .command(),
            builders::NpuSetOfmDepthM1::default()
                .depth_m1(oc as u64 - 1)
                .command(),
            builders::NpuSetOfmBlkHeightM1::default()
                .height_m1(self.block[0] as u64 - 1)
                .command(),
            builders::NpuSetOfmBlkWidthM1::default()
                .width_m1(self.block[1] as u64 - 1)
                .command(),
            builders::NpuSetOfmBlkDepthM1::default()
                .depth_m1(self.block[2] as u64 - 1)
                .command(),
            builders::NpuSetOpaScale::default()
                .scale(self.opa.0.into())
                .shift(self.opa.1.into())
                .command(),
            builders::NpuSetOpbScale::default()
                .scale(self.opb.into())
                .command(),
            builders::NpuSetOfmScale::default()
                .scale(self.ofm_scale.0.into())
                .shift(self.ofm_scale.1.into())
                .command(),
            builders::NpuSetActivation::default()
                .activation_function(self.activation.bits().into())
                .activation_clip_range(u64::from(ActivationClipRange::OfmPrecision.bits()))
                .command(),
            builders::NpuSetActivationMin::default()
                .clip_min(lo as u16 as u64)
                .command(),
            builders::NpuSetActivationMax::default()
                .clip_max(hi as u16 as u64)
                .command(),
            builders::NpuSetIfmIbEnd::default()
                .ib_end_kb(self.ib_end as u64)
                .command(),
            builders::NpuSetIfm2IbStart::default()
                .ib_start_kb(self.ifm2_ib_start as u64)
                .command(),
            builders::NpuSetAbStart::default()
                .ab_start_kb(IB_END_MAX_KB as u64)
                .command(),
            builders::NpuSetBlockdep::default().blockdep(0).command(),
            builders::NpuOpElementwise::default()
                .elementwise_mode(u64::from(self.mode.bits()))
                .command(),
            builders::NpuOpStop::default().mask(1).command(),
        ]);
        out
    }
}

/// Random elements over the whole type (32-bit ones sometimes small, so
/// shifts and products of every size occur).
fn fill(memory: &mut Memory, rng: &mut StdRng, fm: &FeatureMap, [h, w, c]: [usize; 3]) {
    let t = fm.dtype;
    let (lo, hi) = if t.bits == 32 && rng.gen_bool(0.5) {
        let amplitude = 1i64 << rng.gen_range(1..=31);
        (-amplitude, amplitude - 1)
    } else {
        (t.min(), t.max())
    };
    for y in 0..h {
        for x in 0..w {
            for ch in 0..c {
                memory.store(fm, y, x, ch, rng.gen_range(lo..=hi));
            }
        }
    }
}

/// Job `index` of a run with `seed`, from its own generator, and its spec.
pub fn random_elementwise_job(seed: u64, index: u64) -> (ElementwiseSpec, Job) {
    let mut rng =
        StdRng::seed_from_u64(seed ^ 0x656c_656d ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let spec = ElementwiseSpec::random(&mut rng);
    let job = spec.build(&mut rng).job;
    (spec, job)
}

/// Job `index` of a run with `seed`: an elementwise operation whose IFM and
/// IFM2 are the OFMs of the two operations before it (random convolutions
/// and pools as `conv_jobs::random_chain` draws them, on u65-256): TRM 4.9
/// with two producers. The second producer reads nothing of the first and
/// has a random NPU_SET_BLOCKDEP; the elementwise operation, which reads
/// the second's OFM as IFM2, the largest safe for their blocks
/// (`npu_model::footprint::largest_safe_blockdep`) or 0. Returns the job and
/// its description.
pub fn random_elementwise_of_two(seed: u64, index: u64) -> (Job, String) {
    let mut rng =
        StdRng::seed_from_u64(seed ^ 0x7477_6f73 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut spec = loop {
        let spec = ElementwiseSpec::random(&mut rng);
        if spec.ifm2_in_memory() && !spec.u65_512 {
            break spec;
        }
    };
    spec.regions = [1, 2, 3];
    let elementwise = spec.build(&mut rng);
    // Each producer in a region of its own, writing where the elementwise
    // operation reads.
    let producer = |shape, region: usize, rng: &mut StdRng| loop {
        let mut part = random_part(rng, false).with_ofm(shape, spec.ifm_type, rng);
        part.activation = ActivationFunction::None;
        part.regions = [region; 4];
        if let Ok(built) = part.build(rng) {
            break built;
        }
    };
    let first = producer(spec.ofm, 4, &mut rng);
    let second = producer(spec.ifm2_shape(), 5, &mut rng);
    let mut first_body = body(&first.commands);
    point_fm(&mut first_body, &elementwise.ifm, FmRole::Ofm);
    let mut second_body = body(&second.commands);
    point_fm(&mut second_body, &elementwise.ifm2, FmRole::Ofm);
    let producer_blockdep = rng.gen_range(0..=BLOCKDEP_MAX as u16);
    set_blockdep(&mut second_body, producer_blockdep);
    let mut commands = [first_body, second_body].concat();
    wait_for_lut_loads(&mut commands, &elementwise.commands);
    let elementwise_start = commands.len();
    commands.extend(&elementwise.commands);
    let mut regions = elementwise.job.regions.clone();
    for part in [&first, &second] {
        merge_regions(&mut regions, &part.job.regions);
    }
    let job = |commands: &[Command], what: &str| {
        Job::in_memory(
            NpuConfig::u65_256(),
            encode(commands),
            regions.clone(),
            what,
        )
    };
    let (blockdep, safe) = draw_blockdep(&job(&commands, ""), &mut rng);
    set_blockdep(&mut commands[elementwise_start..], blockdep);
    let what = format!(
        "{} reading the OFMs of {} and of {} (BLOCKDEP {producer_blockdep}); the elementwise \
         operation's BLOCKDEP {blockdep} (largest safe {safe})",
        spec.describe(),
        first.spec.describe(),
        second.spec.describe()
    );
    (job(&commands, &what), what)
}
