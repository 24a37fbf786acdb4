"""Unified diffs: the only diff code in autofix."""

from __future__ import annotations

import difflib
import io
import re
from dataclasses import dataclass
from typing import List, Sequence, Tuple

import unidiff

NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(old: str, new: str, path: str, context: int = 3) -> str:
    """``git diff``-style text with ``a/`` and ``b/`` headers; empty when equal.

    A last line without a newline gets the ``\\ No newline at end of file``
    marker, as git and black print it, so the diff applies with ``patch``.
    """
    if old == new:
        return ""
    a = split_lines(old)
    b = split_lines(new)
    # difflib's matching costs far more than linear in the lines it is given:
    # diff only the changed middle and the context around it, then move the
    # hunk headers back to the file's line numbers.
    prefix, suffix = common_ends(a, b)
    lo = max(0, prefix - context)
    a = a[lo : len(a) - max(0, suffix - context)]
    b = b[lo : len(b) - max(0, suffix - context)]
    out: List[str] = []
    for line in difflib.unified_diff(a, b, f"a/{path}", f"b/{path}", n=context):
        if lo and line.startswith("@@ "):
            line = _HUNK.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + lo}", line)
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n")
            out.append(NO_NEWLINE)
    return "".join(out)


#: The start line of each side in a hunk header (``@@ -12,3 +12,4 @@``).
_HUNK = re.compile(r"([-+])(\d+)")


def common_ends(a: Sequence[str], b: Sequence[str]) -> Tuple[int, int]:
    """How many leading and (after those) trailing items ``a`` and ``b`` share."""
    limit = min(len(a), len(b))
    prefix = 0
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]:
        suffix += 1
    return prefix, suffix


def split_lines(text: str) -> List[str]:
    """Lines as git splits them: only ``\\n`` ends one (``\\r`` and form feeds are content), ends kept."""
    lines = text.split("\n")
    last = lines.pop()
    out = [line + "\n" for line in lines]
    if last:
        out.append(last)
    return out


def match_line_endings(old: str, new: str) -> str:
    """``new`` with each line it adds to ``old`` ending as its neighbours in ``old`` do.

    LibCST writes every new line with the file's first line ending; in a file
    that mixes CRLF and LF the inserted lines then differ from the lines
    around them. Files with one kind of ending come back unchanged (and cheaply).
    """
    crlf = old.count("\r\n")
    if not crlf or crlf == old.count("\n"):
        return new
    a = split_lines(old)
    b = split_lines(new)
    bare_a = [line.rstrip("\r\n") for line in a]
    bare_b = [line.rstrip("\r\n") for line in b]
    out: List[str] = []
    matcher = difflib.SequenceMatcher(None, bare_a, bare_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(a[i1:i2])
            continue
        # A changed line keeps its own ending; an added one takes the line above's (below's at the top).
        neighbour = a[i1 - 1] if i1 > 0 else (a[i2] if i2 < len(a) else "")
        for k, line in enumerate(b[j1:j2]):
            if line.endswith("\n"):
                model = a[i1 + k] if i1 + k < i2 else neighbour
                line = line.rstrip("\r\n") + ("\r\n" if model.endswith("\r\n") else "\n")
            out.append(line)
    return "".join(out)


@dataclass(frozen=True)
class DiffStats:
    """What a set of diffs changes, counted by ``unidiff`` from the diff text itself."""

    files: int = 0
    added: int = 0
    removed: int = 0

    def __add__(self, other: "DiffStats") -> "DiffStats":
        return DiffStats(self.files + other.files, self.added + other.added, self.removed + other.removed)

    def __str__(self) -> str:
        def n(count: int, noun: str) -> str:
            return f"{count} {noun}" if count == 1 else f"{count} {noun}s"

        return f"{n(self.files, 'file')} changed, {n(self.added, 'insertion')}(+), {n(self.removed, 'deletion')}(-)"


def diff_stats(diff: str) -> DiffStats:
    """Parse ``diff`` with ``unidiff``: a malformed diff raises ``ValueError``.

    Parsing what we print (rather than counting ``+`` lines ourselves) is the
    check that the diff is one ``patch``/``git apply`` will accept.
    """
    if not diff:
        return DiffStats()
    try:
        # newline="\\n": only \\n ends a line of the diff, as in git; \\r is content.
        patch = unidiff.PatchSet(io.StringIO(diff, newline="\n"))
    except unidiff.UnidiffParseError as exc:
        raise ValueError(f"autofix produced a malformed diff: {exc}") from exc
    return DiffStats(len(patch), patch.added, patch.removed)


_COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"


def colorize(diff: str) -> str:
    """ANSI colours for a terminal: bold headers, red removals, green additions, cyan hunks."""
    out = []
    for line in diff.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if line.startswith(("+++ ", "--- ")):
            colour = _BOLD
        else:
            colour = _COLOURS.get(line[:1], "")
        out.append(f"{colour}{body}{_RESET}{ending}" if colour else line)
    return "".join(out)
