//! How tight the stream checker's ranges are (issue 57): every bundled
//! network, both configurations, and a sample of the differential fuzzer's
//! streams run on the RTL under the bounds watcher, and for each operation
//! kind and tensor the bytes the checker allows against those no access
//! touched (reads count whole beats). Target: 0 untouched bytes.

use npu_model::job::Backend;
use npu_model::tflite::VelaModel;
use npu_sim::networks::bundled_networks;
use npu_tb::bounds::SlackTally;
use npu_tb::fuzz::Generator;
use npu_tb::rtl_backend::RtlBackend;
use npu_tb::seed::seed;

/// Fuzz streams in the sample.
const FUZZ_CASES: u64 = 200;

fn main() {
    let mut networks = SlackTally::default();
    for network in bundled_networks().expect("the bundled networks") {
        let inputs = network.read_inputs().expect("the network's inputs");
        for model in &network.models {
            let vela = VelaModel::load(model).unwrap();
            let mut rtl = RtlBackend::default();
            if let Err(e) = vela.run(vela.config().unwrap(), &inputs, &mut rtl, &mut |_, _| {}) {
                println!("  {} fails: {e:#}", model.display());
            }
            networks.merge(&rtl.slack);
        }
    }
    print("every bundled network, both configurations", &networks);
    let seed = seed();
    let mut fuzz = SlackTally::default();
    for index in 0..FUZZ_CASES {
        let case = Generator::case(seed, index);
        let mut rtl = RtlBackend {
            axi_configs: case.axi.clone(),
            axi_seed: Some(case.axi_seed),
            ..RtlBackend::default()
        };
        // The fuzzer runs no stream the job runner refuses (UNPREDICTABLE,
        // outside its regions) on the RTL; nor does this.
        let job = case.job();
        if job.check().is_ok() && Backend::run(&mut rtl, &job, &mut |_, _| {}).is_ok() {
            fuzz.merge(&rtl.slack);
        }
    }
    print(&format!("{FUZZ_CASES} fuzz streams of seed {seed}"), &fuzz);
}

fn print(what: &str, tally: &SlackTally) {
    println!("stream checker slack, {what}:");
    println!(
        "  {:<40} {:<6} {:>12} {:>12} {:>8}",
        "operation and tensor", "side", "allowed", "untouched", "share"
    );
    for ((name, write), s) in &tally.0 {
        println!(
            "  {name:<40} {:<6} {:>12} {:>12} {:>7.3}%",
            if *write { "write" } else { "read" },
            s.allowed,
            s.untouched,
            100.0 * s.untouched as f64 / s.allowed.max(1) as f64
        );
    }
    let (allowed, untouched) = tally
        .0
        .values()
        .fold((0, 0), |(a, u), s| (a + s.allowed, u + s.untouched));
    println!(
        "  total: {untouched} of {allowed} allowed bytes untouched ({:.3}%)",
        100.0 * untouched as f64 / allowed.max(1) as f64
    );
}
