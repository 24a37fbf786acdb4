"""A long fuzzing run of every rule; failing inputs become regression cases.

    python benchmarks/fuzz.py                      # 2000 examples per strategy
    python benchmarks/fuzz.py --examples 20000 --strategy spliced

Uses the strategies and the property of ``tests/test_fuzz.py``. Each failure
(shrunk by hypothesis) is written to ``tests/regressions/<strategy>_<hash>.py``
with the reason in a comment, where ``test_fuzz.py::test_regressions`` replays it.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
import traceback
from pathlib import Path
from typing import Callable, Dict, List

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import hypothesmith  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import test_fuzz  # noqa: E402


def strategies() -> Dict[str, Callable[[], st.SearchStrategy[str]]]:
    return {
        "fragments": test_fuzz.training_fragment,
        "spliced": lambda: test_fuzz.spliced_program(hypothesmith.from_grammar()),
        "grammar": hypothesmith.from_grammar,
        "libcst": hypothesmith.from_node,
    }


def save(name: str, source: str, error: BaseException) -> Path:
    digest = hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    path = test_fuzz.REGRESSIONS / f"{name}_{digest}.py"
    reason = "".join(traceback.format_exception_only(type(error), error)).strip().splitlines()
    header = "".join(f"# regression ({name} fuzzing): {line}\n" for line in reason[:3])
    test_fuzz.REGRESSIONS.mkdir(exist_ok=True)
    path.write_text(header + source, encoding="utf-8")
    return path


def fuzz(name: str, strategy: st.SearchStrategy[str], examples: int) -> List[Path]:
    saved: List[Path] = []
    last: List[str] = []

    @settings(deadline=None, max_examples=examples, suppress_health_check=list(HealthCheck), database=None)
    @given(strategy)
    def run(source: str) -> None:
        last[:] = [source]
        test_fuzz.check_program(source)

    try:
        run()
    except Exception as exc:  # hypothesis re-raises the shrunk example's failure last
        saved.append(save(name, last[0], exc))
        print(f"{name}: FAILED: {type(exc).__name__}: {str(exc)[:300]}")
    return saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--strategy", choices=sorted(strategies()), action="append")
    args = parser.parse_args()
    failures: List[Path] = []
    for name in args.strategy or list(strategies()):
        started = time.perf_counter()
        failures += fuzz(name, strategies()[name](), args.examples)
        print(f"{name}: {args.examples} examples in {time.perf_counter() - started:.1f} s", flush=True)
    for path in failures:
        print(f"saved {path.relative_to(ROOT)}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
