"""Operators that move elements (model/src/tflite/host/layout.rs)."""

import numpy as np
from tflite_ref import Model, S

O = S.BuiltinOperator


def gather(rng, dtype, shape, axis, indices):
    m = Model()
    scale = None if dtype == np.float32 else 0.5
    x = m.tensor(shape, dtype, scale, 0)
    indices = np.asarray(indices, np.int32)
    t = m.tensor(list(indices.shape), np.int32, None, None, indices)
    a = axis % len(shape)
    out = shape[:a] + list(indices.shape) + shape[a + 1:]
    y = m.tensor(out, dtype, scale, 0)
    o = S.GatherOptionsT()
    o.axis = axis
    m.op(O.GATHER, [x, t], [y], S.BuiltinOptions.GatherOptions, o)
    if dtype == np.float32:
        return m, [rng.normal(0, 1, shape).astype(np.float32)]
    info = np.iinfo(dtype)
    return m, [rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)]


CASES = {
    "gather_int8_channels": lambda r: gather(r, np.int8, [1, 4, 3, 16], 3, r.permutation(16)[:11]),
    "gather_int8_rows_2d_indices": lambda r: gather(r, np.int8, [6, 5], 0, [[5, 0, 2], [2, 2, 1]]),
    "gather_int8_negative_axis": lambda r: gather(r, np.int8, [2, 7, 3], -2, [6, 0, 6, 3]),
    "gather_float32_width": lambda r: gather(r, np.float32, [1, 3, 9, 4], 2, [8, 1, 1, 0, 4]),
}
