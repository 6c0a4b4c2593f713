//! Decoders of NPU_SET_* values (TRM 4.6.4) that central control's rules
//! ([`crate::central_control::OperationRules`]) and the datapath's operation decoder both
//! read, at the field positions of `npu_arch::command`. Each presents every
//! field; an instance uses those its role needs.

use super::KernelView;
use crate::arch_constants::constant;
use npu_arch::command::{ActivationPrecision, Layout};
use rust_hdl::prelude::*;

/// A feature map's type and format from the fields of its
/// NPU_SET_*_PRECISION (TRM 4.6.4), as the golden model's `dtype` and
/// `layout` read them.
#[derive(LogicBlock)]
pub struct FeatureMapType {
    pub activation_type: Signal<In, Bit>,
    pub activation_precision: Signal<In, Bits<2>>,
    pub activation_format: Signal<In, Bits<2>>,
    /// 0 8-bit, 1 16-bit, 2 32-bit (3 is reserved).
    pub width: Signal<Out, Bits<2>>,
    pub is_signed: Signal<Out, Bit>,
    /// A reserved precision or format, or an unsigned 32-bit type.
    pub reserved: Signal<Out, Bit>,
    pub int32: Signal<Out, Bit>,
    bits32: Constant<Bits<2>>,
    format_max: Constant<Bits<2>>,
}

impl Default for FeatureMapType {
    fn default() -> Self {
        Self {
            activation_type: Default::default(),
            activation_precision: Default::default(),
            activation_format: Default::default(),
            width: Default::default(),
            is_signed: Default::default(),
            reserved: Default::default(),
            int32: Default::default(),
            bits32: constant(ActivationPrecision::Bits32.bits().into()),
            format_max: constant(Layout::Nhcwb16.bits().into()),
        }
    }
}

impl Logic for FeatureMapType {
    #[hdl_gen]
    fn update(&mut self) {
        self.width.next = self.activation_precision.val();
        self.is_signed.next = self.activation_type.val();
        self.int32.next = (self.width.val() == self.bits32.val()) & self.is_signed.val();
        self.reserved.next = (self.width.val() > self.bits32.val())
            | ((self.width.val() == self.bits32.val()) & !self.is_signed.val())
            | (self.activation_format.val() > self.format_max.val());
    }
}

/// NPU_SET_KERNEL_STRIDE's fields (TRM 4.6.4): stride - 1 = msb << 1 | lsb
/// in x and y, dilation 2 in x or y, the weight order and the 4x4 kernel
/// decomposition.
#[derive(LogicBlock, Default)]
pub struct KernelStride {
    pub kernel: Signal<In, KernelView>,
    pub stride_x_m1: Signal<Out, Bits<4>>,
    pub stride_y_m1: Signal<Out, Bits<4>>,
    pub dilation_x: Signal<Out, Bit>,
    pub dilation_y: Signal<Out, Bit>,
    pub part_kernel_first: Signal<Out, Bit>,
    pub decomposition_4x4: Signal<Out, Bit>,
}

impl Logic for KernelStride {
    #[hdl_gen]
    fn update(&mut self) {
        self.stride_x_m1.next = bit_cast::<4, 3>(self.kernel.val().stride_x_msb) << 1;
        if self.kernel.val().stride_x_lsb {
            self.stride_x_m1.next = (bit_cast::<4, 3>(self.kernel.val().stride_x_msb) << 1) | 1;
        }
        self.stride_y_m1.next = bit_cast::<4, 3>(self.kernel.val().stride_y_msb) << 1;
        if self.kernel.val().stride_y_lsb {
            self.stride_y_m1.next = (bit_cast::<4, 3>(self.kernel.val().stride_y_msb) << 1) | 1;
        }
        self.dilation_x.next = self.kernel.val().stride_dilation_x;
        self.dilation_y.next = self.kernel.val().stride_dilation_y;
        self.part_kernel_first.next = self.kernel.val().stride_weight_order;
        self.decomposition_4x4.next = self.kernel.val().stride_decomposition;
    }
}
