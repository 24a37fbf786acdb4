"""``[tool.autofix]`` in the nearest ``pyproject.toml`` → :class:`~autofix.types.Options`."""

from __future__ import annotations

from pathlib import PurePath

import pathspec


def path_matches(path: str, pattern: str) -> bool:
    """gitignore-style match of ``pattern`` against ``path`` (as used by per-path ignores)."""
    spec = pathspec.PathSpec.from_lines("gitwildmatch", [pattern])
    return spec.match_file(PurePath(path).as_posix())
