//! Sequence operators with state: SVDF and the unidirectional sequence LSTM, as TensorFlow Lite Micro's reference kernels compute them.

use super::{Kernel, OpDesc, Support};
use anyhow::{bail, Result};
use std::sync::Arc;

pub(super) const OPERATORS: &[Support] = &[];

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    bail!("{} has no kernel yet", op.name)
}
