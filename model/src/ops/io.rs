//! An operation's inputs and outputs in memory: feature maps, the
//! scale/bias records and the weight streams (TRM 4.7).

use super::Op;
use crate::state::{NpuState, OpError};
use crate::tensor::FeatureMap;
use crate::weights;
use crate::weights::order::{core_share, Traversal, WeightOrder, U65_UBLOCK_DEPTH};
use npu_arch::command::{Opcode, UpscaleMode, SCALE_BIAS_RECORD_BYTES};
use npu_arch::regs::faulting_channel;

/// Per-channel or global output scaling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScaleRecord {
    /// 40-bit signed bias.
    pub bias: i64,
    pub scale: u32,
    /// 6-bit shift.
    pub shift: u32,
}

impl ScaleRecord {
    /// Parse one 10-byte record of the scale/bias stream (JOBS.md): bias in
    /// bytes 0-4 (signed 40-bit), scale in bytes 5-8, shift in byte 9 bits 0-5.
    pub fn parse(b: &[u8; SCALE_BIAS_RECORD_BYTES]) -> ScaleRecord {
        let mut bias = [0u8; 8];
        bias[..5].copy_from_slice(&b[..5]);
        let bias = (i64::from_le_bytes(bias) << 24) >> 24;
        ScaleRecord {
            bias,
            scale: u32::from_le_bytes([b[5], b[6], b[7], b[8]]),
            shift: (b[9] & 0x3f) as u32,
        }
    }
    /// The 10-byte encoding (inverse of [`ScaleRecord::parse`]).
    pub fn to_bytes(&self) -> [u8; SCALE_BIAS_RECORD_BYTES] {
        let mut out = [0u8; SCALE_BIAS_RECORD_BYTES];
        out[..5].copy_from_slice(&self.bias.to_le_bytes()[..5]);
        out[5..9].copy_from_slice(&self.scale.to_le_bytes());
        out[9] = (self.shift & 0x3f) as u8;
        out
    }
}

/// Read an `h` x `w` x `c` feature map, zero point subtracted.
pub(super) fn load_fm(
    npu: &NpuState,
    fm: &FeatureMap,
    h: usize,
    w: usize,
    c: usize,
    what: &str,
) -> Result<Vec<i32>, OpError> {
    let e = fm.dtype.bytes();
    let region = npu.memory.region(fm.region);
    npu.memory.count_read(h * w * c * e);
    let mut out = Vec::with_capacity(h * w * c);
    for y in 0..h {
        for x in 0..w {
            for ch in 0..c {
                let off = fm.offset(y, x, ch);
                if off < 0 || off as usize + e > region.len() {
                    return Err(OpError::OutOfRange {
                        what: format!("{what} element (y {y}, x {x}, c {ch})"),
                        channel: faulting_channel::IFM,
                        region: fm.region,
                        start: off,
                        end: off + e as i64,
                        size: region.len(),
                    });
                }
                let v = fm.dtype.load(&region[off as usize..]);
                out.push((v - fm.zero_point) as i32);
            }
        }
    }
    Ok(out)
}

/// Write an `h` x `w` x `c` OFM.
pub(super) fn store_fm(
    npu: &mut NpuState,
    fm: &FeatureMap,
    h: usize,
    w: usize,
    c: usize,
    vals: &[i64],
) -> Result<(), OpError> {
    let e = fm.dtype.bytes();
    let mut i = 0;
    for y in 0..h {
        for x in 0..w {
            for ch in 0..c {
                let off = fm.offset(y, x, ch);
                let dst = npu.memory.write(
                    faulting_channel::OFM,
                    &format!("OFM element (y {y}, x {x}, c {ch})"),
                    fm.region,
                    off,
                    e,
                )?;
                fm.dtype.store(vals[i], dst);
                i += 1;
            }
        }
    }
    Ok(())
}

/// The upscaled IFM (TRM 4.6.4 NPU_SET_IFM_UPSCALE): `h` x `w` x `c`, read
/// from a source of half the size when upscaling.
pub(super) fn load_upscaled(
    npu: &NpuState,
    op: &Op,
    h: usize,
    w: usize,
    c: usize,
) -> Result<Vec<i32>, OpError> {
    if op.upscale == UpscaleMode::None {
        return load_fm(npu, &op.ifm, h, w, c, "IFM");
    }
    let (sh, sw) = (h.div_ceil(2), w.div_ceil(2));
    let src = load_fm(npu, &op.ifm, sh, sw, c, "IFM")?;
    let mut out = vec![0; h * w * c];
    for y in 0..h {
        for x in 0..w {
            if op.upscale == UpscaleMode::Zeros && (y % 2 == 1 || x % 2 == 1) {
                continue;
            }
            let s = ((y / 2) * sw + x / 2) * c;
            out[(y * w + x) * c..][..c].copy_from_slice(&src[s..s + c]);
        }
    }
    Ok(out)
}

/// Core `core`'s NPU_SET_SCALE*_BASE and NPU_SET_SCALE*_LENGTH.
pub(super) fn scale_stream_ops(core: usize) -> (Opcode, Opcode) {
    if core == 0 {
        (Opcode::NpuSetScaleBase, Opcode::NpuSetScaleLength)
    } else {
        (Opcode::NpuSetScale1Base, Opcode::NpuSetScale1Length)
    }
}

/// Core `core`'s NPU_SET_WEIGHT*_BASE and NPU_SET_WEIGHT*_LENGTH.
pub(super) fn weight_stream_ops(core: usize) -> (Opcode, Opcode) {
    if core == 0 {
        (Opcode::NpuSetWeightBase, Opcode::NpuSetWeightLength)
    } else {
        (Opcode::NpuSetWeight1Base, Opcode::NpuSetWeight1Length)
    }
}

/// Scale/bias records for `n` channels from one stream (its length
/// checked by [`Op::validate_on`]).
fn load_scales(npu: &NpuState, core: usize, n: usize) -> Result<Vec<ScaleRecord>, OpError> {
    let (base_op, _) = scale_stream_ops(core);
    let need = n * SCALE_BIAS_RECORD_BYTES;
    let region = npu.field(Opcode::NpuSetScaleRegion, "region") as usize;
    let bytes = npu.memory.read(
        faulting_channel::SCALE,
        &format!("scale/bias stream {core}"),
        region,
        npu.field(base_op, "addr"),
        need,
    )?;
    Ok(bytes
        .chunks_exact(SCALE_BIAS_RECORD_BYTES)
        .map(|c| ScaleRecord::parse(c.try_into().expect("chunk of record size")))
        .collect())
}

/// Per-channel records for all `oc` channels; in parallel mode core k's
/// stream holds channels k, k+2, ... (TRM 4.7.5.1).
pub(super) fn channel_scales(npu: &NpuState, op: &Op) -> Result<Vec<ScaleRecord>, OpError> {
    if !op.parallel {
        return load_scales(npu, 0, op.oc);
    }
    let cores = npu.shram.len();
    let mut out = vec![
        ScaleRecord {
            bias: 0,
            scale: 0,
            shift: 0
        };
        op.oc
    ];
    for core in 0..cores.min(op.oc) {
        let n = core_share(op.oc, cores, core);
        for (j, r) in load_scales(npu, core, n)?.into_iter().enumerate() {
            out[core + j * cores] = r;
        }
    }
    Ok(out)
}

pub(super) fn global_scale(npu: &NpuState) -> ScaleRecord {
    ScaleRecord {
        bias: 0,
        scale: npu.field(Opcode::NpuSetOfmScale, "scale") as u32,
        shift: npu.field(Opcode::NpuSetOfmScale, "shift") as u32,
    }
}

/// OHWI weights (zero-point corrected, 9-bit) for all `oc` channels, from
/// the weight stream(s) (TRM 4.7; order TRM 4.7.5; parallel mode 4.7.5.1).
/// The kernel decomposition (NPU_SET_KERNEL_STRIDE bit 5) only orders the
/// weights: every sub-kernel adds into the same integer accumulators, so the
/// result is that of the whole kernel.
pub(super) fn load_weights(
    npu: &NpuState,
    op: &Op,
    ifm_depth: usize,
    traversal: Traversal,
) -> Result<Vec<i16>, OpError> {
    let cores = if op.parallel { npu.shram.len() } else { 1 };
    let block_depth = npu.field(Opcode::NpuSetOfmBlkDepthM1, "depth_m1") as usize + 1;
    let (kh, kw) = (op.kernel_h(), op.kernel_w());
    let per_oc = kh * kw * ifm_depth;
    let mut ohwi = vec![0i16; op.oc * per_oc];
    for core in 0..cores.min(op.oc) {
        let (base_op, len_op) = weight_stream_ops(core);
        let order = WeightOrder {
            ofm_depth: core_share(op.oc, cores, core),
            ifm_depth,
            kernel_height: kh,
            kernel_width: kw,
            // Each core's block depth in parallel mode (TRM 4.7.5.1: half the
            // OFM block depth, rounded as Vela does).
            ofm_block_depth: core_share(block_depth, cores, core),
            traversal,
            ifm_bits: op.ifm.dtype.bits,
            dilation_x2: op.dil_x == 2,
            dilation_y2: op.dil_y == 2,
            decomposition: op.decomposition,
            ofm_ublock_depth: U65_UBLOCK_DEPTH,
            ifm_ublock_depth: U65_UBLOCK_DEPTH,
        };
        let region = npu.field(Opcode::NpuSetWeightRegion, "region") as usize;
        let len = npu.field(len_op, "length") as usize;
        let what = format!("weight stream {core}");
        let bytes = npu.memory.read(
            faulting_channel::WEIGHTS,
            &what,
            region,
            npu.field(base_op, "addr"),
            len,
        )?;
        let stream =
            weights::decode(bytes).map_err(|e| OpError::Weights(format!("{what}: {e}")))?;
        if stream.len() < order.tensor_len() {
            return Err(OpError::Weights(format!(
                "{what} decodes to {} weights, fewer than the {} the operation needs",
                stream.len(),
                order.tensor_len()
            )));
        }
        let expected = weights::order::stream_order(&order)
            .map_err(|e| OpError::Weights(format!("{what}: {e}")))?
            .len();
        if stream.len() != expected {
            return Err(OpError::Weights(format!(
                "{what} decodes to {} weights, the operation needs {expected}",
                stream.len()
            )));
        }
        let part = weights::order::from_stream(&stream, &order)
            .map_err(|e| OpError::Weights(format!("{what}: {e}")))?;
        for (j, w) in part.chunks_exact(per_oc).enumerate() {
            let oc = core + j * cores;
            ohwi[oc * per_oc..(oc + 1) * per_oc].copy_from_slice(w);
        }
    }
    Ok(ohwi)
}
