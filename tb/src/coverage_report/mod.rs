//! Code coverage of the RTL, from the data coverage builds write
//! (`NPU_COVERAGE`, [`crate::verilator::coverage`]): Verilator's points
//! merged over processes and instances, a table per module (line, branch,
//! toggle of ports and registers), the points no run reached with their
//! line of Verilog and the Rust `update` they come from, and the waivers of
//! points that cannot be reached, each with its reason.
//!
//! The targets are counted per Rust source: the designs (u65-256, u65-512,
//! the blocks emitted alone) hold the same module text more than once, and
//! a point of that text is reached when any of its instances reaches it.
//! The table per module counts each design's instance apart.

pub mod rust_source;

use anyhow::{bail, Context, Result};
use rust_source::{Origin, RustSource};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Verilator's kinds of point (the `page` of a point: `v_line/MODULE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Line,
    Branch,
    Toggle,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Line, Kind::Branch, Kind::Toggle];

    fn of_page(page: &str) -> Option<(Kind, &str)> {
        let (kind, module) = page.split_once('/')?;
        let kind = match kind {
            "v_line" => Kind::Line,
            "v_branch" => Kind::Branch,
            "v_toggle" => Kind::Toggle,
            _ => return None,
        };
        Some((kind, module))
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Line => "line",
            Kind::Branch => "branch",
            Kind::Toggle => "toggle",
        }
    }
}

/// A point of one module: a line or branch with the module's instances
/// merged (reached when any instance reached it), a toggle per instance (a
/// register of rust-hdl is an instance of a shared DFF module, each of
/// them a register of its own).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct PointKey {
    module: String,
    kind: Kind,
    file: PathBuf,
    line: usize,
    column: usize,
    /// `block`, `if`, `else`, or the toggled bit (`irq_mask[3]`).
    comment: String,
    /// A toggle's instance below the top (`core.control.run.irq_history`).
    instance: String,
}

/// Every point in the `.dat` files of `dir`, with its count summed over
/// the files and the module's instances.
fn read_points(dir: &Path) -> Result<BTreeMap<PointKey, u64>> {
    let mut points = BTreeMap::new();
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("no coverage data (.dat) in {}", dir.display());
    }
    for file in files {
        let text = fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
        for line in String::from_utf8_lossy(&text).lines() {
            let Some(rest) = line.strip_prefix("C '") else {
                continue;
            };
            let Some((keys, count)) = rest.rsplit_once("' ") else {
                continue;
            };
            let count: u64 = count.trim().parse().unwrap_or(0);
            if let Some(key) = point_key(keys) {
                *points.entry(key).or_insert(0) += count;
            }
        }
    }
    Ok(points)
}

/// A point's key from Verilator's `\x01KEY\x02VALUE` fields.
fn point_key(keys: &str) -> Option<PointKey> {
    let fields: HashMap<&str, &str> = keys
        .split('\x01')
        .filter_map(|kv| kv.split_once('\x02'))
        .collect();
    let (kind, module) = Kind::of_page(fields.get("page")?)?;
    let instance = match (kind, fields.get("h")) {
        // The hierarchy starts with the top's name twice (`s.s.core`).
        (Kind::Toggle, Some(h)) => h.split_once('.').map_or(*h, |(_, rest)| rest),
        _ => "",
    };
    Some(PointKey {
        module: module.to_string(),
        kind,
        file: PathBuf::from(fields.get("f")?),
        line: fields.get("l")?.parse().ok()?,
        column: fields.get("n").and_then(|n| n.parse().ok()).unwrap_or(0),
        comment: decode(fields.get("o").copied().unwrap_or("")),
        instance: instance.to_string(),
    })
}

/// A name as the Verilog spells it from Verilator's encoding (`__0HH` is
/// the character HH: `__024` is `$`, `___05F` is `__`).
fn decode(name: &str) -> String {
    let mut out = String::new();
    let mut rest = name;
    while let Some(at) = rest.find("__0") {
        let code = rest
            .get(at + 3..at + 5)
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        out.push_str(&rest[..at]);
        match code {
            Some(c) => out.push(c as char),
            None => {
                out.push_str("__0");
                rest = &rest[at + 3..];
                continue;
            }
        }
        rest = &rest[at + 5..];
    }
    out.push_str(rest);
    out
}

/// A point that cannot be reached, and why: `-module`, `-kind` and `-point`
/// globs (`*` any text) over a point's module, kind and description (as
/// the list of holes prints it).
#[derive(Clone, Debug)]
pub struct Waiver {
    module: String,
    kind: Kind,
    point: String,
    pub reason: String,
    /// Where it is written, for messages.
    at: String,
}

/// Reads a waiver file: `waive -module GLOB -kind line|branch|toggle
/// -point "GLOB" -reason "TEXT"` a line, `#` comments.
pub fn read_waivers(path: &Path) -> Result<Vec<Waiver>> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut waivers = vec![];
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{}:{}", path.display(), i + 1);
        let Some(rest) = line.strip_prefix("waive ") else {
            bail!("{at}: a waiver line starts `waive`");
        };
        let options = options(rest).with_context(|| at.clone())?;
        let get = |key: &str| {
            options
                .get(key)
                .cloned()
                .with_context(|| format!("{at}: the waiver has no -{key}"))
        };
        let kind = get("kind")?;
        let kind = *Kind::ALL
            .iter()
            .find(|k| k.name() == kind)
            .with_context(|| format!("{at}: -kind {kind} is not line, branch or toggle"))?;
        let reason = get("reason")?;
        if reason.trim().is_empty() {
            bail!("{at}: the waiver's reason is empty");
        }
        waivers.push(Waiver {
            module: get("module")?,
            kind,
            point: get("point")?,
            reason,
            at,
        });
    }
    Ok(waivers)
}

/// `-key value` pairs, a value with spaces in quotes.
fn options(text: &str) -> Result<HashMap<String, String>> {
    let mut options = HashMap::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let Some(after) = rest.strip_prefix('-') else {
            bail!("expected -key value at `{rest}`");
        };
        let (key, after) = after
            .split_once(' ')
            .with_context(|| format!("-{after} has no value"))?;
        let after = after.trim_start();
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => quoted
                .split_once('"')
                .with_context(|| format!("the value of -{key} is not closed"))?,
            None => after.split_once(' ').unwrap_or((after, "")),
        };
        options.insert(key.to_string(), value.to_string());
        rest = next.trim_start();
    }
    Ok(options)
}

/// `text` matches `pattern`, whose `*` stands for any text.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = parts.split_first().expect("split yields one part");
    let Some(mut text) = text.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return text.is_empty();
    };
    for part in middle {
        match text.find(part) {
            Some(at) => text = &text[at + part.len()..],
            None => return false,
        }
    }
    text.len() >= last.len() && text.ends_with(last)
}

/// Points reached, not reached and waived.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub covered: usize,
    /// Points that count: all but the waived.
    pub total: usize,
    pub waived: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.covered += other.covered;
        self.total += other.total;
        self.waived += other.waived;
    }

    /// Percent reached, `None` without points.
    pub fn percent(&self) -> Option<f64> {
        (self.total > 0).then(|| 100.0 * self.covered as f64 / self.total as f64)
    }

    fn cell(&self) -> String {
        match self.percent() {
            None => "-".into(),
            Some(p) if self.waived > 0 => {
                format!(
                    "{p:.1} % ({}/{}, {} waived)",
                    self.covered, self.total, self.waived
                )
            }
            Some(p) => format!("{p:.1} % ({}/{})", self.covered, self.total),
        }
    }
}

/// One module of one design.
#[derive(Clone, Debug)]
pub struct ModuleRow {
    pub design: String,
    pub module: String,
    pub origin: Origin,
    pub tallies: BTreeMap<Kind, Tally>,
}

/// A module text, with its module name in it replaced: the unit a point
/// of Rust source is counted in, whichever designs hold it.
#[derive(Clone, Debug)]
pub struct UnitRow {
    /// The modules of every design with this text, in order.
    pub modules: Vec<String>,
    pub origin: Origin,
    /// Each point counted once, reached when any module reached it.
    pub tallies: BTreeMap<Kind, Tally>,
}

/// A point of a unit: its kind, line within the module, column and
/// comment; a register's toggle is a point of the unit holding it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct UnitPoint {
    unit: u64,
    /// A register's field in the unit that holds it (toggles only).
    field: String,
    kind: Kind,
    offset: usize,
    column: usize,
    comment: String,
}

/// What the instances of a unit's point add up to.
struct UnitPointState {
    reached: bool,
    waiver: Option<usize>,
    /// The first instance's module, line and description.
    module: String,
    file: PathBuf,
    line: usize,
    point: String,
}

/// A point no run reached in any design and no waiver takes.
#[derive(Clone, Debug)]
pub struct Hole {
    pub module: String,
    /// Other modules with the same text, whose point it is too.
    pub copies: usize,
    pub kind: Kind,
    pub file: PathBuf,
    pub line: usize,
    pub point: String,
}

pub struct Report {
    /// Every module of every design, counted apart.
    pub rows: Vec<ModuleRow>,
    /// Every module text, its instances' points merged.
    pub units: Vec<UnitRow>,
    pub holes: Vec<Hole>,
    /// Waivers that take no point, or a point some run reached.
    pub stale: Vec<String>,
    root: PathBuf,
}

/// The coverage line and branch of hand-written blocks reach, and the
/// toggle of their ports and registers (issue 60).
pub const LINE_TARGET: f64 = 95.0;
pub const TOGGLE_TARGET: f64 = 90.0;

impl Report {
    /// Reads the data in `data`, the hardware crate's sources under
    /// `root/hw/src` and `waivers`.
    pub fn new(data: &Path, root: &Path, waivers: &[Waiver]) -> Result<Self> {
        let points = read_points(data)?;
        let generated = [(
            "hw/build.rs: OUT_DIR/op_state.rs",
            npu_hw::op_state::OP_STATE_SOURCE,
        )];
        let rust = RustSource::read(&root.join("hw/src"), &generated).context("reading hw/src")?;
        let mut sources: HashMap<PathBuf, Source> = HashMap::new();
        for key in points.keys() {
            if !sources.contains_key(&key.file) {
                let text = fs::read_to_string(&key.file)
                    .with_context(|| format!("reading {}", key.file.display()))?;
                sources.insert(key.file.clone(), Source::new(&text));
            }
        }
        let mut core_ports: HashMap<String, Vec<String>> = HashMap::new();
        for (file, source) in &sources {
            let design = design_of(file);
            if let Some(ports) = source.ports(&format!("{design}_core")) {
                core_ports.insert(design, ports);
            }
        }
        let origin = |design: &str, module: &str| {
            let ports = core_ports.get(design).map_or(&[][..], |p| &p[..]);
            rust.origin(design, module, ports)
        };
        let mut origins: HashMap<(String, String), Origin> = HashMap::new();

        let mut rows: BTreeMap<(String, String), BTreeMap<Kind, Tally>> = BTreeMap::new();
        let mut unit_points: BTreeMap<UnitPoint, UnitPointState> = BTreeMap::new();
        // Each unit's modules (design, module), in the order met.
        let mut unit_modules: BTreeMap<u64, Vec<(String, String)>> = BTreeMap::new();
        for (key, count) in &points {
            let source = &sources[&key.file];
            // Verilator hashes long module names in its points: the module
            // is the one whose text holds the line.
            let text_module = source.module_at(key.line);
            let module = text_module.map_or(key.module.as_str(), |m| &m.name);
            let point = match key.kind {
                Kind::Toggle => format!("{} {}", key.instance, key.comment),
                _ => format!("{}: {}", key.comment, source.line(key.line)),
            };
            let design = design_of(&key.file);
            let waiver = waivers.iter().position(|w| {
                w.kind == key.kind && glob(&w.module, module) && glob(&w.point, &point)
            });
            let tally = rows
                .entry((design.clone(), module.to_string()))
                .or_default()
                .entry(key.kind)
                .or_default();
            match waiver {
                Some(_) => tally.waived += 1,
                None => {
                    tally.total += 1;
                    tally.covered += usize::from(*count > 0);
                }
            }
            let module_origin = origins
                .entry((design.clone(), module.to_string()))
                .or_insert_with(|| origin(&design, module));
            // A register (a library or widget instance) toggles as a field
            // of the struct that holds it: the same text is every register
            // of its width, each a state of its own.
            let owner = (key.kind == Kind::Toggle && is_register(module_origin))
                .then(|| source.owner(module))
                .flatten();
            let (unit, first, field, unit_module) = match (owner, text_module) {
                (Some((parent, field)), Some(m)) => (parent.unit, m.first, field, &parent.name),
                (None, Some(m)) => (m.unit, m.first, "", &m.name),
                // A point outside every module's text is a unit of its own.
                (_, None) => (hash(&(module, &key.file)), 0, "", &key.module),
            };
            let modules = unit_modules.entry(unit).or_default();
            if !modules
                .iter()
                .any(|(d, m)| *d == design && m == unit_module)
            {
                modules.push((design, unit_module.clone()));
            }
            let state = unit_points
                .entry(UnitPoint {
                    unit,
                    field: field.to_string(),
                    kind: key.kind,
                    offset: key.line - first,
                    column: key.column,
                    comment: key.comment.clone(),
                })
                .or_insert_with(|| UnitPointState {
                    reached: false,
                    waiver: None,
                    module: module.to_string(),
                    file: key.file.clone(),
                    line: key.line,
                    point,
                });
            state.reached |= *count > 0;
            state.waiver = state.waiver.or(waiver);
        }

        // Waivers, holes and tallies of the units, each point once.
        let mut used = vec![(0usize, 0usize); waivers.len()];
        let mut unit_tallies: BTreeMap<u64, BTreeMap<Kind, Tally>> = BTreeMap::new();
        let mut holes = vec![];
        for (key, state) in &unit_points {
            let tally = unit_tallies
                .entry(key.unit)
                .or_default()
                .entry(key.kind)
                .or_default();
            match state.waiver {
                Some(w) => {
                    tally.waived += 1;
                    used[w].0 += 1;
                    used[w].1 += usize::from(state.reached);
                }
                None => {
                    tally.total += 1;
                    tally.covered += usize::from(state.reached);
                    if !state.reached {
                        holes.push(Hole {
                            module: state.module.clone(),
                            copies: unit_modules[&key.unit].len() - 1,
                            kind: key.kind,
                            file: state.file.clone(),
                            line: state.line,
                            point: state.point.clone(),
                        });
                    }
                }
            }
        }
        holes.sort_by(|a, b| (&a.module, a.kind, a.line).cmp(&(&b.module, b.kind, b.line)));
        let units = unit_tallies
            .into_iter()
            .map(|(unit, tallies)| {
                let modules = &unit_modules[&unit];
                // A block's origin in a design the crate's structs lead to.
                let origin = modules
                    .iter()
                    .map(|(design, module)| {
                        origins
                            .get(&(design.clone(), module.clone()))
                            .cloned()
                            .unwrap_or_else(|| origin(design, module))
                    })
                    .find(Origin::is_block)
                    .unwrap_or_else(|| origin(&modules[0].0, &modules[0].1));
                UnitRow {
                    modules: modules.iter().map(|(_, m)| m.clone()).collect(),
                    origin,
                    tallies,
                }
            })
            .collect();
        let rows = rows
            .into_iter()
            .map(|((design, module), tallies)| ModuleRow {
                origin: origins
                    .remove(&(design.clone(), module.clone()))
                    .unwrap_or_else(|| origin(&design, &module)),
                design,
                module,
                tallies,
            })
            .collect();
        let stale = waivers
            .iter()
            .zip(&used)
            .filter_map(|(w, &(taken, hit))| match (taken, hit) {
                (0, _) => Some(format!("{}: the waiver takes no point", w.at)),
                (_, 0) => None,
                (_, hit) => Some(format!(
                    "{}: {hit} of the points the waiver takes were reached",
                    w.at
                )),
            })
            .collect();
        Ok(Self {
            rows,
            units,
            holes,
            stale,
            root: root.to_path_buf(),
        })
    }

    fn origin_of(&self, module: &str) -> Option<&Origin> {
        self.rows
            .iter()
            .find(|r| r.module == module)
            .map(|r| &r.origin)
    }

    /// The tallies of each Rust struct (or library type), its units summed.
    pub fn by_origin(&self) -> BTreeMap<String, (Origin, BTreeMap<Kind, Tally>)> {
        let mut sums: BTreeMap<String, (Origin, BTreeMap<Kind, Tally>)> = BTreeMap::new();
        for row in &self.units {
            let entry = sums
                .entry(row.origin.name())
                .or_insert_with(|| (row.origin.clone(), BTreeMap::new()));
            for (kind, tally) in &row.tallies {
                entry.1.entry(*kind).or_default().add(*tally);
            }
        }
        sums
    }

    /// The tallies of the hand-written blocks per area of the hardware
    /// crate (`hw/src/AREA/...`, a file directly in it its own area).
    pub fn by_area(&self) -> BTreeMap<String, BTreeMap<Kind, Tally>> {
        let mut sums: BTreeMap<String, BTreeMap<Kind, Tally>> = BTreeMap::new();
        for row in self.units.iter().filter(|r| r.origin.is_block()) {
            let entry = sums.entry(self.area(&row.origin)).or_default();
            for (kind, tally) in &row.tallies {
                entry.entry(*kind).or_default().add(*tally);
            }
        }
        sums
    }

    fn area(&self, origin: &Origin) -> String {
        let location = origin.update_location(&self.root);
        location
            .strip_prefix("hw/src/")
            .and_then(|p| p.split(['/', ':']).next())
            .map_or("generated", |a| a.trim_end_matches(".rs"))
            .to_string()
    }

    /// Every point of hand-written blocks summed, per kind: each point of
    /// Rust source once (`units`).
    pub fn blocks_total(&self) -> BTreeMap<Kind, Tally> {
        block_sum(self.units.iter().map(|u| (&u.origin, &u.tallies)))
    }

    /// As `blocks_total`, each design's instance of a point counted apart.
    pub fn blocks_total_per_design(&self) -> BTreeMap<Kind, Tally> {
        block_sum(self.rows.iter().map(|r| (&r.origin, &r.tallies)))
    }

    /// A table of `rows`: name, what the second column (`second`) says,
    /// tallies.
    fn table(
        &self,
        header: &str,
        second: &str,
        rows: Vec<(String, String, &BTreeMap<Kind, Tally>)>,
    ) -> String {
        let mut text = format!(
            "| {header} | {second} | line | branch | toggle (ports, registers) |\n|---|---|---|---|---|\n"
        );
        for (name, update, tallies) in rows {
            let cell = |k| tallies.get(&k).copied().unwrap_or_default().cell();
            let _ = writeln!(
                text,
                "| `{name}` | {update} | {} | {} | {} |",
                cell(Kind::Line),
                cell(Kind::Branch),
                cell(Kind::Toggle)
            );
        }
        text
    }

    /// The summary: every kind over the hand-written blocks, then one row
    /// per Rust struct.
    pub fn summary(&self) -> String {
        let mut text = String::from("# RTL code coverage\n\n");
        let total = self.blocks_total();
        let per_design = self.blocks_total_per_design();
        for kind in Kind::ALL {
            let cell = |t: &BTreeMap<Kind, Tally>| t.get(&kind).copied().unwrap_or_default().cell();
            let _ = writeln!(
                text,
                "- hand-written blocks, {}: {} (each design apart: {})",
                kind.name(),
                cell(&total),
                cell(&per_design)
            );
        }
        let _ = writeln!(
            text,
            "- counted per Rust source: a point of a module text the designs share is reached \
             when any of its {} modules in {} designs reaches it\n\
             - targets: line and branch {LINE_TARGET} %, toggle {TOGGLE_TARGET} % per block; \
             {} points not reached (uncovered.txt), {} stale waivers\n",
            self.rows.len(),
            self.rows
                .iter()
                .map(|r| &r.design)
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            self.holes.len(),
            self.stale.len()
        );
        let by_area = self.by_area();
        let rows = by_area
            .iter()
            .map(|(area, tallies)| {
                let modules = self
                    .units
                    .iter()
                    .filter(|r| r.origin.is_block() && self.area(&r.origin) == *area)
                    .count();
                (area.clone(), modules.to_string(), tallies)
            })
            .collect();
        text.push_str(&self.table("area of hw/src (hand-written blocks)", "module texts", rows));
        text.push('\n');
        let by_origin = self.by_origin();
        let rows = by_origin
            .iter()
            .map(|(name, (origin, tallies))| {
                (name.clone(), origin.update_location(&self.root), tallies)
            })
            .collect();
        text.push_str(&self.table("Rust struct (every design, merged)", "Rust update", rows));
        text
    }

    /// One row per module of each design.
    pub fn modules(&self) -> String {
        let rows = self
            .rows
            .iter()
            .map(|r| {
                (
                    r.module.clone(),
                    format!(
                        "{} {}",
                        r.origin.name(),
                        r.origin.update_location(&self.root)
                    ),
                    &r.tallies,
                )
            })
            .collect();
        self.table("module", "Rust struct, update", rows)
    }

    /// The points no design reached, by module (the first with the text):
    /// the module's Rust update, then each point's kind, Verilog line and
    /// description.
    pub fn uncovered(&self) -> String {
        let mut text = String::new();
        let mut module = "";
        for hole in &self.holes {
            if hole.module != module {
                module = &hole.module;
                let origin = self.origin_of(module);
                let copies = match hole.copies {
                    0 => String::new(),
                    n => format!("; its text is {n} more modules', none of which reached these"),
                };
                let _ = writeln!(
                    text,
                    "\n{module}  ({}, update at {}{copies})",
                    origin.map_or("?".into(), Origin::name),
                    origin.map_or("-".into(), |o| o.update_location(&self.root))
                );
            }
            let file = hole.file.strip_prefix(&self.root).unwrap_or(&hole.file);
            let _ = writeln!(
                text,
                "  {:<6} {}:{}  {}",
                hole.kind.name(),
                file.display(),
                hole.line,
                hole.point
            );
        }
        text
    }

    /// Writes `summary.md`, `modules.md` and `uncovered.txt` into `out`.
    pub fn write(&self, out: &Path) -> Result<()> {
        fs::create_dir_all(out)?;
        for (name, text) in [
            ("summary.md", self.summary()),
            ("modules.md", self.modules()),
            ("uncovered.txt", self.uncovered()),
        ] {
            let path = out.join(name);
            fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }
}

/// The tallies of the hand-written blocks among `rows`, per kind.
fn block_sum<'a>(
    rows: impl Iterator<Item = (&'a Origin, &'a BTreeMap<Kind, Tally>)>,
) -> BTreeMap<Kind, Tally> {
    let mut total: BTreeMap<Kind, Tally> = BTreeMap::new();
    for (_, tallies) in rows.filter(|(origin, _)| origin.is_block()) {
        for (kind, tally) in tallies {
            total.entry(*kind).or_default().add(*tally);
        }
    }
    total
}

/// A library type's or a widget's instance: a register or a small store
/// whose toggles belong to the field holding it.
fn is_register(origin: &Origin) -> bool {
    match origin {
        Origin::Block {
            update: Some((file, _)),
            ..
        } => file.components().any(|c| c.as_os_str() == "widgets"),
        Origin::Block { update: None, .. } => false,
        _ => true,
    }
}

fn hash(value: &impl std::hash::Hash) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(value)
}

/// The design a Verilog file holds: its name without `.v`.
fn design_of(file: &Path) -> String {
    file.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// A generated Verilog file: its lines and its modules.
struct Source {
    lines: Vec<String>,
    /// In order of their first lines.
    modules: Vec<ModuleText>,
    /// Each module's index in `modules`.
    by_name: HashMap<String, usize>,
}

/// A module of a Verilog file.
struct ModuleText {
    /// Its `module` line (from 1).
    first: usize,
    name: String,
    /// Its text, with its own name (and so its submodules' prefix)
    /// replaced, hashed: the same in every design that holds it.
    unit: u64,
}

impl Source {
    fn new(text: &str) -> Self {
        let lines: Vec<String> = text.lines().map(String::from).collect();
        let modules = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                let name = l.strip_prefix("module ")?;
                let end = name.find(|c: char| c == '(' || c.is_whitespace() || c == ';')?;
                let name = name[..end].to_string();
                let body: Vec<String> = lines[i..]
                    .iter()
                    .take_while(|l| !l.starts_with("endmodule"))
                    .map(|l| l.replace(&name, "@"))
                    .collect();
                Some(ModuleText {
                    first: i + 1,
                    unit: hash(&body),
                    name,
                })
            })
            .collect::<Vec<_>>();
        let by_name = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.clone(), i))
            .collect();
        Self {
            lines,
            modules,
            by_name,
        }
    }

    /// Line `number` (from 1), trimmed.
    fn line(&self, number: usize) -> &str {
        self.lines
            .get(number.wrapping_sub(1))
            .map_or("", |l| l.trim())
    }

    /// The module holding `module` (the longest name before a `$` that is
    /// a module of this file) and the field path below it.
    fn owner<'a, 'b>(&'a self, module: &'b str) -> Option<(&'a ModuleText, &'b str)> {
        module.rmatch_indices('$').find_map(|(at, _)| {
            let parent = &self.modules[*self.by_name.get(&module[..at])?];
            Some((parent, &module[at + 1..]))
        })
    }

    /// The module whose text holds line `number`.
    fn module_at(&self, number: usize) -> Option<&ModuleText> {
        let at = self.modules.partition_point(|m| m.first <= number);
        at.checked_sub(1).map(|i| &self.modules[i])
    }

    /// The ports of `module` from its header line `module NAME(a,b,...);`.
    fn ports(&self, module: &str) -> Option<Vec<String>> {
        let header = format!("module {module}(");
        let line = self.lines.iter().find(|l| l.starts_with(&header))?;
        let ports = line[header.len()..].split(')').next()?;
        Some(ports.split(',').map(|p| p.trim().to_string()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_belongs_to_the_module_whose_text_holds_it() {
        let source =
            Source::new("// x\nmodule a(p,q$r);\n  wire w;\nendmodule\n\nmodule b(\n  s\n);\n");
        let name = |n| source.module_at(n).map(|m| m.name.as_str());
        assert_eq!(name(1), None);
        assert_eq!(name(3), Some("a"));
        assert_eq!(name(7), Some("b"));
        assert_eq!(source.ports("a"), Some(vec!["p".into(), "q$r".into()]));
        assert_eq!(source.line(3), "wire w;");
    }

    #[test]
    fn globs_match_any_text_at_a_star() {
        assert!(glob("npu_*_core$cpm", "npu_u65_256_core$cpm"));
        assert!(!glob("npu_*_core$cpm", "npu_u65_256_core$cpm$gate"));
        assert!(glob("*", ""));
        assert!(glob("a*b*c", "a-b-b-c"));
        assert!(!glob("abc", "ab"));
        assert!(!glob("a*bc", "abc-"));
    }

    #[test]
    fn names_are_decoded_from_verilator_spelling() {
        assert_eq!(decode("depths__024data[3]"), "depths$data[3]");
        assert_eq!(decode("a___05Fb"), "a__b");
        assert_eq!(decode("plain__0"), "plain__0");
    }

    #[test]
    fn a_point_key_reads_verilators_fields() {
        let key = point_key(
            "\x01f\x02/v/s.v\x01l\x02104\x01n\x029\x01page\x02v_branch/s_core\x01o\x02if\x01S\x02104-105\x01h\x02s.core",
        )
        .unwrap();
        assert_eq!(
            (
                key.kind,
                key.module.as_str(),
                key.line,
                key.column,
                key.comment.as_str()
            ),
            (Kind::Branch, "s_core", 104, 9, "if")
        );
        let key = point_key(
            "\x01f\x02/v/s.v\x01l\x0210\x01n\x0224\x01page\x02v_toggle/s_core$q\x01o\x02q[2]\x01h\x02s.s.core.q",
        )
        .unwrap();
        assert_eq!(
            (key.kind, key.instance.as_str()),
            (Kind::Toggle, "s.core.q")
        );
    }

    #[test]
    fn a_point_of_a_shared_module_text_is_reached_when_any_design_reaches_it() {
        let dir = std::env::temp_dir().join(format!("npu-units-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let text = |top: &str| {
            format!("module {top}(x,y);\n  assign y = x;\n  always y <= x;\nendmodule\n")
        };
        let mut data = String::new();
        for (design, counts) in [("d1", [1, 0]), ("d2", [0, 0])] {
            let file = dir.join(format!("{design}.v"));
            fs::write(&file, text(&format!("{design}_core"))).unwrap();
            for (line, count) in [(2, counts[0]), (3, counts[1])] {
                let _ = writeln!(
                    data,
                    "C '\x01f\x02{}\x01l\x02{line}\x01n\x023\x01page\x02v_line/{design}_core\x01o\x02block' {count}",
                    file.display()
                );
            }
        }
        let data_dir = dir.join("data");
        fs::create_dir_all(&data_dir).unwrap();
        fs::write(data_dir.join("run.dat"), data).unwrap();
        let report =
            Report::new(&data_dir, &crate::verilator::build::workspace_root(), &[]).unwrap();
        assert_eq!(report.rows.len(), 2);
        let unit = &report.units[..];
        assert_eq!(unit.len(), 1, "one module text");
        assert_eq!(unit[0].modules, ["d1_core", "d2_core"]);
        assert_eq!(
            unit[0].tallies[&Kind::Line],
            Tally {
                covered: 1,
                total: 2,
                waived: 0
            }
        );
        let d2 = report.rows.iter().find(|r| r.design == "d2").unwrap();
        assert_eq!(d2.tallies[&Kind::Line].covered, 0, "each design apart");
        assert_eq!(report.holes.len(), 1);
        assert_eq!((report.holes[0].line, report.holes[0].copies), (3, 1));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn waivers_need_every_option_and_a_reason() {
        let dir = std::env::temp_dir().join(format!("npu-waivers-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.txt");
        fs::write(
            &path,
            "# comment\nwaive -module \"m*\" -kind toggle -point \"a[*]\" -reason \"tied off\"\n",
        )
        .unwrap();
        let w = read_waivers(&path).unwrap();
        assert_eq!(
            (w[0].kind, w[0].reason.as_str()),
            (Kind::Toggle, "tied off")
        );
        fs::write(&path, "waive -module \"m\" -kind toggle -point \"a\"\n").unwrap();
        assert!(read_waivers(&path).is_err());
        fs::write(
            &path,
            "waive -module \"m\" -kind state -point \"a\" -reason \"r\"\n",
        )
        .unwrap();
        assert!(read_waivers(&path).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }
}
