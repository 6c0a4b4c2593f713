"""Independent reference: build a one-operator (or short chain) TFLite model
with the TFLite flatbuffer schema shipped by ai-edge-litert and run it with the
TensorFlow Lite Micro interpreter (tflite-micro: the reference kernels Ethos-U
deploys with), or where TFLite Micro has no kernel for the case (uint8
convolutions, say) with LiteRT's reference kernels (OpResolverType.BUILTIN_REF)."""

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as S
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from tflite_micro.python.tflite_micro import runtime

TYPES = {np.int8: S.TensorType.INT8, np.uint8: S.TensorType.UINT8, np.int16: S.TensorType.INT16,
         np.int32: S.TensorType.INT32, np.int64: S.TensorType.INT64, np.float32: S.TensorType.FLOAT32,
         np.bool_: S.TensorType.BOOL}
ACT = {None: S.ActivationFunctionType.NONE, "relu": S.ActivationFunctionType.RELU,
       "relu6": S.ActivationFunctionType.RELU6, "relu_n1_to_1": S.ActivationFunctionType.RELU_N1_TO_1}
PAD = {"SAME": S.Padding.SAME, "VALID": S.Padding.VALID}


class Model:
    """A single-subgraph TFLite model under construction."""

    def __init__(self):
        self.tensors, self.buffers, self.ops, self.codes = [], [S.BufferT()], [], []
        self.inputs, self.outputs = [], []

    def tensor(self, shape, dtype, scale, zero_point, data=None, axis=0):
        """A tensor; quantized unless `scale` is None (e.g. an int32 shape operand)."""
        t = S.TensorT()
        t.name = f"t{len(self.tensors)}".encode()
        t.shape = list(shape)
        t.type = TYPES[dtype]
        if scale is not None:
            q = S.QuantizationParametersT()
            q.scale = [float(s) for s in np.atleast_1d(scale)]
            q.zeroPoint = [int(z) for z in np.atleast_1d(zero_point)]
            q.quantizedDimension = axis
            t.quantization = q
        t.buffer = 0
        if data is not None:
            b = S.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data, dtype=dtype).tobytes(), dtype=np.uint8)
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        return len(self.tensors) - 1

    def op(self, code, inputs, outputs, options_type=S.BuiltinOptions.NONE, options=None, version=1):
        key = (code, version)
        if key not in self.codes:
            self.codes.append(key)
        o = S.OperatorT()
        o.opcodeIndex = self.codes.index(key)
        o.inputs, o.outputs = list(inputs), list(outputs)
        o.builtinOptionsType = options_type
        o.builtinOptions = options
        self.ops.append(o)

    def to_bytes(self):
        m = S.ModelT()
        m.version = 3
        m.description = b"npu fixture reference"
        m.buffers = self.buffers
        codes = []
        for code, version in self.codes:
            c = S.OperatorCodeT()
            c.builtinCode = code
            c.deprecatedBuiltinCode = min(code, 127)
            c.version = version
            codes.append(c)
        m.operatorCodes = codes
        sg = S.SubGraphT()
        sg.tensors, sg.operators = self.tensors, self.ops
        sg.inputs, sg.outputs = self.inputs, self.outputs
        m.subgraphs = [sg]
        b = flatbuffers.Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())

    def run_all(self, inputs, litert_because=None):
        """Runs the model on `inputs` (in model input order); returns {output tensor index: value} and sets
        `self.interpreter` to the interpreter's name: TFLite Micro, or LiteRT where TFLite Micro refuses the
        model (it has no kernel for the types) or for the reason `litert_because` gives (`self.why`)."""
        if litert_because is None:
            try:
                it = runtime.Interpreter.from_bytes(self.to_bytes(), arena_size=16 << 20)
                for i, value in enumerate(inputs):
                    it.set_input(value, i)
                it.invoke()
                self.interpreter, self.why = "TFLite Micro", None
                return {t: it.get_output(i) for i, t in enumerate(self.outputs)}
            except RuntimeError:
                litert_because = "no TFLite Micro kernel"
        it = Interpreter(model_content=self.to_bytes(), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        it.allocate_tensors()
        for detail, value in zip(it.get_input_details(), inputs):
            it.set_tensor(detail["index"], value)
        it.invoke()
        self.interpreter, self.why = "LiteRT", litert_because
        return {d["index"]: it.get_tensor(d["index"]) for d in it.get_output_details()}


def conv_options(stride, dilation, padding, act):
    o = S.Conv2DOptionsT()
    o.padding, o.strideH, o.strideW = PAD[padding], stride[0], stride[1]
    o.dilationHFactor, o.dilationWFactor = dilation
    o.fusedActivationFunction = ACT[act]
    return o


def depthwise_options(stride, dilation, padding, act):
    o = S.DepthwiseConv2DOptionsT()
    o.padding, o.strideH, o.strideW = PAD[padding], stride[0], stride[1]
    o.dilationHFactor, o.dilationWFactor = dilation
    o.depthMultiplier = 1
    o.fusedActivationFunction = ACT[act]
    return o


def pool_options(kernel, stride, padding, act):
    o = S.Pool2DOptionsT()
    o.padding, o.strideH, o.strideW = PAD[padding], stride[0], stride[1]
    o.filterHeight, o.filterWidth = kernel
    o.fusedActivationFunction = ACT[act]
    return o


def binary_options(kind, act):
    o = {"ADD": S.AddOptionsT, "SUB": S.SubOptionsT, "MUL": S.MulOptionsT}[kind]()
    o.fusedActivationFunction = ACT[act]
    return o


def transpose_conv_options(stride, padding, act):
    o = S.TransposeConvOptionsT()
    o.padding, o.strideH, o.strideW = PAD[padding], stride[0], stride[1]
    o.fusedActivationFunction = ACT[act]
    return o


def resize_nearest_options(align_corners, half_pixel_centers):
    o = S.ResizeNearestNeighborOptionsT()
    o.alignCorners, o.halfPixelCenters = align_corners, half_pixel_centers
    return o
