#!/usr/bin/env python3
"""Write the part of TensorFlow Lite's schema that `npu_model::tflite` reads.

Usage (after scripts/vela/setup.sh; needs planus-cli 1.3: `cargo install planus-cli`):

    scripts/.venv/bin/python scripts/vela/tflite_schema.py
    planus rust -o model/src/tflite/schema_generated.rs model/src/tflite/schema.fbs

Writes model/src/tflite/schema.fbs (the tables and leading fields the loader
reads, with TensorType and the BuiltinOptions union) and
model/src/tflite/names.rs (the names of builtin operators and tensor types,
for messages), taking enum values, names and the options tables' fields
(slot, type, default) from the schema module of the pinned ai-edge-litert.
The options tables the host's kernels read (OPTIONS) get their fields; the
union's other members are declared empty, which a reader of their
operators' options does not need.
"""

import inspect
import re
from pathlib import Path

from ai_edge_litert import schema_py_generated as S

OUT = Path(__file__).resolve().parent.parent.parent / "model" / "src" / "tflite"

TABLES = '''
table CustomQuantization {
  custom:[ubyte];
}

union QuantizationDetails {
  CustomQuantization,
}

table QuantizationParameters {
  min:[float];
  max:[float];
  scale:[float];
  zero_point:[long];
  details:QuantizationDetails;
  quantized_dimension:int;
}

table Tensor {
  shape:[int];
  type:TensorType;
  buffer:uint;
  name:string;
  quantization:QuantizationParameters;
  is_variable:bool = false;
}

table Operator {
  opcode_index:uint;
  inputs:[int];
  outputs:[int];
  builtin_options:BuiltinOptions;
  custom_options:[ubyte];
  custom_options_format:byte;
  mutating_variable_inputs:[bool];
  intermediates:[int];
}

table SubGraph {
  tensors:[Tensor];
  inputs:[int];
  outputs:[int];
  operators:[Operator];
  name:string;
}

table OperatorCode {
  deprecated_builtin_code:byte;
  custom_code:string;
  version:int = 1;
  // A BuiltinOperator; an int here so a code newer than this schema still reads.
  builtin_code:int;
}

table Buffer {
  data:[ubyte] (force_align: 16);
  // With data empty: the bytes are [offset, offset + size) of the file
  // (models over 2 GB); 0 and 1 mean "not used".
  offset:ulong;
  size:ulong;
}

table Metadata {
  name:string;
  buffer:uint;
}

table Model {
  version:uint;
  operator_codes:[OperatorCode];
  subgraphs:[SubGraph];
  description:string;
  buffers:[Buffer];
  metadata_buffer:[int];
  metadata:[Metadata];
}

root_type Model;
file_identifier "TFL3";
'''


# The options tables the host's kernels read (model/src/tflite/host/).
OPTIONS = [
    "Conv2DOptions", "DepthwiseConv2DOptions", "Pool2DOptions", "SVDFOptions",
    "FullyConnectedOptions", "SoftmaxOptions", "ConcatenationOptions", "AddOptions",
    "ReshapeOptions", "ResizeBilinearOptions", "MulOptions", "PadOptions", "PadV2Options",
    "GatherOptions", "TransposeOptions", "ReducerOptions", "SubOptions", "DivOptions",
    "SqueezeOptions", "StridedSliceOptions", "SplitOptions", "SplitVOptions",
    "LeakyReluOptions", "PackOptions", "UnpackOptions", "ArgMaxOptions", "ArgMinOptions",
    "TransposeConvOptions", "MirrorPadOptions", "ResizeNearestNeighborOptions",
    "SpaceToDepthOptions", "DepthToSpaceOptions", "UnidirectionalSequenceLSTMOptions",
    "BatchMatMulOptions", "GeluOptions", "ShapeOptions", "CastOptions", "ReverseV2Options",
    "TileOptions", "GatherNdOptions", "FillOptions", "ZerosLikeOptions", "ExpandDimsOptions",
    "SquaredDifferenceOptions", "MaximumMinimumOptions", "HardSwishOptions", "LogSoftmaxOptions",
    "AbsOptions", "NegOptions", "ExpOptions",
]

SCALARS = {"Int8": "byte", "Uint8": "ubyte", "Int16": "short", "Uint16": "ushort",
           "Int32": "int", "Uint32": "uint", "Int64": "long", "Uint64": "ulong",
           "Float32": "float", "Float64": "double", "Bool": "bool"}


def fields(cls):
    """The fields of a reader class of schema_py_generated: (slot, name, type, default)."""
    out = {}
    for name, method in vars(cls).items():
        if name.startswith("_") or name in ("Init", "GetRootAs") or not callable(method):
            continue
        if re.search(r"(AsNumpy|Length|IsNone)$", name) or name.startswith("GetRootAs"):
            continue
        src = inspect.getsource(method)
        offset = re.search(r"Offset\((\d+)\)", src)
        if offset is None:
            continue
        slot = (int(offset.group(1)) - 4) // 2
        snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
        scalar = re.search(r"number_types\.(?!UOffsetT)(\w+)Flags", src)
        if "self._tab.Vector(o)" in src:
            if scalar is None:
                raise RuntimeError(f"{cls.__name__}.{name}: a vector of tables")
            kind = f"[{SCALARS[scalar.group(1)]}]"
            default = None
        elif "self._tab.String" in src:
            kind, default = "string", None
        elif scalar is not None:
            kind = SCALARS[scalar.group(1)]
            default = re.findall(r"return (.+)", src)[-1].strip()
            default = {"False": "false", "True": "true"}.get(default, default)
        else:
            raise RuntimeError(f"{cls.__name__}.{name}: unknown field kind")
        out[slot] = (snake, kind, default)
    rows = []
    for slot in range(max(out, default=-1) + 1):
        name, kind, default = out.get(slot, (f"unused_slot_{slot}", "byte", None))
        value = "" if default in (None, "0", "0.0", "false") else f" = {default}"
        rows.append(f"  {name}:{kind}{value};\n")
    return "".join(rows)


def options_tables():
    members_ = [k for _, k in members(S.BuiltinOptions) if k != "NONE"]
    missing = set(OPTIONS) - set(members_)
    if missing:
        raise RuntimeError(f"not in BuiltinOptions: {missing}")
    tables = "".join(f"table {k} {{\n{fields(getattr(S, k)) if k in OPTIONS else ''}}}\n\n"
                     for k in members_)
    union = "".join(f"  {k},\n" for k in members_)
    return f"{tables}union BuiltinOptions {{\n{union}}}\n"


def members(enum):
    return sorted((v, k) for k, v in vars(enum).items() if not k.startswith("_"))


def main():
    types = "".join(f"  {k} = {v},\n" for v, k in members(S.TensorType))
    (OUT / "schema.fbs").write_text(
        "// The part of TensorFlow Lite's model schema (tensorflow/lite/schema/schema.fbs,\n"
        "// schema version 3) that `npu_model::tflite` reads, written by\n"
        "// scripts/vela/tflite_schema.py. Every table keeps its leading fields in schema\n"
        "// order, so field ids match the full schema; later fields are left out, which a\n"
        "// FlatBuffers reader ignores.\n\n"
        f"namespace tflite;\n\nenum TensorType : byte {{\n{types}}}\n\n{options_tables()}{TABLES}")
    tables = []
    for name, enum in (("BUILTIN_OPERATORS", S.BuiltinOperator), ("TENSOR_TYPES", S.TensorType)):
        values = members(enum)
        if [v for v, _ in values] != list(range(len(values))):
            raise RuntimeError(f"{name}: codes are not 0..n")
        rows = "".join(f'    "{k}",\n' for _, k in values)
        tables.append(f"pub const {name}: [&str; {len(values)}] = [\n{rows}];\n")
    (OUT / "names.rs").write_text(
        "//! TensorFlow Lite's names of builtin operators and tensor types by code\n"
        "//! (schema.fbs `BuiltinOperator`, `TensorType`), written by\n"
        "//! scripts/vela/tflite_schema.py.\n\n" + "\n".join(tables))

if __name__ == "__main__":
    main()
