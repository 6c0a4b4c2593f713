//! A two-register synchroniser for a signal from another clock domain.

use super::ResetReg;
use rust_hdl::prelude::*;

/// `dout` follows `din` two `clock` edges later; both stages reset to `init`.
#[derive(LogicBlock)]
pub struct Synchronizer {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub din: Signal<In, Bit>,
    pub dout: Signal<Out, Bit>,
    stage: [ResetReg<Bit>; 2],
}

impl Synchronizer {
    pub fn new(init: bool) -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            din: Default::default(),
            dout: Default::default(),
            stage: [ResetReg::new(init), ResetReg::new(init)],
        }
    }
}

impl Logic for Synchronizer {
    #[hdl_gen]
    fn update(&mut self) {
        self.stage[0].clock.next = self.clock.val();
        self.stage[1].clock.next = self.clock.val();
        self.stage[0].rst_n.next = self.rst_n.val();
        self.stage[1].rst_n.next = self.rst_n.val();
        self.stage[0].d.next = self.din.val();
        self.stage[1].d.next = self.stage[0].q.val();
        self.dout.next = self.stage[1].q.val();
    }
}
