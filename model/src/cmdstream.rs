//! Command-stream codec (TRM 4.6): decode words into commands, encode them
//! back, print a listing in the TRM's example style and assemble it again.

use npu_arch::command::{encode_word, split_word, CmdKind, Opcode};
use std::fmt::Write as _;

/// One decoded command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    pub op: Opcode,
    pub param: u16,
    /// The 32-bit payload word of a cmd1 command; `None` for cmd0.
    pub payload: Option<u32>,
    /// Byte offset of the command word in its stream.
    pub offset: usize,
}

impl Command {
    /// A cmd0 command (offset 0; [`encode`] ignores offsets).
    pub fn cmd0(op: Opcode, param: u16) -> Command {
        debug_assert_eq!(op.kind(), CmdKind::Cmd0);
        Command {
            op,
            param,
            payload: None,
            offset: 0,
        }
    }

    /// A cmd1 command with a payload.
    /// Command `op` with `value` in its value space (cmd0: the 16-bit
    /// parameter; cmd1: payload in bits 31:0, parameter in 47:32).
    pub fn from_value(op: Opcode, value: u64) -> Command {
        match op.kind() {
            CmdKind::Cmd0 => Command::cmd0(op, value as u16),
            CmdKind::Cmd1 => Command::cmd1(op, (value >> 32) as u16, value as u32),
        }
    }

    pub fn cmd1(op: Opcode, param: u16, payload: u32) -> Command {
        debug_assert_eq!(op.kind(), CmdKind::Cmd1);
        Command {
            op,
            param,
            payload: Some(payload),
            offset: 0,
        }
    }

    /// The command's value space (see `npu_arch::command`): the parameter for
    /// cmd0; payload in bits 0-31 and parameter in bits 32-47 for cmd1.
    pub fn value(&self) -> u64 {
        match self.payload {
            None => self.param as u64,
            Some(p) => ((self.param as u64) << 32) | p as u64,
        }
    }
}

/// A malformed command stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    #[error("command stream length {0} bytes is not a multiple of 4")]
    Length(usize),
    #[error(
        "byte offset {offset:#x}: word {word:#010x} uses reserved format bits 10-15 ({format:#x})"
    )]
    ReservedFormat {
        offset: usize,
        word: u32,
        format: u32,
    },
    #[error(
        "byte offset {offset:#x}: word {word:#010x} is a reserved {kind:?} opcode {code:#05x}"
    )]
    UnknownOpcode {
        offset: usize,
        word: u32,
        kind: CmdKind,
        code: u16,
    },
    #[error("byte offset {offset:#x}: {name} is cmd1 but the stream ends before its payload word")]
    TruncatedCmd1 { offset: usize, name: &'static str },
}

impl StreamError {
    /// Byte offset of the offending word (the stream length for [`StreamError::Length`]).
    pub fn offset(&self) -> usize {
        match self {
            StreamError::Length(n) => *n,
            StreamError::ReservedFormat { offset, .. }
            | StreamError::UnknownOpcode { offset, .. }
            | StreamError::TruncatedCmd1 { offset, .. } => *offset,
        }
    }
}

/// Little-endian bytes to words.
pub fn bytes_to_words(bytes: &[u8]) -> Result<Vec<u32>, StreamError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(StreamError::Length(bytes.len()));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Decode one command at word index `i`; returns it and the number of words used.
pub fn decode_one(words: &[u32], i: usize) -> Result<(Command, usize), StreamError> {
    let offset = i * 4;
    let word = words[i];
    let (format, code, param) = split_word(word);
    // TRM table 4-107: only 000000 (cmd0) and 010000 (cmd1) are defined.
    let kind = CmdKind::from_format(format).ok_or(StreamError::ReservedFormat {
        offset,
        word,
        format,
    })?;
    let op = Opcode::from_code(kind, code).ok_or(StreamError::UnknownOpcode {
        offset,
        word,
        kind,
        code,
    })?;
    match kind {
        CmdKind::Cmd0 => Ok((
            Command {
                op,
                param,
                payload: None,
                offset,
            },
            1,
        )),
        CmdKind::Cmd1 => {
            let payload = *words.get(i + 1).ok_or(StreamError::TruncatedCmd1 {
                offset,
                name: op.name(),
            })?;
            Ok((
                Command {
                    op,
                    param,
                    payload: Some(payload),
                    offset,
                },
                2,
            ))
        }
    }
}

/// Decode a whole stream of little-endian words.
pub fn decode(bytes: &[u8]) -> Result<Vec<Command>, StreamError> {
    decode_words(&bytes_to_words(bytes)?)
}

/// True when the command that ends at byte `qread` of `stream` is
/// NPU_OP_STOP: after a stop, QREAD is past it (TRM 4.2.7), so this tells a
/// run stopped by NPU_OP_STOP from one that ran out of stream, which both
/// set STATUS.cmd_end_reached (TRM 4.2.2).
pub fn stop_ends_at(stream: &[u8], qread: usize) -> bool {
    let Ok(words) = bytes_to_words(stream) else {
        return false;
    };
    let mut i = 0;
    while i * 4 < qread && i < words.len() {
        let Ok((cmd, n)) = decode_one(&words, i) else {
            return false;
        };
        i += n;
        if i * 4 == qread {
            return cmd.op == Opcode::NpuOpStop;
        }
    }
    false
}

/// Decode a whole stream given as words.
pub fn decode_words(words: &[u32]) -> Result<Vec<Command>, StreamError> {
    let mut out = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let (cmd, n) = decode_one(words, i)?;
        out.push(cmd);
        i += n;
    }
    Ok(out)
}

/// Encode commands as words (offsets are ignored).
pub fn encode_words(cmds: &[Command]) -> Vec<u32> {
    let mut out = Vec::with_capacity(cmds.len() * 2);
    for c in cmds {
        out.push(encode_word(c.op.kind(), c.op.code(), c.param));
        if c.op.kind() == CmdKind::Cmd1 {
            out.push(c.payload.unwrap_or(0));
        }
    }
    out
}

/// Encode commands as little-endian bytes.
pub fn encode(cmds: &[Command]) -> Vec<u8> {
    encode_words(cmds)
        .into_iter()
        .flat_map(u32::to_le_bytes)
        .collect()
}

/// Header line of a listing, as in the TRM's examples (TRM 4.6).
pub const LISTING_HEADER: &str = "Offset:  Code:   Command:                        Param: Payload:";

/// One listing line: offset, code (format bits included), name, param, payload.
pub fn format_command(c: &Command) -> String {
    let code = encode_word(c.op.kind(), c.op.code(), 0);
    let prefix = match c.op.kind() {
        CmdKind::Cmd0 => "cmd0",
        CmdKind::Cmd1 => "cmd1",
    };
    let payload = match c.payload {
        None => "-".to_string(),
        Some(p) => format!("{p:#010x} ({p})"),
    };
    format!(
        "{:#06x}   {:#06x}  {:<32} {:>6} {}",
        c.offset,
        code,
        format!("{prefix}.{}", c.op.name()),
        c.param,
        payload
    )
}

/// A full listing of a stream.
pub fn disassemble(cmds: &[Command]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{LISTING_HEADER}");
    for c in cmds {
        let _ = writeln!(s, "{}", format_command(c));
    }
    s
}

/// A listing line that cannot be assembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct AsmError {
    pub line: usize,
    pub message: String,
}

fn parse_int(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// A token as an error message shows it: long ones cut short, so a line of
/// megabytes does not come back whole.
fn shown(token: &str) -> String {
    const MAX: usize = 40;
    match token.char_indices().nth(MAX) {
        None => format!("{token:?}"),
        Some((cut, _)) => format!("{:?}... ({} bytes)", &token[..cut], token.len()),
    }
}

/// One assembled line: a command, or a raw `.word`.
enum Line {
    Command(Command),
    Word(u32),
}

/// Assemble one line's body (comments stripped, not blank).
fn assemble_line(body: &str, line: usize) -> Result<Line, AsmError> {
    let err = |message: String| AsmError { line, message };
    let toks: Vec<&str> = body.split_whitespace().collect();
    if let Some(w) = toks.iter().position(|t| *t == ".word") {
        let word = toks
            .get(w + 1)
            .and_then(|t| parse_int(t))
            .filter(|&v| v <= 0xffff_ffff)
            .ok_or_else(|| err(format!(".word needs one 32-bit number: {}", shown(body))))?;
        return Ok(Line::Word(word as u32));
    }
    let name_at = toks
        .iter()
        .position(|t| t.contains("NPU_"))
        .ok_or_else(|| err(format!("no NPU_* command name in {}", shown(body))))?;
    let tok = toks[name_at];
    let name = tok
        .strip_prefix("cmd0.")
        .or_else(|| tok.strip_prefix("cmd1."))
        .unwrap_or(tok);
    let op =
        Opcode::from_name(name).ok_or_else(|| err(format!("unknown command {}", shown(name))))?;
    let name = op.name();
    let rest = &toks[name_at + 1..];
    let param_tok = rest
        .first()
        .ok_or_else(|| err(format!("{name}: missing parameter")))?;
    let param = parse_int(param_tok)
        .filter(|&v| v <= 0xffff)
        .ok_or_else(|| {
            err(format!(
                "{name}: parameter {} is not a 16-bit number",
                shown(param_tok)
            ))
        })? as u16;
    let payload = match op.kind() {
        CmdKind::Cmd0 => {
            if let Some(extra) = rest.get(1).filter(|t| **t != "-") {
                return Err(err(format!(
                    "{name} is cmd0 and takes no payload, got {}",
                    shown(extra)
                )));
            }
            None
        }
        CmdKind::Cmd1 => {
            let t = rest
                .get(1)
                .ok_or_else(|| err(format!("{name} is cmd1 and needs a payload")))?;
            Some(parse_int(t).filter(|&v| v <= 0xffff_ffff).ok_or_else(|| {
                err(format!(
                    "{name}: payload {} is not a 32-bit number",
                    shown(t)
                ))
            })? as u32)
        }
    };
    Ok(Line::Command(Command {
        op,
        param,
        payload,
        offset: 0,
    }))
}

/// Every line of a listing that is not blank, a header or a comment, with
/// its line number.
fn listing_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(n, raw)| {
        let body = raw.split(['#', ';']).next().unwrap_or("").trim();
        let skip = body.is_empty() || body.starts_with("Offset:") || body.starts_with("Code:");
        (!skip).then_some((n + 1, body))
    })
}

/// Assemble a listing. Accepts the output of [`disassemble`] and the TRM's
/// own examples (which have no offset column): each line is
/// `[offset] [code] [cmd0.|cmd1.]NAME param [payload [(decimal)]]`.
/// Blank lines, header lines and text after `#` or `;` are ignored. A
/// `.word` line is an error here: [`assemble_words`] takes those.
pub fn assemble(text: &str) -> Result<Vec<Command>, AsmError> {
    let mut cmds = Vec::new();
    let mut offset = 0;
    for (line, body) in listing_lines(text) {
        match assemble_line(body, line)? {
            Line::Command(mut c) => {
                c.offset = offset;
                offset += if c.payload.is_some() { 8 } else { 4 };
                cmds.push(c);
            }
            Line::Word(_) => {
                return Err(AsmError {
                    line,
                    message: ".word is no command: assemble the listing as raw words".into(),
                })
            }
        }
    }
    Ok(cmds)
}

/// Assemble a listing into words, `.word` lines included. A listing with no
/// command or word is an error: an empty stream is not one the NPU can run.
pub fn assemble_words(text: &str) -> Result<Vec<u32>, AsmError> {
    let mut words = Vec::new();
    for (line, body) in listing_lines(text) {
        match assemble_line(body, line)? {
            Line::Command(c) => words.extend(encode_words(&[c])),
            Line::Word(w) => words.push(w),
        }
    }
    if words.is_empty() {
        return Err(AsmError {
            line: 0,
            message: "the listing has no commands".into(),
        });
    }
    Ok(words)
}

/// A listing of every word of a stream: commands where they decode, a
/// `.word` line with the reason where they do not (decoding goes on at the
/// next word). [`assemble_words`] gives the same words back.
pub fn disassemble_words(words: &[u32]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{LISTING_HEADER}");
    let mut i = 0;
    while i < words.len() {
        match decode_one(words, i) {
            Ok((c, n)) => {
                let _ = writeln!(s, "{}", format_command(&c));
                i += n;
            }
            Err(e) => {
                let _ = writeln!(s, "{:#06x}   .word {:#010x}  # {e}", i * 4, words[i]);
                i += 1;
            }
        }
    }
    s
}

/// A builder per command, generated from `npu_arch::command::COMMANDS`
/// (`model/build.rs`): `builders::NpuSetIfmStrideX::default().stride(16)
/// .command()`.
pub mod builders {
    use super::Command;
    use npu_arch::command::Opcode;
    include!(concat!(env!("OUT_DIR"), "/builders.rs"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trm_example_lines_assemble() {
        let text = "Code:    Command:                       Param: Payload:\n\
            0x0130 cmd0.NPU_SET_DMA0_SRC_REGION       0   -\n\
            0x4030 cmd1.NPU_SET_DMA0_SRC              0   0x00000000 (0)\n\
            0x4032 cmd1.NPU_SET_DMA0_LEN              0   0x000002e0 (736)\n\
            0x0000 cmd0.NPU_OP_STOP               65535   -\n";
        let cmds = assemble(text).unwrap();
        assert_eq!(cmds.len(), 4);
        assert_eq!(cmds[2].payload, Some(736));
        assert_eq!(cmds[3].offset, 20);
        let words = encode_words(&cmds);
        assert_eq!(words, vec![0x0130, 0x4030, 0, 0x4032, 0x2e0, 0xffff_0000]);
        let back = decode_words(&words).unwrap();
        assert_eq!(back, cmds);
        assert_eq!(assemble(&disassemble(&back)).unwrap(), cmds);
    }
}
