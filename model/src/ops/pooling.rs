//! Pooling and reduce sum (TRM 4.8.2).

use super::convolution::wrap_accumulator;
use super::io::{channel_scales, global_scale, load_upscaled, store_fm};
use super::output_stage::OutStage;
use super::Op;
use crate::fixed;
use crate::state::{NpuState, OpError};
use npu_arch::command::{OfmScaleMode, PoolingMode};

impl Op {
    pub(super) fn run_pool(&self, npu: &mut NpuState, mode: PoolingMode) -> Result<(), OpError> {
        let (h, w) = self.ifm_extent()?;
        let reduce = mode == PoolingMode::ReduceSum;
        let c = self.ifm_channels();
        let ifm = load_upscaled(npu, self, h, w, c)?;
        // Average pool without padding and REDUCE_SUM scale (TRM 4.8.2 table
        // 4-122, 4-125); max pool and padded average pool do not.
        let scales =
            if mode == PoolingMode::Max || (mode == PoolingMode::Average && self.has_padding()) {
                None
            } else {
                Some(match self.ofm_scale_mode {
                    OfmScaleMode::Global => vec![global_scale(npu); self.oc],
                    OfmScaleMode::PerChannel => channel_scales(npu, self)?,
                })
            };
        // The zero points apply as for every operation: (x - IFM zp), then
        // + OFM zp. TFLite averages raw values, so its rounding differs on
        // half-way sums when the zero points are not 0; Vela's compiler
        // therefore gives average pools zero points of 0 (use_zero_point_0).
        let stage = OutStage::new(self, npu);
        let cores = npu.shram.len();
        let (kh, kw) = (self.kernel_h(), self.kernel_w());
        let mut out = Vec::with_capacity(self.oh * self.ow * self.oc);
        for oy in 0..self.oh {
            for ox in 0..self.ow {
                for ch in 0..self.oc {
                    let mut sum = 0i64;
                    let mut max = i64::MIN;
                    let mut count = 0i64;
                    for ky in 0..kh {
                        let y = (oy * self.stride_y + ky * self.dil_y) as i64 - self.pad_top as i64;
                        if y < 0 || y >= h as i64 {
                            continue;
                        }
                        for kx in 0..kw {
                            let x = (ox * self.stride_x + kx * self.dil_x) as i64
                                - self.pad_left as i64;
                            if x < 0 || x >= w as i64 {
                                continue;
                            }
                            let px = &ifm[(y as usize * w + x as usize) * c..][..c];
                            count += 1;
                            if reduce {
                                sum += px.iter().map(|&v| v as i64).sum::<i64>();
                            } else {
                                sum += px[ch] as i64;
                                max = max.max(px[ch] as i64);
                            }
                        }
                    }
                    let v = match (mode, &scales) {
                        (PoolingMode::Max, _) => {
                            if count == 0 {
                                self.ifm.dtype.min() - self.ifm.zero_point
                            } else {
                                max
                            }
                        }
                        // TFLite reference AveragePool: divide by the number of
                        // non-padding elements, rounding half away from zero.
                        (_, None) => fixed::divide_round_away(sum, count.max(1)),
                        (_, Some(s)) => {
                            let r = s[ch];
                            self.output_scale(r)
                                .apply(wrap_accumulator(sum + r.bias, self.acc))
                        }
                    };
                    out.push(stage.finish(v, self.core_of(ch, cores)));
                }
            }
        }
        self.count_macs(npu, if reduce { c } else { 1 });
        store_fm(npu, &self.ofm.clone(), self.oh, self.ow, self.oc, &out)
    }

    /// Counts the operation's MACs as Vela's per-layer report does (its
    /// `MAC Count`, `npu_performance.measure_cycle_cost`): per OFM value,
    /// the kernel elements times the IFM channels summed into it, `depth`
    /// (1 for depthwise convolutions and max or average pools). Elementwise
    /// operations count none.
    pub(super) fn count_macs(&self, npu: &mut NpuState, depth: usize) {
        let per_value = (self.kernel_h() * self.kernel_w() * depth) as u64;
        npu.stats.macs += (self.oh * self.ow * self.oc) as u64 * per_value;
    }
}
