//! The BLOCKDEP checker (TRM 4.9, "Block dependency"): watches a run's AXI
//! traffic and fails any IFM read that NPU_SET_BLOCKDEP forbids. "IFM block
//! read n in the kernel does not start until all OFM block writes of the
//! previous kernel operation, except max(k - n, 0), are complete and
//! written to memory."
//!
//! It works from the golden model's block footprints of each kernel
//! operation ([`BlockFootprints`], in stream order), not from anything the
//! RTL says:
//! - OFM block m of an operation is written once every byte of it has been
//!   written by an OFM burst (by its strobes: W beats pair with their AW in
//!   order) whose response has come; the operation's written blocks are its
//!   leading run of written ones.
//! - Each IFM read (the IFM channel's AXI IDs) belongs to the operation
//!   reading now while it touches that operation's IFM footprint, else to
//!   the first later operation whose footprint it touches; within it, to
//!   the first IFM block, from the one the reads have reached, that reads
//!   any of its bytes (the RTL reads its blocks in order, and a beat may
//!   hold bytes of later blocks too).
//! - With A the kernel operation before B, w of A's N OFM blocks written
//!   and B's BLOCKDEP k, B's block reads up to k - (N - w) may have started:
//!   a read of a later block fails.
//!
//! Where the footprints cannot tell, the check is looser, never stricter: a
//! read of bytes both A and B read counts as A's.

use crate::axi::{AxiSignals, BEAT_BYTES};
use npu_model::footprint::{BlockFootprints, Span};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ops::{Range, RangeInclusive};

/// Disjoint address ranges, each with a block index, by start address.
#[derive(Default)]
struct RangeMap(BTreeMap<u64, (u64, usize)>);

impl RangeMap {
    /// The entries that overlap `r`: (start, end, block).
    fn overlapping(&self, r: &Range<u64>) -> Vec<(u64, u64, usize)> {
        let before = self.0.range(..r.start).next_back();
        let from = self.0.range(r.start..r.end);
        before
            .into_iter()
            .chain(from)
            .filter(|(&start, &(end, _))| start < r.end && end > r.start)
            .map(|(&start, &(end, block))| (start, end, block))
            .collect()
    }

    /// Gives the parts of `r` no entry covers to `block`.
    fn fill(&mut self, r: Range<u64>, block: usize) {
        let mut at = r.start;
        for (start, end, _) in self.overlapping(&r) {
            if start > at {
                self.0.insert(at, (start, block));
            }
            at = at.max(end);
        }
        if at < r.end {
            self.0.insert(at, (r.end, block));
        }
    }
}

/// One kernel operation as the checker follows it.
struct Operation {
    offset: usize,
    blockdep: usize,
    /// Every byte of the IFM footprint with the first IFM block reading it.
    first_read: RangeMap,
    /// Each IFM block's bytes, sorted.
    ifm_blocks: Vec<Vec<Range<u64>>>,
    /// The IFM block the reads have reached: the RTL reads its blocks in
    /// order.
    reading: usize,
    /// OFM bytes not yet written, with their OFM block.
    unwritten: RangeMap,
    /// Unwritten bytes of each OFM block.
    unwritten_bytes: Vec<u64>,
    /// Leading OFM blocks written.
    written: usize,
}

impl Operation {
    fn new(offset: usize, blocks: &BlockFootprints, address: &dyn Fn(&Span) -> Range<u64>) -> Self {
        let ifm_blocks: Vec<Vec<Range<u64>>> = blocks
            .ifm_reads
            .iter()
            .map(|spans| {
                let mut ranges: Vec<Range<u64>> = spans.iter().map(address).collect();
                ranges.sort_by_key(|r| r.start);
                ranges
            })
            .collect();
        let mut first_read = RangeMap::default();
        for (n, ranges) in ifm_blocks.iter().enumerate() {
            for r in ranges {
                first_read.fill(r.clone(), n);
            }
        }
        let mut unwritten = RangeMap::default();
        let mut unwritten_bytes = Vec::new();
        for (m, spans) in blocks.ofm_writes.iter().enumerate() {
            let mut bytes = 0;
            for span in spans {
                let r = address(span);
                bytes += r.end - r.start;
                unwritten.fill(r, m);
            }
            unwritten_bytes.push(bytes);
        }
        let mut op = Self {
            offset,
            blockdep: blocks.blockdep,
            first_read,
            ifm_blocks,
            reading: 0,
            unwritten,
            unwritten_bytes,
            written: 0,
        };
        op.count_written();
        op
    }

    fn count_written(&mut self) {
        while self.unwritten_bytes.get(self.written) == Some(&0) {
            self.written += 1;
        }
    }

    fn writes(&self, r: &Range<u64>) -> bool {
        !self.unwritten.overlapping(r).is_empty()
    }

    /// Takes an answered write of `r`.
    fn written(&mut self, r: &Range<u64>) {
        for (start, end, m) in self.unwritten.overlapping(r) {
            self.unwritten.0.remove(&start);
            if start < r.start {
                self.unwritten.0.insert(start, (r.start, m));
            }
            if end > r.end {
                self.unwritten.0.insert(r.end, (end, m));
            }
            self.unwritten_bytes[m] -= end.min(r.end) - start.max(r.start);
        }
        self.count_written();
    }

    /// The IFM block a read of `r` belongs to, if `r` touches the
    /// operation's IFM footprint: the first block from the one the reads
    /// have reached that reads any of `r` (a read moves whole beats, so it
    /// may hold bytes of later blocks too).
    fn read_block(&mut self, r: &Range<u64>) -> Option<usize> {
        let first = self
            .first_read
            .overlapping(r)
            .iter()
            .map(|&(_, _, n)| n)
            .min()?;
        let touches = |ranges: &[Range<u64>]| {
            let i = ranges.partition_point(|x| x.end <= r.start);
            ranges.get(i).is_some_and(|x| x.start < r.end)
        };
        let n = (self.reading..self.ifm_blocks.len())
            .find(|&n| touches(&self.ifm_blocks[n]))
            .unwrap_or(first);
        self.reading = n;
        Some(n)
    }
}

/// Follows one run's kernel operations through both AXI ports.
pub struct BlockdepChecker {
    operations: Vec<Operation>,
    /// The operations whose IFM reads and OFM writes are going on.
    reading: usize,
    writing: usize,
    ifm_ids: RangeInclusive<u8>,
    ofm_id: u8,
    /// Each port's write bursts.
    writes: [PortWrites; 2],
}

/// The write bursts of one port, paired with their data (AXI4 keeps W in
/// AW order) for the bytes their strobes write; the BLOCKDEP checker keeps
/// them until their responses.
#[derive(Default)]
pub(crate) struct PortWrites {
    /// Accepted addresses awaiting data: (ID, address, size).
    addresses: VecDeque<(u8, u64, u8)>,
    /// The strobes of the burst whose data is arriving, and of complete
    /// bursts awaiting their address.
    beats: Vec<u16>,
    data: VecDeque<Vec<u16>>,
    /// Bursts with both address and data, not yet taken: (ID, bytes).
    paired: VecDeque<(u8, Vec<Range<u64>>)>,
    /// Bytes each burst writes, awaiting its response, by ID, oldest first.
    unanswered: HashMap<u8, VecDeque<Vec<Range<u64>>>>,
}

impl PortWrites {
    /// Takes one clock edge's handshakes.
    pub(crate) fn edge(&mut self, s: &AxiSignals) {
        if s.aw_fire() {
            self.addresses.push_back((s.awid, s.awaddr, s.awsize));
        }
        if s.w_fire() {
            self.beats.push(s.wstrb);
            if s.wlast {
                self.data.push_back(std::mem::take(&mut self.beats));
            }
        }
        while !self.addresses.is_empty() && !self.data.is_empty() {
            let (id, address, size) = self.addresses.pop_front().expect("checked");
            let strobes = self.data.pop_front().expect("checked");
            self.paired
                .push_back((id, strobed_bytes(address, size, &strobes)));
        }
    }

    /// The bytes of the next burst whose address and data are both in.
    pub(crate) fn completed(&mut self) -> Option<Vec<Range<u64>>> {
        self.paired.pop_front().map(|(_, bytes)| bytes)
    }

    /// Moves the paired bursts to await their responses.
    fn await_responses(&mut self) {
        while let Some((id, bytes)) = self.paired.pop_front() {
            self.unanswered.entry(id).or_default().push_back(bytes);
        }
    }

    /// The bytes of the burst a response of `id` answers.
    fn answered(&mut self, id: u8) -> Option<Vec<Range<u64>>> {
        self.unanswered.get_mut(&id)?.pop_front()
    }
}

/// The bytes an incrementing burst's strobes write, as ranges.
fn strobed_bytes(address: u64, size: u8, strobes: &[u16]) -> Vec<Range<u64>> {
    let step = 1u64 << size;
    let mut out: Vec<Range<u64>> = Vec::new();
    for (i, &strobe) in strobes.iter().enumerate() {
        let beat = if i == 0 {
            address
        } else {
            (address & !(step - 1)) + i as u64 * step
        };
        let lanes = beat & !(BEAT_BYTES as u64 - 1);
        for lane in (0..BEAT_BYTES as u64).filter(|&j| strobe >> j & 1 != 0) {
            let byte = lanes + lane;
            match out.last_mut() {
                Some(last) if last.end == byte => last.end += 1,
                _ => out.push(byte..byte + 1),
            }
        }
    }
    out
}

impl BlockdepChecker {
    /// `operations`: each kernel operation's command offset and footprints,
    /// in stream order; `address` gives a footprint span's AXI addresses.
    pub fn new(
        operations: &[(usize, BlockFootprints)],
        address: &dyn Fn(&Span) -> Range<u64>,
        ifm_ids: RangeInclusive<u8>,
        ofm_id: u8,
    ) -> Self {
        Self {
            operations: operations
                .iter()
                .map(|(offset, blocks)| Operation::new(*offset, blocks, address))
                .collect(),
            reading: 0,
            writing: 0,
            ifm_ids,
            ofm_id,
            writes: Default::default(),
        }
    }

    /// Takes the handshakes of one clock edge of `port`; an error names the
    /// read the rule forbids.
    pub fn edge(&mut self, port: usize, s: &AxiSignals, cycle: u64) -> Result<(), String> {
        // Reads before this edge's responses: a read cannot have waited on them.
        if s.ar_fire() && self.ifm_ids.contains(&s.arid) {
            self.read(burst(s.araddr, s.arlen, s.arsize), cycle)?;
        }
        let writes = &mut self.writes[port];
        writes.edge(s);
        writes.await_responses();
        if s.b_fire() {
            let bytes = writes.answered(s.bid).ok_or_else(|| {
                format!("BLOCKDEP checker: a write response on M{port} before its burst's data")
            })?;
            if s.bid == self.ofm_id {
                self.write_answered(&bytes);
            }
        }
        Ok(())
    }

    fn write_answered(&mut self, bytes: &[Range<u64>]) {
        let writes = |op: &Operation| bytes.iter().any(|r| op.writes(r));
        let Some(at) = (self.writing..self.operations.len()).find(|&i| writes(&self.operations[i]))
        else {
            // Bytes written before.
            return;
        };
        self.writing = at;
        for r in bytes {
            self.operations[at].written(r);
        }
    }

    fn read(&mut self, r: Range<u64>, cycle: u64) -> Result<(), String> {
        let found = (self.reading..self.operations.len())
            .find_map(|i| self.operations[i].read_block(&r).map(|n| (i, n)));
        let Some((b, n)) = found else {
            return Err(format!(
                "BLOCKDEP checker: an IFM read of {:#x}..{:#x} at cycle {cycle} lies in no later \
                 kernel operation's IFM",
                r.start, r.end
            ));
        };
        self.reading = b;
        let Some(a) = b.checked_sub(1).map(|a| &self.operations[a]) else {
            return Ok(());
        };
        let ob = &self.operations[b];
        let unwritten = a.unwritten_bytes.len() - a.written;
        let allowed = ob.blockdep as i64 - unwritten as i64;
        if unwritten > 0 && n as i64 > allowed {
            return Err(format!(
                "BLOCKDEP checker: at cycle {cycle} the operation at {:#x} (BLOCKDEP {}) reads \
                 {:#x}..{:#x} (IFM block {n}) while {unwritten} of the {} OFM blocks of \
                 the operation at {:#x} are not written: TRM 4.9 allows {}",
                ob.offset,
                ob.blockdep,
                r.start,
                r.end,
                a.unwritten_bytes.len(),
                a.offset,
                if allowed < 0 {
                    "none of its block reads yet".to_string()
                } else {
                    format!("block reads up to {allowed}")
                }
            ));
        }
        Ok(())
    }
}

/// The bytes an incrementing burst covers.
pub(crate) fn burst(address: u64, len: u8, size: u8) -> Range<u64> {
    let step = 1u64 << size;
    let first = address & !(step - 1);
    address..first + (u64::from(len) + 1) * step
}
