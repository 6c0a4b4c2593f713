//! The IFM unit (`hw/src/mac_unit/ifm_unit.rs`, TRM 3.3.6.1) on its bench
//! with a 48 KB shared buffer: random convolutions (int8, uint8 and int16
//! IFMs with random zero points, int32 ones as an int32 REDUCE_SUM reads
//! them: 4-channel groups of four byte beats; strides 1-3, dilations 1-2,
//! kernels up to
//! 8x8, padding on every side, upscale none, nearest and insert-zeros), each
//! with one IFM block (a chunk of channels of the IFM rows and columns an
//! OFM block needs) written into the buffer, then one request per
//! (microblock, kernel element, channel group, activation byte) of the OFM
//! block under random back-pressure, every activation of the block's
//! positions compared with the padded, upscaled IFM minus the zero point that
//! the golden model multiplies (`npu_model::ops`: `load_fm`,
//! `load_upscaled`, `pad`, indexed as `conv_accumulate` does, rebuilt here
//! from their definitions). Operations follow each other with IFM blocks in
//! different places and the settings switched as soon as the last request
//! of the previous operation is taken. A third of the operations use 1x4
//! microblocks (`one_row`: positions (oy, ox + p)) over any OFM rows, the
//! rest 2x2 ones; a third of the 8- and 16-bit ones are `interleaved`
//! (depthwise in parallel mode: a group's channels every other one of 16,
//! the even ones in `acts` and the odd ones in `odd_acts`; 16-bit groups
//! are two lines, the second read from the bench's second bank),
//! and a quarter of those without insert-zeros upscaling pad with the IFM
//! type's minimum (`pad_minimum`, max pooling: the golden model's max pool
//! counts no padding, which a minimum never changes).
//! Then the throughput: one request a cycle with `IfmUnit::LATENCY` cycles
//! of latency, in both shapes.

use npu_arch::command::UpscaleMode;
use npu_hw::mac_unit::{IfmActs, IfmRequest, IfmSettings, IfmUnit, LineWrite};
use npu_model::tensor::DType;
use npu_tb::block::BlockTb;
use npu_tb::seed::seed;
use npu_tb::verilator::PortId;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::{Bits, Synth};
use std::collections::VecDeque;

const SHRAM_BYTES: usize = 48 * 1024;
const LINE_BYTES: usize = 16;

/// A value's 32-bit words, bit 0 first, as the bench's ports take them.
fn port_words<const N: usize>(value: Bits<N>) -> Vec<u32> {
    (0..N.div_ceil(32))
        .map(|w| {
            (0..32)
                .filter(|&b| 32 * w + b < N && value.get_bit(32 * w + b))
                .fold(0u32, |word, b| word | 1 << b)
        })
        .collect()
}

/// One convolution's view of the IFM unit and the IFM block it reads.
#[derive(Debug)]
struct Operation {
    ifm: DType,
    zero_point: i64,
    upscale: UpscaleMode,
    /// 1x4 microblocks, not 2x2.
    one_row: bool,
    /// Source IFM: height, width, depth; values in (y, x, c) order.
    source_h: usize,
    source_w: usize,
    depth: usize,
    values: Vec<i64>,
    /// Upscaled IFM extent (the golden model's `Op::ifm_extent`).
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
    kernel_h: usize,
    kernel_w: usize,
    stride_y: usize,
    stride_x: usize,
    dilation_y: usize,
    dilation_x: usize,
    pad_top: usize,
    pad_left: usize,
    /// The OFM block: rows `block_y`, columns `block_x`.
    block_y: std::ops::Range<usize>,
    block_x: std::ops::Range<usize>,
    /// The IFM block: channels `chunk`, source rows and columns from the
    /// origin, its place in the buffer.
    chunk: std::ops::Range<usize>,
    origin_y: usize,
    origin_x: usize,
    ib_height: usize,
    ib_width: usize,
    position_bytes: usize,
    ib_base: usize,
    /// Interleaved groups: both cores' channels, every other one each.
    interleaved: bool,
    /// Max pooling: padding reads the IFM type's minimum minus the zero
    /// point (never with insert-zeros upscaling, TRM 4.8.2 table 4-122).
    pad_minimum: bool,
}

impl Operation {
    /// A random operation.
    fn random(rng: &mut StdRng) -> Operation {
        loop {
            if let Some(op) = Self::try_random(rng) {
                return op;
            }
        }
    }

    fn try_random(rng: &mut StdRng) -> Option<Operation> {
        let ifm = [DType::I8, DType::U8, DType::I16, DType::I32][rng.gen_range(0..4)];
        let one_row = rng.gen_bool(1.0 / 3.0);
        let upscale =
            [UpscaleMode::None, UpscaleMode::Nearest, UpscaleMode::Zeros][rng.gen_range(0..3)];
        // TRM 4.8.2: a 2x2 upscale uses a stride of 1x1.
        let (stride_y, stride_x) = if upscale == UpscaleMode::None {
            (rng.gen_range(1..=3), rng.gen_range(1..=3))
        } else {
            (1, 1)
        };
        let (kernel_h, kernel_w) = (rng.gen_range(1..=8), rng.gen_range(1..=8));
        let (dilation_y, dilation_x) = (rng.gen_range(1..=2), rng.gen_range(1..=2));
        let dkh = (kernel_h - 1) * dilation_y + 1;
        let dkw = (kernel_w - 1) * dilation_x + 1;
        let (pad_top, pad_bottom) = (rng.gen_range(0..dkh), rng.gen_range(0..dkh));
        let (pad_left, pad_right) = (rng.gen_range(0..dkw), rng.gen_range(0..dkw));
        let (oh, ow) = (rng.gen_range(1..=9), rng.gen_range(1..=9));
        let h = ((oh - 1) * stride_y + dkh) as i64 - (pad_top + pad_bottom) as i64;
        let w = ((ow - 1) * stride_x + dkw) as i64 - (pad_left + pad_right) as i64;
        if h < 1 || w < 1 {
            return None;
        }
        let (h, w) = (h as usize, w as usize);
        let (source_h, source_w) = match upscale {
            UpscaleMode::None => (h, w),
            _ => (h.div_ceil(2), w.div_ceil(2)),
        };
        if source_h > 12 || source_w > 12 {
            return None;
        }
        let depth = rng.gen_range(1..=40);
        // TRM 4.6.4: a 32-bit IFM's zero point is 0.
        let zero_point = match rng.gen_range(0..4) {
            _ if ifm.bits == 32 => 0,
            0 => 0,
            1 => ifm.min(),
            2 => ifm.max(),
            _ => rng.gen_range(ifm.min()..=ifm.max()),
        };
        let values = (0..source_h * source_w * depth)
            .map(|_| rng.gen_range(ifm.min()..=ifm.max()))
            .collect();
        let y0 = rng.gen_range(0..oh);
        let x0 = rng.gen_range(0..ow);
        let block_y = y0..rng.gen_range(y0 + 1..=oh);
        let block_x = x0..rng.gen_range(x0 + 1..=ow);
        let c0 = 8 * rng.gen_range(0..depth.div_ceil(8));
        let chunk = c0..depth.min(c0 + rng.gen_range(8..=32));
        let mut op = Operation {
            ifm,
            zero_point,
            upscale,
            one_row,
            source_h,
            source_w,
            depth,
            values,
            h,
            w,
            oh,
            ow,
            kernel_h,
            kernel_w,
            stride_y,
            stride_x,
            dilation_y,
            dilation_x,
            pad_top,
            pad_left,
            block_y,
            block_x,
            chunk,
            origin_y: 0,
            origin_x: 0,
            ib_height: 0,
            ib_width: 0,
            position_bytes: 0,
            ib_base: 0,
            interleaved: ifm.bits <= 16 && rng.gen_bool(1.0 / 3.0),
            pad_minimum: ifm.bits < 32 && upscale != UpscaleMode::Zeros && rng.gen_bool(0.25),
        };
        // The source rows and columns the OFM block reads.
        let (origin_y, rows) = op.needed(
            op.block_y.clone(),
            op.kernel_h,
            op.stride_y,
            op.dilation_y,
            op.pad_top,
            op.h,
        );
        let (origin_x, columns) = op.needed(
            op.block_x.clone(),
            op.kernel_w,
            op.stride_x,
            op.dilation_x,
            op.pad_left,
            op.w,
        );
        op.origin_y = origin_y;
        op.origin_x = origin_x;
        op.ib_height = rows;
        op.ib_width = columns + rng.gen_range(0..=2);
        // TRM table 4-135: ALIGN(channels x bytes, 8), so a 16-byte group
        // may straddle two lines.
        op.position_bytes = (op.chunk.len() * ifm.bytes()).next_multiple_of(8);
        Some(op)
    }

    /// Channels of a request: 8, 16 interleaved (every other one taken;
    /// two lines of 16 bits), 4 of 32 bits.
    fn group_channels(&self) -> usize {
        match (self.interleaved, self.ifm.bits) {
            (true, _) => 16,
            (false, 32) => 4,
            _ => 8,
        }
    }

    /// A group is one aligned half line (8-bit) or line (16- and 32-bit,
    /// interleaved): positions and the base are aligned to its size.
    /// The first source row (column) the OFM rows (columns) `range` read
    /// and how many, along one axis (at least one: an IFM block of padding
    /// only still has a place).
    fn needed(
        &self,
        range: std::ops::Range<usize>,
        kernel: usize,
        stride: usize,
        dilation: usize,
        pad: usize,
        extent: usize,
    ) -> (usize, usize) {
        let used: Vec<usize> = range
            .flat_map(|o| (0..kernel).map(move |k| (o * stride + k * dilation) as i64 - pad as i64))
            .filter(|&u| (0..extent as i64).contains(&u))
            .map(|u| self.source(u as usize))
            .collect();
        match (used.iter().min(), used.iter().max()) {
            (Some(&first), Some(&last)) => (first, last - first + 1),
            _ => (0, 1),
        }
    }

    fn source(&self, upscaled: usize) -> usize {
        match self.upscale {
            UpscaleMode::None => upscaled,
            _ => upscaled / 2,
        }
    }

    fn ib_bytes(&self) -> usize {
        self.ib_height * self.ib_width * self.position_bytes
    }

    /// The golden model's padded, upscaled IFM minus the zero point
    /// (`load_fm`, `load_upscaled`, `pad`) and its row length.
    fn padded(&self) -> (Vec<i64>, usize) {
        let c = self.depth;
        let loaded: Vec<i64> = self.values.iter().map(|v| v - self.zero_point).collect();
        let mut upscaled = vec![0; self.h * self.w * c];
        for y in 0..self.h {
            for x in 0..self.w {
                let (sy, sx) = match self.upscale {
                    UpscaleMode::None => (y, x),
                    UpscaleMode::Zeros if y % 2 == 1 || x % 2 == 1 => continue,
                    _ => (y / 2, x / 2),
                };
                let s = (sy * self.source_w + sx) * c;
                upscaled[(y * self.w + x) * c..][..c].copy_from_slice(&loaded[s..s + c]);
            }
        }
        let dkh = (self.kernel_h - 1) * self.dilation_y + 1;
        let dkw = (self.kernel_w - 1) * self.dilation_x + 1;
        let ph = (self.oh - 1) * self.stride_y + dkh;
        let pw = (self.ow - 1) * self.stride_x + dkw;
        let fill = if self.pad_minimum {
            self.ifm.min() - self.zero_point
        } else {
            0
        };
        let mut data = vec![fill; ph * pw * c];
        for y in 0..self.h {
            let dst = ((y + self.pad_top) * pw + self.pad_left) * c;
            data[dst..dst + self.w * c].copy_from_slice(&upscaled[y * self.w * c..][..self.w * c]);
        }
        (data, pw)
    }

    /// The IFM block's bytes: position (r, q) holds source element
    /// (origin_y + r, origin_x + q) of the chunk's channels, little-endian;
    /// the rest (channel padding, columns past the IFM) is noise.
    fn ib_image(&self, rng: &mut StdRng) -> Vec<u8> {
        let e = self.ifm.bytes();
        let mut image: Vec<u8> = (0..self.ib_bytes()).map(|_| rng.gen()).collect();
        for r in 0..self.ib_height {
            for q in 0..self.ib_width {
                let (y, x) = (self.origin_y + r, self.origin_x + q);
                if y >= self.source_h || x >= self.source_w {
                    continue;
                }
                for (k, ch) in self.chunk.clone().enumerate() {
                    let v = self.values[(y * self.source_w + x) * self.depth + ch];
                    let at = (r * self.ib_width + q) * self.position_bytes + k * e;
                    image[at..at + e].copy_from_slice(&v.to_le_bytes()[..e]);
                }
            }
        }
        image
    }

    fn settings(&self) -> IfmSettings {
        IfmSettings {
            ib_base: (self.ib_base as u64).into(),
            ib_width: (self.ib_width as u64).into(),
            position_bytes: (self.position_bytes as u64).into(),
            origin_y: (self.origin_y as u64).into(),
            origin_x: (self.origin_x as u64).into(),
            ifm_height: (self.h as u64).into(),
            ifm_width: (self.w as u64).into(),
            pad_top: (self.pad_top as u64).into(),
            pad_left: (self.pad_left as u64).into(),
            stride_y: (self.stride_y as u64).into(),
            stride_x: (self.stride_x as u64).into(),
            dilation_y: (self.dilation_y as u64).into(),
            dilation_x: (self.dilation_x as u64).into(),
            upscale: u64::from(self.upscale.bits()).into(),
            wide: self.ifm.bits == 16,
            int32: self.ifm.bits == 32,
            one_row: self.one_row,
            signed: self.ifm.signed,
            zero_point: (self.zero_point as u64 & 0xffff).into(),
            interleaved: self.interleaved,
            pad_minimum: self.pad_minimum,
        }
    }

    /// Every request of the OFM block, with the activations expected of
    /// it: `None` where any value will do (positions outside the block,
    /// channels outside the chunk).
    fn requests(&self) -> Vec<(IfmRequest, Vec<Option<i64>>)> {
        let (padded, pw) = self.padded();
        let bytes = self.ifm.bytes();
        // Microblock height and width; position p is (p / width, p % width).
        let (uh, uw) = if self.one_row { (1, 4) } else { (2, 2) };
        let mut out = Vec::new();
        for oy in self.block_y.clone().step_by(uh) {
            for ox in self.block_x.clone().step_by(uw) {
                for ky in 0..self.kernel_h {
                    for kx in 0..self.kernel_w {
                        let span = self.group_channels();
                        for group in 0..self.chunk.len().div_ceil(span) {
                            for byte in 0..bytes.min(4) {
                                let request = IfmRequest {
                                    oy: (oy as u64).into(),
                                    ox: (ox as u64).into(),
                                    ky: (ky as u64).into(),
                                    kx: (kx as u64).into(),
                                    channel_offset: ((group * span * bytes) as u64).into(),
                                    byte: (byte as u64).into(),
                                };
                                // Lanes 32-63: `odd_acts`, the odd
                                // elements of an interleaved group.
                                let lanes = if self.interleaved { 64 } else { 32 };
                                let acts = (0..lanes)
                                    .map(|lane| {
                                        let (odd, p, k) = (lane / 32, lane % 32 / 8, lane % 8);
                                        let (y, x) = (oy + p / uw, ox + p % uw);
                                        let ch = if self.interleaved {
                                            self.chunk.start + group * 16 + 2 * k + odd
                                        } else {
                                            self.chunk.start + group * span + k
                                        };
                                        // 32 bits: lanes 4-7 are don't-cares.
                                        let inside = self.block_y.contains(&y)
                                            && self.block_x.contains(&x)
                                            && self.chunk.contains(&ch)
                                            && k < span;
                                        inside.then(|| {
                                            let py = y * self.stride_y + ky * self.dilation_y;
                                            let px = x * self.stride_x + kx * self.dilation_x;
                                            let d = padded[(py * pw + px) * self.depth + ch];
                                            match (bytes, byte + 1 == bytes) {
                                                (1, _) => d,
                                                (_, false) => (d >> (8 * byte)) & 0xff,
                                                (_, true) => d >> (8 * byte),
                                            }
                                        })
                                    })
                                    .collect();
                                out.push((request, acts));
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// The bench, its streams and the activations still expected.
struct Bench {
    tb: BlockTb,
    settings: PortId,
    requests: usize,
    acts: usize,
    writes: usize,
    expected: VecDeque<(Vec<Option<i64>>, String)>,
    checked: usize,
    /// Activations compared, and of those the ones of IFM data (not 0).
    lanes: usize,
    nonzero: usize,
}

impl Bench {
    fn new(seed: u64) -> Bench {
        let mut tb = BlockTb::new("ifm_unit", seed).unwrap_or_else(|e| panic!("{e:#}"));
        let settings = tb.model.port("settings");
        let requests = tb.source("requests", 1.0);
        let acts = tb.sink("acts", 1.0);
        let writes = tb.source("writes", 1.0);
        tb.reset();
        Bench {
            tb,
            settings,
            requests,
            acts,
            writes,
            expected: VecDeque::new(),
            checked: 0,
            lanes: 0,
            nonzero: 0,
        }
    }

    /// Writes `bytes` at byte `at`, whole lines (the last one padded with
    /// zeros).
    fn load(&mut self, at: usize, bytes: &[u8]) {
        assert_eq!(at % LINE_BYTES, 0);
        for (i, line) in bytes.chunks(LINE_BYTES).enumerate() {
            let mut data = [0u8; LINE_BYTES];
            data[..line.len()].copy_from_slice(line);
            let mut write = LineWrite {
                line: ((at / LINE_BYTES + i) as u64).into(),
                data: Bits::default(),
            };
            for (half, bytes) in data.chunks(8).enumerate() {
                let value = u64::from_le_bytes(bytes.try_into().unwrap());
                write.data.set_bits::<64>(64 * half, value.into());
            }
            self.tb.sources[self.writes]
                .queue
                .push_back(port_words::<{ <LineWrite as Synth>::BITS }>(write.into()));
        }
        self.run_until(
            |b| b.tb.sources[b.writes].queue.is_empty(),
            "the buffer writes",
        );
    }

    fn set_settings(&mut self, op: &Operation) {
        let words = port_words::<{ <IfmSettings as Synth>::BITS }>(op.settings().into());
        self.tb.model.set_wide(self.settings, &words);
    }

    fn push(&mut self, op_index: usize, op: &Operation) -> usize {
        let requests = op.requests();
        let n = requests.len();
        for (i, (request, acts)) in requests.into_iter().enumerate() {
            self.tb.sources[self.requests].queue.push_back(port_words::<
                { <IfmRequest as Synth>::BITS },
            >(request.into()));
            self.expected.push_back((
                acts,
                format!("operation {op_index} request {i}: {request:?}"),
            ));
        }
        n
    }

    fn run_until(&mut self, done: impl Fn(&Bench) -> bool, what: &str) {
        let mut cycles = 0;
        while !done(self) {
            self.tb.tick();
            self.drain();
            cycles += 1;
            if cycles > 200_000 {
                self.tb.fail(&format!("{what} stall"));
            }
        }
    }

    /// Checks the activations the sink took.
    fn drain(&mut self) {
        let beats: Vec<Vec<u32>> = self.tb.sinks[self.acts].beats.drain(..).collect();
        for beat in beats {
            let Some((want, what)) = self.expected.pop_front() else {
                self.tb.fail("activations that no request asked for");
            };
            let odd_at = IfmActs::default().get_my_offset_odd_acts();
            for (lane, w) in want.iter().enumerate() {
                let start = if lane < 32 {
                    9 * lane
                } else {
                    odd_at + 9 * (lane - 32)
                };
                let raw = (0..9).fold(0i64, |v, b| {
                    let at = start + b;
                    v | i64::from(beat[at / 32] >> (at % 32) & 1) << b
                });
                let got = (raw << 55) >> 55;
                if w.is_some_and(|w| w != got) {
                    self.tb.fail(&format!(
                        "beat {}, position {}, channel {}{}: got {got}, the golden model \
                         multiplies {w:?}; {what}",
                        self.checked,
                        lane % 32 / 8,
                        lane % 8,
                        if lane < 32 { "" } else { " (odd)" }
                    ));
                }
                self.lanes += usize::from(w.is_some());
                self.nonzero += usize::from(w.is_some_and(|w| w != 0));
            }
            self.checked += 1;
        }
    }
}

/// Places the operations' IFM blocks one after another, each 8-byte
/// aligned after a random gap; false if they do not fit.
fn place(ops: &mut [Operation], rng: &mut StdRng) -> bool {
    let mut at: usize = 0;
    for op in ops.iter_mut() {
        let align = 8;
        // Sometimes no gap: blocks sharing a line.
        let gap = if rng.gen_bool(0.3) {
            0
        } else {
            rng.gen_range(0..4096)
        };
        at = (at + gap).div_ceil(align) * align;
        op.ib_base = at;
        at += op.ib_bytes();
    }
    at <= SHRAM_BYTES
}

#[test]
fn activations_match_the_golden_model() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut bench = Bench::new(rng.gen());
    // The buffer's bytes, noise at first.
    let mut buffer: Vec<u8> = (0..SHRAM_BYTES).map(|_| rng.gen()).collect();
    bench.load(0, &buffer);

    let (mut operations, mut one_row, mut requests) = (0, 0, 0);
    for round in 0..500 {
        let mut ops: Vec<Operation> = (0..rng.gen_range(1..=3))
            .map(|_| Operation::random(&mut rng))
            .collect();
        while !place(&mut ops, &mut rng) {
            ops.pop();
        }
        for op in &ops {
            let image = op.ib_image(&mut rng);
            let end = op.ib_base + image.len();
            buffer[op.ib_base..end].copy_from_slice(&image);
            // The whole lines the IB touches (it may share one with the
            // previous operation's).
            let start = op.ib_base / LINE_BYTES * LINE_BYTES;
            bench.load(start, &buffer[start..end.next_multiple_of(LINE_BYTES)]);
        }
        let (valid, ready) = if round % 5 == 0 {
            (1.0, 1.0)
        } else {
            (rng.gen_range(0.3..=1.0), rng.gen_range(0.1..=1.0))
        };
        bench.tb.sources[bench.requests].rate = valid;
        bench.tb.sinks[bench.acts].rate = ready;
        // Each operation's settings go on once the previous one's last
        // request is taken; its activations may still be in flight.
        for op in &ops {
            bench.set_settings(op);
            requests += bench.push(operations, op);
            operations += 1;
            one_row += usize::from(op.one_row);
            bench.run_until(
                |b| b.tb.sources[b.requests].queue.is_empty(),
                "the request stream",
            );
        }
        bench.run_until(|b| b.expected.is_empty(), "the activation stream");
    }
    assert_eq!(bench.checked, requests);
    println!(
        "{requests} requests of {operations} operations ({one_row} with 1x4 microblocks): {} \
         activations checked, {} of them not 0",
        bench.lanes, bench.nonzero
    );
    assert!(
        one_row > operations / 10 && one_row < operations,
        "both microblock shapes: {one_row} of {operations}"
    );
}

#[test]
fn one_request_a_cycle() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    for one_row in [false, true] {
        let mut bench = Bench::new(rng.gen());
        let mut op = loop {
            let op = Operation::random(&mut rng);
            if op.one_row == one_row && op.requests().len() >= 200 {
                break op;
            }
        };
        op.ib_base = 0;
        let image = op.ib_image(&mut rng);
        bench.load(0, &image);
        bench.set_settings(&op);
        let n = bench.push(0, &op);
        // Requests always valid, the output always ready: request i is
        // taken in cycle i, its activations in cycle i + LATENCY.
        for cycle in 0..n + IfmUnit::LATENCY {
            assert_eq!(
                bench.tb.sources[bench.requests].taken,
                cycle.min(n),
                "requests taken before cycle {cycle} (one_row {one_row})"
            );
            assert_eq!(
                bench.checked,
                cycle.saturating_sub(IfmUnit::LATENCY),
                "activations before cycle {cycle} (one_row {one_row})"
            );
            bench.tb.tick();
            bench.drain();
        }
        assert_eq!(bench.checked, n, "{n} requests");
        assert!(bench.expected.is_empty());
    }
}
