#!/usr/bin/env python3
"""Write the reference table of Vela's block choices that
tb/tests/vela_blocks.rs holds npu_tb::vela_blocks to: random operations of
every kind, size, kernel, stride, dilation, resampling and width, and what
Vela 5.2.0's find_block_config (the function its command streams take
NPU_SET_OFM_BLK_*, IFM_IB_END, IFM2_IB_START and AB_START from) answers.

Usage (after scripts/vela/setup.sh):

    scripts/.venv/bin/python scripts/vela/block_configs.py \
        > tb/tests/fixtures/vela_block_configs.json
"""

import contextlib
import io
import json
import random
import sys

from ethosu.vela.architecture_allocator import find_block_config
from ethosu.vela.architecture_features import Accelerator, SHRAMElements, create_default_arch
from ethosu.vela.ethos_u55_regs.ethos_u55_regs import resampling_mode
from ethosu.vela.operation import Kernel, NpuBlockType
from ethosu.vela.shape4d import Shape4D

KINDS = {
    "convolution": NpuBlockType.ConvolutionMxN,
    "depthwise": NpuBlockType.ConvolutionDepthWise,
    "pooling": NpuBlockType.Pooling,
    "reduce_sum": NpuBlockType.ReduceSum,
    "elementwise": NpuBlockType.ElementWise,
}
# The register enum, as Vela's scheduler passes it (the API's
# NpuResamplingMode compares unequal to it, so Vela would upscale).
RESAMPLING = {
    "none": resampling_mode.NONE,
    "nearest": resampling_mode.NEAREST,
    "transpose": resampling_mode.TRANSPOSE,
}
CASES = 1500
SEED = 30


def dimension(rng, big):
    """Sizes from 1 to `big`, small ones as often as large ones."""
    return rng.choice([rng.randint(1, 8), rng.randint(1, big)])


def query(rng):
    kind = rng.choice(list(KINDS))
    bits = rng.choice([8, 8, 16, 32] if kind in ("reduce_sum", "elementwise") else [8, 8, 16])
    ofm = [dimension(rng, 64), dimension(rng, 96), dimension(rng, 160)]
    if rng.random() < 0.15:
        ofm[0] = 1
    kernel, stride, dilation, resampling = [1, 1], [1, 1], [1, 1], "none"
    if kind not in ("elementwise", "reduce_sum"):
        kernel = [rng.randint(1, 8), rng.randint(1, 8)]
        stride = [rng.randint(1, 3), rng.randint(1, 3)]
        dilation = [rng.choice([1, 1, 2]), rng.choice([1, 1, 2])]
        if kind == "convolution" and rng.random() < 0.15:
            resampling = rng.choice(["nearest", "transpose"])
    if kind == "reduce_sum":
        ofm[2] = 1
    if kind in ("convolution", "reduce_sum"):
        ifm_depth = dimension(rng, 160)
    else:
        ifm_depth = ofm[2]
    ifm = [
        max(1, (ofm[0] - 1) * stride[0] + (kernel[0] - 1) * dilation[0] + 1 - rng.randint(0, 2)),
        max(1, (ofm[1] - 1) * stride[1] + (kernel[1] - 1) * dilation[1] + 1 - rng.randint(0, 2)),
        ifm_depth,
    ]
    if resampling != "none":
        ifm = [max(1, ifm[0] // 2), max(1, ifm[1] // 2), ifm_depth]
    ifm2, scalar = None, False
    if kind == "elementwise":
        scalar = rng.random() < 0.2
        if not scalar:
            ifm2 = [rng.choice([1, n]) for n in ofm]
    return {
        "cores": rng.choice([1, 2]),
        "kind": kind,
        "ofm": ofm,
        "ifm": ifm,
        "ifm2": ifm2,
        "scalar": scalar,
        "ifm_bits": bits,
        "kernel": kernel,
        "stride": stride,
        "dilation": dilation,
        "lut": rng.random() < 0.1,
        "scaled": rng.random() < 0.8,
        "resampling": resampling,
    }


def answer(arches, q):
    arch = arches[q["cores"]]
    shape = lambda s: Shape4D(1, *s)  # noqa: E731
    kernel = Kernel(q["kernel"][1], q["kernel"][0], q["stride"][1], q["stride"][0],
                    q["dilation"][1], q["dilation"][0])
    config = find_block_config(
        arch, KINDS[q["kind"]], shape(q["ofm"]), shape(q["ifm"]),
        shape(q["ifm2"]) if q["ifm2"] else None, q["scalar"], q["ifm_bits"], kernel,
        2 if q["lut"] else 0, q["scaled"], RESAMPLING[q["resampling"]])
    if config is None:
        return None
    hwc = lambda s: [s.height, s.width, s.depth]  # noqa: E731
    return {
        "ofm_block": hwc(config.ofm_block),
        "ifm_block": hwc(config.ifm_block),
        # Vela's layout arithmetic is in floats: whole numbers of KB.
        "ib_end": int(config.layout.ib_end),
        "ib_start2": int(config.layout.ib_start2),
        "ab_start": int(config.layout.ab_start),
        "acc40": config.acc_type == SHRAMElements.Acc40,
        "part_kernel": bool(config.is_partkernel),
    }


def main():
    with contextlib.redirect_stdout(io.StringIO()):  # Vela's default-config warnings
        arches = {1: create_default_arch(Accelerator.Ethos_U65_256),
                  2: create_default_arch(Accelerator.Ethos_U65_512)}
    rng = random.Random(SEED)
    cases = []
    for _ in range(CASES):
        q = query(rng)
        cases.append({"query": q, "vela": answer(arches, q)})
    json.dump({"vela": "5.2.0", "seed": SEED, "cases": cases}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
