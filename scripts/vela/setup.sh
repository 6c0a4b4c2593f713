#!/usr/bin/env bash
# Create scripts/.venv with the pinned Vela toolchain used to generate the
# outside-reference fixtures in model/tests/fixtures/.
#
#   scripts/vela/setup.sh            # create or update scripts/.venv
#   PYTHON=python3.11 scripts/vela/setup.sh
#
# Installs from PyPI, pinned: ethos-u-vela (Arm's compiler; its C extension is
# built with the system C compiler if no wheel fits), numpy, ai-edge-litert
# (the TFLite interpreter whose reference kernels give the expected outputs) and
# tflite-micro (TFLite Micro's interpreter: the expected outputs of the bundled
# networks and of the host's CPU operators, scripts/vela/networks.py and
# cpu_fixtures.py).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/../.venv"
python="${PYTHON:-python3}"

"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r "$here/requirements.txt"
"$venv/bin/python" -c "import ethosu.vela.api as a; print('vela API', a.API_VERSION)"
