//! Seeds for randomized tests: printed, and taken from `NPU_SEED` to re-run one.

/// Environment variable that fixes the seed of randomized tests.
pub const SEED_ENV: &str = "NPU_SEED";

/// The seed for a randomized test: `NPU_SEED` if set, else a fresh one. Printed either way.
pub fn seed() -> u64 {
    let seed = match std::env::var(SEED_ENV) {
        Ok(s) => s
            .parse()
            .unwrap_or_else(|_| panic!("{SEED_ENV}={s} is not a number")),
        Err(_) => rand::random(),
    };
    println!("seed {seed} (re-run with {SEED_ENV}={seed})");
    seed
}
