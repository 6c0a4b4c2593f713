"""Summarises yosys `stat -json` per top-level block of a generated NPU.

rust-hdl names a module by the path of its first instance
(`npu_u65_256_core$apb$ready`), and npu-gen emits identical modules once,
so a block's cells are those of its module and, recursively, of every
module instance below it, as often as it is instantiated. Exits non-zero
on any latch outside a module whose name contains `clock_gate`.
"""
import json
import re
import sys
from collections import defaultdict
from functools import lru_cache


def load_modules(path):
    text = open(path).read()
    # yosys 0.23 appends the hierarchy as text inside the JSON object, so
    # decode just the "modules" value.
    start = text.index('"modules":') + len('"modules":')
    modules, _ = json.JSONDecoder().raw_decode(text[start:].lstrip())
    return modules


FLOP = re.compile(r"\$_(S?DFF|DFFE|SDFFE|SDFFCE|ALDFF|DFFSR)")


def latches_outside_clock_gate(cells_by_module):
    """Each latch of CELLS_BY_MODULE ({module: {cell type: count}}) in a
    module that is not the clock gate, as "module: count x type"."""
    return [f"{name}: {count} x {kind}"
            for name, cells in cells_by_module.items()
            for kind, count in cells.items()
            if "LATCH" in kind.upper() and "clock_gate" not in name]


def main(top, path):
    modules = {name.lstrip("\\"): stat for name, stat in load_modules(path).items()}
    core = f"{top}_core"

    @lru_cache(maxsize=None)
    def totals(name):
        """(cells, flops) of module `name` with every instance below it."""
        cells = flops = 0
        for kind, count in modules[name].get("num_cells_by_type", {}).items():
            kind = kind.lstrip("\\")
            if kind in modules:
                sub_cells, sub_flops = totals(kind)
                cells += count * sub_cells
                flops += count * sub_flops
                continue
            cells += count
            if FLOP.match(kind):
                flops += count
        return cells, flops

    latches = latches_outside_clock_gate(
        {name: stat.get("num_cells_by_type", {}) for name, stat in modules.items()})
    cells = defaultdict(int)
    flops = defaultdict(int)
    for kind, count in modules[core].get("num_cells_by_type", {}).items():
        kind = kind.lstrip("\\")
        if kind in modules:
            block = kind.split("$")[1] if kind.startswith(core + "$") else kind
            sub_cells, sub_flops = totals(kind)
            cells[block] += count * sub_cells
            flops[block] += count * sub_flops
        else:
            cells["(top)"] += count
            if FLOP.match(kind):
                flops["(top)"] += count
    print(f"{top}: cells and flops per block")
    print(f"  {'block':<16} {'cells':>8} {'flops':>8}")
    for block in sorted(cells):
        print(f"  {block:<16} {cells[block]:>8} {flops[block]:>8}")
    print(f"  {'total':<16} {sum(cells.values()):>8} {sum(flops.values()):>8}")
    if latches:
        print("synth: latches outside the clock-gate cell:", *latches, sep="\n  ")
        sys.exit(1)
    print("  latches outside the clock gate: 0; combinational loops: 0")


if __name__ == "__main__":
    main(*sys.argv[1:])
