"""``benchmarks/bulk.py`` never deletes a tree it did not build (issue 17)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BULK = Path(__file__).resolve().parent.parent / "benchmarks" / "bulk.py"


@pytest.fixture
def bulk():
    spec = importlib.util.spec_from_file_location("bulk_under_test", BULK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_users_own_tree_is_measured_as_it_is(bulk, tmp_path, monkeypatch):
    tree = tmp_path / "my_project"
    tree.mkdir()
    (tree / "train.py").write_text("x = 1\n")

    def no_download(spec, cache):
        raise AssertionError("must not download into the user's tree")

    monkeypatch.setattr(bulk, "_download", no_download)
    assert bulk.build_tree(["torchvision==0.0"], tmp_path / "cache", tree) == tree
    assert (tree / "train.py").read_text() == "x = 1\n"


def test_a_tree_it_built_is_rebuilt_for_other_packages(bulk, tmp_path, monkeypatch):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / ".packages").write_text("old==1")
    (tree / "stale.py").write_text("x = 1\n")
    fetched = []
    monkeypatch.setattr(bulk, "_download", lambda spec, cache: fetched.append(spec) or Path(spec))
    monkeypatch.setattr(bulk, "_unpack_python_files", lambda archive, into: into.mkdir(parents=True))
    bulk.build_tree(["new==2"], tmp_path / "cache", tree)
    assert fetched == ["new==2"]
    assert not (tree / "stale.py").exists()
    assert (tree / ".packages").read_text() == "new==2"
