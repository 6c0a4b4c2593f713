#!/usr/bin/env python3
"""Synthesises generated modules with yosys and prints cells and flops per block.

Usage: scripts/synth.py MODULE...   (e.g. npu_u65_256; reads verilog-out/MODULE.v)

Fails on combinational loops (in a module or through several) and on latches
outside the clock-gate cell. The synthesis keeps the hierarchy, so each module
is synthesised on its own: the modules are shared out among yosys processes
(one per core at a time), each of which reads the design, black-boxes every
module it does not own and synthesises the rest. A module that is one of an
earlier MODULE's but for its names, its own and its children's (the
configurations share nine tenths of theirs; a block emitted on its own is the
configuration's block), is synthesised once and its figures are used for
both. A loop through several modules shows only in the flattened design:
one more yosys run per MODULE flattens it and checks that. Each MODULE's
figures go to build/synth/MODULE/stat.json (yosys `stat -json`, one entry per
module), which scripts/synth_summary.py sums per block.

Synthesised so, a module's cells differ from one whole-design run's by a few
per cent either way (abc's results follow the order of yosys's generated
names, which the rest of the design shifts): u65-256 came to 934.2k cells
against 917.8k in one run of the same Verilog, its flops the same.

The memory models are SRAM macros in a real flow: black-boxed
(scripts/macros.sh). The flow is yosys's `synth` without the `opt -fast`
between `techmap` and `abc` (abc optimises the gates itself): 0.7 % more cells
on the NPU, and a fifth less time.
"""
import fnmatch
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "synth")
MODULE_TEXT = re.compile(r"^module (\S+?)\s*\(.*?\bendmodule\b", re.S | re.M)
# Work units per core: small enough to balance (a module's time is not its
# text's size), large enough that reading the design (6 s a file) stays a
# small share.
UNITS_PER_CORE = 6

SYNTH_PASSES = """
    synth -run coarse:fine
    opt -fast -full
    memory_map
    opt -full
    techmap
    abc -fast
    opt -fast
    synth -run check:
    check -assert
"""


class SynthError(Exception):
    """A yosys run failed; the message says which and where its log is."""


def fail(message):
    print(f"synth: {message}", file=sys.stderr)
    sys.exit(1)


def macro_patterns(source):
    """The yosys name patterns of SOURCE's memory models (scripts/macros.sh)."""
    script = f'source "{ROOT}/scripts/macros.sh"; macro_patterns "$1"'
    return subprocess.run(["bash", "-c", script, "_", source], check=True,
                          capture_output=True, text=True).stdout.split()


IDENTIFIER = re.compile(r"(?<![\w$\\])\\?([A-Za-z_][\w$]*)(?=[\s(;]|$)")


def rename(text, names):
    """TEXT with every identifier in NAMES (Verilog's plain or escaped
    form, as yosys writes them) replaced by its new name."""
    if all(old == new for old, new in names.items()):
        return text

    def replace(match):
        new = names.get(match.group(1))
        if new is None:
            return match.group(0)
        return ("\\" if match.group(0).startswith("\\") else "") + new
    return IDENTIFIER.sub(replace, text)


class Design:
    """One generated file: its modules' texts, each with a key that two
    modules share when they are the same but for their names (their own
    and their children's, children compared by key): a block emitted on
    its own and the same block inside a configuration, or the two
    configurations' equal modules."""

    def __init__(self, name):
        self.name = name
        self.source = os.path.join(ROOT, "verilog-out", f"{name}.v")
        if not os.path.isfile(self.source):
            fail(f"{self.source} not found (run make verilog)")
        self.top = f"{name}_core"
        text = open(self.source).read()
        self.macros = macro_patterns(self.source)
        every = {m.group(1): m.group(0) for m in MODULE_TEXT.finditer(text)}
        self.modules = {module: body for module, body in every.items()
                        if not any(fnmatch.fnmatchcase(module, p) for p in self.macros)}
        if self.top not in self.modules:
            fail(f"{self.source} has no module {self.top} (run make verilog)")
        # Each module's children (the modules it instantiates), in order.
        self.children = {module: [t for t in IDENTIFIER.findall(body)
                                  if t in every and t != module]
                         for module, body in every.items()}
        self.keys = {}
        for module in every:
            self._key(module, every)

    def _key(self, module, every):
        if module not in self.keys:
            names = {module: "\0"}
            names.update({child: self._key(child, every) for child in self.children[module]})
            body = rename(every[module], names)
            self.keys[module] = hashlib.sha1(body.encode()).hexdigest()
        return self.keys[module]

    def names_from(self, owner, owned, module):
        """How OWNER's module OWNED (this design's MODULE's equal) and its
        children are named here."""
        names = dict(zip(owner.children[owned], self.children[module]))
        names[owned] = module
        return names


def yosys(log, script):
    result = subprocess.run(["yosys", "-q", "-l", log, "-p", script],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return result.returncode == 0


def problems(log):
    lines = [line.rstrip() for line in open(log, errors="replace")
             if "Warning" in line or "ERROR" in line]
    return "\n".join(lines[:20])


def synthesise(index, unit):
    """Synthesises UNIT, a list of (design, module) of one design; returns
    its stat path and its seconds."""
    source = unit[0][0].source
    owned = [module for _, module in unit]
    log = os.path.join(OUT, f"unit{index}.log")
    stat = os.path.join(OUT, f"unit{index}.json")
    with open(os.path.join(OUT, f"unit{index}.modules"), "w") as listing:
        listing.write("\n".join(owned) + "\n")
    script = "\n".join(
        [f"read_verilog -sv {source}",
         "select -set owned " + " ".join(owned),
         "blackbox @owned %n",
         "hierarchy -check",
         SYNTH_PASSES,
         f"tee -q -o {stat} stat -json"])
    started = time.time()
    if not yosys(log, script):
        raise SynthError(f"yosys failed on {len(owned)} modules ({OUT}/unit{index}.modules); "
                         f"see {log}\n{problems(log)}")
    return stat, time.time() - started


def flat_check(design):
    """Flattens DESIGN and fails on a loop through several modules."""
    log = os.path.join(OUT, design.name, "flat_check.log")
    script = "\n".join(
        [f"read_verilog -sv {design.source}"]
        + [f"blackbox {p}" for p in design.macros]
        + [f"hierarchy -check -top {design.top}", "proc", "flatten", "opt_clean",
           "check -assert"])
    if not yosys(log, script):
        raise SynthError(f"{design.name} flattened fails yosys's check (a combinational loop "
                         "through several blocks, or a net driven twice or never); "
                         f"see {log}\n{problems(log)}")


def units(designs, count):
    """The modules to synthesise, shared into about COUNT units of about
    equal text (each of one design's file, largest module first into the
    lightest unit), heaviest unit first; and where each design finds its
    modules' figures: {design name: {module: (owner design, owner module)}}."""
    first = {}
    owners = {}
    work = {design.name: [] for design in designs}
    for design in designs:
        owners[design.name] = {}
        for module, text in design.modules.items():
            key = design.keys[module]
            if key not in first:
                first[key] = (design, module)
                work[design.name].append((len(text), design, module))
            owner, owned = first[key]
            owners[design.name][module] = (owner.name, owned)
    total = sum(weight for items in work.values() for weight, _, _ in items)
    bins = []
    for items in work.values():
        share = sum(weight for weight, _, _ in items)
        design_bins = [[0, []] for _ in range(max(1, round(count * share / total)))]
        for weight, design, module in sorted(items, key=lambda w: -w[0]):
            lightest = min(design_bins, key=lambda b: b[0])
            lightest[0] += weight
            lightest[1].append((design, module))
        bins += [b for b in design_bins if b[1]]
    return [b[1] for b in sorted(bins, key=lambda b: -b[0])], owners


def main(names):
    if not names:
        fail("usage: scripts/synth.py MODULE...")
    if subprocess.run(["sh", "-c", "command -v yosys"], capture_output=True).returncode:
        fail("yosys not found (run make deps)")
    designs = [Design(name) for name in names]
    for old in glob.glob(os.path.join(OUT, "unit*")):
        os.remove(old)
    for design in designs:
        os.makedirs(os.path.join(OUT, design.name), exist_ok=True)
    cores = os.cpu_count() or 1
    work, owners = units(designs, UNITS_PER_CORE * cores)
    shared = sum(1 for d in designs for m, o in owners[d.name].items() if o != (d.name, m))
    print(f"synth: {sum(len(u) for u in work)} modules in {len(work)} yosys runs on {cores} "
          f"cores ({shared} more equal to one already synthesised), and "
          f"{len(designs)} flattened loop checks...", flush=True)
    started = time.time()
    with ThreadPoolExecutor(cores) as pool:
        runs = [pool.submit(synthesise, i, unit) for i, unit in enumerate(work)]
        checks = [pool.submit(flat_check, design) for design in designs]
        try:
            results = [run.result() for run in runs]
            for check in checks:
                check.result()
        except SynthError as error:
            # The runs under way finish; none of the others starts.
            pool.shutdown(cancel_futures=True)
            fail(str(error))
    figures = {}
    for stat, _ in results:
        text = open(stat).read()
        start = text.index('"modules":') + len('"modules":')
        modules, _ = json.JSONDecoder().raw_decode(text[start:].lstrip())
        figures.update({name.lstrip("\\"): value for name, value in modules.items()})
    by_name = {design.name: design for design in designs}
    for design in designs:
        modules = {}
        for module, (owner, owned) in owners[design.name].items():
            stat = dict(figures[owned])
            # The owner's module names, as this design's.
            names = design.names_from(by_name[owner], owned, module)
            stat["num_cells_by_type"] = {
                names.get(kind.lstrip("\\"), kind.lstrip("\\")): n
                for kind, n in stat.get("num_cells_by_type", {}).items()}
            modules[module] = stat
        with open(os.path.join(OUT, design.name, "stat.json"), "w") as out:
            json.dump({"modules": modules}, out, indent=1)
    print(f"synth: done in {time.time() - started:.0f} s (longest yosys run "
          f"{max(seconds for _, seconds in results):.0f} s)", flush=True)
    summary = os.path.join(ROOT, "scripts", "synth_summary.py")
    failed = False
    for design in designs:
        stat = os.path.join(OUT, design.name, "stat.json")
        failed |= subprocess.run([sys.executable, summary, design.name, stat]).returncode != 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
