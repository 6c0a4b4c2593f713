"""QUANTIZE, DEQUANTIZE and CAST (model/src/tflite/host/quantize.rs): float
inputs with exact rounding ties, values past the output type's range, signed
zeros, infinities and NaN; integer inputs over their type's whole range."""

import numpy as np
from tflite_ref import Model, S

O = S.BuiltinOperator


def float_values(rng, shape, scale, dtype):
    """Random values over 1.5x the type's real range, every fourth an exact tie k + 0.5 steps, and the
    values C leaves undefined when converted (beyond int32, infinities, NaN)."""
    info = np.iinfo(dtype)
    n = int(np.prod(shape))
    v = rng.uniform(info.min * 1.5, info.max * 1.5, n) * scale
    ties = (rng.integers(info.min, info.max, n) + 0.5) * scale
    v[::4] = ties[::4]
    v[:7] = [0.0, -0.0, 1e12, -1e12, np.inf, -np.inf, np.nan]
    return v.astype(np.float32).reshape(shape)


def integer_values(dtype, n=4096):
    info = np.iinfo(dtype)
    n = min(int(info.max) - int(info.min) + 1, n)
    return np.linspace(info.min, info.max, n).round().astype(dtype).reshape(1, n)


def quantize(rng, dtype, scale, zp):
    m = Model()
    shape = [2, 5, 7, 3]
    x = m.tensor(shape, np.float32, None, None)
    y = m.tensor(shape, dtype, scale, zp)
    m.op(O.QUANTIZE, [x], [y])
    return m, [float_values(rng, shape, scale, dtype)]


def requantize(rng, src, dst, in_q, out_q):
    m = Model()
    values = integer_values(src)
    x = m.tensor(values.shape, src, *in_q)
    y = m.tensor(values.shape, dst, *out_q)
    m.op(O.QUANTIZE, [x], [y])
    return m, [values]


def dequantize(rng, dtype, scale, zp):
    m = Model()
    values = integer_values(dtype)
    x = m.tensor(values.shape, dtype, scale, zp)
    y = m.tensor(values.shape, np.float32, None, None)
    m.op(O.DEQUANTIZE, [x], [y])
    return m, [values]


def cast(rng, src, dst):
    m = Model()
    if src == np.float32:
        values = float_values(rng, [1, 257], 300.0, np.int16)
        values[0, 7:40] = rng.uniform(-3, 3, 33)
        values[0, 40:44] = [2.5, -2.5, 2**31, -(2**31)]
    else:
        values = integer_values(src, 2048)
    x = m.tensor(values.shape, src, None, None)
    y = m.tensor(values.shape, dst, None, None)
    m.op(O.CAST, [x], [y])
    return m, [values]


INTEGERS = [np.int8, np.int16, np.int32]
CASES = {
    "quantize_f32_int8": lambda r: quantize(r, np.int8, 0.0625, -3),
    "quantize_f32_int8_odd_scale": lambda r: quantize(r, np.int8, 0.0371, 7),
    "quantize_f32_int16": lambda r: quantize(r, np.int16, 1 / 3000, 0),
    "requantize_int8_int8": lambda r: requantize(r, np.int8, np.int8, (0.05, 3), (0.0371, -9)),
    "requantize_int8_uint8_shift": lambda r: requantize(r, np.int8, np.uint8, (0.05, 3), (0.05, 131)),
    "requantize_int8_int16": lambda r: requantize(r, np.int8, np.int16, (0.05, -7), (0.001, 0)),
    "requantize_int8_int32": lambda r: requantize(r, np.int8, np.int32, (0.05, -7), (0.0003, 5)),
    "requantize_uint8_int8": lambda r: requantize(r, np.uint8, np.int8, (0.02, 128), (0.03, 1)),
    "requantize_int16_int8": lambda r: requantize(r, np.int16, np.int8, (0.001, 0), (0.06, -4)),
    "requantize_int16_int16": lambda r: requantize(r, np.int16, np.int16, (0.001, 0), (0.0007, 0)),
    "requantize_int16_int32": lambda r: requantize(r, np.int16, np.int32, (0.001, 0), (0.00002, 0)),
    "requantize_int32_int8": lambda r: requantize(r, np.int32, np.int8, (1e-7, 0), (0.01, 2)),
    "requantize_int32_int16": lambda r: requantize(r, np.int32, np.int16, (1e-6, 0), (0.004, 0)),
    "dequantize_int8_f32": lambda r: dequantize(r, np.int8, 0.0371, 7),
    "dequantize_uint8_f32": lambda r: dequantize(r, np.uint8, 0.05, 128),
    "dequantize_int16_f32": lambda r: dequantize(r, np.int16, 1 / 3000, 0),
    **{f"cast_{np.dtype(a).name}_{np.dtype(b).name}": (lambda a, b: lambda r: cast(r, a, b))(a, b)
       for a in INTEGERS + [np.float32] for b in INTEGERS + [np.float32]},
}
