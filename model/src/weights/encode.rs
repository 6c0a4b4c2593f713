//! Weight-stream encoder (TRM 4.7). Produces valid streams in any coding mode
//! chosen through [`EncodeOptions`]; it does not try to match Vela's choices
//! or compression ratio.

use std::collections::HashMap;

use super::bits::BitWriter;

/// Longest slice: `slicelen` is a 15-bit field holding length - 1 (TRM 4.7.2).
const MAX_SLICE_LEN: usize = 1 << 15;

/// How zero runs are coded (TRM 4.7.3.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ZeroRuns {
    /// No zero runs: every slice has `zdiv` 6.
    Off,
    /// Alternating mode with a fixed `zdiv` (0-3) in every slice.
    Zdiv(u8),
    /// Alternating mode with the cheapest `zdiv` per slice.
    AutoZdiv,
    /// Whichever of [`ZeroRuns::Off`] and [`ZeroRuns::AutoZdiv`] gives the shorter stream.
    Auto,
}

/// How weight indices are coded (TRM 4.7.3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexCoding {
    /// Golomb-Rice with divisor `1 << wdiv` (0-5), optionally truncated unary.
    GolombRice {
        /// Divisor exponent 0-5.
        wdiv: u8,
        /// Truncated unary (quotients at most 2).
        wtrunc: bool,
    },
    /// Uncompressed indices (`wdiv` 7).
    Uncompressed,
    /// The cheapest feasible coding, chosen per slice.
    Auto,
}

/// How weight values map to indices (TRM 4.7.3.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaletteChoice {
    /// No palette: direct mode only, `dirofs` set to the smallest code used.
    Direct,
    /// This palette (2-32 entries) in every palette reload; values not in it
    /// are direct-coded.
    Given(Vec<i16>),
    /// A palette of all distinct values, most frequent first, when there are
    /// 2-32 of them in a palette group; otherwise direct mode.
    Auto,
}

/// Options for [`encode`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Zero-run coding.
    pub zero_runs: ZeroRuns,
    /// Weight-index coding.
    pub index: IndexCoding,
    /// Palette or direct mode.
    pub palette: PaletteChoice,
    /// Most coded weights per slice (1-32768). In alternating mode zeros in
    /// zero runs are not counted.
    pub max_slice_len: usize,
    /// Set `newpal` (and recompute the palette) in every slice instead of the
    /// first only.
    pub newpal_every_slice: bool,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        Self {
            zero_runs: ZeroRuns::Auto,
            index: IndexCoding::Auto,
            palette: PaletteChoice::Auto,
            max_slice_len: MAX_SLICE_LEN,
            newpal_every_slice: false,
        }
    }
}

/// Weights or options that cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// Weights must be in -255..=255 (TRM 4.7).
    #[error("weight {value} at position {position} is outside -255..=255 (TRM 4.7)")]
    WeightOutOfRange {
        /// Position in the input.
        position: usize,
        /// The weight.
        value: i16,
    },
    /// `max_slice_len` must be 1-32768.
    #[error("max_slice_len {0} is outside 1..=32768 (15-bit slicelen, TRM 4.7.2)")]
    BadSliceLength(usize),
    /// A fixed `zdiv` must be 0-3.
    #[error("zdiv {0} is outside 0..=3 (TRM table 4-112)")]
    BadZdiv(u8),
    /// A fixed `wdiv` must be 0-5.
    #[error("wdiv {0} is outside 0..=5 (TRM table 4-112)")]
    BadWdiv(u8),
    /// A given palette must have 2-32 distinct entries in -255..=255.
    #[error("palette must have 2-32 distinct entries in -255..=255 (TRM 4.7.2)")]
    BadPalette,
    /// The palette and direct offset leave a value's index above 511.
    #[error("weight {value} needs index {index}, above 511 (TRM 4.7.3.1)")]
    IndexOutOfRange {
        /// The weight.
        value: i16,
        /// The index it would need.
        index: u32,
    },
    /// The fixed Golomb-Rice parameters cannot code an index.
    #[error("index {index} has quotient over {limit} with wdiv {wdiv} (TRM 4.7.3.2.1)")]
    QuotientTooLarge {
        /// The weight index.
        index: u32,
        /// Divisor exponent.
        wdiv: u8,
        /// 31, or 2 with wtrunc.
        limit: u32,
    },
    /// Uncompressed coding cannot hold an index in its width.
    #[error("index {index} does not fit in {bits} uncompressed bits (TRM 4.7.3.2.2)")]
    IndexTooWide {
        /// The weight index.
        index: u32,
        /// The uncompressed width.
        bits: u32,
    },
}

/// Encodes zero-point-corrected weights (in stream order) into a weight stream
/// (TRM 4.7), ending with `zdiv` 7 padding and padded with 0xff bytes to a
/// multiple of 16 bytes, as Vela does.
pub fn encode(weights: &[i16], opts: &EncodeOptions) -> Result<Vec<u8>, EncodeError> {
    if let Some(position) = weights.iter().position(|w| !(-255..=255).contains(w)) {
        return Err(EncodeError::WeightOutOfRange {
            position,
            value: weights[position],
        });
    }
    if !(1..=MAX_SLICE_LEN).contains(&opts.max_slice_len) {
        return Err(EncodeError::BadSliceLength(opts.max_slice_len));
    }
    match opts.zero_runs {
        ZeroRuns::Off => encode_mode(weights, opts, None),
        ZeroRuns::Zdiv(z) if z > 3 => Err(EncodeError::BadZdiv(z)),
        ZeroRuns::Zdiv(z) => encode_mode(weights, opts, Some(Some(z))),
        ZeroRuns::AutoZdiv => encode_mode(weights, opts, Some(None)),
        ZeroRuns::Auto => {
            let plain = encode_mode(weights, opts, None);
            let alternating = encode_mode(weights, opts, Some(None));
            match (plain, alternating) {
                (Ok(p), Ok(a)) => Ok(if a.len() < p.len() { a } else { p }),
                (Ok(p), Err(_)) => Ok(p),
                (Err(_), a) => a,
            }
        }
    }
}

/// Sign-magnitude code of a weight (TRM 4.7.3.1).
fn code(value: i16) -> u32 {
    (u32::from(value.unsigned_abs()) << 1) | u32::from(value < 0)
}

/// Bits needed to hold `x` (0 for 0).
fn bit_width(x: u32) -> u32 {
    u32::BITS - x.leading_zeros()
}

/// Value-to-index mapping of one palette group.
struct Mapping {
    dirofs: u32,
    palette_bits: u32,
    entries: Vec<i16>,
    index: HashMap<i16, u32>,
}

impl Mapping {
    fn new(values: &[i16], choice: &PaletteChoice) -> Result<Self, EncodeError> {
        let mut freq: HashMap<i16, usize> = HashMap::new();
        for &v in values {
            *freq.entry(v).or_default() += 1;
        }
        let entries = match choice {
            PaletteChoice::Direct => Vec::new(),
            PaletteChoice::Given(p) => {
                let mut seen = p.clone();
                seen.sort_unstable();
                seen.dedup();
                if !(2..=32).contains(&p.len())
                    || seen.len() != p.len()
                    || p.iter().any(|v| !(-255..=255).contains(v))
                {
                    return Err(EncodeError::BadPalette);
                }
                p.clone()
            }
            PaletteChoice::Auto if (2..=32).contains(&freq.len()) => {
                let mut e: Vec<i16> = freq.keys().copied().collect();
                e.sort_by_key(|v| (std::cmp::Reverse(freq[v]), code(*v)));
                e
            }
            PaletteChoice::Auto => Vec::new(),
        };
        let mut index: HashMap<i16, u32> = HashMap::new();
        for (i, &v) in entries.iter().enumerate() {
            index.insert(v, i as u32);
        }
        let direct: Vec<i16> = freq
            .keys()
            .copied()
            .filter(|v| !index.contains_key(v))
            .collect();
        let dirofs = direct.iter().map(|&v| code(v)).min().unwrap_or(0).min(31);
        let mut max_index = 0;
        for v in direct {
            let i = code(v) - dirofs + entries.len() as u32;
            if i > 511 {
                return Err(EncodeError::IndexOutOfRange { value: v, index: i });
            }
            max_index = max_index.max(i);
            index.insert(v, i);
        }
        let palette_bits = if entries.is_empty() {
            bit_width(max_index)
        } else {
            entries
                .iter()
                .map(|&v| bit_width(code(v)))
                .max()
                .unwrap_or(0)
        }
        .clamp(2, 9);
        Ok(Self {
            dirofs,
            palette_bits,
            entries,
            index,
        })
    }

    /// Width of uncompressed indices (TRM 4.7.3.2.2).
    fn uncompressed_bits(&self) -> u32 {
        if self.entries.is_empty() {
            self.palette_bits
        } else {
            bit_width(self.entries.len() as u32 - 1)
        }
    }
}

/// Index coding of one slice.
#[derive(Clone, Copy)]
enum Wcode {
    Gr { wdiv: u32, wtrunc: bool },
    Uncompressed { bits: u32 },
}

fn choose_wcode(
    indices: &[u32],
    coding: &IndexCoding,
    map: &Mapping,
) -> Result<Wcode, EncodeError> {
    let gr_cost = |wdiv: u32, wtrunc: bool| -> Result<usize, EncodeError> {
        let limit = if wtrunc { 2 } else { 31 };
        let mut cost = 0;
        for &index in indices {
            let q = index >> wdiv;
            if q > limit {
                return Err(EncodeError::QuotientTooLarge {
                    index,
                    wdiv: wdiv as u8,
                    limit,
                });
            }
            let unary = if wtrunc { (q + 1).min(2) } else { q + 1 };
            cost += (unary + wdiv) as usize;
        }
        Ok(cost)
    };
    let bits = map.uncompressed_bits();
    let unc_cost = || -> Result<usize, EncodeError> {
        match indices.iter().find(|&&i| bit_width(i) > bits) {
            Some(&index) => Err(EncodeError::IndexTooWide { index, bits }),
            None => Ok(indices.len() * bits as usize),
        }
    };
    match *coding {
        IndexCoding::GolombRice { wdiv, .. } if wdiv > 5 => Err(EncodeError::BadWdiv(wdiv)),
        IndexCoding::GolombRice { wdiv, wtrunc } => {
            gr_cost(u32::from(wdiv), wtrunc)?;
            Ok(Wcode::Gr {
                wdiv: u32::from(wdiv),
                wtrunc,
            })
        }
        IndexCoding::Uncompressed => {
            unc_cost()?;
            Ok(Wcode::Uncompressed { bits })
        }
        IndexCoding::Auto => {
            let mut best = unc_cost().ok().map(|c| (c, Wcode::Uncompressed { bits }));
            for wdiv in 0..=5 {
                for wtrunc in [false, true] {
                    if let Ok(c) = gr_cost(wdiv, wtrunc) {
                        if best.is_none_or(|(b, _)| c < b) {
                            best = Some((c, Wcode::Gr { wdiv, wtrunc }));
                        }
                    }
                }
            }
            // wdiv 5 reaches every 9-bit index (511 >> 5 = 15 <= 31).
            best.map(|(_, w)| w).ok_or(EncodeError::BadWdiv(5))
        }
    }
}

fn choose_zdiv(zruns: &[usize], fixed: Option<u8>) -> u32 {
    match fixed {
        Some(z) => u32::from(z),
        None => (0..=3u32)
            .min_by_key(|&z| {
                zruns
                    .iter()
                    .map(|&r| (r >> z) + 1 + z as usize)
                    .sum::<usize>()
            })
            .unwrap_or(0),
    }
}

/// Encodes in plain (`zdiv` None) or alternating mode (`Some(fixed zdiv or auto)`).
fn encode_mode(
    weights: &[i16],
    opts: &EncodeOptions,
    zdiv: Option<Option<u8>>,
) -> Result<Vec<u8>, EncodeError> {
    // Coded values and, in alternating mode, zruns[0] = leading zeros and
    // zruns[k + 1] = zeros after value k (TRM 4.7.3.3).
    let (values, zruns): (Vec<i16>, Vec<usize>) = match zdiv {
        None => (weights.to_vec(), Vec::new()),
        Some(_) => {
            let mut values = Vec::new();
            let mut zruns = vec![0];
            for &w in weights {
                if w == 0 {
                    let last = zruns.len() - 1;
                    zruns[last] += 1;
                } else {
                    values.push(w);
                    zruns.push(0);
                }
            }
            if values.is_empty() && !weights.is_empty() {
                // All zero: slices code at least one weight, so the last zero
                // is coded as a value.
                values.push(0);
                zruns = vec![weights.len() - 1, 0];
            }
            (values, zruns)
        }
    };
    let mut w = BitWriter::default();
    let slices: Vec<(usize, usize)> = (0..values.len())
        .step_by(opts.max_slice_len)
        .map(|a| (a, (a + opts.max_slice_len).min(values.len())))
        .collect();
    // The palette group of the first slice: the whole stream unless every
    // slice reloads the palette.
    let first_group = match slices.first() {
        Some(&(a, b)) if opts.newpal_every_slice => &values[a..b],
        _ => &values[..],
    };
    let mut m = Mapping::new(first_group, &opts.palette)?;
    for (n, &(a, b)) in slices.iter().enumerate() {
        let newpal = n == 0 || opts.newpal_every_slice;
        if newpal && n > 0 {
            m = Mapping::new(&values[a..b], &opts.palette)?;
        }
        let indices: Vec<u32> = values[a..b].iter().map(|v| m.index[v]).collect();
        let slice_zruns: Vec<usize> = match zdiv {
            None => Vec::new(),
            Some(_) => {
                let initial = if a == 0 { zruns[0] } else { 0 };
                let head = if newpal { vec![initial] } else { Vec::new() };
                head.into_iter()
                    .chain(zruns[a + 1..=b].iter().copied())
                    .collect()
            }
        };
        let wcode = choose_wcode(&indices, &opts.index, &m)?;
        let z = zdiv.map(|fixed| choose_zdiv(&slice_zruns, fixed));
        write_slice(
            &mut w,
            &indices,
            &slice_zruns,
            wcode,
            z,
            newpal.then_some(&m),
        );
    }
    // TRM 4.7.2: zdiv 7, ones to the byte boundary, then 0xff bytes (each a
    // further zdiv 7 with its padding) to the 128-bit boundary.
    w.write(3, 7);
    while w.pos() % 128 != 0 {
        w.write(1, 1);
    }
    Ok(w.into_bytes())
}

/// Writes one slice: header, optional palette, chunks (TRM 4.7.2, 4.7.4).
fn write_slice(
    w: &mut BitWriter,
    indices: &[u32],
    zruns: &[usize],
    wcode: Wcode,
    zdiv: Option<u32>,
    palette: Option<&Mapping>,
) {
    w.write(3, zdiv.unwrap_or(6));
    w.write(15, indices.len() as u32 - 1);
    let (wdiv_field, wtrunc, wremain_bits) = match wcode {
        Wcode::Gr { wdiv, wtrunc } => (wdiv, wtrunc, wdiv),
        Wcode::Uncompressed { bits } => (7, false, bits),
    };
    w.write(3, wdiv_field);
    w.write(1, u32::from(wtrunc));
    w.write(1, u32::from(palette.is_some()));
    if let Some(m) = palette {
        w.write(5, m.dirofs);
        w.write(
            5,
            if m.entries.is_empty() {
                0
            } else {
                m.entries.len() as u32 - 1
            },
        );
        w.write(3, m.palette_bits - 2);
        for &e in &m.entries {
            w.write(m.palette_bits, code(e));
        }
    }

    let uncompressed = matches!(wcode, Wcode::Uncompressed { .. });
    let per_chunk = if wremain_bits <= 5 { 12 } else { 8 };
    let alternating = zdiv.is_some();
    let zdiv = zdiv.unwrap_or(0);
    let zunary_len = if zdiv < 3 { 12 } else { 8 };
    let (w_cnt, z_cnt) = (indices.len(), zruns.len());
    // Quotient still to be sent for the weight / zero run in progress.
    let (mut wq_left, mut zq_left): (Option<u32>, Option<usize>) = (None, None);
    let (mut w_pos, mut z_pos) = (0usize, 0usize);
    let (mut prev_w, mut prev_z): (Option<Vec<u32>>, Option<Vec<usize>>) = (None, None);
    loop {
        let balance = w_pos as isize - z_pos as isize;
        let w_enable = (balance < 8 || !alternating) && w_pos < w_cnt;
        let z_enable = balance >= 0 && alternating && z_pos < z_cnt;

        let mut w_done = Vec::new();
        let (mut wunary0, mut wunary1, mut wunary1_len) = (0u32, 0u32, 0u32);
        if w_enable && uncompressed {
            let n = per_chunk.min(w_cnt - w_pos);
            w_done.extend_from_slice(&indices[w_pos..w_pos + n]);
            w_pos += n;
        } else if w_enable {
            let (wdiv, trunc) = (wremain_bits, wtrunc);
            let mut i = 0;
            while i < 12 && w_pos < w_cnt {
                let q = *wq_left.get_or_insert(indices[w_pos] >> wdiv);
                // One unary position: 0 ends a quotient, 1+0 adds 1 and ends
                // it, 1+1 adds 2 and (unless truncated) continues (TRM 4.7.4).
                let done = if q == 0 {
                    true
                } else {
                    wunary0 |= 1 << i;
                    wunary1 |= u32::from(q >= 2) << wunary1_len;
                    wunary1_len += 1;
                    wq_left = Some(q.saturating_sub(2));
                    q == 1 || trunc
                };
                if done {
                    w_done.push(indices[w_pos] & ((1 << wdiv) - 1));
                    w_pos += 1;
                    wq_left = None;
                }
                i += 1;
            }
        }
        let mut z_done = Vec::new();
        let mut zunary = 0u32;
        if z_enable {
            for i in 0..zunary_len {
                if z_pos == z_cnt {
                    // Unused positions are ones: they only grow a quotient
                    // nothing reads, so both the TRM's parser (which would turn
                    // zeros into extra runs) and Vela's ignore them.
                    zunary |= 1 << i;
                    continue;
                }
                let q = *zq_left.get_or_insert(zruns[z_pos] >> zdiv);
                if q == 0 {
                    z_done.push(zruns[z_pos] & ((1 << zdiv) - 1));
                    z_pos += 1;
                    zq_left = None;
                } else {
                    zunary |= 1 << i;
                    zq_left = Some(q - 1);
                }
            }
        }
        if w_enable && !uncompressed {
            w.write(12, wunary0);
        }
        if z_enable {
            w.write(zunary_len, zunary);
        }
        if w_enable && !uncompressed {
            w.write(wunary1_len, wunary1);
        }
        if let Some(rems) = &prev_w {
            for &r in rems {
                w.write(wremain_bits, r);
            }
        }
        if let Some(rems) = &prev_z {
            for &r in rems {
                w.write(zdiv, r as u32);
            }
        }
        prev_w = w_enable.then_some(w_done);
        prev_z = z_enable.then_some(z_done);
        if prev_w.is_none() && prev_z.is_none() {
            break;
        }
    }
}
