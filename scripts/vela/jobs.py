"""Job fixtures (shared JOBS.md format) built with Vela's ethosu.vela.api.

Memory map of every job: region 0 holds weight and scale/bias streams (and
DMA sources), region 1 the feature maps. Inputs are random from a fixed
seed; expected outputs come from the TFLite interpreter's reference kernels
(tflite_ref.py) run on an equivalent TFLite model, never from Vela.

Quantization choices keep Vela's register settings and TFLite's arithmetic
comparable: per-channel conv scales are computed the way Vela's compiler
computes them from the same float32 scales (scaling.quantise_scale, or the
reduced 16-bit form with NATURAL rounding for 16-bit IFMs, as Vela does);
scales of pooling, MIN/MAX and MUL outputs are powers of two or equal to the
inputs so float32 and double scale arithmetic agree.
"""

import contextlib
import io
import json
import math
import shutil
from pathlib import Path

import numpy as np
from ai_edge_litert import schema_py_generated as S
from ethosu.vela import api as V
from ethosu.vela.scaling import quantise_scale, reduced_quantise_scale

import tflite_ref as T

ACCEL = {"u65-256": V.NpuAccelerator.Ethos_U65_256, "u65-512": V.NpuAccelerator.Ethos_U65_512}
CORES = {"u65-256": 1, "u65-512": 2}
NPU_DTYPE = {np.int8: V.NpuDataType.INT8, np.uint8: V.NpuDataType.UINT8, np.int16: V.NpuDataType.INT16}
LAYOUT = {"NHWC": V.NpuLayout.NHWC, "NHCWB16": V.NpuLayout.NHCWB16}
ACT_RANGE = {None: (None, None), "relu": (0.0, None), "relu6": (0.0, 6.0), "relu_n1_to_1": (-1.0, 1.0)}


def dname(dt):
    return np.dtype(dt).name


class Region:
    """A growing memory image; every allocation is 16-byte aligned."""

    def __init__(self):
        self.data = bytearray()

    def alloc(self, size, fill=0):
        start = len(self.data)
        self.data.extend(bytes([fill]) * size)
        self.data.extend(bytes(-len(self.data) % 16))
        return start

    def put(self, blob):
        start = self.alloc(len(blob))
        self.data[start : start + len(blob)] = blob
        return start


def strides(shape, dtype, layout):
    """(stride_y, stride_x, stride_c) in bytes, the same as Vela's defaults."""
    h, w, c = shape
    e = np.dtype(dtype).itemsize
    if layout == "NHWC":
        return w * c * e, c * e, e
    return w * (-(-c // 16) * 16) * e, 16 * e, 16 * w * e


def fm_bytes(arr, dtype, layout):
    """Packs an (H, W, C) array in NHWC or NHCWB16 (JOBS.md address formulas)."""
    arr = np.asarray(arr, dtype=dtype)
    if layout == "NHWC":
        return arr.tobytes()
    h, w, c = arr.shape
    cp = -(-c // 16) * 16
    padded = np.zeros((h, w, cp), dtype=dtype)
    padded[:, :, :c] = arr
    # y, c/16, x, c%16
    return padded.reshape(h, w, cp // 16, 16).transpose(0, 2, 1, 3).tobytes()


def fm_size(shape, dtype, layout):
    sy, _, _ = strides(shape, dtype, layout)
    return shape[0] * sy


def feature_map(shape, dtype, layout, region, address, scale, zp):
    fm = V.NpuFeatureMap()
    fm.data_type = NPU_DTYPE[dtype]
    fm.region = region
    fm.shape = V.NpuShape3D(height=shape[0], width=shape[1], depth=shape[2])
    fm.tiles = V.NpuTileBox(height_0=shape[0], height_1=shape[0], width_0=shape[1], addresses=[address, 0, 0, 0])
    fm.quantization = V.NpuQuantization(scale_f32=float(scale), zero_point=int(zp))
    fm.layout = LAYOUT[layout]
    sy, sx, sc = strides(shape, dtype, layout)
    fm.strides = V.NpuShape3D(height=sy, width=sx, depth=sc)
    return fm


def random_fm(rng, shape, dtype):
    info = np.iinfo(dtype)
    lo, hi = (info.min, info.max) if info.bits == 8 else (-3000, 3000)
    return rng.integers(lo, hi + 1, size=shape).astype(dtype)


def same_padding(size, k, stride, dilation):
    eff = (k - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return out, total // 2, total - total // 2


def valid_out(size, k, stride, dilation):
    return (size - ((k - 1) * dilation + 1)) // stride + 1


def activation(act):
    if act is None:
        return None
    a = V.NpuActivation(V.NpuActivationOp.NONE_OR_RELU)
    a.min, a.max = ACT_RANGE[act]
    return a


def pick_block(rng, op, accel):
    with contextlib.redirect_stdout(io.StringIO()):  # Vela's default-config warnings
        configs = V.npu_find_block_configs(op, ACCEL[accel])
    op.block_config = configs[rng.integers(len(configs))]
    return op.block_config


class Job:
    """Collects the pieces of one job folder."""

    def __init__(self, name, config, description):
        self.name, self.config, self.description = name, config, description
        self.regions = {0: Region(), 1: Region()}
        self.ops = []
        self.outputs = []

    def write(self, root: Path):
        d = root / self.name
        d.mkdir(parents=True)
        with contextlib.redirect_stdout(io.StringIO()):
            cmds = V.npu_generate_register_command_stream(self.ops, ACCEL[self.config])
        (d / "cmd.bin").write_bytes(np.array(cmds, dtype=np.uint32).astype("<u4").tobytes())
        regions = []
        for index, r in sorted(self.regions.items()):
            if not r.data:
                continue
            (d / f"region{index}.bin").write_bytes(bytes(r.data))
            regions.append({"index": index, "file": f"region{index}.bin", "size": len(r.data)})
        outputs = []
        for name, region, offset, blob in self.outputs:
            (d / f"{name}.expected.bin").write_bytes(blob)
            outputs.append({"name": name, "region": region, "offset": offset, "size": len(blob),
                            "expected": f"{name}.expected.bin"})
        job = {"config": self.config, "command_stream": "cmd.bin", "regions": regions, "outputs": outputs,
               "description": self.description}
        (d / "job.json").write_text(json.dumps(job, indent=2) + "\n")


def _encode_conv_weights(job, rng, op, w_ohwi, bias, scales, dtype, depthwise, traversal):
    """Encodes weights and scale/bias per core into region 0 (TRM 4.7.5.1 split)."""
    cores = CORES[job.config]
    block = pick_block(rng, op, job.config)
    ofm = w_ohwi.shape[0]
    ifm_bits = np.dtype(dtype).itemsize * 8
    op.weights, op.biases = [], []
    for core in range(min(cores, ofm)):
        core_block = (block.depth + cores - 1 - core) // cores
        stream = V.npu_encode_weights(ACCEL[job.config], np.ascontiguousarray(w_ohwi[core::cores]),
                                      (op.kernel.dilation_x, op.kernel.dilation_y), ifm_bits, core_block,
                                      depthwise, traversal)
        addr = job.regions[0].put(bytes(stream))
        op.weights.append(V.NpuAddressRange(region=0, address=addr, length=len(stream)))
        sb = bytearray()
        for ch in range(core, ofm, cores):
            sb += V.npu_encode_bias(np.int64(bias[ch]), *scales[ch])
        sb += bytes(-len(sb) % 16)
        addr = job.regions[0].put(bytes(sb))
        op.biases.append(V.NpuAddressRange(region=0, address=addr, length=len(sb)))
    return block


# Per job: outputs where TFLite differs from the NPU arithmetic as Vela configures it.
MISMATCHES = {}


def _srdhm(a, b):
    """SaturatingRoundingDoublingHighMul on int64 arrays (no saturation case: b < 2**31)."""
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    return (ab + nudge) // (1 << 31) + ((ab + nudge) < 0) * ((ab + nudge) % (1 << 31) != 0)


def _rdbp(x, exponent):
    """RoundingDivideByPOT (round half away from zero)."""
    if exponent == 0:
        return x
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def _act_range(act, scale, zp, dtype):
    lo, hi = ACT_RANGE[act]
    info = np.iinfo(dtype)
    qmin = info.min if lo is None else max(info.min, zp + int(round(lo / float(scale))))
    qmax = info.max if hi is None else min(info.max, zp + int(round(hi / float(scale))))
    return qmin, qmax


def _npu_conv(ifm, in_zp, w, bias, scales, pad, stride, dilation, ofm_shape, depthwise, dtype, out_zp, clamp):
    """The NPU's convolution arithmetic (TRM 4.8) as Vela configures it, in numpy: a
    self-check of the job against the TFLite reference, not the source of expected data."""
    oh, ow, oc = ofm_shape
    _, kh, kw, _ = w.shape
    x = ifm.astype(np.int64) - in_zp
    h, wd, c = x.shape
    big = np.zeros((h + 2 * kh * dilation[0] + stride[0] * oh, wd + 2 * kw * dilation[1] + stride[1] * ow, c), np.int64)
    big[pad[0] : pad[0] + h, pad[1] : pad[1] + wd] = x
    acc = np.zeros(ofm_shape, np.int64) + bias.astype(np.int64)
    for ky in range(kh):
        for kx in range(kw):
            patch = big[ky * dilation[0] : ky * dilation[0] + oh * stride[0] : stride[0],
                        kx * dilation[1] : kx * dilation[1] + ow * stride[1] : stride[1]]
            wk = w[:, ky, kx, :].astype(np.int64)
            acc += patch * wk[:, 0] if depthwise else patch @ wk.T
    out = np.zeros(ofm_shape, np.int64)
    for ch, (mult, shift) in enumerate(scales):
        a = acc[:, :, ch]
        if dtype == np.int16:  # NATURAL rounding with the reduced scale
            out[:, :, ch] = (a * mult + (1 << (shift - 1))) >> shift
        else:  # TFL rounding: SaturatingRoundingDoublingHighMul, RoundingDivideByPOT
            e = 31 - shift
            out[:, :, ch] = _rdbp(_srdhm(a << max(e, 0), mult), max(-e, 0))
    return np.clip(out + out_zp, *clamp).astype(dtype)


def conv(root, rng, name, config, dtype, ifm_shape, cout, kernel, stride=(1, 1), dilation=(1, 1),
         padding="SAME", act=None, traversal="PART_KERNEL_FIRST", layouts=("NHWC", "NHWC"), depthwise=False):
    """CONV_2D or DEPTHWISE_CONV_2D (depth multiplier 1)."""
    h, w, cin = ifm_shape
    kh, kw = kernel
    if depthwise:
        cout = cin
    if padding == "SAME":
        oh, pt, pb = same_padding(h, kh, stride[0], dilation[0])
        ow, pl, pr = same_padding(w, kw, stride[1], dilation[1])
    else:
        oh, ow = valid_out(h, kh, stride[0], dilation[0]), valid_out(w, kw, stride[1], dilation[1])
        pt = pb = pl = pr = 0
    ofm_shape = (oh, ow, cout)
    n = kh * kw * (1 if depthwise else cin)

    # Quantization (float32 scales, as stored in a .tflite file).
    ifm = random_fm(rng, ifm_shape, dtype)
    if dtype == np.uint8:
        in_scale, in_zp = np.float32(1 / 32), int(rng.integers(100, 156))
        w_zp = int(rng.integers(110, 146))
        w_raw = rng.integers(0, 256, size=(cout, kh, kw, 1 if depthwise else cin)).astype(np.uint8)
        w_scale = np.full(cout, np.float32(rng.uniform(0.002, 0.01)), dtype=np.float32)
        w_corr = w_raw.astype(np.int16) - w_zp
        out_zp = int(rng.integers(100, 156))
    else:
        in_scale = np.float32(1 / 32 if dtype == np.int8 else 1 / 1024)
        in_zp = int(rng.integers(-10, 11)) if dtype == np.int8 else 0
        w_zp = 0
        w_raw = rng.integers(-127, 128, size=(cout, kh, kw, 1 if depthwise else cin)).astype(np.int8)
        w_scale = rng.uniform(0.002, 0.01, size=cout).astype(np.float32)
        w_corr = w_raw.astype(np.int16)
        out_zp = int(rng.integers(-10, 11)) if dtype == np.int8 else 0
    in_std = 74.0 if np.dtype(dtype).itemsize == 1 else 1730.0
    acc_std = math.sqrt(n) * in_std * 74.0 * float(in_scale) * float(w_scale.mean())
    out_scale = np.float32(acc_std / (40.0 if np.dtype(dtype).itemsize == 1 else 8000.0))
    bias_dtype = np.int64 if dtype == np.int16 else np.int32
    bias = rng.integers(-2000, 2001, size=cout).astype(bias_dtype)
    if dtype == np.uint8:
        real = [np.double(in_scale * s) / np.double(out_scale) for s in w_scale]
    else:
        real = [np.double(in_scale) * np.double(s) / np.double(out_scale) for s in w_scale]
    quant = reduced_quantise_scale if dtype == np.int16 else quantise_scale
    scales = [quant(r) for r in real]

    # NPU operation.
    job = Job(name, config, "")
    op = V.NpuConvDepthWiseOperation() if depthwise else V.NpuConv2DOperation()
    ifm_addr = job.regions[1].put(fm_bytes(ifm, dtype, layouts[0]))
    ofm_addr = job.regions[1].alloc(fm_size(ofm_shape, dtype, layouts[1]))
    op.ifm = feature_map(ifm_shape, dtype, layouts[0], 1, ifm_addr, in_scale, in_zp)
    op.ofm = feature_map(ofm_shape, dtype, layouts[1], 1, ofm_addr, out_scale, out_zp)
    op.kernel = V.NpuKernel(kw, kh, stride[1], stride[0], dilation[1], dilation[0])
    op.padding = V.NpuPadding(top=pt, left=pl, bottom=pb, right=pr)
    op.activation = activation(act)
    if dtype == np.int16:
        op.rounding_mode = V.NpuRoundingMode.NATURAL  # as Vela does for 16-bit convolutions
    trav = V.NpuBlockTraversal.DEPTH_FIRST if depthwise else getattr(V.NpuBlockTraversal, traversal)
    if not depthwise:
        op.block_traversal = trav
    block = _encode_conv_weights(job, rng, op, w_corr, bias, scales, dtype, depthwise, trav)
    job.ops.append(op)

    # TFLite reference.
    m = T.Model()
    i = m.tensor([1, *ifm_shape], dtype, in_scale, in_zp)
    # uint8 models are per-tensor quantized; int8/int16 per channel.
    per_channel = dtype != np.uint8
    wq = (w_scale, [w_zp] * cout) if per_channel else (w_scale[0], w_zp)
    if depthwise:
        wt = m.tensor([1, kh, kw, cout], w_raw.dtype.type, *wq,
                      data=w_raw.reshape(cout, kh, kw).transpose(1, 2, 0)[None], axis=3)
    else:
        wt = m.tensor([cout, kh, kw, cin], w_raw.dtype.type, *wq, data=w_raw, axis=0)
    bias_scale = np.double(in_scale) * w_scale.astype(np.double)
    b = m.tensor([cout], bias_dtype, *((bias_scale, [0] * cout) if per_channel else (bias_scale[0], 0)), data=bias)
    o = m.tensor([1, *ofm_shape], dtype, out_scale, out_zp)
    m.inputs, m.outputs = [i], [o]
    if depthwise:
        m.op(S.BuiltinOperator.DEPTHWISE_CONV_2D, [i, wt, b], [o], S.BuiltinOptions.DepthwiseConv2DOptions,
             T.depthwise_options(stride, dilation, padding, act), version=3 if dtype == np.int8 else 1)
    else:
        m.op(S.BuiltinOperator.CONV_2D, [i, wt, b], [o], S.BuiltinOptions.Conv2DOptions,
             T.conv_options(stride, dilation, padding, act), version=3 if dtype == np.int8 else 1)
    expected = m.run(ifm[None])[0]
    own = _npu_conv(ifm, in_zp, w_corr, bias, scales, (pt, pl), stride, dilation, ofm_shape, depthwise,
                    dtype, out_zp, _act_range(act, out_scale, out_zp, dtype))
    MISMATCHES[name] = int(np.count_nonzero(own != expected))
    job.outputs.append(("ofm", 1, ofm_addr, fm_bytes(expected, dtype, layouts[1])))
    kind = "DEPTHWISE" if depthwise else f"CONV2D {traversal.lower()}"
    job.description = (f"{kind} {kh}x{kw} stride {stride[0]}x{stride[1]} dilation {dilation[0]}x{dilation[1]} "
                       f"{padding} act {act}, {dname(dtype)} {layouts[0]} {h}x{w}x{cin} -> {layouts[1]} "
                       f"{oh}x{ow}x{cout}, block {block.height}x{block.width}x{block.depth}")
    job.write(root)
    return kind.split()[0]


def pool(root, rng, name, config, dtype, ifm_shape, kind, kernel, stride=(1, 1), padding="VALID", act=None,
         layouts=("NHWC", "NHWC")):
    """MAX_POOL_2D or AVERAGE_POOL_2D; input and output share quantization (TFLite requires it)."""
    h, w, c = ifm_shape
    kh, kw = kernel
    if padding == "SAME":
        oh, pt, pb = same_padding(h, kh, stride[0], 1)
        ow, pl, pr = same_padding(w, kw, stride[1], 1)
    else:
        oh, ow = valid_out(h, kh, stride[0], 1), valid_out(w, kw, stride[1], 1)
        pt = pb = pl = pr = 0
    ofm_shape = (oh, ow, c)
    scale = np.float32(1 / 16 if np.dtype(dtype).itemsize == 1 else 1 / 256)
    zp = {np.int8: int(rng.integers(-10, 11)), np.uint8: int(rng.integers(100, 156)), np.int16: 0}[dtype]
    ifm = random_fm(rng, ifm_shape, dtype)

    job = Job(name, config, "")
    op = V.NpuPoolingOperation(V.NpuPoolingOp.MAX if kind == "MAX" else V.NpuPoolingOp.AVERAGE)
    ifm_addr = job.regions[1].put(fm_bytes(ifm, dtype, layouts[0]))
    ofm_addr = job.regions[1].alloc(fm_size(ofm_shape, dtype, layouts[1]))
    # TFLite averages raw values; Vela's compiler matches that by giving the NPU
    # zero points of 0 for average pools without a clamp to the zero point
    # (high_level_command_to_npu_op.use_zero_point_0), so do the same.
    npu_zp = 0 if kind == "AVERAGE" and act is None else zp
    op.ifm = feature_map(ifm_shape, dtype, layouts[0], 1, ifm_addr, scale, npu_zp)
    op.ofm = feature_map(ofm_shape, dtype, layouts[1], 1, ofm_addr, scale, npu_zp)
    op.kernel = V.NpuKernel(kw, kh, stride[1], stride[0])
    op.padding = V.NpuPadding(top=pt, left=pl, bottom=pb, right=pr)
    op.activation = activation(act)
    block = pick_block(rng, op, config)
    job.ops.append(op)

    m = T.Model()
    i = m.tensor([1, *ifm_shape], dtype, scale, zp)
    o = m.tensor([1, *ofm_shape], dtype, scale, zp)
    m.inputs, m.outputs = [i], [o]
    code = S.BuiltinOperator.MAX_POOL_2D if kind == "MAX" else S.BuiltinOperator.AVERAGE_POOL_2D
    m.op(code, [i], [o], S.BuiltinOptions.Pool2DOptions, T.pool_options(kernel, stride, padding, act),
         version=1 if dtype == np.uint8 else 2)
    expected = m.run(ifm[None])[0]
    job.outputs.append(("ofm", 1, ofm_addr, fm_bytes(expected, dtype, layouts[1])))
    job.description = (f"{kind} POOL {kh}x{kw} stride {stride[0]}x{stride[1]} {padding} act {act}, "
                       f"{dname(dtype)} {layouts[0]} {h}x{w}x{c} -> {layouts[1]} {oh}x{ow}x{c}, "
                       f"block {block.height}x{block.width}x{block.depth}")
    job.write(root)
    return f"{kind}POOL"


ELEMENTWISE = {
    "ADD": (V.NpuElementWiseOp.ADD, S.BuiltinOperator.ADD, S.BuiltinOptions.AddOptions),
    "SUB": (V.NpuElementWiseOp.SUB, S.BuiltinOperator.SUB, S.BuiltinOptions.SubOptions),
    "MUL": (V.NpuElementWiseOp.MUL, S.BuiltinOperator.MUL, S.BuiltinOptions.MulOptions),
    "MIN": (V.NpuElementWiseOp.MIN, S.BuiltinOperator.MINIMUM, S.BuiltinOptions.NONE),
    "MAX": (V.NpuElementWiseOp.MAX, S.BuiltinOperator.MAXIMUM, S.BuiltinOptions.NONE),
}


def elementwise(root, rng, name, config, dtype, shape, kind, ifm2_shape=None, scalar=False, act=None,
                layouts=("NHWC", "NHWC", "NHWC"), scales=None):
    """Binary elementwise op with optional broadcast (ifm2_shape) or scalar IFM2."""
    ifm2_shape = (1, 1, 1) if scalar else (ifm2_shape or shape)
    itemsize = np.dtype(dtype).itemsize
    if scales is None:
        if kind in ("MIN", "MAX"):
            scales = (1 / 16, 1 / 16, 1 / 16)  # TFLite MINIMUM/MAXIMUM do not rescale
        elif kind == "MUL":
            scales = (0.05, 0.03, 1 / 4)  # power-of-two output: float32 == double scale
        else:
            scales = (0.05, 0.03, 0.07)
        if itemsize == 2:
            scales = tuple(s / 128 for s in scales)
    s1, s2, so = (np.float32(s) for s in scales)

    def zp():
        return {np.int8: int(rng.integers(-10, 11)), np.uint8: int(rng.integers(100, 156)), np.int16: 0}[dtype]

    z1, z2, zo = zp(), zp(), zp()
    if kind in ("MIN", "MAX"):
        z2 = zo = z1
    a = random_fm(rng, shape, dtype)
    b = random_fm(rng, ifm2_shape, dtype)

    npu_kind, code, opt_type = ELEMENTWISE[kind]
    job = Job(name, config, "")
    op = V.NpuElementWiseOperation(npu_kind)
    a_addr = job.regions[1].put(fm_bytes(a, dtype, layouts[0]))
    op.ifm = feature_map(shape, dtype, layouts[0], 1, a_addr, s1, z1)
    if scalar:
        op.ifm2 = feature_map(ifm2_shape, dtype, "NHWC", 1, 0, s2, z2)
        op.ifm2_scalar = float((int(b.flat[0]) - z2) * s2)
    else:
        b_addr = job.regions[1].put(fm_bytes(b, dtype, layouts[1]))
        op.ifm2 = feature_map(ifm2_shape, dtype, layouts[1], 1, b_addr, s2, z2)
    ofm_addr = job.regions[1].alloc(fm_size(shape, dtype, layouts[2]))
    op.ofm = feature_map(shape, dtype, layouts[2], 1, ofm_addr, so, zo)
    op.activation = activation(act)
    block = pick_block(rng, op, config)
    job.ops.append(op)

    m = T.Model()
    ti = m.tensor([1, *shape], dtype, s1, z1)
    if scalar:
        t2 = m.tensor([1], dtype, s2, z2, data=b.reshape(1))
    else:
        t2 = m.tensor([1, *ifm2_shape], dtype, s2, z2)
    to = m.tensor([1, *shape], dtype, so, zo)
    m.inputs, m.outputs = ([ti] if scalar else [ti, t2]), [to]
    options = T.binary_options(kind, act) if opt_type != S.BuiltinOptions.NONE else None
    m.op(code, [ti, t2], [to], opt_type, options, version=2 if dtype == np.int8 else (3 if dtype == np.int16 else 1))
    expected = m.run(a[None]) if scalar else m.run(a[None], b[None])
    job.outputs.append(("ofm", 1, ofm_addr, fm_bytes(expected[0], dtype, layouts[2])))
    ifm2_desc = "scalar" if scalar else f"{ifm2_shape[0]}x{ifm2_shape[1]}x{ifm2_shape[2]}"
    job.description = (f"ELEMENTWISE {kind} act {act}, {dname(dtype)} {layouts[0]} {'x'.join(map(str, shape))} "
                       f"with IFM2 {ifm2_desc}, scales {float(s1):.6g}/{float(s2):.6g}/{float(so):.6g}, "
                       f"block {block.height}x{block.width}x{block.depth}")
    job.write(root)
    return f"ELEMENTWISE_{kind}"


def dma(root, rng, name, config, size):
    """NPU_OP_DMA_START copying region 0 to region 1; expected = the source bytes."""
    job = Job(name, config, f"DMA {size} bytes region 0 -> region 1")
    src = rng.integers(0, 256, size=size).astype(np.uint8).tobytes()
    s = job.regions[0].put(src)
    d = job.regions[1].alloc(size)
    job.ops.append(V.NpuDmaOperation(V.NpuAddressRange(0, s, size), V.NpuAddressRange(1, d, size)))
    job.outputs.append(("dst", 1, d, src))
    job.write(root)
    return "DMA"


def generate(root: Path, seed: int):
    """Writes every job under root; returns {kind/dtype: count}."""
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    counts = {}

    def add(kind, dtype):
        key = f"{kind} {dname(dtype) if dtype else ''}".strip()
        counts[key] = counts.get(key, 0) + 1

    i8, u8, i16 = np.int8, np.uint8, np.int16
    convs = [
        # name, config, dtype, ifm, cout, kernel, stride, dilation, padding, act, traversal, layouts
        ("conv_1x1_i8", "u65-256", i8, (6, 6, 16), 16, (1, 1), (1, 1), (1, 1), "VALID", None, "DEPTH_FIRST"),
        ("conv_3x3_i8_pkf", "u65-256", i8, (8, 8, 8), 16, (3, 3), (1, 1), (1, 1), "SAME", "relu", "PART_KERNEL_FIRST"),
        ("conv_3x3_i8_df", "u65-256", i8, (7, 9, 40), 24, (3, 3), (1, 1), (1, 1), "SAME", None, "DEPTH_FIRST"),
        ("conv_3x3_s2_i8", "u65-256", i8, (9, 9, 12), 8, (3, 3), (2, 2), (1, 1), "SAME", "relu6", "PART_KERNEL_FIRST"),
        ("conv_5x5_s3_i8", "u65-256", i8, (13, 11, 4), 8, (5, 5), (3, 3), (1, 1), "VALID", None, "PART_KERNEL_FIRST"),
        ("conv_3x2_s1x2_i8", "u65-256", i8, (8, 10, 20), 12, (3, 2), (1, 2), (1, 1), "SAME", None, "DEPTH_FIRST"),
        ("conv_3x3_dil2_i8", "u65-256", i8, (10, 10, 8), 16, (3, 3), (1, 1), (2, 2), "SAME", None, "PART_KERNEL_FIRST"),
        ("conv_9x9_i8", "u65-256", i8, (10, 10, 3), 8, (9, 9), (1, 1), (1, 1), "SAME", None, "PART_KERNEL_FIRST"),
        ("conv_1x1_u8", "u65-256", u8, (5, 5, 24), 16, (1, 1), (1, 1), (1, 1), "VALID", None, "DEPTH_FIRST"),
        ("conv_3x3_u8", "u65-256", u8, (6, 6, 8), 8, (3, 3), (1, 1), (1, 1), "SAME", "relu", "PART_KERNEL_FIRST"),
        ("conv_3x3_i16", "u65-256", i16, (6, 6, 8), 8, (3, 3), (1, 1), (1, 1), "SAME", None, "PART_KERNEL_FIRST"),
        ("conv_1x1_i16_df", "u65-256", i16, (4, 4, 20), 16, (1, 1), (1, 1), (1, 1), "VALID", None, "DEPTH_FIRST"),
        ("conv_3x3_i8_512", "u65-512", i8, (8, 8, 16), 32, (3, 3), (1, 1), (1, 1), "SAME", None, "PART_KERNEL_FIRST"),
        ("conv_1x1_i8_512_df", "u65-512", i8, (6, 6, 48), 24, (1, 1), (1, 1), (1, 1), "VALID", "relu", "DEPTH_FIRST"),
        ("conv_3x3_s2_u8_512", "u65-512", u8, (9, 9, 8), 16, (3, 3), (2, 2), (1, 1), "SAME", None, "PART_KERNEL_FIRST"),
    ]
    for name, cfg, dt, ifm, cout, k, st, dil, pad, act, trav in convs:
        add(conv(root, rng, name, cfg, dt, ifm, cout, k, st, dil, pad, act, trav), dt)
    add(conv(root, rng, "conv_3x3_i8_nhcwb16", "u65-256", i8, (6, 6, 20), 32, (3, 3), traversal="DEPTH_FIRST",
             layouts=("NHCWB16", "NHCWB16")), i8)
    add(conv(root, rng, "conv_1x1_i8_nhwc_to_nhcwb16", "u65-256", i8, (5, 5, 8), 16, (1, 1), padding="VALID",
             layouts=("NHWC", "NHCWB16")), i8)

    dws = [
        ("dw_3x3_i8", "u65-256", i8, (8, 8, 16), (3, 3), (1, 1), (1, 1), "SAME", None),
        ("dw_3x3_s2_i8", "u65-256", i8, (9, 9, 24), (3, 3), (2, 2), (1, 1), "SAME", "relu6"),
        ("dw_5x5_dil2_i8", "u65-256", i8, (12, 12, 8), (5, 5), (1, 1), (2, 2), "SAME", None),
        ("dw_3x3_u8", "u65-256", u8, (6, 6, 12), (3, 3), (1, 1), (1, 1), "VALID", None),
        ("dw_3x3_i16", "u65-256", i16, (6, 6, 8), (3, 3), (1, 1), (1, 1), "SAME", None),
        ("dw_3x3_i8_512", "u65-512", i8, (8, 8, 32), (3, 3), (1, 1), (1, 1), "SAME", "relu"),
    ]
    for name, cfg, dt, ifm, k, st, dil, pad, act in dws:
        add(conv(root, rng, name, cfg, dt, ifm, 0, k, st, dil, pad, act, depthwise=True), dt)

    pools = [
        ("maxpool_2x2_s2_i8", "u65-256", i8, (8, 8, 16), "MAX", (2, 2), (2, 2), "VALID", None),
        ("maxpool_3x3_same_i8", "u65-256", i8, (7, 7, 8), "MAX", (3, 3), (1, 1), "SAME", "relu"),
        ("maxpool_3x3_s2_u8", "u65-256", u8, (9, 9, 12), "MAX", (3, 3), (2, 2), "VALID", None),
        ("maxpool_2x2_i16", "u65-256", i16, (6, 6, 8), "MAX", (2, 2), (2, 2), "VALID", None),
        ("avgpool_2x2_s2_i8", "u65-256", i8, (8, 8, 16), "AVERAGE", (2, 2), (2, 2), "VALID", None),
        ("avgpool_3x3_i8", "u65-256", i8, (7, 7, 8), "AVERAGE", (3, 3), (1, 1), "VALID", None),
        ("avgpool_3x3_s3_u8", "u65-256", u8, (9, 9, 12), "AVERAGE", (3, 3), (3, 3), "VALID", None),
        ("avgpool_2x2_i16", "u65-256", i16, (6, 6, 8), "AVERAGE", (2, 2), (2, 2), "VALID", None),
        ("maxpool_3x3_i8_512", "u65-512", i8, (8, 8, 32), "MAX", (3, 3), (1, 1), "VALID", None),
        ("avgpool_2x2_u8_512", "u65-512", u8, (8, 8, 16), "AVERAGE", (2, 2), (2, 2), "VALID", None),
    ]
    for name, cfg, dt, ifm, kind, k, st, pad, act in pools:
        add(pool(root, rng, name, cfg, dt, ifm, kind, k, st, pad, act), dt)
    add(pool(root, rng, "maxpool_2x2_i8_nhcwb16", "u65-256", i8, (8, 8, 32), "MAX", (2, 2), (2, 2),
             layouts=("NHCWB16", "NHCWB16")), i8)

    elems = [
        ("add_i8", "u65-256", i8, (4, 5, 16), "ADD", None, False, None),
        ("add_i8_relu", "u65-256", i8, (6, 6, 8), "ADD", None, False, "relu"),
        ("add_u8", "u65-256", u8, (4, 4, 24), "ADD", None, False, None),
        ("add_i16", "u65-256", i16, (4, 4, 16), "ADD", None, False, None),
        ("add_i8_bcast_c", "u65-256", i8, (5, 5, 16), "ADD", (1, 1, 16), False, None),
        ("add_i8_scalar", "u65-256", i8, (4, 4, 8), "ADD", None, True, None),
        ("sub_i8", "u65-256", i8, (4, 5, 16), "SUB", None, False, None),
        ("sub_u8_bcast_hw", "u65-256", u8, (4, 4, 8), "SUB", (4, 4, 1), False, None),
        ("sub_i16", "u65-256", i16, (3, 3, 16), "SUB", None, False, None),
        ("mul_i8", "u65-256", i8, (4, 5, 16), "MUL", None, False, None),
        ("mul_u8_scalar", "u65-256", u8, (4, 4, 8), "MUL", None, True, None),
        ("mul_i16", "u65-256", i16, (4, 4, 8), "MUL", None, False, None),
        ("mul_i8_relu6", "u65-256", i8, (4, 4, 16), "MUL", None, False, "relu6"),
        ("min_i8", "u65-256", i8, (4, 5, 16), "MIN", None, False, None),
        ("max_i8_bcast_c", "u65-256", i8, (4, 4, 16), "MAX", (1, 1, 16), False, None),
        ("max_u8", "u65-256", u8, (4, 4, 8), "MAX", None, False, None),
        ("min_i16", "u65-256", i16, (4, 4, 8), "MIN", None, False, None),
        ("add_i8_512", "u65-512", i8, (6, 6, 32), "ADD", None, False, None),
        ("mul_i8_512", "u65-512", i8, (4, 4, 32), "MUL", None, False, None),
    ]
    for name, cfg, dt, shape, kind, shape2, scalar, act in elems:
        add(elementwise(root, rng, name, cfg, dt, shape, kind, shape2, scalar, act), dt)
    add(elementwise(root, rng, "add_i8_nhcwb16", "u65-256", i8, (4, 4, 32), "ADD",
                    layouts=("NHCWB16", "NHCWB16", "NHCWB16")), i8)

    add(dma(root, rng, "dma_256", "u65-256", 256), None)
    add(dma(root, rng, "dma_4000_512", "u65-512", 4000), None)
    return counts
