//! The operators Vela leaves on the CPU that the host runs, computed as
//! TensorFlow Lite Micro's reference kernels compute them (what an Ethos-U
//! system runs beside the NPU). `model/tests/cpu_ops.rs` checks each against
//! TFLite Micro's outputs (`scripts/vela/cpu_fixtures.py`), including
//! rounding ties and saturation.
//!
//! Vela leaves an operator on the CPU when its tensors are not 8 or 16-bit
//! integers (the QUANTIZE and DEQUANTIZE around a float model's int8 body)
//! or when the NPU has no such operation (GATHER). An operator outside this
//! set is named in an error when the model is loaded.

/// What the host runs, for messages.
pub const HOST_OPERATORS: &str = "QUANTIZE from float32, DEQUANTIZE to float32, GATHER";

use super::TensorInfo;
use crate::tensor::DType;
use anyhow::{bail, ensure, Result};

/// The element types the host kernels take: an integer type of the model
/// ([`DType`]) or float32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Element {
    Integer(DType),
    Float32,
}

impl Element {
    /// The element type TFLite names `dtype`, if the host takes it.
    fn of(dtype: &str) -> Option<Element> {
        Some(match dtype {
            "INT8" => Element::Integer(DType::I8),
            "UINT8" => Element::Integer(DType::U8),
            "INT16" => Element::Integer(DType::I16),
            "FLOAT32" => Element::Float32,
            _ => return None,
        })
    }

    fn size(self) -> usize {
        match self {
            Element::Integer(t) => t.bytes(),
            Element::Float32 => 4,
        }
    }
}

/// An integer element type a kernel takes, or an error naming the tensor.
fn integer(t: &TensorInfo, op: &str, allowed: &[DType]) -> Result<DType> {
    let allowed: Vec<Element> = allowed.iter().map(|&d| Element::Integer(d)).collect();
    match element(t, op, &allowed)? {
        Element::Integer(d) => Ok(d),
        Element::Float32 => unreachable!("only integer types are allowed"),
    }
}

/// What a host kernel computes.
#[derive(Debug, Clone, PartialEq)]
pub enum Kernel {
    /// QUANTIZE float32 -> int8/int16: `round(x / scale) + zero point`,
    /// rounding half away from zero in single precision, then clamped
    /// (TFLite's `AffineQuantize`).
    Quantize {
        scale: f32,
        zero_point: i32,
        output: DType,
    },
    /// DEQUANTIZE int8/uint8/int16 -> float32: `scale * (q - zero point)` in
    /// double precision, then rounded to single (TFLite's `Dequantize`).
    Dequantize {
        scale: f64,
        zero_point: i32,
        input: DType,
    },
    /// GATHER of slices along an axis: `outer` blocks of `axis_len` slices
    /// of `slice_bytes` each; the output takes slices `indices` of every block.
    Gather {
        outer: usize,
        axis_len: usize,
        slice_bytes: usize,
        indices: Vec<i64>,
    },
}

/// One operator the host runs: its kernel and the tensors it reads and
/// writes (indices in the subgraph).
#[derive(Debug, Clone, PartialEq)]
pub struct CpuOperator {
    /// Its index among the subgraph's operators.
    pub index: usize,
    /// TFLite's name for it, e.g. `QUANTIZE`.
    pub name: String,
    /// The tensor it reads.
    pub input: i32,
    pub output: i32,
    pub kernel: Kernel,
}

/// The one scale and zero point of a per-tensor quantised tensor.
fn per_tensor(t: &TensorInfo, op: &str) -> Result<(f32, i32)> {
    match t.scales.as_slice() {
        [scale] => Ok((*scale, t.zero_point as i32)),
        [] => bail!("{op}: tensor {} has no quantisation", t.name),
        s => bail!(
            "{op}: tensor {} has {} scales; the host's {op} takes one per tensor",
            t.name,
            s.len()
        ),
    }
}

fn element(t: &TensorInfo, op: &str, allowed: &[Element]) -> Result<Element> {
    Element::of(&t.dtype)
        .filter(|e| allowed.contains(e))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{op}: tensor {} is {}; the host's {op} takes {:?} here, as TFLite Micro does",
                t.name,
                t.dtype,
                allowed
            )
        })
}

/// What the host needs to know of an operator to run it.
pub struct OperatorDesc<'a> {
    pub index: usize,
    pub name: &'a str,
    /// Its inputs and outputs, described.
    pub inputs: &'a [TensorInfo],
    pub outputs: &'a [TensorInfo],
    /// The constant bytes of each input that has any.
    pub constants: &'a [Option<&'a [u8]>],
    /// GATHER's axis and batch dimensions, from its GatherOptions.
    pub gather: Option<(i32, i32)>,
}

impl CpuOperator {
    /// The host kernel for `op`, or an error naming why the host cannot run it.
    pub fn new(op: &OperatorDesc<'_>) -> Result<CpuOperator> {
        let name = op.name;
        let (input, output) = match (op.inputs, op.outputs) {
            ([input, ..], [output]) => (input, output),
            _ => bail!(
                "{name} has {} inputs and {} outputs",
                op.inputs.len(),
                op.outputs.len()
            ),
        };
        let kernel = match name {
            "QUANTIZE" => {
                element(input, name, &[Element::Float32])?;
                let (scale, zero_point) = per_tensor(output, name)?;
                Kernel::Quantize {
                    scale,
                    zero_point,
                    output: integer(output, name, &[DType::I8, DType::I16])?,
                }
            }
            "DEQUANTIZE" => {
                element(output, name, &[Element::Float32])?;
                let (scale, zero_point) = per_tensor(input, name)?;
                Kernel::Dequantize {
                    scale: f64::from(scale),
                    zero_point,
                    input: integer(input, name, &[DType::I8, DType::U8, DType::I16])?,
                }
            }
            "GATHER" => Self::gather(op, input, output)?,
            other => bail!("{other} is none of the host's operators"),
        };
        Ok(CpuOperator {
            index: op.index,
            name: name.to_string(),
            input: input.index,
            output: output.index,
            kernel,
        })
    }

    fn gather(op: &OperatorDesc<'_>, input: &TensorInfo, output: &TensorInfo) -> Result<Kernel> {
        let name = op.name;
        let (axis, batch_dims) = op
            .gather
            .ok_or_else(|| anyhow::anyhow!("{name} has no GatherOptions"))?;
        ensure!(
            batch_dims == 0,
            "{name}: batch_dims {batch_dims}; the host's GATHER takes 0"
        );
        let data = element(
            input,
            name,
            &[Element::Integer(DType::I8), Element::Float32],
        )?;
        element(output, name, &[data])?;
        let positions = op
            .inputs
            .get(1)
            .ok_or_else(|| anyhow::anyhow!("{name} has no indices"))?;
        let bytes = op.constants.get(1).copied().flatten().ok_or_else(|| {
            anyhow::anyhow!(
                "{name}: indices {} are computed at run time; the host's GATHER takes constant ones",
                positions.name
            )
        })?;
        let indices: Vec<i64> = match positions.dtype.as_str() {
            "INT32" => bytes
                .chunks_exact(4)
                .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64)
                .collect(),
            "INT64" => bytes
                .chunks_exact(8)
                .map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes")))
                .collect(),
            other => bail!(
                "{name}: indices {} are {other}, not INT32 or INT64",
                positions.name
            ),
        };
        let rank = input.shape.len() as i32;
        ensure!(
            (-rank..rank).contains(&axis),
            "{name}: axis {axis} is outside a rank-{rank} input"
        );
        let axis = axis.rem_euclid(rank) as usize;
        let dims: Vec<usize> = input.shape.iter().map(|&d| d as usize).collect();
        let axis_len = dims[axis];
        if let Some(bad) = indices.iter().find(|&&i| i < 0 || i >= axis_len as i64) {
            bail!("{name}: index {bad} is outside axis {axis} of length {axis_len}");
        }
        let outer: usize = dims[..axis].iter().product();
        let slice_bytes = dims[axis + 1..].iter().product::<usize>() * data.size();
        ensure!(
            output.size == outer * indices.len() * slice_bytes,
            "{name}: output {} is {} bytes, not the {} its input and indices give",
            output.name,
            output.size,
            outer * indices.len() * slice_bytes
        );
        Ok(Kernel::Gather {
            outer,
            axis_len,
            slice_bytes,
            indices,
        })
    }

    /// The output's bytes for the input's `bytes`.
    pub fn run(&self, bytes: &[u8]) -> Vec<u8> {
        match &self.kernel {
            Kernel::Quantize {
                scale,
                zero_point,
                output,
            } => {
                let mut out = vec![0; bytes.len() / 4 * output.bytes()];
                for (b, o) in bytes
                    .chunks_exact(4)
                    .zip(out.chunks_exact_mut(output.bytes()))
                {
                    let x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    // `as` saturates, as the clamp that follows would.
                    let q = ((x / scale).round() as i64).saturating_add(i64::from(*zero_point));
                    output.store(output.saturate(q), o);
                }
                out
            }
            Kernel::Dequantize {
                scale,
                zero_point,
                input,
            } => bytes
                .chunks_exact(input.bytes())
                .flat_map(|b| {
                    let q = input.load(b) - i64::from(*zero_point);
                    ((scale * q as f64) as f32).to_le_bytes()
                })
                .collect(),
            Kernel::Gather {
                outer,
                axis_len,
                slice_bytes,
                indices,
            } => {
                let mut out = Vec::with_capacity(outer * indices.len() * slice_bytes);
                for block in bytes.chunks_exact(axis_len * slice_bytes).take(*outer) {
                    for &i in indices {
                        let start = i as usize * slice_bytes;
                        out.extend_from_slice(&block[start..start + slice_bytes]);
                    }
                }
                out
            }
        }
    }
}
