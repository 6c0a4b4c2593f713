//! The AXI memory completers and monitors bound to the RTL's M0 and M1 ports:
//! the wires they drive and read, and a long idle run under back-pressure,
//! ACLKEN ratios and APB traffic with no monitor error and no traffic.

use npu_arch::regs;
use npu_tb::axi::{
    beat_to_words, words_to_beat, AxiPort, AxiPorts, AxiSignals, CompleterConfig, Counters,
    ErrorRange, Resp,
};
use npu_tb::npu::NpuTb;

const SECURE_PRIVILEGED: u8 = 0b001;

#[test]
fn byte_lane_k_is_bits_8k_plus_7_to_8k() {
    let beat: [u8; 16] = std::array::from_fn(|k| k as u8);
    let words = beat_to_words(&beat);
    assert_eq!(words[0], 0x0302_0100);
    assert_eq!(words[3], 0x0F0E_0D0C);
    assert_eq!(words_to_beat(&words), beat);
}

#[test]
fn ports_drive_and_read_the_wires_of_their_manager() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let m1 = AxiPorts::new(&tb.model, AxiPort::M1);
    let s = AxiSignals {
        awready: true,
        rvalid: true,
        rid: 0xA5,
        rdata: std::array::from_fn(|k| 0xF0 | k as u8),
        rresp: 2,
        rlast: true,
        bvalid: true,
        bid: 0x3C,
        bresp: 3,
        ..Default::default()
    };
    m1.drive(&mut tb.model, &s);
    assert_eq!(tb.get("AWREADYM1"), 1);
    assert_eq!(tb.get("WREADYM1"), 0);
    assert_eq!(tb.get("RIDM1"), 0xA5);
    assert_eq!(tb.get("RRESPM1"), 2);
    assert_eq!(tb.get("RLASTM1"), 1);
    assert_eq!(tb.get("BIDM1"), 0x3C);
    assert_eq!(tb.get("BRESPM1"), 3);
    let rdata = tb.model.get_wide(tb.model.port("RDATAM1"));
    assert_eq!(rdata, [0xF3F2_F1F0, 0xF7F6_F5F4, 0xFBFA_F9F8, 0xFFFE_FDFC]);
    assert_eq!(tb.get("RIDM0"), 0, "M0 is not M1");

    // A stopped NPU issues nothing.
    tb.model.eval();
    let mut seen = s;
    m1.sample(&tb.model, &mut seen);
    assert!(!seen.awvalid && !seen.wvalid && !seen.arvalid, "{seen:?}");
}

#[test]
fn idle_bus_under_back_pressure_aclken_ratios_and_apb_traffic() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    let config = CompleterConfig {
        read_latency: 5,
        write_latency: 2,
        ready_probability: 0.5,
        response_probability: 0.6,
        reorder: true,
        errors: vec![ErrorRange {
            range: 0..0x1000,
            resp: Resp::SlvErr,
        }],
        address_map: None,
        max_reads: None,
        max_writes: None,
        bytes_per_cycle: None,
    };
    for port in AxiPort::ALL {
        tb.set_axi_config(port, config.clone());
    }
    tb.set_aclken_pattern(AxiPort::M0, &[true, false]);
    tb.set_aclken_pattern(AxiPort::M1, &[true, true, false]);
    let mut seen = vec![];
    for _ in 0..6 {
        tb.tick();
        seen.push((tb.get("ACLKENM0"), tb.get("ACLKENM1")));
    }
    let cycle = tb.model.cycle() as usize - 6;
    let expected: Vec<_> = (cycle..cycle + 6)
        .map(|c| (u64::from(c % 2 == 0), u64::from(c % 3 != 2)))
        .collect();
    assert_eq!(
        seen, expected,
        "ACLKEN follows the patterns from cycle {cycle}"
    );
    for i in 0..2_000u32 {
        tb.write(regs::QBASE0.address, i, SECURE_PRIVILEGED);
        assert_eq!(tb.read(regs::QBASE0.address, SECURE_PRIVILEGED).rdata, i);
        tb.cycles(40);
    }
    assert!(tb.model.cycle() > 80_000);
    assert!(tb.axi_idle());
    for port in AxiPort::ALL {
        assert_eq!(tb.axi_counters(port), Counters::default(), "{port}");
    }
    for port in ["M0", "M1"] {
        assert_eq!(tb.get(&format!("AWAKEUP{port}")), 0);
    }
}
