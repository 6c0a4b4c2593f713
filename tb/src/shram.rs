//! The shared buffer (TRM 4.9.1) read behind the ports: the RTL's SRAM banks
//! are public arrays of the Verilated model.

use crate::npu::NpuTb;
use crate::verilator::PublicArray;

/// The bank array of every core, core 0 first.
fn banks(tb: &NpuTb) -> Vec<PublicArray> {
    let mut banks: Vec<PublicArray> = tb
        .model
        .public_arrays()
        .into_iter()
        .filter(|a| a.name == "lines" && a.scope.contains("shram"))
        .collect();
    banks.sort_by(|a, b| a.scope.cmp(&b.scope));
    assert_eq!(
        banks.len(),
        tb.config.cores as usize,
        "the model should have one shared-buffer bank per core, found {:?}",
        banks.iter().map(|b| &b.scope).collect::<Vec<_>>()
    );
    banks
}

/// Each core's shared buffer, as the golden model's `Npu::shram` holds it.
pub fn shram_contents(tb: &NpuTb) -> Vec<Vec<u8>> {
    banks(tb)
        .iter()
        .map(|bank| {
            (0..bank.elements)
                .flat_map(|line| tb.model.array_element(bank, line))
                .collect()
        })
        .collect()
}
