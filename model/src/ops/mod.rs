//! Kernel operations of TRM 4.8: convolution, vector product, depth-wise,
//! pooling, reduce sum and elementwise, with the output unit of TRM 3.3.7.
//!
//! Every operation reads the NPU_SET_* state the stream left behind, checks
//! it against the rules of TRM 4.8.2, reads its inputs from the base-pointer
//! regions, computes with exact integer arithmetic and writes the OFM.
//!
//! `run_kernel` is the flow; the steps live apart: `decode` (the state
//! into an `Op`), `rules` (what the TRM forbids), `record` (the report's
//! row, footprints and accesses), `io` (feature maps, scales and weights in
//! memory), `output_stage` (TRM 3.3.7) and one file per computation:
//! `convolution`, `pooling`, `elementwise`.

use crate::access::OperationAccess;
use crate::cmdstream::Command;
use crate::state::{NpuState, OpError, OpRecord};
use crate::tensor::FeatureMap;
use npu_arch::command::{
    AccFormat, ActivationClipRange, ActivationFunction, ElementwiseMode, KernelDecomposition,
    OfmScaleMode, Opcode, PoolingMode, RoundMode, UpscaleMode, WeightOrder as WeightOrderBit,
};

mod convolution;
mod decode;
mod elementwise;
mod io;
mod output_stage;
mod pooling;
mod record;
mod rules;

pub use convolution::{scale_accumulator, wrap_accumulator};
pub(crate) use elementwise::ElementwiseInputs;
pub use elementwise::{add_input_shift, ElementwiseArithmetic};
pub use io::ScaleRecord;
pub use output_stage::{OutStage, OutputScale};
pub use rules::elementwise_types_allowed;

/// Largest feature map or weight tensor (elements) the model will allocate.
pub const MAX_ELEMENTS: usize = 1 << 24;

/// Which computation a kernel command asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelKind {
    Conv,
    Depthwise,
    Pool(PoolingMode),
    Elementwise(ElementwiseMode),
}

fn forbidden(rule: &'static str, detail: impl Into<String>) -> OpError {
    OpError::Forbidden {
        rule,
        detail: detail.into(),
    }
}

fn bad(detail: impl Into<String>) -> OpError {
    OpError::BadParam(detail.into())
}

/// Decode the kernel command and run it, showing the decoded operation to
/// `observe` (functional coverage) before it runs. Returns its record with
/// the kind, shapes and kernel filled in (the caller adds offset, MACs and
/// traffic).
pub(crate) fn run_kernel(
    npu: &mut NpuState,
    command: &Command,
    observe: impl FnOnce(&Op, &NpuState),
) -> Result<OpRecord, OpError> {
    let (op, param) = (command.op, command.param);
    let kind = match op {
        Opcode::NpuOpConv => KernelKind::Conv,
        Opcode::NpuOpDepthwise => KernelKind::Depthwise,
        Opcode::NpuOpPool => KernelKind::Pool(
            PoolingMode::from_bits(param as u32)
                .ok_or_else(|| bad(format!("pooling mode {param} is not 0-2")))?,
        ),
        _ => KernelKind::Elementwise(
            ElementwiseMode::from_bits(param as u32)
                .ok_or_else(|| bad(format!("elementwise mode {param} is not 0-9")))?,
        ),
    };
    let name = match kind {
        KernelKind::Pool(mode) => format!("{} {mode:?}", op.name()).to_uppercase(),
        KernelKind::Elementwise(mode) => format!("{} {mode:?}", op.name()).to_uppercase(),
        _ => op.name().to_string(),
    };
    let op = Op::decode(npu, kind)?;
    op.validate()?;
    op.validate_on(npu)?;
    let record = op.record(npu, name.clone())?;
    if !npu.rules_only() {
        observe(&op, npu);
    }
    if npu.accesses {
        let accesses = op.accesses(npu)?;
        npu.stats.accesses.push(OperationAccess {
            offset: command.offset,
            operation: name,
            accesses,
        });
    }
    if npu.records_footprints() {
        let blocks = op.footprints(npu)?;
        npu.record_blocks(command.offset, blocks)?;
    }
    if npu.rules_only() {
        return Ok(record);
    }
    match kind {
        KernelKind::Conv | KernelKind::Depthwise => op.run_conv(npu),
        KernelKind::Pool(mode) => op.run_pool(npu, mode),
        KernelKind::Elementwise(mode) => op.run_elementwise(npu, mode),
    }?;
    Ok(record)
}

/// Everything an operation needs, decoded from the NPU_SET_* state.
pub(crate) struct Op {
    pub(crate) kind: KernelKind,
    pub(crate) ifm: FeatureMap,
    pub(crate) ofm: FeatureMap,
    /// OFM height, width, depth.
    pub(crate) oh: usize,
    pub(crate) ow: usize,
    pub(crate) oc: usize,
    pub(crate) ifm_depth: usize,
    pub(crate) stride_x: usize,
    pub(crate) stride_y: usize,
    pub(crate) dil_x: usize,
    pub(crate) dil_y: usize,
    /// Dilated kernel size.
    pub(crate) dkw: usize,
    pub(crate) dkh: usize,
    pub(crate) pad_top: usize,
    pub(crate) pad_left: usize,
    pub(crate) pad_bottom: usize,
    pub(crate) pad_right: usize,
    pub(crate) upscale: UpscaleMode,
    pub(crate) weight_order: WeightOrderBit,
    pub(crate) decomposition: KernelDecomposition,
    pub(crate) acc: AccFormat,
    pub(crate) round: RoundMode,
    pub(crate) ofm_scale_mode: OfmScaleMode,
    pub(crate) activation: ActivationFunction,
    pub(crate) clip: ActivationClipRange,
    pub(crate) act_min: u16,
    pub(crate) act_max: u16,
    pub(crate) parallel: bool,
}
