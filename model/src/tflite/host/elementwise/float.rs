//! The float32 elementwise operators: the libm functions TFLite's
//! reference kernels call (`std::exp(float)` is `expf`, and so on), with
//! their comparisons written as the C++ writes them, so that NaN and the
//! signed zeros come out the same.

use super::{cpp_max, cpp_min, gelu, Kernel};
use crate::tflite::host::{kernel, OpDesc};
use anyhow::{bail, Result};
use std::sync::Arc;

pub(super) fn build(op: &OpDesc, name: &'static str) -> Result<Arc<dyn Kernel>> {
    Ok(match name {
        "ABS" => map(name, f32::abs),
        "NEG" => map(name, |x| -x),
        "RSQRT" => map(name, |x| 1.0 / x.sqrt()),
        "SQRT" => map(name, f32::sqrt),
        "SQUARE" => map(name, |x| x * x),
        "SIN" => map(name, f32::sin),
        "COS" => map(name, f32::cos),
        "EXP" => map(name, f32::exp),
        "LOG" => map(name, f32::ln),
        "FLOOR" => map(name, f32::floor),
        "CEIL" => map(name, f32::ceil),
        "ROUND" => map(name, round_half_to_even),
        "LOGISTIC" => map(name, logistic),
        "TANH" => map(name, f32::tanh),
        "HARD_SWISH" => map(name, |x| x * cpp_min(6.0, cpp_max(0.0, x + 3.0)) / 6.0),
        "RELU" => map(name, |x| if x < 0.0 { 0.0 } else { x }),
        "RELU6" => map(name, |x| clamp(x, 0.0, 6.0)),
        "RELU_N1_TO_1" => map(name, |x| clamp(x, -1.0, 1.0)),
        "RELU_0_TO_1" => map(name, |x| clamp(x, 0.0, 1.0)),
        "LEAKY_RELU" => {
            let alpha = options!(op, LeakyReluOptions).alpha;
            map(name, move |x| if x > 0.0 { x } else { x * alpha })
        }
        "ELU" => map(name, |x| if x < 0.0 { x.exp_m1() } else { x }),
        "GELU" => gelu::float_kernel(options!(op, GeluOptions).approximate),
        other => bail!("{other} has no float32 kernel"),
    })
}

/// A kernel applying `f` to every element.
pub(super) fn map(
    name: &'static str,
    f: impl Fn(f32) -> f32 + Send + Sync + 'static,
) -> Arc<dyn Kernel> {
    kernel(name, move |io| {
        let (x, y) = io.input_output(0, 0);
        for (xi, yi) in x.chunks_exact(4).zip(y.chunks_exact_mut(4)) {
            let v = f32::from_le_bytes([xi[0], xi[1], xi[2], xi[3]]);
            yi.copy_from_slice(&f(v).to_le_bytes());
        }
        Ok(())
    })
}

/// `x > high ? high : x < low ? low : x`, as the RELU kernels write it
/// (NaN passes).
fn clamp(x: f32, low: f32, high: f32) -> f32 {
    if x > high {
        high
    } else if x < low {
        low
    } else {
        x
    }
}

/// reference_ops::Logistic: 1 above the upper cutoff, exp(x) below the
/// lower, 1 / (1 + exp(-x)) between.
pub(in crate::tflite::host) fn logistic(x: f32) -> f32 {
    const CUTOFF_UPPER: f32 = 16.619_047;
    const CUTOFF_LOWER: f32 = -9.0;
    if x > CUTOFF_UPPER {
        1.0
    } else if x < CUTOFF_LOWER {
        x.exp()
    } else {
        1.0 / (1.0 + (-x).exp())
    }
}

/// reference_ops::RoundToNearest: ties to even, through floor; -0.5
/// gives +0 (floor -1, plus one).
fn round_half_to_even(x: f32) -> f32 {
    let floor = x.floor();
    let diff = x - floor;
    // The parity test casts to int, which only matters below 2^23, where
    // ties exist at all.
    if diff < 0.5 || (diff == 0.5 && (floor as i32) % 2 == 0) {
        floor
    } else {
        floor + 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_ties_to_even_as_tflite() {
        let bits = |x: f32| round_half_to_even(x).to_bits();
        assert_eq!(bits(2.5), 2f32.to_bits());
        assert_eq!(bits(3.5), 4f32.to_bits());
        assert_eq!(bits(-2.5), (-2f32).to_bits());
        assert_eq!(bits(-0.5), 0f32.to_bits());
        assert_eq!(bits(-0.3), 0f32.to_bits());
        assert_eq!(bits(-0.0), (-0f32).to_bits());
        assert!(round_half_to_even(f32::NAN).is_nan());
        assert_eq!(round_half_to_even(f32::INFINITY), f32::INFINITY);
    }

    #[test]
    fn comparisons_pass_nan_as_the_cpp_does() {
        assert!(clamp(f32::NAN, 0.0, 6.0).is_nan());
        assert_eq!(logistic(20.0), 1.0);
        assert_eq!(logistic(-10.0), (-10f32).exp());
    }
}
