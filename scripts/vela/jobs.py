"""Job fixtures (shared JOBS.md format) built with Vela's ethosu.vela.api.

Memory map of every job: region 0 holds weight and scale/bias streams (and
DMA sources), region 1 the feature maps. Inputs are random from a fixed
seed; expected outputs come from the TFLite Micro interpreter (LiteRT's reference
kernels where TFLite Micro has no kernel for the case, or where a job says why:
tflite_ref.py) run on an equivalent TFLite model, never from Vela (REDUCE_SUM,
which has no TFLite twin, uses a numpy sum; DMA jobs expect the source bytes).
Convolution outputs are also recomputed by a numpy model of the NPU arithmetic
Vela configures; gen_fixtures.py reports any output where the two differ.
Operators Vela rewrites (TANH/LOGISTIC, LEAKY_RELU, ...) are built the way its
compiler lowers them, with Vela's own LUTs and scales, and checked against the
TFLite operator they replace.

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
from ethosu.vela.architecture_features import Accelerator, create_default_arch
from ethosu.vela.data_type import DataType as VelaDataType
from ethosu.vela.numeric_util import quantise_float32
from ethosu.vela.operation import Op as VelaOp
from ethosu.vela.operation import Operation as VelaOperation
from ethosu.vela.register_command_stream_util import BASE_PTR_INDEX_MEM2MEM
from ethosu.vela.scaling import quantise_scale, reduced_quantise_scale
from ethosu.vela.tensor import QuantizationParameters
from ethosu.vela.tensor import Tensor as VelaTensor
from ethosu.vela.tflite_graph_optimiser import convert_lrelu, convert_tanh_sigmoid_to_lut

import compiled
import tflite_ref as T
from weight_fixtures import encode_weights

ACCEL = {"u65-256": V.NpuAccelerator.Ethos_U65_256, "u65-512": V.NpuAccelerator.Ethos_U65_512}
CORES = {"u65-256": 1, "u65-512": 2}
NPU_DTYPE = {np.int8: V.NpuDataType.INT8, np.uint8: V.NpuDataType.UINT8, np.int16: V.NpuDataType.INT16,
             np.int32: V.NpuDataType.INT32}
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


class FM:
    """A feature map both in NPU memory (region 1) and in the TFLite model."""

    def __init__(self, shape, dtype, scale, zp, layout, addresses, tensor, value=None, npu_zp=None, split=None):
        self.shape, self.dtype, self.scale, self.zp, self.layout = shape, dtype, scale, zp, layout
        self.addresses, self.tensor, self.value, self.split = addresses, tensor, value, split
        # The numpy model's view of this output, when computed (conv only).
        self.check = None
        # Zero point given to the NPU when it differs from the TFLite one.
        self.npu_zp = zp if npu_zp is None else npu_zp

    def npu(self, zp=None, scale=None):
        """The NpuFeatureMap (with the given quantization, when the NPU's differs from
        TFLite's); `split` rows go to a second tile (TRM tiles 0 and 2)."""
        fm = feature_map(self.shape, self.dtype, self.layout, 1, self.addresses[0],
                         self.scale if scale is None else scale, self.npu_zp if zp is None else zp)
        if self.split is not None:
            h, w, _ = self.shape
            fm.tiles = V.NpuTileBox(height_0=self.split, height_1=self.split, width_0=w,
                                    addresses=[self.addresses[0], 0, self.addresses[1], 0])
        return fm


def with_kernel_split4(cmds):
    """Sets bit 5 (kernel_split_size 4, TRM 4.6.4) of every NPU_SET_KERNEL_STRIDE."""
    out, i = list(cmds), 0
    while i < len(out):
        if (out[i] >> 14) & 3 == 1:  # cmd1: skip its payload word
            i += 2
            continue
        if out[i] & 0x3FF == 0x122:
            out[i] |= (1 << 5) << 16
        i += 1
    return out


class Build:
    """One job under construction: NPU operations plus the equivalent TFLite model."""

    def __init__(self, name, config, rng):
        self.name, self.config, self.rng = name, config, rng
        self.regions = {0: Region(), 1: Region()}
        self.ops, self.model = [], T.Model()
        self.inputs, self.outputs, self.descriptions = [], [], []
        # Outputs whose expected bytes are known without TFLite: (name, region, offset, bytes).
        self.raw_outputs = []
        # TRM 4.7.5 kernel_split_size of every convolution in the job (None: no convolution).
        self.kernel_split = None
        # Why LiteRT, not TFLite Micro, gives this job's expected outputs (None: TFLite Micro where it
        # has a kernel for the case).
        self.litert_because = None

    def use_kernel_split(self, split):
        """Vela's command streams always select 8x8 sub-kernels; a job whose
        convolutions use 4x4 ones gets NPU_SET_KERNEL_STRIDE bit 5 set in write()."""
        assert self.kernel_split in (None, split), "one kernel decomposition per job"
        self.kernel_split = split

    def _place(self, arr, shape, dtype, layout, split):
        """Writes (or reserves, arr None) a feature map in region 1, split in two tiles at row `split`."""
        parts = [(0, shape[0])] if split is None else [(0, split), (split, shape[0])]
        addrs = []
        for y0, y1 in parts:
            part_shape = (y1 - y0, *shape[1:])
            if arr is None:
                addrs.append(self.regions[1].alloc(fm_size(part_shape, dtype, layout)))
            else:
                addrs.append(self.regions[1].put(fm_bytes(arr[y0:y1], dtype, layout)))
        return addrs

    def input(self, shape, dtype, scale, zp, layout="NHWC", split=None, value=None):
        """A random (or given) input feature map."""
        value = random_fm(self.rng, shape, dtype) if value is None else value
        t = self.model.tensor([1, *shape], dtype, scale, zp)
        self.inputs.append((t, value))
        return FM(shape, dtype, scale, zp, layout, self._place(value, shape, dtype, layout, split), t, value,
                  split=split)

    def output(self, shape, dtype, scale, zp, layout="NHWC", split=None):
        """A feature map an operation writes."""
        t = self.model.tensor([1, *shape], dtype, scale, zp)
        return FM(shape, dtype, scale, zp, layout, self._place(None, shape, dtype, layout, split), t, split=split)

    def expect(self, name, fm):
        """Makes `fm` an output of the job, checked against TFLite."""
        self.outputs.append((name, fm))

    def write(self, root: Path):
        m = self.model
        m.inputs = [t for t, _ in self.inputs]
        m.outputs = [fm.tensor for _, fm in self.outputs]
        results = m.run_all([v[None] for _, v in self.inputs], self.litert_because) if self.outputs else {}
        d = root / self.name
        d.mkdir(parents=True)
        with contextlib.redirect_stdout(io.StringIO()):  # Vela's default-config warnings
            cmds = V.npu_generate_register_command_stream(self.ops, ACCEL[self.config])
        if self.kernel_split == 4:
            cmds = with_kernel_split4(cmds)
        (d / "cmd.bin").write_bytes(np.array(cmds, dtype="<u4").tobytes())
        regions = []
        for index, r in sorted(self.regions.items()):
            if r.data:
                (d / f"region{index}.bin").write_bytes(bytes(r.data))
                regions.append({"index": index, "file": f"region{index}.bin", "size": len(r.data)})
        expected = list(self.raw_outputs)
        for name, fm in self.outputs:
            fm.value = results[fm.tensor][0]
            parts = [(0, fm.shape[0])] if fm.split is None else [(0, fm.split), (fm.split, fm.shape[0])]
            for k, ((y0, y1), addr) in enumerate(zip(parts, fm.addresses)):
                part = name if fm.split is None else f"{name}_tile{2 * k}"
                expected.append((part, 1, addr, fm_bytes(fm.value[y0:y1], fm.dtype, fm.layout)))
        outputs = []
        for name, region, addr, blob in expected:
            (d / f"{name}.expected.bin").write_bytes(blob)
            outputs.append({"name": name, "region": region, "offset": addr, "size": len(blob),
                            "expected": f"{name}.expected.bin"})
        description = "; ".join(self.descriptions)
        if self.outputs and "TFLite interpreter" in description:
            description = description.replace("TFLite interpreter", f"{m.interpreter} interpreter")
        elif self.outputs:
            description += f"; reference: {m.interpreter} interpreter"
        if self.outputs and m.why:
            description += f" ({m.why})"
        job = {"config": self.config, "command_stream": "cmd.bin", "regions": regions, "outputs": outputs,
               "description": description}
        (d / "job.json").write_text(json.dumps(job, indent=2) + "\n")


def _encode_conv_weights(b, op, w_ohwi, bias, scales, ifm_bits, depthwise, traversal, split):
    """Encodes weights (sub-kernels of at most split x split) and scale/bias per
    core into region 0 (TRM 4.7.5.1 split)."""
    cores = CORES[b.config]
    block = pick_block(b.rng, op, b.config)
    ofm = w_ohwi.shape[0]
    op.weights, op.biases = [], []
    for core in range(min(cores, ofm)):
        core_block = (block.depth + cores - 1 - core) // cores
        stream = encode_weights(ACCEL[b.config], np.ascontiguousarray(w_ohwi[core::cores]),
                                (op.kernel.dilation_x, op.kernel.dilation_y), ifm_bits, core_block, depthwise,
                                traversal, split)
        addr = b.regions[0].put(bytes(stream))
        op.weights.append(V.NpuAddressRange(region=0, address=addr, length=len(stream)))
        sb = bytearray()
        for ch in range(core, ofm, cores):
            sb += V.npu_encode_bias(np.int64(bias[ch]), *scales[ch])
        sb += bytes(-len(sb) % 16)
        addr = b.regions[0].put(bytes(sb))
        op.biases.append(V.NpuAddressRange(region=0, address=addr, length=len(sb)))
    return block


# Per checked output: outputs where TFLite differs from the numpy model of the
# NPU arithmetic Vela configures (expected to stay 0).
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


class ConvQuant:
    """Random weights, bias and output quantization of a convolution, with the
    per-channel (scale, shift) Vela derives from them."""

    def __init__(self, rng, ifm, cout, wshape, n):
        dtype = ifm.dtype
        # Weights and output quantization (float32 scales, as in a .tflite file).
        if dtype == np.uint8:
            self.w_zp = int(rng.integers(110, 146))
            self.w_raw = rng.integers(0, 256, size=wshape).astype(np.uint8)
            self.w_scale = np.full(cout, np.float32(rng.uniform(0.002, 0.01)), dtype=np.float32)
            self.out_zp = int(rng.integers(100, 156))
        else:
            self.w_zp = 0
            self.w_raw = rng.integers(-127, 128, size=wshape).astype(np.int8)
            self.w_scale = rng.uniform(0.002, 0.01, size=cout).astype(np.float32)
            self.out_zp = int(rng.integers(-10, 11)) if dtype == np.int8 else 0
        self.w_corr = self.w_raw.astype(np.int16) - self.w_zp
        self.wide = wide = np.dtype(dtype).itemsize == 2
        acc_std = math.sqrt(n) * (1730.0 if wide else 74.0) * 74.0 * float(ifm.scale) * float(self.w_scale.mean())
        self.out_scale = np.float32(acc_std / (8000.0 if wide else 40.0))
        self.bias_dtype = np.int64 if wide else np.int32
        self.bias = rng.integers(-2000, 2001, size=cout).astype(self.bias_dtype)
        # Per-channel (scale, shift) the way Vela's compiler derives them from the
        # same float32 scales (weight_compressor._prepare_scale_and_bias).
        if dtype == np.uint8:
            real = [np.double(ifm.scale * s) / np.double(self.out_scale) for s in self.w_scale]
        else:
            real = [np.double(ifm.scale) * np.double(s) / np.double(self.out_scale) for s in self.w_scale]
        self.scales = [(reduced_quantise_scale if wide else quantise_scale)(r) for r in real]

    def tflite_tensors(self, m, ifm, cout, depthwise=False):
        """The weight and bias tensors of the TFLite model (uint8 per tensor,
        int8/int16 per channel)."""
        per_channel = ifm.dtype != np.uint8
        wq = (self.w_scale, [self.w_zp] * cout) if per_channel else (self.w_scale[0], self.w_zp)
        if depthwise:
            _, kh, kw, _ = self.w_raw.shape
            wt = m.tensor([1, kh, kw, cout], self.w_raw.dtype.type, *wq,
                          data=self.w_raw.reshape(cout, kh, kw).transpose(1, 2, 0)[None], axis=3)
        else:
            wt = m.tensor(list(self.w_raw.shape), self.w_raw.dtype.type, *wq, data=self.w_raw, axis=0)
        bias_scale = np.double(ifm.scale) * self.w_scale.astype(np.double)
        bq = (bias_scale, [0] * cout) if per_channel else (bias_scale[0], 0)
        return wt, m.tensor([cout], self.bias_dtype, *bq, data=self.bias)


def conv(b, ifm, cout, kernel, stride=(1, 1), dilation=(1, 1), padding="SAME", act=None,
         traversal="PART_KERNEL_FIRST", out_layout="NHWC", depthwise=False, out_split=None, kernel_split=8):
    """CONV_2D, or DEPTHWISE_CONV_2D with depth multiplier 1; returns the OFM.
    kernel_split 4 selects the 4x4 kernel decomposition (see Build.kernel_split)."""
    rng, dtype = b.rng, ifm.dtype
    h, w, cin = ifm.shape
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
    wshape = (cout, kh, kw, 1 if depthwise else cin)

    q = ConvQuant(rng, ifm, cout, wshape, n)
    w_corr, bias, scales, out_scale, out_zp, wide = q.w_corr, q.bias, q.scales, q.out_scale, q.out_zp, q.wide
    ofm = b.output(ofm_shape, dtype, out_scale, out_zp, out_layout, out_split)
    op = V.NpuConvDepthWiseOperation() if depthwise else V.NpuConv2DOperation()
    op.ifm, op.ofm = ifm.npu(), ofm.npu()
    op.kernel = V.NpuKernel(kw, kh, stride[1], stride[0], dilation[1], dilation[0])
    op.padding = V.NpuPadding(top=pt, left=pl, bottom=pb, right=pr)
    op.activation = activation(act)
    if wide:
        op.rounding_mode = V.NpuRoundingMode.NATURAL  # as Vela does for 16-bit convolutions
    trav = V.NpuBlockTraversal.DEPTH_FIRST if depthwise else getattr(V.NpuBlockTraversal, traversal)
    if not depthwise:
        op.block_traversal = trav
    block = _encode_conv_weights(b, op, w_corr, bias, scales, 16 if wide else 8, depthwise, trav, kernel_split)
    b.use_kernel_split(kernel_split)
    b.ops.append(op)

    # TFLite: uint8 models are per-tensor quantized, int8/int16 per channel.
    m = b.model
    wt, bt = q.tflite_tensors(m, ifm, cout, depthwise)
    version = 3 if dtype == np.int8 else 1
    if depthwise:
        m.op(S.BuiltinOperator.DEPTHWISE_CONV_2D, [ifm.tensor, wt, bt], [ofm.tensor],
             S.BuiltinOptions.DepthwiseConv2DOptions, T.depthwise_options(stride, dilation, padding, act), version)
    else:
        m.op(S.BuiltinOperator.CONV_2D, [ifm.tensor, wt, bt], [ofm.tensor], S.BuiltinOptions.Conv2DOptions,
             T.conv_options(stride, dilation, padding, act), version)
    if ifm.value is not None:
        ofm.check = _npu_conv(ifm.value, ifm.zp, w_corr, bias, scales, (pt, pl), stride, dilation, ofm_shape,
                              depthwise, dtype, out_zp, _act_range(act, out_scale, out_zp, dtype))
    kind = "DEPTHWISE" if depthwise else f"CONV2D {traversal.lower()}"
    b.descriptions.append(
        f"{kind} {kh}x{kw} stride {stride[0]}x{stride[1]} dilation {dilation[0]}x{dilation[1]} {padding} "
        f"act {act}, {dname(dtype)} {ifm.layout} {h}x{w}x{cin}{_tiles(ifm)} -> {out_layout} {oh}x{ow}x{cout}"
        f"{_tiles(ofm)}, block {block.height}x{block.width}x{block.depth}"
        f"{', 4x4 kernel decomposition' if kernel_split == 4 else ''}")
    return ofm


def transpose_conv(b, ifm, cout, kernel, padding="SAME", act=None):
    """TRANSPOSE_CONV with stride 2 as Vela lowers it (tflite_graph_optimiser.
    fixup_conv2d_backprop): a stride-1 convolution of the IFM upscaled 2x2 by
    inserting zeros, with the kernel reversed in H and W (weight_compressor) and
    the padding of calc_upscaled_padding_and_skirt. Returns the OFM."""
    rng, dtype = b.rng, ifm.dtype
    h, w, cin = ifm.shape
    kh, kw = kernel
    if padding == "SAME":
        # SAME padding of a stride-1 kernel totals k - 1; Vela puts
        # max((k - 1 + 1) // 2 - 1, 0) of it after the upscaled IFM.
        oh, ow = 2 * h, 2 * w
        pb, pr = max(kh // 2 - 1, 0), max(kw // 2 - 1, 0)
        pt, pl = kh - 1 - pb, kw - 1 - pr
    else:
        oh, ow = 2 * h + max(kh - 2, 0), 2 * w + max(kw - 2, 0)
        pt, pl, pb, pr = kh - 1, kw - 1, max(kh - 2, 0), max(kw - 2, 0)
    ofm_shape = (oh, ow, cout)
    # About a quarter of the kernel taps meet a non-inserted IFM element.
    q = ConvQuant(rng, ifm, cout, (cout, kh, kw, cin), max(kh * kw * cin // 4, 1))
    ofm = b.output(ofm_shape, dtype, q.out_scale, q.out_zp)
    op = V.NpuConv2DOperation()
    op.ifm, op.ofm = ifm.npu(), ofm.npu()
    op.ifm_upscale = V.NpuResamplingMode.TRANSPOSE
    op.kernel = V.NpuKernel(kw, kh, 1, 1)
    op.padding = V.NpuPadding(top=pt, left=pl, bottom=pb, right=pr)
    op.activation = activation(act)
    if q.wide:
        op.rounding_mode = V.NpuRoundingMode.NATURAL  # as Vela does for 16-bit convolutions
    op.block_traversal = V.NpuBlockTraversal.PART_KERNEL_FIRST if cin <= 8 else V.NpuBlockTraversal.DEPTH_FIRST
    flipped = np.ascontiguousarray(np.flip(q.w_corr, axis=(1, 2)))
    block = _encode_conv_weights(b, op, flipped, q.bias, q.scales, 16 if q.wide else 8, False, op.block_traversal, 8)
    b.ops.append(op)
    m = b.model
    wt, bt = q.tflite_tensors(m, ifm, cout)
    shape_t = m.tensor([4], np.int32, None, None, data=np.array([1, oh, ow, cout], dtype=np.int32))
    m.op(S.BuiltinOperator.TRANSPOSE_CONV, [shape_t, wt, ifm.tensor, bt], [ofm.tensor],
         S.BuiltinOptions.TransposeConvOptions, T.transpose_conv_options((2, 2), padding, act), version=3)
    # Self-check: the NPU arithmetic on the zero-inserted IFM (zero point in
    # the inserted places, so they read as 0).
    up = np.full((2 * h, 2 * w, cin), ifm.zp, dtype=np.int64)
    up[::2, ::2] = ifm.value
    ofm.check = _npu_conv(up, ifm.zp, flipped, q.bias, q.scales, (pt, pl), (1, 1), (1, 1), ofm_shape, False, dtype,
                          q.out_zp, _act_range(act, q.out_scale, q.out_zp, dtype))
    b.descriptions.append(
        f"TRANSPOSE_CONV {kh}x{kw} stride 2x2 {padding} act {act}, {dname(dtype)} {h}x{w}x{cin} -> {oh}x{ow}x{cout}, "
        f"as Vela lowers it: CONV2D 1x1-stride on the insert-zeros 2x2 upscaled IFM, reversed kernel, padding "
        f"{pt}/{pl}/{pb}/{pr} (top/left/bottom/right), block {block.height}x{block.width}x{block.depth}; "
        f"reference: TFLite interpreter TRANSPOSE_CONV")
    return ofm


def resize_nearest(b, ifm, half_pixel_centers=False):
    """RESIZE_NEAREST_NEIGHBOR x2 as Vela lowers it (convert_resize_to_upscale_and_
    average_pool): a 1x1 average pool of the IFM upscaled 2x2 by repeating
    elements, zero points 0 and NATURAL rounding (resize ops). Returns the OFM."""
    h, w, c = ifm.shape
    ofm = b.output((2 * h, 2 * w, c), ifm.dtype, ifm.scale, ifm.zp)
    op = V.NpuPoolingOperation(V.NpuPoolingOp.AVERAGE)
    op.ifm, op.ofm = ifm.npu(0), ofm.npu(0)
    op.ifm_upscale = V.NpuResamplingMode.NEAREST
    op.kernel = V.NpuKernel(1, 1)
    op.padding = V.NpuPadding(top=0, left=0, bottom=0, right=0)
    op.rounding_mode = V.NpuRoundingMode.NATURAL
    block = pick_block(b.rng, op, b.config)
    b.ops.append(op)
    m = b.model
    size = m.tensor([2], np.int32, None, None, data=np.array([2 * h, 2 * w], dtype=np.int32))
    m.op(S.BuiltinOperator.RESIZE_NEAREST_NEIGHBOR, [ifm.tensor, size], [ofm.tensor],
         S.BuiltinOptions.ResizeNearestNeighborOptions, T.resize_nearest_options(False, half_pixel_centers),
         version=4 if ifm.dtype == np.int16 else 3)
    b.descriptions.append(
        f"RESIZE_NEAREST_NEIGHBOR x2{' half_pixel_centers' if half_pixel_centers else ''}, {dname(ifm.dtype)} "
        f"{h}x{w}x{c} -> {2 * h}x{2 * w}x{c}, as Vela lowers it: 1x1 AVERAGE POOL of the nearest-neighbour 2x2 "
        f"upscaled IFM, block {block.height}x{block.width}x{block.depth}; reference: TFLite interpreter "
        f"RESIZE_NEAREST_NEIGHBOR")
    return ofm


def _tiles(fm):
    return "" if fm.split is None else f" (2 tiles at row {fm.split})"


def pool(b, ifm, kind, kernel, stride=(1, 1), padding="VALID", act=None, out_layout="NHWC"):
    """MAX_POOL_2D or AVERAGE_POOL_2D; the OFM takes the IFM's quantization (TFLite requires it)."""
    h, w, c = ifm.shape
    kh, kw = kernel
    if padding == "SAME":
        oh, pt, pb = same_padding(h, kh, stride[0], 1)
        ow, pl, pr = same_padding(w, kw, stride[1], 1)
    else:
        oh, ow = valid_out(h, kh, stride[0], 1), valid_out(w, kw, stride[1], 1)
        pt = pb = pl = pr = 0
    ofm = b.output((oh, ow, c), ifm.dtype, ifm.scale, ifm.zp, out_layout)
    op = V.NpuPoolingOperation(V.NpuPoolingOp.MAX if kind == "MAX" else V.NpuPoolingOp.AVERAGE)
    # TFLite averages raw values; Vela's compiler matches that by giving the NPU
    # zero points of 0 for average pools (high_level_command_to_npu_op.
    # use_zero_point_0) and moving a ReLU-type clamp to raw values: each bound
    # b becomes scale * quantise_float32(b, scale, zero point)
    # (create_npu_activation), so do the same.
    npu_zp = 0 if kind == "AVERAGE" else None
    op.ifm, op.ofm = ifm.npu(npu_zp), ofm.npu(npu_zp)
    op.kernel = V.NpuKernel(kw, kh, stride[1], stride[0])
    op.padding = V.NpuPadding(top=pt, left=pl, bottom=pb, right=pr)
    op.activation = activation(act)
    if kind == "AVERAGE" and act is not None and ofm.zp != 0:
        for bound in ("min", "max"):
            if getattr(op.activation, bound) is not None:
                raw = ofm.scale * quantise_float32(getattr(op.activation, bound), ofm.scale, ofm.zp)
                setattr(op.activation, bound, raw)
    block = pick_block(b.rng, op, b.config)
    b.ops.append(op)
    code = S.BuiltinOperator.MAX_POOL_2D if kind == "MAX" else S.BuiltinOperator.AVERAGE_POOL_2D
    b.model.op(code, [ifm.tensor], [ofm.tensor], S.BuiltinOptions.Pool2DOptions,
               T.pool_options(kernel, stride, padding, act), version=1 if ifm.dtype == np.uint8 else 2)
    b.descriptions.append(
        f"{kind} POOL {kh}x{kw} stride {stride[0]}x{stride[1]} {padding} act {act}, {dname(ifm.dtype)} "
        f"{ifm.layout} {h}x{w}x{c}{_tiles(ifm)} -> {out_layout} {oh}x{ow}x{c}, "
        f"block {block.height}x{block.width}x{block.depth}")
    return ofm


def reduce_sum(b, ifm):
    """REDUCE_SUM over channels (TRM table 4-125) into int32 with scale 1. TFLite
    has no equivalent single operator, so the reference is numpy: the exact
    sum of (x - zero point) over C."""
    h, w, _ = ifm.shape
    ofm = b.output((h, w, 1), np.int32, np.float32(1.0), 0)
    op = V.NpuPoolingOperation(V.NpuPoolingOp.REDUCE_SUM)
    op.ifm, op.ofm = ifm.npu(), ofm.npu()
    # No float scales, as in Vela's own REDUCE_SUMs (softmax): OFM_SCALE is then
    # scale 1, shift 0. With scales Vela would emit shift 31, and for 32-bit
    # outputs only the shift applies (TRM NPU_SET_OFM_SCALE), giving zeros.
    op.ifm.quantization = V.NpuQuantization(scale_f32=None, zero_point=ifm.zp)
    op.ofm.quantization = V.NpuQuantization(scale_f32=None, zero_point=0)
    op.kernel = V.NpuKernel(1, 1)
    op.padding = V.NpuPadding(top=0, left=0, bottom=0, right=0)
    block = pick_block(b.rng, op, b.config)
    b.ops.append(op)
    total = (ifm.value.astype(np.int64) - ifm.zp).sum(axis=2, keepdims=True).astype(np.int32)
    b.raw_outputs.append(("ofm", 1, ofm.addresses[0], total.tobytes()))
    b.descriptions.append(f"REDUCE_SUM {dname(ifm.dtype)} {ifm.layout} {h}x{w}x{ifm.shape[2]} -> int32 NHWC "
                          f"{h}x{w}x1, block {block.height}x{block.width}x{block.depth} (numpy reference)")


ELEMENTWISE = {
    "ADD": (V.NpuElementWiseOp.ADD, S.BuiltinOperator.ADD, S.BuiltinOptions.AddOptions),
    "SUB": (V.NpuElementWiseOp.SUB, S.BuiltinOperator.SUB, S.BuiltinOptions.SubOptions),
    "MUL": (V.NpuElementWiseOp.MUL, S.BuiltinOperator.MUL, S.BuiltinOptions.MulOptions),
    "MIN": (V.NpuElementWiseOp.MIN, S.BuiltinOperator.MINIMUM, S.BuiltinOptions.NONE),
    "MAX": (V.NpuElementWiseOp.MAX, S.BuiltinOperator.MAXIMUM, S.BuiltinOptions.NONE),
}


def elementwise_scales(kind, dtype):
    """(IFM, IFM2, OFM) scales: MIN/MAX share one scale (TFLite does not rescale
    them); MUL's OFM scale is a power of two so float32 and double agree."""
    scales = {"MIN": (1 / 16,) * 3, "MAX": (1 / 16,) * 3, "MUL": (0.05, 0.03, 1 / 4)}.get(kind, (0.05, 0.03, 0.07))
    return tuple(np.float32(s / (128 if np.dtype(dtype).itemsize == 2 else 1)) for s in scales)


def zero_point(rng, dtype):
    return {np.int8: int(rng.integers(-10, 11)), np.uint8: int(rng.integers(100, 156)), np.int16: 0}[dtype]


def elementwise(b, a, other, kind, out_scale, out_zp, act=None, out_layout="NHWC", scalar=False, reversed_=False):
    """Binary elementwise op; `other` is the IFM2 feature map (broadcast when its
    shape has ones), or with `scalar` a one-element constant. With `reversed_`
    the TFLite operand order is (other, a): the NPU broadcasts only IFM2, so a
    broadcast first operand is expressed with reversed operands."""
    dtype = a.dtype
    ofm = b.output(a.shape, dtype, out_scale, out_zp, out_layout)
    npu_kind, code, opt_type = ELEMENTWISE[kind]
    op = V.NpuElementWiseOperation(npu_kind)
    op.ifm, op.ofm = a.npu(), ofm.npu()
    if scalar:
        op.ifm2 = feature_map((1, 1, 1), dtype, "NHWC", 1, 0, other.scale, other.zp)
        op.ifm2_scalar = float((int(other.value.flat[0]) - other.zp) * other.scale)
    else:
        op.ifm2 = other.npu()
    op.reversed_operands = reversed_
    op.activation = activation(act)
    block = pick_block(b.rng, op, b.config)
    b.ops.append(op)
    options = T.binary_options(kind, act) if opt_type != S.BuiltinOptions.NONE else None
    version = 2 if dtype == np.int8 else (3 if dtype == np.int16 else 1)
    operands = [other.tensor, a.tensor] if reversed_ else [a.tensor, other.tensor]
    b.model.op(code, operands, [ofm.tensor], opt_type, options, version)
    ifm2_desc = "scalar" if scalar else "x".join(map(str, other.shape))
    b.descriptions.append(
        f"ELEMENTWISE {kind}{' reversed' if reversed_ else ''} act {act}, {dname(dtype)} {a.layout} "
        f"{'x'.join(map(str, a.shape))}{_tiles(a)} with IFM2 {ifm2_desc}, scales "
        f"{float(a.scale):.6g}/{float(other.scale):.6g}/{float(out_scale):.6g}, "
        f"block {block.height}x{block.width}x{block.depth}")
    return ofm


def constant(b, shape, dtype, scale, zp):
    """A constant tensor of the TFLite model (for scalar IFM2 operands)."""
    value = random_fm(b.rng, shape, dtype)
    t = b.model.tensor(list(shape), dtype, scale, zp, data=value)
    return FM(shape, dtype, scale, zp, "NHWC", [0], t, value)


# ------------------------------------------------------------- activations

with contextlib.redirect_stdout(io.StringIO()):  # Vela's default-config warnings
    # Where Vela places LUTs: the last 2 KB of each core's shared buffer, in
    # 256-byte slots (the same address on every U65 configuration).
    LUT_ADDRESS = create_default_arch(Accelerator.Ethos_U65_256).shram_lut_address
    assert LUT_ADDRESS == create_default_arch(Accelerator.Ethos_U65_512).shram_lut_address

# TFLite's fixed output quantization of TANH and LOGISTIC, per type.
ACT_OUT_Q = {("TANH", np.int8): (1 / 128, 0), ("TANH", np.uint8): (1 / 128, 128),
             ("TANH", np.int16): (1 / 32768, 0), ("SIGMOID", np.int8): (1 / 256, -128),
             ("SIGMOID", np.uint8): (1 / 256, 0), ("SIGMOID", np.int16): (1 / 32768, 0)}
ACT_TFL = {"TANH": S.BuiltinOperator.TANH, "SIGMOID": S.BuiltinOperator.LOGISTIC,
           "LRELU": S.BuiltinOperator.LEAKY_RELU}
ACT_TFL_NAME = {"TANH": "TANH", "SIGMOID": "LOGISTIC", "LRELU": "LEAKY_RELU", "ABS": "ABS"}


def vela_lut(kind, ifm, ofm, alpha=None):
    """The 8-bit LUT Vela's compiler makes for TANH, LOGISTIC or LEAKY_RELU
    (tflite_graph_optimiser.convert_tanh_sigmoid_to_lut / convert_lrelu) from
    these quantizations: Vela's own values, as bytes of the OFM type."""
    vdt = {np.int8: VelaDataType.int8, np.uint8: VelaDataType.uint8}[ifm.dtype]
    op = VelaOperation({"TANH": VelaOp.Tanh, "SIGMOID": VelaOp.Sigmoid, "LRELU": VelaOp.LeakyRelu}[kind], kind)
    for fm, add in ((ifm, op.add_input_tensor), (ofm, op.set_output_tensor)):
        t = VelaTensor([1, *fm.shape], vdt, f"t{len(op.inputs)}")
        t.quantization = QuantizationParameters(scale_f32=np.float32(fm.scale), zero_point=fm.zp)
        add(t)
    if kind == "LRELU":
        op.attrs["alpha"] = alpha
        op = convert_lrelu(op, None, None)
    else:
        op = convert_tanh_sigmoid_to_lut(op, None, None)
    assert op.activation_lut is not None, "Vela did not make a LUT"
    return np.asarray(op.activation_lut.values, dtype=np.int64).astype(ofm.dtype).tobytes()


def lut_activation(b, ifm, ofm, lut, slot):
    """An 8-bit LUT activation as Vela compiles one (lut.convert_to_lut and the LUT
    DMA of high_level_command_to_npu_op): a DMA copies the table from region 0 to
    slot `slot` of the shared buffer's LUT area, then an ADD of a scalar 0 with
    the LUT activation runs with the OFM quantized as the IFM (the table does
    the rescale). Returns the ADD."""
    src = b.regions[0].put(lut)
    b.ops.append(V.NpuDmaOperation(V.NpuAddressRange(0, src, len(lut)),
                                   V.NpuAddressRange(BASE_PTR_INDEX_MEM2MEM, LUT_ADDRESS + slot * 256, len(lut))))
    op = V.NpuElementWiseOperation(V.NpuElementWiseOp.ADD)
    op.ifm, op.ofm = ifm.npu(), ofm.npu(zp=ifm.zp, scale=ifm.scale)
    op.ifm2 = feature_map((1, 1, 1), ifm.dtype, "NHWC", 1, 0, ifm.scale, 0)
    op.ifm2_scalar = 0.0
    op.activation = V.NpuActivation(V.NpuActivationOp.TABLE_LOOKUP)
    op.activation.lookup_table_index = slot
    return op


def tanh_sigmoid(b, ifm, kind, slot=0, lut=True):
    """TANH or LOGISTIC as Vela lowers them: int16 as a 1x1 average pool with the
    NPU's tanh/sigmoid activation (Vela programs OFM_SCALE from the IFM scale,
    register_command_stream_generator.generate_ofm_scaling_for_pooling); 8-bit
    through Vela's LUT, or with lut=False the same pool as int16 (what Vela's
    API emits for an 8-bit pool with that activation, and how Vela's compiler
    lowered 8-bit TANH/LOGISTIC before its LUTs). Returns the OFM."""
    dtype = ifm.dtype
    scale, zp = ACT_OUT_Q[(kind, dtype)]
    ofm = b.output(ifm.shape, dtype, np.float32(scale), zp)
    if dtype == np.int16 or not lut:
        op = V.NpuPoolingOperation(V.NpuPoolingOp.AVERAGE)
        op.ifm, op.ofm = ifm.npu(), ofm.npu()
        op.kernel = V.NpuKernel(1, 1)
        op.padding = V.NpuPadding(top=0, left=0, bottom=0, right=0)
        op.activation = V.NpuActivation(V.NpuActivationOp.TANH if kind == "TANH" else V.NpuActivationOp.SIGMOID)
        # Vela's activation range for them (operation.get_activation_range).
        op.activation.min, op.activation.max = (-1.0, 1.0) if kind == "TANH" else (0.0, 1.0)
        how = f"1x1 AVERAGE POOL with the NPU's {kind.lower()} activation"
    else:
        op = lut_activation(b, ifm, ofm, vela_lut(kind, ifm, ofm), slot)
        how = f"Vela's {kind.lower()} LUT DMA'd to LUT slot {slot}, ADD scalar 0 with the LUT activation"
    block = pick_block(b.rng, op, b.config)
    b.ops.append(op)
    b.model.op(ACT_TFL[kind], [ifm.tensor], [ofm.tensor], version={np.uint8: 1, np.int8: 2, np.int16: 3}[dtype])
    b.descriptions.append(
        f"{ACT_TFL_NAME[kind]} {dname(dtype)} {'x'.join(map(str, ifm.shape))} IFM scale "
        f"{float(ifm.scale):.6g} zero point {ifm.zp}, as Vela lowers it: {how}, block "
        f"{block.height}x{block.width}x{block.depth}; reference: TFLite interpreter {ACT_TFL_NAME[kind]}")
    return ofm


def abs_lrelu(b, ifm, kind, out_scale, out_zp, alpha=None, slot=0):
    """ABS or LEAKY_RELU as Vela lowers them: ABS on the NPU's ABS with OFM_SCALE =
    IFM scale / OFM scale (high_level_command_to_npu_op); LEAKY_RELU through
    Vela's LUT for 8-bit types (convert_lrelu_to_lut) and on the NPU's LRELU with
    OFM_SCALE = alpha for int16 with equal IFM/OFM quantization. Returns the OFM."""
    dtype = ifm.dtype
    ofm = b.output(ifm.shape, dtype, out_scale, out_zp)
    if kind == "LRELU" and dtype != np.int16:
        op = lut_activation(b, ifm, ofm, vela_lut(kind, ifm, ofm, alpha), slot)
        how = f"Vela's leaky ReLU LUT DMA'd to LUT slot {slot}, ADD scalar 0 with the LUT activation"
    else:
        op = V.NpuElementWiseOperation(V.NpuElementWiseOp.ABS if kind == "ABS" else V.NpuElementWiseOp.LRELU)
        npu_scale = np.float32(ifm.scale) / np.float32(out_scale) if kind == "ABS" else alpha
        op.ifm, op.ofm = ifm.npu(), ofm.npu(scale=npu_scale)
        how = f"the NPU's {kind} with OFM scale {float(npu_scale):.6g}"
    block = pick_block(b.rng, op, b.config)
    b.ops.append(op)
    if kind == "LRELU":
        options = S.LeakyReluOptionsT()
        options.alpha = alpha
        b.model.op(ACT_TFL[kind], [ifm.tensor], [ofm.tensor], S.BuiltinOptions.LeakyReluOptions, options,
                   version=2)
    else:
        b.model.op(S.BuiltinOperator.ABS, [ifm.tensor], [ofm.tensor], version=3 if dtype == np.int16 else 2)
    b.descriptions.append(
        f"{ACT_TFL_NAME[kind]}{f' alpha {float(alpha):.6g}' if alpha is not None else ''} {dname(dtype)} "
        f"{'x'.join(map(str, ifm.shape))}, scales {float(ifm.scale):.6g}/{float(out_scale):.6g}, zero points "
        f"{ifm.zp}/{out_zp}, as Vela lowers it: {how}, block {block.height}x{block.width}x{block.depth}; "
        f"reference: TFLite interpreter {ACT_TFL_NAME[kind]}")
    return ofm


def every_value(rng, shape, dtype):
    """A feature map holding each value of an 8-bit type once (so every LUT entry is
    read), shuffled; `shape` has 256 elements."""
    info = np.iinfo(dtype)
    return rng.permutation(np.arange(info.min, info.max + 1)).astype(dtype).reshape(shape)


def generate(root: Path, seed: int):
    """Writes every job under root; returns {operator and type: count}."""
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    counts = {}

    def finish(b, kind, dtype):
        b.write(root)
        key = f"{kind} {dname(dtype)}" if dtype else kind
        counts[key] = counts.get(key, 0) + 1
        for name, fm in b.outputs:
            if fm.check is not None:
                MISMATCHES[f"{b.name}/{name}"] = int(np.count_nonzero(fm.check != fm.value))

    def in_q(dtype):
        if dtype == np.uint8:
            return np.float32(1 / 32), int(rng.integers(100, 156))
        if dtype == np.int8:
            return np.float32(1 / 32), int(rng.integers(-10, 11))
        return np.float32(1 / 1024), 0

    i8, u8, i16 = np.int8, np.uint8, np.int16
    convs = [
        # name, config, dtype, ifm, cout, kernel, stride, dilation, padding, act, traversal
        ("conv_1x1_i8", "u65-256", i8, (6, 6, 16), 16, (1, 1), (1, 1), (1, 1), "VALID", None, "DEPTH_FIRST"),
        ("conv_3x3_i8_pkf", "u65-256", i8, (8, 8, 8), 16, (3, 3), (1, 1), (1, 1), "SAME", "relu", "PART_KERNEL_FIRST"),
        ("conv_3x3_i8_df", "u65-256", i8, (7, 9, 40), 24, (3, 3), (1, 1), (1, 1), "SAME", None, "DEPTH_FIRST"),
        ("conv_3x3_s2_i8", "u65-256", i8, (9, 9, 12), 8, (3, 3), (2, 2), (1, 1), "SAME", "relu6", "PART_KERNEL_FIRST"),
        ("conv_5x5_s3_i8", "u65-256", i8, (13, 11, 4), 8, (5, 5), (3, 3), (1, 1), "VALID", None, "PART_KERNEL_FIRST"),
        ("conv_3x2_s1x2_i8", "u65-256", i8, (8, 10, 20), 12, (3, 2), (1, 2), (1, 1), "SAME", None, "DEPTH_FIRST"),
        ("conv_3x3_dil2_i8", "u65-256", i8, (10, 10, 8), 16, (3, 3), (1, 1), (2, 2), "SAME", None, "PART_KERNEL_FIRST"),
        ("conv_3x3_s2_dil2_i8", "u65-256", i8, (11, 11, 16), 8, (3, 3), (2, 2), (2, 2), "SAME", None, "DEPTH_FIRST"),
        ("conv_9x9_i8", "u65-256", i8, (10, 10, 3), 8, (9, 9), (1, 1), (1, 1), "SAME", None, "PART_KERNEL_FIRST"),
        ("conv_1x1_u8", "u65-256", u8, (5, 5, 24), 16, (1, 1), (1, 1), (1, 1), "VALID", None, "DEPTH_FIRST"),
        ("conv_3x3_u8", "u65-256", u8, (6, 6, 8), 8, (3, 3), (1, 1), (1, 1), "SAME", "relu", "PART_KERNEL_FIRST"),
        ("conv_3x3_i16", "u65-256", i16, (6, 6, 8), 8, (3, 3), (1, 1), (1, 1), "SAME", None, "PART_KERNEL_FIRST"),
        ("conv_1x1_i16_df", "u65-256", i16, (4, 4, 20), 16, (1, 1), (1, 1), (1, 1), "VALID", None, "DEPTH_FIRST"),
        ("conv_3x3_i8_512", "u65-512", i8, (8, 8, 16), 32, (3, 3), (1, 1), (1, 1), "SAME", None, "PART_KERNEL_FIRST"),
        ("conv_1x1_i8_512_df", "u65-512", i8, (6, 6, 48), 24, (1, 1), (1, 1), (1, 1), "VALID", "relu", "DEPTH_FIRST"),
        ("conv_3x3_s2_u8_512", "u65-512", u8, (9, 9, 8), 16, (3, 3), (2, 2), (1, 1), "SAME", None, "PART_KERNEL_FIRST"),
        ("conv_3x3_i16_512", "u65-512", i16, (5, 5, 8), 16, (3, 3), (1, 1), (1, 1), "SAME", "relu", "PART_KERNEL_FIRST"),
        ("conv_3x3_i8_large", "u65-256", i8, (18, 20, 40), 72, (3, 3), (1, 1), (1, 1), "SAME", None, "DEPTH_FIRST"),
        ("conv_3x3_i8_large_512", "u65-512", i8, (16, 17, 24), 80, (3, 3), (1, 1), (1, 1), "SAME", "relu", "PART_KERNEL_FIRST"),
    ]
    for name, cfg, dt, shape, cout, k, st, dil, pad, act, trav in convs:
        b = Build(name, cfg, rng)
        b.expect("ofm", conv(b, b.input(shape, dt, *in_q(dt)), cout, k, st, dil, pad, act, trav))
        finish(b, "CONV2D", dt)
    b = Build("conv_3x3_i8_nhcwb16", "u65-256", rng)
    b.expect("ofm", conv(b, b.input((6, 6, 20), i8, *in_q(i8), layout="NHCWB16"), 32, (3, 3),
                         traversal="DEPTH_FIRST", out_layout="NHCWB16"))
    finish(b, "CONV2D", i8)
    b = Build("conv_1x1_i8_nhwc_to_nhcwb16", "u65-256", rng)
    b.expect("ofm", conv(b, b.input((5, 5, 8), i8, *in_q(i8)), 16, (1, 1), padding="VALID", out_layout="NHCWB16"))
    finish(b, "CONV2D", i8)
    b = Build("conv_3x3_i8_tiles", "u65-256", rng)
    b.expect("ofm", conv(b, b.input((8, 6, 8), i8, *in_q(i8), split=3), 16, (3, 3), out_split=5))
    finish(b, "CONV2D", i8)

    dws = [
        ("dw_3x3_i8", "u65-256", i8, (8, 8, 16), (3, 3), (1, 1), (1, 1), "SAME", None),
        ("dw_3x3_s2_i8", "u65-256", i8, (9, 9, 24), (3, 3), (2, 2), (1, 1), "SAME", "relu6"),
        ("dw_5x5_dil2_i8", "u65-256", i8, (12, 12, 8), (5, 5), (1, 1), (2, 2), "SAME", None),
        ("dw_3x3_s3_i8", "u65-256", i8, (10, 10, 16), (3, 3), (3, 3), (1, 1), "VALID", None),
        ("dw_3x3_u8", "u65-256", u8, (6, 6, 12), (3, 3), (1, 1), (1, 1), "VALID", None),
        ("dw_3x3_i16", "u65-256", i16, (6, 6, 8), (3, 3), (1, 1), (1, 1), "SAME", None),
        ("dw_3x3_i8_512", "u65-512", i8, (8, 8, 32), (3, 3), (1, 1), (1, 1), "SAME", "relu"),
        ("dw_3x3_u8_512", "u65-512", u8, (6, 6, 16), (3, 3), (2, 2), (1, 1), "SAME", None),
    ]
    for name, cfg, dt, shape, k, st, dil, pad, act in dws:
        b = Build(name, cfg, rng)
        b.expect("ofm", conv(b, b.input(shape, dt, *in_q(dt)), 0, k, st, dil, pad, act, depthwise=True))
        finish(b, "DEPTHWISE", dt)
    b = Build("dw_3x3_i8_nhcwb16", "u65-256", rng)
    b.expect("ofm", conv(b, b.input((6, 6, 32), i8, *in_q(i8), layout="NHCWB16"), 0, (3, 3), depthwise=True,
                         out_layout="NHCWB16"))
    finish(b, "DEPTHWISE", i8)

    pools = [
        ("maxpool_2x2_s2_i8", "u65-256", i8, (8, 8, 16), "MAX", (2, 2), (2, 2), "VALID", None),
        ("maxpool_3x3_same_i8", "u65-256", i8, (7, 7, 8), "MAX", (3, 3), (1, 1), "SAME", "relu"),
        ("maxpool_3x3_s2_u8", "u65-256", u8, (9, 9, 12), "MAX", (3, 3), (2, 2), "VALID", None),
        ("maxpool_2x2_i16", "u65-256", i16, (6, 6, 8), "MAX", (2, 2), (2, 2), "VALID", None),
        ("avgpool_2x2_s2_i8", "u65-256", i8, (8, 8, 16), "AVERAGE", (2, 2), (2, 2), "VALID", None),
        ("avgpool_3x3_i8", "u65-256", i8, (7, 7, 8), "AVERAGE", (3, 3), (1, 1), "VALID", None),
        ("avgpool_3x3_s3_u8", "u65-256", u8, (9, 9, 12), "AVERAGE", (3, 3), (3, 3), "VALID", None),
        ("avgpool_2x2_i16", "u65-256", i16, (6, 6, 8), "AVERAGE", (2, 2), (2, 2), "VALID", None),
        ("avgpool_5x5_i8", "u65-256", i8, (6, 6, 16), "AVERAGE", (5, 5), (1, 1), "VALID", None),
        ("maxpool_3x3_i8_512", "u65-512", i8, (8, 8, 32), "MAX", (3, 3), (1, 1), "VALID", None),
        ("avgpool_2x2_u8_512", "u65-512", u8, (8, 8, 16), "AVERAGE", (2, 2), (2, 2), "VALID", None),
    ]
    for name, cfg, dt, shape, kind, k, st, pad, act in pools:
        b = Build(name, cfg, rng)
        scale = np.float32(1 / 16 if dt != i16 else 1 / 256)
        b.expect("ofm", pool(b, b.input(shape, dt, scale, zero_point(rng, dt)), kind, k, st, pad, act))
        finish(b, f"{kind}POOL", dt)
    b = Build("maxpool_2x2_i8_nhcwb16", "u65-256", rng)
    b.expect("ofm", pool(b, b.input((8, 8, 32), i8, np.float32(1 / 16), 3, layout="NHCWB16"), "MAX", (2, 2), (2, 2),
                         out_layout="NHCWB16"))
    finish(b, "MAXPOOL", i8)

    elems = [
        # name, config, dtype, shape, kind, ifm2 shape (None: same; "scalar"), act, reversed
        ("add_i8", "u65-256", i8, (4, 5, 16), "ADD", None, None, False),
        ("add_i8_relu", "u65-256", i8, (6, 6, 8), "ADD", None, "relu", False),
        ("add_u8", "u65-256", u8, (4, 4, 24), "ADD", None, None, False),
        ("add_i16", "u65-256", i16, (4, 4, 16), "ADD", None, None, False),
        ("add_i8_bcast_c", "u65-256", i8, (5, 5, 16), "ADD", (1, 1, 16), None, False),
        ("add_i8_scalar", "u65-256", i8, (4, 4, 8), "ADD", "scalar", None, False),
        ("sub_i8", "u65-256", i8, (4, 5, 16), "SUB", None, None, False),
        ("sub_u8_bcast_hw", "u65-256", u8, (4, 4, 8), "SUB", (4, 4, 1), None, False),
        ("sub_i8_bcast_first", "u65-256", i8, (4, 4, 16), "SUB", (1, 1, 16), None, True),
        ("sub_i16", "u65-256", i16, (3, 3, 16), "SUB", None, None, False),
        ("mul_i8", "u65-256", i8, (4, 5, 16), "MUL", None, None, False),
        ("mul_u8_scalar", "u65-256", u8, (4, 4, 8), "MUL", "scalar", None, False),
        ("mul_i16", "u65-256", i16, (4, 4, 8), "MUL", None, None, False),
        ("mul_i8_relu6", "u65-256", i8, (4, 4, 16), "MUL", None, "relu6", False),
        ("min_i8", "u65-256", i8, (4, 5, 16), "MIN", None, None, False),
        ("max_i8_bcast_c", "u65-256", i8, (4, 4, 16), "MAX", (1, 1, 16), None, False),
        ("max_u8", "u65-256", u8, (4, 4, 8), "MAX", None, None, False),
        ("min_i16", "u65-256", i16, (4, 4, 8), "MIN", None, None, False),
        ("add_i8_512", "u65-512", i8, (6, 6, 32), "ADD", None, None, False),
        ("mul_i8_512", "u65-512", i8, (4, 4, 32), "MUL", None, None, False),
        ("add_i16_512", "u65-512", i16, (4, 4, 16), "ADD", (1, 1, 16), None, False),
    ]
    for name, cfg, dt, shape, kind, shape2, act, rev in elems:
        b = Build(name, cfg, rng)
        s1, s2, so = elementwise_scales(kind, dt)
        z1 = zero_point(rng, dt)
        z2, zo = (z1, z1) if kind in ("MIN", "MAX") else (zero_point(rng, dt), zero_point(rng, dt))
        a = b.input(shape, dt, s1, z1)
        if shape2 == "scalar":
            other = constant(b, (1,), dt, s2, z2)
        else:
            other = b.input(shape2 or shape, dt, s2, z2)
        b.expect("ofm", elementwise(b, a, other, kind, so, zo, act, scalar=shape2 == "scalar", reversed_=rev))
        finish(b, f"ELEMENTWISE_{kind}", dt)
    b = Build("add_i8_nhcwb16_tiles", "u65-256", rng)
    s1, s2, so = elementwise_scales("ADD", i8)
    a = b.input((6, 4, 32), i8, s1, 2, layout="NHCWB16", split=2)
    other = b.input((6, 4, 32), i8, s2, -3, layout="NHCWB16")
    b.expect("ofm", elementwise(b, a, other, "ADD", so, 1, out_layout="NHCWB16"))
    finish(b, "ELEMENTWISE_ADD", i8)

    # Chains: several operations in one command stream (register state carried
    # over, intermediates in memory), every intermediate checked too.
    b = Build("chain_conv_pool_add_i8", "u65-256", rng)
    x = b.input((8, 8, 8), i8, *in_q(i8))
    c = conv(b, x, 16, (3, 3), act="relu")
    p = pool(b, c, "MAX", (2, 2), (2, 2), out_layout="NHCWB16")
    y = b.input((4, 4, 16), i8, p.scale, p.zp)
    s = elementwise(b, p, y, "ADD", np.float32(float(p.scale) * 2), p.zp)
    for name, fm in (("conv", c), ("pool", p), ("ofm", s)):
        b.expect(name, fm)
    finish(b, "CHAIN", i8)
    b = Build("chain_dw_conv_u8_512", "u65-512", rng)
    x = b.input((8, 8, 16), u8, *in_q(u8))
    d = conv(b, x, 0, (3, 3), depthwise=True)
    c = conv(b, d, 32, (1, 1), padding="VALID", traversal="DEPTH_FIRST")
    b.expect("dw", d)
    b.expect("ofm", c)
    finish(b, "CHAIN", u8)

    for name, cfg, dt, shape, layout in (("reduce_sum_i8", "u65-256", i8, (4, 5, 40), "NHWC"),
                                         ("reduce_sum_u8_nhcwb16", "u65-256", u8, (3, 4, 24), "NHCWB16"),
                                         ("reduce_sum_i16_512", "u65-512", i16, (4, 4, 16), "NHWC")):
        b = Build(name, cfg, rng)
        reduce_sum(b, b.input(shape, dt, *in_q(dt), layout=layout))
        finish(b, "REDUCE_SUM", dt)

    for name, cfg, size in (("dma_256", "u65-256", 256), ("dma_4000_512", "u65-512", 4000)):
        b = Build(name, cfg, rng)
        src = rng.integers(0, 256, size=size).astype(np.uint8).tobytes()
        s_addr, d_addr = b.regions[0].put(src), b.regions[1].alloc(size)
        b.ops.append(V.NpuDmaOperation(V.NpuAddressRange(0, s_addr, size), V.NpuAddressRange(1, d_addr, size)))
        b.descriptions.append(f"DMA {size} bytes region 0 -> region 1")
        b.raw_outputs.append(("dst", 1, d_addr, src))  # a copy: the source is the reference
        finish(b, "DMA", None)

    # Jobs added later come last, so the jobs above keep their random data.
    b = Build("conv_1x1_i8_relu_n1", "u65-256", rng)
    b.expect("ofm", conv(b, b.input((4, 4, 32), i8, *in_q(i8)), 16, (1, 1), padding="VALID", act="relu_n1_to_1",
                         traversal="DEPTH_FIRST"))
    finish(b, "CONV2D", i8)

    # TANH and LOGISTIC: int16 on the NPU's tanh/sigmoid activation, with the
    # special input scales Vela recognises (1/4096, and 1/2048 for tanh) and
    # general ones; 8-bit through LUTs.
    for name, cfg, kind, in_scale in (("tanh_i16", "u65-256", "TANH", 1 / 4096),
                                      ("tanh_i16_s2048", "u65-256", "TANH", 1 / 2048),
                                      ("tanh_i16_s0003", "u65-512", "TANH", 0.0003),
                                      ("sigmoid_i16", "u65-256", "SIGMOID", 1 / 4096),
                                      ("sigmoid_i16_s00047", "u65-256", "SIGMOID", 0.00047)):
        b = Build(name, cfg, rng)
        x = rng.integers(-32768, 32768, size=(4, 8, 16)).astype(i16)
        b.expect("ofm", tanh_sigmoid(b, b.input(x.shape, i16, np.float32(in_scale), 0, value=x), kind))
        finish(b, kind, i16)
    for name, cfg, kind, dt, in_scale in (("tanh_i8", "u65-256", "TANH", i8, 0.05),
                                          ("tanh_u8_512", "u65-512", "TANH", u8, 0.04),
                                          ("sigmoid_i8", "u65-256", "SIGMOID", i8, 0.06),
                                          ("sigmoid_u8", "u65-256", "SIGMOID", u8, 0.045)):
        b = Build(name, cfg, rng)
        x = every_value(rng, (4, 4, 16), dt)
        b.expect("ofm", tanh_sigmoid(b, b.input(x.shape, dt, np.float32(in_scale), zero_point(rng, dt), value=x),
                                     kind))
        finish(b, kind, dt)
    # Two LUTs in two slots, one after the other.
    b = Build("chain_tanh_sigmoid_i8", "u65-256", rng)
    x = every_value(rng, (4, 4, 16), i8)
    t = tanh_sigmoid(b, b.input(x.shape, i8, np.float32(0.03), 4, value=x), "TANH", slot=0)
    b.expect("tanh", t)
    b.expect("ofm", tanh_sigmoid(b, t, "SIGMOID", slot=1))
    finish(b, "CHAIN", i8)

    # LEAKY_RELU: 8-bit through Vela's LUT (any scales), int16 on the NPU's
    # LRELU (Vela needs equal IFM/OFM quantization; int16 zero points are 0).
    f32 = np.float32
    for name, cfg, dt, shape, scales, zps, alpha in (
            ("lrelu_i8", "u65-256", i8, (4, 4, 16), (0.05, 0.04), (3, -5), 0.2),
            ("lrelu_u8", "u65-256", u8, (4, 4, 16), (1 / 32, 1 / 32), (130, 128), 0.25),
            ("lrelu_i16", "u65-256", i16, (4, 8, 16), (1 / 1024, 1 / 1024), (0, 0), 0.1),
            ("lrelu_i16_512", "u65-512", i16, (3, 5, 24), (1 / 256, 1 / 256), (0, 0), 0.37)):
        b = Build(name, cfg, rng)
        if name == "abs_i16_rescale":
            b.litert_because = ("TFLite Micro's int16 ABS rescale gives one less than the NPU's output "
                                "scaling as Vela programs it on 40 of 256 outputs, where LiteRT agrees with it")
        if dt == i16:
            x = rng.integers(-32768, 32768, size=shape).astype(dt)
        else:
            x = every_value(rng, shape, dt)
        fm = b.input(shape, dt, f32(scales[0]), zps[0], value=x)
        b.expect("ofm", abs_lrelu(b, fm, "LRELU", f32(scales[1]), zps[1], alpha=f32(alpha)))
        finish(b, "LRELU", dt)
    # ABS on the NPU's ABS, rescaling to the OFM quantization.
    for name, cfg, dt, shape, scales, zps in (("abs_i8", "u65-256", i8, (4, 4, 16), (0.05, 0.05), (3, -7)),
                                              ("abs_i8_rescale", "u65-256", i8, (4, 4, 16), (0.05, 0.03), (-4, 9)),
                                              ("abs_i16", "u65-256", i16, (4, 8, 16), (1 / 1024, 1 / 1024), (0, 0)),
                                              ("abs_i16_rescale", "u65-512", i16, (4, 4, 16), (0.0007, 0.0004),
                                               (0, 0))):
        b = Build(name, cfg, rng)
        if name == "abs_i16_rescale":
            b.litert_because = ("TFLite Micro's int16 ABS rescale gives one less than the NPU's output "
                                "scaling as Vela programs it on 40 of 256 outputs, where LiteRT agrees with it")
        if dt == i16:
            x = rng.integers(-32768, 32768, size=shape).astype(dt)
        else:
            x = every_value(rng, shape, dt)
        fm = b.input(shape, dt, f32(scales[0]), zps[0], value=x)
        b.expect("ofm", abs_lrelu(b, fm, "ABS", f32(scales[1]), zps[1]))
        finish(b, "ABS", dt)

    # Average pools with SAME padding (no scaling: the NPU divides by the
    # number of non-padding elements) and with fused activations.
    pools = [
        ("avgpool_3x3_same_i8", "u65-256", i8, (7, 6, 16), (3, 3), (1, 1), "SAME", None),
        ("avgpool_2x2_s2_same_u8", "u65-256", u8, (7, 7, 8), (2, 2), (2, 2), "SAME", None),
        ("avgpool_3x3_s2_same_i16", "u65-256", i16, (7, 8, 8), (3, 3), (2, 2), "SAME", None),
        ("avgpool_5x5_same_i8_512", "u65-512", i8, (6, 6, 16), (5, 5), (1, 1), "SAME", None),
        ("avgpool_3x3_same_i8_relu", "u65-256", i8, (6, 6, 16), (3, 3), (1, 1), "SAME", "relu"),
        ("avgpool_3x3_s2_same_u8_relu6", "u65-256", u8, (7, 7, 8), (3, 3), (2, 2), "SAME", "relu6"),
        ("avgpool_2x2_s2_i8_relu_n1", "u65-256", i8, (8, 8, 16), (2, 2), (2, 2), "VALID", "relu_n1_to_1"),
        ("avgpool_3x3_i16_relu", "u65-256", i16, (6, 6, 8), (3, 3), (1, 1), "VALID", "relu"),
    ]
    for name, cfg, dt, shape, k, st, pad, act in pools:
        b = Build(name, cfg, rng)
        scale = np.float32(1 / 16 if dt != i16 else 1 / 256)
        b.expect("ofm", pool(b, b.input(shape, dt, scale, zero_point(rng, dt)), "AVERAGE", k, st, pad, act))
        b.descriptions.append("reference: TFLite interpreter AVERAGE_POOL_2D")
        finish(b, "AVERAGEPOOL", dt)

    # 2x2 upscaling: insert zeros (TRANSPOSE_CONV) and nearest neighbour
    # (RESIZE_NEAREST_NEIGHBOR), as Vela lowers them.
    for name, cfg, dt, shape, cout, k, pad, act in (
            ("tconv_3x3_same_i8", "u65-256", i8, (4, 5, 8), 16, (3, 3), "SAME", None),
            ("tconv_2x2_same_i8_relu", "u65-256", i8, (4, 4, 16), 8, (2, 2), "SAME", "relu"),
            ("tconv_4x4_same_i8_512", "u65-512", i8, (3, 4, 8), 16, (4, 4), "SAME", None),
            ("tconv_3x3_valid_i8", "u65-256", i8, (4, 4, 8), 8, (3, 3), "VALID", None),
            ("tconv_3x3_same_i16", "u65-256", i16, (3, 4, 8), 8, (3, 3), "SAME", None)):
        b = Build(name, cfg, rng)
        b.expect("ofm", transpose_conv(b, b.input(shape, dt, *in_q(dt)), cout, k, pad, act))
        finish(b, "TRANSPOSE_CONV", dt)
    for name, cfg, dt, shape, hpc in (("resize_nn_i8", "u65-256", i8, (4, 5, 16), False),
                                      ("resize_nn_u8_hpc", "u65-256", u8, (3, 4, 8), True),
                                      ("resize_nn_i16_512", "u65-512", i16, (3, 3, 16), False)):
        b = Build(name, cfg, rng)
        b.expect("ofm", resize_nearest(b, b.input(shape, dt, *in_q(dt)), hpc))
        finish(b, "RESIZE_NEAREST_NEIGHBOR", dt)
    # x4 is two x2 steps in Vela, the first into an intermediate.
    b = Build("resize_nn_x4_i8", "u65-256", rng)
    x = b.input((2, 3, 8), i8, *in_q(i8))
    b.expect("ofm", resize_nearest(b, resize_nearest(b, x), False))
    finish(b, "RESIZE_NEAREST_NEIGHBOR", i8)

    # SOFTMAX compiled by Vela: int8/uint8 as 28 operations (depth-wise max,
    # SUB with a LUT of 32-bit exp values, SHR, REDUCE_SUM, CLZ, SHL, int32
    # ADD/SUB/MUL Newton-Raphson, final SHR); int16 with two interpolating
    # 16-bit LUTs (exp and 1/(1+x)), CLZ, SHL and SHR.
    for name, cfg, dt, shape, scale, zp, beta in (
            ("softmax_i8", "u65-256", i8, (2, 3, 16), 0.1, 3, 1.0),
            ("softmax_i8_c40_512", "u65-512", i8, (3, 4, 40), 0.05, -7, 1.0),
            ("softmax_u8_beta07", "u65-256", u8, (2, 3, 24), 0.08, 120, 0.7),
            ("softmax_i16", "u65-256", i16, (2, 3, 16), 1 / 2048, 0, 1.0),
            ("softmax_i16_c33_512", "u65-512", i16, (2, 4, 33), 0.0007, 0, 1.0)):
        m = T.Model()
        t_in = m.tensor([1, *shape], dt, np.float32(scale), zp)
        out_q = {i8: (1 / 256, -128), u8: (1 / 256, 0), i16: (1 / 32768, 0)}[dt]
        t_out = m.tensor([1, *shape], dt, np.float32(out_q[0]), out_q[1])
        options = S.SoftmaxOptionsT()
        options.beta = beta
        m.op(S.BuiltinOperator.SOFTMAX, [t_in], [t_out], S.BuiltinOptions.SoftmaxOptions, options,
             version=3 if dt == i16 else 2)
        m.inputs, m.outputs = [t_in], [t_out]
        x = rng.integers(-32768, 32768, size=shape).astype(dt) if dt == i16 else random_fm(rng, shape, dt)
        compiled.write_job(root, name, cfg, m, [x],
                           f"SOFTMAX beta {beta} {dname(dt)} {'x'.join(map(str, shape))}, input scale {scale:g} zero "
                           f"point {zp}, compiled by Vela ({' '.join(compiled.VELA_OPTIONS[2:])}) into its "
                           f"{'int16' if dt == i16 else '8-bit'} softmax sequence (CLZ, SHL, SHR, REDUCE_SUM, LUTs); "
                           f"reference: TFLite interpreter SOFTMAX")
        counts[f"SOFTMAX {dname(dt)}"] = counts.get(f"SOFTMAX {dname(dt)}", 0) + 1

    # More operators Vela turns into LUTs or sequences, compiled by Vela: EXP
    # (8-bit LUT; int16 interpolating LUT), HARD_SWISH and RSQRT (8-bit LUTs),
    # LEAKY_RELU int16 with different IFM/OFM scales (MUL and MAX).
    lrelu = S.LeakyReluOptionsT()
    lrelu.alpha = 0.3
    for name, cfg, code, dt, q_in, q_out, version, options, how in (
            ("exp_i8", "u65-256", S.BuiltinOperator.EXP, i8, (0.02, -3), (0.05, -100), 2, None, "an 8-bit LUT"),
            ("exp_i16", "u65-256", S.BuiltinOperator.EXP, i16, (1 / 8192, 0), (1 / 2048, 0), 2, None,
             "a 16-bit interpolating LUT"),
            ("hard_swish_i8", "u65-256", S.BuiltinOperator.HARD_SWISH, i8, (0.05, 3), (0.03, -20), 1, None,
             "an 8-bit LUT"),
            ("rsqrt_i8", "u65-512", S.BuiltinOperator.RSQRT, i8, (0.05, -128), (0.02, -128), 2, None,
             "an 8-bit LUT"),
            ("lrelu_i16_rescale", "u65-256", S.BuiltinOperator.LEAKY_RELU, i16, (1 / 1024, 0), (1 / 512, 0), 2,
             (S.BuiltinOptions.LeakyReluOptions, lrelu), "MUL by alpha and MAX")):
        m = T.Model()
        shape = (4, 4, 16)
        t_in = m.tensor([1, *shape], dt, np.float32(q_in[0]), q_in[1])
        t_out = m.tensor([1, *shape], dt, np.float32(q_out[0]), q_out[1])
        m.op(code, [t_in], [t_out], *(options or ()), version=version)
        m.inputs, m.outputs = [t_in], [t_out]
        x = rng.integers(-32768, 32768, size=shape).astype(dt) if dt == i16 else every_value(rng, shape, dt)
        op_name = next(k for k, v in vars(S.BuiltinOperator).items() if v == code)
        compiled.write_job(root, name, cfg, m, [x],
                           f"{op_name} {dname(dt)} {'x'.join(map(str, shape))}, scales {q_in[0]:.6g}/{q_out[0]:.6g}, "
                           f"zero points {q_in[1]}/{q_out[1]}, compiled by Vela into {how}; reference: TFLite "
                           f"interpreter {op_name}")
        counts[f"{op_name} {dname(dt)}"] = counts.get(f"{op_name} {dname(dt)}", 0) + 1
    # An activation after a convolution: Vela fuses an 8-bit LUT into the
    # convolution; int16 TANH/LOGISTIC stay a separate 1x1 pool.
    for name, cfg, dt, code, act_q in (("conv_tanh_i8", "u65-256", i8, S.BuiltinOperator.TANH, (1 / 128, 0)),
                                       ("conv_logistic_i16", "u65-256", i16, S.BuiltinOperator.LOGISTIC,
                                        (1 / 32768, 0))):
        m = T.Model()
        shape, cout = (6, 6, 8), 8
        q_in = (np.float32(1 / 32), 2) if dt == i8 else (np.float32(1 / 1024), 0)
        t_in = m.tensor([1, *shape], dt, *q_in)
        w = rng.integers(-127, 128, size=(cout, 3, 3, shape[2])).astype(i8)
        w_scale = rng.uniform(0.002, 0.01, size=cout).astype(np.float32)
        t_w = m.tensor(list(w.shape), i8, w_scale, [0] * cout, data=w)
        bias_dt = np.int32 if dt == i8 else np.int64
        t_b = m.tensor([cout], bias_dt, np.double(q_in[0]) * w_scale.astype(np.double), [0] * cout,
                       data=rng.integers(-2000, 2001, size=cout).astype(bias_dt))
        mid_q = (np.float32(0.05), -3) if dt == i8 else (np.float32(1 / 2048), 0)
        t_mid = m.tensor([1, *shape[:2], cout], dt, *mid_q)
        m.op(S.BuiltinOperator.CONV_2D, [t_in, t_w, t_b], [t_mid], S.BuiltinOptions.Conv2DOptions,
             T.conv_options((1, 1), (1, 1), "SAME", None), version=3 if dt == i8 else 4)
        t_out = m.tensor([1, *shape[:2], cout], dt, np.float32(act_q[0]), act_q[1])
        m.op(code, [t_mid], [t_out], version=2 if dt == i8 else 3)
        m.inputs, m.outputs = [t_in], [t_out]
        x = random_fm(rng, shape, dt)
        op_name = "TANH" if code == S.BuiltinOperator.TANH else "LOGISTIC"
        how = ("one CONV with the tanh LUT as its activation" if dt == i8
               else "a CONV, then a 1x1 AVERAGE POOL with the sigmoid activation")
        compiled.write_job(root, name, cfg, m, [x],
                           f"CONV_2D 3x3 SAME then {op_name}, {dname(dt)} {'x'.join(map(str, shape))} -> {cout} "
                           f"channels, compiled by Vela into {how}; reference: TFLite interpreter CONV_2D, {op_name}")
        counts[f"CHAIN {dname(dt)}"] = counts.get(f"CHAIN {dname(dt)}", 0) + 1
    # RESIZE_BILINEAR, compiled by Vela: TRM 4.8.1's construction (a nearest
    # 2x2 upscale in a 2x2 average pool padded bottom/right, twice for x4);
    # with half_pixel_centers, 1x1 pools and depth-wise convolutions.
    for name, cfg, dt, factor, align, half, how in (
            ("resize_bilinear_i8", "u65-256", i8, 2, False, False, "a 2x2 AVERAGE POOL of the nearest-upscaled IFM"),
            ("resize_bilinear_i8_align", "u65-256", i8, 2, True, False,
             "a 2x2 AVERAGE POOL of the nearest-upscaled IFM"),
            ("resize_bilinear_i8_hpc", "u65-256", i8, 2, False, True, "1x1 pools and depth-wise convolutions"),
            ("resize_bilinear_i16", "u65-512", i16, 2, False, False, "a 2x2 AVERAGE POOL of the nearest-upscaled IFM"),
            ("resize_bilinear_u8_x4", "u65-256", u8, 4, False, False,
             "two nearest 2x2 upscales and a 4x4 AVERAGE POOL")):
        shape = (3, 4, 8)
        out_hw = ([(n - 1) * factor + 1 for n in shape[:2]] if align else [n * factor for n in shape[:2]])
        m = T.Model()
        q = in_q(dt)
        t_in = m.tensor([1, *shape], dt, *q)
        t_out = m.tensor([1, *out_hw, shape[2]], dt, *q)
        t_size = m.tensor([2], np.int32, None, None, data=np.array(out_hw, dtype=np.int32))
        options = S.ResizeBilinearOptionsT()
        options.alignCorners, options.halfPixelCenters = align, half
        m.op(S.BuiltinOperator.RESIZE_BILINEAR, [t_in, t_size], [t_out], S.BuiltinOptions.ResizeBilinearOptions,
             options, version=4 if dt == i16 else 3)
        m.inputs, m.outputs = [t_in], [t_out]
        flags = "".join(f" {f}" for f, on in (("align_corners", align), ("half_pixel_centers", half)) if on)
        compiled.write_job(root, name, cfg, m, [random_fm(rng, shape, dt)],
                           f"RESIZE_BILINEAR x{factor}{flags}, {dname(dt)} {'x'.join(map(str, shape))} -> "
                           f"{'x'.join(map(str, out_hw))}x{shape[2]}, compiled by Vela into {how}; reference: TFLite "
                           f"interpreter RESIZE_BILINEAR")
        counts[f"RESIZE_BILINEAR {dname(dt)}"] = counts.get(f"RESIZE_BILINEAR {dname(dt)}", 0) + 1
    # The 4x4 kernel decomposition (TRM 4.7.5 kernel_split_size 4, NPU_SET_KERNEL_STRIDE
    # bit 5): Vela's stream with that bit set and weights from Vela's reorder with
    # 4x4 sub-kernels; it changes the weight order only, so TFLite stays the reference.
    split4 = [
        # name, config, dtype, ifm, cout (0: depthwise), kernel, stride, dilation, traversal
        ("conv_5x5_i8_split4", "u65-256", i8, (8, 8, 8), 16, (5, 5), (1, 1), (1, 1), "PART_KERNEL_FIRST"),
        ("conv_6x5_i8_df_split4", "u65-256", i8, (9, 8, 40), 24, (6, 5), (1, 1), (1, 1), "DEPTH_FIRST"),
        ("conv_5x7_s2_u8_split4", "u65-256", u8, (11, 13, 12), 8, (5, 7), (2, 2), (1, 1), "PART_KERNEL_FIRST"),
        ("conv_5x5_i16_split4", "u65-256", i16, (7, 7, 8), 8, (5, 5), (1, 1), (1, 1), "PART_KERNEL_FIRST"),
        ("conv_3x3_dil2_i8_split4", "u65-256", i8, (10, 10, 8), 16, (3, 3), (1, 1), (2, 2), "DEPTH_FIRST"),
        ("conv_5x5_i8_512_split4", "u65-512", i8, (8, 8, 16), 24, (5, 5), (1, 1), (1, 1), "PART_KERNEL_FIRST"),
        ("dw_5x5_i8_split4", "u65-256", i8, (9, 9, 16), 0, (5, 5), (1, 1), (1, 1), None),
        ("dw_7x6_s2_u8_split4", "u65-256", u8, (12, 12, 8), 0, (7, 6), (2, 2), (1, 1), None),
        ("dw_5x5_dil2_i16_512_split4", "u65-512", i16, (12, 12, 16), 0, (5, 5), (1, 1), (2, 2), None),
    ]
    for name, cfg, dt, shape, cout, k, st, dil, trav in split4:
        b = Build(name, cfg, rng)
        x = b.input(shape, dt, *in_q(dt))
        if trav is None:
            ofm = conv(b, x, 0, k, st, dil, depthwise=True, kernel_split=4)
        else:
            ofm = conv(b, x, cout, k, st, dil, traversal=trav, kernel_split=4)
        b.expect("ofm", ofm)
        finish(b, "DEPTHWISE" if trav is None else "CONV2D", dt)
    # 8-bit TANH and LOGISTIC on the NPU's tanh/sigmoid activation (no LUT).
    # TFLite's 8-bit kernels use LUTs made in float; they differ from the NPU's
    # interpolated table by one on inputs whose exact result is within the
    # table's error of a rounding tie (a few per thousand; 8 of 256 for LOGISTIC
    # at input scale 1/128), and these scales have none.
    for name, cfg, kind, dt, in_scale, zp in (("tanh_i8_native", "u65-256", "TANH", i8, 0.05, 3),
                                              ("tanh_u8_native_512", "u65-512", "TANH", u8, 0.013, 130),
                                              ("sigmoid_i8_native", "u65-256", "SIGMOID", i8, 0.02, -7),
                                              ("sigmoid_u8_native", "u65-256", "SIGMOID", u8, 0.05, 121)):
        b = Build(name, cfg, rng)
        x = every_value(rng, (4, 4, 16), dt)
        b.expect("ofm", tanh_sigmoid(b, b.input(x.shape, dt, np.float32(in_scale), zp, value=x), kind, lut=False))
        finish(b, kind, dt)
    return counts
