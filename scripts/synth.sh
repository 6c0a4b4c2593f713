#!/usr/bin/env bash
# Synthesises one generated configuration with yosys and prints cells and
# flops per block. Fails on combinational loops (in a block or through
# several) and on latches outside the clock-gate cell.
# Usage: scripts/synth.sh MODULE   (e.g. npu_u65_256; reads verilog-out/MODULE.v)
set -euo pipefail
module=${1:?usage: scripts/synth.sh MODULE}
root=$(cd "$(dirname "$0")/.." && pwd)
src="$root/verilog-out/$module.v"
out="$root/build/synth/$module"
[ -f "$src" ] || { echo "synth: $src not found (run make verilog)" >&2; exit 1; }
command -v yosys >/dev/null || { echo "synth: yosys not found (run make deps)" >&2; exit 1; }
mkdir -p "$out"
# The memory models are SRAM macros in a real flow: black-boxed
# (scripts/macros.sh). `check -assert` fails on logic loops and multiple
# drivers. The flow is yosys's `synth` without the `opt -fast` between
# `techmap` and `abc` (abc optimises the gates itself): 0.7 % more cells on
# the NPU, and `make synth` takes 12 minutes instead of 15 on 2 cores.
source "$root/scripts/macros.sh"
macros=""
for pattern in $(macro_patterns "$src"); do macros+="blackbox $pattern; "; done
if ! yosys -q -l "$out/yosys.log" -p "
    read_verilog -sv $src
    $macros
    hierarchy -check -top $module
    synth -top $module -run begin:fine
    opt -fast -full
    memory_map
    opt -full
    techmap
    abc -fast
    opt -fast
    synth -top $module -run check:
    check -assert
    tee -q -o $out/stat.json stat -json
" >/dev/null; then
    echo "synth: yosys failed for $module; see $out/yosys.log" >&2
    grep -E "Warning|ERROR" "$out/yosys.log" | head -20 >&2
    exit 1
fi
# The synthesis above keeps the hierarchy, so `check` sees each module
# alone; a loop through several modules shows only in the flattened design.
if ! yosys -q -l "$out/flat_check.log" -p "
    read_verilog -sv $src
    $macros
    hierarchy -check -top $module
    proc
    flatten
    opt_clean
    check -assert
" >/dev/null; then
    echo "synth: $module has a combinational loop through several blocks; see $out/flat_check.log" >&2
    grep -E "Warning|ERROR" "$out/flat_check.log" | head -20 >&2
    exit 1
fi
python3 "$root/scripts/synth_summary.py" "$module" "$out/stat.json"
