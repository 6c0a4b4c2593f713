//! The Vela-made job fixtures (`model/tests/fixtures/jobs`, shared JOBS.md
//! format): every job.json is well formed, and every weight stream a
//! convolution names decodes.

use std::fs;
use std::path::{Path, PathBuf};

use npu_model::payload::{is_driver_payload, DriverPayload};
use npu_model::weights::decode;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Job {
    config: String,
    command_stream: String,
    regions: Vec<Region>,
    outputs: Vec<Output>,
    description: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Region {
    index: u32,
    file: String,
    size: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Output {
    name: String,
    region: u32,
    offset: usize,
    size: usize,
    expected: String,
}

fn jobs() -> Vec<PathBuf> {
    let root =
        Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo and nextest"))
            .join("tests/fixtures/jobs");
    let mut dirs: Vec<PathBuf> = fs::read_dir(root)
        .expect("jobs directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.join("job.json").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 50, "expected the committed Vela job fixtures");
    dirs
}

fn load(dir: &Path) -> Job {
    let text = fs::read_to_string(dir.join("job.json")).expect("read job.json");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

#[test]
fn job_files_follow_the_job_format() {
    for dir in jobs() {
        let job = load(&dir);
        let name = dir.display();
        assert!(
            ["u65-256", "u65-512"].contains(&job.config.as_str()),
            "{name}: config"
        );
        assert!(!job.description.is_empty(), "{name}: description");
        let cmd = fs::read(dir.join(&job.command_stream)).expect("command stream");
        assert_eq!(cmd.len() % 4, 0, "{name}: whole 32-bit words");
        for r in &job.regions {
            assert!(r.index < 8, "{name}: region index");
            let len = fs::metadata(dir.join(&r.file)).expect("region file").len() as usize;
            assert_eq!(
                len, r.size,
                "{name}: region {} size equals its file",
                r.index
            );
        }
        for o in &job.outputs {
            let region = job
                .regions
                .iter()
                .find(|r| r.index == o.region)
                .expect("output region exists");
            assert!(
                o.offset + o.size <= region.size,
                "{name}: output {} inside its region",
                o.name
            );
            let expected = fs::metadata(dir.join(&o.expected))
                .expect("expected file")
                .len() as usize;
            assert_eq!(expected, o.size, "{name}: expected file size");
        }
    }
}

/// Weight streams `(region, offset, length)` in effect at each NPU_OP_CONV and
/// NPU_OP_DEPTHWISE of a command stream (TRM 4.6.4, 4.6.5). A stream an
/// earlier 1D DMA copied into place (Vela stages weights in the fast scratch
/// region) is named by where the DMA read it.
fn weight_streams(words: &[u32]) -> Vec<(u32, usize, usize)> {
    let (mut region, mut base, mut len) = (0u32, [0usize; 2], [0usize; 2]);
    // DMA registers: source region, destination region, source, destination, length.
    let (mut dma_regions, mut dma) = ([0u32; 2], [0usize; 3]);
    // Copies (source region, source, destination region, destination, length).
    let mut copies: Vec<(u32, usize, u32, usize, usize)> = Vec::new();
    let mut found = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (w, opcode) = (words[i], words[i] & 0x3ff);
        let param = w >> 16;
        if (w >> 14) & 3 == 1 {
            let payload = *words.get(i + 1).expect("cmd1 payload") as usize;
            let ext = (param as usize & 0xff) << 32;
            match opcode {
                0x020 => base[0] = payload | ext,
                0x021 => len[0] = payload,
                0x090 => base[1] = payload | ext,
                0x091 => len[1] = payload,
                0x030..=0x032 => dma[(opcode - 0x030) as usize] = payload | ext,
                _ => {}
            }
            i += 2;
            continue;
        }
        match opcode {
            0x128 => region = param,
            0x130 => dma_regions[0] = param,
            0x131 => dma_regions[1] = param,
            // NPU_OP_DMA_START of a 1D copy between external regions.
            0x010 if (dma_regions[0] | dma_regions[1]) & 0x700 == 0 => {
                copies.push((dma_regions[0], dma[0], dma_regions[1], dma[1], dma[2]))
            }
            0x002 | 0x003 => {
                for k in 0..2 {
                    if len[k] > 0 {
                        let source = copies.iter().rev().find(|c| {
                            c.2 == region && c.3 <= base[k] && base[k] + len[k] <= c.3 + c.4
                        });
                        found.push(match source {
                            Some(&(r, src, _, dst, _)) => (r, src + base[k] - dst, len[k]),
                            None => (region, base[k], len[k]),
                        });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The command stream's words; a COP1 driver payload (Vela-compiled jobs)
/// gives its command streams.
fn stream_words(cmd: &[u8]) -> Vec<u32> {
    if is_driver_payload(cmd) {
        return DriverPayload::parse(cmd)
            .expect("COP1 payload")
            .command_stream();
    }
    cmd.chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

#[test]
fn every_weight_stream_in_the_jobs_decodes() {
    let mut streams = 0;
    for dir in jobs() {
        let job = load(&dir);
        let cmd = fs::read(dir.join(&job.command_stream)).expect("command stream");
        for (region, offset, len) in weight_streams(&stream_words(&cmd)) {
            let file = &job
                .regions
                .iter()
                .find(|r| r.index == region)
                .expect("weight region")
                .file;
            let bytes = fs::read(dir.join(file)).expect("region file");
            let stream = &bytes[offset..offset + len];
            let weights = decode(stream).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            assert!(
                !weights.is_empty(),
                "{}: empty weight stream",
                dir.display()
            );
            streams += 1;
        }
    }
    assert!(streams >= 20, "only {streams} weight streams found");
}
