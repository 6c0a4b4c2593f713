//! The reciprocals of the padded average pool's division (TRM 3.3.7.1: the
//! scaling unit divides in average pooling; TRM 4.8.2 table 4-122: kernel
//! at most 8x8, so a window holds 1 to 64 IFM elements).
//!
//! The golden model divides the window sum s by its count n of IFM elements
//! rounding half away from zero (`npu_model::fixed::divide_round_away`):
//! sign(s) * floor((2|s| + n) / 2n). The Scaler computes it with its own
//! multiply and shift: x = 2s + sign(s) n (the accumulator doubled plus a
//! bias of +-n) times [`reciprocal`]`(n).0`, shifted right by
//! [`reciprocal`]`(n).1` with truncation toward zero (its truncate rounding),
//! which restores the sign. The table is exact for every |x| below
//! [`NUMERATOR_LIMIT`] (64 elements of a 16-bit IFM minus its zero point:
//! |s| <= 64 * 65535), as the tests below prove.
//!
//! # Ports
//!
//! `count` (1..=64; anything else gives scale 0) in, `scale` and `shift`
//! out, combinational: a 64-entry table.

use rust_hdl::prelude::*;

/// Every numerator 2|s| + n of a window of at most 64 16-bit differences
/// (|s| <= 64 * 65535) is below this.
pub const NUMERATOR_LIMIT: u64 = 1 << 24;

/// The scale R and shift S that divide by 2n: R = ceil(2^S / 2n) with
/// S = 32 + floor(log2 n), so R <= 2^31 + 1 fits the Scaler's 32-bit
/// scale; floor(N R / 2^S) = floor(N / 2n) while N (R 2n - 2^S) < 2^S,
/// which holds for every N below [`NUMERATOR_LIMIT`] (R 2n - 2^S < 2n <=
/// 128 = 2^7, and 2^24 * 2^7 <= 2^S).
pub fn reciprocal(n: u64) -> (u64, u64) {
    assert!((1..=64).contains(&n), "a window holds 1 to 64 elements");
    let shift = 32 + u64::from(63 - n.leading_zeros());
    let divisor = 2 * n;
    ((1u64 << shift).div_ceil(divisor), shift)
}

#[derive(LogicBlock)]
pub struct Reciprocals {
    pub count: Signal<In, Bits<7>>,
    pub scale: Signal<Out, Bits<32>>,
    pub shift: Signal<Out, Bits<6>>,
    /// Entry n - 1: the scale of count n in bits 32(n-1)+31..32(n-1), its
    /// shift in bits 6(n-1)+5..6(n-1).
    scales: Constant<Bits<2048>>,
    shifts: Constant<Bits<384>>,
    /// n - 1.
    entry: Signal<Local, Bits<11>>,
}

impl Default for Reciprocals {
    fn default() -> Self {
        let mut scales = Bits::<2048>::default();
        let mut shifts = Bits::<384>::default();
        for n in 1..=64u64 {
            let (scale, shift) = reciprocal(n);
            let at = (n - 1) as usize;
            scales = scales | (Bits::<2048>::from(scale) << ((32 * at) as u64));
            shifts = shifts | (Bits::<384>::from(shift) << ((6 * at) as u64));
        }
        Self {
            count: Default::default(),
            scale: Default::default(),
            shift: Default::default(),
            scales: Constant::new(scales),
            shifts: Constant::new(shifts),
            entry: Default::default(),
        }
    }
}

impl Logic for Reciprocals {
    #[hdl_gen]
    fn update(&mut self) {
        // The table read by shifting it (a log-depth shifter), not by 64
        // comparisons one after another.
        self.entry.next = bit_cast::<11, 7>(self.count.val() - 1);
        self.scale.next = 0.into();
        self.shift.next = 0.into();
        if (self.count.val() != 0) & (self.count.val() <= 64) {
            self.scale.next = bit_cast::<32, 2048>(self.scales.val() >> (self.entry.val() << 5));
            self.shift.next = bit_cast::<6, 384>(
                self.shifts.val() >> ((self.entry.val() << 2) + (self.entry.val() << 1)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound of the doc comment, per count: the error of R times the
    /// largest numerator stays below 2^S, and R fits 32 bits.
    #[test]
    fn every_reciprocal_is_exact_below_the_numerator_limit() {
        for n in 1..=64u64 {
            let (scale, shift) = reciprocal(n);
            assert!(scale < 1 << 32, "count {n}: scale {scale}");
            let error = scale * 2 * n - (1u64 << shift);
            assert!(error < 2 * n, "count {n}: R is not ceil(2^S / 2n)");
            assert!(
                u128::from(NUMERATOR_LIMIT) * u128::from(error) < 1u128 << shift,
                "count {n}: numerators up to 2^24 are not exact"
            );
        }
    }

    /// The division as the Scaler makes it, x = 2s + sign(s) n truncated,
    /// against `divide_round_away` next to multiples of n and half-way
    /// points (where the result changes): the first 300 of them and 5000
    /// spread over the whole sum range, and at its ends.
    #[test]
    fn the_scaled_division_rounds_half_away_from_zero() {
        let s_max = 64 * 65535i64;
        for n in 1..=64i64 {
            let (scale, shift) = reciprocal(n as u64);
            let divide = |s: i64| {
                let x = 2 * s + if s < 0 { -n } else { n };
                let q = (x.unsigned_abs() as u128 * scale as u128) >> shift;
                x.signum() * q as i64
            };
            let mut sums = vec![-s_max, s_max, 0];
            let step = 1 + (s_max / n / 5000) as usize;
            let multiples = (0..300).chain((0..=s_max / n + 1).step_by(step));
            for m in multiples {
                for d in [-1, 0, 1] {
                    for half in [0, n / 2] {
                        sums.extend([m * n + half + d, -(m * n + half + d)]);
                    }
                }
            }
            for s in sums.into_iter().filter(|s| s.abs() <= s_max) {
                assert_eq!(
                    divide(s),
                    npu_model::fixed::divide_round_away(s, n),
                    "sum {s} / count {n}"
                );
            }
        }
    }
}
