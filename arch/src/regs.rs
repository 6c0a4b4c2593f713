//! Register map: BASE, BASE_POINTERS, ID and PMU pages (TRM 4.2-4.5).
//!
//! Every register the NPU decodes is listed once in [`REGISTERS`], with its
//! fields, access type, reset value and the hardware behaviour behind it.

use serde::Serialize;

/// The four register pages of TRM chapter 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Page {
    Base,
    BasePointers,
    Id,
    Pmu,
}

/// How a field answers reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FieldAccess {
    /// Stored; reads return the last permitted write.
    ReadWrite,
    /// Reads return a value the hardware supplies; writes are ignored.
    ReadOnly,
    /// Writing 1 performs an action; the field always reads 0.
    WriteAction,
}

/// One named bit field of a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
    pub access: FieldAccess,
    pub description: &'static str,
}

impl Field {
    /// The field's bits in place within the register.
    pub const fn mask(&self) -> u32 {
        let ones = if self.width >= 32 {
            u32::MAX
        } else {
            (1u32 << self.width) - 1
        };
        ones << self.lsb
    }

    /// Extracts this field from a register value.
    pub const fn get(&self, value: u32) -> u32 {
        (value & self.mask()) >> self.lsb
    }

    /// Returns `value` with this field replaced by `field`.
    pub const fn set(&self, value: u32, field: u32) -> u32 {
        (value & !self.mask()) | ((field << self.lsb) & self.mask())
    }
}

/// Where a register's reset value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ResetValue {
    Fixed(u32),
    /// The configuration's CONFIG word (TRM 4.2.11).
    Config,
    /// PROT after a hard reset: active_CSL = PORSL, active_CPL = PORPL (TRM 4.2.10).
    PowerOnLevels,
}

/// What the hardware does behind a register, beyond its field access types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Behaviour {
    /// Plain storage: the ReadWrite fields hold the last permitted write.
    Storage,
    /// A read-only value fixed by the design or the configuration.
    Constant,
    /// A read-only view of internal state (STATUS, QREAD, PROT).
    Live,
    /// TRM 4.2.12: a write is taken only when the current or the new value is 0.
    Lock,
    /// TRM 4.2.3: storage that reads as last written, whose bits also act.
    Command,
    /// TRM 4.2.4: storage of the pending PROT levels; a permitted write requests a soft reset.
    SoftReset,
    /// TRM 4.5.1: control with self-clearing action bits.
    PmuControl,
    /// TRM 4.5.4, 4.5.10-11: a PMU counter; reads return the count, a write sets it.
    Counter,
    /// Writing 1 sets bits of state shared with the paired clear register; reads show the state.
    SetBits(SharedBits),
    /// Writing 1 clears bits of state shared with the paired set register; reads show the state.
    ClearBits(SharedBits),
}

/// PMU state reached through a set/clear register pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SharedBits {
    CounterEnable,
    Overflow,
    InterruptEnable,
}

/// One 32-bit register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Register {
    pub name: &'static str,
    /// Byte offset from the NPU's APB base address.
    pub address: u16,
    pub page: Page,
    pub behaviour: Behaviour,
    pub reset: ResetValue,
    pub fields: &'static [Field],
    /// The TRM section describing the register.
    pub trm: &'static str,
    pub description: &'static str,
}

impl Register {
    /// Bits that any field covers; all other bits are reserved and read as zero.
    pub fn defined_mask(&self) -> u32 {
        self.fields.iter().fold(0, |m, f| m | f.mask())
    }

    /// Bits a permitted write stores.
    pub fn stored_mask(&self) -> u32 {
        self.mask_of(FieldAccess::ReadWrite)
    }

    /// Bits whose write acts and which always read 0.
    pub fn action_mask(&self) -> u32 {
        self.mask_of(FieldAccess::WriteAction)
    }

    fn mask_of(&self, access: FieldAccess) -> u32 {
        self.fields
            .iter()
            .filter(|f| f.access == access)
            .fold(0, |m, f| m | f.mask())
    }

    /// Bits that read their reset value whatever is written: ReadOnly fields
    /// of a register that also stores (PMCR.num_event_cnt).
    pub fn fixed_bits(&self, config_word: u32) -> u32 {
        self.reset_value(config_word, false, false) & !self.stored_mask() & !self.action_mask()
    }

    /// True when no permitted write can change what the register reads.
    pub fn is_read_only(&self) -> bool {
        matches!(self.behaviour, Behaviour::Constant | Behaviour::Live)
    }

    /// The field called `name`.
    ///
    /// # Panics
    /// When the register has no such field: a typo in the project's own code.
    pub fn field(&self, name: &str) -> &'static Field {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("register {} has no field {name}", self.name))
    }

    /// The register's value right after a hard reset.
    pub fn reset_value(&self, config_word: u32, porpl: bool, porsl: bool) -> u32 {
        match self.reset {
            ResetValue::Fixed(v) => v,
            ResetValue::Config => config_word,
            ResetValue::PowerOnLevels => u32::from(porpl) | (u32::from(porsl) << 1),
        }
    }
}

const fn field(
    name: &'static str,
    lsb: u32,
    width: u32,
    access: FieldAccess,
    description: &'static str,
) -> Field {
    Field {
        name,
        lsb,
        width,
        access,
        description,
    }
}
const fn rw(name: &'static str, lsb: u32, width: u32, description: &'static str) -> Field {
    field(name, lsb, width, FieldAccess::ReadWrite, description)
}
const fn ro(name: &'static str, lsb: u32, width: u32, description: &'static str) -> Field {
    field(name, lsb, width, FieldAccess::ReadOnly, description)
}
const fn action(name: &'static str, lsb: u32, width: u32, description: &'static str) -> Field {
    field(name, lsb, width, FieldAccess::WriteAction, description)
}

#[allow(clippy::too_many_arguments)] // mirrors the columns of the TRM register tables
const fn reg(
    name: &'static str,
    address: u16,
    page: Page,
    behaviour: Behaviour,
    reset: u32,
    fields: &'static [Field],
    trm: &'static str,
    description: &'static str,
) -> Register {
    Register {
        name,
        address,
        page,
        behaviour,
        reset: ResetValue::Fixed(reset),
        fields,
        trm,
        description,
    }
}

// ---- BASE page (TRM 4.2) ----

pub const ID: Register = reg(
    "ID",
    0x000,
    Page::Base,
    Behaviour::Constant,
    0x1006_6001,
    &[
        ro(
            "arch_major_rev",
            28,
            4,
            "Major architecture version a in a.b",
        ),
        ro(
            "arch_minor_rev",
            20,
            8,
            "Minor architecture version b in a.b",
        ),
        ro(
            "arch_patch_rev",
            16,
            4,
            "Patch number of the architecture version",
        ),
        ro("product_major", 12, 4, "X-part of the ML00X product number"),
        ro("version_major", 8, 4, "R-part of the RnPn release number"),
        ro("version_minor", 4, 4, "P-part of the RnPn release number"),
        ro("version_status", 0, 4, "Version of the product"),
    ],
    "4.2.1",
    "ID register",
);

pub const STATUS: Register = reg("STATUS", 0x004, Page::Base, Behaviour::Live, 0, &[
    ro("irq_history_mask", 16, 16, "IRQ history: the masks of IRQ operations ORed together, cleared through CMD"),
    ro("faulting_channel", 12, 4, "Channel of a bus abort: read 0=Cmd 1=IFM 2=Weights 3=Scale+Bias 4=Mem2Mem; write 8=OFM 9=Mem2Mem"),
    ro("faulting_interface", 11, 1, "Interface of a bus abort: 0=AXI-M0, 1=AXI-M1"),
    ro("ecc_fault", 8, 1, "ECC fault signalled on an internal RAM; cleared only by reset"),
    ro("wd_fault", 7, 1, "Never set in this product"),
    ro("pmu_irq_raised", 6, 1, "PMU IRQ raised; cleared through CMD.clear_irq"),
    ro("cmd_end_reached", 5, 1, "End of command stream reached; cleared by writing QBASE or QSIZE while stopped"),
    ro("cmd_parse_error", 4, 1, "Command-stream parse error; cleared only by reset"),
    ro("reset_status", 3, 1, "A reset is in progress: other registers read 0 and ignore writes"),
    ro("bus_status", 2, 1, "Bus abort detected and processing halted; cleared only by reset"),
    ro("irq_raised", 1, 1, "Raw IRQ status; cleared through CMD.clear_irq"),
    ro("state", 0, 1, "0 = stopped, 1 = running"),
], "4.2.2", "Current operating status of the NPU");

pub const CMD: Register = reg(
    "CMD",
    0x008,
    Page::Base,
    Behaviour::Command,
    0x0000_000C,
    &[
        rw(
            "clear_irq_history",
            16,
            16,
            "Bit k clears bit k of STATUS.irq_history_mask",
        ),
        rw(
            "power_q_enable",
            3,
            1,
            "Enable power off through the power Q-channel",
        ),
        rw(
            "clock_q_enable",
            2,
            1,
            "Enable clock off through the clock Q-channel and the main clock gate",
        ),
        rw(
            "clear_irq",
            1,
            1,
            "Write 1 to clear STATUS.irq_raised and STATUS.pmu_irq_raised",
        ),
        rw(
            "transition_to_running_state",
            0,
            1,
            "Write 1 to start executing the command stream",
        ),
    ],
    "4.2.3",
    "Command register; reads as last written command",
);

pub const RESET: Register = reg(
    "RESET",
    0x00C,
    Page::Base,
    Behaviour::SoftReset,
    0,
    &[
        rw(
            "pending_CSL",
            1,
            1,
            "Security level after the soft reset: 0 = secure, 1 = non-secure",
        ),
        rw(
            "pending_CPL",
            0,
            1,
            "Privilege level after the soft reset: 0 = user, 1 = privileged",
        ),
    ],
    "4.2.4",
    "Request a soft reset and a new security mode",
);

pub const QBASE0: Register = reg(
    "QBASE0",
    0x010,
    Page::Base,
    Behaviour::Storage,
    0,
    &[rw(
        "QBASE0",
        0,
        32,
        "Command stream base address bits [31:0], 4-byte aligned",
    )],
    "4.2.5",
    "Command queue base address, low word",
);

pub const QBASE1: Register = reg(
    "QBASE1",
    0x014,
    Page::Base,
    Behaviour::Storage,
    0,
    &[rw(
        "QBASE1",
        0,
        32,
        "Command stream base address bits [39:32]",
    )],
    "4.2.6",
    "Command queue base address, high word",
);

pub const QREAD: Register = reg(
    "QREAD",
    0x018,
    Page::Base,
    Behaviour::Live,
    0,
    &[ro(
        "QREAD",
        0,
        32,
        "Byte offset of the command under execution",
    )],
    "4.2.7",
    "Read offset in the command stream",
);

pub const QCONFIG: Register = reg(
    "QCONFIG",
    0x01C,
    Page::Base,
    Behaviour::Storage,
    0,
    &[rw(
        "QCONFIG",
        0,
        32,
        "AXI configuration of the command stream, encoded as a REGIONCFG region",
    )],
    "4.2.8",
    "AXI configuration for the command stream",
);

pub const QSIZE: Register = reg(
    "QSIZE",
    0x020,
    Page::Base,
    Behaviour::Storage,
    0,
    &[rw(
        "QSIZE",
        0,
        32,
        "Size in bytes of the next command stream",
    )],
    "4.2.9",
    "Size of the command stream",
);

pub const PROT: Register = Register {
    reset: ResetValue::PowerOnLevels,
    ..reg(
        "PROT",
        0x024,
        Page::Base,
        Behaviour::Live,
        0,
        &[
            ro(
                "active_CSL",
                1,
                1,
                "Security level used as AxPROT[1]: 0 = secure, 1 = non-secure",
            ),
            ro(
                "active_CPL",
                0,
                1,
                "Privilege level used as AxPROT[0]: 0 = user, 1 = privileged",
            ),
        ],
        "4.2.10",
        "Protection level of the NPU as an AXI manager",
    )
};

pub const CONFIG: Register = Register {
    reset: ResetValue::Config,
    ..reg(
        "CONFIG",
        0x028,
        Page::Base,
        Behaviour::Constant,
        0,
        &[
            ro("product", 28, 4, "Product configuration"),
            ro(
                "shram_size",
                8,
                8,
                "Shared buffer size in KB: 0x30 = 48 KB, 0x60 = 96 KB",
            ),
            ro(
                "cmd_stream_version",
                4,
                4,
                "Command-stream version accepted",
            ),
            ro("macs_per_cc", 0, 4, "log2(MACs per clock cycle)"),
        ],
        "4.2.11",
        "RTL configuration",
    )
};

pub const LOCK: Register = reg(
    "LOCK",
    0x02C,
    Page::Base,
    Behaviour::Lock,
    0,
    &[rw("LOCK", 0, 32, "Driver lock value")],
    "4.2.12",
    "Lock register for driver use",
);

const fn region_field(k: u32) -> Field {
    const NAMES: [&str; 8] = [
        "region0", "region1", "region2", "region3", "region4", "region5", "region6", "region7",
    ];
    rw(
        NAMES[k as usize],
        2 * k,
        2,
        "AXI port and outstanding counter: 0,1 = AXI0 counter 0,1; 2,3 = AXI1 counter 2,3",
    )
}

pub const REGIONCFG: Register = reg(
    "REGIONCFG",
    0x03C,
    Page::Base,
    Behaviour::Storage,
    0,
    &[
        region_field(7),
        region_field(6),
        region_field(5),
        region_field(4),
        region_field(3),
        region_field(2),
        region_field(1),
        region_field(0),
    ],
    "4.2.13",
    "Memory type of each base-pointer region",
);

/// REGIONCFG as Arm's Ethos-U core driver programs it for the U65
/// (`ethosu_config_u65.h`: NPU_REGIONCFG_0 3, _1 2, _2.._7 1): the counter of
/// each region, so regions 0 and 1 read through M1 and the others through M0.
/// The testbench driver programs it and the golden model reports bus faults
/// with it.
pub const DRIVER_REGIONCFG: [u32; REGION_COUNT] = [3, 2, 1, 1, 1, 1, 1, 1];

/// The AXI port of an outstanding counter (REGIONCFG, QCONFIG, TRM 4.2.13):
/// 0 and 1 are on M0, 2 and 3 on M1.
pub const fn counter_port(counter: u32) -> u32 {
    counter >> 1
}

/// STATUS.faulting_channel codes (TRM table 4-3): the traffic of a bus abort.
pub mod faulting_channel {
    pub const COMMAND: u32 = 0;
    pub const IFM: u32 = 1;
    pub const WEIGHTS: u32 = 2;
    pub const SCALE: u32 = 3;
    pub const MEM2MEM_READ: u32 = 4;
    pub const OFM: u32 = 8;
    pub const MEM2MEM_WRITE: u32 = 9;
}

const AXI_LIMIT_FIELDS: &[Field] = &[
    rw(
        "max_outstanding_write_m1",
        24,
        8,
        "Maximum outstanding AXI writes - 1, 0-31",
    ),
    rw(
        "max_outstanding_read_m1",
        16,
        8,
        "Maximum outstanding AXI reads - 1, 0-63",
    ),
    rw(
        "memtype",
        4,
        4,
        "Memory type, encodes AxCACHE (TRM table 4-31)",
    ),
    rw(
        "max_beats",
        0,
        2,
        "Burst-split alignment: 0 = 64 B, 1 = 128 B, 2 = 256 B",
    ),
];

pub const AXI_LIMIT0: Register = reg(
    "AXI_LIMIT0",
    0x040,
    Page::Base,
    Behaviour::Storage,
    0,
    AXI_LIMIT_FIELDS,
    "4.2.14",
    "AXI limits for port 0 counter 0",
);
pub const AXI_LIMIT1: Register = reg(
    "AXI_LIMIT1",
    0x044,
    Page::Base,
    Behaviour::Storage,
    0,
    AXI_LIMIT_FIELDS,
    "4.2.15",
    "AXI limits for port 0 counter 1",
);
pub const AXI_LIMIT2: Register = reg(
    "AXI_LIMIT2",
    0x048,
    Page::Base,
    Behaviour::Storage,
    0,
    AXI_LIMIT_FIELDS,
    "4.2.16",
    "AXI limits for port 1 counter 2",
);
pub const AXI_LIMIT3: Register = reg(
    "AXI_LIMIT3",
    0x04C,
    Page::Base,
    Behaviour::Storage,
    0,
    AXI_LIMIT_FIELDS,
    "4.2.17",
    "AXI limits for port 1 counter 3",
);

/// ARCACHE and AWCACHE for an `AXI_LIMITn.memtype` value (TRM table 4-31).
///
/// Values 0-3 drive both signals with the memtype itself; 4-7 are the
/// write-through and 8-11 the write-back types, whose read/write allocate
/// bits come from memtype bits 0 and 1. The reserved values 12-15 follow the
/// same bit formula (write-back).
pub const fn memtype_cache(memtype: u32) -> (u32, u32) {
    let m = memtype & 0xf;
    if m < 4 {
        return (m, m);
    }
    let write_back = (m >> 3) & 1;
    let read = 0b1010 | ((m & 1) << 2) | write_back;
    let write = 0b0110 | (((m >> 1) & 1) << 3) | write_back;
    (read, write)
}

/// STATUS.faulting_channel values (TRM 4.2.2): the DMA channel of a bus abort.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FaultingChannel {
    CommandRead = 0,
    IfmRead = 1,
    WeightRead = 2,
    ScaleBiasRead = 3,
    Mem2MemRead = 4,
    OfmWrite = 8,
    Mem2MemWrite = 9,
}

// ---- BASE_POINTERS page (TRM 4.3): BASEP[2k] and BASEP[2k+1] are the low and high words of region k ----

/// Number of base-pointer regions (TRM 4.3).
pub const REGION_COUNT: usize = 8;

const BASEP_FIELDS: &[Field] = &[rw(
    "addr_word",
    0,
    32,
    "One word of a region's base address",
)];

macro_rules! basep {
    ($($name:ident = $addr:literal, $trm:literal, $desc:literal;)*) => {
        $(pub const $name: Register = reg(stringify!($name), $addr, Page::BasePointers, Behaviour::Storage, 0, BASEP_FIELDS, $trm, $desc);)*
        /// BASEP0 to BASEP15 in address order.
        pub const BASEP: [Register; 2 * REGION_COUNT] = [$($name),*];
    };
}

basep! {
    BASEP0 = 0x080, "4.3.1", "Base pointer of region 0, bits [31:0]";
    BASEP1 = 0x084, "4.3.2", "Base pointer of region 0, bits [63:32]";
    BASEP2 = 0x088, "4.3.3", "Base pointer of region 1, bits [31:0]";
    BASEP3 = 0x08C, "4.3.4", "Base pointer of region 1, bits [63:32]";
    BASEP4 = 0x090, "4.3.5", "Base pointer of region 2, bits [31:0]";
    BASEP5 = 0x094, "4.3.6", "Base pointer of region 2, bits [63:32]";
    BASEP6 = 0x098, "4.3.7", "Base pointer of region 3, bits [31:0]";
    BASEP7 = 0x09C, "4.3.8", "Base pointer of region 3, bits [63:32]";
    BASEP8 = 0x0A0, "4.3.9", "Base pointer of region 4, bits [31:0]";
    BASEP9 = 0x0A4, "4.3.10", "Base pointer of region 4, bits [63:32]";
    BASEP10 = 0x0A8, "4.3.11", "Base pointer of region 5, bits [31:0]";
    BASEP11 = 0x0AC, "4.3.12", "Base pointer of region 5, bits [63:32]";
    BASEP12 = 0x0B0, "4.3.13", "Base pointer of region 6, bits [31:0]";
    BASEP13 = 0x0B4, "4.3.14", "Base pointer of region 6, bits [63:32]";
    BASEP14 = 0x0B8, "4.3.15", "Base pointer of region 7, bits [31:0]";
    BASEP15 = 0x0BC, "4.3.16", "Base pointer of region 7, bits [63:32]";
}

// ---- ID page (TRM 4.4) ----

macro_rules! id_bytes {
    ($($name:ident = $addr:literal, $reset:literal, $trm:literal, $desc:literal;)*) => {
        $(pub const $name: Register = reg(stringify!($name), $addr, Page::Id, Behaviour::Constant, $reset,
            &[ro(stringify!($name), 0, 8, $desc)], $trm, $desc);)*
    };
}

id_bytes! {
    PID4 = 0xFD0, 0x04, "4.4.1", "Peripheral ID byte 4 (Arm = code 4)";
    PID5 = 0xFD4, 0x00, "4.4.2", "Peripheral ID byte 5 (reserved)";
    PID6 = 0xFD8, 0x00, "4.4.3", "Peripheral ID byte 6 (reserved)";
    PID7 = 0xFDC, 0x00, "4.4.4", "Peripheral ID byte 7 (reserved)";
    PID0 = 0xFE0, 0x80, "4.4.5", "Peripheral ID byte 0: part number bits [7:0]";
    PID1 = 0xFE4, 0xB5, "4.4.6", "Peripheral ID byte 1: part number bits [11:8], Arm ID bits [3:0]";
    PID2 = 0xFE8, 0x0B, "4.4.7", "Peripheral ID byte 2: Arm ID bits [6:4], format B";
    PID3 = 0xFEC, 0x00, "4.4.8", "Peripheral ID byte 3";
    CID0 = 0xFF0, 0x0D, "4.4.9", "Component ID byte 0";
    CID1 = 0xFF4, 0xF0, "4.4.10", "Component ID byte 1";
    CID2 = 0xFF8, 0x05, "4.4.11", "Component ID byte 2";
    CID3 = 0xFFC, 0xB1, "4.4.12", "Component ID byte 3";
}

// ---- PMU page (TRM 4.5) ----

/// Number of PMU event counters (TRM 4.5.1: hard-coded to four).
pub const PMU_EVENT_COUNTERS: usize = 4;

pub const PMCR: Register = reg(
    "PMCR",
    0x180,
    Page::Pmu,
    Behaviour::PmuControl,
    0x0000_2000,
    &[
        ro("num_event_cnt", 11, 5, "Number of event counters: 4"),
        rw(
            "mask_en",
            3,
            1,
            "NPU_OP_PMU_MASK may enable and disable counting",
        ),
        action("cycle_cnt_rst", 2, 1, "Write 1 to reset the cycle counter"),
        action("event_cnt_rst", 1, 1, "Write 1 to reset the event counters"),
        rw("cnt_en", 0, 1, "PMU main enable"),
    ],
    "4.5.1",
    "PMU main control register",
);

macro_rules! pmu_pair {
    ($set:ident = $set_addr:literal, $set_trm:literal, $clr:ident = $clr_addr:literal, $clr_trm:literal,
     $state:ident, $what:literal) => {
        pub const $set: Register = reg(
            stringify!($set),
            $set_addr,
            Page::Pmu,
            Behaviour::SetBits(SharedBits::$state),
            0,
            &PMU_PAIR_FIELDS_OF[SharedBits::$state as usize],
            $set_trm,
            concat!($what, " set register"),
        );
        pub const $clr: Register = reg(
            stringify!($clr),
            $clr_addr,
            Page::Pmu,
            Behaviour::ClearBits(SharedBits::$state),
            0,
            &PMU_PAIR_FIELDS_OF[SharedBits::$state as usize],
            $clr_trm,
            concat!($what, " clear register"),
        );
    };
}

const fn pmu_pair_fields(names: [&'static str; 5], description: &'static str) -> [Field; 5] {
    [
        rw(names[0], 31, 1, description),
        rw(names[1], 3, 1, description),
        rw(names[2], 2, 1, description),
        rw(names[3], 1, 1, description),
        rw(names[4], 0, 1, description),
    ]
}

const PMU_PAIR_FIELDS_OF: [[Field; 5]; 3] = [
    pmu_pair_fields(
        [
            "CYCLE_CNT",
            "EVENT_CNT_3",
            "EVENT_CNT_2",
            "EVENT_CNT_1",
            "EVENT_CNT_0",
        ],
        "Counter enable",
    ),
    pmu_pair_fields(
        [
            "CYCLE_CNT_OVF",
            "EVENT_CNT_3_OVF",
            "EVENT_CNT_2_OVF",
            "EVENT_CNT_1_OVF",
            "EVENT_CNT_0_OVF",
        ],
        "Counter overflow flag",
    ),
    pmu_pair_fields(
        [
            "CYCLE_CNT_INT",
            "EVENT_CNT_3_INT",
            "EVENT_CNT_2_INT",
            "EVENT_CNT_1_INT",
            "EVENT_CNT_0_INT",
        ],
        "Overflow interrupt enable",
    ),
];

pmu_pair!(
    PMCNTENSET = 0x184,
    "4.5.2",
    PMCNTENCLR = 0x188,
    "4.5.3",
    CounterEnable,
    "Count-enable"
);
pmu_pair!(
    PMOVSSET = 0x18C,
    "4.5.6",
    PMOVSCLR = 0x190,
    "4.5.7",
    Overflow,
    "Overflow-flag status"
);
pmu_pair!(
    PMINTSET = 0x194,
    "4.5.8",
    PMINTCLR = 0x198,
    "4.5.9",
    InterruptEnable,
    "Interrupt-enable"
);

pub const PMCCNTR_LO: Register = reg(
    "PMCCNTR_LO",
    0x1A0,
    Page::Pmu,
    Behaviour::Counter,
    0,
    &[rw("CYCLE_CNT_LO", 0, 32, "Cycle count bits [31:0]")],
    "4.5.10",
    "Cycle counter, low word",
);

pub const PMCCNTR_HI: Register = reg(
    "PMCCNTR_HI",
    0x1A4,
    Page::Pmu,
    Behaviour::Counter,
    0,
    &[rw("CYCLE_CNT_HI", 0, 16, "Cycle count bits [47:32]")],
    "4.5.11",
    "Cycle counter, high word",
);

pub const PMCAXI_CHAN: Register = reg(
    "PMCAXI_CHAN",
    0x1AC,
    Page::Pmu,
    Behaviour::Storage,
    0,
    &[
        rw(
            "BW_CH_SEL_EN",
            10,
            1,
            "Measure AXI bandwidth events only for channel CH_SEL",
        ),
        rw(
            "AXI_CNT_SEL",
            8,
            2,
            "AXI counter monitored for latency events",
        ),
        rw(
            "CH_SEL",
            0,
            4,
            "Traffic type for bandwidth and latency events",
        ),
    ],
    "4.5.12",
    "AXI channel monitored by the PMU",
);

macro_rules! pmu_counters {
    ($($name:ident = $addr:literal, $behaviour:ident, $trm:literal, $field:literal, $width:expr, $desc:literal;)*) => {
        $(pub const $name: Register = reg(stringify!($name), $addr, Page::Pmu, Behaviour::$behaviour, 0,
            &[rw($field, 0, $width, $desc)], $trm, $desc);)*
    };
}

pmu_counters! {
    PMU_EVCNTR0 = 0x300, Counter, "4.5.4", "count", 32, "Event counter 0";
    PMU_EVCNTR1 = 0x304, Counter, "4.5.4", "count", 32, "Event counter 1";
    PMU_EVCNTR2 = 0x308, Counter, "4.5.4", "count", 32, "Event counter 2";
    PMU_EVCNTR3 = 0x30C, Counter, "4.5.4", "count", 32, "Event counter 3";
    PMU_EVTYPER0 = 0x380, Storage, "4.5.5", "EV_TYPE", crate::pmu::EVENT_TYPE_BITS, "Event type of event counter 0 (table PMU events)";
    PMU_EVTYPER1 = 0x384, Storage, "4.5.5", "EV_TYPE", crate::pmu::EVENT_TYPE_BITS, "Event type of event counter 1 (table PMU events)";
    PMU_EVTYPER2 = 0x388, Storage, "4.5.5", "EV_TYPE", crate::pmu::EVENT_TYPE_BITS, "Event type of event counter 2 (table PMU events)";
    PMU_EVTYPER3 = 0x38C, Storage, "4.5.5", "EV_TYPE", crate::pmu::EVENT_TYPE_BITS, "Event type of event counter 3 (table PMU events)";
}

/// PMU_EVCNTR0-3 and PMU_EVTYPER0-3, counter k at index k.
pub const PMU_EVCNTR: [Register; PMU_EVENT_COUNTERS] =
    [PMU_EVCNTR0, PMU_EVCNTR1, PMU_EVCNTR2, PMU_EVCNTR3];
pub const PMU_EVTYPER: [Register; PMU_EVENT_COUNTERS] =
    [PMU_EVTYPER0, PMU_EVTYPER1, PMU_EVTYPER2, PMU_EVTYPER3];

/// Every register, in address order.
pub const REGISTERS: &[Register] = &[
    ID,
    STATUS,
    CMD,
    RESET,
    QBASE0,
    QBASE1,
    QREAD,
    QCONFIG,
    QSIZE,
    PROT,
    CONFIG,
    LOCK,
    REGIONCFG,
    AXI_LIMIT0,
    AXI_LIMIT1,
    AXI_LIMIT2,
    AXI_LIMIT3,
    BASEP0,
    BASEP1,
    BASEP2,
    BASEP3,
    BASEP4,
    BASEP5,
    BASEP6,
    BASEP7,
    BASEP8,
    BASEP9,
    BASEP10,
    BASEP11,
    BASEP12,
    BASEP13,
    BASEP14,
    BASEP15,
    PMCR,
    PMCNTENSET,
    PMCNTENCLR,
    PMOVSSET,
    PMOVSCLR,
    PMINTSET,
    PMINTCLR,
    PMCCNTR_LO,
    PMCCNTR_HI,
    PMCAXI_CHAN,
    PMU_EVCNTR0,
    PMU_EVCNTR1,
    PMU_EVCNTR2,
    PMU_EVCNTR3,
    PMU_EVTYPER0,
    PMU_EVTYPER1,
    PMU_EVTYPER2,
    PMU_EVTYPER3,
    PID4,
    PID5,
    PID6,
    PID7,
    PID0,
    PID1,
    PID2,
    PID3,
    CID0,
    CID1,
    CID2,
    CID3,
];

/// The register at byte offset `address`, if one is defined there.
pub fn at(address: u16) -> Option<&'static Register> {
    REGISTERS.iter().find(|r| r.address == address)
}

/// The register called `name`.
pub fn by_name(name: &str) -> Option<&'static Register> {
    REGISTERS.iter().find(|r| r.name == name)
}

/// TRM 4.1: an access is permitted iff `PPROT[0] >= CPL && PPROT[1] <= CNS`.
pub fn access_permitted(pprot: u8, prot: u32) -> bool {
    let privileged = pprot & 1;
    let non_secure = (pprot >> 1) & 1;
    let cpl = PROT.field("active_CPL").get(prot) as u8;
    let cns = PROT.field("active_CSL").get(prot) as u8;
    privileged >= cpl && non_secure <= cns
}

/// `0x00000005 (state=1 bus_status=1 ...)`: STATUS with its state and every
/// field that is not zero.
pub fn describe_status(status: u32) -> String {
    let fields: Vec<String> = STATUS
        .fields
        .iter()
        .rev()
        .filter(|x| x.name == "state" || x.get(status) != 0)
        .map(|x| format!("{}={}", x.name, x.get(status)))
        .collect();
    format!("{status:#010x} ({})", fields.join(" "))
}

#[cfg(test)]
mod memtype_tests {
    use super::memtype_cache;

    #[test]
    fn memtype_cache_matches_trm_table_4_31() {
        // (memtype, ARCACHE, AWCACHE) as printed in TRM table 4-31.
        let table = [
            (0x0, 0b0000, 0b0000),
            (0x1, 0b0001, 0b0001),
            (0x2, 0b0010, 0b0010),
            (0x3, 0b0011, 0b0011),
            (0x4, 0b1010, 0b0110),
            (0x5, 0b1110, 0b0110),
            (0x6, 0b1010, 0b1110),
            (0x7, 0b1110, 0b1110),
            (0x8, 0b1011, 0b0111),
            (0x9, 0b1111, 0b0111),
            (0xA, 0b1011, 0b1111),
            (0xB, 0b1111, 0b1111),
        ];
        for (memtype, read, write) in table {
            assert_eq!(
                memtype_cache(memtype),
                (read, write),
                "memtype {memtype:#x}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_unique_word_aligned_and_sorted_within_pages() {
        for pair in REGISTERS.windows(2) {
            assert!(
                pair[0].address < pair[1].address || pair[0].page != pair[1].page,
                "{} / {}",
                pair[0].name,
                pair[1].name
            );
        }
        for r in REGISTERS {
            assert_eq!(r.address % 4, 0, "{}", r.name);
            assert!(r.address < 0x1000, "{}", r.name);
            assert_eq!(
                REGISTERS.iter().filter(|o| o.address == r.address).count(),
                1,
                "{}",
                r.name
            );
        }
    }

    #[test]
    fn fields_do_not_overlap_and_reset_values_fit_them() {
        for r in REGISTERS {
            let mut seen = 0u32;
            for f in r.fields {
                assert_eq!(seen & f.mask(), 0, "{}.{} overlaps", r.name, f.name);
                seen |= f.mask();
            }
            if let ResetValue::Fixed(v) = r.reset {
                assert_eq!(v & !seen, 0, "{} reset value sets reserved bits", r.name);
            }
        }
    }

    #[test]
    fn trm_reset_values() {
        // Values as printed in TRM tables 4-1, 4-52 and 4-65.
        assert_eq!(ID.reset_value(0, false, false), 0x1006_6001);
        assert_eq!(CMD.reset_value(0, false, false), 0x0000_000C);
        assert_eq!(PMCR.reset_value(0, false, false), 0x0000_2000);
        assert_eq!(PMCR.field("num_event_cnt").get(0x2000), 4);
        assert_eq!(PROT.reset_value(0, true, false), 1);
        assert_eq!(PROT.reset_value(0, false, true), 2);
        assert_eq!(CID3.reset_value(0, false, false), 0xB1);
    }

    #[test]
    fn access_rule_of_trm_4_1() {
        // prot: CPL in bit 0, CNS in bit 1
        for prot in 0..4u32 {
            for pprot in 0..4u8 {
                let cpl = prot & 1;
                let cns = prot >> 1;
                let want = u32::from(pprot & 1) >= cpl && u32::from(pprot >> 1) <= cns;
                assert_eq!(access_permitted(pprot, prot), want);
            }
        }
        assert!(
            !access_permitted(0b00, 0b01),
            "user access to a privileged NPU"
        );
        assert!(
            !access_permitted(0b10, 0b00),
            "non-secure access to a secure NPU"
        );
        assert!(
            access_permitted(0b01, 0b11),
            "secure privileged access to anything"
        );
    }
}
