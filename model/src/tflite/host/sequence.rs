//! Sequence operators with state: SVDF and the unidirectional sequence
//! LSTM, as TensorFlow Lite Micro's reference kernels compute them
//! (svdf_common.cc, lstm_eval.cc). Their state lives in variable tensors,
//! which the kernels update in place, so that each invocation continues
//! from where the one before it stopped.

use super::arith::{multiply_by_quantized_multiplier as mbqm, quantize_multiplier, Activation};
use super::{f32s, fb, kernel, put_f32s, Element, Kernel, OpDesc, Operand, Support};
use anyhow::{bail, ensure, Result};
use std::sync::Arc;
use Element::{F32, I16, I8};

mod lstm;

pub(super) const OPERATORS: &[Support] = &[
    Support::new("SVDF", &[F32, I8]),
    Support::new("UNIDIRECTIONAL_SEQUENCE_LSTM", lstm::TYPES),
];

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    match op.name.as_str() {
        "SVDF" => svdf(op),
        "UNIDIRECTIONAL_SEQUENCE_LSTM" => lstm::build(op),
        other => bail!("{other} is not a sequence operator"),
    }
}

/// A fused activation on float32 as TFLite Micro's `ActivationValFloat`
/// applies it: the clamps written with C's `a > b ? a : b`, and tanh.
#[derive(Debug, Clone, Copy)]
enum FloatActivation {
    Clamp(Activation),
    Tanh,
}

impl FloatActivation {
    fn of(op: &OpDesc, code: i8) -> Result<FloatActivation> {
        // schema.fbs ActivationFunctionType TANH.
        const TANH: i8 = 4;
        Ok(if code == TANH {
            FloatActivation::Tanh
        } else {
            FloatActivation::Clamp(Activation::of(op, code)?)
        })
    }

    fn apply(self, a: f32) -> f32 {
        let max = |a: f32, b: f32| if a > b { a } else { b };
        let min = |a: f32, b: f32| if a < b { a } else { b };
        match self {
            FloatActivation::Clamp(Activation::None) => a,
            FloatActivation::Clamp(Activation::Relu) => max(0.0, a),
            FloatActivation::Clamp(Activation::ReluN1To1) => max(-1.0, min(a, 1.0)),
            FloatActivation::Clamp(Activation::Relu6) => max(0.0, min(a, 6.0)),
            FloatActivation::Tanh => a.tanh(),
        }
    }
}

/// Checks that `t` has the shape `want`, naming it as `what`.
fn expect_shape(what: &str, t: &Operand, want: &[usize]) -> Result<()> {
    ensure!(
        t.shape == want,
        "{what} {} has shape {:?}; the operator's other tensors make it {want:?}",
        t.name,
        t.shape
    );
    Ok(())
}

/// The variable input `i` of `op`, which must be one.
fn state_input(op: &OpDesc, i: usize, what: &str) -> Result<Operand> {
    let t = op.input(i)?;
    ensure!(
        t.variable && t.constant.is_none(),
        "{what} {} (input {i}) is not a variable tensor; TFLite Micro needs one",
        t.name
    );
    Ok(t.clone())
}

/// SVDF's sizes (svdf_common.cc PrepareSvdf).
#[derive(Debug, Clone, Copy)]
struct SvdfDims {
    batch: usize,
    inputs: usize,
    filters: usize,
    rank: usize,
    units: usize,
    memory: usize,
}

/// SVDF: a feature matrix product of the input into the newest column of
/// the state (each filter's `memory` last activations, shifted one left
/// first), a time product of each filter's row with its weights, and the
/// sum of each unit's `rank` filters plus the bias.
fn svdf(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    ensure!(
        op.inputs.len() == 5 && op.outputs.len() == 1,
        "SVDF has {} inputs and {} outputs; it takes 5 and 1",
        op.inputs.len(),
        op.outputs.len()
    );
    let options = options!(op, SvdfOptions);
    let (input, feature, time) = (op.input(0)?, op.input(1)?, op.input(2)?);
    // svdf_common.cc Prepare reads the bias's scale and releases it without
    // checking that it is given.
    let Some(bias) = op.optional_input(3) else {
        bail!("SVDF has no bias; TFLite Micro's SVDF fails without one");
    };
    let state = state_input(op, 4, "activation state")?;
    let output = op.output(0)?;
    ensure!(
        input.shape.len() == 2 && feature.shape.len() == 2 && time.shape.len() == 2,
        "SVDF input {:?}, feature weights {:?} and time weights {:?} must be rank 2",
        input.shape,
        feature.shape,
        time.shape
    );
    ensure!(
        options.rank > 0 && feature.shape[0] % options.rank as usize == 0,
        "SVDF rank {} does not divide the {} filters",
        options.rank,
        feature.shape[0]
    );
    for t in [feature, time, bias] {
        ensure!(
            t.constant.is_some(),
            "SVDF weights {} are computed at run time; the host takes constant weights",
            t.name
        );
    }
    let d = SvdfDims {
        batch: input.shape[0],
        inputs: input.shape[1],
        filters: feature.shape[0],
        rank: options.rank as usize,
        units: feature.shape[0] / options.rank as usize,
        memory: time.shape[1],
    };
    expect_shape("feature weights", feature, &[d.filters, d.inputs])?;
    expect_shape("time weights", time, &[d.filters, d.memory])?;
    expect_shape("bias", bias, &[d.units])?;
    expect_shape("activation state", &state, &[d.batch, d.memory * d.filters])?;
    expect_shape("output", output, &[d.batch, d.units])?;
    match input.element {
        F32 => {
            for t in [feature, time, bias, &state, output] {
                if t.element != F32 {
                    return Err(op.unsupported("tensor", t));
                }
            }
            svdf_float(op, options.fused_activation_function, d)
        }
        I8 => svdf_integer(op, d),
        _ => Err(op.unsupported("input", input)),
    }
}

/// Float32 SVDF (`EvalFloatSvdfReference`): sums in single precision in
/// the kernel's order.
fn svdf_float(op: &OpDesc, activation: i8, d: SvdfDims) -> Result<Arc<dyn Kernel>> {
    let activation = FloatActivation::of(op, activation)?;
    let constant = |i: usize| {
        f32s(
            op.inputs[i]
                .as_ref()
                .and_then(|t| t.constant.as_deref())
                .unwrap_or_default(),
        )
    };
    let (feature, time, bias) = (constant(1), constant(2), constant(3));
    Ok(kernel("SVDF", move |io| {
        let input = f32s(io.input(0));
        let mut state = f32s(io.state(4));
        state.copy_within(1.., 0);
        for (b, x) in input.chunks_exact(d.inputs).enumerate() {
            for (f, w) in feature.chunks_exact(d.inputs).enumerate() {
                let dot = w.iter().zip(x).fold(0.0f32, |acc, (w, x)| acc + w * x);
                state[(b * d.filters + f) * d.memory + d.memory - 1] = dot;
            }
        }
        let mut output = Vec::with_capacity(d.batch * d.units);
        for memory in state.chunks_exact(d.filters * d.memory) {
            let filtered: Vec<f32> = memory
                .chunks_exact(d.memory)
                .zip(time.chunks_exact(d.memory))
                .map(|(s, w)| w.iter().zip(s).fold(0.0f32, |acc, (w, s)| acc + w * s))
                .collect();
            for (unit, ranks) in filtered.chunks_exact(d.rank).enumerate() {
                let sum = ranks.iter().fold(bias[unit], |acc, v| acc + v);
                output.push(activation.apply(sum));
            }
        }
        put_f32s(state, io.state(4));
        put_f32s(output, io.output(0));
        Ok(())
    }))
}

/// Int8 SVDF with int8 or int16 state and time weights
/// (`EvalIntegerSvdfReference`): int32 dot products, the feature result
/// requantised onto the state's scale, the sum onto the output's. TFLite
/// Micro applies no fused activation here.
fn svdf_integer(op: &OpDesc, d: SvdfDims) -> Result<Arc<dyn Kernel>> {
    let (input, feature, time, bias) = (op.input(0)?, op.input(1)?, op.input(2)?, op.input(3)?);
    let state = op.input(4)?;
    let output = op.output(0)?;
    let state_element = time.element;
    if feature.element != I8 {
        return Err(op.unsupported("feature weights", feature));
    }
    if !matches!(state_element, I8 | I16) {
        return Err(op.unsupported("time weights", time));
    }
    // The kernel reads the state as the time weights' type.
    if state.element != state_element {
        return Err(op.unsupported("activation state", state));
    }
    if bias.element != Element::I32 {
        return Err(op.unsupported("bias", bias));
    }
    if output.element != I8 {
        return Err(op.unsupported("output", output));
    }
    let scale = |t: &Operand| t.scale();
    let (s_in, s_feature, s_state, s_time, s_out) = (
        scale(input)?,
        scale(feature)?,
        scale(state)?,
        scale(time)?,
        scale(output)?,
    );
    let s_bias = scale(bias)?;
    ensure!(
        (f64::from(s_bias) - f64::from(s_state * s_time)).abs() < 1e-5,
        "SVDF bias scale {s_bias} is not the state's times the time weights' ({})",
        s_state * s_time
    );
    // The ratios are taken in single precision, as PrepareSvdf does.
    let (m1, shift1) = quantize_multiplier(f64::from(s_in * s_feature / s_state));
    let (m2, shift2) = quantize_multiplier(f64::from(s_state * s_time / s_out));
    let (zp_in, zp_state, zp_out) = (input.zero_point(), state.zero_point(), output.zero_point());
    let ints = |t: &Operand| -> Vec<i32> {
        t.constant_ints()
            .unwrap_or_default()
            .into_iter()
            .map(|v| v as i32)
            .collect()
    };
    let (feature, time, bias) = (ints(feature), ints(time), ints(bias));
    let (state_min, state_max) = (state_element.min() as i32, state_element.max() as i32);
    // The state's type, wrapping as the C++ store into it does.
    let wrap = move |v: i32| match state_element {
        I8 => i32::from(v as i8),
        _ => i32::from(v as i16),
    };
    Ok(kernel("SVDF", move |io| {
        let input: Vec<i32> = io.input(0).iter().map(|&b| i32::from(b as i8)).collect();
        let bytes = io.state(4);
        let mut state: Vec<i32> = state_element
            .ints(bytes)
            .into_iter()
            .map(|v| v as i32)
            .collect();
        state.copy_within(1.., 0);
        for (b, x) in input.chunks_exact(d.inputs).enumerate() {
            for (f, w) in feature.chunks_exact(d.inputs).enumerate() {
                let dot = w
                    .iter()
                    .zip(x)
                    .fold(0i32, |acc, (w, x)| acc.wrapping_add(w * (x - zp_in)));
                let scaled = mbqm(dot, m1, shift1).clamp(state_min, state_max);
                state[(b * d.filters + f) * d.memory + d.memory - 1] = wrap(zp_state + scaled);
            }
        }
        let out = io.output(0);
        let mut o = 0;
        for memory in state.chunks_exact(d.filters * d.memory) {
            let filtered: Vec<i32> = memory
                .chunks_exact(d.memory)
                .zip(time.chunks_exact(d.memory))
                .map(|(s, w)| {
                    w.iter()
                        .zip(s)
                        .fold(0i32, |acc, (w, s)| acc.wrapping_add(w * (s - zp_state)))
                })
                .collect();
            for (unit, ranks) in filtered.chunks_exact(d.rank).enumerate() {
                let sum = ranks.iter().fold(bias[unit], |acc, &v| acc.wrapping_add(v));
                out[o] = mbqm(sum, m2, shift2).wrapping_add(zp_out).clamp(-128, 127) as i8 as u8;
                o += 1;
            }
        }
        state_element.put_ints(state.into_iter().map(i64::from), io.state(4));
        Ok(())
    }))
}
