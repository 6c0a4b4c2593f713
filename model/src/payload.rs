//! The Ethos-U driver payload ("COP1"): the custom-operator data a
//! Vela-compiled `.tflite` hands to the Ethos-U core driver. It is a list of
//! 32-bit little-endian words: the fourcc `COP1`, then driver actions, each
//! one word `command (bits 0-7) | extra (bits 8-15) | data (bits 16-31)`
//! followed by its own words. Facts taken from the Ethos-U core driver's
//! `ethosu_invoke`:
//! - OPTIMIZER_CONFIG (1): two more words, the NPU configuration word
//!   (macs_per_cc bits 0-3, cmd_stream_version 4-7, shram_size 8-15,
//!   custom_dma bit 27, product 28-31) and the ID word (as register ID);
//!   data holds the release/patch number.
//! - COMMAND_STREAM (2): the command stream follows; its length in words is
//!   `extra << 16 | data`.
//! - READ_APB_REG (3): data = start address (bits 0-11), count - 1 (12-15).
//! - DUMP_SHRAM (4) and NOP (5): no further words.

/// `COP1` as the first little-endian word.
pub const FOURCC: u32 = u32::from_le_bytes(*b"COP1");

const OPTIMIZER_CONFIG: u8 = 1;
const COMMAND_STREAM: u8 = 2;
const READ_APB_REG: u8 = 3;
const DUMP_SHRAM: u8 = 4;
const NOP: u8 = 5;

/// One driver action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriverAction {
    /// The configuration the stream was compiled for.
    OptimizerConfig {
        /// Bits 16-31 of the action word (release/patch numbers).
        data: u16,
        config: u32,
        id: u32,
    },
    /// A command stream, as words.
    CommandStream(Vec<u32>),
    ReadApbReg {
        data: u16,
    },
    DumpShram,
    Nop,
}

/// A parsed driver payload.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DriverPayload {
    pub actions: Vec<DriverAction>,
}

/// A malformed driver payload.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    #[error("driver payload length {0} bytes is not a multiple of 4")]
    Length(usize),
    #[error("driver payload does not start with \"COP1\" (first word {0:#010x})")]
    Fourcc(u32),
    #[error("byte offset {offset:#x}: unknown driver action {command}")]
    UnknownAction { offset: usize, command: u8 },
    #[error(
        "byte offset {offset:#x}: driver action needs {needed} more words but the payload ends"
    )]
    Truncated { offset: usize, needed: usize },
}

/// True if `bytes` starts with the `COP1` fourcc.
pub fn is_driver_payload(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && bytes[..4] == *b"COP1"
}

impl DriverPayload {
    /// Parse a payload.
    pub fn parse(bytes: &[u8]) -> Result<DriverPayload, PayloadError> {
        if !bytes.len().is_multiple_of(4) {
            return Err(PayloadError::Length(bytes.len()));
        }
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        match words.first() {
            Some(&FOURCC) => {}
            first => return Err(PayloadError::Fourcc(first.copied().unwrap_or(0))),
        }
        let mut actions = Vec::new();
        let mut i = 1;
        while i < words.len() {
            let w = words[i];
            let offset = i * 4;
            let command = (w & 0xff) as u8;
            let extra = (w >> 8) & 0xff;
            let data = (w >> 16) as u16;
            let take = |n: usize| -> Result<&[u32], PayloadError> {
                words
                    .get(i + 1..i + 1 + n)
                    .ok_or(PayloadError::Truncated { offset, needed: n })
            };
            let (action, used) = match command {
                OPTIMIZER_CONFIG => {
                    let w2 = take(2)?;
                    (
                        DriverAction::OptimizerConfig {
                            data,
                            config: w2[0],
                            id: w2[1],
                        },
                        3,
                    )
                }
                COMMAND_STREAM => {
                    let len = ((extra as usize) << 16) | data as usize;
                    (DriverAction::CommandStream(take(len)?.to_vec()), 1 + len)
                }
                READ_APB_REG => (DriverAction::ReadApbReg { data }, 1),
                DUMP_SHRAM => (DriverAction::DumpShram, 1),
                NOP => (DriverAction::Nop, 1),
                _ => return Err(PayloadError::UnknownAction { offset, command }),
            };
            actions.push(action);
            i += used;
        }
        Ok(DriverPayload { actions })
    }

    /// Serialize the payload.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut words = vec![FOURCC];
        for a in &self.actions {
            match a {
                DriverAction::OptimizerConfig { data, config, id } => {
                    words.push(((*data as u32) << 16) | OPTIMIZER_CONFIG as u32);
                    words.push(*config);
                    words.push(*id);
                }
                DriverAction::CommandStream(cs) => {
                    let len = cs.len() as u32;
                    words.push(
                        (len & 0xffff) << 16 | ((len >> 16) & 0xff) << 8 | COMMAND_STREAM as u32,
                    );
                    words.extend_from_slice(cs);
                }
                DriverAction::ReadApbReg { data } => {
                    words.push(((*data as u32) << 16) | READ_APB_REG as u32)
                }
                DriverAction::DumpShram => words.push(DUMP_SHRAM as u32),
                DriverAction::Nop => words.push(NOP as u32),
            }
        }
        words.into_iter().flat_map(u32::to_le_bytes).collect()
    }

    /// All command streams, concatenated in order.
    pub fn command_stream(&self) -> Vec<u32> {
        self.actions
            .iter()
            .filter_map(|a| match a {
                DriverAction::CommandStream(cs) => Some(cs.as_slice()),
                _ => None,
            })
            .flatten()
            .copied()
            .collect()
    }

    /// A payload as Vela writes it: OPTIMIZER_CONFIG, NOPs until the
    /// command stream (after its action word) starts 16-byte aligned, the
    /// COMMAND_STREAM.
    pub fn aligned(config: u32, id: u32, stream: Vec<u32>) -> DriverPayload {
        // The fourcc and OPTIMIZER_CONFIG's three words come first, then the
        // NOPs and COMMAND_STREAM's own word: 3 NOPs put the stream at 32.
        let mut actions = vec![DriverAction::OptimizerConfig {
            data: 0,
            config,
            id,
        }];
        actions.extend(std::iter::repeat_n(DriverAction::Nop, 3));
        actions.push(DriverAction::CommandStream(stream));
        DriverPayload { actions }
    }

    /// A payload with a configuration word, an ID word and one command stream.
    pub fn with_stream(config: u32, id: u32, stream: Vec<u32>) -> DriverPayload {
        DriverPayload {
            actions: vec![
                DriverAction::OptimizerConfig {
                    data: 0,
                    config,
                    id,
                },
                DriverAction::CommandStream(stream),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_aligned_payload_starts_its_stream_at_32_bytes() {
        let bytes = DriverPayload::aligned(0x1000_3008, 0x1006_6001, vec![0xffff_0000]).to_bytes();
        assert_eq!(bytes.len(), 36);
        assert_eq!(bytes[32..], 0xffff_0000u32.to_le_bytes());
    }

    #[test]
    fn round_trip() {
        let mut p = DriverPayload::with_stream(0x1000_3008, 0x1120_0000, vec![0xffff_0000]);
        p.actions.insert(1, DriverAction::Nop);
        let bytes = p.to_bytes();
        assert!(is_driver_payload(&bytes));
        assert_eq!(DriverPayload::parse(&bytes).unwrap(), p);
        assert_eq!(p.command_stream(), vec![0xffff_0000]);
    }

    #[test]
    fn errors_name_offsets() {
        let mut bytes = DriverPayload::with_stream(0, 0, vec![1, 2, 3]).to_bytes();
        bytes.truncate(bytes.len() - 4);
        assert_eq!(
            DriverPayload::parse(&bytes),
            Err(PayloadError::Truncated {
                offset: 16,
                needed: 3
            })
        );
        assert!(matches!(
            DriverPayload::parse(b"COP2"),
            Err(PayloadError::Fourcc(_))
        ));
        let mut bad = FOURCC.to_le_bytes().to_vec();
        bad.extend_from_slice(&9u32.to_le_bytes());
        assert_eq!(
            DriverPayload::parse(&bad),
            Err(PayloadError::UnknownAction {
                offset: 4,
                command: 9
            })
        );
    }
}
