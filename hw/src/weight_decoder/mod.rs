//! The weight decoder (TRM 3.3.5): reads a compressed weight stream (TRM 4.7)
//! from the DMA weight channel and hands the decoded 9-bit weights, in the TRM
//! 4.7.5 order, to the MAC unit through a double-buffered output register, bit
//! for bit those of `npu_model::weights::decode`. u65-512 has one per core, the
//! second fed by the NPU_SET_WEIGHT1_* stream (TRM 4.7.5.1).
//!
//! Ports:
//! - `start` (taken while `busy` is low) begins a stream of `length` bytes;
//!   exactly ceil(`length` / 16) `words` are taken, never more.
//! - `words`: 128-bit words, bit 0 the first stream bit (TRM 4.7.1); `ready`
//!   depends on the decoder's registers only.
//! - `weights` ([`WeightGroup`]s): up to [`LANES`] weights, every group full
//!   but a stream's last.
//! - `busy`; `error`/`error_code` ([`ErrorCode`]): the first fault in stream
//!   order, held until the next `start`. A malformed stream never hangs the
//!   decoder: the rest is drained, the weights before the fault delivered.
//!
//! The one loop that closes in a cycle is the parser's (window, two chunk
//! heads, window); the value pipeline and pair buffer follow it. Malformed
//! streams, structure and throughput: `docs/weight-decoder.md`.

mod head;
mod mac_groups;
mod ones;
mod output;
mod parser;
mod pipeline;
mod placement;
mod quotients;
mod values;
mod window;

pub use mac_groups::{MacWeights, WeightGroups, MAC_WEIGHTS};

use crate::stream::{StreamIn, StreamOut};
use output::PairBuffer;
use parser::Parser;
use pipeline::ValuePipeline;
use rust_hdl::prelude::*;
use window::BitWindow;

/// Weights per output group.
pub const LANES: usize = 16;
/// Palette entries (TRM 4.7.2: `palsize` is 5 bits, sizes up to 32).
pub const PALETTE_ENTRIES: usize = 32;
/// Stream bits the parser sees at once: two chunks.
pub const VIEW_BITS: usize = 320;

/// Up to [`LANES`] decoded weights: lane i in bits 9i+8..9i, `count` lanes
/// valid from lane 0.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct WeightGroup {
    pub weights: Bits<{ LANES * 9 }>,
    pub count: Bits<5>,
}

/// Why a stream was rejected, as `error_code` shows it; names follow
/// `npu_model::weights::WeightStreamError`.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum ErrorCode {
    /// No error.
    None,
    /// `length` is not a multiple of 16 (TRM 4.7.2 `word_aligned()`); no weight is decoded.
    NotWordAligned,
    /// The stream ends inside a slice header, palette, chunk or padding.
    UnexpectedEnd,
    /// `zdiv` 4 or 5 (TRM table 4-112).
    BadZdiv,
    /// `wdiv` 6 (TRM table 4-112).
    BadWdiv,
    /// A `bytealign` bit is 0 (TRM 4.7.2).
    BadByteAlign,
    /// The first slice does not set `newpal` (TRM 4.7.2).
    FirstSliceWithoutPalette,
    /// A slice without `newpal` changes between alternating and plain coding (TRM 4.7.3.3).
    ModeChangeWithoutNewpal,
    /// A weight quotient over 31 (TRM 4.7.3.2.1).
    QuotientOverLimit,
    /// A weight index over 511 (TRM 4.7.3.1).
    IndexOutOfRange,
    /// A direct-mode weight magnitude over 255 (TRM 4.7.3.1).
    ValueOutOfRange,
    /// A zero run of 2^28 or more times `1 << zdiv` zeros: more than any
    /// stream of a 32-bit length can feed the MAC unit in reasonable time.
    ZeroRunTooLong,
}

#[derive(LogicBlock, Default)]
pub struct WeightDecoder {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Stream control: `start` a stream of `length` bytes while not `busy`.
    pub start: Signal<In, Bit>,
    pub length: Signal<In, Bits<32>>,
    pub busy: Signal<Out, Bit>,
    pub error: Signal<Out, Bit>,
    pub error_code: Signal<Out, ErrorCode>,
    /// The weight stream's words from the DMA weight channel.
    pub words: StreamIn<Bits<128>>,
    /// Decoded weights toward the MAC unit.
    pub weights: StreamOut<WeightGroup>,
    window: BitWindow,
    parser: Parser,
    pipeline: ValuePipeline,
    pairs: PairBuffer,
    accept: Signal<Local, Bit>,
}

impl Logic for WeightDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        self.window.clock.next = self.clock.val();
        self.window.rst_n.next = self.rst_n.val();
        self.parser.clock.next = self.clock.val();
        self.parser.rst_n.next = self.rst_n.val();
        self.pipeline.clock.next = self.clock.val();
        self.pipeline.rst_n.next = self.rst_n.val();
        self.pairs.clock.next = self.clock.val();
        self.pairs.rst_n.next = self.rst_n.val();

        self.busy.next =
            !self.parser.idle.val() | !self.pipeline.empty.val() | !self.pairs.empty.val();
        self.accept.next = self.start.val() & !self.busy.val();

        // Stream words: ceil(length / 16).
        self.window.start.next = self.accept.val();
        self.window.words.next = bit_cast::<29, 28>(self.length.val().get_bits::<28>(4))
            + self.length.val().get_bits::<4>(0).any();
        self.window.in_data.next = self.words.data.val();
        self.window.in_valid.next = self.words.valid.val();
        self.words.ready.next = self.window.in_ready.val();
        self.window.used.next = self.parser.used.val();
        self.window.used_b.next = self.parser.used_b.val();

        self.parser.start.next = self.accept.val();
        self.parser.bad_length.next = self.length.val().get_bits::<4>(0).any();
        self.parser.view.next = self.window.view.val();
        self.parser.fill.next = self.window.fill.val();
        self.parser.exhausted.next = self.window.exhausted.val();
        self.parser.accept.next = self.pipeline.accept.val();
        self.parser.bank_busy.next = self.pipeline.bank_busy.val();
        self.parser.downstream_fault.next = self.pipeline.error_code.val() != ErrorCode::None;

        self.pipeline.start.next = self.accept.val();
        self.pipeline.record_a.next = self.parser.record_a.val();
        self.pipeline.record_b.next = self.parser.record_b.val();
        self.pipeline.bits_a.next = self.parser.bits_a.val();
        self.pipeline.bits_b.next = self.parser.bits_b.val();
        self.pipeline.palette_0.next = self.parser.palette_0.val();
        self.pipeline.palette_1.next = self.parser.palette_1.val();
        self.pipeline.palette_size_0.next = self.parser.palette_size_0.val();
        self.pipeline.palette_size_1.next = self.parser.palette_size_1.val();
        self.pipeline.direct_offset_0.next = self.parser.direct_offset_0.val();
        self.pipeline.direct_offset_1.next = self.parser.direct_offset_1.val();
        self.pipeline.w_free.next = self.pairs.w_free.val();
        self.pipeline.z_free.next = self.pairs.z_free.val();
        self.error_code.next = self.pipeline.error_code.val();
        self.error.next = self.pipeline.error_code.val() != ErrorCode::None;

        self.pairs.push_a.next = self.pipeline.push_a.val();
        self.pairs.push_b.next = self.pipeline.push_b.val();
        self.pairs.finished.next = self.parser.idle.val() & self.pipeline.empty.val();
        self.pairs.out_ready.next = self.weights.ready.val();
        self.weights.data.next.weights = self.pairs.out_weights.val();
        self.weights.data.next.count = self.pairs.out_count.val();
        self.weights.valid.next = self.pairs.out_valid.val();
    }
}
