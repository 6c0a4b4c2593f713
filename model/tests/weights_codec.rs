//! Weight-stream codec: random round trips through every coding mode, and
//! malformed streams that must be rejected with the right error.

use npu_model::weights::{
    decode, encode, EncodeError, EncodeOptions, IndexCoding, PaletteChoice, SliceDecoder,
    WeightStreamError, ZeroRuns,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Seed from `WEIGHTS_SEED` or the clock; printed so a failure can be re-run.
fn seed() -> u64 {
    let seed = std::env::var("WEIGHTS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    println!("seed {seed} (re-run with WEIGHTS_SEED={seed})");
    seed
}

fn random_weights(rng: &mut StdRng) -> Vec<i16> {
    let len = match rng.gen_range(0..4) {
        0 => rng.gen_range(0..20),
        1 => rng.gen_range(0..300),
        _ => rng.gen_range(0..3000),
    };
    let magnitude: i16 = [1, 3, 10, 60, 255][rng.gen_range(0..5)];
    let zero_fraction = [0.0, 0.3, 0.9, 1.0][rng.gen_range(0..4)];
    (0..len)
        .map(|_| {
            if rng.gen_bool(zero_fraction) {
                0
            } else {
                rng.gen_range(-magnitude..=magnitude)
            }
        })
        .collect()
}

fn random_options(rng: &mut StdRng) -> EncodeOptions {
    let zero_runs = match rng.gen_range(0..4) {
        0 => ZeroRuns::Off,
        1 => ZeroRuns::Zdiv(rng.gen_range(0..4)),
        2 => ZeroRuns::AutoZdiv,
        _ => ZeroRuns::Auto,
    };
    let index = match rng.gen_range(0..3) {
        0 => IndexCoding::Auto,
        1 => IndexCoding::GolombRice {
            wdiv: rng.gen_range(0..6),
            wtrunc: rng.gen_bool(0.5),
        },
        _ => IndexCoding::Uncompressed,
    };
    let palette = match rng.gen_range(0..3) {
        0 => PaletteChoice::Auto,
        1 => PaletteChoice::Direct,
        _ => {
            let mut p: Vec<i16> = (0..rng.gen_range(2..=32))
                .map(|_| rng.gen_range(-20..=20))
                .collect();
            p.sort_unstable();
            p.dedup();
            if p.len() < 2 {
                p = vec![0, 1];
            }
            PaletteChoice::Given(p)
        }
    };
    EncodeOptions {
        zero_runs,
        index,
        palette,
        max_slice_len: if rng.gen_bool(0.5) {
            rng.gen_range(1..60)
        } else {
            32768
        },
        newpal_every_slice: rng.gen_bool(0.3),
    }
}

#[test]
fn random_round_trips_in_every_mode() {
    let mut rng = StdRng::seed_from_u64(seed());
    let mut modes = std::collections::BTreeMap::<String, usize>::new();
    for case in 0..1500 {
        let weights = random_weights(&mut rng);
        let opts = random_options(&mut rng);
        let stream = match encode(&weights, &opts) {
            Ok(s) => s,
            // Fixed parameters that cannot code these weights are legal refusals.
            Err(
                EncodeError::QuotientTooLarge { .. }
                | EncodeError::IndexTooWide { .. }
                | EncodeError::IndexOutOfRange { .. },
            ) => continue,
            Err(e) => panic!("case {case}: {e} for {opts:?}"),
        };
        assert_eq!(stream.len() % 16, 0, "case {case}: padded to 16 bytes");
        let decoded = decode(&stream).unwrap_or_else(|e| panic!("case {case}: {e} for {opts:?}"));
        assert_eq!(decoded, weights, "case {case}: round trip with {opts:?}");

        for (n, slice) in SliceDecoder::new(&stream).expect("aligned").enumerate() {
            let h = slice.expect("valid").header;
            assert!(
                h.slice_length <= opts.max_slice_len,
                "case {case}: slice length"
            );
            assert_eq!(
                h.new_palette.is_some(),
                n == 0 || opts.newpal_every_slice,
                "case {case}: newpal"
            );
            match opts.zero_runs {
                ZeroRuns::Off => assert_eq!(h.zdiv, 6, "case {case}"),
                ZeroRuns::Zdiv(z) => assert_eq!(h.zdiv, z, "case {case}"),
                ZeroRuns::AutoZdiv => assert!(h.zdiv < 4, "case {case}"),
                ZeroRuns::Auto => {}
            }
            match opts.index {
                IndexCoding::Uncompressed => assert_eq!(h.wdiv, 7, "case {case}"),
                IndexCoding::GolombRice { wdiv, wtrunc } => {
                    assert_eq!((h.wdiv, h.wtrunc), (wdiv, wtrunc), "case {case}")
                }
                IndexCoding::Auto => {}
            }
            let mode = format!(
                "zdiv {} wdiv {} wtrunc {} {}",
                h.zdiv,
                h.wdiv,
                h.wtrunc,
                match &h.new_palette {
                    None => "keep-palette",
                    Some(p) if p.entries.is_empty() => "direct",
                    Some(_) => "palette",
                }
            );
            *modes.entry(mode).or_default() += 1;
        }
    }
    println!("slice modes exercised: {modes:#?}");
    for zdiv in [0, 1, 2, 3, 6] {
        assert!(
            modes
                .keys()
                .any(|m| m.starts_with(&format!("zdiv {zdiv} "))),
            "zdiv {zdiv} never used"
        );
    }
    for wdiv in [0, 1, 2, 3, 4, 5, 7] {
        assert!(
            modes.keys().any(|m| m.contains(&format!("wdiv {wdiv} "))),
            "wdiv {wdiv} never used"
        );
    }
    for kind in ["wtrunc true", "direct", "palette", "keep-palette"] {
        assert!(modes.keys().any(|m| m.contains(kind)), "{kind} never used");
    }
}

#[test]
fn encoder_rejects_bad_input() {
    let opts = EncodeOptions::default();
    assert_eq!(
        encode(&[1, 256], &opts),
        Err(EncodeError::WeightOutOfRange {
            position: 1,
            value: 256
        })
    );
    let bad = |o: EncodeOptions| encode(&[1, 2, 3], &o);
    assert_eq!(
        bad(EncodeOptions {
            max_slice_len: 0,
            ..opts.clone()
        }),
        Err(EncodeError::BadSliceLength(0))
    );
    assert_eq!(
        bad(EncodeOptions {
            zero_runs: ZeroRuns::Zdiv(4),
            ..opts.clone()
        }),
        Err(EncodeError::BadZdiv(4))
    );
    assert_eq!(
        bad(EncodeOptions {
            index: IndexCoding::GolombRice {
                wdiv: 6,
                wtrunc: false
            },
            ..opts.clone()
        }),
        Err(EncodeError::BadWdiv(6))
    );
    assert_eq!(
        bad(EncodeOptions {
            palette: PaletteChoice::Given(vec![3]),
            ..opts.clone()
        }),
        Err(EncodeError::BadPalette)
    );
    assert!(matches!(
        encode(
            &[200],
            &EncodeOptions {
                index: IndexCoding::GolombRice {
                    wdiv: 0,
                    wtrunc: true
                },
                palette: PaletteChoice::Given(vec![1, 2]),
                ..opts.clone()
            }
        ),
        Err(EncodeError::QuotientTooLarge { .. })
    ));
}

/// Builds a stream bit by bit, LSB first (TRM 4.7.1), padded with 0xff to 16 bytes.
#[derive(Default)]
struct Bits(Vec<bool>);

impl Bits {
    fn put(mut self, len: u32, value: u32) -> Self {
        self.0.extend((0..len).map(|i| (value >> i) & 1 == 1));
        self
    }
    /// Slice header with `newpal` set, direct mode, `dirofs` and `palbits`.
    fn header(self, zdiv: u32, slicelen: u32, wdiv: u32, dirofs: u32, palbits: u32) -> Self {
        self.put(3, zdiv)
            .put(15, slicelen - 1)
            .put(3, wdiv)
            .put(1, 0)
            .put(1, 1)
            .put(5, dirofs)
            .put(5, 0)
            .put(3, palbits - 2)
    }
    fn bytes(self) -> Vec<u8> {
        let mut bytes = vec![0xffu8; self.0.len().div_ceil(128) * 16];
        for (i, &b) in self.0.iter().enumerate() {
            if !b {
                bytes[i / 8] &= !(1 << (i % 8));
            }
        }
        bytes
    }
}

#[test]
fn empty_and_padding_only_streams_decode_to_nothing() {
    assert_eq!(decode(&[]), Ok(vec![]));
    assert_eq!(decode(&[0xff; 32]), Ok(vec![]));
    assert_eq!(
        encode(&[], &EncodeOptions::default()).map(|s| s.len()),
        Ok(16)
    );
}

#[test]
fn hand_made_direct_uncompressed_stream() {
    // zdiv 6, 3 weights, wdiv 7 (uncompressed), direct mode, dirofs 0,
    // palbits 4: indices 2, 3, 0 are codes +1, -1, 0 (TRM 4.7.3.1).
    let s = Bits::default()
        .header(6, 3, 7, 0, 4)
        .put(4, 2)
        .put(4, 3)
        .put(4, 0)
        .bytes();
    assert_eq!(decode(&s), Ok(vec![1, -1, 0]));
}

#[test]
fn malformed_streams_name_the_rule_and_offset() {
    assert_eq!(
        decode(&[0xff; 15]),
        Err(WeightStreamError::NotWordAligned { len: 15 })
    );
    assert_eq!(
        decode(&Bits::default().put(3, 4).bytes()),
        Err(WeightStreamError::BadZdiv { bit: 0, zdiv: 4 })
    );
    assert_eq!(
        decode(&Bits::default().header(6, 1, 6, 0, 2).bytes()),
        Err(WeightStreamError::BadWdiv { bit: 18, wdiv: 6 })
    );
    assert_eq!(
        decode(&Bits::default().put(3, 7).put(1, 0).bytes()),
        Err(WeightStreamError::BadByteAlign { bit: 3 })
    );
    // newpal clear in the first slice.
    assert_eq!(
        decode(
            &Bits::default()
                .put(3, 6)
                .put(15, 0)
                .put(3, 0)
                .put(1, 0)
                .put(1, 0)
                .bytes()
        ),
        Err(WeightStreamError::FirstSliceWithoutPalette { bit: 0 })
    );
    // wunary0 and wunary1 all ones: quotient 24 then 48 > 31.
    let s = Bits::default()
        .header(6, 2, 0, 0, 2)
        .put(12, 0xfff)
        .put(12, 0xfff)
        .put(12, 0xfff)
        .bytes();
    assert!(matches!(
        decode(&s),
        Err(WeightStreamError::QuotientOverLimit { limit: 31, .. })
    ));
    // wdiv 5, quotient 16 (eight 1+1 pairs then 0): index 512.
    let s = Bits::default()
        .header(6, 1, 5, 0, 2)
        .put(12, 0x0ff)
        .put(8, 0xff)
        .put(12, 0)
        .put(5, 0)
        .bytes();
    assert!(matches!(
        decode(&s),
        Err(WeightStreamError::IndexOutOfRange { index: 512, .. })
    ));
    // Uncompressed 9-bit index 500 with dirofs 31: code 531, magnitude 265.
    let s = Bits::default().header(6, 1, 7, 31, 9).put(9, 500).bytes();
    assert!(matches!(
        decode(&s),
        Err(WeightStreamError::ValueOutOfRange { raw: 531, .. })
    ));
    // A plain slice, then a zero-run slice without newpal.
    let s = Bits::default()
        .header(6, 1, 7, 0, 2)
        .put(2, 2)
        .put(3, 0)
        .put(15, 0)
        .put(3, 7)
        .put(1, 0)
        .put(1, 0)
        .bytes();
    assert_eq!(
        decode(&s),
        Err(WeightStreamError::ModeChangeWithoutNewpal { bit: 38 })
    );
    // A slice of 4096 weights cannot fit in 16 bytes.
    let s = Bits::default().header(6, 4096, 7, 0, 9).bytes();
    assert!(matches!(
        decode(&s),
        Err(WeightStreamError::UnexpectedEnd {
            element: "wremain",
            ..
        })
    ));
}

#[test]
fn corrupted_streams_never_panic() {
    let mut rng = StdRng::seed_from_u64(seed());
    for _ in 0..2000 {
        let weights = random_weights(&mut rng);
        let mut stream = encode(&weights, &random_options(&mut rng)).unwrap_or_else(|_| {
            encode(&weights, &EncodeOptions::default()).expect("default options")
        });
        for _ in 0..rng.gen_range(1..4) {
            let bit = rng.gen_range(0..stream.len() * 8);
            stream[bit / 8] ^= 1 << (bit % 8);
        }
        let _ = decode(&stream);
        let garbage: Vec<u8> = (0..16 * rng.gen_range(1..8)).map(|_| rng.gen()).collect();
        let _ = decode(&garbage);
    }
}
