#!/usr/bin/env bash
# Installs Verilator, yosys, OpenSTA and zlib's headers (the FST waveform
# writer compresses with zlib) from Debian when any is missing, and unpacks
# OSU's 0.18 um standard-cell library (Debian's qflow-tech-osu018, without
# the rest of qflow) into build/osu018 for make timing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
missing=()
command -v verilator >/dev/null || missing+=(verilator)
command -v yosys >/dev/null || missing+=(yosys)
command -v sta >/dev/null || missing+=(opensta)
command -v python3 >/dev/null || missing+=(python3)
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo=sudo
fi
if [ ${#missing[@]} -gt 0 ]; then
    [ -z "$sudo" ] || command -v sudo >/dev/null \
        || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    echo "install-deps: installing ${missing[*]} from Debian"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" g++ make >/dev/null
fi

# The library: the package's liberty file only (apt-get download needs no
# root; the package lists may need an update first).
lib="$root/build/osu018"
[ -f "$lib/osu018_stdcells.lib" ] && exit 0
unpack=$(mktemp -d)
trap 'rm -rf "$unpack"' EXIT
fetch() { (cd "$unpack" && apt-get download -qq qflow-tech-osu018 >/dev/null 2>&1); }
if ! fetch && { [ -z "$sudo" ] || command -v sudo >/dev/null; }; then
    $sudo apt-get update -qq && fetch || true
fi
if ! ls "$unpack"/qflow-tech-osu018_*.deb >/dev/null 2>&1; then
    echo "install-deps: could not download qflow-tech-osu018 (OSU 0.18 um cells) from Debian:" \
        "make timing will count generic gate levels instead" >&2
    exit 0
fi
dpkg-deb -x "$unpack"/qflow-tech-osu018_*.deb "$unpack/x"
mkdir -p "$lib"
cp "$unpack/x/usr/share/qflow/tech/osu018/osu018_stdcells.lib" "$lib/"
echo "install-deps: OSU 0.18 um standard cells in build/osu018 (Debian qflow-tech-osu018)"
