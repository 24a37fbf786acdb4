"""Paths and sources in, :class:`~autofix.types.FileResult` values out.

No printing, no click, no writing: the CLI and the language server are thin
adapters over these functions.
"""

from __future__ import annotations

import os
from typing import Optional, Sequence, Type, Union

from autofix import engine, registry
from autofix.rule import Rule
from autofix.types import FileResult, Options


def rules_for(options: Options, path: Optional[str] = None) -> Sequence[Type[Rule]]:
    """The rules ``options`` selects for ``path`` (per-path ignores applied)."""
    ignore = list(options.ignore)
    if path is not None and options.per_path_ignores:
        from autofix.config import path_matches

        for pattern, codes in options.per_path_ignores:
            if path_matches(path, pattern):
                ignore.extend(codes)
    return registry.select_rules(options.select, ignore)


def fix_source(
    source: Union[str, bytes], path: str = "<stdin>", options: Options = Options()
) -> FileResult:
    """Check (and with ``options.fix``, fix) one source text."""
    if isinstance(source, str):
        source = source.encode("utf-8")
    return engine.check_source(source, path, rules_for(options, path), options)


def check_file(path: Union[str, "os.PathLike[str]"], options: Options = Options()) -> FileResult:
    """Read one file and check it; read errors come back as ``FileResult.error``."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            source = handle.read()
    except OSError as exc:
        return FileResult(name, None, None, error=f"cannot read file: {exc.strerror or exc}")
    return engine.check_source(source, name, rules_for(options, name), options)
