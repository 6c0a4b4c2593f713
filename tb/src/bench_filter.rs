//! The table filter of the throughput benches: `cargo bench --bench conv
//! -- 4-130` runs only the tables whose names contain an argument.

/// Whether the table called `name` runs: every table when the command line
/// names none (cargo's own `--` options aside).
pub fn wanted(name: &str) -> bool {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    only.is_empty() || only.iter().any(|o| name.contains(o.as_str()))
}
