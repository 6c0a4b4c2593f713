//! rust-hdl writes one module per block instance, named by its path, so two
//! instances of the same block (u65-512's two cores, every `ResetReg` of
//! one width) are two copies of the same Verilog. [`share_identical_modules`]
//! keeps the first of each set of modules that are the same but for their
//! names (children compared by what they are, not what they are called) and
//! points every instantiation at it: yosys and Verilator then elaborate a
//! core once, and the hierarchy of instances is unchanged.

use std::collections::HashMap;

/// One piece of the emitted text: a module, or whatever lies between modules.
enum Piece<'a> {
    Text(&'a str),
    Module(usize),
}

struct Module<'a> {
    name: &'a str,
    lines: Vec<&'a str>,
}

/// `verilog` with each set of identical modules emitted once.
pub fn share_identical_modules(verilog: &str) -> String {
    let (pieces, modules) = split(verilog);
    let index: HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name, i))
        .collect();
    let mut sharing = Sharing {
        modules: &modules,
        index: &index,
        canonical: vec![None; modules.len()],
        rewritten: vec![String::new(); modules.len()],
        by_body: HashMap::new(),
    };
    for i in 0..modules.len() {
        sharing.resolve(i);
    }
    let mut out = String::with_capacity(verilog.len());
    for piece in pieces {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Module(i) if sharing.canonical[i] == Some(i) => {
                out.push_str(&sharing.rewritten[i])
            }
            Piece::Module(_) => {}
        }
    }
    out
}

/// Splits at `module NAME(` lines and the `endmodule` lines closing them.
fn split(verilog: &str) -> (Vec<Piece<'_>>, Vec<Module<'_>>) {
    let mut pieces = Vec::new();
    let mut modules: Vec<Module> = Vec::new();
    let mut text_start = 0;
    let mut open: Option<Module> = None;
    let mut at = 0;
    for line in verilog.split_inclusive('\n') {
        let start = at;
        at += line.len();
        if let Some(module) = open.as_mut() {
            module.lines.push(line);
            if line.starts_with("endmodule") {
                modules.push(open.take().expect("an open module"));
                pieces.push(Piece::Module(modules.len() - 1));
                text_start = at;
            }
        } else if let Some(name) = line
            .strip_prefix("module ")
            .and_then(|r| r.split('(').next())
        {
            pieces.push(Piece::Text(&verilog[text_start..start]));
            open = Some(Module {
                name: name.trim(),
                lines: vec![line],
            });
        }
    }
    pieces.push(Piece::Text(&verilog[text_start..]));
    (pieces, modules)
}

struct Sharing<'m, 'a> {
    modules: &'m [Module<'a>],
    index: &'m HashMap<&'a str, usize>,
    /// The module each one is emitted as.
    canonical: Vec<Option<usize>>,
    /// A kept module's text, its instantiations naming kept modules.
    rewritten: Vec<String>,
    /// Kept modules by their text without their own name.
    by_body: HashMap<String, usize>,
}

impl Sharing<'_, '_> {
    fn resolve(&mut self, i: usize) -> usize {
        if let Some(c) = self.canonical[i] {
            return c;
        }
        let modules = self.modules;
        let module = &modules[i];
        let mut text = String::new();
        for line in &module.lines {
            text.push_str(&self.instantiation(line).unwrap_or_else(|| line.to_string()));
        }
        let anonymous = text
            .replacen(&format!("module {}(", module.name), "module (", 1)
            .replacen(&format!("endmodule // {}", module.name), "endmodule //", 1);
        let c = *self.by_body.entry(anonymous).or_insert(i);
        if c == i {
            self.rewritten[i] = text;
        }
        self.canonical[i] = Some(c);
        c
    }

    /// An instantiation line (`    CHILD name(`) naming the child's kept module.
    fn instantiation(&mut self, line: &str) -> Option<String> {
        let indent = line.len() - line.trim_start().len();
        let (child, rest) = line[indent..].split_once(' ')?;
        let &j = self.index.get(child)?;
        let kept = self.resolve(j);
        Some(format!(
            "{}{} {rest}",
            &line[..indent],
            self.modules[kept].name
        ))
    }
}
