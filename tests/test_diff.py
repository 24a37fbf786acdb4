"""diff.py: git-style unified diffs, checked and counted through unidiff, coloured on demand."""

from __future__ import annotations

import difflib
import subprocess
import shutil

import pytest

from autofix.diff import DiffStats, colorize, diff_stats, unified_diff


def test_equal_texts_give_no_diff():
    assert unified_diff("a\n", "a\n", "x.py") == ""
    assert diff_stats("") == DiffStats(0, 0, 0)


def test_headers_and_hunks():
    diff = unified_diff("a\nb\nc\n", "a\nB\nc\n", "src/x.py")
    assert diff == "--- a/src/x.py\n+++ b/src/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    assert diff_stats(diff) == DiffStats(1, 1, 1)


def test_missing_final_newline_is_marked():
    diff = unified_diff("a\nb", "a\nB", "x.py")
    assert diff.endswith("-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n")
    assert diff_stats(diff) == DiffStats(1, 1, 1)


def test_crlf_lines_survive_in_the_diff():
    diff = unified_diff("a\r\nb\r\n", "a\r\nB\r\nc\r\n", "x.py")
    assert "-b\r\n+B\r\n+c\r\n" in diff
    assert diff_stats(diff) == DiffStats(1, 2, 1)


def test_stats_add_up_and_read_like_git():
    total = DiffStats(1, 2, 1) + DiffStats(1, 1, 0)
    assert total == DiffStats(2, 3, 1)
    assert str(total) == "2 files changed, 3 insertions(+), 1 deletion(-)"


def test_malformed_diff_is_an_error():
    with pytest.raises(ValueError, match="malformed"):
        diff_stats("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n")


def test_colour_wraps_lines_but_keeps_line_endings():
    diff = unified_diff("a\r\nb\r\n", "a\r\nB\r\n", "x.py")
    coloured = colorize(diff)
    assert "\x1b[31m-b\x1b[0m\r\n" in coloured
    assert "\x1b[32m+B\x1b[0m\r\n" in coloured
    assert "\x1b[1m--- a/x.py\x1b[0m\n" in coloured
    assert "\x1b[36m@@ -1,2 +1,2 @@\x1b[0m\n" in coloured


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs patch(1)")
def test_patch_applies_the_diff(tmp_path):
    old, new = "a\nb\nc", "a\nB\nc\nd\n"
    (tmp_path / "x.py").write_text(old)
    diff = unified_diff(old, new, "x.py")
    subprocess.run(["patch", "-p1", "-s"], input=diff.encode(), cwd=tmp_path, check=True)
    assert (tmp_path / "x.py").read_text() == new


def test_a_change_deep_in_a_long_file_keeps_the_file_line_numbers():
    # Only the changed middle is matched; the hunks must still be the ones difflib
    # prints for the whole file.
    old_lines = [f"line {i}\n" for i in range(1, 201)]
    new_lines = list(old_lines)
    new_lines[99] = "changed 100\n"
    new_lines.insert(150, "added after 150\n")
    old, new = "".join(old_lines), "".join(new_lines)
    expected = "".join(difflib.unified_diff(old_lines, new_lines, "a/x.py", "b/x.py"))
    assert unified_diff(old, new, "x.py") == expected
    assert "@@ -97,7 +97,7 @@" in expected
