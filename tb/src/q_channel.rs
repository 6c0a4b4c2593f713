//! Q-channels (AMBA Low Power Interface) on the bench: a controller model
//! that drives QREQn as a clock or power controller would, and a protocol
//! checker for the handshake that `NpuTb` runs on both channels every cycle.

use crate::verilator::{Model, PortId};

pub use npu_model::device::{QChannel, QState};

/// The wires of one Q-channel.
#[derive(Clone, Copy, Debug)]
pub struct QWires {
    pub qreq_n: PortId,
    pub qaccept_n: PortId,
    pub qdeny: PortId,
    pub qactive: PortId,
}

impl QWires {
    pub fn new(model: &Model, channel: QChannel) -> Self {
        let p = |s: &str| model.port(&format!("{}{s}", channel.prefix()));
        Self {
            qreq_n: p("QREQn"),
            qaccept_n: p("QACCEPTn"),
            qdeny: p("QDENY"),
            qactive: p("QACTIVE"),
        }
    }

    /// The interface state the wires show now.
    pub fn state(&self, model: &Model) -> Option<QState> {
        QState::of(
            model.get(self.qreq_n) != 0,
            model.get(self.qaccept_n) != 0,
            model.get(self.qdeny) != 0,
        )
    }
}

/// Checks each clock edge's Q-channel state against the last one.
#[derive(Clone, Debug)]
pub struct QChecker {
    pub channel: QChannel,
    pub wires: QWires,
    last: QState,
}

impl QChecker {
    pub fn new(model: &Model, channel: QChannel) -> Self {
        Self {
            channel,
            wires: QWires::new(model, channel),
            last: QState::Run,
        }
    }

    /// After a hard reset the interface is in Q_RUN again.
    pub fn reset(&mut self) {
        self.last = QState::Run;
    }

    /// The state at this edge; an error names an illegal state or transition.
    pub fn edge(&mut self, model: &Model) -> Result<QState, String> {
        let now = self.wires.state(model).ok_or_else(|| {
            format!(
                "{} protocol: QACCEPTn low with QDENY high (in {:?} before)",
                self.channel, self.last
            )
        })?;
        if !self.last.may_become(now) {
            return Err(format!(
                "{} protocol: {:?} -> {now:?} is not an LPI transition",
                self.channel, self.last
            ));
        }
        self.last = now;
        Ok(now)
    }

    pub fn state(&self) -> QState {
        self.last
    }
}
