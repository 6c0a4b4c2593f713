//! Networks compiled by Arm's Vela into a TensorFlow Lite flatbuffer, run as
//! the Ethos-U TensorFlow Lite Micro integration runs them.
//!
//! Vela replaces every operator it maps to the NPU with one custom operator,
//! `ethos-u`, whose inputs are the command stream (a COP1 driver payload,
//! [`crate::payload`]), the read-only tensor (weights, scales, LUTs), the
//! scratch arena, the fast scratch, then the network's inputs and its
//! variable (state) tensors; its outputs are the network's outputs. The
//! driver gives base pointer 0 to the read-only tensor, 1 to the arena and 2
//! to the fast scratch. The model's `OfflineMemoryAllocation` metadata places
//! every tensor the operator touches in the arena at the scratch tensor's
//! origin, so the stream addresses inputs and outputs through base pointer 1.
//!
//! [`VelaModel::parse`] checks the file and finds all that; [`VelaModel::job`]
//! lays out the memory for given inputs; [`run`] runs that job on any
//! backend and reads the outputs back.

mod names;
#[rustfmt::skip]
#[allow(clippy::all, dead_code, unused_imports)]
mod schema_generated;

use crate::job::{describe_status, Backend, BackendRun, Job};
use crate::payload::{DriverAction, DriverPayload};
use anyhow::{anyhow, bail, ensure, Context, Result};
use npu_spec::config::NpuConfig;
use npu_spec::regs;
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

/// A tensor the `ethos-u` operator reads or writes in the arena.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArenaTensor {
    pub name: String,
    pub shape: Vec<i32>,
    /// TFLite type name, e.g. `INT8`.
    pub dtype: String,
    /// Byte offset in the arena (base pointer 1).
    pub offset: usize,
    pub size: usize,
    /// The zero point (0 when the tensor is not quantised).
    pub zero_point: i64,
}

/// A Vela-compiled network, checked and ready to lay out.
#[derive(Debug, Clone)]
pub struct VelaModel {
    /// The driver payload of the `ethos-u` operator.
    pub payload: DriverPayload,
    /// The CONFIG word Vela compiled for (OPTIMIZER_CONFIG; TRM 4.2.11 layout).
    pub config_word: u32,
    /// The read-only tensor: base pointer 0.
    pub read_only: Vec<u8>,
    /// Bytes of the arena: the scratch tensor and every arena tensor.
    pub arena_size: usize,
    /// Bytes of the fast scratch: base pointer 2.
    pub fast_scratch_size: usize,
    /// The network's inputs, in the order the subgraph lists them.
    pub inputs: Vec<ArenaTensor>,
    /// The network's outputs, in the order the subgraph lists them.
    pub outputs: Vec<ArenaTensor>,
    /// Variable tensors (LSTM state) the operator also reads.
    pub states: Vec<ArenaTensor>,
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

    /// Name, type, shape, size and zero point of tensor `t` (offset 0).
    fn describe(&self, t: i32) -> Result<ArenaTensor> {
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
        let zero_point = tr
            .quantization()
            .map_err(fb_err("quantization"))?
            .and_then(|q| q.zero_point().ok().flatten())
            .and_then(|z| z.get(0))
            .unwrap_or(0);
        Ok(ArenaTensor {
            name,
            shape,
            dtype: type_name(ty).to_string(),
            offset: 0,
            size,
            zero_point,
        })
    }
}

/// The one `ethos-u` operator; every other operator is named as left on the CPU.
fn ethos_u_operator<'a>(
    model: fb::ModelRef<'a>,
    sg: fb::SubGraphRef<'a>,
) -> Result<fb::OperatorRef<'a>> {
    let codes = model.operator_codes().map_err(fb_err("operator codes"))?;
    let mut ethos_u = Vec::new();
    let mut on_cpu = Vec::new();
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
        match code.custom_code().map_err(fb_err("custom code"))? {
            Some(ETHOS_U) => ethos_u.push(op),
            Some(custom) => on_cpu.push(format!("operator {i}: custom {custom}")),
            None => on_cpu.push(format!("operator {i}: {}", builtin_name(code))),
        }
    }
    ensure!(
        on_cpu.is_empty(),
        "{} operators are left on the CPU, which this NPU cannot run (compile with Vela so the \
         whole network maps to the NPU): {}",
        on_cpu.len(),
        on_cpu.join(", ")
    );
    match ethos_u.as_slice() {
        [op] => Ok(*op),
        [] => bail!("no {ETHOS_U} operator: this model was not compiled by Vela"),
        ops => bail!("{} {ETHOS_U} operators; only one is supported", ops.len()),
    }
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

    /// Parse and check a Vela-compiled model.
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
        let op = ethos_u_operator(model, sg)?;
        let tensors = Tensors {
            file: bytes,
            tensors: sg
                .tensors()
                .map_err(fb_err("tensors"))?
                .ok_or_else(|| anyhow!("subgraph 0 has no tensors"))?,
            buffers: model.buffers().map_err(fb_err("buffers"))?,
        };

        let operands = indices(op.inputs().map_err(fb_err("ethos-u inputs"))?);
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
        let scratch = tensors.describe(operands[2])?;
        let fast_scratch = tensors.describe(operands[3])?;

        // Arena offsets are from the scratch tensor's origin (base pointer 1).
        let plan = memory_plan(model, &tensors)?;
        let planned = |t: i32| -> Result<i64> {
            match usize::try_from(t).ok().and_then(|t| plan.get(t)) {
                Some(-1) | None => bail!("tensor {t} has no place in {OFFLINE_MEMORY_ALLOCATION}"),
                Some(&o) => Ok(o as i64),
            }
        };
        let origin = planned(operands[2])?;
        let place = |t: i32| -> Result<ArenaTensor> {
            let mut a = tensors.describe(t)?;
            let offset = planned(t)? - origin;
            a.offset = usize::try_from(offset).map_err(|_| {
                anyhow!(
                    "tensor {} lies {} bytes before the scratch tensor",
                    a.name,
                    -offset
                )
            })?;
            Ok(a)
        };

        let network_inputs = indices(sg.inputs().map_err(fb_err("subgraph inputs"))?);
        let network_outputs = indices(sg.outputs().map_err(fb_err("subgraph outputs"))?);
        let op_outputs = indices(op.outputs().map_err(fb_err("ethos-u outputs"))?);
        let extra = &operands[FIXED_OPERANDS..];
        let mut inputs = Vec::new();
        for &t in &network_inputs {
            ensure!(
                extra.contains(&t),
                "network input {} is not an operand of the {ETHOS_U} operator",
                tensors.describe(t)?.name
            );
            inputs.push(place(t)?);
        }
        // The operator's other operands are variable tensors (LSTM state).
        let mut states = Vec::new();
        for &t in extra.iter().filter(|t| !network_inputs.contains(t)) {
            ensure!(
                tensors
                    .get(t)?
                    .is_variable()
                    .map_err(fb_err("is_variable"))?,
                "{ETHOS_U} operand {} is neither a network input nor a variable tensor",
                tensors.describe(t)?.name
            );
            states.push(place(t)?);
        }
        let mut outputs = Vec::new();
        for &t in &network_outputs {
            ensure!(
                op_outputs.contains(&t),
                "network output {} is not written by the {ETHOS_U} operator",
                tensors.describe(t)?.name
            );
            outputs.push(place(t)?);
        }
        let arena_size = inputs
            .iter()
            .chain(&outputs)
            .chain(&states)
            .map(|a| a.offset + a.size)
            .fold(scratch.size, usize::max);
        Ok(VelaModel {
            payload,
            config_word,
            read_only,
            arena_size,
            fast_scratch_size: fast_scratch.size,
            inputs,
            outputs,
            states,
        })
    }

    /// The built-in configuration Vela compiled for.
    pub fn config(&self) -> Result<NpuConfig> {
        NpuConfig::builtin()
            .into_iter()
            .find(|c| c.config_register() == self.config_word)
            .ok_or_else(|| {
                anyhow!(
                    "the model was compiled for {}, which is no built-in configuration (u65-256, u65-512)",
                    describe_config(self.config_word)
                )
            })
    }

    /// Check that `config` is the configuration Vela compiled for: the
    /// driver refuses a payload whose configuration differs from the NPU's.
    pub fn check_config(&self, config: &NpuConfig) -> Result<()> {
        ensure!(
            config.config_register() == self.config_word,
            "configuration mismatch: the model was compiled for {} but the NPU is {}",
            describe_config(self.config_word),
            describe_config(config.config_register())
        );
        Ok(())
    }

    /// A job for `config` with `inputs` (one per network input, in order):
    /// regions 0-2 as the driver sets them, inputs and initial state in the arena.
    pub fn job(&self, config: NpuConfig, inputs: &[Vec<u8>]) -> Result<Job> {
        self.check_config(&config)?;
        ensure!(
            inputs.len() == self.inputs.len(),
            "the network has {} inputs but {} were given",
            self.inputs.len(),
            inputs.len()
        );
        let mut arena = vec![0u8; self.arena_size];
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
            arena[t.offset..t.offset + t.size].copy_from_slice(bytes);
        }
        for t in &self.states {
            // The interpreter starts a variable tensor at its zero point
            // (int8) or 0 (int16): its real value 0.
            let zero = match t.dtype.as_str() {
                "INT8" => vec![t.zero_point as i8 as u8],
                "INT16" => vec![0, 0],
                other => bail!(
                    "state tensor {} has type {other}; only INT8 and INT16 are supported",
                    t.name
                ),
            };
            for (dst, src) in arena[t.offset..t.offset + t.size]
                .iter_mut()
                .zip(zero.iter().cycle())
            {
                *dst = *src;
            }
        }
        let regions = BTreeMap::from([
            (READ_ONLY_REGION, self.read_only.clone()),
            (ARENA_REGION, arena),
            (FAST_SCRATCH_REGION, vec![0; self.fast_scratch_size]),
        ]);
        let stream = self
            .payload
            .command_stream()
            .into_iter()
            .flat_map(u32::to_le_bytes)
            .collect();
        Ok(Job::in_memory(
            config,
            stream,
            regions,
            "Vela-compiled TFLite network",
        ))
    }

    /// The network's outputs after a run.
    pub fn read_outputs(&self, run: &BackendRun) -> Result<Vec<Vec<u8>>> {
        let arena = run
            .regions
            .get(&ARENA_REGION)
            .ok_or_else(|| anyhow!("the backend returned no arena (region {ARENA_REGION})"))?;
        self.outputs
            .iter()
            .map(|t| {
                arena
                    .get(t.offset..t.offset + t.size)
                    .map(<[u8]>::to_vec)
                    .ok_or_else(|| {
                        anyhow!("the backend's arena is too short for output {}", t.name)
                    })
            })
            .collect()
    }
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

/// What [`run`] gives back.
#[derive(Debug, Clone)]
pub struct NetworkRun {
    pub run: BackendRun,
    /// One per network output, in order.
    pub outputs: Vec<Vec<u8>>,
}

/// Run a job made by [`VelaModel::job`] on `backend` after the runner's
/// check ([`Job::check`]); the run must stop cleanly.
pub fn run(
    model: &VelaModel,
    job: &Job,
    backend: &mut dyn Backend,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<NetworkRun> {
    job.check()?;
    let run = backend.run(job, progress)?;
    ensure!(
        run.completed(),
        "the {} backend did not complete the command stream cleanly: STATUS {}, QREAD {:#x}: \
         no NPU_OP_STOP reached, or an error bit set{}",
        backend.name(),
        describe_status(run.status),
        run.qread,
        run.fault
            .as_ref()
            .map_or(String::new(), |f| format!(" ({f})"))
    );
    let outputs = model.read_outputs(&run)?;
    Ok(NetworkRun { run, outputs })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESIDUAL: &[u8] =
        include_bytes!("../../tests/fixtures/networks/residual_add/model_vela.tflite");

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
        assert_eq!(vela.states.len(), 2);
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
            VelaModel::parse(&bytes).expect("parses").read_only,
            original.read_only
        );
        bytes.truncate(bytes.len() - 1);
        let err = VelaModel::parse(&bytes).expect_err("cut short");
        assert!(format!("{err:#}").contains("outside the file"), "{err:#}");
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
