# Sourced by timing.sh (and read by synth.py): `macro_patterns FILE` prints the yosys
# name patterns of FILE's memory models, which are SRAM macros in a real
# flow: the shared-buffer banks, the MAC unit's accumulator buffer, the DMA's
# read buffers (`BufferRam`), the read channels' lanes of bursts in flight
# (128 x 12 bits each) and the output unit's copies of the LUT areas
# (`LutRam`).
macro_patterns() {
    local src=$1 patterns=""
    if grep -q 'shram\$banks\$' "$src"; then patterns+='*$shram$banks$* '; fi
    if grep -q '\$acc_buffer(' "$src"; then patterns+='*$acc_buffer '; fi
    if grep -q '_core\$banks\$' "$src"; then patterns+='*_core$banks$* '; fi
    if grep -q '\$buffer\$ram(' "$src"; then patterns+='*$buffer$ram '; fi
    if grep -q '\$burst_lanes\$ram(' "$src"; then patterns+='*$burst_lanes$ram '; fi
    if grep -q '\$activation\$luts\$' "$src"; then patterns+='*$activation$luts$* '; fi
    echo "$patterns"
}
