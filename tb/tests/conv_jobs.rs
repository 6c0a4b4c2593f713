//! The convolution job generator (`npu_tb::conv_jobs`): random jobs pass the
//! runner's check and run to NPU_OP_STOP on the golden model; their IFM is
//! where the registers say, nothing the operation reads overlaps the OFM,
//! and the golden OFM equals a direct convolution computed here from the
//! job's own parameters (IFM values, OHWI weights, scale records), with
//! element addresses worked out here from TRM 3.1.1 and 4.6.5. Every knob
//! occurs, and outputs are mostly not saturated.

use npu_arch::command::{
    AccFormat, ActivationFunction, KernelDecomposition, Layout, OfmScaleMode, Opcode, RoundMode,
    UpscaleMode, WeightOrder,
};
use npu_model::cmdstream::Command;
use npu_model::job::Job;
use npu_model::ops::{scale_accumulator, OutStage};
use npu_model::tensor::{DType, FeatureMap};
use npu_tb::conv_jobs::{
    golden_run, random_job, random_parallel_job, save, ConvJob, ConvKind, ConvSpec, Tiles,
};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::collections::BTreeMap;

const JOBS: u64 = 300;

/// Byte offset of element (y, x, c) in its region: tile by WIDTH0 /
/// HEIGHT0 / HEIGHT1 (TRM 4.6.5), then NHWC or NHCWB16 (TRM 3.1.1).
fn element_offset(fm: &FeatureMap, y: usize, x: usize, c: usize) -> usize {
    let right = x >= fm.width0;
    let split = if right { fm.height1 } else { fm.height0 };
    let below = y >= split;
    let tile = usize::from(right) + 2 * usize::from(below);
    let ty = if below { y - split } else { y };
    let tx = if right { x - fm.width0 } else { x };
    let e = fm.dtype.bytes();
    let inner = match fm.layout {
        Layout::Nhwc => tx * fm.stride_x as usize + c * e,
        Layout::Nhcwb16 => (c / 16) * fm.stride_c as usize + (tx * 16 + c % 16) * e,
    };
    fm.base[tile] as usize + ty * fm.stride_y as usize + inner
}

/// The upscaled IFM extent the kernel windows read: rows and columns the
/// windows cover minus the padding.
fn upscaled_extent(s: &ConvSpec) -> (usize, usize) {
    let covered = |o: usize, stride: usize, k: usize, d: usize| (o - 1) * stride + (k - 1) * d + 1;
    (
        covered(s.ofm[0], s.stride[0], s.kernel[0], s.dilation[0]) - s.pad[0] - s.pad[2],
        covered(s.ofm[1], s.stride[1], s.kernel[1], s.dilation[1]) - s.pad[1] - s.pad[3],
    )
}

/// The convolution computed directly: per OFM element, the sum over kernel
/// taps (and IFM channels) of (IFM - zero point) x weight, padding and
/// inserted zeros reading 0, then bias, scale, zero point and clamps.
fn direct(cj: &ConvJob) -> Vec<i64> {
    let s = &cj.spec;
    let [oh, ow, oc] = s.ofm;
    let [kh, kw] = s.kernel;
    let (uh, uw) = upscaled_extent(s);
    let [_, w, c] = cj.ifm_shape;
    let depthwise = s.kind == ConvKind::Depthwise;
    let activation = |uy: i64, ux: i64, ch: usize| -> i64 {
        if uy < 0 || ux < 0 || uy >= uh as i64 || ux >= uw as i64 {
            return 0;
        }
        let (y, x) = match s.upscale {
            UpscaleMode::None => (uy as usize, ux as usize),
            UpscaleMode::Nearest => (uy as usize / 2, ux as usize / 2),
            UpscaleMode::Zeros if uy % 2 == 1 || ux % 2 == 1 => return 0,
            UpscaleMode::Zeros => (uy as usize / 2, ux as usize / 2),
        };
        cj.ifm[(y * w + x) * c + ch] - s.ifm_zero_point
    };
    let clip = s.force_clip.then_some(s.ofm_type);
    let stage = OutStage::with_activation(
        s.ofm_type,
        s.ofm_zero_point,
        clip,
        cj.activation_min,
        cj.activation_max,
        s.activation,
        cj.luts.clone(),
    );
    let taps = if depthwise { 1 } else { c };
    let mut out = Vec::with_capacity(oh * ow * oc);
    for oy in 0..oh {
        for ox in 0..ow {
            for o in 0..oc {
                let mut acc = 0i64;
                for ky in 0..kh {
                    for kx in 0..kw {
                        let uy = (oy * s.stride[0] + ky * s.dilation[0]) as i64 - s.pad[0] as i64;
                        let ux = (ox * s.stride[1] + kx * s.dilation[1]) as i64 - s.pad[1] as i64;
                        for i in 0..taps {
                            let ch = if depthwise { o } else { i };
                            let weight = cj.weights[((o * kh + ky) * kw + kx) * taps + i];
                            acc += activation(uy, ux, ch) * weight as i64;
                        }
                    }
                }
                let scaled = scale_accumulator(acc, &cj.scales[o], s.acc, s.round);
                // Parallel mode: channel o is core o % 2's (golden `core_of`).
                let core = if s.parallel { o % 2 } else { 0 };
                out.push(stage.finish(scaled, core));
            }
        }
    }
    out
}

/// The address a cmd1 command of the stream sets.
fn address(commands: &[Command], op: Opcode) -> Option<usize> {
    commands
        .iter()
        .find(|c| c.op == op)
        .map(|c| (c.value() & 0xffff_ffff_ffff) as usize)
}

/// The generator's promises about memory: the IFM values at their
/// addresses, and no byte of the OFM on an IFM element, the weight stream
/// or the scale stream.
fn check_memory(cj: &ConvJob) {
    let s = &cj.spec;
    let (uh, uw) = upscaled_extent(s);
    let up = if s.upscale == UpscaleMode::None { 1 } else { 2 };
    let channels = if s.kind == ConvKind::Depthwise {
        s.ofm[2]
    } else {
        s.ifm_depth
    };
    assert_eq!(
        cj.ifm_shape,
        [uh.div_ceil(up), uw.div_ceil(up), channels],
        "IFM shape"
    );
    let mut ofm_bytes: BTreeMap<usize, Vec<bool>> = cj
        .job
        .regions
        .iter()
        .map(|(&k, r)| (k, vec![false; r.len()]))
        .collect();
    let fm = &cj.ofm_map;
    for y in 0..s.ofm[0] {
        for x in 0..s.ofm[1] {
            for c in 0..s.ofm[2] {
                let at = element_offset(fm, y, x, c);
                for b in &mut ofm_bytes.get_mut(&fm.region).expect("OFM region")
                    [at..at + fm.dtype.bytes()]
                {
                    assert!(!*b, "two OFM elements share a byte at {at:#x}");
                    *b = true;
                }
            }
        }
    }
    let fm = &cj.ifm_map;
    let [h, w, c] = cj.ifm_shape;
    let region = &cj.job.regions[&fm.region];
    for y in 0..h {
        for x in 0..w {
            for ch in 0..c {
                let at = element_offset(fm, y, x, ch);
                assert_eq!(
                    fm.dtype.load(&region[at..]),
                    cj.ifm[(y * w + x) * c + ch],
                    "IFM element ({y}, {x}, {ch}) at {at:#x}"
                );
                assert!(
                    !ofm_bytes[&fm.region][at..at + fm.dtype.bytes()].contains(&true),
                    "IFM element ({y}, {x}, {ch}) overlaps the OFM"
                );
            }
        }
    }
    let streams = [
        (
            Opcode::NpuSetWeightBase,
            Opcode::NpuSetWeightLength,
            s.regions[2],
        ),
        (
            Opcode::NpuSetScaleBase,
            Opcode::NpuSetScaleLength,
            s.regions[3],
        ),
    ];
    for (base, length, region) in streams {
        if let (Some(b), Some(n)) = (address(&cj.commands, base), address(&cj.commands, length)) {
            assert_eq!(b % 16, 0, "{} aligned", base.name());
            assert!(
                !ofm_bytes[&region][b..b + n].contains(&true),
                "{} overlaps the OFM",
                base.name()
            );
        }
    }
}

/// Values strictly between the OFM's bounds (clamp and type): not saturated.
fn inside(cj: &ConvJob, v: i64) -> bool {
    let t = cj.spec.ofm_type;
    let (lo, hi) = cj.spec.clamp.unwrap_or((t.min(), t.max()));
    lo < v && v < hi
}

/// The knobs of a job, for the coverage count.
fn features(s: &ConvSpec) -> Vec<String> {
    let mut f = vec![
        format!("{:?}", s.kind),
        format!("IFM {}", s.ifm_type),
        format!("OFM {}", s.ofm_type),
        format!("IFM {:?}", s.ifm_layout),
        format!("OFM {:?}", s.ofm_layout),
        format!("{:?}", s.upscale),
        format!("{:?}", s.acc),
        format!("{:?}", s.scale_mode),
        format!("{:?}", s.round),
        format!("{:?}", s.decomposition),
        format!("{:?}", s.weight_order),
    ];
    let mut flag = |on: bool, name: &str| {
        if on {
            f.push(name.to_string());
        }
    };
    flag(s.ifm_tiles.is_some(), "IFM tiles");
    flag(s.ofm_tiles.is_some(), "OFM tiles");
    flag(s.stride.contains(&2), "stride 2");
    flag(s.stride.contains(&3), "stride 3");
    flag(s.dilation.contains(&2), "dilation 2");
    flag(s.pad.iter().any(|&p| p > 0), "padding");
    flag(s.padded_strides, "padded strides");
    flag(s.force_clip, "forced clip range");
    flag(s.clamp.is_some(), "activation bounds");
    flag(s.activation == ActivationFunction::Tanh, "tanh");
    flag(s.activation == ActivationFunction::Sigmoid, "sigmoid");
    flag(s.activation.bits() >= 16, "LUT");
    flag(s.kernel.iter().any(|&k| k > 4), "kernel side > 4");
    flag(s.ifm_zero_point != 0, "IFM zero point");
    flag(
        s.block.is_some_and(|b| b[0] < s.ofm[0] || b[1] < s.ofm[1]),
        "several OFM blocks in x/y",
    );
    flag(
        s.block.is_some_and(|b| b[2] < s.ofm[2]),
        "several OFM blocks in z",
    );
    flag(
        s.ifm_depth > 32 && s.kind == ConvKind::Conv,
        "IFM depth > 32",
    );
    flag(s.parallel && s.kind == ConvKind::Conv, "parallel conv");
    flag(
        s.parallel && s.kind == ConvKind::Depthwise,
        "parallel depthwise",
    );
    f
}

#[test]
fn random_jobs_run_on_the_golden_model_as_a_direct_convolution() {
    let seed = seed();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let (mut values, mut unsaturated) = (0usize, 0usize);
    // A fifth as many in parallel mode on u65-512 (two weight and scale
    // streams).
    let jobs = (0..JOBS)
        .map(|index| (index, random_job(seed, index)))
        .chain((0..JOBS / 5).map(|index| (index, random_parallel_job(seed, index))));
    for (index, cj) in jobs {
        let what = format!("job {index} of seed {seed}: {}", cj.spec.describe());
        let run = golden_run(&cj.job).unwrap_or_else(|e| panic!("{what}: {e}"));
        check_memory(&cj);
        assert_eq!(run.macs, cj.macs(), "{what}: MACs");
        let expected = direct(&cj);
        let fm = &cj.ofm_map;
        let region = &run.regions[&fm.region];
        let [oh, ow, oc] = cj.spec.ofm;
        for y in 0..oh {
            for x in 0..ow {
                for c in 0..oc {
                    let want = expected[(y * ow + x) * oc + c];
                    let got = fm.dtype.load(&region[element_offset(fm, y, x, c)..]);
                    assert_eq!(got, want, "{what}: OFM ({y}, {x}, {c})");
                    values += 1;
                    unsaturated += usize::from(inside(&cj, want));
                }
            }
        }
        if let Some((lo, hi)) = cj.spec.clamp {
            assert_eq!(
                (cj.activation_min, cj.activation_max),
                (lo as u16, hi as u16),
                "{what}: activation bounds"
            );
        }
        for f in features(&cj.spec) {
            *seen.entry(f).or_default() += 1;
        }
    }
    println!("{values} OFM values, {unsaturated} not saturated; knobs: {seen:?}");
    let expected_knobs = [
        "Conv",
        "Depthwise",
        "IFM int8",
        "IFM uint8",
        "IFM int16",
        "OFM int8",
        "OFM uint8",
        "OFM int16",
        "OFM int32",
        "IFM Nhwc",
        "IFM Nhcwb16",
        "OFM Nhwc",
        "OFM Nhcwb16",
        "None",
        "Nearest",
        "Zeros",
        "Int32",
        "Int40",
        "PerChannel",
        "Global",
        "Tfl",
        "Natural",
        "Truncate",
        "D8x8",
        "D4x4",
        "DepthFirst",
        "PartKernelFirst",
        "IFM tiles",
        "OFM tiles",
        "stride 2",
        "stride 3",
        "dilation 2",
        "padding",
        "padded strides",
        "forced clip range",
        "activation bounds",
        "kernel side > 4",
        "IFM zero point",
        "several OFM blocks in x/y",
        "several OFM blocks in z",
        "IFM depth > 32",
        "parallel conv",
        "parallel depthwise",
    ];
    for knob in expected_knobs {
        assert!(seen.contains_key(knob), "no job had {knob}");
    }
    assert!(
        unsaturated * 2 > values,
        "most outputs saturate: {unsaturated} of {values} inside their bounds"
    );
}

/// The spec's check refuses what the RTL's layout or the TRM forbid: the
/// layout itself, the TRM's rules through the golden model (one rule set).
/// A depthwise operation with the part-kernel-first bit and an int32 OFM
/// with ACTIVATION_MIN/MAX, which the generator once refused as well, break
/// no TRM rule: the golden model and the RTL agree on both.
#[test]
fn check_refuses_blocks_and_buffers_that_do_not_fit() {
    let base = ConvSpec::new(ConvKind::Conv, DType::I8, [16, 16, 64], 64, [3, 3]);
    assert_eq!(base.check(), Ok(()));
    let refused = [
        // 8 x 8 x 8 = 512 accumulator words.
        ConvSpec {
            block: Some([16, 16, 64]),
            ..base.clone()
        },
        // Depth 24 is not a multiple of 16 and less than the OFM depth.
        ConvSpec {
            block: Some([4, 4, 24]),
            ..base.clone()
        },
        ConvSpec {
            block: Some([3, 4, 16]),
            ..base.clone()
        },
        ConvSpec {
            ib_end: Some(4),
            block: Some([16, 8, 64]),
            ..base.clone()
        },
        ConvSpec {
            ib_end: Some(48),
            ..base.clone()
        },
        ConvSpec {
            ifm_tiles: Some(Tiles {
                width0: 4,
                height0: 4,
                height1: 4,
            }),
            ..base.clone()
        },
        ConvSpec {
            upscale: UpscaleMode::Nearest,
            stride: [2, 1],
            ..base.clone()
        },
        ConvSpec {
            pad: [3, 0, 0, 0],
            kernel: [1, 1],
            ofm: [1, 1, 8],
            ..base.clone()
        },
    ];
    for spec in refused {
        assert!(spec.check().is_err(), "accepted {}", spec.describe());
    }
}

/// The benchmark's shapes build (largest block, smallest IFM buffer) and
/// run on the golden model as the direct convolution.
#[test]
fn table_shapes_build_with_the_largest_block_that_fits() {
    let mut rng = StdRng::seed_from_u64(1);
    let conv = ConvSpec::new(ConvKind::Conv, DType::I8, [16, 16, 64], 64, [3, 3]);
    let dw = ConvSpec::new(ConvKind::Depthwise, DType::I16, [16, 16, 64], 64, [4, 4]);
    let pkf = ConvSpec {
        weight_order: WeightOrder::PartKernelFirst,
        decomposition: KernelDecomposition::D4x4,
        acc: AccFormat::Int40,
        scale_mode: OfmScaleMode::Global,
        round: RoundMode::Natural,
        ..ConvSpec::new(ConvKind::Conv, DType::U8, [1, 64, 32], 8, [1, 4])
    };
    for spec in [conv, dw, pkf] {
        let cj = spec.build(&mut rng).expect("valid");
        let block = cj.spec.block.expect("resolved");
        // No block one step larger in one dimension (and still within the
        // OFM) is valid: the chosen one is the largest.
        let [oh, ow, oc] = spec.ofm;
        let needed = [
            oh.next_multiple_of(2),
            ow.next_multiple_of(2),
            oc.next_multiple_of(8),
        ];
        for (axis, step) in [2, 2, 8].into_iter().enumerate() {
            let mut larger = block;
            larger[axis] += step;
            if larger[axis] <= needed[axis] {
                let spec = ConvSpec {
                    block: Some(larger),
                    ..spec.clone()
                };
                assert!(
                    spec.check().is_err(),
                    "block {larger:?} is larger than {block:?} and valid: {}",
                    spec.describe()
                );
            }
        }
        golden_run(&cj.job).expect("runs");
        check_memory(&cj);
    }
}

/// A saved job (how a failing RTL job is kept) loads as the same job.
#[test]
fn a_saved_job_loads_as_the_same_job() {
    let cj = random_job(seed(), 0);
    let dir = std::env::temp_dir().join(format!("npu-conv-job-{}", std::process::id()));
    save(&cj.job, &dir).expect("saved");
    let loaded = Job::load(&dir, None).expect("loads");
    assert_eq!(loaded.command_stream, cj.job.command_stream);
    assert_eq!(loaded.regions, cj.job.regions);
    assert_eq!(loaded.spec.description, cj.job.spec.description);
    std::fs::remove_dir_all(&dir).expect("removed");
}

/// Vela's block choices (`ConvSpec::take_vela_block`, the random suites'
/// usual blocks) always hold the traversal's own IFM blocks in the IB
/// Vela sizes: a spec of every kind with Vela's block, IFM_IB_END and
/// weight order passes `check` (IFM blocks at most an IB half, TRM table
/// 4-135), so the RTL never needs more shared buffer than the stream gives.
#[test]
fn vela_s_blocks_hold_the_traversal_s_ifm_blocks() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut taken = 0;
    for index in 0..3000 {
        let mut spec = match index % 3 {
            0 => ConvSpec::random(&mut rng),
            1 => ConvSpec::random_pool(&mut rng),
            _ => ConvSpec::random_parallel(&mut rng),
        };
        if spec.take_vela_block() {
            taken += 1;
            spec.check().unwrap_or_else(|e| {
                panic!("spec {index} of seed {seed}: {}: {e}", spec.describe())
            });
        }
    }
    assert!(taken > 2900, "Vela found a block for {taken} of 3000");
}
