//! The one loop behind every operator that moves elements by a fixed
//! pattern: a strided N-dimensional copy from one tensor's bytes into
//! another's. Slices, pads, transposes, tiles, reverses, concatenation and
//! splits are each a few of these, worked out when the model is loaded.

use anyhow::{ensure, Result};

/// One axis of a copy: `len` steps, each moving `src` elements through the
/// source and `dst` elements through the destination (either may be
/// negative, as a reverse reads, or zero, as a tile reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Axis {
    pub len: usize,
    pub src: isize,
    pub dst: isize,
}

impl Axis {
    pub fn new(len: usize, src: isize, dst: isize) -> Axis {
        Axis { len, src, dst }
    }
}

/// A strided copy, checked against both tensors' sizes when it is made so
/// that applying it cannot index out of bounds. Offsets and strides are in
/// bytes; the innermost `run` bytes are contiguous on both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StridedCopy {
    src_start: usize,
    dst_start: usize,
    run: usize,
    /// Outermost first; none of length 0 or 1.
    axes: Vec<Axis>,
    empty: bool,
}

/// Row-major strides (in elements) of `shape`.
pub fn strides(shape: &[usize]) -> Vec<isize> {
    let mut s = vec![1isize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1] as isize;
    }
    s
}

/// The lowest and highest element offsets a walk from `start` reaches.
fn reach(start: usize, axes: &[Axis], stride: impl Fn(&Axis) -> isize) -> (isize, isize) {
    axes.iter()
        .fold((start as isize, start as isize), |(lo, hi), a| {
            let span = stride(a) * (a.len as isize - 1);
            (lo + span.min(0), hi + span.max(0))
        })
}

impl StridedCopy {
    /// Copies `element`-byte elements from `src_start` (in elements) of a
    /// source of `src_len` elements to `dst_start` of a destination of
    /// `dst_len`, along `axes` (outermost first).
    pub fn new(
        element: usize,
        src_start: usize,
        dst_start: usize,
        axes: &[Axis],
        src_len: usize,
        dst_len: usize,
    ) -> Result<StridedCopy> {
        let empty = axes.iter().any(|a| a.len == 0);
        if !empty {
            let (lo, hi) = reach(src_start, axes, |a| a.src);
            ensure!(
                lo >= 0 && (hi as usize) < src_len,
                "the copy reads elements {lo}..={hi} of a {src_len}-element tensor"
            );
            let (lo, hi) = reach(dst_start, axes, |a| a.dst);
            ensure!(
                lo >= 0 && (hi as usize) < dst_len,
                "the copy writes elements {lo}..={hi} of a {dst_len}-element tensor"
            );
        }
        // Drop unit axes, then merge each axis into its outer neighbour
        // where together they step evenly on both sides.
        let mut merged: Vec<Axis> = Vec::new();
        for &a in axes.iter().filter(|a| a.len != 1) {
            match merged.last_mut() {
                Some(outer)
                    if outer.src == a.src * a.len as isize
                        && outer.dst == a.dst * a.len as isize =>
                {
                    *outer = Axis::new(outer.len * a.len, a.src, a.dst);
                }
                _ => merged.push(a),
            }
        }
        let mut run = element;
        if let Some(inner) = merged.last() {
            if inner.src == 1 && inner.dst == 1 {
                run *= inner.len;
                merged.pop();
            }
        }
        let e = element as isize;
        Ok(StridedCopy {
            src_start: src_start * element,
            dst_start: dst_start * element,
            run,
            axes: merged
                .into_iter()
                .map(|a| Axis::new(a.len, a.src * e, a.dst * e))
                .collect(),
            empty,
        })
    }

    /// The whole of a tensor of `len` elements, copied as it is.
    pub fn whole(element: usize, len: usize) -> Result<StridedCopy> {
        StridedCopy::new(element, 0, 0, &[Axis::new(len, 1, 1)], len, len)
    }

    /// Copies from `src` into `dst`, the tensors it was made for.
    pub fn apply(&self, src: &[u8], dst: &mut [u8]) {
        if self.empty {
            return;
        }
        match self.run {
            1 => self.walk::<1>(src, dst),
            2 => self.walk::<2>(src, dst),
            4 => self.walk::<4>(src, dst),
            8 => self.walk::<8>(src, dst),
            _ => self.walk::<0>(src, dst),
        }
    }

    /// The walk, with runs of `N` bytes (0: of `self.run` bytes, however
    /// many) so that the common element sizes copy without a call.
    fn walk<const N: usize>(&self, src: &[u8], dst: &mut [u8]) {
        let run = if N == 0 { self.run } else { N };
        let Some((inner, outer)) = self.axes.split_last() else {
            dst[self.dst_start..self.dst_start + run]
                .copy_from_slice(&src[self.src_start..self.src_start + run]);
            return;
        };
        let mut index = vec![0usize; outer.len()];
        let (mut s, mut d) = (self.src_start as isize, self.dst_start as isize);
        loop {
            let (mut si, mut di) = (s, d);
            for _ in 0..inner.len {
                let (a, b) = (si as usize, di as usize);
                dst[b..b + run].copy_from_slice(&src[a..a + run]);
                si += inner.src;
                di += inner.dst;
            }
            // The odometer over the outer axes, innermost first.
            let mut k = outer.len();
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                let axis = &outer[k];
                index[k] += 1;
                s += axis.src;
                d += axis.dst;
                if index[k] < axis.len {
                    break;
                }
                index[k] = 0;
                s -= axis.src * axis.len as isize;
                d -= axis.dst * axis.len as isize;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(c: &StridedCopy, src: &[u8], dst_len: usize) -> Vec<u8> {
        let mut dst = vec![0; dst_len];
        c.apply(src, &mut dst);
        dst
    }

    #[test]
    fn contiguous_axes_merge_into_one_run() {
        let s = strides(&[2, 3, 4]);
        let axes: Vec<Axis> = [2, 3, 4]
            .iter()
            .zip(&s)
            .map(|(&n, &st)| Axis::new(n, st, st))
            .collect();
        let c = StridedCopy::new(2, 0, 0, &axes, 24, 24).unwrap();
        assert_eq!((c.run, c.axes.len()), (48, 0));
    }

    #[test]
    fn transposes_and_reverses() {
        // [[0, 1, 2], [3, 4, 5]] transposed, then with its rows reversed.
        let src: Vec<u8> = (0..6).collect();
        let t = StridedCopy::new(1, 0, 0, &[Axis::new(3, 1, 2), Axis::new(2, 3, 1)], 6, 6);
        assert_eq!(apply(&t.unwrap(), &src, 6), [0, 3, 1, 4, 2, 5]);
        let r = StridedCopy::new(1, 2, 0, &[Axis::new(2, 3, 3), Axis::new(3, -1, 1)], 6, 6);
        assert_eq!(apply(&r.unwrap(), &src, 6), [2, 1, 0, 5, 4, 3]);
    }

    #[test]
    fn tiles_with_zero_strides() {
        let src = [7u8, 8];
        let c = StridedCopy::new(1, 0, 0, &[Axis::new(3, 0, 2), Axis::new(2, 1, 1)], 2, 6);
        assert_eq!(apply(&c.unwrap(), &src, 6), [7, 8, 7, 8, 7, 8]);
    }

    #[test]
    fn refuses_a_walk_outside_either_tensor() {
        assert!(StridedCopy::new(1, 1, 0, &[Axis::new(3, -1, 1)], 4, 4).is_err());
        assert!(StridedCopy::new(1, 0, 2, &[Axis::new(3, 1, 1)], 4, 4).is_err());
        assert!(StridedCopy::new(1, 9, 9, &[Axis::new(0, 1, 1)], 4, 4).is_ok());
    }
}
