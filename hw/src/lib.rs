//! The NPU hardware as rust-hdl blocks, one module per TRM functional block.

pub mod apb;
pub mod arch_constants;
pub mod axi;
pub mod blocks;
pub mod central_control;
pub mod cpm;
pub mod datapath;
pub mod dma;
pub mod emit;
pub mod mac_unit;
pub mod op_state;
pub mod output_unit;
pub mod pmu;
pub mod shram;
pub mod stream;
pub mod top;
pub mod weight_decoder;
pub mod widgets;
