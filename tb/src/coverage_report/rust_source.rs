//! Which Rust struct a generated module comes from, read from the hardware
//! crate's sources: rust-hdl names a module by its instance path
//! (`npu_u65_256_core$control$run`), so the path is walked through the
//! structs' fields (`control: CentralControl`, `run: RunState`) from the
//! struct whose ports the top module has.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

/// A `#[derive(LogicBlock)]` struct.
#[derive(Debug)]
struct Struct {
    /// Field names and their types as written.
    fields: Vec<(String, String)>,
    /// The file and line of its `fn update`.
    update: Option<(PathBuf, usize)>,
}

/// Where a module's logic is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A struct of the hardware crate, and its `update`'s file and line.
    Block {
        rust_type: String,
        update: Option<(PathBuf, usize)>,
    },
    /// A type the hardware crate does not define (rust-hdl's own).
    Library(String),
    /// `npu-gen`'s wrapper around a design's core (hw/src/emit.rs).
    Wrapper,
    /// The path does not lead through the structs' fields.
    Unknown,
}

impl Origin {
    /// Hand-written logic, which the coverage targets are for.
    pub fn is_block(&self) -> bool {
        matches!(self, Origin::Block { .. })
    }

    /// The struct's name, or what stands for it.
    pub fn name(&self) -> String {
        match self {
            Origin::Block { rust_type, .. } => rust_type.clone(),
            Origin::Library(t) => format!("rust-hdl {t}"),
            Origin::Wrapper => "npu-gen wrapper".into(),
            Origin::Unknown => "?".into(),
        }
    }

    /// `file:line` of the update, relative to `root`.
    pub fn update_location(&self, root: &Path) -> String {
        match self {
            Origin::Block {
                update: Some((file, line)),
                ..
            } => format!(
                "{}:{line}",
                file.strip_prefix(root).unwrap_or(file).display()
            ),
            Origin::Wrapper => "hw/src/emit.rs".into(),
            _ => "-".into(),
        }
    }
}

/// The structs of a crate's sources.
pub struct RustSource {
    structs: HashMap<String, Struct>,
}

impl RustSource {
    /// Reads every `.rs` file under `dir`, and `generated` sources (a name
    /// to show for each, and its text).
    pub fn read(dir: &Path, generated: &[(&str, &str)]) -> std::io::Result<Self> {
        let mut files = vec![];
        collect(dir, &mut files)?;
        let mut structs = HashMap::new();
        let mut updates = HashMap::new();
        for file in files {
            let text = fs::read_to_string(&file)?;
            parse(&file, &text, &mut structs, &mut updates);
        }
        for (name, text) in generated {
            parse(Path::new(name), text, &mut structs, &mut updates);
        }
        for (name, update) in updates {
            if let Some(s) = structs.get_mut(&name) {
                s.update = Some(update);
            }
        }
        Ok(Self { structs })
    }

    /// The struct whose ports are `ports` (a top module's, `$` separating
    /// an interface's members): every port's first name a field, every
    /// `Signal<In|Out|InOut, _>` field a port. `None` unless exactly one.
    fn root(&self, ports: &[String]) -> Option<&str> {
        let names: BTreeSet<&str> = ports
            .iter()
            .map(|p| p.split('$').next().unwrap_or(p))
            .collect();
        let mut found = self.structs.iter().filter(|(_, s)| {
            let fields: BTreeSet<&str> = s.fields.iter().map(|(n, _)| n.as_str()).collect();
            names.is_subset(&fields)
                && s.fields
                    .iter()
                    .filter(|(_, t)| is_port_type(t))
                    .all(|(n, _)| names.contains(n.as_str()))
        });
        match (found.next(), found.next()) {
            (Some((name, _)), None) => Some(name),
            _ => None,
        }
    }

    /// The origin of `module` of design `design`, whose core module
    /// `DESIGN_core` has `core_ports`.
    pub fn origin(&self, design: &str, module: &str, core_ports: &[String]) -> Origin {
        let core = format!("{design}_core");
        if module == design {
            return Origin::Wrapper;
        }
        let Some(path) = module.strip_prefix(&core) else {
            return Origin::Unknown;
        };
        let Some(mut current) = self.root(core_ports).map(str::to_string) else {
            return Origin::Unknown;
        };
        let mut segments = path.split('$').filter(|s| !s.is_empty()).peekable();
        while let Some(segment) = segments.next() {
            let Some(s) = self.structs.get(&current) else {
                return Origin::Library(current);
            };
            let Some((_, ty)) = s.fields.iter().find(|(n, _)| n == segment) else {
                return Origin::Unknown;
            };
            let (element, indexed) = element_type(ty);
            if indexed && segments.peek().is_some_and(|s| s.parse::<usize>().is_ok()) {
                segments.next();
            }
            current = element;
        }
        match self.structs.get(&current) {
            Some(s) => Origin::Block {
                rust_type: current,
                update: s.update.clone(),
            },
            None => Origin::Library(current),
        }
    }
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    Ok(())
}

fn is_port_type(ty: &str) -> bool {
    ["Signal<In,", "Signal<Out,", "Signal<InOut,"]
        .iter()
        .any(|p| ty.replace(' ', "").starts_with(&p.replace(' ', "")))
}

/// The struct name a field type names, and whether it is indexed (an array
/// or `Vec`, whose elements the module path numbers): `[Ones12; 3]` is
/// (`Ones12`, true), `Fifo<Bits<8>, 4, 3>` is (`Fifo`, false).
fn element_type(ty: &str) -> (String, bool) {
    let ty = ty.trim();
    let (inner, indexed) = if let Some(rest) = ty.strip_prefix('[') {
        (rest.split(';').next().unwrap_or(rest), true)
    } else if let Some(rest) = ty.strip_prefix("Vec<") {
        (rest.strip_suffix('>').unwrap_or(rest), true)
    } else {
        (ty, false)
    };
    let base = inner.split('<').next().unwrap_or(inner).trim();
    let name = base.rsplit("::").next().unwrap_or(base);
    (name.to_string(), indexed)
}

/// The `#[derive(LogicBlock)]` structs of one file, and the line of each
/// `fn update` in an `impl Logic for TYPE`.
fn parse(
    file: &Path,
    text: &str,
    structs: &mut HashMap<String, Struct>,
    updates: &mut HashMap<String, (PathBuf, usize)>,
) {
    let lines: Vec<&str> = text.lines().collect();
    let mut derives_block = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if line.starts_with("#[derive(") {
            derives_block |= line.contains("LogicBlock");
        } else if let Some(name) = struct_name(line).filter(|_| derives_block) {
            let mut fields = vec![];
            i += 1;
            while i < lines.len() && !lines[i].trim_start().starts_with('}') {
                if let Some(field) = field(lines[i]) {
                    fields.push(field);
                }
                i += 1;
            }
            structs.insert(
                name,
                Struct {
                    fields,
                    update: None,
                },
            );
            derives_block = false;
        } else if let Some(name) = logic_impl(line) {
            if let Some(at) = (i..lines.len()).find(|&j| lines[j].contains("fn update(")) {
                updates.insert(name, (file.to_path_buf(), at + 1));
            }
        } else if !line.starts_with("#[") && !line.starts_with("//") {
            derives_block = false;
        }
        i += 1;
    }
}

fn struct_name(line: &str) -> Option<String> {
    let rest = line
        .strip_prefix("pub struct ")
        .or_else(|| line.strip_prefix("pub(crate) struct "))
        .or_else(|| line.strip_prefix("struct "))?;
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    Some(rest[..end].to_string())
}

/// `impl Logic for NAME` or `impl<...> Logic for NAME<...>`.
fn logic_impl(line: &str) -> Option<String> {
    let rest = line.strip_prefix("impl")?;
    let rest = &rest[rest.find(" Logic for ")? + " Logic for ".len()..];
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    Some(rest[..end].to_string())
}

/// `pub name: Type,` in a struct body.
fn field(line: &str) -> Option<(String, String)> {
    let line = line.trim();
    if line.starts_with("//") || line.starts_with('#') {
        return None;
    }
    let line = line
        .strip_prefix("pub ")
        .or_else(|| line.strip_prefix("pub(crate) "))
        .unwrap_or(line);
    let (name, ty) = line.split_once(':')?;
    if !name.chars().all(|c| c.is_alphanumeric() || c == '_') || name.is_empty() {
        return None;
    }
    Some((
        name.to_string(),
        ty.trim().trim_end_matches(',').to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
#[derive(LogicBlock)]
pub struct Top {
    pub clock: Signal<In, Clock>,
    pub out: Signal<Out, Bit>,
    bus: Bus,
    cores: [Core; 2],
    local: Signal<Local, Bit>,
}
impl Logic for Top {
    #[hdl_gen]
    fn update(&mut self) {}
}
/// A core.
#[derive(LogicBlock, Default)]
pub struct Core {
    pub clock: Signal<In, Clock>,
    state: DFF<Bit>,
}
impl Logic for Core {
    fn update(&mut self) {}
}
";

    fn source() -> RustSource {
        let mut structs = HashMap::new();
        let mut updates = HashMap::new();
        parse(Path::new("top.rs"), SOURCE, &mut structs, &mut updates);
        for (name, update) in updates {
            structs.get_mut(&name).unwrap().update = Some(update);
        }
        RustSource { structs }
    }

    #[test]
    fn a_module_path_leads_through_the_fields_to_its_struct() {
        let src = source();
        let ports: Vec<String> = ["clock", "out", "bus$valid"].map(String::from).into();
        assert_eq!(
            src.origin("d", "d_core", &ports),
            Origin::Block {
                rust_type: "Top".into(),
                update: Some(("top.rs".into(), 11))
            }
        );
        assert_eq!(
            src.origin("d", "d_core$cores$1", &ports),
            Origin::Block {
                rust_type: "Core".into(),
                update: Some(("top.rs".into(), 20))
            }
        );
        assert_eq!(
            src.origin("d", "d_core$cores$0$state", &ports),
            Origin::Library("DFF".into())
        );
        assert_eq!(src.origin("d", "d", &ports), Origin::Wrapper);
        assert_eq!(src.origin("d", "d_core$nothing", &ports), Origin::Unknown);
        // Ports no struct has.
        assert_eq!(
            src.origin("d", "d_core", &["reset".into()]),
            Origin::Unknown
        );
    }
}
