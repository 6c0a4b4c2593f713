#!/usr/bin/env python3
"""Vela's own cycle estimate of every bundled network, for the networks
table of `make bench` (tb/benches/networks.rs) and `npu-sim tflite
--vela-csv`: each network's model.tflite compiled for u65-256 and u65-512
under Vela's U65 default memory system (Ethos_U65_Client_Server,
Dedicated_Sram_384KB: compiled.py's options) with --verbose-performance;
the summary CSV's `cycles_total` goes to
model/tests/fixtures/networks/<name>/vela_estimate.json and the per-layer
CSV to vela_per_layer_<config>.csv beside it.

Usage (after scripts/vela/setup.sh):

    scripts/.venv/bin/python scripts/vela/estimates.py [--only NAME[,NAME]]
"""

import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compiled import VELA_OPTIONS, network_dirs  # noqa: E402

SYSTEM = "Ethos_U65_Client_Server"


def estimate(model, config, per_layer):
    """Vela's cycles_total for `model` compiled for `config`; its per-layer
    CSV is copied to `per_layer`."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "ethosu.vela", str(model), "--accelerator-config",
                        f"ethos-{config}", "--output-dir", tmp, "--verbose-performance", *VELA_OPTIONS],
                       check=True, capture_output=True)
        per_layer.write_bytes((Path(tmp) / f"{model.stem}_per-layer.csv").read_bytes())
        with open(Path(tmp) / f"{model.stem}_summary_{SYSTEM}.csv") as f:
            row = next(csv.DictReader(f))
        return int(round(float(row["cycles_total"])))


def main():
    for net in network_dirs(__doc__):
        cycles = {config: estimate(net / "model.tflite", config,
                                   net / f"vela_per_layer_{config.replace('-', '_')}.csv")
                  for config in ("u65-256", "u65-512")}
        out = {"vela": "5.2.0", "system_config": SYSTEM, "cycles_total": cycles}
        (net / "vela_estimate.json").write_text(json.dumps(out, indent=2) + "\n")
        print(net.name, cycles)


if __name__ == "__main__":
    main()
