//! The AXI4 memory completer and protocol monitor, driven by a scripted Rust
//! manager: data integrity under latency, back-pressure and reordering,
//! error injection, counters, and the monitor catching each rule it checks.

use npu_tb::axi::{
    AddressSpace, AxiCompleter, AxiLimits, AxiMonitor, AxiPort, AxiSignals, CompleterConfig,
    CountersInUse, ErrorRange, Resp, BEAT_BYTES,
};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

#[derive(Clone, Debug)]
struct Txn {
    seq: usize,
    write: bool,
    id: u8,
    addr: u64,
    beats: u8,
    data: Vec<u8>,
}

/// Issues one address at a time, write data after its address; a read waits
/// until every earlier write has its response, so reads see all writes.
struct Manager {
    pending: VecDeque<Txn>,
    ar: Option<Txn>,
    aw: Option<Txn>,
    w: VecDeque<(Txn, u8)>,
    reads_seen: HashMap<u8, VecDeque<Vec<u8>>>,
    read_results: Vec<(Txn, Vec<u8>, Resp)>,
    write_results: Vec<(u8, Resp)>,
    writes_issued: usize,
    rready_p: f64,
}

impl Manager {
    fn new(txns: Vec<Txn>, rready_p: f64) -> Self {
        Self {
            pending: txns.into(),
            ar: None,
            aw: None,
            w: VecDeque::new(),
            reads_seen: HashMap::new(),
            read_results: vec![],
            write_results: vec![],
            writes_issued: 0,
            rready_p,
        }
    }

    fn drive(&mut self, s: &mut AxiSignals, rng: &mut StdRng) {
        let writes_in_flight = self.aw.is_some()
            || !self.w.is_empty()
            || self.write_results.len() < self.writes_issued;
        let next_is_read = self.pending.front().is_some_and(|t| !t.write);
        if self.ar.is_none() && self.aw.is_none() && !(next_is_read && writes_in_flight) {
            if let Some(t) = self.pending.pop_front() {
                if t.write {
                    self.writes_issued += 1;
                    self.aw = Some(t);
                } else {
                    self.ar = Some(t);
                }
            }
        }
        s.arvalid = self.ar.is_some();
        if let Some(t) = &self.ar {
            (s.arid, s.araddr, s.arlen, s.arsize, s.arburst) = (t.id, t.addr, t.beats - 1, 4, 1);
        }
        s.awvalid = self.aw.is_some();
        if let Some(t) = &self.aw {
            (s.awid, s.awaddr, s.awlen, s.awsize, s.awburst) = (t.id, t.addr, t.beats - 1, 4, 1);
        }
        s.wvalid = !self.w.is_empty();
        if let Some((t, k)) = self.w.front() {
            let k = *k as usize;
            s.wdata
                .copy_from_slice(&t.data[k * BEAT_BYTES..(k + 1) * BEAT_BYTES]);
            s.wstrb = 0xFFFF;
            s.wlast = k + 1 == t.beats as usize;
        }
        s.rready = rng.gen_bool(self.rready_p);
        s.bready = rng.gen_bool(self.rready_p);
    }

    fn edge(&mut self, s: &AxiSignals, reads: &HashMap<u8, VecDeque<Txn>>) {
        if s.ar_fire() {
            self.ar = None;
        }
        if s.aw_fire() {
            let t = self.aw.take().unwrap();
            for k in 0..t.beats {
                self.w.push_back((t.clone(), k));
            }
        }
        if s.w_fire() {
            self.w.pop_front();
        }
        if s.r_fire() {
            let beats = self.reads_seen.entry(s.rid).or_default();
            if beats.is_empty() {
                beats.push_back(vec![]);
            }
            beats.back_mut().unwrap().extend_from_slice(&s.rdata);
            if s.rlast {
                let data = beats.pop_back().unwrap();
                let n = self
                    .read_results
                    .iter()
                    .filter(|(t, ..)| t.id == s.rid)
                    .count();
                let txn = reads[&s.rid][n].clone();
                self.read_results.push((
                    txn,
                    data,
                    if s.rresp == 2 {
                        Resp::SlvErr
                    } else {
                        Resp::Okay
                    },
                ));
            }
        }
        if s.b_fire() {
            self.write_results.push((
                s.bid,
                if s.bresp == 2 {
                    Resp::SlvErr
                } else {
                    Resp::Okay
                },
            ));
        }
    }

    fn done(&self, total_reads: usize, total_writes: usize) -> bool {
        self.read_results.len() == total_reads && self.write_results.len() == total_writes
    }
}

fn random_txns(rng: &mut StdRng, n: usize) -> Vec<Txn> {
    (0..n)
        .map(|seq| {
            let beats = rng.gen_range(1..=16u8);
            let page = rng.gen_range(0..8u64) * 4096;
            let addr = page + rng.gen_range(0..(256 - beats as u64)) * 16;
            Txn {
                seq,
                write: rng.gen_bool(0.5),
                id: rng.gen_range(0..4),
                addr,
                beats,
                data: (0..beats as usize * BEAT_BYTES)
                    .map(|_| rng.gen())
                    .collect(),
            }
        })
        .collect()
}

/// Runs `txns` (writes first, then reads of the same addresses) and returns
/// the manager, the completer and the reference memory.
fn run(
    config: CompleterConfig,
    seed: u64,
    n: usize,
) -> (Manager, AxiCompleter, AddressSpace, Vec<Txn>) {
    run_checked(config, seed, n, AxiLimits::UNLIMITED).0
}

/// As [`run`], with the monitor checking `limits`; also returns the cycles taken.
fn run_checked(
    config: CompleterConfig,
    seed: u64,
    n: usize,
    limits: AxiLimits,
) -> ((Manager, AxiCompleter, AddressSpace, Vec<Txn>), u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut txns = random_txns(&mut rng, n);
    for t in txns.iter_mut() {
        t.write = true;
    }
    let reads: Vec<Txn> = txns
        .iter()
        .map(|t| Txn {
            write: false,
            data: vec![],
            ..t.clone()
        })
        .collect();
    let mut reference = AddressSpace::default();
    for t in &txns {
        reference.write(t.addr, &t.data);
    }
    let mut by_id: HashMap<u8, VecDeque<Txn>> = HashMap::new();
    for t in &reads {
        by_id.entry(t.id).or_default().push_back(t.clone());
    }
    let all: Vec<Txn> = txns.iter().cloned().chain(reads.iter().cloned()).collect();
    let mut manager = Manager::new(all.clone(), 0.7);
    let mut completer = AxiCompleter::new(config, seed);
    let mut monitor = AxiMonitor::new("M0", limits);
    let mut memory = AddressSpace::default();
    let mut cycles = 0;
    for _ in 0..100_000 {
        cycles += 1;
        let mut s = AxiSignals::default();
        completer.drive(&mut s);
        manager.drive(&mut s, &mut rng);
        monitor.edge(&s).unwrap();
        manager.edge(&s, &by_id);
        completer.edge(&s, &mut memory);
        if manager.done(n, n) && completer.idle() {
            break;
        }
    }
    assert!(manager.done(n, n), "transactions did not complete");
    ((manager, completer, memory, all), cycles)
}

/// The monitor's limits on a port are the sums of AXI_LIMITn's over the
/// counters REGIONCFG and QCONFIG send traffic to (TRM 4.2.8, 4.2.13-17):
/// a counter no region names adds nothing, the command stream's adds reads.
#[test]
fn monitor_limits_add_the_counters_in_use() {
    let limit = |reads: u32, writes: u32, max_beats: u32| {
        ((writes - 1) << 24) | ((reads - 1) << 16) | max_beats
    };
    let registers = [
        limit(4, 2, 0),
        limit(8, 3, 1),
        limit(16, 5, 0),
        limit(32, 7, 2),
    ];
    // Regions 0-3 on counter 1, 4-7 on counter 2; the command stream on 3.
    let regioncfg = 0b10_10_10_10_01_01_01_01;
    let used = CountersInUse::programmed(regioncfg, 3);
    assert_eq!(used.writes, [false, true, true, false]);
    assert_eq!(used.reads, [false, true, true, true]);
    let m0 = AxiLimits::programmed(AxiPort::M0, registers, used);
    assert_eq!((m0.reads, m0.writes, m0.write_split), (8, 3, 128));
    let m1 = AxiLimits::programmed(AxiPort::M1, registers, used);
    assert_eq!((m1.reads, m1.writes, m1.read_split), (16 + 32, 5, 256));
    let both = used.union(CountersInUse::programmed(0, 0));
    let m0 = AxiLimits::programmed(AxiPort::M0, registers, both);
    assert_eq!((m0.reads, m0.writes), (4 + 8, 2 + 3));
}

/// The memory-system limits `npu-sim --mem-outstanding/--mem-bandwidth` set:
/// the completer never holds more transactions than its limit (the monitor
/// checks the outstanding counts), and moves no more bytes per cycle than
/// its bandwidth after the one burst of saved credit.
#[test]
fn outstanding_and_bandwidth_limits_hold() {
    let seed = seed();
    let limits = AxiLimits {
        reads: 2,
        writes: 2,
        ..AxiLimits::UNLIMITED
    };
    let config = CompleterConfig {
        read_latency: 10,
        write_latency: 10,
        max_reads: Some(2),
        max_writes: Some(2),
        ..CompleterConfig::ideal()
    };
    run_checked(config, seed, 100, limits);

    for rate in [2.0, 5.5] {
        let config = CompleterConfig {
            bytes_per_cycle: Some(rate),
            ..CompleterConfig::ideal()
        };
        let ((_, completer, _, _), cycles) = run_checked(config, seed, 100, AxiLimits::UNLIMITED);
        let c = completer.counters;
        let bytes = 16.0 * (c.read_beats + c.write_beats) as f64;
        assert!(
            bytes <= rate * cycles as f64 + 256.0,
            "{bytes} bytes in {cycles} cycles at {rate} bytes per cycle"
        );
        assert!(
            bytes >= 0.8 * rate * cycles as f64,
            "{bytes} bytes in {cycles} cycles: far below {rate} bytes per cycle"
        );
    }
}

#[test]
fn data_survives_latency_back_pressure_and_reordering() {
    let seed = seed();
    let config = CompleterConfig {
        read_latency: 7,
        write_latency: 3,
        ready_probability: 0.6,
        response_probability: 0.7,
        reorder: true,
        errors: vec![],
        address_map: None,
        max_reads: None,
        max_writes: None,
        bytes_per_cycle: None,
    };
    let (manager, completer, memory, all) = run(config, seed, 200);
    for (txn, data, resp) in &manager.read_results {
        assert_eq!(*resp, Resp::Okay);
        assert_eq!(
            data,
            &memory.read_vec(txn.addr, data.len()),
            "read of {:#x}",
            txn.addr
        );
    }
    let beats: u64 = all
        .iter()
        .filter(|t| t.write)
        .map(|t| u64::from(t.beats))
        .sum();
    let c = completer.counters;
    assert_eq!((c.write_transactions, c.read_transactions), (200, 200));
    assert_eq!((c.write_beats, c.read_beats), (beats, beats));
    assert_eq!((c.bytes_written, c.bytes_read), (beats * 16, beats * 16));
}

/// Issue order of the reads in the order their data completed.
fn completion_order(manager: &Manager) -> Vec<(u8, usize)> {
    manager
        .read_results
        .iter()
        .map(|(t, ..)| (t.id, t.seq))
        .collect()
}

#[test]
fn reordering_across_ids_happens_and_never_within_an_id() {
    let seed = seed();
    let config = CompleterConfig {
        reorder: true,
        read_latency: 4,
        response_probability: 0.5,
        ..CompleterConfig::ideal()
    };
    let (manager, ..) = run(config, seed, 150);
    let order = completion_order(&manager);
    assert!(
        order.windows(2).any(|w| w[0].1 > w[1].1),
        "no read overtook an older one"
    );
    for id in 0..4 {
        let seqs: Vec<usize> = order
            .iter()
            .filter(|(i, _)| *i == id)
            .map(|(_, s)| *s)
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "ID {id} completed out of order: {seqs:?}"
        );
    }
    let config = CompleterConfig {
        reorder: false,
        read_latency: 4,
        response_probability: 0.5,
        ..CompleterConfig::ideal()
    };
    let (manager, ..) = run(config, seed, 150);
    assert!(
        completion_order(&manager)
            .windows(2)
            .all(|w| w[0].1 < w[1].1),
        "in order when not reordering"
    );
}

#[test]
fn errors_are_injected_by_address_range_and_block_writes() {
    let seed = seed();
    let bad = ErrorRange {
        range: 0x2000..0x3000,
        resp: Resp::SlvErr,
    };
    let config = CompleterConfig {
        errors: vec![bad.clone()],
        ..CompleterConfig::ideal()
    };
    let (manager, _, memory, _) = run(config, seed, 120);
    let touches =
        |t: &Txn| t.addr < bad.range.end && bad.range.start < t.addr + u64::from(t.beats) * 16;
    let mut seen_error = false;
    for (txn, _, resp) in &manager.read_results {
        assert_eq!(*resp == Resp::SlvErr, touches(txn), "read {:#x}", txn.addr);
        seen_error |= *resp == Resp::SlvErr;
    }
    assert!(seen_error, "seed {seed} never touched the error range");
    assert!(
        memory.read_vec(0x2000, 0x1000).iter().all(|&b| b == 0),
        "an erroneous write changed memory"
    );
}

fn fire_ar(s: &mut AxiSignals, id: u8, addr: u64, len: u8) {
    (
        s.arvalid, s.arready, s.arid, s.araddr, s.arlen, s.arsize, s.arburst,
    ) = (true, true, id, addr, len, 4, 1);
}

#[test]
fn monitor_catches_each_rule() {
    let limits = AxiLimits {
        reads: 2,
        writes: 1,
        read_split: 256,
        write_split: 64,
    };
    let mut m = AxiMonitor::new("M0", limits);
    let mut s = AxiSignals {
        arvalid: true,
        araddr: 0x100,
        arburst: 1,
        arsize: 4,
        ..Default::default()
    };
    m.edge(&s).unwrap();
    s.arvalid = false;
    assert!(m.edge(&s).unwrap_err().contains("ARVALID dropped"));

    let mut m = AxiMonitor::new("M0", limits);
    let s = AxiSignals {
        awvalid: true,
        awaddr: 0x100,
        awburst: 1,
        awsize: 4,
        ..Default::default()
    };
    m.edge(&s).unwrap();
    let moved = AxiSignals { awaddr: 0x200, ..s };
    assert!(m.edge(&moved).unwrap_err().contains("payload changed"));

    let mut m = AxiMonitor::new("M0", limits);
    let mut s = AxiSignals::default();
    fire_ar(&mut s, 0, 0xFC0, 7);
    assert!(m.edge(&s).unwrap_err().contains("4 KB"));

    // Burst-split blocks: 256 bytes for reads, 64 for writes here.
    let mut m = AxiMonitor::new("M0", limits);
    let mut s = AxiSignals::default();
    fire_ar(&mut s, 0, 0x100, 15);
    m.edge(&s).unwrap();
    let mut s = AxiSignals::default();
    fire_ar(&mut s, 1, 0x1F0, 1);
    assert!(m
        .edge(&s)
        .unwrap_err()
        .contains("crosses a 256-byte boundary"));
    let mut m = AxiMonitor::new("M0", limits);
    let s = AxiSignals {
        awvalid: true,
        awaddr: 0x30,
        awlen: 1,
        awsize: 4,
        awburst: 1,
        ..Default::default()
    };
    assert!(m
        .edge(&s)
        .unwrap_err()
        .contains("crosses a 64-byte boundary"));

    let mut m = AxiMonitor::new("M0", limits);
    let s = AxiSignals {
        rvalid: true,
        rready: true,
        rid: 9,
        rlast: true,
        ..Default::default()
    };
    assert!(m.edge(&s).unwrap_err().contains("no read outstanding"));

    let mut m = AxiMonitor::new("M0", limits);
    for id in 0..2 {
        let mut s = AxiSignals::default();
        fire_ar(&mut s, id, 0x0, 0);
        m.edge(&s).unwrap();
    }
    let mut s = AxiSignals::default();
    fire_ar(&mut s, 2, 0x0, 0);
    assert!(m.edge(&s).unwrap_err().contains("more than 2 reads"));

    let mut m = AxiMonitor::new("M0", limits);
    let mut s = AxiSignals::default();
    fire_ar(&mut s, 1, 0x0, 1);
    m.edge(&s).unwrap();
    let s = AxiSignals {
        rvalid: true,
        rready: true,
        rid: 1,
        rlast: true,
        ..Default::default()
    };
    assert!(m
        .edge(&s)
        .unwrap_err()
        .contains("RLAST true with 1 beats left"));

    let mut m = AxiMonitor::new("M0", limits);
    let s = AxiSignals {
        awvalid: true,
        awready: true,
        awlen: 1,
        awsize: 4,
        awburst: 1,
        ..Default::default()
    };
    m.edge(&s).unwrap();
    let s = AxiSignals {
        wvalid: true,
        wready: true,
        wlast: true,
        ..Default::default()
    };
    assert!(m
        .edge(&s)
        .unwrap_err()
        .contains("WLAST true on beat 1 of a 2-beat burst"));

    let mut m = AxiMonitor::new("M0", limits);
    let s = AxiSignals {
        bvalid: true,
        bready: true,
        bid: 3,
        ..Default::default()
    };
    assert!(m.edge(&s).unwrap_err().contains("before its write data"));
}

#[test]
fn monitor_catches_outputs_moving_across_an_edge_with_aclken_low() {
    let waiting = AxiSignals {
        arvalid: true,
        araddr: 0x100,
        arburst: 1,
        arsize: 4,
        ..Default::default()
    };
    let mut m = AxiMonitor::new("M0", AxiLimits::UNLIMITED);
    m.edge(&waiting).unwrap();
    // The completer may move while ACLKEN is low; the manager may not.
    let ready_moved = AxiSignals {
        arready: true,
        ..waiting
    };
    m.disabled_edge(&ready_moved).unwrap();
    m.edge(&waiting).unwrap();
    m.disabled_edge(&waiting).unwrap();
    let moved = AxiSignals {
        rready: true,
        ..waiting
    };
    assert!(m
        .edge(&moved)
        .unwrap_err()
        .contains("changed across a clock edge with ACLKEN low"));
}
