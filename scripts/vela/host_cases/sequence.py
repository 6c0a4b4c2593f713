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


def lstm_options(time_major, cell_clip):
    o = S.UnidirectionalSequenceLSTMOptionsT()
    o.fusedActivationFunction = ACTS["tanh"]
    o.cellClip = cell_clip
    o.timeMajor = time_major
    return S.BuiltinOptions.UnidirectionalSequenceLSTMOptions, o


def lstm(batch, time, n_input, units, time_major=False, cell_clip=0.0, steps=2, dtype=F32, q_in=(0.05, 0),
         q_hidden=(0.02, 0), cell_scale=2.0 ** -11, w_scale=0.01):
    """UNIDIRECTIONAL_SEQUENCE_LSTM over `steps` invocations of `time` steps each; int8 or int16
    activations take int8 weights, an int16 cell state on a power-of-two scale and int32 or int64
    biases."""
    seq = [time, batch] if time_major else [batch, time]

    def make(rng):
        m = Model()
        if dtype == F32:
            def weights(shape):
                return m.tensor(shape, F32, None, None, data=rng.normal(0, 0.4, shape))
            biases = [m.tensor([units], F32, None, None, data=rng.normal(0, 0.5, units)) for _ in range(4)]
            hidden = variable(m, [batch, units], F32)
            cell = variable(m, [batch, units], F32)
            q = (None, None)
            xs = [rng.normal(0, 1.5, seq + [n_input]).astype(F32) for _ in range(steps)]
        else:
            def weights(shape):
                return m.tensor(shape, I8, w_scale, 0, data=rng.integers(-127, 128, shape))
            bias_type = I32 if dtype == I8 else np.int64
            biases = [m.tensor([units], bias_type, q_in[0] * w_scale, 0,
                               data=rng.integers(-3000, 3000, units)) for _ in range(4)]
            hidden = variable(m, [batch, units], dtype, *q_hidden)
            cell = variable(m, [batch, units], I16, cell_scale, 0)
            q = q_hidden
            info = np.iinfo(dtype)
            xs = [rng.integers(info.min, info.max, seq + [n_input], endpoint=True).astype(dtype)
                  for _ in range(steps)]
            if dtype == I16:
                xs = [(x // 8).astype(dtype) for x in xs]
        w_in = [weights([units, n_input]) for _ in range(4)]
        w_rec = [weights([units, units]) for _ in range(4)]
        ins, outs = [], []
        for _ in xs:
            i = m.tensor(seq + [n_input], dtype, *(q_in if dtype != F32 else (None, None)))
            o = m.tensor(seq + [units], dtype, *q)
            operands = [i, *w_in, *w_rec, -1, -1, -1, *biases, -1, -1, hidden, cell, -1, -1, -1, -1]
            m.op(O.UNIDIRECTIONAL_SEQUENCE_LSTM, operands, [o], *lstm_options(time_major, cell_clip))
            ins.append(i)
            outs.append(o)
        m.inputs, m.outputs = ins, outs
        return m, xs
    return make


CASES.update({
    "lstm_f32": lstm(2, 3, 4, 5),
    "lstm_f32_time_major_clip": lstm(3, 2, 3, 4, time_major=True, cell_clip=0.8, steps=3),
    "lstm_f32_one_batch": lstm(1, 5, 6, 3, steps=1),
    "lstm_int8": lstm(2, 3, 4, 5, dtype=I8, q_in=(0.05, 3), q_hidden=(0.008, -2)),
    "lstm_int8_time_major_clip": lstm(3, 2, 5, 4, time_major=True, cell_clip=1.5, dtype=I8, steps=3,
                                      q_in=(0.1, -128), q_hidden=(1 / 128, 127), cell_scale=2.0 ** -10),
    "lstm_int8_fine_cell": lstm(1, 4, 3, 6, dtype=I8, q_in=(0.02, 0), q_hidden=(0.01, 5),
                                cell_scale=2.0 ** -15, w_scale=0.03),
    "lstm_int16": lstm(2, 3, 4, 5, dtype=I16, q_in=(0.0005, 0), q_hidden=(1 / 32768, 0)),
    "lstm_int16_time_major_clip": lstm(2, 3, 3, 4, time_major=True, cell_clip=0.5, dtype=I16, steps=3,
                                       q_in=(0.001, 0), q_hidden=(0.0001, 0), cell_scale=2.0 ** -12),
})
