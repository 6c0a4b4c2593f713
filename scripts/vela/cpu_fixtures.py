#!/usr/bin/env python3
"""One-operator models of the operators Vela leaves on the CPU that npu-sim
runs on the host (model/src/tflite/cpu.rs), with TensorFlow Lite Micro's
outputs, for model/tests/cpu_ops.rs.

Usage (after scripts/vela/setup.sh):

    scripts/.venv/bin/python scripts/vela/cpu_fixtures.py

Writes model/tests/fixtures/cpu_ops/<case>/: model.tflite (one QUANTIZE,
DEQUANTIZE or GATHER), input.bin and expected.bin (the TFLite Micro
interpreter's output). Float inputs include exact rounding ties, values past
the output type's range and signed zeros; integer inputs cover their type's
whole range.
"""

import shutil
import sys
from pathlib import Path

import numpy as np
from ai_edge_litert import schema_py_generated as S
from tflite_micro.python.tflite_micro import runtime

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from tflite_ref import Model  # noqa: E402

OUT = HERE.parent.parent / "model" / "tests" / "fixtures" / "cpu_ops"
O = S.BuiltinOperator


def float_values(rng, shape, scale, dtype):
    """Random values over 1.5x the type's real range, with every fourth one an exact tie k + 0.5 steps."""
    info = np.iinfo(dtype)
    n = int(np.prod(shape))
    v = rng.uniform(info.min * 1.5, info.max * 1.5, n) * scale
    ties = (rng.integers(info.min, info.max, n) + 0.5) * scale
    v[::4] = ties[::4]
    v[:2] = [0.0, -0.0]
    return v.astype(np.float32).reshape(shape)


def quantize(rng, dtype, scale, zp):
    m = Model()
    shape = [2, 5, 7, 3]
    x = m.tensor(shape, np.float32, None, None)
    y = m.tensor(shape, dtype, scale, zp)
    m.op(O.QUANTIZE, [x], [y])
    return m, [float_values(rng, shape, scale, dtype)]


def dequantize(rng, dtype, scale, zp):
    m = Model()
    info = np.iinfo(dtype)
    n = min(info.max - info.min + 1, 4096)
    x = m.tensor([1, n], dtype, scale, zp)
    y = m.tensor([1, n], np.float32, None, None)
    m.op(O.DEQUANTIZE, [x], [y])
    values = np.linspace(info.min, info.max, n).round().astype(dtype)
    return m, [values.reshape(1, n)]


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
    "quantize_f32_int8": lambda r: quantize(r, np.int8, 0.0625, -3),
    "quantize_f32_int8_odd_scale": lambda r: quantize(r, np.int8, 0.0371, 7),
    "quantize_f32_int16": lambda r: quantize(r, np.int16, 1 / 3000, 0),
    "dequantize_int8_f32": lambda r: dequantize(r, np.int8, 0.0371, 7),
    "dequantize_uint8_f32": lambda r: dequantize(r, np.uint8, 0.05, 128),
    "dequantize_int16_f32": lambda r: dequantize(r, np.int16, 1 / 3000, 0),
    "gather_int8_channels": lambda r: gather(r, np.int8, [1, 4, 3, 16], 3, r.permutation(16)[:11]),
    "gather_int8_rows_2d_indices": lambda r: gather(r, np.int8, [6, 5], 0, [[5, 0, 2], [2, 2, 1]]),
    "gather_int8_negative_axis": lambda r: gather(r, np.int8, [2, 7, 3], -2, [6, 0, 6, 3]),
    "gather_float32_width": lambda r: gather(r, np.float32, [1, 3, 9, 4], 2, [8, 1, 1, 0, 4]),
}


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    for name, make in CASES.items():
        rng = np.random.default_rng([2026, *name.encode()])
        m, xs = make(rng)
        m.inputs, m.outputs = [0], [len(m.tensors) - 1]
        source = m.to_bytes()
        it = runtime.Interpreter.from_bytes(source, arena_size=1 << 20)
        it.set_input(xs[0], 0)
        it.invoke()
        expected = it.get_output(0)
        d = OUT / name
        d.mkdir(parents=True)
        (d / "model.tflite").write_bytes(source)
        (d / "input.bin").write_bytes(xs[0].tobytes())
        (d / "expected.bin").write_bytes(expected.tobytes())
        print(f"{name}: input {xs[0].dtype} {list(xs[0].shape)}, output {expected.dtype} {list(expected.shape)}")


if __name__ == "__main__":
    main()
