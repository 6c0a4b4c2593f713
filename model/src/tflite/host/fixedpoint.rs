//! gemmlowp's fixed-point arithmetic (fixedpoint.h), as TensorFlow Lite's reference kernels use it.
