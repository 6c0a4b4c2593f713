//! The operators Vela leaves on the CPU, run on the host as TensorFlow Lite
//! Micro's reference kernels run them (what an Ethos-U system runs beside
//! the NPU), bit for bit. `model/tests/cpu_ops.rs` checks every operator in
//! every type it takes against TFLite Micro's interpreter
//! (`scripts/vela/cpu_fixtures.py`); `docs/host-operators.md` says how the
//! kernels are organised and why they are written here.
//!
//! Each family module lists the operators it runs ([`Support`]) and builds
//! a [`Kernel`] for an operator from its [`OpDesc`] when the model is
//! loaded, so a network the host cannot run is refused before it starts.

/// The options table `$variant` of operator `$op` ([`OpDesc`]), or its
/// defaults when the model gives none (as TFLite's parser does).
macro_rules! options {
    ($op:expr, $variant:ident) => {
        match &$op.options {
            Some(super::fb::BuiltinOptions::$variant(o)) => (**o).clone(),
            _ => Default::default(),
        }
    };
}

mod arith;
mod binary;
mod conv;
mod elementwise;
mod fixedpoint;
mod layout;
mod quantize;
mod reduce;
mod sequence;
mod tensor;

pub use tensor::{f32s, put_f32s, Element, Operand};

use super::schema_generated::tflite as fb;
use anyhow::{anyhow, bail, Context, Result};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The most dimensions TFLite Micro's shapes hold (RuntimeShape's
/// kMaxSmallSize).
pub const MAX_RANK: usize = 6;

/// An operator the host runs, and the element types it takes.
#[derive(Debug, Clone, Copy)]
pub struct Support {
    /// TFLite's name, e.g. `CONV_2D`.
    pub name: &'static str,
    /// The input whose element type selects the kernel (TFLite Micro
    /// dispatches on it): 0 for most, the data input where input 0 is a
    /// shape.
    pub key_input: usize,
    /// The element types of that input it takes.
    pub types: &'static [Element],
}

impl Support {
    pub const fn new(name: &'static str, types: &'static [Element]) -> Support {
        Support {
            name,
            key_input: 0,
            types,
        }
    }

    pub const fn keyed(name: &'static str, key_input: usize, types: &'static [Element]) -> Support {
        Support {
            name,
            key_input,
            types,
        }
    }
}

/// A family of kernels: the operators it runs and how it builds one.
struct Family {
    operators: &'static [Support],
    build: fn(&OpDesc) -> Result<Arc<dyn Kernel>>,
}

const FAMILIES: &[Family] = &[
    Family {
        operators: quantize::OPERATORS,
        build: quantize::build,
    },
    Family {
        operators: elementwise::OPERATORS,
        build: elementwise::build,
    },
    Family {
        operators: binary::OPERATORS,
        build: binary::build,
    },
    Family {
        operators: conv::OPERATORS,
        build: conv::build,
    },
    Family {
        operators: reduce::OPERATORS,
        build: reduce::build,
    },
    Family {
        operators: layout::OPERATORS,
        build: layout::build,
    },
    Family {
        operators: sequence::OPERATORS,
        build: sequence::build,
    },
];

/// Every operator the host runs, with the types it takes.
pub fn supported() -> impl Iterator<Item = &'static Support> {
    FAMILIES.iter().flat_map(|f| f.operators)
}

/// What a host kernel computes, from its inputs' bytes into its outputs'.
pub trait Kernel: std::fmt::Debug + Send + Sync {
    fn run(&self, io: &mut Io<'_>) -> Result<()>;
}

/// A kernel that is a closure over what was worked out when the model was
/// loaded.
pub struct FnKernel<F> {
    name: &'static str,
    run: F,
}

impl<F> std::fmt::Debug for FnKernel<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} kernel", self.name)
    }
}

impl<F: Fn(&mut Io<'_>) -> Result<()> + Send + Sync> Kernel for FnKernel<F> {
    fn run(&self, io: &mut Io<'_>) -> Result<()> {
        (self.run)(io)
    }
}

/// The kernel `run`, named `name` in debug output.
pub fn kernel(
    name: &'static str,
    run: impl Fn(&mut Io<'_>) -> Result<()> + Send + Sync + 'static,
) -> Arc<dyn Kernel> {
    Arc::new(FnKernel { name, run })
}

/// An operator as the host's kernels see it when the model is loaded.
#[derive(Debug, Clone)]
pub struct OpDesc {
    /// Its index among the subgraph's operators.
    pub index: usize,
    /// TFLite's name, e.g. `MEAN`.
    pub name: String,
    /// Its operator code's version.
    pub version: i32,
    /// One per input; `None` where an optional input is left out (-1).
    pub inputs: Vec<Option<Operand>>,
    pub outputs: Vec<Operand>,
    /// Intermediate tensors (the integer LSTM's gate scales).
    pub intermediates: Vec<Operand>,
    /// Its builtin options, when the model gives them.
    pub options: Option<fb::BuiltinOptions>,
}

impl OpDesc {
    /// Input `i`, which must be given.
    pub fn input(&self, i: usize) -> Result<&Operand> {
        self.optional_input(i)
            .ok_or_else(|| anyhow!("{} has no input {i}", self.name))
    }

    /// Input `i`, when given.
    pub fn optional_input(&self, i: usize) -> Option<&Operand> {
        self.inputs.get(i).and_then(Option::as_ref)
    }

    /// Output `i`.
    pub fn output(&self, i: usize) -> Result<&Operand> {
        self.outputs
            .get(i)
            .ok_or_else(|| anyhow!("{} has no output {i}", self.name))
    }

    /// Its name as `operators` (a family's table) lists it, for a kernel to
    /// keep; an error naming `family` when the table lacks it.
    pub fn name_in(&self, operators: &[Support], family: &str) -> Result<&'static str> {
        operators
            .iter()
            .map(|s| s.name)
            .find(|&n| n == self.name)
            .ok_or_else(|| anyhow!("{} is not {family}", self.name))
    }

    /// An error naming a type the host's kernel for this operator does not
    /// take.
    pub fn unsupported(&self, what: &str, operand: &Operand) -> anyhow::Error {
        anyhow!(
            "{what} {} is {}, which the host's {} does not take here",
            operand.name,
            operand.element,
            self.name
        )
    }
}

/// The tensors a kernel reads and writes while it runs.
pub struct Io<'a> {
    inputs: Vec<Value<'a>>,
    outputs: Vec<Vec<u8>>,
}

enum Value<'a> {
    Absent,
    Read(&'a [u8]),
    /// A variable tensor: read and written in place.
    State(Vec<u8>),
}

impl<'a> Io<'a> {
    /// Input `i`'s bytes (the loader checked it is given).
    pub fn input(&self, i: usize) -> &[u8] {
        self.optional(i)
            .expect("the kernel's builder checked the input is given")
    }

    /// Input `i`'s bytes, when given.
    pub fn optional(&self, i: usize) -> Option<&[u8]> {
        match self.inputs.get(i)? {
            Value::Absent => None,
            Value::Read(b) => Some(b),
            Value::State(b) => Some(b),
        }
    }

    /// Variable input `i`'s bytes, to update in place.
    pub fn state(&mut self, i: usize) -> &mut [u8] {
        match &mut self.inputs[i] {
            Value::State(b) => b,
            _ => panic!("input {i} is not a variable tensor"),
        }
    }

    /// Output `i`'s bytes (zero before the kernel writes them).
    pub fn output(&mut self, i: usize) -> &mut [u8] {
        &mut self.outputs[i]
    }

    /// Input `i`'s bytes and output `o`'s, at once.
    pub fn input_output(&mut self, i: usize, o: usize) -> (&[u8], &mut [u8]) {
        let input = match &self.inputs[i] {
            Value::Read(b) => *b,
            Value::State(b) => b.as_slice(),
            Value::Absent => panic!("input {i} is not given"),
        };
        (input, &mut self.outputs[o])
    }

    /// Every output at once.
    pub fn outputs(&mut self) -> &mut [Vec<u8>] {
        &mut self.outputs
    }
}

/// One operator the host runs: its kernel and the tensors it reads and
/// writes (indices in the subgraph).
#[derive(Debug, Clone)]
pub struct HostOperator {
    /// Its index among the subgraph's operators.
    pub index: usize,
    /// TFLite's name for it, e.g. `MEAN`.
    pub name: String,
    /// Its inputs' tensors (`None`: an optional input left out) and
    /// outputs' tensors.
    pub inputs: Vec<Option<i32>>,
    pub outputs: Vec<i32>,
    /// The element types of its inputs (`None`: left out).
    pub input_elements: Vec<Option<Element>>,
    /// The shapes of its inputs and outputs, for the report.
    pub input_shapes: Vec<Vec<usize>>,
    pub output_shapes: Vec<Vec<usize>>,
    /// Elements it writes.
    pub elements: u64,
    /// Bytes it reads and writes.
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// The bytes of constant inputs, by input.
    constants: Vec<Option<Arc<[u8]>>>,
    /// Which inputs are variable tensors, with their initial bytes.
    variables: Vec<Option<Arc<[u8]>>>,
    output_sizes: Vec<usize>,
    kernel: Arc<dyn Kernel>,
}

/// The initial value of a variable tensor, as TFLite Micro resets it: the
/// zero point for int8, zero otherwise.
fn initial_state(t: &Operand) -> Vec<u8> {
    match t.element {
        Element::I8 => vec![t.zero_point() as i8 as u8; t.bytes()],
        _ => vec![0; t.bytes()],
    }
}

impl HostOperator {
    /// The host's kernel for `op`, or an error naming the operator, its
    /// index and what the host does not take.
    pub fn new(op: OpDesc) -> Result<HostOperator> {
        let kernel =
            Self::kernel(&op).with_context(|| format!("operator {} ({})", op.index, op.name))?;
        let mut constants = Vec::new();
        let mut variables = Vec::new();
        let mut input_shapes = Vec::new();
        let mut bytes_read = 0;
        for t in &op.inputs {
            constants.push(t.as_ref().and_then(|t| t.constant.clone()).map(Arc::from));
            variables.push(
                t.as_ref()
                    .filter(|t| t.variable)
                    .map(|t| Arc::from(initial_state(t))),
            );
            if let Some(t) = t {
                input_shapes.push(t.shape.clone());
                bytes_read += t.bytes() as u64;
            }
        }
        Ok(HostOperator {
            index: op.index,
            name: op.name.clone(),
            inputs: op
                .inputs
                .iter()
                .map(|t| t.as_ref().map(|t| t.index))
                .collect(),
            input_elements: op
                .inputs
                .iter()
                .map(|t| t.as_ref().map(|t| t.element))
                .collect(),
            outputs: op.outputs.iter().map(|t| t.index).collect(),
            input_shapes,
            output_shapes: op.outputs.iter().map(|t| t.shape.clone()).collect(),
            elements: op.outputs.iter().map(|t| t.elements() as u64).sum(),
            bytes_read,
            bytes_written: op.outputs.iter().map(|t| t.bytes() as u64).sum(),
            constants,
            variables,
            output_sizes: op.outputs.iter().map(Operand::bytes).collect(),
            kernel,
        })
    }

    fn kernel(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
        let Some((family, support)) = FAMILIES.iter().find_map(|f| {
            f.operators
                .iter()
                .find(|s| s.name == op.name)
                .map(|s| (f, s))
        }) else {
            bail!("the host has no kernel for {}", op.name);
        };
        let key = op.input(support.key_input)?;
        if !support.types.contains(&key.element) {
            bail!(
                "input {} ({}) is {}; the host's {} takes {}",
                support.key_input,
                key.name,
                key.element,
                op.name,
                support
                    .types
                    .iter()
                    .map(|t| t.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        (family.build)(op)
    }

    /// The tensors it reads that some earlier operator or the caller must
    /// give (neither constant nor variable).
    pub fn reads(&self) -> impl Iterator<Item = i32> + '_ {
        self.inputs
            .iter()
            .zip(self.constants.iter().zip(&self.variables))
            .filter_map(|(t, (c, v))| t.filter(|_| c.is_none() && v.is_none()))
    }

    /// Its variable tensors with their initial bytes.
    pub fn states(&self) -> impl Iterator<Item = (i32, &[u8])> + '_ {
        self.inputs
            .iter()
            .zip(&self.variables)
            .filter_map(|(t, v)| v.as_deref().map(|v| (t.expect("a variable is given"), v)))
    }

    /// Runs the kernel on `values` (tensor bytes by index): reads its
    /// inputs, writes its outputs and updates its variable tensors.
    pub fn run(&self, values: &mut BTreeMap<i32, Vec<u8>>) -> Result<()> {
        let inputs = self
            .inputs
            .iter()
            .zip(self.constants.iter().zip(&self.variables))
            .map(|(t, (constant, variable))| {
                Ok(match (t, constant, variable) {
                    (None, ..) => Value::Absent,
                    (Some(_), Some(c), _) => Value::Read(c),
                    (Some(t), None, Some(_)) => Value::State(
                        values
                            .get(t)
                            .cloned()
                            .ok_or_else(|| anyhow!("variable tensor {t} has no value"))?,
                    ),
                    (Some(t), None, None) => Value::Read(
                        values
                            .get(t)
                            .ok_or_else(|| anyhow!("tensor {t} has no value yet"))?,
                    ),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut io = Io {
            inputs,
            outputs: self.output_sizes.iter().map(|&n| vec![0; n]).collect(),
        };
        self.kernel
            .run(&mut io)
            .with_context(|| format!("operator {} ({})", self.index, self.name))?;
        let Io { inputs, outputs } = io;
        let updated: Vec<(i32, Vec<u8>)> = self
            .inputs
            .iter()
            .zip(inputs)
            .filter_map(|(t, v)| match v {
                Value::State(b) => Some((t.expect("a variable is given"), b)),
                _ => None,
            })
            .collect();
        values.extend(updated);
        values.extend(self.outputs.iter().copied().zip(outputs));
        Ok(())
    }
}
