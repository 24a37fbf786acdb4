"""Bad files and interruptions on real runs of ``python -m autofix``.

Each problem file gets its own clear message, the other files are still
checked, and the exit code says something went wrong (1). ``--write`` stopped
by SIGINT or SIGTERM leaves every file either entirely old or entirely new.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autofix import api, cli, discovery
from autofix.types import Options

posix_only = pytest.mark.skipif(os.name != "posix", reason="symlinks, signals")

# A real mistake with a safe fix (AF104: zero_grad() between backward() and step()).
TRAINING = """\
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.rand(8, 3)).pow(2).mean()
    loss.backward()
    opt.zero_grad()
    opt.step()
"""


def autofix(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autofix", *args], capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def bad_tree(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "train.py").write_text(TRAINING)
    (root / "clean.py").write_text("x = 1\n")
    (root / "nul.py").write_bytes(b"x = 1\x00\n")
    (root / "image.py").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00")
    (root / "latin1.py").write_bytes(b"# loss.backward()\nname = '\xe9t\xe9'\n")
    (root / "cookie.py").write_bytes(b"# -*- coding: klingon -*-\nloss.backward()\n")
    (root / "syntax.py").write_text("loss.backward(\n")
    (root / "huge.py").write_bytes(b"#" * (discovery.DEFAULT_MAX_FILE_SIZE + 1))
    if os.name == "posix":
        (root / "pkg").mkdir()
        (root / "pkg" / "model.py").write_text("y = 2\n")
        os.symlink("..", root / "pkg" / "loop")  # a directory cycle
        os.symlink("gone.py", root / "dangling.py")
        # Opening it fails for root too (ELOOP), as an unreadable file would for a user.
        os.symlink("selfref.py", root / "selfref.py")
    return root


EXPECTED = {
    "nul.py": "file contains a NUL byte (binary file?)",
    "image.py": "file contains a NUL byte (binary file?)",
    "latin1.py": "cannot decode file",
    "cookie.py": "cannot decode file: unknown encoding: klingon",
    "syntax.py": "syntax error",
    "huge.py": f"skipped: file is larger than {discovery.DEFAULT_MAX_FILE_SIZE} bytes",
}
EXPECTED_POSIX = {
    "dangling.py": "broken symbolic link",
    "selfref.py": "cannot access file: Too many levels of symbolic links",
}


def expected_errors() -> dict:
    return {**EXPECTED, **(EXPECTED_POSIX if os.name == "posix" else {})}


def test_each_bad_file_gets_its_message_and_the_run_goes_on(bad_tree):
    proc = autofix(str(bad_tree), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    errors = {Path(f["path"]).name: f["error"] for f in report["files"] if f["error"]}
    assert set(errors) == set(expected_errors())
    for name, message in expected_errors().items():
        assert errors[name].startswith(message), (name, errors[name])
    # The good files were checked all the same, the symlinked cycle walked once.
    assert [(Path(f["path"]).name, f["code"]) for f in report["findings"]] == [("train.py", "AF104")]
    checked = {Path(f["path"]).relative_to(bad_tree).as_posix() for f in report["files"]}
    assert {"train.py", "clean.py"} <= checked
    if os.name == "posix":
        assert "pkg/model.py" in checked
        assert not any("loop" in path for path in checked)


def test_text_output_names_every_bad_file(bad_tree):
    proc = autofix(str(bad_tree))
    assert proc.returncode == 1
    output = proc.stdout + proc.stderr
    for name, message in expected_errors().items():
        assert f"{bad_tree / name}: error: {message}" in output


def test_problem_files_alone_still_exit_1(bad_tree):
    proc = autofix(str(bad_tree / "nul.py"), str(bad_tree / "missing.py"))
    assert proc.returncode == 1
    assert "nul.py: error: file contains a NUL byte" in proc.stdout + proc.stderr
    assert "missing.py: error: no such file or directory" in proc.stdout + proc.stderr


def test_write_skips_bad_files_and_fixes_the_rest(bad_tree):
    before = {p.name: p.read_bytes() for p in bad_tree.iterdir() if p.is_file()}
    proc = autofix("--write", str(bad_tree))
    assert proc.returncode == 1, proc.stderr
    after = {p.name: p.read_bytes() for p in bad_tree.iterdir() if p.is_file()}
    assert after.pop("train.py") == api.fix_source(before.pop("train.py"), "train.py").fixed
    assert after == before


def test_directory_without_permission(bad_tree, monkeypatch, capsys):
    # We run as root, for whom permission bits change nothing; make listing the
    # directory fail as it does for a user without read permission. This proves
    # the handling from discovery to exit code, not the kernel's part.
    real_scandir = os.scandir

    def scandir(path="."):
        if os.path.basename(os.fspath(path)) == "locked":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    (bad_tree / "locked").mkdir()
    (bad_tree / "locked" / "secret.py").write_text(TRAINING)
    monkeypatch.setattr(discovery.os, "scandir", scandir)
    code = cli.main([str(bad_tree / "locked"), str(bad_tree / "clean.py"), "--jobs", "1"])
    out = capsys.readouterr()
    assert code == 1
    assert f"{bad_tree / 'locked'}: error: cannot read directory: Permission denied" in out.out + out.err


def test_unreadable_file(tmp_path, monkeypatch, capsys):
    # As above: as root nothing is unreadable by permission, so opening fails on demand.
    (tmp_path / "secret.py").write_text(TRAINING)
    (tmp_path / "train.py").write_text(TRAINING)
    real_open = open

    def fake_open(file, *args, **kwargs):
        if os.fspath(file).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(api, "open", fake_open, raising=False)
    code = cli.main([str(tmp_path), "--jobs", "1"])
    out = capsys.readouterr()
    assert code == 1
    text = out.out + out.err
    assert f"{tmp_path / 'secret.py'}: error: cannot read file: Permission denied" in text
    assert "AF104" in text


# --------------------------------------------------------------------------- interrupting --write


def _interrupt_write(root: Path, count: int, signum: int) -> tuple:
    """Start ``--write`` over ``count`` files, signal it once writing has begun."""
    fixed = api.fix_source(TRAINING, "train.py", Options()).fixed
    assert fixed is not None and fixed != TRAINING.encode()
    old, new = {}, {}
    for i in range(count):
        # Distinct files; the fix does not touch the first line, so new = header + fixed.
        path = root / f"train_{i:04d}.py"
        header = f"# copy {i}\n".encode()
        old[path] = header + TRAINING.encode()
        new[path] = header + fixed
        path.write_bytes(old[path])
    first = min(old)
    proc = subprocess.Popen(
        [sys.executable, "-m", "autofix", "--write", "--jobs", "2", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 240
    while proc.poll() is None and first.read_bytes() == old[first] and time.monotonic() < deadline:
        time.sleep(0.001)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err.decode(), old, new


@posix_only
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_write_leaves_every_file_old_or_new(tmp_path, signum):
    interrupted_midway = False
    for attempt in range(3):
        root = tmp_path / f"attempt{attempt}"
        root.mkdir()
        code, err, old, new = _interrupt_write(root, 60, signum)
        states = []
        for path in old:
            data = path.read_bytes()
            assert data in (old[path], new[path]), f"{path} is neither the old nor the new file"
            states.append(data == new[path])
        assert not [p.name for p in root.iterdir() if p.name.endswith(".autofix-tmp")]
        if code != 1:  # 1: it had already finished; the signal came too late to matter
            expected = 2 if signum == signal.SIGINT else -signal.SIGTERM
            assert code == expected, err
        if any(states) and not all(states):
            interrupted_midway = True
            break
    # The property held every time; make sure at least one run was cut mid-write.
    assert interrupted_midway, "the signal never landed while files were being written"
