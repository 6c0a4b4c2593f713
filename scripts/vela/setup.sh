#!/usr/bin/env bash
# Create scripts/.venv with the pinned Vela toolchain used to generate the
# outside-reference fixtures in model/tests/fixtures/.
#
#   scripts/vela/setup.sh            # create or update scripts/.venv
#   PYTHON=python3.11 scripts/vela/setup.sh
#
# Installs from PyPI: ethos-u-vela (Arm's compiler; its C extension is built
# with the system C compiler if no wheel fits), numpy, and ai-edge-litert (the
# TFLite interpreter used as the independent reference for expected outputs).
# ai-edge-litert is optional: without it gen_fixtures.py falls back to its own
# numpy reference kernels and says so.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/../.venv"
python="${PYTHON:-python3}"

"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r "$here/requirements.txt"
if ! "$venv/bin/python" -m pip install --quiet "ai-edge-litert==2.3.0" "protobuf==7.36.2" "ml_dtypes==0.6.0"; then
    echo "setup.sh: ai-edge-litert did not install; numpy reference kernels will be used" >&2
fi
"$venv/bin/python" -c "import ethosu.vela.api as a; print('vela API', a.API_VERSION)"
