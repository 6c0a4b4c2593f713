//! Shared helpers for the model's integration tests: a command-stream
//! builder, feature-map layout, and TensorFlow Lite's quantized arithmetic
//! written out independently of the model (from the gemmlowp / TFLite
//! reference-kernel formulas).
#![allow(dead_code)]

use npu_arch::command::{CmdKind, KernelDecomposition, Opcode};
use npu_arch::config::NpuConfig;
use npu_model::cmdstream::{self, Command};
use npu_model::npu::Npu;
use npu_model::ops::ScaleRecord;
use npu_model::tensor::DType;
use npu_model::weights::{self, order};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A seeded RNG; the seed is printed so a failure can be re-run with
/// `NPU_TEST_SEED=<seed>`.
pub fn rng(test: &str) -> StdRng {
    let seed = std::env::var("NPU_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    println!("{test}: seed {seed} (re-run with NPU_TEST_SEED={seed})");
    StdRng::seed_from_u64(seed)
}

/// A feature map's placement and type.
#[derive(Clone, Debug)]
pub struct Fm {
    pub region: u16,
    pub base: u32,
    pub h: usize,
    pub w: usize,
    pub c: usize,
    pub dtype: DType,
    pub nhcwb16: bool,
    pub zp: i64,
}

impl Fm {
    pub fn new(region: u16, base: u32, h: usize, w: usize, c: usize, dtype: DType) -> Fm {
        Fm {
            region,
            base,
            h,
            w,
            c,
            dtype,
            nhcwb16: false,
            zp: 0,
        }
    }
    /// (stride_x, stride_y, stride_c) as Vela's `get_strides` lays them out.
    pub fn strides(&self) -> (u32, u32, u32) {
        let e = self.dtype.bytes() as u32;
        let (w, c) = (self.w as u32, self.c as u32);
        if self.nhcwb16 {
            (16 * e, e * w * c.div_ceil(16) * 16, 16 * e * w)
        } else {
            (c * e, w * c * e, e)
        }
    }
    pub fn bytes(&self) -> usize {
        let (_, sy, _) = self.strides();
        sy as usize * self.h
    }
    pub fn offset(&self, y: usize, x: usize, c: usize) -> usize {
        let (sx, sy, sc) = self.strides();
        let e = self.dtype.bytes();
        let base = self.base as usize + y * sy as usize;
        if self.nhcwb16 {
            base + (c / 16) * sc as usize + (x * 16 + c % 16) * e
        } else {
            base + x * sx as usize + c * e
        }
    }
    /// Write `vals` (h*w*c, NHWC order) into `mem`.
    pub fn store(&self, mem: &mut [u8], vals: &[i64]) {
        let e = self.dtype.bytes();
        let mut i = 0;
        for y in 0..self.h {
            for x in 0..self.w {
                for c in 0..self.c {
                    let o = self.offset(y, x, c);
                    self.dtype.store(vals[i], &mut mem[o..o + e]);
                    i += 1;
                }
            }
        }
    }
    /// Read h*w*c values (NHWC order) from `mem`.
    pub fn load(&self, mem: &[u8]) -> Vec<i64> {
        let mut out = Vec::with_capacity(self.h * self.w * self.c);
        for y in 0..self.h {
            for x in 0..self.w {
                for c in 0..self.c {
                    out.push(self.dtype.load(&mem[self.offset(y, x, c)..]));
                }
            }
        }
        out
    }
    pub fn precision_ifm(&self) -> u16 {
        let p = match self.dtype.bits {
            8 => 0,
            16 => 1,
            _ => 2,
        };
        self.dtype.signed as u16 | (p << 2) | ((self.nhcwb16 as u16) << 6)
    }
    pub fn precision_ofm(&self) -> u16 {
        let p = match self.dtype.bits {
            8 => 0,
            16 => 1,
            _ => 2,
        };
        self.dtype.signed as u16 | (p << 1) | ((self.nhcwb16 as u16) << 6)
    }
}

/// Builds a command stream.
#[derive(Default)]
pub struct Stream {
    pub cmds: Vec<Command>,
}

impl Stream {
    pub fn c0(&mut self, op: Opcode, param: u16) -> &mut Self {
        assert_eq!(op.kind(), CmdKind::Cmd0);
        self.cmds.push(Command::cmd0(op, param));
        self
    }
    pub fn c1(&mut self, op: Opcode, value: u64) -> &mut Self {
        assert_eq!(op.kind(), CmdKind::Cmd1);
        self.cmds.push(Command::from_value(op, value));
        self
    }
    fn fm(&mut self, fm: &Fm, ops: [Opcode; 10], precision: u16) -> &mut Self {
        let (sx, sy, sc) = fm.strides();
        self.c0(ops[0], fm.region);
        for (i, &op) in ops[1..5].iter().enumerate() {
            self.c1(op, if i == 0 { fm.base as u64 } else { 0 });
        }
        self.c1(ops[5], sx as u64)
            .c1(ops[6], sy as u64)
            .c1(ops[7], sc as u64)
            .c0(ops[8], precision)
            .c0(ops[9], fm.zp as u16)
    }
    fn tiles(&mut self, ops: [Opcode; 3], fm: &Fm) -> &mut Self {
        self.c0(ops[0], (fm.w - 1) as u16)
            .c0(ops[1], (fm.h - 1) as u16)
            .c0(ops[2], (fm.h - 1) as u16)
    }
    pub fn ifm(&mut self, fm: &Fm) -> &mut Self {
        use Opcode::*;
        self.fm(
            fm,
            [
                NpuSetIfmRegion,
                NpuSetIfmBase0,
                NpuSetIfmBase1,
                NpuSetIfmBase2,
                NpuSetIfmBase3,
                NpuSetIfmStrideX,
                NpuSetIfmStrideY,
                NpuSetIfmStrideC,
                NpuSetIfmPrecision,
                NpuSetIfmZeroPoint,
            ],
            fm.precision_ifm(),
        )
        .tiles(
            [NpuSetIfmWidth0M1, NpuSetIfmHeight0M1, NpuSetIfmHeight1M1],
            fm,
        )
        .c0(NpuSetIfmDepthM1, (fm.c - 1) as u16)
    }
    pub fn ifm2(&mut self, fm: &Fm) -> &mut Self {
        use Opcode::*;
        self.fm(
            fm,
            [
                NpuSetIfm2Region,
                NpuSetIfm2Base0,
                NpuSetIfm2Base1,
                NpuSetIfm2Base2,
                NpuSetIfm2Base3,
                NpuSetIfm2StrideX,
                NpuSetIfm2StrideY,
                NpuSetIfm2StrideC,
                NpuSetIfm2Precision,
                NpuSetIfm2ZeroPoint,
            ],
            fm.precision_ifm() & 0xff,
        )
        .tiles(
            [NpuSetIfm2Width0M1, NpuSetIfm2Height0M1, NpuSetIfm2Height1M1],
            fm,
        )
    }
    /// OFM with extra OFM_PRECISION bits (scale mode bit 8, rounding 14-15).
    pub fn ofm(&mut self, fm: &Fm, extra_precision: u16) -> &mut Self {
        use Opcode::*;
        self.fm(
            fm,
            [
                NpuSetOfmRegion,
                NpuSetOfmBase0,
                NpuSetOfmBase1,
                NpuSetOfmBase2,
                NpuSetOfmBase3,
                NpuSetOfmStrideX,
                NpuSetOfmStrideY,
                NpuSetOfmStrideC,
                NpuSetOfmPrecision,
                NpuSetOfmZeroPoint,
            ],
            fm.precision_ofm() | extra_precision,
        )
        .tiles(
            [NpuSetOfmWidth0M1, NpuSetOfmHeight0M1, NpuSetOfmHeight1M1],
            fm,
        )
        .c0(NpuSetOfmWidthM1, (fm.w - 1) as u16)
        .c0(NpuSetOfmHeightM1, (fm.h - 1) as u16)
        .c0(NpuSetOfmDepthM1, (fm.c - 1) as u16)
    }
    /// Kernel size (before dilation), strides, dilation, weight order bit;
    /// 8x8 kernel decomposition.
    #[allow(clippy::too_many_arguments)]
    pub fn kernel(
        &mut self,
        kw: usize,
        kh: usize,
        sx: usize,
        sy: usize,
        dx: usize,
        dy: usize,
        part_kernel_first: bool,
    ) -> &mut Self {
        self.kernel_split(
            kw,
            kh,
            sx,
            sy,
            dx,
            dy,
            part_kernel_first,
            KernelDecomposition::D8x8,
        )
    }
    /// [`Stream::kernel`] with a kernel decomposition (NPU_SET_KERNEL_STRIDE bit 5).
    #[allow(clippy::too_many_arguments)]
    pub fn kernel_split(
        &mut self,
        kw: usize,
        kh: usize,
        sx: usize,
        sy: usize,
        dx: usize,
        dy: usize,
        part_kernel_first: bool,
        decomposition: KernelDecomposition,
    ) -> &mut Self {
        let p = ((sx - 1) & 1)
            | (((sy - 1) & 1) << 1)
            | ((part_kernel_first as usize) << 2)
            | ((dx - 1) << 3)
            | ((dy - 1) << 4)
            | ((decomposition.bits() as usize) << 5)
            | (((sx - 1) >> 1) << 6)
            | (((sy - 1) >> 1) << 9);
        self.c0(Opcode::NpuSetKernelWidthM1, ((kw - 1) * dx) as u16)
            .c0(Opcode::NpuSetKernelHeightM1, ((kh - 1) * dy) as u16)
            .c0(Opcode::NpuSetKernelStride, p as u16)
    }
    pub fn pad(&mut self, t: u16, l: u16, b: u16, r: u16) -> &mut Self {
        self.c0(Opcode::NpuSetIfmPadTop, t)
            .c0(Opcode::NpuSetIfmPadLeft, l)
            .c0(Opcode::NpuSetIfmPadBottom, b)
            .c0(Opcode::NpuSetIfmPadRight, r)
    }
    pub fn activation(&mut self, func: u16, min: i64, max: i64) -> &mut Self {
        self.c0(Opcode::NpuSetActivation, func)
            .c0(Opcode::NpuSetActivationMin, min as u16)
            .c0(Opcode::NpuSetActivationMax, max as u16)
    }
    pub fn bytes(&self) -> Vec<u8> {
        cmdstream::encode(&self.cmds)
    }
}

/// The weight order of an 8-bit, undilated `kernel` x `kernel` operation
/// with 8x8 kernel decomposition.
pub fn order_8bit(
    ofm_depth: usize,
    ifm_depth: usize,
    kernel: usize,
    ofm_block_depth: usize,
    traversal: order::Traversal,
) -> order::WeightOrder {
    order::WeightOrder {
        ofm_depth,
        ifm_depth,
        kernel_height: kernel,
        kernel_width: kernel,
        ofm_block_depth,
        traversal,
        ifm_bits: 8,
        dilation_x2: false,
        dilation_y2: false,
        decomposition: KernelDecomposition::D8x8,
        ofm_ublock_depth: order::U65_UBLOCK_DEPTH,
        ifm_ublock_depth: order::U65_UBLOCK_DEPTH,
    }
}

/// Encode an OHWI weight tensor as a weight stream for the given order.
pub fn weight_stream(ohwi: &[i16], o: &order::WeightOrder) -> Vec<u8> {
    let s = order::to_stream(ohwi, o).expect("order");
    weights::encode(&s, &weights::EncodeOptions::default()).expect("encode")
}

/// Scale/bias stream, zero-padded to 16 bytes.
pub fn scale_stream(recs: &[ScaleRecord]) -> Vec<u8> {
    let mut v: Vec<u8> = recs.iter().flat_map(|r| r.to_bytes()).collect();
    v.resize(v.len().div_ceil(16) * 16, 0);
    v
}

pub fn npu(config: &str, regions: &[(usize, Vec<u8>)]) -> Npu {
    let mut n = Npu::new(NpuConfig::by_name(config).expect("config"));
    for (i, r) in regions {
        n.state.memory.set_region(*i, r.clone()).expect("region");
    }
    n
}

pub fn random_vals(rng: &mut StdRng, n: usize, t: DType) -> Vec<i64> {
    (0..n).map(|_| rng.gen_range(t.min()..=t.max())).collect()
}

// ---------------------------------------------------------------------------
// TensorFlow Lite quantized arithmetic, written from the formulas of
// gemmlowp's fixedpoint.h and TFLite's kernels/internal/common.h.

/// gemmlowp `SaturatingRoundingDoublingHighMul` on int32.
pub fn tfl_srdhm(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    let ab = a as i64 * b as i64;
    let nudge = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
    ((ab + nudge) / (1i64 << 31)) as i32
}

/// gemmlowp `RoundingDivideByPOT`.
pub fn tfl_rdbpot(x: i32, e: i32) -> i32 {
    let mask = (1i64 << e) - 1;
    let rem = x as i64 & mask;
    let thr = (mask >> 1) + (x < 0) as i64;
    ((x as i64 >> e) + (rem > thr) as i64) as i32
}

/// TFLite `MultiplyByQuantizedMultiplier(x, m, shift)` (shift > 0 = left).
pub fn tfl_mbqm(x: i32, m: i32, shift: i32) -> i32 {
    let left = shift.max(0);
    let right = (-shift).max(0);
    tfl_rdbpot(tfl_srdhm(x.wrapping_mul(1 << left), m), right)
}

/// TFLite `QuantizeMultiplier`: real = m * 2^(shift - 31), m in [2^30, 2^31).
pub fn tfl_quantize_multiplier(real: f64) -> (i32, i32) {
    if real == 0.0 {
        return (0, 0);
    }
    let (q, mut shift) = frexp(real);
    let mut m = (q * (1i64 << 31) as f64).round() as i64;
    if m == 1i64 << 31 {
        m /= 2;
        shift += 1;
    }
    (m as i32, shift)
}

/// `frexp`: x = q * 2^e with q in [0.5, 1).
pub fn frexp(x: f64) -> (f64, i32) {
    let e = x.abs().log2().floor() as i32 + 1;
    let mut q = x / 2f64.powi(e);
    let mut e = e;
    if q.abs() >= 1.0 {
        q /= 2.0;
        e += 1;
    }
    if q.abs() < 0.5 {
        q *= 2.0;
        e -= 1;
    }
    (q, e)
}

/// The NPU's (scale, shift) for a TFLite multiplier: value = scale * 2^-shift.
pub fn npu_scale(m: i32, tfl_shift: i32) -> (u32, u32) {
    (m as u32, (31 - tfl_shift) as u32)
}
