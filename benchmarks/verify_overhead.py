"""Recording overhead of the gradient verifier.

Wall time of a script run under the verifier's bootstrap (seeds, determinism,
recording hooks, record written at the end) divided by a plain
``python script.py`` run of the same script, both as fresh interpreters.
Runs alternate (plain, recorded, plain, ...) and the median of each is used,
so that load from other processes hits both sides alike. Target: below 1.15.

    python benchmarks/verify_overhead.py [--repeat 5] [--steps 3000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LARGER = """\
import torch
from torch import nn

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = torch.randn(256, 32)
target = data[:, :1].sin()
total = 0.0
for step in range({steps}):
    batch = torch.randint(0, 256, (32,))
    loss = nn.functional.mse_loss(model(data[batch]), target[batch])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total += loss.item()
print(f"mean loss {{total / {steps}:.4f}}")
"""


def corpus_script() -> Path:
    """A fixed corpus script that runs to completion (the verifier runs these)."""
    for path in sorted((ROOT / "corpus").glob("AF10*/*.fixed.py")):
        return path
    return ROOT / "tests" / "verify_cases" / "af104_hoisted.patched.py"


def timed(args, cwd, env) -> float:
    started = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{args} failed:\n{done.stderr.decode(errors='replace')[-2000:]}")
    return elapsed


def measure(script: Path, repeat: int) -> "tuple[float, float]":
    env = dict(os.environ, PYTHONHASHSEED="0")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    plain, recorded = [], []
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "run.json"
        config.write_text(json.dumps({"script": str(script), "record": str(Path(tmp) / "record.pt"), "device": "cpu"}))
        for _ in range(repeat):
            plain.append(timed([sys.executable, str(script)], tmp, env))
            recorded.append(timed([sys.executable, "-m", "autofix.verify.bootstrap", str(config)], tmp, env))
    return statistics.median(plain), statistics.median(recorded)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--steps", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        larger = Path(tmp) / "larger.py"
        larger.write_text(LARGER.format(steps=args.steps))
        worst = 0.0
        for label, script in (("corpus script", corpus_script()), (f"{args.steps}-step MLP", larger)):
            plain, recorded = measure(script, args.repeat)
            ratio = recorded / plain
            worst = max(worst, ratio)
            print(f"{label:<16} {script.name:<36} plain {plain:6.2f}s  recorded {recorded:6.2f}s  ratio {ratio:.3f}")
    print(f"worst ratio {worst:.3f} (target < 1.15)")
    return 0 if worst < 1.15 else 1


if __name__ == "__main__":
    sys.exit(main())
