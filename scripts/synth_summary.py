"""Summarises yosys `stat -json` per top-level block of a generated NPU.

rust-hdl emits one module per block instance, named by its path
(`npu_u65_256_core$apb$ready`), so a block's cells are those of every module
whose name starts with its path. Exits non-zero on any latch outside a
module whose name contains `clock_gate`.
"""
import json
import re
import sys
from collections import defaultdict


def load_modules(path):
    text = open(path).read()
    # yosys 0.23 appends the hierarchy as text inside the JSON object, so
    # decode just the "modules" value.
    start = text.index('"modules":') + len('"modules":')
    modules, _ = json.JSONDecoder().raw_decode(text[start:].lstrip())
    return modules


def main(top, path):
    modules = load_modules(path)
    core = f"{top}_core"
    cells = defaultdict(int)
    flops = defaultdict(int)
    latches = []
    for name, stat in modules.items():
        name = name.lstrip("\\")
        parts = name.split("$")
        block = parts[1] if parts[0] == core and len(parts) > 1 else "(top)"
        for kind, count in stat.get("num_cells_by_type", {}).items():
            if kind.lstrip("\\").startswith(core) or kind.lstrip("\\") in modules:
                continue  # a submodule instance, counted in its own module
            cells[block] += count
            if re.match(r"\$_(S?DFF|DFFE|SDFFE|SDFFCE|ALDFF|DFFSR)", kind):
                flops[block] += count
            if "LATCH" in kind.upper() and "clock_gate" not in name:
                latches.append(f"{name}: {count} x {kind}")
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
