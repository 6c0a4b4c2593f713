//! The bounds watcher: every byte the RTL reads or writes on M0 and M1 lies
//! inside what the stream checker (`npu_model::check`) allows the job: a
//! read beat must touch a byte some operation may read (a read moves whole
//! beats; the command stream counts as read), and every byte a write's
//! strobes write must be one some operation may write. An access outside
//! fails the run, naming the nearest allowed range's operation.
//!
//! It also keeps what the run touched, so the checker's slack (bytes it
//! allows that no access touches) can be measured ([`BoundsWatcher::slack`]).

use crate::axi::{AxiSignals, BEAT_BYTES};
use crate::blockdep::{burst, PortWrites};
use npu_model::access::Access;
use npu_model::check::StreamCheck;
use npu_model::footprint::joined;
use std::collections::BTreeMap;
use std::ops::Range;

/// Who may touch a range: the operation's command offset, its name and the
/// tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub offset: usize,
    pub operation: String,
    pub role: String,
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at {:#x} ({})",
            self.operation, self.offset, self.role
        )
    }
}

/// Disjoint AXI address ranges with an owner each, by start.
#[derive(Default)]
struct Allowed(BTreeMap<u64, (u64, usize)>);

impl Allowed {
    fn new(mut ranges: Vec<(Range<u64>, usize)>) -> Allowed {
        ranges.sort_by_key(|(r, _)| r.start);
        let mut map: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
        let mut last: Option<(u64, u64, usize)> = None;
        for (r, owner) in ranges.into_iter().filter(|(r, _)| r.start < r.end) {
            match &mut last {
                Some((_, end, _)) if r.start <= *end => *end = (*end).max(r.end),
                _ => {
                    if let Some((s, e, o)) = last.take() {
                        map.insert(s, (e, o));
                    }
                    last = Some((r.start, r.end, owner));
                }
            }
        }
        if let Some((s, e, o)) = last {
            map.insert(s, (e, o));
        }
        Allowed(map)
    }

    /// Whether any byte of `r` is allowed.
    fn touches(&self, r: &Range<u64>) -> bool {
        self.0
            .range(..r.end)
            .next_back()
            .is_some_and(|(_, &(end, _))| end > r.start)
    }

    /// The first byte of `r` not allowed.
    fn first_outside(&self, r: &Range<u64>) -> Option<u64> {
        let mut at = r.start;
        while at < r.end {
            match self.0.range(..=at).next_back() {
                Some((_, &(end, _))) if end > at => at = end,
                _ => return Some(at),
            }
        }
        None
    }

    /// The owner of the allowed range nearest `at`.
    fn nearest(&self, at: u64) -> Option<(Range<u64>, usize)> {
        let before = self.0.range(..=at).next_back();
        let after = self.0.range(at..).next();
        let distance = |(&s, &(e, _)): (&u64, &(u64, usize))| {
            if at < s {
                s - at
            } else {
                at.saturating_sub(e)
            }
        };
        [before, after]
            .into_iter()
            .flatten()
            .min_by_key(|&(s, e)| distance((s, e)))
            .map(|(&s, &(e, o))| (s..e, o))
    }
}

/// Watches one run's AXI traffic against the checker's ranges.
pub struct BoundsWatcher {
    owners: Vec<Owner>,
    reads: Allowed,
    writes: Allowed,
    /// Each range the checker allows, with whether it is a write.
    ranges: Vec<(Range<u64>, usize, bool)>,
    port_writes: [PortWrites; 2],
    /// What the run read (whole beats) and wrote (strobed bytes).
    read: Vec<Range<u64>>,
    written: Vec<Range<u64>>,
}

impl BoundsWatcher {
    /// The watcher of a run of a stream that passed the checker with
    /// `check`; `address` gives a region offset's AXI address, and
    /// `command_stream` the stream's own bytes.
    pub fn new(
        check: &StreamCheck,
        address: &dyn Fn(usize, i64) -> u64,
        command_stream: Range<u64>,
    ) -> BoundsWatcher {
        let mut owners = vec![Owner {
            offset: 0,
            operation: "the command stream".into(),
            role: "its words".into(),
        }];
        let mut ranges = vec![(command_stream, 0, false)];
        for op in &check.operations {
            for Access {
                role,
                region,
                write,
                bytes,
            } in &op.accesses
            {
                owners.push(Owner {
                    offset: op.offset,
                    operation: op.operation.clone(),
                    role: role.to_string(),
                });
                let owner = owners.len() - 1;
                for r in bytes {
                    ranges.push((
                        address(*region, r.start)..address(*region, r.end),
                        owner,
                        *write,
                    ));
                }
            }
        }
        let side = |write: bool| {
            Allowed::new(
                ranges
                    .iter()
                    .filter(|(_, _, w)| *w == write)
                    .map(|(r, o, _)| (r.clone(), *o))
                    .collect(),
            )
        };
        BoundsWatcher {
            reads: side(false),
            writes: side(true),
            owners,
            ranges,
            port_writes: Default::default(),
            read: Vec::new(),
            written: Vec::new(),
        }
    }

    /// Takes the handshakes of one clock edge of `port`; an error names the
    /// access outside the checker's ranges.
    pub fn edge(&mut self, port: usize, s: &AxiSignals, cycle: u64) -> Result<(), String> {
        if s.ar_fire() {
            let bytes = burst(s.araddr, s.arlen, s.arsize);
            let beat = BEAT_BYTES as u64;
            let mut at = bytes.start;
            while at < bytes.end {
                let end = ((at / beat + 1) * beat).min(bytes.end);
                if !self.reads.touches(&(at..end)) {
                    return Err(self.outside(port, "reads", at..end, at, &self.reads, cycle));
                }
                self.read.push(at..end);
                at = end;
            }
        }
        self.port_writes[port].edge(s);
        while let Some(bytes) = self.port_writes[port].completed() {
            for r in bytes {
                if let Some(first) = self.writes.first_outside(&r) {
                    return Err(self.outside(port, "writes", r, first, &self.writes, cycle));
                }
                self.written.push(r);
            }
        }
        Ok(())
    }

    fn outside(
        &self,
        port: usize,
        what: &str,
        r: Range<u64>,
        first: u64,
        allowed: &Allowed,
        cycle: u64,
    ) -> String {
        let nearest = allowed.nearest(first).map_or_else(
            || "no range is allowed".to_string(),
            |(n, o)| {
                format!(
                    "the nearest allowed is {} [{:#x}, {:#x})",
                    self.owners[o], n.start, n.end
                )
            },
        );
        format!(
            "bounds watcher: at cycle {cycle} M{port} {what} [{:#x}, {:#x}): byte {first:#x} is \
             outside every range the stream checker allows; {nearest}",
            r.start, r.end
        )
    }

    /// Bytes the run read (whole beats) and wrote.
    pub fn touched(&self) -> u64 {
        [&self.read, &self.written]
            .into_iter()
            .map(|side| {
                joined(side.clone())
                    .iter()
                    .map(|r| r.end - r.start)
                    .sum::<u64>()
            })
            .sum()
    }

    /// Bytes the checker allows that the run touched none of, by operation
    /// (its name, with the tensor) and side: what the checker's ranges give
    /// beyond the traffic.
    pub fn slack(&self) -> BTreeMap<(String, bool), Slack> {
        let read = joined(self.read.clone());
        let written = joined(self.written.clone());
        let mut out: BTreeMap<(String, bool), Slack> = BTreeMap::new();
        for (r, owner, write) in &self.ranges {
            let touched = if *write { &written } else { &read };
            let used = overlap_bytes(touched, r);
            let owner = &self.owners[*owner];
            let entry = out
                .entry((format!("{} {}", owner.operation, owner.role), *write))
                .or_default();
            entry.allowed += r.end - r.start;
            entry.untouched += (r.end - r.start) - used;
        }
        out
    }
}

/// The checker's ranges and what a run left untouched in them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slack {
    pub allowed: u64,
    pub untouched: u64,
}

/// The checker's slack summed over runs, by operation and tensor and side.
#[derive(Clone, Debug, Default)]
pub struct SlackTally(pub BTreeMap<(String, bool), Slack>);

impl SlackTally {
    pub fn add(&mut self, watcher: &BoundsWatcher) {
        for (key, s) in watcher.slack() {
            let entry = self.0.entry(key).or_default();
            entry.allowed += s.allowed;
            entry.untouched += s.untouched;
        }
    }

    pub fn merge(&mut self, other: &SlackTally) {
        for (key, s) in &other.0 {
            let entry = self.0.entry(key.clone()).or_default();
            entry.allowed += s.allowed;
            entry.untouched += s.untouched;
        }
    }
}

/// Bytes of `r` inside the sorted, disjoint `ranges`.
fn overlap_bytes(ranges: &[Range<u64>], r: &Range<u64>) -> u64 {
    let first = ranges.partition_point(|x| x.end <= r.start);
    ranges[first..]
        .iter()
        .take_while(|x| x.start < r.end)
        .map(|x| x.end.min(r.end) - x.start.max(r.start))
        .sum()
}
