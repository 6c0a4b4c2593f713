//! Weight-stream codec (TRM 4.7).
//!
//! - [`decode`] / [`SliceDecoder`]: the compressed stream to zero-point-corrected
//!   9-bit weights in stream order.
//! - [`encode`]: weights to a stream, with every coding mode selectable through
//!   [`EncodeOptions`] so tests can make any kind of stream.
//! - [`order`]: the weight orderings of TRM 4.7.5, mapping stream positions to
//!   OHWI weight coordinates and back.

mod bits;
mod decode;
mod encode;
pub mod order;

pub use decode::{decode, Slice, SliceDecoder};
pub use encode::{encode, EncodeError, EncodeOptions, IndexCoding, PaletteChoice, ZeroRuns};

/// Palette and direct-mode parameters set by a slice with `newpal`
/// (TRM 4.7.2, 4.7.3.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Palette {
    /// Direct-mode offset `dirofs` (0-31).
    pub dirofs: u8,
    /// `palette_bits` (2-9): bits per palette entry, or the uncompressed index
    /// width in direct mode.
    pub palette_bits: u8,
    /// Palette entries as weight values; empty means direct mode only.
    pub entries: Vec<i16>,
}

/// A slice header as read from a stream (TRM 4.7.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceHeader {
    /// Bit offset of the slice's `zdiv` field from the start of the stream.
    pub bit_offset: usize,
    /// Zero-run divisor exponent 0-3, or 6 when zero runs are not used.
    pub zdiv: u8,
    /// Number of coded weights (`slicelen + 1`); in alternating mode the
    /// number of weights between zero runs.
    pub slice_length: usize,
    /// Weight Golomb-Rice divisor exponent 0-5, or 7 for uncompressed.
    pub wdiv: u8,
    /// Truncated unary quotients (at most 2).
    pub wtrunc: bool,
    /// The palette loaded by this slice when `newpal` is set.
    pub new_palette: Option<Palette>,
}

/// A malformed weight stream. Every variant names the bit offset (from the
/// start of the stream) where the broken rule was detected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightStreamError {
    /// TRM 4.7.2 requires the stream to be a whole number of 128-bit words.
    #[error("weight stream is {len} bytes, not a multiple of 16 (TRM 4.7.2 word alignment)")]
    NotWordAligned {
        /// Stream length in bytes.
        len: usize,
    },
    /// The stream ended in the middle of a syntax element.
    #[error("weight stream ends mid-slice: {element} at bit {bit} (byte {}) runs past the end", bit / 8)]
    UnexpectedEnd {
        /// Bit offset of the element that could not be read.
        bit: usize,
        /// Name of the syntax element (TRM 4.7.2 / 4.7.4).
        element: &'static str,
    },
    /// `zdiv` must be 0-3, 6 or 7 (TRM table 4-112).
    #[error("bad zdiv {zdiv} at bit {bit} (byte {}): TRM 4.7.2 allows 0-3, 6, 7", bit / 8)]
    BadZdiv {
        /// Bit offset of the field.
        bit: usize,
        /// The value read.
        zdiv: u32,
    },
    /// `wdiv` must be 0-5 or 7 (TRM table 4-112).
    #[error("bad wdiv {wdiv} at bit {bit} (byte {}): TRM 4.7.2 allows 0-5, 7", bit / 8)]
    BadWdiv {
        /// Bit offset of the field.
        bit: usize,
        /// The value read.
        wdiv: u8,
    },
    /// Byte-align padding after `zdiv` 7 must be all ones (TRM 4.7.2).
    #[error("bytealign bit at {bit} (byte {}) is 0; TRM 4.7.2 requires 1", bit / 8)]
    BadByteAlign {
        /// Bit offset of the offending bit.
        bit: usize,
    },
    /// The first slice must set `newpal` (TRM 4.7.2).
    #[error("first slice at bit {bit} (byte {}) does not set newpal (TRM 4.7.2)", bit / 8)]
    FirstSliceWithoutPalette {
        /// Bit offset of the slice header.
        bit: usize,
    },
    /// Switching between alternating and plain coding needs `newpal` (TRM 4.7.3.3).
    #[error("slice at bit {bit} (byte {}) changes zero-run mode without newpal (TRM 4.7.3.3)", bit / 8)]
    ModeChangeWithoutNewpal {
        /// Bit offset of the slice header.
        bit: usize,
    },
    /// A Golomb-Rice quotient exceeded 31 (TRM 4.7.3.2.1).
    #[error("weight quotient over limit {limit} in chunk at bit {bit} (byte {}) (TRM 4.7.3.2.1)", bit / 8)]
    QuotientOverLimit {
        /// Bit offset of the chunk.
        bit: usize,
        /// The limit broken.
        limit: u32,
    },
    /// A weight index above 511 (TRM 4.7.3.1: indices are 9-bit).
    #[error("weight index {index} from chunk at bit {bit} (byte {}) exceeds 511 (TRM 4.7.3.1)", bit / 8)]
    IndexOutOfRange {
        /// Bit offset of the chunk holding the index's quotient.
        bit: usize,
        /// The index.
        index: u32,
    },
    /// A weight whose magnitude exceeds 255 (TRM 4.7).
    #[error("weight with sign-magnitude code {raw} at bit {bit} (byte {}) exceeds magnitude 255 (TRM 4.7)", bit / 8)]
    ValueOutOfRange {
        /// Bit offset of the chunk or palette entry.
        bit: usize,
        /// The sign-magnitude code.
        raw: u32,
    },
}
