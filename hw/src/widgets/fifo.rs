//! A first-in first-out queue with reset pointers and flop storage.

use super::ResetReg;
use crate::stream::{StreamIn, StreamOut};
use rust_hdl::prelude::*;

/// `2^N` words written on the clock edge and read combinationally: the
/// storage of a [`Fifo`]. Every word clears on reset, so no data outlives a
/// reset (TRM 3.3.4.1).
#[derive(LogicBlock, Default)]
pub struct RegisterArray<D: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, D>,
    pub read_address: Signal<In, Bits<N>>,
    pub read_data: Signal<Out, D>,
    _sim: Vec<D>,
}

impl<D: Synth, const N: usize> Logic for RegisterArray<D, N> {
    fn update(&mut self) {
        if self._sim.is_empty() || !self.rst_n.val() {
            self._sim = vec![D::default(); 1 << N];
        } else if self.clock.pos_edge() && self.write_enable.val() {
            self._sim[self.write_address.val().index()] = self.write_data.val();
        }
        self.read_data.next = self._sim[self.read_address.val().index()];
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{msb}:0] cells [0:{last}];
integer i;
always @(posedge clock or negedge rst_n)
   if (!rst_n) for (i = 0; i <= {last}; i = i + 1) cells[i] <= 0;
   else if (write_enable) cells[write_address] <= write_data;
always @(*) read_data = cells[read_address];",
            msb = D::BITS - 1,
            last = (1usize << N) - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "register_array_write".into(),
            clock: "clock".into(),
            inputs: vec![
                "rst_n".into(),
                "write_enable".into(),
                "write_address".into(),
                "write_data".into(),
            ],
            outputs: vec![],
        }]
    }
}

/// A FIFO of `2^N` words. `C` = `N + 1` is the width of the pointers and of
/// `count` (stable Rust cannot write `N + 1` as a type parameter).
///
/// `tail` takes a word while the FIFO is not full; `head` offers the
/// oldest word while it is not empty (a consumer may read it for as long as
/// it needs before taking it, as the DMA does with its head descriptor).
#[derive(LogicBlock)]
pub struct Fifo<D: Synth, const N: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub tail: StreamIn<D>,
    pub head: StreamOut<D>,
    /// Words held, 0 to 2^N.
    pub count: Signal<Out, Bits<C>>,
    depth: Constant<Bits<C>>,
    write_pointer: ResetReg<Bits<C>>,
    read_pointer: ResetReg<Bits<C>>,
    words: RegisterArray<D, N>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
}

impl<D: Synth, const N: usize, const C: usize> Default for Fifo<D, N, C> {
    fn default() -> Self {
        assert_eq!(C, N + 1, "Fifo pointer width C must be N + 1");
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            tail: Default::default(),
            head: Default::default(),
            count: Default::default(),
            depth: Constant::new((1u64 << N).into()),
            write_pointer: Default::default(),
            read_pointer: Default::default(),
            words: Default::default(),
            push: Default::default(),
            pop: Default::default(),
        }
    }
}

impl<D: Synth, const N: usize, const C: usize> Logic for Fifo<D, N, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, write_pointer, read_pointer);
        self.write_pointer.rst_n.next = self.rst_n.val();
        self.read_pointer.rst_n.next = self.rst_n.val();
        self.words.clock.next = self.clock.val();
        self.words.rst_n.next = self.rst_n.val();
        self.count.next = self.write_pointer.q.val() - self.read_pointer.q.val();
        self.tail.ready.next = self.count.val() != self.depth.val();
        self.head.valid.next = self.count.val() != 0;
        self.push.next = self.tail.valid.val() & self.tail.ready.val();
        self.pop.next = self.head.valid.val() & self.head.ready.val();
        self.words.write_enable.next = self.push.val();
        self.words.write_address.next = self.write_pointer.q.val().get_bits::<N>(0);
        self.words.write_data.next = self.tail.data.val();
        self.words.read_address.next = self.read_pointer.q.val().get_bits::<N>(0);
        self.head.data.next = self.words.read_data.val();
        if self.push.val() {
            self.write_pointer.d.next = self.write_pointer.q.val() + 1;
        }
        if self.pop.val() {
            self.read_pointer.d.next = self.read_pointer.q.val() + 1;
        }
    }
}

/// `2^N` words in a RAM with one write port and one registered read port:
/// the storage of a [`RamFifo`]. Its words are not reset: a RAM macro in a
/// real flow (black-boxed by the synthesis script, as the shared buffer's
/// banks are); the FIFO's pointers reset, so no word written before a
/// reset is read after it.
#[derive(LogicBlock, Default)]
pub struct BufferRam<D: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, D>,
    pub read_enable: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<N>>,
    /// The word at `read_address`, the cycle after `read_enable`.
    pub read_data: Signal<Out, D>,
    _sim: Vec<D>,
}

impl<D: Synth, const N: usize> Logic for BufferRam<D, N> {
    fn update(&mut self) {
        if self._sim.is_empty() {
            self._sim = vec![D::default(); 1 << N];
        }
        if self.clock.pos_edge() {
            if self.read_enable.val() {
                self.read_data.next = self._sim[self.read_address.val().index()];
            }
            if self.write_enable.val() {
                self._sim[self.write_address.val().index()] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{msb}:0] cells [0:{last}];
always @(posedge clock) begin
   if (write_enable) cells[write_address] <= write_data;
   if (read_enable) read_data <= cells[read_address];
end",
            msb = D::BITS - 1,
            last = (1usize << N) - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "buffer_ram".into(),
            clock: "clock".into(),
            inputs: vec![
                "write_enable".into(),
                "write_address".into(),
                "write_data".into(),
                "read_enable".into(),
                "read_address".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}

/// A FIFO of `2^N` words kept in a RAM ([`BufferRam`]), for buffers too
/// deep for flops (the DMA's read buffers, which hide hundreds of cycles
/// of memory latency: TRM 4.7). `C` = `N + 1`. The same ports as [`Fifo`]:
/// `tail` takes a word while fewer than `2^N` are held; `head` offers the
/// oldest from a two-word output stage that the RAM's registered read
/// keeps filled, so a word a cycle passes through once the stage is full; a
/// word written to an empty FIFO is offered three cycles later.
#[derive(LogicBlock)]
pub struct RamFifo<D: Synth, const N: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub tail: StreamIn<D>,
    pub head: StreamOut<D>,
    /// Words held, 0 to 2^N: in the RAM, being read, and in the stage.
    pub count: Signal<Out, Bits<C>>,
    depth: Constant<Bits<C>>,
    ram: BufferRam<D, N>,
    write_pointer: ResetReg<Bits<C>>,
    read_pointer: ResetReg<Bits<C>>,
    /// 1: a RAM read was issued on the last edge, its word is `ram.read_data`.
    reading: ResetReg<Bits<1>>,
    /// The output stage: `staged` words, the oldest in `first`.
    first: ResetReg<D>,
    second: ResetReg<D>,
    staged: ResetReg<Bits<2>>,
    in_ram: Signal<Local, Bits<C>>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    /// Stage words left after this cycle's pop.
    kept: Signal<Local, Bits<2>>,
    issue: Signal<Local, Bit>,
}

impl<D: Synth, const N: usize, const C: usize> Default for RamFifo<D, N, C> {
    fn default() -> Self {
        assert_eq!(C, N + 1, "RamFifo pointer width C must be N + 1");
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            tail: Default::default(),
            head: Default::default(),
            count: Default::default(),
            depth: Constant::new((1u64 << N).into()),
            ram: Default::default(),
            write_pointer: Default::default(),
            read_pointer: Default::default(),
            reading: Default::default(),
            first: Default::default(),
            second: Default::default(),
            staged: Default::default(),
            in_ram: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            kept: Default::default(),
            issue: Default::default(),
        }
    }
}

impl<D: Synth, const N: usize, const C: usize> Logic for RamFifo<D, N, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            write_pointer,
            read_pointer,
            reading,
            first,
            second,
            staged
        );
        self.write_pointer.rst_n.next = self.rst_n.val();
        self.read_pointer.rst_n.next = self.rst_n.val();
        self.reading.rst_n.next = self.rst_n.val();
        self.first.rst_n.next = self.rst_n.val();
        self.second.rst_n.next = self.rst_n.val();
        self.staged.rst_n.next = self.rst_n.val();
        self.ram.clock.next = self.clock.val();

        self.in_ram.next = self.write_pointer.q.val() - self.read_pointer.q.val();
        self.count.next = self.in_ram.val()
            + bit_cast::<C, 1>(self.reading.q.val())
            + bit_cast::<C, 2>(self.staged.q.val());
        self.tail.ready.next = self.count.val() != self.depth.val();
        self.head.valid.next = self.staged.q.val() != 0;
        self.head.data.next = self.first.q.val();
        self.push.next = self.tail.valid.val() & self.tail.ready.val();
        self.pop.next = self.head.valid.val() & self.head.ready.val();

        self.ram.write_enable.next = self.push.val();
        self.ram.write_address.next = self.write_pointer.q.val().get_bits::<N>(0);
        self.ram.write_data.next = self.tail.data.val();
        if self.push.val() {
            self.write_pointer.d.next = self.write_pointer.q.val() + 1;
        }

        // A read is issued while the stage will have room for its word
        // when it lands, after this cycle's pop and landing.
        self.kept.next = self.staged.q.val();
        if self.pop.val() {
            self.kept.next = self.staged.q.val() - 1;
        }
        self.issue.next = (self.in_ram.val() != 0)
            & ((self.kept.val() + bit_cast::<2, 1>(self.reading.q.val())) < 2);
        self.ram.read_enable.next = self.issue.val();
        self.ram.read_address.next = self.read_pointer.q.val().get_bits::<N>(0);
        self.reading.d.next = 0.into();
        if self.issue.val() {
            self.reading.d.next = 1.into();
            self.read_pointer.d.next = self.read_pointer.q.val() + 1;
        }

        // The stage: a pop moves the second word up; the landing word takes
        // the first free place.
        if self.pop.val() {
            self.first.d.next = self.second.q.val();
        }
        if self.reading.q.val() == 1 {
            if self.kept.val() == 0 {
                self.first.d.next = self.ram.read_data.val();
            } else {
                self.second.d.next = self.ram.read_data.val();
            }
        }
        self.staged.d.next = self.kept.val() + bit_cast::<2, 1>(self.reading.q.val());
    }
}
