"""Unary operators, activations and softmax (model/src/tflite/host/elementwise/): every int8 value,
int16 values over their whole range with the ends, float specials (signed zeros, infinities, NaN,
subnormals, exact ties, values at the kernels' cutoffs); scales whose multipliers are above and below
one, zero points at both ends, softmax beta and rows of equal values."""

import numpy as np
from tflite_ref import Model, S

O = S.BuiltinOperator
F32 = np.float32

FLOAT_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38,
                  0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1.0, -1.0, 6.0, 3.0, -3.0, 88.7, -87.3, 100.0, -100.0]


def float_values(rng, shape, spread=4.0, extra=()):
    """Random values (normal, `spread` wide) led by the specials and `extra`."""
    n = int(np.prod(shape))
    v = rng.normal(0, spread, n)
    lead = list(FLOAT_SPECIALS) + list(extra)
    v[:min(n, len(lead))] = lead[:n]
    return v.astype(F32).reshape(shape)


def int_values(dtype, shape, rng):
    """Every int8 value (the shape must hold 256) or, for int16, the ends, values near zero and a
    spread over the range."""
    n = int(np.prod(shape))
    info = np.iinfo(dtype)
    if dtype == np.int8:
        assert n == 256
        return rng.permutation(np.arange(-128, 128)).astype(dtype).reshape(shape)
    v = np.concatenate([[info.min, info.min + 1, info.max, info.max - 1, -1, 0, 1],
                        np.arange(-200, 200, 7), np.linspace(info.min, info.max, n)])
    return v[:n].round().astype(dtype).reshape(shape)


def unary(op, dtype, shape, in_q=(None, None), out_q=None, values=None, options=None, out_dtype=None):
    """A one-operator model of `op` (options: (type, object)) and a function making its input."""
    def make(rng):
        m = Model()
        x = m.tensor(shape, dtype, *in_q)
        y = m.tensor(shape, out_dtype or dtype, *(out_q if out_q is not None else in_q))
        if options:
            m.op(getattr(O, op), [x], [y], *options)
        else:
            m.op(getattr(O, op), [x], [y])
        if values is not None:
            xs = values(rng)
        elif dtype == F32:
            xs = float_values(rng, shape)
        else:
            xs = int_values(dtype, shape, rng)
        return m, [np.asarray(xs, dtype).reshape(shape)]
    return make


def leaky(alpha):
    o = S.LeakyReluOptionsT()
    o.alpha = alpha
    return S.BuiltinOptions.LeakyReluOptions, o


def gelu(approximate):
    o = S.GeluOptionsT()
    o.approximate = approximate
    return S.BuiltinOptions.GeluOptions, o


def softmax(beta):
    o = S.SoftmaxOptionsT()
    o.beta = beta
    return S.BuiltinOptions.SoftmaxOptions, o


def log_softmax():
    return S.BuiltinOptions.LogSoftmaxOptions, S.LogSoftmaxOptionsT()


def at_least(low):
    """Int values from `low` up (RSQRT is undefined below the zero point)."""
    def values(rng):
        return np.clip(np.arange(-128, 128), low, 127)
    return values


def floats(n, spread, extra=()):
    return lambda rng: float_values(rng, [n], spread, extra)


def ties(rng):
    """Exact halves and values around them, for FLOOR, CEIL and ROUND."""
    halves = (rng.integers(-50, 50, 120) + 0.5).astype(F32)
    near = halves + rng.choice([-1e-6, 1e-6], 120).astype(F32)
    return np.concatenate([float_values(rng, [60]), halves, near,
                           [8388607.5, -8388607.5, 8388608.0, 16777217.0, -0.49999997, 0.49999997]])


def rows_with_ties(dtype, shape, rng):
    """Softmax rows: random, then rows of equal values (one at each end) and a row with one
    outlier."""
    if dtype == F32:
        v = rng.normal(0, 3, shape).astype(F32)
        lo, hi = -5.0, 7.0
    else:
        info = np.iinfo(dtype)
        v = rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
        lo, hi = info.min, info.max
    flat = v.reshape(-1, shape[-1])
    flat[0, :] = hi
    flat[1, :] = lo
    flat[2, :] = lo
    flat[2, 3] = hi
    return v


def rows(dtype, shape):
    return lambda rng: rows_with_ties(dtype, shape, rng)


I8, I16 = np.int8, np.int16
ROW = [16, 16]  # 256 int8 values
BIG = [2, 3, 5, 13]  # 390 values over rank 4

CASES = {
    # ABS: float; int8 with and without rescaling; int16 symmetric and without quantisation.
    "abs_f32": unary("ABS", F32, [5, 40]),
    "abs_int8_same_scale": unary("ABS", I8, ROW, (0.05, -3), (0.05, 7)),
    "abs_int8_upscale_zp_min": unary("ABS", I8, ROW, (0.08, -128), (0.03, -128)),
    "abs_int8_downscale_zp_max": unary("ABS", I8, ROW, (0.02, 127), (0.05, -100)),
    "abs_int16": unary("ABS", I16, [3, 100], (0.001, 0), (0.0007, 0)),
    "abs_int16_same_scale": unary("ABS", I16, [3, 100], (0.001, 0), (0.001, 0)),
    "abs_int16_unquantised": unary("ABS", I16, [300]),
    "neg_f32": unary("NEG", F32, [200]),
    # RSQRT: 1/sqrt of values at or above the zero point; zero gives the maximum.
    "rsqrt_f32": unary("RSQRT", F32, [200]),
    "rsqrt_int8_zp_min": unary("RSQRT", I8, ROW, (0.05, -128), (0.02, -10)),
    "rsqrt_int8": unary("RSQRT", I8, ROW, (0.3, 10), (0.007, -128), values=at_least(10)),
    "rsqrt_int8_small_output_scale": unary("RSQRT", I8, ROW, (0.01, 0), (0.5, 5), values=at_least(0)),
    "rsqrt_int16": unary("RSQRT", I16, [300], (0.002, 0), (0.0005, 0),
                         values=lambda rng: np.concatenate([[0, 1, 2, 3, 4, 32767, 32766, 16384, 100],
                                                            rng.integers(0, 32768, 291)])),
    "sqrt_f32": unary("SQRT", F32, [200]),
    "square_f32": unary("SQUARE", F32, [200]),
    "sin_f32": unary("SIN", F32, [200], values=floats(200, 20.0, [3.1415927, 1e6, 1e30, -7e4])),
    "cos_f32": unary("COS", F32, [200], values=floats(200, 20.0, [1.5707964, 1e6, 1e30, -7e4])),
    "exp_f32": unary("EXP", F32, [200], values=floats(200, 30.0, [88.72283, 88.72284, -103.97, -87.33655])),
    "log_f32": unary("LOG", F32, [200], values=floats(200, 30.0, [1.0, 2.0, 0.999999, 1.0000001])),
    "floor_f32": unary("FLOOR", F32, [306], values=ties),
    "ceil_f32": unary("CEIL", F32, [306], values=ties),
    "round_f32": unary("ROUND", F32, [306], values=ties),
    # LOGISTIC: float around its cutoffs; int8 over gemmlowp with saturating radii; int16 on the
    # power-of-two scale and through the 15-bit multiplier.
    "logistic_f32": unary("LOGISTIC", F32, [300], values=floats(300, 8.0, [
        16.619047164916992, 16.619049, 16.619045, -9.0, -9.000001, -8.999999, -20.0, 30.0])),
    "logistic_int8": unary("LOGISTIC", I8, ROW, (0.05, 3), (1 / 256, -128)),
    "logistic_int8_wide_input": unary("LOGISTIC", I8, ROW, (0.25, -128), (1 / 256, -128)),
    "logistic_int8_narrow_input": unary("LOGISTIC", I8, ROW, (0.004, 127), (1 / 256, -128)),
    "logistic_int8_other_output_scale": unary("LOGISTIC", I8, ROW, (0.1, 0), (1 / 128, -128)),
    "logistic_int16_pot": unary("LOGISTIC", I16, [400], (1 / 4096, 0), (1 / 32768, 0)),
    "logistic_int16_pot_2_11": unary("LOGISTIC", I16, [400], (1 / 2048, 0), (1 / 32768, 0)),
    "logistic_int16_general": unary("LOGISTIC", I16, [400], (0.00031, 0), (1 / 32768, 0)),
    "logistic_int16_coarse": unary("LOGISTIC", I16, [400], (0.01, 0), (1 / 32768, 0)),
    "tanh_f32": unary("TANH", F32, [300], values=floats(300, 6.0, [9.01, -9.01, 1e-5, -1e-5, 20.0])),
    "tanh_int8": unary("TANH", I8, ROW, (0.03, -5), (1 / 128, 0)),
    "tanh_int8_wide_input_zp_max": unary("TANH", I8, ROW, (0.2, 127), (1 / 128, 0)),
    "tanh_int8_output_quant_ignored": unary("TANH", I8, ROW, (0.01, 0), (0.02, 40)),
    "tanh_int16_pot": unary("TANH", I16, [400], (1 / 4096, 0), (1 / 32768, 0)),
    "tanh_int16_pot_shift_1": unary("TANH", I16, [400], (1 / 2048, 0), (1 / 32768, 0)),
    "tanh_int16_general": unary("TANH", I16, [400], (0.00045, 0), (1 / 32768, 0)),
    "tanh_int16_fine": unary("TANH", I16, [400], (1e-5, 0), (1 / 32768, 0)),
    # HARD_SWISH: the relu-ish multiplier shifted left (large input scale) and right (small).
    "hard_swish_f32": unary("HARD_SWISH", F32, [300], values=floats(300, 4.0, [-3.0, 3.0, -3.0000002, 2.9999998])),
    "hard_swish_int8_left_shift": unary("HARD_SWISH", I8, ROW, (0.1, -20), (0.05, -60)),
    "hard_swish_int8_right_shift": unary("HARD_SWISH", I8, ROW, (0.002, 5), (0.001, -128)),
    "hard_swish_int8_zp_ends": unary("HARD_SWISH", I8, ROW, (0.04, 127), (0.02, 127)),
    "hard_swish_int8_output_exponent_0": unary("HARD_SWISH", I8, ROW, (0.064, -128), (0.000999, 100)),
    # RELU family: requantising (RELU, RELU_N1_TO_1, RELU_0_TO_1) and clamping the input (RELU6).
    "relu_f32": unary("RELU", F32, [5, 40]),
    "relu_int8": unary("RELU", I8, ROW, (0.05, -10), (0.03, -128)),
    "relu_int8_downscale_zp_max": unary("RELU", I8, ROW, (0.02, 127), (0.09, 20)),
    "relu_int16": unary("RELU", I16, [2, 5, 40], (0.001, 0), (0.0004, 0)),
    "relu6_f32": unary("RELU6", F32, [200]),
    "relu6_int8": unary("RELU6", I8, ROW, (0.03, -10), (0.5, 3)),
    "relu6_int8_six_beyond_range": unary("RELU6", I8, ROW, (0.1, 100), (0.1, 100)),
    "relu6_int16": unary("RELU6", I16, [400], (0.0003, 0), (0.0003, 0)),
    "relu_n1_to_1_f32": unary("RELU_N1_TO_1", F32, [200]),
    "relu_n1_to_1_int8": unary("RELU_N1_TO_1", I8, ROW, (0.02, 5), (0.01, -3)),
    "relu_n1_to_1_int8_wide": unary("RELU_N1_TO_1", I8, ROW, (0.2, -128), (0.3, 127)),
    "relu_0_to_1_f32": unary("RELU_0_TO_1", F32, [200]),
    "relu_0_to_1_int8": unary("RELU_0_TO_1", I8, ROW, (0.01, -128), (0.005, -128)),
    # LEAKY_RELU: alpha below one, negative and above one.
    "leaky_relu_f32": unary("LEAKY_RELU", F32, [200], options=leaky(0.2)),
    "leaky_relu_f32_negative_alpha": unary("LEAKY_RELU", F32, [200], options=leaky(-1.5)),
    "leaky_relu_int8": unary("LEAKY_RELU", I8, ROW, (0.05, 10), (0.04, -20), options=leaky(0.1)),
    "leaky_relu_int8_negative_alpha": unary("LEAKY_RELU", I8, ROW, (0.05, -128), (0.05, 0), options=leaky(-0.5)),
    "leaky_relu_int8_alpha_above_one": unary("LEAKY_RELU", I8, ROW, (0.02, 127), (0.1, -128), options=leaky(3.0)),
    "leaky_relu_int16": unary("LEAKY_RELU", I16, [400], (0.001, 0), (0.0008, 0), options=leaky(0.3)),
    "leaky_relu_int16_zero_points": unary("LEAKY_RELU", I16, [400], (0.001, 50), (0.002, -30), options=leaky(0.01)),
    # ELU: float expm1; int8 a table of float expf.
    "elu_f32": unary("ELU", F32, [200]),
    "elu_int8": unary("ELU", I8, ROW, (0.05, 20), (0.04, -50)),
    "elu_int8_fine": unary("ELU", I8, ROW, (0.005, -128), (0.003, 0)),
    # GELU (LiteRT): float32 through Eigen's packet functions (203 values: the last three take the
    # scalar path); int8 and int16 tables of erfcf and tanhf.
    "gelu_f32": unary("GELU", F32, [203], values=floats(203, 4.0, [-1.0000001, -0.99999994, 0.99999994,
                                                                     1.0000001, -11.5, 11.5, -5.3, 120.0, -95.0])),
    "gelu_f32_approximate": unary("GELU", F32, [7, 29], options=gelu(True)),
    "gelu_f32_exact_option": unary("GELU", F32, [2, 3, 5], options=gelu(False)),
    "gelu_int8": unary("GELU", I8, ROW, (0.04, -10), (0.03, -60), options=gelu(False)),
    "gelu_int8_approximate": unary("GELU", I8, ROW, (0.04, -10), (0.03, -60), options=gelu(True)),
    "gelu_int16": unary("GELU", I16, [400], (0.0002, 0), (0.00015, 0), options=gelu(False)),
    "gelu_int16_approximate": unary("GELU", I16, [400], (0.0002, 3), (0.00015, -7), options=gelu(True)),
    # SOFTMAX over the last axis, with beta, equal rows and every output type TFLite Micro takes.
    "softmax_f32": unary("SOFTMAX", F32, [4, 10], values=rows(F32, [4, 10]), options=softmax(1.0)),
    "softmax_f32_beta_rank3": unary("SOFTMAX", F32, [2, 3, 7], values=rows(F32, [2, 3, 7]), options=softmax(0.37)),
    "softmax_int8": unary("SOFTMAX", I8, [6, 12], (0.1, 3), (1 / 256, -128), values=rows(I8, [6, 12]),
                          options=softmax(1.0)),
    "softmax_int8_beta_rank1": unary("SOFTMAX", I8, [50], (0.05, -128), (1 / 256, -128),
                                     values=lambda rng: rng.integers(-128, 128, 50), options=softmax(2.5)),
    "softmax_int8_wide_scale": unary("SOFTMAX", I8, [5, 2, 9], (0.9, 0), (1 / 256, -128),
                                     values=rows(I8, [5, 2, 9]), options=softmax(1.0)),
    "softmax_int8_int16": unary("SOFTMAX", I8, [6, 12], (0.07, -4), (1 / 65536, -32768),
                                values=rows(I8, [6, 12]), options=softmax(1.0), out_dtype=I16),
    "softmax_int8_int16_beta": unary("SOFTMAX", I8, [3, 40], (0.02, 10), (1 / 65536, -32768),
                                     values=rows(I8, [3, 40]), options=softmax(0.4), out_dtype=I16),
    "softmax_int16": unary("SOFTMAX", I16, [6, 12], (0.001, 0), (1 / 32768, 0), values=rows(I16, [6, 12]),
                           options=softmax(1.0)),
    "softmax_int16_beta_rank5": unary("SOFTMAX", I16, [2, 1, 2, 3, 8], (0.0003, 0), (1 / 32768, 0),
                                      values=rows(I16, [2, 1, 2, 3, 8]), options=softmax(3.0)),
    "log_softmax_f32": unary("LOG_SOFTMAX", F32, [4, 10], values=rows(F32, [4, 10]), options=log_softmax()),
    "log_softmax_int8": unary("LOG_SOFTMAX", I8, [6, 12], (0.1, 3), (16 / 256, 127), values=rows(I8, [6, 12]),
                              options=log_softmax()),
    "log_softmax_int8_fine_rank3": unary("LOG_SOFTMAX", I8, [3, 4, 9], (0.01, -128), (16 / 256, 127),
                                         values=rows(I8, [3, 4, 9]), options=log_softmax()),
    "log_softmax_int8_coarse": unary("LOG_SOFTMAX", I8, [5, 20], (0.6, 0), (16 / 256, 127),
                                     values=rows(I8, [5, 20]), options=log_softmax()),
}
