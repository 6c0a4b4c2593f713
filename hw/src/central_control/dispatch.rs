//! Command decode and kernel-operation dispatch: the next word of the
//! command stream and what it is ([`WordDecoder`]), and what central
//! control hands the datapath (`crate::datapath`).
//!
//! TRM 4.6.1: kernel operations are non-blocking. Central control captures
//! the kernel units' NPU_SET_* values with the operation ([`KernelOperation`])
//! into a queue and parses on; the datapath takes operations from the queue
//! in order, so values set after a dispatch never reach an operation already
//! dispatched (TRM 4.6.2).

use crate::op_state::{command_key, CMD1_KEY};
use crate::stream::LaneBeat;
use npu_arch::command::{self as command, Opcode};
use rust_hdl::prelude::*;

/// What Execute does with a command, decoded as its first word is read so
/// that Execute selects its action in parallel rather than by a chain of
/// key comparisons.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum CommandClass {
    Stop,
    Irq,
    DmaStart,
    DmaWait,
    KernelWait,
    PmuMask,
    /// NPU_OP_CONV, NPU_OP_DEPTHWISE, NPU_OP_POOL, NPU_OP_ELEMENTWISE.
    Kernel,
    /// An NPU_SET_* command, or a reserved opcode.
    Other,
}

/// The next word of the command stream and what it is: the word of the
/// command channel's head beat after the `words_taken` already taken, its
/// format, opcode key and [`CommandClass`] (TRM table 4-107 word layout,
/// tables 4-110/4-111 opcodes). Combinational.
#[derive(LogicBlock)]
pub struct WordDecoder {
    pub beat: Signal<In, LaneBeat>,
    pub words_taken: Signal<In, Bits<2>>,
    pub word: Signal<Out, Bits<32>>,
    /// The word is the last of the beat's stream words.
    pub last_in_beat: Signal<Out, Bit>,
    /// Its format is cmd0, or cmd1 (neither: a reserved format).
    pub cmd0: Signal<Out, Bit>,
    pub cmd1: Signal<Out, Bit>,
    /// Its opcode, with [`CMD1_KEY`] set for a cmd1 ([`command_key`]).
    pub key: Signal<Out, Bits<11>>,
    pub command_class: Signal<Out, CommandClass>,
    // (A field is copied before its bits are taken: yosys cannot select
    // bits of a struct field's part-select.)
    first_lane: Signal<Local, Bits<4>>,
    last_lane: Signal<Local, Bits<4>>,
    /// The words of the beat that hold stream bytes.
    first_word: Signal<Local, Bits<2>>,
    last_word: Signal<Local, Bits<2>>,
    index: Signal<Local, Bits<2>>,
    format: Signal<Local, Bits<6>>,
    format_shift: Constant<Bits<5>>,
    opcode_mask: Constant<Bits<32>>,
    cmd0_format: Constant<Bits<6>>,
    cmd1_format: Constant<Bits<6>>,
    cmd1_key: Constant<Bits<11>>,
    stop_key: Constant<Bits<11>>,
    irq_key: Constant<Bits<11>>,
    dma_start_key: Constant<Bits<11>>,
    dma_wait_key: Constant<Bits<11>>,
    kernel_wait_key: Constant<Bits<11>>,
    pmu_mask_key: Constant<Bits<11>>,
    conv_key: Constant<Bits<11>>,
    depthwise_key: Constant<Bits<11>>,
    pool_key: Constant<Bits<11>>,
    elementwise_key: Constant<Bits<11>>,
}

impl Default for WordDecoder {
    fn default() -> Self {
        let key = |op: Opcode| Constant::new(command_key(op).into());
        Self {
            beat: Default::default(),
            words_taken: Default::default(),
            word: Default::default(),
            last_in_beat: Default::default(),
            cmd0: Default::default(),
            cmd1: Default::default(),
            key: Default::default(),
            command_class: Default::default(),
            first_lane: Default::default(),
            last_lane: Default::default(),
            first_word: Default::default(),
            last_word: Default::default(),
            index: Default::default(),
            format: Default::default(),
            format_shift: Constant::new(u64::from(command::FORMAT_SHIFT).into()),
            opcode_mask: Constant::new(u64::from(command::OPCODE_MASK).into()),
            cmd0_format: Constant::new(u64::from(command::FORMAT_CMD0).into()),
            cmd1_format: Constant::new(u64::from(command::FORMAT_CMD1).into()),
            cmd1_key: Constant::new(CMD1_KEY.into()),
            stop_key: key(Opcode::NpuOpStop),
            irq_key: key(Opcode::NpuOpIrq),
            dma_start_key: key(Opcode::NpuOpDmaStart),
            dma_wait_key: key(Opcode::NpuOpDmaWait),
            kernel_wait_key: key(Opcode::NpuOpKernelWait),
            pmu_mask_key: key(Opcode::NpuOpPmuMask),
            conv_key: key(Opcode::NpuOpConv),
            depthwise_key: key(Opcode::NpuOpDepthwise),
            pool_key: key(Opcode::NpuOpPool),
            elementwise_key: key(Opcode::NpuOpElementwise),
        }
    }
}

impl Logic for WordDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        self.first_lane.next = self.beat.val().first_lane;
        self.last_lane.next = self.beat.val().last_lane;
        self.first_word.next = self.first_lane.val().get_bits::<2>(2);
        self.last_word.next = self.last_lane.val().get_bits::<2>(2);
        self.index.next = self.first_word.val() + self.words_taken.val();
        self.last_in_beat.next = self.index.val() == self.last_word.val();
        self.word.next =
            bit_cast::<32, 128>(self.beat.val().data >> (bit_cast::<7, 2>(self.index.val()) << 5));
        self.format.next = bit_cast::<6, 32>(self.word.val() >> self.format_shift.val());
        self.cmd0.next = self.format.val() == self.cmd0_format.val();
        self.cmd1.next = self.format.val() == self.cmd1_format.val();
        self.key.next = bit_cast::<11, 32>(self.word.val() & self.opcode_mask.val());
        if self.cmd1.val() {
            self.key.next = self.key.val() | self.cmd1_key.val();
        }
        self.command_class.next = CommandClass::Other;
        if self.key.val() == self.stop_key.val() {
            self.command_class.next = CommandClass::Stop;
        }
        if self.key.val() == self.irq_key.val() {
            self.command_class.next = CommandClass::Irq;
        }
        if self.key.val() == self.dma_start_key.val() {
            self.command_class.next = CommandClass::DmaStart;
        }
        if self.key.val() == self.dma_wait_key.val() {
            self.command_class.next = CommandClass::DmaWait;
        }
        if self.key.val() == self.kernel_wait_key.val() {
            self.command_class.next = CommandClass::KernelWait;
        }
        if self.key.val() == self.pmu_mask_key.val() {
            self.command_class.next = CommandClass::PmuMask;
        }
        if (self.key.val() == self.conv_key.val())
            | (self.key.val() == self.depthwise_key.val())
            | (self.key.val() == self.pool_key.val())
            | (self.key.val() == self.elementwise_key.val())
        {
            self.command_class.next = CommandClass::Kernel;
        }
    }
}
