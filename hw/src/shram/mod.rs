//! The shared buffer (TRM 3.3.6, 4.9.1): 48 KB per core, 128-bit lines. The
//! DMA writes it a line at a time (user DMA with destination region mode
//! internal, the way LUTs are loaded; IFM blocks); the datapath reads it
//! 16 bytes at a time from any 8-byte unit.
//!
//! Why units, not lines: TRM table 4-135 sizes IB0 and IB1 at
//! IFM_BLOCK_HEIGHT x IFM_BLOCK_WIDTH x ALIGN(IFM_MEMBLK_DEPTH x bytes, 8)
//! bytes, and Vela fills them to that size (issue 30: a 28x18 block of 8
//! channels, 4032 bytes of a 4 KB IB). So an IFM position starts at any
//! multiple of 8 bytes, and a beat's 16-byte channel group (8 int16
//! channels, 16 int8 channels of both cores in parallel depthwise, 4 int32
//! ones) may straddle two lines. Each bank is two 64-bit halves with their
//! own read addresses: unit u and u + 1 are the high half of line u / 2 and
//! the low half of line (u + 1) / 2, or one whole line when u is even.

use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// Lines of each core's LUT area, the last 2 KB of its shared buffer (TRM
/// 4.9.1): 16-byte lines.
pub const LUT_LINES: usize = 128;

/// One write to the LUT areas: line `line` of the last 2 KB of the shared
/// buffer of each core whose bit is set in `cores`, the bytes of `data`
/// with their bit set in `strobe`, or with `clear` zeros in the
/// [`CLEAR_WAYS`] lines of `line`'s group (the output units keep a copy of
/// the LUT area from these).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct LutWrite {
    pub cores: Bits<2>,
    pub line: Bits<7>,
    pub data: Bits<128>,
    pub strobe: Bits<LINE_BYTES>,
    pub clear: Bit,
}

/// Bytes in one shared-buffer line, the width of an AXI beat.
pub const LINE_BYTES: usize = 16;
/// Bits of a line address: 4096 lines, enough for one core's 48 KB.
pub const LINE_ADDRESS_BITS: usize = 12;
/// Bits of a read port's address: the 8-byte unit its 16 bytes start at.
pub const UNIT_ADDRESS_BITS: usize = LINE_ADDRESS_BITS + 1;

/// Read ports of a bank: the IFM unit reads the four positions of a
/// microblock at once (a real flow replicates a 1R1W macro).
pub const READ_PORTS: usize = 4;

/// The shared-buffer banks the datapath reads: core 0's, where both cores'
/// IFM blocks are walked from (TRM 4.7.5.1), and core 1's, which holds the
/// same IFM blocks (the IFM unit reads the second line of a 16-bit
/// interleaved group there; with one core it reads nothing).
pub const READ_BANKS: usize = 2;

/// A reader's side of a bank's [`READ_PORTS`] read ports, packed as
/// [`SramBank`]'s: port i's unit address in bits 13i+12..13i of `address`,
/// its 16 bytes (units u and u + 1) in bits 128i+127..128i of `data` one
/// cycle after bit i of `enable`.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "BankReadPorts"]
pub struct BankReads {
    pub enable: Signal<Out, Bits<READ_PORTS>>,
    pub address: Signal<Out, Bits<{ READ_PORTS * UNIT_ADDRESS_BITS }>>,
    pub data: Signal<In, Bits<{ READ_PORTS * 128 }>>,
}

/// The shared buffer's side of [`BankReads`].
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "BankReads"]
pub struct BankReadPorts {
    pub enable: Signal<In, Bits<READ_PORTS>>,
    pub address: Signal<In, Bits<{ READ_PORTS * UNIT_ADDRESS_BITS }>>,
    pub data: Signal<Out, Bits<{ READ_PORTS * 128 }>>,
}

/// `line` with the bytes of `data` whose bit is set in `strobe`: a write
/// with byte strobes, as a RAM's behavioural model does it.
pub(crate) fn merge_line(line: Bits<128>, data: Bits<128>, strobe: Bits<LINE_BYTES>) -> Bits<128> {
    let mut line = line;
    for byte in 0..LINE_BYTES {
        if strobe.get_bit(byte) {
            line.set_bits::<8>(8 * byte, data.get_bits::<8>(8 * byte));
        }
    }
    line
}

/// Lines a shared-buffer bank or LUT copy clears a cycle: each is
/// [`CLEAR_WAYS`] RAM macros, line l in macro l mod [`CLEAR_WAYS`], and a
/// clear writes one line of every macro at once (TRM 3.3.4.1: every RAM is
/// cleared at a reset), so a 48 KB bank clears in 384 cycles.
pub const CLEAR_WAYS: usize = 8;

/// The Verilog statement that zeroes `ways` (a power of two) words of
/// `array`, the group of `address`: the words whose address differs from it
/// only in its low log2(`ways`) bits, one in each macro of a RAM
/// interleaved across `ways` macros. `address` is `address_bits` wide;
/// needs an `integer way;` in the module.
pub(crate) fn clear_group_statement(
    array: &str,
    address: &str,
    address_bits: usize,
    ways: usize,
    width: usize,
) -> String {
    let way_bits = ways.trailing_zeros() as usize;
    assert!(ways.is_power_of_two() && way_bits >= 1 && way_bits < address_bits);
    format!(
        "for (way = 0; way < {ways}; way = way + 1) \
{array}[{{{address}[{msb}:{way_bits}], way[{way_msb}:0]}}] <= {width}'h0;",
        msb = address_bits - 1,
        way_msb = way_bits - 1,
    )
}

/// The Verilog of a RAM's `strobe_mask`: the bits of `write_data` that
/// `write_strobe` writes.
pub(crate) fn strobe_mask_wire() -> String {
    let bytes = (0..LINE_BYTES)
        .rev()
        .map(|byte| format!("{{8{{write_strobe[{byte}]}}}}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!("wire [127:0] strobe_mask = {{{bytes}}};")
}

/// One core's buffer: an SRAM with one write port with byte strobes and
/// [`READ_PORTS`] read ports, each reading 16 bytes from an 8-byte unit
/// (the module doc): the low and high 64-bit halves of the lines are read
/// at their own line addresses, and the two halves are swapped on the way
/// out when the unit is odd.
///
/// In the emitted Verilog it is a behavioural RAM, black-boxed by the
/// synthesis script as a RAM macro would be (a real flow: two 64-bit-wide
/// macros and the swap); its `lines` array is marked public so the
/// testbench can read it through VPI. A half past the last line reads 0.
#[derive(LogicBlock)]
pub struct SramBank {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<LINE_ADDRESS_BITS>>,
    pub write_data: Signal<In, Bits<128>>,
    pub write_strobe: Signal<In, Bits<LINE_BYTES>>,
    /// With `write_enable`: zero the [`CLEAR_WAYS`] lines of
    /// `write_address`'s group instead of writing `write_data`.
    pub write_clear: Signal<In, Bit>,
    /// [`READ_PORTS`] read ports, packed: port i's unit address in bits
    /// 13i+12..13i of `read_address`, units u and u + 1 in bits
    /// 128i+127..128i of `read_data` one cycle after bit i of `read_enable`.
    pub read_enable: Signal<In, Bits<READ_PORTS>>,
    pub read_address: Signal<In, Bits<{ READ_PORTS * UNIT_ADDRESS_BITS }>>,
    pub read_data: Signal<Out, Bits<{ READ_PORTS * 128 }>>,
    _lines: Vec<Bits<128>>,
}

impl SramBank {
    pub fn new(bytes: usize) -> Self {
        assert!(
            bytes.is_multiple_of(LINE_BYTES * CLEAR_WAYS)
                && bytes / LINE_BYTES <= 1 << LINE_ADDRESS_BITS,
            "a shared-buffer bank of {bytes} bytes is not {CLEAR_WAYS} macros of \
             {LINE_ADDRESS_BITS}-bit line addresses"
        );
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_strobe: Default::default(),
            write_clear: Default::default(),
            read_enable: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            _lines: vec![Bits::default(); bytes / LINE_BYTES],
        }
    }
}

impl Logic for SramBank {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let mut data = self.read_data.val();
            for port in 0..READ_PORTS {
                let unit = self
                    .read_address
                    .val()
                    .get_bits::<UNIT_ADDRESS_BITS>(port * UNIT_ADDRESS_BITS)
                    .index();
                let half = |line: usize, upper: bool| {
                    let line = self._lines.get(line).copied().unwrap_or_default();
                    line.get_bits::<64>(if upper { 64 } else { 0 })
                };
                if self.read_enable.val().get_bit(port) {
                    let (first, second) = (unit, unit + 1);
                    let bytes = bit_cast::<128, 64>(half(first / 2, first % 2 == 1))
                        | (bit_cast::<128, 64>(half(second / 2, second % 2 == 1)) << 64);
                    data.set_bits::<128>(port * 128, bytes);
                }
            }
            self.read_data.next = data;
            let write = self.write_address.val().index();
            if self.write_enable.val() && self.write_clear.val() {
                let group = write / CLEAR_WAYS * CLEAR_WAYS;
                for line in self._lines.iter_mut().skip(group).take(CLEAR_WAYS) {
                    *line = Bits::default();
                }
            } else if self.write_enable.val() && write < self._lines.len() {
                self._lines[write] = merge_line(
                    self._lines[write],
                    self.write_data.val(),
                    self.write_strobe.val(),
                );
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let lines = self._lines.len();
        let port = |p: usize| {
            let unit = format!(
                "read_address[{} +: {UNIT_ADDRESS_BITS}]",
                UNIT_ADDRESS_BITS * p
            );
            format!(
                "\
wire [{UNIT_ADDRESS_BITS}:0] low_line_{p} = ({unit} + 1) >> 1;
wire [{UNIT_ADDRESS_BITS}:0] high_line_{p} = {unit} >> 1;
reg [63:0] low_{p};
reg [63:0] high_{p};
reg odd_{p};
always @(posedge clock) if (read_enable[{p}]) begin
   low_{p} <= (low_line_{p} < {lines}) ? lines[low_line_{p}[{w}:0]][63:0] : 64'h0;
   high_{p} <= (high_line_{p} < {lines}) ? lines[high_line_{p}[{w}:0]][127:64] : 64'h0;
   odd_{p} <= read_address[{odd_bit}];
end
always @(*) read_data[{d} +: 128] = odd_{p} ? {{low_{p}, high_{p}}} : {{high_{p}, low_{p}}};
",
                w = LINE_ADDRESS_BITS - 1,
                d = 128 * p,
                odd_bit = UNIT_ADDRESS_BITS * p,
            )
        };
        Verilog::Custom(format!(
            "\
reg [127:0] lines [0:{last}] /*verilator public_flat_rw*/;
{strobe_mask}
integer way;
always @(posedge clock) begin
   if (write_enable & write_clear)
      {clear}
   else if (write_enable)
      lines[write_address] <= (lines[write_address] & ~strobe_mask) | (write_data & strobe_mask);
end
{reads}",
            last = lines - 1,
            strobe_mask = strobe_mask_wire(),
            clear =
                clear_group_statement("lines", "write_address", LINE_ADDRESS_BITS, CLEAR_WAYS, 128),
            reads = (0..READ_PORTS).map(port).collect::<String>(),
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "sram_bank".into(),
            clock: "clock".into(),
            inputs: vec![
                "write_enable".into(),
                "write_address".into(),
                "write_data".into(),
                "write_strobe".into(),
                "write_clear".into(),
                "read_enable".into(),
                "read_address".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}

/// The shared buffer of every core. A write goes to each core whose bit is
/// set in `write_cores` (TRM 4.6.4 NPU_SET_DMA0_DST_REGION: internal
/// destinations name a core mask).
///
/// `clear` zeroes every line of every bank, [`CLEAR_WAYS`] lines a cycle
/// (TRM 3.3.4.1: after a reset no data is left for another security
/// state); `clearing` is high until the last group is written; other writes
/// are dropped meanwhile (the clear follows a reset, when nothing else
/// writes).
///
/// `lut_write` repeats every bank write (the clear's too) that lands in the
/// last 2 KB, the LUT area (TRM 4.9.1), at its line in that area, for the
/// output unit's copy of the LUTs.
#[derive(LogicBlock)]
pub struct Shram {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub clearing: Signal<Out, Bit>,
    pub write_enable: Signal<In, Bit>,
    pub write_cores: Signal<In, Bits<2>>,
    pub write_address: Signal<In, Bits<LINE_ADDRESS_BITS>>,
    pub write_data: Signal<In, Bits<128>>,
    pub write_strobe: Signal<In, Bits<LINE_BYTES>>,
    /// The datapath's read ports of each of the [`READ_BANKS`] banks (IFM
    /// unit, operand reader); a bank the configuration lacks reads zeros.
    pub reads: Vec<BankReadPorts>,
    pub lut_write: Signal<Out, LutWrite>,
    banks: Vec<SramBank>,
    /// The first line of the last group the clear writes, and its step.
    last_group: Constant<Bits<LINE_ADDRESS_BITS>>,
    clear_step: Constant<Bits<LINE_ADDRESS_BITS>>,
    /// The LUT area's first line.
    lut_line: Constant<Bits<LINE_ADDRESS_BITS>>,
    bank_write: Signal<Local, Bits<2>>,
    bank_line: Signal<Local, Bits<LINE_ADDRESS_BITS>>,
    bank_data: Signal<Local, Bits<128>>,
    bank_strobe: Signal<Local, Bits<LINE_BYTES>>,
    bank_clear: Signal<Local, Bit>,
    lut_offset: Signal<Local, Bits<LINE_ADDRESS_BITS>>,
    clear_active: ResetReg<Bit>,
    clear_line: ResetReg<Bits<LINE_ADDRESS_BITS>>,
}

impl Shram {
    /// `cores` banks of `bytes_per_core` bytes.
    pub fn new(cores: usize, bytes_per_core: usize) -> Self {
        assert!(
            (1..=2).contains(&cores),
            "the shared buffer serves 1 or 2 cores"
        );
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            clear: Default::default(),
            clearing: Default::default(),
            write_enable: Default::default(),
            write_cores: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_strobe: Default::default(),
            reads: (0..READ_BANKS).map(|_| Default::default()).collect(),
            lut_write: Default::default(),
            banks: (0..cores).map(|_| SramBank::new(bytes_per_core)).collect(),
            last_group: Constant::new(((bytes_per_core / LINE_BYTES - CLEAR_WAYS) as u64).into()),
            clear_step: Constant::new((CLEAR_WAYS as u64).into()),
            lut_line: Constant::new(((bytes_per_core / LINE_BYTES - LUT_LINES) as u64).into()),
            bank_write: Default::default(),
            bank_line: Default::default(),
            bank_data: Default::default(),
            bank_strobe: Default::default(),
            bank_clear: Default::default(),
            lut_offset: Default::default(),
            clear_active: Default::default(),
            clear_line: Default::default(),
        }
    }
}

impl Logic for Shram {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, clear_active, clear_line);
        self.clear_active.rst_n.next = self.rst_n.val();
        self.clear_line.rst_n.next = self.rst_n.val();
        if self.clear_active.q.val() {
            self.clear_line.d.next = self.clear_line.q.val() + self.clear_step.val();
            if self.clear_line.q.val() == self.last_group.val() {
                self.clear_active.d.next = false;
            }
        }
        if self.clear.val() {
            self.clear_active.d.next = true;
            self.clear_line.d.next = 0.into();
        }
        self.clearing.next = self.clear_active.q.val();
        // The write of every bank: the clear's, or the DMA's to its cores.
        self.bank_write.next = 0.into();
        if self.write_enable.val() {
            self.bank_write.next = self.write_cores.val();
        }
        self.bank_line.next = self.write_address.val();
        self.bank_data.next = self.write_data.val();
        self.bank_strobe.next = self.write_strobe.val();
        self.bank_clear.next = self.clear_active.q.val();
        if self.clear_active.q.val() {
            self.bank_write.next = 3.into();
            self.bank_line.next = self.clear_line.q.val();
        }
        for core in 0..self.banks.len() {
            self.banks[core].clock.next = self.clock.val();
            self.banks[core].write_enable.next = self.bank_write.val().get_bit(core);
            self.banks[core].write_address.next = self.bank_line.val();
            self.banks[core].write_data.next = self.bank_data.val();
            self.banks[core].write_strobe.next = self.bank_strobe.val();
            self.banks[core].write_clear.next = self.bank_clear.val();
            self.banks[core].read_enable.next = self.reads[core].enable.val();
            self.banks[core].read_address.next = self.reads[core].address.val();
        }
        self.lut_write.next.cores = 0.into();
        if self.bank_line.val() >= self.lut_line.val() {
            self.lut_write.next.cores = self.bank_write.val();
        }
        self.lut_offset.next = self.bank_line.val() - self.lut_line.val();
        self.lut_write.next.line = self.lut_offset.val().get_bits::<7>(0);
        self.lut_write.next.data = self.bank_data.val();
        self.lut_write.next.strobe = self.bank_strobe.val();
        self.lut_write.next.clear = self.bank_clear.val();
        for bank in 0..self.reads.len() {
            self.reads[bank].data.next = 0.into();
        }
        for core in 0..self.banks.len() {
            self.reads[core].data.next = self.banks[core].read_data.val();
        }
    }
}
