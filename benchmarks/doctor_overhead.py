"""Overhead of the doctor's evidence collection (``autofix --run``) on a run without a problem.

Three fresh interpreters per round, alternating: the plain ``python script.py``,
the verifier's recorded run (``autofix.verify.bootstrap``), and the same run
with the doctor's evidence (call sites, shared-node windows, ``zero_grad``
sites, the live-graph holders of the first steps). The medians are compared:
doctor / plain is the cost a user pays, doctor / verifier what evidence adds
to the recorder. Target: doctor / plain below 1.15 on the corpus script and
on a 3,000-step script (the focused re-run with anomaly mode only happens
after a failure, so it is not part of a clean run).

    python benchmarks/doctor_overhead.py [--repeat 5] [--steps 3000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verify_overhead import LARGER, ROOT, corpus_script, timed  # noqa: E402


def measure(script: Path, repeat: int) -> "tuple[float, float, float]":
    env = dict(os.environ, PYTHONHASHSEED="0")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    plain, recorded, doctor = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        base = {"script": str(script), "record": str(Path(tmp) / "record.pt"), "device": "cpu"}
        verifier = Path(tmp) / "verify.json"
        verifier.write_text(json.dumps(base))
        evidence = Path(tmp) / "doctor.json"
        evidence.write_text(json.dumps({**base, "doctor": {"roots": [str(script.parent)], "focus": None, "holder_steps": 10}}))
        for _ in range(repeat):
            plain.append(timed([sys.executable, str(script)], tmp, env))
            recorded.append(timed([sys.executable, "-m", "autofix.verify.bootstrap", str(verifier)], tmp, env))
            doctor.append(timed([sys.executable, "-m", "autofix.verify.bootstrap", str(evidence)], tmp, env))
    return statistics.median(plain), statistics.median(recorded), statistics.median(doctor)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--steps", type=int, default=3000)
    args = parser.parse_args()
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        larger = Path(tmp) / "larger.py"
        larger.write_text(LARGER.format(steps=args.steps))
        for label, script in (("corpus script", corpus_script()), (f"{args.steps}-step MLP", larger)):
            plain, recorded, doctor = measure(script, args.repeat)
            ratio = doctor / plain
            worst = max(worst, ratio)
            print(
                f"{label:<16} {script.name:<36} plain {plain:6.2f}s  verifier {recorded:6.2f}s  doctor {doctor:6.2f}s  "
                f"doctor/plain {ratio:.3f}  doctor/verifier {doctor / recorded:.3f}"
            )
    print(f"worst doctor/plain ratio {worst:.3f} (target < 1.15)")
    return 0 if worst < 1.15 else 1


if __name__ == "__main__":
    sys.exit(main())
