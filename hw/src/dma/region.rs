//! A transfer's region (TRM 4.2.13-17, 4.3): its base pointer (BASEP), its
//! outstanding counter (REGIONCFG), and from that counter's AXI_LIMITn the
//! burst boundary and the AxCACHE values. One per channel side.

use super::memtype::MemtypeCache;
use crate::arch_constants::field_lsb;
use npu_arch::regs;
use rust_hdl::prelude::*;

/// An outstanding counter's AXI_LIMITn (TRM 4.2.14-17): its burst
/// boundary, AxCACHE values (table 4-31) and the read beats it may have in
/// flight.
#[derive(LogicBlock)]
pub struct CounterLimits {
    /// Outstanding counter 0-3.
    pub counter: Signal<In, Bits<2>>,
    /// AXI_LIMIT0-3, register k in bits 32k..32k + 32.
    pub axi_limit: Signal<In, Bits<128>>,
    /// AXI_LIMITn.max_beats of the counter.
    pub max_beats: Signal<Out, Bits<2>>,
    pub arcache: Signal<Out, Bits<4>>,
    pub awcache: Signal<Out, Bits<4>>,
    /// Beats of its most outstanding reads (max_outstanding_read_m1 + 1),
    /// each a burst of the most max_beats allows (4 << max_beats beats).
    pub read_beats_in_flight: Signal<Out, Bits<13>>,
    max_beats_lsb: Constant<Bits<5>>,
    memtype_lsb: Constant<Bits<5>>,
    reads_lsb: Constant<Bits<5>>,
    counter_select: Signal<Local, Bits<4>>,
    limit: Signal<Local, Bits<32>>,
    cache: MemtypeCache,
}

impl Default for CounterLimits {
    fn default() -> Self {
        Self {
            counter: Default::default(),
            axi_limit: Default::default(),
            max_beats: Default::default(),
            arcache: Default::default(),
            awcache: Default::default(),
            read_beats_in_flight: Default::default(),
            max_beats_lsb: field_lsb(&regs::AXI_LIMIT0, "max_beats"),
            memtype_lsb: field_lsb(&regs::AXI_LIMIT0, "memtype"),
            reads_lsb: field_lsb(&regs::AXI_LIMIT0, "max_outstanding_read_m1"),
            counter_select: Default::default(),
            limit: Default::default(),
            cache: Default::default(),
        }
    }
}

impl Logic for CounterLimits {
    #[hdl_gen]
    fn update(&mut self) {
        self.counter_select.next = bits::<4>(1) << self.counter.val();
        self.limit.next = 0.into();
        for c in 0..4 {
            if self.counter_select.val().get_bit(c) {
                self.limit.next = self.axi_limit.val().get_bits::<32>(32 * c);
            }
        }
        self.max_beats.next = bit_cast::<2, 32>(self.limit.val() >> self.max_beats_lsb.val());
        self.read_beats_in_flight.next =
            (bit_cast::<13, 8>(bit_cast::<8, 32>(self.limit.val() >> self.reads_lsb.val())) + 1)
                << (bit_cast::<13, 2>(self.max_beats.val()) + 2);
        self.cache.memtype.next = bit_cast::<4, 32>(self.limit.val() >> self.memtype_lsb.val());
        self.arcache.next = self.cache.arcache.val();
        self.awcache.next = self.cache.awcache.val();
    }
}

#[derive(LogicBlock, Default)]
pub struct RegionSelect {
    pub region: Signal<In, Bits<3>>,
    pub regioncfg: Signal<In, Bits<16>>,
    /// BASEP0-15 and AXI_LIMIT0-3, register k in bits 32k..32k + 32:
    /// region k's base address in BASEP 2k (low) and 2k+1 (TRM 4.3).
    pub basep: Signal<In, Bits<512>>,
    pub axi_limit: Signal<In, Bits<128>>,
    /// The region's 40-bit AXI base address.
    pub base: Signal<Out, Bits<40>>,
    /// Outstanding counter 0-3: 0 and 1 on M0, 2 and 3 on M1.
    pub counter: Signal<Out, Bits<2>>,
    /// AXI_LIMITn.max_beats of the counter.
    pub max_beats: Signal<Out, Bits<2>>,
    pub arcache: Signal<Out, Bits<4>>,
    pub awcache: Signal<Out, Bits<4>>,
    region_select: Signal<Local, Bits<8>>,
    base_low: Signal<Local, Bits<32>>,
    base_high: Signal<Local, Bits<32>>,
    limits: CounterLimits,
}

impl Logic for RegionSelect {
    #[hdl_gen]
    fn update(&mut self) {
        self.counter.next =
            bit_cast::<2, 16>(self.regioncfg.val() >> (bit_cast::<5, 3>(self.region.val()) << 1));
        self.region_select.next = bits::<8>(1) << self.region.val();
        self.base_low.next = 0.into();
        self.base_high.next = 0.into();
        for k in 0..8 {
            if self.region_select.val().get_bit(k) {
                self.base_low.next = self.basep.val().get_bits::<32>(64 * k);
                self.base_high.next = self.basep.val().get_bits::<32>(64 * k + 32);
            }
        }
        self.base.next = bit_cast::<40, 32>(self.base_low.val())
            | (bit_cast::<40, 32>(self.base_high.val()) << 32);
        self.limits.counter.next = self.counter.val();
        self.limits.axi_limit.next = self.axi_limit.val();
        self.max_beats.next = self.limits.max_beats.val();
        self.arcache.next = self.limits.arcache.val();
        self.awcache.next = self.limits.awcache.val();
    }
}
