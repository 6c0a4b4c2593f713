"""ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, PRELU, FLOOR_DIV, FLOOR_MOD and the
comparisons (model/src/tflite/host/binary.rs) in every type TFLite Micro takes: broadcasts
of either input or both up to rank 6, scalars, constant inputs, fused
activations, asymmetric zero points, outputs saturating at both ends, exact
rounding ties, int32 overflow, float infinities and NaN, and DIV's
undefined-behaviour corners (a zero int8 divisor, quotients far below one
output step), comparisons of int8 on different scales that meet exactly, ties and NaN."""

import numpy as np
from tflite_ref import ACT, Model, S

O = S.BuiltinOperator
BO = S.BuiltinOptions
FLOAT_SPECIALS = [np.inf, -np.inf, np.nan, 0.0, -0.0, 3e38, -3e38, 1e-45, 1.0, -1.0]
OPTIONS = {O.ADD: (BO.AddOptions, S.AddOptionsT), O.SUB: (BO.SubOptions, S.SubOptionsT),
           O.MUL: (BO.MulOptions, S.MulOptionsT), O.DIV: (BO.DivOptions, S.DivOptionsT)}


def values(rng, dtype, shape, scale=3.0, specials=False):
    """Random values: integers over their type's whole range, its extremes first; floats normal times
    `scale`, with infinities, NaN, signed zeros and overflowing magnitudes first when `specials`."""
    shape = tuple(shape)
    n = int(np.prod(shape))
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype == np.float32:
        v = rng.standard_normal(n) * scale
        if specials:
            k = min(n, len(FLOAT_SPECIALS))
            v[:k] = FLOAT_SPECIALS[:k]
        return v.astype(np.float32).reshape(shape)
    info = np.iinfo(dtype)
    v = rng.integers(info.min, info.max, n, endpoint=True, dtype=np.int64)
    edges = [info.min, info.max, 0, -1, 1, info.min + 1, info.max - 1]
    v[:min(n, len(edges))] = edges[:n]
    return v.astype(dtype).reshape(shape)


def small(lo, hi):
    """Uniform integers in [lo, hi], for operands whose full range would only saturate."""
    return lambda rng, dtype, shape: rng.integers(lo, hi, tuple(shape), endpoint=True).astype(dtype)


def options(code, act, pot):
    if code not in OPTIONS:
        return BO.NONE, None
    kind, cls = OPTIONS[code]
    o = cls()
    o.fusedActivationFunction = ACT[act]
    if pot is not None:
        o.potScaleInt16 = pot
    return kind, o


def binary(code, dtype, shape1, shape2, q=None, act=None, const2=False, dtype2=None, gen1=None, gen2=None,
           pot=None, specials=False, out=None):
    """A one-operator model `code(input1, input2)` with output shape their broadcast, of type `out`
    (default the inputs'); `q` the three (scale, zero point) pairs of a quantised case; input 2 a
    constant when `const2`."""
    dtype2 = dtype2 or dtype
    q1, q2, qo = q or ((None, None),) * 3

    def make(rng):
        a = (gen1 or (lambda r, d, s: values(r, d, s, specials=specials)))(rng, dtype, shape1)
        b = (gen2 or (lambda r, d, s: values(r, d, s)))(rng, dtype2, shape2)
        m = Model()
        ta = m.tensor(shape1, dtype, *q1)
        tb = m.tensor(shape2, dtype2, *q2, data=b if const2 else None)
        ty = m.tensor(np.broadcast_shapes(tuple(shape1), tuple(shape2)), out or dtype, *qo)
        m.op(code, [ta, tb], [ty], *options(code, act, pot))
        m.inputs = [ta] if const2 else [ta, tb]
        m.outputs = [ty]
        return m, [a] if const2 else [a, b]
    return make


def nonzero(gen):
    """`gen`'s values with zeros replaced by ones (int32 division by zero traps)."""
    def make(rng, dtype, shape):
        v = gen(rng, dtype, shape) if gen else values(rng, dtype, shape)
        v[v == 0] = 1
        return v
    return make


def with_pairs(pairs, index):
    """Random values with the inputs `pairs` (element `index` of each) first."""
    def make(rng, dtype, shape):
        v = values(rng, dtype, shape)
        v.reshape(-1)[:len(pairs)] = [p[index] for p in pairs]
        return v
    return make


def int8_divisors(zero_point):
    """Int8 divisors over the whole range that hit the zero point (a zero divisor) early."""
    def make(rng, dtype, shape):
        v = values(rng, dtype, shape)
        v.reshape(-1)[7:10] = zero_point
        return v
    return make


def float_ties(rng, dtype, shape):
    """Float32 halves in [-2, 2] (many equal pairs), NaN and infinities first."""
    v = (rng.integers(-4, 4, tuple(shape), endpoint=True) / 2).astype(dtype)
    v.reshape(-1)[:3] = [np.nan, np.inf, -np.inf]
    return v


def float_divisors(rng, dtype, shape):
    """Float32 divisors of both signs, none zero (FLOOR_DIV fails on one), an infinity first."""
    v = values(rng, dtype, shape, scale=2.0)
    v[v == 0] = 0.5
    v.reshape(-1)[:2] = [np.inf, -3.0]
    return v


COMPARISONS = [("equal", O.EQUAL), ("not_equal", O.NOT_EQUAL), ("less", O.LESS),
               ("less_equal", O.LESS_EQUAL), ("greater", O.GREATER), ("greater_equal", O.GREATER_EQUAL)]
Q8 = ((0.05, -3), (0.02, 10), (0.07, 5))
Q16 = ((0.001, 0), (0.0005, 0), (0.0012, 0))
I8, I16, I32, I64, F32 = np.int8, np.int16, np.int32, np.int64, np.float32

CASES = {
    # ADD
    "add_int8_same_shape": binary(O.ADD, I8, [2, 3, 4], [2, 3, 4], Q8),
    "add_int8_channels_relu6": binary(O.ADD, I8, [1, 4, 4, 6], [6], ((0.05, -3), (0.03, 7), (0.05, -20)),
                                      act="relu6"),
    "add_int8_both_broadcast_relu": binary(O.ADD, I8, [2, 1, 3, 1], [1, 4, 1, 5], Q8, act="relu"),
    "add_int8_scalar_relu_n1_to_1": binary(O.ADD, I8, [3, 5], [], ((0.02, 0), (0.01, -1), (0.01, 2)),
                                           act="relu_n1_to_1"),
    "add_int8_constant_saturating": binary(O.ADD, I8, [2, 8], [8], ((0.1, 0), (0.1, 0), (0.05, 0)),
                                           const2=True),
    "add_int8_rounding_ties": binary(O.ADD, I8, [4, 16], [4, 16], ((0.1, 0), (0.1, 0), (0.2, 0))),
    "add_int8_rank5": binary(O.ADD, I8, [2, 1, 3, 1, 4], [3, 1, 5, 1], Q8),
    "add_int8_rank6": binary(O.ADD, I8, [2, 1, 2, 1, 3, 2], [1, 2, 1, 2, 1, 2], Q8, act="relu"),
    "add_int16_broadcast": binary(O.ADD, I16, [2, 3, 8], [8], Q16),
    "add_int16_pot_scales": binary(O.ADD, I16, [4, 8], [4, 8], ((2**-10, 0), (2**-12, 0), (2**-10, 0)),
                                   act="relu", pot=True),
    "add_int16_pot_scales_general": binary(O.ADD, I16, [4, 8], [1, 8], ((2**-10, 0), (2**-12, 0), (2**-11, 0)),
                                           pot=False),
    "add_int16_zero_points_relu6": binary(O.ADD, I16, [3, 7], [3, 1], ((0.001, 100), (0.002, -50), (0.0005, 7)),
                                          act="relu6"),
    "add_int32_wrapping_relu_ignored": binary(O.ADD, I32, [4, 5], [5], act="relu"),
    "add_int32_rank5": binary(O.ADD, I32, [2, 1, 2, 3, 1], [2, 1, 1, 4], gen1=small(-1000, 1000),
                              gen2=small(-1000, 1000)),
    "add_float32_relu6": binary(O.ADD, F32, [2, 3, 4], [3, 1], act="relu6"),
    "add_float32_specials": binary(O.ADD, F32, [2, 10], [10], specials=True),
    "add_float32_scalar_constant": binary(O.ADD, F32, [1, 2, 3, 4], [1], const2=True, act="relu_n1_to_1"),
    # SUB
    "sub_int8_broadcast_relu": binary(O.SUB, I8, [2, 3, 4], [3, 1], ((0.0371, -9), (0.0123, 4), (0.04, 2)),
                                      act="relu"),
    "sub_int8_first_broadcasts": binary(O.SUB, I8, [4], [2, 3, 4], Q8),
    "sub_int8_saturating": binary(O.SUB, I8, [3, 9], [3, 9], ((0.1, 10), (0.1, -10), (0.03, 0))),
    "sub_int8_rank6_relu6": binary(O.SUB, I8, [1, 2, 1, 3, 1, 2], [2, 1, 2, 1, 2, 1],
                                   ((0.05, 0), (0.05, 0), (0.025, -100)), act="relu6"),
    # Scales whose multipliers newer sub_common.cc's single precision would round apart from the
    # double precision the reference uses, and the input pair that shows it.
    "sub_int8_double_precision_multipliers": binary(O.SUB, I8, [4, 8], [4, 8],
                                                    ((0.0807, 5), (0.081, -9), (0.052, 19)),
                                                    gen1=with_pairs([(-15, -53)], 0),
                                                    gen2=with_pairs([(-15, -53)], 1)),
    "sub_int16_relu6": binary(O.SUB, I16, [2, 4, 6], [4, 6], ((0.0007, 0), (0.0011, 0), (0.0009, 0)),
                              act="relu6", pot=False),
    "sub_int32_relu6": binary(O.SUB, I32, [3, 8], [8], act="relu6", gen1=small(-20, 20), gen2=small(-20, 20)),
    "sub_int32_wrapping": binary(O.SUB, I32, [4, 6], [4, 6]),
    "sub_float32_relu_n1_to_1": binary(O.SUB, F32, [2, 3, 5], [2, 1, 5], act="relu_n1_to_1"),
    "sub_float32_specials": binary(O.SUB, F32, [10], [1], specials=True, const2=True),
    # MUL
    "mul_int8_broadcast_relu": binary(O.MUL, I8, [2, 3, 4], [4], ((0.05, -3), (0.02, 10), (0.01, 5)),
                                      act="relu"),
    "mul_int8_saturating": binary(O.MUL, I8, [4, 8], [4, 8], ((0.1, 0), (0.2, -5), (0.05, 3))),
    "mul_int8_scalar_constant_relu6": binary(O.MUL, I8, [2, 4, 4], [1], ((0.05, 0), (0.01, -128), (0.04, -128)),
                                             const2=True, act="relu6"),
    "mul_int8_rank5": binary(O.MUL, I8, [2, 3, 1, 2, 2], [3, 4, 1, 1], Q8),
    "mul_int16": binary(O.MUL, I16, [2, 5, 6], [5, 1], ((0.001, 0), (0.002, 0), (0.00005, 0))),
    "mul_int16_relu_n1_to_1": binary(O.MUL, I16, [3, 8], [3, 8], ((0.0001, 0), (0.0002, 0), (0.0001, 0)),
                                     act="relu_n1_to_1"),
    "mul_int32_wrapping_relu": binary(O.MUL, I32, [4, 6], [6], act="relu"),
    "mul_int32_relu6": binary(O.MUL, I32, [2, 3, 4], [2, 1, 4], act="relu6", gen1=small(-5, 5),
                              gen2=small(-5, 5)),
    "mul_float32_relu6": binary(O.MUL, F32, [2, 3, 4], [3, 4], act="relu6"),
    "mul_float32_specials": binary(O.MUL, F32, [3, 10], [10], specials=True),
    # DIV
    "div_float32_specials": binary(O.DIV, F32, [2, 10], [2, 10], specials=True,
                                   gen2=lambda r, d, s: np.where(np.arange(20).reshape(s) % 4 == 0, 0.0,
                                                                 values(r, d, s)).astype(d)),
    "div_float32_broadcast_relu": binary(O.DIV, F32, [2, 3, 4], [4], act="relu"),
    "div_int32_broadcast": binary(O.DIV, I32, [3, 4, 5], [4, 1], gen2=nonzero(small(-40, 40))),
    "div_int32_relu_n1_to_1": binary(O.DIV, I32, [6, 7], [6, 7], act="relu_n1_to_1",
                                     gen1=small(-100, 100), gen2=nonzero(small(-60, 60))),
    "div_int8": binary(O.DIV, I8, [4, 8], [4, 8], ((0.05, 3), (0.04, -7), (0.06, 2)), gen2=int8_divisors(-7)),
    "div_int8_broadcast_relu6": binary(O.DIV, I8, [2, 3, 8], [3, 1], ((0.5, 0), (0.5, 0), (0.1, -128)),
                                       act="relu6", gen2=int8_divisors(0)),
    "div_int8_tiny_quotients": binary(O.DIV, I8, [2, 16], [2, 16], ((0.001, 0), (1.0, 0), (1.0, 5)),
                                      gen2=int8_divisors(0)),
    "div_int8_large_quotients": binary(O.DIV, I8, [3, 9], [9], ((0.5, -10), (0.001, 20), (4.0, 0)),
                                       gen2=int8_divisors(20)),
    # SQUARED_DIFFERENCE
    "squared_difference_int8": binary(O.SQUARED_DIFFERENCE, I8, [2, 3, 4], [3, 4],
                                      ((0.05, -3), (0.04, 12), (0.2, -100))),
    "squared_difference_int8_saturating": binary(O.SQUARED_DIFFERENCE, I8, [4, 8], [4, 8],
                                                 ((0.1, 0), (0.1, 0), (0.05, -128))),
    "squared_difference_int8_rank5": binary(O.SQUARED_DIFFERENCE, I8, [2, 1, 3, 2, 1], [2, 1, 1, 3],
                                            ((0.02, 5), (0.03, -5), (0.01, -128))),
    "squared_difference_int16": binary(O.SQUARED_DIFFERENCE, I16, [2, 4, 5], [2, 1, 5],
                                       ((0.0005, 0), (0.0004, 0), (0.01, 0))),
    "squared_difference_int32_wrapping": binary(O.SQUARED_DIFFERENCE, I32, [4, 6], [6]),
    "squared_difference_float32": binary(O.SQUARED_DIFFERENCE, F32, [2, 3, 4], [4], specials=True),
    # MAXIMUM, MINIMUM
    **{f"{name}_{np.dtype(t).name}": binary(code, t, [2, 3, 4], [3, 1],
                                            ((0.05, 2), (0.05, 2), (0.05, 2)) if t in (I8, I16) else None)
       for name, code in [("maximum", O.MAXIMUM), ("minimum", O.MINIMUM)]
       for t in [I8, I16, I32, I64, F32]},
    "maximum_float32_nan_either_side": binary(O.MAXIMUM, F32, [12], [12], specials=True,
                                              gen2=lambda r, d, s: values(r, d, s, specials=True)[::-1].copy()),
    "minimum_float32_nan_either_side": binary(O.MINIMUM, F32, [12], [12], specials=True,
                                              gen2=lambda r, d, s: values(r, d, s, specials=True)[::-1].copy()),
    "maximum_int8_rank6_constant": binary(O.MAXIMUM, I8, [2, 1, 2, 1, 2, 3], [1, 2, 1, 2, 1, 3],
                                          ((0.1, 0),) * 3, const2=True),
    "minimum_int16_scalar": binary(O.MINIMUM, I16, [3, 7], [], ((0.001, 0),) * 3),
    # PRELU
    "prelu_float32_channels": binary(O.PRELU, F32, [1, 4, 4, 3], [3], const2=True, specials=True),
    "prelu_float32_broadcast_alpha": binary(O.PRELU, F32, [2, 3, 4, 5], [3, 1, 5], const2=True),
    "prelu_int8_channels": binary(O.PRELU, I8, [1, 4, 4, 6], [6], ((0.05, 3), (0.01, -2), (0.04, -5)),
                                  const2=True),
    "prelu_int8_broadcast_alpha": binary(O.PRELU, I8, [2, 3, 4, 5], [1, 4, 1], ((0.1, -20), (0.02, 10), (0.03, 0)),
                                         const2=True),
    "prelu_int8_rank5_saturating": binary(O.PRELU, I8, [2, 2, 3, 2, 4], [4], ((0.2, 0), (0.5, 0), (0.05, 0)),
                                          const2=True),
    "prelu_int16_int8_alpha": binary(O.PRELU, I16, [1, 3, 4, 5], [5], ((0.001, 0), (0.01, 3), (0.0015, 0)),
                                     const2=True, dtype2=I8),
    "prelu_int16_runtime_alpha": binary(O.PRELU, I16, [2, 6], [2, 6], ((0.0005, 0), (0.02, -4), (0.0005, 0)),
                                        dtype2=I8),
    # FLOOR_DIV, FLOOR_MOD
    "floor_div_float32_broadcast": binary(O.FLOOR_DIV, F32, [2, 3, 5], [3, 1], specials=True,
                                          gen2=float_divisors),
    "floor_div_float32_rank4": binary(O.FLOOR_DIV, F32, [2, 1, 3, 4], [2, 1, 4], gen2=float_divisors),
    "floor_mod_float32_broadcast": binary(O.FLOOR_MOD, F32, [2, 3, 5], [5], specials=True),
    "floor_mod_float32_signs_and_zeros": binary(O.FLOOR_MOD, F32, [4, 6], [4, 6], specials=True,
                                                gen2=lambda r, d, s: np.where(np.arange(24).reshape(s) % 5 == 0,
                                                                              0.0, values(r, d, s)).astype(d)),
    # Comparisons: int8 on scales that make different codes meet, raw integers and floats with ties.
    **{f"{name}_{case}": binary(code, t, s1, s2, q, out=np.bool_, gen1=g, gen2=g)
       for name, code in COMPARISONS
       for case, t, s1, s2, q, g in [
           ("int8_scaled", I8, [2, 3, 4], [3, 4], ((0.5, 0), (0.25, 0), (None, None)), small(-6, 6)),
           ("int8_zero_points_broadcast", I8, [2, 1, 3, 5], [4, 1, 1], ((0.1, -7), (0.05, 20), (None, None)),
            None),
           ("int32_broadcast", I32, [3, 4], [4], None, small(-2, 2)),
           ("int64_rank5", I64, [2, 1, 3, 1, 2], [2, 3, 1, 2], None, small(-2, 2)),
           ("float32_ties_nan", F32, [2, 3, 4], [4], None, float_ties)]},
    **{f"{name}_bool_broadcast": binary(code, np.bool_, [3, 4], [4], out=np.bool_)
       for name, code in COMPARISONS[:2]},
}
