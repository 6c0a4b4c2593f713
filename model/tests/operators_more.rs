//! Unary and 32-bit elementwise modes, REDUCE_SUM, rounding modes,
//! accumulator widths, 16-bit LUT, tanh/sigmoid and IFM tiles, each with a
//! hand-derived expectation quoted from TRM 4.6/4.8 or the TFLite formula.

mod common;

use common::*;
use npu_arch::command::{KernelDecomposition, Opcode};
use npu_model::ops::ScaleRecord;
use npu_model::tensor::DType;
use npu_model::weights::order::{Traversal, WeightOrder, U65_UBLOCK_DEPTH};
use rand::Rng;

/// Run one unary/binary elementwise op over `a` (and IFM2 `b`), returning the OFM.
#[allow(clippy::too_many_arguments)]
fn elementwise(
    mode: u16,
    ifm: &Fm,
    ofm: &Fm,
    a: &[i64],
    b: Option<&[i64]>,
    ofm_scale: (u32, u32),
    round: u16,
    activation: u16,
    shram_lut: Option<&[u8]>,
) -> Vec<i64> {
    let mut ifm2 = ifm.clone();
    ifm2.base = 4096;
    let mut region = vec![0u8; 8192];
    ifm.store(&mut region, a);
    if let Some(b) = b {
        ifm2.store(&mut region, b);
    }
    let mut s = Stream::default();
    let mut regions = vec![(1, region)];
    if let Some(lut) = shram_lut {
        regions.push((0, lut.to_vec()));
        s.c0(Opcode::NpuSetDma0SrcRegion, 0)
            .c1(Opcode::NpuSetDma0Src, 0)
            .c0(Opcode::NpuSetDma0DstRegion, 1 << 8 | 1)
            .c1(Opcode::NpuSetDma0Dst, 46 * 1024)
            .c1(Opcode::NpuSetDma0Len, lut.len() as u64)
            .c0(Opcode::NpuOpDmaStart, 0);
    }
    // ADD in 16-bit input-scale mode with both input scales 1.
    s.c1(Opcode::NpuSetOpaScale, 1)
        .c1(Opcode::NpuSetOpbScale, 1)
        .ifm(ifm)
        .ifm2(&ifm2)
        .ofm(ofm, 1 << 8 | round << 14)
        .c1(
            Opcode::NpuSetOfmScale,
            (ofm_scale.1 as u64) << 32 | ofm_scale.0 as u64,
        )
        .activation(
            activation,
            ofm.dtype.min().max(-32768),
            ofm.dtype.max().min(32767),
        )
        .c0(Opcode::NpuOpElementwise, mode)
        .c0(Opcode::NpuOpStop, 0);
    let mut n = npu("u65-256", &regions);
    n.run(&s.bytes()).expect("run");
    ofm.load(n.state.memory.region(1))
}

#[test]
fn abs_and_leaky_relu() {
    let t = DType::I8;
    let mut ifm = Fm::new(1, 0, 1, 16, 16, t);
    ifm.zp = 5;
    let mut ofm = Fm::new(1, 2048, 1, 16, 16, t);
    ofm.zp = -3;
    let a: Vec<i64> = (0..256).map(|i| i - 128).collect();
    // ABS with OFM scale 1.0 (2^30 at shift 30): |x - zp| + out_zp.
    let got = elementwise(6, &ifm, &ofm, &a, None, (1 << 30, 30), 0, 0, None);
    for (i, &x) in a.iter().enumerate() {
        assert_eq!(got[i], ((x - 5).abs() - 3).clamp(-128, 127), "abs {x}");
    }
    // LRELU, alpha 0.25 (2^30 at shift 32): negative inputs scaled (TFL
    // rounding: SaturatingRoundingDoublingHighMul then RoundingDivideByPOT 1).
    let got = elementwise(5, &ifm, &ofm, &a, None, (1 << 30, 32), 0, 0, None);
    for (i, &x) in a.iter().enumerate() {
        let v = x - 5;
        let want = if v < 0 {
            tfl_rdbpot(tfl_srdhm(v as i32, 1 << 30), 1) as i64
        } else {
            v
        };
        assert_eq!(got[i], (want - 3).clamp(-128, 127), "lrelu {x}");
    }
}

#[test]
fn int32_clz_shl_shr_mul() {
    let mut rng = rng("int32_clz_shl_shr_mul");
    let ifm = Fm::new(1, 0, 1, 4, 16, DType::I32);
    let ofm = Fm::new(1, 2048, 1, 4, 16, DType::I32);
    let a: Vec<i64> = (0..64)
        .map(|_| rng.gen_range(i32::MIN..=i32::MAX) as i64 >> rng.gen_range(0..31))
        .collect();
    let b: Vec<i64> = (0..64).map(|_| rng.gen_range(0..31)).collect();
    let got = elementwise(7, &ifm, &ofm, &a, None, (1, 0), 0, 0, None);
    for i in 0..64 {
        assert_eq!(got[i], clz_ref(a[i]), "clz {}", a[i]);
    }
    let got = elementwise(9, &ifm, &ofm, &a, Some(&b), (1, 0), 0, 0, None);
    for i in 0..64 {
        let want = (a[i] << b[i]).clamp(i32::MIN as i64, i32::MAX as i64);
        assert_eq!(got[i], want, "shl {} {}", a[i], b[i]);
    }
    // SHR with natural rounding (OFM_PRECISION[15:14] = 2): round half up.
    let got = elementwise(8, &ifm, &ofm, &a, Some(&b), (1, 0), 2, 0, None);
    for i in 0..64 {
        let want = if b[i] == 0 {
            a[i]
        } else {
            (a[i] + (1 << (b[i] - 1))) >> b[i]
        };
        assert_eq!(got[i], want, "shr {} {}", a[i], b[i]);
    }
    // MUL into int32: "for 32-bit operations scale is not applied but shift
    // is" (TRM 4.6.5 NPU_SET_OFM_SCALE), TFL rounding = RoundingDivideByPOT.
    let i8fm = Fm::new(1, 0, 1, 4, 16, DType::I8);
    let a8: Vec<i64> = (0..64).map(|_| rng.gen_range(-128..128)).collect();
    let b8: Vec<i64> = (0..64).map(|_| rng.gen_range(-128..128)).collect();
    let got = elementwise(0, &i8fm, &ofm, &a8, Some(&b8), (12345, 3), 0, 0, None);
    for i in 0..64 {
        let want = tfl_rdbpot((a8[i] * b8[i]) as i32, 3) as i64;
        assert_eq!(got[i], want, "mul {} {}", a8[i], b8[i]);
    }
}

/// CLZ of the int32 two's-complement pattern, counted bit by bit from bit 31.
fn clz_ref(a: i64) -> i64 {
    (0..32).take_while(|i| (a >> (31 - i)) & 1 == 0).count() as i64
}

/// `a / 2^b` rounded as OFM_PRECISION[15:14] says (TRM 4.6.4): 0 double
/// rounding (TFLite's RoundingDivideByPOT: to nearest, ties away from zero),
/// 1 toward zero, 2 to nearest with ties toward +infinity; from the
/// definitions, with exact i128 floor division.
fn shr_ref(a: i64, b: i64, round: u16) -> i64 {
    let b = b.clamp(0, 100) as u32;
    let (a, den) = (a as i128, 1i128 << b);
    let away = |m: i128| (2 * m + den).div_euclid(2 * den);
    (match round {
        0 => a.signum() * away(a.abs()),
        1 => a.signum() * a.abs().div_euclid(den),
        _ => (2 * a + den).div_euclid(2 * den),
    }) as i64
}

/// Corners of CLZ, SHL and SHR that Vela's streams never reach. The TRM (table
/// 4-124, 4.6.4, 4.6.5) gives their types and SHR's rounding and output
/// scale, not the shift amounts' range: the model shifts by IFM2 clamped to
/// at least 0 (a negative amount shifts by 0) and, SHL, saturates to int32.
#[test]
fn clz_shl_shr_corners() {
    let ifm = Fm::new(1, 0, 1, 16, 16, DType::I32);
    let ofm = Fm::new(1, 2048, 1, 16, 16, DType::I32);
    let values = [
        0i64,
        1,
        -1,
        5,
        -5,
        6,
        -6,
        7,
        -7,
        0x3fff_ffff,
        0x4000_0000,
        -0x4000_0000,
        0x6000_0000,
        -0x6000_0000,
        i32::MAX as i64,
        i32::MIN as i64,
    ];
    let amounts = [
        i32::MIN as i64,
        -33,
        -1,
        0,
        1,
        2,
        3,
        30,
        31,
        32,
        33,
        40,
        63,
        64,
        1000,
        i32::MAX as i64,
    ];
    let (a, b): (Vec<i64>, Vec<i64>) = values
        .iter()
        .flat_map(|&a| amounts.iter().map(move |&b| (a, b)))
        .unzip();
    // CLZ of 0 is 32, of a negative value 0.
    let got = elementwise(7, &ifm, &ofm, &a, None, (1, 0), 0, 0, None);
    for i in 0..a.len() {
        assert_eq!(got[i], clz_ref(a[i]), "clz {}", a[i]);
    }
    // SHL: a * 2^b saturated to int32.
    let got = elementwise(9, &ifm, &ofm, &a, Some(&b), (1, 0), 0, 0, None);
    for i in 0..a.len() {
        let exact = a[i] as i128 * (1i128 << b[i].clamp(0, 64));
        let want = exact.clamp(i32::MIN as i128, i32::MAX as i128) as i64;
        assert_eq!(got[i], want, "shl {} by {}", a[i], b[i]);
    }
    // SHR in the three rounding modes, int32 OFM with OFM_SCALE shift 0.
    for round in 0..3 {
        let got = elementwise(8, &ifm, &ofm, &a, Some(&b), (1, 0), round, 0, None);
        for i in 0..a.len() {
            let want = shr_ref(a[i], b[i], round);
            assert_eq!(got[i], want, "shr {} by {}, round {round}", a[i], b[i]);
        }
    }
    // SHR then the OFM scale (TRM 4.6.5: for a 32-bit OFM only its shift,
    // here 2, rounded again) ...
    let got = elementwise(8, &ifm, &ofm, &a, Some(&b), (12345, 2), 2, 0, None);
    for i in 0..a.len() {
        let want = shr_ref(shr_ref(a[i], b[i], 2), 2, 2);
        assert_eq!(got[i], want, "shr {} by {}, then 2", a[i], b[i]);
    }
    // ... and for an int8 OFM all of it (0.5 = 2^30 at shift 31, TFL
    // rounding), plus the zero point, saturated.
    let mut ofm8 = Fm::new(1, 2048, 1, 16, 16, DType::I8);
    ofm8.zp = -3;
    let got = elementwise(8, &ifm, &ofm8, &a, Some(&b), (1 << 30, 31), 0, 0, None);
    for i in 0..a.len() {
        let shifted = shr_ref(a[i], b[i], 0);
        let want = tfl_mbqm(shifted as i32, 1 << 30, 0) as i64 - 3;
        assert_eq!(
            got[i],
            want.clamp(-128, 127),
            "shr {} by {} to int8",
            a[i],
            b[i]
        );
    }
}

/// 16-bit LUT: 512 words of base (bits 0-15) and slope (16-31), index =
/// (x + 32768) >> 7, result = base + ((slope * (x & 127) + 64) >> 7).
#[test]
fn lut_int16_interpolates() {
    let mut rng = rng("lut_int16_interpolates");
    let values: Vec<i64> = (0..=512)
        .map(|i| (i * 100 - 25600).clamp(-32768, 32767))
        .collect();
    let lut: Vec<u8> = (0..512)
        .flat_map(|i| {
            let base = values[i] as i16 as u16 as u32;
            let slope = (values[i + 1] - values[i]) as i16 as u16 as u32;
            (base | slope << 16).to_le_bytes()
        })
        .collect();
    let fm = Fm::new(1, 0, 1, 8, 16, DType::I16);
    let ofm = Fm::new(1, 2048, 1, 8, 16, DType::I16);
    let a: Vec<i64> = (0..128).map(|_| rng.gen_range(-32768..32768)).collect();
    // Identity scaling: 2^30 at shift 30.
    let got = elementwise(
        1,
        &fm,
        &ofm,
        &a,
        Some(&[0; 128]),
        (1 << 30, 30),
        0,
        0x10,
        Some(&lut),
    );
    for i in 0..128 {
        let u = (a[i] + 32768) as usize;
        let (idx, frac) = (u >> 7, (u & 127) as i64);
        let want = values[idx] + (((values[idx + 1] - values[idx]) * frac + 64) >> 7);
        assert_eq!(got[i], want, "x {}", a[i]);
    }
}

/// A LUT with an int32 OFM and the int8 clip range (ACTIVATION 0x3010, how
/// Vela's int8 softmax reads its exp table): 256 little-endian 32-bit words,
/// indexed by the value after the clip range and ACTIVATION_MIN/MAX, which
/// bound the index, not the 32-bit result.
#[test]
fn lut_int32_ofm_reads_words() {
    let ifm = Fm::new(1, 0, 1, 16, 16, DType::I8);
    let ifm2 = Fm::new(1, 1024, 1, 16, 16, DType::I8);
    let ofm = Fm::new(1, 2048, 1, 16, 16, DType::I32);
    let a: Vec<i64> = (0..256).map(|i| i - 128).collect();
    let words: Vec<i64> = (0..256i64).map(|i| i * 7_654_321 - (1 << 30)).collect();
    let lut: Vec<u8> = words
        .iter()
        .flat_map(|&w| (w as i32).to_le_bytes())
        .collect();
    let mut region = vec![0u8; 4096];
    ifm.store(&mut region, &a);
    let mut s = Stream::default();
    s.c0(Opcode::NpuSetDma0SrcRegion, 0)
        .c1(Opcode::NpuSetDma0Src, 0)
        .c0(Opcode::NpuSetDma0DstRegion, 1 << 8 | 3)
        .c1(Opcode::NpuSetDma0Dst, 46 * 1024)
        .c1(Opcode::NpuSetDma0Len, 1024)
        .c0(Opcode::NpuOpDmaStart, 0)
        .c1(Opcode::NpuSetOpaScale, 1)
        .c1(Opcode::NpuSetOpbScale, 1)
        .ifm(&ifm)
        .ifm2(&ifm2)
        .ofm(&ofm, 0)
        .c1(Opcode::NpuSetOfmScale, 0)
        .activation(0x3010, -100, 50)
        .c0(Opcode::NpuOpElementwise, 1)
        .c0(Opcode::NpuOpStop, 0);
    let mut n = npu("u65-256", &[(0, lut), (1, region)]);
    n.run(&s.bytes()).expect("run");
    let got = ofm.load(n.state.memory.region(1));
    for (i, &x) in a.iter().enumerate() {
        assert_eq!(got[i], words[(x.clamp(-100, 50) + 128) as usize], "x {x}");
    }
}

/// tanh and sigmoid on 16-bit OFMs: input in units of 1/0x3000 (Vela's
/// output scale for them), output with 15 fractional bits, within 1.5 LSB of
/// the real function (TFLite's table interpolation; the fixture jobs check
/// it bit for bit against the TFLite interpreter).
#[test]
fn tanh_sigmoid_int16() {
    let fm = Fm::new(1, 0, 1, 8, 16, DType::I16);
    let ofm = Fm::new(1, 2048, 1, 8, 16, DType::I16);
    let a: Vec<i64> = (0..128).map(|i| (i - 64) * 500).collect();
    for (act, f) in [
        (3u16, f64::tanh as fn(f64) -> f64),
        (4, |x: f64| 1.0 / (1.0 + (-x).exp())),
    ] {
        let got = elementwise(
            1,
            &fm,
            &ofm,
            &a,
            Some(&[0; 128]),
            (1 << 30, 30),
            0,
            act,
            None,
        );
        for i in 0..128 {
            let want = (f(a[i] as f64 / 12288.0) * 32768.0).clamp(-32768.0, 32767.0);
            assert!(
                (got[i] as f64 - want).abs() < 1.5,
                "act {act} x {}: {} vs {want}",
                a[i],
                got[i]
            );
        }
    }
}

/// tanh and sigmoid on 8-bit OFMs: the result in TensorFlow Lite's fixed
/// output quantization for them (tanh 1/128, sigmoid 1/256) plus the OFM
/// zero point. Expected from the real functions: exactly the nearest value,
/// except where that is within the table's error (1.2 / 65536) of a tie.
#[test]
fn tanh_sigmoid_8bit() {
    let a: Vec<i64> = (0..128).map(|i| (i - 64) * 500).collect();
    for (t, zp_tanh, zp_sigmoid) in [(DType::I8, 0, -128), (DType::U8, 128, 0)] {
        let fm = Fm::new(1, 0, 1, 8, 16, DType::I32);
        for (act, zp, one, f) in [
            (3u16, zp_tanh, 128.0, f64::tanh as fn(f64) -> f64),
            (4, zp_sigmoid, 256.0, |x: f64| 1.0 / (1.0 + (-x).exp())),
        ] {
            let mut ofm = Fm::new(1, 2048, 1, 8, 16, t);
            ofm.zp = zp;
            // An int32 ADD of 0 with OFM scale 1 passes x to the activation.
            let got = elementwise(
                1,
                &fm,
                &ofm,
                &a,
                Some(&[0; 128]),
                (1 << 30, 30),
                0,
                act,
                None,
            );
            for i in 0..128 {
                let exact = f(a[i] as f64 / 12288.0) * one;
                let near_tie = (exact - exact.floor() - 0.5).abs() < 2.5 * one / 65536.0;
                let want = (exact.round() as i64 + zp).clamp(t.min(), t.max());
                let ok = if near_tie {
                    (got[i] - want).abs() <= 1
                } else {
                    got[i] == want
                };
                assert!(ok, "{t} act {act} x {}: {} vs {want}", a[i], got[i]);
            }
        }
    }
}

/// tanh and sigmoid need an int8, uint8 or int16 activation type (TRM 4.8.2).
#[test]
fn tanh_with_uint16_activation_is_forbidden() {
    let fm = Fm::new(1, 0, 1, 8, 16, DType::I16);
    let mut s = Stream::default();
    s.c1(Opcode::NpuSetOpaScale, 1)
        .c1(Opcode::NpuSetOpbScale, 1)
        .ifm(&fm)
        .ifm2(&Fm::new(1, 1024, 1, 8, 16, DType::I16))
        .ofm(&Fm::new(1, 2048, 1, 8, 16, DType::U16), 1 << 8)
        .c1(Opcode::NpuSetOfmScale, 30 << 32 | 1 << 30)
        .activation(3, 0, 0xffff)
        .c0(Opcode::NpuOpElementwise, 1)
        .c0(Opcode::NpuOpStop, 0);
    let mut n = npu("u65-256", &[(1, vec![0u8; 4096])]);
    let err = n.run(&s.bytes()).expect_err("uint16 tanh must be refused");
    assert!(
        err.to_string().contains("TRM 4.8.2 (tanh and sigmoid"),
        "{err}"
    );
}

/// REDUCE_SUM (NPU_OP_POOL mode 2, TRM 4.8.2 table 4-125): sum over the
/// channels into one int32 channel, global scale with shift only.
#[test]
fn reduce_sum() {
    let mut rng = rng("reduce_sum");
    let (h, w, c) = (3, 4, 37);
    let mut ifm = Fm::new(1, 0, h, w, c, DType::I8);
    ifm.zp = -7;
    let ofm = Fm::new(1, 1024, h, w, 1, DType::I32);
    let vals = random_vals(&mut rng, h * w * c, DType::I8);
    let mut region = vec![0u8; 2048];
    ifm.store(&mut region, &vals);
    let mut s = Stream::default();
    s.ifm(&ifm)
        .ofm(&ofm, 1 << 8)
        .c1(Opcode::NpuSetOfmScale, 1 << 32)
        .kernel(1, 1, 1, 1, 1, 1, false)
        .pad(0, 0, 0, 0)
        .activation(0, 0, 0)
        .c0(Opcode::NpuOpPool, 2)
        .c0(Opcode::NpuOpStop, 0);
    let mut n = npu("u65-256", &[(1, region)]);
    n.run(&s.bytes()).expect("run");
    let got = ofm.load(n.state.memory.region(1));
    for p in 0..h * w {
        let sum: i64 = vals[p * c..(p + 1) * c].iter().map(|v| v + 7).sum();
        assert_eq!(got[p], tfl_rdbpot(sum as i32, 1) as i64, "position {p}");
    }
}

/// A 1x1 convolution with one weight of 1 and a scale of 0.5, so every
/// output is a half-way case, under the three OFM rounding modes.
#[test]
fn rounding_modes_and_accumulator_width() {
    let vals: Vec<i64> = (-40..40).map(|i| i * 2 + 1).collect();
    let run =
        |round: u16, acc: u16, ifm_t: DType, vals: &[i64], weight: i16, scale: ScaleRecord| {
            let c = 1;
            let ifm = Fm::new(1, 0, 1, vals.len(), c, ifm_t);
            let ofm = Fm::new(1, 1024, 1, vals.len(), c, DType::I16);
            let mut region = vec![0u8; 2048];
            ifm.store(&mut region, vals);
            let o = WeightOrder {
                ofm_depth: 1,
                ifm_depth: 1,
                kernel_height: 1,
                kernel_width: 1,
                ofm_block_depth: 16,
                traversal: Traversal::DepthFirst,
                ifm_bits: ifm_t.bits,
                dilation_x2: false,
                dilation_y2: false,
                decomposition: KernelDecomposition::D8x8,
                ofm_ublock_depth: U65_UBLOCK_DEPTH,
                ifm_ublock_depth: U65_UBLOCK_DEPTH,
            };
            let mut r0 = weight_stream(&[weight], &o);
            let wl = r0.len();
            r0.extend(scale_stream(&[scale]));
            let mut s = Stream::default();
            s.c1(Opcode::NpuSetWeightBase, 0)
                .c1(Opcode::NpuSetWeightLength, wl as u64)
                .c1(Opcode::NpuSetScaleBase, wl as u64)
                .c1(Opcode::NpuSetScaleLength, 16)
                .ifm(&ifm)
                .ofm(&ofm, round << 14)
                .kernel(1, 1, 1, 1, 1, 1, false)
                .pad(0, 0, 0, 0)
                .activation(0, -32768, 32767)
                .c0(Opcode::NpuSetAccFormat, acc)
                .c0(Opcode::NpuSetOfmBlkDepthM1, 15)
                .c0(Opcode::NpuOpConv, 0)
                .c0(Opcode::NpuOpStop, 0);
            let mut n = npu("u65-256", &[(0, r0), (1, region)]);
            n.run(&s.bytes()).expect("run");
            ofm.load(n.state.memory.region(1))
        };
    let half = ScaleRecord {
        bias: 0,
        scale: 1 << 30,
        shift: 31,
    };
    let tfl = run(0, 0, DType::I8, &vals, 1, half);
    let trunc = run(1, 0, DType::I8, &vals, 1, half);
    let natural = run(2, 0, DType::I8, &vals, 1, half);
    for (i, &v) in vals.iter().enumerate() {
        // v / 2 with v odd.
        assert_eq!(
            tfl[i],
            tfl_rdbpot(tfl_srdhm(v as i32, 1 << 30), 0) as i64,
            "TFL {v}"
        );
        assert_eq!(trunc[i], v / 2, "truncate {v}");
        assert_eq!(natural[i], (v + 1).div_euclid(2), "natural {v}");
    }
    // 40-bit accumulator: 16-bit IFM 30000 * weight 200 + bias 2^33 exceeds
    // 32 bits; with ACC_FORMAT 1 the sum is exact, with 0 it wraps.
    let big = ScaleRecord {
        bias: 1 << 33,
        scale: 1 << 30,
        shift: 30 + 20,
    };
    let v = [30000i64];
    let exact = run(0, 1, DType::I16, &v, 200, big);
    assert_eq!(
        exact[0],
        ((30000 * 200 + (1i64 << 33)) as f64 / (1 << 20) as f64).round() as i64
    );
    let wrapped = run(0, 0, DType::I16, &v, 200, big);
    let w32 = (30000i64 * 200 + (1i64 << 33)) as i32 as i64;
    assert_eq!(wrapped[0], (w32 as f64 / (1 << 20) as f64).round() as i64);
}

/// NPU_SET_ACC_FORMAT per TRM 4.8.2: pooling and REDUCE_SUM accumulate in
/// int32 or int40 (table 4-122: int40 only for average pool without
/// padding; table 4-125), convolutions also in s5.10, which the TRM names but
/// does not define, so this NPU refuses it rather than guess (a parse error,
/// with STATUS and QREAD, as the RTL). Elementwise operations use no
/// accumulators and ignore the format.
#[test]
fn accumulator_formats_of_trm_4_8_2() {
    let ifm = Fm::new(1, 0, 4, 4, 8, DType::I8);
    let run = |acc: u16, op: Opcode, mode: u16, pad: u16, ofm: &Fm| {
        let mut s = Stream::default();
        s.ifm(&ifm)
            .ofm(ofm, 1 << 8)
            .c1(Opcode::NpuSetOfmScale, 1 << 30 | 30 << 32)
            .kernel(2, 2, 2, 2, 1, 1, false)
            .pad(0, 0, pad, pad)
            .activation(0, ofm.dtype.min(), ofm.dtype.max())
            .c0(Opcode::NpuSetAccFormat, acc)
            .c0(op, mode)
            .c0(Opcode::NpuOpStop, 0);
        npu("u65-256", &[(1, vec![0; 512])])
            .run(&s.bytes())
            .map(|_| ())
    };
    let i8_out = Fm::new(1, 256, 2, 2, 8, DType::I8);
    let sum_out = Fm::new(1, 256, 2, 2, 1, DType::I32);
    let (pool, conv) = (Opcode::NpuOpPool, Opcode::NpuOpConv);
    for (acc, op, mode, pad, ofm, want) in [
        (2, pool, 1, 0, &i8_out, Some("tables 4-122 and 4-125")),
        (2, pool, 0, 0, &i8_out, Some("tables 4-122 and 4-125")),
        (2, pool, 2, 0, &sum_out, Some("tables 4-122 and 4-125")),
        (
            2,
            conv,
            0,
            0,
            &i8_out,
            Some("not implemented by this NPU: NPU_SET_ACC_FORMAT 2 (s5.10"),
        ),
        (
            1,
            pool,
            0,
            0,
            &i8_out,
            Some("int40 accumulators only for average pool without padding"),
        ),
        (
            1,
            pool,
            1,
            1,
            &i8_out,
            Some("int40 accumulators only for average pool without padding"),
        ),
        (1, pool, 1, 0, &i8_out, None),
        (1, pool, 2, 0, &sum_out, None),
        (0, pool, 0, 0, &i8_out, None),
    ] {
        let what = format!("ACC_FORMAT {acc}, {op:?} {mode}, padding {pad}");
        match (run(acc, op, mode, pad, ofm), want) {
            (Ok(()), None) => {}
            (Err(e), Some(w)) => assert!(e.to_string().contains(w), "{what}: {e}"),
            (r, w) => panic!("{what}: {r:?}, expected {w:?}"),
        }
    }
}

/// IFM tiles: a 1x1 max pool reading through four IFM tiles (TRM 4.6.4
/// IFM_WIDTH0/HEIGHT0/HEIGHT1, 4.6.5 IFM_BASE0-3) copies each quadrant.
#[test]
fn ifm_tiles() {
    let (h, w, c) = (5, 4, 2);
    let (w0, h0, h1) = (3usize, 2usize, 4usize);
    let bases = [0usize, 200, 400, 600];
    let mut region = vec![0u8; 2048];
    let mut want = Vec::new();
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
                let v = (y * 16 + x * 4 + ch) as u8;
                region[bases[t] + ty * w * c + tx * c + ch] = v;
                want.push(v as i64);
            }
        }
    }
    let ifm = Fm::new(1, 0, h, w, c, DType::U8);
    let ofm = Fm::new(1, 1024, h, w, c, DType::U8);
    let mut s = Stream::default();
    s.ifm(&ifm)
        .c0(Opcode::NpuSetIfmWidth0M1, (w0 - 1) as u16)
        .c0(Opcode::NpuSetIfmHeight0M1, (h0 - 1) as u16)
        .c0(Opcode::NpuSetIfmHeight1M1, (h1 - 1) as u16)
        .c1(Opcode::NpuSetIfmBase1, bases[1] as u64)
        .c1(Opcode::NpuSetIfmBase2, bases[2] as u64)
        .c1(Opcode::NpuSetIfmBase3, bases[3] as u64)
        .ofm(&ofm, 0)
        .kernel(1, 1, 1, 1, 1, 1, false)
        .pad(0, 0, 0, 0)
        .activation(0, 0, 255)
        .c0(Opcode::NpuOpPool, 0)
        .c0(Opcode::NpuOpStop, 0);
    let mut n = npu("u65-256", &[(1, region)]);
    n.run(&s.bytes()).expect("run");
    assert_eq!(ofm.load(n.state.memory.region(1)), want);
}

/// Average pool without padding and per-channel scale (OFM_PRECISION bit 8
/// clear, TRM 4.8.2 table 4-122): bias and scale from the scale stream.
#[test]
fn average_pool_per_channel_scale() {
    let (h, w, c) = (2, 2, 3);
    let ifm = Fm::new(1, 0, h, w, c, DType::I8);
    let ofm = Fm::new(1, 512, 1, 1, c, DType::I8);
    let vals: Vec<i64> = vec![1, 10, -5, 2, 20, -6, 3, 30, -7, 4, 40, -8];
    let mut region = vec![0u8; 1024];
    ifm.store(&mut region, &vals);
    let recs: Vec<ScaleRecord> = (0..c)
        .map(|ch| ScaleRecord {
            bias: ch as i64 * 4,
            scale: 1 << 30,
            shift: 32,
        })
        .collect();
    let mut s = Stream::default();
    s.c1(Opcode::NpuSetScaleBase, 0)
        .c1(Opcode::NpuSetScaleLength, 32)
        .ifm(&ifm)
        .ofm(&ofm, 0)
        .kernel(2, 2, 1, 1, 1, 1, false)
        .pad(0, 0, 0, 0)
        .activation(0, -128, 127)
        .c0(Opcode::NpuOpPool, 1)
        .c0(Opcode::NpuOpStop, 0);
    let mut n = npu("u65-256", &[(0, scale_stream(&recs)), (1, region)]);
    n.run(&s.bytes()).expect("run");
    let got = ofm.load(n.state.memory.region(1));
    for ch in 0..c {
        let sum: i64 = (0..4).map(|p| vals[p * c + ch]).sum::<i64>() + ch as i64 * 4;
        // 2^30 at shift 32 = 1/4: SRDHM halves, RoundingDivideByPOT(32 - 31).
        assert_eq!(
            got[ch],
            tfl_rdbpot(tfl_srdhm(sum as i32, 1 << 30), 1) as i64,
            "channel {ch}"
        );
    }
}
