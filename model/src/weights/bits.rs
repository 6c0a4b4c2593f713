//! LSB-first bit reader and writer (TRM 4.7.1: the first bit of a byte is its
//! LSB, and every syntax element is stored LSB first).

use super::WeightStreamError;

/// Reads syntax elements from a weight stream, tracking the bit position.
pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> BitReader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    /// Bit offset of the next bit to be read.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Number of bits not yet read.
    pub(crate) fn remaining(&self) -> usize {
        self.data.len() * 8 - self.pos
    }

    /// Reads a `len`-bit element (`len` <= 32), LSB first; `element` names it in
    /// the error when the stream ends first.
    pub(crate) fn read(
        &mut self,
        len: u32,
        element: &'static str,
    ) -> Result<u32, WeightStreamError> {
        if self.remaining() < len as usize {
            return Err(WeightStreamError::UnexpectedEnd {
                bit: self.pos,
                element,
            });
        }
        let mut value = 0u32;
        for i in 0..len {
            let p = self.pos + i as usize;
            let bit = (self.data[p / 8] >> (p % 8)) & 1;
            value |= u32::from(bit) << i;
        }
        self.pos += len as usize;
        Ok(value)
    }
}

/// Appends syntax elements to a growing byte buffer, LSB first.
#[derive(Default)]
pub(crate) struct BitWriter {
    bytes: Vec<u8>,
    pos: usize,
}

impl BitWriter {
    /// Bit offset of the next bit to be written.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Writes the low `len` bits of `value` (`len` <= 32), LSB first.
    pub(crate) fn write(&mut self, len: u32, value: u32) {
        for i in 0..len {
            if self.pos.is_multiple_of(8) {
                self.bytes.push(0);
            }
            let bit = ((value >> i) & 1) as u8;
            self.bytes[self.pos / 8] |= bit << (self.pos % 8);
            self.pos += 1;
        }
    }

    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}
