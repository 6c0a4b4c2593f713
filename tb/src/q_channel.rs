//! Q-channels (AMBA Low Power Interface) on the bench: a controller model
//! that drives QREQn as a clock or power controller would, and a protocol
//! checker for the handshake that `NpuTb` runs on both channels every cycle.

use crate::verilator::{Model, PortId};
use std::fmt;

/// The clock or the power Q-channel (TRM A.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QChannel {
    Clock,
    Power,
}

impl QChannel {
    pub const ALL: [QChannel; 2] = [QChannel::Clock, QChannel::Power];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The TRM's signal-name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            QChannel::Clock => "CLK",
            QChannel::Power => "PWR",
        }
    }
}

impl fmt::Display for QChannel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Q", self.prefix())
    }
}

/// Interface states of AMBA LPI, from (QREQn, QACCEPTn, QDENY).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QState {
    Run,
    Request,
    Stopped,
    Exit,
    Denied,
    Continue,
}

impl QState {
    /// The state of the wires, or `None` for QACCEPTn low with QDENY high,
    /// which no state has.
    pub fn of(qreq_n: bool, qaccept_n: bool, qdeny: bool) -> Option<QState> {
        Some(match (qreq_n, qaccept_n, qdeny) {
            (true, true, false) => QState::Run,
            (false, true, false) => QState::Request,
            (false, false, false) => QState::Stopped,
            (true, false, false) => QState::Exit,
            (false, true, true) => QState::Denied,
            (true, true, true) => QState::Continue,
            _ => return None,
        })
    }

    /// Transitions the protocol allows from this state (staying put is
    /// always allowed).
    fn may_become(self, next: QState) -> bool {
        use QState::*;
        next == self
            || matches!(
                (self, next),
                (Run, Request)
                    | (Request, Stopped)
                    | (Request, Denied)
                    | (Stopped, Exit)
                    | (Exit, Run)
                    | (Denied, Continue)
                    | (Continue, Run)
            )
    }
}

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
