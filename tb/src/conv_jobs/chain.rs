//! Chains of operations in one stream: independent or dependent through
//! their feature maps, each with a BLOCKDEP the footprints allow.

use super::commands::{body, draw_blockdep, point_fm, set_blockdep, wait_for_lut_loads, FmRole};
use super::{ConvJob, ConvSpec, REGIONS};
use npu_arch::limits::BLOCKDEP_MAX;
use npu_model::cmdstream::{decode, encode, Command};
use npu_model::job::Job;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;

/// Random operations run back to back in one command stream.
pub struct ConvChain {
    pub parts: Vec<ConvJob>,
    pub job: Job,
}

impl ConvChain {
    /// Each part's description, in stream order.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self.parts.iter().map(|p| p.spec.describe()).collect();
        format!("a chain of {}: {}", parts.len(), parts.join(", then "))
    }
}

/// Job `index` of a run with `seed`: two to four random operations
/// (convolutions, depthwise convolutions and pools; all on u65-256, or all
/// in parallel mode on u65-512) in one command stream ([`chain`]), each with
/// its own IFM, weights and scales and a random NPU_SET_BLOCKDEP (0 to 3),
/// so the next operation's weight and scale reads, and its first IFM block
/// read where the block dependency allows, go ahead while the one before it
/// finishes (TRM 4.6.1, 4.9).
pub fn random_chain(seed: u64, index: u64) -> ConvChain {
    let mut rng =
        StdRng::seed_from_u64(seed ^ 0x6368_6169 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let parallel = rng.gen_bool(0.3);
    let count = rng.gen_range(2..=4);
    let parts: Vec<ConvSpec> = (0..count)
        .map(|_| random_part(&mut rng, parallel))
        .collect();
    // The parts share no data, so any block dependency is safe.
    let blockdeps: Vec<u16> = (0..count)
        .map(|_| rng.gen_range(0..=BLOCKDEP_MAX as u16))
        .collect();
    chain(&parts, &blockdeps, &mut rng)
}

/// Job `index` of a run with `seed`: two random operations (as
/// [`random_chain`] draws them), the second reading the first's OFM as its
/// IFM, with NPU_SET_BLOCKDEP the largest that is safe for their blocks
/// ([`largest_safe_blockdep`](npu_model::footprint::largest_safe_blockdep)) or 0, half the time each (TRM 4.9).
pub fn random_dependent_chain(seed: u64, index: u64) -> ConvChain {
    let mut rng =
        StdRng::seed_from_u64(seed ^ 0x6465_7065 ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let parallel = rng.gen_bool(0.3);
    let (first, second) = loop {
        let second = random_part(&mut rng, parallel);
        let first =
            random_part(&mut rng, parallel).with_ofm(second.ifm_shape(), second.ifm_type, &mut rng);
        if first.check().is_ok() {
            break (first, second);
        }
    };
    let built = chain(&[first, second], &[0, 0], &mut rng);
    let ofm = built.parts[0].ofm_map.clone();
    let mut commands = decode(&built.job.command_stream).expect("the chain's own stream");
    let second_start = commands
        .iter()
        .position(|c| c.op.is_kernel_op())
        .expect("the first operation")
        + 1;
    point_fm(&mut commands[second_start..], &ofm, FmRole::Ifm);
    let job = |commands: &[Command], what: &str| {
        Job::in_memory(
            built.job.config.clone(),
            encode(commands),
            built.job.regions.clone(),
            what,
        )
    };
    let (blockdep, safe) = draw_blockdep(&job(&commands, ""), &mut rng);
    set_blockdep(&mut commands[second_start..], blockdep);
    let what = format!(
        "{}, the second reading the first's OFM with BLOCKDEP {blockdep} (largest safe {safe})",
        built.describe()
    );
    ConvChain {
        job: job(&commands, &what),
        parts: built.parts,
    }
}

/// Adds `from`'s regions to `into`; each part of a job has its own.
pub(crate) fn merge_regions(into: &mut BTreeMap<usize, Vec<u8>>, from: &BTreeMap<usize, Vec<u8>>) {
    for (&region, bytes) in from {
        let clash = into.insert(region, bytes.clone());
        assert!(clash.is_none(), "region {region} belongs to one part");
    }
}

/// One operation of a random chain: a pool a third of the time, in
/// parallel mode on u65-512 or on u65-256 as `parallel` says.
pub(crate) fn random_part(rng: &mut StdRng, parallel: bool) -> ConvSpec {
    loop {
        let spec = match rng.gen_range(0..3) {
            0 => ConvSpec::random_pool(rng),
            _ if parallel => ConvSpec::random_parallel(rng),
            _ => ConvSpec::random(rng),
        };
        if spec.parallel == parallel {
            return spec;
        }
    }
}

/// `parts` built with `rng` and run back to back, part k with
/// NPU_SET_BLOCKDEP `blockdeps[k]` and the regions r with r mod n = k of the
/// n parts (so no part's data moves and none reads another's). A part that
/// loads its LUT with user DMAs waits for the kernel operations before it
/// first (NPU_OP_KERNEL_WAIT 0), as Vela orders a DMA into a shared-buffer
/// area an earlier operation reads.
pub fn chain(parts: &[ConvSpec], blockdeps: &[u16], rng: &mut StdRng) -> ConvChain {
    let count = parts.len();
    let parts: Vec<ConvJob> = parts
        .iter()
        .enumerate()
        .map(|(part, spec)| {
            let own: Vec<usize> = (0..REGIONS).filter(|r| r % count == part).collect();
            let spec = ConvSpec {
                regions: spec.regions.map(|r| own[r % own.len()]),
                ..spec.clone()
            };
            spec.build(rng)
                .unwrap_or_else(|e| panic!("the generator made an invalid spec ({e}): {spec:?}"))
        })
        .collect();
    let mut commands = Vec::new();
    let mut regions = BTreeMap::new();
    for (k, part) in parts.iter().enumerate() {
        let mut body = body(&part.commands);
        set_blockdep(&mut body, blockdeps[k]);
        if k > 0 {
            wait_for_lut_loads(&mut commands, &body);
        }
        commands.extend(body);
        merge_regions(&mut regions, &part.job.regions);
    }
    let stop = parts.last().and_then(|p| p.commands.last());
    commands.push(*stop.expect("a part"));
    let job = Job::in_memory(
        parts[0].job.config.clone(),
        encode(&commands),
        regions,
        &format!("{count} operations back to back"),
    );
    ConvChain { parts, job }
}
