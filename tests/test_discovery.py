from __future__ import annotations

import os
from pathlib import Path

import pytest

from autofix import discovery
from autofix.discovery import DEFAULT_EXCLUDES, discover


def make(root: Path, *names: str, text: str = "x = 1\n") -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def rel(root: Path, files) -> list:
    return [Path(f).relative_to(root).as_posix() for f in files]


def test_walks_python_files_sorted(tmp_path):
    make(tmp_path, "b.py", "a.py", "pkg/z.py", "pkg/sub/y.py", "notes.txt", "pkg/data.pyc", "stub.pyi")
    files, errors = discover([str(tmp_path)])
    assert rel(tmp_path, files) == ["a.py", "b.py", "pkg/sub/y.py", "pkg/z.py"]
    assert errors == []


@pytest.mark.parametrize("folder", DEFAULT_EXCLUDES)
def test_default_excludes(tmp_path, folder):
    make(tmp_path, "keep.py", f"{folder}/skip.py", f"src/{folder}/skip.py")
    files, _ = discover([str(tmp_path)])
    assert rel(tmp_path, files) == ["keep.py"]


def test_any_virtualenv_is_skipped_by_its_pyvenv_cfg(tmp_path):
    make(tmp_path, "keep.py", "env39/lib/python3.9/x.py", "env39/pyvenv.cfg")
    files, _ = discover([str(tmp_path)])
    assert rel(tmp_path, files) == ["keep.py"]


def test_exclude_replaces_the_defaults(tmp_path):
    make(tmp_path, "keep.py", "build/gen.py", "legacy/old.py", "env/pyvenv.cfg", "env/e.py")
    files, _ = discover([str(tmp_path)], exclude=["legacy/"])
    assert rel(tmp_path, files) == ["build/gen.py", "env/e.py", "keep.py"]


def test_extend_exclude_adds_to_the_defaults(tmp_path):
    make(tmp_path, "keep.py", "build/gen.py", "legacy/old.py", "src/test_x.py", "src/x.py")
    files, _ = discover([str(tmp_path)], extend_exclude=["legacy", "test_*.py"])
    assert rel(tmp_path, files) == ["keep.py", "src/x.py"]


def test_exclude_patterns_are_anchored_at_the_argument(tmp_path):
    make(tmp_path, "gen/a.py", "src/gen/b.py")
    files, _ = discover([str(tmp_path)], extend_exclude=["/gen"])
    assert rel(tmp_path, files) == ["src/gen/b.py"]


def test_gitignore_applies_relative_to_its_folder(tmp_path):
    make(tmp_path, "top.py", "generated.py", "a/generated.py", "a/keep.py", "a/b/local.py", "b/local.py")
    (tmp_path / ".gitignore").write_text("generated.py\n")
    (tmp_path / "a" / ".gitignore").write_text("/b/\n")
    files, _ = discover([str(tmp_path)])
    # a/.gitignore's "/b/" means a/b, not the top-level b/.
    assert rel(tmp_path, files) == ["a/keep.py", "b/local.py", "top.py"]


def test_deeper_gitignore_can_reinclude(tmp_path):
    make(tmp_path, "x_gen.py", "pkg/x_gen.py", "pkg/y_gen.py")
    (tmp_path / ".gitignore").write_text("*_gen.py\n")
    (tmp_path / "pkg" / ".gitignore").write_text("!x_gen.py\n")
    files, _ = discover([str(tmp_path)])
    assert rel(tmp_path, files) == ["pkg/x_gen.py"]


def test_gitignore_above_the_argument_counts_inside_a_repository(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*_pb2.py\n")
    make(tmp_path, "src/model.py", "src/model_pb2.py")
    files, _ = discover([str(tmp_path / "src")])
    assert rel(tmp_path, files) == ["src/model.py"]


@pytest.mark.parametrize(
    "ignore, named",
    [
        pytest.param("ignored/\n", "ignored", id="the named folder is ignored"),
        pytest.param("ignored/\n", "ignored/sub", id="a folder above the named one is ignored"),
        pytest.param("/ignored\n", "ignored/sub", id="anchored pattern"),
        pytest.param("ign*\n", "ignored/sub", id="wildcard pattern"),
    ],
)
def test_a_named_folder_inside_an_ignored_one_is_checked(tmp_path, monkeypatch, ignore, named):
    # Ancestor ignore files must not hide what the user named (as ruff does):
    # checking 0 files and exiting 0 would let CI pass silently.
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text(ignore + "*_pb2.py\n")
    make(tmp_path, "ignored/sub/a.py", "ignored/sub/deeper/b.py", "ignored/sub/c_pb2.py", "ignored/top.py")
    files, errors = discover([str(tmp_path / named)])
    expected = ["ignored/sub/a.py", "ignored/sub/deeper/b.py"]
    if named == "ignored":
        expected.append("ignored/top.py")
    assert rel(tmp_path, files) == sorted(expected)  # the other patterns still apply inside it
    assert errors == []
    # The same from inside the folder, named as ".".
    monkeypatch.chdir(tmp_path / named)
    files, _ = discover(["."])
    assert sorted(os.path.join(named, f) for f in files) == sorted(expected)


def test_bulk_benchmark_never_deletes_a_tree_it_did_not_build(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("bulk", Path(__file__).parents[1] / "benchmarks" / "bulk.py")
    bulk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bulk)
    make(tmp_path, "mine/a.py", "mine/pkg/b.py")
    tree = tmp_path / "mine"
    assert bulk.build_tree(["torch-geometric"], tmp_path / "cache", tree) == tree
    assert rel(tmp_path, sorted(map(str, tree.rglob("*.py")))) == ["mine/a.py", "mine/pkg/b.py"]
    assert not (tmp_path / "cache").exists()  # nothing was downloaded either


def test_gitignore_can_be_disregarded(tmp_path):
    make(tmp_path, "a.py", "gen.py")
    (tmp_path / ".gitignore").write_text("gen.py\n")
    files, _ = discover([str(tmp_path)], respect_gitignore=False)
    assert rel(tmp_path, files) == ["a.py", "gen.py"]


def test_explicit_files_are_always_checked(tmp_path):
    make(tmp_path, "build/gen.py", "script", "ignored.py")
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    named = [str(tmp_path / "build/gen.py"), str(tmp_path / "script"), str(tmp_path / "ignored.py")]
    files, errors = discover(named)
    assert files == sorted(named)
    assert errors == []


def test_duplicates_are_reported_once(tmp_path):
    make(tmp_path, "a.py", "pkg/b.py")
    files, _ = discover([str(tmp_path), str(tmp_path / "a.py"), str(tmp_path / "pkg") + "/", str(tmp_path)])
    assert rel(tmp_path, files) == ["a.py", "pkg/b.py"]


def test_relative_arguments_give_relative_paths(tmp_path, monkeypatch):
    make(tmp_path, "a.py", "pkg/b.py")
    monkeypatch.chdir(tmp_path)
    assert discover(["."])[0] == ["a.py", os.path.join("pkg", "b.py")]
    assert discover(["pkg"])[0] == [os.path.join("pkg", "b.py")]


def test_symlink_loops_terminate(tmp_path):
    make(tmp_path, "pkg/a.py")
    os.symlink(tmp_path, tmp_path / "pkg" / "up")
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "self")
    files, errors = discover([str(tmp_path)])
    assert rel(tmp_path, files) == ["pkg/a.py"]
    assert errors == []


def test_broken_symlink_and_missing_path_are_reported(tmp_path):
    make(tmp_path, "a.py")
    os.symlink(tmp_path / "gone.py", tmp_path / "link.py")
    files, errors = discover([str(tmp_path), str(tmp_path / "missing.py")])
    assert rel(tmp_path, files) == ["a.py"]
    assert {(Path(e.path).name, e.error) for e in errors} == {
        ("link.py", "broken symbolic link"),
        ("missing.py", "no such file or directory"),
    }
    assert all(e.source is None and e.fixed is None for e in errors)


def test_files_over_the_size_limit_are_skipped_with_a_message(tmp_path):
    make(tmp_path, "small.py")
    make(tmp_path, "huge.py", text="x = 1\n" * 100)
    files, errors = discover([str(tmp_path)], max_file_size=100)
    assert rel(tmp_path, files) == ["small.py"]
    assert [(Path(e.path).name, e.error) for e in errors] == [
        ("huge.py", "skipped: file is larger than 100 bytes")
    ]
    # The limit holds for files named explicitly too.
    _, errors = discover([str(tmp_path / "huge.py")], max_file_size=100)
    assert errors[0].error == "skipped: file is larger than 100 bytes"


def test_unlistable_directory_is_reported_and_the_walk_goes_on(tmp_path, monkeypatch):
    # The suite runs as root, for whom chmod 000 changes nothing; make scandir
    # fail the way it does for a directory without read permission instead.
    make(tmp_path, "a.py", "locked/secret.py", "open/b.py")
    real_scandir = os.scandir

    def scandir(path="."):
        if os.path.basename(os.fspath(path)) == "locked":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    files, errors = discover([str(tmp_path)])
    assert rel(tmp_path, files) == ["a.py", "open/b.py"]
    assert [(Path(e.path).name, e.error) for e in errors] == [
        ("locked", "cannot read directory: Permission denied")
    ]


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root ignores permissions")
def test_directory_without_permission(tmp_path):
    make(tmp_path, "a.py", "locked/secret.py")
    (tmp_path / "locked").chmod(0)
    try:
        files, errors = discover([str(tmp_path)])
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert rel(tmp_path, files) == ["a.py"]
    assert "Permission denied" in errors[0].error
