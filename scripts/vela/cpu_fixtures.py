#!/usr/bin/env python3
"""One-operator (or short-chain) models of the operators the host runs in
place of the CPU (model/src/tflite/host/), with TensorFlow Lite Micro's
outputs, for model/tests/cpu_ops.rs.

Usage (after scripts/vela/setup.sh):

    scripts/.venv/bin/python scripts/vela/cpu_fixtures.py [FAMILY ...]

Each family module in scripts/vela/host_cases/ (quantize, elementwise,
binary, conv, reduce, layout, sequence) holds CASES: name -> function of a
numpy Generator returning (tflite_ref.Model, [input arrays]). For each
case this writes model/tests/fixtures/cpu_ops/<family>/<case>/:
model.tflite, input<i>.bin, expected<i>.bin (the interpreter's outputs) and
reference.txt, which names the interpreter: TensorFlow Lite Micro, or
LiteRT's reference kernels for the few operators TFLite Micro has no kernel
for (NOT_IN_TFLITE_MICRO). A case TFLite Micro refuses for any other reason
is an error: the host takes what TFLite Micro takes. Without arguments
every family is written; with arguments only those (their folders are
replaced, the others left as they are).
"""

import importlib
import shutil
import sys
from pathlib import Path

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from tflite_micro.python.tflite_micro import runtime

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

OUT = HERE.parent.parent / "model" / "tests" / "fixtures" / "cpu_ops"
FAMILIES = ["quantize", "elementwise", "binary", "conv", "reduce", "layout", "sequence"]
# Builtin operators TFLite Micro has no kernel for (its AllOpsResolver at the
# pinned tflite-micro); LiteRT's reference kernels are their reference.
NOT_IN_TFLITE_MICRO = {"RELU_N1_TO_1", "RELU_0_TO_1", "GELU", "TILE"}


def tflite_micro(source, inputs, outputs):
    it = runtime.Interpreter.from_bytes(source, arena_size=16 << 20)
    for i, value in enumerate(inputs):
        it.set_input(value, i)
    it.invoke()
    return [it.get_output(i) for i in range(outputs)]


def litert(source, inputs):
    it = Interpreter(model_content=source, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    for detail, value in zip(it.get_input_details(), inputs):
        it.set_tensor(detail["index"], value)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


def operator_names(m):
    from ai_edge_litert import schema_py_generated as S
    names = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_")}
    return {names[code] for code, _ in m.codes}


def write_family(family):
    module = importlib.import_module(f"host_cases.{family}")
    out = OUT / family
    shutil.rmtree(out, ignore_errors=True)
    for name, make in module.CASES.items():
        rng = np.random.default_rng([2026, *f"{family}/{name}".encode()])
        m, xs = make(rng)
        if not m.inputs:
            m.inputs = [0]
        if not m.outputs:
            m.outputs = [len(m.tensors) - 1]
        source = m.to_bytes()
        ops = operator_names(m)
        lacking = ops & NOT_IN_TFLITE_MICRO
        if lacking:
            expected = litert(source, xs)
            reference = f"LiteRT reference kernels: TFLite Micro has no {', '.join(sorted(lacking))}"
        else:
            try:
                expected = tflite_micro(source, xs, len(m.outputs))
            except RuntimeError as e:
                raise SystemExit(f"{family}/{name}: TFLite Micro refuses the case: {e}")
            reference = "TFLite Micro"
        d = out / name
        d.mkdir(parents=True)
        (d / "model.tflite").write_bytes(source)
        for i, x in enumerate(xs):
            (d / f"input{i}.bin").write_bytes(np.ascontiguousarray(x).tobytes())
        for i, y in enumerate(expected):
            (d / f"expected{i}.bin").write_bytes(np.ascontiguousarray(y).tobytes())
        (d / "reference.txt").write_text(reference + "\n")
        shapes = ", ".join(f"{y.dtype} {list(y.shape)}" for y in expected)
        print(f"{family}/{name}: {reference}; outputs {shapes}")


def main():
    families = sys.argv[1:] or FAMILIES
    unknown = set(families) - set(FAMILIES)
    if unknown:
        raise SystemExit(f"unknown families {sorted(unknown)}; they are {FAMILIES}")
    for family in families:
        write_family(family)


if __name__ == "__main__":
    main()
