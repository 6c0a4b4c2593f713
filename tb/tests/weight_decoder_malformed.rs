//! Malformed weight streams (TRM 4.7 rules broken): the decoder reports the
//! fault the golden decoder finds, delivers the weights of the slices before
//! it, takes exactly ceil(WEIGHT_LENGTH / 16) words and never hangs; then it
//! decodes the next stream correctly.

use crate::weight_decoder_common::{patch, Pressure, WeightDecoderTb, Writer};
use npu_hw::weight_decoder::ErrorCode;
use npu_model::weights::{
    decode, encode, EncodeOptions, IndexCoding, SliceDecoder, WeightStreamError, ZeroRuns,
};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The code the hardware gives each golden-decoder error.
fn code_of(e: &WeightStreamError) -> ErrorCode {
    match e {
        WeightStreamError::NotWordAligned { .. } => ErrorCode::NotWordAligned,
        WeightStreamError::UnexpectedEnd { .. } => ErrorCode::UnexpectedEnd,
        WeightStreamError::BadZdiv { .. } => ErrorCode::BadZdiv,
        WeightStreamError::BadWdiv { .. } => ErrorCode::BadWdiv,
        WeightStreamError::BadByteAlign { .. } => ErrorCode::BadByteAlign,
        WeightStreamError::FirstSliceWithoutPalette { .. } => ErrorCode::FirstSliceWithoutPalette,
        WeightStreamError::ModeChangeWithoutNewpal { .. } => ErrorCode::ModeChangeWithoutNewpal,
        WeightStreamError::QuotientOverLimit { .. } => ErrorCode::QuotientOverLimit,
        WeightStreamError::IndexOutOfRange { .. } => ErrorCode::IndexOutOfRange,
        WeightStreamError::ValueOutOfRange { .. } => ErrorCode::ValueOutOfRange,
    }
}

fn sparse_weights(n: usize, rng: &mut StdRng) -> Vec<i16> {
    (0..n)
        .map(|_| match rng.gen_range(0..4) {
            0 => rng.gen_range(-60..=60),
            _ => 0,
        })
        .collect()
}

/// Decodes `stream` (`length` bytes) and checks the hardware reports `expected`,
/// the same fault as the golden decoder.
fn expect_fault(
    tb: &mut WeightDecoderTb,
    rng: &mut StdRng,
    stream: &[u8],
    length: u32,
    expected: ErrorCode,
    what: &str,
) {
    let golden = decode(&stream[..(length as usize).min(stream.len())])
        .expect_err("the golden decoder accepts the stream");
    assert_eq!(
        code_of(&golden),
        expected,
        "{what}: the golden decoder reports {golden}"
    );
    let pressure = Pressure::random(rng);
    let run = tb.check(stream, length, pressure, rng, what);
    if run.error_code != expected as u64 {
        tb.fail(&format!(
            "{what}: error code {} instead of {expected:?} ({}) for: {golden}",
            run.error_code, expected as u64
        ));
    }
}

/// A valid stream decodes correctly right after a broken one.
fn expect_recovery(tb: &mut WeightDecoderTb, rng: &mut StdRng) {
    let stream = encode(&sparse_weights(300, rng), &EncodeOptions::default()).unwrap();
    tb.check(
        &stream,
        stream.len() as u32,
        Pressure::random(rng),
        rng,
        "a valid stream after a broken one",
    );
}

#[test]
fn header_and_length_faults_are_reported() {
    let mut rng = StdRng::seed_from_u64(seed());
    let mut tb = WeightDecoderTb::new();
    let dense: Vec<i16> = (0..2000).map(|_| rng.gen_range(-120..=120)).collect();
    let valid = encode(&dense, &EncodeOptions::default()).unwrap();
    let len = valid.len() as u32;

    for zdiv in [4, 5] {
        let mut s = valid.clone();
        patch(&mut s, 0, 3, zdiv);
        expect_fault(&mut tb, &mut rng, &s, len, ErrorCode::BadZdiv, "zdiv 4/5");
        expect_recovery(&mut tb, &mut rng);
    }
    let mut s = valid.clone();
    patch(&mut s, 18, 3, 6);
    expect_fault(&mut tb, &mut rng, &s, len, ErrorCode::BadWdiv, "wdiv 6");
    expect_recovery(&mut tb, &mut rng);

    let mut s = valid.clone();
    patch(&mut s, 22, 1, 0);
    expect_fault(
        &mut tb,
        &mut rng,
        &s,
        len,
        ErrorCode::FirstSliceWithoutPalette,
        "first slice without newpal",
    );

    // A second slice that switches to plain coding without newpal.
    let opts = EncodeOptions {
        zero_runs: ZeroRuns::Zdiv(1),
        max_slice_len: 20,
        ..Default::default()
    };
    let mut s = encode(&sparse_weights(400, &mut rng), &opts).unwrap();
    let second = SliceDecoder::new(&s)
        .unwrap()
        .nth(1)
        .expect("two slices")
        .unwrap()
        .header
        .bit_offset;
    patch(&mut s, second, 3, 6);
    let n = s.len() as u32;
    expect_fault(
        &mut tb,
        &mut rng,
        &s,
        n,
        ErrorCode::ModeChangeWithoutNewpal,
        "mode change without newpal",
    );
    expect_recovery(&mut tb, &mut rng);

    // A 0 among the ones that pad to the byte boundary (the last byte is padding).
    let mut s = encode(&[5], &EncodeOptions::default()).unwrap();
    *s.last_mut().unwrap() = 0x7f;
    expect_fault(
        &mut tb,
        &mut rng,
        &s,
        16,
        ErrorCode::BadByteAlign,
        "bytealign 0",
    );

    // WEIGHT_LENGTH: not whole words; shorter than the stream.
    for cut in [len - 3, 5, 17] {
        expect_fault(
            &mut tb,
            &mut rng,
            &valid,
            cut,
            ErrorCode::NotWordAligned,
            "length not a multiple of 16",
        );
    }
    for cut in [16, 32, 160, len / 32 * 16] {
        expect_fault(
            &mut tb,
            &mut rng,
            &valid,
            cut,
            ErrorCode::UnexpectedEnd,
            "stream ends mid-slice",
        );
    }
    expect_recovery(&mut tb, &mut rng);
}

#[test]
fn chunk_faults_are_reported() {
    let mut rng = StdRng::seed_from_u64(seed());
    let mut tb = WeightDecoderTb::new();

    // Two chunks of twelve unary pairs "11": quotient 24, then over 31.
    let s = Writer::default()
        .direct_slice(6, 1, 0, 0, 2)
        .put(12, 0xfff)
        .put(12, 0xfff)
        .put(12, 0xfff)
        .put(12, 0xfff)
        .finish();
    expect_fault(
        &mut tb,
        &mut rng,
        &s,
        16,
        ErrorCode::QuotientOverLimit,
        "quotient 32",
    );
    expect_recovery(&mut tb, &mut rng);

    // Quotient 16 with wdiv 5: index 512 (TRM 4.7.3.1 allows 0-511).
    let s = Writer::default()
        .direct_slice(6, 1, 5, 0, 9)
        .put(12, 0xff)
        .put(8, 0xff)
        .put(5, 0)
        .finish();
    expect_fault(
        &mut tb,
        &mut rng,
        &s,
        16,
        ErrorCode::IndexOutOfRange,
        "index 512",
    );

    // Uncompressed index 500 with dirofs 31: magnitude 265.
    let s = Writer::default()
        .direct_slice(6, 1, 7, 31, 9)
        .put(9, 500)
        .finish();
    expect_fault(
        &mut tb,
        &mut rng,
        &s,
        16,
        ErrorCode::ValueOutOfRange,
        "magnitude 265",
    );
    expect_recovery(&mut tb, &mut rng);

    // A valid slice, then one that ends mid-chunk: the first slice's
    // weights come out before the error (`check` requires it).
    let mut w = Writer::default();
    w.direct_slice(6, 3, 7, 0, 8)
        .put(8, 10)
        .put(8, 20)
        .put(8, 30);
    w.direct_slice(6, 200, 7, 0, 8);
    for _ in 0..13 {
        w.put(8, 7);
    }
    let s = w.finish();
    let n = s.len() as u32;
    expect_fault(
        &mut tb,
        &mut rng,
        &s,
        n,
        ErrorCode::UnexpectedEnd,
        "second slice cut short",
    );
}

#[test]
fn random_corruptions_never_hang_or_read_past_the_length() {
    let mut rng = StdRng::seed_from_u64(seed());
    let mut tb = WeightDecoderTb::new();
    let mut broken = 0;
    for case in 0..1500 {
        let opts = EncodeOptions {
            zero_runs: [
                ZeroRuns::Off,
                ZeroRuns::Zdiv(rng.gen_range(0..4)),
                ZeroRuns::Auto,
            ][rng.gen_range(0..3)]
            .clone(),
            index: [
                IndexCoding::Auto,
                IndexCoding::Uncompressed,
                IndexCoding::GolombRice {
                    wdiv: rng.gen_range(3..6),
                    wtrunc: false,
                },
            ][rng.gen_range(0..3)]
            .clone(),
            max_slice_len: rng.gen_range(1..200),
            newpal_every_slice: rng.gen_bool(0.3),
            ..Default::default()
        };
        let Ok(mut stream) = encode(&sparse_weights(rng.gen_range(1..400), &mut rng), &opts) else {
            continue;
        };
        let mut length = stream.len() as u32;
        match rng.gen_range(0..4) {
            0 => {
                let at = rng.gen_range(0..stream.len() * 8);
                patch(&mut stream, at, 1, rng.gen_range(0..2));
            }
            1 => {
                for _ in 0..rng.gen_range(1..4) {
                    let at = rng.gen_range(0..stream.len());
                    stream[at] = rng.gen();
                }
            }
            2 => length = 16 * rng.gen_range(0..=length / 16),
            _ => length = rng.gen_range(0..=length),
        }
        let golden = decode(&stream[..length as usize]);
        let pressure = Pressure::random(&mut rng);
        let run = tb.check(&stream, length, pressure, &mut rng, &format!("case {case}"));
        if let Err(e) = golden {
            broken += 1;
            // Faults found while reading the header or padding: the same code.
            let header_fault = !matches!(
                e,
                WeightStreamError::UnexpectedEnd { .. }
                    | WeightStreamError::QuotientOverLimit { .. }
                    | WeightStreamError::IndexOutOfRange { .. }
                    | WeightStreamError::ValueOutOfRange { .. }
            );
            if header_fault && run.error_code != code_of(&e) as u64 {
                tb.fail(&format!(
                    "case {case}: error code {} for: {e}",
                    run.error_code
                ));
            }
        }
    }
    assert!(
        broken > 50,
        "only {broken} corrupted streams were malformed"
    );
}
