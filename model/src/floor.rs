//! Each operation's floor: the fewest cycles any implementation of the
//! TRM's rules could take for it on a given memory system, set beside the
//! measured cycles in the per-layer report. It is the larger of the rate
//! bound (TRM 4.8.3 and 4.8.4's tables for the operation, precision and
//! configuration) and each AXI port's bytes at its bandwidth, plus the
//! latency the dependencies force. The formula is in
//! docs/per-layer-report.md ("The floor").

use crate::access::OperationAccess;
use crate::footprint::joined;
use npu_arch::command::ElementwiseMode;
use npu_arch::regs::{counter_port, REGION_COUNT};
use serde::Serialize;
use std::ops::Range;

/// Bytes an AXI port moves a cycle each way (one 128-bit beat on R, one on W).
pub const PORT_BEAT_BYTES: f64 = 16.0;

/// What a kernel operation is to the TRM's performance tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateClass {
    Conv,
    Depthwise,
    Pool,
    Elementwise(ElementwiseMode),
}

/// A kernel operation's settings that its rate and dependencies depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateFacts {
    pub class: RateClass,
    pub ifm_bits: u32,
    pub ofm_bits: u32,
    /// An elementwise ADD or SUB that rescales its inputs (an IFM scale
    /// mode other than OPA/OPB 16x16): the tables' "advanced" column.
    pub advanced: bool,
    /// The activation is a LUT, tanh or sigmoid (table 4-130's last column).
    pub lookup: bool,
    /// NPU_SET_BLOCKDEP.
    pub blockdep: u32,
}

/// MACs a cycle of a convolution, depthwise convolution or pool (TRM
/// tables 4-126 to 4-129; pools walk as depthwise does). Fully connected
/// layers are weight-bound ("WB"): the weight bytes bound them, and the
/// convolution figure is still an upper bound on their rate.
pub fn mac_rate(class: RateClass, ifm_bits: u32, cores: u32) -> Option<f64> {
    let per_core = match class {
        RateClass::Conv => 256.0,
        RateClass::Depthwise | RateClass::Pool => 32.0,
        RateClass::Elementwise(_) => return None,
    };
    let precision = if ifm_bits == 8 { 1.0 } else { 0.5 };
    Some(per_core * precision * f64::from(cores))
}

/// An elementwise operation's OFM elements a cycle on u65-256 and u65-512
/// (TRM tables 4-130 to 4-132), and whether the TRM marks the figure as
/// memory-bound (footnote 1) rather than a limit of the NPU itself.
pub fn elementwise_rate(
    mode: ElementwiseMode,
    ifm_bits: u32,
    ofm_bits: u32,
    advanced: bool,
) -> [(f64, bool); 2] {
    use ElementwiseMode as M;
    let free = |f| (f, false);
    let bound = |f| (f, true);
    let add_sub = matches!(mode, M::Add | M::Sub);
    if ofm_bits == 32 || matches!(mode, M::Clz | M::Shl | M::Shr) {
        // Table 4-132.
        return match (mode, ifm_bits) {
            (M::Clz, _) => [free(1.6), bound(2.0)],
            (M::Shl | M::Shr, _) => [free(0.89), bound(1.33)],
            (_, 8) => [free(2.0), bound(2.67)],
            (_, 16) => [free(2.0), bound(2.0)],
            _ => [free(0.89), bound(1.33)],
        };
    }
    let eight = ifm_bits == 8;
    match mode {
        _ if add_sub && advanced => [free(1.33), free(2.67)],
        M::Lrelu | M::Abs => [free(4.0), if eight { free(8.0) } else { bound(4.0) }],
        M::Min | M::Max => [
            if eight { free(4.0) } else { bound(2.67) },
            bound(if eight { 5.33 } else { 2.67 }),
        ],
        M::Mul => [free(2.67), if eight { free(5.33) } else { bound(2.67) }],
        _ => [free(2.0), if eight { free(4.0) } else { bound(2.67) }],
    }
}

/// OFM values a cycle through a LUT, tanh or sigmoid (table 4-130).
pub fn lookup_rate(cores: u32) -> f64 {
    f64::from(cores)
}

/// One AXI port's memory as the floor sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PortTiming {
    /// Cycles from a read address to its data, and from a burst's last
    /// write beat to its response.
    pub read_latency: u64,
    pub write_latency: u64,
    /// Data bytes a cycle, reads and writes together; none: a beat each way
    /// each cycle.
    pub bytes_per_cycle: Option<f64>,
}

/// The memory behind M0 and M1 and which regions reach which.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryTiming {
    pub ports: [PortTiming; 2],
    /// Each region's port (REGIONCFG: counters 0 and 1 on M0, 2 and 3 on M1).
    pub region_ports: [usize; REGION_COUNT],
    /// The command stream's port (QCONFIG).
    pub command_port: usize,
}

impl MemoryTiming {
    /// Each region's REGIONCFG counter and QCONFIG's as ports (TRM 4.2.13,
    /// table 4-31).
    pub fn new(
        ports: [PortTiming; 2],
        region_counters: [u32; REGION_COUNT],
        command_counter: u32,
    ) -> MemoryTiming {
        let port = |counter: u32| counter_port(counter & 3) as usize;
        MemoryTiming {
            ports,
            region_ports: region_counters.map(port),
            command_port: port(command_counter),
        }
    }
}

/// An operation's floor and its parts, in cycles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Floor {
    pub cycles: u64,
    /// The rate bound.
    pub compute: u64,
    /// The busiest port's bytes at its bandwidth.
    pub transfer: u64,
    /// Round trips the dependencies force.
    pub latency: u64,
}

/// A byte range at its AXI address: region, offset -> address.
pub type AddressOf<'a> = &'a dyn Fn(usize, i64) -> u64;

/// Bytes an operation reads and writes on each port, each byte once, and
/// the address ranges it reads and writes.
#[derive(Default)]
struct Traffic {
    read: [Vec<Range<u64>>; 2],
    written: [Vec<Range<u64>>; 2],
}

impl Traffic {
    fn of(op: &OperationAccess, memory: &MemoryTiming, address: AddressOf) -> Traffic {
        let mut t = Traffic::default();
        for a in &op.accesses {
            let port = memory.region_ports.get(a.region).copied().unwrap_or(0);
            let side = if a.write {
                &mut t.written[port]
            } else {
                &mut t.read[port]
            };
            side.extend(
                a.bytes
                    .iter()
                    .map(|r| address(a.region, r.start)..address(a.region, r.end)),
            );
        }
        for side in t.read.iter_mut().chain(t.written.iter_mut()) {
            *side = joined(std::mem::take(side));
        }
        t
    }

    fn bytes(ranges: &[Range<u64>]) -> u64 {
        ranges.iter().map(|r| r.end - r.start).sum()
    }

    /// The busiest port's cycles.
    fn cycles(&self, memory: &MemoryTiming) -> u64 {
        (0..2)
            .map(|p| {
                let (r, w) = (Self::bytes(&self.read[p]), Self::bytes(&self.written[p]));
                let cycles = match memory.ports[p].bytes_per_cycle {
                    Some(rate) => (r + w) as f64 / rate,
                    None => r.max(w) as f64 / PORT_BEAT_BYTES,
                };
                cycles.ceil() as u64
            })
            .max()
            .unwrap_or(0)
    }

    /// The least read latency among the ports this operation reads from.
    fn read_latency(&self, memory: &MemoryTiming, reads: impl Fn(usize) -> bool) -> Option<u64> {
        (0..2)
            .filter(|&p| reads(p))
            .map(|p| memory.ports[p].read_latency)
            .min()
    }

    /// Whether it reads a byte that `earlier` writes, and from which ports.
    fn reads_written_by(&self, earlier: &Traffic) -> [bool; 2] {
        let written: Vec<&Range<u64>> = earlier.written.iter().flatten().collect();
        std::array::from_fn(|p| {
            self.read[p]
                .iter()
                .any(|r| written.iter().any(|w| r.start < w.end && w.start < r.end))
        })
    }

    /// The least write latency among the ports it writes to.
    fn write_latency(&self, memory: &MemoryTiming) -> Option<u64> {
        (0..2)
            .filter(|&p| !self.written[p].is_empty())
            .map(|p| memory.ports[p].write_latency)
            .min()
    }
}

/// The rate bound of a kernel operation with `macs` MACs and `elements`
/// OFM elements on `cores` cores.
fn compute_cycles(facts: &RateFacts, macs: u64, elements: u64, cores: u32) -> u64 {
    let mut cycles: f64 = 0.0;
    if let Some(rate) = mac_rate(facts.class, facts.ifm_bits, cores) {
        cycles = cycles.max(macs as f64 / rate);
    }
    if let RateClass::Elementwise(mode) = facts.class {
        let (rate, memory_bound) =
            elementwise_rate(mode, facts.ifm_bits, facts.ofm_bits, facts.advanced)
                [cores as usize - 1];
        // A memory-bound figure is the TRM's memory's limit: the ports'
        // term stands for it.
        if !memory_bound {
            cycles = cycles.max(elements as f64 / rate);
        }
    }
    if facts.lookup {
        cycles = cycles.max(elements as f64 / lookup_rate(cores));
    }
    cycles.ceil() as u64
}

/// What the floor reads of a row of the per-layer report
/// (`crate::state::OpRecord::floor_input`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FloorInput {
    /// Byte offset of the operation's command in its stream.
    pub offset: usize,
    /// An operator the host ran: no floor.
    pub on_cpu: bool,
    /// A kernel operation's rate class and BLOCKDEP; `None` for a DMA.
    pub rate_facts: Option<RateFacts>,
    pub ofm: Option<[usize; 3]>,
    pub macs: u64,
}

/// The floor of each row of `layers` (none for an operator the host ran,
/// or a row the checker has no accesses for), on `cores` cores behind
/// `memory`; `operations` are the stream checker's accesses of the same
/// stream, `address` places a region's byte on the bus.
///
/// Latency: the command fetch's round trip comes before any operation (the
/// command stream's own floor, [`Floors::command_fetch`]: an operation's
/// cycles count from its dispatch); the first kernel operation or DMA
/// waits for its own first read; a kernel operation with BLOCKDEP 0 that
/// reads bytes the kernel operation before it writes waits for that
/// write's response and then its own read's round trip. The last row that
/// writes waits for its writes' response before the NPU can stop.
pub fn floors(
    layers: &[FloorInput],
    operations: &[OperationAccess],
    memory: &MemoryTiming,
    cores: u32,
    address: AddressOf,
) -> Floors {
    let mut out = Vec::with_capacity(layers.len());
    let mut previous_kernel: Option<Traffic> = None;
    let mut first = true;
    let mut last_writer = None;
    for layer in layers {
        let op = (!layer.on_cpu)
            .then(|| operations.iter().find(|o| o.offset == layer.offset))
            .flatten();
        let Some(op) = op else {
            out.push(None);
            continue;
        };
        let traffic = Traffic::of(op, memory, address);
        let compute = layer.rate_facts.map_or(0, |f| {
            let elements = layer.ofm.map_or(0, |[h, w, c]| (h * w * c) as u64);
            compute_cycles(&f, layer.macs, elements, cores)
        });
        let reads_any = |p: usize| !traffic.read[p].is_empty();
        let mut latency = 0;
        if first {
            latency += traffic.read_latency(memory, reads_any).unwrap_or(0);
            first = false;
        } else if let (Some(facts), Some(before)) = (layer.rate_facts, &previous_kernel) {
            let depends = traffic.reads_written_by(before);
            if facts.blockdep == 0 && depends.contains(&true) {
                latency += before.write_latency(memory).unwrap_or(0)
                    + traffic.read_latency(memory, |p| depends[p]).unwrap_or(0);
            }
        }
        if let Some(wait) = traffic.write_latency(memory) {
            last_writer = Some((out.len(), wait));
        }
        let transfer = traffic.cycles(memory);
        out.push(Some(Floor {
            cycles: compute.max(transfer) + latency,
            compute,
            transfer,
            latency,
        }));
        if layer.rate_facts.is_some() {
            previous_kernel = Some(traffic);
        }
    }
    if let Some((i, wait)) = last_writer {
        let floor = out[i].as_mut().expect("the last writer has a floor");
        floor.latency += wait;
        floor.cycles += wait;
    }
    Floors {
        rows: out,
        command_fetch: memory.ports[memory.command_port].read_latency,
    }
}

/// The floors of a run's rows and of its command stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Floors {
    /// One per row of the per-layer report.
    pub rows: Vec<Option<Floor>>,
    /// The first command fetch's round trip, before any operation starts.
    pub command_fetch: u64,
}

#[cfg(test)]
// An access's bytes are a list of ranges; these have one each.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;
    use crate::access::{Access, Role};

    const SRAM: PortTiming = PortTiming {
        read_latency: 32,
        write_latency: 32,
        bytes_per_cycle: None,
    };
    const DRAM: PortTiming = PortTiming {
        read_latency: 500,
        write_latency: 250,
        bytes_per_cycle: Some(12.0),
    };

    /// Vela's Dedicated_Sram placement: regions 0 and 1 on M1 (DRAM), the
    /// others on M0 (SRAM); the command stream on M0.
    fn memory() -> MemoryTiming {
        MemoryTiming::new([SRAM, DRAM], [3, 2, 1, 1, 1, 1, 1, 1], 1)
    }

    fn address(region: usize, offset: i64) -> u64 {
        (region as u64) << 32 | offset as u64
    }

    fn kernel(offset: usize, facts: RateFacts, macs: u64, ofm: [usize; 3]) -> FloorInput {
        FloorInput {
            offset,
            macs,
            ofm: Some(ofm),
            rate_facts: Some(facts),
            ..FloorInput::default()
        }
    }

    fn facts(class: RateClass, blockdep: u32) -> RateFacts {
        RateFacts {
            class,
            ifm_bits: 8,
            ofm_bits: 8,
            advanced: false,
            lookup: false,
            blockdep,
        }
    }

    fn accesses(offset: usize, accesses: Vec<Access>) -> OperationAccess {
        OperationAccess {
            offset,
            operation: String::new(),
            accesses,
        }
    }

    #[test]
    fn a_one_element_add_after_a_blockdep_0_write_waits_for_the_write_and_its_read() {
        // A 1x1x1 ADD writes one byte of the arena (region 1, on the
        // DRAM); the next ADD reads it with BLOCKDEP 0.
        let add = facts(RateClass::Elementwise(ElementwiseMode::Add), 0);
        let layers = [
            kernel(0x10, add, 0, [1, 1, 1]),
            kernel(0x20, add, 0, [1, 1, 1]),
        ];
        let ops = [
            accesses(
                0x10,
                vec![
                    Access::read(Role::Ifm, 2, vec![0..1]),
                    Access::read(Role::Ifm2, 2, vec![16..17]),
                    Access::write(Role::Ofm, 1, vec![0..1]),
                ],
            ),
            accesses(
                0x20,
                vec![
                    Access::read(Role::Ifm, 1, vec![0..1]),
                    Access::read(Role::Ifm2, 2, vec![16..17]),
                    Access::write(Role::Ofm, 1, vec![64..65]),
                ],
            ),
        ];
        let floors = floors(&layers, &ops, &memory(), 1, &address);
        // The command fetch (SRAM, 32) before either.
        assert_eq!(floors.command_fetch, 32);
        let floors = floors.rows;
        // First: its reads (SRAM, 32);
        // one element at 2 a cycle is 1 cycle; one byte on the DRAM at
        // 12 a cycle is 1.
        assert_eq!(
            floors[0],
            Some(Floor {
                cycles: 32 + 1,
                compute: 1,
                transfer: 1,
                latency: 32
            })
        );
        // Second: the first's write response (DRAM, 250), its read of that
        // byte (DRAM, 500), 1 cycle, and as the last writer its own write
        // response (250).
        assert_eq!(
            floors[1],
            Some(Floor {
                cycles: 250 + 500 + 1 + 250,
                compute: 1,
                transfer: 1,
                latency: 1000
            })
        );
        // With BLOCKDEP 1 the read may go ahead: only the last write's wait.
        let ahead = [layers[0], kernel(0x20, facts(add.class, 1), 0, [1, 1, 1])];
        assert_eq!(
            super::floors(&ahead, &ops, &memory(), 1, &address).rows[1].map(|f| f.latency),
            Some(250)
        );
    }

    #[test]
    fn a_weight_bound_fully_connected_layer_is_its_weights_at_the_dram_bandwidth() {
        // 1x1x1024 -> 1x1x1000, int8: 1,024,000 weight bytes from the
        // constants (region 0, DRAM at 12 bytes a cycle), IFM and OFM in
        // the fast scratch (SRAM).
        let fc = kernel(0x40, facts(RateClass::Conv, 0), 1_024_000, [1, 1, 1000]);
        let ops = [accesses(
            0x40,
            vec![
                Access::read(Role::Ifm, 2, vec![0..1024]),
                Access::read(Role::Weights { core: 0 }, 0, vec![0..1_024_000]),
                Access::read(Role::Scales { core: 0 }, 0, vec![1_024_000..1_034_000]),
                Access::write(Role::Ofm, 2, vec![4096..5096]),
            ],
        )];
        let floor = floors(&[fc], &ops, &memory(), 1, &address).rows[0].unwrap();
        // MACs at 256 a cycle: 4,000 cycles; the DRAM's 1,034,000 bytes at
        // 12 a cycle: 86,167; the first read (SRAM) and the last write's
        // response (SRAM).
        assert_eq!(floor.compute, 4000);
        assert_eq!(floor.transfer, 86_167);
        assert_eq!(floor.latency, 32 + 32);
        assert_eq!(floor.cycles, 86_167 + 64);
    }

    #[test]
    fn a_3x3_convolution_is_its_macs_at_the_table_rate() {
        // 16x16x32 -> 16x16x64, 3x3, int8, on u65-256 and u65-512 (the MAC
        // rate doubles; the bytes do not change), behind SRAM only.
        let macs = 16 * 16 * 64 * 3 * 3 * 32;
        let conv = kernel(0x80, facts(RateClass::Conv, 0), macs, [16, 16, 64]);
        let ops = [accesses(
            0x80,
            vec![
                Access::read(Role::Ifm, 2, vec![0..16 * 16 * 32]),
                Access::read(Role::Weights { core: 0 }, 3, vec![0..18_432]),
                Access::write(Role::Ofm, 2, vec![65536..65536 + 16 * 16 * 64]),
            ],
        )];
        let sram = MemoryTiming::new([SRAM, SRAM], [0; REGION_COUNT], 0);
        let on = |cores| floors(std::slice::from_ref(&conv), &ops, &sram, cores, &address).rows[0];
        // 4,718,592 MACs / 256 = 18,432; 8,192 + 18,432 bytes read at 16
        // a cycle = 1,664; latency: first read, last write.
        assert_eq!(
            on(1),
            Some(Floor {
                cycles: 18_432 + 64,
                compute: 18_432,
                transfer: 1_664,
                latency: 64
            })
        );
        assert_eq!(on(2).map(|f| f.compute), Some(9_216));
    }

    #[test]
    fn the_tables_give_the_trm_figures() {
        use ElementwiseMode as M;
        assert_eq!(mac_rate(RateClass::Depthwise, 16, 2), Some(32.0));
        assert_eq!(mac_rate(RateClass::Conv, 16, 1), Some(128.0));
        let cases = [
            ((M::Mul, 8, 8, false), [(2.67, false), (5.33, false)]),
            ((M::Add, 8, 8, true), [(1.33, false), (2.67, false)]),
            ((M::Min, 16, 16, false), [(2.67, true), (2.67, true)]),
            ((M::Add, 16, 32, false), [(2.0, false), (2.0, true)]),
            ((M::Shl, 32, 32, false), [(0.89, false), (1.33, true)]),
        ];
        for ((mode, ifm, ofm, advanced), figures) in cases {
            assert_eq!(
                elementwise_rate(mode, ifm, ofm, advanced),
                figures,
                "{mode:?}"
            );
        }
    }
}
