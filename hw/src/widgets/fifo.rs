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
