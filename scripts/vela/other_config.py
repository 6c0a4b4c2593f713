#!/usr/bin/env python3
"""Compile every bundled network for the configuration it was not made for,
so each runs on both u65-256 and u65-512 (tb/tests/networks_compare.rs):
model/tests/fixtures/networks/<name>/model.tflite, compiled by Vela with the
same options as model_vela.tflite (compiled.py), goes to
model_vela_<config>.tflite beside it.

Usage (after scripts/vela/setup.sh):

    scripts/.venv/bin/python scripts/vela/other_config.py [--only NAME[,NAME]]
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compiled import compile_bytes, network_dirs  # noqa: E402

CONFIGS = ("u65-256", "u65-512")


def main():
    for net in network_dirs(__doc__):
        source = (net / "model.tflite").read_bytes()
        own = (net / "model_vela.tflite").read_bytes()
        compiled = {config: compile_bytes(source, config) for config in CONFIGS}
        mine = [config for config in CONFIGS if compiled[config] == own]
        if len(mine) != 1:
            raise RuntimeError(f"{net.name}: model_vela.tflite is not Vela's output for one configuration")
        for config in CONFIGS:
            if config != mine[0]:
                out = net / f"model_vela_{config.replace('-', '_')}.tflite"
                out.write_bytes(compiled[config])
                print(f"{net.name}: {mine[0]} in model_vela.tflite, {config} in {out.name}")


if __name__ == "__main__":
    main()
