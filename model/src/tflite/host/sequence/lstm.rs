//! UNIDIRECTIONAL_SEQUENCE_LSTM.

use super::super::{Element, Kernel, OpDesc};
use anyhow::{bail, Result};
use std::sync::Arc;

pub(super) const TYPES: &[Element] = &[];

pub(super) fn build(op: &OpDesc) -> Result<Arc<dyn Kernel>> {
    bail!("{} has no kernel yet", op.name)
}
