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

/// Denies every quiescence request: the NPU keeps its clock and power until
/// the CPM's request-acceptance logic is built. QREQn is asynchronous to
/// CLK and is synchronised first.
#[derive(LogicBlock)]
pub struct QChannel {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// The NPU needs the clock or power.
    pub active: Signal<In, Bit>,
    pub port: QChannelPort,
    qreq_n_sync: Synchronizer,
    deny: ResetReg<Bit>,
}

impl Default for QChannel {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            active: Default::default(),
            port: Default::default(),
            // Q_RUN after reset: no request seen.
            qreq_n_sync: Synchronizer::new(true),
            deny: ResetReg::new(false),
        }
    }
}

impl Logic for QChannel {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, deny);
        self.deny.rst_n.next = self.rst_n.val();
        self.qreq_n_sync.clock.next = self.clock.val();
        self.qreq_n_sync.rst_n.next = self.rst_n.val();
        self.qreq_n_sync.din.next = self.port.qreq_n.val();
        // Q_REQUEST -> Q_DENIED while requested; Q_CONTINUE -> Q_RUN once released.
        self.deny.d.next = !self.qreq_n_sync.dout.val();
        self.port.qdeny.next = self.deny.q.val();
        self.port.qaccept_n.next = true;
        self.port.qactive.next = self.active.val();
    }
}
