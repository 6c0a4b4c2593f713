"""MEAN, SUM, REDUCE_MAX, REDUCE_MIN, ARG_MAX and ARG_MIN (model/src/tflite/host/reduce.rs) in every type
TFLite Micro takes: constant axes in any order, negative, repeated and all of them, keep_dims true and
false, the 4D mean over height and width (reference_ops::Mean's special case) and the means Vela leaves on
the CPU (over the depth of 1x160x3x3), equal and different input and output quantisation, counts that are
not powers of two and large enough to clamp MEAN's shift, saturation, float infinities and NaN, ties."""

import numpy as np
from tflite_ref import Model, S

O = S.BuiltinOperator
BO = S.BuiltinOptions
I8, I16, F32 = np.int8, np.int16, np.float32
FLOAT_SPECIALS = [np.inf, -np.inf, np.nan, -0.0, 3e38, 3e38, -3e38, -3e38]


def values(rng, dtype, shape, specials=False):
    n = int(np.prod(shape))
    if dtype == np.float32:
        v = rng.standard_normal(n) * 4
        if specials:
            v[:len(FLOAT_SPECIALS)] = FLOAT_SPECIALS
        return v.astype(np.float32).reshape(shape)
    info = np.iinfo(dtype)
    v = rng.integers(info.min, info.max, n, endpoint=True)
    v[:2] = [info.min, info.max]
    return v.astype(dtype).reshape(shape)


def reduced_shape(shape, axes, keep):
    rank = len(shape)
    axes = {a % rank for a in axes}
    return [1 if d in axes else n for d, n in enumerate(shape) if keep or d not in axes]


def reduce(code, dtype, shape, axes, keep, q=None, gen=None, specials=False, runtime_axes=False):
    """A one-operator model `code(input, axes)` with `axes` an int32 tensor, constant unless
    `runtime_axes` (then the second graph input); `q` the input's and output's (scale, zero point)
    when quantised."""
    qi, qo = q or ((None, None),) * 2

    def make(rng):
        x = gen(rng, dtype, shape) if gen else values(rng, dtype, shape, specials)
        m = Model()
        tx = m.tensor(shape, dtype, *qi)
        a = np.array(axes, np.int32)
        ta = m.tensor([len(axes)], np.int32, None, None, data=None if runtime_axes else a)
        ty = m.tensor(reduced_shape(shape, axes, keep), dtype, *qo)
        o = S.ReducerOptionsT()
        o.keepDims = keep
        m.op(code, [tx, ta], [ty], BO.ReducerOptions, o)
        m.inputs, m.outputs = ([tx, ta], [ty]) if runtime_axes else ([tx], [ty])
        return m, [x, a] if runtime_axes else [x]
    return make


def arg(code, dtype, shape, axis, q=None, gen=None, specials=False, runtime_axis=False):
    """ARG_MAX or ARG_MIN of `shape` along `axis`, into int32; the axis tensor the second graph input
    when `runtime_axis`."""
    def make(rng):
        x = gen(rng, dtype, shape) if gen else values(rng, dtype, shape, specials)
        m = Model()
        tx = m.tensor(shape, dtype, *(q or (None, None)))
        a = np.array([axis], np.int32)
        ta = m.tensor([1], np.int32, None, None, data=None if runtime_axis else a)
        ty = m.tensor([n for d, n in enumerate(shape) if d != axis % len(shape)], np.int32, None, None)
        kind, cls = (BO.ArgMaxOptions, S.ArgMaxOptionsT) if code == O.ARG_MAX else (BO.ArgMinOptions,
                                                                                     S.ArgMinOptionsT)
        o = cls()
        o.outputType = S.TensorType.INT32
        m.op(code, [tx, ta], [ty], kind, o)
        m.inputs, m.outputs = ([tx, ta], [ty]) if runtime_axis else ([tx], [ty])
        return m, [x, a] if runtime_axis else [x]
    return make


def few(lo, hi):
    """Integers in [lo, hi]: many ties."""
    return lambda rng, dtype, shape: rng.integers(lo, hi, shape, endpoint=True).astype(dtype)


def rows_of_infinities(rng, dtype, shape):
    """Floats whose first row is all -inf, second all +inf and third all NaN."""
    x = values(rng, dtype, shape)
    x[0, 0], x[0, 1], x[0, 2] = -np.inf, np.inf, np.nan
    return x


SAME8 = ((0.05, -3), (0.05, -3))
DIFF8 = ((0.05, -3), (0.02, 7))
V160 = [1, 160, 3, 3]

CASES = {
    # MEAN float32
    "mean_float32_hw_keep_dims": reduce(O.MEAN, F32, [2, 5, 4, 3], [1, 2], True),
    "mean_float32_wh_keep_dims": reduce(O.MEAN, F32, [2, 5, 4, 3], [2, 1], True),
    "mean_float32_hw": reduce(O.MEAN, F32, [2, 5, 4, 3], [1, 2], False),
    "mean_float32_depth_1x160x3x3": reduce(O.MEAN, F32, V160, [3], True),
    "mean_float32_axis1_1x160x3x3": reduce(O.MEAN, F32, V160, [1], False),
    "mean_float32_negative_repeated": reduce(O.MEAN, F32, [3, 4, 5], [-1, 2, 0], False),
    "mean_float32_all_axes_rank5": reduce(O.MEAN, F32, [2, 3, 2, 2, 3], [4, 0, 3, 1, 2], True),
    "mean_float32_specials": reduce(O.MEAN, F32, [4, 2, 3], [1], False, specials=True),
    "mean_float32_rank1": reduce(O.MEAN, F32, [37], [0], False),
    # MEAN int8 and int16
    "mean_int8_hw_keep_dims_same_quantization": reduce(O.MEAN, I8, [1, 5, 7, 8], [1, 2], True, SAME8),
    "mean_int8_hw_requantized": reduce(O.MEAN, I8, [2, 4, 4, 6], [1, 2], True, DIFF8),
    "mean_int8_hw_no_keep_dims": reduce(O.MEAN, I8, [2, 4, 4, 6], [2, 1], False, SAME8),
    "mean_int8_depth_1x160x3x3": reduce(O.MEAN, I8, V160, [3], True, DIFF8),
    "mean_int8_depth_1x160x3x3_same_quantization": reduce(O.MEAN, I8, V160, [-1], True, SAME8),
    "mean_int8_axis1_1x160x3x3": reduce(O.MEAN, I8, V160, [1], True, ((0.1, 12), (0.08, -20))),
    "mean_int8_rounding_ties": reduce(O.MEAN, I8, [4, 2, 8], [1], False, ((0.1, 0), (0.1, 0)), gen=few(-9, 9)),
    "mean_int8_all_axes_large_count": reduce(O.MEAN, I8, [1, 32, 32, 8], [0, 1, 2, 3], False,
                                             ((0.5, -128), (0.001, 3))),
    "mean_int8_saturating": reduce(O.MEAN, I8, [3, 6, 5], [-2], True, ((0.1, 0), (0.01, 0))),
    "mean_int8_negative_repeated_rank5": reduce(O.MEAN, I8, [2, 3, 2, 4, 2], [-1, 1, 4, -4], False, DIFF8),
    "mean_int16_hw_keep_dims": reduce(O.MEAN, I16, [1, 6, 6, 8], [1, 2], True, ((0.001, 0), (0.001, 0))),
    "mean_int16_requantized": reduce(O.MEAN, I16, [2, 5, 9], [0, 2], False, ((0.0004, 0), (0.0001, 0))),
    "mean_int8_runtime_axes": reduce(O.MEAN, I8, [2, 4, 3, 5], [-1, 1], False, DIFF8, runtime_axes=True),
    "mean_float32_runtime_axes_keep_dims": reduce(O.MEAN, F32, [2, 5, 4, 3], [2, 1], True, runtime_axes=True),
    "mean_int16_depth_1x160x3x3": reduce(O.MEAN, I16, V160, [3], True, ((0.001, 0), (0.0007, 0))),
    # SUM
    "sum_float32_keep_dims": reduce(O.SUM, F32, [3, 4, 5], [0, 2], True),
    "sum_float32_specials": reduce(O.SUM, F32, [4, 2, 3], [-2], False, specials=True),
    "sum_float32_all_axes": reduce(O.SUM, F32, [2, 3, 4], [2, 1, 0], False),
    "sum_int8_requantized": reduce(O.SUM, I8, [2, 6, 5], [1], False, ((0.01, 4), (0.08, -2))),
    "sum_int8_same_quantization_saturating": reduce(O.SUM, I8, [3, 4, 5], [2], True, SAME8),
    "sum_int8_negative_repeated": reduce(O.SUM, I8, [2, 3, 4, 5], [-1, 1, 3], True, ((0.02, 0), (0.3, 5))),
    "sum_int16_runtime_axes": reduce(O.SUM, I16, [3, 4, 5], [0, -1, 0], True, ((0.001, 0), (0.004, 0)),
                                     runtime_axes=True),
    "sum_int16": reduce(O.SUM, I16, [4, 3, 6], [0, 1], False, ((0.0001, 0), (0.002, 0))),
    "sum_int16_saturating": reduce(O.SUM, I16, [2, 8, 3], [1], True, ((0.001, 0), (0.001, 0))),
    # REDUCE_MAX, REDUCE_MIN
    **{f"{name}_float32_infinities": reduce(code, F32, [3, 4, 5], [-1], False, gen=rows_of_infinities)
       for name, code in [("reduce_max", O.REDUCE_MAX), ("reduce_min", O.REDUCE_MIN)]},
    "reduce_max_float32_hw_keep_dims": reduce(O.REDUCE_MAX, F32, [2, 4, 3, 5], [1, 2], True, specials=True),
    "reduce_min_float32_all_axes": reduce(O.REDUCE_MIN, F32, [3, 2, 4], [0, 1, 2], False),
    "reduce_max_int8": reduce(O.REDUCE_MAX, I8, [2, 3, 4, 5], [3, 1], False, SAME8),
    "reduce_min_int8_keep_dims": reduce(O.REDUCE_MIN, I8, [2, 3, 4, 5], [-3, 0], True, SAME8),
    "reduce_max_int8_negative_repeated": reduce(O.REDUCE_MAX, I8, [4, 6, 3], [-1, 2, 0], False, SAME8),
    "reduce_max_float32_runtime_axes": reduce(O.REDUCE_MAX, F32, [3, 4, 5], [1], True, runtime_axes=True),
    "reduce_min_int8_rank5": reduce(O.REDUCE_MIN, I8, [2, 2, 3, 2, 3], [1, 4], True, SAME8),
    # ARG_MAX, ARG_MIN
    **{f"{name}_float32_ties_nan": arg(code, F32, [3, 7], -1, specials=True,
                                       gen=lambda r, d, s: np.array([[1, 3, 3, 0, 3, 1, 2],
                                                                     [np.nan, 1, 5, -2, 5, -2, 0],
                                                                     [2, np.nan, 7, -1, np.nan, 7, -1]], d))
       for name, code in [("arg_max", O.ARG_MAX), ("arg_min", O.ARG_MIN)]},
    "arg_max_float32_axis0": arg(O.ARG_MAX, F32, [5, 3, 4], 0),
    "arg_min_float32_rank4": arg(O.ARG_MIN, F32, [2, 3, 4, 5], 2),
    "arg_max_int8_ties": arg(O.ARG_MAX, I8, [2, 6, 5], 1, SAME8[0], gen=few(-3, 3)),
    "arg_min_int8_ties": arg(O.ARG_MIN, I8, [2, 6, 5], -2, SAME8[0], gen=few(-3, 3)),
    "arg_max_int8_rank6": arg(O.ARG_MAX, I8, [2, 1, 3, 2, 2, 4], 5, SAME8[0]),
    "arg_max_int8_runtime_axis": arg(O.ARG_MAX, I8, [3, 5, 4], -1, SAME8[0], runtime_axis=True),
    "arg_min_float32_runtime_axis": arg(O.ARG_MIN, F32, [4, 6], 0, runtime_axis=True),
    "arg_min_int8_axis0": arg(O.ARG_MIN, I8, [7, 9], 0),
}
