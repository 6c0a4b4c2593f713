//! Feature maps in memory (TRM 4.6.5 BASE/STRIDE registers, tiles, layouts).

use npu_arch::command::{ActivationPrecision, Layout};

/// Element type of a feature map: signedness and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DType {
    pub signed: bool,
    /// 8, 16 or 32.
    pub bits: u32,
}

impl DType {
    pub const U8: DType = DType {
        signed: false,
        bits: 8,
    };
    pub const I8: DType = DType {
        signed: true,
        bits: 8,
    };
    pub const U16: DType = DType {
        signed: false,
        bits: 16,
    };
    pub const I16: DType = DType {
        signed: true,
        bits: 16,
    };
    pub const I32: DType = DType {
        signed: true,
        bits: 32,
    };

    /// The PRECISION commands' activation_precision field (TRM 4.6.5):
    /// 8, 16 or 32 bits. The one software encoding of it, with
    /// [`DType::from_precision`].
    pub fn precision(self) -> ActivationPrecision {
        match self.bits {
            8 => ActivationPrecision::Bits8,
            16 => ActivationPrecision::Bits16,
            32 => ActivationPrecision::Bits32,
            bits => unreachable!("a {bits}-bit element type"),
        }
    }

    /// The element type of activation_type `signed` and `precision`.
    pub fn from_precision(signed: bool, precision: ActivationPrecision) -> DType {
        let bits = match precision {
            ActivationPrecision::Bits8 => 8,
            ActivationPrecision::Bits16 => 16,
            ActivationPrecision::Bits32 => 32,
        };
        DType { signed, bits }
    }

    pub fn bytes(self) -> usize {
        (self.bits / 8) as usize
    }
    pub fn min(self) -> i64 {
        if self.signed {
            -(1i64 << (self.bits - 1))
        } else {
            0
        }
    }
    pub fn max(self) -> i64 {
        if self.signed {
            (1i64 << (self.bits - 1)) - 1
        } else {
            (1i64 << self.bits) - 1
        }
    }
    pub fn saturate(self, v: i64) -> i64 {
        v.clamp(self.min(), self.max())
    }
    /// Interpret a 16-bit register field (zero point, clip bound, scalar) in
    /// this type's signedness.
    pub fn param16(self, raw: u16) -> i64 {
        if self.signed {
            raw as i16 as i64
        } else {
            raw as i64
        }
    }
    /// Read one little-endian element.
    pub fn load(self, b: &[u8]) -> i64 {
        match (self.bits, self.signed) {
            (8, false) => b[0] as i64,
            (8, true) => b[0] as i8 as i64,
            (16, false) => u16::from_le_bytes([b[0], b[1]]) as i64,
            (16, true) => i16::from_le_bytes([b[0], b[1]]) as i64,
            (_, false) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
            (_, true) => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
        }
    }
    /// Write one little-endian element (the value must already fit).
    pub fn store(self, v: i64, b: &mut [u8]) {
        let bytes = (v as u64).to_le_bytes();
        b[..self.bytes()].copy_from_slice(&bytes[..self.bytes()]);
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}{}",
            if self.signed { "int" } else { "uint" },
            self.bits
        )
    }
}

/// A feature map as the IFM/IFM2/OFM registers describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureMap {
    pub region: usize,
    /// Byte offsets of tiles 0-3 (top-left, top-right, bottom-left, bottom-right).
    pub base: [u64; 4],
    pub stride_x: i64,
    pub stride_y: i64,
    pub stride_c: i64,
    /// Tile 0 and 2 width.
    pub width0: usize,
    /// Tile 0 height.
    pub height0: usize,
    /// Tile 1 height.
    pub height1: usize,
    pub dtype: DType,
    pub layout: Layout,
    pub zero_point: i64,
}

impl FeatureMap {
    /// Byte offset of element (y, x, c) in the region. Tiles: x >= width0 is
    /// tile 1 (or 3 if also y >= height1); otherwise y >= height0 is tile 2.
    /// NHWC: `y*STRIDE_Y + x*STRIDE_X + c*elem`; NHCWB16: `y*STRIDE_Y +
    /// (c/16)*STRIDE_C + (x*16 + c%16)*elem` (JOBS.md, TRM 4.6.5).
    pub fn offset(&self, y: usize, x: usize, c: usize) -> i64 {
        let (mut y, mut x) = (y, x);
        let mut t = 0;
        if x >= self.width0 {
            x -= self.width0;
            t = 1;
            if y >= self.height1 {
                y -= self.height1;
                t = 3;
            }
        } else if y >= self.height0 {
            y -= self.height0;
            t = 2;
        }
        let e = self.dtype.bytes() as i64;
        let (y, x, c) = (y as i64, x as i64, c as i64);
        // Saturating: absurd strides give an out-of-range offset, not an overflow.
        let inner = match self.layout {
            Layout::Nhwc => x.saturating_mul(self.stride_x).saturating_add(c * e),
            Layout::Nhcwb16 => (c / 16)
                .saturating_mul(self.stride_c)
                .saturating_add((x * 16 + c % 16) * e),
        };
        (self.base[t] as i64)
            .saturating_add(y.saturating_mul(self.stride_y))
            .saturating_add(inner)
    }
}
