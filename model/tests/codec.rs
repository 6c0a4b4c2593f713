//! Command-stream codec: random round trips through encode/decode and
//! disassemble/assemble, malformed streams, and the COP1 driver payload.

mod common;

use npu_arch::command::{CmdKind, COMMANDS};
use npu_model::cmdstream::{self, Command, StreamError};
use npu_model::payload::{DriverAction, DriverPayload, PayloadError};
use rand::Rng;

fn random_stream(rng: &mut impl Rng, n: usize) -> Vec<Command> {
    (0..n)
        .map(|_| {
            let info = &COMMANDS[rng.gen_range(0..COMMANDS.len())];
            match info.kind {
                CmdKind::Cmd0 => Command::cmd0(info.op, rng.gen()),
                CmdKind::Cmd1 => Command::cmd1(info.op, rng.gen(), rng.gen()),
            }
        })
        .collect()
}

#[test]
fn random_round_trips() {
    let mut rng = common::rng("random_round_trips");
    for _ in 0..200 {
        let n = rng.gen_range(0..60);
        let cmds = random_stream(&mut rng, n);
        let bytes = cmdstream::encode(&cmds);
        let decoded = cmdstream::decode(&bytes).expect("decode");
        assert_eq!(cmdstream::encode(&decoded), bytes);
        let mut offset = 0;
        for (d, c) in decoded.iter().zip(&cmds) {
            assert_eq!((d.op, d.param, d.payload), (c.op, c.param, c.payload));
            assert_eq!(d.offset, offset);
            offset += if d.payload.is_some() { 8 } else { 4 };
        }
        let listing = cmdstream::disassemble(&decoded);
        assert_eq!(cmdstream::assemble(&listing).expect("assemble"), decoded);
    }
}

#[test]
fn malformed_streams_name_offsets() {
    // Length not a multiple of 4.
    assert_eq!(cmdstream::decode(&[0, 0, 0]), Err(StreamError::Length(3)));
    // Reserved cmd0 opcode 0x004 at byte 4.
    let words = [0xffff_0001u32, 0x0000_0004];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let e = cmdstream::decode(&bytes).unwrap_err();
    assert!(
        matches!(
            e,
            StreamError::UnknownOpcode {
                offset: 4,
                code: 4,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("0x4"), "{e}");
    // Reserved format bits (bit 13).
    let e = cmdstream::decode(&0x0000_2000u32.to_le_bytes()).unwrap_err();
    assert!(
        matches!(e, StreamError::ReservedFormat { offset: 0, .. }),
        "{e}"
    );
    // cmd1 cut off at the end.
    let words = [0x0000_0001u32, 0x0000_4030];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let e = cmdstream::decode(&bytes).unwrap_err();
    assert_eq!(
        e,
        StreamError::TruncatedCmd1 {
            offset: 4,
            name: "NPU_SET_DMA0_SRC"
        }
    );
}

#[test]
fn random_garbage_never_panics() {
    let mut rng = common::rng("random_garbage_never_panics");
    for _ in 0..2000 {
        let n = rng.gen_range(0..64);
        let bytes: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        if let Ok(cmds) = cmdstream::decode(&bytes) {
            assert_eq!(cmdstream::encode(&cmds), bytes);
        }
        let _ = DriverPayload::parse(&bytes);
        let mut npu = common::npu("u65-256", &[(0, vec![0; 64]), (1, vec![0; 64])]);
        let _ = npu.run(&bytes);
    }
}

#[test]
fn assembler_errors_name_lines() {
    let e = cmdstream::assemble("NPU_OP_STOP 0\nNPU_SET_IFM_BASE0 0\n").unwrap_err();
    assert_eq!(e.line, 2);
    let e = cmdstream::assemble("NPU_OP_FLY 1").unwrap_err();
    assert!(e.message.contains("unknown command"), "{e}");
    let e = cmdstream::assemble("NPU_OP_STOP 70000").unwrap_err();
    assert!(e.message.contains("16-bit"), "{e}");
}

#[test]
fn any_words_round_trip_through_a_listing_with_word_lines() {
    let mut rng = common::rng("any_words_round_trip_through_a_listing_with_word_lines");
    for n in 1..60 {
        // Commands mixed with words that are no command, and a cmd1 cut off
        // by the end now and then.
        let mut words = cmdstream::encode_words(&random_stream(&mut rng, n));
        for _ in 0..rng.gen_range(0..4) {
            let at = rng.gen_range(0..=words.len());
            words.insert(at, rng.gen());
        }
        if rng.gen_bool(0.3) {
            words.push(0x4030);
        }
        let listing = cmdstream::disassemble_words(&words);
        assert_eq!(
            cmdstream::assemble_words(&listing).expect("assemble"),
            words,
            "{listing}"
        );
    }
}

#[test]
fn an_empty_listing_and_a_long_bad_token_are_short_clear_errors() {
    for text in ["", "# only a comment\n\n; and another\n"] {
        let e = cmdstream::assemble_words(text).unwrap_err();
        assert!(e.message.contains("no commands"), "{e}");
    }
    let token = "x".repeat(3 << 20);
    for text in [
        format!("NPU_OP_STOP {token}"),
        token.clone(),
        format!("NPU_{token}"),
    ] {
        let e = cmdstream::assemble_words(&text).unwrap_err().to_string();
        assert!(e.len() < 200, "{} bytes: {}", e.len(), &e[..200]);
        assert!(
            e.contains("3145728 bytes") || e.contains("3145732 bytes"),
            "{e}"
        );
    }
    let e = cmdstream::assemble("NPU_OP_STOP 0\n.word 0x12").unwrap_err();
    assert!(e.message.contains("raw words"), "{e}");
}

#[test]
fn driver_payload_round_trip() {
    let mut rng = common::rng("driver_payload_round_trip");
    let cmds = random_stream(&mut rng, 20);
    let words = cmdstream::encode_words(&cmds);
    let p = DriverPayload {
        actions: vec![
            DriverAction::OptimizerConfig {
                data: 0,
                config: 0x1000_3008,
                id: 0x0000_0000,
            },
            DriverAction::Nop,
            DriverAction::Nop,
            DriverAction::CommandStream(words.clone()),
        ],
    };
    let bytes = p.to_bytes();
    assert_eq!(&bytes[..4], b"COP1");
    let back = DriverPayload::parse(&bytes).expect("parse");
    assert_eq!(back, p);
    assert_eq!(back.command_stream(), words);
    assert_eq!(
        DriverPayload::parse(&bytes[..bytes.len() - 2]),
        Err(PayloadError::Length(bytes.len() - 2))
    );
}

/// Random well-formed streams with small parameters: every command kind,
/// any order. The model must return Ok or an error, never panic.
#[test]
fn random_valid_streams_never_panic() {
    let mut rng = common::rng("random_valid_streams_never_panic");
    for _ in 0..3000 {
        let n = rng.gen_range(1..80);
        let cmds: Vec<Command> = (0..n)
            .map(|_| {
                let info = &COMMANDS[rng.gen_range(0..COMMANDS.len())];
                let small = |rng: &mut rand::rngs::StdRng| -> u16 {
                    match rng.gen_range(0..4) {
                        0 => rng.gen(),
                        _ => rng.gen_range(0..8),
                    }
                };
                match info.kind {
                    CmdKind::Cmd0 => Command::cmd0(info.op, small(&mut rng)),
                    CmdKind::Cmd1 if rng.gen_bool(0.1) => {
                        Command::cmd1(info.op, rng.gen(), rng.gen())
                    }
                    CmdKind::Cmd1 => Command::cmd1(info.op, 0, rng.gen_range(0..96)),
                }
            })
            .collect();
        let bytes = cmdstream::encode(&cmds);
        let config = if rng.gen_bool(0.5) {
            "u65-256"
        } else {
            "u65-512"
        };
        let mut npu = common::npu(config, &[(0, vec![1; 128]), (1, vec![2; 256])]);
        let _ = npu.run(&bytes);
    }
}
