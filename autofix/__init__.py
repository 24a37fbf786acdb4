"""autofix: find, fix and verify PyTorch autograd-graph mistakes.

The public names are imported on first use (PEP 562), so that ``autofix
--version``, ``--help`` and files without trigger words never pay for
importing LibCST and the rules.
"""

from __future__ import annotations

# Not ``from typing import TYPE_CHECKING``: importing typing costs about as
# much as the interpreter's own start, and ``autofix --version`` pays it.
TYPE_CHECKING = False

__version__ = "0.1.0"
#: The name to ``pip install`` (the command and the import stay ``autofix``).
DISTRIBUTION = "torch-autofix"

__all__ = ["Applicability", "FileResult", "Finding", "Fix", "Options", "Rule", "check_file", "fix_source"]

_HOMES = {
    "check_file": "autofix.api",
    "fix_source": "autofix.api",
    "Fix": "autofix.rule",
    "Rule": "autofix.rule",
    "Applicability": "autofix.types",
    "FileResult": "autofix.types",
    "Finding": "autofix.types",
    "Options": "autofix.types",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from typing import Any

    from autofix.api import check_file, fix_source
    from autofix.rule import Fix, Rule
    from autofix.types import Applicability, FileResult, Finding, Options


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'autofix' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> "list[str]":
    return sorted([*globals(), *__all__])
