"""The ``autofix`` console script: ``--version`` without importing click.

``autofix --version`` is what scripts and bug reports run most, and importing
click costs twice the interpreter's own start. This entry answers that one
request itself, in click's ``version_option`` wording (a test holds the two to
the same text), and hands every other command line to :func:`autofix.cli.main`.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from typing import Optional, Sequence


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the console script and ``python -m autofix``; returns the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        from autofix import __version__

        sys.stdout.write(f"autofix, version {__version__}\n")
        return 0
    from autofix.cli import main as run

    return run(argv)
