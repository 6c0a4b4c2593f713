//! Kernel-operation dispatch: what central control hands the datapath
//! (`crate::datapath`).
//!
//! TRM 4.6.1: kernel operations are non-blocking. Central control captures
//! the kernel units' NPU_SET_* values with the operation ([`KernelOperation`])
//! into a queue and parses on; the datapath takes operations from the queue
//! in order, so values set after a dispatch never reach an operation already
//! dispatched (TRM 4.6.2).

use super::op_state::OperationState;
use rust_hdl::prelude::*;

/// A dispatched kernel operation: its opcode and parameter (TRM 4.6.4:
/// NPU_OP_CONV, _DEPTHWISE, _POOL, _ELEMENTWISE), the operation state at
/// dispatch, and the command's byte offset in the stream (QREAD if the
/// operation fails).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct KernelOperation {
    pub code: Bits<10>,
    pub param: Bits<16>,
    pub state: OperationState,
    pub offset: Bits<32>,
}

/// The kernel operations a datapath runs, one bit per NPU_OP_*. Central
/// control refuses any other with STATUS.cmd_parse_error, so an operation
/// the datapath cannot run is never skipped silently.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct KernelKinds {
    pub conv: Bit,
    pub depthwise: Bit,
    pub pool: Bit,
    pub elementwise: Bit,
    /// NPU_SET_PARALLEL_MODE 1 (TRM 4.7.5.1: two cores, u65-512 only) for
    /// NPU_OP_CONV, NPU_OP_DEPTHWISE and NPU_OP_POOL; refused on a
    /// one-core configuration.
    pub parallel: Bit,
}

/// Whether NPU_OP_ELEMENTWISE's mode exists and takes the IFM and OFM types
/// (TRM 4.8.2 table 4-124, as the golden model's `validate_elementwise`):
/// MUL, ADD and SUB any types; MIN, MAX, LRELU and ABS one 8- or 16-bit
/// type in and out; SHR int32 to an 8-bit type, int16 or int32; CLZ and
/// SHL int32 to int32. Precisions by their TRM codes (0 8-bit, 1 16-bit,
/// 2 32-bit; 3 is reserved, and a 32-bit type is signed).
#[derive(LogicBlock)]
pub struct ElementwiseTypes {
    pub mode: Signal<In, Bits<16>>,
    pub ifm_precision: Signal<In, Bits<2>>,
    pub ifm_signed: Signal<In, Bit>,
    pub ofm_precision: Signal<In, Bits<2>>,
    pub ofm_signed: Signal<In, Bit>,
    pub allowed: Signal<Out, Bit>,
    min_mode: Constant<Bits<16>>,
    abs_mode: Constant<Bits<16>>,
    clz_mode: Constant<Bits<16>>,
    shr_mode: Constant<Bits<16>>,
    shl_mode: Constant<Bits<16>>,
    ifm_int32: Signal<Local, Bit>,
    ofm_int32: Signal<Local, Bit>,
}

impl Default for ElementwiseTypes {
    fn default() -> Self {
        use npu_spec::command::ElementwiseMode as M;
        let mode = |m: M| Constant::new(u64::from(m.bits()).into());
        // MIN..ABS are one range of codes, CLZ..SHL another.
        const _: () = assert!(
            M::Max as u32 == M::Min as u32 + 1
                && M::Lrelu as u32 == M::Min as u32 + 2
                && M::Abs as u32 == M::Min as u32 + 3
                && M::Shr as u32 == M::Clz as u32 + 1
                && M::Shl as u32 == M::Clz as u32 + 2
        );
        Self {
            mode: Default::default(),
            ifm_precision: Default::default(),
            ifm_signed: Default::default(),
            ofm_precision: Default::default(),
            ofm_signed: Default::default(),
            allowed: Default::default(),
            min_mode: mode(M::Min),
            abs_mode: mode(M::Abs),
            clz_mode: mode(M::Clz),
            shr_mode: mode(M::Shr),
            shl_mode: mode(M::Shl),
            ifm_int32: Default::default(),
            ofm_int32: Default::default(),
        }
    }
}

impl Logic for ElementwiseTypes {
    #[hdl_gen]
    fn update(&mut self) {
        self.ifm_int32.next = (self.ifm_precision.val() == 2) & self.ifm_signed.val();
        self.ofm_int32.next = (self.ofm_precision.val() == 2) & self.ofm_signed.val();
        // MUL, ADD, SUB: any defined type (no 32-bit one is unsigned).
        self.allowed.next = ((self.ifm_precision.val() < 2) | self.ifm_int32.val())
            & ((self.ofm_precision.val() < 2) | self.ofm_int32.val());
        if (self.mode.val() >= self.min_mode.val()) & (self.mode.val() <= self.abs_mode.val()) {
            self.allowed.next = (self.ifm_precision.val() == self.ofm_precision.val())
                & (self.ifm_signed.val() == self.ofm_signed.val())
                & (self.ifm_precision.val() < 2);
        }
        if self.mode.val() == self.shr_mode.val() {
            self.allowed.next = self.ifm_int32.val()
                & ((self.ofm_precision.val() == 0)
                    | ((self.ofm_precision.val() != 3) & self.ofm_signed.val()));
        }
        if (self.mode.val() == self.clz_mode.val()) | (self.mode.val() == self.shl_mode.val()) {
            self.allowed.next = self.ifm_int32.val() & self.ofm_int32.val();
        }
        if self.mode.val() > self.shl_mode.val() {
            self.allowed.next = false;
        }
    }
}
