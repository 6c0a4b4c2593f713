//! Operators of TRM 4.8 against TensorFlow Lite's quantized-integer
//! semantics, written independently of the model from the TFLite reference
//! kernels (tensorflow/lite/kernels/internal/reference/integer_ops/conv.h,
//! depthwise_conv.h, pooling.h, add.h, mul.h) and gemmlowp's fixedpoint.h.
//! Randomized tests print their seed.

mod common;

use common::*;
use npu_arch::command::{KernelDecomposition, Opcode};
use npu_model::ops::ScaleRecord;
use npu_model::tensor::DType;
use npu_model::weights::order::{Traversal, WeightOrder, U65_UBLOCK_DEPTH};
use rand::rngs::StdRng;
use rand::Rng;

fn pick<T: Copy>(rng: &mut StdRng, v: &[T]) -> T {
    v[rng.gen_range(0..v.len())]
}

/// One random convolution or depth-wise convolution, checked against the
/// TFLite reference (ConvPerChannel / DepthwiseConvPerChannel):
/// acc = sum((x - in_zp) * w) + bias; out = MultiplyByQuantizedMultiplier(acc,
/// m, s) + out_zp; clamp to [act_min, act_max].
fn conv_case(rng: &mut StdRng, depthwise: bool, config: &str) {
    let ifm_t = pick(rng, &[DType::U8, DType::I8, DType::I16]);
    let ofm_t = pick(rng, &[DType::U8, DType::I8, DType::I16, DType::I32]);
    let (kw, kh): (usize, usize) = (rng.gen_range(1..=6), rng.gen_range(1..=6));
    // TRM 4.6.4 NPU_SET_KERNEL_STRIDE bit 5: 4x4 sub-kernels change only the
    // weight order (TRM 4.7.5), not the result.
    let decomposition = pick(rng, &[KernelDecomposition::D8x8, KernelDecomposition::D4x4]);
    let (sx, sy) = (rng.gen_range(1..=3), rng.gen_range(1..=3));
    let (dx, dy) = (rng.gen_range(1..=2), rng.gen_range(1..=2));
    let (dkw, dkh) = ((kw - 1) * dx + 1, (kh - 1) * dy + 1);
    let (h, w) = (rng.gen_range(dkh..dkh + 6), rng.gen_range(dkw..dkw + 6));
    let cin = rng.gen_range(1..=40);
    let cout = if depthwise {
        cin
    } else {
        rng.gen_range(1..=40)
    };
    let (pt, pl) = (rng.gen_range(0..dkh), rng.gen_range(0..dkw));
    let (pb0, pr0) = (rng.gen_range(0..dkh), rng.gen_range(0..dkw));
    let oh = (h + pt + pb0 - dkh) / sy + 1;
    let ow = (w + pl + pr0 - dkw) / sx + 1;
    // Padding the NPU needs so its derived IFM extent equals h x w (or less
    // when the last rows are not reached).
    let pb = ((oh - 1) * sy + dkh).saturating_sub(pt + h);
    let pr = ((ow - 1) * sx + dkw).saturating_sub(pl + w);
    let pkf = !depthwise && rng.gen_bool(0.5);

    let mut ifm = Fm::new(1, 0, h, w, cin, ifm_t);
    ifm.nhcwb16 = rng.gen_bool(0.3);
    if ifm_t.bits == 8 {
        ifm.zp = rng.gen_range(ifm_t.min()..=ifm_t.max());
    }
    let mut ofm = Fm::new(1, 0, oh, ow, cout, ofm_t);
    ofm.nhcwb16 = rng.gen_bool(0.3);
    ofm.base = (ifm.bytes() as u32).div_ceil(16) * 16;
    ofm.zp = if ofm_t.bits == 8 {
        rng.gen_range(ofm_t.min()..=ofm_t.max())
    } else {
        0
    };
    let ifm_vals: Vec<i64> = if ifm_t.bits == 16 {
        (0..h * w * cin)
            .map(|_| rng.gen_range(-3000..=3000))
            .collect()
    } else {
        random_vals(rng, h * w * cin, ifm_t)
    };
    let per_oc = kh * kw * if depthwise { 1 } else { cin };
    let wmax = if ifm_t == DType::U8 { 255 } else { 127 };
    let wts: Vec<i16> = (0..cout * per_oc)
        .map(|_| rng.gen_range(-wmax..=wmax))
        .collect();
    let mults: Vec<(i32, i32)> = (0..cout)
        .map(|_| tfl_quantize_multiplier(rng.gen_range(0.00002..0.02)))
        .collect();
    let biases: Vec<i64> = (0..cout).map(|_| rng.gen_range(-20000..=20000)).collect();
    // An int32 OFM has no activation (TRM 4.8.2 table 4-120): the full range.
    let (act_min, act_max) = {
        let a = rng.gen_range(ofm_t.min()..=ofm_t.max());
        let b = rng.gen_range(ofm_t.min()..=ofm_t.max());
        if ofm_t.bits == 32 || rng.gen_bool(0.5) {
            (ofm_t.min(), ofm_t.max())
        } else {
            (a.min(b), a.max(b))
        }
    };

    // Streams: weights in region 0, scales after them.
    let blk_depth = if rng.gen_bool(0.5) { 16 } else { 32 };
    let cores = if config == "u65-512" { 2 } else { 1 };
    let traversal = match (depthwise, pkf) {
        (true, _) => Traversal::DepthWise,
        (false, true) => Traversal::PartKernelFirst,
        (false, false) => Traversal::DepthFirst,
    };
    let mut region0 = Vec::new();
    let mut s = Stream::default();
    s.c0(Opcode::NpuSetParallelMode, (cores - 1) as u16)
        .c0(Opcode::NpuSetWeightRegion, 0)
        .c0(Opcode::NpuSetScaleRegion, 0);
    let weight_ops = [
        (Opcode::NpuSetWeightBase, Opcode::NpuSetWeightLength),
        (Opcode::NpuSetWeight1Base, Opcode::NpuSetWeight1Length),
    ];
    let scale_ops = [
        (Opcode::NpuSetScaleBase, Opcode::NpuSetScaleLength),
        (Opcode::NpuSetScale1Base, Opcode::NpuSetScale1Length),
    ];
    for core in 0..cores.min(cout) {
        let chans: Vec<usize> = (core..cout).step_by(cores).collect();
        let o = WeightOrder {
            ofm_depth: chans.len(),
            ifm_depth: if depthwise { 1 } else { cin },
            kernel_height: kh,
            kernel_width: kw,
            ofm_block_depth: (blk_depth + cores - 1 - core) / cores,
            traversal,
            ifm_bits: ifm_t.bits,
            dilation_x2: dx == 2,
            dilation_y2: dy == 2,
            decomposition,
            ofm_ublock_depth: U65_UBLOCK_DEPTH,
            ifm_ublock_depth: U65_UBLOCK_DEPTH,
        };
        let part: Vec<i16> = chans
            .iter()
            .flat_map(|&c| wts[c * per_oc..(c + 1) * per_oc].iter().copied())
            .collect();
        let ws = weight_stream(&part, &o);
        s.c1(weight_ops[core].0, region0.len() as u64)
            .c1(weight_ops[core].1, ws.len() as u64);
        region0.extend(ws);
        let recs: Vec<ScaleRecord> = chans
            .iter()
            .map(|&c| {
                let (scale, shift) = npu_scale(mults[c].0, mults[c].1);
                ScaleRecord {
                    bias: biases[c],
                    scale,
                    shift,
                }
            })
            .collect();
        let ss = scale_stream(&recs);
        s.c1(scale_ops[core].0, region0.len() as u64)
            .c1(scale_ops[core].1, ss.len() as u64);
        region0.extend(ss);
    }
    let mut region1 = vec![0u8; ofm.base as usize + ofm.bytes()];
    ifm.store(&mut region1, &ifm_vals);
    s.ifm(&ifm)
        .ofm(&ofm, 0)
        .kernel_split(kw, kh, sx, sy, dx, dy, pkf, decomposition)
        .pad(pt as u16, pl as u16, pb as u16, pr as u16)
        .activation(0, act_min, act_max)
        .c0(Opcode::NpuSetOfmBlkDepthM1, (blk_depth - 1) as u16)
        .c0(
            Opcode::NpuSetAccFormat,
            if ifm_t.bits == 16 { 1 } else { 0 },
        )
        .c0(
            if depthwise {
                Opcode::NpuOpDepthwise
            } else {
                Opcode::NpuOpConv
            },
            0,
        )
        .c0(Opcode::NpuOpStop, 0xffff);
    let mut n = npu(config, &[(0, region0), (1, region1)]);
    let desc = format!(
        "{} {config} {ifm_t}->{ofm_t} k{kw}x{kh} s{sx}x{sy} d{dx}x{dy} pad {pt},{pl},{pb},{pr} {h}x{w}x{cin}->{oh}x{ow}x{cout} pkf {pkf} {decomposition:?} nhcwb16 {}/{}",
        if depthwise { "depthwise" } else { "conv" },
        ifm.nhcwb16,
        ofm.nhcwb16
    );
    n.run(&s.bytes()).unwrap_or_else(|e| panic!("{desc}: {e}"));
    let got = ofm.load(n.state.memory.region(1));

    let mut i = 0;
    for oy in 0..oh {
        for ox in 0..ow {
            for oc in 0..cout {
                let mut acc: i64 = biases[oc];
                for ky in 0..kh {
                    for kx in 0..kw {
                        let y = (oy * sy + ky * dy) as i64 - pt as i64;
                        let x = (ox * sx + kx * dx) as i64 - pl as i64;
                        if y < 0 || x < 0 || y >= h as i64 || x >= w as i64 {
                            continue;
                        }
                        let px = ((y as usize) * w + x as usize) * cin;
                        if depthwise {
                            let wv = wts[oc * per_oc + ky * kw + kx] as i64;
                            acc += (ifm_vals[px + oc] - ifm.zp) * wv;
                        } else {
                            for ic in 0..cin {
                                let wv = wts[oc * per_oc + (ky * kw + kx) * cin + ic] as i64;
                                acc += (ifm_vals[px + ic] - ifm.zp) * wv;
                            }
                        }
                    }
                }
                assert!(
                    acc.abs() < i32::MAX as i64,
                    "{desc}: accumulator out of int32"
                );
                let v = tfl_mbqm(acc as i32, mults[oc].0, mults[oc].1) as i64 + ofm.zp;
                let v = v.clamp(act_min, act_max).clamp(ofm_t.min(), ofm_t.max());
                assert_eq!(got[i], v, "{desc}: OFM (y {oy}, x {ox}, c {oc})");
                i += 1;
            }
        }
    }
    assert_eq!(
        n.state.stats.macs,
        (oh * ow * cout * per_oc) as u64,
        "{desc}: MAC count"
    );
}

#[test]
fn conv_random() {
    let mut rng = rng("conv_random");
    for _ in 0..60 {
        conv_case(&mut rng, false, "u65-256");
    }
}

#[test]
fn depthwise_random() {
    let mut rng = rng("depthwise_random");
    for _ in 0..60 {
        conv_case(&mut rng, true, "u65-256");
    }
}

/// Vela lowers MEAN over the 7x7x1280 end of MobileNetV2 to one DEPTHWISE
/// with a 7x7 kernel of ones over 1280 channels and a global scale of 1/49:
/// 62720 weights, which the model once counted as a full convolution's
/// 1280 * 49 * 1280 and refused.
#[test]
fn depthwise_7x7_over_1280_channels() {
    let mut rng = rng("depthwise_7x7_over_1280_channels");
    let (k, c) = (7, 1280);
    let mut ifm = Fm::new(1, 0, k, k, c, DType::I8);
    ifm.zp = -3;
    let mut ofm = Fm::new(1, 0, 1, 1, c, DType::I8);
    ofm.base = ifm.bytes() as u32;
    ofm.zp = 5;
    let vals = random_vals(&mut rng, k * k * c, DType::I8);
    let mut region1 = vec![0u8; ofm.base as usize + ofm.bytes()];
    ifm.store(&mut region1, &vals);
    let order = order_8bit(c, 1, k, 64, Traversal::DepthWise);
    let weights = weight_stream(&vec![1; c * k * k], &order);
    let (m, shift) = tfl_quantize_multiplier(1.0 / 49.0);
    let (scale, npu_shift) = npu_scale(m, shift);
    let mut s = Stream::default();
    s.c0(Opcode::NpuSetWeightRegion, 0)
        .c1(Opcode::NpuSetWeightBase, 0)
        .c1(Opcode::NpuSetWeightLength, weights.len() as u64)
        .c1(
            Opcode::NpuSetOfmScale,
            ((npu_shift as u64) << 32) | scale as u64,
        )
        .ifm(&ifm)
        // OFM_PRECISION bit 8: the global OFM_SCALE, no scale/bias stream.
        .ofm(&ofm, 1 << 8)
        .kernel(k, k, 1, 1, 1, 1, false)
        .pad(0, 0, 0, 0)
        .activation(0, -128, 127)
        .c0(Opcode::NpuSetOfmBlkDepthM1, 63)
        .c0(Opcode::NpuOpDepthwise, 0)
        .c0(Opcode::NpuOpStop, 0xffff);
    let mut n = npu("u65-256", &[(0, weights), (1, region1)]);
    n.run(&s.bytes())
        .expect("a 7x7 depthwise over 1280 channels runs");
    let got = ofm.load(n.state.memory.region(1));
    for ch in 0..c {
        let sum: i64 = (0..k * k).map(|p| vals[p * c + ch] - ifm.zp).sum();
        let want = (tfl_mbqm(sum as i32, m, shift) as i64 + ofm.zp).clamp(-128, 127);
        assert_eq!(got[ch], want, "channel {ch}");
    }
    assert_eq!(n.state.stats.macs, (c * k * k) as u64);
}

#[test]
fn parallel_mode_random() {
    let mut rng = rng("parallel_mode_random");
    for _ in 0..20 {
        conv_case(&mut rng, false, "u65-512");
        conv_case(&mut rng, true, "u65-512");
    }
}

/// Pooling against TFLite's reference MaxPool / AveragePool (pooling.h):
/// max or round-half-away-from-zero average over the non-padding window
/// elements, then clamp. Average pools without padding use Vela's global
/// scale (`quantise_pooling_scale`); with padding the NPU divides by the
/// element count. Zero points are 0, as Vela programs them for average pool.
#[test]
fn pool_random() {
    let mut rng = rng("pool_random");
    for _ in 0..80 {
        let t = pick(&mut rng, &[DType::U8, DType::I8, DType::I16]);
        let max = rng.gen_bool(0.5);
        let padded = rng.gen_bool(0.5);
        let (kw, kh): (usize, usize) = (rng.gen_range(1..=4), rng.gen_range(1..=4));
        let (sx, sy) = (rng.gen_range(1..=3), rng.gen_range(1..=3));
        let (h, w, c) = (
            rng.gen_range(kh..kh + 6),
            rng.gen_range(kw..kw + 6),
            rng.gen_range(1..=20),
        );
        let (pt, pl, pb0, pr0) = if padded {
            (
                rng.gen_range(0..kh.min(4)),
                rng.gen_range(0..kw.min(4)),
                rng.gen_range(0..kh.min(4)),
                rng.gen_range(0..kw.min(4)),
            )
        } else {
            (0, 0, 0, 0)
        };
        let oh = (h + pt + pb0 - kh) / sy + 1;
        let ow = (w + pl + pr0 - kw) / sx + 1;
        let pb = ((oh - 1) * sy + kh).saturating_sub(pt + h);
        let pr = ((ow - 1) * sx + kw).saturating_sub(pl + w);
        let has_pad = pt + pl + pb + pr > 0;
        let global = !max && !has_pad;
        // TRM 4.8.2 table 4-122: an unpadded average pool may change the type.
        let ofm_t = if global {
            pick(&mut rng, &[DType::U8, DType::I8, DType::I16])
        } else {
            t
        };
        let ifm = Fm::new(1, 0, h, w, c, t);
        let mut ofm = Fm::new(1, 0, oh, ow, c, ofm_t);
        ofm.base = (ifm.bytes() as u32).div_ceil(16) * 16;
        let vals = random_vals(&mut rng, h * w * c, t);
        let mut region = vec![0u8; ofm.base as usize + ofm.bytes()];
        ifm.store(&mut region, &vals);
        let n_elem = (kw * kh) as i64;
        let mut s = Stream::default();
        if global {
            // Vela scaling.py quantise_pooling_scale(n): k = frexp(n - 1)
            // exponent, scale = (2^(31+k) + 2^k) // n, shift = 31 + k.
            let k = if n_elem == 1 {
                0
            } else {
                64 - ((n_elem - 1) as u64).leading_zeros() as i64
            };
            let scale = ((1i64 << (31 + k)) + (1i64 << k)) / n_elem;
            s.c1(
                Opcode::NpuSetOfmScale,
                ((31 + k) as u64) << 32 | scale as u64,
            );
        }
        s.ifm(&ifm)
            .ofm(&ofm, if global { 1 << 8 } else { 0 })
            .kernel(kw, kh, sx, sy, 1, 1, false)
            .pad(pt as u16, pl as u16, pb as u16, pr as u16)
            .activation(0, ofm_t.min(), ofm_t.max())
            .c0(Opcode::NpuOpPool, if max { 0 } else { 1 })
            .c0(Opcode::NpuOpStop, 0);
        let mut n = npu("u65-256", &[(1, region)]);
        let desc = format!(
            "{} {t}->{ofm_t} k{kw}x{kh} s{sx}x{sy} pad {pt},{pl},{pb},{pr} {h}x{w}x{c}",
            if max { "max" } else { "avg" }
        );
        n.run(&s.bytes()).unwrap_or_else(|e| panic!("{desc}: {e}"));
        let got = ofm.load(n.state.memory.region(1));
        let mut i = 0;
        for oy in 0..oh {
            for ox in 0..ow {
                for ch in 0..c {
                    let (mut sum, mut mx, mut cnt) = (0i64, i64::MIN, 0i64);
                    for ky in 0..kh {
                        for kx in 0..kw {
                            let y = (oy * sy + ky) as i64 - pt as i64;
                            let x = (ox * sx + kx) as i64 - pl as i64;
                            if y < 0 || x < 0 || y >= h as i64 || x >= w as i64 {
                                continue;
                            }
                            let v = vals[((y as usize) * w + x as usize) * c + ch];
                            sum += v;
                            mx = mx.max(v);
                            cnt += 1;
                        }
                    }
                    let want = if max {
                        mx
                    } else if sum > 0 {
                        (sum + cnt / 2) / cnt
                    } else {
                        (sum - cnt / 2) / cnt
                    };
                    assert_eq!(
                        got[i],
                        want.clamp(ofm_t.min(), ofm_t.max()),
                        "{desc}: (y {oy}, x {ox}, c {ch}) sum {sum} count {cnt}"
                    );
                    i += 1;
                }
            }
        }
        // Vela's `MAC Count` of a pool: kernel elements per OFM value.
        assert_eq!(
            n.state.stats.macs,
            (oh * ow * c * kh * kw) as u64,
            "{desc}: MAC count"
        );
    }
}

/// TFLite's quantized ADD/SUB (reference add.h, sub.h): left_shift 20 (8-bit)
/// or 15 (16-bit); x_i = MultiplyByQuantizedMultiplierSmallerThanOneExp((x -
/// zp_i) << left_shift, m_i, s_i); out = MBQMSTOE(x_1 +- x_2, m_o, s_o) + zp_o.
/// The NPU parameters are derived the way Vela's `generate_scaling_for_elementwise`
/// (advanced scaling) does; MUL is TFLite mul.h: MBQM((a - zpa) * (b - zpb)).
#[test]
fn elementwise_random() {
    let mut rng = rng("elementwise_random");
    for _ in 0..120 {
        let t = pick(&mut rng, &[DType::U8, DType::I8, DType::I16]);
        let mode = pick(&mut rng, &[0u16, 1, 2, 3, 4]); // MUL ADD SUB MIN MAX
        let (h, w, c) = (
            rng.gen_range(1..6),
            rng.gen_range(1..6),
            rng.gen_range(1..40),
        );
        let (bh, bw, bc) = (rng.gen_bool(0.2), rng.gen_bool(0.2), rng.gen_bool(0.2));
        let scalar = t.bits == 8 && rng.gen_bool(0.2);
        let reversed = rng.gen_bool(0.3);
        let minmax = mode >= 3;
        // TRM 4.8.2 table 4-124: MUL, ADD and SUB may change the type.
        let ofm_t = if minmax {
            t
        } else {
            pick(&mut rng, &[DType::U8, DType::I8, DType::I16])
        };
        let zp = |rng: &mut StdRng, t: DType| {
            if t.bits == 8 {
                rng.gen_range(t.min()..=t.max())
            } else {
                0
            }
        };
        let mut ifm = Fm::new(1, 0, h, w, c, t);
        ifm.zp = zp(&mut rng, t);
        let mut ifm2 = Fm::new(
            1,
            0,
            if bh { 1 } else { h },
            if bw { 1 } else { w },
            if bc { 1 } else { c },
            t,
        );
        ifm2.base = (ifm.bytes() as u32).div_ceil(16) * 16;
        ifm2.zp = zp(&mut rng, t);
        let mut ofm = Fm::new(1, 0, h, w, c, ofm_t);
        ofm.base = ifm2.base + (ifm2.bytes() as u32).div_ceil(16) * 16;
        ofm.zp = zp(&mut rng, ofm_t);
        if minmax {
            // TFLite MINIMUM/MAXIMUM need identical quantization.
            ifm2.zp = ifm.zp;
            ofm.zp = ifm.zp;
        }
        let a = random_vals(&mut rng, h * w * c, t);
        let b = random_vals(&mut rng, ifm2.h * ifm2.w * ifm2.c, t);
        let scalar_v = rng.gen_range(t.min()..=t.max());
        let mut region = vec![0u8; ofm.base as usize + ofm.bytes()];
        ifm.store(&mut region, &a);
        ifm2.store(&mut region, &b);
        let (s1, s2, so): (f64, f64, f64) = (
            rng.gen_range(0.001..0.1),
            rng.gen_range(0.001..0.1),
            rng.gen_range(0.002..0.2),
        );
        let mut s = Stream::default();
        let left = if t.bits == 8 { 20 } else { 15 };
        // TFLite parameters (add.cc Prepare): twice_max = 2 * max(s1, s2).
        let twice_max = 2.0 * s1.max(s2);
        let m1 = tfl_quantize_multiplier(s1 / twice_max);
        let m2 = tfl_quantize_multiplier(s2 / twice_max);
        let mo = tfl_quantize_multiplier(twice_max / ((1i64 << left) as f64 * so));
        let mm = tfl_quantize_multiplier(s1 * s2 / so);
        // Operand A/B as the NPU sees them (IFM2 first when reversed).
        let (sa, sb) = if reversed { (s2, s1) } else { (s1, s2) };
        let mut prec_scale_mode = 0;
        match mode {
            1 | 2 => {
                // Vela scaling.advanced_elementwise_add_sub_scale: scale the
                // operand with the smaller scale by min*2^L/(2*max).
                let opa_smaller = sa < sb;
                let (min_s, max_s) = (sa.min(sb), sa.max(sb));
                let (m, e) = tfl_quantize_multiplier(min_s * (1i64 << left) as f64 / (2.0 * max_s));
                let (sc, sh) = npu_scale(m, e);
                s.c1(Opcode::NpuSetOpaScale, (sh as u64) << 32 | sc as u64);
                prec_scale_mode = if opa_smaller { 1 } else { 2 };
                let (sc, sh) = npu_scale(mo.0, mo.1);
                s.c1(Opcode::NpuSetOfmScale, (sh as u64) << 32 | sc as u64);
            }
            0 => {
                let (sc, sh) = npu_scale(mm.0, mm.1);
                s.c1(Opcode::NpuSetOfmScale, (sh as u64) << 32 | sc as u64);
            }
            _ => {}
        }
        let mut bcast = 0u16;
        if bh {
            bcast |= 1;
        }
        if bw {
            bcast |= 2;
        }
        if bc {
            bcast |= 4;
        }
        if reversed {
            bcast |= 1 << 6;
        }
        if scalar {
            bcast |= 1 << 7;
        }
        s.ifm(&ifm)
            .c0(
                Opcode::NpuSetIfmPrecision,
                ifm.precision_ifm() | (prec_scale_mode << 8),
            )
            .ifm2(&ifm2)
            .c0(Opcode::NpuSetIfm2Broadcast, bcast)
            .c0(Opcode::NpuSetIfm2Scalar, scalar_v as u16)
            .ofm(&ofm, if minmax { 0 } else { 1 << 8 })
            .activation(0, ofm_t.min(), ofm_t.max())
            .c0(Opcode::NpuOpElementwise, mode)
            .c0(Opcode::NpuOpStop, 0);
        let mut n = npu("u65-256", &[(1, region)]);
        let desc = format!(
            "mode {mode} {t}->{ofm_t} {h}x{w}x{c} bcast {bcast:#x} scales {s1} {s2} {so} zps {} {} {}",
            ifm.zp, ifm2.zp, ofm.zp
        );
        n.run(&s.bytes()).unwrap_or_else(|e| panic!("{desc}: {e}"));
        let got = ofm.load(n.state.memory.region(1));
        let mut i = 0;
        for y in 0..h {
            for x in 0..w {
                for ch in 0..c {
                    let x1 = a[(y * w + x) * c + ch] - ifm.zp;
                    let x2 = if scalar {
                        scalar_v
                    } else {
                        let (y2, x2, c2) = (
                            if bh { 0 } else { y },
                            if bw { 0 } else { x },
                            if bc { 0 } else { ch },
                        );
                        b[(y2 * ifm2.w + x2) * ifm2.c + c2]
                    } - ifm2.zp;
                    let v = match mode {
                        1 | 2 => {
                            let v1 = tfl_mbqm((x1 << left) as i32, m1.0, m1.1);
                            let v2 = tfl_mbqm((x2 << left) as i32, m2.0, m2.1);
                            // Reversed SUB computes IFM2 - IFM.
                            let raw = match (mode, reversed) {
                                (1, _) => v1 + v2,
                                (_, false) => v1 - v2,
                                (_, true) => v2 - v1,
                            };
                            tfl_mbqm(raw, mo.0, mo.1) as i64 + ofm.zp
                        }
                        0 => {
                            // TFLite shifts the product left within int32,
                            // undefined on overflow; the NPU scales it exactly,
                            // so such a product saturates the OFM.
                            let p = x1 * x2;
                            if (p << mm.1.max(0)).abs() > i32::MAX as i64 {
                                p.signum() * i64::MAX
                            } else {
                                tfl_mbqm(p as i32, mm.0, mm.1) as i64 + ofm.zp
                            }
                        }
                        3 => x1.min(x2) + ofm.zp,
                        _ => x1.max(x2) + ofm.zp,
                    };
                    assert_eq!(
                        got[i],
                        v.clamp(ofm_t.min(), ofm_t.max()),
                        "{desc}: (y {y}, x {x}, c {ch})"
                    );
                    i += 1;
                }
            }
        }
    }
}

/// 2x2 upscale (TRM 4.6.4 NPU_SET_IFM_UPSCALE) through a 1x1 identity
/// convolution: nearest repeats each element, zeros inserts zero points.
#[test]
fn upscale_nearest_and_zeros() {
    for mode in [1u16, 2] {
        let (h, w, c) = (3, 4, 5);
        let mut ifm = Fm::new(1, 0, h, w, c, DType::I8);
        ifm.zp = 3;
        let mut ofm = Fm::new(1, 256, 2 * h, 2 * w, c, DType::I8);
        ofm.zp = -2;
        let vals: Vec<i64> = (0..h * w * c).map(|i| (i as i64 % 200) - 100).collect();
        let mut region = vec![0u8; 256 + ofm.bytes()];
        ifm.store(&mut region, &vals);
        // Identity weights: oc == ic, scale 1.0 (2^30 at shift 30).
        let ohwi: Vec<i16> = (0..c * c).map(|i| (i / c == i % c) as i16).collect();
        let o = order_8bit(c, c, 1, 16, Traversal::DepthFirst);
        let mut r0 = weight_stream(&ohwi, &o);
        let wlen = r0.len();
        let recs = vec![
            ScaleRecord {
                bias: 0,
                scale: 1 << 30,
                shift: 30
            };
            c
        ];
        r0.extend(scale_stream(&recs));
        let mut s = Stream::default();
        s.c1(Opcode::NpuSetWeightBase, 0)
            .c1(Opcode::NpuSetWeightLength, wlen as u64)
            .c1(Opcode::NpuSetScaleBase, wlen as u64)
            .c1(Opcode::NpuSetScaleLength, (r0.len() - wlen) as u64)
            .ifm(&ifm)
            .ofm(&ofm, 0)
            .c0(Opcode::NpuSetIfmUpscale, mode)
            .kernel(1, 1, 1, 1, 1, 1, false)
            .pad(0, 0, 0, 0)
            .activation(0, -128, 127)
            .c0(Opcode::NpuSetOfmBlkDepthM1, 15)
            .c0(Opcode::NpuOpConv, 0)
            .c0(Opcode::NpuOpStop, 0);
        let mut n = npu("u65-256", &[(0, r0), (1, region)]);
        n.run(&s.bytes()).expect("run");
        let got = ofm.load(n.state.memory.region(1));
        for y in 0..2 * h {
            for x in 0..2 * w {
                for ch in 0..c {
                    let src = vals[((y / 2) * w + x / 2) * c + ch] - ifm.zp;
                    let want = if mode == 2 && (y % 2 == 1 || x % 2 == 1) {
                        0
                    } else {
                        src
                    } + ofm.zp;
                    assert_eq!(
                        got[(y * 2 * w + x) * c + ch],
                        want.clamp(-128, 127),
                        "mode {mode} ({y},{x},{ch})"
                    );
                }
            }
        }
    }
}

/// OFM tiles (TRM 4.6.4 OFM_WIDTH0/HEIGHT0/HEIGHT1, 4.6.5 OFM_BASE0-3):
/// writing through four tiles puts each quadrant at its own base.
#[test]
fn ofm_tiles() {
    let (h, w, c) = (4, 6, 3);
    let ifm = Fm::new(1, 0, h, w, c, DType::I8);
    let vals: Vec<i64> = (0..(h * w * c) as i64).map(|i| i - 36).collect();
    let mut region = vec![0u8; 1024];
    ifm.store(&mut region, &vals);
    let (w0, h0, h1) = (2usize, 1usize, 3usize);
    let bases = [256u64, 384, 512, 640];
    let mut s = Stream::default();
    s.ifm(&ifm)
        .ofm(&Fm::new(1, 256, h, w, c, DType::I8), 0)
        .c0(Opcode::NpuSetOfmWidth0M1, (w0 - 1) as u16)
        .c0(Opcode::NpuSetOfmHeight0M1, (h0 - 1) as u16)
        .c0(Opcode::NpuSetOfmHeight1M1, (h1 - 1) as u16)
        .c1(Opcode::NpuSetOfmBase1, bases[1])
        .c1(Opcode::NpuSetOfmBase2, bases[2])
        .c1(Opcode::NpuSetOfmBase3, bases[3])
        .kernel(1, 1, 1, 1, 1, 1, false)
        .pad(0, 0, 0, 0)
        .activation(0, -128, 127)
        .c0(Opcode::NpuOpPool, 0)
        .c0(Opcode::NpuOpStop, 0);
    let mut n = npu("u65-256", &[(1, region)]);
    n.run(&s.bytes()).expect("run");
    let mem = n.state.memory.region(1);
    let (sx, sy) = (c, w * c);
    for y in 0..h {
        for x in 0..w {
            let (t, ty, tx) = if x >= w0 {
                if y >= h1 {
                    (3, y - h1, x - w0)
                } else {
                    (1, y, x - w0)
                }
            } else if y >= h0 {
                (2, y - h0, x)
            } else {
                (0, y, x)
            };
            for ch in 0..c {
                let off = bases[t] as usize + ty * sy + tx * sx + ch;
                assert_eq!(
                    mem[off] as i8 as i64,
                    vals[(y * w + x) * c + ch],
                    "({y},{x},{ch}) tile {t}"
                );
            }
        }
    }
}

/// LUT activation (TRM 4.6.4 NPU_SET_ACTIVATION 0x10+n): a table DMA'd into
/// the shared buffer (destination region bit 8), applied through an
/// elementwise ADD of scalar 0, the way Vela's `convert_to_lut` does.
#[test]
fn lut_int8_through_dma() {
    let slot = 3u16;
    let table: Vec<u8> = (0..256).map(|i| (255 - i) as u8).collect();
    let (h, w, c) = (2, 3, 20);
    let ifm = Fm::new(1, 0, h, w, c, DType::I8);
    let mut ifm2 = Fm::new(1, 0, 1, 1, 1, DType::I8);
    ifm2.base = 0;
    let ofm = Fm::new(1, 256, h, w, c, DType::I8);
    let vals: Vec<i64> = (0..(h * w * c) as i64)
        .map(|i| (i * 7) % 256 - 128)
        .collect();
    let mut region = vec![0u8; 512];
    ifm.store(&mut region, &vals);
    let shram_lut = 46 * 1024 + slot as u64 * 256;
    let mut s = Stream::default();
    s.c0(Opcode::NpuSetDma0SrcRegion, 0)
        .c1(Opcode::NpuSetDma0Src, 0)
        .c0(Opcode::NpuSetDma0DstRegion, 1 << 8 | 1)
        .c1(Opcode::NpuSetDma0Dst, shram_lut)
        .c1(Opcode::NpuSetDma0Len, 256)
        .c0(Opcode::NpuOpDmaStart, 0)
        .c0(Opcode::NpuOpDmaWait, 0)
        .ifm(&ifm)
        .c0(Opcode::NpuSetIfmPrecision, ifm.precision_ifm())
        .ifm2(&ifm2)
        .c0(Opcode::NpuSetIfm2Broadcast, 1 << 7)
        .c0(Opcode::NpuSetIfm2Scalar, 0)
        .c1(Opcode::NpuSetOpaScale, 1 << 15)
        .c1(Opcode::NpuSetOpbScale, 1 << 15)
        .c1(Opcode::NpuSetOfmScale, 1 << 30 | (30 + 15) << 32)
        .ofm(&ofm, 1 << 8)
        .activation(0x10 + slot, -128, 127)
        .c0(Opcode::NpuOpElementwise, 1)
        .c0(Opcode::NpuOpStop, 0);
    let mut n = npu("u65-256", &[(0, table.clone()), (1, region)]);
    n.run(&s.bytes()).expect("run");
    assert_eq!(n.state.stats.dma_bytes, 256);
    let got = ofm.load(n.state.memory.region(1));
    for (i, &v) in vals.iter().enumerate() {
        assert_eq!(
            got[i],
            table[(v + 128) as usize] as i8 as i64,
            "element {i} value {v}"
        );
    }
}

/// User DMA 2D and 3D (TRM 4.6.5 NPU_SET_DMA0_*): SKIP0 bytes skipped after
/// each row; a plane starts SKIP1 bytes after LEN*SIZE0 (as Arm's U65
/// command-stream generator programs them).
#[test]
fn dma_2d_3d() {
    let src: Vec<u8> = (0..=255).collect();
    for (mode, size0, size1) in [(1u16, 4u16, 1u16), (2, 3, 2)] {
        let (len, skip0, skip1) = (5u64, 3u64, 7u64);
        let mut s = Stream::default();
        s.c0(Opcode::NpuSetDma0SrcRegion, mode << 9)
            .c1(Opcode::NpuSetDma0Src, 10)
            .c0(Opcode::NpuSetDma0DstRegion, 1)
            .c1(Opcode::NpuSetDma0Dst, 4)
            .c1(Opcode::NpuSetDma0Len, len)
            .c0(Opcode::NpuSetDma0Size0, size0)
            .c0(Opcode::NpuSetDma0Size1, size1)
            .c1(Opcode::NpuSetDma0Skip0, skip0)
            .c1(Opcode::NpuSetDma0Skip1, skip1)
            .c0(Opcode::NpuOpDmaStart, 0)
            .c0(Opcode::NpuOpDmaWait, 0)
            .c0(Opcode::NpuOpStop, 0);
        let mut n = npu("u65-256", &[(0, src.clone()), (1, vec![0; 256])]);
        n.run(&s.bytes()).expect("run");
        // The source side is strided: row r of plane p at 10 + p*(len*size0
        // + skip1) + r*(len + skip0); the destination is packed.
        let mut want = vec![0u8; 256];
        let planes = if mode == 2 { size1 as usize } else { 1 };
        let (len, skip0, skip1) = (len as usize, skip0 as usize, skip1 as usize);
        let mut d = 4usize;
        for p in 0..planes {
            for r in 0..size0 as usize {
                let a = 10 + p * (len * size0 as usize + skip1) + r * (len + skip0);
                want[d..d + len].copy_from_slice(&src[a..a + len]);
                d += len;
            }
        }
        assert_eq!(n.state.memory.region(1), &want[..], "mode {mode}");
    }
}

/// NPU_OP_IRQ and NPU_OP_STOP (TRM 4.6.4): masks ORed into STATUS bits
/// 16-31, IRQ raised, STOP leaves the NPU stopped and nothing after it runs.
#[test]
fn stop_and_irq_status() {
    let mut s = Stream::default();
    s.c0(Opcode::NpuOpIrq, 0x0100)
        .c0(Opcode::NpuOpStop, 0x0003)
        .c0(Opcode::NpuOpIrq, 0x8000);
    let mut n = npu("u65-256", &[]);
    let stats = n.run(&s.bytes()).expect("run").clone();
    assert!(stats.stopped);
    assert_eq!(stats.irqs, 2);
    assert_eq!(stats.commands, 2);
    let st = n.status.register();
    assert_eq!(st >> 16, 0x0103);
    assert_eq!(st & 1, 0, "stopped");
    assert_eq!((st >> 1) & 1, 1, "irq_raised");
    assert!(n.status.ok());
}

/// Forbidden combinations and bad addresses are errors naming the rule and
/// the command's byte offset, never panics.
#[test]
fn errors_name_rule_and_offset() {
    let ifm = Fm::new(1, 0, 4, 4, 8, DType::I8);
    let ofm = Fm::new(1, 128, 2, 2, 8, DType::I8);
    let base = |s: &mut Stream| {
        s.ifm(&ifm)
            .ofm(&ofm, 0)
            .pad(0, 0, 0, 0)
            .activation(0, -128, 127);
    };
    // Stride 4.
    let mut s = Stream::default();
    base(&mut s);
    s.kernel(1, 1, 4, 1, 1, 1, false).c0(Opcode::NpuOpPool, 0);
    let off = s.bytes().len() - 4;
    let e = npu("u65-256", &[(1, vec![0; 256])])
        .run(&s.bytes())
        .unwrap_err();
    assert_eq!(e.offset(), off);
    assert!(e.to_string().contains("1 <= stride <= 3"), "{e}");
    // Upscale with stride 2.
    let mut s = Stream::default();
    base(&mut s);
    s.kernel(2, 2, 2, 2, 1, 1, false)
        .c0(Opcode::NpuSetIfmUpscale, 1)
        .c0(Opcode::NpuOpPool, 0);
    let e = npu("u65-256", &[(1, vec![0; 256])])
        .run(&s.bytes())
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("2x2 upscale must use a stride of 1x1"),
        "{e}"
    );
    // Max pool with different IFM/OFM types.
    let mut s = Stream::default();
    base(&mut s);
    s.ofm(&Fm::new(1, 128, 2, 2, 8, DType::U8), 0)
        .kernel(2, 2, 2, 2, 1, 1, false)
        .c0(Opcode::NpuOpPool, 0);
    let e = npu("u65-256", &[(1, vec![0; 256])])
        .run(&s.bytes())
        .unwrap_err();
    assert!(e.to_string().contains("table 4-122"), "{e}");
    // OFM outside its region: a bus error.
    let mut s = Stream::default();
    base(&mut s);
    s.kernel(2, 2, 2, 2, 1, 1, false).c0(Opcode::NpuOpPool, 0);
    let mut n = npu("u65-256", &[(1, vec![0; 140])]);
    let e = n.run(&s.bytes()).unwrap_err();
    assert!(e.to_string().contains("outside region 1"), "{e}");
    assert!(n.status.bus_status);
    // Parallel mode on a one-core configuration.
    let mut s = Stream::default();
    base(&mut s);
    s.c0(Opcode::NpuSetParallelMode, 1)
        .kernel(1, 1, 1, 1, 1, 1, false)
        .c0(Opcode::NpuOpConv, 0);
    let e = npu("u65-256", &[(1, vec![0; 256])])
        .run(&s.bytes())
        .unwrap_err();
    assert!(e.to_string().contains("512 configuration"), "{e}");
    // Reserved bits: region 8 does not alias region 0.
    let mut s = Stream::default();
    s.c0(Opcode::NpuSetIfmRegion, 8);
    let e = npu("u65-256", &[]).run(&s.bytes()).unwrap_err();
    assert!(e.to_string().contains("reserved bits 0x8"), "{e}");
    // Bad DMA wait.
    let mut s = Stream::default();
    s.c0(Opcode::NpuOpDmaWait, 0x12);
    assert!(npu("u65-256", &[]).run(&s.bytes()).is_err());
}

/// Malformed streams stop the model with STATUS.cmd_parse_error.
#[test]
fn parse_error_sets_status() {
    let mut n = npu("u65-256", &[]);
    let words: Vec<u8> = [0x0001_0001u32, 0x0000_0004]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let e = n.run(&words).unwrap_err();
    assert_eq!(e.offset(), 4);
    assert!(n.status.cmd_parse_error);
    assert_eq!(n.state.stats.irqs, 1, "the IRQ before the bad word ran");
    // A stream without STOP ends with cmd_end_reached.
    let mut n = npu("u65-256", &[]);
    let stats = n.run(&0x0000_0001u32.to_le_bytes()).expect("run").clone();
    assert!(!stats.stopped);
    assert!(n.status.cmd_end_reached);
    // So does one with it, wherever it stands (TRM 4.2.2, 4.6.4): the
    // commands after it are not run.
    for words in [[0x0000_0001u32, 0xffff_0000], [0xffff_0000, 0x0000_0001]] {
        let mut n = npu("u65-256", &[]);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let stats = n.run(&bytes).expect("run").clone();
        assert!(stats.stopped && n.status.cmd_end_reached, "{words:x?}");
        let irqs = if words[0] == 1 { 2 } else { 1 };
        assert_eq!(
            (n.status.register(), stats.irqs),
            (0xffff_0022, irqs),
            "{words:x?}"
        );
    }
}
