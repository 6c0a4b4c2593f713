//! Weight-stream decoder (TRM 4.7.2 - 4.7.4).

use super::bits::BitReader;
use super::{Palette, SliceHeader, WeightStreamError};

/// Largest Golomb-Rice quotient without truncation (TRM 4.7.3.2.1).
const MAX_WQ: usize = 31;
/// Largest weight index: indices are 9-bit (TRM 4.7.3.1).
const MAX_INDEX: u32 = 511;
/// Largest weight magnitude (TRM 4.7).
const MAX_MAGNITUDE: u32 = 255;

/// One decoded slice: its header and the weights it expands to (zero runs
/// included), in stream order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// The slice header as read from the stream.
    pub header: SliceHeader,
    /// Zero-point-corrected 9-bit weights of this slice, in stream order.
    pub weights: Vec<i16>,
}

/// Decodes a whole weight stream (TRM 4.7) into zero-point-corrected weights
/// in stream order (the order of TRM 4.7.5; see [`super::order`]).
///
/// The stream must be a multiple of 16 bytes long and end on slice or padding
/// boundaries. Any violation is reported as a [`WeightStreamError`] naming the
/// bit offset and the rule; this function never panics.
pub fn decode(stream: &[u8]) -> Result<Vec<i16>, WeightStreamError> {
    let mut weights = Vec::new();
    for slice in SliceDecoder::new(stream)? {
        weights.extend(slice?.weights);
    }
    Ok(weights)
}

/// Palette state carried from slice to slice (TRM 4.7.2: slices without
/// `newpal` keep the previous slice's palette and mode).
#[derive(Clone)]
struct State {
    palette: Palette,
    alternating: bool,
}

/// Iterator over the slices of a weight stream, for consumers that want the
/// slice headers (for example to check a hardware decoder slice by slice).
/// Padding (`zdiv` 7) is consumed silently. After the first error the
/// iterator yields nothing more.
pub struct SliceDecoder<'a> {
    reader: BitReader<'a>,
    state: Option<State>,
    failed: bool,
}

impl<'a> SliceDecoder<'a> {
    /// Starts decoding `stream`; fails if its length is not a multiple of 16
    /// bytes (TRM 4.7.2: `assert(word_aligned())` at the end of the stream).
    pub fn new(stream: &'a [u8]) -> Result<Self, WeightStreamError> {
        if !stream.len().is_multiple_of(16) {
            return Err(WeightStreamError::NotWordAligned { len: stream.len() });
        }
        Ok(Self {
            reader: BitReader::new(stream),
            state: None,
            failed: false,
        })
    }

    fn next_slice(&mut self) -> Result<Option<Slice>, WeightStreamError> {
        let r = &mut self.reader;
        loop {
            if r.remaining() == 0 {
                return Ok(None);
            }
            let bit = r.pos();
            let zdiv = r.read(3, "zdiv")?;
            match zdiv {
                0..=3 | 6 => return self.slice(bit, zdiv as u8).map(Some),
                7 => {
                    // TRM 4.7.2: byte-align padding, every bit 1.
                    while !r.pos().is_multiple_of(8) {
                        let at = r.pos();
                        if r.read(1, "bytealign")? != 1 {
                            return Err(WeightStreamError::BadByteAlign { bit: at });
                        }
                    }
                }
                _ => return Err(WeightStreamError::BadZdiv { bit, zdiv }),
            }
        }
    }

    fn slice(&mut self, bit: usize, zdiv: u8) -> Result<Slice, WeightStreamError> {
        let r = &mut self.reader;
        let slice_length = r.read(15, "slicelen")? as usize + 1;
        let wdiv_bit = r.pos();
        let wdiv = r.read(3, "wdiv")? as u8;
        if wdiv == 6 {
            return Err(WeightStreamError::BadWdiv {
                bit: wdiv_bit,
                wdiv,
            });
        }
        let wtrunc = r.read(1, "wtrunc")? == 1;
        let newpal = r.read(1, "newpal")? == 1;
        let alternating = zdiv < 4;
        let new_palette = if newpal {
            let dirofs = r.read(5, "dirofs")? as u8;
            let palsize = r.read(5, "palsize")?;
            let palette_bits = r.read(3, "palbits")? as u8 + 2;
            let size = if palsize == 0 { 0 } else { palsize + 1 };
            let mut entries = Vec::with_capacity(size as usize);
            for _ in 0..size {
                let at = r.pos();
                let raw = r.read(u32::from(palette_bits), "palette entry")?;
                entries.push(sign_magnitude(raw, at)?);
            }
            Some(Palette {
                dirofs,
                palette_bits,
                entries,
            })
        } else {
            None
        };
        let state = match (&new_palette, &self.state) {
            (Some(p), _) => State {
                palette: p.clone(),
                alternating,
            },
            (None, None) => return Err(WeightStreamError::FirstSliceWithoutPalette { bit }),
            (None, Some(s)) if s.alternating != alternating => {
                return Err(WeightStreamError::ModeChangeWithoutNewpal { bit })
            }
            (None, Some(s)) => s.clone(),
        };
        let header = SliceHeader {
            bit_offset: bit,
            zdiv,
            slice_length,
            wdiv,
            wtrunc,
            new_palette,
        };
        let weights = decode_chunks(r, &header, &state)?;
        self.state = Some(state);
        Ok(Slice { header, weights })
    }
}

impl Iterator for SliceDecoder<'_> {
    type Item = Result<Slice, WeightStreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let result = self.next_slice();
        self.failed = result.is_err();
        result.transpose()
    }
}

/// Converts a sign-magnitude value (LSB = sign, TRM 4.7.2 and 4.7.3.1) to a
/// weight, rejecting magnitudes over 255.
fn sign_magnitude(raw: u32, bit: usize) -> Result<i16, WeightStreamError> {
    let magnitude = raw >> 1;
    if magnitude > MAX_MAGNITUDE {
        return Err(WeightStreamError::ValueOutOfRange { bit, raw });
    }
    let magnitude = magnitude as i16;
    Ok(if raw & 1 == 1 { -magnitude } else { magnitude })
}

/// Parses the chunks of one slice (TRM 4.7.4) and expands indices and zero
/// runs to weights.
fn decode_chunks(
    r: &mut BitReader,
    h: &SliceHeader,
    state: &State,
) -> Result<Vec<i16>, WeightStreamError> {
    let pal = &state.palette;
    let palette_size = pal.entries.len();
    let uncompressed = h.wdiv == 7;
    // TRM 4.7.3.2.2: ceil(log2(palette_size)) bits, or palette_bits in direct mode.
    let uncompressed_bits = if palette_size > 0 {
        usize::BITS - (palette_size - 1).leading_zeros()
    } else {
        u32::from(pal.palette_bits)
    };
    let wremain_bits = if uncompressed {
        uncompressed_bits
    } else {
        u32::from(h.wdiv)
    };
    let uncompressed_per_chunk = if uncompressed_bits <= 5 { 12 } else { 8 };
    let alternating = state.alternating;
    let newpal = usize::from(h.new_palette.is_some());
    let w_cnt = h.slice_length;
    let z_cnt = if alternating { w_cnt + newpal } else { 0 };
    let zdiv = u32::from(h.zdiv);
    let zunary_len = if h.zdiv < 3 { 12 } else { 8 };

    // Weight indices with the bit offset of the chunk holding their quotient.
    let mut indices: Vec<(u32, usize)> = Vec::with_capacity(w_cnt);
    let mut zruns: Vec<usize> = Vec::with_capacity(z_cnt);
    let (mut wq, mut zq) = (0usize, 0usize);
    let (mut wr_i, mut zr_i) = (0usize, 0usize);
    let (mut prev_w_enable, mut prev_z_enable) = (false, false);
    let (mut prev_wq_i, mut prev_zq_i) = (0usize, 0usize);
    loop {
        let chunk_bit = r.pos();
        let (wq_i, zq_i) = (indices.len(), zruns.len());
        // TRM 4.7.4: balance rule keeps weights and zero runs in step.
        let balance = wq_i as isize - zq_i as isize;
        let w_enable = (balance < 8 || !alternating) && wq_i < w_cnt;
        let z_enable = balance >= 0 && alternating && zq_i < z_cnt;
        let wunary0 = if w_enable && !uncompressed {
            r.read(12, "wunary0")?
        } else {
            0
        };
        if z_enable {
            let zunary = r.read(zunary_len, "zunary")?;
            for i in 0..zunary_len {
                if (zunary >> i) & 1 == 1 {
                    zq += 1;
                } else {
                    // Vela pads a chunk's unused zunary positions with 0 bits;
                    // runs past z_cnt are padding and are dropped.
                    if zruns.len() < z_cnt {
                        zruns.push(zq << zdiv);
                    }
                    zq = 0;
                }
            }
        }
        if w_enable && !uncompressed {
            // TRM 4.7.4 says wunary1 is 12 bits long when wtrunc is set; Vela's
            // encoder and decoder (and so the hardware Vela targets) use one
            // bit per set wunary0 bit in both cases.
            let wunary1 = r.read(wunary0.count_ones(), "wunary1")?;
            let mut j = 0;
            for i in 0..12 {
                if indices.len() >= w_cnt {
                    break;
                }
                let mut c = 0;
                if (wunary0 >> i) & 1 == 1 {
                    c = 1 + ((wunary1 >> j) & 1) as usize;
                    j += 1;
                }
                wq += c;
                if wq > MAX_WQ {
                    return Err(WeightStreamError::QuotientOverLimit {
                        bit: chunk_bit,
                        limit: MAX_WQ as u32,
                    });
                }
                if c < 2 || h.wtrunc {
                    indices.push(((wq as u32) << h.wdiv, chunk_bit));
                    wq = 0;
                }
            }
        }
        if w_enable && uncompressed {
            let n = uncompressed_per_chunk.min(w_cnt - indices.len());
            indices.extend(std::iter::repeat_n((0, chunk_bit), n));
        }
        // Remainders of the quotients of the previous chunk (TRM 4.7.4).
        if prev_w_enable {
            while wr_i < prev_wq_i {
                indices[wr_i].0 += r.read(wremain_bits, "wremain")?;
                wr_i += 1;
            }
        }
        if prev_z_enable {
            while zr_i < prev_zq_i {
                zruns[zr_i] += r.read(zdiv, "zremain")? as usize;
                zr_i += 1;
            }
        }
        prev_w_enable = w_enable;
        prev_z_enable = z_enable;
        prev_wq_i = indices.len();
        prev_zq_i = zruns.len();
        if !(prev_w_enable || prev_z_enable) {
            break;
        }
    }

    let mut weights = Vec::with_capacity(w_cnt + zruns.iter().sum::<usize>());
    if alternating && newpal == 1 {
        weights.resize(zruns[0], 0);
    }
    for (i, &(index, bit)) in indices.iter().enumerate() {
        if index > MAX_INDEX {
            return Err(WeightStreamError::IndexOutOfRange { bit, index });
        }
        // TRM 4.7.3.1: palette mode below palette_size, direct mode above.
        let raw = if (index as usize) < palette_size {
            let v = pal.entries[index as usize];
            (v.unsigned_abs() as u32) << 1 | u32::from(v < 0)
        } else {
            index - palette_size as u32 + u32::from(pal.dirofs)
        };
        weights.push(sign_magnitude(raw, bit)?);
        if alternating {
            weights.resize(weights.len() + zruns[i + newpal], 0);
        }
    }
    Ok(weights)
}
