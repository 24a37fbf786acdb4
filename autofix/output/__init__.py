"""Output formats: one module each, all rendering one :class:`~autofix.report.Outcome`.

Each module has ``emit(outcome, out, err, color)``: ``out`` gets the report
(or the diffs), ``err`` the human summary. Machine formats write exactly one
document to ``out`` and nothing else, so they can be piped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # the command line imports FORMATS before it knows it will report anything
    from autofix.report import Outcome

FORMATS = ("text", "json", "sarif", "github")
#: ``--output-format``, ruff's spelling: ``concise`` is ``text``; ``full`` adds code frames.
OUTPUT_FORMATS = ("concise", "full", "json", "sarif", "github")


def emit(fmt: str, outcome: Outcome, out: TextIO, err: TextIO, *, color: bool = False) -> None:
    if fmt == "text":
        from autofix.output import text as module
    elif fmt == "json":
        from autofix.output import json as module  # type: ignore[no-redef]
    elif fmt == "sarif":
        from autofix.output import sarif as module  # type: ignore[no-redef]
    elif fmt == "github":
        from autofix.output import github as module  # type: ignore[no-redef]
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose from {', '.join(FORMATS)}")
    module.emit(outcome, out, err, color=color)
