"""Verify every fix autofix makes in ``corpus/`` on one device, files in parallel.

``autofix --diff --verify corpus/`` verifies one file after another; on CUDA
every run is a fresh interpreter, so this script runs one ``autofix`` per
corpus file, ``--jobs`` at a time, and prints a table of verdicts per rule
folder (and, with ``--out``, the verdict and detail of every file as JSON).
With ``--compare`` it reads a JSON written by an earlier run (the CPU run,
say) and lists the files whose verdict differs.

    python benchmarks/verify_corpus.py --device cpu --out cpu.json
    python benchmarks/verify_corpus.py --device cuda --jobs 12 --compare cpu.json
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def corpus_scripts(folders: Optional[List[str]] = None) -> List[Path]:
    return sorted(
        p
        for p in CORPUS.rglob("*.py")
        if not p.name.endswith(".fixed.py") and (not folders or p.relative_to(CORPUS).parts[0] in folders)
    )


def verify_one(path: Path, device: str, max_steps: int) -> Optional[Dict[str, object]]:
    command = [
        sys.executable, "-m", "autofix", "--diff", "--verify", "--device", device,
        "--max-steps", str(max_steps), "--format", "json", "--no-cache", "-q", "-j", "1", str(path),
    ]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    try:
        files = json.loads(done.stdout)["files"]
    except (ValueError, KeyError):
        return {"path": str(path.relative_to(CORPUS)), "verdict": "autofix-error", "detail": done.stderr[-2000:], "seconds": seconds}
    for entry in files:
        verification = entry.get("verification")
        if verification:
            return {
                "path": str(path.relative_to(CORPUS)),
                "verdict": verification["verdict"],
                "detail": verification.get("detail", ""),
                "seconds": round(seconds, 2),
            }
    return None


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--max-steps", type=int, default=5)
    parser.add_argument("--folders", help="comma-separated corpus folders (default: all)")
    parser.add_argument("--out", help="write every verdict as JSON here")
    parser.add_argument("--compare", help="a JSON from an earlier run: list verdicts that differ")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        results = [r for r in pool.map(lambda p: verify_one(p, args.device, args.max_steps), corpus_scripts(args.folders.split(",") if args.folders else None)) if r]
    wall = time.perf_counter() - started

    table: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for result in results:
        table[str(result["path"]).split("/")[0]][str(result["verdict"])] += 1
    verdicts = sorted({v for counts in table.values() for v in counts})
    print("| folder | " + " | ".join(verdicts) + " |")
    print("|---|" + "---|" * len(verdicts))
    for folder in sorted(table):
        print(f"| {folder} | " + " | ".join(str(table[folder][v]) for v in verdicts) + " |")
    total = collections.Counter(str(r["verdict"]) for r in results)
    print(f"{len(results)} files verified on {args.device} in {wall:.0f} s: " + ", ".join(f"{v} {n}" for v, n in sorted(total.items())))

    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))
    failed = [r for r in results if r["verdict"] not in ("identical", "repaired", "intended-change")]
    for result in failed:
        print(f"NOT ACCEPTED {result['path']}: {result['verdict']}: {str(result['detail'])[:400]}")
    if args.compare:
        before = {r["path"]: r["verdict"] for r in json.loads(Path(args.compare).read_text())}
        for result in results:
            if before.get(result["path"]) != result["verdict"]:
                print(f"DIFFERS {result['path']}: {before.get(result['path'])} -> {result['verdict']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
