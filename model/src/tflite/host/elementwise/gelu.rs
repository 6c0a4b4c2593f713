//! GELU as LiteRT's reference kernels compute it (TFLite Micro has none).
//!
//! Quantised GELU is a table of `GeluTransform` (reference/gelu.h), single
//! precision through libm's `erfcf` and `tanhf`. Float32 GELU instead
//! evaluates an Eigen array expression, so it gets Eigen's own vectorised
//! `erfc` and `tanh` rational approximations, as the LiteRT build compiles
//! them: SSE packets of four floats, no FMA (so every multiply-add rounds
//! twice), `EIGEN_FAST_MATH`. The elements after the last whole packet go
//! through Eigen's scalar path, which is the same arithmetic except that
//! erfc's exp(-x^2) there is libm's `expf` rather than Eigen's polynomial.

use crate::tflite::host::{kernel, Kernel};
use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI};
use std::sync::Arc;

extern "C" {
    /// C's `erfcf`, which Rust's standard library does not have.
    fn erfcf(x: f32) -> f32;
}

fn libm_erfc(x: f32) -> f32 {
    // SAFETY: erfcf is a pure function of its argument.
    unsafe { erfcf(x) }
}

/// sqrt(2 / pi), computed in double and stored as float (gelu.h).
const SQRT_2_OVER_PI: f32 = (FRAC_2_SQRT_PI * FRAC_1_SQRT_2) as f32;
const MINUS_FRAC_1_SQRT_2: f32 = -FRAC_1_SQRT_2 as f32;

/// `GeluTransform`: 0.5 x erfc(-x / sqrt 2).
fn exact(x: f32) -> f32 {
    0.5 * x * libm_erfc(x * MINUS_FRAC_1_SQRT_2)
}

/// `GeluTransformApproximate`: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
/// the cube taken as ((0.044715 x) x) x.
fn approximate(x: f32) -> f32 {
    0.5 * x * (1.0 + (SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)).tanh())
}

/// The transform the quantised kernels tabulate.
pub(super) fn transform(approximate_form: bool) -> fn(f32) -> f32 {
    if approximate_form {
        approximate
    } else {
        exact
    }
}

/// Float32 GELU (reference_ops::Gelu's Eigen expressions).
pub(super) fn float_kernel(approximate_form: bool) -> Arc<dyn Kernel> {
    kernel("GELU", move |io| {
        let (x, y) = io.input_output(0, 0);
        let n = x.len() / 4;
        let in_packets = n - n % PACKET;
        for (i, (xi, yi)) in x.chunks_exact(4).zip(y.chunks_exact_mut(4)).enumerate() {
            let v = f32::from_le_bytes([xi[0], xi[1], xi[2], xi[3]]);
            let g = if approximate_form {
                // 0.5 * x * (1 + tanh(k * (x + 0.044715 * x.cube())))
                let cube = v * v * v;
                0.5 * v * (1.0 + eigen::tanh(SQRT_2_OVER_PI * (v + 0.044715 * cube)))
            } else {
                // 0.5 * x * (x * -sqrt(1/2)).erfc()
                let exp = if i < in_packets { eigen::exp } else { f32::exp };
                0.5 * v * eigen::erfc(v * MINUS_FRAC_1_SQRT_2, exp)
            };
            yi.copy_from_slice(&g.to_le_bytes());
        }
        Ok(())
    })
}

/// Floats in one SSE packet.
const PACKET: usize = 4;

/// Eigen's float functions, lane by lane (GenericPacketMathFunctions.h,
/// SpecialFunctionsImpl.h, as of the LiteRT 2.3 build). The constants are
/// Eigen's literals, digit for digit.
#[allow(clippy::excessive_precision)]
mod eigen {
    /// `pmin(a, b)`: SSE `minps(b, a)`, which returns `a` when either is NaN.
    fn min(a: f32, b: f32) -> f32 {
        if b < a {
            b
        } else {
            a
        }
    }

    /// `pmax(a, b)`: SSE `maxps(b, a)`.
    fn max(a: f32, b: f32) -> f32 {
        if a < b {
            b
        } else {
            a
        }
    }

    /// `ppolevl`: Horner's rule, highest coefficient first.
    fn polevl(x: f32, coefficients: &[f32]) -> f32 {
        coefficients[1..]
            .iter()
            .fold(coefficients[0], |acc, &c| acc * x + c)
    }

    /// 2^e as a float from its biased exponent bits (`preinterpret` of the
    /// integer shifted into place).
    fn pow2_bits(biased: i32) -> f32 {
        f32::from_bits(biased.wrapping_shl(23) as u32)
    }

    /// `pldexp_fast`: one multiply by 2^m, the biased exponent clamped to
    /// [0, 255].
    fn ldexp_fast(y: f32, m: f32) -> f32 {
        y * pow2_bits(min(max(m + 127.0, 0.0), 255.0) as i32)
    }

    /// `pldexp_generic`: y * 2^m in four steps, which keeps underflow to
    /// subnormals (and its rounding) as Eigen has it.
    fn ldexp_generic(y: f32, m: f32) -> f32 {
        let e = min(max(m, -278.0), 278.0) as i32;
        let b = e >> 2;
        let c = pow2_bits(b + 127);
        y * c * c * c * pow2_bits(e - 3 * b + 127)
    }

    /// `pexp_float`: exp(m ln 2 + r) as 2^m times a degree-6 polynomial in
    /// r, ln 2 subtracted in two parts. A packet with any |x| > 87 takes
    /// the safe ldexp for all its lanes, which only changes those lanes.
    pub fn exp(input: f32) -> f32 {
        let x = min(input, 88.723);
        let m = (x * std::f32::consts::LOG2_E + 0.5).floor();
        let r = m * -0.693359375 + x;
        let r = m * 2.12194440e-4 + r;
        let r2 = r * r;
        let p_even = r2 * 1.37449637986719608306884765625e-3 + 4.166965186595916748046875e-2;
        let p_odd = r2 * 8.36894474923610687255859375e-3 + 0.16666518151760101318359375;
        let p_even = r2 * p_even + 0.49999988079071044921875;
        let y = r * p_odd + p_even;
        let y = r2 * y + (r + 1.0);
        if 87.0 < x.abs() {
            if input < -104.0 {
                0.0
            } else {
                max(ldexp_generic(y, m), input)
            }
        } else {
            max(ldexp_fast(y, m), input)
        }
    }

    /// `twoprod_low` without FMA: the low part of x * y given fl(x * y),
    /// by Veltkamp splitting (12 bits) and Dekker's product.
    fn twoprod_low(x: f32, y: f32, xy: f32) -> f32 {
        let split = |v: f32| {
            let gamma = 4097.0 * v;
            let hi = (v - gamma) + gamma;
            (hi, v - hi)
        };
        let (x_hi, x_lo) = split(x);
        let (y_hi, y_lo) = split(y);
        let p = x_hi * y_hi + -xy;
        let p = x_hi * y_lo + p;
        let p = x_lo * y_hi + p;
        x_lo * y_lo + p
    }

    /// `generic_fast_erfc<float>`: 1 + x S(x^2) for |x| <= 1, else
    /// exp(-x^2) (corrected by the low part of x^2) times a rational
    /// function of 1/x^2, plus 2 for negative x; `exp` is Eigen's packet
    /// exp or, on the scalar path, libm's.
    pub fn erfc(input: f32, exp: fn(f32) -> f32) -> f32 {
        const ALPHA: [f32; 6] = [
            5.61802298761904239654541015625e-04,
            -4.91381669417023658752441406250e-03,
            2.67075151205062866210937500000e-02,
            -1.12800106406211853027343750000e-01,
            3.76122951507568359375000000000e-01,
            -1.12837910652160644531250000000e+00,
        ];
        const GAMMA: [f32; 4] = [
            1.0208116471767425537109375e-01,
            4.2920666933059692382812500e-01,
            3.2379078865051269531250000e-01,
            5.3971976041793823242187500e-02,
        ];
        const DELTA: [f32; 5] = [
            1.7251677811145782470703125e-02,
            3.9137163758277893066406250e-01,
            1.0000000000000000000000000e+00,
            6.2173241376876831054687500e-01,
            9.5662862062454223632812500e-02,
        ];
        let x = min(max(input, -11.0), 11.0);
        let x2 = x * x;
        // NaN takes the polynomial, as Eigen's select on `1 < x2` does.
        if x2 <= 1.0 || x2.is_nan() {
            return x * polevl(x2, &ALPHA) + 1.0;
        }
        let x2_lo = twoprod_low(x, x, x2);
        let exp2_hi = exp(-x2);
        let z = exp2_hi - exp2_hi * x2_lo;
        let q2 = 1.0 / x2;
        let r = polevl(q2, &GAMMA) / (x * polevl(q2, &DELTA));
        let maybe_two = if x < 0.0 { 2.0 } else { 0.0 };
        z * r + maybe_two
    }

    /// `ptanh_float` (the 9/8-degree rational form, clamped where it reaches
    /// one without FMA).
    pub fn tanh(input: f32) -> f32 {
        const CLAMP: f32 = 7.90738964080810547;
        const ALPHA: [f32; 4] = [
            1.394553628e-8,
            2.102733560e-5,
            3.520756727e-3,
            1.340216100e-1,
        ];
        const BETA: [f32; 5] = [
            8.015776984e-7,
            3.326951409e-4,
            2.597254514e-2,
            4.673548340e-1,
            1.0,
        ];
        let x = max(min(input, CLAMP), -CLAMP);
        let x2 = x * x;
        let x3 = x2 * x;
        (x3 * polevl(x2, &ALPHA) + x) / polevl(x2, &BETA)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn approximations_are_close() {
            for v in [-20.0f32, -3.0, -0.5, 0.0, 0.7, 5.0, 80.0] {
                let e = exp(v);
                assert!(
                    (e - v.exp()).abs() <= 2e-7 * v.exp().max(1e-30),
                    "exp({v}) = {e}"
                );
            }
            assert_eq!(exp(-200.0), 0.0);
            assert_eq!(exp(f32::INFINITY), f32::INFINITY);
            for v in [-12.0f32, -2.0, -0.3, 0.0, 0.9, 1.5, 4.0, 20.0] {
                let e = erfc(v, exp);
                let want = super::super::libm_erfc(v);
                assert!(
                    (e - want).abs() <= 1e-6 * want.max(1e-30),
                    "erfc({v}) = {e}"
                );
            }
            for v in [-9.0f32, -1.0, 0.1, 2.0] {
                assert!((tanh(v) - v.tanh()).abs() < 1e-6);
            }
            assert!(erfc(f32::NAN, exp).is_nan());
        }
    }
}
