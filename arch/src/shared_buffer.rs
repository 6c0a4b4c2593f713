//! The layout of each core's shared buffer and accumulator buffer (TRM
//! 4.9.1, table 4-135): one definition for the RTL, the golden model and the
//! generators.

/// The LUT area at the end of each core's shared buffer (TRM 4.6.4
/// NPU_SET_ACTIVATION: "the last 2KB page of the shared buffer").
pub const LUT_BYTES: usize = 2048;

/// Where the IFM buffers start, KB: OB0/OB1 sit below IB0 (TRM 4.9.1).
pub const IB_START_KB: usize = 2;

/// The largest NPU_SET_IFM_IB_END and AB_START, KB: a core's 48 KB less the
/// LUT area.
pub const IB_END_MAX_KB: usize = 46;

/// Accumulator words per half of the accumulator buffer: OFM blocks
/// alternate between the halves (ACC0/ACC1, TRM table 4-135).
pub const AB_HALF_WORDS: usize = 256;
