//! A Q-channel completer (AMBA Low Power Interface), as used for the NPU's
//! clock and power Q-channels (TRM 3.3.4.2, 3.3.4.3).

use crate::widgets::{ResetReg, Synchronizer};
use rust_hdl::prelude::*;

/// The four Q-channel signals, seen from the device (TRM A.3).
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct QChannelPort {
    pub qreq_n: Signal<In, Bit>,
    pub qaccept_n: Signal<Out, Bit>,
    pub qdeny: Signal<Out, Bit>,
    pub qactive: Signal<Out, Bit>,
}

/// The device side's states (AMBA LPI): Q_REQUEST, Q_EXIT and Q_CONTINUE
/// are the cycles in which the synchronised QREQn has changed and the state
/// below has not yet followed.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum QState {
    /// QACCEPTn high, QDENY low.
    Run,
    /// QACCEPTn low: the controller may stop the clock or remove power.
    Stopped,
    /// QDENY high: the request was refused.
    Denied,
}

/// Accepts a quiescence request (QREQn falling) when `allow` is high, and
/// denies it otherwise; returns to Q_RUN when QREQn rises again. QREQn is
/// asynchronous to CLK and is synchronised first; QACCEPTn and QDENY come
/// from the state register.
#[derive(LogicBlock)]
pub struct QChannel {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// QACTIVE: the NPU needs the clock or power.
    pub active: Signal<In, Bit>,
    /// A request arriving now may be accepted.
    pub allow: Signal<In, Bit>,
    pub port: QChannelPort,
    /// The channel is in Q_STOPPED.
    pub stopped: Signal<Out, Bit>,
    qreq_n_sync: Synchronizer,
    state: ResetReg<QState>,
}

impl Default for QChannel {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            active: Default::default(),
            allow: Default::default(),
            port: Default::default(),
            stopped: Default::default(),
            // Q_RUN after reset: no request seen.
            qreq_n_sync: Synchronizer::new(true),
            state: ResetReg::new(QState::Run),
        }
    }
}

impl Logic for QChannel {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.state.rst_n.next = self.rst_n.val();
        self.qreq_n_sync.clock.next = self.clock.val();
        self.qreq_n_sync.rst_n.next = self.rst_n.val();
        self.qreq_n_sync.din.next = self.port.qreq_n.val();
        match self.state.q.val() {
            QState::Run => {
                if !self.qreq_n_sync.dout.val() {
                    if self.allow.val() {
                        self.state.d.next = QState::Stopped;
                    } else {
                        self.state.d.next = QState::Denied;
                    }
                }
            }
            QState::Stopped => {
                if self.qreq_n_sync.dout.val() {
                    self.state.d.next = QState::Run;
                }
            }
            QState::Denied => {
                if self.qreq_n_sync.dout.val() {
                    self.state.d.next = QState::Run;
                }
            }
        }
        self.port.qaccept_n.next = self.state.q.val() != QState::Stopped;
        self.port.qdeny.next = self.state.q.val() == QState::Denied;
        self.port.qactive.next = self.active.val();
        self.stopped.next = self.state.q.val() == QState::Stopped;
    }
}
