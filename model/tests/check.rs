//! The command-stream checker (`npu_model::check`) on Vela's streams.

use npu_arch::config::NpuConfig;
use npu_model::access::{Access, Role};
use npu_model::check::{
    accesses_before_refusal, check_stream, CheckOptions, Policy, Refusal, RefusalKind, StreamCheck,
};
use npu_model::cmdstream::{assemble_words, disassemble_words};
use npu_model::tflite::VelaModel;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

fn networks() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/networks");
    let mut models = Vec::new();
    for dir in std::fs::read_dir(&root).expect("networks") {
        let dir = dir.expect("entry").path();
        for f in std::fs::read_dir(&dir).expect("a network folder") {
            let f = f.expect("entry").path();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("model_vela") && name.ends_with(".tflite") {
                models.push(f);
            }
        }
    }
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/real-networks");
    match std::fs::read_dir(&real) {
        Ok(entries) => models.extend(
            entries
                .filter_map(Result::ok)
                .map(|e| e.path().join("model_vela.tflite"))
                .filter(|p| p.is_file()),
        ),
        Err(_) => println!("skipped the real networks: none at {}", real.display()),
    }
    models.sort();
    models
}

#[test]
fn every_vela_stream_passes_the_kernel_policy() {
    let mut failures = Vec::new();
    for path in networks() {
        let model = VelaModel::load(&path).expect("loads");
        let config = model.config().expect("a configuration");
        let start = std::time::Instant::now();
        match model.check(&config, Policy::Kernel) {
            Ok(checks) => {
                let ops: usize = checks.iter().map(|c| c.operations.len()).sum();
                println!(
                    "ok {}: {ops} operations in {:.2} ms",
                    path.display(),
                    start.elapsed().as_secs_f64() * 1e3
                )
            }
            Err(e) => failures.push(format!("{}: {e:#}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The residual_add network's stream (two convolutions, a DMA between
/// them, an elementwise ADD) as listing lines, its region sizes and
/// configuration: the base the validator cases edit.
struct Base {
    lines: Vec<String>,
    sizes: BTreeMap<usize, u64>,
    config: NpuConfig,
}

fn base() -> Base {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/networks/residual_add/model_vela.tflite");
    let model = VelaModel::load(&path).expect("loads");
    let op = model.npu_operators().next().expect("an ethos-u operator");
    let listing = disassemble_words(&op.payload.command_stream());
    let check = model
        .check(&model.config().unwrap(), Policy::Npu)
        .expect("passes");
    Base {
        lines: listing.lines().map(str::to_string).collect(),
        sizes: check[0]
            .regions
            .iter()
            .map(|r| (r.region, r.size))
            .collect(),
        config: model.config().unwrap(),
    }
}

impl Base {
    /// `commands` inserted before the first line naming `anchor`.
    fn before(mut self, anchor: &str, commands: &[&str]) -> Base {
        let at = self
            .lines
            .iter()
            .position(|l| l.contains(anchor))
            .unwrap_or_else(|| panic!("no {anchor} in the stream"));
        for (i, c) in commands.iter().enumerate() {
            self.lines.insert(at + i, c.to_string());
        }
        self
    }

    /// Without the first line naming `name`.
    fn without(mut self, name: &str) -> Base {
        let at = self.lines.iter().position(|l| l.contains(name)).unwrap();
        self.lines.remove(at);
        self
    }

    fn check(&self, policy: Policy) -> Result<StreamCheck, Refusal> {
        let words = assemble_words(&self.lines.join("\n")).expect("assembles");
        let stream: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        check_stream(
            &stream,
            &CheckOptions {
                config: self.config.clone(),
                region_sizes: self.sizes.clone(),
                policy,
            },
        )
    }

    fn passes(&self) -> StreamCheck {
        self.check(Policy::Npu)
            .unwrap_or_else(|r| panic!("refused: {r}"))
    }

    fn refused(&self, kind: RefusalKind, words: &[&str]) -> Refusal {
        let r = self.check(Policy::Npu).expect_err("refused");
        println!("refused: {r}");
        assert_eq!(r.kind, kind, "{r}");
        for w in words {
            assert!(r.to_string().contains(w), "{r} does not say {w}");
        }
        r
    }
}

/// The accesses of the operation named `name` (the last one).
fn accesses<'a>(check: &'a StreamCheck, name: &str) -> &'a [Access] {
    &check
        .operations
        .iter()
        .rev()
        .find(|op| op.operation.starts_with(name))
        .unwrap_or_else(|| panic!("no {name}"))
        .accesses
}

fn bytes(accesses: &[Access], role: Role) -> Vec<Range<i64>> {
    accesses
        .iter()
        .filter(|a| a.role == role)
        .flat_map(|a| a.bytes.clone())
        .collect()
}

const ADD: &str = "NPU_OP_ELEMENTWISE";

#[test]
fn the_elementwise_add_touches_exactly_its_three_feature_maps() {
    let check = base().passes();
    let add = accesses(&check, ADD);
    assert_eq!(bytes(add, Role::Ifm), vec![0..0x400]);
    assert_eq!(bytes(add, Role::Ifm2), vec![0x400..0x800]);
    assert_eq!(bytes(add, Role::Ofm), vec![0x800..0xc00]);
    assert!(add.iter().all(|a| a.region == 1));
}

#[test]
fn an_ifm2_scalar_reads_no_ifm2_bytes() {
    // Bit 7 of NPU_SET_IFM2_BROADCAST (TRM 4.6.4): IFM2 is NPU_SET_IFM2_SCALAR,
    // so a base far outside the region is never read.
    let scalar = base().before(
        ADD,
        &[
            "NPU_SET_IFM2_BROADCAST 128",
            "NPU_SET_IFM2_SCALAR 7",
            "NPU_SET_IFM2_BASE0 0 0x7fffff00",
        ],
    );
    let check = scalar.passes();
    assert!(bytes(accesses(&check, ADD), Role::Ifm2).is_empty());
    // Without the scalar bit the same base is read, and refused.
    base()
        .before(ADD, &["NPU_SET_IFM2_BASE0 0 0x7fffff00"])
        .refused(RefusalKind::Bounds, &["IFM2", "0x7fffff00"]);
}

#[test]
fn round_mode_bits_change_no_address() {
    let plain = base().passes();
    // round_mode (bits 14-15) of both precisions: rounding, not storage.
    let rounded = base()
        .before(
            ADD,
            &["NPU_SET_IFM_PRECISION 33025", "NPU_SET_OFM_PRECISION 16641"],
        )
        .passes();
    assert_eq!(accesses(&plain, ADD), accesses(&rounded, ADD));
}

#[test]
fn each_of_the_four_tiles_is_bounded() {
    // Four 4x4 tiles at the offsets one NHWC tensor gives them pass, with
    // the same bytes; each tile moved alone past the region is refused.
    let tiles = |bases: [u32; 4]| {
        let mut commands = vec![
            "NPU_SET_IFM_WIDTH0_M1 3".to_string(),
            "NPU_SET_IFM_HEIGHT0_M1 3".into(),
            "NPU_SET_IFM_HEIGHT1_M1 3".into(),
        ];
        for (i, b) in bases.iter().enumerate() {
            commands.push(format!("NPU_SET_IFM_BASE{i} 0 {b:#x}"));
        }
        let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
        base().before(ADD, &commands)
    };
    let whole = [0, 0x40, 0x200, 0x240];
    let check = tiles(whole).passes();
    assert_eq!(bytes(accesses(&check, ADD), Role::Ifm), vec![0..0x400]);
    for tile in 0..4 {
        let mut bases = whole;
        // Its first element inside region 1 (0xc00 bytes), its last rows past it.
        bases[tile] = 0xc00 - 0x100;
        tiles(bases).refused(RefusalKind::Bounds, &["IFM reads region 1", "0xc00"]);
    }
}

#[test]
fn a_tile_whose_far_corner_is_inside_but_whose_rows_are_not_is_refused() {
    // Stride x 0x100 and stride y -0x100 put the first element (0x100) and
    // the far corner (0x10f) inside the region, and row 7 at -0x600: a
    // far-corner check passes it.
    base()
        .before(
            ADD,
            &[
                "NPU_SET_IFM_BASE0 0 0x100",
                "NPU_SET_IFM_STRIDE_X 0 0x100",
                "NPU_SET_IFM_STRIDE_Y 65535 0xffffff00",
            ],
        )
        .refused(RefusalKind::Bounds, &["IFM reads region 1", "byte -0x600"]);
}

#[test]
fn an_address_that_wraps_40_or_48_bits_is_refused() {
    // 0xff_ffff_ffc0 + 0x40 wraps to 0 in a 40-bit address: no wrap here.
    base()
        .before(ADD, &["NPU_SET_IFM_BASE0 255 0xffffffc0"])
        .refused(RefusalKind::Bounds, &["IFM", "0xffffffffc0"]);
    base()
        .before(ADD, &["NPU_SET_OFM_BASE0 65535 0xffffffc0"])
        .refused(RefusalKind::Bounds, &["OFM writes", "0xffffffffffc0"]);
}

/// The DMA between the convolutions (region 0 to region 2), reshaped.
const DMA: &str = "NPU_OP_DMA_START";

#[test]
fn a_dma_bounds_every_destination_row_of_its_own_stride() {
    // A 1D source, a 2D destination: rows of 0x100 bytes every 0x200.
    let strided = |rows: u32| {
        base().before(
            DMA,
            &[
                "NPU_SET_DMA0_DST_REGION 514",
                "NPU_SET_DMA0_LEN 0 0x100",
                &format!("NPU_SET_DMA0_SIZE0 {rows}"),
                "NPU_SET_DMA0_SKIP0 0 0x100",
            ],
        )
    };
    let check = strided(4).passes();
    let dma = accesses(&check, DMA);
    assert_eq!(bytes(dma, Role::DmaSource), vec![0xb20..0xf20]);
    assert_eq!(
        bytes(dma, Role::DmaDestination),
        vec![0x400..0x500, 0x600..0x700, 0x800..0x900, 0xa00..0xb00]
    );
    assert!(dma.iter().all(|a| a.region == if a.write { 2 } else { 0 }));
    // Eight rows reach 0x1300 in region 2's 0xf20 bytes.
    strided(8).refused(
        RefusalKind::Bounds,
        &[
            "DMA destination writes region 2",
            "byte 0x1000",
            "3872 bytes",
        ],
    );
}

#[test]
fn a_negative_dma_skip_is_refused() {
    // SKIP0 = 2^48 - 0x200: a wrapping adder would step back 0x100 bytes.
    base()
        .before(
            DMA,
            &[
                "NPU_SET_DMA0_SRC_REGION 512",
                "NPU_SET_DMA0_LEN 0 0x100",
                "NPU_SET_DMA0_SIZE0 2",
                "NPU_SET_DMA0_SKIP0 65535 0xfffffe00",
            ],
        )
        .refused(
            RefusalKind::Bounds,
            &["DMA source", "[0x1000000000a20, 0x1000000000b20)"],
        );
}

#[test]
fn an_overlapping_dma_is_unpredictable_and_refused() {
    base()
        .before(
            DMA,
            &[
                "NPU_SET_DMA0_SRC_REGION 2",
                "NPU_SET_DMA0_SRC 0 0x400",
                "NPU_SET_DMA0_DST 0 0x480",
                "NPU_SET_DMA0_LEN 0 0x100",
            ],
        )
        .refused(RefusalKind::Rules, &["TRM 4.6.3", "overlap"]);
}

#[test]
fn weights_and_scales_are_bounded_by_base_and_length() {
    // Region 0 holds 0x1640 bytes; the first weight stream starts at 0xa0.
    base()
        .before("NPU_OP_CONV", &["NPU_SET_WEIGHT_LENGTH 0 0x15a1"])
        .refused(
            RefusalKind::Bounds,
            &["weight stream 0 reads region 0", "byte 0x1640"],
        );
    base()
        .before("NPU_OP_CONV", &["NPU_SET_SCALE_LENGTH 0 0x1641"])
        .refused(
            RefusalKind::Bounds,
            &["scale stream 0 reads region 0", "byte 0x1640"],
        );
}

#[test]
fn a_register_the_stream_never_set_is_refused() {
    base().without("NPU_SET_IFM_STRIDE_X").refused(
        RefusalKind::Unset,
        &["0x11c (NPU_OP_CONV", "NPU_SET_IFM_STRIDE_X"],
    );
}

#[test]
fn a_region_without_a_size_or_out_of_range_is_refused() {
    base()
        .before(ADD, &["NPU_SET_OFM_REGION 5"])
        .refused(RefusalKind::Bounds, &["OFM writes region 5", "0 bytes"]);
    // Region fields are three bits (CVE-2026-53172 masked them with 0x7f).
    base()
        .before(ADD, &["NPU_SET_IFM_REGION 15"])
        .refused(RefusalKind::Rules, &["NPU_SET_IFM_REGION"]);
    base()
        .before(DMA, &["NPU_SET_DMA0_SRC_REGION 127"])
        .refused(RefusalKind::Rules, &["DMA region 127 is not 0-7"]);
}

#[test]
fn the_kernel_policy_refuses_what_the_hardened_linux_validator_refuses() {
    let irq = base().before("NPU_OP_STOP", &["NPU_OP_IRQ 0"]);
    let after_stop = {
        let mut b = base();
        b.lines.push("NPU_SET_IFM_REGION 1".into());
        b
    };
    let no_stop = base().without("NPU_OP_STOP");
    for (stream, says) in [
        (irq, "NPU_OP_IRQ"),
        (after_stop, "4 bytes follow it"),
        (no_stop, "without NPU_OP_STOP"),
    ] {
        let r = stream
            .check(Policy::Kernel)
            .expect_err("the kernel refuses it");
        assert_eq!(r.kind, RefusalKind::Policy);
        assert!(r.to_string().contains(says), "{r}");
        // The NPU runs each of them within its regions.
        stream.passes();
    }
}

#[test]
fn a_refused_stream_gives_what_the_npu_may_touch_before_it_stops() {
    let before = |b: Base| {
        let words = assemble_words(&b.lines.join("\n")).unwrap();
        let stream: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let options = CheckOptions {
            config: b.config.clone(),
            region_sizes: b.sizes.clone(),
            policy: Policy::Npu,
        };
        let (check, refusal) = accesses_before_refusal(&stream, &options);
        let names: Vec<String> = check
            .operations
            .iter()
            .map(|o| o.operation.clone())
            .collect();
        (names, refusal.expect("refused"))
    };
    // An OFM outside its region: the NPU still runs the ADD, so its bytes
    // are what a run may touch.
    let (names, refusal) = before(base().before(ADD, &["NPU_SET_OFM_REGION 5"]));
    assert_eq!(
        names,
        [
            "NPU_OP_CONV",
            "NPU_OP_DMA_START",
            "NPU_OP_CONV",
            "NPU_OP_ELEMENTWISE ADD"
        ]
    );
    assert_eq!(refusal.kind, RefusalKind::Bounds);
    // A reserved region value: the NPU stops at the ADD with a parse error.
    let (names, refusal) = before(base().before(ADD, &["NPU_SET_IFM_REGION 15"]));
    assert_eq!(names, ["NPU_OP_CONV", "NPU_OP_DMA_START", "NPU_OP_CONV"]);
    assert_eq!(refusal.kind, RefusalKind::Rules);
}

#[test]
fn a_dma_into_the_shared_buffer_under_a_running_operation_is_refused() {
    // Right after the first convolution, 16 bytes into core 0's input
    // buffer (the convolution's IFM_IB_END is 10 KB).
    let into_shram = [
        "NPU_SET_DMA0_SRC_REGION 0",
        "NPU_SET_DMA0_DST_REGION 257",
        "NPU_SET_DMA0_SRC 0 0x0",
        "NPU_SET_DMA0_DST 0 0x100",
        "NPU_SET_DMA0_LEN 0 0x10",
        "NPU_OP_DMA_START 0",
    ];
    let after_conv = |extra: &[&str]| {
        let mut commands = extra.to_vec();
        commands.extend(into_shram);
        base().before("NPU_SET_DMA0_SRC_REGION", &commands)
    };
    after_conv(&[]).refused(
        RefusalKind::Rules,
        &["TRM 4.6.3", "[0x100, 0x110)", "kernel operation at 0x124"],
    );
    // Once the operation has ended, the DMA is defined.
    after_conv(&["NPU_OP_KERNEL_WAIT 0"]).passes();
}
