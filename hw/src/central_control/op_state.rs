//! The operation state: the value of every NPU_SET_* command (TRM 4.6.2:
//! "applied to all following kernel operations, until a new command
//! overwrites it"), built from the command table of `npu_spec::command`.

use crate::widgets::ResetReg;
use npu_spec::command::{field_mask, CmdKind, CommandInfo, Opcode, COMMANDS};
use rust_hdl::prelude::*;

/// The bit a cmd1's key has set above its opcode.
pub const CMD1_KEY: u64 = 1 << 10;

/// A command's key on the op-state write bus: [`CMD1_KEY`] set for cmd1,
/// bits 9:0 the opcode (TRM table 4-107).
pub fn command_key(op: Opcode) -> u64 {
    let cmd1 = if op.kind() == CmdKind::Cmd1 {
        CMD1_KEY
    } else {
        0
    };
    cmd1 | u64::from(op.code())
}

/// True for the NPU_SET_* commands, which only store a value.
pub fn is_setting(info: &CommandInfo) -> bool {
    info.name.starts_with("NPU_SET_")
}

/// The NPU_SET_DMA0_* values an NPU_OP_DMA_START queues (TRM 4.6.4-4.6.5),
/// at their widths: addresses, lengths and skips 40 bits (LEN 32), region
/// values 11 (region or core mask 7:0, internal 8, stride mode 10:9), sizes 16.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct DmaDescriptor {
    pub src: Bits<40>,
    pub dst: Bits<40>,
    pub len: Bits<32>,
    pub src_region: Bits<11>,
    pub dst_region: Bits<11>,
    pub size0: Bits<16>,
    pub size1: Bits<16>,
    pub skip0: Bits<40>,
    pub skip1: Bits<40>,
}

/// One NPU_SET_* value: the command's value space (cmd0: the 16-bit
/// parameter; cmd1: payload in bits 31:0, parameter in 47:32). A value with
/// bits outside every field of the command is `reserved`: the central
/// control refuses it with a parse error instead of writing it.
#[derive(LogicBlock)]
pub struct SetRegister {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    pub key: Signal<In, Bits<11>>,
    pub value: Signal<In, Bits<48>>,
    /// `key` is this register's; and `value` sets reserved bits.
    pub hit: Signal<Out, Bit>,
    pub reserved: Signal<Out, Bit>,
    pub q: Signal<Out, Bits<48>>,
    register_key: Constant<Bits<11>>,
    mask: Constant<Bits<48>>,
    stored: ResetReg<Bits<48>>,
}

impl SetRegister {
    pub fn new(info: &CommandInfo) -> Self {
        let mask = field_mask(info.fields);
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            write: Default::default(),
            key: Default::default(),
            value: Default::default(),
            hit: Default::default(),
            reserved: Default::default(),
            q: Default::default(),
            register_key: Constant::new(command_key(info.op).into()),
            mask: Constant::new(mask.into()),
            stored: Default::default(),
        }
    }
}

impl Logic for SetRegister {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, stored);
        self.stored.rst_n.next = self.rst_n.val();
        self.hit.next = self.key.val() == self.register_key.val();
        self.reserved.next = self.hit.val() & ((self.value.val() & !self.mask.val()) != 0);
        // Masked although reserved values are never written: the bits
        // outside the fields are then constants that synthesis removes.
        if self.write.val() & self.hit.val() {
            self.stored.d.next = self.value.val() & self.mask.val();
        }
        self.q.next = self.stored.q.val();
    }
}

/// Every NPU_SET_* value, written over one bus by the central control and
/// read by the blocks that execute operations. The DMA's values are exported
/// by name; the datapath's will be as it arrives.
#[derive(LogicBlock)]
pub struct OpState {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    pub key: Signal<In, Bits<11>>,
    pub value: Signal<In, Bits<48>>,
    /// `key` names an NPU_SET_* command; `value` sets bits outside its fields.
    pub known: Signal<Out, Bit>,
    pub reserved: Signal<Out, Bit>,
    /// The DMA's view: the NPU_SET_DMA0_* values an NPU_OP_DMA_START queues.
    pub dma: Signal<Out, DmaDescriptor>,
    registers: Vec<SetRegister>,
    /// `keys[i]` is the key of `registers[i]`, a constant of this module so
    /// that the export selections below reduce to wires.
    keys: Vec<Constant<Bits<11>>>,
    /// Every field 0, the view's value before the exports below.
    no_descriptor: Constant<DmaDescriptor>,
    dma0_src_key: Constant<Bits<11>>,
    dma0_dst_key: Constant<Bits<11>>,
    dma0_len_key: Constant<Bits<11>>,
    dma0_src_region_key: Constant<Bits<11>>,
    dma0_dst_region_key: Constant<Bits<11>>,
    dma0_size0_key: Constant<Bits<11>>,
    dma0_size1_key: Constant<Bits<11>>,
    dma0_skip0_key: Constant<Bits<11>>,
    dma0_skip1_key: Constant<Bits<11>>,
}

impl Default for OpState {
    fn default() -> Self {
        let key = |op: Opcode| Constant::new(command_key(op).into());
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            write: Default::default(),
            key: Default::default(),
            value: Default::default(),
            known: Default::default(),
            reserved: Default::default(),
            dma: Default::default(),
            registers: COMMANDS
                .iter()
                .filter(|info| is_setting(info))
                .map(SetRegister::new)
                .collect(),
            keys: COMMANDS
                .iter()
                .filter(|info| is_setting(info))
                .map(|info| key(info.op))
                .collect(),
            no_descriptor: Constant::new(DmaDescriptor::default()),
            dma0_src_key: key(Opcode::NpuSetDma0Src),
            dma0_dst_key: key(Opcode::NpuSetDma0Dst),
            dma0_len_key: key(Opcode::NpuSetDma0Len),
            dma0_src_region_key: key(Opcode::NpuSetDma0SrcRegion),
            dma0_dst_region_key: key(Opcode::NpuSetDma0DstRegion),
            dma0_size0_key: key(Opcode::NpuSetDma0Size0),
            dma0_size1_key: key(Opcode::NpuSetDma0Size1),
            dma0_skip0_key: key(Opcode::NpuSetDma0Skip0),
            dma0_skip1_key: key(Opcode::NpuSetDma0Skip1),
        }
    }
}

impl Logic for OpState {
    #[hdl_gen]
    fn update(&mut self) {
        self.known.next = false;
        self.reserved.next = false;
        self.dma.next = self.no_descriptor.val();
        for i in 0..self.registers.len() {
            self.registers[i].clock.next = self.clock.val();
            self.registers[i].rst_n.next = self.rst_n.val();
            self.registers[i].write.next = self.write.val();
            self.registers[i].key.next = self.key.val();
            self.registers[i].value.next = self.value.val();
            if self.registers[i].hit.val() {
                self.known.next = true;
            }
            if self.registers[i].reserved.val() {
                self.reserved.next = true;
            }
            // Exports: the register whose key is the named command's.
            if self.keys[i].val() == self.dma0_src_key.val() {
                self.dma.next.src = self.registers[i].q.val().get_bits::<40>(0);
            }
            if self.keys[i].val() == self.dma0_dst_key.val() {
                self.dma.next.dst = self.registers[i].q.val().get_bits::<40>(0);
            }
            if self.keys[i].val() == self.dma0_len_key.val() {
                self.dma.next.len = self.registers[i].q.val().get_bits::<32>(0);
            }
            if self.keys[i].val() == self.dma0_src_region_key.val() {
                self.dma.next.src_region = self.registers[i].q.val().get_bits::<11>(0);
            }
            if self.keys[i].val() == self.dma0_dst_region_key.val() {
                self.dma.next.dst_region = self.registers[i].q.val().get_bits::<11>(0);
            }
            if self.keys[i].val() == self.dma0_size0_key.val() {
                self.dma.next.size0 = self.registers[i].q.val().get_bits::<16>(0);
            }
            if self.keys[i].val() == self.dma0_size1_key.val() {
                self.dma.next.size1 = self.registers[i].q.val().get_bits::<16>(0);
            }
            if self.keys[i].val() == self.dma0_skip0_key.val() {
                self.dma.next.skip0 = self.registers[i].q.val().get_bits::<40>(0);
            }
            if self.keys[i].val() == self.dma0_skip1_key.val() {
                self.dma.next.skip1 = self.registers[i].q.val().get_bits::<40>(0);
            }
        }
    }
}
