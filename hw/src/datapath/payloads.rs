//! The payloads the datapath's blocks pass each other: an operation's
//! traversal shape, the IFM block jobs, MAC beats and readouts of the
//! traversal, the IFM buffers' places, the elementwise operands and the tags
//! and window taps that travel beside them. One file, so a block's ports
//! read against one vocabulary.

use super::operand_reader::OPERAND_LANES;
use rust_hdl::prelude::*;

/// A convolution's traversal parameters (`npu_model::schedule::ConvShape`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct TraversalShape {
    pub ofm_height: Bits<16>,
    pub ofm_width: Bits<16>,
    pub ofm_depth: Bits<16>,
    pub ifm_depth: Bits<16>,
    /// The upscaled IFM extent the kernel windows read.
    pub ifm_height: Bits<16>,
    pub ifm_width: Bits<16>,
    /// Kernel size before dilation.
    pub kernel_height: Bits<16>,
    pub kernel_width: Bits<16>,
    /// 1 to 3.
    pub stride_x: Bits<2>,
    pub stride_y: Bits<2>,
    /// 1 or 2.
    pub dilation_x: Bits<2>,
    pub dilation_y: Bits<2>,
    pub pad_top: Bits<16>,
    pub pad_left: Bits<16>,
    /// 2x2 upscaling (either mode): source coordinates are halved.
    pub upscale: Bit,
    pub depthwise: Bit,
    pub part_kernel_first: Bit,
    /// NPU_SET_KERNEL_STRIDE bit 5: sub-kernels of at most 4x4.
    pub decomposition_4x4: Bit,
    /// 16-bit IFM.
    pub wide: Bit,
    /// 32-bit IFM (an int32 REDUCE_SUM, TRM table 4-125): IFM blocks of 8
    /// channels, walked in 4-channel groups of four beats (bytes 0-3).
    pub int32: Bit,
    /// The OFM is one row (`ofm_height` 1): microblocks are 1x4, four
    /// consecutive positions of the row, instead of 2x2 (CONV1D rows of
    /// TRM tables 4-126/4-127 fill the MAC array).
    pub one_row: Bit,
    pub block_height: Bits<16>,
    pub block_width: Bits<16>,
    pub block_depth: Bits<16>,
    /// NPU_SET_PARALLEL_MODE 1 (TRM 4.7.5.1): OFM channels split between
    /// two cores, core k holding channels k, k + 2, ...; each core's blocks
    /// are half `block_depth` deep.
    pub parallel: Bit,
    /// NPU_OP_POOL (`npu_model::schedule::ConvShape::pool`): no weights, so
    /// kernel elements are not padded to whole weight groups.
    pub pool: Bit,
}

/// One IFM block operation (`npu_model::schedule::IfmBlockOp`): its OFM
/// block, the source-IFM rectangle to fetch (empty when `height` or `width`
/// is 0) and the sub-kernel.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct IfmBlockJob {
    pub ofm_y: Bits<16>,
    pub ofm_x: Bits<16>,
    pub ofm_z: Bits<16>,
    pub ofm_height: Bits<16>,
    pub ofm_width: Bits<16>,
    pub ofm_depth: Bits<16>,
    pub y0: Bits<16>,
    pub x0: Bits<16>,
    pub height: Bits<16>,
    pub width: Bits<16>,
    pub channel0: Bits<16>,
    pub channels: Bits<16>,
    pub sub_y: Bits<16>,
    pub sub_x: Bits<16>,
    pub sub_height: Bits<16>,
    pub sub_width: Bits<16>,
    pub first: Bit,
    pub last: Bit,
    /// The IFM buffer (IB0/IB1) it goes to.
    pub ib_half: Bit,
    /// Core 0's last OFM block in depth of this spatial block (its weight
    /// stream ends with it).
    pub last_depth: Bit,
    /// Parallel mode: `ofm_z` and `ofm_depth` count core 0's channels, and
    /// core 1's local channels `ofm_z..ofm_z + paired_depth` are computed
    /// beside them; whether this is core 1's last OFM block in depth.
    pub paired_depth: Bits<16>,
    pub paired_last_depth: Bit,
}

/// One MAC beat: the microblock at OFM (`oy`, `ox`) (top-left position),
/// kernel element (`ky`, `kx`), the 8 IFM channels from `ifm_channel` of
/// the IFM block and accumulator word `acc_address`.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct MacBeat {
    pub oy: Bits<16>,
    pub ox: Bits<16>,
    pub ky: Bits<16>,
    pub kx: Bits<16>,
    pub ifm_channel: Bits<16>,
    pub acc_address: Bits<9>,
    /// The accumulators start from zero.
    pub first: Bit,
    /// The part of multi-byte activations the beat carries: 1 the high
    /// byte of 16-bit ones, 0-3 the byte of 32-bit ones.
    pub byte: Bits<2>,
    /// Core 1 takes the beat too, with a weight group of its own (parallel
    /// mode, core 1 having the beat's OFM slice), and the beat is core 1's
    /// last of the OFM block.
    pub paired: Bit,
    pub paired_block_end: Bit,
    /// The weight group is all padding: consume it, multiply nothing.
    pub skip: Bit,
    /// The weight group's last beat: the next beat takes the next group.
    pub group_end: Bit,
    /// The IFM block's last beat: once its activations are read from the
    /// shared buffer, the consumer frees the block's IFM buffer (`ib_read`).
    pub job_end: Bit,
    /// The last beat of an 8-OFM-channel slice of the OFM block (in the
    /// block's last IFM block): the slice can be read out once it is in
    /// the accumulators.
    pub slice_end: Bit,
    /// The OFM block's last beat.
    pub block_end: Bit,
}

/// One accumulator word to read out: the microblock at OFM (`oy`, `ox`),
/// channels `oz..oz + channels`; bit p of `positions` says position p of
/// the microblock (raster order: (`oy` + p / 2, `ox` + p % 2) for 2x2,
/// (`oy`, `ox` + p) for 1x4) lies in the OFM block.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Readout {
    pub acc_address: Bits<9>,
    pub oy: Bits<16>,
    pub ox: Bits<16>,
    pub oz: Bits<16>,
    pub positions: Bits<4>,
    /// Channels of core 0's word, and of core 1's at the same address
    /// (parallel mode, `oz` counting each core's channels: OFM channel 2 *
    /// oz + core; 0 when core 1 has none).
    pub channels: Bits<4>,
    pub paired_channels: Bits<4>,
    /// The last word of these OFM channels (their scale records are used up).
    pub group_end: Bit,
    /// The OFM block's last word.
    pub block_end: Bit,
}

/// Where a job's IFM buffer is: IB0 from byte `start` of the shared
/// buffer, IB1 `half` bytes after it.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct IfmBuffers {
    pub start: Bits<16>,
    pub half: Bits<16>,
}

/// What the reader needs of an elementwise operation.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OperandSettings {
    /// log2 of the element bytes: 0, 1 or 2 (IFM and IFM2 alike).
    pub element_shift: Bits<2>,
    /// Signed elements (an 8- or 16-bit element is sign-extended).
    pub signed: Bit,
    /// NPU_SET_IFM_ZERO_POINT and NPU_SET_IFM2_ZERO_POINT, extended by
    /// `signed`.
    pub ifm_zero_point: Bits<16>,
    pub ifm2_zero_point: Bits<16>,
    pub broadcast_h: Bit,
    pub broadcast_w: Bit,
    pub broadcast_c: Bit,
    /// IFM2 is `scalar_value` (NPU_SET_IFM2_SCALAR less its zero point).
    pub scalar: Bit,
    pub scalar_value: Bits<32>,
    /// IFM2 is operand A.
    pub reversed: Bit,
    /// No IFM2 (ABS, LRELU, CLZ).
    pub unary: Bit,
    /// Groups for two output units: the rest of each line.
    pub paired: Bit,
}

/// One group's operands: lane i's A and B (32-bit two's complement) in
/// bits 32i+31..32i, bit i of `lanes` set for a lane holding a channel;
/// OFM position (`y`, `x`) and the group's first channel `c`.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OperandPair {
    pub a: Bits<{ OPERAND_LANES * 32 }>,
    pub b: Bits<{ OPERAND_LANES * 32 }>,
    pub lanes: Bits<OPERAND_LANES>,
    pub y: Bits<16>,
    pub x: Bits<16>,
    pub c: Bits<16>,
    /// The job's (its OFM block's) last group.
    pub block_end: Bit,
}

/// What a MAC beat carries past the IFM unit.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct BeatTag {
    pub acc_address: Bits<9>,
    pub first: Bit,
    pub byte: Bits<2>,
    pub skip: Bit,
    pub group_end: Bit,
    pub job_end: Bit,
    pub slice_end: Bit,
    /// Bit k: core k takes the beat (multiplies with its weight group).
    pub cores: Bits<2>,
    /// Bit k: the beat ends core k's weight stream of the spatial block.
    pub stream_ends: Bits<2>,
    /// A pool's unit weights: bit k for IFM channel k of the beat (all of
    /// them but those past a REDUCE_SUM IFM block's depth).
    pub unit_lanes: Bits<8>,
}

/// The taps of a readout word's positions: a 2x2 microblock's position p
/// is (oy + p / 2, ox + p % 2), a 1x4 one's (a one-row OFM) (oy, ox + p).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct WindowTaps {
    /// Rows oy and oy + 1.
    pub row0: Bits<4>,
    pub row1: Bits<4>,
    /// Columns ox to ox + 3.
    pub column0: Bits<4>,
    pub column1: Bits<4>,
    pub column2: Bits<4>,
    pub column3: Bits<4>,
}
