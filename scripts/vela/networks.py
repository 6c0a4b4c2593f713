#!/usr/bin/env python3
"""Whole networks compiled by Vela (int8, an int16 LSTM, float32 ones with CPU
operators), for `npu-sim tflite` and the golden model's network tests
(model/tests/networks.rs).

Usage (after scripts/vela/setup.sh):

    scripts/.venv/bin/python scripts/vela/networks.py [--seed N] [--only NAME[,NAME]]

Writes model/tests/fixtures/networks/<name>/ for every network (--only: for
those named, leaving the other folders alone):
  model.tflite       the source network (built without TensorFlow, tflite_ref.py)
  model_vela.tflite  Vela's output: `ethos-u` custom operators, and the operators
                     it leaves on the CPU (ON_CPU names them per network)
  input.bin          the input tensor's bytes (input0.bin, input1.bin, ... for several)
  expected.bin       the output tensor's bytes from the TFLite Micro interpreter
                     (tflite-micro) on model.tflite (expected0.bin, ... for several)

Weights are random from a fixed seed with per-channel scales. Each layer's
quantisation follows from an estimate of its values' spread (root mean square
in quantisation steps, tracked from the input on), so outputs use the int8
range without saturating; ReLU6 layers get TFLite's usual [0, 6] range.
"""

import argparse
import shutil
import sys
from pathlib import Path

import numpy as np
from ai_edge_litert import schema_py_generated as S
from tflite_micro.python.tflite_micro import runtime

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compiled import compile_bytes  # noqa: E402
from tflite_ref import ACT, Model, conv_options, depthwise_options, pool_options, binary_options  # noqa: E402

ROOT = HERE.parent.parent
OUT = ROOT / "model" / "tests" / "fixtures" / "networks"
O = S.BuiltinOperator


class Net:
    """A network under construction: int8 activations as (tensor, scale, zero
    point, shape, spread), spread = rms of (value - zero point) in steps."""

    def __init__(self, rng):
        self.m, self.rng = Model(), rng
        # Network inputs whose values are fixed (an output shape), by tensor.
        self.fixed_inputs = {}

    def act(self, shape, scale, zp, spread):
        return (self.m.tensor(shape, np.int8, scale, zp), scale, zp, list(shape), spread)

    def input(self, shape, scale=0.05, zp=-3):
        # Uniform int8 values: rms 74 steps.
        x = self.act(shape, scale, zp, 74.0)
        self.m.inputs.append(x[0])
        return x

    def _weighted(self, x, wshape, axis, fan_in, cout, out_shape, act, code, opts_type, opts):
        # Uniform int8 weights (rms 73 steps): accumulators spread sqrt(fan_in) * x spread * 73 steps.
        acc_spread = np.sqrt(fan_in) * x[4] * 73
        if act == "relu6":
            # Real accumulator spread 3.0 into TFLite's [0, 6] ReLU6 range.
            w_base, out_scale, zp, spread = 3.0 / (x[1] * acc_spread), 6 / 255, -128, 90.0
        else:
            # An output spread of 40 steps (28 after a ReLU, which clips at the zero point).
            w_base = 0.01
            out_scale = x[1] * w_base * acc_spread / 40
            zp = -60 if act == "relu" else int(self.rng.integers(-20, 21))
            spread = 28.0 if act == "relu" else 40.0
        w_scale = w_base * self.rng.uniform(0.8, 1.2, cout)
        w = self.rng.integers(-127, 128, wshape, dtype=np.int8)
        acc_scale = x[1] * w_scale
        bias = self.rng.integers(-50 * fan_in, 50 * fan_in + 1, cout, dtype=np.int32)
        y = self.act(out_shape, out_scale, zp, spread)
        wt = self.m.tensor(wshape, np.int8, w_scale, np.zeros(cout, int), w, axis)
        bt = self.m.tensor([cout], np.int32, acc_scale, np.zeros(cout, int), bias)
        self.m.op(code, [x[0], wt, bt], [y[0]], opts_type, opts)
        return y

    def conv(self, x, cout, k=3, stride=1, act=None):
        """k and stride: one value, or (height, width)."""
        _, h, w, cin = x[3]
        (kh, kw), (sh, sw) = pair(k), pair(stride)
        shape = [1, -(-h // sh), -(-w // sw), cout]
        return self._weighted(x, [cout, kh, kw, cin], 0, kh * kw * cin, cout, shape, act, O.CONV_2D,
                              S.BuiltinOptions.Conv2DOptions, conv_options((sh, sw), (1, 1), "SAME", act))

    def depthwise(self, x, k=3, stride=1, act=None):
        _, h, w, c = x[3]
        shape = [1, -(-h // stride), -(-w // stride), c]
        return self._weighted(x, [1, k, k, c], 3, k * k, c, shape, act, O.DEPTHWISE_CONV_2D,
                              S.BuiltinOptions.DepthwiseConv2DOptions,
                              depthwise_options((stride, stride), (1, 1), "SAME", act))

    def add(self, a, b, act=None):
        scale = 2 * max(a[1], b[1])
        y = self.act(a[3], scale, 0, np.hypot(a[1] * a[4], b[1] * b[4]) / scale)
        self.m.op(O.ADD, [a[0], b[0]], [y[0]], S.BuiltinOptions.AddOptions, binary_options("ADD", act))
        return y

    def pool(self, x, code, k=2):
        """k: one value, or (height, width); the stride is the kernel."""
        _, h, w, c = x[3]
        k = pair(k)
        # int8 pooling keeps the input's quantisation (TFLite requires it).
        y = self.act([1, h // k[0], w // k[1], c], x[1], x[2], x[4])
        self.m.op(code, [x[0]], [y[0]], S.BuiltinOptions.Pool2DOptions, pool_options(k, k, "VALID", None))
        return y

    def logistic(self, x):
        # TFLite fixes int8 LOGISTIC's output to scale 1/256, zero point -128.
        y = self.act(x[3], 1 / 256, -128, 128.0)
        self.m.op(O.LOGISTIC, [x[0]], [y[0]])
        return y

    def tanh(self, x):
        y = self.act(x[3], 1 / 128, 0, 60.0)
        self.m.op(O.TANH, [x[0]], [y[0]])
        return y

    def softmax(self, x, beta=1.0):
        y = self.act(x[3], 1 / 256, -128, 60.0)
        o = S.SoftmaxOptionsT()
        o.beta = beta
        self.m.op(O.SOFTMAX, [x[0]], [y[0]], S.BuiltinOptions.SoftmaxOptions, o)
        return y

    def mean(self, x):
        _, _, _, c = x[3]
        axes = self.m.tensor([2], np.int32, None, None, np.array([1, 2], np.int32))
        y = self.act([1, 1, 1, c], x[1], x[2], x[4])
        o = S.ReducerOptionsT()
        o.keepDims = True
        self.m.op(O.MEAN, [x[0], axes], [y[0]], S.BuiltinOptions.ReducerOptions, o)
        return y

    def fully_connected(self, x, units, act=None):
        n = int(np.prod(x[3]))
        w_scale = 0.01
        w = self.rng.integers(-127, 128, [units, n], dtype=np.int8)
        bias = self.rng.integers(-50 * n, 50 * n + 1, units, dtype=np.int32)
        out_scale = x[1] * w_scale * np.sqrt(n) * x[4] * 73 / 40
        # As in _weighted: 40 steps of spread, 28 after a ReLU.
        zp, spread = (-60, 28.0) if act == "relu" else (5, 40.0)
        y = self.act([1, units], out_scale, zp, spread)
        wt = self.m.tensor([units, n], np.int8, w_scale, 0, w)
        bt = self.m.tensor([units], np.int32, x[1] * w_scale, 0, bias)
        o = S.FullyConnectedOptionsT()
        o.fusedActivationFunction = ACT[act]
        self.m.op(O.FULLY_CONNECTED, [x[0], wt, bt], [y[0]], S.BuiltinOptions.FullyConnectedOptions, o)
        return y

    def output(self, y):
        self.m.outputs.append(y[0])

    def float_input(self, shape, scale=0.05, zp=-3):
        """A float32 network input and the QUANTIZE to int8 that Vela leaves on the CPU."""
        xf = self.m.tensor(shape, np.float32, None, None)
        self.m.inputs.append(xf)
        x = self.act(shape, scale, zp, 74.0)
        self.m.op(O.QUANTIZE, [xf], [x[0]])
        return x

    def float_output(self, y):
        """A DEQUANTIZE of y to a float32 network output (left on the CPU by Vela)."""
        yf = self.m.tensor(y[3], np.float32, None, None)
        self.m.op(O.DEQUANTIZE, [y[0]], [yf])
        self.m.outputs.append(yf)

    def lstm16(self, x, cells):
        """A UNIDIRECTIONAL_SEQUENCE_LSTM over int16 sequence x [1, time, features] (TFLite's 16x8 LSTM: int8
        weights, int64 biases, int16 states), returning the hidden state of every step, [1, time, cells].
        The gates' inputs are at scale 2^-12 and their outputs Q0.15, as TFLite's integer LSTM computes them
        (Vela lowers it to FULLY_CONNECTED, ADD, MUL and LUT activations with the same scales); the hidden
        state is Q0.15 (tanh's range), the cell state 2^-11 (+-16)."""
        m = self.m
        _, time, features = x[3]
        hidden_scale, cell_scale = 2.0**-15, 2.0**-11
        w_scale = 0.004

        def weights(fan_in):
            return m.tensor([cells, fan_in], np.int8, w_scale, 0,
                            self.rng.integers(-127, 128, [cells, fan_in], dtype=np.int8))

        input_weights = [weights(features) for _ in range(4)]
        recurrent_weights = [weights(cells) for _ in range(4)]
        biases = [m.tensor([cells], np.int64, x[1] * w_scale, 0,
                           self.rng.integers(-2000, 2000, cells).astype(np.int64)) for _ in range(4)]
        hidden = m.tensor([1, cells], np.int16, hidden_scale, 0)
        cell = m.tensor([1, cells], np.int16, cell_scale, 0)
        m.tensors[hidden].isVariable = m.tensors[cell].isVariable = True
        y = (m.tensor([1, time, cells], np.int16, hidden_scale, 0), hidden_scale, 0, [1, time, cells], 0.0)
        # TFLite's integer LSTM names its gates' scales in five empty intermediate tensors.
        intermediates = [m.tensor([0], np.int16, 2.0**-12, 0) for _ in range(4)] + \
            [m.tensor([0], np.int16, hidden_scale, 0)]
        o = S.UnidirectionalSequenceLSTMOptionsT()
        o.fusedActivationFunction = S.ActivationFunctionType.TANH
        o.timeMajor = False
        no_peephole, no_projection, no_layer_norm = [-1] * 3, [-1] * 2, [-1] * 4
        inputs = [x[0], *input_weights, *recurrent_weights, *no_peephole, *biases, *no_projection, hidden, cell,
                  *no_layer_norm]
        m.op(O.UNIDIRECTIONAL_SEQUENCE_LSTM, inputs, [y[0]], S.BuiltinOptions.UnidirectionalSequenceLSTMOptions, o)
        m.ops[-1].intermediates = intermediates
        return y

    def mean_depth(self, x):
        """MEAN over the channels, keeping the dimension: Vela leaves a reduction over depth on the CPU unless
        height, width or depth is 1."""
        _, h, w, c = x[3]
        axes = self.m.tensor([1], np.int32, None, None, np.array([-1], np.int32))
        y = self.act([1, h, w, 1], x[1], x[2], x[4] / np.sqrt(c) * 2)
        o = S.ReducerOptionsT()
        o.keepDims = True
        self.m.op(O.MEAN, [x[0], axes], [y[0]], S.BuiltinOptions.ReducerOptions, o)
        return y

    def transpose_conv(self, x, cout, k=3, stride=3):
        """TRANSPOSE_CONV (SAME padding) whose output shape is a network input, not a constant; Vela leaves
        a stride other than 1 or 2 on the CPU."""
        _, h, w, cin = x[3]
        out = [1, h * stride, w * stride, cout]
        shape = self.m.tensor([4], np.int32, None, None)
        self.m.inputs.append(shape)
        self.fixed_inputs[shape] = np.array(out, np.int32)
        acc_spread = np.sqrt(k * k * cin / (stride * stride)) * x[4] * 73
        w_scale = 0.01 * self.rng.uniform(0.8, 1.2, cout)
        w = self.rng.integers(-127, 128, [cout, k, k, cin], dtype=np.int8)
        wt = self.m.tensor([cout, k, k, cin], np.int8, w_scale, np.zeros(cout, int), w, 0)
        bias = self.rng.integers(-2000, 2001, cout, dtype=np.int32)
        bt = self.m.tensor([cout], np.int32, x[1] * w_scale, np.zeros(cout, int), bias)
        y = self.act(out, x[1] * 0.01 * acc_spread / 40, 4, 40.0)
        o = S.TransposeConvOptionsT()
        o.padding, o.strideH, o.strideW = S.Padding.SAME, stride, stride
        self.m.op(O.TRANSPOSE_CONV, [shape, wt, x[0], bt], [y[0]], S.BuiltinOptions.TransposeConvOptions, o,
                  version=3)
        return y

    def float_head(self, shape, units):
        """A float32 network input through a float32 FULLY_CONNECTED and SOFTMAX to a float32 output: Vela
        leaves float operators on the CPU."""
        m = self.m
        xf = m.tensor(shape, np.float32, None, None)
        m.inputs.append(xf)
        n = int(np.prod(shape))
        wt = m.tensor([units, n], np.float32, None, None,
                      self.rng.normal(0, 1 / np.sqrt(n), [units, n]).astype(np.float32))
        bt = m.tensor([units], np.float32, None, None, self.rng.normal(0, 0.1, units).astype(np.float32))
        h = m.tensor([1, units], np.float32, None, None)
        o = S.FullyConnectedOptionsT()
        o.fusedActivationFunction = ACT["relu"]
        m.op(O.FULLY_CONNECTED, [xf, wt, bt], [h], S.BuiltinOptions.FullyConnectedOptions, o)
        y = m.tensor([1, units], np.float32, None, None)
        so = S.SoftmaxOptionsT()
        so.beta = 1.0
        m.op(O.SOFTMAX, [h], [y], S.BuiltinOptions.SoftmaxOptions, so)
        m.outputs.append(y)

    def gather(self, x, indices, axis):
        """GATHER of x's slices `indices` along `axis` (left on the CPU by Vela)."""
        t = self.m.tensor([len(indices)], np.int32, None, None, np.asarray(indices, np.int32))
        shape = list(x[3])
        shape[axis] = len(indices)
        y = self.act(shape, x[1], x[2], x[4])
        o = S.GatherOptionsT()
        o.axis = axis
        self.m.op(O.GATHER, [x[0], t], [y[0]], S.BuiltinOptions.GatherOptions, o)
        return y


def pair(v):
    """(v, v) for one value, else v as a tuple."""
    return (v, v) if isinstance(v, int) else tuple(v)


def micro_reference(net, xs):
    """The outputs for inputs xs (network order) from the TFLite Micro interpreter: the reference kernels
    Ethos-U deploys with, which round as the NPU does (LiteRT's host FULLY_CONNECTED rounds once)."""
    it = runtime.Interpreter.from_bytes(net.m.to_bytes(), arena_size=16 << 20)
    for i, x in enumerate(xs):
        it.set_input(x, i)
    it.invoke()
    return [it.get_output(i) for i in range(len(net.m.outputs))]


def demo(rng):
    """The demo: convolution, depthwise, a residual ADD, max and average pooling, LOGISTIC (a LUT), FC."""
    n = Net(rng)
    x = n.input([1, 32, 32, 3])
    a = n.conv(x, 8, stride=2, act="relu")
    b = n.depthwise(a, act="relu6")
    b = n.conv(b, 8, k=1)
    r = n.add(a, b)
    p = n.pool(r, O.MAX_POOL_2D)
    p = n.pool(p, O.AVERAGE_POOL_2D)
    s = n.logistic(p)
    n.output(n.fully_connected(s, 10))
    return n, "u65-256"


def residual(rng):
    """Two convolutions and a residual ADD with ReLU."""
    n = Net(rng)
    x = n.input([1, 8, 8, 16])
    a = n.conv(x, 16, act="relu")
    b = n.conv(a, 16)
    n.output(n.add(x, b, act="relu"))
    return n, "u65-256"


def u65_512(rng):
    """Convolution, strided depthwise and pointwise convolution on the two-core configuration."""
    n = Net(rng)
    x = n.input([1, 24, 24, 16])
    a = n.conv(x, 32, act="relu")
    b = n.depthwise(a, stride=2, act="relu6")
    n.output(n.conv(b, 48, k=1))
    return n, "u65-512"


def softmax(rng):
    """A pointwise convolution, TANH (a LUT) and SOFTMAX over the channels."""
    n = Net(rng)
    x = n.input([1, 6, 6, 8])
    a = n.conv(x, 16, k=1)
    n.output(n.softmax(n.tanh(a)))
    return n, "u65-256"


def add_chain(rng):
    """Ten one-element ADDs in a row, each adding the input to the one before:
    the per-operation overhead of a chain of small operations."""
    n = Net(rng)
    x = n.input([1, 1, 1, 1])
    y = x
    for _ in range(10):
        y = n.add(y, x)
    n.output(y)
    return n, "u65-256"


def two_inputs_two_outputs(rng):
    """Two inputs added, then convolved: the sum and the convolution are both outputs."""
    n = Net(rng)
    a = n.input([1, 8, 8, 8])
    b = n.input([1, 8, 8, 8], scale=0.03, zp=5)
    s = n.add(a, b)
    n.output(s)
    n.output(n.conv(s, 12, act="relu"))
    return n, "u65-256"


def mobilenet(rng):
    """MobileNetV2-sized feature maps (224x224 input, stride-2 steps down to 7x7)
    ending, as MobileNetV2 does, in a 1x1 convolution to 1280 channels and the
    MEAN over 7x7x1280 that Vela lowers to a 7x7 depthwise."""
    n = Net(rng)
    x = n.input([1, 224, 224, 3])
    y = n.conv(x, 16, stride=2, act="relu6")
    block = n.conv(n.depthwise(y, act="relu6"), 16, k=1)
    y = n.add(y, block)
    for cout in (24, 32, 64, 96):
        y = n.conv(n.depthwise(y, stride=2, act="relu6"), cout, k=1)
    y = n.conv(y, 1280, k=1, act="relu6")
    n.output(n.mean(y))
    return n, "u65-256"


def classifier(n, x, classes):
    """Average pooling over the whole feature map, FULLY_CONNECTED to `classes` and SOFTMAX; beta brings
    the logits' spread (40 steps) to 2, so the probabilities are neither one-hot nor flat."""
    _, h, w, _ = x[3]
    logits = n.fully_connected(n.pool(x, O.AVERAGE_POOL_2D, k=(h, w)), classes)
    return n.softmax(logits, beta=2 / (logits[1] * logits[4]))


def ds_cnn_kws(rng):
    """MLCommons Tiny's DS-CNN keyword spotter: a 10x4 stride-2 convolution of 49x10 MFCC features, four
    depthwise 3x3 + pointwise blocks, average pooling, 12 classes."""
    n = Net(rng)
    y = n.conv(n.input([1, 49, 10, 1]), 64, k=(10, 4), stride=2, act="relu")
    for _ in range(4):
        y = n.conv(n.depthwise(y, act="relu"), 64, k=1, act="relu")
    n.output(classifier(n, y, 12))
    return n, "u65-256"


def resnet8_cifar(rng):
    """MLCommons Tiny's ResNet-8 for 32x32 CIFAR images: three residual stacks (16, 32 and 64 channels,
    the last two stride 2 with a 1x1 stride-2 convolution on the shortcut), average pooling, 10 classes."""
    n = Net(rng)
    y = n.conv(n.input([1, 32, 32, 3]), 16, act="relu")
    for cout, stride in ((16, 1), (32, 2), (64, 2)):
        b = n.conv(n.conv(y, cout, stride=stride, act="relu"), cout)
        shortcut = y if stride == 1 else n.conv(y, cout, k=1, stride=stride)
        y = n.add(shortcut, b, act="relu")
    n.output(classifier(n, y, 10))
    return n, "u65-512"


def fc_autoencoder(rng):
    """MLCommons Tiny's anomaly-detection autoencoder: 640 inputs (five frames of 128 mel bands), four
    FULLY_CONNECTED 128 layers, a bottleneck of 8, four 128 layers and 640 outputs, ReLU on all but the last."""
    n = Net(rng)
    y = n.input([1, 640])
    for units in (128, 128, 128, 128, 8, 128, 128, 128, 128):
        y = n.fully_connected(y, units, act="relu")
    n.output(n.fully_connected(y, 640))
    return n, "u65-256"


def float_io(rng):
    """A float32 classifier as converters emit one by default: QUANTIZE in and DEQUANTIZE out, which Vela
    leaves on the CPU, around a convolution, depthwise, average pooling, FULLY_CONNECTED and SOFTMAX body."""
    n = Net(rng)
    y = n.conv(n.float_input([1, 16, 16, 3]), 8, stride=2, act="relu")
    y = n.depthwise(y, act="relu6")
    n.float_output(classifier(n, y, 5))
    return n, "u65-256"


def channel_gather(rng):
    """Two convolutions with a GATHER between them that reorders the channels: Vela leaves GATHER on the
    CPU, so the network is two ethos-u operators with a CPU operator between."""
    n = Net(rng)
    y = n.conv(n.input([1, 8, 8, 16]), 16, act="relu")
    y = n.gather(y, rng.permutation(16), axis=3)
    n.output(n.conv(y, 8, k=1))
    return n, "u65-512"


def lstm_int16(rng):
    """A keyword-spotting-sized LSTM: ten steps of 20 int16 features through a 32-cell int16 LSTM, every
    step's hidden state out (Vela unrolls it into ten steps of gates on the NPU)."""
    n = Net(rng)
    x = (n.m.tensor([1, 10, 20], np.int16, 2.0**-12, 0), 2.0**-12, 0, [1, 10, 20], 0.0)
    n.m.inputs.append(x[0])
    n.output(n.lstm16(x, 32))
    return n, "u65-256"


def cpu_parts(rng):
    """Host and NPU parts interleaved, several inputs and outputs and a tensor shared between them: a
    convolution whose output is both a network output (through average pooling on the NPU) and the input
    of a MEAN over depth on the CPU, a convolution of that mean, and a float32 FULLY_CONNECTED and SOFTMAX
    head on a second input, all on the CPU."""
    n = Net(rng)
    a = n.conv(n.input([1, 12, 12, 8]), 8, act="relu")
    n.output(n.pool(a, O.AVERAGE_POOL_2D, k=3))
    n.output(n.conv(n.mean_depth(a), 4))
    n.float_head([1, 24], 6)
    return n, "u65-256"


def transpose_conv_cpu(rng):
    """A stride-3 TRANSPOSE_CONV whose output shape is a network input, between two convolutions: Vela
    leaves it on the CPU, so the network is two ethos-u operators with it between."""
    n = Net(rng)
    y = n.conv(n.input([1, 6, 6, 8]), 8, act="relu")
    y = n.transpose_conv(y, 6)
    n.output(n.conv(y, 4, k=1))
    return n, "u65-512"


def mobilenet_v1_vww(rng):
    """MLCommons Tiny's visual wake words person detector: MobileNetV1 at width 0.25 on a 96x96 RGB
    image (a 3x3 stride-2 convolution to 8 channels, 13 depthwise-separable blocks, ReLU6 throughout),
    average pooling, 2 classes."""
    n = Net(rng)
    y = n.conv(n.input([1, 96, 96, 3]), 8, stride=2, act="relu6")
    blocks = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2)] + [(128, 1)] * 5 + [(256, 2), (256, 1)]
    for cout, stride in blocks:
        y = n.conv(n.depthwise(y, stride=stride, act="relu6"), cout, k=1, act="relu6")
    n.output(classifier(n, y, 2))
    return n, "u65-256"


NETWORKS = {"demo": demo, "residual_add": residual, "conv_dw_u65_512": u65_512, "tanh_softmax": softmax,
            "two_inputs_two_outputs": two_inputs_two_outputs, "mobilenet_v2_sized": mobilenet,
            "ds_cnn_kws": ds_cnn_kws, "resnet8_cifar": resnet8_cifar, "fc_autoencoder": fc_autoencoder,
            "mobilenet_v1_vww": mobilenet_v1_vww, "float_io": float_io, "channel_gather": channel_gather,
            "lstm_int16": lstm_int16, "add_chain": add_chain, "cpu_parts": cpu_parts,
            "transpose_conv_cpu": transpose_conv_cpu}
# The operators Vela leaves on the CPU in each network that has any (npu-sim runs them on the host).
ON_CPU = {"float_io": ["QUANTIZE", "DEQUANTIZE"], "channel_gather": ["GATHER"],
          "cpu_parts": ["FULLY_CONNECTED", "SOFTMAX", "MEAN"], "transpose_conv_cpu": ["TRANSPOSE_CONV"]}


OPERATOR_NAMES = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_")}


def network_input(rng, tensor):
    """Random int8 or int16 values, or for a float32 input normal values of spread 2 (about 40 steps of
    the QUANTIZE after it), some beyond its int8 range."""
    if tensor.type == S.TensorType.FLOAT32:
        return rng.normal(0, 2, tensor.shape).astype(np.float32)
    if tensor.type == S.TensorType.INT16:
        # Half the int16 range: +-4 at the LSTM's input scale 2^-12.
        return rng.integers(-16384, 16384, tensor.shape, dtype=np.int16)
    return rng.integers(-128, 128, tensor.shape, dtype=np.int8)


def tensor_files(kind, values):
    """`input.bin` for one tensor, `input0.bin`, `input1.bin`, ... for several."""
    if len(values) == 1:
        return {f"{kind}.bin": values[0]}
    return {f"{kind}{i}.bin": v for i, v in enumerate(values)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    ap.add_argument("--only", metavar="NAME[,NAME]", help="rewrite only these networks' folders")
    args = ap.parse_args()
    names = args.only.split(",") if args.only else list(NETWORKS)
    unknown = [name for name in names if name not in NETWORKS]
    if unknown:
        ap.error(f"unknown networks {unknown}; known: {', '.join(NETWORKS)}")
    if args.only is None:
        shutil.rmtree(OUT, ignore_errors=True)
    for name in names:
        shutil.rmtree(OUT / name, ignore_errors=True)
        rng = np.random.default_rng([args.seed, *name.encode()])
        net, config = NETWORKS[name](rng)
        xs = [net.fixed_inputs[t] if t in net.fixed_inputs else network_input(rng, net.m.tensors[t])
              for t in net.m.inputs]
        expected = micro_reference(net, xs)
        source = net.m.to_bytes()
        compiled = compile_bytes(source, config)
        c = S.ModelT.InitFromPackedBuf(compiled, 0)
        codes = [c.operatorCodes[op.opcodeIndex] for op in c.subgraphs[0].operators]
        on_cpu = [OPERATOR_NAMES[code.builtinCode] for code in codes if code.customCode != b"ethos-u"]
        if on_cpu != ON_CPU.get(name, []):
            raise RuntimeError(f"{name}: Vela left {on_cpu} on the CPU, expected {ON_CPU.get(name, [])}")
        d = OUT / name
        d.mkdir(parents=True)
        (d / "model.tflite").write_bytes(source)
        (d / "model_vela.tflite").write_bytes(compiled)
        for file, v in {**tensor_files("input", xs), **tensor_files("expected", expected)}.items():
            (d / file).write_bytes(v.tobytes())
        print(f"{name}: {config}, {len(net.m.ops)} operators, inputs {[list(x.shape) for x in xs]}, "
              f"outputs {[list(e.shape) for e in expected]}, {len(compiled)} bytes compiled")
        for i, e in enumerate(expected):
            v = e.astype(float)
            saturated = "" if e.dtype != np.int8 else f", {int(np.isin(e, (-128, 127)).sum())} of {v.size} at -128 or 127"
            print(f"  output {i} ({e.dtype}): values {v.min():g}..{v.max():g}, mean {v.mean():.3g}, "
                  f"std {v.std():.3g}{saturated}")

if __name__ == "__main__":
    main()
