//! The blocks emitted on their own for block-level benches: one table that
//! `npu-gen` (`--all`, `--block NAME`, `--list-blocks`), the Makefile (which
//! lints and synthesises every emitted file) and the bench harness
//! (`npu_tb::block`) share, so no list of blocks is kept by hand elsewhere.

use crate::apb::ApbCompleter;
use crate::cpm::QChannel;
use crate::datapath::traversal::Traversal;
use crate::datapath::IfmFetch;
use crate::dma::{read_router, write_router, TransferWalker};
use crate::emit::{emit_block, BlockDesign, PortNames};
use crate::mac_unit::{IfmUnitBench, MacUnit};
use crate::output_unit::{OfmWriter, OutputUnit, ScaleRecords, ScaleSets};
use crate::weight_decoder::{WeightDecoder, WeightGroups};
use npu_arch::config::NpuConfig;
use rust_hdl::prelude::*;

/// One block of the table.
pub struct BlockEntry {
    /// Module and file name, e.g. `weight_decoder`.
    pub name: &'static str,
    /// What it is, for `npu-gen --list-blocks`.
    pub about: &'static str,
    build: fn() -> Box<dyn Block>,
}

/// Every block emitted on its own.
pub const BLOCKS: &[BlockEntry] = &[
    BlockEntry {
        name: "weight_decoder",
        about: "weight decoder (TRM 3.3.5): weight-stream words in, groups of 16 weights out",
        build: || Box::new(WeightDecoder::default()),
    },
    BlockEntry {
        name: "mac_unit",
        about: "MAC unit dot products, adder array and accumulator buffer (TRM 3.3.6): 4-position \
                x 8-channel operand beats accumulated into AB words, words read out as 32 accumulators",
        build: || Box::new(MacUnit::default()),
    },
    BlockEntry {
        name: "ifm_unit",
        about: "IFM unit (TRM 3.3.6.1) on a 48 KB shared buffer with four read ports: requests \
                in, 2x2x8 activations out (padding, upscaling, zero point)",
        build: || Box::new(IfmUnitBench::default()),
    },
    BlockEntry {
        name: "output_unit",
        about: "output unit (TRM 3.3.7): 8 accumulators and scale records, or 8 elementwise \
                operand pairs, in; 8 OFM values out; tanh, sigmoid and two cores' LUTs",
        build: || Box::new(OutputUnit::new(2)),
    },
    BlockEntry {
        name: "traversal",
        about: "convolution block traversal (TRM 4.9): IFM block jobs, MAC beats in weight-stream \
                order, accumulator readouts",
        build: || Box::new(Traversal::default()),
    },
    BlockEntry {
        name: "weight_groups",
        about: "weight decoder groups of 16 weights regrouped as MAC groups: 64 weights \
                (8 OFM x 8 IFM channels), or 8 for depthwise",
        build: || Box::new(WeightGroups::default()),
    },
    BlockEntry {
        name: "scale_records",
        about: "scale/bias stream bytes in, 10-byte scale records (bias, scale, shift) out",
        build: || Box::new(ScaleRecords::default()),
    },
    BlockEntry {
        name: "scale_sets",
        about: "scale records grouped per 8-channel slice of each OFM block, the next slice's \
                gathered while this one's is used",
        build: || Box::new(ScaleSets::default()),
    },
    BlockEntry {
        name: "ifm_fetch",
        about: "IFM channel address generator (TRM 3.3.3): IFM block jobs in, 3D copies of \
                their rectangles into the shared buffer out",
        build: || Box::new(IfmFetch::default()),
    },
    BlockEntry {
        name: "ofm_writer",
        about: "OFM writer: output-unit results of one position and up to 8 channels in, \
                OFM writes at their feature-map addresses out",
        build: || Box::new(OfmWriter::default()),
    },
    BlockEntry {
        name: "apb_completer",
        about: "APB4 completer (TRM A.5, 4.1): PCLKEN sampling, PPROT access rule, PSLVERR; \
                the register bus to the register file as ports (registers_addr, ...)",
        build: || Box::new(ApbCompleter::default()),
    },
    BlockEntry {
        name: "q_channel",
        about: "Q-channel completer (TRM 3.3.4.2, 3.3.4.3; AMBA LPI): QREQn synchronised, \
                accepted when `allow` is high, denied otherwise; the clock and power channels' block",
        build: || Box::new(QChannel::default()),
    },
    BlockEntry {
        name: "read_router_u65_256",
        about: "DMA read router of u65-256 (TRM 3.3.3, 4.2.14): its six read clients' bursts \
                on the AR channels of M0 and M1, read beats back by RID, AXI_LIMITn read limits",
        build: || Box::new(read_router(&NpuConfig::u65_256())),
    },
    BlockEntry {
        name: "read_router_u65_512",
        about: "DMA read router of u65-512: as read_router_u65_256 with core 1's weight and \
                scale/bias streams, eight read clients",
        build: || Box::new(read_router(&NpuConfig::u65_512())),
    },
    BlockEntry {
        name: "write_router",
        about: "DMA write router (both configurations): the OFM and user-DMA writes on the AW, \
                W and B channels of M0 and M1, W in address order, AXI_LIMITn write limits",
        build: || Box::new(write_router()),
    },
    BlockEntry {
        name: "transfer_walker",
        about: "DMA transfer walker: one side of a transfer as AXI bursts split at the \
                AXI_LIMITn.max_beats boundary (64, 128 or 256 bytes)",
        build: || Box::new(TransferWalker::default()),
    },
];

impl BlockEntry {
    /// Its Verilog, ports named in the block style (`words_valid`).
    pub fn emit(&self) -> Result<BlockDesign, String> {
        let mut block = (self.build)();
        emit_block(
            block.as_mut(),
            self.name,
            &format!("block {}", self.name),
            PortNames::Block,
        )
        .map_err(|e| format!("block {} fails rust-hdl's checks: {e}", self.name))
    }
}

/// The block called `name`.
pub fn block(name: &str) -> Result<&'static BlockEntry, String> {
    BLOCKS.iter().find(|b| b.name == name).ok_or_else(|| {
        let names: Vec<&str> = BLOCKS.iter().map(|b| b.name).collect();
        format!("unknown block {name}: the blocks are {}", names.join(", "))
    })
}
