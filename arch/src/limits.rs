//! The limits of TRM 4.8.2 (tables 4-120 to 4-125) on a kernel operation's
//! settings, shared by the golden model's checks and the RTL's: an
//! operation beyond one stops the stream with STATUS.cmd_parse_error.

/// Largest stride in x and y (TRM 4.8.2: 1 <= stride <= 3).
pub const STRIDE_MAX: u64 = 3;

/// Convolution and depthwise kernel height before dilation (table 4-120).
pub const CONV_KERNEL_HEIGHT_MAX: u64 = 64;
/// Convolution and depthwise kernel width x height after dilation.
pub const CONV_KERNEL_AREA_MAX: u64 = 64 * 64;
/// Convolution and depthwise padding at the top or left.
pub const CONV_PAD_TOP_LEFT_MAX: u64 = 31;
/// Convolution and depthwise padding at the bottom or right.
pub const CONV_PAD_BOTTOM_RIGHT_MAX: u64 = 32;

/// Max pool and unpadded average pool kernel height (table 4-122).
pub const POOL_KERNEL_HEIGHT_MAX: u64 = 256;
/// Max pool and unpadded average pool kernel width x height.
pub const POOL_KERNEL_AREA_MAX: u64 = 256 * 256;
/// A padded average pool's kernel width and height.
pub const PADDED_AVERAGE_KERNEL_MAX: u64 = 8;
/// A padded average pool's padding at the top or left.
pub const PADDED_AVERAGE_PAD_TOP_LEFT_MAX: u64 = 3;
/// A padded average pool's padding at the bottom or right.
pub const PADDED_AVERAGE_PAD_BOTTOM_RIGHT_MAX: u64 = 4;

/// The last LUT slot a LUT of 32-bit values (1 KB of the 2 KB LUT area)
/// may start in.
pub const LUT_SLOT_MAX_32BIT: u64 = 4;

/// TRM 4.6.4 NPU_SET_BLOCKDEP: the block offset k is 0-3.
pub const BLOCKDEP_MAX: u64 = 3;

/// Kernel operations that may still run when a later command starts: the
/// one in the datapath and the one queued behind it. Vela's command
/// streams rely on it (its `max_outstanding_kernels`): a user DMA needs no
/// NPU_OP_KERNEL_WAIT against an older operation.
pub const OUTSTANDING_KERNELS_MAX: usize = 2;
