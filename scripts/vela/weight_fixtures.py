"""Weight-stream fixtures: random OHWI weights encoded by Vela's npu_encode_weights.

Each case writes NAME.json (the parameters and the OHWI weights Vela was given)
and NAME.coreK.bin (Vela's stream for core K) into model/tests/fixtures/weights/.
For two cores the tensor is split the way Vela splits it for ethos-u65-512
(TRM 4.7.5.1): core K gets output channels K, K+2, ... and an OFM block depth
of ceil((block_depth - K) / 2).

npu_encode_weights always splits kernels into 8x8 sub-kernels
(ArchitectureFeatures.SubKernelMax); the 4x4 kernel decomposition (TRM 4.7.5
kernel_split_size 4) is made by the reorder-and-encode function it calls,
Vela's C mlw_codec.reorder_encode, which takes the split sizes as arguments.
"""

import json
from pathlib import Path

import numpy as np
from ethosu import mlw_codec
from ethosu.vela.api import NpuAccelerator, NpuBlockTraversal, npu_encode_weights
from ethosu.vela.architecture_features import Accelerator, ArchitectureFeatures

ACCELERATORS = {"u65-256": NpuAccelerator.Ethos_U65_256, "u65-512": NpuAccelerator.Ethos_U65_512}
CORES = {"u65-256": 1, "u65-512": 2}
TRAVERSALS = {
    "DepthFirst": NpuBlockTraversal.DEPTH_FIRST,
    "PartKernelFirst": NpuBlockTraversal.PART_KERNEL_FIRST,
    "DepthWise": NpuBlockTraversal.DEPTH_FIRST,
}


def _weights(rng, shape, dist):
    """Random zero-point-corrected weights with one of several distributions."""
    if dist == "small":  # few distinct values: palette coding
        return rng.integers(-4, 5, size=shape)
    if dist == "wide":  # full 9-bit range: direct coding
        return rng.integers(-255, 256, size=shape)
    if dist == "sparse":  # mostly zeros: alternating zero-run coding
        w = rng.integers(-40, 41, size=shape)
        return np.where(rng.random(shape) < 0.8, 0, w)
    if dist == "zeros":
        return np.zeros(shape, dtype=np.int64)
    if dist == "const":
        return np.full(shape, 7)
    if dist == "normal":  # int8-like trained weights
        return np.clip(np.round(rng.normal(0, 30, size=shape)), -128, 127)
    raise ValueError(dist)


# name, config, traversal, ofm, kh, kw, ifm, ifm_bits, block_depth, dilation (x, y), distribution
CASES = [
    ("df_3x3_small", "u65-256", "DepthFirst", 16, 3, 3, 8, 8, 16, (1, 1), "small"),
    ("df_1x1_wide", "u65-256", "DepthFirst", 24, 1, 1, 40, 8, 16, (1, 1), "wide"),
    ("df_3x3_sparse", "u65-256", "DepthFirst", 20, 3, 3, 33, 8, 8, (1, 1), "sparse"),
    ("df_5x5_normal_i16", "u65-256", "DepthFirst", 8, 5, 5, 20, 16, 8, (1, 1), "normal"),
    ("df_9x9_decomp", "u65-256", "DepthFirst", 8, 9, 9, 8, 8, 8, (1, 1), "normal"),
    ("df_3x3_dil2", "u65-256", "DepthFirst", 16, 3, 3, 8, 8, 16, (2, 2), "normal"),
    ("df_5x5_dilx", "u65-256", "DepthFirst", 8, 5, 5, 4, 8, 8, (2, 1), "small"),
    ("df_zeros", "u65-256", "DepthFirst", 8, 1, 1, 16, 8, 8, (1, 1), "zeros"),
    ("df_const", "u65-256", "DepthFirst", 8, 2, 2, 8, 8, 8, (1, 1), "const"),
    ("pk_3x3_small", "u65-256", "PartKernelFirst", 16, 3, 3, 3, 8, 16, (1, 1), "small"),
    ("pk_5x5_wide", "u65-256", "PartKernelFirst", 12, 5, 5, 20, 8, 8, (1, 1), "wide"),
    ("pk_3x3_i16", "u65-256", "PartKernelFirst", 16, 3, 3, 5, 16, 16, (1, 1), "normal"),
    ("pk_7x7_dily", "u65-256", "PartKernelFirst", 8, 7, 7, 2, 8, 8, (1, 2), "sparse"),
    ("pk_1x10", "u65-256", "PartKernelFirst", 8, 1, 10, 6, 8, 8, (1, 1), "normal"),
    ("dw_3x3_normal", "u65-256", "DepthWise", 24, 3, 3, 1, 8, 16, (1, 1), "normal"),
    ("dw_5x5_sparse", "u65-256", "DepthWise", 16, 5, 5, 1, 8, 16, (1, 1), "sparse"),
    ("dw_9x9_dil2", "u65-256", "DepthWise", 8, 9, 9, 1, 8, 8, (2, 2), "small"),
    ("dw_3x3_i16", "u65-256", "DepthWise", 8, 3, 3, 1, 16, 8, (1, 1), "wide"),
    ("df_long_normal", "u65-256", "DepthFirst", 64, 3, 3, 64, 8, 32, (1, 1), "normal"),
    ("par_df_3x3", "u65-512", "DepthFirst", 32, 3, 3, 16, 8, 32, (1, 1), "normal"),
    ("par_pk_3x3", "u65-512", "PartKernelFirst", 21, 3, 3, 4, 8, 16, (1, 1), "small"),
    ("par_dw_3x3", "u65-512", "DepthWise", 20, 3, 3, 1, 8, 16, (1, 1), "sparse"),
]

# The same fields plus kernel_split_size 4 (4x4 kernel decomposition).
SPLIT4_CASES = [
    ("split4_df_5x5", "u65-256", "DepthFirst", 16, 5, 5, 20, 8, 16, (1, 1), "normal"),
    ("split4_df_6x9_i16", "u65-256", "DepthFirst", 8, 6, 9, 12, 16, 8, (1, 1), "small"),
    ("split4_df_5x7_dilx", "u65-256", "DepthFirst", 8, 5, 7, 8, 8, 8, (2, 1), "normal"),
    ("split4_pk_5x5", "u65-256", "PartKernelFirst", 12, 5, 5, 7, 8, 8, (1, 1), "wide"),
    ("split4_pk_7x6_i16", "u65-256", "PartKernelFirst", 8, 7, 6, 20, 16, 8, (1, 1), "sparse"),
    ("split4_pk_3x3_dil2", "u65-256", "PartKernelFirst", 16, 3, 3, 5, 8, 16, (2, 2), "normal"),
    ("split4_dw_5x5", "u65-256", "DepthWise", 24, 5, 5, 1, 8, 16, (1, 1), "normal"),
    ("split4_dw_9x4_dily", "u65-256", "DepthWise", 8, 9, 4, 1, 16, 8, (1, 2), "small"),
    ("split4_par_pk_5x5", "u65-512", "PartKernelFirst", 21, 5, 5, 4, 8, 16, (1, 1), "normal"),
    ("split4_par_dw_6x6", "u65-512", "DepthWise", 20, 6, 6, 1, 8, 16, (1, 1), "sparse"),
]


def encode_weights(accelerator, w_ohwi, dilation, ifm_bits, block_depth, is_depthwise, traversal, split):
    """npu_encode_weights with kernel_split_size `split` (8 or 4) for the sub-kernels."""
    if split == 8:
        return bytes(npu_encode_weights(accelerator, w_ohwi, dilation, ifm_bits, block_depth, is_depthwise,
                                        traversal))
    # What weight_compressor.encode_weights does, with decomp = split / dilation.
    arch = ArchitectureFeatures.accelerator_configs[Accelerator.from_npu_accelerator(accelerator)]
    stream, _ = mlw_codec.reorder_encode(arch.ifm_ublock.depth, arch.ofm_ublock.depth, w_ohwi, block_depth,
                                         is_depthwise, traversal == NpuBlockTraversal.PART_KERNEL_FIRST, ifm_bits,
                                         split // dilation[1], split // dilation[0])
    return bytes(stream)


def generate(out_dir: Path, seed: int) -> int:
    """Writes every case into out_dir; returns the number of cases."""
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    cases = [(c, 8) for c in CASES] + [(c, 4) for c in SPLIT4_CASES]
    for (name, config, trav, ofm, kh, kw, ifm, bits, block, dil, dist), split in cases:
        w = _weights(rng, (ofm, kh, kw, ifm), dist).astype(np.int16)
        cores = CORES[config]
        streams = []
        for core in range(min(cores, ofm)):
            core_block = (block + cores - 1 - core) // cores
            stream = encode_weights(ACCELERATORS[config], np.ascontiguousarray(w[core::cores]), dil, bits,
                                    core_block, trav == "DepthWise", TRAVERSALS[trav], split)
            file = f"{name}.core{core}.bin"
            (out_dir / file).write_bytes(stream)
            streams.append(file)
        meta = {
            "description": f"{trav} {kh}x{kw} dilation {dil}, {ifm}->{ofm} channels, "
            f"{bits}-bit IFM, block depth {block}, {split}x{split} kernel decomposition, {dist} weights",
            "config": config,
            "cores": cores,
            "traversal": trav,
            "ofm_depth": ofm,
            "kernel_height": kh,
            "kernel_width": kw,
            "ifm_depth": ifm,
            "ifm_bits": bits,
            "ofm_block_depth": block,
            "dilation_x": dil[0],
            "dilation_y": dil[1],
            "kernel_split": split,
            "streams": streams,
            "weights_ohwi": [int(v) for v in w.flatten()],
        }
        (out_dir / f"{name}.json").write_text(json.dumps(meta, separators=(",", ":")) + "\n")
    return len(cases)
