"""Hostile input for the engine (issue 14, items 6-8).

Before the hardening work each of these was fatal on main: deep brackets
crashed the whole process inside LibCST's native parser (SIGSEGV, every other
file's result lost), a 400-term sum exhausted Python's recursion limit and
exited 2, a 20,000-term sum took minutes, and a file with PEP 695 syntax got
"internal error ... fixed source does not compile" on Python 3.11.
"""

from __future__ import annotations

import subprocess
import sys
import time

from autofix import api, engine
from autofix.types import Options
from test_robustness import TRAINING  # AF104 with a safe fix

HEADER = "import torch\nloss.backward()\n"


def deep(kind: str, n: int) -> str:
    if kind == "parens":
        return HEADER + "x = " + "(" * n + "1" + ")" * n + "\n"
    if kind == "list":
        return HEADER + "x = " + "[" * n + "]" * n + "\n"
    if kind == "sum":
        return HEADER + "x = " + " + ".join(["a"] * n) + "\n"
    if kind == "attribute":
        return HEADER + "x = a" + ".b" * n + "\n"
    raise AssertionError(kind)


def test_deep_files_are_per_file_problems_and_the_rest_is_checked(tmp_path):
    (tmp_path / "parens.py").write_text(deep("parens", 5000))
    (tmp_path / "list.py").write_text(deep("list", 3000))
    (tmp_path / "train.py").write_text(TRAINING)
    (tmp_path / "clean.py").write_text("x = 1\n")
    result = subprocess.run(
        [sys.executable, "-m", "autofix", "--jobs", "2", "--format", "json", str(tmp_path)],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 1, result.stderr
    import json

    report = json.loads(result.stdout)
    errors = {f["path"].rsplit("/", 1)[-1]: f["error"] for f in report["files"] if f["error"]}
    assert errors == {"parens.py": engine.TOO_DEEP, "list.py": engine.TOO_DEEP}
    assert [f["code"] for f in report["findings"]] == ["AF104"]


def test_a_1000_term_sum_is_a_per_file_problem_not_an_internal_error():
    result = api.fix_source(deep("sum", 1000), "sum.py", Options(fix=True))
    assert result.error == engine.TOO_DEEP
    assert not result.internal_error


def test_a_sum_within_the_limit_is_checked():
    # 420 levels exhausted the default recursion limit (1,000) before.
    result = api.fix_source(deep("sum", 420), "sum.py", Options(fix=True))
    assert result.error is None


def test_huge_chains_are_refused_quickly():
    for kind in ("sum", "attribute"):
        started = time.monotonic()
        result = api.fix_source(deep(kind, 20000), f"{kind}.py", Options(fix=True))
        assert result.error == engine.TOO_DEEP
        assert time.monotonic() - started < 20  # minutes before; well under a second unloaded


def test_ordinary_code_is_not_measured():
    # The exact measure (a parse and a walk) runs only when a cheap scan of the bytes flags the file.
    brackets, longest_line = engine._naive_nesting(TRAINING.encode())
    assert brackets == 2 and longest_line <= 60


# TRAINING with PEP 695 syntax (Python 3.12) between its imports and its loop.
PEP_695 = TRAINING.replace(
    "\nmodel = ",
    "\ntype Batch = list[torch.Tensor]\n\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n\n\nmodel = ",
)


def test_newer_syntax_than_the_interpreter_still_gets_its_fix():
    result = api.fix_source(PEP_695, "generic.py", Options(fix=True))
    assert result.error is None
    assert result.changed and result.applied_codes == ("AF104",)
    assert b"type Batch = list[torch.Tensor]" in result.fixed


def test_a_fix_that_breaks_compilable_code_is_still_caught():
    import libcst as cst

    original = cst.parse_module("x = 1\n")
    try:
        engine._check_compiles("x = = 1\n", "x.py", original)
    except RuntimeError as exc:
        assert "fixed source does not compile" in str(exc)
    else:
        raise AssertionError("a broken fix of compilable code must be refused")
