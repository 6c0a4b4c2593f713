//! Tensors as the host's kernels see them: element types, shapes,
//! quantisation, and typed reads and writes of their little-endian bytes.

use anyhow::{bail, Result};

/// An element type the host's kernels take (TFLite `TensorType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Element {
    Bool,
    I8,
    U8,
    I16,
    I32,
    I64,
    F32,
}

impl Element {
    /// The element type TFLite names `dtype` (e.g. `INT8`), if the host has it.
    pub fn of(dtype: &str) -> Option<Element> {
        Some(match dtype {
            "BOOL" => Element::Bool,
            "INT8" => Element::I8,
            "UINT8" => Element::U8,
            "INT16" => Element::I16,
            "INT32" => Element::I32,
            "INT64" => Element::I64,
            "FLOAT32" => Element::F32,
            _ => return None,
        })
    }

    /// TFLite's name for it, e.g. `INT8`.
    pub fn name(self) -> &'static str {
        match self {
            Element::Bool => "BOOL",
            Element::I8 => "INT8",
            Element::U8 => "UINT8",
            Element::I16 => "INT16",
            Element::I32 => "INT32",
            Element::I64 => "INT64",
            Element::F32 => "FLOAT32",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Element::Bool | Element::I8 | Element::U8 => 1,
            Element::I16 => 2,
            Element::I32 | Element::F32 => 4,
            Element::I64 => 8,
        }
    }

    /// Whether it is an integer type (bool counts as one, 0 or 1).
    pub fn is_integer(self) -> bool {
        self != Element::F32
    }

    /// The smallest value of an integer type.
    pub fn min(self) -> i64 {
        match self {
            Element::Bool | Element::U8 => 0,
            Element::I8 => i8::MIN.into(),
            Element::I16 => i16::MIN.into(),
            Element::I32 => i32::MIN.into(),
            Element::I64 => i64::MIN,
            Element::F32 => unreachable!("float32 has no integer range"),
        }
    }

    /// The largest value of an integer type.
    pub fn max(self) -> i64 {
        match self {
            Element::Bool => 1,
            Element::U8 => u8::MAX.into(),
            Element::I8 => i8::MAX.into(),
            Element::I16 => i16::MAX.into(),
            Element::I32 => i32::MAX.into(),
            Element::I64 => i64::MAX,
            Element::F32 => unreachable!("float32 has no integer range"),
        }
    }

    /// `v` clamped to the integer type's range.
    pub fn saturate(self, v: i64) -> i64 {
        v.clamp(self.min(), self.max())
    }

    /// Element `i` of `bytes`, an integer type's value.
    pub fn load(self, bytes: &[u8], i: usize) -> i64 {
        let b = &bytes[i * self.size()..(i + 1) * self.size()];
        match self {
            Element::Bool => i64::from(b[0] != 0),
            Element::I8 => (b[0] as i8).into(),
            Element::U8 => b[0].into(),
            Element::I16 => i16::from_le_bytes([b[0], b[1]]).into(),
            Element::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]).into(),
            Element::I64 => i64::from_le_bytes(b.try_into().expect("8 bytes")),
            Element::F32 => unreachable!("load a float32 with f32s"),
        }
    }

    /// Writes `v` (already in range) as element `i` of `bytes`.
    pub fn store(self, v: i64, bytes: &mut [u8], i: usize) {
        let n = self.size();
        bytes[i * n..(i + 1) * n].copy_from_slice(&v.to_le_bytes()[..n]);
    }

    /// Every element of `bytes`, an integer type's values.
    pub fn ints(self, bytes: &[u8]) -> Vec<i64> {
        (0..bytes.len() / self.size())
            .map(|i| self.load(bytes, i))
            .collect()
    }

    /// Writes `values` (already in range) over `bytes`.
    pub fn put_ints(self, values: impl IntoIterator<Item = i64>, bytes: &mut [u8]) {
        for (i, v) in values.into_iter().enumerate() {
            self.store(v, bytes, i);
        }
    }
}

impl std::fmt::Display for Element {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The float32 elements of `bytes`.
pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Writes float32 `values` over `bytes`.
pub fn put_f32s(values: impl IntoIterator<Item = f32>, bytes: &mut [u8]) {
    for (v, b) in values.into_iter().zip(bytes.chunks_exact_mut(4)) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

/// One input or output of an operator: its tensor's description and, for
/// a constant, its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Operand {
    /// Its index in the subgraph.
    pub index: i32,
    pub name: String,
    pub shape: Vec<usize>,
    pub element: Element,
    /// Quantisation scales: none when not quantised, one per channel of
    /// `quantized_dimension` when per-channel.
    pub scales: Vec<f32>,
    /// Zero points, one per scale.
    pub zero_points: Vec<i64>,
    pub quantized_dimension: usize,
    /// Its bytes, when the model holds them.
    pub constant: Option<Vec<u8>>,
    /// A variable tensor (state the operator reads and writes in place).
    pub variable: bool,
}

impl Operand {
    /// Number of elements.
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// Number of bytes.
    pub fn bytes(&self) -> usize {
        self.elements() * self.element.size()
    }

    /// The one scale of a per-tensor quantised tensor.
    pub fn scale(&self) -> Result<f32> {
        match self.scales.as_slice() {
            [scale] => Ok(*scale),
            [] => bail!("tensor {} has no quantisation scale", self.name),
            s => bail!(
                "tensor {} has {} scales where one per tensor is needed",
                self.name,
                s.len()
            ),
        }
    }

    /// The zero point (0 when not quantised).
    pub fn zero_point(&self) -> i32 {
        self.zero_points.first().map_or(0, |&z| z as i32)
    }

    /// Its constant integer values (e.g. an axis or shape operand).
    pub fn constant_ints(&self) -> Result<Vec<i64>> {
        let Some(bytes) = &self.constant else {
            bail!(
                "tensor {} is computed at run time; the host needs it constant here, as TFLite \
                 Micro does",
                self.name
            );
        };
        if !self.element.is_integer() {
            bail!(
                "tensor {} is {}, not an integer tensor",
                self.name,
                self.element
            );
        }
        Ok(self.element.ints(bytes))
    }
}
