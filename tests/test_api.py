"""api.py: paths in, results out; nothing printed, nothing written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import demo_rules
from autofix import api
from autofix.types import Options

RELU = "y.relu_()\n"


@pytest.fixture(autouse=True)
def _demo(monkeypatch):
    demo_rules.install(monkeypatch)


def test_fix_paths_returns_one_sorted_result_per_file_and_writes_nothing(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "b.py").write_text(RELU)
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "c.py").write_text(RELU)  # a default exclude
    missing = str(tmp_path / "missing.py")
    results = api.fix_paths([str(tmp_path), missing], Options(fix=True), jobs=1)
    assert [Path(r.path).name for r in results] == ["missing.py", "a.py", "b.py"]
    by_name = {Path(r.path).name: r for r in results}
    assert by_name["missing.py"].error is not None
    assert by_name["b.py"].fixed == b"y = y.relu()\n"
    assert (tmp_path / "pkg" / "b.py").read_text() == RELU


def test_fix_paths_in_parallel_gives_the_same_results(tmp_path):
    for i in range(20):
        (tmp_path / f"m{i:02}.py").write_text(RELU if i % 3 else "x = 1\n")
    serial = api.fix_paths([str(tmp_path)], Options(fix=True), jobs=1)
    parallel = api.fix_paths([str(tmp_path)], Options(fix=True), jobs=2)
    assert serial == parallel


def test_extend_exclude(tmp_path):
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "a.py").write_text(RELU)
    (tmp_path / "b.py").write_text(RELU)
    results = api.fix_paths([str(tmp_path)], Options(), jobs=1, extend_exclude=["gen/"])
    assert [Path(r.path).name for r in results] == ["b.py"]


def test_per_path_ignores_are_relative_to_the_root(tmp_path, monkeypatch):
    options = Options(per_path_ignores=(("tests/**", ("AF901",)),), root=str(tmp_path))
    inside = str(tmp_path / "tests" / "unit" / "t.py")
    assert [r.CODE for r in api.rules_for(options, inside)] == ["AF902", "AF903"]
    assert [r.CODE for r in api.rules_for(options, str(tmp_path / "src" / "t.py"))] == ["AF901", "AF902", "AF903"]
    monkeypatch.chdir(tmp_path / "..")
    relative = os.path.join(tmp_path.name, "tests", "t.py")
    assert "AF901" not in [r.CODE for r in api.rules_for(options, relative)]


def test_fix_source_accepts_text_and_bytes():
    assert api.fix_source(RELU, "t.py").fixed == b"y = y.relu()\n"
    assert api.fix_source(RELU.encode(), "t.py", Options(fix=False)).fixed == RELU.encode()
