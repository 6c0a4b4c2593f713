//! Convolution, vector product and depthwise (TRM 4.8.2): the MAC unit's
//! accumulators and the per-channel scale.

use super::io::{channel_scales, global_scale, load_upscaled, load_weights, store_fm, ScaleRecord};
use super::output_stage::OutStage;
use super::{KernelKind, Op};
use crate::fixed;
use crate::state::{NpuState, OpError};
use npu_arch::command::{AccFormat, OfmScaleMode, RoundMode};

/// One convolution output before the activation: the accumulator plus the
/// channel's bias, wrapped to the accumulator width, then the output unit's
/// per-channel scale with the OFM rounding mode (TRM 3.3.7). Public as the
/// reference of the accumulator and output-unit block benches.
pub fn scale_accumulator(
    acc: i64,
    record: &ScaleRecord,
    format: AccFormat,
    round: RoundMode,
) -> i64 {
    fixed::scale(
        wrap_accumulator(acc + record.bias, format),
        record.scale,
        record.shift,
        round,
    )
}

/// The MAC unit's accumulator: `v` wrapped to the accumulator width (TRM
/// 4.6.4 NPU_SET_ACC_FORMAT: 32 or 40 bits). Public as the reference of the
/// unit's block bench.
pub fn wrap_accumulator(v: i64, acc: AccFormat) -> i64 {
    match acc {
        AccFormat::Int32 => v as i32 as i64,
        _ => (v << 24) >> 24,
    }
}

/// Dot product of 8-bit activations (zero point removed, so |a| <= 255) with
/// 9-bit weights: i16 lanes summed in i32 chunks small enough not to
/// overflow (16384 * 255 * 255 < 2^31), so the compiler can vectorise it.
#[inline]
fn dot_i16(a: &[i16], b: &[i16]) -> i64 {
    let mut total = 0i64;
    for (ca, cb) in a.chunks(16384).zip(b.chunks(16384)) {
        let s: i32 = ca.iter().zip(cb).map(|(&x, &y)| x as i32 * y as i32).sum();
        total += s as i64;
    }
    total
}

#[inline]
fn dot_i32(a: &[i32], b: &[i16]) -> i64 {
    a.iter().zip(b).map(|(&x, &y)| x as i64 * y as i64).sum()
}

/// The padded, upscaled IFM: rows/columns of padding hold 0 (the zero
/// point, already subtracted).
struct Padded<T> {
    data: Vec<T>,
    w: usize,
    c: usize,
}

fn pad<T: Copy + Default>(
    src: &[i32],
    h: usize,
    w: usize,
    c: usize,
    op: &Op,
    cvt: impl Fn(i32) -> T,
) -> Padded<T> {
    let ph = (op.oh - 1) * op.stride_y + op.dkh;
    let pw = (op.ow - 1) * op.stride_x + op.dkw;
    let mut data = vec![T::default(); ph * pw * c];
    for y in 0..h {
        let dst = ((y + op.pad_top) * pw + op.pad_left) * c;
        for (d, &s) in data[dst..dst + w * c]
            .iter_mut()
            .zip(&src[y * w * c..(y + 1) * w * c])
        {
            *d = cvt(s);
        }
    }
    Padded { data, w: pw, c }
}

impl Op {
    pub(super) fn run_conv(&self, npu: &mut NpuState) -> Result<(), OpError> {
        let depthwise = self.kind == KernelKind::Depthwise;
        let (h, w) = self.ifm_extent()?;
        let c = self.ifm_channels();
        let traversal = self.traversal();
        let weights = load_weights(npu, self, if depthwise { 1 } else { c }, traversal)?;
        let ifm = load_upscaled(npu, self, h, w, c)?;
        let scales = match self.ofm_scale_mode {
            OfmScaleMode::Global => vec![global_scale(npu); self.oc],
            OfmScaleMode::PerChannel => channel_scales(npu, self)?,
        };
        let accs = if self.ifm.dtype.bits == 8 {
            self.conv_accumulate(
                &pad(&ifm, h, w, c, self, |v| v as i16),
                &weights,
                depthwise,
                dot_i16,
            )
        } else {
            self.conv_accumulate(
                &pad(&ifm, h, w, c, self, |v| v),
                &weights,
                depthwise,
                dot_i32,
            )
        };
        self.count_macs(npu, if depthwise { 1 } else { c });
        let stage = OutStage::new(self, npu);
        let cores = npu.shram.len();
        let out: Vec<i64> = accs
            .iter()
            .enumerate()
            .map(|(i, &acc)| {
                let ch = i % self.oc;
                let r = scales[ch];
                stage.finish(
                    scale_accumulator(acc, &r, self.acc, self.round),
                    self.core_of(ch, cores),
                )
            })
            .collect();
        store_fm(npu, &self.ofm.clone(), self.oh, self.ow, self.oc, &out)
    }

    /// Accumulators in (y, x, oc) order. For each output position the
    /// receptive field is gathered once into a contiguous patch in OHWI
    /// kernel order, then each output channel is one dot product with its
    /// weights: no bounds checks or allocation in the MAC loop.
    fn conv_accumulate<T: Copy + Default + Into<i64>>(
        &self,
        p: &Padded<T>,
        weights: &[i16],
        depthwise: bool,
        dot: fn(&[T], &[i16]) -> i64,
    ) -> Vec<i64> {
        let (kh, kw, c) = (self.kernel_h(), self.kernel_w(), p.c);
        let mut out = Vec::with_capacity(self.oh * self.ow * self.oc);
        if depthwise {
            let kk = kh * kw;
            // Weights transposed to [ky][kx][c] so each tap is a contiguous row.
            let mut wt = vec![0i16; kk * c];
            for ch in 0..c {
                for k in 0..kk {
                    wt[k * c + ch] = weights[ch * kk + k];
                }
            }
            let mut acc = vec![0i64; c];
            for oy in 0..self.oh {
                for ox in 0..self.ow {
                    acc.iter_mut().for_each(|a| *a = 0);
                    for ky in 0..kh {
                        for kx in 0..kw {
                            let y = oy * self.stride_y + ky * self.dil_y;
                            let x = ox * self.stride_x + kx * self.dil_x;
                            let row = &p.data[(y * p.w + x) * c..][..c];
                            let wr = &wt[(ky * kw + kx) * c..][..c];
                            for ((a, &v), &wv) in acc.iter_mut().zip(row).zip(wr) {
                                *a += v.into() * wv as i64;
                            }
                        }
                    }
                    out.extend_from_slice(&acc);
                }
            }
            return out;
        }
        let patch_len = kh * kw * c;
        let mut patch = vec![T::default(); patch_len];
        for oy in 0..self.oh {
            for ox in 0..self.ow {
                for ky in 0..kh {
                    let y = oy * self.stride_y + ky * self.dil_y;
                    if self.dil_x == 1 {
                        let x = ox * self.stride_x;
                        let src = &p.data[(y * p.w + x) * c..][..kw * c];
                        patch[ky * kw * c..][..kw * c].copy_from_slice(src);
                    } else {
                        for kx in 0..kw {
                            let x = ox * self.stride_x + kx * self.dil_x;
                            let src = &p.data[(y * p.w + x) * c..][..c];
                            patch[(ky * kw + kx) * c..][..c].copy_from_slice(src);
                        }
                    }
                }
                for wrow in weights.chunks_exact(patch_len) {
                    out.push(dot(&patch, wrow));
                }
            }
        }
        out
    }
}
