"""The persistent result cache (autofix/cache.py): hits equal fresh results, and
anything a result depends on invalidates it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from autofix import api
from autofix.cache import Cache, content_hash
from autofix.types import Options

LEAKY = textwrap.dedent(
    """\
    import torch
    total = 0
    for x in loader:
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss
    """
)


@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(LEAKY)
    return path


@pytest.fixture
def options(tmp_path: Path) -> Options:
    return Options(cache_dir=str(tmp_path / "cache"))


def test_a_hit_equals_the_fresh_result(leaky: Path, options: Options) -> None:
    fresh = api.check_file(leaky, options)
    assert fresh.findings and fresh.changed
    assert api.cached_result(str(leaky), options) == fresh
    assert api.check_file(leaky, options) == fresh
    assert api.check_file(leaky, replace(options, cache_dir=None)) == fresh


def test_content_options_and_version_are_part_of_the_key(leaky: Path, options: Options) -> None:
    api.check_file(leaky, options)
    assert api.cached_result(str(leaky), replace(options, ignore=("AF105",))) is None
    assert api.cached_result(str(leaky), replace(options, unsafe_fixes=True)) is None
    leaky.write_text(LEAKY + "# edited\n")
    assert api.cached_result(str(leaky), options) is None
    cache = Cache(options.cache_dir or "")
    key = cache.key(str(leaky), leaky.read_bytes(), options)
    import autofix

    original = autofix.__version__
    try:
        autofix.__version__ = "0.0.0-other"
        assert cache.key(str(leaky), leaky.read_bytes(), options) != key
    finally:
        autofix.__version__ = original


def test_the_same_bytes_under_another_name_are_another_entry(tmp_path: Path, options: Options) -> None:
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text(LEAKY)
    second.write_text(LEAKY)
    api.check_file(first, options)
    assert api.cached_result(str(second), options) is None
    assert api.check_file(second, options).path == str(second)


def test_a_changed_dependency_invalidates_the_entry(tmp_path: Path, leaky: Path, options: Options) -> None:
    helper = tmp_path / "helper.py"
    helper.write_text("def f(x):\n    return x\n")
    cache = Cache(options.cache_dir or "")
    result = api.check_file(leaky, replace(options, cache_dir=None))
    key = cache.key(str(leaky), leaky.read_bytes(), options)
    cache.put(key, result, [(str(helper), content_hash(helper.read_bytes()))])
    assert cache.get(key, leaky.read_bytes()) == result
    helper.write_text("def f(x):\n    return x.item()\n")
    assert cache.get(key, leaky.read_bytes()) is None
    helper.unlink()
    assert cache.get(key, leaky.read_bytes()) is None


def test_corrupt_and_foreign_entries_are_misses(leaky: Path, options: Options) -> None:
    cache = Cache(options.cache_dir or "")
    key = cache.key(str(leaky), leaky.read_bytes(), options)
    entry = Path(options.cache_dir or "", key[:2], key[2:])
    entry.parent.mkdir(parents=True)
    for junk in (b"", b"not a pickle", b"\x80\x04K\x01."):  # the last one is pickle.dumps(1)
        entry.write_bytes(junk)
        assert cache.get(key, leaky.read_bytes()) is None
    fresh = api.check_file(leaky, options)  # overwrites the junk
    assert cache.get(key, leaky.read_bytes()) == fresh


def test_problems_are_not_cached(tmp_path: Path, options: Options) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\ndef f(:\n    x.backward()\n")
    result = api.check_file(broken, options)
    assert result.error is not None
    assert api.cached_result(str(broken), options) is None


def test_an_unwritable_cache_is_not_an_error(leaky: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("")
    result = api.check_file(leaky, Options(cache_dir=str(blocker / "cache")))
    assert result.findings


def test_a_fully_cached_run_never_imports_libcst(tmp_path: Path, leaky: Path, options: Options) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text("import torch\nprint(torch.ones(2))\n")
    files = [str(leaky), str(clean)]
    list(api.check_paths(files, options, jobs=1))
    probe = textwrap.dedent(
        f"""\
        import sys
        from autofix import api
        from autofix.types import Options
        results = list(api.check_paths({files!r}, Options(cache_dir={options.cache_dir!r}), jobs=2))
        assert len(results) == 2 and any(r.findings for r in results), results
        print("libcst" in sys.modules)
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_the_command_line_caches_unless_told_not_to(tmp_path: Path, leaky: Path) -> None:
    from click.testing import CliRunner

    from autofix.cli import cli

    cache_dir = tmp_path / "cli-cache"
    first = CliRunner().invoke(cli, ["--diff", "--cache-dir", str(cache_dir), str(leaky)])
    assert first.exit_code == 1, first.output
    entries = [p for p in cache_dir.rglob("*") if p.is_file() and p.parent != cache_dir]
    assert len(entries) == 1
    assert (cache_dir / "CACHEDIR.TAG").exists()
    second = CliRunner().invoke(cli, ["--diff", "--cache-dir", str(cache_dir), str(leaky)])
    assert second.exit_code == 1 and second.output == first.output
    other = tmp_path / "other-cache"
    CliRunner().invoke(cli, ["--diff", "--no-cache", "--cache-dir", str(other), str(leaky)])
    assert not other.exists()


def test_cache_dir_setting_is_relative_to_its_pyproject(tmp_path: Path, leaky: Path, monkeypatch) -> None:
    from click.testing import CliRunner

    from autofix.cli import cli

    monkeypatch.delenv("AUTOFIX_CACHE_DIR")
    (tmp_path / "pyproject.toml").write_text('[tool.autofix]\ncache-dir = ".autofix_cache"\n')
    result = CliRunner().invoke(cli, ["--diff", str(leaky)])
    assert result.exit_code == 1, result.output
    assert (tmp_path / ".autofix_cache" / "CACHEDIR.TAG").exists()
    assert (tmp_path / ".autofix_cache" / ".gitignore").read_text().strip().endswith("*")

