//! A kernel operation's NPU_SET_* values (the op-state views captured at
//! dispatch) taken apart for the units that run it: the traversal's shape
//! and the output unit's settings, field by field at the positions of
//! `npu_arch::command` (the golden model's `Op::decode`).

use crate::arch_constants::command_field_mask;
use crate::datapath::TraversalShape;

use crate::datapath::IfmBuffers;
use crate::datapath::OperandSettings;
use crate::op_state::{
    ActivationView, FeatureMapType, Ifm2View, IfmView, KernelOperation, KernelStride, KernelView,
    OfmView, OperationState, WeightsView,
};
use crate::output_unit::OutputSettings;
use npu_arch::command::{ActivationPrecision, ElementwiseMode, Opcode, PoolingMode};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct OperationDecoder {
    pub operation: Signal<In, KernelOperation>,
    pub shape: Signal<Out, TraversalShape>,
    pub output_settings: Signal<Out, OutputSettings>,
    /// NPU_OP_POOL in max mode (TRM 4.6.4).
    pub pool_max: Signal<Out, Bit>,
    /// 16-bit IFM elements; a signed IFM.
    pub ifm_wide: Signal<Out, Bit>,
    pub ifm_signed: Signal<Out, Bit>,
    /// 32-bit IFM elements (an int32 REDUCE_SUM or elementwise operation).
    pub ifm_int32: Signal<Out, Bit>,
    /// The views the datapath's other units read.
    pub ifm_view: Signal<Out, IfmView>,
    pub ofm_view: Signal<Out, OfmView>,
    pub weights_view: Signal<Out, WeightsView>,
    /// NPU_OP_ELEMENTWISE (TRM 4.6.4), its IFM2 as the IFM fetch reads a
    /// view, and the operand reader's settings (but the buffers).
    pub elementwise: Signal<Out, Bit>,
    pub ifm2_view: Signal<Out, IfmView>,
    pub operand_settings: Signal<Out, OperandSettings>,
    /// The operation reads IFM2 from memory (elementwise, binary, not scalar).
    pub reads_ifm2: Signal<Out, Bit>,
    /// The IFM buffers (TRM 4.9.1): IB0 and IB1 halves from 2 KB to the
    /// IFM end; an elementwise IFM2's from NPU_SET_IFM2_IB_START to
    /// NPU_SET_IFM_IB_END, the IFM's end then (TRM tables 4-136, 4-137).
    pub ifm_buffers: Signal<Out, IfmBuffers>,
    pub ifm2_buffers: Signal<Out, IfmBuffers>,
    /// NPU_SET_BLOCKDEP (TRM 4.9): how far the operation's IFM block reads
    /// may run ahead of the previous operation's OFM block writes.
    pub blockdep: Signal<Out, Bits<2>>,
    /// The operation reads scale/bias records per OFM channel: not max and
    /// padded average pools (TRM 4.8.2 table 4-122: no scaling), nor
    /// elementwise operations or a global scale (TRM 4.6.4
    /// NPU_SET_OFM_SCALE).
    pub per_channel: Signal<Out, Bit>,
    ifm_end_kb: Signal<Local, Bits<16>>,
    ifm2_start_kb: Signal<Local, Bits<16>>,
    code: Signal<Local, Bits<10>>,
    state: Signal<Local, OperationState>,
    ifm: Signal<Local, IfmView>,
    ofm: Signal<Local, OfmView>,
    kernel: Signal<Local, KernelView>,
    activation: Signal<Local, ActivationView>,
    kernel_stride: KernelStride,
    ifm_type: FeatureMapType,
    ofm_type: FeatureMapType,
    ifm2_type: FeatureMapType,
    stride_x: Signal<Local, Bits<4>>,
    stride_y: Signal<Local, Bits<4>>,
    dilated_height: Signal<Local, Bits<16>>,
    dilated_width: Signal<Local, Bits<16>>,
    rows_before: Signal<Local, Bits<16>>,
    columns_before: Signal<Local, Bits<16>>,
    pool: Signal<Local, Bit>,
    ifm2: Signal<Local, Ifm2View>,
    elementwise_mode: Signal<Local, Bits<16>>,
    unary: Signal<Local, Bit>,
    scalar_raw: Signal<Local, Bits<32>>,
    scalar_zero_point: Signal<Local, Bits<32>>,
    pooling_mode: Signal<Local, Bits<16>>,
    pool_average: Signal<Local, Bit>,
    padded: Signal<Local, Bit>,
    depthwise_code: Constant<Bits<10>>,
    pool_code: Constant<Bits<10>>,
    elementwise_code: Constant<Bits<10>>,
    abs_mode: Constant<Bits<16>>,
    lrelu_mode: Constant<Bits<16>>,
    clz_mode: Constant<Bits<16>>,
    elementwise_mode_mask: Constant<Bits<16>>,
    bits_16: Constant<Bits<2>>,
    bits_32: Constant<Bits<2>>,
    pooling_mode_mask: Constant<Bits<16>>,
    max_mode: Constant<Bits<16>>,
    average_mode: Constant<Bits<16>>,
}

impl Default for OperationDecoder {
    fn default() -> Self {
        let mode = |m: PoolingMode| Constant::new(u64::from(m.bits()).into());
        let elementwise = |m: ElementwiseMode| Constant::new(u64::from(m.bits()).into());
        Self {
            operation: Default::default(),
            shape: Default::default(),
            output_settings: Default::default(),
            pool_max: Default::default(),
            ifm_wide: Default::default(),
            ifm_int32: Default::default(),
            ifm_signed: Default::default(),
            code: Default::default(),
            state: Default::default(),
            ifm: Default::default(),
            ofm: Default::default(),
            kernel: Default::default(),
            activation: Default::default(),
            ifm_view: Default::default(),
            ofm_view: Default::default(),
            weights_view: Default::default(),
            kernel_stride: Default::default(),
            ifm_type: Default::default(),
            ofm_type: Default::default(),
            ifm2_type: Default::default(),
            stride_x: Default::default(),
            stride_y: Default::default(),
            dilated_height: Default::default(),
            dilated_width: Default::default(),
            rows_before: Default::default(),
            columns_before: Default::default(),
            pool: Default::default(),
            elementwise: Default::default(),
            ifm2_view: Default::default(),
            operand_settings: Default::default(),
            reads_ifm2: Default::default(),
            ifm_buffers: Default::default(),
            ifm2_buffers: Default::default(),
            ifm_end_kb: Default::default(),
            ifm2_start_kb: Default::default(),
            blockdep: Default::default(),
            per_channel: Default::default(),
            ifm2: Default::default(),
            elementwise_mode: Default::default(),
            unary: Default::default(),
            scalar_raw: Default::default(),
            scalar_zero_point: Default::default(),
            pooling_mode: Default::default(),
            pool_average: Default::default(),
            padded: Default::default(),
            depthwise_code: Constant::new((Opcode::NpuOpDepthwise.code() as u64).into()),
            pool_code: Constant::new((Opcode::NpuOpPool.code() as u64).into()),
            elementwise_code: Constant::new((Opcode::NpuOpElementwise.code() as u64).into()),
            abs_mode: elementwise(ElementwiseMode::Abs),
            lrelu_mode: elementwise(ElementwiseMode::Lrelu),
            clz_mode: elementwise(ElementwiseMode::Clz),
            elementwise_mode_mask: command_field_mask(Opcode::NpuOpElementwise, "elementwise_mode"),
            bits_16: Constant::new(u64::from(ActivationPrecision::Bits16.bits()).into()),
            bits_32: Constant::new(u64::from(ActivationPrecision::Bits32.bits()).into()),
            pooling_mode_mask: command_field_mask(Opcode::NpuOpPool, "pooling_mode"),
            max_mode: mode(PoolingMode::Max),
            average_mode: mode(PoolingMode::Average),
        }
    }
}

impl Logic for OperationDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        self.code.next = self.operation.val().code;
        self.state.next = self.operation.val().state;
        self.ifm.next = self.state.val().ifm;
        self.ofm.next = self.state.val().ofm;
        self.kernel.next = self.state.val().kernel;
        self.activation.next = self.state.val().activation;
        self.ifm_view.next = self.ifm.val();
        self.ofm_view.next = self.ofm.val();
        self.weights_view.next = self.state.val().weights;
        self.kernel_stride.kernel.next = self.kernel.val();
        self.stride_x.next = self.kernel_stride.stride_x_m1.val() + 1;
        self.stride_y.next = self.kernel_stride.stride_y_m1.val() + 1;
        self.shape.next.stride_x = self.stride_x.val().get_bits::<2>(0);
        self.shape.next.stride_y = self.stride_y.val().get_bits::<2>(0);
        self.shape.next.dilation_x = 1.into();
        if self.kernel_stride.dilation_x.val() {
            self.shape.next.dilation_x = 2.into();
        }
        self.shape.next.dilation_y = 1.into();
        if self.kernel_stride.dilation_y.val() {
            self.shape.next.dilation_y = 2.into();
        }
        self.shape.next.part_kernel_first = self.kernel_stride.part_kernel_first.val();
        self.shape.next.decomposition_4x4 = self.kernel_stride.decomposition_4x4.val();

        // NPU_SET_KERNEL_HEIGHT/WIDTH_M1 give the dilated kernel.
        self.dilated_height.next = self.kernel.val().height_m1 + 1;
        self.dilated_width.next = self.kernel.val().width_m1 + 1;
        self.shape.next.kernel_height = self.dilated_height.val();
        if self.kernel_stride.dilation_y.val() {
            self.shape.next.kernel_height = ((self.dilated_height.val() - 1) >> 1) + 1;
        }
        self.shape.next.kernel_width = self.dilated_width.val();
        if self.kernel_stride.dilation_x.val() {
            self.shape.next.kernel_width = ((self.dilated_width.val() - 1) >> 1) + 1;
        }

        self.shape.next.ofm_height = self.ofm.val().height_m1 + 1;
        self.shape.next.one_row = self.ofm.val().height_m1 == 0;
        self.shape.next.ofm_width = self.ofm.val().width_m1 + 1;
        self.shape.next.ofm_depth = self.ofm.val().depth_m1 + 1;
        self.shape.next.ifm_depth = self.ifm.val().depth_m1 + 1;
        self.shape.next.block_height = bit_cast::<16, 5>(self.ofm.val().blk_height_m1) + 1;
        self.shape.next.block_width = bit_cast::<16, 6>(self.ofm.val().blk_width_m1) + 1;
        self.shape.next.block_depth = bit_cast::<16, 7>(self.ofm.val().blk_depth_m1) + 1;
        self.shape.next.pad_top = bit_cast::<16, 7>(self.ifm.val().pad_top);
        self.shape.next.pad_left = bit_cast::<16, 7>(self.ifm.val().pad_left);
        self.shape.next.upscale = self.ifm.val().upscale != 0;
        // Max and average pools walk as depthwise convolutions, REDUCE_SUM
        // as a convolution with one OFM channel (TRM 4.6.4 NPU_OP_POOL).
        self.pool.next = self.code.val() == self.pool_code.val();
        self.pooling_mode.next = self.operation.val().param & self.pooling_mode_mask.val();
        self.pool_max.next = self.pool.val() & (self.pooling_mode.val() == self.max_mode.val());
        self.pool_average.next =
            self.pool.val() & (self.pooling_mode.val() == self.average_mode.val());
        self.shape.next.pool = self.pool.val();
        self.shape.next.depthwise = (self.code.val() == self.depthwise_code.val())
            | self.pool_max.val()
            | self.pool_average.val();
        self.shape.next.parallel = self.kernel.val().parallel_mode != 0;
        // Elementwise walks its OFM blocks as a 1x1 depthwise pool: each
        // IFM block is its OFM block, read by the operand reader (not by
        // MAC beats), one pass in parallel mode too.
        self.elementwise.next = self.code.val() == self.elementwise_code.val();
        if self.elementwise.val() {
            self.shape.next.kernel_height = 1.into();
            self.shape.next.kernel_width = 1.into();
            self.shape.next.stride_x = 1.into();
            self.shape.next.stride_y = 1.into();
            self.shape.next.dilation_x = 1.into();
            self.shape.next.dilation_y = 1.into();
            self.shape.next.decomposition_4x4 = false;
            self.shape.next.pad_top = 0.into();
            self.shape.next.pad_left = 0.into();
            self.shape.next.upscale = false;
            self.shape.next.ifm_depth = self.ofm.val().depth_m1 + 1;
            self.shape.next.pool = true;
            self.shape.next.depthwise = true;
            self.shape.next.parallel = false;
        }

        // The IFM the kernel windows read (the golden model's `ifm_extent`):
        // (OFM - 1) * stride + dilated kernel - padding.
        self.rows_before.next = self.ofm.val().height_m1;
        if self.stride_y.val() == 2 {
            self.rows_before.next = self.ofm.val().height_m1 << 1;
        }
        if self.stride_y.val() == 3 {
            self.rows_before.next = (self.ofm.val().height_m1 << 1) + self.ofm.val().height_m1;
        }
        self.columns_before.next = self.ofm.val().width_m1;
        if self.stride_x.val() == 2 {
            self.columns_before.next = self.ofm.val().width_m1 << 1;
        }
        if self.stride_x.val() == 3 {
            self.columns_before.next = (self.ofm.val().width_m1 << 1) + self.ofm.val().width_m1;
        }
        self.shape.next.ifm_height = self.rows_before.val() + self.dilated_height.val()
            - bit_cast::<16, 7>(self.ifm.val().pad_top)
            - bit_cast::<16, 8>(self.ifm.val().pad_bottom);
        self.shape.next.ifm_width = self.columns_before.val() + self.dilated_width.val()
            - bit_cast::<16, 7>(self.ifm.val().pad_left)
            - bit_cast::<16, 8>(self.ifm.val().pad_right);

        self.ifm_type.activation_type.next = self.ifm.val().precision_activation_type;
        self.ifm_type.activation_precision.next = self.ifm.val().precision_activation_precision;
        self.ifm_type.activation_format.next = self.ifm.val().precision_activation_format;
        self.ifm_wide.next = self.ifm_type.width.val() == self.bits_16.val();
        self.ifm_signed.next = self.ifm_type.is_signed.val();
        self.ifm_int32.next = self.ifm_type.int32.val();
        self.shape.next.wide = self.ifm_wide.val();
        self.shape.next.int32 = self.ifm_int32.val();
        if self.elementwise.val() {
            self.shape.next.ifm_height = self.ofm.val().height_m1 + 1;
            self.shape.next.ifm_width = self.ofm.val().width_m1 + 1;
        }

        // Elementwise operands (TRM 4.6.4 NPU_SET_IFM2_*): IFM2 fetched as
        // an IFM view (the fields both have; the fetch reads no other), its
        // broadcast, scalar and operand order.
        self.ifm2.next = self.state.val().ifm2;
        self.ifm2_view.next = self.ifm.val();
        self.ifm2_view.next.precision_activation_type = self.ifm2.val().precision_activation_type;
        self.ifm2_view.next.precision_activation_precision =
            self.ifm2.val().precision_activation_precision;
        self.ifm2_view.next.precision_activation_format =
            self.ifm2.val().precision_activation_format;
        self.ifm2_view.next.precision_scale_mode = 0.into();
        self.ifm2_view.next.precision_round_mode = 0.into();
        self.ifm2_view.next.zero_point = self.ifm2.val().zero_point;
        self.ifm2_view.next.width0_m1 = self.ifm2.val().width0_m1;
        self.ifm2_view.next.height0_m1 = self.ifm2.val().height0_m1;
        self.ifm2_view.next.height1_m1 = self.ifm2.val().height1_m1;
        self.ifm2_view.next.region = self.ifm2.val().region;
        self.ifm2_view.next.base0 = self.ifm2.val().base0;
        self.ifm2_view.next.base1 = self.ifm2.val().base1;
        self.ifm2_view.next.base2 = self.ifm2.val().base2;
        self.ifm2_view.next.base3 = self.ifm2.val().base3;
        self.ifm2_view.next.stride_x = self.ifm2.val().stride_x;
        self.ifm2_view.next.stride_y = self.ifm2.val().stride_y;
        self.ifm2_view.next.stride_c = self.ifm2.val().stride_c;
        self.elementwise_mode.next = self.operation.val().param & self.elementwise_mode_mask.val();
        self.unary.next = (self.elementwise_mode.val() == self.abs_mode.val())
            | (self.elementwise_mode.val() == self.lrelu_mode.val())
            | (self.elementwise_mode.val() == self.clz_mode.val());
        self.operand_settings.next.element_shift = self.ifm_type.width.val();
        self.operand_settings.next.signed = self.ifm_signed.val();
        self.operand_settings.next.ifm_zero_point = self.ifm.val().zero_point;
        self.operand_settings.next.ifm2_zero_point = self.ifm2.val().zero_point;
        self.operand_settings.next.broadcast_h = self.ifm2.val().broadcast_h;
        self.operand_settings.next.broadcast_w = self.ifm2.val().broadcast_w;
        self.operand_settings.next.broadcast_c = self.ifm2.val().broadcast_c;
        self.operand_settings.next.reversed = self.ifm2.val().broadcast_operand_order;
        self.operand_settings.next.scalar = self.ifm2.val().broadcast_constant;
        self.operand_settings.next.unary = self.unary.val();
        // NPU_SET_PARALLEL_MODE (the datapath pairs the groups only with
        // two cores).
        self.operand_settings.next.paired = self.kernel.val().parallel_mode != 0;
        // The scalar less IFM2's zero point, both by IFM2's signedness
        // (golden `param16`).
        self.ifm2_type.activation_type.next = self.ifm2.val().precision_activation_type;
        self.ifm2_type.activation_precision.next = self.ifm2.val().precision_activation_precision;
        self.ifm2_type.activation_format.next = self.ifm2.val().precision_activation_format;
        self.scalar_raw.next = bit_cast::<32, 16>(self.ifm2.val().scalar);
        if self.ifm2_type.is_signed.val() & self.scalar_raw.val().get_bit(15) {
            self.scalar_raw.next =
                bit_cast::<32, 16>(self.ifm2.val().scalar) - bits::<32>(0x1_0000);
        }
        self.scalar_zero_point.next = bit_cast::<32, 16>(self.ifm2.val().zero_point);
        if self.ifm2_type.is_signed.val() & self.scalar_zero_point.val().get_bit(15) {
            self.scalar_zero_point.next =
                bit_cast::<32, 16>(self.ifm2.val().zero_point) - bits::<32>(0x1_0000);
        }
        self.operand_settings.next.scalar_value =
            self.scalar_raw.val() - self.scalar_zero_point.val();
        self.blockdep.next = self.kernel.val().blockdep;
        self.reads_ifm2.next =
            self.elementwise.val() & !self.unary.val() & !self.ifm2.val().broadcast_constant;
        self.ifm2_start_kb.next = bit_cast::<16, 6>(self.ifm2.val().ib_start);
        self.ifm_end_kb.next = bit_cast::<16, 6>(self.ifm.val().ib_end);
        if self.reads_ifm2.val() {
            self.ifm_end_kb.next = self.ifm2_start_kb.val();
        }
        self.ifm_buffers.next.start = 2048.into();
        self.ifm_buffers.next.half = ((self.ifm_end_kb.val() - 2) >> 1) << 10;
        self.ifm2_buffers.next.start = self.ifm2_start_kb.val() << 10;
        self.ifm2_buffers.next.half =
            ((bit_cast::<16, 6>(self.ifm.val().ib_end) - self.ifm2_start_kb.val()) >> 1) << 10;

        // The output unit (TRM 3.3.7).
        self.ofm_type.activation_type.next = self.ofm.val().precision_activation_type;
        self.ofm_type.activation_precision.next = self.ofm.val().precision_activation_precision;
        self.ofm_type.activation_format.next = self.ofm.val().precision_activation_format;
        self.output_settings.next.round_mode = self.ofm.val().precision_round_mode;
        self.output_settings.next.ofm_signed = self.ofm_type.is_signed.val();
        self.output_settings.next.ofm_precision = self.ofm_type.width.val();
        self.output_settings.next.global_scale = self.ofm.val().precision_scale_mode;
        self.output_settings.next.scale = self.activation.val().ofm_scale_scale;
        self.output_settings.next.shift = self.activation.val().ofm_scale_shift;
        self.output_settings.next.zero_point = self.ofm.val().zero_point;
        self.output_settings.next.acc_format = self.kernel.val().acc_format;
        self.output_settings.next.function = self.activation.val().activation_function;
        self.output_settings.next.clip_range = self.activation.val().activation_clip_range;
        self.output_settings.next.activation_min = self.activation.val().activation_min;
        self.output_settings.next.activation_max = self.activation.val().activation_max;
        // TRM 4.8.2 table 4-122: max pool and padded average pool do not
        // scale; a padded average divides by the window's IFM elements.
        self.padded.next = (self.ifm.val().pad_top != 0)
            | (self.ifm.val().pad_left != 0)
            | (self.ifm.val().pad_bottom != 0)
            | (self.ifm.val().pad_right != 0);
        self.output_settings.next.divide = self.pool_average.val() & self.padded.val();
        self.output_settings.next.unscaled =
            self.pool_max.val() | (self.pool_average.val() & self.padded.val());
        // NPU_OP_ELEMENTWISE (TRM 4.6.4): the mode, the IFM type and the
        // ADD/SUB input scales.
        self.output_settings.next.elementwise = self.elementwise.val();
        self.output_settings.next.elementwise_mode = self.elementwise_mode.val().get_bits::<6>(0);
        self.output_settings.next.ifm_precision = self.ifm_type.width.val();
        self.output_settings.next.ifm_scale_mode = self.ifm.val().precision_scale_mode;
        self.output_settings.next.ifm_round_mode = self.ifm.val().precision_round_mode;
        self.output_settings.next.opa_scale = self.activation.val().opa_scale_scale;
        self.output_settings.next.opa_shift = self.activation.val().opa_scale_shift;
        self.output_settings.next.opb_scale = self.activation.val().opb_scale;
        // TRM 4.6.5 NPU_SET_OFM_SCALE: a 32-bit result is shifted only.
        self.output_settings.next.shift_only = (self.pool.val() | self.elementwise.val())
            & (self.ofm_type.width.val() == self.bits_32.val());
        self.per_channel.next = !self.output_settings.val().global_scale
            & !self.output_settings.val().unscaled
            & !self.elementwise.val();
    }
}
