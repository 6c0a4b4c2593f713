//! UNIDIRECTIONAL_SEQUENCE_LSTM as TensorFlow Lite Micro's `EvalLstm`
//! (lstm_eval.h, lstm_eval_common.cc) computes it: four full gates, no
//! peephole, projection or layer normalisation, the cell activation tanh.
//! Float32 runs in single precision; int8 and int16 activations with int8
//! weights compute every gate in int16 (Q3.12 into the sigmoid and tanh,
//! Q0.15 out) with a power-of-two int16 cell state.

use super::super::arith::{
    multiply_by_quantized_multiplier as mbqm, multiply_by_quantized_multiplier_64 as mbqm64,
    quantize_multiplier,
};
use super::super::elementwise::{
    checked_log2, logistic_f32, logistic_int16, tanh_int16, SigmoidInput,
};
use super::super::{f32s, kernel, put_f32s, Element, Kernel, OpDesc, Operand};
use super::{expect_shape, state_input};
use anyhow::{ensure, Result};
use std::sync::Arc;
use Element::{F32, I16, I32, I64, I8};

pub(super) const TYPES: &[Element] = &[F32, I8, I16];

const INPUT: usize = 0;
/// The input and recurrent weights and the bias of the input, forget, cell
/// and output gates, in that order.
const INPUT_WEIGHTS: usize = 1;
const RECURRENT_WEIGHTS: usize = 5;
const BIAS: usize = 12;
const HIDDEN: usize = 18;
const CELL: usize = 19;
/// Peephole weights, projection and layer-norm coefficients, which TFLite
/// Micro's kernel does not take.
const ABSENT: [usize; 9] = [9, 10, 11, 16, 17, 20, 21, 22, 23];
const GATE_INPUT: usize = 0;
const GATE_FORGET: usize = 1;
const GATE_CELL: usize = 2;
const GATE_OUTPUT: usize = 3;

#[derive(Debug, Clone, Copy)]
struct Dims {
    batch: usize,
    time: usize,
    inputs: usize,
    units: usize,
    time_major: bool,
}

impl Dims {
    /// The offsets of step `t` of batch `b` in the input and the output.
    fn offsets(&self, b: usize, t: usize) -> (usize, usize) {
        let row = if self.time_major {
            t * self.batch + b
        } else {
            b * self.time + t
        };
        (row * self.inputs, row * self.units)
    }
}

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    ensure!(
        op.inputs.len() == 24 && op.outputs.len() == 1,
        "UNIDIRECTIONAL_SEQUENCE_LSTM has {} inputs and {} outputs; TFLite Micro takes 24 and 1",
        op.inputs.len(),
        op.outputs.len()
    );
    for i in ABSENT {
        ensure!(
            op.optional_input(i).is_none(),
            "UNIDIRECTIONAL_SEQUENCE_LSTM input {i} (peephole, projection or layer norm) is \
             given; TFLite Micro's kernel takes none"
        );
    }
    let options = options!(op, UnidirectionalSequenceLstmOptions);
    // schema.fbs ActivationFunctionType TANH: lstm_eval.h takes no other.
    ensure!(
        options.fused_activation_function == 4,
        "UNIDIRECTIONAL_SEQUENCE_LSTM cell activation {} is not TANH, the only one TFLite \
         Micro's kernel takes",
        options.fused_activation_function
    );
    let input = op.input(INPUT)?;
    ensure!(
        input.shape.len() == 3,
        "UNIDIRECTIONAL_SEQUENCE_LSTM input {} has shape {:?}, not rank 3",
        input.name,
        input.shape
    );
    let hidden = state_input(op, HIDDEN, "output state")?;
    let cell = state_input(op, CELL, "cell state")?;
    let output = op.output(0)?;
    let units = op
        .input(INPUT_WEIGHTS + GATE_FORGET)?
        .shape
        .first()
        .copied()
        .unwrap_or(0);
    let (d0, d1) = (input.shape[0], input.shape[1]);
    let d = Dims {
        batch: if options.time_major { d1 } else { d0 },
        time: if options.time_major { d0 } else { d1 },
        inputs: input.shape[2],
        units,
        time_major: options.time_major,
    };
    for g in 0..4 {
        let (w, r, b) = (
            op.input(INPUT_WEIGHTS + g)?,
            op.input(RECURRENT_WEIGHTS + g)?,
            op.input(BIAS + g)?,
        );
        expect_shape("input weights", w, &[d.units, d.inputs])?;
        expect_shape("recurrent weights", r, &[d.units, d.units])?;
        expect_shape("gate bias", b, &[d.units])?;
        for t in [w, r, b] {
            ensure!(
                t.constant.is_some(),
                "LSTM weights {} are computed at run time; the host takes constant weights",
                t.name
            );
        }
    }
    for t in [&hidden, &cell] {
        ensure!(
            t.elements() == d.batch * d.units,
            "{} has {} elements; batch {} times {} units needs {}",
            t.name,
            t.elements(),
            d.batch,
            d.units,
            d.batch * d.units
        );
    }
    expect_shape("output", output, &[d0, d1, d.units])?;
    for t in [&hidden, output] {
        if t.element != input.element {
            return Err(op.unsupported("tensor", t));
        }
    }
    match input.element {
        F32 => float(op, d, options.cell_clip),
        I8 | I16 => integer(op, d, options.cell_clip),
        _ => Err(op.unsupported("input", input)),
    }
}

/// The constant float32 values of input `i`.
fn constant_f32s(op: &OpDesc, i: usize) -> Vec<f32> {
    f32s(
        op.inputs[i]
            .as_ref()
            .and_then(|t| t.constant.as_deref())
            .unwrap_or_default(),
    )
}

/// `ActivationFunctionWithMinMax` over the float range, as the fully
/// connected and mul kernels apply it: infinities become the finite ends.
fn float_range(x: f32) -> f32 {
    let low = if x < f32::MIN { f32::MIN } else { x };
    if f32::MAX < low {
        f32::MAX
    } else {
        low
    }
}

fn float(op: &OpDesc, d: Dims, cell_clip: f32) -> Result<Arc<dyn Kernel>> {
    for i in (INPUT_WEIGHTS..RECURRENT_WEIGHTS + 4)
        .chain(BIAS..BIAS + 4)
        .chain([CELL])
    {
        let t = op.input(i)?;
        if t.element != F32 {
            return Err(op.unsupported("tensor", t));
        }
    }
    let weights: Vec<[Vec<f32>; 3]> = (0..4)
        .map(|g| {
            [
                constant_f32s(op, INPUT_WEIGHTS + g),
                constant_f32s(op, RECURRENT_WEIGHTS + g),
                constant_f32s(op, BIAS + g),
            ]
        })
        .collect();
    let dot = |w: &[f32], x: &[f32]| w.iter().zip(x).fold(0.0f32, |a, (w, x)| a + w * x);
    Ok(kernel("UNIDIRECTIONAL_SEQUENCE_LSTM", move |io| {
        let x = f32s(io.input(INPUT));
        let mut hidden = f32s(io.state(HIDDEN));
        let mut cell = f32s(io.state(CELL));
        let mut out = vec![0.0f32; io.output(0).len() / 4];
        let mut gates = vec![[0.0f32; 4]; d.units];
        for b in 0..d.batch {
            for t in 0..d.time {
                let (in_at, out_at) = d.offsets(b, t);
                let x_t = &x[in_at..in_at + d.inputs];
                let h = &mut hidden[b * d.units..(b + 1) * d.units];
                let c = &mut cell[b * d.units..(b + 1) * d.units];
                for (g, [w, r, bias]) in weights.iter().enumerate() {
                    for (u, gate) in gates.iter_mut().enumerate() {
                        let rows = u * d.inputs..(u + 1) * d.inputs;
                        let from_input = float_range(dot(&w[rows], x_t) + bias[u]);
                        let recurrent = &r[u * d.units..(u + 1) * d.units];
                        let from_hidden = float_range(dot(recurrent, h) + 0.0);
                        let sum = from_input + from_hidden;
                        gate[g] = if g == GATE_CELL {
                            sum.tanh()
                        } else {
                            logistic_f32(sum)
                        };
                    }
                }
                for (u, gate) in gates.iter().enumerate() {
                    let kept = float_range(gate[GATE_FORGET] * c[u]);
                    let added = float_range(gate[GATE_INPUT] * gate[GATE_CELL]);
                    let mut v = kept + added;
                    if cell_clip > 0.0 {
                        v = clip(v, cell_clip);
                    }
                    c[u] = v;
                }
                for (u, gate) in gates.iter().enumerate() {
                    h[u] = float_range(c[u].tanh() * gate[GATE_OUTPUT]);
                }
                out[out_at..out_at + d.units].copy_from_slice(h);
            }
        }
        put_f32s(hidden, io.state(HIDDEN));
        put_f32s(cell, io.state(CELL));
        put_f32s(out, io.output(0));
        Ok(())
    }))
}

/// `std::max(std::min(clip, v), -clip)` (lstm_eval.cc `Clipping`).
fn clip(v: f32, clip: f32) -> f32 {
    let upper = if v < clip { v } else { clip };
    if upper < -clip {
        -clip
    } else {
        upper
    }
}

/// One gate's two fully connected layers in integers
/// (reference_integer_ops::FullyConnected onto the 2^-12 int16 scale).
struct IntegerGate {
    input_weights: Vec<i32>,
    recurrent_weights: Vec<i32>,
    bias: Vec<i64>,
    input_multiplier: (i32, i32),
    recurrent_multiplier: (i32, i32),
}

/// The multiplier of a fully connected layer from `input` through
/// `weights` onto the gates' Q3.12 scale (`GetQuantizedConvolutionMultipler`:
/// the scales' product in double).
fn gate_multiplier(input: &Operand, weights: &Operand) -> Result<(i32, i32)> {
    ensure!(
        weights.zero_point() == 0,
        "LSTM weights {} have zero point {}; TFLite Micro takes symmetric weights",
        weights.name,
        weights.zero_point()
    );
    let real =
        f64::from(input.scale()?) * f64::from(weights.scale()?) / f64::from(GATE_INPUT_SCALE);
    Ok(quantize_multiplier(real))
}

/// The gates' input scale (Q3.12) and output scale (Q0.15).
const GATE_INPUT_SCALE: f32 = 1.0 / 4096.0;
const GATE_OUTPUT_SCALE: f32 = 1.0 / 32768.0;

fn integer(op: &OpDesc, d: Dims, cell_clip: f32) -> Result<Arc<dyn Kernel>> {
    let input = op.input(INPUT)?.clone();
    let hidden = op.input(HIDDEN)?.clone();
    let cell = op.input(CELL)?.clone();
    let activation = input.element;
    let bias_element = if activation == I8 { I32 } else { I64 };
    if cell.element != I16 {
        return Err(op.unsupported("cell state", &cell));
    }
    let gates = (0..4)
        .map(|g| {
            let (w, r, b) = (
                op.input(INPUT_WEIGHTS + g)?,
                op.input(RECURRENT_WEIGHTS + g)?,
                op.input(BIAS + g)?,
            );
            for t in [w, r] {
                if t.element != I8 {
                    return Err(op.unsupported("weights", t));
                }
            }
            if b.element != bias_element {
                return Err(op.unsupported("gate bias", b));
            }
            let ints = |t: &Operand| -> Result<Vec<i32>> {
                Ok(t.constant_ints()?.into_iter().map(|v| v as i32).collect())
            };
            Ok(IntegerGate {
                input_weights: ints(w)?,
                recurrent_weights: ints(r)?,
                bias: b.constant_ints()?,
                input_multiplier: gate_multiplier(&input, w)?,
                recurrent_multiplier: gate_multiplier(&hidden, r)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let cell_scale = cell.scale()?;
    let (cell_power, _) = checked_log2(cell_scale);
    // CreateLstmCellStateInfo: the clip on the cell's scale, in double.
    let quantized_clip =
        (f64::from(cell_clip) / f64::from(cell_scale)).clamp(-32768.0, 32767.0) as i16;
    // CreateInterGateMulParams: the products' scales in double.
    let mul = |a: f32, b: f32, out: f32| {
        quantize_multiplier(f64::from(a) * f64::from(b) / f64::from(out))
    };
    let forget_mul = mul(GATE_OUTPUT_SCALE, cell_scale, cell_scale);
    let input_mul = mul(GATE_OUTPUT_SCALE, GATE_OUTPUT_SCALE, cell_scale);
    let hidden_mul = mul(GATE_OUTPUT_SCALE, GATE_OUTPUT_SCALE, hidden.scale()?);
    let (zp_in, zp_hidden) = (input.zero_point(), hidden.zero_point());
    let (hidden_min, hidden_max) = (activation.min() as i32, activation.max() as i32);
    // lstm_eval.cc Tanh: the cell's power of two onto the table's Q3.12
    // input (the gates' tanh has power -12: shift 0).
    let tanh_shift = 15 + cell_power - 3;
    let cell_tanh = if tanh_shift < 0 {
        SigmoidInput::new(3, -tanh_shift)
    } else {
        SigmoidInput::new(0, tanh_shift)
    };
    let gate_function = SigmoidInput::new(0, 0);
    // The fully connected accumulator: int32 for int8 activations, int64
    // (with the 64-bit rescale) for int16.
    let rescale = move |acc: i64, (m, s): (i32, i32)| -> i32 {
        if activation == I8 {
            mbqm(acc as i32, m, s)
        } else {
            mbqm64(acc, m, s)
        }
    };
    let to_int16 = |v: i32| v.clamp(i16::MIN.into(), i16::MAX.into());
    Ok(kernel("UNIDIRECTIONAL_SEQUENCE_LSTM", move |io| {
        let ints = |e: Element, b: &[u8]| -> Vec<i32> {
            e.ints(b).into_iter().map(|v| v as i32).collect()
        };
        let x = ints(activation, io.input(INPUT));
        let mut h_all = ints(activation, io.state(HIDDEN));
        let mut c_all = ints(I16, io.state(CELL));
        let mut out = vec![0i32; x.len() / d.inputs * d.units];
        let mut gate_values = vec![[0i32; 4]; d.units];
        for b in 0..d.batch {
            for t in 0..d.time {
                let (in_at, out_at) = d.offsets(b, t);
                let x_t = &x[in_at..in_at + d.inputs];
                let h = &mut h_all[b * d.units..(b + 1) * d.units];
                let c = &mut c_all[b * d.units..(b + 1) * d.units];
                for (g, gate) in gates.iter().enumerate() {
                    for (u, value) in gate_values.iter_mut().enumerate() {
                        let w = &gate.input_weights[u * d.inputs..(u + 1) * d.inputs];
                        let acc = w
                            .iter()
                            .zip(x_t)
                            .fold(0i64, |a, (&w, &x)| a + i64::from(w * (x - zp_in)))
                            + gate.bias[u];
                        let from_input = to_int16(rescale(acc, gate.input_multiplier));
                        let r = &gate.recurrent_weights[u * d.units..(u + 1) * d.units];
                        let acc = r
                            .iter()
                            .zip(h.iter())
                            .fold(0i64, |a, (&w, &h)| a + i64::from(w * (h - zp_hidden)));
                        let from_hidden = to_int16(rescale(acc, gate.recurrent_multiplier));
                        let sum = to_int16(from_input + from_hidden) as i16;
                        value[g] = i32::from(if g == GATE_CELL {
                            tanh_int16(sum, gate_function)
                        } else {
                            logistic_int16(sum, gate_function)
                        });
                    }
                }
                for (u, gate) in gate_values.iter().enumerate() {
                    let kept = to_int16(mbqm(gate[GATE_FORGET] * c[u], forget_mul.0, forget_mul.1));
                    let added = to_int16(mbqm(
                        gate[GATE_INPUT] * gate[GATE_CELL],
                        input_mul.0,
                        input_mul.1,
                    ));
                    let mut v = to_int16(kept + added) as i16;
                    if cell_clip > 0.0 {
                        v = v.min(quantized_clip).max(quantized_clip.wrapping_neg());
                    }
                    c[u] = v.into();
                }
                for (u, gate) in gate_values.iter().enumerate() {
                    let activated = i32::from(tanh_int16(c[u] as i16, cell_tanh));
                    let product = mbqm(activated * gate[GATE_OUTPUT], hidden_mul.0, hidden_mul.1);
                    h[u] = zp_hidden
                        .wrapping_add(product)
                        .clamp(hidden_min, hidden_max);
                }
                out[out_at..out_at + d.units].copy_from_slice(h);
            }
        }
        activation.put_ints(h_all.into_iter().map(i64::from), io.state(HIDDEN));
        I16.put_ints(c_all.into_iter().map(i64::from), io.state(CELL));
        activation.put_ints(out.into_iter().map(i64::from), io.output(0));
        Ok(())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_as_the_cpp_writes_it() {
        assert_eq!(clip(5.0, 3.0), 3.0);
        assert_eq!(clip(-5.0, 3.0), -3.0);
        assert!(clip(f32::NAN, 3.0) == 3.0);
        assert_eq!(float_range(f32::INFINITY), f32::MAX);
        assert!(float_range(f32::NAN).is_nan());
    }

    #[test]
    fn steps_walk_time_or_batch_major() {
        let d = Dims {
            batch: 2,
            time: 3,
            inputs: 4,
            units: 5,
            time_major: true,
        };
        assert_eq!(d.offsets(1, 2), ((2 * 2 + 1) * 4, (2 * 2 + 1) * 5));
        let d = Dims {
            time_major: false,
            ..d
        };
        assert_eq!(d.offsets(1, 2), ((3 + 2) * 4, (3 + 2) * 5));
    }
}
