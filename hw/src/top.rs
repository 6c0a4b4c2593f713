//! The NPU top level. Port names are the TRM appendix A signal names; the
//! AXI managers are bundles that the emitted wrapper flattens to `xxxMn`.

use crate::apb::{ApbCompleter, RegisterBus, RegisterFile};
use crate::axi::AxiManagerPort;
use crate::central_control::CentralControl;
use crate::cpm::Cpm;
use crate::datapath::Datapath;
use crate::dma::{AxiEvents, Dma, OfmWrite, ShramFill, StreamRead};
use crate::op_state::{DmaDescriptor, KernelOperation, OpState};
use crate::pmu::Pmu;
use crate::shram::{BankReads, Shram};
use crate::stream::{LaneBeat, StreamOut};
use npu_arch::config::NpuConfig;
use rust_hdl::prelude::*;

#[allow(non_snake_case)]
#[derive(LogicBlock)]
pub struct Npu {
    // Clock and reset (TRM A.1).
    pub CLK: Signal<In, Clock>,
    pub nRESET: Signal<In, Bit>,
    pub PORPL: Signal<In, Bit>,
    pub PORSL: Signal<In, Bit>,
    // Interrupt (TRM A.2).
    pub IRQ: Signal<Out, Bit>,
    // Clock and power Q-channels (TRM A.3).
    pub CLKQACTIVE: Signal<Out, Bit>,
    pub CLKQREQn: Signal<In, Bit>,
    pub CLKQACCEPTn: Signal<Out, Bit>,
    pub CLKQDENY: Signal<Out, Bit>,
    pub PWRQACTIVE: Signal<Out, Bit>,
    pub PWRQREQn: Signal<In, Bit>,
    pub PWRQACCEPTn: Signal<Out, Bit>,
    pub PWRQDENY: Signal<Out, Bit>,
    // AXI managers (TRM A.4).
    pub m0: AxiManagerPort,
    pub m1: AxiManagerPort,
    // APB4 completer (TRM A.5).
    pub PWAKEUP: Signal<In, Bit>,
    pub PCLKEN: Signal<In, Bit>,
    pub PSEL: Signal<In, Bit>,
    pub PENABLE: Signal<In, Bit>,
    pub PPROT: Signal<In, Bits<3>>,
    pub PWRITE: Signal<In, Bit>,
    pub PADDR: Signal<In, Bits<12>>,
    pub PWDATA: Signal<In, Bits<32>>,
    pub PSTRB: Signal<In, Bits<4>>,
    pub PREADY: Signal<Out, Bit>,
    pub PSLVERR: Signal<Out, Bit>,
    pub PRDATA: Signal<Out, Bits<32>>,
    // DFT and MBIST (TRM A.6).
    pub DFTCGEN: Signal<In, Bit>,
    pub DFTRSTDISABLE: Signal<In, Bits<2>>,
    pub DFTRAMHOLD: Signal<In, Bit>,
    pub MBISTREQ: Signal<In, Bit>,
    pub nMBISTRESET: Signal<In, Bit>,
    cpm: Cpm,
    apb: ApbCompleter,
    regs: RegisterFile,
    control: CentralControl,
    op_state: OpState,
    datapath: Datapath,
    dma: Dma,
    pmu: Pmu,
    shram: Shram,
    /// The NPU has work, an IRQ or a reset in progress (QACTIVE without PWAKEUP).
    busy: Signal<Local, Bit>,
}

impl Npu {
    pub fn new(config: &NpuConfig) -> Self {
        Self {
            CLK: Default::default(),
            nRESET: Default::default(),
            PORPL: Default::default(),
            PORSL: Default::default(),
            IRQ: Default::default(),
            CLKQACTIVE: Default::default(),
            CLKQREQn: Default::default(),
            CLKQACCEPTn: Default::default(),
            CLKQDENY: Default::default(),
            PWRQACTIVE: Default::default(),
            PWRQREQn: Default::default(),
            PWRQACCEPTn: Default::default(),
            PWRQDENY: Default::default(),
            m0: Default::default(),
            m1: Default::default(),
            PWAKEUP: Default::default(),
            PCLKEN: Default::default(),
            PSEL: Default::default(),
            PENABLE: Default::default(),
            PPROT: Default::default(),
            PWRITE: Default::default(),
            PADDR: Default::default(),
            PWDATA: Default::default(),
            PSTRB: Default::default(),
            PREADY: Default::default(),
            PSLVERR: Default::default(),
            PRDATA: Default::default(),
            DFTCGEN: Default::default(),
            DFTRSTDISABLE: Default::default(),
            DFTRAMHOLD: Default::default(),
            MBISTREQ: Default::default(),
            nMBISTRESET: Default::default(),
            cpm: Default::default(),
            apb: Default::default(),
            regs: RegisterFile::new(config),
            control: Default::default(),
            op_state: Default::default(),
            datapath: Datapath::new(config),
            dma: Dma::new(config),
            pmu: Default::default(),
            shram: Shram::new(
                config.cores as usize,
                config.shram_kib as usize * 1024 / config.cores as usize,
            ),
            busy: Default::default(),
        }
    }
}

impl Logic for Npu {
    #[hdl_gen]
    fn update(&mut self) {
        // The CPM runs on CLK and the hard reset; everything else on its
        // gated clock and the core reset (hard or soft).
        self.cpm.clock.next = self.CLK.val();
        self.cpm.n_reset.next = self.nRESET.val();
        self.cpm.n_mbist_reset.next = self.nMBISTRESET.val();
        self.cpm.mbist_req.next = self.MBISTREQ.val();
        self.cpm.dft_rst_disable.next = self.DFTRSTDISABLE.val();
        self.cpm.dft_cgen.next = self.DFTCGEN.val();
        self.cpm.porpl.next = self.PORPL.val();
        self.cpm.porsl.next = self.PORSL.val();
        self.cpm.reset_write.next = self.regs.reset_write.val();
        self.cpm.reset_value.next = self.apb.registers.wdata.val();
        self.cpm.reset_pprot.next = self.PPROT.val();
        self.cpm.axi_quiet.next = self.dma.axi_quiet.val();
        self.cpm.shram_clearing.next = self.shram.clearing.val() | self.datapath.clearing.val();
        self.busy.next = self.control.status.val().get_bit(0)
            | self.control.kernels_pending.val()
            | (self.dma.descriptors_active.val() != 0)
            | !self.dma.axi_quiet.val()
            | self.control.irq.val()
            | self.cpm.resetting.val();
        self.cpm.active.next = self.busy.val() | self.PWAKEUP.val();
        self.cpm.idle.next = !self.busy.val();
        self.cpm.wakeup.next = self.PWAKEUP.val();
        self.cpm.apb_select.next = self.PSEL.val();
        self.cpm.cmd.next = self.regs.cmd.val();
        self.cpm.clock_q.qreq_n.next = self.CLKQREQn.val();
        self.cpm.power_q.qreq_n.next = self.PWRQREQn.val();
        self.CLKQACTIVE.next = self.cpm.clock_q.qactive.val();
        self.CLKQACCEPTn.next = self.cpm.clock_q.qaccept_n.val();
        self.CLKQDENY.next = self.cpm.clock_q.qdeny.val();
        self.PWRQACTIVE.next = self.cpm.power_q.qactive.val();
        self.PWRQACCEPTn.next = self.cpm.power_q.qaccept_n.val();
        self.PWRQDENY.next = self.cpm.power_q.qdeny.val();

        self.apb.clock.next = self.cpm.core_clock.val();
        self.apb.rst_n.next = self.cpm.rst_n.val();
        self.apb.pclken.next = self.PCLKEN.val();
        self.apb.psel.next = self.PSEL.val();
        self.apb.penable.next = self.PENABLE.val();
        self.apb.pprot.next = self.PPROT.val();
        self.apb.pwrite.next = self.PWRITE.val();
        self.apb.paddr.next = self.PADDR.val();
        self.apb.pwdata.next = self.PWDATA.val();
        self.apb.pstrb.next = self.PSTRB.val();
        self.apb.prot.next = self.cpm.prot.val();
        self.PREADY.next = self.apb.pready.val();
        self.PSLVERR.next = self.apb.pslverr.val();
        self.PRDATA.next = self.apb.prdata.val();

        self.regs.clock.next = self.cpm.core_clock.val();
        self.regs.rst_n.next = self.cpm.core_rst_n.val();
        self.regs.resetting.next = self.cpm.resetting.val();
        RegisterBus::join(&mut self.apb.registers, &mut self.regs.bus);
        self.regs.prot.next = self.cpm.prot.val();
        self.regs.status.next = self.control.status.val();
        self.regs.qread.next = self.control.qread.val();
        self.IRQ.next = self.control.irq.val();

        self.control.clock.next = self.cpm.core_clock.val();
        self.control.rst_n.next = self.cpm.core_rst_n.val();
        self.control.cmd_write.next = self.regs.cmd_write.val();
        self.control.queue_write.next = self.regs.queue_write.val();
        self.control.wdata.next = self.apb.registers.wdata.val();
        self.control.qsize.next = self.regs.qsize.val();

        self.op_state.clock.next = self.cpm.core_clock.val();
        self.op_state.rst_n.next = self.cpm.core_rst_n.val();
        self.op_state.write.next = self.control.set_write.val();
        self.op_state.key.next = self.control.set_key.val();
        self.op_state.value.next = self.control.set_value.val();
        self.control.set_known.next = self.op_state.known.val();
        self.control.set_reserved.next = self.op_state.reserved.val();
        self.control.dma.next = self.op_state.dma.val();
        self.control.operation.next = self.op_state.operation.val();

        StreamOut::<KernelOperation>::join(
            &mut self.control.kernel_ops,
            &mut self.datapath.operations,
        );
        self.control.kernels_run.next = self.datapath.runs.val();
        self.control.kernel_busy.next = self.datapath.busy.val();
        self.control.kernel_draining.next = self.datapath.draining.val();
        self.control.kernel_fault.next = self.datapath.fault.val();
        self.control.kernel_fault_offset.next = self.datapath.fault_offset.val();

        self.dma.clock.next = self.cpm.core_clock.val();
        self.dma.rst_n.next = self.cpm.core_rst_n.val();
        self.dma.quiesce.next = self.cpm.quiesce.val();
        self.dma.prot.next = self.cpm.prot.val();
        for i in 0..16 {
            self.dma.basep[i].next = self.regs.basep[i].val();
        }
        for i in 0..4 {
            self.dma.axi_limit[i].next = self.regs.axi_limit[i].val();
        }
        self.dma.regioncfg.next = self.regs.regioncfg.val();
        self.dma.qconfig.next = self.regs.qconfig.val();
        // TRM 4.2.5: QBASE is 4-byte aligned.
        self.dma.command_base.next = self.regs.qbase.val() & !bits::<40>(3);
        self.dma.command_size.next = self.regs.qsize.val();
        self.dma.command_start.next = self.control.command_start.val();
        self.dma.command_cancel.next = self.control.command_cancel.val();
        StreamOut::<LaneBeat>::join(&mut self.dma.command_beats, &mut self.control.command);
        self.control.command_busy.next = self.dma.command_busy.val();
        StreamOut::<DmaDescriptor>::join(&mut self.control.descriptors, &mut self.dma.descriptors);
        self.control.descriptors_active.next = self.dma.descriptors_active.val();
        self.control.bus_error.next = self.dma.bus_error.val();
        self.control.faulting_channel.next = self.dma.faulting_channel.val();
        self.control.faulting_interface.next = self.dma.faulting_interface.val();
        AxiManagerPort::link(&mut self.m0, &mut self.dma.m0);
        AxiManagerPort::link(&mut self.m1, &mut self.dma.m1);

        // TRM 4.5: the PMU counts cycles of the gated NPU clock.
        self.pmu.clock.next = self.cpm.core_clock.val();
        self.pmu.rst_n.next = self.cpm.core_rst_n.val();
        RegisterBus::join(&mut self.regs.pmu, &mut self.pmu.bus);
        self.pmu.running.next = self.control.running_state.val();
        self.pmu.stream_enable.next = self.control.pmu_enable.val();
        self.pmu.clear_irq.next = self.control.clear_irq.val();
        self.control.pmu_irq.next = self.pmu.irq.val();
        AxiEvents::join(&mut self.dma.m0_events, &mut self.pmu.m0);
        AxiEvents::join(&mut self.dma.m1_events, &mut self.pmu.m1);
        self.pmu.datapath.next = self.datapath.events.val();

        self.shram.clock.next = self.cpm.core_clock.val();
        self.shram.rst_n.next = self.cpm.core_rst_n.val();
        self.shram.clear.next = self.cpm.shram_clear.val();
        self.shram.write_enable.next = self.dma.shram_write.val();
        self.shram.write_cores.next = self.dma.shram_cores.val();
        self.shram.write_address.next = self.dma.shram_line.val();
        self.shram.write_data.next = self.dma.shram_data.val();
        self.shram.write_strobe.next = self.dma.shram_strobe.val();
        // The datapath: its DMA channels, the shared buffer it reads, the
        // accumulators cleared with the shared buffer.
        self.datapath.clock.next = self.cpm.datapath_clock.val();
        self.cpm.datapath_clock_wanted.next = self.datapath.clock_wanted.val();
        self.datapath.rst_n.next = self.cpm.core_rst_n.val();
        self.datapath.clear.next = self.cpm.shram_clear.val();
        StreamOut::<ShramFill>::join(&mut self.datapath.ifm_fills, &mut self.dma.ifm_fills);
        self.datapath.ifm_filled.next = self.dma.ifm_filled.val();
        // Each core's weight and scale/bias streams.
        for k in 0..self.datapath.weight_reads.len() {
            StreamOut::<StreamRead>::join(
                &mut self.datapath.weight_reads[k],
                &mut self.dma.weight_reads[k],
            );
            StreamOut::<LaneBeat>::join(
                &mut self.dma.weight_beats[k],
                &mut self.datapath.weight_beats[k],
            );
            StreamOut::<StreamRead>::join(
                &mut self.datapath.scale_reads[k],
                &mut self.dma.scale_reads[k],
            );
            StreamOut::<LaneBeat>::join(
                &mut self.dma.scale_beats[k],
                &mut self.datapath.scale_beats[k],
            );
        }
        StreamOut::<OfmWrite>::join(&mut self.datapath.ofm_writes, &mut self.dma.ofm_writes);
        self.datapath.ifm_busy.next = self.dma.ifm_busy.val();
        self.datapath.blocks_written.next = self.dma.ofm_blocks_written.val();
        self.datapath.streams_busy.next = self.dma.streams_busy.val();
        self.dma.ofm_writes_done.next = self.datapath.writes_done.val();
        for bank in 0..self.shram.reads.len() {
            BankReads::join(
                &mut self.datapath.shram_reads[bank],
                &mut self.shram.reads[bank],
            );
        }
        self.datapath.lut_write.next = self.shram.lut_write.val();
    }
}
