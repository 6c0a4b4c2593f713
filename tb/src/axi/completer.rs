//! An AXI4 memory completer: configurable latency, random READY
//! back-pressure, responses interleaved and reordered across IDs, and error
//! injection by address range.

use super::signals::{AxiSignals, Resp, BEAT_BYTES};
use super::AddressSpace;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeSet, VecDeque};
use std::ops::Range;

/// Accesses touching `range` answer `resp`; erroneous writes change no memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorRange {
    pub range: Range<u64>,
    pub resp: Resp,
}

#[derive(Clone, Debug)]
pub struct CompleterConfig {
    /// Cycles from an accepted AR to its first data beat.
    pub read_latency: u64,
    /// Cycles from the last write beat of a burst to its response.
    pub write_latency: u64,
    /// Probability that AWREADY, WREADY or ARREADY is high in a cycle.
    pub ready_probability: f64,
    /// Probability that a response ready to go is presented in a cycle.
    pub response_probability: f64,
    /// Interleave read beats and reorder responses across IDs (never within one ID).
    pub reorder: bool,
    pub errors: Vec<ErrorRange>,
    /// Where memory exists, if not everywhere: a burst not inside one of
    /// these ranges answers DECERR, as an interconnect with nothing there.
    pub address_map: Option<Vec<Range<u64>>>,
    /// Read and write transactions the memory holds at once (a timing
    /// adapter's `max_reads`/`max_writes`): ARREADY or AWREADY stays low
    /// while that many are outstanding.
    pub max_reads: Option<usize>,
    pub max_writes: Option<usize>,
    /// Data bytes per cycle the port moves, reads and writes together: a
    /// beat (16 bytes) moves only on credit earned at this rate, saved up to
    /// one 256-byte burst.
    pub bytes_per_cycle: Option<f64>,
}

impl CompleterConfig {
    /// A memory with random latency (0-1000 cycles, [`random_latency`]),
    /// back-pressure, response delays and reordering, and no errors: for
    /// randomized tests.
    pub fn random(rng: &mut impl Rng) -> Self {
        Self {
            read_latency: random_latency(rng),
            write_latency: random_latency(rng),
            ready_probability: rng.gen_range(0.3..=1.0),
            response_probability: rng.gen_range(0.3..=1.0),
            reorder: rng.gen_bool(0.5),
            errors: vec![],
            address_map: None,
            max_reads: None,
            max_writes: None,
            bytes_per_cycle: None,
        }
    }

    /// A zero-latency memory that never stalls.
    pub fn ideal() -> Self {
        Self {
            read_latency: 0,
            write_latency: 0,
            ready_probability: 1.0,
            response_probability: 1.0,
            reorder: false,
            errors: vec![],
            address_map: None,
            max_reads: None,
            max_writes: None,
            bytes_per_cycle: None,
        }
    }

    /// True when the completer draws random numbers: the seed matters.
    pub fn is_random(&self) -> bool {
        self.ready_probability < 1.0 || self.response_probability < 1.0 || self.reorder
    }
}

/// Each port's latency, outstanding limits and bandwidth, in one line
/// (`m0 ...; m1 ...`).
pub fn describe_ports(ports: &[CompleterConfig; 2]) -> String {
    let limit = |n: Option<usize>| n.map_or("unlimited".to_string(), |n| n.to_string());
    let port = |(k, c): (usize, &CompleterConfig)| {
        format!(
            "m{k} read latency {}, write latency {}, {} reads and {} writes outstanding, {} bytes a cycle",
            c.read_latency,
            c.write_latency,
            limit(c.max_reads),
            limit(c.max_writes),
            c.bytes_per_cycle.map_or("16".to_string(), |b| format!("{b:.1}"))
        )
    };
    ports
        .iter()
        .enumerate()
        .map(port)
        .collect::<Vec<_>>()
        .join("; ")
}

/// A memory latency from 0 to 1000 cycles: mostly short (0-23: every
/// cycle-level interleaving of the channels), often an SRAM's or a DRAM's
/// (24-250), at times a slow DRAM's or flash's (251-1000, as far as Vela's
/// `vela.ini` systems go and beyond).
pub fn random_latency(rng: &mut impl Rng) -> u64 {
    match rng.gen_range(0..10) {
        0..=5 => rng.gen_range(0..24),
        6..=8 => rng.gen_range(24..=250),
        _ => rng.gen_range(251..=1000),
    }
}

/// Traffic the completer has served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub read_transactions: u64,
    pub write_transactions: u64,
    pub read_beats: u64,
    pub write_beats: u64,
    /// Bytes of read beats that the burst's address range covers.
    pub bytes_read: u64,
    /// Bytes written with their strobe set.
    pub bytes_written: u64,
    /// Clock edges (with ACLKEN high) with ARVALID, AWVALID or WVALID high
    /// and the completer's READY low.
    pub read_address_stalls: u64,
    pub write_address_stalls: u64,
    pub write_data_stalls: u64,
}

impl Counters {
    /// Every counter with its name, for reports.
    pub fn named(&self) -> [(&'static str, u64); 9] {
        [
            ("read_transactions", self.read_transactions),
            ("read_beats", self.read_beats),
            ("bytes_read", self.bytes_read),
            ("read_address_stalls", self.read_address_stalls),
            ("write_transactions", self.write_transactions),
            ("write_beats", self.write_beats),
            ("bytes_written", self.bytes_written),
            ("write_address_stalls", self.write_address_stalls),
            ("write_data_stalls", self.write_data_stalls),
        ]
    }

    /// What was served since `earlier`, a snapshot of the same completer.
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            read_transactions: self.read_transactions - earlier.read_transactions,
            write_transactions: self.write_transactions - earlier.write_transactions,
            read_beats: self.read_beats - earlier.read_beats,
            write_beats: self.write_beats - earlier.write_beats,
            bytes_read: self.bytes_read - earlier.bytes_read,
            bytes_written: self.bytes_written - earlier.bytes_written,
            read_address_stalls: self.read_address_stalls - earlier.read_address_stalls,
            write_address_stalls: self.write_address_stalls - earlier.write_address_stalls,
            write_data_stalls: self.write_data_stalls - earlier.write_data_stalls,
        }
    }
}

/// The attributes a manager gave one transaction: which channel (write or
/// read), its ID, AxCACHE and AxPROT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Attributes {
    pub write: bool,
    pub id: u8,
    pub cache: u8,
    pub prot: u8,
}

#[derive(Clone, Debug)]
struct Burst {
    id: u8,
    addr: u64,
    len: u8,
    size: u8,
    resp: Resp,
    beat: u8,
    ready_at: u64,
    /// Bytes written so far with their strobe set (writes).
    written: u64,
}

impl Burst {
    /// Address of beat `k` of an INCR burst.
    fn beat_addr(&self, k: u8) -> u64 {
        let step = 1u64 << self.size;
        if k == 0 {
            self.addr
        } else {
            (self.addr & !(step - 1)) + u64::from(k) * step
        }
    }
    /// Bytes of beat `k` that the burst covers.
    fn beat_bytes(&self, k: u8) -> u64 {
        let step = 1u64 << self.size;
        let a = self.beat_addr(k);
        step - (a & (step - 1))
    }
    fn end(&self) -> u64 {
        self.beat_addr(self.len) + self.beat_bytes(self.len)
    }
}

#[derive(Clone, Debug)]
struct Response {
    id: u8,
    resp: Resp,
    ready_at: u64,
    /// The burst's bytes written with their strobe set.
    written: u64,
}

/// Bytes of one beat, the credit it takes (`bytes_per_cycle`).
const BEAT_CREDIT: f64 = BEAT_BYTES as f64;
/// The most credit saved up: one 256-byte burst.
const MAX_CREDIT: f64 = 256.0;

/// Bytes a port moved per transaction ID, counted as [`Counters`]
/// `bytes_read` (by ARID) and `bytes_written` (by AWID) are; `answered`
/// counts the written bytes again as their burst's write response is
/// given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BytesById {
    pub read: [u64; 256],
    pub written: [u64; 256],
    pub answered: [u64; 256],
}

impl Default for BytesById {
    fn default() -> Self {
        Self {
            read: [0; 256],
            written: [0; 256],
            answered: [0; 256],
        }
    }
}

/// Serves one AXI port from an [`AddressSpace`].
pub struct AxiCompleter {
    pub config: CompleterConfig,
    pub counters: Counters,
    pub bytes_by_id: Box<BytesById>,
    /// Every distinct set of attributes seen on an accepted AR or AW.
    pub attributes: BTreeSet<Attributes>,
    rng: StdRng,
    cycle: u64,
    reads: Vec<Burst>,
    writes: VecDeque<Burst>,
    early_beats: VecDeque<([u8; BEAT_BYTES], u16)>,
    responses: Vec<Response>,
    presented_read: Option<usize>,
    /// Data of the presented read beat, taken when it was chosen so it holds still.
    presented_data: [u8; BEAT_BYTES],
    presented_write: Option<usize>,
    readies: (bool, bool, bool),
    /// Bandwidth credit in bytes (`bytes_per_cycle`).
    credit: f64,
}

impl AxiCompleter {
    pub fn new(config: CompleterConfig, seed: u64) -> Self {
        Self {
            config,
            counters: Counters::default(),
            bytes_by_id: Box::default(),
            attributes: BTreeSet::new(),
            rng: StdRng::seed_from_u64(seed),
            cycle: 0,
            reads: vec![],
            writes: VecDeque::new(),
            early_beats: VecDeque::new(),
            responses: vec![],
            presented_read: None,
            presented_data: [0; BEAT_BYTES],
            presented_write: None,
            readies: (true, true, true),
            credit: MAX_CREDIT,
        }
    }

    /// Clock edges it has taken: those with ACLKEN high.
    pub fn enabled_cycles(&self) -> u64 {
        self.cycle
    }

    /// True when no transaction is in flight.
    pub fn idle(&self) -> bool {
        self.reads.is_empty()
            && self.writes.is_empty()
            && self.responses.is_empty()
            && self.early_beats.is_empty()
    }

    fn resp_for(&self, start: u64, end: u64) -> Resp {
        if let Some(map) = &self.config.address_map {
            if !map.iter().any(|r| r.start <= start && end <= r.end) {
                return Resp::DecErr;
            }
        }
        self.config
            .errors
            .iter()
            .find(|e| e.range.start < end && start < e.range.end)
            .map_or(Resp::Okay, |e| e.resp)
    }

    /// Drives the completer's wires for this cycle.
    pub fn drive(&self, s: &mut AxiSignals) {
        (s.awready, s.wready, s.arready) = self.readies;
        s.rvalid = false;
        s.bvalid = false;
        if let Some(i) = self.presented_read {
            let b = &self.reads[i];
            s.rvalid = true;
            s.rid = b.id;
            s.rresp = b.resp as u8;
            s.rlast = b.beat == b.len;
            s.rdata = self.presented_data;
        }
        if let Some(i) = self.presented_write {
            let r = &self.responses[i];
            s.bvalid = true;
            s.bid = r.id;
            s.bresp = r.resp as u8;
        }
    }

    /// Takes the handshakes of a clock edge and chooses the next cycle's outputs.
    pub fn edge(&mut self, s: &AxiSignals, memory: &mut AddressSpace) {
        self.counters.read_address_stalls += u64::from(s.arvalid && !s.arready);
        self.counters.write_address_stalls += u64::from(s.awvalid && !s.awready);
        self.counters.write_data_stalls += u64::from(s.wvalid && !s.wready);
        if s.ar_fire() {
            let mut b = Burst {
                id: s.arid,
                addr: s.araddr,
                len: s.arlen,
                size: s.arsize,
                resp: Resp::Okay,
                beat: 0,
                written: 0,
                ready_at: self.cycle + self.config.read_latency,
            };
            b.resp = self.resp_for(b.addr, b.end());
            self.reads.push(b);
            self.attributes.insert(Attributes {
                write: false,
                id: s.arid,
                cache: s.arcache,
                prot: s.arprot,
            });
            self.counters.read_transactions += 1;
        }
        if let Some(rate) = self.config.bytes_per_cycle {
            self.credit = (self.credit + rate).min(MAX_CREDIT);
        }
        if s.r_fire() {
            self.credit -= BEAT_CREDIT;
            let i = self
                .presented_read
                .take()
                .expect("R handshake without a presented beat");
            let b = &mut self.reads[i];
            let bytes = b.beat_bytes(b.beat);
            self.counters.read_beats += 1;
            self.counters.bytes_read += bytes;
            self.bytes_by_id.read[usize::from(b.id)] += bytes;
            if b.beat == b.len {
                self.reads.remove(i);
            } else {
                b.beat += 1;
            }
        }
        if s.aw_fire() {
            let mut b = Burst {
                id: s.awid,
                addr: s.awaddr,
                len: s.awlen,
                size: s.awsize,
                resp: Resp::Okay,
                beat: 0,
                written: 0,
                ready_at: 0,
            };
            b.resp = self.resp_for(b.addr, b.end());
            self.writes.push_back(b);
            self.attributes.insert(Attributes {
                write: true,
                id: s.awid,
                cache: s.awcache,
                prot: s.awprot,
            });
            self.counters.write_transactions += 1;
        }
        if s.w_fire() {
            self.credit -= BEAT_CREDIT;
            self.early_beats.push_back((s.wdata, s.wstrb));
            self.counters.write_beats += 1;
        }
        self.apply_write_beats(memory);
        if s.b_fire() {
            let i = self
                .presented_write
                .take()
                .expect("B handshake without a presented response");
            let response = self.responses.remove(i);
            self.bytes_by_id.answered[usize::from(response.id)] += response.written;
        }
        self.cycle += 1;
        self.choose_outputs(memory);
    }

    /// Writes beats whose burst address is known, in order.
    fn apply_write_beats(&mut self, memory: &mut AddressSpace) {
        while let (Some(burst), Some(&(data, strb))) =
            (self.writes.front_mut(), self.early_beats.front())
        {
            self.early_beats.pop_front();
            let base = burst.beat_addr(burst.beat) & !(BEAT_BYTES as u64 - 1);
            for lane in 0..BEAT_BYTES {
                if strb >> lane & 1 == 1 {
                    if burst.resp == Resp::Okay {
                        memory.write(base + lane as u64, &data[lane..=lane]);
                    }
                    self.counters.bytes_written += 1;
                    self.bytes_by_id.written[usize::from(burst.id)] += 1;
                    burst.written += 1;
                }
            }
            if burst.beat == burst.len {
                let done = self.writes.pop_front().expect("front exists");
                self.responses.push(Response {
                    id: done.id,
                    resp: done.resp,
                    ready_at: self.cycle + self.config.write_latency,
                    written: done.written,
                });
            } else {
                burst.beat += 1;
            }
        }
    }

    /// Picks, among items ready now, the oldest of each ID; one at random when reordering.
    fn pick<T>(
        &mut self,
        items: &[T],
        id: impl Fn(&T) -> u8,
        ready_at: impl Fn(&T) -> u64,
    ) -> Option<usize> {
        let mut candidates: Vec<usize> = vec![];
        for (i, item) in items.iter().enumerate() {
            let first_of_id = !items[..i].iter().any(|o| id(o) == id(item));
            if first_of_id && ready_at(item) <= self.cycle {
                candidates.push(i);
            }
        }
        if candidates.is_empty() || !self.rng.gen_bool(self.config.response_probability) {
            return None;
        }
        if self.config.reorder {
            Some(candidates[self.rng.gen_range(0..candidates.len())])
        } else {
            candidates.first().copied().filter(|&i| i == 0)
        }
    }

    fn choose_outputs(&mut self, memory: &AddressSpace) {
        let p = self.config.ready_probability;
        self.readies = (
            self.rng.gen_bool(p),
            self.rng.gen_bool(p),
            self.rng.gen_bool(p),
        );
        if let Some(n) = self.config.max_writes {
            self.readies.0 &= self.writes.len() + self.responses.len() < n;
        }
        if let Some(n) = self.config.max_reads {
            self.readies.2 &= self.reads.len() < n;
        }
        // Without bandwidth credit no new data beat moves.
        let credit = self.config.bytes_per_cycle.is_none() || self.credit >= BEAT_CREDIT;
        self.readies.1 &= credit;
        // A presented beat or response stays until its handshake (AXI VALID rule).
        if self.presented_read.is_none() && credit {
            let reads = std::mem::take(&mut self.reads);
            self.presented_read = self.pick(&reads, |b| b.id, |b| b.ready_at);
            self.reads = reads;
            if let Some(i) = self.presented_read {
                let b = &self.reads[i];
                memory.read(
                    b.beat_addr(b.beat) & !(BEAT_BYTES as u64 - 1),
                    &mut self.presented_data,
                );
            }
        }
        if self.presented_write.is_none() {
            let responses = std::mem::take(&mut self.responses);
            self.presented_write = self.pick(&responses, |r| r.id, |r| r.ready_at);
            self.responses = responses;
        }
    }
}
