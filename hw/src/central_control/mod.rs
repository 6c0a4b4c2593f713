//! Central control (TRM 3.3.2): runs the command stream. CMD.
//! transition_to_running_state fetches `QSIZE` bytes from `QBASE` through the
//! DMA command channel; each command is decoded and executed in order (TRM
//! 4.6): NPU_SET_* into the [`OpState`](crate::op_state::OpState), NPU_OP_DMA_START to the DMA's
//! descriptor queue, kernel operations with their state into the kernel queue
//! for the datapath ([`KernelOperation`], parsing goes on, TRM 4.6.1), the
//! waits, NPU_OP_STOP and NPU_OP_IRQ once everything before them completes.
//!
//! Invariants: a command the NPU refuses (reserved opcode, a value outside its
//! fields or range, a DMA it cannot run, an operation breaking TRM 4.8.2 or of
//! a kind the datapath does not run, a kernel fault) sets
//! STATUS.cmd_parse_error, stops and raises IRQ with QREAD at that command, as
//! the golden model does; errors clear only on reset. QREAD is the offset of
//! the first command not yet completed. A DMA waits until at most
//! `DMA_KERNELS_AHEAD` (2) kernel operations are queued or running: Vela checks
//! a DMA's conflicts against that many.
//!
//! Parts: [`WordDecoder`], [`OperationRules`] (TRM 4.8.2), [`RunState`]
//! (STATUS, CMD, IRQ) and the kernel queue; the op state is the top level's.
//! Command by command: `docs/central-control-and-dma.md`.

mod dispatch;
mod rules;
mod run_state;

pub use dispatch::{CommandClass, WordDecoder};
pub use rules::OperationRules;
pub use run_state::RunState;

use crate::op_state::{
    command_key, DmaDescriptor, KernelKinds, KernelOperation, KernelView, OperationState, CMD1_KEY,
};
use crate::stream::{LaneBeat, StreamIn, StreamOut};
use crate::widgets::{Fifo, ResetReg};
use npu_arch::command::{self as command, Opcode};
use npu_arch::regs;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum Step {
    /// Reading a command's first word.
    Decode,
    /// Reading a cmd1's payload word.
    Payload,
    /// Executing the decoded command.
    Execute,
}

#[derive(LogicBlock)]
pub struct CentralControl {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// A permitted write of CMD; of QBASE0/1 or QSIZE (TRM 4.2.3-4.2.9).
    pub cmd_write: Signal<In, Bit>,
    pub queue_write: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub qsize: Signal<In, Bits<32>>,
    /// STATUS (TRM 4.2.2), QREAD (TRM 4.2.7) and the IRQ output.
    pub status: Signal<Out, Bits<32>>,
    pub qread: Signal<Out, Bits<32>>,
    pub irq: Signal<Out, Bit>,
    /// STATUS.state: the NPU is running.
    pub running_state: Signal<Out, Bit>,
    /// PMU: its interrupt (STATUS.pmu_irq_raised); CMD written with
    /// clear_irq set; the enable bit of the last NPU_OP_PMU_MASK.
    pub pmu_irq: Signal<In, Bit>,
    pub clear_irq: Signal<Out, Bit>,
    pub pmu_enable: Signal<Out, Bit>,

    /// DMA command channel.
    pub command_start: Signal<Out, Bit>,
    pub command_cancel: Signal<Out, Bit>,
    pub command: StreamIn<LaneBeat>,
    pub command_busy: Signal<In, Bit>,
    /// DMA descriptors (NPU_OP_DMA_START), those queued or running, bus errors.
    pub descriptors: StreamOut<DmaDescriptor>,
    pub descriptors_active: Signal<In, Bits<2>>,
    pub bus_error: Signal<In, Bit>,
    pub faulting_channel: Signal<In, Bits<4>>,
    pub faulting_interface: Signal<In, Bit>,
    /// Op-state write bus.
    pub set_write: Signal<Out, Bit>,
    pub set_key: Signal<Out, Bits<11>>,
    pub set_value: Signal<Out, Bits<48>>,
    pub set_known: Signal<In, Bit>,
    pub set_reserved: Signal<In, Bit>,
    /// The op state's views: the descriptor NPU_OP_DMA_START would queue,
    /// the state a kernel operation would capture.
    pub dma: Signal<In, DmaDescriptor>,
    pub operation: Signal<In, OperationState>,
    /// Kernel operations for the datapath, the kinds it runs, whether it
    /// is running one it took, and whether the one before that still has
    /// OFM writes unanswered.
    pub kernel_ops: StreamOut<KernelOperation>,
    pub kernels_run: Signal<In, KernelKinds>,
    pub kernel_busy: Signal<In, Bit>,
    pub kernel_draining: Signal<In, Bit>,
    /// The datapath stopped an operation it cannot run (a malformed weight
    /// stream), and that operation's command offset.
    pub kernel_fault: Signal<In, Bit>,
    pub kernel_fault_offset: Signal<In, Bits<32>>,
    /// Kernel operations taken from the stream are queued or running and
    /// can still complete: no bus error or weight-stream fault stopped
    /// them. They complete after the NPU stops on the end of the stream or
    /// a refused command, as the golden model ran them, so the clock and
    /// power module keeps the clock for them.
    pub kernels_pending: Signal<Out, Bit>,

    // Opcode keys (TRM tables 4-110/4-111).
    conv_key: Constant<Bits<11>>,
    depthwise_key: Constant<Bits<11>>,
    pool_key: Constant<Bits<11>>,
    elementwise_key: Constant<Bits<11>>,
    pmu_mask_enable: Constant<Bits<16>>,
    // The largest parameter of NPU_OP_DMA_WAIT, NPU_OP_KERNEL_WAIT and
    // NPU_OP_PMU_MASK (TRM 4.6.4).
    dma_wait_max: Constant<Bits<16>>,
    kernel_wait_max: Constant<Bits<16>>,
    dma_kernels_ahead: Constant<Bits<16>>,
    pmu_mask_max: Constant<Bits<16>>,
    // NPU_SET_DMA0_*_REGION fields (TRM 4.6.4): region or core mask,
    // internal bit, stride mode; the largest region and core mask.
    dma_region_max: Constant<Bits<8>>,
    dma_core_mask_max: Constant<Bits<8>>,
    // Command-word layout (TRM table 4-107).
    param_shift: Constant<Bits<5>>,
    cmd1_key: Constant<Bits<11>>,

    /// The next word of the command stream and what it is.
    decoder: WordDecoder,
    /// STATUS, CMD and the IRQ.
    run: RunState,
    word_valid: Signal<Local, Bit>,
    take_word: Signal<Local, Bit>,
    stream_done: Signal<Local, Bit>,
    /// Every DMA descriptor and kernel operation taken is complete.
    work_done: Signal<Local, Bit>,
    key: Signal<Local, Bits<11>>,
    /// The datapath runs the kind of the decoded kernel operation, and its
    /// settings keep the rules; registered, and judged once the operation
    /// has been in Execute a cycle (`kernel_checked`).
    kernel_supported: Signal<Local, Bit>,
    kernel_allowed: ResetReg<Bit>,
    kernel_checked: ResetReg<Bit>,
    kernel_view: Signal<Local, KernelView>,
    parallel_mode: Signal<Local, Bit>,
    /// TRM 4.8.2: the operation's settings keep the rules.
    rules: OperationRules,
    /// Kernel operations queued or running.
    kernels_outstanding: Signal<Local, Bits<3>>,
    op_code: Signal<Local, Bits<10>>,
    op_param: Signal<Local, Bits<16>>,
    /// Dispatched operations not yet taken by the datapath.
    kernel_queue: Fifo<KernelOperation, 1, 2>,
    dma_descriptor_bad: Signal<Local, Bit>,
    complete: Signal<Local, Bit>,

    fetching: ResetReg<Bit>,
    step: ResetReg<Step>,
    command_key: ResetReg<Bits<11>>,
    command_class: ResetReg<CommandClass>,
    /// Words of the head beat already taken.
    words_taken: ResetReg<Bits<2>>,
    /// Byte offset of the next word to take.
    offset: ResetReg<Bits<32>>,
    /// QREAD: the offset after the last completed command.
    qread_offset: ResetReg<Bits<32>>,
    first_word: ResetReg<Bits<32>>,
    payload: ResetReg<Bits<32>>,
    pmu_enabled: ResetReg<Bit>,
}

impl Default for CentralControl {
    fn default() -> Self {
        let key = |op: Opcode| Constant::new(command_key(op).into());
        let constant16 = |v: u64| Constant::new(v.into());
        // DST_REGION has the layout of SRC_REGION.
        let pmu_mask_enable = Opcode::NpuOpPmuMask
            .info()
            .fields
            .iter()
            .find(|f| f.name == "enable" && f.width == 1)
            .expect("NPU_OP_PMU_MASK has a one-bit enable field");
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            cmd_write: Default::default(),
            queue_write: Default::default(),
            wdata: Default::default(),
            qsize: Default::default(),
            status: Default::default(),
            qread: Default::default(),
            irq: Default::default(),
            running_state: Default::default(),
            pmu_irq: Default::default(),
            clear_irq: Default::default(),
            pmu_enable: Default::default(),
            command_start: Default::default(),
            command_cancel: Default::default(),
            command: Default::default(),
            command_busy: Default::default(),
            descriptors: Default::default(),
            descriptors_active: Default::default(),
            bus_error: Default::default(),
            faulting_channel: Default::default(),
            faulting_interface: Default::default(),
            set_write: Default::default(),
            set_key: Default::default(),
            set_value: Default::default(),
            set_known: Default::default(),
            set_reserved: Default::default(),
            dma: Default::default(),
            operation: Default::default(),
            kernel_ops: Default::default(),
            kernels_run: Default::default(),
            kernel_busy: Default::default(),
            kernel_draining: Default::default(),
            kernel_fault: Default::default(),
            kernel_fault_offset: Default::default(),
            kernels_pending: Default::default(),
            conv_key: key(Opcode::NpuOpConv),
            depthwise_key: key(Opcode::NpuOpDepthwise),
            pool_key: key(Opcode::NpuOpPool),
            elementwise_key: key(Opcode::NpuOpElementwise),
            param_shift: Constant::new(u64::from(command::PARAM_SHIFT).into()),
            cmd1_key: Constant::new(CMD1_KEY.into()),
            pmu_mask_enable: Constant::new((1u64 << pmu_mask_enable.lo).into()),
            dma_wait_max: constant16(u64::from(command::DMA_DESCRIPTORS) - 1),
            kernel_wait_max: constant16(Opcode::NpuOpKernelWait.field_mask()),
            dma_kernels_ahead: constant16(npu_arch::command::DMA_KERNELS_AHEAD.into()),
            pmu_mask_max: constant16(Opcode::NpuOpPmuMask.field_mask()),
            dma_region_max: Constant::new((regs::REGION_COUNT as u64 - 1).into()),
            dma_core_mask_max: Constant::new(command::DMA_CORE_MASK_MAX.into()),
            decoder: Default::default(),
            run: Default::default(),
            word_valid: Default::default(),
            take_word: Default::default(),
            stream_done: Default::default(),
            work_done: Default::default(),
            key: Default::default(),
            kernel_supported: Default::default(),
            kernel_allowed: Default::default(),
            kernel_checked: Default::default(),
            kernel_view: Default::default(),
            parallel_mode: Default::default(),
            rules: Default::default(),
            kernels_outstanding: Default::default(),
            op_code: Default::default(),
            op_param: Default::default(),
            kernel_queue: Default::default(),
            dma_descriptor_bad: Default::default(),
            complete: Default::default(),
            fetching: Default::default(),
            step: ResetReg::new(Step::Decode),
            command_key: Default::default(),
            command_class: ResetReg::new(CommandClass::Other),
            words_taken: Default::default(),
            offset: Default::default(),
            qread_offset: Default::default(),
            first_word: Default::default(),
            payload: Default::default(),
            pmu_enabled: Default::default(),
        }
    }
}

impl Logic for CentralControl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            fetching,
            step,
            command_key,
            command_class,
            words_taken,
            offset,
            qread_offset,
            first_word,
            payload,
            kernel_allowed,
            kernel_checked,
            pmu_enabled
        );
        self.fetching.rst_n.next = self.rst_n.val();
        self.step.rst_n.next = self.rst_n.val();
        self.command_key.rst_n.next = self.rst_n.val();
        self.command_class.rst_n.next = self.rst_n.val();
        self.words_taken.rst_n.next = self.rst_n.val();
        self.offset.rst_n.next = self.rst_n.val();
        self.qread_offset.rst_n.next = self.rst_n.val();
        self.first_word.rst_n.next = self.rst_n.val();
        self.payload.rst_n.next = self.rst_n.val();
        self.kernel_allowed.rst_n.next = self.rst_n.val();
        self.kernel_checked.rst_n.next = self.rst_n.val();
        self.pmu_enabled.rst_n.next = self.rst_n.val();
        self.kernel_queue.clock.next = self.clock.val();
        self.kernel_queue.rst_n.next = self.rst_n.val();
        self.run.clock.next = self.clock.val();
        self.run.rst_n.next = self.rst_n.val();
        StreamOut::<KernelOperation>::link(&mut self.kernel_ops, &mut self.kernel_queue.head);
        self.kernels_outstanding.next = bit_cast::<3, 2>(self.kernel_queue.count.val());
        if self.kernel_busy.val() {
            self.kernels_outstanding.next = self.kernels_outstanding.val() + 1;
        }
        if self.kernel_draining.val() {
            self.kernels_outstanding.next = self.kernels_outstanding.val() + 1;
        }
        self.kernels_pending.next =
            (self.kernels_outstanding.val() != 0) & !self.run.kernels_stopped.val();
        self.work_done.next =
            (self.descriptors_active.val() == 0) & (self.kernels_outstanding.val() == 0);

        // ---- Run state: STATUS, CMD, IRQ ----
        self.run.cmd_write.next = self.cmd_write.val();
        self.run.queue_write.next = self.queue_write.val();
        self.run.wdata.next = self.wdata.val();
        self.run.qsize.next = self.qsize.val();
        self.run.bus_error.next = self.bus_error.val();
        self.run.faulting_channel.next = self.faulting_channel.val();
        self.run.faulting_interface.next = self.faulting_interface.val();
        self.run.kernel_fault.next = self.kernel_fault.val();
        self.run.pmu_irq.next = self.pmu_irq.val();
        self.run.raise_irq.next = false;
        self.run.stop.next = false;
        self.run.end_of_stream.next = false;
        self.run.refused.next = false;

        // ---- The next word of the stream: from the head beat of the command channel ----
        self.decoder.beat.next = self.command.data.val();
        self.decoder.words_taken.next = self.words_taken.q.val();
        self.word_valid.next = self.run.running.val() & self.command.valid.val();
        self.stream_done.next = self.offset.q.val() == self.qsize.val();
        self.take_word.next = false;
        self.command.ready.next = false;
        self.command_start.next = false;
        self.command_cancel.next = false;
        self.descriptors.valid.next = false;
        self.descriptors.data.next = self.dma.val();
        self.kernel_queue.tail.valid.next = false;
        self.set_write.next = false;
        self.complete.next = false;

        // Fetch once the previous stream's leftovers have drained.
        if self.run.running.val() & !self.fetching.q.val() & !self.command_busy.val() {
            self.command_start.next = true;
            self.fetching.d.next = true;
        }

        // ---- The registered command: opcode, parameter, NPU_SET_* value (TRM table 4-107) ----
        // The word decoder's key: the opcode in bits 9:0, CMD1_KEY for a cmd1.
        self.op_code.next = bit_cast::<10, 11>(self.command_key.q.val());
        self.op_param.next = bit_cast::<16, 32>(self.first_word.q.val() >> self.param_shift.val());
        self.run.irq_mask.next = self.op_param.val();
        self.key.next = self.command_key.q.val();
        self.kernel_queue.tail.data.next.code = self.op_code.val();
        self.kernel_queue.tail.data.next.param = self.op_param.val();
        self.kernel_queue.tail.data.next.state = self.operation.val();
        // Kernel operations are cmd0 words: the command is the word before.
        self.kernel_queue.tail.data.next.offset = self.offset.q.val() - 4;
        self.set_key.next = self.key.val();
        self.set_value.next = bit_cast::<48, 32>(self.payload.q.val())
            | (bit_cast::<48, 16>(self.op_param.val()) << 32);
        if (self.key.val() & self.cmd1_key.val()) == 0 {
            self.set_value.next = bit_cast::<48, 16>(self.op_param.val());
        }
        // TRM 4.6.4 NPU_SET_DMA0_*_REGION: the source is external; a region
        // is 0-7; stride modes are 0-2; an internal destination's core mask
        // names core 0 or 1 (a configuration's missing core is ignored).
        self.dma_descriptor_bad.next = self.dma.val().src_region_region_mode
            | (self.dma.val().src_region_region > self.dma_region_max.val())
            | (self.dma.val().src_region_stride_mode == 3)
            | (self.dma.val().dst_region_stride_mode == 3);
        if self.dma.val().dst_region_region_mode {
            if (self.dma.val().dst_region_region == 0)
                | (self.dma.val().dst_region_region > self.dma_core_mask_max.val())
            {
                self.dma_descriptor_bad.next = true;
            }
        } else if self.dma.val().dst_region_region > self.dma_region_max.val() {
            self.dma_descriptor_bad.next = true;
        }
        self.kernel_view.next = self.operation.val().kernel;
        self.parallel_mode.next = self.kernel_view.val().parallel_mode != 0;
        // The datapath runs the kind (parallel mode on two cores) and the
        // settings keep the rules.
        self.rules.clock.next = self.clock.val();
        self.rules.rst_n.next = self.rst_n.val();
        self.rules.code.next = self.op_code.val();
        self.rules.param.next = self.op_param.val();
        self.rules.state.next = self.operation.val();
        self.kernel_supported.next = ((((self.key.val() == self.conv_key.val())
            & self.kernels_run.val().conv)
            | ((self.key.val() == self.depthwise_key.val()) & self.kernels_run.val().depthwise)
            | ((self.key.val() == self.pool_key.val()) & self.kernels_run.val().pool))
            & (!self.parallel_mode.val() | self.kernels_run.val().parallel))
            | ((self.key.val() == self.elementwise_key.val()) & self.kernels_run.val().elementwise);
        if !self.rules.allowed.val() {
            self.kernel_supported.next = false;
        }
        self.kernel_allowed.d.next = self.kernel_supported.val();

        match self.step.q.val() {
            Step::Decode => {
                if self.run.running.val() & self.fetching.q.val() {
                    if self.stream_done.val() {
                        // TRM 4.2.2: end of stream without NPU_OP_STOP, once
                        // the operations before it complete (as NPU_OP_STOP).
                        self.run.end_of_stream.next = self.work_done.val();
                    } else if self.word_valid.val() {
                        self.first_word.d.next = self.decoder.word.val();
                        self.command_key.d.next = self.decoder.key.val();
                        self.command_class.d.next = self.decoder.command_class.val();
                        if self.decoder.cmd1.val() {
                            self.take_word.next = true;
                            self.step.d.next = Step::Payload;
                        } else if self.decoder.cmd0.val() {
                            self.take_word.next = true;
                            self.payload.d.next = 0.into();
                            self.step.d.next = Step::Execute;
                        } else {
                            // TRM table 4-107: bits 15:10 are 0 (cmd0) or 0x10 (cmd1).
                            self.run.refused.next = true;
                        }
                    }
                }
            }
            Step::Payload => {
                if self.stream_done.val() {
                    // The stream ends inside a cmd1.
                    self.run.refused.next = true;
                } else if self.word_valid.val() {
                    self.take_word.next = true;
                    self.payload.d.next = self.decoder.word.val();
                    self.step.d.next = Step::Execute;
                }
            }
            Step::Execute => {
                match self.command_class.q.val() {
                    CommandClass::Stop => {
                        // TRM 4.6.4 NPU_OP_STOP: all operations up to it complete first.
                        if self.work_done.val() {
                            self.run.raise_irq.next = true;
                            self.run.stop.next = true;
                            self.complete.next = true;
                        }
                    }
                    CommandClass::Irq => {
                        // TRM 4.6.4 NPU_OP_IRQ: as STOP, but the NPU keeps running.
                        if self.work_done.val() {
                            self.run.raise_irq.next = true;
                            self.complete.next = true;
                        }
                    }
                    CommandClass::DmaStart => {
                        // TRM 4.6.4: one user channel, parameter 16 * channel.
                        if (self.op_param.val() != 0) | self.dma_descriptor_bad.val() {
                            self.run.refused.next = true;
                        } else if bit_cast::<16, 3>(self.kernels_outstanding.val())
                            <= self.dma_kernels_ahead.val()
                        {
                            self.descriptors.valid.next = true;
                            self.complete.next = self.descriptors.ready.val();
                        }
                    }
                    CommandClass::DmaWait => {
                        // TRM 4.6.4: parameter 16 * channel + k, channel 0, k 0-1.
                        if self.op_param.val() > self.dma_wait_max.val() {
                            self.run.refused.next = true;
                        } else if bit_cast::<16, 2>(self.descriptors_active.val())
                            <= (self.op_param.val() & 0xf)
                        {
                            self.complete.next = true;
                        }
                    }
                    CommandClass::KernelWait => {
                        if self.op_param.val() > self.kernel_wait_max.val() {
                            self.run.refused.next = true;
                        } else if bit_cast::<16, 3>(self.kernels_outstanding.val())
                            <= self.op_param.val()
                        {
                            self.complete.next = true;
                        }
                    }
                    CommandClass::PmuMask => {
                        if self.op_param.val() > self.pmu_mask_max.val() {
                            self.run.refused.next = true;
                        } else {
                            self.pmu_enabled.d.next =
                                (self.op_param.val() & self.pmu_mask_enable.val()) != 0;
                            self.complete.next = true;
                        }
                    }
                    CommandClass::Kernel => {
                        if !self.kernel_checked.q.val() {
                            // The rules are judged a cycle after the operation's
                            // first Execute cycle, from registered settings.
                            self.kernel_checked.d.next = true;
                        } else if !self.kernel_allowed.q.val() {
                            self.run.refused.next = true;
                        } else {
                            self.kernel_queue.tail.valid.next = true;
                            self.complete.next = self.kernel_queue.tail.ready.val();
                        }
                    }
                    CommandClass::Other => {
                        if self.set_known.val() {
                            if self.set_reserved.val() {
                                self.run.refused.next = true;
                            } else {
                                self.set_write.next = true;
                                self.complete.next = true;
                            }
                        } else {
                            // A reserved opcode.
                            self.run.refused.next = true;
                        }
                    }
                }
                if self.complete.val() {
                    self.step.d.next = Step::Decode;
                    self.kernel_checked.d.next = false;
                }
            }
        }

        // Take the word; pop the beat after its last word.
        if self.take_word.val() {
            self.offset.d.next = self.offset.q.val() + 4;
            self.words_taken.d.next = self.words_taken.q.val() + 1;
            if self.decoder.last_in_beat.val() {
                self.words_taken.d.next = 0.into();
                self.command.ready.next = true;
            }
        }

        // ---- QREAD and the stepper on a halt or a start ----
        if self.complete.val() {
            self.qread_offset.d.next = self.offset.q.val();
        }
        // A kernel operation the datapath stopped: QREAD at the operation
        // though parsing went on.
        if self.run.kernel_fault_taken.val() {
            self.qread_offset.d.next = self.kernel_fault_offset.val();
        }
        if self.run.halt.val() {
            self.kernel_checked.d.next = false;
            self.fetching.d.next = false;
            self.command_cancel.next = true;
            self.step.d.next = Step::Decode;
            self.words_taken.d.next = 0.into();
        }
        if self.run.start.val() {
            self.offset.d.next = 0.into();
            self.qread_offset.d.next = 0.into();
            self.step.d.next = Step::Decode;
            self.words_taken.d.next = 0.into();
        }

        self.clear_irq.next = self.run.clear_irq.val();
        self.pmu_enable.next = self.pmu_enabled.q.val();
        self.running_state.next = self.run.running.val();
        self.qread.next = self.qread_offset.q.val();
        self.irq.next = self.run.irq.val();
        self.status.next = self.run.status.val();
    }
}
