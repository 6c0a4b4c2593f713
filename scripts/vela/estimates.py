#!/usr/bin/env python3
"""Vela's own cycle estimate of every bundled network, for the networks
table of `make bench` (tb/benches/networks.rs): each network's model.tflite
compiled for u65-256 and u65-512 under Vela's U65 default memory system
(Ethos_U65_Client_Server, Dedicated_Sram_384KB: compiled.py's options),
and the summary CSV's `cycles_total` written to
model/tests/fixtures/networks/<name>/vela_estimate.json.

Usage (after scripts/vela/setup.sh):

    scripts/.venv/bin/python scripts/vela/estimates.py
"""

import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compiled import VELA_OPTIONS  # noqa: E402

NETWORKS = HERE.parent.parent / "model" / "tests" / "fixtures" / "networks"
SYSTEM = "Ethos_U65_Client_Server"


def estimate(model, config):
    """Vela's cycles_total for `model` compiled for `config`."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "ethosu.vela", str(model), "--accelerator-config",
                        f"ethos-{config}", "--output-dir", tmp, *VELA_OPTIONS], check=True,
                       capture_output=True)
        with open(Path(tmp) / f"{model.stem}_summary_{SYSTEM}.csv") as f:
            row = next(csv.DictReader(f))
        return int(round(float(row["cycles_total"])))


def main():
    for net in sorted(p for p in NETWORKS.iterdir() if p.is_dir()):
        cycles = {config: estimate(net / "model.tflite", config) for config in ("u65-256", "u65-512")}
        out = {"vela": "5.2.0", "system_config": SYSTEM, "cycles_total": cycles}
        (net / "vela_estimate.json").write_text(json.dumps(out, indent=2) + "\n")
        print(net.name, cycles)


if __name__ == "__main__":
    main()
