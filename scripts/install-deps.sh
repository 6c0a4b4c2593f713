#!/usr/bin/env bash
# Installs Verilator, yosys and zlib's headers (the FST waveform writer
# compresses with zlib) from Debian when any is missing.
set -euo pipefail
missing=()
command -v verilator >/dev/null || missing+=(verilator)
command -v yosys >/dev/null || missing+=(yosys)
command -v python3 >/dev/null || missing+=(python3)
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo=sudo
fi
echo "install-deps: installing ${missing[*]} from Debian"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" g++ make >/dev/null
