//! Clock and power module (TRM 3.3.4): resets, the PROT security state, the
//! main clock gate, the datapath's clock gate, and the clock and power
//! Q-channel completers.
//!
//! Invariants: `nRESET` resets everything through a two-register
//! synchroniser; a permitted RESET write drains every AXI transaction, holds
//! the core reset four cycles, clears the shared buffer and takes the new PROT
//! levels (TRM 3.3.4.1), and while `resetting` STATUS reads only reset_status.
//! A Q-channel request is accepted only when the NPU is idle, PWAKEUP is low,
//! no reset runs and CMD allows it (TRM 3.3.4.2-3.3.4.3); QACTIVE is `active`.
//! The main clock is gated in Q_STOPPED and, with CMD.clock_q_enable, while
//! idle; DFTCGEN forces both gates open. Details: `docs/cpm.md`.

mod q_channel;

pub use q_channel::{QChannel, QChannelPort, QState};

use crate::widgets::{ClockGate, ResetReg, Synchronizer};
use npu_arch::regs;
use rust_hdl::prelude::*;

/// Cycles the core reset is held in a soft reset.
const CORE_RESET_CYCLES: u64 = 4;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum ResetPhase {
    Idle,
    /// Waiting for the DMA's outstanding AXI transactions.
    Drain,
    /// Holding the core reset.
    Reset,
    /// Clearing the shared buffer.
    Clear,
}

#[derive(LogicBlock)]
pub struct Cpm {
    pub clock: Signal<In, Clock>,
    /// Resets (TRM A.1, A.6): nRESET, or nMBISTRESET while MBISTREQ is high.
    pub n_reset: Signal<In, Bit>,
    pub n_mbist_reset: Signal<In, Bit>,
    pub mbist_req: Signal<In, Bit>,
    /// DFTRSTDISABLE\[0\] bypasses the reset synchroniser during scan shift.
    pub dft_rst_disable: Signal<In, Bits<2>>,
    /// DFTCGEN holds the main clock gate open.
    pub dft_cgen: Signal<In, Bit>,
    /// The synchronised hard reset (this module and the APB completer).
    pub rst_n: Signal<Out, Bit>,
    /// The reset of everything else: hard or soft.
    pub core_rst_n: Signal<Out, Bit>,
    /// The clock of everything else, through the main clock gate.
    pub core_clock: Signal<Out, Clock>,
    /// The datapath's clock: the core clock while `datapath_clock_wanted`.
    pub datapath_clock: Signal<Out, Clock>,
    pub datapath_clock_wanted: Signal<In, Bit>,
    /// Power-on privilege and security levels (TRM 4.2.10).
    pub porpl: Signal<In, Bit>,
    pub porsl: Signal<In, Bit>,
    /// PROT: bit 0 active_CPL, bit 1 active_CSL.
    pub prot: Signal<Out, Bits<2>>,
    /// A permitted write to RESET (TRM 4.2.4): its value and the access's PPROT.
    pub reset_write: Signal<In, Bit>,
    pub reset_value: Signal<In, Bits<32>>,
    pub reset_pprot: Signal<In, Bits<3>>,
    /// A reset is in progress (STATUS.reset_status).
    pub resetting: Signal<Out, Bit>,
    /// The DMA must issue nothing new; `axi_quiet` when it has nothing outstanding.
    pub quiesce: Signal<Out, Bit>,
    pub axi_quiet: Signal<In, Bit>,
    /// Shared-buffer clearing.
    pub shram_clear: Signal<Out, Bit>,
    pub shram_clearing: Signal<In, Bit>,
    /// QACTIVE; a request may be accepted when `idle` and CMD allows it.
    pub active: Signal<In, Bit>,
    pub idle: Signal<In, Bit>,
    /// PSEL: an APB transfer needs the clock.
    pub apb_select: Signal<In, Bit>,
    pub wakeup: Signal<In, Bit>,
    /// CMD as last written: its clock_q_enable and power_q_enable (TRM 4.2.3).
    pub cmd: Signal<In, Bits<32>>,
    pub clock_q: QChannelPort,
    pub power_q: QChannelPort,
    clock_q_enable: Signal<Local, Bit>,
    power_q_enable: Signal<Local, Bit>,
    clock_q_enable_mask: Constant<Bits<32>>,
    power_q_enable_mask: Constant<Bits<32>>,
    raw_rst_n: Signal<Local, Bit>,
    power_on_prot: Signal<Local, Bits<2>>,
    requested_prot: Signal<Local, Bits<2>>,
    core_reset_cycles: Constant<Bits<3>>,
    reset_sync: Synchronizer,
    prot_captured: ResetReg<Bit>,
    prot_state: ResetReg<Bits<2>>,
    pending_prot: ResetReg<Bits<2>>,
    soft_reset: ResetReg<Bit>,
    phase: ResetReg<ResetPhase>,
    phase_cycles: ResetReg<Bits<3>>,
    clear_started: ResetReg<Bit>,
    core_released: ResetReg<Bit>,
    clock_gate: ClockGate,
    datapath_clock_gate: ClockGate,
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
            dft_cgen: Default::default(),
            rst_n: Default::default(),
            core_rst_n: Default::default(),
            core_clock: Default::default(),
            datapath_clock: Default::default(),
            datapath_clock_wanted: Default::default(),
            porpl: Default::default(),
            porsl: Default::default(),
            prot: Default::default(),
            reset_write: Default::default(),
            reset_value: Default::default(),
            reset_pprot: Default::default(),
            resetting: Default::default(),
            quiesce: Default::default(),
            axi_quiet: Default::default(),
            shram_clear: Default::default(),
            shram_clearing: Default::default(),
            active: Default::default(),
            idle: Default::default(),
            apb_select: Default::default(),
            wakeup: Default::default(),
            cmd: Default::default(),
            clock_q_enable: Default::default(),
            power_q_enable: Default::default(),
            clock_q_enable_mask: Constant::new(
                u64::from(regs::CMD.field("clock_q_enable").mask()).into(),
            ),
            power_q_enable_mask: Constant::new(
                u64::from(regs::CMD.field("power_q_enable").mask()).into(),
            ),
            clock_q: Default::default(),
            power_q: Default::default(),
            raw_rst_n: Default::default(),
            power_on_prot: Default::default(),
            requested_prot: Default::default(),
            core_reset_cycles: Constant::new(CORE_RESET_CYCLES.into()),
            reset_sync: Synchronizer::new(false),
            prot_captured: ResetReg::new(false),
            prot_state: ResetReg::new(0.into()),
            pending_prot: Default::default(),
            soft_reset: ResetReg::new(false),
            // A hard reset ends with the core reset and the clear.
            phase: ResetReg::new(ResetPhase::Reset),
            phase_cycles: Default::default(),
            clear_started: ResetReg::new(false),
            core_released: ResetReg::new(false),
            clock_gate: Default::default(),
            datapath_clock_gate: Default::default(),
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

        dff_setup!(
            self,
            clock,
            prot_captured,
            prot_state,
            pending_prot,
            soft_reset,
            phase,
            phase_cycles,
            clear_started,
            core_released
        );
        self.prot_captured.rst_n.next = self.rst_n.val();
        self.prot_state.rst_n.next = self.rst_n.val();
        self.pending_prot.rst_n.next = self.rst_n.val();
        self.soft_reset.rst_n.next = self.rst_n.val();
        self.phase.rst_n.next = self.rst_n.val();
        self.phase_cycles.rst_n.next = self.rst_n.val();
        self.clear_started.rst_n.next = self.rst_n.val();
        self.core_released.rst_n.next = self.rst_n.val();

        // TRM 4.2.10: after a hard reset PROT takes PORSL/PORPL, captured on the first clock.
        self.power_on_prot.next = bits::<2>(0)
            .replace_bit(0, self.porpl.val())
            .replace_bit(1, self.porsl.val());
        self.prot_captured.d.next = true;
        if !self.prot_captured.q.val() {
            self.prot_state.d.next = self.power_on_prot.val();
        }

        // TRM 3.3.4.1: the levels a soft reset applies.
        self.requested_prot.next = bits::<2>(0)
            .replace_bit(
                0,
                self.reset_value.val().get_bit(0) & self.reset_pprot.val().get_bit(0),
            )
            .replace_bit(
                1,
                self.reset_value.val().get_bit(1) | self.reset_pprot.val().get_bit(1),
            );

        self.shram_clear.next = false;
        match self.phase.q.val() {
            ResetPhase::Idle => {
                if self.reset_write.val() {
                    self.pending_prot.d.next = self.requested_prot.val();
                    self.soft_reset.d.next = true;
                    self.phase.d.next = ResetPhase::Drain;
                }
            }
            ResetPhase::Drain => {
                if self.axi_quiet.val() {
                    self.phase.d.next = ResetPhase::Reset;
                    self.phase_cycles.d.next = 0.into();
                }
            }
            ResetPhase::Reset => {
                self.phase_cycles.d.next = self.phase_cycles.q.val() + 1;
                if self.phase_cycles.q.val() == self.core_reset_cycles.val() {
                    self.phase.d.next = ResetPhase::Clear;
                    self.clear_started.d.next = false;
                }
            }
            ResetPhase::Clear => {
                // Once the core reset is released (a cycle after the Reset phase).
                self.shram_clear.next = self.core_released.q.val() & !self.clear_started.q.val();
                if self.core_released.q.val() {
                    self.clear_started.d.next = true;
                }
                if self.clear_started.q.val() & !self.shram_clearing.val() {
                    self.phase.d.next = ResetPhase::Idle;
                    if self.soft_reset.q.val() {
                        self.prot_state.d.next = self.pending_prot.q.val();
                    }
                    self.soft_reset.d.next = false;
                }
            }
        }
        self.core_released.d.next = self.phase.q.val() != ResetPhase::Reset;
        self.core_rst_n.next = self.rst_n.val() & self.core_released.q.val();
        self.resetting.next = self.phase.q.val() != ResetPhase::Idle;
        self.quiesce.next = self.phase.q.val() == ResetPhase::Drain;
        self.prot.next = self.prot_state.q.val();
        if !self.prot_captured.q.val() {
            self.prot.next = self.power_on_prot.val();
        }

        // Q-channels and the main clock gate.
        self.clock_q_enable.next = (self.cmd.val() & self.clock_q_enable_mask.val()) != 0;
        self.power_q_enable.next = (self.cmd.val() & self.power_q_enable_mask.val()) != 0;
        self.clock_q_completer.clock.next = self.clock.val();
        self.clock_q_completer.rst_n.next = self.rst_n.val();
        self.clock_q_completer.active.next = self.active.val();
        self.clock_q_completer.allow.next = self.clock_q_enable.val()
            & self.idle.val()
            & !self.wakeup.val()
            & !self.resetting.val();
        QChannelPort::link(&mut self.clock_q, &mut self.clock_q_completer.port);
        self.power_q_completer.clock.next = self.clock.val();
        self.power_q_completer.rst_n.next = self.rst_n.val();
        self.power_q_completer.active.next = self.active.val();
        self.power_q_completer.allow.next = self.power_q_enable.val()
            & self.idle.val()
            & !self.wakeup.val()
            & !self.resetting.val();
        QChannelPort::link(&mut self.power_q, &mut self.power_q_completer.port);
        self.clock_gate.clock.next = self.clock.val();
        // TRM 3.3.4.2, 4.5: with clock_q_enable set the gate also closes
        // while the NPU has nothing to do (no work, IRQ, reset, PWAKEUP or
        // APB transfer); clock_q_enable = 0 forces it open, as does DFTCGEN.
        self.clock_gate.enable.next = self.dft_cgen.val()
            | (!(self.clock_q_completer.stopped.val() | self.power_q_completer.stopped.val())
                & (!self.clock_q_enable.val() | self.active.val() | self.apb_select.val()));
        self.core_clock.next = self.clock_gate.gated.val();
        self.datapath_clock_gate.clock.next = self.clock_gate.gated.val();
        self.datapath_clock_gate.enable.next =
            self.dft_cgen.val() | self.datapath_clock_wanted.val();
        self.datapath_clock.next = self.datapath_clock_gate.gated.val();
    }
}
