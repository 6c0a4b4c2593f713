//! AxCACHE from AXI_LIMITn.memtype (TRM table 4-31), the bit formula of
//! `npu_arch::regs::memtype_cache`.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct MemtypeCache {
    pub memtype: Signal<In, Bits<4>>,
    pub arcache: Signal<Out, Bits<4>>,
    pub awcache: Signal<Out, Bits<4>>,
}

impl Logic for MemtypeCache {
    #[hdl_gen]
    fn update(&mut self) {
        // 0-3: the memtype itself. Write-through (4-7) and write-back (8-11):
        // read-allocate from bit 0, write-allocate from bit 1, bufferable
        // from bit 3.
        self.arcache.next = self.memtype.val();
        self.awcache.next = self.memtype.val();
        if self.memtype.val() >= 4 {
            self.arcache.next = bits::<4>(0b1010)
                .replace_bit(2, self.memtype.val().get_bit(0))
                .replace_bit(0, self.memtype.val().get_bit(3));
            self.awcache.next = bits::<4>(0b0110)
                .replace_bit(3, self.memtype.val().get_bit(1))
                .replace_bit(0, self.memtype.val().get_bit(3));
        }
    }
}
