//! Command-stream opcodes and fields (TRM 4.6).
//!
//! The one definition of every cmd0 (TRM 4.6.4, table 4-110) and cmd1
//! (TRM 4.6.5, table 4-111) command, with the TRM's names, their parameter
//! and payload fields, the enums of encoded field values, and the word
//! encoding. Plain data: the RTL decoder, the disassembler and the golden
//! model all read these tables.
//!
//! Word encoding (TRM 4.6, table 4-107): bits 0-9 opcode, bits 10-15
//! `000000` for cmd0 or `010000` for cmd1, bits 16-31 the 16-bit parameter.
//! A cmd1 word is followed by one 32-bit payload word.
//!
//! Field bit ranges ([`Field`]) are given in one *value space* per command:
//! for cmd0 the 16-bit parameter (bits 0-15); for cmd1 the payload in bits
//! 0-31 and the parameter in bits 32-47. Address and stride commands thus
//! carry one 48-bit value (payload = bits 0-31, parameter = bits 32-47).

use serde::{Deserialize, Serialize};

/// cmd0 or cmd1 (TRM table 4-107).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CmdKind {
    /// One word: opcode and 16-bit parameter.
    Cmd0,
    /// Two words: opcode and 16-bit parameter, then a 32-bit payload.
    Cmd1,
}

/// Bits 0-9 of a command word: the opcode.
pub const OPCODE_MASK: u32 = 0x3ff;
/// Bits 10-15 of a command word: the format (0 = cmd0, 0x10 = cmd1).
pub const FORMAT_SHIFT: u32 = 10;
/// Bits 10-15 value for cmd0.
pub const FORMAT_CMD0: u32 = 0b00_0000;
/// Bits 10-15 value for cmd1 (bit 14 set).
pub const FORMAT_CMD1: u32 = 0b01_0000;
/// The format's bits, after shifting by [`FORMAT_SHIFT`].
pub const FORMAT_MASK: u32 = 0x3f;

impl CmdKind {
    /// The kind of a command word's format bits 10-15; `None` for a reserved format.
    pub const fn from_format(format: u32) -> Option<CmdKind> {
        match format {
            FORMAT_CMD0 => Some(CmdKind::Cmd0),
            FORMAT_CMD1 => Some(CmdKind::Cmd1),
            _ => None,
        }
    }
}
/// Bits 16-31 of a command word: the parameter.
pub const PARAM_SHIFT: u32 = 16;

/// Encode the first word of a command.
pub const fn encode_word(kind: CmdKind, code: u16, param: u16) -> u32 {
    let fmt = match kind {
        CmdKind::Cmd0 => FORMAT_CMD0,
        CmdKind::Cmd1 => FORMAT_CMD1,
    };
    ((param as u32) << PARAM_SHIFT) | (fmt << FORMAT_SHIFT) | (code as u32 & OPCODE_MASK)
}

/// Split the first word of a command into (format bits 10-15, opcode, parameter).
pub const fn split_word(word: u32) -> (u32, u16, u16) {
    (
        (word >> FORMAT_SHIFT) & FORMAT_MASK,
        (word & OPCODE_MASK) as u16,
        (word >> PARAM_SHIFT) as u16,
    )
}

/// Signedness of a field when read out of the value space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sign {
    Unsigned,
    Signed,
}

/// A named bit range of a command's value space (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Field {
    pub name: &'static str,
    /// Lowest bit.
    pub lo: u8,
    /// Width in bits.
    pub width: u8,
    pub sign: Sign,
}

impl Field {
    const fn u(name: &'static str, lo: u8, width: u8) -> Field {
        Field {
            name,
            lo,
            width,
            sign: Sign::Unsigned,
        }
    }
    const fn s(name: &'static str, lo: u8, width: u8) -> Field {
        Field {
            name,
            lo,
            width,
            sign: Sign::Signed,
        }
    }

    /// `value` with this field replaced by the low bits of `field`.
    pub const fn set(&self, value: u64, field: u64) -> u64 {
        let mask = ((1u64 << self.width) - 1) << self.lo;
        (value & !mask) | ((field << self.lo) & mask)
    }

    /// Extract this field from a value space word, sign-extended if signed.
    pub const fn get(&self, value: u64) -> i64 {
        let raw = (value >> self.lo) & ((1u64 << self.width) - 1);
        match self.sign {
            Sign::Unsigned => raw as i64,
            Sign::Signed => ((raw << (64 - self.width)) as i64) >> (64 - self.width),
        }
    }
}

/// Bits of a value space that no field of `fields` covers: reserved.
pub const fn field_mask(fields: &[Field]) -> u64 {
    let mut mask = 0;
    let mut i = 0;
    while i < fields.len() {
        mask |= ((1u64 << fields[i].width) - 1) << fields[i].lo;
        i += 1;
    }
    mask
}

/// One row of table 4-110 or 4-111.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CommandInfo {
    pub op: Opcode,
    pub kind: CmdKind,
    /// Bits 0-9 of the command word.
    pub code: u16,
    /// The TRM's enumerator name, e.g. `NPU_SET_IFM_PAD_TOP`.
    pub name: &'static str,
    /// Fields of the value space (parameter for cmd0; payload 0-31 and
    /// parameter 32-47 for cmd1).
    pub fields: &'static [Field],
    /// One-line summary of the TRM's description.
    pub doc: &'static str,
}

macro_rules! commands {
    ($( $variant:ident = $kind:ident $code:literal, $name:literal, [$($field:expr),* $(,)?], $doc:literal; )*) => {
        /// Every command of TRM tables 4-110 (cmd0) and 4-111 (cmd1).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Opcode {
            $( $variant, )*
        }

        /// All commands, in table order.
        pub const COMMANDS: &[CommandInfo] = &[
            $( CommandInfo {
                op: Opcode::$variant,
                kind: CmdKind::$kind,
                code: $code,
                name: $name,
                fields: &[$($field),*],
                doc: $doc,
            }, )*
        ];

        impl Opcode {
            /// This command's table row.
            pub const fn info(self) -> &'static CommandInfo {
                &COMMANDS[self as usize]
            }
        }
    };
}

const ADDR: [Field; 1] = [Field::u("addr", 0, 48)];
const STRIDE: [Field; 1] = [Field::s("stride", 0, 48)];

commands! {
    // ---- cmd0: TRM 4.6.4, table 4-110 ----
    NpuOpStop = Cmd0 0x000, "NPU_OP_STOP", [Field::u("mask", 0, 16)],
        "STATUS |= mask<<16, enter stopped state, raise IRQ";
    NpuOpIrq = Cmd0 0x001, "NPU_OP_IRQ", [Field::u("mask", 0, 16)],
        "STATUS |= mask<<16, stay running, raise IRQ";
    NpuOpConv = Cmd0 0x002, "NPU_OP_CONV", [],
        "start convolution stripe";
    NpuOpDepthwise = Cmd0 0x003, "NPU_OP_DEPTHWISE", [],
        "start depth-wise convolution stripe";
    NpuOpPool = Cmd0 0x005, "NPU_OP_POOL", [Field::u("pooling_mode", 0, 3)],
        "start pooling stripe (0 max, 1 average, 2 reduce sum)";
    NpuOpElementwise = Cmd0 0x006, "NPU_OP_ELEMENTWISE", [Field::u("elementwise_mode", 0, 6)],
        "start elementwise stripe";
    // TRM table 4-110: the parameter is 16*channel, so bits 3:0 are reserved.
    NpuOpDmaStart = Cmd0 0x010, "NPU_OP_DMA_START", [Field::u("channel", 4, 12)],
        "queue DMA on channel param/16 (only channel 0)";
    NpuOpDmaWait = Cmd0 0x011, "NPU_OP_DMA_WAIT", [Field::u("k", 0, 4), Field::u("channel", 4, 12)],
        "wait until the DMA channel has k or fewer descriptors outstanding";
    NpuOpKernelWait = Cmd0 0x012, "NPU_OP_KERNEL_WAIT", [Field::u("n", 0, 2)],
        "wait until n or fewer kernel operations remain";
    NpuOpPmuMask = Cmd0 0x013, "NPU_OP_PMU_MASK", [Field::u("enable", 0, 1)],
        "enable/disable PMU event counting (named by Vela, not in the TRM table)";
    NpuSetIfmPadTop = Cmd0 0x100, "NPU_SET_IFM_PAD_TOP", [Field::u("pad", 0, 7)],
        "IFM top padding (after upscale)";
    NpuSetIfmPadLeft = Cmd0 0x101, "NPU_SET_IFM_PAD_LEFT", [Field::u("pad", 0, 7)],
        "IFM left padding (after upscale)";
    NpuSetIfmPadRight = Cmd0 0x102, "NPU_SET_IFM_PAD_RIGHT", [Field::u("pad", 0, 8)],
        "IFM right padding (after upscale)";
    NpuSetIfmPadBottom = Cmd0 0x103, "NPU_SET_IFM_PAD_BOTTOM", [Field::u("pad", 0, 8)],
        "IFM bottom padding (after upscale)";
    NpuSetIfmDepthM1 = Cmd0 0x104, "NPU_SET_IFM_DEPTH_M1", [Field::u("depth_m1", 0, 16)],
        "number of IFM channels - 1";
    NpuSetIfmPrecision = Cmd0 0x105, "NPU_SET_IFM_PRECISION", [
        Field::u("activation_type", 0, 1), Field::u("activation_precision", 2, 2),
        Field::u("activation_format", 6, 2), Field::u("scale_mode", 8, 2),
        Field::u("round_mode", 14, 2)],
        "IFM type, format, ADD/SUB input scale mode";
    NpuSetIfmUpscale = Cmd0 0x107, "NPU_SET_IFM_UPSCALE", [Field::u("mode", 0, 2)],
        "0 none, 1 2x2 nearest, 2 2x2 insert zeros";
    NpuSetIfmZeroPoint = Cmd0 0x109, "NPU_SET_IFM_ZERO_POINT", [Field::u("zero_point", 0, 16)],
        "IFM zero point (int16 or uint16 by IFM signedness)";
    NpuSetIfmWidth0M1 = Cmd0 0x10a, "NPU_SET_IFM_WIDTH0_M1", [Field::u("width_m1", 0, 16)],
        "IFM tile 0 and tile 2 width - 1";
    NpuSetIfmHeight0M1 = Cmd0 0x10b, "NPU_SET_IFM_HEIGHT0_M1", [Field::u("height_m1", 0, 16)],
        "IFM tile 0 height - 1";
    NpuSetIfmHeight1M1 = Cmd0 0x10c, "NPU_SET_IFM_HEIGHT1_M1", [Field::u("height_m1", 0, 16)],
        "IFM tile 1 height - 1";
    NpuSetIfmIbEnd = Cmd0 0x10d, "NPU_SET_IFM_IB_END", [Field::u("ib_end_kb", 0, 6)],
        "end of IB0/IB1 in the shared buffer, KB";
    NpuSetIfmRegion = Cmd0 0x10f, "NPU_SET_IFM_REGION", [Field::u("region", 0, 3)],
        "IFM base-pointer region";
    NpuSetOfmWidthM1 = Cmd0 0x111, "NPU_SET_OFM_WIDTH_M1", [Field::u("width_m1", 0, 16)],
        "OFM stripe width - 1";
    NpuSetOfmHeightM1 = Cmd0 0x112, "NPU_SET_OFM_HEIGHT_M1", [Field::u("height_m1", 0, 16)],
        "OFM stripe height - 1";
    NpuSetOfmDepthM1 = Cmd0 0x113, "NPU_SET_OFM_DEPTH_M1", [Field::u("depth_m1", 0, 16)],
        "OFM depth - 1";
    NpuSetOfmPrecision = Cmd0 0x114, "NPU_SET_OFM_PRECISION", [
        Field::u("activation_type", 0, 1), Field::u("activation_precision", 1, 2),
        Field::u("activation_format", 6, 2), Field::u("scale_mode", 8, 1),
        Field::u("round_mode", 14, 2)],
        "OFM type, format, scaling source, rounding mode";
    NpuSetOfmBlkWidthM1 = Cmd0 0x115, "NPU_SET_OFM_BLK_WIDTH_M1", [Field::u("width_m1", 0, 6)],
        "OFM block width - 1";
    NpuSetOfmBlkHeightM1 = Cmd0 0x116, "NPU_SET_OFM_BLK_HEIGHT_M1", [Field::u("height_m1", 0, 5)],
        "OFM block height - 1";
    NpuSetOfmBlkDepthM1 = Cmd0 0x117, "NPU_SET_OFM_BLK_DEPTH_M1", [Field::u("depth_m1", 0, 7)],
        "OFM block depth - 1";
    NpuSetOfmZeroPoint = Cmd0 0x118, "NPU_SET_OFM_ZERO_POINT", [Field::u("zero_point", 0, 16)],
        "OFM zero point (int16 or uint16 by OFM signedness)";
    NpuSetOfmWidth0M1 = Cmd0 0x11a, "NPU_SET_OFM_WIDTH0_M1", [Field::u("width_m1", 0, 16)],
        "OFM tile 0 and tile 2 width - 1";
    NpuSetOfmHeight0M1 = Cmd0 0x11b, "NPU_SET_OFM_HEIGHT0_M1", [Field::u("height_m1", 0, 16)],
        "OFM tile 0 height - 1";
    NpuSetOfmHeight1M1 = Cmd0 0x11c, "NPU_SET_OFM_HEIGHT1_M1", [Field::u("height_m1", 0, 16)],
        "OFM tile 1 height - 1";
    NpuSetOfmRegion = Cmd0 0x11f, "NPU_SET_OFM_REGION", [Field::u("region", 0, 3)],
        "OFM base-pointer region";
    NpuSetKernelWidthM1 = Cmd0 0x120, "NPU_SET_KERNEL_WIDTH_M1", [Field::u("width_m1", 0, 16)],
        "dilated kernel width - 1";
    NpuSetKernelHeightM1 = Cmd0 0x121, "NPU_SET_KERNEL_HEIGHT_M1", [Field::u("height_m1", 0, 16)],
        "dilated kernel height - 1";
    NpuSetKernelStride = Cmd0 0x122, "NPU_SET_KERNEL_STRIDE", [
        Field::u("stride_x_lsb", 0, 1), Field::u("stride_y_lsb", 1, 1),
        Field::u("weight_order", 2, 1), Field::u("dilation_x", 3, 1),
        Field::u("dilation_y", 4, 1), Field::u("decomposition", 5, 1),
        Field::u("stride_x_msb", 6, 3), Field::u("stride_y_msb", 9, 3)],
        "strides, dilation, weight order, kernel decomposition";
    NpuSetParallelMode = Cmd0 0x123, "NPU_SET_PARALLEL_MODE", [Field::u("parallel_mode", 0, 1)],
        "0 one core, 1 two-core depth split";
    NpuSetAccFormat = Cmd0 0x124, "NPU_SET_ACC_FORMAT", [Field::u("acc_format", 0, 2)],
        "0 int32, 1 int40, 2 s5.10";
    NpuSetActivation = Cmd0 0x125, "NPU_SET_ACTIVATION", [
        Field::u("activation_function", 0, 12), Field::u("activation_clip_range", 12, 4)],
        "activation function and clip range";
    NpuSetActivationMin = Cmd0 0x126, "NPU_SET_ACTIVATION_MIN", [Field::u("clip_min", 0, 16)],
        "lower clip bound";
    NpuSetActivationMax = Cmd0 0x127, "NPU_SET_ACTIVATION_MAX", [Field::u("clip_max", 0, 16)],
        "upper clip bound";
    NpuSetWeightRegion = Cmd0 0x128, "NPU_SET_WEIGHT_REGION", [Field::u("region", 0, 3)],
        "weight stream base-pointer region";
    NpuSetScaleRegion = Cmd0 0x129, "NPU_SET_SCALE_REGION", [Field::u("region", 0, 3)],
        "scale/bias stream base-pointer region";
    NpuSetAbStart = Cmd0 0x12d, "NPU_SET_AB_START", [Field::u("ab_start_kb", 0, 6)],
        "start of ACC0/ACC1 in the shared buffer, KB";
    NpuSetBlockdep = Cmd0 0x12f, "NPU_SET_BLOCKDEP", [Field::u("blockdep", 0, 2)],
        "block dependency between kernel operations";
    NpuSetDma0SrcRegion = Cmd0 0x130, "NPU_SET_DMA0_SRC_REGION", [
        Field::u("region", 0, 8), Field::u("region_mode", 8, 1), Field::u("stride_mode", 9, 2)],
        "DMA source region and stride mode";
    NpuSetDma0DstRegion = Cmd0 0x131, "NPU_SET_DMA0_DST_REGION", [
        Field::u("region", 0, 8), Field::u("region_mode", 8, 1), Field::u("stride_mode", 9, 2)],
        "DMA destination region (or core mask if internal) and stride mode";
    NpuSetDma0Size0 = Cmd0 0x132, "NPU_SET_DMA0_SIZE0", [Field::u("size", 0, 16)],
        "size of the second dimension (2D/3D)";
    NpuSetDma0Size1 = Cmd0 0x133, "NPU_SET_DMA0_SIZE1", [Field::u("size", 0, 16)],
        "size of the third dimension (3D)";
    NpuSetIfm2Broadcast = Cmd0 0x180, "NPU_SET_IFM2_BROADCAST", [
        Field::u("broadcast_h", 0, 1), Field::u("broadcast_w", 1, 1),
        Field::u("broadcast_c", 2, 1), Field::u("operand_order", 6, 1),
        Field::u("broadcast_constant", 7, 1)],
        "IFM2 broadcast, operand order, scalar";
    NpuSetIfm2Scalar = Cmd0 0x181, "NPU_SET_IFM2_SCALAR", [Field::u("scalar", 0, 16)],
        "IFM2 scalar value";
    // TRM table 4-110 prints this row as NPU_SET_IFM_PRECISION (a typo: 0x105 has
    // that name); its text says IFM2, and Vela names it NPU_SET_IFM2_PRECISION.
    NpuSetIfm2Precision = Cmd0 0x185, "NPU_SET_IFM2_PRECISION", [
        Field::u("activation_type", 0, 1), Field::u("activation_precision", 2, 2),
        Field::u("activation_format", 6, 2)],
        "IFM2 type (must match IFM) and format";
    NpuSetIfm2ZeroPoint = Cmd0 0x189, "NPU_SET_IFM2_ZERO_POINT", [Field::u("zero_point", 0, 16)],
        "IFM2 zero point";
    NpuSetIfm2Width0M1 = Cmd0 0x18a, "NPU_SET_IFM2_WIDTH0_M1", [Field::u("width_m1", 0, 16)],
        "IFM2 tile 0 and tile 2 width - 1";
    NpuSetIfm2Height0M1 = Cmd0 0x18b, "NPU_SET_IFM2_HEIGHT0_M1", [Field::u("height_m1", 0, 16)],
        "IFM2 tile 0 height - 1";
    NpuSetIfm2Height1M1 = Cmd0 0x18c, "NPU_SET_IFM2_HEIGHT1_M1", [Field::u("height_m1", 0, 16)],
        "IFM2 tile 1 height - 1";
    NpuSetIfm2IbStart = Cmd0 0x18d, "NPU_SET_IFM2_IB_START", [Field::u("ib_start_kb", 0, 6)],
        "start of IFM2 IB0/IB1 in the shared buffer, KB";
    NpuSetIfm2Region = Cmd0 0x18f, "NPU_SET_IFM2_REGION", [Field::u("region", 0, 3)],
        "IFM2 base-pointer region";

    // ---- cmd1: TRM 4.6.5, table 4-111 ----
    NpuSetIfmBase0 = Cmd1 0x000, "NPU_SET_IFM_BASE0", [ADDR[0]], "IFM tile 0 byte offset";
    NpuSetIfmBase1 = Cmd1 0x001, "NPU_SET_IFM_BASE1", [ADDR[0]], "IFM tile 1 byte offset";
    NpuSetIfmBase2 = Cmd1 0x002, "NPU_SET_IFM_BASE2", [ADDR[0]], "IFM tile 2 byte offset";
    NpuSetIfmBase3 = Cmd1 0x003, "NPU_SET_IFM_BASE3", [ADDR[0]], "IFM tile 3 byte offset";
    NpuSetIfmStrideX = Cmd1 0x004, "NPU_SET_IFM_STRIDE_X", [STRIDE[0]], "IFM x stride, bytes";
    NpuSetIfmStrideY = Cmd1 0x005, "NPU_SET_IFM_STRIDE_Y", [STRIDE[0]], "IFM y stride, bytes";
    NpuSetIfmStrideC = Cmd1 0x006, "NPU_SET_IFM_STRIDE_C", [STRIDE[0]],
        "IFM stride between 16-channel blocks, bytes";
    NpuSetOfmBase0 = Cmd1 0x010, "NPU_SET_OFM_BASE0", [ADDR[0]], "OFM tile 0 byte offset";
    NpuSetOfmBase1 = Cmd1 0x011, "NPU_SET_OFM_BASE1", [ADDR[0]], "OFM tile 1 byte offset";
    NpuSetOfmBase2 = Cmd1 0x012, "NPU_SET_OFM_BASE2", [ADDR[0]], "OFM tile 2 byte offset";
    NpuSetOfmBase3 = Cmd1 0x013, "NPU_SET_OFM_BASE3", [ADDR[0]], "OFM tile 3 byte offset";
    NpuSetOfmStrideX = Cmd1 0x014, "NPU_SET_OFM_STRIDE_X", [STRIDE[0]], "OFM x stride, bytes";
    NpuSetOfmStrideY = Cmd1 0x015, "NPU_SET_OFM_STRIDE_Y", [STRIDE[0]], "OFM y stride, bytes";
    NpuSetOfmStrideC = Cmd1 0x016, "NPU_SET_OFM_STRIDE_C", [STRIDE[0]],
        "OFM stride between 16-channel blocks, bytes";
    NpuSetWeightBase = Cmd1 0x020, "NPU_SET_WEIGHT_BASE", [ADDR[0]], "weight stream byte offset";
    NpuSetWeightLength = Cmd1 0x021, "NPU_SET_WEIGHT_LENGTH", [Field::u("length", 0, 32)],
        "weight stream byte length";
    NpuSetScaleBase = Cmd1 0x022, "NPU_SET_SCALE_BASE", [ADDR[0]], "scale/bias stream byte offset";
    NpuSetScaleLength = Cmd1 0x023, "NPU_SET_SCALE_LENGTH", [Field::u("length", 0, 20)],
        "scale/bias stream byte length";
    NpuSetOfmScale = Cmd1 0x024, "NPU_SET_OFM_SCALE", [Field::u("scale", 0, 32), Field::u("shift", 32, 6)],
        "global OFM scale and shift";
    NpuSetOpaScale = Cmd1 0x025, "NPU_SET_OPA_SCALE", [Field::u("scale", 0, 32), Field::u("shift", 32, 6)],
        "operand A input scale (and shift in 32-bit scale modes)";
    NpuSetOpbScale = Cmd1 0x026, "NPU_SET_OPB_SCALE", [Field::u("scale", 0, 16)],
        "operand B input scale (16-bit scale mode)";
    NpuSetDma0Src = Cmd1 0x030, "NPU_SET_DMA0_SRC", [ADDR[0]], "DMA source byte offset";
    NpuSetDma0Dst = Cmd1 0x031, "NPU_SET_DMA0_DST", [ADDR[0]], "DMA destination byte offset";
    NpuSetDma0Len = Cmd1 0x032, "NPU_SET_DMA0_LEN", [ADDR[0]], "DMA innermost transfer length, bytes";
    NpuSetDma0Skip0 = Cmd1 0x033, "NPU_SET_DMA0_SKIP0", [ADDR[0]],
        "DMA bytes to skip after each inner transfer (2D/3D)";
    NpuSetDma0Skip1 = Cmd1 0x034, "NPU_SET_DMA0_SKIP1", [ADDR[0]],
        "DMA bytes to skip after each 2D transfer (3D)";
    NpuSetIfm2Base0 = Cmd1 0x080, "NPU_SET_IFM2_BASE0", [ADDR[0]], "IFM2 tile 0 byte offset";
    NpuSetIfm2Base1 = Cmd1 0x081, "NPU_SET_IFM2_BASE1", [ADDR[0]], "IFM2 tile 1 byte offset";
    NpuSetIfm2Base2 = Cmd1 0x082, "NPU_SET_IFM2_BASE2", [ADDR[0]], "IFM2 tile 2 byte offset";
    NpuSetIfm2Base3 = Cmd1 0x083, "NPU_SET_IFM2_BASE3", [ADDR[0]], "IFM2 tile 3 byte offset";
    NpuSetIfm2StrideX = Cmd1 0x084, "NPU_SET_IFM2_STRIDE_X", [STRIDE[0]], "IFM2 x stride, bytes";
    NpuSetIfm2StrideY = Cmd1 0x085, "NPU_SET_IFM2_STRIDE_Y", [STRIDE[0]], "IFM2 y stride, bytes";
    NpuSetIfm2StrideC = Cmd1 0x086, "NPU_SET_IFM2_STRIDE_C", [STRIDE[0]],
        "IFM2 stride between 16-channel blocks, bytes";
    NpuSetWeight1Base = Cmd1 0x090, "NPU_SET_WEIGHT1_BASE", [ADDR[0]], "core 1 weight stream byte offset";
    NpuSetWeight1Length = Cmd1 0x091, "NPU_SET_WEIGHT1_LENGTH", [Field::u("length", 0, 32)],
        "core 1 weight stream byte length";
    NpuSetScale1Base = Cmd1 0x092, "NPU_SET_SCALE1_BASE", [ADDR[0]], "core 1 scale/bias stream byte offset";
    NpuSetScale1Length = Cmd1 0x093, "NPU_SET_SCALE1_LENGTH", [Field::u("length", 0, 20)],
        "core 1 scale/bias stream byte length";
}

impl Opcode {
    /// The TRM name, e.g. `NPU_OP_STOP`.
    pub const fn name(self) -> &'static str {
        self.info().name
    }
    pub const fn kind(self) -> CmdKind {
        self.info().kind
    }
    pub const fn code(self) -> u16 {
        self.info().code
    }

    /// Look up a command by format and opcode; `None` for reserved codes.
    pub fn from_code(kind: CmdKind, code: u16) -> Option<Opcode> {
        COMMANDS
            .iter()
            .find(|c| c.kind == kind && c.code == code)
            .map(|c| c.op)
    }

    /// Look up a command by its TRM name.
    pub fn from_name(name: &str) -> Option<Opcode> {
        COMMANDS.iter().find(|c| c.name == name).map(|c| c.op)
    }

    /// The field `name` of this command; panics naming both if there is none
    /// (a design elaborated against a field the table lacks).
    pub fn field(self, name: &str) -> &'static Field {
        self.info()
            .fields
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("{} has no field {name}", self.name()))
    }

    /// The bits of the value space its fields cover; a value with any other
    /// bit set is malformed (a parse error, see `model/src/lib.rs`).
    pub const fn field_mask(self) -> u64 {
        field_mask(self.info().fields)
    }

    /// True for the NPU_OP_* commands that start a kernel operation.
    pub const fn is_kernel_op(self) -> bool {
        matches!(
            self,
            Opcode::NpuOpConv
                | Opcode::NpuOpDepthwise
                | Opcode::NpuOpPool
                | Opcode::NpuOpElementwise
        )
    }
}

macro_rules! field_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $val:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $( $variant = $val, )*
        }
        impl $name {
            /// All values, in encoding order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// Decode a field value; `None` for reserved encodings.
            pub const fn from_bits(v: u32) -> Option<$name> {
                match v {
                    $( $val => Some($name::$variant), )*
                    _ => None,
                }
            }
            pub const fn bits(self) -> u32 {
                self as u32
            }
        }
    };
}

field_enum!(
    /// NPU_SET_ACTIVATION bits 0-4 (TRM 4.6.4 0x125). 0x10+n is LUT slot n.
    ActivationFunction { None = 0, Tanh = 3, Sigmoid = 4, Lut0 = 16, Lut1 = 17, Lut2 = 18,
        Lut3 = 19, Lut4 = 20, Lut5 = 21, Lut6 = 22, Lut7 = 23 }
);

impl ActivationFunction {
    /// The LUT slot a LUT function reads (0-7), none for the others.
    pub const fn lut_slot(self) -> Option<usize> {
        let v = self.bits();
        if v >= ActivationFunction::Lut0.bits() && v <= ActivationFunction::Lut7.bits() {
            Some((v - ActivationFunction::Lut0.bits()) as usize)
        } else {
            None
        }
    }
}
field_enum!(
    /// NPU_SET_ACTIVATION bits 12-15: range the result is clipped to before the LUT.
    ActivationClipRange { OfmPrecision = 0, ForceUint8 = 2, ForceInt8 = 3, ForceInt16 = 5 }
);
field_enum!(
    /// OFM_PRECISION bits 14-15 (TRM 4.6.4 0x114).
    RoundMode { Tfl = 0, Truncate = 1, Natural = 2 }
);
field_enum!(
    /// IFM_PRECISION bits 14-15 (TRM 4.6.4 0x105).
    IfmRoundMode { DoubleRounding = 0, Natural = 2 }
);
field_enum!(
    /// NPU_OP_ELEMENTWISE parameter (TRM 4.6.4 0x006; CLZ/SHR/SHL as named by Vela).
    ElementwiseMode { Mul = 0, Add = 1, Sub = 2, Min = 3, Max = 4, Lrelu = 5, Abs = 6,
        Clz = 7, Shr = 8, Shl = 9 }
);
impl ElementwiseMode {
    /// LRELU, ABS and CLZ read one operand: no IFM2 (TRM 4.8.2 table 4-124).
    pub const fn unary(self) -> bool {
        matches!(
            self,
            ElementwiseMode::Lrelu | ElementwiseMode::Abs | ElementwiseMode::Clz
        )
    }
}

field_enum!(
    /// NPU_OP_POOL parameter (TRM 4.6.4 0x005; REDUCE_SUM as named by Vela).
    PoolingMode { Max = 0, Average = 1, ReduceSum = 2 }
);
field_enum!(
    /// Bits 2-3 of IFM_PRECISION, bits 1-2 of OFM_PRECISION.
    ActivationPrecision { Bits8 = 0, Bits16 = 1, Bits32 = 2 }
);
field_enum!(
    /// Feature-map layout, bits 6-7 of the PRECISION commands.
    Layout { Nhwc = 0, Nhcwb16 = 1 }
);
field_enum!(
    /// IFM_PRECISION bits 8-9: input scale mode for elementwise ADD/SUB.
    IfmScaleMode { Opa16Opb16 = 0, Opa32 = 1, Opb32 = 2 }
);
field_enum!(
    /// OFM_PRECISION bit 8.
    OfmScaleMode { PerChannel = 0, Global = 1 }
);
field_enum!(
    /// NPU_SET_IFM_UPSCALE bits 0-1.
    UpscaleMode { None = 0, Nearest = 1, Zeros = 2 }
);
field_enum!(
    /// NPU_SET_KERNEL_STRIDE bit 2.
    WeightOrder { DepthFirst = 0, PartKernelFirst = 1 }
);
field_enum!(
    /// NPU_SET_KERNEL_STRIDE bit 5.
    KernelDecomposition { D8x8 = 0, D4x4 = 1 }
);
field_enum!(
    /// NPU_SET_ACC_FORMAT.
    AccFormat { Int32 = 0, Int40 = 1, FpS5_10 = 2 }
);
field_enum!(
    /// DMA0_SRC/DST_REGION bit 8.
    DmaRegionMode { External = 0, Internal = 1 }
);
field_enum!(
    /// DMA0_SRC/DST_REGION bits 9-10.
    DmaStrideMode { D1 = 0, D2 = 1, D3 = 2 }
);
field_enum!(
    /// NPU_SET_PARALLEL_MODE.
    ParallelMode { Single = 0, DualCoreDepth = 1 }
);

/// IFM2_BROADCAST bits (TRM 4.6.4 0x180).
pub mod broadcast {
    pub const H: u16 = 1 << 0;
    pub const W: u16 = 1 << 1;
    pub const C: u16 = 1 << 2;
    /// 1 = IFM2 is operand A.
    pub const REVERSE_OPERANDS: u16 = 1 << 6;
    /// IFM2 is the scalar of NPU_SET_IFM2_SCALAR.
    pub const SCALAR: u16 = 1 << 7;
}

/// User DMA channels (TRM 4.6.4 NPU_OP_DMA_START: "one user channel").
pub const DMA_CHANNELS: u16 = 1;
/// Descriptors each DMA channel holds (TRM 4.6.4 NPU_OP_DMA_WAIT: k = 0, 1).
pub const DMA_DESCRIPTORS: u16 = 2;
/// The largest core mask of an internal DMA destination (TRM 4.6.4
/// NPU_SET_DMA0_DST_REGION: bit k for core k = 0, 1).
pub const DMA_CORE_MASK_MAX: u64 = 3;
/// Kernel operations at most queued or running when a user DMA starts.
/// Vela checks a DMA for conflicts with this many kernel operations before
/// it (its `max_outstanding_kernels`) and puts an NPU_OP_KERNEL_WAIT before
/// the DMA only for those; a DMA that overtook an older one could overwrite
/// what that operation has still to read.
pub const DMA_KERNELS_AHEAD: u16 = 2;

/// Size of one record of the scale/bias stream (JOBS.md; 40-bit bias,
/// 32-bit scale, 6-bit shift).
pub const SCALE_BIAS_RECORD_BYTES: usize = 10;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_order_matches_enum() {
        for (i, c) in COMMANDS.iter().enumerate() {
            assert_eq!(c.op as usize, i, "{}", c.name);
        }
    }

    #[test]
    fn codes_and_names_unique() {
        for (i, a) in COMMANDS.iter().enumerate() {
            for b in &COMMANDS[i + 1..] {
                assert!(
                    !(a.kind == b.kind && a.code == b.code),
                    "{} {}",
                    a.name,
                    b.name
                );
                assert_ne!(a.name, b.name);
            }
        }
    }

    #[test]
    fn word_encoding() {
        assert_eq!(encode_word(CmdKind::Cmd0, 0x000, 0xffff), 0xffff_0000);
        assert_eq!(encode_word(CmdKind::Cmd1, 0x030, 0), 0x0000_4030);
        assert_eq!(split_word(0x0003_4021), (0x10, 0x021, 3));
        assert_eq!(Opcode::from_code(CmdKind::Cmd0, 0x004), None);
        assert_eq!(
            Opcode::from_code(CmdKind::Cmd1, 0x024),
            Some(Opcode::NpuSetOfmScale)
        );
        assert_eq!(
            Opcode::from_name("NPU_OP_PMU_MASK").map(Opcode::code),
            Some(0x013)
        );
    }

    #[test]
    fn signed_field() {
        let f = STRIDE[0];
        assert_eq!(f.get(0xffff_ffff_fff0), -16);
        assert_eq!(f.get(16), 16);
    }
}
