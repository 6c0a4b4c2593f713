"""SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM (model/src/tflite/host/sequence.rs). A case of several steps
is a chain of the operator sharing one variable (state) tensor, each step with its own input and
output, which is how state persists from one invocation to the next: each step reads what the one
before it left. Ranks above one, with and without bias, fused activations, int8 and int16 state,
zero points at both ends and accumulators that saturate."""

import numpy as np
from tflite_ref import ACT, Model, S

O = S.BuiltinOperator
F32, I8, I16, I32 = np.float32, np.int8, np.int16, np.int32
ACTS = {**ACT, "tanh": S.ActivationFunctionType.TANH}


def variable(m, shape, dtype, scale=None, zero_point=None):
    t = m.tensor(shape, dtype, scale, zero_point)
    m.tensors[t].isVariable = True
    return t


def svdf_options(rank, act):
    o = S.SVDFOptionsT()
    o.rank = rank
    o.fusedActivationFunction = ACTS[act]
    return S.BuiltinOptions.SVDFOptions, o


def svdf(batch, n_input, units, rank, memory, act=None, bias=True, steps=2, quant=None, state=I8):
    """SVDF over `steps` invocations; `quant` (None: float32) gives (input, feature weights, state,
    time weights, output) as (scale, zero point)."""
    filters = units * rank

    def make(rng):
        m = Model()
        if quant is None:
            wf = m.tensor([filters, n_input], F32, None, None, data=rng.normal(0, 0.5, (filters, n_input)))
            wt = m.tensor([filters, memory], F32, None, None, data=rng.normal(0, 0.5, (filters, memory)))
            b = m.tensor([units], F32, None, None, data=rng.normal(0, 1, units)) if bias else -1
            s = variable(m, [batch, memory * filters], F32)
            xs = [rng.normal(0, 2, (batch, n_input)).astype(F32) for _ in range(steps)]
            dtype, out_q = F32, (None, None)
        else:
            q_in, q_wf, q_state, q_wt, out_q = quant
            info = np.iinfo(state)
            wf = m.tensor([filters, n_input], I8, *q_wf, data=rng.integers(-127, 128, (filters, n_input)))
            wt = m.tensor([filters, memory], state, *q_wt,
                          data=rng.integers(info.min + 1, info.max + 1, (filters, memory)))
            b = m.tensor([units], I32, q_state[0] * q_wt[0], 0,
                         data=rng.integers(-20000, 20000, units)) if bias else -1
            s = variable(m, [batch, memory * filters], state, *q_state)
            xs = [rng.integers(-128, 128, (batch, n_input)).astype(I8) for _ in range(steps)]
            xs[0][0, :3] = [-128, 127, q_in[1]]
            dtype = I8
        ins, outs = [], []
        for x in xs:
            i = m.tensor([batch, n_input], dtype, *(q_in if quant else (None, None)))
            o = m.tensor([batch, units], dtype, *out_q)
            m.op(O.SVDF, [i, wf, wt, b, s], [o], *svdf_options(rank, act))
            ins.append(i)
            outs.append(o)
        m.inputs, m.outputs = ins, outs
        return m, xs
    return make


Q8 = ((0.05, 3), (0.02, 0), (0.1, -5), (0.01, 0), (0.3, 10))
Q8_ZP_ENDS = ((0.03, -128), (0.015, 0), (0.08, 127), (0.02, 0), (0.5, -128))
Q16 = ((0.05, -7), (0.02, 0), (0.002, 0), (0.0001, 0), (0.2, 2))

CASES = {
    # TFLite Micro fails on an SVDF without bias, so every case has one.
    "svdf_f32": svdf(2, 5, 3, 1, 4),
    "svdf_f32_rank2_relu": svdf(1, 7, 4, 2, 3, act="relu", steps=3),
    "svdf_f32_rank3_relu6": svdf(3, 4, 2, 3, 5, act="relu6", steps=4),
    "svdf_f32_relu_n1_to_1": svdf(1, 6, 5, 1, 2, act="relu_n1_to_1", steps=3),
    "svdf_f32_tanh": svdf(2, 3, 3, 2, 3, act="tanh", steps=2),
    "svdf_int8": svdf(2, 5, 3, 1, 4, quant=Q8, steps=3),
    "svdf_int8_rank2_relu": svdf(1, 9, 4, 2, 3, act="relu", quant=Q8, steps=4),
    "svdf_int8_zp_ends_rank3": svdf(2, 6, 2, 3, 5, quant=Q8_ZP_ENDS, steps=3),
    "svdf_int8_int16_state": svdf(2, 5, 3, 1, 4, quant=Q16, state=I16, steps=3),
    "svdf_int8_int16_state_rank2_relu6": svdf(1, 8, 3, 2, 6, act="relu6", quant=Q16, state=I16, steps=5),
}
