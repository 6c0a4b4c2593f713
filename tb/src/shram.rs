//! The shared buffer (TRM 4.9.1) and the accumulator buffer read behind the
//! ports: the RTL's RAMs are public arrays of the Verilated model.

use crate::npu::NpuTb;
use crate::verilator::PublicArray;

/// The arrays named `name` in scopes containing `scope`, by scope.
fn arrays(tb: &NpuTb, name: &str, scope: &str) -> Vec<PublicArray> {
    let mut arrays: Vec<PublicArray> = tb
        .model
        .public_arrays()
        .into_iter()
        .filter(|a| a.name == name && a.scope.contains(scope))
        .collect();
    arrays.sort_by(|a, b| a.scope.cmp(&b.scope));
    arrays
}

/// The bank array of every core, core 0 first.
fn banks(tb: &NpuTb) -> Vec<PublicArray> {
    let banks = arrays(tb, "lines", "shram");
    assert_eq!(
        banks.len(),
        tb.config.cores as usize,
        "the model should have one shared-buffer bank per core, found {:?}",
        banks.iter().map(|b| &b.scope).collect::<Vec<_>>()
    );
    banks
}

/// The bytes of each array, element after element.
fn contents(tb: &NpuTb, arrays: &[PublicArray]) -> Vec<Vec<u8>> {
    arrays
        .iter()
        .map(|array| {
            (0..array.elements)
                .flat_map(|element| tb.model.array_element(array, element))
                .collect()
        })
        .collect()
}

/// Each core's shared buffer, as the golden model's `Npu::shram` holds it.
pub fn shram_contents(tb: &NpuTb) -> Vec<Vec<u8>> {
    contents(tb, &banks(tb))
}

/// Every accumulator buffer of the model (`npu_hw::mac_unit`; one per
/// datapath), word after word in Verilator's layout of a word (the golden
/// model has none): for checking that it is cleared.
pub fn acc_buffer_contents(tb: &NpuTb) -> Vec<Vec<u8>> {
    contents(tb, &arrays(tb, "words", "acc_buffer"))
}

/// Every output unit's copy of each core's LUT area (`npu_hw::output_unit`),
/// line after line: for checking that it is cleared.
pub fn lut_copy_contents(tb: &NpuTb) -> Vec<Vec<u8>> {
    contents(tb, &arrays(tb, "lines", "luts"))
}
