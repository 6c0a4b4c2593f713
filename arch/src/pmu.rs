//! PMU event types (TRM 4.5.5, table 4-79): the values of
//! `PMU_EVTYPERn.EV_TYPE` and what each counts.

use serde::Serialize;

/// Width of `PMU_EVTYPERn.EV_TYPE`.
pub const EVENT_TYPE_BITS: u32 = 10;

/// The block whose activity an event counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Unit {
    /// `no_event`: never counts.
    None,
    /// The NPU as a whole: cycles and the run state (STATUS.state).
    Npu,
    /// The MAC unit.
    Mac,
    /// The output unit (AO: accumulators to output).
    OutputUnit,
    /// The weight decoder.
    WeightDecoder,
    /// AXI manager M0, M1.
    Axi0,
    Axi1,
    /// Latency of the AXI transactions `PMCAXI_CHAN` selects.
    AxiLatency,
    /// ECC errors of internal RAMs.
    Ecc,
}

/// One `EV_TYPE` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    /// The `EV_TYPE` value.
    pub code: u16,
    /// The TRM's name (its `axiN_*` identifiers; a lower-case form of the others).
    pub name: &'static str,
    pub unit: Unit,
    /// 0, or 1 for the second core's copy of a per-core event (the TRM's
    /// `0x1XY` column, counted in two-core parallel mode).
    pub core: u8,
    /// The TRM's meaning.
    pub description: &'static str,
}

macro_rules! events {
    ($($id:ident = $code:literal, $unit:ident, $core:literal, $name:literal, $desc:literal;)*) => {
        $(pub const $id: Event = Event {
            code: $code,
            name: $name,
            unit: Unit::$unit,
            core: $core,
            description: $desc,
        };)*
        /// Every event type of TRM table 4-79, in the table's order.
        pub const EVENTS: &[Event] = &[$($id),*];
    };
}

events! {
    NO_EVENT = 0x000, None, 0, "no_event", "No event counted (the event never occurs)";
    CYCLE = 0x011, Npu, 0, "cycle", "Event occurs every cycle";
    NPU_IDLE = 0x020, Npu, 0, "npu_idle", "NPU in stopped state";
    NPU_RUNNING = 0x023, Npu, 0, "npu_running", "NPU in running state";
    MAC_ACTIVE = 0x030, Mac, 0, "mac_active", "MAC is doing block traversal (8 or 16 bit): valid blk_cmd and not stalled";
    MAC_ACTIVE_8BIT = 0x031, Mac, 0, "mac_active_8bit", "MAC is doing 8-bit block traversal: valid blk_cmd and not stalled";
    MAC_ACTIVE_16BIT = 0x032, Mac, 0, "mac_active_16bit", "MAC is doing 16-bit block traversal: valid blk_cmd and not stalled";
    AO_ACTIVE = 0x040, OutputUnit, 0, "ao_active", "AO is doing block traversal of ACC or IB (8 or 16 bit): valid blk_cmd and not stalled";
    AO_ACTIVE_8BIT = 0x041, OutputUnit, 0, "ao_active_8bit", "AO is doing 8-bit block traversal of ACC or IB: valid blk_cmd and not stalled";
    AO_ACTIVE_16BIT = 0x042, OutputUnit, 0, "ao_active_16bit", "AO is doing 16-bit block traversal of ACC or IB: valid blk_cmd and not stalled";
    WD_ACTIVE = 0x050, WeightDecoder, 0, "wd_active", "WD is decoding the weight stream: valid ofd_cmd and not stalled";
    AXI0_RD_TRANS_ACCEPTED = 0x080, Axi0, 0, "axi0_rd_trans_accepted", "AXI-0 read transfer accepted, ARREADY & ARVALID (number of read transfers)";
    AXI0_RD_DATA_BEAT_RECEIVED = 0x082, Axi0, 0, "axi0_rd_data_beat_received", "AXI-0 RREADY & RVALID (read bandwidth)";
    AXI0_RD_TRAN_REQ_STALLED = 0x083, Axi0, 0, "axi0_rd_tran_req_stalled", "AXI-0 ARVALID & !ARREADY (read stalls due to the memory system)";
    AXI0_WR_TRANS_ACCEPTED = 0x084, Axi0, 0, "axi0_wr_trans_accepted", "AXI-0 AWREADY & AWVALID (number of write transfers)";
    AXI0_WR_DATA_BEAT_WRITTEN = 0x087, Axi0, 0, "axi0_wr_data_beat_written", "AXI-0 WVALID & WREADY (write bandwidth)";
    AXI0_WR_TRAN_REQ_STALLED = 0x088, Axi0, 0, "axi0_wr_tran_req_stalled", "AXI-0 AWVALID & !AWREADY (write transfer stalls due to the memory system)";
    AXI0_WR_DATA_BEAT_STALLED = 0x089, Axi0, 0, "axi0_wr_data_beat_stalled", "AXI-0 WVALID & !WREADY (write beat stalls due to the memory system)";
    AXI0_ENABLED_CYCLES = 0x08C, Axi0, 0, "axi0_enabled_cycles", "AXI-0 ACLKEN (memory system frequency)";
    AXI0_RD_STALL_LIMIT = 0x08E, Axi0, 0, "axi0_rd_stall_limit", "AXI-0 read stalled because an AXI counter's outstanding limit is reached";
    AXI0_WR_STALL_LIMIT = 0x08F, Axi0, 0, "axi0_wr_stall_limit", "AXI-0 write stalled because an AXI counter's outstanding limit is reached";
    AXI_LATENCY_ANY = 0x0A0, AxiLatency, 0, "axi_latency_any", "Any latency: the number of transactions measured for the selected ID and interface";
    AXI_LATENCY_32 = 0x0A1, AxiLatency, 0, "axi_latency_32", "Latency was >= 32 cycles";
    AXI_LATENCY_64 = 0x0A2, AxiLatency, 0, "axi_latency_64", "Latency was >= 64 cycles";
    AXI_LATENCY_128 = 0x0A3, AxiLatency, 0, "axi_latency_128", "Latency was >= 128 cycles";
    AXI_LATENCY_256 = 0x0A4, AxiLatency, 0, "axi_latency_256", "Latency was >= 256 cycles";
    AXI_LATENCY_512 = 0x0A5, AxiLatency, 0, "axi_latency_512", "Latency was >= 512 cycles";
    AXI_LATENCY_1024 = 0x0A6, AxiLatency, 0, "axi_latency_1024", "Latency was >= 1024 cycles";
    DMA_ECC = 0x0B0, Ecc, 0, "dma_ecc", "DMA RAM error (corrected or uncorrected)";
    SB_ECC = 0x0B1, Ecc, 0, "sb_ecc", "SB RAM error (corrected or uncorrected)";
    MAC_ACTIVE_CORE1 = 0x130, Mac, 1, "mac_active", "Second core: MAC is doing block traversal (8 or 16 bit)";
    MAC_ACTIVE_8BIT_CORE1 = 0x131, Mac, 1, "mac_active_8bit", "Second core: MAC is doing 8-bit block traversal";
    MAC_ACTIVE_16BIT_CORE1 = 0x132, Mac, 1, "mac_active_16bit", "Second core: MAC is doing 16-bit block traversal";
    AO_ACTIVE_CORE1 = 0x140, OutputUnit, 1, "ao_active", "Second core: AO is doing block traversal of ACC or IB (8 or 16 bit)";
    AO_ACTIVE_8BIT_CORE1 = 0x141, OutputUnit, 1, "ao_active_8bit", "Second core: AO is doing 8-bit block traversal of ACC or IB";
    AO_ACTIVE_16BIT_CORE1 = 0x142, OutputUnit, 1, "ao_active_16bit", "Second core: AO is doing 16-bit block traversal of ACC or IB";
    WD_ACTIVE_CORE1 = 0x150, WeightDecoder, 1, "wd_active", "Second core: WD is decoding the weight stream";
    AXI1_RD_TRANS_ACCEPTED = 0x180, Axi1, 0, "axi1_rd_trans_accepted", "AXI-1 read transfer accepted, ARREADY & ARVALID (number of read transfers)";
    AXI1_RD_DATA_BEAT_RECEIVED = 0x182, Axi1, 0, "axi1_rd_data_beat_received", "AXI-1 RREADY & RVALID (read bandwidth)";
    AXI1_RD_TRAN_REQ_STALLED = 0x183, Axi1, 0, "axi1_rd_tran_req_stalled", "AXI-1 ARVALID & !ARREADY (read stalls due to the memory system)";
    AXI1_WR_TRANS_ACCEPTED = 0x184, Axi1, 0, "axi1_wr_trans_accepted", "AXI-1 AWREADY & AWVALID (number of write transfers)";
    AXI1_WR_DATA_BEAT_WRITTEN = 0x187, Axi1, 0, "axi1_wr_data_beat_written", "AXI-1 WVALID & WREADY (write bandwidth)";
    AXI1_WR_TRAN_REQ_STALLED = 0x188, Axi1, 0, "axi1_wr_tran_req_stalled", "AXI-1 AWVALID & !AWREADY (write transfer stalls due to the memory system)";
    AXI1_WR_DATA_BEAT_STALLED = 0x189, Axi1, 0, "axi1_wr_data_beat_stalled", "AXI-1 WVALID & !WREADY (write beat stalls due to the memory system)";
    AXI1_ENABLED_CYCLES = 0x18C, Axi1, 0, "axi1_enabled_cycles", "AXI-1 ACLKEN (memory system frequency)";
    AXI1_RD_STALL_LIMIT = 0x18E, Axi1, 0, "axi1_rd_stall_limit", "AXI-1 read stalled because an AXI counter's outstanding limit is reached";
    AXI1_WR_STALL_LIMIT = 0x18F, Axi1, 0, "axi1_wr_stall_limit", "AXI-1 write stalled because an AXI counter's outstanding limit is reached";
    SB_ECC_CORE1 = 0x1B1, Ecc, 1, "sb_ecc", "Second core: SB RAM error (corrected or uncorrected)";
}

/// The events of `unit`, in the table's order.
pub fn of_unit(unit: Unit) -> impl Iterator<Item = &'static Event> {
    EVENTS.iter().filter(move |e| e.unit == unit)
}

/// The event with `EV_TYPE` value `code`, if the table has one.
pub fn by_code(code: u16) -> Option<&'static Event> {
    EVENTS.iter().find(|e| e.code == code)
}

/// Latency thresholds of `axi_latency_32` to `axi_latency_1024`, in cycles.
pub const LATENCY_THRESHOLDS: [u32; 6] = [32, 64, 128, 256, 512, 1024];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_fit_ev_type() {
        for e in EVENTS {
            assert!(u32::from(e.code) < 1 << EVENT_TYPE_BITS, "{}", e.name);
            assert_eq!(
                EVENTS.iter().filter(|o| o.code == e.code).count(),
                1,
                "{:#x}",
                e.code
            );
        }
    }

    #[test]
    fn axi1_events_mirror_axi0_events_at_0x100() {
        let axi0: Vec<_> = of_unit(Unit::Axi0).collect();
        let axi1: Vec<_> = of_unit(Unit::Axi1).collect();
        assert_eq!(axi0.len(), 10);
        assert_eq!(axi0.len(), axi1.len());
        for (a, b) in axi0.iter().zip(&axi1) {
            assert_eq!(a.code + 0x100, b.code);
            assert_eq!(a.name.replacen("axi0", "axi1", 1), b.name);
        }
    }

    #[test]
    fn second_core_events_mirror_the_first_at_0x100() {
        for e in EVENTS.iter().filter(|e| e.core == 1) {
            let first = by_code(e.code - 0x100).expect("first-core event");
            assert_eq!((first.name, first.unit, first.core), (e.name, e.unit, 0));
        }
    }

    #[test]
    fn latency_events_are_any_then_the_thresholds() {
        let codes: Vec<u16> = of_unit(Unit::AxiLatency).map(|e| e.code).collect();
        assert_eq!(codes, (0xA0..=0xA6).collect::<Vec<u16>>());
        for (e, t) in of_unit(Unit::AxiLatency).skip(1).zip(LATENCY_THRESHOLDS) {
            assert_eq!(e.name, format!("axi_latency_{t}"));
        }
    }
}
