//! The 4x4 kernel decomposition (TRM 4.6.4 NPU_SET_KERNEL_STRIDE bit 5,
//! TRM 4.7.5 `kernel_split_size` 4) against the TRM's ordering pseudocode
//! (tables 4-115 to 4-117), written out here with each case's sub-kernels
//! listed by hand. Where the pseudocode is garbled it is read as the 8x8
//! Vela fixtures confirm (`weights_vela.rs`): sub-kernel rows outermost, and
//! part-kernel-first IFM blocks of 16 channels.

use npu_arch::command::KernelDecomposition;
use npu_model::weights::order::{
    stream_order, Traversal, WeightCoord, WeightOrder, U65_UBLOCK_DEPTH,
};

/// A sub-kernel: first kernel row, first kernel column, height, width.
type Sub = (usize, usize, usize, usize);

/// Everything but the depths and kernel of a case.
struct Case {
    traversal: Traversal,
    ofm_depth: usize,
    ifm_depth: usize,
    kernel: (usize, usize),
    ofm_block_depth: usize,
    ifm_bits: u32,
    dilation: (bool, bool),
}

impl Case {
    fn order(&self, decomposition: KernelDecomposition) -> WeightOrder {
        WeightOrder {
            ofm_depth: self.ofm_depth,
            ifm_depth: self.ifm_depth,
            kernel_height: self.kernel.0,
            kernel_width: self.kernel.1,
            ofm_block_depth: self.ofm_block_depth,
            traversal: self.traversal,
            ifm_bits: self.ifm_bits,
            dilation_x2: self.dilation.1,
            dilation_y2: self.dilation.0,
            decomposition,
            ofm_ublock_depth: U65_UBLOCK_DEPTH,
            ifm_ublock_depth: U65_UBLOCK_DEPTH,
        }
    }
}

/// The TRM 4.7.5 loop nests over the given sub-kernels; `None` is a padding zero.
fn trm_stream(c: &Case, subs: &[Sub]) -> Vec<Option<WeightCoord>> {
    let ublk = U65_UBLOCK_DEPTH;
    let mut out = Vec::new();
    for blk_z in (0..c.ofm_depth).step_by(c.ofm_block_depth) {
        let blk_d = c.ofm_block_depth.min(c.ofm_depth - blk_z);
        match c.traversal {
            // Table 4-115: elements padded to 4, no IFM loops.
            Traversal::DepthWise => {
                for &(ky0, kx0, h, w) in subs {
                    for ublk_z in (0..blk_d).step_by(ublk) {
                        for i in 0..(h * w).div_ceil(4) * 4 {
                            let (sx, sy) = (i % w, i / w);
                            for z in 0..ublk {
                                let oc = blk_z + ublk_z + z;
                                out.push((sy < h && oc < c.ofm_depth).then_some(WeightCoord {
                                    oc,
                                    ky: ky0 + sy,
                                    kx: kx0 + sx,
                                    ic: 0,
                                }));
                            }
                        }
                    }
                }
            }
            // Table 4-116: IFM blocks of 32 (16 for 16-bit IFMs), microblocks
            // of 8 IFM channels inside each kernel element.
            Traversal::DepthFirst => {
                let ifm_block_depth = if c.ifm_bits == 16 { 16 } else { 32 };
                for iblk_z in (0..c.ifm_depth).step_by(ifm_block_depth) {
                    for &(ky0, kx0, h, w) in subs {
                        for ublk_z in (0..blk_d).step_by(ublk) {
                            for i in 0..h * w {
                                let (sx, sy) = (i % w, i / w);
                                for iublk_z in (0..ifm_block_depth).step_by(8) {
                                    for z in 0..ublk {
                                        for iz in 0..8 {
                                            let ic = iblk_z + iublk_z + iz;
                                            let oc = blk_z + ublk_z + z;
                                            let valid = ic < c.ifm_depth && oc < c.ofm_depth;
                                            out.push(valid.then_some(WeightCoord {
                                                oc,
                                                ky: ky0 + sy,
                                                kx: kx0 + sx,
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
            // Table 4-117: elements padded to 4 (2 for 16-bit IFMs), IFM
            // microblocks outside the kernel elements.
            Traversal::PartKernelFirst => {
                let pad = if c.ifm_bits == 16 { 2 } else { 4 };
                for iblk_z in (0..c.ifm_depth).step_by(16) {
                    for &(ky0, kx0, h, w) in subs {
                        let iblk_d = 16.min(c.ifm_depth - iblk_z);
                        for iublk_z in (0..iblk_d).step_by(8) {
                            for ublk_z in (0..blk_d).step_by(ublk) {
                                for i in 0..(h * w).div_ceil(pad) * pad {
                                    let (sx, sy) = (i % w, i / w);
                                    for z in 0..ublk {
                                        for iz in 0..8 {
                                            let ic = iblk_z + iublk_z + iz;
                                            let oc = blk_z + ublk_z + z;
                                            let valid =
                                                sy < h && ic < c.ifm_depth && oc < c.ofm_depth;
                                            out.push(valid.then_some(WeightCoord {
                                                oc,
                                                ky: ky0 + sy,
                                                kx: kx0 + sx,
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
    out
}

fn check(name: &str, c: &Case, split4: &[Sub], split8: &[Sub]) {
    for (d, subs) in [
        (KernelDecomposition::D4x4, split4),
        (KernelDecomposition::D8x8, split8),
    ] {
        let got = stream_order(&c.order(d)).expect("order");
        let want = trm_stream(c, subs);
        assert_eq!(got.len(), want.len(), "{name} {d:?}: stream length");
        if let Some(i) = got.iter().zip(&want).position(|(a, b)| a != b) {
            panic!(
                "{name} {d:?}: position {i}: {:?}, TRM {:?}",
                got[i], want[i]
            );
        }
        // Every weight of the tensor appears exactly once.
        let n = got.iter().flatten().count();
        assert_eq!(n, c.order(d).tensor_len(), "{name} {d:?}: weights");
    }
}

#[test]
fn depthwise_5x5_splits_into_four_sub_kernels() {
    let c = Case {
        traversal: Traversal::DepthWise,
        ofm_depth: 20,
        ifm_depth: 1,
        kernel: (5, 5),
        ofm_block_depth: 16,
        ifm_bits: 8,
        dilation: (false, false),
    };
    check(
        "dw 5x5",
        &c,
        &[(0, 0, 4, 4), (0, 4, 4, 1), (4, 0, 1, 4), (4, 4, 1, 1)],
        &[(0, 0, 5, 5)],
    );
}

#[test]
fn depthwise_dilated_3x3_splits_into_2x2_sub_kernels() {
    // decomp_w = decomp_h = kernel_split_size / 2 with dilation 2x2.
    let c = Case {
        traversal: Traversal::DepthWise,
        ofm_depth: 8,
        ifm_depth: 1,
        kernel: (3, 3),
        ofm_block_depth: 8,
        ifm_bits: 8,
        dilation: (true, true),
    };
    check(
        "dw 3x3 dilation 2x2",
        &c,
        &[(0, 0, 2, 2), (0, 2, 2, 1), (2, 0, 1, 2), (2, 2, 1, 1)],
        &[(0, 0, 3, 3)],
    );
}

#[test]
fn depth_first_5x6_int16() {
    let c = Case {
        traversal: Traversal::DepthFirst,
        ofm_depth: 12,
        ifm_depth: 20,
        kernel: (5, 6),
        ofm_block_depth: 8,
        ifm_bits: 16,
        dilation: (false, false),
    };
    check(
        "depth-first 5x6 int16",
        &c,
        &[(0, 0, 4, 4), (0, 4, 4, 2), (4, 0, 1, 4), (4, 4, 1, 2)],
        &[(0, 0, 5, 6)],
    );
}

#[test]
fn part_kernel_first_5x5_dilated_in_x() {
    // Dilation in x only: sub-kernels at most 2 wide and 4 high (8 wide and
    // 8 high are halved to 4 x 8 with the 8x8 split).
    let c = Case {
        traversal: Traversal::PartKernelFirst,
        ofm_depth: 12,
        ifm_depth: 20,
        kernel: (5, 5),
        ofm_block_depth: 8,
        ifm_bits: 8,
        dilation: (false, true),
    };
    check(
        "part-kernel-first 5x5 dilation 1x2",
        &c,
        &[
            (0, 0, 4, 2),
            (0, 2, 4, 2),
            (0, 4, 4, 1),
            (4, 0, 1, 2),
            (4, 2, 1, 2),
            (4, 4, 1, 1),
        ],
        &[(0, 0, 5, 4), (0, 4, 5, 1)],
    );
}

#[test]
fn part_kernel_first_9x3_int16() {
    let c = Case {
        traversal: Traversal::PartKernelFirst,
        ofm_depth: 9,
        ifm_depth: 5,
        kernel: (9, 3),
        ofm_block_depth: 16,
        ifm_bits: 16,
        dilation: (false, false),
    };
    check(
        "part-kernel-first 9x3 int16",
        &c,
        &[(0, 0, 4, 3), (4, 0, 4, 3), (8, 0, 1, 3)],
        &[(0, 0, 8, 3), (8, 0, 1, 3)],
    );
}

#[test]
fn kernels_within_4x4_order_the_same_with_either_split() {
    for traversal in [
        Traversal::DepthFirst,
        Traversal::PartKernelFirst,
        Traversal::DepthWise,
    ] {
        let c = Case {
            traversal,
            ofm_depth: 10,
            ifm_depth: if traversal == Traversal::DepthWise {
                1
            } else {
                9
            },
            kernel: (3, 4),
            ofm_block_depth: 8,
            ifm_bits: 8,
            dilation: (false, false),
        };
        check(
            &format!("{traversal:?} 3x4"),
            &c,
            &[(0, 0, 3, 4)],
            &[(0, 0, 3, 4)],
        );
    }
}
