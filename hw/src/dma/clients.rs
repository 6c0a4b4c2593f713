//! A router's client table as constants: client `i` is `(id, code)`, its AXI
//! ID (ARID or AWID) and its STATUS.faulting_channel code, which is also its
//! PMCAXI_CHAN.CH_SEL code (TRM 4.2.2, 4.5.12).

use rust_hdl::prelude::*;

/// The clients' AXI IDs, in table order.
pub fn ids(clients: &[(u8, u32)]) -> Vec<Constant<Bits<8>>> {
    clients
        .iter()
        .map(|&(id, _)| Constant::new(u64::from(id).into()))
        .collect()
}

/// The clients' faulting-channel codes, in table order.
pub fn channels(clients: &[(u8, u32)]) -> Vec<Constant<Bits<4>>> {
    clients
        .iter()
        .map(|&(_, code)| Constant::new(u64::from(code).into()))
        .collect()
}
