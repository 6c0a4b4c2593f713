//! The shared buffer (TRM 3.3.6, 4.9.1): 48 KB per core, 128-bit lines. The
//! DMA writes it (user DMA with destination region mode internal, the way
//! LUTs are loaded; later IFM data); the datapath reads it.

use crate::widgets::ResetReg;
use rust_hdl::prelude::*;

/// Bytes in one shared-buffer line, the width of an AXI beat.
pub const LINE_BYTES: usize = 16;
/// Bits of a line address: 4096 lines, enough for one core's 48 KB.
pub const LINE_ADDRESS_BITS: usize = 12;

/// Read ports of a bank: the IFM unit reads the four positions of a
/// microblock at once (a real flow replicates a 1R1W macro).
pub const READ_PORTS: usize = 4;

/// One core's buffer: an SRAM with one write port with byte strobes and
/// [`READ_PORTS`] read ports.
///
/// In the emitted Verilog it is a behavioural RAM, black-boxed by the
/// synthesis script as a RAM macro would be; its `lines` array is marked
/// public so the testbench can read it through VPI.
#[derive(LogicBlock)]
pub struct SramBank {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<LINE_ADDRESS_BITS>>,
    pub write_data: Signal<In, Bits<128>>,
    pub write_strobe: Signal<In, Bits<LINE_BYTES>>,
    /// [`READ_PORTS`] read ports, packed: port i's line address in bits
    /// 12i+11..12i of `read_address`, its line in bits 128i+127..128i of
    /// `read_data` one cycle after bit i of `read_enable`.
    pub read_enable: Signal<In, Bits<READ_PORTS>>,
    pub read_address: Signal<In, Bits<{ READ_PORTS * LINE_ADDRESS_BITS }>>,
    pub read_data: Signal<Out, Bits<{ READ_PORTS * 128 }>>,
    _lines: Vec<Bits<128>>,
}

impl SramBank {
    pub fn new(bytes: usize) -> Self {
        assert!(
            bytes.is_multiple_of(LINE_BYTES) && bytes / LINE_BYTES <= 1 << LINE_ADDRESS_BITS,
            "a shared-buffer bank of {bytes} bytes does not fit {LINE_ADDRESS_BITS}-bit line addresses"
        );
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_strobe: Default::default(),
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
                let read = self
                    .read_address
                    .val()
                    .get_bits::<LINE_ADDRESS_BITS>(port * LINE_ADDRESS_BITS)
                    .index();
                if self.read_enable.val().get_bit(port) {
                    data.set_bits::<128>(
                        port * 128,
                        self._lines.get(read).copied().unwrap_or_default(),
                    );
                }
            }
            self.read_data.next = data;
            let write = self.write_address.val().index();
            if self.write_enable.val() && write < self._lines.len() {
                let mut line = self._lines[write];
                for byte in 0..LINE_BYTES {
                    if self.write_strobe.val().get_bit(byte) {
                        line.set_bits::<8>(8 * byte, self.write_data.val().get_bits::<8>(8 * byte));
                    }
                }
                self._lines[write] = line;
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let strobe_mask = (0..LINE_BYTES)
            .rev()
            .map(|byte| format!("{{8{{write_strobe[{byte}]}}}}"))
            .collect::<Vec<_>>()
            .join(", ");
        Verilog::Custom(format!(
            "\
reg [127:0] lines [0:{last}] /*verilator public_flat_rw*/;
wire [127:0] strobe_mask = {{{strobe_mask}}};
always @(posedge clock) begin
   if (write_enable)
      lines[write_address] <= (lines[write_address] & ~strobe_mask) | (write_data & strobe_mask);
{reads}end",
            last = self._lines.len() - 1,
            reads = (0..READ_PORTS)
                .map(|p| format!(
                    "   if (read_enable[{p}]) read_data[{d} +: 128] <= lines[read_address[{a} +: {w}]];\n",
                    d = 128 * p,
                    a = LINE_ADDRESS_BITS * p,
                    w = LINE_ADDRESS_BITS
                ))
                .collect::<String>(),
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
/// `clear` zeroes every line of every bank, one line per cycle (TRM 3.3.4.1:
/// after a reset no data is left for another security state); `clearing`
/// is high until the last line is written; other writes are dropped
/// meanwhile (the clear follows a reset, when nothing else writes).
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
    /// The IFM unit's read ports, of core 0's bank (the datapath runs on
    /// core 0).
    pub read_enable: Signal<In, Bits<READ_PORTS>>,
    pub read_address: Signal<In, Bits<{ READ_PORTS * LINE_ADDRESS_BITS }>>,
    pub read_data: Signal<Out, Bits<{ READ_PORTS * 128 }>>,
    banks: Vec<SramBank>,
    last_line: Constant<Bits<LINE_ADDRESS_BITS>>,
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
            read_enable: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            banks: (0..cores).map(|_| SramBank::new(bytes_per_core)).collect(),
            last_line: Constant::new(((bytes_per_core / LINE_BYTES - 1) as u64).into()),
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
            self.clear_line.d.next = self.clear_line.q.val() + 1;
            if self.clear_line.q.val() == self.last_line.val() {
                self.clear_active.d.next = false;
            }
        }
        if self.clear.val() {
            self.clear_active.d.next = true;
            self.clear_line.d.next = 0.into();
        }
        self.clearing.next = self.clear_active.q.val();
        for core in 0..self.banks.len() {
            self.banks[core].clock.next = self.clock.val();
            self.banks[core].write_enable.next =
                self.write_enable.val() & self.write_cores.val().get_bit(core);
            self.banks[core].write_address.next = self.write_address.val();
            self.banks[core].write_data.next = self.write_data.val();
            self.banks[core].write_strobe.next = self.write_strobe.val();
            if self.clear_active.q.val() {
                self.banks[core].write_enable.next = true;
                self.banks[core].write_address.next = self.clear_line.q.val();
                self.banks[core].write_data.next = 0.into();
                self.banks[core].write_strobe.next = bits::<LINE_BYTES>(0xffff);
            }
            self.banks[core].read_enable.next = 0.into();
            self.banks[core].read_address.next = self.read_address.val();
        }
        self.banks[0].read_enable.next = self.read_enable.val();
        self.read_data.next = self.banks[0].read_data.val();
    }
}
