#!/usr/bin/env python3
"""make timing in a real cell library: OSU's 0.18 um standard cells
(osu018_stdcells.lib: typical corner, no wire-load model) and OpenSTA.

Usage: scripts/timing_lib.py LIBERTY [DESIGN...]
       (a DESIGN is a file of verilog-out/ without .v; default: every one)

Each module is mapped on its own, as scripts/synth.py shares them out (the
equal modules of every design once: a block emitted on its own is mapped
with its configuration's): yosys's coarse synthesis, then `dfflibmap`
and `abc` on the library, its cells counted (`stat`) and its netlist
written. Each design is then linked whole in OpenSTA with one clock
on its clock port (CLK; the APB's PCLK is CLK here, sampled with PCLKEN) and
every path between registers checked with its setup time: a design's worst
path in ns, with its start and end registers, and the worst ending in each of
a configuration's blocks, beside the same figures for the yardstick (a
registered 32 x 32 signed multiply) mapped in the same run; each block's
worst path cell by cell in build/timing/DESIGN.paths.txt. Fails where a
path is longer than LIMIT (1.5) times the yardstick's.

It fails as scripts/synth.py does, so CI runs it in place of `make synth`:
on a combinational loop, within a module or through several (OpenSTA's
loops of each linked design), and on a latch outside the clock-gate cell. A net driven twice or
never is lint's (`verilator -Wall`: MULTIDRIVEN, UNDRIVEN).

The memory models (scripts/macros.sh) stay black boxes, as SRAM macros would
be: a cell of their own in the timing library whose outputs start paths and
whose inputs end them with neither delay nor setup of their own, and whose
area is their bits times BIT_UM2 (below), reported apart from the logic's.
Areas are the library's cell areas: no wires, no placement.
"""
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
import synth  # noqa: E402  (the module sharing and its yosys runner)
import synth_summary  # noqa: E402  (the latch rule)

ROOT = synth.ROOT
OUT = os.path.join(ROOT, "build", "timing")
LIMIT = float(os.environ.get("LIMIT", "1.5"))
# A 6T SRAM bit cell of a 0.18 um process: Intel's 180 nm logic process
# (IEDM 1998) reported 5.59 um^2. Bit cells only: a macro's decoders, sense
# amplifiers and margins add to it.
BIT_UM2 = 5.59
# Every report's clock period; a path's figure is the period less its slack.
PERIOD = 100.0
FLOP_CELLS = ("DFFPOSX1", "DFFNEGX1", "DFFSR")
LATCH_MAP = os.path.join(ROOT, "scripts", "osu018_latch.v")
# abc maps for a delay (about the yardstick's), then buffers high fanouts
# and sizes gates, given a driving cell and a load (CONSTRAINTS: a buffer's
# drive at a module's inputs, a few gates' load at its outputs): without the
# buffers, a net of a thousand loads on one small gate took 80 ns. yosys's
# own script for this (with `&fraig -x` and `&dch -f`) took more than 12
# minutes on the MAC unit's dot products (173k gates), this one 16 s; after
# yosys's `synth`, the yardstick maps to 9.5 ns with this one, 9.2 with
# yosys's.
ABC_TARGET_PS = 10000
ABC_COMMANDS = (f"strash; dc2; &get -n; &nf -D {ABC_TARGET_PS}; &put; buffer; "
                f"upsize -D {ABC_TARGET_PS}; dnsize -D {ABC_TARGET_PS}\n")
ABC_SCRIPT = os.path.join(OUT, "map.abc")
CONSTRAINTS = os.path.join(OUT, "abc.constr")
# A configuration's blocks, by their instance paths below the core; where a
# path ends in none of them it counts to the core's child it is in (the
# datapath's as its glue).
BLOCKS = [
    ("ifm_fetch", ["datapath", "block_fetch", "ifm_fetch"]),
    ("ifm_unit", ["datapath", "ifm_unit"]),
    ("ofm_writer", ["datapath", "ofm_writer"]),
    ("traversal", ["datapath", "traversal"]),
    ("output_unit", ["datapath", "output_stage", r"output_units\$\d+"]),
    ("mac_unit", ["datapath", r"cores\$\d+", "mac"]),
    ("weight_decoder", ["datapath", r"cores\$\d+", "weight_decoder"]),
    ("weight_groups", ["datapath", r"cores\$\d+", "weight_groups"]),
    ("scale_records", ["datapath", r"cores\$\d+", "scale_records"]),
    ("scale_sets", ["datapath", r"cores\$\d+", "scale_sets"]),
]
YARDSTICK = os.path.join(ROOT, "scripts", "yardstick.v")
NETLIST_MODULE = re.compile(r"^module\s+\\?(\S+)\s*\(.*?^endmodule\s*$", re.S | re.M)


def fail(message):
    print(f"timing: {message}", file=sys.stderr)
    sys.exit(1)


def passes(liberty, stat, netlist):
    """The library flow after a unit's hierarchy: yosys's coarse synthesis,
    the clock gate's latch, flip-flops and gates on LIBERTY; its cells to
    STAT; a netlist OpenSTA reads (no concatenation assigns) to NETLIST."""
    return f"""
    synth -run coarse:fine
    opt -fast -full
    memory_map
    opt -full
    techmap
    opt -fast
    techmap -map {LATCH_MAP}
    dfflibmap -liberty {liberty}
    abc -liberty {liberty} -constr {CONSTRAINTS} -script {ABC_SCRIPT}
    opt_clean
    tee -q -o {stat} stat -json
    splitnets
    opt_clean -purge
    insbuf -buf BUFX2 A Y
    write_verilog -noattr {netlist}
    """


def load_stat(path):
    text = open(path).read()
    start = text.index('"modules":') + len('"modules":')
    modules, _ = json.JSONDecoder().raw_decode(text[start:].lstrip())
    return {name.lstrip("\\"): m.get("num_cells_by_type", {}) for name, m in modules.items()}


def map_unit(liberty, index, unit):
    """Maps UNIT (a list of (design, module) of one design); returns its
    stat and netlist paths and its seconds."""
    source = unit[0][0].source
    owned = [module for _, module in unit]
    log = os.path.join(OUT, f"unit{index}.log")
    stat = os.path.join(OUT, f"unit{index}.json")
    netlist = os.path.join(OUT, f"unit{index}.net.v")
    with open(os.path.join(OUT, f"unit{index}.modules"), "w") as listing:
        listing.write("\n".join(owned) + "\n")
    script = "\n".join([f"read_verilog -sv {source}",
                        "select -set owned " + " ".join(owned),
                        "blackbox @owned %n",
                        "hierarchy -check",
                        passes(liberty, stat, netlist)])
    started = time.time()
    if not synth.yosys(log, script):
        raise synth.SynthError(f"yosys failed on {len(owned)} modules ({OUT}/unit{index}.modules); "
                               f"see {log}\n{synth.problems(log)}")
    return stat, netlist, time.time() - started


def map_yardstick(liberty):
    log = os.path.join(OUT, "yardstick.log")
    stat = os.path.join(OUT, "yardstick.json")
    netlist = os.path.join(OUT, "yardstick.net.v")
    started = time.time()
    if not synth.yosys(log, f"read_verilog {YARDSTICK}\nhierarchy -top yardstick\n"
                            + passes(liberty, stat, netlist)):
        raise synth.SynthError(f"yosys failed on the yardstick; see {log}\n{synth.problems(log)}")
    return stat, netlist, time.time() - started


def cell_areas(liberty):
    text = open(liberty).read()
    areas = dict(re.findall(r"cell\s*\(\s*\"?(\w+)\"?\s*\)\s*\{[^{}]*?\barea\s*:\s*([\d.]+)", text))
    if not areas:
        fail(f"{liberty} has no cell areas: not a liberty file?")
    return {cell: float(area) for cell, area in areas.items()}


def macro_ports(text):
    """A macro module's ports: [(direction, name, width)]."""
    return [(d, n, int(hi) + 1 if hi else 1) for d, hi, n in
            re.findall(r"^\s*(input|output)\s+(?:wire|reg)\s+(?:\[(\d+):0\]\s*)?(\S+);", text, re.M)]


def macro_bits(text):
    """The bits of a macro's memory arrays (`reg [W-1:0] name [0:D-1]`)."""
    return sum((int(hi) + 1) * (int(last) + 1) for hi, last in
               re.findall(r"reg\s+\[(\d+):0\]\s+\w+\s+\[0:(\d+)\]", text))


def macro_library(design, path):
    """Writes a timing library of DESIGN's memory macros to PATH: each a
    cell whose outputs change at the clock and whose inputs are taken at it.
    Returns {macro module: bits}."""
    text = open(design.source).read()
    zero = 'values ("0.0");'
    cells, widths, bits = [], set(), {}
    for match in synth.MODULE_TEXT.finditer(text):
        name = match.group(1)
        if not any(synth.fnmatch.fnmatchcase(name, p) for p in design.macros):
            continue
        bits[name] = macro_bits(match.group(0))
        pins = []
        for direction, port, width in macro_ports(match.group(0)):
            if port == "clock":
                pins.append('  pin (clock) { direction : input; clock : true; capacitance : 0.01; }')
                continue
            if direction == "input":
                timing = ('timing () { related_pin : "clock"; timing_type : setup_rising; '
                          f'rise_constraint (scalar) {{ {zero} }} fall_constraint (scalar) {{ {zero} }} }}')
            else:
                timing = ('timing () { related_pin : "clock"; timing_type : rising_edge; '
                          f'cell_rise (scalar) {{ {zero} }} cell_fall (scalar) {{ {zero} }} '
                          f'rise_transition (scalar) {{ {zero} }} fall_transition (scalar) {{ {zero} }} }}')
            load = "capacitance : 0.01; " if direction == "input" else ""
            if width == 1:
                pins.append(f"  pin ({port}) {{ direction : {direction}; {load}{timing} }}")
            else:
                widths.add(width)
                pins.append(f"  bus ({port}) {{ bus_type : bus{width}; direction : {direction}; "
                            f"{load}{timing} }}")
        cells.append(f'cell ("{name}") {{\n  area : 0;\n' + "\n".join(pins) + "\n}")
    types = [f"type (bus{w}) {{ base_type : array; data_type : bit; bit_width : {w}; "
             f"bit_from : {w - 1}; bit_to : 0; downto : true; }}" for w in sorted(widths)]
    with open(path, "w") as out:
        out.write("library (npu_macros) {\n  delay_model : table_lookup;\n  time_unit : \"1ns\";\n"
                  "  voltage_unit : \"1V\";\n  current_unit : \"1uA\";\n"
                  "  capacitive_load_unit (1, pf);\n  pulling_resistance_unit : \"1kohm\";\n"
                  + "".join(f"  {kind}_threshold_pct_{edge} : {pct};\n" for kind, pct in
                            [("input", 50), ("output", 50), ("slew_lower", 20), ("slew_upper", 80)]
                            for edge in ("rise", "fall"))
                  + "\n".join(types + cells) + "\n}\n")
    return bits


class Sta:
    """An OpenSTA session driven through its prompt (which echoes each
    command after `OpenSTA> `; the mark's echo differs from its output)."""

    MARK = "@@timing-done@@"
    PROMPT = "OpenSTA> "

    def __init__(self, log):
        self.log = open(log, "w")
        # In OUT, where it leaves its command history.
        self.process = subprocess.Popen(["sta", "-no_init"], cwd=OUT, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, bufsize=1)

    def run(self, command):
        self.process.stdin.write(f"{command}\nputs [string cat {self.MARK}]\n")
        self.process.stdin.flush()
        lines = []
        for line in self.process.stdout:
            if line.rstrip() == self.MARK:
                break
            if not line.startswith(self.PROMPT):
                lines.append(line)
        else:
            raise synth.SynthError(f"sta ended during `{command[:80]}`; see {self.log.name}")
        self.log.write(f"% {command}\n" + "".join(lines))
        self.log.flush()
        errors = [line for line in lines if line.startswith("Error")]
        if errors:
            raise synth.SynthError(f"sta: {errors[0].strip()} (in `{command[:80]}`; "
                                   f"see {self.log.name})")
        return lines

    def close(self):
        self.process.stdin.write("exit\n")
        self.process.stdin.close()
        self.process.wait()
        self.log.close()


def register_name(sta, pin):
    """A path end's name: its register's instance path and the net its Q
    drives, or the pin itself at a macro."""
    inst, _, port = pin.rpartition("/")
    if port not in ("Q", "D", "S", "R"):
        return pin
    lines = sta.run(f"puts [get_full_name [get_nets -of_objects [get_pins {{{inst}/Q}}]]]")
    return lines[-1].strip() if lines else pin


def time_design(name, top, netlist, libraries, clock):
    """OpenSTA on a design: [(ns, start, end)] for every path end, worst
    path each, and the session.

    A path's figure is the period less its slack: its delay and the end's
    setup time. Two kinds of check are left out. The asynchronous reset's
    recovery checks: one synchroniser's flop drives the reset pin of every
    flop through the hierarchy's ports, unbuffered here, as a tree would be in
    layout, like the clock's. And the clock gates' own checks (latch to AND
    gate: an integrated clock-gating cell's inside); their enables, at the
    latch's input, count with their delay alone, for the latch is open the
    half cycle before the edge that closes it. The clock is ideal (no tree:
    every register's clock edge at the same time); this OpenSTA still credits
    clock reconvergence pessimism on the gated clocks (up to 7 ns, slack
    larger than the period), so that is turned off."""
    sta = Sta(os.path.join(OUT, f"{name}.sta.log"))
    try:
        for library in libraries:
            sta.run(f"read_liberty {library}")
        sta.run(f"read_verilog {netlist}")
        sta.run(f"link_design {top}")
        sta.run(f"create_clock -name {clock} -period {PERIOD} [get_ports {clock}]")
        sta.run("sta::set_recovery_removal_checks_enabled 0")
        sta.run("sta::set_crpr_enabled 0")
        lines = sta.run("report_checks -path_delay max -format summary -group_count 10000000 "
                        "-endpoint_count 1 -digits 3")
        # The linked design's combinational loops, each as its pins.
        loops = "".join(sta.run("sta::report_loops")).split("\n\n")
        loops = [" -> ".join(loop.split()) for loop in loops if loop.strip()]
        if loops:
            raise synth.SynthError(f"{name} has {len(loops)} combinational loop(s), the first: "
                                   f"{loops[0]}; see {sta.log.name}")
        paths = []
        for line in lines:
            fields = line.split()
            if len(fields) != 5 or not fields[1].startswith("(") or not fields[3].startswith("("):
                continue
            start, end = fields[0], fields[2]
            if "clock_gate/" not in end:
                paths.append((PERIOD - float(fields[4]), start, end))
            elif end.endswith("/D"):
                ends = sta.run(f"report_checks -path_delay max -format end -digits 3 -to {{{end}}}")
                arrival = [line.split()[-3] for line in ends if line.startswith(end)]
                paths.append((float(arrival[0]), start, end))
        if not paths:
            raise synth.SynthError(f"sta found no register-to-register path in {name}; "
                                   f"see {sta.log.name}")
        return paths, sta
    except synth.SynthError:
        sta.close()
        raise


def write_paths(sta, name, worst):
    """Every block's worst path cell by cell, worst first, in NAME.paths.txt."""
    with open(os.path.join(OUT, f"{name}.paths.txt"), "w") as out:
        for block, (ns, _, end) in sorted(worst.items(), key=lambda w: -w[1][0]):
            out.write(f"# {block}: {ns:.3f} ns\n")
            # The worst path to END (-from too makes OpenSTA search START's fanout).
            out.writelines(sta.run(f"report_checks -path_delay max -digits 3 -to {{{end}}}"))


def block_of(path):
    """The configuration block a path end below the core belongs to."""
    parts = path.split("/")
    if parts[0] != "core":
        return "top"
    parts = parts[1:]
    for block, pattern in BLOCKS:
        if len(parts) > len(pattern) and all(re.fullmatch(p, s) for p, s in zip(pattern, parts)):
            return block
    return "datapath glue" if parts[0] == "datapath" else parts[0]


def module_block(core, module):
    """The block a module of the configuration is (named by its first
    instance path), or None where it is inside its parent's."""
    if not module.startswith(core + "$"):
        return None
    parts = module[len(core) + 1:].split("$")
    joined = "$".join(parts)
    for block, pattern in BLOCKS:
        if re.fullmatch(r"\$".join(pattern), joined):
            return block
    if len(parts) == 1:
        return "datapath glue" if parts[0] == "datapath" else parts[0]
    return None


def areas(stats, top, core, areas_um2, macro_bits_of):
    """Per block: logic um^2, cells, flops, macro bits, from the modules'
    cell counts (each module's instances below it as often as they occur)."""
    totals = defaultdict(lambda: defaultdict(float))

    def walk(module, block, times):
        for kind, count in stats[module].items():
            kind = kind.lstrip("\\")
            if kind in stats:
                walk(kind, module_block(core, kind) or block, times * count)
            elif kind in macro_bits_of:
                totals[block]["bits"] += times * count * macro_bits_of[kind]
            elif kind in areas_um2:
                totals[block]["um2"] += times * count * areas_um2[kind]
                totals[block]["cells"] += times * count
                if kind in FLOP_CELLS:
                    totals[block]["flops"] += times * count
            else:
                raise synth.SynthError(f"{module} has a cell {kind} in neither the library "
                                       "nor the macros")

    walk(top, "top", 1)
    return totals


def row(name, path, yard, um2, flops, names):
    """A line of the table; PATH (ns, start, end) or None, NAMES its ends'."""
    mm2 = f"{um2 / 1e6:.3f}" if um2 is not None else "-"
    flops = f"{flops / 1000:.1f}k" if flops is not None else "-"
    if path is None:
        return f"{name:<30} {'-':>6} {'-':>5} {'-':>6} {mm2:>8} {flops:>7}  no register path"
    ns = path[0]
    flag = "  OVER" if ns > LIMIT * yard else ""
    return (f"{name:<30} {ns:>6.2f} {ns / yard:>5.2f} {1000 / ns:>6.0f} {mm2:>8} {flops:>7}  "
            f"{names}{flag}")


def analyse_design(design, liberty, owners, by_name, texts, stats, areas_um2, yard):
    """DESIGN's netlist from its modules' mapped netlists, then OpenSTA on
    it: its rows of the table and what is over the limit."""
    netlist = os.path.join(OUT, f"{design.name}.net.v")
    design_stats = {}
    with open(netlist, "w") as out:
        for module in design.modules:
            owner, owned = owners[module]
            names = design.names_from(by_name[owner], owned, module)
            out.write(synth.rename(texts[owned], names) + "\n")
            design_stats[module] = {names.get(k.lstrip("\\"), k.lstrip("\\")): n
                                    for k, n in stats[owned].items()}
    libraries = [liberty]
    bits = {}
    if design.macros:
        macros = os.path.join(OUT, f"{design.name}.macros.lib")
        bits = macro_library(design, macros)
        libraries.append(macros)
    wrapper = open(design.source).read()
    clock = "CLK" if re.search(rf"^module {design.name}\(\s*CLK,", wrapper, re.M) else "clock"
    paths, sta = time_design(design.name, design.name, netlist, libraries, clock)
    lines, over = [], []
    try:
        totals = areas(design_stats, design.name, design.top, areas_um2, bits)
        worst = {}
        for path in paths:
            block = block_of(path[2]) if design.name.startswith("npu_") else "top"
            if block not in worst or path > worst[block]:
                worst[block] = path
        whole = max(paths)
        logic = sum(t["um2"] for t in totals.values())
        flops = sum(t["flops"] for t in totals.values())
        macro_bits_total = sum(t["bits"] for t in totals.values())

        def ends(path):
            return f"{register_name(sta, path[1])} -> {register_name(sta, path[2])}"

        lines.append(row(design.name, whole, yard, logic, flops, ends(whole)))
        write_paths(sta, design.name, {"top": whole} if not design.name.startswith("npu_")
                    else worst)
        if whole[0] > LIMIT * yard:
            over.append(design.name)
        # A configuration is named by its MACs (npu_u65_256).
        macs = int(design.name.rsplit("_", 1)[1]) if design.name.startswith("npu_") else None
        if macs:
            blocks = set(worst) | {b for b, t in totals.items() if t["um2"]}
            for block in sorted(blocks, key=lambda b: -worst.get(b, (0,))[0]):
                path, t = worst.get(block), totals.get(block, defaultdict(float))
                lines.append(row(f"  {block}", path, yard, t["um2"], t["flops"],
                                 ends(path) if path else ""))
                if path and path[0] > LIMIT * yard:
                    over.append(f"{design.name} {block}")
            lines.append(f"  per MAC ({macs}): {logic / macs / 1e6:.4f} mm2 of logic, "
                         f"{totals['mac_unit']['um2'] / macs / 1e6:.4f} of it in the MAC units")
        if macro_bits_total:
            lines.append(f"  memory macros (black boxes, not in the area above): "
                         f"{macro_bits_total / 8192:.0f} KiB, "
                         f"{macro_bits_total * BIT_UM2 / 1e6:.2f} mm2 at {BIT_UM2} um2 a bit")
    finally:
        sta.close()
    return lines, over


def main(liberty, names):
    if subprocess.run(["sh", "-c", "command -v sta"], capture_output=True).returncode:
        fail("sta (OpenSTA) not found (run make deps)")
    if not os.path.isfile(liberty):
        fail(f"{liberty} not found (run make deps)")
    os.makedirs(OUT, exist_ok=True)
    with open(CONSTRAINTS, "w") as out:
        out.write("set_driving_cell BUFX2\nset_load 0.02\n")
    with open(ABC_SCRIPT, "w") as out:
        out.write(ABC_COMMANDS)
    designs = [synth.Design(name) for name in names]
    for old in os.listdir(OUT):
        if old.startswith("unit"):
            os.remove(os.path.join(OUT, old))
    cores = os.cpu_count() or 1
    work, owners = synth.units(designs, synth.UNITS_PER_CORE * cores)
    print(f"timing: {sum(len(u) for u in work)} modules of {len(designs)} designs mapped to "
          f"{os.path.basename(liberty)} in {len(work)} yosys runs on {cores} cores, then "
          "OpenSTA on each design...", flush=True)
    started = time.time()
    with ThreadPoolExecutor(cores) as pool:
        yard_run = pool.submit(map_yardstick, liberty)
        runs = [pool.submit(map_unit, liberty, i, unit) for i, unit in enumerate(work)]
        try:
            results = [run.result() for run in runs]
            yard_stat, yard_net, _ = yard_run.result()
        except synth.SynthError as error:
            pool.shutdown(cancel_futures=True)
            fail(str(error))
    mapped = time.time() - started
    texts, stats = {}, {}
    for stat, netlist, _ in results:
        texts.update({m.group(1): m.group(0) for m in NETLIST_MODULE.finditer(open(netlist).read())})
        stats.update(load_stat(stat))
    latches = synth_summary.latches_outside_clock_gate(stats)
    if latches:
        fail("latches outside the clock-gate cell:\n  " + "\n  ".join(latches))
    by_name = {design.name: design for design in designs}
    areas_um2 = cell_areas(liberty)

    yard_paths, sta = time_design("yardstick", "yardstick", yard_net, [liberty], "CLK")
    sta.close()
    yard = max(yard_paths)
    yard_um2 = areas(load_stat(yard_stat), "yardstick", "yardstick", areas_um2, {})["top"]["um2"]
    print(f"{'design / block':<30} {'ns':>6} {'x mul':>5} {'MHz':>6} {'mm2':>8} {'flops':>7}  "
          "worst path (start -> end)")
    print(row("yardstick (32x32 multiply)", yard, yard[0], yard_um2, None, ""))
    def analyse(design):
        return analyse_design(design, liberty, owners[design.name], by_name, texts, stats,
                              areas_um2, yard[0])

    over = []
    # Each design's OpenSTA session on a core of its own; the rows in order.
    with ThreadPoolExecutor(cores) as pool:
        try:
            for lines, design_over in pool.map(analyse, designs):
                print("\n".join(lines), flush=True)
                over += design_over
        except synth.SynthError as error:
            pool.shutdown(cancel_futures=True)
            fail(str(error))
    print(f"timing: {len(designs)} designs in {time.time() - started:.0f} s ({mapped:.0f} s mapping); "
          f"OSU 0.18 um, typical corner, no wires, cell area only; limit {LIMIT}x the "
          f"yardstick = {LIMIT * yard[0]:.2f} ns; {len(over)} over" + "".join(f"\n  over: {o}" for o in over))
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        fail("usage: scripts/timing_lib.py LIBERTY [DESIGN...]")
    main(os.path.abspath(sys.argv[1]), sys.argv[2:] or sorted(
        f[:-2] for f in os.listdir(os.path.join(ROOT, "verilog-out")) if f.endswith(".v")))
