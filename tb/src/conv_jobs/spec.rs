//! Drawing a [`ConvSpec`]: kind, types, shape, kernel, strides, dilation,
//! padding, upscaling, layouts and tiles, output-unit settings; what it
//! derives (IFM shape, dilated kernel, traversal).

use super::commands::random_activation;
use super::{dilated, ConvKind, ConvSpec, Tiles, REGIONS};
use npu_arch::command::{
    AccFormat, ActivationFunction, KernelDecomposition, Layout, OfmScaleMode, PoolingMode,
    RoundMode, UpscaleMode, WeightOrder as WeightOrderBit,
};
use npu_arch::limits::STRIDE_MAX;
use npu_arch::shared_buffer::IB_END_MAX_KB;
use npu_model::tensor::DType;
use npu_model::weights::order::Traversal;
use npu_model::weights::EncodeOptions;
use rand::rngs::StdRng;
use rand::Rng;

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
        if least <= IB_END_MAX_KB && rng.gen_bool(0.3) {
            self.ib_end = Some(rng.gen_range(least / 2..=IB_END_MAX_KB / 2) * 2);
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

    pub(super) fn upscale_factor(&self) -> usize {
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

    pub(super) fn traversal(&self) -> Traversal {
        match (self.kind, self.weight_order) {
            (ConvKind::Pool(PoolingMode::ReduceSum), _) => Traversal::DepthFirst,
            (ConvKind::Depthwise | ConvKind::Pool(_), _) => Traversal::DepthWise,
            (_, WeightOrderBit::DepthFirst) => Traversal::DepthFirst,
            (_, WeightOrderBit::PartKernelFirst) => Traversal::PartKernelFirst,
        }
    }

    pub(super) fn split(&self) -> usize {
        match self.decomposition {
            KernelDecomposition::D8x8 => 8,
            KernelDecomposition::D4x4 => 4,
        }
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
pub(super) fn either<T>(rng: &mut StdRng, p: f64, yes: T, no: T) -> T {
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
