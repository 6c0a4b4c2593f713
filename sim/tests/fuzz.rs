//! The differential fuzzer as a regression (`npu-sim fuzz`): CI's share of
//! random streams on the golden model and the RTL.

use npu_sim::fuzz::run;
use npu_sim::regress::Shard;
use npu_tb::seed::SEED_ENV;

/// Streams CI runs; `make fuzz` runs 10,000.
const CI_STREAMS: u64 = 300;
/// CI's fixed seed; NPU_SEED replaces it.
const CI_SEED: u64 = 2026;

#[test]
fn random_streams_agree_on_the_golden_model_and_the_rtl() {
    let seed = std::env::var(SEED_ENV)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(CI_SEED);
    println!("seed {seed} (re-run with {SEED_ENV}={seed}, or npu-sim fuzz --seed {seed})");
    let save = std::env::temp_dir().join("npu-fuzz-ci");
    let tally = run(seed, CI_STREAMS, Shard::WHOLE, Some(&save), &mut |_, _| {}).unwrap();
    println!(
        "agreed {:?}, refused {:?}, {} kernel operations; stream checker {:?}, {} bytes watched",
        tally.agreed, tally.refused, tally.kernel_ops, tally.checker, tally.watched_bytes
    );
    for f in &tally.findings {
        println!("DISAGREEMENT {f}");
    }
    assert!(
        tally.findings.is_empty(),
        "{} disagreements",
        tally.findings.len()
    );
    // The streams reach every way a run ends, and most run.
    for how in [
        "NPU_OP_STOP",
        "a parse error",
        "the end of the stream (no NPU_OP_STOP)",
    ] {
        assert!(tally.agreed.contains_key(how), "no run ended by {how}");
    }
    // A quarter of the streams hold kernel operations; most of them run.
    assert!(
        tally.kernel_ops * 8 > CI_STREAMS,
        "only {} kernel operations ran",
        tally.kernel_ops
    );
    // The bounds watcher held every run (a byte outside is a disagreement),
    // and the checker passes streams of both kinds.
    assert!(tally.watched_bytes > 0, "the bounds watcher saw no traffic");
    assert!(
        tally.checker.contains_key("passed"),
        "the stream checker passed none: {:?}",
        tally.checker
    );
    let ran: u64 = tally.agreed.values().sum();
    assert!(
        ran * 3 > CI_STREAMS * 2,
        "only {ran} of {CI_STREAMS} streams ran"
    );
}
