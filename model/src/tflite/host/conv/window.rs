//! The sliding window of the convolutions and pools: TFLite's padding
//! (tensorflow/lite/kernels/padding.h) and the taps of every window
//! position that fall inside the image.

use super::super::OpDesc;
use anyhow::{bail, ensure, Result};

/// TFLite's padding schemes (schema `Padding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Padding {
    Same,
    Valid,
}

/// The window options of a convolution or pool: padding, strides and
/// dilations, rows first.
#[derive(Debug, Clone, Copy)]
pub(super) struct Stepping {
    pub padding: Padding,
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
}

impl Stepping {
    /// The options as the operator gives them (schema order: width first),
    /// refused where TFLite's padding computation would fail.
    pub fn new(op: &OpDesc, padding: i8, stride: [i32; 2], dilation: [i32; 2]) -> Result<Stepping> {
        let padding = match padding {
            0 => Padding::Same,
            1 => Padding::Valid,
            other => bail!(
                "{} has padding {other}, neither SAME (0) nor VALID (1)",
                op.name
            ),
        };
        let positive = |what: &str, [h, w]: [i32; 2]| -> Result<[usize; 2]> {
            ensure!(
                h > 0 && w > 0,
                "{} has {what} {h}x{w} (height x width); both must be positive",
                op.name
            );
            Ok([h as usize, w as usize])
        };
        Ok(Stepping {
            padding,
            stride: positive("stride", stride)?,
            dilation: positive("dilation", dilation)?,
        })
    }

    /// TFLite's `ComputeOutSizeChecked` and `ComputePaddingWithOffsetChecked`
    /// along dimension `d`: the number of window positions over `image`
    /// elements and the padding before the first (the odd element of an
    /// odd total goes after the last, TFLite's `offset`, which the reference
    /// kernels leave to their bounds test). `None` where TFLite fails.
    fn extent(&self, d: usize, image: usize, filter: usize) -> Option<(usize, usize)> {
        let (image, stride) = (image as i64, self.stride[d] as i64);
        let effective = (filter as i64 - 1) * self.dilation[d] as i64 + 1;
        // C's division, toward zero.
        let positions = match self.padding {
            Padding::Same => (image + stride - 1) / stride,
            Padding::Valid => (image + stride - effective) / stride,
        };
        let total = ((positions - 1) * stride + effective - image).max(0);
        // Both must fit TFLite's int.
        let int = 0..=i64::from(i32::MAX);
        (int.contains(&positions) && int.contains(&(total / 2)))
            .then_some((positions as usize, (total / 2) as usize))
    }

    /// TFLite's `ComputePaddingHeightWidth`: the window positions over an
    /// `image` with `filter` taps, and the padding before them (all zero
    /// where either dimension fails, as there).
    pub fn positions(&self, image: [usize; 2], filter: [usize; 2]) -> ([usize; 2], [usize; 2]) {
        match (
            self.extent(0, image[0], filter[0]),
            self.extent(1, image[1], filter[1]),
        ) {
            (Some((rows, top)), Some((cols, left))) => ([rows, cols], [top, left]),
            (rows, cols) => ([rows.map_or(0, |r| r.0), cols.map_or(0, |c| c.0)], [0, 0]),
        }
    }
}

/// A window sliding over `batches` images of `image` pixels (rows,
/// columns): at each of `positions`, its taps start `stride` apart less
/// `padding` and are `dilation` apart. Pixels count across the batch.
#[derive(Debug, Clone)]
pub(super) struct Window {
    pub batches: usize,
    pub image: [usize; 2],
    pub positions: [usize; 2],
    pub filter: [usize; 2],
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    pub padding: [usize; 2],
}

/// One tap of a window inside the image: its index in the filter (row
/// major) and the image pixel it reads.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tap {
    pub filter: usize,
    pub pixel: usize,
}

impl Window {
    /// The window of a convolution or pool reading `image` and writing
    /// `output` positions, which must be as many as TFLite computes.
    pub fn sliding(
        op: &OpDesc,
        stepping: &Stepping,
        batches: usize,
        image: [usize; 2],
        filter: [usize; 2],
        output: [usize; 2],
    ) -> Result<Window> {
        let (positions, padding) = stepping.positions(image, filter);
        ensure!(
            positions == output,
            "{}'s output is {}x{} (height x width) where its input, filter and options give {}x{}",
            op.name,
            output[0],
            output[1],
            positions[0],
            positions[1]
        );
        Ok(Window {
            batches,
            image,
            positions,
            filter,
            stride: stepping.stride,
            dilation: stepping.dilation,
            padding,
        })
    }

    pub fn filter_taps(&self) -> usize {
        self.filter[0] * self.filter[1]
    }

    /// Calls `visit` with every window position (counted across the batch)
    /// and its taps inside the image, rows then columns, in the order the
    /// reference kernels sum them.
    pub fn walk(&self, mut visit: impl FnMut(usize, &[Tap])) {
        let mut taps = Vec::new();
        let mut position = 0;
        for batch in 0..self.batches {
            for y in 0..self.positions[0] {
                let (top, fys) = self.inside(0, y);
                for x in 0..self.positions[1] {
                    let (left, fxs) = self.inside(1, x);
                    taps.clear();
                    for fy in fys.clone() {
                        let row = (top + (fy * self.dilation[0]) as i64) as usize;
                        let first = (batch * self.image[0] + row) * self.image[1];
                        taps.extend(fxs.clone().map(|fx| Tap {
                            filter: fy * self.filter[1] + fx,
                            pixel: first + (left + (fx * self.dilation[1]) as i64) as usize,
                        }));
                    }
                    visit(position, &taps);
                    position += 1;
                }
            }
        }
    }

    /// Along dimension `d` at position `p`: where the window starts (before
    /// the image when negative) and the taps that fall inside the image, as
    /// the reference kernels bound their filter loops.
    fn inside(&self, d: usize, p: usize) -> (i64, std::ops::Range<usize>) {
        let start = (p * self.stride[d]) as i64 - self.padding[d] as i64;
        let dilation = self.dilation[d] as i64;
        // The first tap at or after 0, and the first at or after the end.
        let tap_at = |offset: i64| ((offset - start).max(0) + dilation - 1) / dilation;
        let first = tap_at(0).min(self.filter[d] as i64) as usize;
        let end = tap_at(self.image[d] as i64).min(self.filter[d] as i64) as usize;
        (start, first..end.max(first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stepping(padding: Padding, stride: usize, dilation: usize) -> Stepping {
        Stepping {
            padding,
            stride: [stride; 2],
            dilation: [dilation; 2],
        }
    }

    #[test]
    fn padding_matches_tflite() {
        // SAME, 5 wide, 3 taps, stride 2: 3 positions, total padding 2.
        let s = stepping(Padding::Same, 2, 1);
        assert_eq!(s.extent(0, 5, 3), Some((3, 1)));
        // 6 wide: total padding 1, all of it after the last (offset 1).
        assert_eq!(s.extent(0, 6, 3), Some((3, 0)));
        // Even filter, stride 1: total 3, one before, two after.
        assert_eq!(stepping(Padding::Same, 1, 1).extent(0, 4, 4), Some((4, 1)));
        // Dilation 2 makes 3 taps span 5.
        assert_eq!(stepping(Padding::Same, 1, 2).extent(0, 5, 3), Some((5, 2)));
        assert_eq!(stepping(Padding::Valid, 1, 2).extent(0, 5, 3), Some((1, 0)));
        // VALID with the filter wider than the image: C's division rounds
        // -1/2 to 0 positions; beyond one stride TFLite fails.
        assert_eq!(stepping(Padding::Valid, 2, 1).extent(0, 2, 3), Some((0, 0)));
        assert_eq!(stepping(Padding::Valid, 1, 1).extent(0, 2, 4), None);
    }

    #[test]
    fn walk_skips_padding() {
        let w = Window {
            batches: 1,
            image: [2, 3],
            positions: [1, 2],
            filter: [2, 2],
            stride: [1, 2],
            dilation: [1, 1],
            padding: [1, 0],
        };
        let mut seen = Vec::new();
        w.walk(|p, taps| {
            seen.push((
                p,
                taps.iter().map(|t| (t.filter, t.pixel)).collect::<Vec<_>>(),
            ))
        });
        assert_eq!(seen, vec![(0, vec![(2, 0), (3, 1)]), (1, vec![(2, 2)])]);
    }

    fn taps(w: &Window) -> Vec<(usize, usize)> {
        let mut seen = Vec::new();
        w.walk(|_, taps| seen.extend(taps.iter().map(|t| (t.filter, t.pixel))));
        seen
    }

    #[test]
    fn walk_bounds_taps_to_the_image() {
        // A pool's filter far larger than its 2x2 image.
        let huge = Window {
            batches: 1,
            image: [2, 2],
            positions: [1, 1],
            filter: [1 << 30, 3],
            stride: [1, 1],
            dilation: [1, 1],
            padding: [0, 1],
        };
        assert_eq!(taps(&huge), vec![(1, 0), (2, 1), (4, 2), (5, 3)]);
        // Dilation 2 from two before the image: taps 1 and 2 land on 0 and 2.
        let dilated = Window {
            image: [1, 5],
            filter: [1, 3],
            dilation: [1, 2],
            padding: [0, 2],
            ..huge
        };
        assert_eq!(taps(&dilated), vec![(1, 0), (2, 2)]);
    }
}
