"""Every rule, with every fix, over real code: the installed torch package's own sources.

No file may crash a rule or the fixer, every changed file must compile, and
fixing a fixed file must change nothing. Files LibCST cannot parse are
reported per file and never stop the run.

By default an evenly spread, fixed sample of ``DEFAULT_LIMIT`` files is checked,
so that CI stays within a couple of minutes while the rules are as slow as they
are (see the report of benchmarks/bulk.py --profile); ``AUTOFIX_SWEEP_LIMIT=N``
changes the sample size, ``AUTOFIX_SWEEP_LIMIT=all`` sweeps every file.
"""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path
from typing import List

import pytest

from autofix import api, registry, runner
from autofix.discovery import discover
from autofix.types import FileResult, Options

OPTIONS = Options(select=("ALL",), unsafe_fixes=True)
JOBS = 2
DEFAULT_LIMIT = 120


def torch_sources() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        pytest.skip("torch is not installed")
    return Path(spec.origin).parent


def sample(files: List[str]) -> List[str]:
    setting = os.environ.get("AUTOFIX_SWEEP_LIMIT", str(DEFAULT_LIMIT))
    limit = 0 if setting == "all" else int(setting)
    if not limit or limit >= len(files):
        return files
    return files[:: len(files) // limit][:limit]


def check_results(results: List[FileResult]) -> None:
    crashes = [f"{r.path}: {r.error}" for r in results if (r.error or "").startswith("internal error")]
    assert crashes == []
    for result in results:
        if result.error is not None:
            assert result.fixed == result.source, f"{result.path}: changed despite {result.error}"
            continue
        if not result.changed:
            continue
        compile(result.fixed, result.path, "exec", dont_inherit=True)
        again = api.fix_source(result.fixed, result.path, OPTIONS)
        assert again.error is None, f"{result.path}: the fixed file fails: {again.error}"
        assert again.fixed == result.fixed, f"{result.path}: fixing the fixed file changed it"


@pytest.mark.slow  # about a minute on a quiet 2-core machine; CI runs the slow tests
def test_sweep_torch_sources(tmp_path, capsys, unscreened):
    # Screens off (conftest): with them on, most of torch's sources never reach
    # the analyses at all; the sweep is there to run the analyses over real code.
    root = torch_sources()
    files, problems = discover([str(root)], respect_gitignore=False)
    # Files none of whose trigger words occur are never parsed: sample the others.
    rules = registry.all_rules()
    files = sample([f for f in files if any(r.may_fire(Path(f).read_bytes().decode("latin-1")) for r in rules)])
    # Code LibCST cannot parse exists in real trees (Python 2 leftovers, half-written
    # files); it must come back as that file's error, next to everything else.
    broken = tmp_path / "py2_leftover.py"
    broken.write_text("loss.backward()\nprint 'loss', loss.data[0]\n")
    started = time.perf_counter()
    results = list(runner.run(files + [str(broken)], OPTIONS, jobs=JOBS))
    elapsed = time.perf_counter() - started
    assert len(results) == len(files) + 1
    assert sorted(r.path for r in results) == sorted(files + [str(broken)])
    check_results(results)

    by_path = {r.path: r for r in results}
    assert by_path[str(broken)].error.startswith("syntax error")
    unparsable = [r for r in results if r.error is not None]
    changed = [r for r in results if r.changed]
    skipped = sum(r.skipped_by_prefilter for r in results)
    assert skipped == 0, "the sample must exercise the analyses, not only the pre-filter"
    with capsys.disabled():
        print(
            f"\nsweep of {root}: {len(files)} files in {elapsed:.1f} s with {JOBS} jobs; "
            f"{skipped} skipped by the pre-filter, {len(changed)} changed, "
            f"{sum(len(r.findings) for r in results)} findings, {len(unparsable)} reported errors, "
            f"{len(problems)} discovery problems"
        )
        for r in unparsable:
            print(f"  {r.path}: {r.error}")
