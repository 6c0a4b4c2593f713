//! Job folders (shared JOBS.md format) written from a stream and its
//! regions: how the fuzzer and the random suites keep a failing case.

use crate::cmdstream::disassemble_words;
use crate::job::{JobSpec, OutputSpec, RegionSpec};
use anyhow::{Context, Result};
use npu_arch::config::NpuConfig;
use std::collections::BTreeMap;
use std::path::Path;

/// Writes a job folder: `job.json`, the stream as `cmd.bin` and as a listing
/// `cmd.lst`, one image per region, every region an output.
pub fn save_job(
    dir: &Path,
    config: &NpuConfig,
    words: &[u32],
    regions: &BTreeMap<usize, Vec<u8>>,
    description: &str,
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(dir.join(name), bytes)
            .with_context(|| format!("writing {}", dir.join(name).display()))
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    write("cmd.bin", &bytes)?;
    write("cmd.lst", disassemble_words(words).as_bytes())?;
    let mut region_specs = Vec::new();
    let mut outputs = Vec::new();
    for (&index, bytes) in regions {
        let file = format!("region{index}.bin");
        write(&file, bytes)?;
        region_specs.push(RegionSpec {
            index,
            file,
            size: bytes.len(),
        });
        outputs.push(OutputSpec {
            name: format!("region{index}"),
            region: index,
            offset: 0,
            size: bytes.len(),
            expected: None,
        });
    }
    let spec = JobSpec {
        config: config.name.clone(),
        command_stream: "cmd.bin".into(),
        regions: region_specs,
        outputs,
        description: Some(description.into()),
    };
    write("job.json", serde_json::to_string_pretty(&spec)?.as_bytes())
}
