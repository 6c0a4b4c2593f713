//! The register file: every register of `npu_arch::regs::REGISTERS`, decoded
//! from the byte address and read through one multiplexer. The PMU page's
//! registers live in the PMU (`crate::pmu`), which answers for them.

use super::bus::{RegisterBus, RegisterTarget};
use super::registers::{ConstantRegister, StorageRegister};
use crate::arch_constants::{address, field_mask};
use npu_arch::config::NpuConfig;
use npu_arch::regs::{self, Behaviour, Page, Register};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RegisterFile {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    /// Access from the APB completer.
    pub bus: RegisterTarget,
    /// Live values (TRM 4.2.2, 4.2.7, 4.2.10).
    pub status: Signal<In, Bits<32>>,
    pub qread: Signal<In, Bits<32>>,
    pub prot: Signal<In, Bits<2>>,
    /// A reset is in progress (TRM 4.2.2 reset_status): every register but
    /// STATUS reads 0, and writes are ignored.
    pub resetting: Signal<In, Bit>,
    /// The PMU's page: the same access, its write dropped during a reset.
    pub pmu: RegisterBus,
    /// A permitted write of CMD; of QBASE0, QBASE1 or QSIZE; of RESET.
    pub cmd_write: Signal<Out, Bit>,
    pub queue_write: Signal<Out, Bit>,
    pub reset_write: Signal<Out, Bit>,
    /// CMD as last written (its Q-channel enables, TRM 4.2.3).
    pub cmd: Signal<Out, Bits<32>>,
    /// Values the central control and the DMA use (TRM 4.2.5-4.2.17, 4.3).
    pub qbase: Signal<Out, Bits<40>>,
    pub qsize: Signal<Out, Bits<32>>,
    pub qconfig: Signal<Out, Bits<2>>,
    pub regioncfg: Signal<Out, Bits<16>>,
    pub axi_limit: Vec<Signal<Out, Bits<32>>>,
    pub basep: Vec<Signal<Out, Bits<32>>>,
    /// Stored registers, [`EXPORTED`] first.
    storage: Vec<StorageRegister>,
    constants: Vec<ConstantRegister>,
    status_address: Constant<Bits<12>>,
    qread_address: Constant<Bits<12>>,
    prot_address: Constant<Bits<12>>,
    cmd_address: Constant<Bits<12>>,
    qbase0_address: Constant<Bits<12>>,
    qbase1_address: Constant<Bits<12>>,
    qsize_address: Constant<Bits<12>>,
    reset_address: Constant<Bits<12>>,
    reset_status: Constant<Bits<32>>,
}

/// Registers whose values leave the register file, at the head of its
/// storage in this order: the update reads them as `storage[0]` to
/// `storage[25]`.
const EXPORTED: [&Register; 26] = [
    &regs::QBASE0,
    &regs::QBASE1,
    &regs::QSIZE,
    &regs::QCONFIG,
    &regs::REGIONCFG,
    &regs::AXI_LIMIT0,
    &regs::AXI_LIMIT1,
    &regs::AXI_LIMIT2,
    &regs::AXI_LIMIT3,
    &regs::BASEP[0],
    &regs::BASEP[1],
    &regs::BASEP[2],
    &regs::BASEP[3],
    &regs::BASEP[4],
    &regs::BASEP[5],
    &regs::BASEP[6],
    &regs::BASEP[7],
    &regs::BASEP[8],
    &regs::BASEP[9],
    &regs::BASEP[10],
    &regs::BASEP[11],
    &regs::BASEP[12],
    &regs::BASEP[13],
    &regs::BASEP[14],
    &regs::BASEP[15],
    &regs::CMD,
];

fn with_behaviour(behaviour: Behaviour) -> impl Iterator<Item = &'static Register> {
    regs::REGISTERS
        .iter()
        .filter(move |r| r.behaviour == behaviour)
}

/// Registers whose reads come from the register file's own storage.
fn is_stored(register: &Register) -> bool {
    register.page != Page::Pmu
        && matches!(
            register.behaviour,
            Behaviour::Storage | Behaviour::Command | Behaviour::SoftReset | Behaviour::Lock
        )
}

impl RegisterFile {
    pub fn new(config: &NpuConfig) -> Self {
        let config_word = config.config_register();
        let live: Vec<&str> = with_behaviour(Behaviour::Live).map(|r| r.name).collect();
        assert_eq!(
            live,
            ["STATUS", "QREAD", "PROT"],
            "live registers without a source"
        );
        for r in regs::REGISTERS {
            assert!(
                r.page == Page::Pmu || is_stored(r) || r.is_read_only(),
                "{} has no place in the register file",
                r.name
            );
        }
        Self {
            clock: Default::default(),
            rst_n: Default::default(),
            bus: Default::default(),
            pmu: Default::default(),
            status: Default::default(),
            qread: Default::default(),
            prot: Default::default(),
            qbase: Default::default(),
            qsize: Default::default(),
            qconfig: Default::default(),
            regioncfg: Default::default(),
            resetting: Default::default(),
            cmd_write: Default::default(),
            queue_write: Default::default(),
            reset_write: Default::default(),
            cmd: Default::default(),
            axi_limit: (0..4).map(|_| Default::default()).collect(),
            basep: (0..16).map(|_| Default::default()).collect(),
            storage: EXPORTED
                .into_iter()
                .chain(
                    regs::REGISTERS
                        .iter()
                        .filter(|r| is_stored(r) && !EXPORTED.contains(r)),
                )
                .map(|r| StorageRegister::new(r, config_word))
                .collect(),
            constants: with_behaviour(Behaviour::Constant)
                .map(|r| ConstantRegister::new(r, config_word))
                .collect(),
            status_address: address(&regs::STATUS),
            qread_address: address(&regs::QREAD),
            prot_address: address(&regs::PROT),
            cmd_address: address(&regs::CMD),
            qbase0_address: address(&regs::QBASE0),
            qbase1_address: address(&regs::QBASE1),
            qsize_address: address(&regs::QSIZE),
            reset_address: address(&regs::RESET),
            reset_status: field_mask(&regs::STATUS, "reset_status"),
        }
    }
}

impl Logic for RegisterFile {
    #[hdl_gen]
    fn update(&mut self) {
        self.bus.rdata.next = 0.into();
        self.bus.defined.next = false;
        // The write the registers take, the PMU's included.
        self.pmu.addr.next = self.bus.addr.val();
        self.pmu.wdata.next = self.bus.wdata.val();
        self.pmu.write.next = self.bus.write.val() & !self.resetting.val();

        for i in 0..self.storage.len() {
            self.storage[i].clock.next = self.clock.val();
            self.storage[i].rst_n.next = self.rst_n.val();
            self.storage[i].addr.next = self.bus.addr.val();
            self.storage[i].write.next = self.pmu.write.val();
            self.storage[i].wdata.next = self.bus.wdata.val();
            if self.storage[i].hit.val() {
                self.bus.rdata.next = self.storage[i].q.val();
                self.bus.defined.next = true;
            }
        }
        for i in 0..self.constants.len() {
            self.constants[i].addr.next = self.bus.addr.val();
            if self.constants[i].hit.val() {
                self.bus.rdata.next = self.constants[i].q.val();
                self.bus.defined.next = true;
            }
        }
        if self.pmu.defined.val() {
            self.bus.rdata.next = self.pmu.rdata.val();
            self.bus.defined.next = true;
        }

        if self.bus.addr.val() == self.status_address.val() {
            self.bus.rdata.next = self.status.val();
            self.bus.defined.next = true;
        }
        if self.bus.addr.val() == self.qread_address.val() {
            self.bus.rdata.next = self.qread.val();
            self.bus.defined.next = true;
        }
        if self.bus.addr.val() == self.prot_address.val() {
            self.bus.rdata.next = bit_cast::<32, 2>(self.prot.val());
            self.bus.defined.next = true;
        }
        if self.resetting.val() {
            self.bus.rdata.next = 0.into();
            if self.bus.addr.val() == self.status_address.val() {
                self.bus.rdata.next = self.reset_status.val();
            }
        }

        self.cmd_write.next =
            self.pmu.write.val() & (self.bus.addr.val() == self.cmd_address.val());
        self.reset_write.next =
            self.pmu.write.val() & (self.bus.addr.val() == self.reset_address.val());
        self.queue_write.next = self.pmu.write.val()
            & ((self.bus.addr.val() == self.qbase0_address.val())
                | (self.bus.addr.val() == self.qbase1_address.val())
                | (self.bus.addr.val() == self.qsize_address.val()));
        // storage[0..25] are EXPORTED, in its order.
        self.qbase.next = bit_cast::<40, 32>(self.storage[0].q.val())
            | (bit_cast::<40, 32>(self.storage[1].q.val()) << 32);
        self.qsize.next = self.storage[2].q.val();
        self.qconfig.next = self.storage[3].q.val().get_bits::<2>(0);
        self.regioncfg.next = self.storage[4].q.val().get_bits::<16>(0);
        for i in 0..4 {
            self.axi_limit[i].next = self.storage[5 + i].q.val();
        }
        for i in 0..16 {
            self.basep[i].next = self.storage[9 + i].q.val();
        }
        self.cmd.next = self.storage[25].q.val();
    }
}
