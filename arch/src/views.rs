//! The operation state seen per unit: which block reads each NPU_SET_* value.
//!
//! TRM 4.6.2: an NPU_SET_* value applies to every later kernel operation
//! until overwritten, and must not affect one already in progress. So an
//! NPU_OP_DMA_START captures the DMA's values and a kernel operation the
//! values of the units that run it (IFM, IFM2, OFM, kernel, weights and
//! scales, output activation). The hardware builds one struct per unit from
//! this table (`hw/build.rs`), a field per command.

use crate::command::{field_mask, CommandInfo, COMMANDS};

/// A unit whose view of the operation state is captured at dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// NPU_SET_DMA0_*: the user DMA's descriptor.
    Dma,
    /// NPU_SET_IFM_*: the input feature map.
    Ifm,
    /// NPU_SET_IFM2_*: the second input of an elementwise operation.
    Ifm2,
    /// NPU_SET_OFM_* (but its scale): the output feature map and its blocks.
    Ofm,
    /// NPU_SET_KERNEL_* and the operation's shape and buffer settings.
    Kernel,
    /// NPU_SET_WEIGHT*_* and NPU_SET_SCALE*_*: the weight and scale streams.
    Weights,
    /// NPU_SET_ACTIVATION* and the output unit's scales.
    Activation,
}

impl Unit {
    /// Every unit, the DMA first.
    pub const ALL: [Unit; 7] = [
        Unit::Dma,
        Unit::Ifm,
        Unit::Ifm2,
        Unit::Ofm,
        Unit::Kernel,
        Unit::Weights,
        Unit::Activation,
    ];

    /// The name of its view, lower case (`ifm`).
    pub const fn name(self) -> &'static str {
        match self {
            Unit::Dma => "dma",
            Unit::Ifm => "ifm",
            Unit::Ifm2 => "ifm2",
            Unit::Ofm => "ofm",
            Unit::Kernel => "kernel",
            Unit::Weights => "weights",
            Unit::Activation => "activation",
        }
    }

    /// True for the units a kernel operation captures (all but the DMA).
    pub const fn kernel(self) -> bool {
        !matches!(self, Unit::Dma)
    }
}

/// Command-name prefixes and their units, the first match applying. A prefix
/// ending in `_` names a family whose fields drop it (NPU_SET_IFM_PAD_TOP is
/// the IFM's `pad_top`); any other names commands whose fields drop only
/// `NPU_SET_` (NPU_SET_OFM_SCALE is the activation's `ofm_scale`).
const UNIT_PREFIXES: &[(&str, Unit)] = &[
    ("NPU_SET_DMA0_", Unit::Dma),
    ("NPU_SET_IFM2_", Unit::Ifm2),
    ("NPU_SET_IFM_", Unit::Ifm),
    ("NPU_SET_OFM_SCALE", Unit::Activation),
    ("NPU_SET_OPA_SCALE", Unit::Activation),
    ("NPU_SET_OPB_SCALE", Unit::Activation),
    ("NPU_SET_ACTIVATION", Unit::Activation),
    ("NPU_SET_OFM_", Unit::Ofm),
    ("NPU_SET_KERNEL_", Unit::Kernel),
    ("NPU_SET_PARALLEL_MODE", Unit::Kernel),
    ("NPU_SET_ACC_FORMAT", Unit::Kernel),
    ("NPU_SET_AB_START", Unit::Kernel),
    ("NPU_SET_BLOCKDEP", Unit::Kernel),
    ("NPU_SET_WEIGHT", Unit::Weights),
    ("NPU_SET_SCALE", Unit::Weights),
];

/// An NPU_SET_* value's place in a unit's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewField {
    pub unit: Unit,
    /// Its field name in the view, lower case (`pad_top`).
    pub name: String,
    /// Bits of the value the view keeps: up to the highest bit of any of the
    /// command's fields.
    pub width: u32,
    pub command: &'static CommandInfo,
}

/// One field of a unit's view as the hardware holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewBits {
    /// Its name in the view (`precision_activation_format`).
    pub name: String,
    pub width: u32,
    /// Its lowest bit in the command's value.
    pub lo: u8,
}

impl ViewField {
    /// The view's fields for the command's value: one for a command of one
    /// field (the value's bits up to its highest field bit), else one per
    /// field, named `<value>_<field>` (`precision_activation_format`), or
    /// the field's own name where it starts with the value's
    /// (`activation_function`, `broadcast_h`). Flat, because rust-hdl's
    /// `hdl_gen` reads and writes one level of struct fields.
    pub fn bits(&self) -> Vec<ViewBits> {
        if self.command.fields.len() < 2 {
            return vec![ViewBits {
                name: self.name.clone(),
                width: self.width,
                lo: 0,
            }];
        }
        self.command
            .fields
            .iter()
            .map(|f| ViewBits {
                name: if f.name.starts_with(&self.name) {
                    f.name.to_string()
                } else {
                    format!("{}_{}", self.name, f.name)
                },
                width: u32::from(f.width),
                lo: f.lo,
            })
            .collect()
    }
}

/// Where `info`'s value sits in the views; `None` for a command that is not
/// an NPU_SET_* (and so stores nothing).
pub fn view_field(info: &'static CommandInfo) -> Option<ViewField> {
    let (prefix, unit) = UNIT_PREFIXES
        .iter()
        .find(|(prefix, _)| info.name.starts_with(prefix))?;
    let stem = if prefix.ends_with('_') {
        &info.name[prefix.len()..]
    } else {
        &info.name["NPU_SET_".len()..]
    };
    Some(ViewField {
        unit: *unit,
        name: stem.to_ascii_lowercase(),
        width: 64 - field_mask(info.fields).leading_zeros(),
        command: info,
    })
}

/// The fields of `unit`'s view, in command-table order.
pub fn view(unit: Unit) -> Vec<ViewField> {
    COMMANDS
        .iter()
        .filter_map(view_field)
        .filter(|f| f.unit == unit)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::Opcode;
    use std::collections::HashSet;

    #[test]
    fn every_setting_is_in_exactly_one_view_under_a_unique_name() {
        for info in COMMANDS {
            let field = view_field(info);
            assert_eq!(
                field.is_some(),
                info.name.starts_with("NPU_SET_"),
                "{} is {field:?}",
                info.name
            );
        }
        for unit in Unit::ALL {
            let fields = view(unit);
            assert!(!fields.is_empty(), "{unit:?} has no values");
            let names: HashSet<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            assert_eq!(names.len(), fields.len(), "{unit:?} repeats a name");
        }
    }

    #[test]
    fn views_name_and_size_values_as_the_trm() {
        let field = |op: Opcode| view_field(op.info()).unwrap();
        let pad = field(Opcode::NpuSetIfmPadTop);
        assert_eq!(
            (pad.unit, pad.name.as_str(), pad.width),
            (Unit::Ifm, "pad_top", 7)
        );
        let base = field(Opcode::NpuSetIfm2Base0);
        assert_eq!(
            (base.unit, base.name.as_str(), base.width),
            (Unit::Ifm2, "base0", 48)
        );
        let scale = field(Opcode::NpuSetOfmScale);
        assert_eq!(
            (scale.unit, scale.name.as_str(), scale.width),
            (Unit::Activation, "ofm_scale", 38)
        );
        let region = field(Opcode::NpuSetDma0SrcRegion);
        assert_eq!(
            (region.unit, region.name.as_str(), region.width),
            (Unit::Dma, "src_region", 11)
        );
        let blk = field(Opcode::NpuSetOfmBlkDepthM1);
        assert_eq!((blk.unit, blk.name.as_str()), (Unit::Ofm, "blk_depth_m1"));
        let weight = field(Opcode::NpuSetWeight1Length);
        assert_eq!(
            (weight.unit, weight.name.as_str()),
            (Unit::Weights, "weight1_length")
        );
        let stride = field(Opcode::NpuSetKernelStride);
        assert_eq!(
            (stride.unit, stride.name.as_str()),
            (Unit::Kernel, "stride")
        );
        // A command of several fields: one view field each, by name.
        let names =
            |op: Opcode| -> Vec<String> { field(op).bits().into_iter().map(|b| b.name).collect() };
        assert_eq!(
            names(Opcode::NpuSetKernelStride),
            [
                "stride_x_lsb",
                "stride_y_lsb",
                "stride_weight_order",
                "stride_dilation_x",
                "stride_dilation_y",
                "stride_decomposition",
                "stride_x_msb",
                "stride_y_msb"
            ]
        );
        assert_eq!(
            names(Opcode::NpuSetActivation),
            ["activation_function", "activation_clip_range"]
        );
        let precision = field(Opcode::NpuSetOfmPrecision).bits();
        let format = precision
            .iter()
            .find(|b| b.name == "precision_activation_format")
            .unwrap();
        assert_eq!((format.width, format.lo), (2, 6));
        // One field: the value's bits.
        let pad = field(Opcode::NpuSetIfmPadTop).bits();
        assert_eq!(
            pad,
            [ViewBits {
                name: "pad_top".into(),
                width: 7,
                lo: 0
            }]
        );
    }
}
