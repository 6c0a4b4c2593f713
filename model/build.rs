//! Generates a typed builder per command of the spec's table
//! (`npu_arch::command::COMMANDS`): a struct named after the opcode with a
//! setter per field, so a stream is written field by field by name and a
//! misspelt field does not compile. Adding a command to the spec adds its
//! builder; nothing is listed by hand.

use npu_arch::command::COMMANDS;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let mut out = String::new();
    for c in COMMANDS {
        let name = format!("{:?}", c.op);
        writeln!(out, "/// `{}`: {}", c.name, c.doc).unwrap();
        writeln!(out, "#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]").unwrap();
        writeln!(out, "pub struct {name}(u64);").unwrap();
        writeln!(out, "impl {name} {{").unwrap();
        for f in c.fields {
            let mask = ((1u64 << f.width) - 1) << f.lo;
            writeln!(
                out,
                "    /// Field `{}`: bits {}..{} (higher bits of `value` are dropped).",
                f.name,
                f.lo,
                f.lo + f.width
            )
            .unwrap();
            let placed = match f.lo {
                0 => "value".to_string(),
                lo => format!("(value << {lo})"),
            };
            writeln!(
                out,
                "    pub fn {}(self, value: u64) -> Self {{ Self((self.0 & !{mask:#x}) | ({placed} & {mask:#x})) }}",
                f.name
            )
            .unwrap();
        }
        writeln!(out, "    /// The command with the fields set.").unwrap();
        writeln!(
            out,
            "    pub fn command(self) -> Command {{ Command::from_value(Opcode::{name}, self.0) }}"
        )
        .unwrap();
        writeln!(out, "}}").unwrap();
    }
    let path = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("builders.rs");
    std::fs::write(path, out).unwrap();
    println!("cargo:rerun-if-changed=build.rs");
}
