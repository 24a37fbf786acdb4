"""One big file: how ``autofix --diff`` scales with a file's length, next to ruff.

Generates files of growing length in two shapes users really have:

* ``functions``: a library module, many training functions and classes (some
  with a mistake for every rule, most correct);
* ``script``: a notebook export, one training loop at the top, then thousands
  of top-level statements.

For each length it times (CPU seconds) ``autofix --diff --no-cache FILE`` and ``ruff check
--select ALL --no-cache FILE`` side by side (median of ``--rounds``) and
prints the cost per line, so that growth that is not linear shows.

    python benchmarks/bigfile.py [--lengths 1000,8000,64000] [--rounds 3]

Targets (issue 17): at 8,000 lines within 10x ``ruff check --select ALL``;
cost per line flat within 2x from 1,000 to 64,000 lines.
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
from typing import Dict, List, Sequence

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"

FUNCTION_BLOCKS = [
    """\
    def train_epoch_{i}(model, loader, opt):
        total = 0.0
        for x, y in loader:
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            total += loss.item()
        return total
    """,
    """\
    class Block{i}(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.fc = nn.Linear(width, width)
            self.act = nn.ReLU()

        def forward(self, x):
            y = self.act(self.fc(x))
            return x + y
    """,
    """\
    def leaky_{i}(model, loader, opt):
        running = 0
        for x, y in loader:
            opt.zero_grad()
            loss = model(x).sum()
            loss.backward()
            opt.step()
            running += loss
        return running
    """,
    """\
    def helper_{i}(a, b):
        c = a * 2 + b
        d = torch.cat([a, c], dim=0)
        return d.mean()
    """,
]

SCRIPT_HEAD = """\
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0
for step in range(10):
    x = torch.randn(8, 4)
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    total += loss
"""

SCRIPT_LINES = [
    "value_{i} = torch.arange({i} % 7 + 1).float().mean().item()\n",
    "print('step', {i}, value_{i})\n",
    "results_{i} = [value_{i} * k for k in range(3)]\n",
    "if value_{i} > 2:\n    results_{i}.append(value_{i})\n",
]


def generate(shape: str, lines: int) -> str:
    parts: List[str] = [HEADER]
    count = HEADER.count("\n")
    if shape == "script":
        parts.append(SCRIPT_HEAD)
        count += SCRIPT_HEAD.count("\n")
        blocks = SCRIPT_LINES
        dedent = False
    else:
        blocks = FUNCTION_BLOCKS
        dedent = True
    i = 0
    while count < lines:
        block = blocks[i % len(blocks)].format(i=i)
        text = textwrap.dedent(block) + "\n\n" if dedent else block
        parts.append(text)
        count += text.count("\n")
        i += 1
    return "".join(parts)


def _time(argv: Sequence[str]) -> float:
    """CPU seconds (user + system) of one run: on a shared machine the steadier measure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lengths", default="1000,8000,64000")
    parser.add_argument("--shapes", default="functions,script")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    lengths = [int(n) for n in args.lengths.split(",")]
    script = os.path.join(os.path.dirname(sys.executable), "autofix")
    autofix = [script] if os.path.exists(script) else [sys.executable, "-m", "autofix"]
    ruff = shutil.which("ruff", path=os.path.dirname(sys.executable)) or shutil.which("ruff")

    print(f"CPU seconds, median of {args.rounds}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'shape':10} {'lines':>7} {'autofix s':>10} {'ms/line':>8} {'ruff ALL s':>11} {'ratio':>6}")
    with tempfile.TemporaryDirectory(prefix="autofix-bigfile-") as folder:
        for shape in args.shapes.split(","):
            per_line: Dict[int, float] = {}
            for lines in lengths:
                path = os.path.join(folder, f"{shape}_{lines}.py")
                with open(path, "w") as handle:
                    handle.write(generate(shape, lines))
                ours: List[float] = []
                theirs: List[float] = []
                for _ in range(args.rounds):
                    ours.append(_time([*autofix, "--diff", "--no-cache", path]))
                    if ruff:
                        theirs.append(_time([ruff, "check", "--select", "ALL", "--no-cache", "--isolated", path]))
                mine = statistics.median(ours)
                per_line[lines] = mine / lines
                other = statistics.median(theirs) if theirs else float("nan")
                print(
                    f"{shape:10} {lines:7d} {mine:10.2f} {mine / lines * 1000:8.3f} {other:11.2f} {mine / other:6.1f}"
                )
            spread = max(per_line.values()) / min(per_line.values())
            print(f"{shape}: cost per line varies {spread:.2f}x over {lengths[0]}-{lengths[-1]} lines (target <= 2x)")


if __name__ == "__main__":
    main()
