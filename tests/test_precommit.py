"""``.pre-commit-hooks.yaml``, exercised by pre-commit itself.

The hook repository is a fresh git repository holding a copy of this one's
package files (pre-commit installs hooks from a committed revision, and the
working tree here may hold uncommitted work). ``pre-commit try-repo`` then
builds the hook's virtualenv from it — installing autofix and its
dependencies with pip, so the package index must be reachable — and runs
the hooks on a small project.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autofix import api

ROOT = Path(__file__).resolve().parent.parent

# Building the hook's virtualenv (pip installing autofix and its dependencies)
# takes one to three minutes.
pytestmark = pytest.mark.slow

BUGGY = textwrap.dedent(
    """\
    import torch
    from torch import nn

    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)


    def train_step(x, y):
        opt.zero_grad()
        out = model(x)
        loss_a = out.pow(2).mean()
        loss_b = (out - y).abs().mean()
        loss_a.backward()
        loss_b.backward()
        opt.step()
    """
)


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def _package_files() -> list:
    """What ``pip install`` of the hook repository needs: tracked and not-ignored files."""
    listed = _git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard").splitlines()
    wanted = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "LICENSE")
    return [p for p in listed if p in wanted or p.startswith("autofix/")]


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in _package_files():
        source = ROOT / name
        if source.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "autofix hook repository")
    return repo


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # One cache for the module: the hook environment is built once.
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q")
    (tmp_path / "train.py").write_text(BUGGY)
    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.ones(2)\n")
    _git(tmp_path, "add", ".")
    return tmp_path


def _try_repo(project: Path, hook_repo: Path, home: Path, hook: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), hook, "--all-files", "--verbose"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_check_hook_fails_on_findings_and_passes_on_clean_code(hook_repo: Path, pre_commit_home: Path, project: Path) -> None:
    run = _try_repo(project, hook_repo, pre_commit_home, "autofix")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "autofix (check)" in run.stdout and "Failed" in run.stdout
    assert "AF101" in run.stdout
    assert (project / "train.py").read_text() == BUGGY  # the check hook writes nothing

    (project / "train.py").write_text(api.fix_source(BUGGY, "train.py").fixed.decode())
    _git(project, "add", ".")
    run = _try_repo(project, hook_repo, pre_commit_home, "autofix")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Passed" in run.stdout


def test_fix_hook_writes_the_safe_fixes(hook_repo: Path, pre_commit_home: Path, project: Path) -> None:
    run = _try_repo(project, hook_repo, pre_commit_home, "autofix-fix")
    # pre-commit fails a hook that modified files, so the fix can be reviewed.
    assert run.returncode == 1, run.stdout + run.stderr
    assert "files were modified by this hook" in run.stdout
    fixed = (project / "train.py").read_text()
    assert fixed == api.fix_source(BUGGY, "train.py").fixed.decode()
    assert fixed != BUGGY
    assert (project / "clean.py").read_text() == "import torch\n\nx = torch.ones(2)\n"
