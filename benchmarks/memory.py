"""Peak memory of the parent process of ``autofix --diff`` as the tree grows.

Copies ``--tree`` 1, 2, 4 … times side by side into a temporary folder (real
copies: autofix checks a file reached under several names once) and runs
``autofix --diff --no-cache`` over each, measuring the peak RSS of the
parent process alone (workers are separate processes and are left out). The
parent holds one result per file; only files with findings or fixes keep
their bytes, so its peak should stay about flat as the tree grows.

    python benchmarks/memory.py --tree /tmp/torch_geometric [--copies 1,2,4] [--jobs 2]

Target (issue 17): parent peak RSS flat as the tree grows.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# Runs autofix in this process and reports this process's own peak RSS.
_PROBE = r"""
import json, resource, sys, time
from autofix.cli import main
start = time.perf_counter()
code = main(sys.argv[1:])
wall = time.perf_counter() - start
own = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"rc": code, "wall": wall, "rss_mb": own.ru_maxrss / 1024,
                  "cpu": own.ru_utime + own.ru_stime}), file=sys.stderr)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", required=True, help="a folder of Python code to copy")
    parser.add_argument("--copies", default="1,2,4")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    copies = [int(n) for n in args.copies.split(",")]
    files = sum(1 for _, _, names in os.walk(args.tree) for n in names if n.endswith(".py"))
    size = sum(
        os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(args.tree) for n in names if n.endswith(".py")
    )
    print(f"tree {args.tree}: {files} files, {size / 1e6:.1f} MB of Python; --jobs {args.jobs}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'copies':>6} {'files':>7} {'MB':>6} {'parent peak RSS MB':>19} {'parent CPU s':>13} {'wall s':>7}")
    with tempfile.TemporaryDirectory(prefix="autofix-memory-") as folder:
        made = 0
        for count in copies:
            while made < count:
                shutil.copytree(args.tree, os.path.join(folder, f"copy{made}"), symlinks=True)
                made += 1
            started = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-c", _PROBE, "--diff", "--no-cache", "--quiet", "--jobs", str(args.jobs), folder],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False,
            )
            lines = [line for line in out.stderr.splitlines() if line.startswith("{")]
            if not lines:
                print(out.stderr[-2000:], file=sys.stderr)
                return 2
            result = json.loads(lines[-1])
            print(f"{count:6d} {files * count:7d} {size * count / 1e6:6.1f} {result['rss_mb']:19.0f} "
                  f"{result['cpu']:13.2f} {time.perf_counter() - started:7.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
