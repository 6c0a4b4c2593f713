//! What the datapath asks of the DMA: one payload per datapath channel
//! (TRM 3.3.3: IFM, weight, scale/bias and OFM channels). Offsets are byte
//! offsets in the request's region (NPU_SET_*_REGION), whose base, outstanding
//! counter and AXI limits the DMA applies as for every channel.

use rust_hdl::prelude::*;

/// A three-dimensional copy from memory into the shared buffer (the IFM
/// channel): `planes` planes of `rows` rows of `len` bytes; row r of plane p
/// starts at `source + p * (rows * len + source_plane_skip) + r * (len +
/// source_skip)` in the region (offsets modulo 2^40) and lands at
/// `destination + p * (rows * len + destination_plane_skip) + r * (len +
/// destination_skip)` in the shared buffer of the core(s): the strides of a
/// 3D side of NPU_SET_DMA0_* (TRM 4.6.5), so an IFM block's rows in one tile
/// are one transfer.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ShramFill {
    pub region: Bits<3>,
    pub source: Bits<40>,
    pub source_skip: Bits<40>,
    pub source_plane_skip: Bits<40>,
    pub len: Bits<16>,
    pub rows: Bits<16>,
    pub planes: Bits<16>,
    pub destination: Bits<16>,
    pub destination_skip: Bits<16>,
    pub destination_plane_skip: Bits<16>,
    /// The last copy of an IFM block: the block is in the shared buffer
    /// once it completes.
    pub block_end: Bit,
}

/// A byte stream read (the weight and scale/bias channels): `length` bytes
/// from `offset`, delivered in order.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct StreamRead {
    pub region: Bits<3>,
    pub offset: Bits<40>,
    pub length: Bits<32>,
}

/// An OFM write (the OFM channel): `count` (1 to 32) contiguous bytes from
/// `offset`, byte i in bits 8i+7..8i of `data`, of which only those whose
/// bit i of `mask` is set are written (the others keep memory's bytes: a
/// parallel-mode core writes every other OFM channel).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OfmWrite {
    pub region: Bits<3>,
    pub offset: Bits<40>,
    pub data: Bits<256>,
    pub count: Bits<6>,
    pub mask: Bits<32>,
    /// The last write of an OFM block: the OFM channel reports when it is
    /// answered (`OfmChannel::blocks_written`, for NPU_SET_BLOCKDEP).
    pub block_end: Bit,
}
