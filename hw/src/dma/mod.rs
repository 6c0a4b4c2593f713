//! The DMA controller (TRM 3.3.3): every transaction on the AXI managers M0
//! and M1. A [`TransferWalker`] splits a transfer into bursts, a
//! [`ReadChannel`] or [`WriteChannel`] moves its beats; every read channel is
//! a [`ReadClient`] of one [`ReadRouter`] (a table of ARID, faulting-channel
//! code and priority: arbitration, routing by RID, outstanding limits, bus
//! errors) and every write channel a [`WriteClient`] of one [`WriteRouter`].
//!
//! Invariants: a transfer's REGIONCFG entry (QCONFIG for the command stream)
//! picks an outstanding counter and so the port and the AXI_LIMITn bounding
//! its bursts, outstanding transactions and AxCACHE (TRM 4.2.13-17), writes
//! as reads (U65's M1 has write channels, appendix A); AxPROT is PROT. A
//! SLVERR or DECERR records the channel and port (TRM 4.2.2) and halts the
//! DMA: nothing new is issued, every issued burst completes; only a reset
//! clears it. `m0_events`/`m1_events` ([`AxiEvents`]) feed the PMU. Why
//! writes follow REGIONCFG: `docs/central-control-and-dma.md`.

mod aligner;
mod clients;
mod command_channel;
mod descriptor;
mod events;
mod ifm_channel;
mod mem2mem;
mod memtype;
mod ofm_channel;
mod port;
mod read_channel;
mod reads;
mod region;
mod requests;
mod stream_reader;
mod walker;
mod write_channel;
mod writes;

pub use aligner::Aligner;
pub use command_channel::CommandChannel;
pub use descriptor::DescriptorTransfer;
pub use events::{AxiEvents, AxiEventsIn, ReadEvents, WriteEvents};
pub use ifm_channel::IfmChannel;
pub use mem2mem::Mem2Mem;
pub use memtype::MemtypeCache;
pub use ofm_channel::OfmChannel;
pub use port::{ReadPort, ReadRequest};
pub use read_channel::ReadChannel;
pub use reads::{ReadClient, ReadClientPort, ReadPortSignals, ReadRouter};
pub use region::RegionSelect;
pub use requests::{OfmWrite, ShramFill, StreamRead};
pub use stream_reader::StreamReader;
pub use walker::{TransferShape, TransferShapeSource, TransferWalker};
pub use write_channel::WriteChannel;
pub use writes::{WriteClient, WriteClientPort, WritePort, WritePortSignals, WriteRouter};

use crate::axi::AxiManagerPort;
use crate::op_state::DmaDescriptor;
use crate::shram::LINE_ADDRESS_BITS;
use crate::stream::{LaneBeat, StreamIn, StreamOut};
use crate::widgets::{per_core, Fifo, ResetReg};
use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, FaultingChannel};
use rust_hdl::prelude::*;

/// AWIDs of the mem2mem and OFM writes (the TRM assigns no write IDs).
pub const MEM2MEM_WRITE_ID: u8 = 1;
pub const OFM_WRITE_ID: u8 = 0;

/// The DMA's read router: its clients (ARID, faulting channel) in priority
/// order, the command stream, the IFM, each core's weight and scale/bias
/// streams (core 0's, then core 1's), the user DMA (`Dma::update` joins
/// them in this order). Also emitted on its own for the AXI proofs.
pub fn read_router(config: &NpuConfig) -> ReadRouter {
    let mut clients = vec![
        (
            *config.read_ids.command.start(),
            FaultingChannel::CommandRead as u32,
        ),
        (
            *config.read_ids.ifm.start(),
            FaultingChannel::IfmRead as u32,
        ),
    ];
    for core in 0..config.cores as usize {
        clients.push((
            *config.read_ids.weight[core].start(),
            FaultingChannel::WeightRead as u32,
        ));
        clients.push((
            *config.read_ids.scale[core].start(),
            FaultingChannel::ScaleBiasRead as u32,
        ));
    }
    clients.push((
        *config.read_ids.mem2mem.start(),
        FaultingChannel::Mem2MemRead as u32,
    ));
    ReadRouter::new(
        &clients,
        regs::AXI_LIMIT0.field("max_outstanding_read_m1").lsb,
    )
}

/// The DMA's write router: the OFM channel, then the user DMA, as on the
/// read side (a user DMA beside a kernel operation, Vela's weight
/// prefetch, otherwise holds the operation's OFM writes back for as long
/// as it has bursts to write). Also emitted on its own for the AXI proofs.
pub fn write_router() -> WriteRouter {
    WriteRouter::new(
        &[
            (OFM_WRITE_ID, FaultingChannel::OfmWrite as u32),
            (MEM2MEM_WRITE_ID, FaultingChannel::Mem2MemWrite as u32),
        ],
        regs::AXI_LIMIT0.field("max_outstanding_write_m1").lsb,
    )
}

#[derive(LogicBlock)]
pub struct Dma {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// PROT: bit 1 active CSL, bit 0 active CPL (TRM 4.2.10).
    pub prot: Signal<In, Bits<2>>,
    /// BASEP0-15: region k's base address in words 2k (low) and 2k+1 (TRM 4.3).
    pub basep: Vec<Signal<In, Bits<32>>>,
    pub regioncfg: Signal<In, Bits<16>>,
    /// QCONFIG bits 1:0: the command stream's counter.
    pub qconfig: Signal<In, Bits<2>>,
    /// AXI_LIMIT0-3.
    pub axi_limit: Vec<Signal<In, Bits<32>>>,

    /// Command channel: fetch `command_size` bytes from `command_base`.
    pub command_start: Signal<In, Bit>,
    pub command_base: Signal<In, Bits<40>>,
    pub command_size: Signal<In, Bits<32>>,
    /// Stop fetching and drop what is in flight (the stream stopped).
    pub command_cancel: Signal<In, Bit>,
    pub command_beats: StreamOut<LaneBeat>,
    pub command_busy: Signal<Out, Bit>,

    /// NPU_OP_DMA_START's NPU_SET_DMA0_* values, into the descriptor queue.
    pub descriptors: StreamIn<DmaDescriptor>,
    /// Descriptors queued or in progress (NPU_OP_DMA_WAIT).
    pub descriptors_active: Signal<Out, Bits<2>>,

    /// The datapath's channels (TRM 3.3.3): IFM blocks into the shared
    /// buffer, the weight and scale/bias streams, OFM writes.
    pub ifm_fills: StreamIn<ShramFill>,
    /// The last copy of an IFM block (`block_end`) has reached the shared buffer.
    pub ifm_filled: Signal<Out, Bit>,
    /// Per core (TRM table A-11: core 1's weight and bias streams have
    /// ARIDs of their own).
    pub weight_reads: Vec<StreamIn<StreamRead>>,
    pub weight_beats: Vec<StreamOut<LaneBeat>>,
    pub scale_reads: Vec<StreamIn<StreamRead>>,
    pub scale_beats: Vec<StreamOut<LaneBeat>>,
    pub ofm_writes: StreamIn<OfmWrite>,
    /// The datapath has no more OFM writes for the operation.
    pub ofm_writes_done: Signal<In, Bit>,
    /// OFM blocks whose last write was answered this cycle.
    pub ofm_blocks_written: Signal<Out, Bits<5>>,
    /// The IFM channel, a weight or scale/bias channel has work in flight.
    pub ifm_busy: Signal<Out, Bit>,
    pub streams_busy: Signal<Out, Bit>,

    /// Issue no new burst or transfer (a soft reset drains the DMA, TRM 3.3.4.1).
    pub quiesce: Signal<In, Bit>,
    /// No AXI transaction is outstanding.
    pub axi_quiet: Signal<Out, Bit>,
    /// Bus abort (TRM 4.2.2).
    pub bus_error: Signal<Out, Bit>,
    pub faulting_channel: Signal<Out, Bits<4>>,
    pub faulting_interface: Signal<Out, Bit>,

    /// Shared-buffer write port.
    pub shram_write: Signal<Out, Bit>,
    pub shram_cores: Signal<Out, Bits<2>>,
    pub shram_line: Signal<Out, Bits<LINE_ADDRESS_BITS>>,
    pub shram_data: Signal<Out, Bits<128>>,
    pub shram_strobe: Signal<Out, Bits<16>>,

    pub m0: AxiManagerPort,
    pub m1: AxiManagerPort,
    /// What M0 and M1 do, for the PMU.
    pub m0_events: AxiEvents,
    pub m1_events: AxiEvents,

    // Read buffers (RAMs) sized to hide memory latency (TRM 4.7): a
    // channel streams at most its buffer's bytes per round trip, so the
    // user DMA, IFM and weight channels keep 512 beats (8 KB) in flight, the
    // port's 12-16 bytes a cycle behind 500 cycles of DRAM latency (Vela's
    // Ethos_U65_Client_Server); the scale/bias and command streams, a few
    // bytes an OFM channel or an operation, 64 (1 KB).
    command: CommandChannel,
    mem2mem: Mem2Mem<9, 10>,
    ifm: IfmChannel,
    weights: Vec<StreamReader<9, 10>>,
    scales: Vec<StreamReader<6, 7>>,
    /// BASEPn and AXI_LIMITn for the stream readers (`StreamReader::basep`).
    basep_packed: Signal<Local, Bits<512>>,
    axi_limit_packed: Signal<Local, Bits<128>>,
    register: Signal<Local, Bits<32>>,
    /// A weight or scale/bias stream is being read.
    /// Every burst of the weight and scale/bias streams taken is issued.
    streams_issued: Signal<Local, Bit>,
    ofm: OfmChannel,
    reads: ReadRouter,
    writes: WriteRouter,
    queue: Fifo<DmaDescriptor, 1, 2>,

    /// The head descriptor as the transfer it asks for.
    head: DescriptorTransfer,
    start_mem2mem: Signal<Local, Bit>,

    head_started: ResetReg<Bit>,

    /// Issue nothing new: a bus error or a soft reset.
    stop_issue: Signal<Local, Bit>,
    halted: ResetReg<Bit>,
    fault_channel: ResetReg<Bits<4>>,
    fault_interface: ResetReg<Bit>,
    wakeup: ResetReg<Bit>,
}

impl Dma {
    pub fn new(config: &NpuConfig) -> Self {
        let cores = config.cores as usize;
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            prot: Default::default(),
            basep: (0..16).map(|_| Default::default()).collect(),
            regioncfg: Default::default(),
            qconfig: Default::default(),
            axi_limit: (0..4).map(|_| Default::default()).collect(),
            command_start: Default::default(),
            command_base: Default::default(),
            command_size: Default::default(),
            command_cancel: Default::default(),
            command_beats: Default::default(),
            command_busy: Default::default(),
            descriptors: Default::default(),
            descriptors_active: Default::default(),
            quiesce: Default::default(),
            axi_quiet: Default::default(),
            bus_error: Default::default(),
            faulting_channel: Default::default(),
            faulting_interface: Default::default(),
            shram_write: Default::default(),
            shram_cores: Default::default(),
            shram_line: Default::default(),
            shram_data: Default::default(),
            shram_strobe: Default::default(),
            m0: Default::default(),
            m1: Default::default(),
            m0_events: Default::default(),
            m1_events: Default::default(),
            ifm_fills: Default::default(),
            ifm_filled: Default::default(),
            weight_reads: per_core(cores),
            weight_beats: per_core(cores),
            scale_reads: per_core(cores),
            scale_beats: per_core(cores),
            ofm_writes: Default::default(),
            ofm_writes_done: Default::default(),
            ifm_busy: Default::default(),
            ofm_blocks_written: Default::default(),
            streams_busy: Default::default(),
            command: Default::default(),
            mem2mem: Default::default(),
            ifm: Default::default(),
            weights: per_core(cores),
            scales: per_core(cores),
            basep_packed: Default::default(),
            axi_limit_packed: Default::default(),
            register: Default::default(),
            streams_issued: Default::default(),
            ofm: OfmChannel::new(),
            reads: read_router(config),
            writes: write_router(),
            queue: Default::default(),
            head: Default::default(),
            start_mem2mem: Default::default(),
            head_started: Default::default(),
            stop_issue: Default::default(),
            halted: Default::default(),
            fault_channel: Default::default(),
            fault_interface: Default::default(),
            wakeup: Default::default(),
        }
    }
}

impl Logic for Dma {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            head_started,
            halted,
            fault_channel,
            fault_interface,
            wakeup
        );
        self.head_started.rst_n.next = self.rst_n.val();
        self.halted.rst_n.next = self.rst_n.val();
        self.fault_channel.rst_n.next = self.rst_n.val();
        self.fault_interface.rst_n.next = self.rst_n.val();
        self.wakeup.rst_n.next = self.rst_n.val();
        self.command.clock.next = self.clock.val();
        self.command.rst_n.next = self.rst_n.val();
        self.mem2mem.clock.next = self.clock.val();
        self.mem2mem.rst_n.next = self.rst_n.val();
        self.ifm.clock.next = self.clock.val();
        self.ifm.rst_n.next = self.rst_n.val();
        for k in 0..self.weights.len() {
            self.weights[k].clock.next = self.clock.val();
            self.weights[k].rst_n.next = self.rst_n.val();
            self.scales[k].clock.next = self.clock.val();
            self.scales[k].rst_n.next = self.rst_n.val();
        }
        self.ofm.clock.next = self.clock.val();
        self.ofm.rst_n.next = self.rst_n.val();
        self.reads.clock.next = self.clock.val();
        self.reads.rst_n.next = self.rst_n.val();
        self.writes.clock.next = self.clock.val();
        self.writes.rst_n.next = self.rst_n.val();
        self.queue.clock.next = self.clock.val();
        self.queue.rst_n.next = self.rst_n.val();

        // ---- Command channel: QBASE, QSIZE bytes, counter from QCONFIG ----
        self.command.start.next = self.command_start.val();
        self.command.base.next = self.command_base.val();
        self.command.size.next = self.command_size.val();
        self.command.qconfig.next = self.qconfig.val();
        self.stop_issue.next = self.halted.q.val() | self.quiesce.val();
        self.command.halt.next = self.stop_issue.val();
        self.command.cancel.next = self.command_cancel.val();
        StreamOut::<LaneBeat>::link(&mut self.command_beats, &mut self.command.beats);
        self.command_busy.next = self.command.busy.val();

        // BASEPn and AXI_LIMITn packed, for every channel's region lookups.
        self.basep_packed.next = 0.into();
        for r in 0..16 {
            self.register.next = self.basep[r].val();
            self.basep_packed.next = self.basep_packed.val()
                | (bit_cast::<512, 32>(self.register.val()) << (32 * r).to_bits::<9>());
        }
        self.axi_limit_packed.next = 0.into();
        for c in 0..4 {
            self.register.next = self.axi_limit[c].val();
            self.axi_limit_packed.next = self.axi_limit_packed.val()
                | (bit_cast::<128, 32>(self.register.val()) << (32 * c).to_bits::<7>());
        }

        // ---- Descriptor queue (two descriptors, TRM 4.6.4 NPU_OP_DMA_WAIT) ----
        StreamIn::<DmaDescriptor>::link(&mut self.descriptors, &mut self.queue.tail);
        self.descriptors_active.next = self.queue.count.val();

        // The head descriptor as the transfer it asks for.
        self.head.descriptor.next = self.queue.head.data.val();
        self.head.regioncfg.next = self.regioncfg.val();
        self.head.basep.next = self.basep_packed.val();
        self.head.axi_limit.next = self.axi_limit_packed.val();
        self.command.axi_limit.next = self.axi_limit_packed.val();
        TransferShapeSource::join(&mut self.head.source, &mut self.mem2mem.source);
        TransferShapeSource::join(&mut self.head.destination, &mut self.mem2mem.destination);
        self.mem2mem.internal.next = self.head.internal.val();
        self.mem2mem.cores.next = self.head.cores.val();
        self.mem2mem.read_counter.next = self.head.read_counter.val();
        self.mem2mem.read_cache.next = self.head.read_cache.val();
        self.mem2mem.write_counter.next = self.head.write_counter.val();
        self.mem2mem.write_cache.next = self.head.write_cache.val();

        // Start the head descriptor; retire it when its transfer completes
        // (an empty one at once).
        self.start_mem2mem.next = self.queue.head.valid.val()
            & !self.head_started.q.val()
            & !self.stop_issue.val()
            & !self.head.empty.val();
        self.mem2mem.start.next = self.start_mem2mem.val();
        if self.start_mem2mem.val() {
            self.head_started.d.next = true;
        }
        self.queue.head.ready.next = self.mem2mem.done.val()
            | (self.queue.head.valid.val()
                & !self.head_started.q.val()
                & !self.halted.q.val()
                & self.head.empty.val());
        if self.mem2mem.done.val() {
            self.head_started.d.next = false;
        }

        self.mem2mem.halt.next = self.stop_issue.val();

        // ---- The datapath's channels ----
        // IFM: 3D copies into the shared buffer (every core's).
        self.ifm.regioncfg.next = self.regioncfg.val();
        self.ifm.basep.next = self.basep_packed.val();
        self.ifm.axi_limit.next = self.axi_limit_packed.val();
        self.ifm.halt.next = self.stop_issue.val();
        StreamIn::<ShramFill>::link(&mut self.ifm_fills, &mut self.ifm.fills);
        self.ifm_filled.next = self.ifm.filled.val();
        self.ofm.regioncfg.next = self.regioncfg.val();
        self.ofm.basep.next = self.basep_packed.val();
        self.ofm.axi_limit.next = self.axi_limit_packed.val();
        // Weights and scale/bias: byte streams, each core's.
        self.streams_busy.next = false;
        self.streams_issued.next = true;
        for k in 0..self.weights.len() {
            self.weights[k].regioncfg.next = self.regioncfg.val();
            self.scales[k].regioncfg.next = self.regioncfg.val();
            self.weights[k].basep.next = self.basep_packed.val();
            self.scales[k].basep.next = self.basep_packed.val();
            self.weights[k].axi_limit.next = self.axi_limit_packed.val();
            self.scales[k].axi_limit.next = self.axi_limit_packed.val();
            self.weights[k].halt.next = self.stop_issue.val();
            self.scales[k].halt.next = self.stop_issue.val();
            StreamIn::<StreamRead>::link(&mut self.weight_reads[k], &mut self.weights[k].requests);
            StreamOut::<LaneBeat>::link(&mut self.weight_beats[k], &mut self.weights[k].out);
            StreamIn::<StreamRead>::link(&mut self.scale_reads[k], &mut self.scales[k].requests);
            StreamOut::<LaneBeat>::link(&mut self.scale_beats[k], &mut self.scales[k].out);
            self.streams_busy.next =
                self.streams_busy.val() | self.weights[k].busy.val() | self.scales[k].busy.val();
            self.streams_issued.next = self.streams_issued.val()
                & self.weights[k].issued.val()
                & self.scales[k].issued.val();
        }
        self.ifm.streams_issued.next = self.streams_issued.val();
        // OFM: writes on the port of the OFM region's counter.
        self.ofm.halt.next = self.stop_issue.val();
        self.ofm.writes_done.next = self.ofm_writes_done.val();
        StreamIn::<OfmWrite>::link(&mut self.ofm_writes, &mut self.ofm.writes);
        self.ifm_busy.next = self.ifm.busy.val();
        self.ofm_blocks_written.next = self.ofm.blocks_written.val();

        // ---- Reads: every read client through one router, in priority
        // order: the command stream, then mem2mem (ReadRouter::new) ----
        self.reads.prot.next = bit_cast::<3, 2>(self.prot.val());
        for c in 0..4 {
            self.reads.axi_limit[c].next = self.axi_limit[c].val();
        }
        ReadClient::join(&mut self.command.reads, &mut self.reads.clients[0]);
        ReadClient::join(&mut self.ifm.reads, &mut self.reads.clients[1]);
        ReadClient::join(&mut self.weights[0].reads, &mut self.reads.clients[2]);
        ReadClient::join(&mut self.scales[0].reads, &mut self.reads.clients[3]);
        // Core 1's streams (u65-512, TRM table A-11), before the user DMA.
        for k in 1..self.weights.len() {
            ReadClient::join(&mut self.weights[k].reads, &mut self.reads.clients[4]);
            ReadClient::join(&mut self.scales[k].reads, &mut self.reads.clients[5]);
        }
        for m in (self.reads.clients.len() - 1)..self.reads.clients.len() {
            ReadClient::join(&mut self.mem2mem.reads, &mut self.reads.clients[m]);
        }
        self.reads.m0.aclken.next = self.m0.aclken.val();
        self.reads.m0.arready.next = self.m0.arready.val();
        self.reads.m0.rvalid.next = self.m0.rvalid.val();
        self.reads.m0.rid.next = self.m0.rid.val();
        self.reads.m0.rdata.next = self.m0.rdata.val();
        self.reads.m0.rresp.next = self.m0.rresp.val();
        self.reads.m0.rlast.next = self.m0.rlast.val();
        self.reads.m1.aclken.next = self.m1.aclken.val();
        self.reads.m1.arready.next = self.m1.arready.val();
        self.reads.m1.rvalid.next = self.m1.rvalid.val();
        self.reads.m1.rid.next = self.m1.rid.val();
        self.reads.m1.rdata.next = self.m1.rdata.val();
        self.reads.m1.rresp.next = self.m1.rresp.val();
        self.reads.m1.rlast.next = self.m1.rlast.val();
        self.m0.arvalid.next = self.reads.m0.arvalid.val();
        self.m0.arid.next = self.reads.m0.arid.val();
        self.m0.araddr.next = self.reads.m0.araddr.val();
        self.m0.arlen.next = self.reads.m0.arlen.val();
        self.m0.arsize.next = 4.into();
        self.m0.arburst.next = 1.into();
        self.m0.arcache.next = self.reads.m0.arcache.val();
        self.m0.arprot.next = self.reads.m0.arprot.val();
        self.m1.arvalid.next = self.reads.m1.arvalid.val();
        self.m1.arid.next = self.reads.m1.arid.val();
        self.m1.araddr.next = self.reads.m1.araddr.val();
        self.m1.arlen.next = self.reads.m1.arlen.val();
        self.m1.arsize.next = 4.into();
        self.m1.arburst.next = 1.into();
        self.m1.arcache.next = self.reads.m1.arcache.val();
        self.m1.arprot.next = self.reads.m1.arprot.val();
        // RREADY stays high: a channel requests a burst only with room for it.
        self.m0.rready.next = true;
        self.m1.rready.next = true;

        // ---- Writes: every write client through one router, on the port
        // of its region's counter ----
        for c in 0..4 {
            self.writes.axi_limit[c].next = self.axi_limit[c].val();
        }
        WriteClient::join(&mut self.ofm.client, &mut self.writes.clients[0]);
        WriteClient::join(&mut self.mem2mem.client, &mut self.writes.clients[1]);
        self.writes.m0.aclken.next = self.m0.aclken.val();
        self.writes.m0.awready.next = self.m0.awready.val();
        self.writes.m0.wready.next = self.m0.wready.val();
        self.writes.m0.bvalid.next = self.m0.bvalid.val();
        self.writes.m0.bid.next = self.m0.bid.val();
        self.writes.m0.bresp.next = self.m0.bresp.val();
        self.m0.awvalid.next = self.writes.m0.awvalid.val();
        self.m0.awid.next = self.writes.m0.awid.val();
        self.m0.awaddr.next = self.writes.m0.awaddr.val();
        self.m0.awlen.next = self.writes.m0.awlen.val();
        self.m0.awsize.next = 4.into();
        self.m0.awburst.next = 1.into();
        self.m0.awcache.next = self.writes.m0.awcache.val();
        self.m0.awprot.next = bit_cast::<3, 2>(self.prot.val());
        self.m0.wvalid.next = self.writes.m0.wvalid.val();
        self.m0.wdata.next = self.writes.m0.wdata.val();
        self.m0.wstrb.next = self.writes.m0.wstrb.val();
        self.m0.wlast.next = self.writes.m0.wlast.val();
        self.m0.bready.next = true;
        self.writes.m1.aclken.next = self.m1.aclken.val();
        self.writes.m1.awready.next = self.m1.awready.val();
        self.writes.m1.wready.next = self.m1.wready.val();
        self.writes.m1.bvalid.next = self.m1.bvalid.val();
        self.writes.m1.bid.next = self.m1.bid.val();
        self.writes.m1.bresp.next = self.m1.bresp.val();
        self.m1.awvalid.next = self.writes.m1.awvalid.val();
        self.m1.awid.next = self.writes.m1.awid.val();
        self.m1.awaddr.next = self.writes.m1.awaddr.val();
        self.m1.awlen.next = self.writes.m1.awlen.val();
        self.m1.awsize.next = 4.into();
        self.m1.awburst.next = 1.into();
        self.m1.awcache.next = self.writes.m1.awcache.val();
        self.m1.awprot.next = bit_cast::<3, 2>(self.prot.val());
        self.m1.wvalid.next = self.writes.m1.wvalid.val();
        self.m1.wdata.next = self.writes.m1.wdata.val();
        self.m1.wstrb.next = self.writes.m1.wstrb.val();
        self.m1.wlast.next = self.writes.m1.wlast.val();
        self.m1.bready.next = true;

        // ---- Events for the PMU: each port's read half from its ReadPort,
        // its write half from its WritePort ----
        self.m0_events.enabled.next = self.m0.aclken.val();
        self.m0_events.reads.next = self.reads.m0.events.val();
        self.m0_events.writes.next = self.writes.m0.events.val();
        self.m1_events.enabled.next = self.m1.aclken.val();
        self.m1_events.reads.next = self.reads.m1.events.val();
        self.m1_events.writes.next = self.writes.m1.events.val();

        // ---- Bus errors: the first one is recorded and halts the DMA ----
        if !self.halted.q.val() {
            if self.reads.error.val() {
                self.halted.d.next = true;
                self.fault_channel.d.next = self.reads.error_channel.val();
                self.fault_interface.d.next = self.reads.error_interface.val();
            }
            if self.writes.error.val() {
                self.halted.d.next = true;
                self.fault_channel.d.next = self.writes.error_channel.val();
                self.fault_interface.d.next = self.writes.error_interface.val();
            }
        }
        self.bus_error.next = self.halted.q.val();
        self.faulting_channel.next = self.fault_channel.q.val();
        self.faulting_interface.next = self.fault_interface.q.val();

        // Granted reads and issued writes count from the grant, so zero
        // counters mean nothing is in flight or waiting in an address register.
        self.axi_quiet.next = self.reads.quiet.val() & self.writes.quiet.val();
        // AWAKEUP: pending activity on the ports (TRM table A-5).
        self.wakeup.d.next = !self.axi_quiet.val()
            | self.command.busy.val()
            | self.mem2mem.busy.val()
            | self.ifm_busy.val()
            | self.ofm.busy.val()
            | self.streams_busy.val();
        self.m0.awakeup.next = self.wakeup.q.val();
        self.m1.awakeup.next = self.wakeup.q.val();

        // ---- Shared buffer: one write port, the user DMA first ----
        self.mem2mem.shram_ready.next = true;
        self.ifm.shram_ready.next = !self.mem2mem.shram_write.val();
        self.shram_write.next = self.mem2mem.shram_write.val() | self.ifm.shram_write.val();
        self.shram_cores.next = self.mem2mem.shram_cores.val();
        self.shram_line.next = self.mem2mem.shram_line.val();
        self.shram_data.next = self.mem2mem.shram_data.val();
        self.shram_strobe.next = self.mem2mem.shram_strobe.val();
        if !self.mem2mem.shram_write.val() {
            self.shram_cores.next = 3.into();
            self.shram_line.next = self.ifm.shram_line.val();
            self.shram_data.next = self.ifm.shram_data.val();
            self.shram_strobe.next = self.ifm.shram_strobe.val();
        }
    }
}
