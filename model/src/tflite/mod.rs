//! Networks compiled by Arm's Vela into a TensorFlow Lite flatbuffer, run as
//! the Ethos-U TensorFlow Lite Micro integration runs them.
//!
//! Vela replaces each run of operators it maps to the NPU with one custom
//! operator, `ethos-u`, whose inputs are the command stream (a COP1 driver
//! payload, [`crate::payload`]), the read-only tensor (weights, scales,
//! LUTs), the scratch arena, the fast scratch, then the tensors it reads and
//! its variable (state) tensors; its outputs are the tensors it writes. The
//! driver gives base pointer 0 to the read-only tensor, 1 to the arena and 2
//! to the fast scratch. The model's `OfflineMemoryAllocation` metadata places
//! every tensor an `ethos-u` operator touches in the arena at the scratch
//! tensor's origin, so the stream addresses them through base pointer 1.
//!
//! Operators Vela cannot map (float tensors, operations the NPU lacks) stay
//! in the model as TFLite operators, which the CPU runs with TFLite Micro's
//! reference kernels; several `ethos-u` operators appear when such an
//! operator sits between NPU operators. Here the host runs them ([`host`]),
//! in the model's order, between the `ethos-u` operators' runs.
//!
//! [`VelaModel::parse`] checks the file and finds all that; [`VelaModel::run`]
//! runs the network on any backend and reads the outputs back;
//! [`VelaModel::job`] lays out the memory of a network that is one `ethos-u`
//! operator.

mod names;
#[rustfmt::skip]
#[allow(clippy::all, dead_code, unused_imports)]
mod schema_generated;

pub mod host;

pub use host::HostOperator;

use crate::check;
use crate::job::{Backend, BackendRun, Job};
use crate::payload::{DriverAction, DriverPayload};
use crate::state::{HostTensors, OpRecord};
use anyhow::{anyhow, bail, ensure, Context, Result};
use npu_arch::config::NpuConfig;
use npu_arch::regs;
use npu_arch::regs::describe_status;
use planus::ReadAsRoot;
use schema_generated::tflite as fb;
use std::collections::BTreeMap;

/// The custom operator Vela emits.
pub const ETHOS_U: &str = "ethos-u";
/// The metadata entry with the arena offset of every tensor.
const OFFLINE_MEMORY_ALLOCATION: &str = "OfflineMemoryAllocation";
/// Operands of the `ethos-u` operator before the network's own tensors.
const FIXED_OPERANDS: usize = 4;
/// Base pointers of the driver's layout.
pub const READ_ONLY_REGION: usize = 0;
pub const ARENA_REGION: usize = 1;
pub const FAST_SCRATCH_REGION: usize = 2;

/// A tensor of the network, described.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorInfo {
    /// Its index in the subgraph.
    pub index: i32,
    pub name: String,
    pub shape: Vec<i32>,
    /// TFLite type name, e.g. `INT8`.
    pub dtype: String,
    pub size: usize,
    /// The zero point (0 when the tensor is not quantised).
    pub zero_point: i64,
    /// Its quantisation scales (none when not quantised; one per channel
    /// when per-channel).
    pub scales: Vec<f32>,
}

/// A tensor an `ethos-u` operator reads or writes in the arena.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaTensor {
    pub tensor: TensorInfo,
    /// Byte offset in the arena (base pointer 1).
    pub offset: usize,
}

/// One `ethos-u` operator: a command stream and where its tensors lie.
#[derive(Debug, Clone)]
pub struct NpuOperator {
    /// Its index among the subgraph's operators.
    pub index: usize,
    /// Its driver payload.
    pub payload: DriverPayload,
    /// The CONFIG word Vela compiled for (OPTIMIZER_CONFIG; TRM 4.2.11 layout).
    pub config_word: u32,
    /// Its read-only tensor: base pointer 0.
    pub read_only: Vec<u8>,
    /// The tensors it reads (network inputs or other operators' outputs),
    /// in operand order.
    pub inputs: Vec<ArenaTensor>,
    /// The tensors it writes.
    pub outputs: Vec<ArenaTensor>,
    /// Variable tensors (LSTM state) it also reads.
    pub states: Vec<ArenaTensor>,
}

/// One operator of the network, where it runs.
#[derive(Debug, Clone)]
pub enum Step {
    Npu(NpuOperator),
    Cpu(HostOperator),
}

/// A Vela-compiled network, checked and ready to run: its `ethos-u`
/// operators and the operators Vela left on the CPU, in the model's order.
#[derive(Debug, Clone)]
pub struct VelaModel {
    pub steps: Vec<Step>,
    /// Bytes of the arena: the scratch tensor and every arena tensor.
    pub arena_size: usize,
    /// Bytes of the fast scratch: base pointer 2.
    pub fast_scratch_size: usize,
    /// The network's inputs, in the order the subgraph lists them.
    pub inputs: Vec<TensorInfo>,
    /// The network's outputs, in the order the subgraph lists them.
    pub outputs: Vec<TensorInfo>,
}

fn fb_err(what: &str) -> impl Fn(planus::Error) -> anyhow::Error + '_ {
    move |e| anyhow!("corrupt or truncated TFLite file: {what}: {e}")
}

/// The tensor indices of an operator or subgraph list.
fn indices(v: Option<planus::Vector<'_, i32>>) -> Vec<i32> {
    v.map(|v| v.iter().collect()).unwrap_or_default()
}

fn type_size(t: fb::TensorType) -> Option<usize> {
    use fb::TensorType as T;
    Some(match t {
        T::Int8 | T::Uint8 | T::Bool => 1,
        T::Int16 | T::Uint16 | T::Float16 | T::Bfloat16 => 2,
        T::Int32 | T::Uint32 | T::Float32 => 4,
        T::Int64 | T::Uint64 | T::Float64 | T::Complex64 => 8,
        T::Complex128 => 16,
        _ => return None,
    })
}

/// The name TFLite gives a builtin operator, e.g. `CONV_2D`.
fn builtin_name(code: fb::OperatorCodeRef<'_>) -> String {
    // Models before schema 3a keep the code in the deprecated byte field;
    // TFLite takes the larger of the two.
    let deprecated = code.deprecated_builtin_code().unwrap_or(0) as i32;
    let builtin = code.builtin_code().unwrap_or(0).max(deprecated);
    usize::try_from(builtin)
        .ok()
        .and_then(|i| names::BUILTIN_OPERATORS.get(i))
        .map_or_else(|| format!("builtin operator {builtin}"), |n| n.to_string())
}

fn type_name(t: fb::TensorType) -> &'static str {
    names::TENSOR_TYPES[t as usize]
}

/// Tensors and buffers of the model's one subgraph, with checked access.
struct Tensors<'a> {
    /// The whole file: buffers may lie outside the flatbuffer.
    file: &'a [u8],
    tensors: planus::Vector<'a, planus::Result<fb::TensorRef<'a>>>,
    buffers: Option<planus::Vector<'a, planus::Result<fb::BufferRef<'a>>>>,
}

impl<'a> Tensors<'a> {
    fn get(&self, t: i32) -> Result<fb::TensorRef<'a>> {
        usize::try_from(t)
            .ok()
            .and_then(|t| self.tensors.get(t))
            .ok_or_else(|| anyhow!("tensor index {t} does not exist"))?
            .map_err(fb_err("tensor"))
    }

    /// The bytes of buffer `index`.
    fn buffer(&self, index: u32) -> Result<&'a [u8]> {
        let buffer = self
            .buffers
            .and_then(|b| b.get(index as usize))
            .ok_or_else(|| anyhow!("buffer {index} does not exist"))?
            .map_err(fb_err("buffer"))?;
        let offset = buffer.offset().map_err(fb_err("buffer offset"))?;
        let size = buffer.size().map_err(fb_err("buffer size"))?;
        // Offsets 0 and 1 mean the data is inside the flatbuffer (schema.fbs).
        if offset > 1 {
            return usize::try_from(offset)
                .ok()
                .zip(usize::try_from(size).ok())
                .and_then(|(o, s)| self.file.get(o..o.checked_add(s)?))
                .ok_or_else(|| {
                    anyhow!("buffer {index} [{offset}, +{size}) is outside the file (truncated?)")
                });
        }
        Ok(buffer
            .data()
            .map_err(fb_err("buffer data"))?
            .unwrap_or_default())
    }

    /// The constant bytes of tensor `t`.
    fn data(&self, t: i32) -> Result<&'a [u8]> {
        self.buffer(self.get(t)?.buffer().map_err(fb_err("tensor buffer"))?)
    }

    /// Tensor `t`, described.
    fn describe(&self, t: i32) -> Result<TensorInfo> {
        let tr = self.get(t)?;
        let name = tr
            .name()
            .map_err(fb_err("tensor name"))?
            .unwrap_or_default()
            .to_string();
        let ty = tr.type_().map_err(fb_err("tensor type"))?;
        let shape = indices(tr.shape().map_err(fb_err("tensor shape"))?);
        let elem = type_size(ty)
            .ok_or_else(|| anyhow!("tensor {name}: type {} has no fixed size", type_name(ty)))?;
        let size = shape
            .iter()
            .try_fold(elem, |n, &d| {
                usize::try_from(d).ok().and_then(|d| n.checked_mul(d))
            })
            .ok_or_else(|| anyhow!("tensor {name}: shape {shape:?} is not a fixed size"))?;
        let quantization = tr.quantization().map_err(fb_err("quantization"))?;
        let zero_point = quantization
            .and_then(|q| q.zero_point().ok().flatten())
            .and_then(|z| z.get(0))
            .unwrap_or(0);
        let scales = quantization
            .and_then(|q| q.scale().ok().flatten())
            .map(|s| s.iter().collect())
            .unwrap_or_default();
        Ok(TensorInfo {
            index: t,
            name,
            shape,
            dtype: type_name(ty).to_string(),
            size,
            zero_point,
            scales,
        })
    }

    /// The constant bytes of tensor `t`, if it has any.
    fn constant(&self, t: i32) -> Result<Option<&'a [u8]>> {
        Ok(Some(self.data(t)?).filter(|d| !d.is_empty()))
    }

    /// Tensor `t` as a host kernel's operand, or an error naming a type the
    /// host has no kernels for.
    fn operand(&self, t: i32) -> Result<host::Operand> {
        let info = self.describe(t)?;
        let element = host::Element::of(&info.dtype).ok_or_else(|| {
            anyhow!(
                "tensor {} is {}, a type none of the host's kernels takes",
                info.name,
                info.dtype
            )
        })?;
        let tr = self.get(t)?;
        let quantization = tr.quantization().map_err(fb_err("quantization"))?;
        let zero_points = quantization
            .and_then(|q| q.zero_point().ok().flatten())
            .map(|z| z.iter().collect())
            .unwrap_or_default();
        let quantized_dimension = quantization
            .map(|q| q.quantized_dimension())
            .transpose()
            .map_err(fb_err("quantized_dimension"))?
            .unwrap_or(0);
        let constant = self.constant(t)?.map(<[u8]>::to_vec);
        if let Some(c) = &constant {
            ensure!(
                c.len() == info.size,
                "constant tensor {} has {} bytes where its shape {:?} needs {}",
                info.name,
                c.len(),
                info.shape,
                info.size
            );
        }
        Ok(host::Operand {
            index: t,
            shape: info.shape.iter().map(|&d| d as usize).collect(),
            element,
            scales: info.scales,
            zero_points,
            quantized_dimension: usize::try_from(quantized_dimension).map_err(|_| {
                anyhow!(
                    "tensor {}: quantized_dimension {quantized_dimension}",
                    info.name
                )
            })?,
            constant,
            variable: tr.is_variable().map_err(fb_err("is_variable"))?,
            name: info.name,
        })
    }
}

/// An operator as the file names it.
enum OperatorKind {
    EthosU,
    /// A builtin operator's name and its operator code's version.
    Builtin(String, i32),
    Custom(String),
}

/// Operator `index`, a builtin operator Vela left on the CPU, as the host
/// runs it; an error names the operator and what the host does not take.
fn host_operator(
    tensors: &Tensors<'_>,
    index: usize,
    name: String,
    version: i32,
    op: fb::OperatorRef<'_>,
) -> Result<HostOperator> {
    let operands = |list: Vec<i32>| -> Result<Vec<Option<host::Operand>>> {
        list.into_iter()
            .map(|t| (t >= 0).then(|| tensors.operand(t)).transpose())
            .collect()
    };
    let read = || -> Result<host::OpDesc> {
        let inputs = operands(indices(op.inputs().map_err(fb_err("operator inputs"))?))?;
        let outputs = operands(indices(op.outputs().map_err(fb_err("operator outputs"))?))?
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| anyhow!("an output is left out (-1)"))?;
        let intermediates = operands(indices(
            op.intermediates()
                .map_err(fb_err("operator intermediates"))?,
        ))?
        .into_iter()
        .flatten()
        .collect();
        let options = op
            .builtin_options()
            .map_err(fb_err("builtin options"))?
            .map(fb::BuiltinOptions::try_from)
            .transpose()
            .map_err(fb_err("builtin options"))?;
        Ok(host::OpDesc {
            index,
            name: name.clone(),
            version,
            inputs,
            outputs,
            intermediates,
            options,
        })
    };
    let desc = read().with_context(|| format!("operator {index} ({name})"))?;
    HostOperator::new(desc)
}

/// Every operator of the subgraph with its kind, in order.
fn operators<'a>(
    model: fb::ModelRef<'a>,
    sg: fb::SubGraphRef<'a>,
) -> Result<Vec<(fb::OperatorRef<'a>, OperatorKind)>> {
    let codes = model.operator_codes().map_err(fb_err("operator codes"))?;
    let mut ops = Vec::new();
    let operators = sg.operators().map_err(fb_err("operators"))?;
    for (i, op) in operators.into_iter().flatten().enumerate() {
        let op = op.map_err(fb_err("operator"))?;
        let index = op.opcode_index().map_err(fb_err("operator code index"))?;
        let code = codes
            .and_then(|c| c.get(index as usize))
            .ok_or_else(|| {
                anyhow!("operator {i} names operator code {index}, which does not exist")
            })?
            .map_err(fb_err("operator code"))?;
        let kind = match code.custom_code().map_err(fb_err("custom code"))? {
            Some(ETHOS_U) => OperatorKind::EthosU,
            Some(custom) => OperatorKind::Custom(custom.to_string()),
            None => OperatorKind::Builtin(
                builtin_name(code),
                code.version().map_err(fb_err("operator version"))?,
            ),
        };
        ops.push((op, kind));
    }
    Ok(ops)
}

/// The arena offset of every tensor from the OfflineMemoryAllocation
/// metadata: int32 words version, subgraph, tensor count, then one offset
/// per tensor (-1: not planned).
fn memory_plan(model: fb::ModelRef<'_>, tensors: &Tensors<'_>) -> Result<Vec<i32>> {
    let plan = model
        .metadata()
        .map_err(fb_err("metadata"))?
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .find(|m| m.name().ok().flatten() == Some(OFFLINE_MEMORY_ALLOCATION))
        .ok_or_else(|| {
            anyhow!("no {OFFLINE_MEMORY_ALLOCATION} metadata: the arena layout is unknown")
        })?;
    let mut words: Vec<i32> = tensors
        .buffer(plan.buffer().map_err(fb_err("metadata buffer"))?)
        .with_context(|| format!("{OFFLINE_MEMORY_ALLOCATION} metadata"))?
        .chunks_exact(4)
        .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let n = tensors.tensors.len();
    ensure!(
        words.len() == 3 + n && words[2] as i64 == n as i64,
        "{OFFLINE_MEMORY_ALLOCATION} has {} words for {n} tensors (expected 3 + one per tensor)",
        words.len()
    );
    Ok(words.split_off(3))
}

/// Whether `bytes` are a TensorFlow Lite flatbuffer: the "TFL3" file
/// identifier at byte 4.
pub fn is_tflite(bytes: &[u8]) -> bool {
    bytes.get(4..8) == Some(b"TFL3".as_slice())
}

impl VelaModel {
    /// Read a Vela-compiled `.tflite` file.
    pub fn load(path: &std::path::Path) -> Result<VelaModel> {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        VelaModel::parse(&bytes).with_context(|| format!("{}", path.display()))
    }

    /// Parse and check a Vela-compiled model: every operator is an
    /// `ethos-u` operator or one the host runs ([`host`]).
    pub fn parse(bytes: &[u8]) -> Result<VelaModel> {
        ensure!(
            is_tflite(bytes),
            "not a TensorFlow Lite model (no \"TFL3\" file identifier at byte 4)"
        );
        let model = fb::ModelRef::read_as_root(bytes).map_err(fb_err("model"))?;
        let subgraphs = model
            .subgraphs()
            .map_err(fb_err("subgraphs"))?
            .ok_or_else(|| anyhow!("the model has no subgraph"))?;
        ensure!(
            subgraphs.len() == 1,
            "the model has {} subgraphs; only single-subgraph networks are supported",
            subgraphs.len()
        );
        let sg = subgraphs
            .get(0)
            .expect("one subgraph")
            .map_err(fb_err("subgraph 0"))?;
        let tensors = Tensors {
            file: bytes,
            tensors: sg
                .tensors()
                .map_err(fb_err("tensors"))?
                .ok_or_else(|| anyhow!("subgraph 0 has no tensors"))?,
            buffers: model.buffers().map_err(fb_err("buffers"))?,
        };
        let describe_all = |list: Vec<i32>| -> Result<Vec<TensorInfo>> {
            list.into_iter().map(|t| tensors.describe(t)).collect()
        };
        let inputs = describe_all(indices(sg.inputs().map_err(fb_err("subgraph inputs"))?))?;
        let outputs = describe_all(indices(sg.outputs().map_err(fb_err("subgraph outputs"))?))?;

        let mut steps = Vec::new();
        let mut refused = Vec::new();
        let mut plan = None;
        let mut sizes = (0, 0);
        for (index, (op, kind)) in operators(model, sg)?.into_iter().enumerate() {
            let operands = indices(op.inputs().map_err(fb_err("operator inputs"))?);
            let results = indices(op.outputs().map_err(fb_err("operator outputs"))?);
            let (name, version) = match kind {
                OperatorKind::EthosU => {
                    let plan = match &plan {
                        Some(plan) => plan,
                        None => plan.insert(memory_plan(model, &tensors)?),
                    };
                    let npu = NpuOperator::parse(index, &tensors, plan, &operands, &results)
                        .with_context(|| format!("operator {index} ({ETHOS_U})"))?;
                    sizes.0 = npu.arena_extent(&tensors, operands[2])?.max(sizes.0);
                    sizes.1 = tensors.describe(operands[3])?.size.max(sizes.1);
                    steps.push(Step::Npu(npu));
                    continue;
                }
                OperatorKind::Builtin(name, version) => (name, version),
                OperatorKind::Custom(name) => {
                    refused.push(format!("operator {index}: custom operator {name}"));
                    continue;
                }
            };
            match host_operator(&tensors, index, name, version, op) {
                Ok(cpu) => steps.push(Step::Cpu(cpu)),
                Err(e) => refused.push(format!("{e:#}")),
            }
        }
        let hint = if steps.iter().any(|s| matches!(s, Step::Npu(_))) {
            ""
        } else {
            " (no ethos-u operator at all: compile the model with Vela)"
        };
        ensure!(
            refused.is_empty(),
            "{} of the operators Vela left on the CPU cannot run on the host{hint}: {}",
            refused.len(),
            refused.join("; ")
        );
        let model = VelaModel {
            steps,
            arena_size: sizes.0,
            fast_scratch_size: sizes.1,
            inputs,
            outputs,
        };
        let words: std::collections::BTreeSet<u32> =
            model.npu_operators().map(|op| op.config_word).collect();
        ensure!(
            words.len() <= 1,
            "the ethos-u operators were compiled for different configurations: {}",
            words
                .iter()
                .map(|&w| describe_config(w))
                .collect::<Vec<_>>()
                .join(", ")
        );
        model.check_data_flow()?;
        Ok(model)
    }

    /// Every tensor an operator reads is a network input, a constant, a
    /// variable or an earlier operator's output, and every network output
    /// is written.
    fn check_data_flow(&self) -> Result<()> {
        let mut known: std::collections::BTreeSet<i32> =
            self.inputs.iter().map(|t| t.index).collect();
        known.extend(
            self.cpu_operators()
                .flat_map(|op| op.states().map(|(t, _)| t)),
        );
        for step in &self.steps {
            let (index, reads, writes): (usize, Vec<i32>, Vec<i32>) = match step {
                Step::Npu(op) => (
                    op.index,
                    op.inputs.iter().map(|t| t.tensor.index).collect(),
                    op.outputs.iter().map(|t| t.tensor.index).collect(),
                ),
                Step::Cpu(op) => (op.index, op.reads().collect(), op.outputs.clone()),
            };
            if let Some(t) = reads.iter().find(|t| !known.contains(t)) {
                bail!("operator {index} reads tensor {t} before any operator writes it");
            }
            known.extend(writes);
        }
        if let Some(t) = self.outputs.iter().find(|t| !known.contains(&t.index)) {
            bail!("network output {} is written by no operator", t.name);
        }
        Ok(())
    }

    /// Each `ethos-u` operator's command stream checked
    /// ([`check::check_stream`]) with the regions the driver gives it.
    pub fn check(
        &self,
        config: &NpuConfig,
        policy: check::Policy,
    ) -> Result<Vec<check::StreamCheck>> {
        self.npu_operators()
            .map(|op| {
                let options = check::CheckOptions {
                    config: config.clone(),
                    region_sizes: self.region_sizes(op),
                    policy,
                };
                check::check_stream(&op.stream_bytes(), &options)
                    .with_context(|| format!("operator {} ({ETHOS_U})", op.index))
            })
            .collect()
    }

    /// The regions the driver gives `op`, by size: the read-only tensor,
    /// the arena and the fast scratch.
    pub fn region_sizes(&self, op: &NpuOperator) -> BTreeMap<usize, u64> {
        BTreeMap::from([
            (READ_ONLY_REGION, op.read_only.len() as u64),
            (ARENA_REGION, self.arena_size as u64),
            (FAST_SCRATCH_REGION, self.fast_scratch_size as u64),
        ])
    }

    /// The `ethos-u` operators, in order.
    pub fn npu_operators(&self) -> impl Iterator<Item = &NpuOperator> {
        self.steps.iter().filter_map(|s| match s {
            Step::Npu(op) => Some(op),
            Step::Cpu(_) => None,
        })
    }

    /// The operators the host runs, in order.
    pub fn cpu_operators(&self) -> impl Iterator<Item = &HostOperator> {
        self.steps.iter().filter_map(|s| match s {
            Step::Cpu(op) => Some(op),
            Step::Npu(_) => None,
        })
    }

    /// The CONFIG word Vela compiled for; none without `ethos-u` operators.
    pub fn config_word(&self) -> Option<u32> {
        self.npu_operators().next().map(|op| op.config_word)
    }

    /// The built-in configuration Vela compiled for.
    pub fn config(&self) -> Result<NpuConfig> {
        let word = self.config_word().ok_or_else(|| {
            anyhow!("the model has no {ETHOS_U} operator: it was not compiled by Vela")
        })?;
        NpuConfig::builtin()
            .into_iter()
            .find(|c| c.config_register() == word)
            .ok_or_else(|| {
                anyhow!(
                    "the model was compiled for {}, which is no built-in configuration (u65-256, u65-512)",
                    describe_config(word)
                )
            })
    }

    /// Check that `config` is the configuration Vela compiled for: the
    /// driver refuses a payload whose configuration differs from the NPU's.
    pub fn check_config(&self, config: &NpuConfig) -> Result<()> {
        if let Some(word) = self.config_word() {
            ensure!(
                config.config_register() == word,
                "configuration mismatch: the model was compiled for {} but the NPU is {}",
                describe_config(word),
                describe_config(config.config_register())
            );
        }
        Ok(())
    }

    /// The network's inputs by tensor, checked against their sizes.
    fn input_values(&self, inputs: &[Vec<u8>]) -> Result<BTreeMap<i32, Vec<u8>>> {
        ensure!(
            inputs.len() == self.inputs.len(),
            "the network has {} inputs but {} were given",
            self.inputs.len(),
            inputs.len()
        );
        let mut values = BTreeMap::new();
        for (t, bytes) in self.inputs.iter().zip(inputs) {
            ensure!(
                bytes.len() == t.size,
                "input {} ({} {:?}) is {} bytes, but {} were given",
                t.name,
                t.dtype,
                t.shape,
                t.size,
                bytes.len()
            );
            values.insert(t.index, bytes.clone());
        }
        Ok(values)
    }

    /// The arena and fast scratch before the first `ethos-u` operator: zero,
    /// but for variable tensors at their real value 0.
    fn initial_memory(&self) -> Result<Scratch> {
        let mut arena = vec![0u8; self.arena_size];
        for t in self.npu_operators().flat_map(|op| &op.states) {
            let info = &t.tensor;
            // The interpreter starts a variable tensor at its zero point
            // (int8) or 0 (int16).
            let zero = match info.dtype.as_str() {
                "INT8" => vec![info.zero_point as i8 as u8],
                "INT16" => vec![0, 0],
                other => bail!(
                    "state tensor {} has type {other}; only INT8 and INT16 are supported",
                    info.name
                ),
            };
            for (dst, src) in arena[t.offset..t.offset + info.size]
                .iter_mut()
                .zip(zero.iter().cycle())
            {
                *dst = *src;
            }
        }
        Ok(Scratch {
            arena,
            fast: vec![0; self.fast_scratch_size],
        })
    }

    /// The job of a network that is one `ethos-u` operator, for `config`
    /// with `inputs` (one per network input, in order): regions 0-2 as the
    /// driver sets them, inputs and initial state in the arena. A network
    /// with several operators runs through [`VelaModel::run`].
    pub fn job(&self, config: NpuConfig, inputs: &[Vec<u8>]) -> Result<Job> {
        let op = match self.steps.as_slice() {
            [Step::Npu(op)] => op,
            steps => bail!(
                "the network is {} operators ({} on the host), not one {ETHOS_U} operator: \
                 run it whole (npu-sim tflite)",
                steps.len(),
                self.cpu_operators().count()
            ),
        };
        self.check_config(&config)?;
        let values = self.input_values(inputs)?;
        op.job(config, &values, self.initial_memory()?)
    }

    /// Run the whole network for `config` with `inputs` (one per network
    /// input, in order): each `ethos-u` operator on `backend` after the
    /// runner's check ([`Job::check`]), each must stop cleanly; the host
    /// runs the others in between. The arena and fast scratch pass from one
    /// `ethos-u` operator to the next, as they stay in the device's memory.
    pub fn run(
        &self,
        config: NpuConfig,
        inputs: &[Vec<u8>],
        backend: &mut dyn Backend,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<NetworkRun> {
        self.check_config(&config)?;
        let mut values = self.input_values(inputs)?;
        for op in self.cpu_operators() {
            values.extend(op.states().map(|(t, bytes)| (t, bytes.to_vec())));
        }
        let mut memory = self.initial_memory()?;
        let total: usize = self
            .npu_operators()
            .map(|op| op.payload.command_stream().len() * 4)
            .sum();
        let mut done = 0;
        let mut whole = BackendRun::default();
        let mut npu_runs = Vec::new();
        let mut host_time = std::time::Duration::ZERO;
        for step in &self.steps {
            match step {
                Step::Npu(op) => {
                    let job = op.job(config.clone(), &values, memory)?;
                    job.check()?;
                    let run = backend.run(&job, &mut |d, _| progress(done + d, total))?;
                    ensure!(
                        run.completed(),
                        "the {} backend did not complete operator {}'s command stream cleanly: \
                         STATUS {}, QREAD {:#x}: no NPU_OP_STOP reached, or an error bit set{}",
                        backend.name(),
                        op.index,
                        describe_status(run.status),
                        run.qread,
                        run.fault
                            .as_ref()
                            .map_or(String::new(), |f| format!(" ({f})"))
                    );
                    done += job.command_stream.len();
                    memory = Scratch::after(&run)?;
                    for t in &op.outputs {
                        let bytes = memory
                            .arena
                            .get(t.offset..t.offset + t.tensor.size)
                            .ok_or_else(|| {
                                anyhow!("the backend's arena is too short for {}", t.tensor.name)
                            })?;
                        values.insert(t.tensor.index, bytes.to_vec());
                    }
                    whole.append(&run);
                    npu_runs.push(NpuRun { job, run });
                }
                Step::Cpu(op) => {
                    let start = std::time::Instant::now();
                    op.run(&mut values)?;
                    host_time += start.elapsed();
                    whole.layers.push(OpRecord {
                        kind: op.name.clone(),
                        on_cpu: true,
                        host: Some(HostTensors {
                            inputs: op.input_shapes.clone(),
                            outputs: op.output_shapes.clone(),
                            elements: op.elements,
                            bytes_read: op.bytes_read,
                            bytes_written: op.bytes_written,
                        }),
                        ..OpRecord::default()
                    });
                }
            }
        }
        let outputs = self
            .outputs
            .iter()
            .map(|t| values.remove(&t.index).expect("checked at parse"))
            .collect();
        Ok(NetworkRun {
            run: whole,
            npu_runs,
            outputs,
            host_time,
        })
    }
}

/// The arena and fast scratch (base pointers 1 and 2) between `ethos-u`
/// operators.
struct Scratch {
    arena: Vec<u8>,
    fast: Vec<u8>,
}

impl Scratch {
    /// As `run` left them.
    fn after(run: &BackendRun) -> Result<Scratch> {
        let region = |r: usize| {
            run.regions
                .get(&r)
                .cloned()
                .ok_or_else(|| anyhow!("the backend returned no region {r}"))
        };
        Ok(Scratch {
            arena: region(ARENA_REGION)?,
            fast: region(FAST_SCRATCH_REGION)?,
        })
    }
}

impl NpuOperator {
    /// Its command stream as little-endian bytes.
    pub fn stream_bytes(&self) -> Vec<u8> {
        self.payload
            .command_stream()
            .into_iter()
            .flat_map(u32::to_le_bytes)
            .collect()
    }

    /// The `ethos-u` operator `index` with `operands` and `results`, its
    /// arena tensors placed by `plan`.
    fn parse(
        index: usize,
        tensors: &Tensors<'_>,
        plan: &[i32],
        operands: &[i32],
        results: &[i32],
    ) -> Result<NpuOperator> {
        ensure!(
            operands.len() >= FIXED_OPERANDS,
            "the {ETHOS_U} operator has {} inputs, fewer than the {FIXED_OPERANDS} Vela gives it \
             (command stream, read-only, scratch, fast scratch)",
            operands.len()
        );
        let payload = DriverPayload::parse(tensors.data(operands[0])?)
            .context("the ethos-u command stream")?;
        let config_word = payload
            .actions
            .iter()
            .find_map(|a| match a {
                DriverAction::OptimizerConfig { config, .. } => Some(*config),
                _ => None,
            })
            .ok_or_else(|| {
                anyhow!(
                    "the ethos-u driver payload has no OPTIMIZER_CONFIG (the configuration Vela \
                     compiled for)"
                )
            })?;
        ensure!(
            !payload.command_stream().is_empty(),
            "the ethos-u driver payload has no command stream"
        );
        let read_only = tensors.data(operands[1])?.to_vec();
        let place = |t: i32| place(tensors, plan, operands[2], t);
        let mut inputs = Vec::new();
        let mut states = Vec::new();
        for &t in &operands[FIXED_OPERANDS..] {
            // Variable tensors (LSTM state) are read and written in place.
            if tensors
                .get(t)?
                .is_variable()
                .map_err(fb_err("is_variable"))?
            {
                states.push(place(t)?);
            } else {
                inputs.push(place(t)?);
            }
        }
        let outputs = results.iter().map(|&t| place(t)).collect::<Result<_>>()?;
        Ok(NpuOperator {
            index,
            payload,
            config_word,
            read_only,
            inputs,
            outputs,
            states,
        })
    }

    /// Bytes of the arena this operator needs: its scratch tensor and every
    /// arena tensor it touches.
    fn arena_extent(&self, tensors: &Tensors<'_>, scratch: i32) -> Result<usize> {
        let scratch = tensors.describe(scratch)?.size;
        Ok(self
            .inputs
            .iter()
            .chain(&self.outputs)
            .chain(&self.states)
            .map(|a| a.offset + a.tensor.size)
            .fold(scratch, usize::max))
    }

    /// Its job for `config`: regions 0-2 as the driver sets them, the
    /// tensors it reads from `values` in `memory`'s arena.
    fn job(
        &self,
        config: NpuConfig,
        values: &BTreeMap<i32, Vec<u8>>,
        memory: Scratch,
    ) -> Result<Job> {
        let Scratch { mut arena, fast } = memory;
        for t in &self.inputs {
            let bytes = values
                .get(&t.tensor.index)
                .ok_or_else(|| anyhow!("{} has no value yet", t.tensor.name))?;
            arena[t.offset..t.offset + t.tensor.size].copy_from_slice(bytes);
        }
        let regions = BTreeMap::from([
            (READ_ONLY_REGION, self.read_only.clone()),
            (ARENA_REGION, arena),
            (FAST_SCRATCH_REGION, fast),
        ]);
        let stream = self
            .payload
            .command_stream()
            .into_iter()
            .flat_map(u32::to_le_bytes)
            .collect();
        Ok(Job {
            payload: Some(self.payload.clone()),
            ..Job::in_memory(config, stream, regions, "Vela-compiled TFLite network")
        })
    }
}

/// Tensor `t` placed in the arena: offsets are from the scratch tensor's
/// origin (base pointer 1) in the `OfflineMemoryAllocation` plan.
fn place(tensors: &Tensors<'_>, plan: &[i32], scratch: i32, t: i32) -> Result<ArenaTensor> {
    let planned = |t: i32| -> Result<i64> {
        match usize::try_from(t).ok().and_then(|t| plan.get(t)) {
            Some(-1) | None => bail!("tensor {t} has no place in {OFFLINE_MEMORY_ALLOCATION}"),
            Some(&o) => Ok(o as i64),
        }
    };
    let tensor = tensors.describe(t)?;
    let offset = planned(t)? - planned(scratch)?;
    let offset = usize::try_from(offset).map_err(|_| {
        anyhow!(
            "tensor {} lies {} bytes before the scratch tensor",
            tensor.name,
            -offset
        )
    })?;
    Ok(ArenaTensor { tensor, offset })
}

/// A CONFIG word (TRM 4.2.11) with its fields and the built-in configuration
/// it is, e.g. `CONFIG 0x10003008 (u65-256: product 1, ...)`.
pub fn describe_config(word: u32) -> String {
    let mut parts: Vec<String> = regs::CONFIG
        .fields
        .iter()
        .map(|f| format!("{} {}", f.name, f.get(word)))
        .collect();
    let known = regs::CONFIG.fields.iter().fold(0, |m, f| m | f.mask());
    if word & !known != 0 {
        parts.push(format!("other bits {:#x}", word & !known));
    }
    let name = NpuConfig::builtin()
        .into_iter()
        .find(|c| c.config_register() == word)
        .map_or_else(|| "no built-in configuration".to_string(), |c| c.name);
    format!("CONFIG {word:#010x} ({name}: {})", parts.join(", "))
}

/// What [`VelaModel::run`] gives back.
#[derive(Debug, Clone)]
pub struct NetworkRun {
    /// The whole network as one run: the `ethos-u` operators' runs one
    /// after another ([`BackendRun::append`]), with a row for each operator
    /// the host ran among the layers.
    pub run: BackendRun,
    /// Each `ethos-u` operator's job and run, in order.
    pub npu_runs: Vec<NpuRun>,
    /// One per network output, in order.
    pub outputs: Vec<Vec<u8>>,
    /// Wall time the host's operators took.
    pub host_time: std::time::Duration,
}

/// One `ethos-u` operator's job, as the network laid it out, and its run.
#[derive(Debug, Clone)]
pub struct NpuRun {
    pub job: Job,
    pub run: BackendRun,
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESIDUAL: &[u8] =
        include_bytes!("../../tests/fixtures/networks/residual_add/model_vela.tflite");

    fn only_npu(model: &VelaModel) -> &NpuOperator {
        match model.steps.as_slice() {
            [Step::Npu(op)] => op,
            steps => panic!("{} steps", steps.len()),
        }
    }

    fn owned(bytes: &[u8]) -> fb::Model {
        fb::Model::try_from(fb::ModelRef::read_as_root(bytes).expect("reads")).expect("owned")
    }

    fn serialise(model: &fb::Model) -> Vec<u8> {
        let mut bytes = planus::Builder::new()
            .finish(model, Some(*b"TFL3"))
            .to_vec();
        // planus 1.3 writes the identifier first and the root offset after
        // it, relative to itself; the FlatBuffers layout (and TFLite's) has
        // the offset first, relative to the start of the buffer.
        let root = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes")) + 4;
        bytes.copy_within(0..4, 4);
        bytes[..4].copy_from_slice(&root.to_le_bytes());
        bytes
    }

    /// The arena-offset words of the OfflineMemoryAllocation metadata.
    fn plan(model: &mut fb::Model) -> &mut Vec<u8> {
        let m = model.metadata.as_ref().expect("metadata");
        let index = m
            .iter()
            .find(|m| m.name.as_deref() == Some(OFFLINE_MEMORY_ALLOCATION))
            .expect("plan")
            .buffer as usize;
        model.buffers.as_mut().expect("buffers")[index]
            .data
            .as_mut()
            .expect("plan words")
    }

    /// Variable tensors Vela passes to the operator start at the zero
    /// point (int8) or 0 (int16), as the interpreter starts them.
    #[test]
    fn state_tensors_start_at_zero() {
        let mut model = owned(RESIDUAL);
        let arena = VelaModel::parse(RESIDUAL).expect("parses").arena_size;
        let sg = &mut model.subgraphs.as_mut().expect("subgraphs")[0];
        let tensors = sg.tensors.as_mut().expect("tensors");
        let first = tensors.len() as i32;
        for (ty, zp, n) in [(fb::TensorType::Int8, 7, 5), (fb::TensorType::Int16, 3, 3)] {
            tensors.push(fb::Tensor {
                shape: Some(vec![1, n]),
                type_: ty,
                buffer: 0,
                name: Some(format!("state{}", tensors.len())),
                quantization: Some(Box::new(fb::QuantizationParameters {
                    min: None,
                    max: None,
                    scale: Some(vec![0.5]),
                    zero_point: Some(vec![zp]),
                    ..Default::default()
                })),
                is_variable: true,
            });
        }
        let op = &mut sg.operators.as_mut().expect("operators")[0];
        op.inputs
            .as_mut()
            .expect("inputs")
            .extend([first, first + 1]);
        let words = plan(&mut model);
        let count = i32::from_le_bytes(words[8..12].try_into().unwrap()) + 2;
        words[8..12].copy_from_slice(&count.to_le_bytes());
        // The scratch tensor is at arena offset 0 in Vela's plan.
        for offset in [arena as i32, arena as i32 + 16] {
            words.extend(offset.to_le_bytes());
        }
        let vela = VelaModel::parse(&serialise(&model)).expect("parses with states");
        assert_eq!(only_npu(&vela).states.len(), 2);
        let input = vec![0u8; vela.inputs[0].size];
        let job = vela.job(NpuConfig::u65_256(), &[input]).expect("job");
        let region = &job.regions[&ARENA_REGION];
        assert_eq!(&region[arena..arena + 5], &[7; 5]);
        assert_eq!(&region[arena + 16..arena + 22], &[0; 6]);
    }

    /// A buffer may live outside the flatbuffer, at `offset` in the file
    /// (models over 2 GB).
    #[test]
    fn buffer_outside_the_flatbuffer() {
        let original = VelaModel::parse(RESIDUAL).expect("parses");
        let mut model = owned(RESIDUAL);
        let sg = &model.subgraphs.as_ref().expect("subgraphs")[0];
        let read_only = sg.operators.as_ref().expect("operators")[0]
            .inputs
            .as_ref()
            .expect("inputs")[1];
        let index = sg.tensors.as_ref().expect("tensors")[read_only as usize].buffer as usize;
        let buffer = &mut model.buffers.as_mut().expect("buffers")[index];
        let data = buffer.data.take().expect("read-only data");
        buffer.size = data.len() as u64;
        // A scalar's value does not change the layout: size the file once.
        buffer.offset = u64::MAX;
        let len = serialise(&model).len();
        model.buffers.as_mut().expect("buffers")[index].offset = len as u64;
        let mut bytes = serialise(&model);
        assert_eq!(bytes.len(), len);
        bytes.extend(&data);
        assert_eq!(
            only_npu(&VelaModel::parse(&bytes).expect("parses")).read_only,
            only_npu(&original).read_only
        );
        bytes.truncate(bytes.len() - 1);
        let err = VelaModel::parse(&bytes).expect_err("cut short");
        assert!(format!("{err:#}").contains("outside the file"), "{err:#}");
    }

    /// An operator the host does not run is refused when the model loads:
    /// the message names the operator, its index and the type.
    #[test]
    fn refusals_name_the_operator_its_index_and_the_type() {
        const DEMO: &[u8] = include_bytes!("../../tests/fixtures/networks/demo/model.tflite");
        let refusal = |ty: fb::TensorType| {
            let mut model = owned(DEMO);
            let sg = &mut model.subgraphs.as_mut().expect("subgraphs")[0];
            let input = sg.inputs.as_ref().expect("inputs")[0] as usize;
            sg.tensors.as_mut().expect("tensors")[input].type_ = ty;
            format!(
                "{:#}",
                VelaModel::parse(&serialise(&model)).expect_err("refused")
            )
        };
        let msg = refusal(fb::TensorType::Int32);
        assert!(
            msg.contains("1 of the operators") && msg.contains("operator 0 (CONV_2D): input 0"),
            "{msg}"
        );
        assert!(msg.contains("is INT32; the host's CONV_2D takes"), "{msg}");
        let msg = refusal(fb::TensorType::Float16);
        assert!(
            msg.contains("operator 0 (CONV_2D)") && msg.contains("FLOAT16"),
            "{msg}"
        );
    }

    #[test]
    fn missing_memory_plan_is_named() {
        let mut model = owned(RESIDUAL);
        model.metadata = None;
        let err = VelaModel::parse(&serialise(&model)).expect_err("no plan");
        assert!(
            format!("{err:#}").contains("no OfflineMemoryAllocation"),
            "{err:#}"
        );
    }
}
