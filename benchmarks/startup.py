"""Fixed costs users feel: start-up and one file, side by side with ruff.

Times, interleaved round by round so that machine load hits every contender
alike, the median wall time of:

* ``python -c pass`` (the floor any Python tool pays);
* ``autofix --version`` and ``autofix --help``;
* ``autofix --diff`` on one script with no word any rule looks for (never
  parsed with LibCST), one clean training script, and the same script with one finding;
* ``ruff check`` on the same three files (when ``ruff`` is on PATH).

Wall and CPU times are both printed: on a shared machine the CPU time is the
steadier measure.

    python benchmarks/startup.py [--rounds 15]

Targets (issue 17): ``--version``/``--help`` within 2x ``python -c pass``;
``--diff`` on one file within 5x ``ruff check`` on it.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from typing import Dict, List, Sequence, Tuple

CLEAN = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

        def forward(self, x):
            return self.body(x)


    def train(model, loader, epochs=1):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        total = 0.0
        for _ in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                loss = (model(x) - y).pow(2).mean()
                loss.backward()
                opt.step()
                total += loss.item()
        return total
    """
)
# The same script with one mistake: the running total keeps every graph alive.
BUGGY = CLEAN.replace("total += loss.item()", "total += loss")
# No word any rule looks for: checked without importing LibCST.
PLAIN = textwrap.dedent(
    """\
    import json
    import os


    def load(folder):
        rows = []
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name)) as handle:
                rows.append(json.load(handle))
        return rows
    """
)


def _pad(text: str, lines: int) -> str:
    # Grow the script to about ``lines`` lines with more of the same kind of code.
    out = [text]
    i = 0
    while sum(part.count("\n") for part in out) < lines:
        out.append(f"\n\ndef helper_{i}(x, y):\n    z = x * 2 + y\n    return z.sum()\n")
        i += 1
    return "".join(out)


def _autofix() -> List[str]:
    script = os.path.join(os.path.dirname(sys.executable), "autofix")
    return [script] if os.path.exists(script) else [sys.executable, "-m", "autofix"]


def _time(argv: Sequence[str], cwd: str) -> Tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--lines", type=int, default=141, help="length of the one-file scripts")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="autofix-startup-") as folder:
        with open(os.path.join(folder, "clean.py"), "w") as handle:
            handle.write(_pad(CLEAN, args.lines))
        with open(os.path.join(folder, "buggy.py"), "w") as handle:
            handle.write(_pad(BUGGY, args.lines))
        with open(os.path.join(folder, "plain.py"), "w") as handle:
            handle.write(_pad(PLAIN, args.lines).replace("z = x * 2 + y\n    return z.sum()", "return [x, y]"))
        autofix = _autofix()
        contenders: List[Tuple[str, List[str]]] = [
            ("python -c pass", [sys.executable, "-c", "pass"]),
            ("autofix --version", [*autofix, "--version"]),
            ("autofix --help", [*autofix, "--help"]),
            ("autofix --diff plain.py", [*autofix, "--diff", "--no-cache", "plain.py"]),
            ("autofix --diff clean.py", [*autofix, "--diff", "--no-cache", "clean.py"]),
            ("autofix --diff buggy.py", [*autofix, "--diff", "--no-cache", "buggy.py"]),
        ]
        ruff = shutil.which("ruff", path=os.path.dirname(sys.executable)) or shutil.which("ruff")
        if ruff:
            contenders += [
                ("ruff check plain.py", [ruff, "check", "--no-cache", "--isolated", "plain.py"]),
                ("ruff check clean.py", [ruff, "check", "--no-cache", "--isolated", "clean.py"]),
                ("ruff check buggy.py", [ruff, "check", "--no-cache", "--isolated", "buggy.py"]),
            ]
        # Old builds have no --no-cache: drop the flag when the command rejects it.
        probe = subprocess.run([*autofix, "--diff", "--no-cache", "clean.py"], cwd=folder, capture_output=True, text=True)
        if "no such option" in probe.stderr:
            contenders = [(name, [a for a in argv if a != "--no-cache"]) for name, argv in contenders]
        times: Dict[str, List[float]] = {name: [] for name, _ in contenders}
        cpu: Dict[str, List[float]] = {name: [] for name, _ in contenders}
        for _ in range(args.rounds):
            for name, argv in contenders:
                wall, used = _time(argv, folder)
                times[name].append(wall)
                cpu[name].append(used)

    median = {name: statistics.median(values) for name, values in times.items()}
    median_cpu = {name: statistics.median(values) for name, values in cpu.items()}
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.rounds} rounds")
    print(f"{'command':32} {'median ms':>10} {'min ms':>8} {'CPU ms':>8}")
    for name, _ in contenders:
        print(f"{name:32} {median[name] * 1000:10.1f} {min(times[name]) * 1000:8.1f} {median_cpu[name] * 1000:8.1f}")
    floor, floor_cpu = median["python -c pass"], median_cpu["python -c pass"]
    for what in ("--version", "--help"):
        name = f"autofix {what}"
        print(f"{what + ' / python:':20} wall {median[name] / floor:.2f}x, CPU {median_cpu[name] / floor_cpu:.2f}x   (target <= 2x)")
    if ruff:
        for which in ("plain", "clean", "buggy"):
            ours, theirs = f"autofix --diff {which}.py", f"ruff check {which}.py"
            print(
                f"--diff {which}.py / ruff: wall {median[ours] / median[theirs]:.2f}x, "
                f"CPU {median_cpu[ours] / median_cpu[theirs]:.2f}x   (target <= 5x)"
            )


if __name__ == "__main__":
    main()
