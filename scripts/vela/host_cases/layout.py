"""Operators that move elements, and the resizes (model/src/tflite/host/layout/): every element type TFLite
Micro takes for each, negative axes, ranks 1 to 5 where taken, masks, negative strides, clamped indices, both
mirror modes, parameters computed at run time (a slice's begin, a reverse's axes, gather indices), and the
resizes' coordinate conventions up and down by integer and non-integer ratios."""

import numpy as np
import tflite_ref
from tflite_ref import Model, S

O = S.BuiltinOperator
# The shared builder has no bool; these cases need it.
tflite_ref.TYPES[np.bool_] = S.TensorType.BOOL

ANY = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float32]
# Quantisation of data tensors: a non-zero int8 zero point shows where PAD pads with it.
QUANT = {np.int8: (0.25, -5), np.uint8: (0.25, 3), np.int16: (0.125, 0)}


def name(dtype):
    return "bool" if dtype == np.bool_ else np.dtype(dtype).name


def values(rng, dtype, shape):
    """Random values over the type's whole range."""
    if dtype == np.float32:
        return rng.normal(0, 10, shape).astype(np.float32)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)


def options(kind, **fields):
    o = getattr(S, kind + "T")()
    for k, v in fields.items():
        setattr(o, k, v)
    return getattr(S.BuiltinOptions, kind), o


class Case:
    """A one-operator model under construction, with the values of its run-time inputs."""

    def __init__(self, rng):
        self.rng, self.m, self.feeds = rng, Model(), []

    def x(self, dtype, shape, value=None, quant=None):
        """A run-time input: random values of the type unless `value`."""
        scale, zp = quant or QUANT.get(dtype, (None, None))
        t = self.m.tensor(shape, dtype, scale, zp)
        self.m.inputs.append(t)
        self.feeds.append(values(self.rng, dtype, shape) if value is None else np.asarray(value, dtype).reshape(shape))
        return t

    def c(self, dtype, value, quant=(None, None)):
        """A constant input."""
        value = np.asarray(value, dtype)
        return self.m.tensor(list(value.shape), dtype, *quant, value)

    def y(self, dtype, shape, quant=None):
        scale, zp = quant or QUANT.get(dtype, (None, None))
        t = self.m.tensor(shape, dtype, scale, zp)
        self.m.outputs.append(t)
        return t

    def op(self, code, inputs, outputs, opts=(S.BuiltinOptions.NONE, None)):
        self.m.op(code, inputs, outputs, *opts)
        return self.m, self.feeds


def unary(rng, code, dtype, shape, out_shape, params=(), opts=(S.BuiltinOptions.NONE, None), out_dtype=None):
    """Data input 0, then constant integer `params` (array, dtype) or run-time ones (array, dtype, "run")."""
    c = Case(rng)
    ins = [c.x(dtype, shape)]
    for p in params:
        ins.append(c.x(p[1], list(np.shape(p[0])), p[0]) if len(p) > 2 else c.c(p[1], p[0]))
    return c.op(code, ins, [c.y(out_dtype or dtype, out_shape)], opts)


# CONCATENATION, PACK, SPLIT, SPLIT_V, UNPACK

def concat(rng, dtype, shapes, axis, constant=(), quants=None):
    c = Case(rng)
    ins = []
    for i, s in enumerate(shapes):
        q = quants[i] if quants else QUANT.get(dtype, (None, None))
        ins.append(c.c(dtype, values(rng, dtype, s), q) if i in constant else c.x(dtype, s, quant=q))
    out = list(shapes[0])
    a = axis % len(out)
    out[a] = sum(s[a] for s in shapes)
    return c.op(O.CONCATENATION, ins, [c.y(dtype, out)], options("ConcatenationOptions", axis=axis))


def pack(rng, dtype, shape, n, axis):
    c = Case(rng)
    ins = [c.x(dtype, shape) for _ in range(n)]
    out = list(shape)
    out.insert(axis % (len(shape) + 1), n)
    return c.op(O.PACK, ins, [c.y(dtype, out)], options("PackOptions", valuesCount=n, axis=axis))


def unpack(rng, dtype, shape, axis):
    c = Case(rng)
    x = c.x(dtype, shape)
    a = axis % len(shape)
    part = shape[:a] + shape[a + 1:]
    outs = [c.y(dtype, part) for _ in range(shape[a])]
    return c.op(O.UNPACK, [x], outs, options("UnpackOptions", num=shape[a], axis=axis))


def split(rng, dtype, shape, axis, n):
    c = Case(rng)
    a = c.c(np.int32, [axis])
    x = c.x(dtype, shape)
    part = list(shape)
    part[axis % len(shape)] //= n
    outs = [c.y(dtype, part) for _ in range(n)]
    return c.op(O.SPLIT, [a, x], outs, options("SplitOptions", numSplits=n))


def split_v(rng, dtype, shape, axis, sizes, run_time_sizes=False):
    c = Case(rng)
    x = c.x(dtype, shape)
    known = sum(s for s in sizes if s != -1)
    a = axis % len(shape)
    lengths = [shape[a] - known if s == -1 else s for s in sizes]
    s = c.x(np.int32, [len(sizes)], sizes) if run_time_sizes else c.c(np.int32, sizes)
    ax = c.c(np.int32, [axis])
    outs = [c.y(dtype, shape[:a] + [n] + shape[a + 1:]) for n in lengths]
    return c.op(O.SPLIT_V, [x, s, ax], outs, options("SplitVOptions", numSplits=len(sizes)))


# RESHAPE, SQUEEZE, EXPAND_DIMS, SHAPE, FILL, ZEROS_LIKE

def reshape(rng, dtype, shape, out, new_shape=None, how="constant"):
    """`how`: the shape as a constant input, a run-time input, or only in the options."""
    c = Case(rng)
    ins = [c.x(dtype, shape)]
    new_shape = out if new_shape is None else new_shape
    if how == "constant":
        ins.append(c.c(np.int32, new_shape))
    elif how == "run":
        ins.append(c.x(np.int32, [len(new_shape)], new_shape))
    return c.op(O.RESHAPE, ins, [c.y(dtype, out)], options("ReshapeOptions", newShape=list(new_shape)))


def squeeze(rng, dtype, shape, dims):
    out = [d for i, d in enumerate(shape) if not (d == 1 and (not dims or i in [x % len(shape) for x in dims]))]
    return unary(rng, O.SQUEEZE, dtype, shape, out, opts=options("SqueezeOptions", squeezeDims=dims))


def expand_dims(rng, dtype, shape, axis):
    out = list(shape)
    out.insert(axis % (len(shape) + 1), 1)
    return unary(rng, O.EXPAND_DIMS, dtype, shape, out, [([axis], np.int32)])


def fill(rng, dtype, dims, dims_type=np.int32):
    """The value a run-time input: a model's only input must be one."""
    c = Case(rng)
    d = c.c(dims_type, dims)
    return c.op(O.FILL, [d, c.x(dtype, [])], [c.y(dtype, dims)])


# PAD, PADV2, MIRROR_PAD

def pad(rng, dtype, shape, paddings, value=None):
    """PAD, or PADV2 when `value` is "constant" or "run"."""
    c = Case(rng)
    ins = [c.x(dtype, shape), c.c(np.int32, paddings)]
    q = QUANT.get(dtype, (None, None))
    if value == "constant":
        ins.append(c.c(dtype, values(rng, dtype, [1]), q))
    elif value == "run":
        ins.append(c.x(dtype, [1]))
    out = [d + lo + hi for d, (lo, hi) in zip(shape, paddings)]
    return c.op(O.PADV2 if value else O.PAD, ins, [c.y(dtype, out)])


def mirror_pad(rng, dtype, shape, paddings, mode, pad_type=np.int32, run_time=False):
    out = [d + lo + hi for d, (lo, hi) in zip(shape, paddings)]
    p = (paddings, pad_type, "run") if run_time else (paddings, pad_type)
    m = {"REFLECT": S.MirrorPadMode.REFLECT, "SYMMETRIC": S.MirrorPadMode.SYMMETRIC}[mode]
    return unary(rng, O.MIRROR_PAD, dtype, shape, out, [p], options("MirrorPadOptions", mode=m))


# SLICE, STRIDED_SLICE

def slice_(rng, dtype, shape, begin, size, index_type=np.int32, run_time=False):
    out = [d - b if s == -1 else s for d, b, s in zip(shape, begin, size)]
    params = [(begin, index_type, "run"), (size, index_type, "run")] if run_time else [(begin, index_type), (size, index_type)]
    return unary(rng, O.SLICE, dtype, shape, out, params)


def strided_slice(rng, dtype, shape, begin, end, strides, **masks):
    """The output shape from numpy's slicing, with TFLite's masks applied the way TFLite Micro applies them."""
    fields = {"beginMask": 0, "endMask": 0, "shrinkAxisMask": 0, "ellipsisMask": 0, "newAxisMask": 0, "offset": False}
    fields.update(masks)
    index = []
    for d, (b, e, s) in enumerate(zip(begin, end, strides)):
        if fields["shrinkAxisMask"] >> d & 1:
            index.append(b)
            continue
        b = None if fields["beginMask"] >> d & 1 else b
        e = None if fields["endMask"] >> d & 1 else e
        index.append(slice(b, e, s))
    out = list(np.empty(shape)[tuple(index)].shape)
    params = [(begin, np.int32), (end, np.int32), (strides, np.int32)]
    return unary(rng, O.STRIDED_SLICE, dtype, shape, out, params, options("StridedSliceOptions", **fields))


# TRANSPOSE, SPACE_TO_DEPTH, DEPTH_TO_SPACE, TILE, REVERSE_V2

def transpose(rng, dtype, shape, perm):
    return unary(rng, O.TRANSPOSE, dtype, shape, [shape[p] for p in perm], [(perm, np.int32)])


def space_to_depth(rng, dtype, shape, block):
    b, h, w, d = shape
    return unary(rng, O.SPACE_TO_DEPTH, dtype, shape, [b, h // block, w // block, d * block * block],
                 opts=options("SpaceToDepthOptions", blockSize=block))


def depth_to_space(rng, dtype, shape, block):
    b, h, w, d = shape
    return unary(rng, O.DEPTH_TO_SPACE, dtype, shape, [b, h * block, w * block, d // (block * block)],
                 opts=options("DepthToSpaceOptions", blockSize=block))


def tile(rng, dtype, shape, multiples, multiples_type=np.int32, run_time=False):
    p = (multiples, multiples_type, "run") if run_time else (multiples, multiples_type)
    return unary(rng, O.TILE, dtype, shape, [d * m for d, m in zip(shape, multiples)], [p])


def reverse(rng, dtype, shape, axes, run_time=False):
    p = (axes, np.int32, "run") if run_time else (axes, np.int32)
    return unary(rng, O.REVERSE_V2, dtype, shape, shape, [p])


# GATHER, GATHER_ND

def gather(rng, dtype, shape, axis, indices, batch_dims=0, run_time=False):
    indices = np.asarray(indices, np.int32)
    a = axis % len(shape)
    bd = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    out = shape[:a] + list(indices.shape[bd:]) + shape[a + 1:]
    p = (indices, np.int32, "run") if run_time else (indices, np.int32)
    return unary(rng, O.GATHER, dtype, shape, out, [p], options("GatherOptions", axis=axis, batchDims=batch_dims))


def gather_nd(rng, dtype, shape, indices, run_time=False):
    indices = np.asarray(indices, np.int32)
    out = list(indices.shape[:-1]) + shape[indices.shape[-1]:]
    p = (indices, np.int32, "run") if run_time else (indices, np.int32)
    return unary(rng, O.GATHER_ND, dtype, shape, out, [p])


# RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR

def resize(rng, code, dtype, shape, size, align=False, half=False, value=None):
    c = Case(rng)
    x = c.x(dtype, shape, value)
    s = c.c(np.int32, size)
    kind = "ResizeBilinearOptions" if code == O.RESIZE_BILINEAR else "ResizeNearestNeighborOptions"
    y = c.y(dtype, [shape[0], *size, shape[3]])
    return c.op(code, [x, s], [y], options(kind, alignCorners=align, halfPixelCenters=half))


def extremes(dtype, shape):
    """Alternating rows of the type's extremes, then a ramp: large interpolation weights on both signs."""
    n = int(np.prod(shape))
    if dtype == np.float32:
        v = np.linspace(-100, 100, n)
        v[::3] = np.resize([1e30, -1e30, 0.5], len(v[::3]))
        return v.astype(np.float32).reshape(shape)
    info = np.iinfo(dtype)
    v = np.linspace(info.min, info.max, n).round()
    v[::2] = np.resize([info.min, info.max], len(v[::2]))
    return v.astype(dtype).reshape(shape)


RB, RN = O.RESIZE_BILINEAR, O.RESIZE_NEAREST_NEIGHBOR
RESIZES = {
    "up2": ([1, 3, 4, 2], [6, 8]),
    "down2": ([1, 8, 6, 3], [4, 3]),
    "up_odd_ratio": ([2, 3, 5, 2], [5, 7]),
    "down_odd_ratio": ([1, 7, 5, 2], [3, 4]),
    "to_one": ([1, 4, 5, 1], [1, 1]),
}
MODES = {"": {}, "_align": {"align": True}, "_half": {"half": True}}


def resize_cases():
    cases = {}
    for op, types in (("bilinear", [np.int8, np.float32]), ("nearest", [np.int8, np.int16, np.float32])):
        code = RB if op == "bilinear" else RN
        for dtype in types:
            for geom, (shape, size) in RESIZES.items():
                for mode, kw in MODES.items():
                    cases[f"resize_{op}_{name(dtype)}_{geom}{mode}"] = (
                        lambda r, code=code, dtype=dtype, shape=shape, size=size, kw=kw:
                        resize(r, code, dtype, shape, size, **kw))
            cases[f"resize_{op}_{name(dtype)}_extremes_half"] = (
                lambda r, code=code, dtype=dtype: resize(r, code, dtype, [1, 3, 3, 2], [7, 5], half=True,
                                                         value=extremes(dtype, [1, 3, 3, 2])))
    cases["resize_nearest_int8_align_and_half"] = lambda r: resize(r, RN, np.int8, [1, 5, 4, 1], [7, 3], True, True)
    return cases


def per_type(prefix, types, make):
    return {f"{prefix}_{name(t)}": (lambda t: lambda r: make(r, t))(t) for t in types}


F32, I8, I16, I32, I64, U8, BOOL = np.float32, np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_
CASES = {
    # CONCATENATION
    "concat_int8_axis3_three_inputs": lambda r: concat(r, I8, [[1, 2, 3, 4], [1, 2, 3, 2], [1, 2, 3, 5]], 3),
    "concat_int8_negative_axis_constant_input": lambda r: concat(r, I8, [[2, 1, 3, 2], [2, 4, 3, 2]], -3, constant=[0]),
    "concat_int8_ten_inputs": lambda r: concat(r, I8, [[2, i % 3 + 1] for i in range(10)], 1),
    "concat_int16_rank5_scales_differ": lambda r: concat(r, I16, [[1, 2, 3, 1, 2], [1, 1, 3, 1, 2]], 1,
                                                          quants=[(0.5, 0), (0.01, 0)]),
    "concat_float32_axis0": lambda r: concat(r, F32, [[2, 3], [1, 3], [4, 3]], 0),
    "concat_float32_rank1": lambda r: concat(r, F32, [[5], [3]], -1),
    "concat_int32_axis1": lambda r: concat(r, I32, [[2, 2, 3], [2, 1, 3]], 1),
    "concat_int64_axis0": lambda r: concat(r, I64, [[1, 3], [2, 3]], 0),
    "concat_bool_axis1_six_dims": lambda r: concat(r, BOOL, [[1, 2, 1, 2, 1, 3], [1, 1, 1, 2, 1, 3]], 1),
    # PACK, UNPACK, SPLIT, SPLIT_V
    "pack_int8_axis0": lambda r: pack(r, I8, [2, 3], 3, 0),
    "pack_int16_last_axis": lambda r: pack(r, I16, [2, 3], 2, -1),
    "pack_int32_middle_axis": lambda r: pack(r, I32, [2, 3, 2], 4, 1),
    "pack_int64_rank1": lambda r: pack(r, I64, [3], 2, 1),
    "pack_float32_negative_axis": lambda r: pack(r, F32, [4, 2], 3, -2),
    "unpack_int8_axis0": lambda r: unpack(r, I8, [3, 2, 2], 0),
    "unpack_int16_last_axis": lambda r: unpack(r, I16, [2, 3], -1),
    "unpack_int32_middle_axis": lambda r: unpack(r, I32, [2, 4, 3], 1),
    "unpack_float32_rank1": lambda r: unpack(r, F32, [3], 0),
    "split_int8_three_ways_axis1": lambda r: split(r, I8, [2, 6, 3], 1, 3),
    "split_int16_negative_axis": lambda r: split(r, I16, [2, 3, 4], -1, 2),
    "split_int32_one_output": lambda r: split(r, I32, [3, 2], 0, 1),
    "split_float32_rank4": lambda r: split(r, F32, [1, 4, 2, 3], 1, 4),
    "split_v_int8_with_minus_one": lambda r: split_v(r, I8, [2, 7, 3], 1, [2, -1, 1]),
    "split_v_int16_negative_axis": lambda r: split_v(r, I16, [3, 5], -1, [1, 4]),
    "split_v_int32_run_time_sizes": lambda r: split_v(r, I32, [6, 2], 0, [3, 1, 2], run_time_sizes=True),
    "split_v_float32_rank3": lambda r: split_v(r, F32, [2, 4, 3], 2, [2, 1]),
    # RESHAPE, SQUEEZE, EXPAND_DIMS
    "reshape_int8_minus_one": lambda r: reshape(r, I8, [2, 3, 4], [4, 6], [4, -1]),
    "reshape_float32_options_only": lambda r: reshape(r, F32, [2, 6], [3, 4], how="options"),
    "reshape_int32_run_time_shape": lambda r: reshape(r, I32, [2, 6], [3, 2, 2], how="run"),
    "reshape_int16_rank5": lambda r: reshape(r, I16, [2, 3, 4], [1, 2, 1, 3, 4]),
    "reshape_uint8": lambda r: reshape(r, U8, [4], [2, 2]),
    "reshape_int64": lambda r: reshape(r, I64, [2, 2], [4]),
    "reshape_bool_to_scalar": lambda r: reshape(r, BOOL, [1, 1], [], how="options"),
    "squeeze_int8_all_ones": lambda r: squeeze(r, I8, [1, 3, 1, 2], []),
    "squeeze_float32_negative_dim": lambda r: squeeze(r, F32, [2, 1, 3, 1], [-1]),
    **per_type("squeeze", [U8, I16, I32, I64, BOOL], lambda r, t: squeeze(r, t, [1, 2, 1, 3], [0])),
    "expand_dims_int8_axis0": lambda r: expand_dims(r, I8, [2, 3], 0),
    "expand_dims_int16_last": lambda r: expand_dims(r, I16, [2, 3], -1),
    "expand_dims_float32_middle": lambda r: expand_dims(r, F32, [2, 3, 4], 2),
    "expand_dims_float32_negative_middle": lambda r: expand_dims(r, F32, [2, 3], -2),
    # SHAPE, FILL, ZEROS_LIKE
    **per_type("shape", ANY, lambda r, t: unary(r, O.SHAPE, t, [2, 1, 3], [3], out_dtype=I32,
                                                 opts=options("ShapeOptions", outType=S.TensorType.INT32))),
    "fill_int8": lambda r: fill(r, I8, [2, 3]),
    "fill_int32_int64_dims": lambda r: fill(r, I32, [3, 1, 2], np.int64),
    "fill_float32": lambda r: fill(r, F32, [2, 2, 2]),
    **per_type("zeros_like", [I8, I32, I64, F32], lambda r, t: unary(r, O.ZEROS_LIKE, t, [2, 3], [2, 3])),
    # PAD, PADV2
    "pad_int8_zero_point_image": lambda r: pad(r, I8, [1, 2, 3, 2], [[0, 0], [1, 2], [2, 0], [0, 0]]),
    "pad_int8_every_axis": lambda r: pad(r, I8, [2, 1, 2], [[1, 0], [2, 1], [0, 3]]),
    "pad_int16_rank2": lambda r: pad(r, I16, [3, 2], [[1, 1], [0, 2]]),
    "pad_int32_rank1": lambda r: pad(r, I32, [4], [[2, 3]]),
    "pad_float32_rank5": lambda r: pad(r, F32, [1, 2, 1, 2, 2], [[1, 0], [0, 1], [1, 1], [0, 0], [2, 1]]),
    "padv2_int8_constant_value": lambda r: pad(r, I8, [1, 2, 2, 3], [[0, 0], [1, 1], [1, 1], [0, 0]], "constant"),
    "padv2_int16_constant_value": lambda r: pad(r, I16, [2, 3], [[1, 0], [0, 2]], "constant"),
    "padv2_int32_constant_value": lambda r: pad(r, I32, [2, 2, 2], [[0, 1], [1, 0], [1, 1]], "constant"),
    "padv2_float32_run_time_value": lambda r: pad(r, F32, [2, 3], [[2, 1], [1, 2]], "run"),
    # MIRROR_PAD
    "mirror_pad_int8_reflect_widest": lambda r: mirror_pad(r, I8, [1, 3, 4, 2], [[0, 0], [2, 2], [3, 1], [0, 0]], "REFLECT"),
    "mirror_pad_int8_symmetric_widest": lambda r: mirror_pad(r, I8, [2, 3, 2], [[2, 1], [3, 3], [0, 2]], "SYMMETRIC"),
    "mirror_pad_float32_reflect_int64_paddings": lambda r: mirror_pad(r, F32, [3, 4], [[1, 2], [3, 0]], "REFLECT", np.int64),
    "mirror_pad_float32_symmetric_run_time": lambda r: mirror_pad(r, F32, [2, 3], [[1, 2], [2, 3]], "SYMMETRIC",
                                                                   run_time=True),
    "mirror_pad_int8_reflect_rank1": lambda r: mirror_pad(r, I8, [5], [[4, 2]], "REFLECT"),
    "mirror_pad_float32_symmetric_rank5": lambda r: mirror_pad(r, F32, [1, 2, 1, 2, 3], [[1, 0], [0, 2], [1, 1], [2, 1], [0, 3]],
                                                                "SYMMETRIC"),
    # SLICE
    "slice_int8_size_minus_one": lambda r: slice_(r, I8, [2, 4, 5], [1, 1, 2], [-1, 2, -1]),
    "slice_int16_int64_indices": lambda r: slice_(r, I16, [3, 4], [1, 0], [2, 3], np.int64),
    "slice_int32_run_time_begin": lambda r: slice_(r, I32, [3, 5, 2], [2, 1, 0], [1, 3, 2], run_time=True),
    "slice_float32_rank5": lambda r: slice_(r, F32, [2, 3, 2, 3, 4], [1, 0, 1, 1, 1], [1, 3, 1, -1, 2]),
    "slice_float32_rank1_whole": lambda r: slice_(r, F32, [6], [0], [6]),
    "slice_bool": lambda r: slice_(r, BOOL, [3, 4], [1, 2], [2, -1]),
    # STRIDED_SLICE
    "strided_slice_int8_steps": lambda r: strided_slice(r, I8, [5, 7], [1, 0], [5, 7], [2, 3]),
    "strided_slice_int8_negative_strides": lambda r: strided_slice(r, I8, [4, 6, 3], [3, -1, 0], [0, 0, 3], [-1, -2, 1]),
    "strided_slice_int16_masks": lambda r: strided_slice(r, I16, [3, 4, 5], [1, 3, 9], [0, 0, 1], [1, -1, -2],
                                                        beginMask=0b010, endMask=0b101),
    "strided_slice_int32_shrink": lambda r: strided_slice(r, I32, [3, 4, 2], [1, -3, 0], [2, 0, 2], [1, 1, 1],
                                                         shrinkAxisMask=0b011),
    "strided_slice_float32_clamped": lambda r: strided_slice(r, F32, [2, 3, 4, 5], [-9, 1, -2, 7], [9, 99, 100, -9],
                                                            [1, 1, 1, -1]),
    "strided_slice_float32_rank1_reverse": lambda r: strided_slice(r, F32, [7], [0], [0], [-1], beginMask=1, endMask=1),
    "strided_slice_bool": lambda r: strided_slice(r, BOOL, [4, 3], [0, 2], [4, 0], [3, -1]),
    # TFLite Micro sets the ellipsis and new-axis masks to 0 and has no offset: they change nothing.
    "strided_slice_int8_ellipsis_ignored": lambda r: strided_slice(r, I8, [3, 4], [1, 1], [3, 3], [1, 1], ellipsisMask=1),
    "strided_slice_int8_new_axis_ignored": lambda r: strided_slice(r, I8, [3, 4], [1, 0], [2, 3], [1, 2], newAxisMask=2),
    "strided_slice_float32_offset_ignored": lambda r: strided_slice(r, F32, [4, 4], [1, 1], [3, 2], [1, 1], offset=True),
    # TRANSPOSE, SPACE_TO_DEPTH, DEPTH_TO_SPACE
    "transpose_int8_rank2": lambda r: transpose(r, I8, [3, 5], [1, 0]),
    "transpose_int8_nhwc_to_nchw": lambda r: transpose(r, I8, [2, 3, 4, 5], [0, 3, 1, 2]),
    "transpose_int16_rank3": lambda r: transpose(r, I16, [2, 3, 4], [2, 0, 1]),
    "transpose_float32_rank5": lambda r: transpose(r, F32, [2, 1, 3, 2, 3], [4, 2, 0, 3, 1]),
    "transpose_float32_rank1": lambda r: transpose(r, F32, [5], [0]),
    "space_to_depth_int8_block2": lambda r: space_to_depth(r, I8, [2, 4, 6, 3], 2),
    "space_to_depth_float32_block3": lambda r: space_to_depth(r, F32, [1, 3, 6, 2], 3),
    "depth_to_space_int8_block2": lambda r: depth_to_space(r, I8, [2, 2, 3, 8], 2),
    "depth_to_space_float32_block3": lambda r: depth_to_space(r, F32, [1, 2, 1, 18], 3),
    # TILE (LiteRT's reference: TFLite Micro has none)
    **per_type("tile", [BOOL, I8, U8, I16, I64], lambda r, t: tile(r, t, [2, 3], [2, 2])),
    "tile_int32_rank4_int64_multiples": lambda r: tile(r, I32, [1, 2, 1, 3], [2, 1, 3, 2], np.int64),
    "tile_float32_rank1": lambda r: tile(r, F32, [3], [4]),
    "tile_float32_run_time_multiples": lambda r: tile(r, F32, [2, 1, 2], [1, 3, 2], run_time=True),
    # REVERSE_V2
    **per_type("reverse", [BOOL, U8, I16, I64], lambda r, t: reverse(r, t, [2, 3, 2], [1])),
    "reverse_int8_two_axes_unsorted": lambda r: reverse(r, I8, [2, 3, 4, 2], [2, 1]),
    "reverse_int8_every_axis": lambda r: reverse(r, I8, [2, 3, 4], [0, 1, 2]),
    "reverse_int32_negative_axis": lambda r: reverse(r, I32, [3, 4], [-1]),
    "reverse_float32_run_time_axes": lambda r: reverse(r, F32, [2, 3, 2, 2], [1, 2], run_time=True),
    "reverse_float32_rank6_first_axis": lambda r: reverse(r, F32, [2, 1, 2, 1, 2, 3], [0]),
    # GATHER
    "gather_int8_channels": lambda r: gather(r, I8, [1, 4, 3, 16], 3, r.permutation(16)[:11]),
    "gather_int8_rows_2d_indices": lambda r: gather(r, I8, [6, 5], 0, [[5, 0, 2], [2, 2, 1]]),
    "gather_int8_negative_axis": lambda r: gather(r, I8, [2, 7, 3], -2, [6, 0, 6, 3]),
    "gather_int8_scalar_index": lambda r: gather(r, I8, [4, 3], 0, 2),
    "gather_float32_width": lambda r: gather(r, F32, [1, 3, 9, 4], 2, [8, 1, 1, 0, 4]),
    "gather_float32_batch_dims": lambda r: gather(r, F32, [2, 3, 5, 2], 2, [[4, 0, 1], [3, 3, 2]], batch_dims=1),
    "gather_int8_negative_batch_dims": lambda r: gather(r, I8, [2, 3, 4], 2, [[[3, 0], [1, 1], [2, 3]], [[0, 0], [3, 2], [1, 0]]],
                                                        batch_dims=-1),
    "gather_int8_run_time_indices": lambda r: gather(r, I8, [5, 4], 1, [[3, 0], [1, 3], [2, 2]], run_time=True),
    # GATHER_ND
    "gather_nd_int8_elements": lambda r: gather_nd(r, I8, [3, 4, 2], [[2, 3, 1], [0, 0, 0], [1, 2, 1]]),
    "gather_nd_int8_slices": lambda r: gather_nd(r, I8, [4, 3, 5], [[[3], [0]], [[1], [1]]]),
    "gather_nd_float32_rows": lambda r: gather_nd(r, F32, [3, 4, 2], [[2, 1], [0, 3], [1, 0], [2, 2]]),
    "gather_nd_float32_run_time_indices": lambda r: gather_nd(r, F32, [4, 5], [[3, 1], [0, 4]], run_time=True),
    # TFLite Micro checks only the flat position: [0, 6] of a [3, 4] input is element 6.
    "gather_nd_int8_index_past_its_dimension": lambda r: gather_nd(r, I8, [3, 4], [[0, 6], [1, -2]]),
    **resize_cases(),
}
