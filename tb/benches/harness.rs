//! Rust harness vs a plain C++ Verilator harness: the same APB workload on
//! the same Verilated model, simulated cycles per second of each and the ratio.
//! Also the full bench (`NpuTb::tick`: bus monitors and AXI memory models
//! bound to the ports) on idle cycles, against the same C++ rate, and how
//! long the model's Verilator build took (recorded by the build, which
//! later runs reuse).

use npu_arch::config::NpuConfig;
use npu_tb::npu::{npu_design, NpuTb};
use npu_tb::verilator::build::{build_seconds, runtime_objects};
use npu_tb::verilator::{build, Model, Trace};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const TRANSFERS: u64 = 1_000_000;
const QBASE0: u64 = 0x010;

/// The workload: alternate writes and reads of QBASE0, two cycles per
/// transfer; returns the XOR of the read data so both harnesses prove the same work.
fn rust_workload(model: &mut Model) -> u32 {
    let [psel, penable, pwrite, paddr, pwdata, pstrb, pprot, pready, prdata, nreset, pclken] = [
        "PSEL", "PENABLE", "PWRITE", "PADDR", "PWDATA", "PSTRB", "PPROT", "PREADY", "PRDATA",
        "nRESET", "PCLKEN",
    ]
    .map(|n| model.port(n));
    model.set(pclken, 1);
    model.set(nreset, 0);
    model.tick();
    model.set(nreset, 1);
    for _ in 0..4 {
        model.tick();
    }
    let mut checksum = 0u32;
    for i in 0..TRANSFERS {
        let write = i % 2 == 0;
        model.set(psel, 1);
        model.set(penable, 0);
        model.set(pwrite, u64::from(write));
        model.set(paddr, QBASE0);
        model.set(pwdata, (i as u32).wrapping_mul(2_654_435_761) as u64);
        model.set(pstrb, if write { 0xF } else { 0 });
        model.set(pprot, 1);
        model.tick();
        model.set(penable, 1);
        assert_eq!(model.get(pready), 1);
        checksum ^= model.get(prdata) as u32;
        model.tick();
    }
    checksum
}

const CPP_MAIN: &str = r#"
#include "VMODULE.h"
#include "verilated.h"
#include <chrono>
#include <cstdint>
#include <cstdio>

int main() {
    VerilatedContext context;
    VMODULE top(&context, "MODULE");
    auto tick = [&]() { top.CLK = 0; top.eval(); top.CLK = 1; top.eval(); };
    top.PCLKEN = 1;
    top.nRESET = 0; tick(); top.nRESET = 1;
    for (int i = 0; i < 4; i++) tick();
    auto start = std::chrono::steady_clock::now();
    uint32_t checksum = 0;
    for (uint64_t i = 0; i < TRANSFERS; i++) {
        bool write = i % 2 == 0;
        top.PSEL = 1; top.PENABLE = 0; top.PWRITE = write; top.PADDR = 0x010;
        top.PWDATA = (uint32_t)i * 2654435761u; top.PSTRB = write ? 0xF : 0; top.PPROT = 1;
        tick();
        top.PENABLE = 1;
        if (top.PREADY != 1) return 2;
        checksum ^= top.PRDATA;
        tick();
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%llu %.6f %u\n", (unsigned long long)(2 * TRANSFERS), seconds, checksum);
    return 0;
}
"#;

fn cpp_workload(lib: &Path, module: &str) -> (u64, f64, u32) {
    let dir = lib.parent().unwrap();
    let obj = dir.join("obj");
    let main = dir.join("bench_main.cpp");
    let exe = dir.join("bench_cpp");
    let source = CPP_MAIN
        .replace("MODULE", module)
        .replace("TRANSFERS", &TRANSFERS.to_string());
    std::fs::write(&main, source).unwrap();
    let include = Path::new("/usr/share/verilator/include");
    let status = Command::new("g++")
        .args(["-O3", "-std=c++17"])
        .arg("-I")
        .arg(&obj)
        .arg("-I")
        .arg(include)
        .arg("-I")
        .arg(include.join("vltstd"))
        .arg(&main)
        .arg(obj.join(format!("V{module}__ALL.a")))
        .args(runtime_objects(&obj, Trace::Off))
        .args(["-lpthread", "-o"])
        .arg(&exe)
        .status()
        .expect("g++ runs");
    assert!(status.success(), "building the C++ harness failed");
    let out = Command::new(&exe).output().expect("the C++ harness runs");
    assert!(out.status.success(), "the C++ harness failed");
    let text = String::from_utf8(out.stdout).unwrap();
    let f: Vec<&str> = text.split_whitespace().collect();
    (
        f[0].parse().unwrap(),
        f[1].parse().unwrap(),
        f[2].parse().unwrap(),
    )
}

fn main() {
    let module = "npu_u65_256";
    let design = npu_design(&NpuConfig::u65_256()).expect("make verilog first");
    let lib = build(&design, Trace::Off).expect("Verilator build");
    match build_seconds(&lib) {
        Some(s) => println!(
            "Verilator build of {module} (untraced; Verilator, C++ compile, link): {s:.0} s, \
             when {} was built",
            lib.display()
        ),
        None => println!("Verilator build of {module}: not timed (built before builds were timed)"),
    }
    let mut model = Model::new(&design, "CLK").expect("model");

    let (cpp_cycles, cpp_seconds, cpp_checksum) = cpp_workload(&lib, module);
    let start = model.cycle();
    let t = Instant::now();
    let rust_checksum = rust_workload(&mut model);
    let rust_seconds = t.elapsed().as_secs_f64();
    let rust_cycles = model.cycle() - start - 5;
    assert_eq!(
        (rust_cycles, rust_checksum),
        (cpp_cycles, cpp_checksum),
        "the two harnesses did different work"
    );

    let rust_rate = rust_cycles as f64 / rust_seconds;
    let cpp_rate = cpp_cycles as f64 / cpp_seconds;
    println!("APB workload on {module}: {TRANSFERS} transfers, {rust_cycles} cycles");
    println!("  plain C++ Verilator harness: {:>12.0} cycles/s", cpp_rate);
    println!(
        "  Rust harness (npu-tb):       {:>12.0} cycles/s",
        rust_rate
    );
    println!(
        "  Rust / C++ speed ratio:      {:>12.3} (target >= 0.9)",
        rust_rate / cpp_rate
    );

    let mut tb = NpuTb::new("u65-256").expect("bench");
    let t = Instant::now();
    tb.cycles(2 * TRANSFERS);
    let tb_rate = (2 * TRANSFERS) as f64 / t.elapsed().as_secs_f64();
    println!("NpuTb::tick on idle cycles (monitors and AXI models bound):");
    println!("  NpuTb:                       {:>12.0} cycles/s", tb_rate);
    println!(
        "  NpuTb / C++ speed ratio:     {:>12.3}",
        tb_rate / cpp_rate
    );
}
