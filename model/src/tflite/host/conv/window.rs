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
        if positions < 0 {
            return None;
        }
        let total = ((positions - 1) * stride + effective - image).max(0);
        Some((positions as usize, (total / 2) as usize))
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
        let mut taps = Vec::with_capacity(self.filter_taps());
        let [rows, cols] = self.image.map(|n| n as i64);
        let mut position = 0;
        for batch in 0..self.batches {
            for y in 0..self.positions[0] {
                let top = (y * self.stride[0]) as i64 - self.padding[0] as i64;
                for x in 0..self.positions[1] {
                    let left = (x * self.stride[1]) as i64 - self.padding[1] as i64;
                    taps.clear();
                    for fy in 0..self.filter[0] {
                        let row = top + (fy * self.dilation[0]) as i64;
                        if !(0..rows).contains(&row) {
                            continue;
                        }
                        for fx in 0..self.filter[1] {
                            let col = left + (fx * self.dilation[1]) as i64;
                            if (0..cols).contains(&col) {
                                taps.push(Tap {
                                    filter: fy * self.filter[1] + fx,
                                    pixel: (batch * self.image[0] + row as usize) * self.image[1]
                                        + col as usize,
                                });
                            }
                        }
                    }
                    visit(position, &taps);
                    position += 1;
                }
            }
        }
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
}
