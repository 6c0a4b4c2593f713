//! The IFM channel's address generator (`hw/src/datapath/ifm_fetch.rs`, block
//! `ifm_fetch`) on its own bench: random IFM views (tile splits WIDTH0,
//! HEIGHT0, HEIGHT1, bases and strides, NHWC and NHCWB16, int8 and int16,
//! IB_END) and random IFM block jobs (rectangles inside the IFM, empty ones
//! included, channel chunks, IB0 or IB1), random back-pressure. Every fill
//! (a 3D copy: a piece of the block's rows in one tile, at most four per
//! channel group whatever the block's height) is executed in Rust from a
//! source memory whose bytes are a hash of their
//! offset into a 48 KB shared-buffer image; then every byte of every (r, q,
//! k) element of the block must be the source byte at
//! `npu_model::tensor::FeatureMap::offset`, every other byte of the image
//! unchanged, and `block_end` on exactly the job's last fill.

use npu_arch::command::Layout;
use npu_hw::datapath::IfmBlockJob;
use npu_hw::datapath::IfmBuffers;
use npu_hw::dma::ShramFill;
use npu_hw::op_state::IfmView;
use npu_model::tensor::{DType, FeatureMap};
use npu_tb::block::{field, words, BlockTb};
use npu_tb::seed::seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::{Bits, Synth};

const SHRAM_BYTES: usize = 48 * 1024;

/// The source memory: a hash of the byte's offset.
/// A position's bytes in the IFM buffer (TRM table 4-135:
/// ALIGN(channels x bytes, 8)).
fn position_bytes(channels: usize, e: usize) -> usize {
    (channels * e).next_multiple_of(8)
}

fn source_byte(offset: u64) -> u8 {
    let h = offset.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> 56) as u8 ^ (h >> 24) as u8
}

/// The shared buffer before the fills.
fn blank_byte(address: usize) -> u8 {
    (address as u8).wrapping_mul(37) ^ 0x5a
}

struct Ifm {
    map: FeatureMap,
    height: usize,
    width: usize,
    depth: usize,
    /// IB0's first byte and IB1's distance from it.
    ib_start: usize,
    ib_half: usize,
}

impl Ifm {
    fn random(rng: &mut StdRng) -> Self {
        let e = [1, 1, 2, 4][rng.gen_range(0..4)];
        let layout = if rng.gen_bool(0.5) {
            Layout::Nhwc
        } else {
            Layout::Nhcwb16
        };
        let (height, width) = (rng.gen_range(1..20), rng.gen_range(1..20));
        let depth: usize = rng.gen_range(1..70);
        // Strides as a tensor of this shape lays them out, padded, or any.
        let groups = depth.div_ceil(16) as i64;
        let (stride_x, stride_c, stride_y) = match layout {
            Layout::Nhwc => {
                let sx = (depth * e) as i64 + rng.gen_range(0..3) * 8;
                (sx, 0, sx * width as i64 + rng.gen_range(0..64))
            }
            Layout::Nhcwb16 => {
                let sc = (16 * e * width) as i64 + rng.gen_range(0..3) * 16;
                (16 * e as i64, sc, sc * groups + rng.gen_range(0..64))
            }
        };
        let (stride_x, stride_y, stride_c) = if rng.gen_bool(0.2) {
            (
                rng.gen_range(1..1 << 20),
                rng.gen_range(1..1 << 24),
                rng.gen_range(1..1 << 24),
            )
        } else {
            (stride_x, stride_y, stride_c)
        };
        let map = FeatureMap {
            region: rng.gen_range(0..8),
            base: [(); 4].map(|_| rng.gen_range(0..1u64 << 36)),
            stride_x,
            stride_y,
            stride_c,
            width0: if rng.gen_bool(0.3) {
                width
            } else {
                rng.gen_range(1..=width)
            },
            height0: if rng.gen_bool(0.3) {
                height
            } else {
                rng.gen_range(1..=height)
            },
            height1: if rng.gen_bool(0.3) {
                height
            } else {
                rng.gen_range(1..=height)
            },
            dtype: DType {
                signed: true,
                bits: 8 * e as u32,
            },
            layout,
            zero_point: 0,
        };
        // IB0 and IB1 of 1 to 22 KB each, from 2 KB (the IFM) or further
        // on (IFM2 of an elementwise operation).
        let ib_half = rng.gen_range(1..=22) * 1024;
        let ib_start = 2048 + rng.gen_range(0..=(44 * 1024 - 2 * ib_half) / 2048) * 2048;
        Ifm {
            map,
            height,
            width,
            depth,
            ib_start,
            ib_half,
        }
    }

    fn view(&self) -> Vec<u32> {
        let m = &self.map;
        let b48 = |v: u64| Bits::<48>::from(v & ((1 << 48) - 1));
        let view = IfmView {
            precision_activation_type: m.dtype.signed,
            precision_activation_precision: Bits::<2>::from(u64::from(m.dtype.precision().bits())),
            precision_activation_format: Bits::<2>::from(u64::from(m.layout.bits())),
            depth_m1: Bits::<16>::from(self.depth as u64 - 1),
            width0_m1: Bits::<16>::from(m.width0 as u64 - 1),
            height0_m1: Bits::<16>::from(m.height0 as u64 - 1),
            height1_m1: Bits::<16>::from(m.height1 as u64 - 1),
            region: Bits::<3>::from(m.region as u64),
            base0: b48(m.base[0]),
            base1: b48(m.base[1]),
            base2: b48(m.base[2]),
            base3: b48(m.base[3]),
            stride_x: b48(m.stride_x as u64),
            stride_y: b48(m.stride_y as u64),
            stride_c: b48(m.stride_c as u64),
            ..Default::default()
        };
        words::<{ <IfmView as Synth>::BITS }>(view.into())
    }

    fn buffers(&self) -> Vec<u32> {
        let buffers = IfmBuffers {
            start: Bits::<16>::from(self.ib_start as u64),
            half: Bits::<16>::from(self.ib_half as u64),
        };
        words::<{ <IfmBuffers as Synth>::BITS }>(buffers.into())
    }

    fn element_bytes(&self) -> usize {
        self.map.dtype.bytes()
    }

    fn ib_base(&self, half: bool) -> usize {
        self.ib_start + usize::from(half) * self.ib_half
    }
}

#[derive(Clone, Debug)]
struct Job {
    y0: usize,
    x0: usize,
    height: usize,
    width: usize,
    channel0: usize,
    channels: usize,
    ib_half: bool,
}

impl Job {
    fn random(ifm: &Ifm, rng: &mut StdRng) -> Self {
        let e = ifm.element_bytes();
        let (channel0, channels) = match rng.gen_range(0..3) {
            // Depth-first chunks of 32 (int8) or 16 channels.
            0 => {
                let chunk = 32 / e;
                let c0 = rng.gen_range(0..ifm.depth.div_ceil(chunk)) * chunk;
                (c0, chunk.min(ifm.depth - c0))
            }
            1 => (0, ifm.depth),
            _ => {
                let c0 = rng.gen_range(0..ifm.depth);
                (c0, rng.gen_range(1..=ifm.depth - c0))
            }
        };
        let position_bytes = position_bytes(channels, e);
        let ib_bytes = ifm.ib_half;
        let y0 = rng.gen_range(0..ifm.height);
        let x0 = rng.gen_range(0..ifm.width);
        let mut height = rng.gen_range(1..=ifm.height - y0);
        let mut width = rng.gen_range(1..=ifm.width - x0);
        // The block fits its IFM buffer.
        while height * width * position_bytes > ib_bytes {
            if height > width {
                height -= 1;
            } else {
                width -= 1;
            }
        }
        if rng.gen_bool(0.05) {
            if rng.gen_bool(0.5) {
                height = 0;
            } else {
                width = 0;
            }
        }
        Job {
            y0,
            x0,
            height,
            width,
            channel0,
            channels,
            ib_half: rng.gen_bool(0.5),
        }
    }

    fn words(&self, rng: &mut StdRng) -> Vec<u32> {
        let b16 = |v: usize| Bits::<16>::from(v as u64);
        // The fields the fetch does not read hold anything.
        let job = IfmBlockJob {
            ofm_y: b16(rng.gen_range(0..1 << 16)),
            ofm_x: b16(rng.gen_range(0..1 << 16)),
            sub_height: b16(rng.gen_range(0..1 << 16)),
            y0: b16(self.y0),
            x0: b16(self.x0),
            height: b16(self.height),
            width: b16(self.width),
            channel0: b16(self.channel0),
            channels: b16(self.channels),
            ib_half: self.ib_half,
            first: rng.gen(),
            last: rng.gen(),
            ..Default::default()
        };
        words::<{ <IfmBlockJob as Synth>::BITS }>(job.into())
    }
}

struct Fill {
    region: u64,
    source: u64,
    source_skip: u64,
    source_plane_skip: u64,
    len: usize,
    rows: usize,
    planes: usize,
    destination: usize,
    destination_skip: usize,
    destination_plane_skip: usize,
    block_end: bool,
}

impl Fill {
    fn parse(beat: &[u32]) -> Self {
        let f = ShramFill::default();
        Fill {
            region: field(beat, f.get_my_offset_region(), 3),
            source: field(beat, f.get_my_offset_source(), 40),
            source_skip: field(beat, f.get_my_offset_source_skip(), 40),
            source_plane_skip: field(beat, f.get_my_offset_source_plane_skip(), 40),
            len: field(beat, f.get_my_offset_len(), 16) as usize,
            rows: field(beat, f.get_my_offset_rows(), 16) as usize,
            planes: field(beat, f.get_my_offset_planes(), 16) as usize,
            destination: field(beat, f.get_my_offset_destination(), 16) as usize,
            destination_skip: field(beat, f.get_my_offset_destination_skip(), 16) as usize,
            destination_plane_skip: field(beat, f.get_my_offset_destination_plane_skip(), 16)
                as usize,
            block_end: field(beat, f.get_my_offset_block_end(), 1) == 1,
        }
    }

    /// Copies the fill into `shram` as the DMA does (`ShramFill`'s strides:
    /// planes are `rows * len` plus the plane skip apart); `Err` when it
    /// leaves the shared buffer.
    fn execute(&self, shram: &mut [u8]) -> Result<(), String> {
        let mask = (1u64 << 40) - 1;
        let plane_bytes = (self.rows * self.len) as u64;
        for p in 0..self.planes {
            let source_plane = self.source + p as u64 * (plane_bytes + self.source_plane_skip);
            let destination_plane = self.destination
                + p * ((plane_bytes as usize + self.destination_plane_skip) & 0xffff);
            for r in 0..self.rows {
                let source = source_plane + r as u64 * (self.len as u64 + self.source_skip);
                let destination =
                    destination_plane + r * ((self.len + self.destination_skip) & 0xffff);
                for b in 0..self.len {
                    let at = (destination + b) & 0xffff;
                    if at >= shram.len() {
                        return Err(format!("plane {p} row {r} byte {b} lands at {at:#x}"));
                    }
                    shram[at] = source_byte(source.wrapping_add(b as u64) & mask);
                }
            }
        }
        Ok(())
    }
}

/// Checks the shared buffer after `job`'s fills.
fn check_block(ifm: &Ifm, job: &Job, shram: &[u8]) -> Result<usize, String> {
    let e = ifm.element_bytes();
    let position_bytes = position_bytes(job.channels, e);
    let base = ifm.ib_base(job.ib_half);
    let mut written = vec![false; shram.len()];
    for r in 0..job.height {
        for q in 0..job.width {
            for k in 0..job.channels {
                let offset = ifm.map.offset(job.y0 + r, job.x0 + q, job.channel0 + k) as u64;
                for j in 0..e {
                    let at = base + (r * job.width + q) * position_bytes + k * e + j;
                    let want = source_byte(offset + j as u64);
                    if shram[at] != want {
                        return Err(format!(
                            "element (r {r}, q {q}, k {k}) byte {j} at {at:#x}: {:#04x}, the IFM \
                             byte at offset {:#x} is {want:#04x}",
                            shram[at],
                            offset + j as u64
                        ));
                    }
                    written[at] = true;
                }
            }
        }
    }
    for (at, &w) in written.iter().enumerate() {
        if !w && shram[at] != blank_byte(at) {
            return Err(format!("byte {at:#x}, outside the block, was written"));
        }
    }
    Ok(job.height * job.width * job.channels)
}

#[test]
fn fills_put_every_element_where_the_ib_layout_says() {
    let seed = seed();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = BlockTb::new("ifm_fetch", rng.gen()).unwrap_or_else(|e| panic!("{e:#}"));
    let rst_n = tb.model.port("rst_n");
    let view_port = tb.model.port("view");
    let buffers_port = tb.model.port("buffers");
    let jobs = tb.source("jobs", 1.0);
    let fills = tb.sink("fills", 1.0);
    tb.model.set(rst_n, 0);
    tb.model.tick();
    tb.model.set(rst_n, 1);
    tb.model.tick();
    let (mut elements, mut fill_count, mut job_count) = (0, 0, 0);
    for op in 0..150 {
        let ifm = Ifm::random(&mut rng);
        tb.model.set_wide(view_port, &ifm.view());
        tb.model.set_wide(buffers_port, &ifm.buffers());
        tb.sources[jobs].rate = rng.gen_range(0.3..=1.0);
        tb.sinks[fills].rate = if rng.gen_bool(0.3) {
            1.0
        } else {
            rng.gen_range(0.2..=1.0)
        };
        for _ in 0..rng.gen_range(1..8) {
            let job = Job::random(&ifm, &mut rng);
            let what = format!("operation {op}, {ifm:?}, job {job:?}", ifm = ifm.map);
            tb.sources[jobs].queue.push_back(job.words(&mut rng));
            let mut shram: Vec<u8> = (0..SHRAM_BYTES).map(blank_byte).collect();
            let mut cycles = 0;
            let mut job_fills = 0;
            loop {
                let beats: Vec<Vec<u32>> = tb.sinks[fills].beats.drain(..).collect();
                let mut ended = false;
                for beat in beats {
                    let fill = Fill::parse(&beat);
                    if ended {
                        tb.fail(&format!("a fill after block_end; {what}"));
                    }
                    if fill.region != ifm.map.region as u64 {
                        tb.fail(&format!("fill region {}; {what}", fill.region));
                    }
                    if let Err(e) = fill.execute(&mut shram) {
                        tb.fail(&format!("a fill leaves the shared buffer: {e}; {what}"));
                    }
                    ended = fill.block_end;
                    fill_count += 1;
                    job_fills += 1;
                }
                if ended {
                    break;
                }
                tb.tick();
                cycles += 1;
                if cycles > 20_000 {
                    tb.fail(&format!("no block_end; {what}"));
                }
            }
            // A piece's rows in one tile are one fill: two pieces (WIDTH0)
            // by two tiles (HEIGHT0/1) per channel group (NHCWB16: 16).
            let groups = match ifm.map.layout {
                Layout::Nhwc => 1,
                Layout::Nhcwb16 => (job.channel0 + job.channels).div_ceil(16) - job.channel0 / 16,
            };
            if job_fills > 4 * groups.max(1) {
                tb.fail(&format!(
                    "{job_fills} fills for {groups} channel groups; {what}"
                ));
            }
            if !tb.sources[jobs].queue.is_empty() {
                tb.fail(&format!("block_end before the job was taken; {what}"));
            }
            match check_block(&ifm, &job, &shram) {
                Ok(n) => elements += n,
                Err(e) => tb.fail(&format!("{e}; {what}")),
            }
            job_count += 1;
        }
    }
    println!("{job_count} jobs, {fill_count} fills, {elements} elements checked");
}
