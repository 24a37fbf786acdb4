"""Diffs git can apply (issue 14, item 5).

Before the hardening work diffs split lines with ``str.splitlines``, which also
ends a line at a form feed or a bare CR: ``git apply --check`` refused them,
and inserted lines in a file mixing CRLF and LF took the file's first ending.
Each case here applies the printed diff with git and compares the result with
what ``--write`` produces.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def training(nl: str = "\n", form_feed: bool = False, bare_cr: bool = False) -> bytes:
    # The form feed and the bare CR sit inside the hunk's context, where they change its line count.
    lines = [
        "import torch",
        "import torch.nn as nn",
        "",
        "model = nn.Linear(3, 1)",
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
        "\f" if form_feed else "",
        "for step in range(3):",
        "    loss = model(torch.rand(8, 3)).pow(2).mean()",
        "    loss.backward()",
        "    opt.zero_grad()",
        "    opt.step()",
    ]
    text = nl.join(lines) + nl
    if bare_cr:
        # Python ends a line at a bare CR; git does not (the two lines are one for it).
        text = text.replace("lr=0.1)" + nl, "lr=0.1)\r")
    return text.encode()


def autofix(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autofix", *args], capture_output=True, cwd=cwd, timeout=300)


def applies_like_write(tmp_path: Path, source: bytes) -> bytes:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "config", "core.autocrlf", "false"], cwd=repo, check=True)
    (repo / "train.py").write_bytes(source)
    diff = autofix("--diff", "train.py", cwd=repo)
    assert diff.returncode == 1, diff.stderr
    (tmp_path / "fix.patch").write_bytes(diff.stdout)
    check = subprocess.run(["git", "apply", "--check", str(tmp_path / "fix.patch")], cwd=repo, capture_output=True)
    assert check.returncode == 0, check.stderr.decode()
    subprocess.run(["git", "apply", str(tmp_path / "fix.patch")], cwd=repo, check=True)
    patched = (repo / "train.py").read_bytes()
    (repo / "train.py").write_bytes(source)
    write = autofix("--write", "train.py", cwd=repo)
    assert write.returncode in (0, 1), write.stderr
    assert (repo / "train.py").read_bytes() == patched
    return patched


def test_form_feeds_and_bare_carriage_returns(tmp_path):
    source = training(form_feed=True, bare_cr=True)
    patched = applies_like_write(tmp_path, source)
    assert b"lr=0.1)\r\f\n" in patched


def test_crlf_file(tmp_path):
    patched = applies_like_write(tmp_path, training("\r\n"))
    assert patched.count(b"\r\n") == patched.count(b"\n")


def test_mixed_endings_inserted_lines_end_like_their_neighbours(tmp_path):
    # CRLF first (what LibCST copies), then LF where the fix inserts its line.
    head, _, body = training().partition(b"model")
    source = head.replace(b"\n", b"\r\n") + b"model" + body
    patched = applies_like_write(tmp_path, source)
    assert b"    opt.zero_grad()\n    loss.backward()\n" in patched
    assert b"\r\n    opt.zero_grad()" not in patched
    assert patched.startswith(b"import torch\r\nimport torch.nn as nn\r\n")


def test_git_line_splitting():
    from autofix.diff import split_lines

    assert split_lines("a\fb\rc\r\nd") == ["a\fb\rc\r\n", "d"]
    assert split_lines("") == [] and split_lines("x\n") == ["x\n"]


def test_endings_follow_neighbours_only_in_mixed_files():
    from autofix.diff import match_line_endings

    assert match_line_endings("a\r\nb\r\n", "a\r\nx\r\nb\r\n") == "a\r\nx\r\nb\r\n"
    assert match_line_endings("a\r\nb\nc\n", "a\r\nb\nx\r\nc\n") == "a\r\nb\nx\nc\n"
    assert match_line_endings("a\r\nb\nc\n", "a\r\nB\r\nc\n") == "a\r\nB\nc\n"
