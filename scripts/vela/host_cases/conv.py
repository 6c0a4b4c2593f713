"""Convolutions, fully connected layers, matrix products and pools (model/src/tflite/host/conv/):
every element type TFLite Micro takes, per-channel and per-tensor weights, each bias type that picks a
16-bit kernel's accumulator, SAME/VALID padding with odd totals, strides, dilations, groups, depth
multipliers, every fused activation, non-zero zero points, accumulators that wrap, outputs that saturate
at both ends, computed weights and shapes, broadcast batches and float specials."""

import numpy as np
from tflite_ref import (ACT, Model, S, conv_options, depthwise_options, pool_options,
                        transpose_conv_options)

O = S.BuiltinOperator
BO = S.BuiltinOptions
WIDE_BIAS = {np.int8: np.int32, np.int16: np.int64}


def ints(rng, dtype, shape, lo=None, hi=None):
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)


def floats(rng, shape, specials=False):
    v = rng.normal(0, 1, shape).astype(np.float32)
    if specials:
        flat = v.reshape(-1)
        flat[[3, 11, 20, 29]] = [np.inf, -np.inf, np.nan, 3e38]
    return v


def filter_scales(rng, channels, per_channel):
    return rng.uniform(0.004, 0.02, channels if per_channel else 1).astype(np.float32)


def out_scale(in_scale, f_scales, taps, spread=100.0):
    """An output scale that puts sums of `taps` random products about 50 steps out (`spread` 100); a
    smaller spread saturates more of them at both ends."""
    return float(in_scale * np.mean(f_scales) * spread * np.sqrt(taps))


class Quant:
    """Quantisation of a case: input (scale, zero point), output zero point, spread; for a float case
    whether the input holds infinities, NaN and near-overflowing values."""

    def __init__(self, in_scale=0.05, in_zp=0, out_zp=0, spread=100.0, specials=False):
        self.in_scale, self.in_zp, self.out_zp, self.spread = in_scale, in_zp, out_zp, spread
        self.specials = specials


def data(rng, m, dtype, shape, q, aligned=False):
    """A graph input: its tensor and values (`aligned`: all near the type's largest)."""
    if dtype == np.float32:
        return m.tensor(shape, dtype, None, None), floats(rng, shape, q.specials)
    lo = np.iinfo(dtype).max - 300 if aligned else None
    return m.tensor(shape, dtype, q.in_scale, q.in_zp), ints(rng, dtype, shape, lo)


def weights(rng, m, dtype, shape, axis, per_channel, constant=True, aligned=False, zero_point=0):
    """A filter (int8 for the integer kernels) and its scales; `aligned`: along `axis`, large positive
    weights, then large negative ones, then random ones, so that sums of large inputs overflow int32."""
    if dtype == np.float32:
        w = floats(rng, shape)
        return m.tensor(shape, dtype, None, None, w if constant else None), None, w
    scales = filter_scales(rng, shape[axis], per_channel)
    w = ints(rng, np.int8, shape, -127, 127)
    if aligned:
        w = np.moveaxis(w, axis, 0)
        w[0::3] = ints(rng, np.int8, w[0::3].shape, 115, 127)
        w[1::3] = ints(rng, np.int8, w[1::3].shape, -127, -115)
        w = np.ascontiguousarray(np.moveaxis(w, 0, axis))
    t = m.tensor(shape, np.int8, scales, np.full(len(scales), zero_point, np.int64), w if constant else None, axis)
    return t, scales, w


def bias(rng, m, dtype, bias_type, channels, scale, magnitude):
    """A constant bias of `bias_type` (None: no bias, input -1)."""
    if bias_type is None:
        return -1
    if bias_type == np.float32:
        return m.tensor([channels], np.float32, None, None, floats(rng, [channels]))
    info = np.iinfo(bias_type)
    b = rng.integers(-magnitude, magnitude, channels, endpoint=True).clip(info.min, info.max)
    return m.tensor([channels], bias_type, scale, 0, b.astype(bias_type))


def output(m, dtype, shape, q, in_scale, f_scales, taps):
    if dtype == np.float32:
        return m.tensor(shape, dtype, None, None)
    return m.tensor(shape, dtype, out_scale(in_scale, f_scales, taps, q.spread), q.out_zp)


def bias_scale(in_scale, f_scales):
    return None if f_scales is None else in_scale * f_scales


def magnitude(dtype, taps):
    return int(5000 * np.sqrt(taps) * (256 if dtype == np.int16 else 1))


def out_size(padding, size, filt, stride, dilation=1):
    eff = (filt - 1) * dilation + 1
    return -(-size // stride) if padding == "SAME" else (size + stride - eff) // stride


def conv(rng, dtype, shape, filt, channels, stride=(1, 1), dilation=(1, 1), padding="SAME", act=None,
         q=Quant(), per_channel=True, bias_type="wide", groups=1, quantized_bias_type=None, bias_values=None,
         aligned=False, filter_zp=0):
    m = Model()
    n, h, w, c = shape
    x, xv = data(rng, m, dtype, shape, q, aligned)
    f, fs, _ = weights(rng, m, dtype, [channels, *filt, c // groups], 0, per_channel, aligned=aligned,
                       zero_point=filter_zp)
    bt = (np.float32 if dtype == np.float32 else WIDE_BIAS[dtype]) if bias_type == "wide" else bias_type
    taps = filt[0] * filt[1] * c // groups
    b = bias(rng, m, dtype, bt, channels, bias_scale(q.in_scale, fs), magnitude(dtype, taps))
    if bias_values is not None:
        m.buffers[m.tensors[b].buffer].data = np.frombuffer(np.asarray(bias_values, bt).tobytes(), np.uint8)
    oh = out_size(padding, h, filt[0], stride[0], dilation[0])
    ow = out_size(padding, w, filt[1], stride[1], dilation[1])
    y = output(m, dtype, [n, oh, ow, channels], q, q.in_scale, fs, taps)
    o = conv_options(stride, dilation, padding, act)
    if quantized_bias_type is not None:
        o.quantizedBiasType = quantized_bias_type
    m.op(O.CONV_2D, [x, f, b], [y], BO.Conv2DOptions, o)
    return m, [xv]


def depthwise(rng, dtype, shape, filt, multiplier, stride=(1, 1), dilation=(1, 1), padding="SAME",
              act=None, q=Quant(), per_channel=True, bias_type="wide"):
    m = Model()
    n, h, w, c = shape
    channels = c * multiplier
    x, xv = data(rng, m, dtype, shape, q)
    f, fs, _ = weights(rng, m, dtype, [1, *filt, channels], 3, per_channel)
    bt = (np.float32 if dtype == np.float32 else np.int32 if dtype == np.int8 else np.int64) \
        if bias_type == "wide" else bias_type
    taps = filt[0] * filt[1]
    b = bias(rng, m, dtype, bt, channels, bias_scale(q.in_scale, fs), magnitude(dtype, taps))
    oh = out_size(padding, h, filt[0], stride[0], dilation[0])
    ow = out_size(padding, w, filt[1], stride[1], dilation[1])
    y = output(m, dtype, [n, oh, ow, channels], q, q.in_scale, fs, taps)
    o = depthwise_options(stride, dilation, padding, act)
    o.depthMultiplier = multiplier
    # Two inputs without a bias: TFLite Micro's Prepare frees a bias given as -1 (a crash).
    m.op(O.DEPTHWISE_CONV_2D, [x, f] + ([] if b == -1 else [b]), [y], BO.DepthwiseConv2DOptions, o)
    return m, [xv]


def transpose_conv(rng, dtype, shape, filt, channels, out_hw, stride=(2, 2), padding="SAME", act=None,
                   q=Quant(), per_channel=True, bias_type="wide", computed_shape=False):
    m = Model()
    n, h, w, c = shape
    out_shape = np.array([n, *out_hw, channels], np.int32)
    s = m.tensor([4], np.int32, None, None, None if computed_shape else out_shape)
    f, fs, _ = weights(rng, m, dtype, [channels, *filt, c], 0, per_channel)
    x, xv = data(rng, m, dtype, shape, q)
    bt = (np.float32 if dtype == np.float32 else WIDE_BIAS[dtype]) if bias_type == "wide" else bias_type
    # Each output element sums about the filter's taps over the stride squared.
    taps = max(1, filt[0] * filt[1] * c // (stride[0] * stride[1]))
    b = bias(rng, m, dtype, bt, channels, bias_scale(q.in_scale, fs), magnitude(dtype, taps))
    y = output(m, dtype, list(out_shape), q, q.in_scale, fs, taps)
    inputs = [s, f, x] + ([] if b == -1 else [b])
    m.op(O.TRANSPOSE_CONV, inputs, [y], BO.TransposeConvOptions,
         transpose_conv_options(stride, padding, act), version=4)
    m.inputs = [s, x] if computed_shape else [x]
    m.outputs = [y]
    return m, ([out_shape] if computed_shape else []) + [xv]


def fully_connected(rng, dtype, in_shape, units, act=None, q=Quant(), per_channel=False, bias_type="wide",
                    keep_num_dims=False, computed_weights=False, quantized_bias_type=None, aligned=False,
                    filter_zp=0):
    m = Model()
    depth = in_shape[-1]
    x, xv = data(rng, m, dtype, in_shape, q, aligned)
    f, fs, wv = weights(rng, m, dtype, [units, depth], 0, per_channel, not computed_weights, aligned, filter_zp)
    bt = (np.float32 if dtype == np.float32 else WIDE_BIAS[dtype]) if bias_type == "wide" else bias_type
    b = bias(rng, m, dtype, bt, units, bias_scale(q.in_scale, fs), magnitude(dtype, depth))
    rows = int(np.prod(in_shape[:-1]))
    out = list(in_shape[:-1]) + [units] if keep_num_dims else [rows, units]
    y = output(m, dtype, out, q, q.in_scale, fs, depth)
    o = S.FullyConnectedOptionsT()
    o.fusedActivationFunction = ACT[act]
    o.keepNumDims = keep_num_dims
    if quantized_bias_type is not None:
        o.quantizedBiasType = quantized_bias_type
    m.op(O.FULLY_CONNECTED, [x, f, b], [y], BO.FullyConnectedOptions, o)
    m.inputs = [x, f] if computed_weights else [x]
    m.outputs = [y]
    return m, [xv, wv] if computed_weights else [xv]


def batch_matmul(rng, dtype, lhs_shape, rhs_shape, adj_x=False, adj_y=False, computed_rhs=False,
                 zps=(0, 0, 0), spread=100.0, specials=False):
    m = Model()
    quantized = dtype != np.float32
    lq = (0.04, zps[0]) if quantized else (None, None)
    rq = (0.03, zps[1]) if quantized else (None, None)
    lhs = m.tensor(lhs_shape, dtype, *lq)
    lv = ints(rng, dtype, lhs_shape) if quantized else floats(rng, lhs_shape, specials)
    rv = ints(rng, dtype, rhs_shape) if quantized else floats(rng, rhs_shape)
    rhs = m.tensor(rhs_shape, dtype, *rq, None if computed_rhs else rv)
    rank = max(len(lhs_shape), len(rhs_shape))
    lx = [1] * (rank - len(lhs_shape)) + list(lhs_shape)
    rx = [1] * (rank - len(rhs_shape)) + list(rhs_shape)
    batch = [max(a, b) for a, b in zip(lx[:-2], rx[:-2])]
    rows = lx[-1] if adj_x else lx[-2]
    depth = lx[-2] if adj_x else lx[-1]
    cols = rx[-2] if adj_y else rx[-1]
    if quantized:
        # Full-range factors on both sides.
        range_ratio = 1.1 * (256 if dtype == np.int16 else 1)
        y = m.tensor(batch + [rows, cols], dtype, 0.04 * 0.03 * spread * range_ratio * np.sqrt(depth), zps[2])
    else:
        y = m.tensor(batch + [rows, cols], dtype, None, None)
    o = S.BatchMatMulOptionsT()
    o.adjX, o.adjY = adj_x, adj_y
    m.op(O.BATCH_MATMUL, [lhs, rhs], [y], BO.BatchMatMulOptions, o)
    m.inputs = [lhs, rhs] if computed_rhs else [lhs]
    m.outputs = [y]
    return m, [lv, rv] if computed_rhs else [lv]


def pool(rng, code, dtype, shape, filt, stride, padding="SAME", act=None, zp=0, specials=False):
    m = Model()
    n, h, w, c = shape
    scale = None if dtype == np.float32 else 0.0625
    x = m.tensor(shape, dtype, scale, zp)
    xv = floats(rng, shape, specials) if dtype == np.float32 else ints(rng, dtype, shape)
    y = m.tensor([n, out_size(padding, h, filt[0], stride[0]), out_size(padding, w, filt[1], stride[1]), c],
                 dtype, scale, zp)
    m.op(code, [x], [y], BO.Pool2DOptions, pool_options(filt, stride, padding, act))
    return m, [xv]


I8, I16, F32 = np.int8, np.int16, np.float32
INT32 = S.TensorType.INT32
AVG, MAX = O.AVERAGE_POOL_2D, O.MAX_POOL_2D

CASES = {
    # CONV_2D
    "conv_int8_same_stride2_relu": lambda r: conv(
        r, I8, [1, 7, 9, 5], (3, 3), 6, stride=(2, 2), act="relu", q=Quant(0.05, -3, 5)),
    "conv_int8_valid_dilated_relu6": lambda r: conv(
        r, I8, [2, 8, 7, 3], (2, 3), 4, dilation=(2, 2), padding="VALID", act="relu6", q=Quant(0.1, 7, -20)),
    "conv_int8_per_tensor_relu_n1_to_1_no_bias": lambda r: conv(
        r, I8, [1, 5, 5, 4], (3, 3), 3, act="relu_n1_to_1", q=Quant(0.05, 0, 10, 2.0), per_channel=False,
        bias_type=None),
    "conv_int8_even_filter_odd_padding": lambda r: conv(
        r, I8, [1, 6, 6, 2], (4, 2), 3, stride=(1, 2), q=Quant(0.02, -128, 0)),
    "conv_int8_grouped": lambda r: conv(r, I8, [1, 5, 4, 6], (3, 3), 4, groups=2, q=Quant(0.05, 1, -1)),
    "conv_int8_saturating": lambda r: conv(r, I8, [1, 4, 4, 8], (3, 3), 5, q=Quant(0.05, -5, 3, 15.0)),
    "conv_int8_filter_zero_points_ignored": lambda r: conv(
        r, I8, [1, 4, 4, 3], (2, 2), 3, q=Quant(0.05, 2, -2), filter_zp=9),
    "conv_int8_bias_wraps": lambda r: conv(
        r, I8, [1, 3, 3, 4], (2, 2), 4, padding="VALID",
        bias_values=[2**31 - 1, -(2**31), 2**31 - 3000, -(2**31) + 3000]),
    "conv_int16_int64_bias_relu": lambda r: conv(
        r, I16, [1, 6, 5, 3], (3, 3), 4, stride=(2, 1), act="relu", q=Quant(0.001, 0, 0)),
    "conv_int16_int32_bias_wraps": lambda r: conv(
        r, I16, [1, 3, 3, 64], (3, 3), 3, padding="VALID", bias_type=np.int32, q=Quant(0.001, 0, 0, 4000.0),
        aligned=True),
    "conv_int16_no_bias_int32_sums": lambda r: conv(
        r, I16, [1, 4, 4, 8], (3, 3), 2, bias_type=None, quantized_bias_type=INT32),
    "conv_int16_no_bias_zero_points_ignored": lambda r: conv(
        r, I16, [1, 4, 5, 3], (2, 2), 3, bias_type=None, act="relu6", q=Quant(0.0005, 100, -200, 30.0)),
    "conv_float_same_stride2_dilated_relu6": lambda r: conv(
        r, F32, [1, 9, 8, 3], (3, 2), 4, stride=(2, 2), dilation=(1, 2), act="relu6"),
    "conv_float_valid_no_bias_specials": lambda r: conv(
        r, F32, [2, 5, 6, 4], (3, 3), 3, padding="VALID", bias_type=None, q=Quant(specials=True)),
    "conv_float_relu_n1_to_1": lambda r: conv(r, F32, [1, 4, 4, 2], (2, 2), 2, act="relu_n1_to_1"),
    # Dilation 3 over a 2x2 image: a window's taps all fall in the padding, leaving the bias.
    "conv_int8_dilated_windows_in_padding": lambda r: conv(
        r, I8, [1, 2, 2, 3], (2, 2), 2, dilation=(3, 3), q=Quant(0.05, 4, -6)),
    # DEPTHWISE_CONV_2D
    "depthwise_int8_same_relu": lambda r: depthwise(
        r, I8, [1, 6, 7, 8], (3, 3), 1, act="relu", q=Quant(0.05, -7, 4)),
    "depthwise_int8_multiplier3_valid_stride2_dilated": lambda r: depthwise(
        r, I8, [2, 9, 8, 4], (3, 2), 3, stride=(2, 2), dilation=(2, 1), padding="VALID", q=Quant(0.1, 12, -9)),
    "depthwise_int8_per_tensor_no_bias_saturating": lambda r: depthwise(
        r, I8, [1, 5, 5, 3], (3, 3), 2, act="relu_n1_to_1", q=Quant(0.05, 3, 0, 10.0), per_channel=False,
        bias_type=None),
    "depthwise_int8_even_filter_relu6": lambda r: depthwise(
        r, I8, [1, 6, 6, 2], (4, 4), 2, stride=(2, 2), act="relu6", q=Quant(0.05, 0, -128)),
    "depthwise_int16_multiplier2": lambda r: depthwise(
        r, I16, [1, 5, 6, 3], (3, 3), 2, stride=(1, 2), q=Quant(0.001, 0, 0)),
    "depthwise_int16_no_bias_relu_zero_points_ignored": lambda r: depthwise(
        r, I16, [1, 4, 4, 4], (2, 3), 1, act="relu", bias_type=None, q=Quant(0.001, 50, -70, 20.0)),
    "depthwise_float_multiplier2_relu6": lambda r: depthwise(
        r, F32, [1, 6, 5, 3], (3, 3), 2, stride=(2, 2), act="relu6"),
    "depthwise_float_valid_dilated_no_bias": lambda r: depthwise(
        r, F32, [2, 7, 7, 2], (2, 2), 1, dilation=(3, 2), padding="VALID", bias_type=None),
    # TRANSPOSE_CONV
    "transpose_conv_int8_same_stride2": lambda r: transpose_conv(
        r, I8, [1, 4, 4, 6], (3, 3), 5, (8, 8), q=Quant(0.05, -4, 6)),
    "transpose_conv_int8_valid_relu": lambda r: transpose_conv(
        r, I8, [1, 3, 4, 3], (3, 3), 4, (7, 9), padding="VALID", act="relu", q=Quant(0.05, 5, -3)),
    "transpose_conv_int8_odd_output_per_tensor": lambda r: transpose_conv(
        r, I8, [2, 3, 3, 2], (4, 3), 3, (7, 6), stride=(2, 2), per_channel=False, q=Quant(0.05, 0, 0, 20.0)),
    "transpose_conv_int8_computed_shape_no_bias": lambda r: transpose_conv(
        r, I8, [1, 3, 3, 4], (2, 2), 3, (6, 6), bias_type=None, computed_shape=True, q=Quant(0.05, 2, 1)),
    "transpose_conv_int16_int64_bias": lambda r: transpose_conv(
        r, I16, [1, 3, 3, 4], (3, 3), 3, (6, 6), q=Quant(0.001, 0, 0)),
    "transpose_conv_int16_int16_bias_relu6": lambda r: transpose_conv(
        r, I16, [1, 3, 2, 3], (3, 3), 2, (5, 3), stride=(2, 1), act="relu6", bias_type=np.int16,
        q=Quant(0.001, 0, 0)),
    "transpose_conv_int16_no_bias_stride3_zero_points_ignored": lambda r: transpose_conv(
        r, I16, [1, 2, 3, 2], (3, 3), 2, (6, 9), stride=(3, 3), padding="VALID", bias_type=None,
        q=Quant(0.001, -40, 90)),
    "transpose_conv_float_same_relu": lambda r: transpose_conv(
        r, F32, [1, 3, 4, 3], (3, 3), 4, (6, 8), act="relu"),
    "transpose_conv_float_valid_computed_shape": lambda r: transpose_conv(
        r, F32, [2, 3, 3, 2], (2, 3), 2, (7, 9), stride=(3, 3), padding="VALID", computed_shape=True),
    # FULLY_CONNECTED
    "fully_connected_int8_per_tensor_relu": lambda r: fully_connected(
        r, I8, [3, 20], 7, act="relu", q=Quant(0.05, -6, 9)),
    "fully_connected_int8_per_channel_relu6": lambda r: fully_connected(
        r, I8, [4, 16], 6, act="relu6", q=Quant(0.05, 11, -30), per_channel=True),
    "fully_connected_int8_keep_num_dims_rank4": lambda r: fully_connected(
        r, I8, [2, 2, 3, 10], 6, keep_num_dims=True, q=Quant(0.02, 0, 3)),
    "fully_connected_int8_rank3_flattened_saturating": lambda r: fully_connected(
        r, I8, [2, 3, 10], 5, bias_type=None, act="relu_n1_to_1", q=Quant(0.05, 1, 2, 10.0)),
    "fully_connected_int8_per_tensor_filter_zero_point": lambda r: fully_connected(
        r, I8, [2, 9], 5, q=Quant(0.05, -2, 4), filter_zp=-7),
    "fully_connected_int8_per_channel_filter_zero_points_ignored": lambda r: fully_connected(
        r, I8, [2, 9], 4, q=Quant(0.05, 3, 1), per_channel=True, filter_zp=5),
    "fully_connected_int8_computed_weights": lambda r: fully_connected(
        r, I8, [2, 12], 4, computed_weights=True, bias_type=None, q=Quant(0.05, 3, -3)),
    "fully_connected_int16_int64_bias": lambda r: fully_connected(
        r, I16, [3, 24], 5, q=Quant(0.001, 0, 0)),
    "fully_connected_int16_int32_bias_per_channel": lambda r: fully_connected(
        r, I16, [2, 600], 3, per_channel=True, bias_type=np.int32, q=Quant(0.001, 0, 0, 4000.0), aligned=True),
    "fully_connected_int16_no_bias_int32_sums": lambda r: fully_connected(
        r, I16, [2, 9], 4, bias_type=None, quantized_bias_type=INT32),
    "fully_connected_int16_zero_points_relu": lambda r: fully_connected(
        r, I16, [3, 8], 4, act="relu", q=Quant(0.001, 300, -500, 30.0), per_channel=True),
    "fully_connected_float_relu6": lambda r: fully_connected(r, F32, [3, 10], 4, act="relu6"),
    "fully_connected_float_keep_num_dims_no_bias_specials": lambda r: fully_connected(
        r, F32, [2, 3, 7], 5, keep_num_dims=True, bias_type=None, q=Quant(specials=True)),
    "fully_connected_float_rank1_input": lambda r: fully_connected(r, F32, [6], 3),
    "fully_connected_float_computed_weights": lambda r: fully_connected(
        r, F32, [4, 6], 3, computed_weights=True),
    # BATCH_MATMUL
    "batch_matmul_int8_rank3": lambda r: batch_matmul(r, I8, [2, 3, 5], [2, 5, 4], zps=(-3, 5, 7)),
    "batch_matmul_int8_adj_broadcast": lambda r: batch_matmul(
        r, I8, [2, 1, 5, 3], [3, 4, 5], adj_x=True, adj_y=True, zps=(4, -2, -10)),
    "batch_matmul_int8_computed_rank2_by_rank4_saturating": lambda r: batch_matmul(
        r, I8, [4, 6], [2, 2, 6, 3], computed_rhs=True, zps=(0, 1, 0), spread=10.0),
    "batch_matmul_int16_rhs_batch1": lambda r: batch_matmul(r, I16, [2, 4, 6], [1, 6, 5]),
    "batch_matmul_int16_computed_adj_y": lambda r: batch_matmul(
        r, I16, [3, 2, 7], [3, 4, 7], adj_y=True, computed_rhs=True),
    "batch_matmul_float_rank5_broadcast": lambda r: batch_matmul(
        r, F32, [2, 1, 2, 3, 4], [1, 3, 1, 4, 2]),
    "batch_matmul_float_computed_adj_x_specials": lambda r: batch_matmul(
        r, F32, [2, 5, 3], [2, 5, 4], adj_x=True, computed_rhs=True, specials=True),
    # AVERAGE_POOL_2D
    "average_pool_int8_same_stride2_edges": lambda r: pool(r, AVG, I8, [1, 7, 8, 5], (3, 3), (2, 2), zp=-5),
    "average_pool_int8_valid_relu": lambda r: pool(
        r, AVG, I8, [2, 6, 6, 3], (2, 3), (1, 2), "VALID", "relu", zp=10),
    "average_pool_int8_even_filter_relu_n1_to_1": lambda r: pool(
        r, AVG, I8, [1, 5, 6, 4], (4, 2), (1, 1), act="relu_n1_to_1", zp=3),
    "average_pool_int16_same_relu6": lambda r: pool(r, AVG, I16, [1, 6, 5, 4], (3, 2), (2, 2), act="relu6"),
    "average_pool_int8_filter_beyond_image": lambda r: pool(r, AVG, I8, [1, 3, 4, 2], (5, 6), (1, 1), zp=7),
    "average_pool_float_same": lambda r: pool(r, AVG, F32, [1, 6, 7, 3], (3, 3), (2, 2), specials=True),
    "average_pool_float_valid_relu6": lambda r: pool(r, AVG, F32, [2, 5, 5, 2], (2, 2), (2, 1), "VALID",
                                                     "relu6"),
    # MAX_POOL_2D
    "max_pool_int8_same_relu6": lambda r: pool(r, MAX, I8, [1, 7, 6, 4], (3, 3), (2, 2), act="relu6", zp=-20),
    "max_pool_int8_valid": lambda r: pool(r, MAX, I8, [2, 5, 6, 3], (2, 2), (2, 2), "VALID"),
    "max_pool_int16_same_relu": lambda r: pool(r, MAX, I16, [1, 5, 5, 3], (2, 3), (1, 2), act="relu"),
    "max_pool_int16_global_valid": lambda r: pool(r, MAX, I16, [2, 4, 5, 3], (4, 5), (1, 1), "VALID", zp=0),
    "max_pool_float_specials": lambda r: pool(r, MAX, F32, [1, 6, 6, 2], (3, 3), (1, 1), specials=True),
    "max_pool_float_valid_relu_n1_to_1": lambda r: pool(
        r, MAX, F32, [1, 6, 5, 3], (2, 2), (2, 2), "VALID", "relu_n1_to_1"),
}
