//! A spec built into a job's memory: random IFM, weights and scale/bias
//! records, encoded and placed in their regions with random gaps.

use super::commands::{command_stream, lut_dma};
use super::spec::either;
use super::{ConvJob, ConvSpec, Tiles};
use npu_arch::command::{Layout, OfmScaleMode};
use npu_arch::config::NpuConfig;
use npu_arch::shared_buffer::LUT_BYTES;
use npu_model::cmdstream::builders;
use npu_model::cmdstream::{encode, Command};
use npu_model::job::Job;
use npu_model::ops::ScaleRecord;
use npu_model::tensor::{DType, FeatureMap};
use npu_model::weights::order::{self, WeightOrder, U65_UBLOCK_DEPTH};
use npu_model::weights::{self, EncodeOptions, IndexCoding, PaletteChoice, ZeroRuns};
use rand::rngs::StdRng;
use rand::Rng;
use std::collections::BTreeMap;

impl ConvSpec {
    /// The job with random data from `rng`.
    pub fn build(&self, rng: &mut StdRng) -> Result<ConvJob, String> {
        self.check_layout()?;
        let block = self.resolved_block();
        let spec = ConvSpec {
            block: Some(block),
            ib_end: Some(self.ib_end.unwrap_or_else(|| self.least_ib_end(block))),
            ..self.clone()
        };
        let ifm_shape = spec.ifm_shape();
        let ifm = random_ifm(rng, &spec, ifm_shape);
        let oc = spec.ofm[2];
        let [kh, kw] = spec.kernel;
        let weights = match spec.pool() {
            Some(_) => Vec::new(),
            None => random_weights(rng, oc * kh * kw * spec.weights_per_tap()),
        };
        let scales = random_scales(rng, &spec, &ifm, &weights);
        let weight_order = WeightOrder {
            ofm_depth: oc,
            ifm_depth: spec.weights_per_tap(),
            kernel_height: kh,
            kernel_width: kw,
            ofm_block_depth: block[2],
            traversal: spec.traversal(),
            ifm_bits: spec.ifm_type.bits,
            dilation_x2: spec.dilation[1] == 2,
            dilation_y2: spec.dilation[0] == 2,
            decomposition: spec.decomposition,
            ofm_ublock_depth: U65_UBLOCK_DEPTH,
            ifm_ublock_depth: U65_UBLOCK_DEPTH,
        };
        // A stream per core (TRM 4.7.5.1): core k's channels k, k + 2, ...
        let cores = if spec.parallel { 2 } else { 1 };
        let parts = match spec.pool() {
            Some(_) => Vec::new(),
            None => {
                order::split_parallel(&weights, &weight_order, cores).map_err(|e| e.to_string())?
            }
        };
        let options = match &self.weight_encoding {
            Some(options) => options.clone(),
            None => encode_options(rng),
        };
        let mut encoded = Vec::new();
        for (part, part_order) in &parts {
            let stream = order::to_stream(part, part_order).map_err(|e| e.to_string())?;
            encoded.push(weights::encode(&stream, &options).map_err(|e| e.to_string())?);
        }

        let mut memory = Memory::default();
        let ifm_map = memory.place(rng, spec.ifm_placement());
        for y in 0..ifm_shape[0] {
            for x in 0..ifm_shape[1] {
                for c in 0..ifm_shape[2] {
                    let v = ifm[(y * ifm_shape[1] + x) * ifm_shape[2] + c];
                    memory.store(&ifm_map, y, x, c, v);
                }
            }
        }
        let ofm_map = memory.place(rng, spec.ofm_placement());
        let weight_streams: Vec<(u64, usize)> = encoded
            .iter()
            .map(|bytes| (memory.alloc(rng, spec.regions[2], bytes), bytes.len()))
            .collect();
        let scale_streams: Option<Vec<(u64, usize)>> = match spec.scale_mode {
            OfmScaleMode::PerChannel if spec.scales() => Some(
                (0..cores)
                    .map(|core| {
                        let bytes: Vec<u8> = scales
                            .iter()
                            .skip(core)
                            .step_by(cores)
                            .flat_map(|r| r.to_bytes())
                            .collect();
                        (memory.alloc(rng, spec.regions[3], &bytes), bytes.len())
                    })
                    .collect(),
            ),
            _ => None,
        };
        let config = if spec.parallel {
            NpuConfig::u65_512()
        } else {
            NpuConfig::u65_256()
        };
        let luts: Vec<Vec<u8>> = if spec.activation.bits() >= 16 {
            (0..config.cores)
                .map(|_| (0..LUT_BYTES).map(|_| rng.gen()).collect())
                .collect()
        } else {
            Vec::new()
        };
        let lut_area = config.shram_kib as u64 * 1024 / u64::from(config.cores) - LUT_BYTES as u64;
        let mut commands: Vec<Command> = luts
            .iter()
            .enumerate()
            .flat_map(|(core, lut)| {
                let source = memory.alloc(rng, spec.regions[2], lut);
                lut_dma(spec.regions[2], source, 1 << core, lut_area)
            })
            .collect();
        if !luts.is_empty() {
            commands.push(builders::NpuOpDmaWait::default().k(0).command());
        }
        let (activation_min, activation_max) = spec.activation_bounds();
        commands.extend(command_stream(
            &spec,
            &ifm_map,
            &ofm_map,
            &weight_streams,
            scale_streams.as_deref(),
            scales[0],
            (activation_min, activation_max),
        ));
        let job = Job::in_memory(config, encode(&commands), memory.regions, &spec.describe());
        job.check_rules()?;
        Ok(ConvJob {
            spec,
            job,
            commands,
            ifm,
            ifm_shape,
            ifm_map,
            ofm_map,
            weights,
            scales,
            activation_min,
            activation_max,
            luts,
        })
    }

    /// ACTIVATION_MIN/MAX as raw 16-bit fields.
    fn activation_bounds(&self) -> (u16, u16) {
        let t = self.ofm_type;
        match (self.clamp, t.bits) {
            (Some((lo, hi)), _) => (lo as u16, hi as u16),
            (None, 32) => (i16::MIN as u16, i16::MAX as u16),
            (None, _) => (t.min() as u16, t.max() as u16),
        }
    }
}

/// Source IFM values: 8-bit over the whole type, 16- and 32-bit over a
/// random power-of-two range (so accumulators of every size occur, and
/// 32-bit sums that wrap).
fn random_ifm(rng: &mut StdRng, spec: &ConvSpec, [h, w, c]: [usize; 3]) -> Vec<i64> {
    let t = spec.ifm_type;
    let (lo, hi) = if t.bits > 8 {
        let amplitude = 1i64 << rng.gen_range(4..t.bits);
        (-amplitude, amplitude - 1)
    } else {
        (t.min(), t.max())
    };
    (0..h * w * c).map(|_| rng.gen_range(lo..=hi)).collect()
}

/// OHWI weights: mostly int8-sized, sometimes the full 9 bits or tiny, with
/// a random share of zeros.
fn random_weights(rng: &mut StdRng, n: usize) -> Vec<i16> {
    let max = [127, 127, 127, 255, 7][rng.gen_range(0..5)];
    let zeros = rng.gen_range(0.0..0.6);
    (0..n)
        .map(|_| {
            if rng.gen_bool(zeros) {
                0
            } else {
                rng.gen_range(-max..=max)
            }
        })
        .collect()
}

/// Mostly the encoder's best choices, sometimes a fixed coding.
fn encode_options(rng: &mut StdRng) -> EncodeOptions {
    EncodeOptions {
        zero_runs: match rng.gen_range(0..3) {
            0 => ZeroRuns::Auto,
            1 => ZeroRuns::Off,
            _ => ZeroRuns::AutoZdiv,
        },
        index: either(rng, 0.2, IndexCoding::Uncompressed, IndexCoding::Auto),
        palette: either(rng, 0.2, PaletteChoice::Direct, PaletteChoice::Auto),
        max_slice_len: if rng.gen_bool(0.2) {
            rng.gen_range(1..=64)
        } else {
            EncodeOptions::default().max_slice_len
        },
        newpal_every_slice: rng.gen_bool(0.1),
    }
}

/// Scales that put the typical accumulator at a sixth of the OFM type's
/// range (so outputs spread and few saturate) and biases of the size of an
/// accumulator. The typical accumulator is `sqrt(taps * E[w^2] * E[x^2])`.
fn random_scales(
    rng: &mut StdRng,
    spec: &ConvSpec,
    ifm: &[i64],
    weights: &[i16],
) -> Vec<ScaleRecord> {
    let mean_square = |v: &mut dyn Iterator<Item = f64>| {
        let (sum, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x * x, n + 1));
        (sum / n.max(1) as f64).max(1.0)
    };
    let x2 = mean_square(&mut ifm.iter().map(|&v| (v - spec.ifm_zero_point) as f64));
    let w2 = mean_square(&mut weights.iter().map(|&w| w as f64));
    let taps = (spec.kernel[0] * spec.kernel[1] * spec.weights_per_tap()) as f64;
    let typical = (taps * w2 * x2).sqrt();
    let target = match spec.ofm_type.bits {
        32 => 1e6,
        t => 2f64.powi(t as i32) / 6.0,
    };
    let record = |rng: &mut StdRng, bias: i64| {
        let multiplier = target / typical * rng.gen_range(0.5..2.0);
        let (scale, shift) = quantized_multiplier(multiplier);
        ScaleRecord { bias, scale, shift }
    };
    match spec.scale_mode {
        OfmScaleMode::Global => vec![record(rng, 0); spec.ofm[2]],
        OfmScaleMode::PerChannel => (0..spec.ofm[2])
            .map(|_| {
                let bias = rng.gen_range(-typical..=typical) as i64;
                record(rng, bias)
            })
            .collect(),
    }
}

/// `m` as `scale * 2^-shift`, TFLite's quantized multiplier: scale in
/// [2^30, 2^31), shift 0-63.
pub(crate) fn quantized_multiplier(m: f64) -> (u32, u32) {
    let exponent = m.log2().floor() as i32 + 1;
    let shift = (31 - exponent).clamp(0, 63) as u32;
    let scale = (m * 2f64.powi(shift as i32)).round();
    (scale.clamp(1.0, (u32::MAX >> 1) as f64) as u32, shift)
}

/// Where and how a feature map is laid out in memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FmPlacement {
    pub region: usize,
    pub shape: [usize; 3],
    pub dtype: DType,
    pub layout: Layout,
    pub tiles: Option<Tiles>,
    pub zero_point: i64,
    /// Strides with unused bytes between elements, rows and channel blocks.
    pub padded_strides: bool,
}

impl ConvSpec {
    fn ifm_placement(&self) -> FmPlacement {
        FmPlacement {
            region: self.regions[0],
            shape: self.ifm_shape(),
            dtype: self.ifm_type,
            layout: self.ifm_layout,
            tiles: self.ifm_tiles,
            zero_point: self.ifm_zero_point,
            padded_strides: self.padded_strides,
        }
    }

    fn ofm_placement(&self) -> FmPlacement {
        FmPlacement {
            region: self.regions[1],
            shape: self.ofm,
            dtype: self.ofm_type,
            layout: self.ofm_layout,
            tiles: self.ofm_tiles,
            zero_point: self.ofm_zero_point,
            padded_strides: self.padded_strides,
        }
    }
}

/// The regions being laid out: buffers one after another, 16-byte aligned,
/// with random bytes in between.
#[derive(Default)]
pub(crate) struct Memory {
    pub regions: BTreeMap<usize, Vec<u8>>,
}

impl Memory {
    /// Appends `bytes` to `region` after a random gap; returns its offset.
    pub(crate) fn alloc(&mut self, rng: &mut StdRng, region: usize, bytes: &[u8]) -> u64 {
        let r = self.regions.entry(region).or_default();
        let gap = 16 * rng.gen_range(0..=2);
        let base = r.len().next_multiple_of(16) + gap;
        r.extend((r.len()..base).map(|_| rng.gen::<u8>()));
        r.extend_from_slice(bytes);
        let end = r.len().next_multiple_of(16);
        r.extend((r.len()..end).map(|_| rng.gen::<u8>()));
        base as u64
    }

    /// Lays out a feature map: strides, then each tile's rows as a buffer
    /// of random bytes. Returns the feature map the registers describe.
    pub(crate) fn place(&mut self, rng: &mut StdRng, fm: FmPlacement) -> FeatureMap {
        let FmPlacement {
            region,
            shape: [h, w, c],
            dtype,
            layout,
            tiles,
            zero_point,
            padded_strides,
        } = fm;
        let t = tiles.unwrap_or(Tiles {
            width0: w,
            height0: h,
            height1: h,
        });
        let e = dtype.bytes();
        let extra = |rng: &mut StdRng, unit: usize, most: usize| {
            if padded_strides {
                unit * rng.gen_range(0..=most)
            } else {
                0
            }
        };
        let widest = t.width0.max(w - t.width0);
        let (stride_x, stride_y, stride_c) = match layout {
            Layout::Nhwc => {
                let x = c * e + extra(rng, e, 3);
                (x, widest * x + extra(rng, e, 9), e)
            }
            Layout::Nhcwb16 => {
                let sc = widest * 16 * e + extra(rng, 16, 2);
                (16 * e, c.div_ceil(16) * sc + extra(rng, 16, 2), sc)
            }
        };
        // Tile k's rows: 0 and 2 split the first width0 columns at height0,
        // 1 and 3 the others at height1.
        let rows = [
            t.height0,
            if t.width0 < w { t.height1 } else { 0 },
            h - t.height0,
            if t.width0 < w { h - t.height1 } else { 0 },
        ];
        let mut base = [0u64; 4];
        for (k, &n) in rows.iter().enumerate() {
            if n > 0 {
                let bytes: Vec<u8> = (0..n * stride_y).map(|_| rng.gen()).collect();
                base[k] = self.alloc(rng, region, &bytes);
            } else {
                base[k] = base[0];
            }
        }
        FeatureMap {
            region,
            base,
            stride_x: stride_x as i64,
            stride_y: stride_y as i64,
            stride_c: stride_c as i64,
            width0: t.width0,
            height0: t.height0,
            height1: t.height1,
            dtype,
            layout,
            zero_point,
        }
    }

    pub(crate) fn store(&mut self, fm: &FeatureMap, y: usize, x: usize, c: usize, v: i64) {
        let at = fm.offset(y, x, c) as usize;
        let region = self.regions.get_mut(&fm.region).expect("placed region");
        fm.dtype.store(v, &mut region[at..]);
    }
}
