#!/usr/bin/env bash
# make timing: in OSU's 0.18 um standard cells (build/osu018, from make deps)
# with OpenSTA when both are here, scripts/timing_lib.py: every design of
# verilog-out/ mapped module by module, its worst register-to-register path
# in ns (and each configuration block's), its cell area and flops, beside a
# registered 32 x 32 signed multiply's (the yardstick); fails where a path is
# longer than LIMIT (1.5) times the yardstick's.
#
# Where the library or OpenSTA is missing, the fallback below, which says so:
# the longest register-to-register path of every block `npu-gen
# --list-blocks` emits and of every module of each configuration's core, in
# yosys's generic gates, beside the yardstick's and as a ratio to it; a table
# sorted by depth; it fails when a path is deeper than LIMIT times the
# yardstick.
#
# The fallback's flow is yosys's `synth -flatten -noabc` reduced to the
# passes that shape the gate netlist (proc, flatten, opt_expr, wreduce, alumacc,
# techmap), then `ltp -noff`: the yardstick measures 44 levels in both, the
# output unit 363 here and 348 in the full flow, in a minute instead of
# three. Each module is measured flattened on its own. Its memory models
# (scripts/macros.sh), and in the datapath the blocks measured on their own,
# are cut out: their outputs start paths and their inputs end them, as a
# synchronous SRAM's or a register's would. A path through a module's ports
# counts from or to the port, so where modules meet without a register
# between them the figures are each side's share.
#
# TIMING_FLOW=gates takes the fallback even where the library is here.
#
# Usage: scripts/timing.sh [FILTER]   (an extended regular expression on the
# names: of the designs in the library, of the modules in the fallback)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/build/timing"
limit=${LIMIT:-1.5}
filter=${1:-.}
command -v yosys >/dev/null || { echo "timing: yosys not found (run make deps)" >&2; exit 1; }
lib="$root/build/osu018/osu018_stdcells.lib"
timing_flow=${TIMING_FLOW:-library}
case $timing_flow in library|gates) ;; *) echo "timing: TIMING_FLOW=$timing_flow: library or gates" >&2; exit 1 ;; esac
if [ "$timing_flow" = library ] && [ -f "$lib" ] && command -v sta >/dev/null; then
    designs=$(ls "$root"/verilog-out/*.v | xargs -n 1 basename | sed 's/\.v$//' | grep -E -- "$filter") \
        || { echo "timing: no design of verilog-out/ matches $filter" >&2; exit 1; }
    exec python3 "$root/scripts/timing_lib.py" "$lib" $designs
fi
if [ "$timing_flow" = gates ]; then
    echo "timing: generic gate levels against the yardstick's (TIMING_FLOW=gates)"
else
    [ -f "$lib" ] || echo "timing: no OSU 0.18 um library ($lib: make deps fetches it)"
    command -v sta >/dev/null || echo "timing: no OpenSTA (sta: make deps installs it)"
    echo "timing: falling back to generic gate levels against the yardstick's"
fi
mkdir -p "$out"
source "$root/scripts/macros.sh"
start=$(date +%s)


# The gate-level passes, after a design's hierarchy (the measurement, `ltp
# -noff`, follows them).
flow="proc; flatten; opt_expr; opt_clean; wreduce; alumacc; opt_expr; opt_clean
    techmap; opt_expr; opt_clean"

# One measurement: NAME FILE TOP [CUT...]; writes NAME.ltp.
measure() {
    local name=$1 src=$2 top=$3
    shift 3
    local boxes="" cuts=""
    for b in $(macro_patterns "$src") "$@"; do
        boxes+="blackbox $b; "
        cuts+="setattr -set keep 1 */t:$b %ci1; delete */t:$b; "
    done
    if ! yosys -q -l "$out/$name.log" -p "
        read_verilog -sv $src
        $boxes
        hierarchy -top $top
        $cuts
        $flow
        tee -q -o $out/$name.ltp ltp -noff
    " >/dev/null 2>&1; then
        echo "timing: yosys failed on $name; see $out/$name.log" >&2
        return 1
    fi
}
export -f measure macro_patterns
export out flow

# The jobs: NAME FILE TOP BLACKBOXES..., one per line.
jobs="$out/jobs"
: > "$jobs"
blocks=$(cargo run -q -p npu-gen -- --list-blocks | cut -f1)
for b in $blocks; do
    echo "$b $root/verilog-out/$b.v $b" >> "$jobs"
done
# The datapath's blocks measured on their own, cut out of the glue.
glue_boxes='*$datapath$block_fetch$ifm_fetch *$datapath$ifm_unit *$datapath$ofm_writer *$datapath$traversal *$datapath$output_stage$output_units$* *$cores$*$mac *$cores$*$weight_decoder *$cores$*$weight_groups *$cores$*$scale_records *$cores$*$scale_sets'
for v in "$root"/verilog-out/npu_*.v; do
    config=$(basename "$v" .v)
    for m in $(grep '^module' "$v" | awk -F'[ (]' '{print $2}' | awk -F'$' 'NF == 2'); do
        child=${m#*\$}
        if [ "$child" = datapath ]; then
            echo "$config.datapath_glue $v $m $glue_boxes" >> "$jobs"
        else
            echo "$config.$child $v $m" >> "$jobs"
        fi
    done
done
awk -v filter="$filter" '$1 ~ filter' "$jobs" > "$jobs.run"
[ -s "$jobs.run" ] || { echo "timing: no module matches $filter" >&2; exit 1; }

yosys -q -p "read_verilog $root/scripts/yardstick.v; hierarchy -top yardstick
    $flow; tee -q -o $out/yardstick.ltp ltp -noff" >/dev/null
yardstick=$(grep -o 'length=[0-9]*' "$out/yardstick.ltp" | cut -d= -f2)

echo "timing: $(wc -l < "$jobs.run") modules on $(nproc) cores..."
xargs -P "$(nproc)" -L 1 bash -c 'measure "$@"' _ < "$jobs.run"

python3 - "$out" "$jobs.run" "$yardstick" "$limit" "$(( $(date +%s) - start ))" <<'EOF'
import re, sys
out, jobs, yardstick, limit, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
rows = []
for line in open(jobs):
    name = line.split()[0]
    text = open(f"{out}/{name}.ltp").read()
    depth = int(re.search(r"length=(\d+)", text).group(1))
    nodes = re.findall(r"^\s+\d+: (\S+)", text, re.M)
    ends = (nodes[0], nodes[-1]) if nodes else ("-", "-")
    rows.append((depth, name, ends))
rows.sort(reverse=True)
bound = int(limit * yardstick)
print(f"{'module':<34} {'levels':>6} {'ratio':>6}  longest path (from -> to)")
print(f"{'yardstick (32x32 multiply)':<34} {yardstick:>6} {1.0:>6.2f}")
for depth, name, (a, b) in rows:
    flag = "" if depth <= bound else "  OVER"
    print(f"{name:<34} {depth:>6} {depth / yardstick:>6.2f}  {a} -> {b}{flag}")
over = [r for r in rows if r[0] > bound]
print(f"timing: {len(rows)} modules in {seconds} s; limit {limit}x the yardstick = {bound} levels; "
      f"{len(over)} over")
sys.exit(1 if over else 0)
EOF
