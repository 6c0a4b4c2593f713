//! The weight decoder block (TRM 3.3.5, 4.7) against the golden decoder,
//! weight by weight, under random back-pressure on both streams: streams of
//! random weights encoded in every coding mode by the golden encoder, and
//! the streams Vela's `npu_encode_weights` made (committed fixtures).

use crate::weight_decoder_common::{Pressure, WeightDecoderTb, Writer};
use npu_model::weights::{
    encode, EncodeOptions, IndexCoding, PaletteChoice, SliceDecoder, ZeroRuns,
};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;

/// Kinds of weight sets: how many are zero and how wide the rest are.
#[derive(Clone, Copy, Debug)]
enum Weights {
    /// Uniform in -amplitude..=amplitude.
    Dense,
    /// Mostly zeros, short and long runs of them.
    Sparse,
    /// A handful of distinct values.
    FewValues,
}

fn weights(kind: Weights, amplitude: i16, n: usize, rng: &mut StdRng) -> Vec<i16> {
    let value = |rng: &mut StdRng| rng.gen_range(-amplitude..=amplitude);
    match kind {
        Weights::Dense => (0..n).map(|_| value(rng)).collect(),
        Weights::Sparse => {
            let mut w = Vec::with_capacity(n);
            while w.len() < n {
                let run = match rng.gen_range(0..10) {
                    0 => rng.gen_range(20..300),
                    _ => rng.gen_range(0..6),
                };
                w.extend(std::iter::repeat_n(0, run));
                w.push(value(rng));
            }
            w.truncate(n);
            w
        }
        Weights::FewValues => {
            let count = rng.gen_range(2..=32);
            let set: Vec<i16> = (0..count).map(|_| value(rng)).collect();
            (0..n).map(|_| set[rng.gen_range(0..set.len())]).collect()
        }
    }
}

/// Encodes random weights of `kind` with `opts`, narrowing the values until
/// the options can code them (wtrunc and small divisors only reach small
/// indices): smaller amplitudes, or with a given palette its first entries.
fn encodable(kind: Weights, opts: &EncodeOptions, rng: &mut StdRng) -> (Vec<i16>, Vec<u8>) {
    let n = rng.gen_range(1..1500);
    for amplitude in [255, 100, 30, 8, 3, 1, 0] {
        let mut w = weights(kind, amplitude, n, rng);
        if let PaletteChoice::Given(palette) = &opts.palette {
            let entries = &palette[..palette.len().min(usize::from(amplitude.unsigned_abs()) + 1)];
            for x in w.iter_mut() {
                *x = entries[usize::from(x.unsigned_abs()) % entries.len()];
            }
        }
        if let Ok(stream) = encode(&w, opts) {
            return (w, stream);
        }
    }
    panic!("{opts:?} cannot encode even zeros")
}

/// Every coding mode the encoder can be told to use (TRM 4.7.3, 4.7.4).
fn every_mode() -> Vec<EncodeOptions> {
    let zero_runs = [
        ZeroRuns::Off,
        ZeroRuns::Zdiv(0),
        ZeroRuns::Zdiv(1),
        ZeroRuns::Zdiv(2),
        ZeroRuns::Zdiv(3),
        ZeroRuns::AutoZdiv,
    ];
    let mut index = vec![IndexCoding::Uncompressed, IndexCoding::Auto];
    for wdiv in 0..=5 {
        for wtrunc in [false, true] {
            index.push(IndexCoding::GolombRice { wdiv, wtrunc });
        }
    }
    let palettes = [
        PaletteChoice::Direct,
        PaletteChoice::Auto,
        PaletteChoice::Given(vec![0, 1, -1, 2, -2, 7, 100]),
        PaletteChoice::Given((0..32).map(|i| (i * 8 - 128) as i16).collect()),
    ];
    let mut modes = Vec::new();
    for (z, zero_runs) in zero_runs.iter().enumerate() {
        for (i, index) in index.iter().enumerate() {
            for (p, palette) in palettes.iter().enumerate() {
                // Short slices and palette reloads in a quarter of the cases.
                let variant = (z + i + p) % 4;
                modes.push(EncodeOptions {
                    zero_runs: zero_runs.clone(),
                    index: index.clone(),
                    palette: palette.clone(),
                    max_slice_len: if variant < 2 { 1 + 37 * variant } else { 32768 },
                    newpal_every_slice: variant == 1,
                });
            }
        }
    }
    modes
}

/// Which syntax the streams of a test exercised.
#[derive(Default)]
struct Coverage {
    zdiv: BTreeSet<u8>,
    wdiv: BTreeSet<(u8, bool)>,
    palette_sizes: BTreeSet<usize>,
    palette_bits: BTreeSet<u8>,
    dirofs_nonzero: bool,
    reloads: bool,
    multi_chunk_zero_run: bool,
}

impl Coverage {
    fn add(&mut self, stream: &[u8]) {
        for (n, slice) in SliceDecoder::new(stream).unwrap().enumerate() {
            let s = slice.unwrap();
            self.zdiv.insert(s.header.zdiv);
            self.wdiv.insert((s.header.wdiv, s.header.wtrunc));
            if let Some(p) = &s.header.new_palette {
                self.palette_sizes.insert(p.entries.len());
                self.palette_bits.insert(p.palette_bits);
                self.dirofs_nonzero |= p.dirofs != 0;
                self.reloads |= n > 0;
            }
            self.multi_chunk_zero_run |=
                s.header.zdiv == 0 && s.weights.windows(13).any(|w| w.iter().all(|&x| x == 0));
        }
    }

    fn assert_complete(&self) {
        assert_eq!(
            self.zdiv,
            [0, 1, 2, 3, 6].into(),
            "zdiv values (TRM table 4-112)"
        );
        for wdiv in 0..=5 {
            for wtrunc in [false, true] {
                assert!(
                    self.wdiv.contains(&(wdiv, wtrunc)),
                    "wdiv {wdiv} wtrunc {wtrunc}"
                );
            }
        }
        assert!(self.wdiv.contains(&(7, false)), "uncompressed");
        assert!(self.palette_sizes.contains(&0), "direct mode");
        assert!(self.palette_sizes.iter().any(|&s| (2..=16).contains(&s)));
        assert!(
            self.palette_sizes.iter().any(|&s| s > 16),
            "two palette groups"
        );
        assert!(self.palette_sizes.contains(&32), "32-entry palette");
        assert!(self.palette_bits.contains(&9), "9-bit palette entries");
        assert!(self.dirofs_nonzero, "direct mode with dirofs");
        assert!(self.reloads, "newpal with palette reload");
        assert!(self.multi_chunk_zero_run, "a zero run across chunks");
    }
}

#[test]
fn every_coding_mode_matches_the_golden_decoder() {
    let mut rng = StdRng::seed_from_u64(seed());
    let mut tb = WeightDecoderTb::new();
    let mut coverage = Coverage::default();
    for (n, opts) in every_mode().iter().enumerate() {
        for kind in [Weights::Dense, Weights::Sparse, Weights::FewValues] {
            let (_, stream) = encodable(kind, opts, &mut rng);
            coverage.add(&stream);
            let pressure = Pressure::random(&mut rng);
            tb.check(
                &stream,
                stream.len() as u32,
                pressure,
                &mut rng,
                &format!("mode {n}: {kind:?} weights, {opts:?}, {pressure:?}"),
            );
        }
    }
    coverage.assert_complete();
}

#[test]
fn vela_streams_match_the_golden_decoder() {
    let mut rng = StdRng::seed_from_u64(seed());
    let dir = npu_tb::verilator::workspace_root().join("model/tests/fixtures/weights");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "expected the committed Vela fixtures");
    let mut tb = WeightDecoderTb::new();
    for file in files {
        let stream = std::fs::read(&file).unwrap();
        let pressure = Pressure::random(&mut rng);
        tb.check(
            &stream,
            stream.len() as u32,
            pressure,
            &mut rng,
            &format!("{}, {pressure:?}", file.display()),
        );
    }
}

#[test]
fn empty_stream_and_back_to_back_streams() {
    let mut rng = StdRng::seed_from_u64(seed());
    let mut tb = WeightDecoderTb::new();
    tb.check(&[], 0, Pressure::NONE, &mut rng, "empty stream");
    for n in 0..6 {
        let opts = EncodeOptions {
            max_slice_len: 50,
            ..Default::default()
        };
        let kind = [Weights::Dense, Weights::Sparse, Weights::FewValues][n % 3];
        let (_, stream) = encodable(kind, &opts, &mut rng);
        tb.check(
            &stream,
            stream.len() as u32,
            Pressure::NONE,
            &mut rng,
            &format!("stream {n} of a sequence"),
        );
    }
}

#[test]
fn padding_between_slices_and_the_longest_slices() {
    let mut rng = StdRng::seed_from_u64(seed());
    let mut tb = WeightDecoderTb::new();
    // TRM 4.7.2: zdiv 7 padding may come between slices, not only at the end.
    let mut w = Writer::default();
    w.direct_slice(6, 3, 7, 0, 8)
        .put(8, 10)
        .put(8, 21)
        .put(8, 255);
    w.put(3, 7);
    while w.pos % 8 != 0 {
        w.put(1, 1);
    }
    for _ in 0..20 {
        w.put(8, 0xff);
    }
    w.direct_slice(6, 2, 7, 3, 8).put(8, 30).put(8, 4);
    let stream = w.finish();
    tb.check(
        &stream,
        stream.len() as u32,
        Pressure::random(&mut rng),
        &mut rng,
        "padding between slices",
    );

    // Streams one after the other make one stream: 0xff words between slices.
    let a = encode(
        &weights(Weights::Sparse, 50, 700, &mut rng),
        &EncodeOptions::default(),
    )
    .unwrap();
    let b = encode(
        &weights(Weights::FewValues, 200, 900, &mut rng),
        &EncodeOptions::default(),
    )
    .unwrap();
    let stream = [a, b].concat();
    tb.check(
        &stream,
        stream.len() as u32,
        Pressure::random(&mut rng),
        &mut rng,
        "two streams back to back",
    );

    // slicelen at its 15-bit limit (32768 weights), alternating and plain.
    let long = weights(Weights::Dense, 100, 70_000, &mut rng);
    for zero_runs in [ZeroRuns::Zdiv(2), ZeroRuns::Off] {
        let opts = EncodeOptions {
            zero_runs,
            ..Default::default()
        };
        let stream = encode(&long, &opts).unwrap();
        let first = SliceDecoder::new(&stream).unwrap().next().unwrap().unwrap();
        assert_eq!(first.header.slice_length, 32768);
        tb.check(
            &stream,
            stream.len() as u32,
            Pressure::random(&mut rng),
            &mut rng,
            "32768-weight slices",
        );
    }
}

#[test]
fn start_waits_for_idle_and_reset_aborts_a_stream() {
    let mut rng = StdRng::seed_from_u64(seed());
    let mut tb = WeightDecoderTb::new();
    let stream = encode(
        &weights(Weights::Dense, 100, 3000, &mut rng),
        &EncodeOptions::default(),
    )
    .unwrap();
    let words: Vec<[u32; 4]> = stream
        .chunks(16)
        .map(|w| {
            std::array::from_fn(|i| u32::from_le_bytes(w[4 * i..4 * i + 4].try_into().unwrap()))
        })
        .collect();
    let m = &mut tb.tb.model;
    let [start, length, in_valid, in_data, in_ready, out_ready, busy, error, rst_n] = [
        "start",
        "length",
        "words_valid",
        "words_data",
        "words_ready",
        "weights_ready",
        "busy",
        "error",
        "rst_n",
    ]
    .map(|n| m.port(n));
    m.set(start, 1);
    m.set(length, stream.len() as u64);
    m.tick();
    m.set(out_ready, 1);
    m.set(in_valid, 1);
    let mut taken = 0;
    let mut cycles = 0;
    while m.get(busy) != 0 {
        // A second start (of a length that is not whole words) while busy is ignored.
        m.set(start, u64::from(cycles == 5));
        m.set(length, if cycles == 5 { 17 } else { 0 });
        m.set_wide(in_data, &words[taken.min(words.len() - 1)]);
        m.eval();
        let took = m.get(in_ready) != 0;
        m.tick();
        taken += usize::from(took);
        cycles += 1;
        assert!(cycles < 10_000, "the stream never ends");
    }
    assert_eq!(taken, words.len(), "words taken");
    assert_eq!(m.get(error), 0, "the start while busy was taken");

    // nRESET in the middle of a stream: idle at once, then decodes afresh.
    m.set(start, 1);
    m.set(length, stream.len() as u64);
    m.tick();
    m.set(start, 0);
    m.set_wide(in_data, &words[0]);
    for _ in 0..4 {
        m.tick();
    }
    assert_eq!(m.get(busy), 1);
    m.set(rst_n, 0);
    m.eval();
    assert_eq!(m.get(busy), 0, "reset is asynchronous");
    m.tick();
    m.set(rst_n, 1);
    m.set(in_valid, 0);
    m.tick();
    tb.check(
        &stream,
        stream.len() as u32,
        Pressure::random(&mut rng),
        &mut rng,
        "after a reset",
    );
}
