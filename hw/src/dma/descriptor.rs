//! The user DMA's head descriptor (TRM 4.6.4-4.6.5 NPU_SET_DMA0_*) as the
//! transfer it asks for: each side's shape in AXI addresses (or, for an
//! internal destination, shared-buffer offsets), the destination cores,
//! and the outstanding counters and cache codes of the two regions.
//! Combinational.
//!
//! The number of dimensions is the larger of the two stride modes; a 1D
//! side is packed, a 2D side skips SKIP0 after each row, a 3D side also
//! starts each plane SKIP1 after the packed plane. Offsets and skips are
//! 40-bit AXI addresses, LEN 32 bits (TRM 4.6.5): the values' higher bits
//! are not used.

use super::region::RegionSelect;
use super::walker::TransferShapeSource;
use crate::op_state::DmaDescriptor;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct DescriptorTransfer {
    pub descriptor: Signal<In, DmaDescriptor>,
    /// REGIONCFG, BASEP0-15 and AXI_LIMIT0-3 packed ([`RegionSelect`]).
    pub regioncfg: Signal<In, Bits<16>>,
    pub basep: Signal<In, Bits<512>>,
    pub axi_limit: Signal<In, Bits<128>>,
    pub source: TransferShapeSource,
    pub destination: TransferShapeSource,
    /// The destination is the shared buffer of the cores in `cores`
    /// (`destination.base` is then a byte offset in it).
    pub internal: Signal<Out, Bit>,
    pub cores: Signal<Out, Bits<2>>,
    /// No byte moves (LEN, SIZE0 or SIZE1 of the dimensions used is 0).
    pub empty: Signal<Out, Bit>,
    /// The source region's outstanding counter and ARCACHE; the
    /// destination region's and its AWCACHE.
    pub read_counter: Signal<Out, Bits<2>>,
    pub read_cache: Signal<Out, Bits<4>>,
    pub write_counter: Signal<Out, Bits<2>>,
    pub write_cache: Signal<Out, Bits<4>>,
    src_offset: Signal<Local, Bits<40>>,
    dst_offset: Signal<Local, Bits<40>>,
    skip0: Signal<Local, Bits<40>>,
    skip1: Signal<Local, Bits<40>>,
    src_mode: Signal<Local, Bits<2>>,
    dst_mode: Signal<Local, Bits<2>>,
    rows: Signal<Local, Bits<16>>,
    planes: Signal<Local, Bits<16>>,
    len: Signal<Local, Bits<32>>,
    src_lookup: RegionSelect,
    dst_lookup: RegionSelect,
}

impl Logic for DescriptorTransfer {
    #[hdl_gen]
    fn update(&mut self) {
        self.src_offset.next = bit_cast::<40, 48>(self.descriptor.val().src);
        self.dst_offset.next = bit_cast::<40, 48>(self.descriptor.val().dst);
        self.len.next = bit_cast::<32, 48>(self.descriptor.val().len);
        self.skip0.next = bit_cast::<40, 48>(self.descriptor.val().skip0);
        self.skip1.next = bit_cast::<40, 48>(self.descriptor.val().skip1);
        self.src_mode.next = self.descriptor.val().src_region_stride_mode;
        self.dst_mode.next = self.descriptor.val().dst_region_stride_mode;
        self.internal.next = self.descriptor.val().dst_region_region_mode;
        self.cores.next = bit_cast::<2, 8>(self.descriptor.val().dst_region_region);
        self.rows.next = 1.into();
        if (self.src_mode.val() != 0) | (self.dst_mode.val() != 0) {
            self.rows.next = self.descriptor.val().size0;
        }
        self.planes.next = 1.into();
        if (self.src_mode.val() >= 2) | (self.dst_mode.val() >= 2) {
            self.planes.next = self.descriptor.val().size1;
        }
        self.empty.next = (self.len.val() == 0) | (self.rows.val() == 0) | (self.planes.val() == 0);

        // Region (or core mask) lookups.
        self.src_lookup.region.next = bit_cast::<3, 8>(self.descriptor.val().src_region_region);
        self.dst_lookup.region.next = bit_cast::<3, 8>(self.descriptor.val().dst_region_region);
        self.src_lookup.regioncfg.next = self.regioncfg.val();
        self.dst_lookup.regioncfg.next = self.regioncfg.val();
        self.src_lookup.basep.next = self.basep.val();
        self.dst_lookup.basep.next = self.basep.val();
        self.src_lookup.axi_limit.next = self.axi_limit.val();
        self.dst_lookup.axi_limit.next = self.axi_limit.val();
        self.read_counter.next = self.src_lookup.counter.val();
        self.read_cache.next = self.src_lookup.arcache.val();
        self.write_counter.next = self.dst_lookup.counter.val();
        self.write_cache.next = self.dst_lookup.awcache.val();

        self.source.base.next = self.src_lookup.base.val() + self.src_offset.val();
        self.source.len.next = self.len.val();
        self.source.rows.next = self.rows.val();
        self.source.planes.next = self.planes.val();
        self.source.row_skip.next = 0.into();
        if self.src_mode.val() != 0 {
            self.source.row_skip.next = self.skip0.val();
        }
        self.source.plane_skip.next = self.skip1.val();
        self.source.three_d.next = self.src_mode.val() >= 2;
        self.source.max_beats.next = self.src_lookup.max_beats.val();

        self.destination.base.next = self.dst_offset.val();
        if !self.internal.val() {
            self.destination.base.next = self.dst_lookup.base.val() + self.dst_offset.val();
        }
        self.destination.len.next = self.len.val();
        self.destination.rows.next = self.rows.val();
        self.destination.planes.next = self.planes.val();
        self.destination.row_skip.next = 0.into();
        if self.dst_mode.val() != 0 {
            self.destination.row_skip.next = self.skip0.val();
        }
        self.destination.plane_skip.next = self.skip1.val();
        self.destination.three_d.next = self.dst_mode.val() >= 2;
        self.destination.max_beats.next = self.dst_lookup.max_beats.val();
    }
}
