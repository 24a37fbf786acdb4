"""Unified diffs: the only diff code in autofix."""

from __future__ import annotations

import difflib
from typing import List

NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(old: str, new: str, path: str, context: int = 3) -> str:
    """``git diff``-style text with ``a/`` and ``b/`` headers; empty when equal.

    A last line without a newline gets the ``\\ No newline at end of file``
    marker, as git and black print it, so the diff applies with ``patch``.
    """
    if old == new:
        return ""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    out: List[str] = []
    for line in difflib.unified_diff(a, b, f"a/{path}", f"b/{path}", n=context):
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n")
            out.append(NO_NEWLINE)
    return "".join(out)
