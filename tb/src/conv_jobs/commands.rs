//! The command stream of a job: NPU_SET_* fields by name, feature maps,
//! LUT loads, BLOCKDEP and activation draws.

use super::{ConvKind, ConvSpec};
use npu_arch::command::{ActivationClipRange, ActivationFunction, Layout, Opcode};
use npu_arch::shared_buffer::LUT_BYTES;
use npu_model::cmdstream::builders;
use npu_model::cmdstream::Command;
use npu_model::footprint::largest_safe_blockdep;
use npu_model::job::{block_footprints, Job};
use npu_model::ops::ScaleRecord;
use npu_model::tensor::{DType, FeatureMap};
use rand::rngs::StdRng;
use rand::Rng;

/// A command with the given fields of its value space (`npu_arch::command`).
pub(crate) fn cmd(op: Opcode, fields: &[(&str, u64)]) -> Command {
    let value = fields
        .iter()
        .fold(0, |v, &(name, x)| op.field(name).set(v, x));
    Command::from_value(op, value)
}

/// Precision fields: signedness, 8/16/32 bits, layout.
pub(crate) fn precision(t: DType, layout: Layout) -> [(&'static str, u64); 3] {
    [
        ("activation_type", u64::from(t.signed)),
        ("activation_precision", u64::from(t.precision().bits())),
        ("activation_format", u64::from(layout.bits())),
    ]
}

/// The feature-map commands of the IFM and the OFM, in [`fm_commands`]'s order.
pub(crate) const IFM_FM_COMMANDS: [Opcode; 11] = [
    Opcode::NpuSetIfmRegion,
    Opcode::NpuSetIfmBase0,
    Opcode::NpuSetIfmBase1,
    Opcode::NpuSetIfmBase2,
    Opcode::NpuSetIfmBase3,
    Opcode::NpuSetIfmStrideX,
    Opcode::NpuSetIfmStrideY,
    Opcode::NpuSetIfmStrideC,
    Opcode::NpuSetIfmWidth0M1,
    Opcode::NpuSetIfmHeight0M1,
    Opcode::NpuSetIfmHeight1M1,
];

pub(crate) const OFM_FM_COMMANDS: [Opcode; 11] = [
    Opcode::NpuSetOfmRegion,
    Opcode::NpuSetOfmBase0,
    Opcode::NpuSetOfmBase1,
    Opcode::NpuSetOfmBase2,
    Opcode::NpuSetOfmBase3,
    Opcode::NpuSetOfmStrideX,
    Opcode::NpuSetOfmStrideY,
    Opcode::NpuSetOfmStrideC,
    Opcode::NpuSetOfmWidth0M1,
    Opcode::NpuSetOfmHeight0M1,
    Opcode::NpuSetOfmHeight1M1,
];

/// The feature-map settings of the IFM or OFM.
pub(crate) fn fm_commands(fm: &FeatureMap, ops: [Opcode; 11]) -> Vec<Command> {
    let [region, b0, b1, b2, b3, sx, sy, sc, w0, h0, h1] = ops;
    vec![
        cmd(region, &[("region", fm.region as u64)]),
        cmd(b0, &[("addr", fm.base[0])]),
        cmd(b1, &[("addr", fm.base[1])]),
        cmd(b2, &[("addr", fm.base[2])]),
        cmd(b3, &[("addr", fm.base[3])]),
        cmd(sx, &[("stride", fm.stride_x as u64)]),
        cmd(sy, &[("stride", fm.stride_y as u64)]),
        cmd(sc, &[("stride", fm.stride_c as u64)]),
        cmd(w0, &[("width_m1", fm.width0 as u64 - 1)]),
        cmd(h0, &[("height_m1", fm.height0 as u64 - 1)]),
        cmd(h1, &[("height_m1", fm.height1 as u64 - 1)]),
    ]
}

/// Every NPU_SET_* the operation reads, then the operation and NPU_OP_STOP.
pub(super) fn command_stream(
    spec: &ConvSpec,
    ifm: &FeatureMap,
    ofm: &FeatureMap,
    weight_streams: &[(u64, usize)],
    scale_streams: Option<&[(u64, usize)]>,
    global_scale: ScaleRecord,
    (activation_min, activation_max): (u16, u16),
) -> Vec<Command> {
    use Opcode as O;
    let block = spec.block.expect("resolved block");
    let ib_end = spec.ib_end.expect("resolved IFM_IB_END") as u64;
    let [oh, ow, oc] = spec.ofm;
    let [dkh, dkw] = spec.dilated_kernel();
    let [sy, sx] = spec.stride.map(|s| s as u64 - 1);
    let mut out = fm_commands(ifm, IFM_FM_COMMANDS);
    out.extend([
        cmd(
            O::NpuSetIfmPrecision,
            &precision(spec.ifm_type, spec.ifm_layout),
        ),
        builders::NpuSetIfmZeroPoint::default()
            .zero_point(spec.ifm_zero_point as u16 as u64)
            .command(),
        builders::NpuSetIfmDepthM1::default()
            .depth_m1(spec.ifm_channels() as u64 - 1)
            .command(),
        builders::NpuSetIfmPadTop::default()
            .pad(spec.pad[0] as u64)
            .command(),
        builders::NpuSetIfmPadLeft::default()
            .pad(spec.pad[1] as u64)
            .command(),
        builders::NpuSetIfmPadBottom::default()
            .pad(spec.pad[2] as u64)
            .command(),
        builders::NpuSetIfmPadRight::default()
            .pad(spec.pad[3] as u64)
            .command(),
        builders::NpuSetIfmUpscale::default()
            .mode(u64::from(spec.upscale.bits()))
            .command(),
        builders::NpuSetIfmIbEnd::default()
            .ib_end_kb(ib_end)
            .command(),
    ]);
    out.extend(fm_commands(ofm, OFM_FM_COMMANDS));
    let [signed, bits, layout] = precision(spec.ofm_type, spec.ofm_layout);
    out.extend([
        cmd(
            O::NpuSetOfmPrecision,
            &[
                signed,
                bits,
                layout,
                ("scale_mode", u64::from(spec.scale_mode.bits())),
                ("round_mode", u64::from(spec.round.bits())),
            ],
        ),
        builders::NpuSetOfmZeroPoint::default()
            .zero_point(spec.ofm_zero_point as u16 as u64)
            .command(),
        builders::NpuSetOfmHeightM1::default()
            .height_m1(oh as u64 - 1)
            .command(),
        builders::NpuSetOfmWidthM1::default()
            .width_m1(ow as u64 - 1)
            .command(),
        builders::NpuSetOfmDepthM1::default()
            .depth_m1(oc as u64 - 1)
            .command(),
        builders::NpuSetOfmBlkHeightM1::default()
            .height_m1(block[0] as u64 - 1)
            .command(),
        builders::NpuSetOfmBlkWidthM1::default()
            .width_m1(block[1] as u64 - 1)
            .command(),
        builders::NpuSetOfmBlkDepthM1::default()
            .depth_m1(block[2] as u64 - 1)
            .command(),
        builders::NpuSetKernelHeightM1::default()
            .height_m1(dkh as u64 - 1)
            .command(),
        builders::NpuSetKernelWidthM1::default()
            .width_m1(dkw as u64 - 1)
            .command(),
        // TRM 4.6.4 NPU_SET_KERNEL_STRIDE: stride - 1 split into lsb and msb.
        builders::NpuSetKernelStride::default()
            .stride_x_lsb(sx & 1)
            .stride_y_lsb(sy & 1)
            .stride_x_msb(sx >> 1)
            .stride_y_msb(sy >> 1)
            .weight_order(u64::from(spec.weight_order.bits()))
            .dilation_x(spec.dilation[1] as u64 - 1)
            .dilation_y(spec.dilation[0] as u64 - 1)
            .decomposition(u64::from(spec.decomposition.bits()))
            .command(),
        builders::NpuSetParallelMode::default()
            .parallel_mode(u64::from(spec.parallel))
            .command(),
        builders::NpuSetAccFormat::default()
            .acc_format(u64::from(spec.acc.bits()))
            .command(),
        builders::NpuSetActivation::default()
            .activation_function(spec.activation.bits().into())
            .activation_clip_range(u64::from(clip_range(spec).bits()))
            .command(),
        builders::NpuSetActivationMin::default()
            .clip_min(activation_min.into())
            .command(),
        builders::NpuSetActivationMax::default()
            .clip_max(activation_max.into())
            .command(),
        builders::NpuSetWeightRegion::default()
            .region(spec.regions[2] as u64)
            .command(),
    ]);
    let weight_commands = [
        (O::NpuSetWeightBase, O::NpuSetWeightLength),
        (O::NpuSetWeight1Base, O::NpuSetWeight1Length),
    ];
    for (&(base, length), (base_op, length_op)) in weight_streams.iter().zip(weight_commands) {
        out.push(cmd(base_op, &[("addr", base)]));
        out.push(cmd(length_op, &[("length", length as u64)]));
    }
    let scale_commands = [
        (O::NpuSetScaleBase, O::NpuSetScaleLength),
        (O::NpuSetScale1Base, O::NpuSetScale1Length),
    ];
    match scale_streams {
        Some(streams) => {
            out.push(
                builders::NpuSetScaleRegion::default()
                    .region(spec.regions[3] as u64)
                    .command(),
            );
            for (&(base, length), (base_op, length_op)) in streams.iter().zip(scale_commands) {
                out.push(cmd(base_op, &[("addr", base)]));
                out.push(cmd(length_op, &[("length", length as u64)]));
            }
        }
        None => out.push(
            builders::NpuSetOfmScale::default()
                .scale(global_scale.scale.into())
                .shift(global_scale.shift.into())
                .command(),
        ),
    }
    // TRM 4.9.1: the accumulators follow the IFM buffers, as Vela places them.
    let ab_start = spec.ab_start.map_or(ib_end, |kb| kb as u64);
    out.push(
        builders::NpuSetAbStart::default()
            .ab_start_kb(ab_start)
            .command(),
    );
    out.push(builders::NpuSetBlockdep::default().blockdep(0).command());
    out.push(match spec.kind {
        ConvKind::Conv => builders::NpuOpConv::default().command(),
        ConvKind::Depthwise => builders::NpuOpDepthwise::default().command(),
        ConvKind::Pool(mode) => builders::NpuOpPool::default()
            .pooling_mode(u64::from(mode.bits()))
            .command(),
    });
    out.push(builders::NpuOpStop::default().mask(1).command());
    out
}

/// A user DMA of the 2 KB at `source` of `region` to byte `lut_area` of the
/// shared buffer of each core in `cores` (TRM 3.3.3, 4.6.4
/// NPU_SET_DMA0_DST_REGION: internal, a core mask), as Vela loads a LUT.
pub fn lut_dma(region: usize, source: u64, cores: u64, lut_area: u64) -> Vec<Command> {
    vec![
        builders::NpuSetDma0SrcRegion::default()
            .region(region as u64)
            .command(),
        builders::NpuSetDma0DstRegion::default()
            .region(cores)
            .region_mode(1)
            .command(),
        builders::NpuSetDma0Src::default().addr(source).command(),
        builders::NpuSetDma0Dst::default().addr(lut_area).command(),
        builders::NpuSetDma0Len::default()
            .addr(LUT_BYTES as u64)
            .command(),
        builders::NpuOpDmaStart::default().command(),
    ]
}

/// NPU_SET_ACTIVATION bits 12-15: the OFM precision, or the OFM type named.
fn clip_range(spec: &ConvSpec) -> ActivationClipRange {
    match (spec.force_clip, spec.ofm_type) {
        (true, DType::U8) => ActivationClipRange::ForceUint8,
        (true, DType::I8) => ActivationClipRange::ForceInt8,
        (true, DType::I16) => ActivationClipRange::ForceInt16,
        _ => ActivationClipRange::OfmPrecision,
    }
}

/// An activation function the golden model allows with an OFM of type
/// `ofm` (TRM 4.8.2; a 16-bit LUT fills the 2 KB, so it is slot 0): tanh,
/// sigmoid or a LUT for 8- and 16-bit OFMs, none for 32-bit ones (a LUT
/// would need a clip range that forces an 8-bit type).
pub(crate) fn random_activation(rng: &mut StdRng, ofm: DType) -> ActivationFunction {
    let lut = match ofm.bits {
        8 => rng.gen_range(16..24),
        16 => 16,
        _ => return ActivationFunction::None,
    };
    let code = [3, 4, lut][rng.gen_range(0..3)];
    ActivationFunction::from_bits(code).expect("an activation function")
}

/// One operation's commands without the NPU_OP_STOP that ends them.
pub(crate) fn body(commands: &[Command]) -> Vec<Command> {
    let (stop, body) = commands.split_last().expect("a command stream");
    assert_eq!(
        stop.op,
        Opcode::NpuOpStop,
        "an operation's stream ends with NPU_OP_STOP"
    );
    body.to_vec()
}

/// Before an operation's commands `next` that load its LUT with user DMAs,
/// NPU_OP_KERNEL_WAIT 0: the kernel operations before it finish first, as
/// Vela orders a DMA into a shared-buffer area an earlier operation reads.
pub(crate) fn wait_for_lut_loads(commands: &mut Vec<Command>, next: &[Command]) {
    if next.iter().any(|c| c.op == Opcode::NpuOpDmaStart) {
        commands.push(Command::cmd0(Opcode::NpuOpKernelWait, 0));
    }
}

/// NPU_SET_BLOCKDEP for the last kernel operation of `job` (TRM 4.9): the
/// largest safe for its blocks and the operation's before it
/// ([`largest_safe_blockdep`]), or 0, half the time each. Returns the one
/// drawn and the largest safe.
pub(crate) fn draw_blockdep(job: &Job, rng: &mut StdRng) -> (u16, usize) {
    let footprints = block_footprints(job).expect("the generator's own regions");
    let [.., (_, before), (_, last)] = &footprints[..] else {
        panic!("two kernel operations or more, not {}", footprints.len());
    };
    let safe = largest_safe_blockdep(before, last);
    let drawn = if rng.gen_bool(0.5) { safe } else { 0 };
    (drawn as u16, safe)
}

/// Sets NPU_SET_BLOCKDEP among `commands` (one operation's) to `k`.
pub(crate) fn set_blockdep(commands: &mut [Command], k: u16) {
    for c in commands {
        if c.op == Opcode::NpuSetBlockdep {
            *c = Command::cmd0(Opcode::NpuSetBlockdep, k);
        }
    }
}

/// Which feature map of an operation [`point_fm`] moves.
pub(crate) enum FmRole {
    Ifm,
    Ofm,
}

/// Points the IFM or OFM settings among `commands` (one operation's) at
/// `map`: its region, bases, strides, tiles and layout (the element type is
/// the caller's to match), so the operation reads or writes another
/// operation's feature map.
pub(crate) fn point_fm(commands: &mut [Command], map: &FeatureMap, role: FmRole) {
    let (ops, precision) = match role {
        FmRole::Ifm => (IFM_FM_COMMANDS, Opcode::NpuSetIfmPrecision),
        FmRole::Ofm => (OFM_FM_COMMANDS, Opcode::NpuSetOfmPrecision),
    };
    let settings = fm_commands(map, ops);
    for c in commands {
        if let Some(i) = ops.iter().position(|&op| op == c.op) {
            *c = settings[i];
        } else if c.op == precision {
            let format = u64::from(map.layout.bits());
            *c = Command::from_value(c.op, c.op.field("activation_format").set(c.value(), format));
        }
    }
}
