//! Reading an FST waveform back far enough to check it: its header block
//! (the time span, the counts of scopes, variables and value-change blocks)
//! and its hierarchy (every scope and variable by name). Value changes are
//! not decoded.
//!
//! The layout is GTKWave's FST format (`fstapi.h` and `fstapi.c` among its
//! sources; Verilator ships them in `include/gtkwave/`): a file of blocks,
//! each a type byte, a big-endian 64-bit length that counts itself, and the
//! contents. The header block (type 0) comes first: start and end time,
//! the number e in the writer's byte order (its endianness test), memory
//! used, scopes, variables, the highest handle, value-change blocks, the
//! timescale, the writer's name, the date. The hierarchy block is written
//! at close: its uncompressed length, then the records LZ4-compressed once
//! (type 6) or, past 4 MB, twice (type 7, the once-compressed length as a
//! varint first), or gzip-compressed (type 4, which Verilator's writer does
//! not write and this reader refuses). A record is a scope (254, its type,
//! name and component as NUL-terminated strings), the end of one (255), an
//! attribute (252, its type and subtype, a name, a varint; 253 ends it) or
//! a variable (its type 0-29, direction, name with any ` [MSB:LSB]`, varint
//! length and alias handle).

use std::path::Path;

/// What [`read`] finds in an FST file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FstFile {
    /// The first and last times dumped.
    pub start_time: u64,
    pub end_time: u64,
    pub scopes: u64,
    pub vars: u64,
    /// Value-change blocks.
    pub value_blocks: u64,
    /// Every scope and variable, as its path from the top
    /// (`npu_u65_256/PSEL`); a vector's range is left off.
    pub names: Vec<String>,
}

const HEADER: u8 = 0;
const HIER_GZIP: u8 = 4;
const HIER_LZ4: u8 = 6;
const HIER_LZ4_TWICE: u8 = 7;

/// Reads `path`'s header and hierarchy; an error says what is not FST.
pub fn read(path: &Path) -> Result<FstFile, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&bytes).map_err(|e| format!("{}: not a complete FST file: {e}", path.display()))
}

fn parse(bytes: &[u8]) -> Result<FstFile, String> {
    let mut file: Option<FstFile> = None;
    let mut names = None;
    let mut at = 0;
    while at < bytes.len() {
        let kind = bytes[at];
        let length = usize::try_from(be_u64(bytes, at + 1)?).map_err(|e| e.to_string())?;
        let body = bytes
            .get(at + 9..at + 1 + length)
            .ok_or_else(|| format!("block {kind} at {at} runs past the end"))?;
        match kind {
            HEADER if at == 0 => file = Some(header(body)?),
            _ if at == 0 => return Err(format!("the first block is of type {kind}, not 0")),
            HIER_GZIP => return Err("a gzip-compressed hierarchy is not read here".into()),
            HIER_LZ4 | HIER_LZ4_TWICE => {
                let length = be_u64(body, 0)?;
                let records = if kind == HIER_LZ4 {
                    lz4_block(&body[8..], length)?
                } else {
                    let (once, skip) = varint(&body[8..])?;
                    lz4_block(&lz4_block(&body[8 + skip..], once)?, length)?
                };
                names = Some(hierarchy(&records)?);
            }
            _ => {}
        }
        at += 1 + length;
    }
    let mut file = file.ok_or("no header block")?;
    file.names = names.ok_or("no hierarchy block (was the writer closed?)")?;
    Ok(file)
}

fn be_u64(bytes: &[u8], at: usize) -> Result<u64, String> {
    let word = bytes.get(at..at + 8).ok_or("a field runs past the end")?;
    Ok(u64::from_be_bytes(word.try_into().expect("8 bytes")))
}

fn header(body: &[u8]) -> Result<FstFile, String> {
    let word = |i: usize| be_u64(body, 8 * i);
    let e = body.get(16..24).ok_or("a short header")?;
    let e: [u8; 8] = e.try_into().expect("8 bytes");
    if ![f64::from_le_bytes(e), f64::from_be_bytes(e)].contains(&std::f64::consts::E) {
        return Err("the header's endianness test is not e".into());
    }
    Ok(FstFile {
        start_time: word(0)?,
        end_time: word(1)?,
        scopes: word(4)?,
        vars: word(5)?,
        value_blocks: word(7)?,
        names: vec![],
    })
}

/// A LEB128-style varint (7 bits a byte, least significant first) and
/// the bytes it took.
fn varint(bytes: &[u8]) -> Result<(u64, usize), String> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    Err("an unterminated varint".into())
}

/// Decompresses one LZ4 block (the LZ4 block format: sequences of a token,
/// literals and a back-reference) into exactly `length` bytes.
fn lz4_block(input: &[u8], length: u64) -> Result<Vec<u8>, String> {
    let length = usize::try_from(length).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(length);
    let mut i = 0;
    let byte = |i: usize| input.get(i).copied().ok_or("truncated LZ4 data");
    // A 4-bit count, extended by bytes while they are 255.
    let count = |nibble: u8, i: &mut usize| -> Result<usize, String> {
        let mut n = usize::from(nibble);
        if nibble == 15 {
            loop {
                let b = byte(*i)?;
                *i += 1;
                n += usize::from(b);
                if b != 255 {
                    break;
                }
            }
        }
        Ok(n)
    };
    while i < input.len() {
        let token = byte(i)?;
        i += 1;
        let literals = count(token >> 4, &mut i)?;
        out.extend_from_slice(input.get(i..i + literals).ok_or("truncated LZ4 literals")?);
        i += literals;
        if i == input.len() {
            break;
        }
        let offset = usize::from(byte(i)?) | usize::from(byte(i + 1)?) << 8;
        i += 2;
        let matched = count(token & 15, &mut i)? + 4;
        if offset == 0 || offset > out.len() {
            return Err(format!("an LZ4 match {offset} bytes back of {}", out.len()));
        }
        let from = out.len() - offset;
        for k in 0..matched {
            out.push(out[from + k]);
        }
    }
    if out.len() != length {
        return Err(format!("LZ4 gave {} bytes, not {length}", out.len()));
    }
    Ok(out)
}

const SCOPE: u8 = 254;
const UPSCOPE: u8 = 255;
const ATTR_BEGIN: u8 = 252;
const ATTR_END: u8 = 253;
const VAR_TYPE_MAX: u8 = 29;

fn hierarchy(records: &[u8]) -> Result<Vec<String>, String> {
    let mut names = vec![];
    let mut scope: Vec<String> = vec![];
    let mut i = 0;
    let string = |i: &mut usize| -> Result<String, String> {
        let rest = records.get(*i..).ok_or("a truncated record")?;
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or("an unterminated name")?;
        *i += end + 1;
        Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
    };
    let number = |i: &mut usize| -> Result<u64, String> {
        let (value, skip) = varint(records.get(*i..).ok_or("a truncated record")?)?;
        *i += skip;
        Ok(value)
    };
    while i < records.len() {
        let tag = records[i];
        match tag {
            SCOPE => {
                i += 2;
                scope.push(string(&mut i)?);
                string(&mut i)?;
                names.push(scope.join("/"));
            }
            UPSCOPE => {
                i += 1;
                scope.pop().ok_or("an upscope at the top")?;
            }
            ATTR_BEGIN => {
                i += 3;
                string(&mut i)?;
                number(&mut i)?;
            }
            ATTR_END => i += 1,
            0..=VAR_TYPE_MAX => {
                i += 2;
                let name = string(&mut i)?;
                number(&mut i)?;
                number(&mut i)?;
                let name = name.split(' ').next().unwrap_or_default();
                names.push(format!("{}/{name}", scope.join("/")));
            }
            _ => return Err(format!("a hierarchy record of type {tag}")),
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::{lz4_block, varint};

    #[test]
    fn lz4_literals_and_an_overlapping_match_decode() {
        // "abc" then a match 3 back of 9 bytes (4 + 5): "abcabcabcabc".
        let block = [0x35, b'a', b'b', b'c', 3, 0, 0x10, b'!'];
        assert_eq!(lz4_block(&block, 13).unwrap(), b"abcabcabcabc!");
        assert!(lz4_block(&block, 12).is_err());
        assert!(
            lz4_block(&[0x05, 1, 0], 5).is_err(),
            "a match before the start"
        );
    }

    #[test]
    fn varints_take_seven_bits_a_byte() {
        assert_eq!(varint(&[0x05]).unwrap(), (5, 1));
        assert_eq!(varint(&[0x80 | 0x2c, 0x02]).unwrap(), (300, 2));
        assert!(varint(&[0x80]).is_err());
    }
}
