"""The sdist can run its own tests, and the distribution is named as the README says."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_distribution_name_and_metadata():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "torch-autofix"
    assert project["scripts"] == {"autofix": "autofix.console:main"}  # the command stays autofix
    assert project["authors"] and project["keywords"] and project["classifiers"]
    assert any(dep.startswith("torch>=2.1") for dep in project["optional-dependencies"]["verify"])
    readme = (ROOT / "README.md").read_text()
    assert "pip install torch-autofix" in readme
    assert "https://download.pytorch.org/whl/cpu" in readme
    import autofix

    assert autofix.DISTRIBUTION == project["name"]


def test_sdist_holds_what_its_tests_need(tmp_path):
    if not (ROOT / ".git").exists():
        pytest.skip("builds the sdist from a checkout")
    subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "sdist", "-d", str(tmp_path)],
        cwd=ROOT, check=True, capture_output=True, timeout=300,
    )
    (archive,) = tmp_path.glob("torch_autofix-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    tracked = subprocess.run(
        ["git", "ls-files", "tests", "corpus"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()
    missing = [path for path in tracked if (ROOT / path).exists() and path not in names]
    assert not missing, missing
    assert {"tests/conftest.py", "tests/corpus_cases.py", "MANIFEST.in"} <= names
    assert any(name.startswith("tests/verify_cases/") for name in names)
    assert not [name for name in names if "__pycache__" in name]
