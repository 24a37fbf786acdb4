"""Time ``autofix --diff`` on a large tree of real PyTorch code, next to ruff and plain LibCST.

    python benchmarks/bulk.py                    # build (or reuse) the tree, run everything
    python benchmarks/bulk.py --skip-naive       # leave out the slow naive LibCST pass
    python benchmarks/bulk.py --profile          # where autofix spends its time, per rule and file

The tree is made of the ``.py`` files of a few PyTorch libraries, fetched with
``pip download --no-deps`` (cached in ``--cache``, default
``/tmp/autofix-bench/downloads``) and unpacked into ``--tree`` (default
``/tmp/autofix-bench/tree``). Nothing of it belongs in the repository.

Every contender runs in its own process under a small probe, which reports its
wall time, its CPU time (user + sys, all its processes) and the largest
resident set of any one of its processes. On a shared machine the wall times
move with the load; the CPU times much less, so both are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

DEFAULT_PACKAGES = (
    "torchvision==0.29.1",
    "timm==1.0.31",
    "accelerate==1.15.0",
    "lightning==2.6.6",
    "transformers==5.24.0",
)
BENCH_ROOT = Path("/tmp/autofix-bench")

# Runs one command and reports wall time, CPU time and peak RSS of its process tree.
_PROBE = r"""
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                  "rss_mb": usage.ru_maxrss / 1024, "rc": proc.returncode,
                  "stderr": proc.stderr.decode("utf-8", "replace")[-2000:]}))
"""


# --------------------------------------------------------------------------- the tree


def build_tree(packages: Sequence[str], cache: Path, tree: Path) -> Path:
    """The tree of ``packages`` at ``tree``, built unless it is there already.

    Only a tree this script built (it holds the ``.packages`` marker) is ever
    deleted and rebuilt; any other existing ``--tree`` is the user's own code,
    measured as it is.
    """
    marker = tree / ".packages"
    wanted = "\n".join(packages)
    if marker.exists() and marker.read_text() == wanted:
        return tree
    if tree.exists() and not marker.exists():
        if not tree.is_dir():
            raise SystemExit(f"--tree {tree}: not a folder")
        return tree
    cache.mkdir(parents=True, exist_ok=True)
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    for spec in packages:
        archive = _download(spec, cache)
        _unpack_python_files(archive, tree / spec.split("==")[0])
    marker.write_text(wanted)
    return tree


def _download(spec: str, cache: Path) -> Path:
    name, _, version = spec.partition("==")
    stem = name.replace("-", "_")
    pattern = f"{stem}-{version}*" if version else f"{stem}-*"
    found = sorted(cache.glob(pattern))
    if not found:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", spec, "-d", str(cache)],
            check=True,
        )
        found = sorted(cache.glob(pattern))
    if not found:
        raise SystemExit(f"pip download {spec} left nothing matching {pattern} in {cache}")
    return found[-1]


def _unpack_python_files(archive: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                if member.endswith(".py") and not member.startswith("/") and ".." not in member:
                    zf.extract(member, into)
    else:
        with tarfile.open(archive) as tf:
            members = [
                m for m in tf.getmembers()
                if m.isfile() and m.name.endswith(".py") and not m.name.startswith("/") and ".." not in m.name
            ]
            tf.extractall(into, members=members)


def python_files(tree: Path) -> List[Path]:
    return sorted(tree.rglob("*.py"))


def describe(tree: Path) -> Dict[str, object]:
    """Sizes, and how many files each stage of the pre-filter lets through (text, then Python's parse tree)."""
    from autofix import engine, registry
    from autofix.types import FIND_PROJECT

    rules = [rule for rule in registry.all_rules() if not rule.OPT_IN]  # what a plain run selects
    files = python_files(tree)
    lines = size = passed = screened = screened_lines = 0
    per_rule = {rule.CODE: 0 for rule in rules}
    for path in files:
        data = path.read_bytes()
        size += len(data)
        lines += data.count(b"\n")
        text = data.decode("latin-1")
        passed += any(rule.may_fire(text) for rule in rules)
        # As a run screens it: with its path, so that the screens may ask the project about imported helpers.
        hits = [rule.CODE for rule in engine._screen(data, rules, str(path), FIND_PROJECT)[0]]
        screened += bool(hits)
        screened_lines += data.count(b"\n") if hits else 0
        for code in hits:
            per_rule[code] += 1
    return {
        "files": len(files),
        "lines": lines,
        "bytes": size,
        "prefilter_pass": passed,
        "screen_pass": screened,
        "screen_lines": screened_lines,
        "per_rule": per_rule,
    }


# --------------------------------------------------------------------------- contenders


def _read_all(tree: str) -> None:
    total = 0
    for path in python_files(Path(tree)):
        total += len(path.read_bytes())
    print(total)


def _naive_one(path: str) -> int:
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider, ScopeProvider

    try:
        module = cst.parse_module(Path(path).read_bytes())
        MetadataWrapper(module).resolve_many([PositionProvider, QualifiedNameProvider, ScopeProvider])
    except Exception:
        return 1
    return 0


def _naive_libcst(tree: str, jobs: int, limit: Optional[int]) -> None:
    import multiprocessing

    paths = [str(p) for p in python_files(Path(tree))]
    if limit:
        paths = paths[:: max(1, len(paths) // limit)][:limit]
    import libcst  # noqa: F401  (warm before forking, as autofix does)

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        failures = sum(pool.imap_unordered(_naive_one, paths, chunksize=4))
    print(json.dumps({"files": len(paths), "failures": failures}), file=sys.stderr)


def _ruff() -> str:
    candidate = Path(sys.executable).with_name("ruff")
    return str(candidate) if candidate.exists() else (shutil.which("ruff") or "ruff")


def measure(command: Sequence[str]) -> Dict[str, object]:
    out = subprocess.run([sys.executable, "-c", _PROBE, *command], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


# --------------------------------------------------------------------------- profile


def profile(tree: Path, top: int, sample: Optional[int] = None) -> None:
    """Run the checks in this process under cProfile; time every rule on every file (or a sample)."""
    import cProfile
    import pstats
    from collections import defaultdict

    from autofix import api, registry
    from autofix.types import Options

    options = Options()
    rule_time: Dict[str, float] = defaultdict(float)
    file_time: Dict[str, float] = {}
    file_rule: Dict[str, Dict[str, float]] = defaultdict(dict)
    current = [""]
    for rule in registry.all_rules():
        original = rule.check

        def timed(self, _original=original, _code=rule.CODE):
            start = time.perf_counter()
            try:
                return _original(self)
            finally:
                spent = time.perf_counter() - start
                rule_time[_code] += spent
                file_rule[current[0]][_code] = file_rule[current[0]].get(_code, 0.0) + spent

        rule.check = timed
    # Where a file's time goes, stage by stage, as the engine runs them.
    from autofix import engine
    stage_time: Dict[str, float] = defaultdict(float)

    def staged(label, function):
        def run(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                stage_time[label] += time.perf_counter() - start
        return run

    engine._screen = staged("pre-filter: trigger words, Python's parse, screens", engine._screen)
    engine.parse = staged("LibCST parse", engine.parse)
    from autofix.positions import LazyPositions

    label = "positions of findings (LibCST codegen of their statements)"
    LazyPositions._statement_positions = staged(label, LazyPositions._statement_positions)
    LazyPositions._everything = staged(label, LazyPositions._everything)
    profiler = cProfile.Profile()
    started = time.perf_counter()
    errors = 0
    profiler.enable()
    paths = python_files(tree)
    if sample:
        paths = paths[:: max(1, len(paths) // sample)][:sample]
    for path in paths:
        current[0] = str(path)
        start = time.perf_counter()
        result = api.check_file(str(path), options)
        file_time[str(path)] = time.perf_counter() - start
        errors += result.error is not None
    profiler.disable()
    total = time.perf_counter() - started
    print(f"in-process, one core: {total:.1f} s for {len(file_time)} files ({errors} with errors)")
    print("by stage (profiled, so slower than a plain run; the shares are what matter):")
    stage_time["rules (analyses and fix rendering)"] = sum(rule_time.values())
    for label, spent in sorted(stage_time.items(), key=lambda kv: -kv[1]):
        print(f"  {label:55} {spent:7.2f} s  {100 * spent / total:5.1f} %")
    print("time inside each rule's check() (fix passes included):")
    for code, spent in sorted(rule_time.items(), key=lambda kv: -kv[1]):
        print(f"  {code}  {spent:7.2f} s  {100 * spent / total:5.1f} %")
    print(f"slowest {top} files:")
    for path, spent in sorted(file_time.items(), key=lambda kv: -kv[1])[:top]:
        rules = ", ".join(f"{c} {s:.2f}" for c, s in sorted(file_rule[path].items(), key=lambda kv: -kv[1])[:3])
        print(f"  {spent:6.2f} s  {os.path.relpath(path, tree)}  [{rules}]")
    print("cProfile, by cumulative time:")
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(top)


# --------------------------------------------------------------------------- main


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES))
    parser.add_argument("--cache", type=Path, default=BENCH_ROOT / "downloads")
    parser.add_argument("--tree", type=Path, default=BENCH_ROOT / "tree")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--autofix-args", default="", help='extra autofix options, e.g. "--ignore AF103"')
    parser.add_argument("--skip-naive", action="store_true", help="leave out the naive LibCST pass")
    parser.add_argument("--naive-limit", type=int, help="run the naive pass on a sample; the time is scaled up")
    parser.add_argument("--profile", action="store_true", help="profile autofix in-process instead")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sample", type=int, help="with --profile: every k-th file, this many in all")
    parser.add_argument("--_read", help=argparse.SUPPRESS)
    parser.add_argument("--_naive", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._read:
        _read_all(args._read)
        return 0
    if args._naive:
        _naive_libcst(args._naive, args.jobs, args.naive_limit)
        return 0

    tree = build_tree(args.packages, args.cache, args.tree)
    facts = describe(tree)
    built = (tree / ".packages").exists()
    print(f"tree: {tree}  ({', '.join(args.packages) if built else 'your own tree, as it is'})")
    print(
        f"  {facts['files']} files, {facts['lines']} lines, {facts['bytes'] / 1e6:.1f} MB; "
        f"{facts['prefilter_pass']} files ({100 * facts['prefilter_pass'] / facts['files']:.0f} %) "
        f"have a trigger word, {facts['screen_pass']} ({facts['screen_lines']} lines) pass the screens "
        f"and are parsed with LibCST; per rule: {facts['per_rule']}"
    )
    if args.profile:
        profile(tree, args.top, args.sample)
        return 0

    me = [sys.executable, os.path.abspath(__file__), "--jobs", str(args.jobs)]
    contenders = [
        ("read every file", [*me, "--_read", str(tree)], 1.0),
        ("ruff check --select ALL --no-cache", [_ruff(), "check", "--select", "ALL", "--no-cache", "--exit-zero", "--quiet", str(tree)], 1.0),
        (
            # --no-cache: a second run would otherwise read every result from the cache.
            f"autofix --diff --no-cache --jobs {args.jobs} {args.autofix_args}".rstrip(),
            [sys.executable, "-m", "autofix", "--diff", "--no-cache", "--jobs", str(args.jobs), *args.autofix_args.split(), str(tree)],
            1.0,
        ),
    ]
    if not args.skip_naive:
        naive = [*me, "--_naive", str(tree)]
        scale = 1.0
        if args.naive_limit and args.naive_limit < facts["files"]:
            naive += ["--naive-limit", str(args.naive_limit)]
            scale = facts["files"] / args.naive_limit
        contenders.append(("naive LibCST (parse + position/qualname/scope)", naive, scale))

    print(f"{'contender':50} {'wall s':>8} {'cpu s':>8} {'peak RSS MB':>12}")
    timings: Dict[str, Dict[str, float]] = {}
    for label, command, scale in contenders:
        result = measure(command)
        wall, cpu = result["wall"] * scale, result["cpu"] * scale
        note = f"  (sample, x{scale:.1f})" if scale != 1.0 else ""
        if result["rc"] not in (0, 1):
            note += f"  exit {result['rc']}: {result['stderr'].strip().splitlines()[-1:]}"
        print(f"{label:50} {wall:8.2f} {cpu:8.2f} {result['rss_mb']:12.0f}{note}", flush=True)
        timings[label.split()[0]] = {"wall": wall, "cpu": cpu}

    af, ruff = timings["autofix"], timings["ruff"]
    print(f"autofix / ruff:  wall {af['wall'] / ruff['wall']:.2f}x  cpu {af['cpu'] / ruff['cpu']:.2f}x   (target: <= 3x)")
    if "naive" in timings:
        naive_t = timings["naive"]
        print(
            f"naive LibCST / autofix:  wall {naive_t['wall'] / af['wall']:.1f}x  "
            f"cpu {naive_t['cpu'] / af['cpu']:.1f}x   (target: >= 20x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
