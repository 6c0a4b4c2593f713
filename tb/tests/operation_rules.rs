//! Kernel operations the TRM forbids or whose settings are reserved (TRM
//! 4.8.2 tables 4-120 to 4-125, 4.6.4): the golden model refuses each with
//! STATUS.cmd_parse_error and QREAD at the operation, and the RTL must stop
//! the same way instead of computing a result. Each case takes a valid job
//! and sets one rule-breaking value just before its kernel operation.

use npu_arch::command::{ElementwiseMode as E, Opcode, PoolingMode};
use npu_arch::regs;
use npu_model::cmdstream::{encode, Command};
use npu_model::compare::difference;
use npu_model::job::{Backend, GoldenBackend, Job};
use npu_model::tensor::DType;
use npu_tb::conv_jobs::{ConvKind, ConvSpec};
use npu_tb::elementwise_jobs::ElementwiseSpec;
use npu_tb::rtl_backend::RtlBackend;
use rand::rngs::StdRng;
use rand::SeedableRng;

/// A valid job and its command stream.
struct Base {
    job: Job,
    commands: Vec<Command>,
}

fn conv_base(kind: ConvKind, ifm: DType, ofm: DType, ofm_shape: [usize; 3], kernel: usize) -> Base {
    let mut spec = ConvSpec::new(kind, ifm, ofm_shape, 8, [kernel, kernel]);
    spec.ofm_type = ofm;
    build(spec)
}

fn build(spec: ConvSpec) -> Base {
    let built = spec
        .build(&mut StdRng::seed_from_u64(1))
        .unwrap_or_else(|e| panic!("{}: {e}", spec.describe()));
    Base {
        job: built.job,
        commands: built.commands,
    }
}

fn elementwise_base(mode: E, ifm: DType, ofm: DType) -> Base {
    let built =
        ElementwiseSpec::new(mode, ifm, ofm, [3, 4, 8]).build(&mut StdRng::seed_from_u64(1));
    Base {
        job: built.job,
        commands: built.commands,
    }
}

/// `base` with `edits` (an opcode and fields of its value to change) over
/// the values it had: a kernel operation's own parameter in place, a
/// setting just before the kernel operation.
fn edited(base: &Base, edits: &[(Opcode, &[(&str, u64)])]) -> Job {
    let op_at = base
        .commands
        .iter()
        .position(|c| c.op.is_kernel_op())
        .expect("the base job has a kernel operation");
    let mut commands = base.commands.clone();
    for &(op, fields) in edits {
        let old = base.commands[..=op_at]
            .iter()
            .rev()
            .find(|c| c.op == op)
            .map_or(0, Command::value);
        let value = fields
            .iter()
            .fold(old, |v, &(name, x)| op.field(name).set(v, x));
        let command = Command::from_value(op, value);
        let kernel_op_at = op_at + commands.len() - base.commands.len();
        if op.is_kernel_op() {
            commands[kernel_op_at] = command;
        } else {
            commands.insert(kernel_op_at, command);
        }
    }
    Job {
        command_stream: encode(&commands),
        ..base.job.clone()
    }
}

fn check(what: &str, job: &Job, rtl: &mut RtlBackend) -> Result<(), String> {
    let golden = GoldenBackend::default()
        .run(job, &mut |_, _| {})
        .map_err(|e| format!("{what}: golden model: {e:#}"))?;
    if regs::STATUS.field("cmd_parse_error").get(golden.status) != 1 {
        return Err(format!(
            "{what}: the golden model does not refuse it ({})",
            npu_arch::regs::describe_status(golden.status)
        ));
    }
    let run = rtl
        .run(job, &mut |_, _| {})
        .map_err(|e| format!("{what}: RTL: {e:#}"))?;
    match difference(&golden, &run) {
        None => Ok(()),
        Some(d) => Err(format!("{what}: {d}")),
    }
}

const I8: DType = DType::I8;
const I16: DType = DType::I16;
const I32: DType = DType::I32;

#[test]
fn forbidden_and_reserved_operations_stop_the_rtl_as_the_golden_model() {
    use Opcode as O;
    let conv = conv_base(ConvKind::Conv, I8, I8, [4, 4, 8], 3);
    let conv16 = conv_base(ConvKind::Conv, I16, I16, [4, 4, 8], 3);
    let conv32 = conv_base(ConvKind::Conv, I8, I32, [4, 4, 8], 3);
    let depthwise = conv_base(ConvKind::Depthwise, I8, I8, [4, 4, 8], 3);
    let max_pool = conv_base(ConvKind::Pool(PoolingMode::Max), I8, I8, [4, 4, 8], 2);
    let avg_pool = conv_base(ConvKind::Pool(PoolingMode::Average), I8, I8, [4, 4, 8], 2);
    let reduce_sum = conv_base(
        ConvKind::Pool(PoolingMode::ReduceSum),
        I8,
        I32,
        [4, 4, 1],
        2,
    );
    let parallel = build(ConvSpec {
        parallel: true,
        ..ConvSpec::new(ConvKind::Conv, I8, [4, 4, 8], 8, [1, 1])
    });
    let add = elementwise_base(E::Add, I8, I8);
    let add32 = elementwise_base(E::Add, I32, I32);
    let clz = elementwise_base(E::Clz, I32, I32);
    type Edits<'a> = &'a [(Opcode, &'a [(&'a str, u64)])];
    let cases: Vec<(&str, &Base, Edits)> = vec![
        (
            "stride 4",
            &conv,
            &[(
                O::NpuSetKernelStride,
                &[("stride_x_lsb", 1), ("stride_x_msb", 1)],
            )],
        ),
        (
            "stride 5 in y",
            &conv,
            &[(O::NpuSetKernelStride, &[("stride_y_msb", 2)])],
        ),
        (
            "a dilated kernel 4 wide with dilation 2",
            &conv,
            &[
                (O::NpuSetKernelWidthM1, &[("width_m1", 3)]),
                (O::NpuSetKernelStride, &[("dilation_x", 1)]),
            ],
        ),
        (
            "an upscale with stride 2",
            &conv,
            &[
                (O::NpuSetIfmUpscale, &[("mode", 1)]),
                (O::NpuSetKernelStride, &[("stride_x_lsb", 1)]),
            ],
        ),
        (
            "a uint16 OFM",
            &conv,
            &[(
                O::NpuSetOfmPrecision,
                &[("activation_type", 0), ("activation_precision", 1)],
            )],
        ),
        (
            "a uint16 IFM",
            &conv16,
            &[(O::NpuSetIfmPrecision, &[("activation_type", 0)])],
        ),
        (
            "a kernel 65 tall",
            &conv,
            &[(O::NpuSetKernelHeightM1, &[("height_m1", 64)])],
        ),
        (
            "top padding 32",
            &conv,
            &[(O::NpuSetIfmPadTop, &[("pad", 32)])],
        ),
        (
            "left padding 32",
            &conv,
            &[(O::NpuSetIfmPadLeft, &[("pad", 32)])],
        ),
        (
            "bottom padding 33",
            &conv,
            &[(O::NpuSetIfmPadBottom, &[("pad", 33)])],
        ),
        (
            "right padding 33",
            &conv,
            &[(O::NpuSetIfmPadRight, &[("pad", 33)])],
        ),
        (
            "tanh on an int32 OFM",
            &conv32,
            &[(O::NpuSetActivation, &[("activation_function", 3)])],
        ),
        (
            "an int8 clip range on an int32 OFM",
            &conv32,
            &[(O::NpuSetActivation, &[("activation_clip_range", 3)])],
        ),
        (
            "an int8 clip range on an int16 OFM",
            &conv16,
            &[(O::NpuSetActivation, &[("activation_clip_range", 3)])],
        ),
        (
            "an int16 clip range on an int8 OFM",
            &conv,
            &[(O::NpuSetActivation, &[("activation_clip_range", 5)])],
        ),
        (
            "a 16-bit LUT in slot 1",
            &conv16,
            &[(O::NpuSetActivation, &[("activation_function", 17)])],
        ),
        (
            "an 8-bit LUT of int32 values in slot 5",
            &conv32,
            &[(
                O::NpuSetActivation,
                &[("activation_function", 21), ("activation_clip_range", 3)],
            )],
        ),
        (
            "accumulator format 3",
            &conv,
            &[(O::NpuSetAccFormat, &[("acc_format", 3)])],
        ),
        (
            "a convolution with s5.10 accumulators (not implemented)",
            &conv,
            &[(O::NpuSetAccFormat, &[("acc_format", 2)])],
        ),
        (
            "a depthwise convolution with s5.10 accumulators (not implemented)",
            &depthwise,
            &[(O::NpuSetAccFormat, &[("acc_format", 2)])],
        ),
        (
            "an average pool with s5.10 accumulators",
            &avg_pool,
            &[(O::NpuSetAccFormat, &[("acc_format", 2)])],
        ),
        (
            "OFM rounding mode 3",
            &conv,
            &[(O::NpuSetOfmPrecision, &[("round_mode", 3)])],
        ),
        (
            "upscale mode 3",
            &conv,
            &[(O::NpuSetIfmUpscale, &[("mode", 3)])],
        ),
        (
            "activation function 5",
            &conv,
            &[(O::NpuSetActivation, &[("activation_function", 5)])],
        ),
        (
            "activation function 24",
            &conv,
            &[(O::NpuSetActivation, &[("activation_function", 24)])],
        ),
        (
            "clip range 1",
            &conv,
            &[(O::NpuSetActivation, &[("activation_clip_range", 1)])],
        ),
        (
            "clip range 4",
            &conv,
            &[(O::NpuSetActivation, &[("activation_clip_range", 4)])],
        ),
        (
            "IFM precision 3",
            &conv,
            &[(O::NpuSetIfmPrecision, &[("activation_precision", 3)])],
        ),
        (
            "OFM precision 3",
            &conv,
            &[(O::NpuSetOfmPrecision, &[("activation_precision", 3)])],
        ),
        (
            "an unsigned 32-bit OFM",
            &conv32,
            &[(O::NpuSetOfmPrecision, &[("activation_type", 0)])],
        ),
        (
            "IFM format 2",
            &conv,
            &[(O::NpuSetIfmPrecision, &[("activation_format", 2)])],
        ),
        (
            "OFM format 3",
            &conv,
            &[(O::NpuSetOfmPrecision, &[("activation_format", 3)])],
        ),
        (
            "a max pool to int16",
            &max_pool,
            &[(O::NpuSetOfmPrecision, &[("activation_precision", 1)])],
        ),
        (
            "a max pool to uint8",
            &max_pool,
            &[(O::NpuSetOfmPrecision, &[("activation_type", 0)])],
        ),
        (
            "a padded average pool to uint8",
            &avg_pool,
            &[
                (O::NpuSetIfmPadTop, &[("pad", 1)]),
                (O::NpuSetOfmPrecision, &[("activation_type", 0)]),
            ],
        ),
        (
            "a padded average pool 9 wide",
            &avg_pool,
            &[
                (O::NpuSetIfmPadTop, &[("pad", 1)]),
                (O::NpuSetKernelWidthM1, &[("width_m1", 8)]),
            ],
        ),
        (
            "an average pool padded 4 at the top",
            &avg_pool,
            &[(O::NpuSetIfmPadTop, &[("pad", 4)])],
        ),
        (
            "an average pool padded 5 at the right",
            &avg_pool,
            &[(O::NpuSetIfmPadRight, &[("pad", 5)])],
        ),
        (
            "a max pool 257 tall",
            &max_pool,
            &[(O::NpuSetKernelHeightM1, &[("height_m1", 256)])],
        ),
        (
            "a max pool upscaled by zeros",
            &max_pool,
            &[(O::NpuSetIfmUpscale, &[("mode", 2)])],
        ),
        (
            "a max pool with int40 accumulators",
            &max_pool,
            &[(O::NpuSetAccFormat, &[("acc_format", 1)])],
        ),
        (
            "a padded average pool with int40 accumulators",
            &avg_pool,
            &[
                (O::NpuSetIfmPadTop, &[("pad", 1)]),
                (O::NpuSetAccFormat, &[("acc_format", 1)]),
            ],
        ),
        (
            "a REDUCE_SUM to int8",
            &reduce_sum,
            &[(O::NpuSetOfmPrecision, &[("activation_precision", 0)])],
        ),
        (
            "a padded REDUCE_SUM",
            &reduce_sum,
            &[(O::NpuSetIfmPadLeft, &[("pad", 1)])],
        ),
        (
            "an upscaled REDUCE_SUM",
            &reduce_sum,
            &[(O::NpuSetIfmUpscale, &[("mode", 1)])],
        ),
        (
            "a REDUCE_SUM two channels deep",
            &reduce_sum,
            &[(O::NpuSetOfmDepthM1, &[("depth_m1", 1)])],
        ),
        (
            "a scale stream one record short",
            &conv,
            &[(O::NpuSetScaleLength, &[("length", 70)])],
        ),
        (
            "core 1's scale stream one record short",
            &parallel,
            &[(O::NpuSetScale1Length, &[("length", 30)])],
        ),
        (
            "core 0's scale stream one record short",
            &parallel,
            &[(O::NpuSetScaleLength, &[("length", 30)])],
        ),
        (
            "an unpadded average pool's scale stream one record short",
            &avg_pool,
            &[(O::NpuSetScaleLength, &[("length", 70)])],
        ),
        (
            "parallel mode on one core",
            &max_pool,
            &[(O::NpuSetParallelMode, &[("parallel_mode", 1)])],
        ),
        (
            "a weight stream cut short",
            &conv,
            &[(O::NpuSetWeightLength, &[("length", 16)])],
        ),
        (
            "pooling mode 3",
            &max_pool,
            &[(O::NpuOpPool, &[("pooling_mode", 3)])],
        ),
        (
            "elementwise mode 10",
            &add,
            &[(O::NpuOpElementwise, &[("elementwise_mode", 10)])],
        ),
        (
            "a CLZ with an OFM zero point",
            &clz,
            &[(O::NpuSetOfmZeroPoint, &[("zero_point", 1)])],
        ),
        (
            "an IFM2 of another type",
            &add,
            &[(O::NpuSetIfm2Precision, &[("activation_type", 0)])],
        ),
        (
            "a scalar IFM2 with an int32 IFM",
            &add32,
            &[(O::NpuSetIfm2Broadcast, &[("broadcast_constant", 1)])],
        ),
        (
            "an int32 IFM2 with a zero point",
            &add32,
            &[(O::NpuSetIfm2ZeroPoint, &[("zero_point", 1)])],
        ),
        (
            "an int32 ADD with input scaling",
            &add32,
            &[(O::NpuSetIfmPrecision, &[("scale_mode", 1)])],
        ),
        (
            "IFM scale mode 3",
            &add,
            &[(O::NpuSetIfmPrecision, &[("scale_mode", 3)])],
        ),
        (
            "IFM round mode 1",
            &add,
            &[(O::NpuSetIfmPrecision, &[("round_mode", 1)])],
        ),
    ];
    let mut rtl = RtlBackend::default();
    let mut failures = Vec::new();
    for (what, base, edits) in &cases {
        if let Err(e) = check(what, &edited(base, edits), &mut rtl) {
            println!("{e}");
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ",
        failures.len(),
        cases.len()
    );
}

/// Elementwise operations use no accumulators (TRM 4.8.2 table 4-124 names
/// none), so NPU_SET_ACC_FORMAT, even s5.10, which convolutions refuse, does
/// not stop one: both models run it to the same bytes.
#[test]
fn elementwise_operations_ignore_the_accumulator_format() {
    let add = elementwise_base(E::Add, I8, I8);
    let mut rtl = RtlBackend::default();
    for acc_format in [1, 2] {
        let job = edited(
            &add,
            &[(Opcode::NpuSetAccFormat, &[("acc_format", acc_format)])],
        );
        let golden = GoldenBackend::default()
            .run(&job, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("acc_format {acc_format}: golden model: {e:#}"));
        assert_eq!(
            regs::STATUS.field("cmd_parse_error").get(golden.status),
            0,
            "acc_format {acc_format}: the golden model refuses an ADD ({})",
            npu_arch::regs::describe_status(golden.status)
        );
        let run = rtl
            .run(&job, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("acc_format {acc_format}: RTL: {e:#}"));
        if let Some(d) = difference(&golden, &run) {
            panic!("acc_format {acc_format}: {d}");
        }
    }
}
