//! Functional coverage of the programmers' model (`npu-sim coverage`) at
//! CI's scale: every class of every setting is hit on both configurations,
//! but for the waived bins (`npu_model::coverage::WAIVERS`).

use npu_sim::coverage::run;
use npu_tb::seed::SEED_ENV;

/// Jobs of each random generator and fuzz cases CI collects over.
const CI_JOBS: u64 = 150;
const CI_FUZZ: u64 = 20_000;
/// CI's fixed seed; NPU_SEED replaces it.
const CI_SEED: u64 = 2026;

#[test]
fn every_class_of_the_programmers_model_is_hit_on_both_configurations() {
    let seed = std::env::var(SEED_ENV)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(CI_SEED);
    println!(
        "seed {seed} (re-run with {SEED_ENV}={seed}, or npu-sim coverage --seed {seed} \
         --jobs {CI_JOBS} --fuzz {CI_FUZZ})"
    );
    let report = run(seed, CI_JOBS, CI_FUZZ).unwrap().all().report();
    let holes: Vec<String> = report
        .holes()
        .map(|b| format!("{} {} on {}", b.point, b.bin, b.config))
        .collect();
    let unlisted: Vec<String> = report
        .bins
        .iter()
        .filter(|b| b.unlisted)
        .map(|b| format!("{} {} on {}", b.point, b.bin, b.config))
        .collect();
    assert!(holes.is_empty(), "{} holes: {holes:#?}", holes.len());
    assert!(unlisted.is_empty(), "classes no point lists: {unlisted:#?}");
    // A waiver is for a bin no run can hit: one that is hit is stale.
    let stale: Vec<String> = report
        .bins
        .iter()
        .filter(|b| b.waiver.is_some() && b.hits > 0)
        .map(|b| format!("{} {} on {}", b.point, b.bin, b.config))
        .collect();
    assert!(stale.is_empty(), "waived bins that are hit: {stale:#?}");
}
