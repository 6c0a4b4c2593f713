//! The NPU's run state (TRM 4.2.2 STATUS, 4.2.3 CMD): running or stopped,
//! the error and IRQ bits, and what CMD writes do to them. Central
//! control's command execution reports into it (a command refused, the
//! stream's end, NPU_OP_STOP and NPU_OP_IRQ completing), as do the DMA (a
//! bus error) and the datapath (a kernel operation it stopped); it says when
//! the NPU halts or starts, and packs STATUS and the IRQ output.
//!
//! Errors are cleared only by reset; while one is set,
//! CMD.transition_to_running_state is ignored. A start with a QSIZE that is
//! not a multiple of 4 stops at once with STATUS.cmd_parse_error (TRM
//! 4.2.9). STATUS.cmd_end_reached is set when NPU_OP_STOP completes,
//! wherever it stands in the stream, and when the stream ends without one
//! (TRM 4.2.2); writing QBASE or QSIZE while stopped clears it.

use crate::arch_constants::{field_lsb as lsb, field_mask as mask};
use crate::widgets::ResetReg;
use npu_arch::regs;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RunState {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// A permitted write of CMD; of QBASE0/1 or QSIZE (TRM 4.2.3-4.2.9).
    pub cmd_write: Signal<In, Bit>,
    pub queue_write: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub qsize: Signal<In, Bits<32>>,
    /// NPU_OP_STOP or NPU_OP_IRQ completes with `irq_mask`, its parameter
    /// (TRM 4.6.4): OR it into STATUS.irq_history_mask and raise IRQ;
    /// `stop`: NPU_OP_STOP, which also halts.
    pub raise_irq: Signal<In, Bit>,
    pub irq_mask: Signal<In, Bits<16>>,
    pub stop: Signal<In, Bit>,
    /// The stream ended without NPU_OP_STOP: halt without IRQ.
    pub end_of_stream: Signal<In, Bit>,
    /// A command is refused: STATUS.cmd_parse_error, IRQ, halt.
    pub refused: Signal<In, Bit>,
    /// A bus error, where (STATUS.faulting_channel, faulting_interface).
    pub bus_error: Signal<In, Bit>,
    pub faulting_channel: Signal<In, Bits<4>>,
    pub faulting_interface: Signal<In, Bit>,
    /// The datapath stopped a kernel operation (a malformed weight stream).
    pub kernel_fault: Signal<In, Bit>,
    /// The PMU's interrupt (STATUS.pmu_irq_raised).
    pub pmu_irq: Signal<In, Bit>,
    /// STATUS.state.
    pub running: Signal<Out, Bit>,
    /// The NPU halts this cycle; starts this cycle (the command stream from
    /// its first byte).
    pub halt: Signal<Out, Bit>,
    pub start: Signal<Out, Bit>,
    /// The datapath's kernel fault is new this cycle (QREAD goes to its
    /// operation).
    pub kernel_fault_taken: Signal<Out, Bit>,
    /// A bus error or a kernel fault stopped the kernel operations.
    pub kernels_stopped: Signal<Out, Bit>,
    /// CMD written with clear_irq set (the PMU clears its interrupt too).
    pub clear_irq: Signal<Out, Bit>,
    pub status: Signal<Out, Bits<32>>,
    pub irq: Signal<Out, Bit>,
    cmd_start: Constant<Bits<32>>,
    cmd_clear_irq: Constant<Bits<32>>,
    cmd_clear_history_lsb: Constant<Bits<5>>,
    status_history_lsb: Constant<Bits<5>>,
    status_channel_lsb: Constant<Bits<5>>,
    status_interface: Constant<Bits<32>>,
    status_pmu_irq: Constant<Bits<32>>,
    status_end_reached: Constant<Bits<32>>,
    status_parse_error: Constant<Bits<32>>,
    status_bus: Constant<Bits<32>>,
    status_irq_raised: Constant<Bits<32>>,
    status_state: Constant<Bits<32>>,
    running_q: ResetReg<Bit>,
    irq_raised: ResetReg<Bit>,
    irq_history: ResetReg<Bits<16>>,
    parse_error: ResetReg<Bit>,
    end_reached: ResetReg<Bit>,
    bus_error_seen: ResetReg<Bit>,
    kernel_fault_seen: ResetReg<Bit>,
}

impl Default for RunState {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            cmd_write: Default::default(),
            queue_write: Default::default(),
            wdata: Default::default(),
            qsize: Default::default(),
            raise_irq: Default::default(),
            irq_mask: Default::default(),
            stop: Default::default(),
            end_of_stream: Default::default(),
            refused: Default::default(),
            bus_error: Default::default(),
            faulting_channel: Default::default(),
            faulting_interface: Default::default(),
            kernel_fault: Default::default(),
            pmu_irq: Default::default(),
            running: Default::default(),
            halt: Default::default(),
            start: Default::default(),
            kernel_fault_taken: Default::default(),
            kernels_stopped: Default::default(),
            clear_irq: Default::default(),
            status: Default::default(),
            irq: Default::default(),
            cmd_start: mask(&regs::CMD, "transition_to_running_state"),
            cmd_clear_irq: mask(&regs::CMD, "clear_irq"),
            cmd_clear_history_lsb: lsb(&regs::CMD, "clear_irq_history"),
            status_history_lsb: lsb(&regs::STATUS, "irq_history_mask"),
            status_channel_lsb: lsb(&regs::STATUS, "faulting_channel"),
            status_interface: mask(&regs::STATUS, "faulting_interface"),
            status_pmu_irq: mask(&regs::STATUS, "pmu_irq_raised"),
            status_end_reached: mask(&regs::STATUS, "cmd_end_reached"),
            status_parse_error: mask(&regs::STATUS, "cmd_parse_error"),
            status_bus: mask(&regs::STATUS, "bus_status"),
            status_irq_raised: mask(&regs::STATUS, "irq_raised"),
            status_state: mask(&regs::STATUS, "state"),
            running_q: Default::default(),
            irq_raised: Default::default(),
            irq_history: Default::default(),
            parse_error: Default::default(),
            end_reached: Default::default(),
            bus_error_seen: Default::default(),
            kernel_fault_seen: Default::default(),
        }
    }
}

impl Logic for RunState {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            running_q,
            irq_raised,
            irq_history,
            parse_error,
            end_reached,
            bus_error_seen,
            kernel_fault_seen
        );
        self.running_q.rst_n.next = self.rst_n.val();
        self.irq_raised.rst_n.next = self.rst_n.val();
        self.irq_history.rst_n.next = self.rst_n.val();
        self.parse_error.rst_n.next = self.rst_n.val();
        self.end_reached.rst_n.next = self.rst_n.val();
        self.bus_error_seen.rst_n.next = self.rst_n.val();
        self.kernel_fault_seen.rst_n.next = self.rst_n.val();

        self.halt.next = self.stop.val() | self.end_of_stream.val() | self.refused.val();
        if self.raise_irq.val() {
            self.irq_history.d.next = self.irq_history.q.val() | self.irq_mask.val();
            self.irq_raised.d.next = true;
        }
        if self.end_of_stream.val() | self.stop.val() {
            self.end_reached.d.next = true;
        }
        if self.refused.val() {
            self.parse_error.d.next = true;
            self.irq_raised.d.next = true;
        }
        if self.bus_error.val() & !self.bus_error_seen.q.val() {
            self.bus_error_seen.d.next = true;
            self.irq_raised.d.next = true;
            self.halt.next = true;
        }
        // A kernel operation fails as a refused command does (the golden
        // model's STATUS).
        self.kernel_fault_taken.next = self.kernel_fault.val() & !self.kernel_fault_seen.q.val();
        if self.kernel_fault_taken.val() {
            self.kernel_fault_seen.d.next = true;
            self.parse_error.d.next = true;
            self.irq_raised.d.next = true;
            self.halt.next = true;
        }
        if self.halt.val() {
            self.running_q.d.next = false;
        }

        // ---- CMD and queue register writes (TRM 4.2.3, 4.2.2) ----
        self.clear_irq.next =
            self.cmd_write.val() & ((self.wdata.val() & self.cmd_clear_irq.val()) != 0);
        self.start.next = self.cmd_write.val()
            & ((self.wdata.val() & self.cmd_start.val()) != 0)
            & !self.running_q.q.val()
            & !self.parse_error.q.val()
            & !self.bus_error.val();
        if self.clear_irq.val() {
            self.irq_raised.d.next = false;
        }
        if self.cmd_write.val() {
            self.irq_history.d.next = self.irq_history.d.val()
                & !bit_cast::<16, 32>(self.wdata.val() >> self.cmd_clear_history_lsb.val());
        }
        if self.queue_write.val() & !self.running_q.q.val() {
            self.end_reached.d.next = false;
        }
        if self.start.val() {
            self.running_q.d.next = true;
            if self.qsize.val().get_bits::<2>(0) != 0 {
                // TRM 4.2.9: QSIZE is a multiple of 4.
                self.parse_error.d.next = true;
                self.irq_raised.d.next = true;
                self.running_q.d.next = false;
            }
        }

        self.running.next = self.running_q.q.val();
        self.kernels_stopped.next = self.bus_error_seen.q.val() | self.kernel_fault_seen.q.val();
        self.irq.next = self.irq_raised.q.val() | self.pmu_irq.val();
        self.status.next = (bit_cast::<32, 16>(self.irq_history.q.val())
            << self.status_history_lsb.val())
            | (bit_cast::<32, 4>(self.faulting_channel.val()) << self.status_channel_lsb.val());
        if self.faulting_interface.val() {
            self.status.next = self.status.val() | self.status_interface.val();
        }
        if self.pmu_irq.val() {
            self.status.next = self.status.val() | self.status_pmu_irq.val();
        }
        if self.end_reached.q.val() {
            self.status.next = self.status.val() | self.status_end_reached.val();
        }
        if self.parse_error.q.val() {
            self.status.next = self.status.val() | self.status_parse_error.val();
        }
        if self.bus_error.val() {
            self.status.next = self.status.val() | self.status_bus.val();
        }
        if self.irq_raised.q.val() {
            self.status.next = self.status.val() | self.status_irq_raised.val();
        }
        if self.running_q.q.val() {
            self.status.next = self.status.val() | self.status_state.val();
        }
    }
}
