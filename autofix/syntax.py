"""Python's own account of a syntax error: its message, the line and a caret.

LibCST's parser errors describe its grammar's internal state; users expect the
message ``python file.py`` would print, so that is what a per-file syntax
error says.
"""

from __future__ import annotations

import ast
from typing import Optional


def python_error(source: bytes, path: str = "<unknown>") -> Optional[str]:
    """The syntax error Python reports for ``source`` (None when Python parses it)."""
    try:
        ast.parse(source, filename=path)
    except SyntaxError as exc:
        return describe(exc)
    except (ValueError, RecursionError, MemoryError):
        return None  # not a syntax error: the caller keeps its own message
    return None


def describe(exc: SyntaxError) -> str:
    """``syntax error at LINE:COL: MESSAGE`` and, below, the line with a caret under the column."""
    line, column = exc.lineno or 1, exc.offset or 1
    head = f"syntax error at {line}:{column}: {exc.msg}"
    text = (exc.text or "").rstrip("\r\n")
    if not text.strip():
        return head
    indent = len(text) - len(text.lstrip())
    shown = text.strip()
    start = max(column - 1 - indent, 0)
    end = exc.end_offset if exc.end_lineno == exc.lineno and exc.end_offset else column + 1
    width = max(1, min(end - column, len(shown) - start) if end > column else 1)
    return f"{head}\n    {shown}\n    {' ' * start}{'^' * width}"
