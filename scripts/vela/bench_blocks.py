#!/usr/bin/env python3
"""Print the OFM block Vela chooses for each shape of the convolution bench
(tb/benches/conv.rs), which runs every row with that block.

Usage (after scripts/vela/setup.sh):

    scripts/.venv/bin/python scripts/vela/bench_blocks.py

Vela's compiler picks a block per operation with its allocator's
find_block_config (the same function its command streams come from); this
asks it for the bench's shapes on both configurations, both activation
widths and both OFM sizes of a row (the bench runs the larger OFM with the
smaller one's block, so that their difference is the steady state).
"""

import contextlib
import io

from ethosu.vela.api import NpuResamplingMode
from ethosu.vela.architecture_allocator import find_block_config
from ethosu.vela.architecture_features import Accelerator, create_default_arch
from ethosu.vela.operation import Kernel, NpuBlockType
from ethosu.vela.shape4d import Shape4D

CONV = NpuBlockType.ConvolutionMxN
DEPTHWISE = NpuBlockType.ConvolutionDepthWise
POOL = NpuBlockType.Pooling


def rows(bits):
    """(name, Vela block type, OFM [h, w, d], IFM depth, kernel [h, w], LUT banks)."""
    conv1d_kf = 4 if bits == 8 else 2
    return [
        ("CONV2D depth-first 3x3", CONV, [16, 16, 64], 64, [3, 3], 0),
        ("CONV2D kernel-first 2x2", CONV, [16, 16, 64], 16, [2, 2], 0),
        ("CONV1D depth-first 1x3", CONV, [1, 64, 64], 64, [1, 3], 0),
        (f"CONV1D kernel-first 1x{conv1d_kf}", CONV, [1, 64, 64], 16, [1, conv1d_kf], 0),
        ("Fully connected", CONV, [1, 1, 128], 256, [1, 1], 0),
        ("DepthwiseConv2D 4x4", DEPTHWISE, [16, 16, 64], 64, [4, 4], 0),
        ("DepthwiseConv1D 1x4", DEPTHWISE, [1, 64, 64], 64, [1, 4], 0),
        ("MaxPool 4x4", POOL, [16, 16, 64], 64, [4, 4], 0),
        ("AvgPool 3x3", POOL, [16, 16, 64], 64, [3, 3], 0),
        ("CONV2D 1x1 + LUT (table 4-130)", CONV, [16, 16, 64], 16, [1, 1], 2),
    ]


def larger(ofm):
    """The bench's larger OFM: width x4 for one row, else height and width x2."""
    h, w, d = ofm
    return [1, 4 * w, d] if h == 1 else [2 * h, 2 * w, d]


def block(arch, kind, ofm, ifm_depth, kernel, lut_banks, bits):
    kh, kw = kernel
    h, w, d = ofm
    ifm = Shape4D(1, h + kh - 1, w + kw - 1, ifm_depth)
    config = find_block_config(arch, kind, Shape4D(1, h, w, d), ifm, None, False, bits, Kernel(kw, kh),
                               lut_banks, True, NpuResamplingMode.NONE)
    b = config.ofm_block
    return f"{b.height}x{b.width}x{b.depth}"


def main():
    for accel in (Accelerator.Ethos_U65_256, Accelerator.Ethos_U65_512):
        with contextlib.redirect_stdout(io.StringIO()):  # Vela's default-config warnings
            arch = create_default_arch(accel)
        for bits in (8, 16):
            print(f"{accel.value}, {bits}-bit activations")
            for name, kind, ofm, ifm_depth, kernel, lut_banks in rows(bits):
                small = block(arch, kind, ofm, ifm_depth, kernel, lut_banks, bits)
                large = block(arch, kind, larger(ofm), ifm_depth, kernel, lut_banks, bits)
                print(f"  {name}, OFM {'x'.join(map(str, ofm))}: {small} (larger OFM alone: {large})")


if __name__ == "__main__":
    main()
