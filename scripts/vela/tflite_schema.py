#!/usr/bin/env python3
"""Write the part of TensorFlow Lite's schema that `npu_model::tflite` reads.

Usage (after scripts/vela/setup.sh; needs planus-cli 1.3: `cargo install planus-cli`):

    scripts/.venv/bin/python scripts/vela/tflite_schema.py
    planus rust -o model/src/tflite/schema_generated.rs model/src/tflite/schema.fbs

Writes model/src/tflite/schema.fbs (the tables and leading fields the loader
reads, with TensorType) and model/src/tflite/names.rs (the names of
builtin operators and tensor types, for messages), taking
enum values and names from the schema module of the pinned ai-edge-litert.
"""

from pathlib import Path

from ai_edge_litert import schema_py_generated as S

OUT = Path(__file__).resolve().parent.parent.parent / "model" / "src" / "tflite"

TABLES = '''
table QuantizationParameters {
  min:[float];
  max:[float];
  scale:[float];
  zero_point:[long];
}

table Tensor {
  shape:[int];
  type:TensorType;
  buffer:uint;
  name:string;
  quantization:QuantizationParameters;
  is_variable:bool = false;
}

// In the full schema builtin_options is a union of every operator's options
// table. The host runs only GATHER among operators with options, so the field
// is declared as GatherOptions: read it only when builtin_options_type is
// GATHER_OPTIONS (names.rs).
table Operator {
  opcode_index:uint;
  inputs:[int];
  outputs:[int];
  builtin_options_type:ubyte;
  builtin_options:GatherOptions;
}

table GatherOptions {
  axis:int;
  batch_dims:int = 0;
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
        f"namespace tflite;\n\nenum TensorType : byte {{\n{types}}}\n{TABLES}")
    tables = []
    for name, enum in (("BUILTIN_OPERATORS", S.BuiltinOperator), ("TENSOR_TYPES", S.TensorType)):
        values = members(enum)
        if [v for v, _ in values] != list(range(len(values))):
            raise RuntimeError(f"{name}: codes are not 0..n")
        rows = "".join(f'    "{k}",\n' for _, k in values)
        tables.append(f"pub const {name}: [&str; {len(values)}] = [\n{rows}];\n")
    tables.append("/// The `builtin_options_type` of GATHER's options (schema.fbs `BuiltinOptions`).\n"
                  f"pub const GATHER_OPTIONS: u8 = {S.BuiltinOptions.GatherOptions};\n")
    (OUT / "names.rs").write_text(
        "//! TensorFlow Lite's names of builtin operators and tensor types by code\n"
        "//! (schema.fbs `BuiltinOperator`, `TensorType`), written by\n"
        "//! scripts/vela/tflite_schema.py.\n\n" + "\n".join(tables))

if __name__ == "__main__":
    main()
