//! Decoders of NPU_SET_* values (TRM 4.6.4) that central control's rules
//! ([`super::OperationRules`]) and the datapath's operation decoder both
//! read, at the field positions of `npu_arch::command`. Each presents every
//! field; an instance uses those its role needs.

use crate::arch_constants::{command_field_lsb, command_field_mask, constant};
use npu_arch::command::{ActivationPrecision, Layout, Opcode};
use rust_hdl::prelude::*;

/// A feature map's type and format from its NPU_SET_*_PRECISION value
/// (TRM 4.6.4), as the golden model's `dtype` and `layout` read them.
#[derive(LogicBlock)]
pub struct FeatureMapType {
    pub precision: Signal<In, Bits<16>>,
    /// 0 8-bit, 1 16-bit, 2 32-bit (3 is reserved).
    pub width: Signal<Out, Bits<2>>,
    pub is_signed: Signal<Out, Bit>,
    /// A reserved precision or format, or an unsigned 32-bit type.
    pub reserved: Signal<Out, Bit>,
    pub int32: Signal<Out, Bit>,
    type_mask: Constant<Bits<16>>,
    width_lsb: Constant<Bits<6>>,
    format_lsb: Constant<Bits<6>>,
    bits32: Constant<Bits<2>>,
    format_max: Constant<Bits<2>>,
}

impl FeatureMapType {
    /// The type of the feature map `precision` (an NPU_SET_*_PRECISION) sets.
    pub fn new(precision: Opcode) -> Self {
        Self {
            precision: Default::default(),
            width: Default::default(),
            is_signed: Default::default(),
            reserved: Default::default(),
            int32: Default::default(),
            type_mask: command_field_mask(precision, "activation_type"),
            width_lsb: command_field_lsb(precision, "activation_precision"),
            format_lsb: command_field_lsb(precision, "activation_format"),
            bits32: constant(ActivationPrecision::Bits32.bits().into()),
            format_max: constant(Layout::Nhcwb16.bits().into()),
        }
    }
}

impl Logic for FeatureMapType {
    #[hdl_gen]
    fn update(&mut self) {
        self.width.next = bit_cast::<2, 16>(self.precision.val() >> self.width_lsb.val());
        self.is_signed.next = (self.precision.val() & self.type_mask.val()) != 0;
        self.int32.next = (self.width.val() == self.bits32.val()) & self.is_signed.val();
        self.reserved.next = (self.width.val() > self.bits32.val())
            | ((self.width.val() == self.bits32.val()) & !self.is_signed.val())
            | (bit_cast::<2, 16>(self.precision.val() >> self.format_lsb.val())
                > self.format_max.val());
    }
}

/// NPU_SET_KERNEL_STRIDE's fields (TRM 4.6.4): stride - 1 = msb << 1 | lsb
/// in x and y, dilation 2 in x or y, the weight order and the 4x4 kernel
/// decomposition.
#[derive(LogicBlock)]
pub struct KernelStride {
    pub word: Signal<In, Bits<12>>,
    pub stride_x_m1: Signal<Out, Bits<4>>,
    pub stride_y_m1: Signal<Out, Bits<4>>,
    pub dilation_x: Signal<Out, Bit>,
    pub dilation_y: Signal<Out, Bit>,
    pub part_kernel_first: Signal<Out, Bit>,
    pub decomposition_4x4: Signal<Out, Bit>,
    x_lsb: Constant<Bits<6>>,
    x_msb: Constant<Bits<6>>,
    y_lsb: Constant<Bits<6>>,
    y_msb: Constant<Bits<6>>,
    dilation_x_mask: Constant<Bits<12>>,
    dilation_y_mask: Constant<Bits<12>>,
    weight_order_mask: Constant<Bits<12>>,
    decomposition_mask: Constant<Bits<12>>,
}

impl Default for KernelStride {
    fn default() -> Self {
        let stride = Opcode::NpuSetKernelStride;
        Self {
            word: Default::default(),
            stride_x_m1: Default::default(),
            stride_y_m1: Default::default(),
            dilation_x: Default::default(),
            dilation_y: Default::default(),
            part_kernel_first: Default::default(),
            decomposition_4x4: Default::default(),
            x_lsb: command_field_lsb(stride, "stride_x_lsb"),
            x_msb: command_field_lsb(stride, "stride_x_msb"),
            y_lsb: command_field_lsb(stride, "stride_y_lsb"),
            y_msb: command_field_lsb(stride, "stride_y_msb"),
            dilation_x_mask: command_field_mask(stride, "dilation_x"),
            dilation_y_mask: command_field_mask(stride, "dilation_y"),
            weight_order_mask: command_field_mask(stride, "weight_order"),
            decomposition_mask: command_field_mask(stride, "decomposition"),
        }
    }
}

impl Logic for KernelStride {
    #[hdl_gen]
    fn update(&mut self) {
        self.stride_x_m1.next = ((bit_cast::<4, 12>(self.word.val() >> self.x_msb.val()) & 7) << 1)
            | (bit_cast::<4, 12>(self.word.val() >> self.x_lsb.val()) & 1);
        self.stride_y_m1.next = ((bit_cast::<4, 12>(self.word.val() >> self.y_msb.val()) & 7) << 1)
            | (bit_cast::<4, 12>(self.word.val() >> self.y_lsb.val()) & 1);
        self.dilation_x.next = (self.word.val() & self.dilation_x_mask.val()) != 0;
        self.dilation_y.next = (self.word.val() & self.dilation_y_mask.val()) != 0;
        self.part_kernel_first.next = (self.word.val() & self.weight_order_mask.val()) != 0;
        self.decomposition_4x4.next = (self.word.val() & self.decomposition_mask.val()) != 0;
    }
}
