//! Convolutions, fully connected layers, matrix products and pooling, as
//! TensorFlow Lite Micro's reference kernels compute them (conv.cc,
//! depthwise_conv.cc, transpose_conv.cc, fully_connected.cc,
//! batch_matmul.cc, pooling.cc and reference/integer_ops/*.h).
//!
//! The product-summing operators share one kernel ([`mac`]): each gives
//! its loops, generic over the accumulator TFLite Micro uses for the
//! types (int32 for int8, int64 or int32 for int16 by the bias type,
//! float32), and one output stage adds the bias, scales each channel and
//! clamps. The convolutions and pools share one sliding window
//! ([`window`]).

mod mac;
mod matmul;
mod spatial;
mod window;

use super::arith::Activation;
// For `options!` in the submodules.
use super::fb;
use super::{Element, Kernel, OpDesc, Operand, Support};
use anyhow::{bail, ensure, Result};
use mac::Stage;
use std::sync::Arc;
use Element::{F32, I16, I32, I64, I8};

pub(super) const OPERATORS: &[Support] = &[
    Support::new("CONV_2D", &[I8, I16, F32]),
    Support::new("DEPTHWISE_CONV_2D", &[I8, I16, F32]),
    // Input 0 is the output's shape, which the kernel does not read.
    Support::keyed("TRANSPOSE_CONV", 2, &[I8, I16, F32]),
    Support::new("FULLY_CONNECTED", &[I8, I16, F32]),
    Support::new("BATCH_MATMUL", &[I8, I16, F32]),
    Support::new("AVERAGE_POOL_2D", &[I8, I16, F32]),
    Support::new("MAX_POOL_2D", &[I8, I16, F32]),
];

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    match op.name.as_str() {
        "CONV_2D" => spatial::conv(op),
        "DEPTHWISE_CONV_2D" => spatial::depthwise(op),
        "TRANSPOSE_CONV" => spatial::transpose_conv(op),
        "AVERAGE_POOL_2D" => spatial::pool(op, spatial::Pool::Average),
        "MAX_POOL_2D" => spatial::pool(op, spatial::Pool::Max),
        "FULLY_CONNECTED" => matmul::fully_connected(op),
        "BATCH_MATMUL" => matmul::batch_matmul(op),
        other => bail!("{other} is not a convolution, matrix product or pool"),
    }
}

/// Schema `TensorType` INT32, as options' `quantized_bias_type` gives it.
const TENSOR_TYPE_INT32: i8 = 2;

/// The dimensions of a rank-4 operand (NHWC, or a filter's OHWI), none
/// of them zero.
fn dims4(op: &OpDesc, what: &str, operand: &Operand) -> Result<[usize; 4]> {
    let Ok(dims) = <[usize; 4]>::try_from(operand.shape.as_slice()) else {
        bail!(
            "{what} {} of {} has shape {:?}; it must have rank 4",
            operand.name,
            op.name,
            operand.shape
        );
    };
    nonempty(op, what, operand)?;
    Ok(dims)
}

fn nonempty(op: &OpDesc, what: &str, operand: &Operand) -> Result<()> {
    ensure!(
        operand.elements() > 0,
        "{what} {} of {} has shape {:?}, with no elements",
        operand.name,
        op.name,
        operand.shape
    );
    Ok(())
}

/// Refuses `operand` unless it is one of `types`.
fn expect(op: &OpDesc, what: &str, operand: &Operand, types: &[Element]) -> Result<()> {
    if types.contains(&operand.element) {
        Ok(())
    } else {
        Err(op.unsupported(what, operand))
    }
}

/// How a 16-bit kernel sums (TFLite Micro's kernels differ): in 32 bits
/// for a bias of a `narrow` type, in 64 for a `wide` one, and without a
/// bias in 64 bits when `unbiased_wide`; whether it subtracts zero points.
struct Sixteen {
    narrow: &'static [Element],
    wide: &'static [Element],
    unbiased_wide: bool,
    zero_points: bool,
}

/// The operands of a convolution or fully connected layer.
struct Convolution<'a> {
    input: &'a Operand,
    filter: &'a Operand,
    bias: Option<&'a Operand>,
    output: &'a Operand,
}

impl<'a> Convolution<'a> {
    /// The operands of `op`: its inputs `input` and `filter`, the optional
    /// `bias`, and output 0.
    fn of(op: &'a OpDesc, input: usize, filter: usize, bias: usize) -> Result<Convolution<'a>> {
        Ok(Convolution {
            input: op.input(input)?,
            filter: op.input(filter)?,
            bias: op.optional_input(bias),
            output: op.output(0)?,
        })
    }

    /// The output stage TFLite Micro's kernel for these element types uses
    /// with `channels` output channels, and the zero point its integer
    /// kernel subtracts from the input. `multipliers` gives one multiplier
    /// and shift per channel.
    fn stage(
        &self,
        op: &OpDesc,
        activation: Activation,
        channels: usize,
        multipliers: impl FnOnce() -> Result<Vec<(i32, i32)>>,
        sixteen: Sixteen,
    ) -> Result<(Stage, i32)> {
        let Convolution {
            input,
            filter,
            bias,
            output,
        } = *self;
        if output.element != input.element {
            return Err(op.unsupported("output", output));
        }
        if let Some(bias) = bias {
            ensure!(
                bias.elements() == channels,
                "bias {} of {} has {} elements for {channels} output channels",
                bias.name,
                op.name,
                bias.elements()
            );
        }
        let expect_bias = |types: &[Element]| bias.map_or(Ok(()), |b| expect(op, "bias", b, types));
        match input.element {
            F32 => {
                expect(op, "filter", filter, &[F32])?;
                expect_bias(&[F32])?;
                Ok((Stage::Float(activation.float_range()), 0))
            }
            I8 => {
                expect(op, "filter", filter, &[I8])?;
                expect_bias(&[I32])?;
                let stage = Stage::quantized(
                    multipliers()?,
                    output.zero_point(),
                    activation.quantized_range(output)?,
                    I8,
                    false,
                )?;
                Ok((stage, input.zero_point()))
            }
            I16 => {
                expect(op, "filter", filter, &[I8])?;
                let wide = match bias {
                    None => sixteen.unbiased_wide,
                    Some(b) if sixteen.narrow.contains(&b.element) => false,
                    Some(b) if sixteen.wide.contains(&b.element) => true,
                    Some(b) => return Err(op.unsupported("bias", b)),
                };
                let zero_point = |t: &Operand| {
                    if sixteen.zero_points {
                        t.zero_point()
                    } else {
                        0
                    }
                };
                let stage = Stage::quantized(
                    multipliers()?,
                    zero_point(output),
                    activation.quantized_range(output)?,
                    I16,
                    wide,
                )?;
                Ok((stage, zero_point(input)))
            }
            _ => Err(op.unsupported("input", input)),
        }
    }
}

/// The constant or computed 16-bit bias types with which CONV_2D and
/// FULLY_CONNECTED sum in 32 bits (INT32) or 64 (INT64); without a bias
/// the options' `quantized_bias_type` decides.
fn conv_sixteen(quantized_bias_type: i8, zero_points: bool) -> Sixteen {
    Sixteen {
        narrow: &[I32],
        wide: &[I64],
        unbiased_wide: quantized_bias_type != TENSOR_TYPE_INT32,
        zero_points,
    }
}

#[cfg(test)]
mod tests {
    use super::fb::{self, BuiltinOptions};
    use super::*;

    fn operand(name: &str, shape: &[usize], element: Element, scale: Option<f32>) -> Operand {
        Operand {
            index: 0,
            name: name.into(),
            shape: shape.to_vec(),
            element,
            scales: scale.into_iter().collect(),
            zero_points: scale.map(|_| 0).into_iter().collect(),
            quantized_dimension: 0,
            constant: None,
            variable: false,
        }
    }

    fn refusal(
        name: &str,
        inputs: Vec<Operand>,
        output: Operand,
        options: BuiltinOptions,
    ) -> String {
        let op = OpDesc {
            index: 0,
            name: name.into(),
            version: 1,
            inputs: inputs.into_iter().map(Some).collect(),
            outputs: vec![output],
            intermediates: vec![],
            options: Some(options),
        };
        format!("{:#}", build(&op).expect_err("refused"))
    }

    fn conv_options(stride: i32) -> BuiltinOptions {
        BuiltinOptions::Conv2DOptions(Box::new(fb::Conv2DOptions {
            stride_w: stride,
            stride_h: stride,
            ..Default::default()
        }))
    }

    #[test]
    fn refuses_what_tflite_micro_does_not_compute() {
        let image = |element, scale| operand("x", &[1, 4, 4, 2], element, scale);
        let filter = operand("w", &[2, 3, 3, 2], F32, None);
        // SAME, stride 1 makes 4x4, not 3x3.
        let small = operand("y", &[1, 3, 3, 2], F32, None);
        let error = refusal(
            "CONV_2D",
            vec![image(F32, None), filter.clone()],
            small,
            conv_options(1),
        );
        assert!(
            error.contains("3x3") && error.contains("give 4x4"),
            "{error}"
        );
        let error = refusal(
            "CONV_2D",
            vec![image(F32, None), filter],
            image(F32, None),
            conv_options(0),
        );
        assert!(error.contains("stride 0x0"), "{error}");
        // The 16-bit depthwise kernel reads its bias as int64.
        let depthwise =
            BuiltinOptions::DepthwiseConv2DOptions(Box::new(fb::DepthwiseConv2DOptions {
                stride_w: 1,
                stride_h: 1,
                depth_multiplier: 1,
                ..Default::default()
            }));
        let inputs = vec![
            image(I16, Some(0.01)),
            operand("w", &[1, 3, 3, 2], I8, Some(0.01)),
            operand("b", &[2], I32, Some(1e-4)),
        ];
        let error = refusal(
            "DEPTHWISE_CONV_2D",
            inputs,
            image(I16, Some(0.01)),
            depthwise,
        );
        assert!(error.contains("bias b is INT32"), "{error}");
        // An effective scale of 2^40 is beyond the int32 scaling's shift.
        let inputs = vec![
            image(I8, Some(1.0)),
            operand("w", &[2, 3, 3, 2], I8, Some(1.0)),
        ];
        let tiny = image(I8, Some(2f32.powi(-40)));
        let error = refusal("CONV_2D", inputs, tiny, conv_options(1));
        assert!(error.contains("2^41"), "{error}");
        // Pools keep the input's quantisation.
        let pool = BuiltinOptions::Pool2DOptions(Box::new(fb::Pool2DOptions {
            stride_w: 1,
            stride_h: 1,
            filter_width: 2,
            filter_height: 2,
            ..Default::default()
        }));
        let error = refusal(
            "MAX_POOL_2D",
            vec![image(I8, Some(0.5))],
            image(I8, Some(0.25)),
            pool,
        );
        assert!(error.contains("must match"), "{error}");
    }

    #[test]
    fn refuses_batches_that_do_not_broadcast() {
        let options = BuiltinOptions::BatchMatMulOptions(Box::default());
        let inputs = vec![
            operand("a", &[2, 3, 4], F32, None),
            operand("b", &[3, 4, 5], F32, None),
        ];
        let error = refusal(
            "BATCH_MATMUL",
            inputs,
            operand("y", &[3, 3, 5], F32, None),
            options,
        );
        assert!(error.contains("[2] and [3] do not broadcast"), "{error}");
    }
}
