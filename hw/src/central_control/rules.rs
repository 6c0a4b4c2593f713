//! The rules a kernel operation's settings must keep (TRM 4.8.2 tables
//! 4-120 to 4-125, the reserved values of TRM 4.6.4): central control
//! checks them as it dispatches the operation and refuses one that breaks
//! any with STATUS.cmd_parse_error, QREAD at the operation, as the golden
//! model's `Op::decode`, `Op::validate` and `Op::validate_on`
//! (`npu_model::ops`) refuse it before it reads memory.

use crate::arch_constants::constant;
use crate::op_state::{
    ActivationView, FeatureMapType, Ifm2View, IfmView, KernelStride, KernelView, OfmView,
    OperationState, WeightsView,
};
use crate::widgets::ResetReg;
use npu_arch::command::{
    AccFormat, ActivationClipRange as Clip, ActivationFunction as Function, ActivationPrecision,
    ElementwiseMode, IfmRoundMode, IfmScaleMode, Opcode, PoolingMode, RoundMode, UpscaleMode,
    SCALE_BIAS_RECORD_BYTES,
};
use npu_arch::limits;
use rust_hdl::prelude::*;

/// Whether a kernel operation about to be dispatched keeps the rules.
/// The products of its sizes (areas, IFM windows, scale stream lengths)
/// are registered: `allowed` holds for the operation state of the cycle
/// before, and central control judges an operation in its second Execute
/// cycle, at least two cycles after the last NPU_SET_* write.
#[derive(LogicBlock)]
pub struct OperationRules {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The operation's opcode and parameter (TRM 4.6.4), and the operation
    /// state it would capture.
    pub code: Signal<In, Bits<10>>,
    pub param: Signal<In, Bits<16>>,
    pub state: Signal<In, OperationState>,
    pub allowed: Signal<Out, Bit>,
    ifm_type: FeatureMapType,
    ofm_type: FeatureMapType,
    ifm2_type: FeatureMapType,
    kernel_stride: KernelStride,
    elementwise_types: ElementwiseTypes,

    ifm: Signal<Local, IfmView>,
    ifm2: Signal<Local, Ifm2View>,
    ofm: Signal<Local, OfmView>,
    kernel: Signal<Local, KernelView>,
    activation: Signal<Local, ActivationView>,
    conv_like: Signal<Local, Bit>,
    pool: Signal<Local, Bit>,
    max_pool: Signal<Local, Bit>,
    average_pool: Signal<Local, Bit>,
    reduce_sum: Signal<Local, Bit>,
    elementwise: Signal<Local, Bit>,
    /// ABS, LRELU and CLZ read no IFM2.
    unary: Signal<Local, Bit>,
    add_or_sub: Signal<Local, Bit>,
    padded: Signal<Local, Bit>,
    same_types: Signal<Local, Bit>,
    /// int8, uint8 or int16: a convolution's IFM types (table 4-120).
    ifm_narrow: Signal<Local, Bit>,
    ofm_narrow: Signal<Local, Bit>,
    /// The kernel before dilation (NPU_SET_KERNEL_*_M1 give it dilated).
    kernel_width: Signal<Local, Bits<17>>,
    kernel_height: Signal<Local, Bits<17>>,
    /// The dilated kernel's area, meaningful while its height is within
    /// a convolution's limit.
    dilated_height: Signal<Local, Bits<16>>,
    /// NPU_SET_KERNEL_WIDTH_M1 and _HEIGHT_M1 (a local to test a bit of).
    dilated_width_m1: Signal<Local, Bits<16>>,
    dilated_height_m1: Signal<Local, Bits<16>>,
    dilated_area: ResetReg<Bits<32>>,
    /// The kernel's area, meaningful while its height is within a pool's.
    pool_height: Signal<Local, Bits<16>>,
    pool_area: ResetReg<Bits<32>>,
    /// Rows and columns the kernel windows cover, and the padding of them.
    window_rows: ResetReg<Bits<32>>,
    window_columns: ResetReg<Bits<32>>,
    padding_rows: Signal<Local, Bits<32>>,
    padding_columns: Signal<Local, Bits<32>>,
    pad_top: Signal<Local, Bits<8>>,
    pad_left: Signal<Local, Bits<8>>,
    pad_bottom: Signal<Local, Bits<8>>,
    pad_right: Signal<Local, Bits<8>>,
    activation_function: Signal<Local, Bits<16>>,
    clip: Signal<Local, Bits<4>>,
    lut: Signal<Local, Bit>,
    lut_slot: Signal<Local, Bits<16>>,
    /// The LUT's values are 16-bit or 8-bit (the clip range's type, else
    /// the OFM's: the golden model's `lut_dtype`).
    lut_16bit: Signal<Local, Bit>,
    lut_8bit: Signal<Local, Bit>,
    clip_is_ofm_type: Signal<Local, Bit>,
    ofm_32bit: Signal<Local, Bit>,
    ifm_scale_mode: Signal<Local, Bits<2>>,
    ifm_round_mode: Signal<Local, Bits<2>>,
    scalar: Signal<Local, Bit>,
    weights: Signal<Local, WeightsView>,
    /// The operation reads per-channel scale/bias records, and how many
    /// each core's stream holds (core 0's less one).
    channel_scales: Signal<Local, Bit>,
    parallel: Signal<Local, Bit>,
    scale_channels_m1: Signal<Local, Bits<16>>,
    scale1_channels: Signal<Local, Bits<16>>,
    scale_bytes: ResetReg<Bits<32>>,
    scale1_bytes: ResetReg<Bits<32>>,

    conv_code: Constant<Bits<10>>,
    depthwise_code: Constant<Bits<10>>,
    pool_code: Constant<Bits<10>>,
    elementwise_code: Constant<Bits<10>>,
    max_mode: Constant<Bits<16>>,
    average_mode: Constant<Bits<16>>,
    reduce_sum_mode: Constant<Bits<16>>,
    add_mode: Constant<Bits<16>>,
    sub_mode: Constant<Bits<16>>,
    lrelu_mode: Constant<Bits<16>>,
    abs_mode: Constant<Bits<16>>,
    clz_mode: Constant<Bits<16>>,
    stride_m1_max: Constant<Bits<4>>,
    tanh: Constant<Bits<16>>,
    sigmoid: Constant<Bits<16>>,
    lut_first: Constant<Bits<16>>,
    lut_last: Constant<Bits<16>>,
    clip_ofm: Constant<Bits<4>>,
    clip_uint8: Constant<Bits<4>>,
    clip_int8: Constant<Bits<4>>,
    clip_int16: Constant<Bits<4>>,
    upscale_zeros: Constant<Bits<2>>,
    acc_int40: Constant<Bits<2>>,
    acc_s5_10: Constant<Bits<2>>,
    ofm_round_max: Constant<Bits<2>>,
    ifm_scale_max: Constant<Bits<2>>,
    ifm_round_double: Constant<Bits<2>>,
    ifm_round_natural: Constant<Bits<2>>,
    record_bytes: Constant<Bits<16>>,
    bits8: Constant<Bits<2>>,
    bits16: Constant<Bits<2>>,
    bits32: Constant<Bits<2>>,
    conv_kernel_height_max: Constant<Bits<17>>,
    conv_kernel_area_max: Constant<Bits<32>>,
    conv_pad_top_left_max: Constant<Bits<8>>,
    conv_pad_bottom_right_max: Constant<Bits<8>>,
    pool_kernel_height_max: Constant<Bits<17>>,
    pool_kernel_area_max: Constant<Bits<32>>,
    padded_average_kernel_max: Constant<Bits<17>>,
    padded_average_pad_top_left_max: Constant<Bits<8>>,
    padded_average_pad_bottom_right_max: Constant<Bits<8>>,
    lut_slot_max_32bit: Constant<Bits<16>>,
}

impl Default for OperationRules {
    fn default() -> Self {
        let code = |op: Opcode| constant(op.code().into());
        let pooling = |m: PoolingMode| constant(m.bits().into());
        let elementwise = |m: ElementwiseMode| constant(m.bits().into());
        let function = |f: Function| constant(f.bits().into());
        let clip = |c: Clip| constant(c.bits().into());
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            code: Default::default(),
            param: Default::default(),
            state: Default::default(),
            allowed: Default::default(),
            ifm_type: Default::default(),
            ofm_type: Default::default(),
            ifm2_type: Default::default(),
            elementwise_types: Default::default(),
            ifm: Default::default(),
            ifm2: Default::default(),
            ofm: Default::default(),
            kernel: Default::default(),
            activation: Default::default(),
            conv_like: Default::default(),
            pool: Default::default(),
            max_pool: Default::default(),
            average_pool: Default::default(),
            reduce_sum: Default::default(),
            elementwise: Default::default(),
            unary: Default::default(),
            add_or_sub: Default::default(),
            padded: Default::default(),
            same_types: Default::default(),
            ifm_narrow: Default::default(),
            ofm_narrow: Default::default(),
            kernel_stride: Default::default(),
            kernel_width: Default::default(),
            kernel_height: Default::default(),
            dilated_height: Default::default(),
            dilated_width_m1: Default::default(),
            dilated_height_m1: Default::default(),
            dilated_area: Default::default(),
            pool_height: Default::default(),
            pool_area: Default::default(),
            window_rows: Default::default(),
            window_columns: Default::default(),
            padding_rows: Default::default(),
            padding_columns: Default::default(),
            pad_top: Default::default(),
            pad_left: Default::default(),
            pad_bottom: Default::default(),
            pad_right: Default::default(),
            activation_function: Default::default(),
            clip: Default::default(),
            lut: Default::default(),
            lut_slot: Default::default(),
            lut_16bit: Default::default(),
            lut_8bit: Default::default(),
            clip_is_ofm_type: Default::default(),
            ofm_32bit: Default::default(),
            ifm_scale_mode: Default::default(),
            ifm_round_mode: Default::default(),
            scalar: Default::default(),
            weights: Default::default(),
            channel_scales: Default::default(),
            parallel: Default::default(),
            scale_channels_m1: Default::default(),
            scale1_channels: Default::default(),
            scale_bytes: Default::default(),
            scale1_bytes: Default::default(),
            conv_code: code(Opcode::NpuOpConv),
            depthwise_code: code(Opcode::NpuOpDepthwise),
            pool_code: code(Opcode::NpuOpPool),
            elementwise_code: code(Opcode::NpuOpElementwise),
            max_mode: pooling(PoolingMode::Max),
            average_mode: pooling(PoolingMode::Average),
            reduce_sum_mode: pooling(PoolingMode::ReduceSum),
            add_mode: elementwise(ElementwiseMode::Add),
            sub_mode: elementwise(ElementwiseMode::Sub),
            lrelu_mode: elementwise(ElementwiseMode::Lrelu),
            abs_mode: elementwise(ElementwiseMode::Abs),
            clz_mode: elementwise(ElementwiseMode::Clz),
            stride_m1_max: constant(limits::STRIDE_MAX - 1),
            tanh: function(Function::Tanh),
            sigmoid: function(Function::Sigmoid),
            lut_first: function(Function::Lut0),
            lut_last: function(Function::Lut7),
            clip_ofm: clip(Clip::OfmPrecision),
            clip_uint8: clip(Clip::ForceUint8),
            clip_int8: clip(Clip::ForceInt8),
            clip_int16: clip(Clip::ForceInt16),
            upscale_zeros: constant(UpscaleMode::Zeros.bits().into()),
            acc_int40: constant(AccFormat::Int40.bits().into()),
            acc_s5_10: constant(AccFormat::FpS5_10.bits().into()),
            ofm_round_max: constant(RoundMode::Natural.bits().into()),
            ifm_scale_max: constant(IfmScaleMode::Opb32.bits().into()),
            ifm_round_double: constant(IfmRoundMode::DoubleRounding.bits().into()),
            ifm_round_natural: constant(IfmRoundMode::Natural.bits().into()),
            record_bytes: constant(SCALE_BIAS_RECORD_BYTES as u64),
            bits8: constant(ActivationPrecision::Bits8.bits().into()),
            bits16: constant(ActivationPrecision::Bits16.bits().into()),
            bits32: constant(ActivationPrecision::Bits32.bits().into()),
            conv_kernel_height_max: constant(limits::CONV_KERNEL_HEIGHT_MAX),
            conv_kernel_area_max: constant(limits::CONV_KERNEL_AREA_MAX),
            conv_pad_top_left_max: constant(limits::CONV_PAD_TOP_LEFT_MAX),
            conv_pad_bottom_right_max: constant(limits::CONV_PAD_BOTTOM_RIGHT_MAX),
            pool_kernel_height_max: constant(limits::POOL_KERNEL_HEIGHT_MAX),
            pool_kernel_area_max: constant(limits::POOL_KERNEL_AREA_MAX),
            padded_average_kernel_max: constant(limits::PADDED_AVERAGE_KERNEL_MAX),
            padded_average_pad_top_left_max: constant(limits::PADDED_AVERAGE_PAD_TOP_LEFT_MAX),
            padded_average_pad_bottom_right_max: constant(
                limits::PADDED_AVERAGE_PAD_BOTTOM_RIGHT_MAX,
            ),
            lut_slot_max_32bit: constant(limits::LUT_SLOT_MAX_32BIT),
        }
    }
}

impl Logic for OperationRules {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            dilated_area,
            pool_area,
            window_rows,
            window_columns,
            scale_bytes,
            scale1_bytes
        );
        self.dilated_area.rst_n.next = self.rst_n.val();
        self.pool_area.rst_n.next = self.rst_n.val();
        self.window_rows.rst_n.next = self.rst_n.val();
        self.window_columns.rst_n.next = self.rst_n.val();
        self.scale_bytes.rst_n.next = self.rst_n.val();
        self.scale1_bytes.rst_n.next = self.rst_n.val();
        self.ifm.next = self.state.val().ifm;
        self.ifm2.next = self.state.val().ifm2;
        self.ofm.next = self.state.val().ofm;
        self.kernel.next = self.state.val().kernel;
        self.activation.next = self.state.val().activation;
        self.weights.next = self.state.val().weights;
        self.ifm_type.activation_type.next = self.ifm.val().precision_activation_type;
        self.ifm_type.activation_precision.next = self.ifm.val().precision_activation_precision;
        self.ifm_type.activation_format.next = self.ifm.val().precision_activation_format;
        self.ofm_type.activation_type.next = self.ofm.val().precision_activation_type;
        self.ofm_type.activation_precision.next = self.ofm.val().precision_activation_precision;
        self.ofm_type.activation_format.next = self.ofm.val().precision_activation_format;
        self.ifm2_type.activation_type.next = self.ifm2.val().precision_activation_type;
        self.ifm2_type.activation_precision.next = self.ifm2.val().precision_activation_precision;
        self.ifm2_type.activation_format.next = self.ifm2.val().precision_activation_format;
        self.elementwise_types.mode.next = self.param.val();
        self.elementwise_types.ifm_precision.next = self.ifm_type.width.val();
        self.elementwise_types.ifm_signed.next = self.ifm_type.is_signed.val();
        self.elementwise_types.ofm_precision.next = self.ofm_type.width.val();
        self.elementwise_types.ofm_signed.next = self.ofm_type.is_signed.val();
        self.same_types.next = (self.ifm_type.width.val() == self.ofm_type.width.val())
            & (self.ifm_type.is_signed.val() == self.ofm_type.is_signed.val());
        self.ofm_32bit.next = self.ofm_type.width.val() == self.bits32.val();
        self.ifm_narrow.next = (self.ifm_type.width.val() < self.bits16.val())
            | ((self.ifm_type.width.val() == self.bits16.val()) & self.ifm_type.is_signed.val());
        self.ofm_narrow.next = (self.ofm_type.width.val() < self.bits16.val())
            | ((self.ofm_type.width.val() == self.bits16.val()) & self.ofm_type.is_signed.val());

        self.conv_like.next = (self.code.val() == self.conv_code.val())
            | (self.code.val() == self.depthwise_code.val());
        self.pool.next = self.code.val() == self.pool_code.val();
        self.max_pool.next = self.pool.val() & (self.param.val() == self.max_mode.val());
        self.average_pool.next = self.pool.val() & (self.param.val() == self.average_mode.val());
        self.reduce_sum.next = self.pool.val() & (self.param.val() == self.reduce_sum_mode.val());
        self.elementwise.next = self.code.val() == self.elementwise_code.val();
        self.unary.next = (self.param.val() == self.lrelu_mode.val())
            | (self.param.val() == self.abs_mode.val())
            | (self.param.val() == self.clz_mode.val());
        self.add_or_sub.next =
            (self.param.val() == self.add_mode.val()) | (self.param.val() == self.sub_mode.val());

        self.pad_top.next = bit_cast::<8, 7>(self.ifm.val().pad_top);
        self.pad_left.next = bit_cast::<8, 7>(self.ifm.val().pad_left);
        self.pad_bottom.next = self.ifm.val().pad_bottom;
        self.pad_right.next = self.ifm.val().pad_right;
        self.padded.next = (self.pad_top.val()
            | self.pad_left.val()
            | self.pad_bottom.val()
            | self.pad_right.val())
            != 0;
        self.kernel_stride.kernel.next = self.kernel.val();
        self.kernel_width.next = bit_cast::<17, 16>(self.kernel.val().width_m1) + 1;
        if self.kernel_stride.dilation_x.val() {
            self.kernel_width.next = bit_cast::<17, 16>(self.kernel.val().width_m1 >> 1) + 1;
        }
        self.kernel_height.next = bit_cast::<17, 16>(self.kernel.val().height_m1) + 1;
        if self.kernel_stride.dilation_y.val() {
            self.kernel_height.next = bit_cast::<17, 16>(self.kernel.val().height_m1 >> 1) + 1;
        }
        // Areas as (width - 1) * height + height in rust-hdl's 16 x 16-bit
        // products.
        self.dilated_height.next = self.kernel.val().height_m1 + 1;
        self.dilated_width_m1.next = self.kernel.val().width_m1;
        self.dilated_height_m1.next = self.kernel.val().height_m1;
        self.dilated_area.d.next = self.kernel.val().width_m1 * self.dilated_height.val()
            + bit_cast::<32, 16>(self.dilated_height.val());
        self.pool_height.next = bit_cast::<16, 17>(self.kernel_height.val());
        self.pool_area.d.next = bit_cast::<16, 17>(self.kernel_width.val() - 1)
            * self.pool_height.val()
            + bit_cast::<32, 16>(self.pool_height.val());
        // The golden model's `ifm_extent`: (OFM - 1) * stride + dilated
        // kernel, less the padding, is at least one row and column.
        self.window_rows.d.next = self.ofm.val().height_m1
            * (bit_cast::<16, 4>(self.kernel_stride.stride_y_m1.val()) + 1)
            + bit_cast::<32, 16>(self.kernel.val().height_m1)
            + 1;
        self.window_columns.d.next = self.ofm.val().width_m1
            * (bit_cast::<16, 4>(self.kernel_stride.stride_x_m1.val()) + 1)
            + bit_cast::<32, 16>(self.kernel.val().width_m1)
            + 1;
        self.padding_rows.next =
            bit_cast::<32, 8>(self.pad_top.val()) + bit_cast::<32, 8>(self.pad_bottom.val());
        self.padding_columns.next =
            bit_cast::<32, 8>(self.pad_left.val()) + bit_cast::<32, 8>(self.pad_right.val());

        self.activation_function.next =
            bit_cast::<16, 12>(self.activation.val().activation_function);
        self.clip.next = self.activation.val().activation_clip_range;
        self.lut.next = (self.activation_function.val() >= self.lut_first.val())
            & (self.activation_function.val() <= self.lut_last.val());
        self.lut_slot.next = self.activation_function.val() - self.lut_first.val();
        self.lut_16bit.next = (self.clip.val() == self.clip_int16.val())
            | ((self.clip.val() == self.clip_ofm.val())
                & (self.ofm_type.width.val() == self.bits16.val()));
        self.lut_8bit.next = (self.clip.val() == self.clip_uint8.val())
            | (self.clip.val() == self.clip_int8.val())
            | ((self.clip.val() == self.clip_ofm.val())
                & (self.ofm_type.width.val() == self.bits8.val()));
        self.clip_is_ofm_type.next = ((self.clip.val() == self.clip_uint8.val())
            & (self.ofm_type.width.val() == self.bits8.val())
            & !self.ofm_type.is_signed.val())
            | ((self.clip.val() == self.clip_int8.val())
                & (self.ofm_type.width.val() == self.bits8.val())
                & self.ofm_type.is_signed.val())
            | ((self.clip.val() == self.clip_int16.val())
                & (self.ofm_type.width.val() == self.bits16.val())
                & self.ofm_type.is_signed.val());
        self.ifm_scale_mode.next = self.ifm.val().precision_scale_mode;
        self.ifm_round_mode.next = self.ifm.val().precision_round_mode;
        self.scalar.next = self.ifm2.val().broadcast_constant;

        // Scale/bias records: convolutions, unpadded average pools and
        // REDUCE_SUM unless the OFM scale is global (tables 4-122, 4-125);
        // in parallel mode core k's stream holds channels k, k + 2, ...
        self.channel_scales.next = !self.ofm.val().precision_scale_mode
            & (self.conv_like.val()
                | self.reduce_sum.val()
                | (self.average_pool.val() & !self.padded.val()));
        self.parallel.next = self.kernel.val().parallel_mode != 0;
        self.scale_channels_m1.next = self.ofm.val().depth_m1;
        self.scale1_channels.next = 0.into();
        if self.parallel.val() {
            self.scale_channels_m1.next = self.ofm.val().depth_m1 >> 1;
            self.scale1_channels.next =
                bit_cast::<16, 17>((bit_cast::<17, 16>(self.ofm.val().depth_m1) + 1) >> 1);
        }
        self.scale_bytes.d.next = self.scale_channels_m1.val() * self.record_bytes.val()
            + bit_cast::<32, 16>(self.record_bytes.val());
        self.scale1_bytes.d.next = self.scale1_channels.val() * self.record_bytes.val();

        self.allowed.next = true;
        // Reserved values (TRM 4.6.4), whatever the operation.
        if !((self.activation_function.val() == 0)
            | (self.activation_function.val() == self.tanh.val())
            | (self.activation_function.val() == self.sigmoid.val())
            | self.lut.val())
            | !((self.clip.val() == self.clip_ofm.val())
                | (self.clip.val() == self.clip_uint8.val())
                | (self.clip.val() == self.clip_int8.val())
                | (self.clip.val() == self.clip_int16.val()))
            | (self.ifm.val().upscale > self.upscale_zeros.val())
            | (self.kernel.val().acc_format > self.acc_s5_10.val())
            | (self.ofm.val().precision_round_mode > self.ofm_round_max.val())
            | self.ifm_type.reserved.val()
            | self.ofm_type.reserved.val()
        {
            self.allowed.next = false;
        }
        // Accumulators (tables 4-120 to 4-125): s5.10 is refused where
        // accumulators are used (undefined beyond its name, so not
        // implemented), int40 for max and padded average pools.
        if (!self.elementwise.val() & (self.kernel.val().acc_format == self.acc_s5_10.val()))
            | ((self.max_pool.val() | (self.average_pool.val() & self.padded.val()))
                & (self.kernel.val().acc_format == self.acc_int40.val()))
        {
            self.allowed.next = false;
        }
        // Strides 1-3, a dilated kernel a multiple of its dilation, a 2x2
        // upscale with stride 1x1, and an IFM window the padding does not
        // cover.
        if !self.elementwise.val()
            & ((self.kernel_stride.stride_x_m1.val() > self.stride_m1_max.val())
                | (self.kernel_stride.stride_y_m1.val() > self.stride_m1_max.val())
                | (self.kernel_stride.dilation_x.val() & self.dilated_width_m1.val().get_bit(0))
                | (self.kernel_stride.dilation_y.val() & self.dilated_height_m1.val().get_bit(0))
                | ((self.ifm.val().upscale != 0)
                    & ((self.kernel_stride.stride_x_m1.val()
                        | self.kernel_stride.stride_y_m1.val())
                        != 0))
                | (self.window_rows.q.val() <= self.padding_rows.val())
                | (self.window_columns.q.val() <= self.padding_columns.val()))
        {
            self.allowed.next = false;
        }
        // Table 4-120: convolution and depthwise.
        if self.conv_like.val()
            & (!self.ifm_narrow.val()
                | !(self.ofm_narrow.val() | self.ofm_type.int32.val())
                | (self.kernel_height.val() > self.conv_kernel_height_max.val())
                | (self.dilated_area.q.val() > self.conv_kernel_area_max.val())
                | (self.pad_top.val() > self.conv_pad_top_left_max.val())
                | (self.pad_left.val() > self.conv_pad_top_left_max.val())
                | (self.pad_bottom.val() > self.conv_pad_bottom_right_max.val())
                | (self.pad_right.val() > self.conv_pad_bottom_right_max.val()))
        {
            self.allowed.next = false;
        }
        // Table 4-122: max and average pools.
        if self.max_pool.val() | self.average_pool.val() {
            if !self.ifm_narrow.val()
                | !self.ofm_narrow.val()
                | ((self.max_pool.val() | self.padded.val()) & !self.same_types.val())
                | (self.max_pool.val() & (self.ifm.val().upscale == self.upscale_zeros.val()))
            {
                self.allowed.next = false;
            }
            if self.average_pool.val() & self.padded.val() {
                if (self.kernel_width.val() > self.padded_average_kernel_max.val())
                    | (self.kernel_height.val() > self.padded_average_kernel_max.val())
                    | (self.pad_top.val() > self.padded_average_pad_top_left_max.val())
                    | (self.pad_left.val() > self.padded_average_pad_top_left_max.val())
                    | (self.pad_bottom.val() > self.padded_average_pad_bottom_right_max.val())
                    | (self.pad_right.val() > self.padded_average_pad_bottom_right_max.val())
                {
                    self.allowed.next = false;
                }
            } else if (self.kernel_height.val() > self.pool_kernel_height_max.val())
                | (self.pool_area.q.val() > self.pool_kernel_area_max.val())
            {
                self.allowed.next = false;
            }
        }
        // Table 4-125: REDUCE_SUM writes one int32 channel, unpadded and
        // not upscaled; pooling modes beyond it do not exist.
        if (self.reduce_sum.val()
            & (!self.ofm_type.int32.val()
                | (self.ifm.val().upscale != 0)
                | self.padded.val()
                | (self.ofm.val().depth_m1 != 0)))
            | (self.pool.val() & (self.param.val() > self.reduce_sum_mode.val()))
        {
            self.allowed.next = false;
        }
        // Table 4-124 and NPU_SET_IFM2_*: elementwise operations.
        if self.elementwise.val() {
            if !self.elementwise_types.allowed.val()
                | ((self.param.val() == self.clz_mode.val()) & (self.ofm.val().zero_point != 0))
                | (self.ifm_scale_mode.val() > self.ifm_scale_max.val())
                | (self.add_or_sub.val()
                    & (self.ifm_scale_mode.val() != 0)
                    & ((self.ifm_type.width.val() == self.bits32.val()) | self.ofm_32bit.val()))
                | !((self.ifm_round_mode.val() == self.ifm_round_double.val())
                    | (self.ifm_round_mode.val() == self.ifm_round_natural.val()))
            {
                self.allowed.next = false;
            }
            if !self.unary.val()
                & (self.ifm2_type.reserved.val()
                    | (self.ifm2_type.width.val() != self.ifm_type.width.val())
                    | (self.ifm2_type.is_signed.val() != self.ifm_type.is_signed.val())
                    | (self.scalar.val() & (self.ifm_type.width.val() == self.bits32.val()))
                    | (!self.scalar.val()
                        & self.ifm2_type.int32.val()
                        & (self.ifm2.val().zero_point != 0)))
            {
                self.allowed.next = false;
            }
        }
        if self.channel_scales.val()
            & ((bit_cast::<32, 20>(self.weights.val().scale_length) < self.scale_bytes.q.val())
                | (bit_cast::<32, 20>(self.weights.val().scale1_length)
                    < self.scale1_bytes.q.val()))
        {
            self.allowed.next = false;
        }
        // NPU_SET_IFM_ZERO_POINT is 0 for a 32-bit IFM.
        if self.ifm_type.int32.val() & (self.ifm.val().zero_point != 0) {
            self.allowed.next = false;
        }
        // Activation functions (TRM 4.8.2): an int32 OFM is linear but for a
        // LUT of a clip range's type; tanh and sigmoid of 8- and 16-bit
        // values; without a LUT the clip range is the OFM's type; a 16-bit
        // LUT is the whole LUT area and one of 32-bit values half of it.
        if (self.ofm_32bit.val()
            & (self.activation_function.val() != 0)
            & !(self.lut.val() & (self.clip.val() != self.clip_ofm.val())))
            | (((self.activation_function.val() == self.tanh.val())
                | (self.activation_function.val() == self.sigmoid.val()))
                & (self.clip.val() == self.clip_ofm.val())
                & !self.ofm_narrow.val())
            | (!self.lut.val()
                & (self.clip.val() != self.clip_ofm.val())
                & !self.clip_is_ofm_type.val())
            | (self.lut.val() & self.lut_16bit.val() & (self.lut_slot.val() != 0))
            | (self.lut.val()
                & self.lut_8bit.val()
                & self.ofm_32bit.val()
                & (self.lut_slot.val() > self.lut_slot_max_32bit.val()))
        {
            self.allowed.next = false;
        }
    }
}

/// Whether NPU_OP_ELEMENTWISE's mode exists and takes the IFM and OFM types
/// (TRM 4.8.2 table 4-124, as the golden model's `validate_elementwise`):
/// MUL, ADD and SUB any types; MIN, MAX, LRELU and ABS one 8- or 16-bit
/// type in and out; SHR int32 to an 8-bit type, int16 or int32; CLZ and
/// SHL int32 to int32. Precisions by their TRM codes (0 8-bit, 1 16-bit,
/// 2 32-bit; 3 is reserved, and a 32-bit type is signed).
#[derive(LogicBlock)]
pub struct ElementwiseTypes {
    pub mode: Signal<In, Bits<16>>,
    pub ifm_precision: Signal<In, Bits<2>>,
    pub ifm_signed: Signal<In, Bit>,
    pub ofm_precision: Signal<In, Bits<2>>,
    pub ofm_signed: Signal<In, Bit>,
    pub allowed: Signal<Out, Bit>,
    min_mode: Constant<Bits<16>>,
    abs_mode: Constant<Bits<16>>,
    clz_mode: Constant<Bits<16>>,
    shr_mode: Constant<Bits<16>>,
    shl_mode: Constant<Bits<16>>,
    ifm_int32: Signal<Local, Bit>,
    ofm_int32: Signal<Local, Bit>,
}

impl Default for ElementwiseTypes {
    fn default() -> Self {
        use npu_arch::command::ElementwiseMode as M;
        let mode = |m: M| Constant::new(u64::from(m.bits()).into());
        // MIN..ABS are one range of codes, CLZ..SHL another.
        const _: () = assert!(
            M::Max as u32 == M::Min as u32 + 1
                && M::Lrelu as u32 == M::Min as u32 + 2
                && M::Abs as u32 == M::Min as u32 + 3
                && M::Shr as u32 == M::Clz as u32 + 1
                && M::Shl as u32 == M::Clz as u32 + 2
        );
        Self {
            mode: Default::default(),
            ifm_precision: Default::default(),
            ifm_signed: Default::default(),
            ofm_precision: Default::default(),
            ofm_signed: Default::default(),
            allowed: Default::default(),
            min_mode: mode(M::Min),
            abs_mode: mode(M::Abs),
            clz_mode: mode(M::Clz),
            shr_mode: mode(M::Shr),
            shl_mode: mode(M::Shl),
            ifm_int32: Default::default(),
            ofm_int32: Default::default(),
        }
    }
}

impl Logic for ElementwiseTypes {
    #[hdl_gen]
    fn update(&mut self) {
        self.ifm_int32.next = (self.ifm_precision.val() == 2) & self.ifm_signed.val();
        self.ofm_int32.next = (self.ofm_precision.val() == 2) & self.ofm_signed.val();
        // MUL, ADD, SUB: any defined type (no 32-bit one is unsigned).
        self.allowed.next = ((self.ifm_precision.val() < 2) | self.ifm_int32.val())
            & ((self.ofm_precision.val() < 2) | self.ofm_int32.val());
        if (self.mode.val() >= self.min_mode.val()) & (self.mode.val() <= self.abs_mode.val()) {
            self.allowed.next = (self.ifm_precision.val() == self.ofm_precision.val())
                & (self.ifm_signed.val() == self.ofm_signed.val())
                & (self.ifm_precision.val() < 2);
        }
        if self.mode.val() == self.shr_mode.val() {
            self.allowed.next = self.ifm_int32.val()
                & ((self.ofm_precision.val() == 0)
                    | ((self.ofm_precision.val() != 3) & self.ofm_signed.val()));
        }
        if (self.mode.val() == self.clz_mode.val()) | (self.mode.val() == self.shl_mode.val()) {
            self.allowed.next = self.ifm_int32.val() & self.ofm_int32.val();
        }
        if self.mode.val() > self.shl_mode.val() {
            self.allowed.next = false;
        }
    }
}
