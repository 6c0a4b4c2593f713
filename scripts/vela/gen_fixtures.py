#!/usr/bin/env python3
"""Generate the Vela-made test fixtures of the golden model.

Usage (after scripts/vela/setup.sh):

    scripts/.venv/bin/python scripts/vela/gen_fixtures.py [--seed N] [--only weights|jobs]

Writes
  model/tests/fixtures/weights/  weight streams from Vela's npu_encode_weights
                                 with the OHWI weights Vela was given
                                 (checked by model/tests/weights_vela.rs);
  model/tests/fixtures/jobs/     job folders (see shared JOBS.md) built with
                                 Vela's ethosu.vela.api (jobs.py), or compiled
                                 from a whole TFLite model by Vela's compiler
                                 where its lowering is a long operation
                                 sequence, e.g. SOFTMAX (compiled.py); expected
                                 outputs from an independent reference: the
                                 TFLite Micro interpreter (tflite-micro; LiteRT's
                                 reference kernels where TFLite Micro has no
                                 kernel, e.g. uint8 convolutions, or where a
                                 job's description says why) on an equivalent
                                 model; numpy
                                 for REDUCE_SUM (no TFLite equivalent) and the
                                 source bytes for DMA copies.

Every input is random from a fixed seed, so a rerun with the same Vela version
and seed reproduces the same bytes.
"""

import argparse
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
ROOT = HERE.parent.parent
FIXTURES = ROOT / "model" / "tests" / "fixtures"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    ap.add_argument("--only", choices=["weights", "jobs"], help="generate one kind only")
    args = ap.parse_args()

    if args.only in (None, "weights"):
        import weight_fixtures

        out = FIXTURES / "weights"
        shutil.rmtree(out, ignore_errors=True)
        n = weight_fixtures.generate(out, args.seed)
        print(f"weights: {n} cases in {out.relative_to(ROOT)}")

    if args.only in (None, "jobs"):
        import jobs

        out = FIXTURES / "jobs"
        counts = jobs.generate(out, args.seed)
        for kind, n in sorted(counts.items()):
            print(f"jobs: {n:3d} {kind}")
        print(f"jobs: {sum(counts.values())} in {out.relative_to(ROOT)}")
        for name, n in sorted(jobs.MISMATCHES.items()):
            if n:
                print(f"jobs: {name}: {n} outputs where TFLite differs from the NPU arithmetic Vela configures")
        print(f"jobs: self-check of {len(jobs.MISMATCHES)} convolutions done")


if __name__ == "__main__":
    main()
