//! Weight orderings (TRM 4.7.5): which OHWI weight sits at each position of
//! the decoded weight stream, including the zeros inserted as padding.
//!
//! The kernel is split into sub-kernels of at most `kernel_split_size` square
//! (8, or 4 with NPU_SET_KERNEL_STRIDE bit 5, TRM 4.6.4), halved in a
//! dilated direction (`decomp_w`/`decomp_h` of TRM tables 4-115 to 4-117).
//!
//! Where the TRM pseudocode is ambiguous (its loop bounds and kernel-split
//! names are garbled in places) the order follows what Vela's encoder emits,
//! which the fixtures in `model/tests/fixtures/weights` check:
//! - sub-kernels are visited row of sub-kernels by row (y outer, x inner),
//!   elements inside a sub-kernel x fastest;
//! - part-kernel-first always uses IFM blocks of 16 channels, depth-first 32
//!   (16 for 16-bit IFMs), the latter padded with zeros to the full block;
//! - depth-wise and part-kernel-first pad each sub-kernel's element count to a
//!   multiple of 4 (2 for 16-bit part-kernel-first).

use npu_arch::command::KernelDecomposition;

/// How the NPU traverses the kernel (TRM 4.7.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Traversal {
    /// Convolution, IFM depth innermost (`NPU_SET_KERNEL_STRIDE` part-kernel bit 0).
    DepthFirst,
    /// Convolution, kernel elements before IFM depth (part-kernel bit 1).
    PartKernelFirst,
    /// Depth-wise convolution: one IFM channel per OFM channel.
    DepthWise,
}

/// Microblock depth (OFM and IFM) of the U65 configurations.
pub const U65_UBLOCK_DEPTH: usize = 8;

/// TRM 4.7.5 `kernel_split_size`: the largest sub-kernel side before dilation.
fn kernel_split_size(d: KernelDecomposition) -> usize {
    match d {
        KernelDecomposition::D8x8 => 8,
        KernelDecomposition::D4x4 => 4,
    }
}

/// Everything that fixes the order of one weight stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightOrder {
    /// OFM channels in this stream (per core in parallel mode).
    pub ofm_depth: usize,
    /// IFM channels; 1 for depth-wise (the OHWI tensor then has I = 1).
    pub ifm_depth: usize,
    /// Kernel height before dilation.
    pub kernel_height: usize,
    /// Kernel width before dilation.
    pub kernel_width: usize,
    /// OFM block depth (`NPU_SET_OFM_BLK_DEPTH_M1` + 1, per core in parallel mode).
    pub ofm_block_depth: usize,
    /// Kernel traversal.
    pub traversal: Traversal,
    /// IFM element width in bits, 8 or 16.
    pub ifm_bits: u32,
    /// Dilation by 2 in x (halves the sub-kernel width).
    pub dilation_x2: bool,
    /// Dilation by 2 in y (halves the sub-kernel height).
    pub dilation_y2: bool,
    /// Kernel decomposition (NPU_SET_KERNEL_STRIDE bit 5): sub-kernels of
    /// at most 8x8 or 4x4 before dilation.
    pub decomposition: KernelDecomposition,
    /// OFM microblock depth ([`U65_UBLOCK_DEPTH`] on U65).
    pub ofm_ublock_depth: usize,
    /// IFM microblock depth ([`U65_UBLOCK_DEPTH`] on U65).
    pub ifm_ublock_depth: usize,
}

/// Coordinates of one weight in an OHWI tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WeightCoord {
    /// Output channel.
    pub oc: usize,
    /// Kernel row.
    pub ky: usize,
    /// Kernel column.
    pub kx: usize,
    /// Input channel (0 for depth-wise).
    pub ic: usize,
}

/// A [`WeightOrder`] or tensor that cannot be ordered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OrderError {
    /// A parameter is out of its range.
    #[error("bad weight order parameter: {0}")]
    BadParameter(&'static str),
    /// The weight slice has the wrong number of elements.
    #[error("expected {expected} weights, got {got}")]
    LengthMismatch {
        /// Length the order needs.
        expected: usize,
        /// Length given.
        got: usize,
    },
}

impl WeightOrder {
    fn check(&self) -> Result<(), OrderError> {
        let positive = [
            self.ofm_depth,
            self.ifm_depth,
            self.kernel_height,
            self.kernel_width,
            self.ofm_block_depth,
            self.ofm_ublock_depth,
            self.ifm_ublock_depth,
        ];
        if positive.contains(&0) {
            return Err(OrderError::BadParameter(
                "depths, kernel size and block depths must be positive",
            ));
        }
        if self.ifm_bits != 8 && self.ifm_bits != 16 {
            return Err(OrderError::BadParameter("ifm_bits must be 8 or 16"));
        }
        if self.traversal == Traversal::DepthWise && self.ifm_depth != 1 {
            return Err(OrderError::BadParameter(
                "depth-wise weights have ifm_depth 1",
            ));
        }
        Ok(())
    }

    /// Number of weights in the OHWI tensor this order reads.
    pub fn tensor_len(&self) -> usize {
        self.ofm_depth * self.kernel_height * self.kernel_width * self.ifm_depth
    }

    fn ohwi_index(&self, c: WeightCoord) -> usize {
        ((c.oc * self.kernel_height + c.ky) * self.kernel_width + c.kx) * self.ifm_depth + c.ic
    }
}

/// The stream order: entry `i` is the OHWI coordinate of decoded weight `i`,
/// or `None` for a zero the encoder inserted as padding (TRM 4.7.5).
pub fn stream_order(o: &WeightOrder) -> Result<Vec<Option<WeightCoord>>, OrderError> {
    o.check()?;
    let pk = o.traversal == Traversal::PartKernelFirst;
    let dw = o.traversal == Traversal::DepthWise;
    let ifm_block_depth = if pk || o.ifm_bits == 16 { 16 } else { 32 };
    let split = kernel_split_size(o.decomposition);
    let decomp_h = split / if o.dilation_y2 { 2 } else { 1 };
    let decomp_w = split / if o.dilation_x2 { 2 } else { 1 };
    let mut out = Vec::new();
    for ofm_block_z in (0..o.ofm_depth).step_by(o.ofm_block_depth) {
        let block_d = o.ofm_block_depth.min(o.ofm_depth - ofm_block_z);
        let ifm_blocks = if dw { 1 } else { o.ifm_depth };
        for ifm_block_z in (0..ifm_blocks).step_by(ifm_block_depth) {
            let ifm_block_d = match o.traversal {
                Traversal::DepthWise => o.ifm_ublock_depth,
                Traversal::PartKernelFirst => ifm_block_depth.min(o.ifm_depth - ifm_block_z),
                Traversal::DepthFirst => ifm_block_depth,
            };
            for sub_y in (0..o.kernel_height).step_by(decomp_h) {
                let sub_h = decomp_h.min(o.kernel_height - sub_y);
                for sub_x in (0..o.kernel_width).step_by(decomp_w) {
                    let sub_w = decomp_w.min(o.kernel_width - sub_x);
                    let pad_to = match (o.traversal, o.ifm_bits) {
                        (Traversal::PartKernelFirst, 16) => 2,
                        (Traversal::PartKernelFirst, _) | (Traversal::DepthWise, _) => 4,
                        (Traversal::DepthFirst, _) => 1,
                    };
                    let elements = (sub_w * sub_h).div_ceil(pad_to) * pad_to;
                    // Part-kernel-first walks IFM microblocks outside the kernel
                    // elements, the other orders inside.
                    let (outer_d, inner_d) = if pk {
                        (ifm_block_d, 1)
                    } else {
                        (1, ifm_block_d)
                    };
                    let ifm_ublock_d = if dw { 1 } else { o.ifm_ublock_depth };
                    for iu_outer in (0..outer_d).step_by(o.ifm_ublock_depth) {
                        for ofm_ublk in (0..block_d).step_by(o.ofm_ublock_depth) {
                            for element in 0..elements {
                                let (kx, ky) = (element % sub_w, element / sub_w);
                                for iu_inner in (0..inner_d).step_by(o.ifm_ublock_depth) {
                                    for oz in 0..o.ofm_ublock_depth {
                                        for iz in 0..ifm_ublock_d {
                                            let ic = ifm_block_z + iu_outer + iu_inner + iz;
                                            let oc = ofm_block_z + ofm_ublk + oz;
                                            let valid =
                                                ic < o.ifm_depth && oc < o.ofm_depth && ky < sub_h;
                                            out.push(valid.then_some(WeightCoord {
                                                oc,
                                                ky: sub_y + ky,
                                                kx: sub_x + kx,
                                                ic,
                                            }));
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Reorders an OHWI weight tensor into stream order, padding zeros included:
/// the sequence to hand to [`super::encode`].
pub fn to_stream(ohwi: &[i16], o: &WeightOrder) -> Result<Vec<i16>, OrderError> {
    if ohwi.len() != o.tensor_len() {
        return Err(OrderError::LengthMismatch {
            expected: o.tensor_len(),
            got: ohwi.len(),
        });
    }
    Ok(stream_order(o)?
        .into_iter()
        .map(|c| c.map_or(0, |c| ohwi[o.ohwi_index(c)]))
        .collect())
}

/// Places decoded weights (stream order, as from [`super::decode`]) back into
/// an OHWI tensor; padding positions are skipped.
pub fn from_stream(stream: &[i16], o: &WeightOrder) -> Result<Vec<i16>, OrderError> {
    let order = stream_order(o)?;
    if stream.len() != order.len() {
        return Err(OrderError::LengthMismatch {
            expected: order.len(),
            got: stream.len(),
        });
    }
    let mut ohwi = vec![0; o.tensor_len()];
    for (c, &w) in order.iter().zip(stream) {
        if let Some(c) = c {
            ohwi[o.ohwi_index(*c)] = w;
        }
    }
    Ok(ohwi)
}

/// How many of `total` OFM channels (or of an OFM block's depth) core
/// `core` of `cores` holds in parallel mode: channels core, core + cores,
/// ... (TRM 4.7.5.1: ceil(total / 2) for core 0, floor for core 1; Vela
/// rounds the block depth the same way).
pub fn core_share(total: usize, cores: usize, core: usize) -> usize {
    (total + cores - 1 - core) / cores
}

/// Splits an OHWI tensor for parallel mode (TRM 4.7.5.1): core `k` of
/// `cores` gets output channels `k, k + cores, ...` and an OFM block depth of
/// `ceil((ofm_block_depth - k) / cores)` (Vela's rounding of the TRM's
/// `ofm_block_depth / 2`). Returns each core's tensor and order; a core
/// with no channel or no block depth is left out, as Vela does.
pub fn split_parallel(
    ohwi: &[i16],
    o: &WeightOrder,
    cores: usize,
) -> Result<Vec<(Vec<i16>, WeightOrder)>, OrderError> {
    o.check()?;
    if cores == 0 {
        return Err(OrderError::BadParameter("cores must be positive"));
    }
    if ohwi.len() != o.tensor_len() {
        return Err(OrderError::LengthMismatch {
            expected: o.tensor_len(),
            got: ohwi.len(),
        });
    }
    let per_oc = o.kernel_height * o.kernel_width * o.ifm_depth;
    let mut out = Vec::new();
    for core in 0..cores.min(o.ofm_depth) {
        let block_depth = core_share(o.ofm_block_depth, cores, core);
        if block_depth == 0 {
            continue;
        }
        let channels: Vec<usize> = (core..o.ofm_depth).step_by(cores).collect();
        let weights = channels
            .iter()
            .flat_map(|&oc| ohwi[oc * per_oc..(oc + 1) * per_oc].iter().copied())
            .collect();
        let order = WeightOrder {
            ofm_depth: channels.len(),
            ofm_block_depth: block_depth,
            ..o.clone()
        };
        out.push((weights, order));
    }
    Ok(out)
}
