//! TRM 4.1 access control: every PORPL x PORSL x PPROT x read/write combination.

use npu_arch::regs::{self, access_permitted};
use npu_tb::npu::NpuTb;

const SECURE_PRIVILEGED: u8 = 0b001;

#[test]
fn access_control_matrix() {
    let qbase0 = regs::QBASE0.address;
    let mut tb = NpuTb::new("u65-256").unwrap();
    for porpl in [false, true] {
        for porsl in [false, true] {
            tb.hard_reset(porpl, porsl);
            let prot = u32::from(porpl) | (u32::from(porsl) << 1);
            assert_eq!(tb.read(regs::PROT.address, SECURE_PRIVILEGED).rdata, prot);
            for pprot in 0..8u8 {
                // Written from this PPROT, then read back by a permitted requester.
                let marker = 0x1000_0000 | (u32::from(pprot) << 8) | prot;
                tb.write(qbase0, 0, SECURE_PRIVILEGED);
                let w = tb.write(qbase0, marker, pprot);
                let stored = tb.read(qbase0, SECURE_PRIVILEGED).rdata;
                let r = tb.read(qbase0, pprot);
                // TRM 4.1 stated directly: PPROT[0] >= CPL and PPROT[1] <= CNS.
                let permitted =
                    (pprot & 1) >= u8::from(porpl) && ((pprot >> 1) & 1) <= u8::from(porsl);
                assert_eq!(
                    permitted,
                    access_permitted(pprot, prot),
                    "the register map's rule"
                );
                let case = format!("PORPL={porpl} PORSL={porsl} PPROT={pprot:03b}");
                assert!(
                    !w.slverr && !r.slverr,
                    "{case}: no PSLVERR for an access-control refusal"
                );
                assert_eq!(stored, if permitted { marker } else { 0 }, "{case}: write");
                assert_eq!(r.rdata, if permitted { marker } else { 0 }, "{case}: read");
            }
        }
    }
}

#[test]
fn non_permitted_reads_of_constant_registers_return_zero() {
    let mut tb = NpuTb::new("u65-256").unwrap();
    tb.hard_reset(true, false);
    let user_secure = 0b000;
    assert_eq!(tb.read(regs::ID.address, user_secure).rdata, 0);
    assert_eq!(
        tb.read(regs::ID.address, SECURE_PRIVILEGED).rdata,
        0x1006_6001
    );
    let nonsecure_privileged = 0b011;
    assert_eq!(tb.read(regs::CID3.address, nonsecure_privileged).rdata, 0);
}
