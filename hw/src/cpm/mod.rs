//! Clock and power module (TRM 3.3.4): reset synchronisation, the PROT
//! security state, and the clock and power Q-channel completers.

mod q_channel;

pub use q_channel::{QChannel, QChannelPort};

use crate::widgets::{ResetReg, Synchronizer};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Cpm {
    pub clock: Signal<In, Clock>,
    /// Resets (TRM A.1, A.6): nRESET, or nMBISTRESET while MBISTREQ is high.
    pub n_reset: Signal<In, Bit>,
    pub n_mbist_reset: Signal<In, Bit>,
    pub mbist_req: Signal<In, Bit>,
    /// DFTRSTDISABLE[0] bypasses the reset synchroniser during scan shift.
    pub dft_rst_disable: Signal<In, Bits<2>>,
    /// The synchronised reset every register of the NPU uses.
    pub rst_n: Signal<Out, Bit>,
    /// Power-on privilege and security levels (TRM 4.2.10).
    pub porpl: Signal<In, Bit>,
    pub porsl: Signal<In, Bit>,
    /// PROT: bit 0 active_CPL, bit 1 active_CSL.
    pub prot: Signal<Out, Bits<2>>,
    /// The NPU needs its clock and power: work pending, IRQ raised or PWAKEUP.
    pub active: Signal<In, Bit>,
    pub clock_q: QChannelPort,
    pub power_q: QChannelPort,
    raw_rst_n: Signal<Local, Bit>,
    power_on_prot: Signal<Local, Bits<2>>,
    reset_sync: Synchronizer,
    prot_captured: ResetReg<Bit>,
    prot_state: ResetReg<Bits<2>>,
    clock_q_completer: QChannel,
    power_q_completer: QChannel,
}

impl Default for Cpm {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            n_reset: Default::default(),
            n_mbist_reset: Default::default(),
            mbist_req: Default::default(),
            dft_rst_disable: Default::default(),
            rst_n: Default::default(),
            porpl: Default::default(),
            porsl: Default::default(),
            prot: Default::default(),
            active: Default::default(),
            clock_q: Default::default(),
            power_q: Default::default(),
            raw_rst_n: Default::default(),
            power_on_prot: Default::default(),
            reset_sync: Synchronizer::new(false),
            prot_captured: ResetReg::new(false),
            prot_state: ResetReg::new(0.into()),
            clock_q_completer: Default::default(),
            power_q_completer: Default::default(),
        }
    }
}

impl Logic for Cpm {
    #[hdl_gen]
    fn update(&mut self) {
        // Asynchronous assertion, synchronous deassertion.
        self.raw_rst_n.next = self.n_reset.val();
        if self.mbist_req.val() {
            self.raw_rst_n.next = self.n_mbist_reset.val();
        }
        self.reset_sync.clock.next = self.clock.val();
        self.reset_sync.rst_n.next = self.raw_rst_n.val();
        self.reset_sync.din.next = true;
        self.rst_n.next = self.reset_sync.dout.val();
        if self.dft_rst_disable.val().get_bit(0) {
            self.rst_n.next = self.raw_rst_n.val();
        }

        // TRM 4.2.10: after a hard reset PROT takes PORSL/PORPL, captured on the first clock.
        self.power_on_prot.next = bits::<2>(0)
            .replace_bit(0, self.porpl.val())
            .replace_bit(1, self.porsl.val());
        dff_setup!(self, clock, prot_captured, prot_state);
        self.prot_captured.rst_n.next = self.rst_n.val();
        self.prot_state.rst_n.next = self.rst_n.val();
        self.prot_captured.d.next = true;
        if !self.prot_captured.q.val() {
            self.prot_state.d.next = self.power_on_prot.val();
        }
        self.prot.next = self.prot_state.q.val();
        if !self.prot_captured.q.val() {
            self.prot.next = self.power_on_prot.val();
        }

        self.clock_q_completer.clock.next = self.clock.val();
        self.clock_q_completer.rst_n.next = self.rst_n.val();
        self.clock_q_completer.active.next = self.active.val();
        QChannelPort::link(&mut self.clock_q, &mut self.clock_q_completer.port);
        self.power_q_completer.clock.next = self.clock.val();
        self.power_q_completer.rst_n.next = self.rst_n.val();
        self.power_q_completer.active.next = self.active.val();
        QChannelPort::link(&mut self.power_q, &mut self.power_q_completer.port);
    }
}
