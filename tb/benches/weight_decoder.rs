//! Weight-decoder throughput: decoded weights per cycle for dense, sparse and
//! palette-heavy streams and for Vela's streams, with input always valid and
//! output always ready (target: 8 per cycle on dense streams).

#[path = "../tests/weight_decoder_common/mod.rs"]
mod weight_decoder_common;

use npu_model::weights::{encode, EncodeOptions, IndexCoding, PaletteChoice, SliceDecoder};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use weight_decoder_common::{Pressure, WeightDecoderTb};

const WEIGHTS: usize = 60_000;

/// A named stream and how it was made.
struct Case {
    name: String,
    stream: Vec<u8>,
}

fn encoded(name: &str, weights: &[i16], opts: EncodeOptions) -> Case {
    Case {
        name: name.into(),
        stream: encode(weights, &opts).expect("encodable"),
    }
}

fn cases(rng: &mut StdRng) -> Vec<Case> {
    let dense: Vec<i16> = (0..WEIGHTS).map(|_| rng.gen_range(-127..=127)).collect();
    let narrow: Vec<i16> = (0..WEIGHTS).map(|_| rng.gen_range(-7..=7)).collect();
    let sparse: Vec<i16> = (0..WEIGHTS)
        .map(|_| match rng.gen_range(0..10) {
            0..=7 => 0,
            _ => rng.gen_range(-127..=127),
        })
        .collect();
    let very_sparse: Vec<i16> = (0..WEIGHTS)
        .map(|_| match rng.gen_range(0..100) {
            0 => rng.gen_range(-127..=127),
            _ => 0,
        })
        .collect();
    let levels: Vec<i16> = (0..16).map(|i| i * 13 - 100).collect();
    let palette: Vec<i16> = (0..WEIGHTS)
        .map(|_| levels[rng.gen_range(0..levels.len())])
        .collect();
    let plain = |index| EncodeOptions {
        zero_runs: npu_model::weights::ZeroRuns::Off,
        index,
        ..Default::default()
    };
    vec![
        encoded("dense int8, best coding", &dense, EncodeOptions::default()),
        encoded(
            "dense int8, uncompressed 8-bit",
            &dense,
            plain(IndexCoding::Uncompressed),
        ),
        encoded(
            "dense int8, Golomb-Rice wdiv 5",
            &dense,
            plain(IndexCoding::GolombRice {
                wdiv: 5,
                wtrunc: false,
            }),
        ),
        encoded(
            "dense -7..7, best coding",
            &narrow,
            EncodeOptions::default(),
        ),
        encoded("sparse 80% zeros", &sparse, EncodeOptions::default()),
        encoded("sparse 99% zeros", &very_sparse, EncodeOptions::default()),
        encoded("palette 16 levels", &palette, EncodeOptions::default()),
        encoded(
            "palette 16 levels, reload every 64",
            &palette,
            EncodeOptions {
                palette: PaletteChoice::Auto,
                max_slice_len: 64,
                newpal_every_slice: true,
                ..Default::default()
            },
        ),
    ]
}

fn vela_cases() -> Vec<Case> {
    let dir = npu_tb::verilator::workspace_root().join("model/tests/fixtures/weights");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| Case {
            name: format!(
                "Vela {}",
                f.file_stem().unwrap_or_default().to_string_lossy()
            ),
            stream: std::fs::read(&f).expect("fixture"),
        })
        .collect()
}

/// The slice modes of a stream, as `zdiv`/`wdiv` pairs, for the table.
fn modes(stream: &[u8]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for s in SliceDecoder::new(stream).expect("aligned").flatten() {
        let m = format!(
            "z{} w{}{}{}",
            s.header.zdiv,
            s.header.wdiv,
            if s.header.wtrunc { "t" } else { "" },
            s.header
                .new_palette
                .as_ref()
                .map_or(String::new(), |p| format!(" p{}", p.entries.len()))
        );
        if !seen.contains(&m) {
            seen.push(m);
        }
    }
    if seen.len() > 3 {
        format!("{}, ... ({} kinds)", seen[..3].join(", "), seen.len())
    } else {
        seen.join(", ")
    }
}

fn main() {
    let mut rng = StdRng::seed_from_u64(1);
    let mut tb = WeightDecoderTb::new();
    println!(
        "{:<36} {:>8} {:>8} {:>9} {:>8}  slice modes",
        "stream", "weights", "bytes", "cycles", "w/cycle"
    );
    let mut vela = (0usize, 0u64);
    for case in cases(&mut rng).into_iter().chain(vela_cases()) {
        let run = tb.check(
            &case.stream,
            case.stream.len() as u32,
            Pressure::NONE,
            &mut rng,
            &case.name,
        );
        let rate = run.weights.len() as f64 / run.cycles as f64;
        println!(
            "{:<36} {:>8} {:>8} {:>9} {:>8.2}  {}",
            case.name,
            run.weights.len(),
            case.stream.len(),
            run.cycles,
            rate,
            modes(&case.stream)
        );
        if case.name.starts_with("Vela") {
            vela.0 += run.weights.len();
            vela.1 += run.cycles;
        }
    }
    println!(
        "{:<36} {:>8} {:>8} {:>9} {:>8.2}",
        "Vela fixtures, all",
        vela.0,
        "",
        vela.1,
        vela.0 as f64 / vela.1 as f64
    );
}
