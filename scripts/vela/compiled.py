"""Job fixtures from whole TFLite models compiled by Vela's compiler (the `vela`
command), for operators Vela lowers into long sequences of NPU operations that
its low-level API cannot express, such as SOFTMAX (CLZ, SHL, SHR, int32
arithmetic, REDUCE_SUM and LUTs).

The compiled model's `ethos-u` operator names its command stream (a COP1
driver payload), the read-only tensor (region 0), the scratch arena (region 1)
and the fast scratch (region 2), then the network's inputs and outputs, whose
places in the arena Vela records in the model's OfflineMemoryAllocation
metadata. The expected outputs come from the TFLite Micro interpreter (LiteRT's
reference kernels where TFLite Micro has no kernel for the case) running the
original (uncompiled) model (tflite_ref.Model.run_all).
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from ai_edge_litert import schema_py_generated as S

# Vela's U65 defaults, named so the compiler does not warn about them.
VELA_OPTIONS = ["--config", "Arm/vela.ini", "--system-config", "Ethos_U65_Client_Server",
                "--memory-mode", "Dedicated_Sram_384KB"]
ETHOS_U_INPUTS = [b"ethos_u_command_stream", b"read_only", b"scratch", b"scratch_fast"]


def compile_bytes(model_bytes, config):
    """Vela's output file (model_vela.tflite) for `model_bytes` and `config`."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "model.tflite"
        src.write_bytes(model_bytes)
        subprocess.run([sys.executable, "-m", "ethosu.vela", str(src), "--accelerator-config", f"ethos-{config}",
                        "--output-dir", tmp, *VELA_OPTIONS], check=True, capture_output=True)
        return (Path(tmp) / "model_vela.tflite").read_bytes()


def compile_model(model_bytes, config):
    """The Vela-compiled model (flatbuffer object) of `model_bytes` for `config`."""
    return S.ModelT.InitFromPackedBuf(compile_bytes(model_bytes, config), 0)


def write_job(root: Path, name, config, model, inputs, description):
    """Compiles the single-subgraph T.Model `model` with Vela, runs it with TFLite
    on `inputs` (in model input order) and writes the job folder; the whole
    network must run on the NPU."""
    expected = model.run_all([v[None] for v in inputs])
    compiled = compile_model(model.to_bytes(), config)
    sg = compiled.subgraphs[0]
    if len(sg.operators) != 1 or compiled.operatorCodes[sg.operators[0].opcodeIndex].customCode != b"ethos-u":
        raise RuntimeError(f"{name}: Vela left operators on the CPU")
    op = sg.operators[0]
    names = [sg.tensors[t].name for t in op.inputs[:4]]
    if names != ETHOS_U_INPUTS:
        raise RuntimeError(f"{name}: unexpected ethos-u operands {names}")
    cmd, read_only, scratch, fast = op.inputs[:4]
    io_in, io_out = op.inputs[4:], list(op.outputs)
    offsets = next(np.frombuffer(bytes(compiled.buffers[m.buffer].data), dtype="<i4")[3:]
                   for m in compiled.metadata if m.name == b"OfflineMemoryAllocation")

    def data(t):
        blob = compiled.buffers[sg.tensors[t].buffer].data
        return b"" if blob is None else bytes(blob)

    def size(t):
        return int(sg.tensors[t].shape[0])

    d = root / name
    d.mkdir(parents=True)
    (d / "cmd.bin").write_bytes(data(cmd))
    arena = bytearray(max([size(scratch)] + [int(offsets[t]) + v.nbytes for t, v in zip(io_in, inputs)]
                          + [int(offsets[t]) + expected[o].nbytes for t, o in zip(io_out, model.outputs)]))
    for t, v in zip(io_in, inputs):
        arena[offsets[t]:offsets[t] + v.nbytes] = v.tobytes()
    regions = []
    for index, blob in ((0, data(read_only)), (1, bytes(arena)), (2, bytes(size(fast)))):
        if blob:
            (d / f"region{index}.bin").write_bytes(blob)
            regions.append({"index": index, "file": f"region{index}.bin", "size": len(blob)})
    outputs = []
    for k, (t, tensor) in enumerate(zip(io_out, model.outputs)):
        out = f"ofm{k}" if len(io_out) > 1 else "ofm"
        blob = expected[tensor].tobytes()
        (d / f"{out}.expected.bin").write_bytes(blob)
        outputs.append({"name": out, "region": 1, "offset": int(offsets[t]), "size": len(blob),
                        "expected": f"{out}.expected.bin"})
    job = {"config": config, "command_stream": "cmd.bin", "regions": regions, "outputs": outputs,
           "description": description.replace("TFLite interpreter", f"{model.interpreter} interpreter")
           + (f" ({model.why})" if model.why else "")}
    (d / "job.json").write_text(json.dumps(job, indent=2) + "\n")


NETWORKS = Path(__file__).resolve().parent.parent.parent / "model" / "tests" / "fixtures" / "networks"


def network_dirs(description):
    """The bundled network folders, or those a script's --only names."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", metavar="NAME[,NAME]", help="only these networks")
    args = ap.parse_args()
    if args.only is None:
        return sorted(p for p in NETWORKS.iterdir() if p.is_dir())
    dirs = [NETWORKS / name for name in args.only.split(",")]
    missing = [d.name for d in dirs if not d.is_dir()]
    if missing:
        ap.error(f"no network folders {missing}")
    return dirs
